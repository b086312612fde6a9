"""Rules that make zygote_py's own API differentiable: ``zpy.gradient``
and ``zpy.value_and_gradient`` called inside a function being
differentiated (nested differentiation, to any order).

The gradient of ``f`` at ``args`` is computed by a Python function whose
source zygote_py can read (:func:`zygote_py.runtime.gradient_function`: the
gradient function it emitted for ``f``, or ``f``'s rule and its pullback):
differentiating the call is differentiating that function again, as Zygote
differentiates its own output. ``f``'s captured variables (the outer
function's variables, in ``lambda y: x * y``) are that function's captured
variables too, so their gradients reach the outer function: no
perturbation confusion. Registered by :mod:`zygote_py.api`, which defines
the functions.

- ``gradient(f, *args)``: the gradients of the gradients; ``f`` gets its
  captured variables' (a ``Tangent``).
- ``value_and_gradient(f, *args)``: the same, with the value's cotangent
  too.
- ``runtime.seed`` (the output's cotangent 1),
  ``numpy_linalg.real_matrices`` and ``runtime.is_number_zero`` (tests)
  and ``runtime.position`` (how many items an iterator has yielded, which
  rules read) have no gradient.
- The run-time helpers emitted gradient code calls are linear in the
  gradients they take: ``accum(a, b)`` and ``add_into(g, v)`` pass their
  cotangent to both,
  ``unbroadcast(dy, x)`` broadcasts it back to ``dy``'s shape,
  ``scatter(x, key, dy)`` reads ``dy``'s part at ``key`` (``picked``,
  whose own cotangent goes back through ``scatter``), and ``add_at``
  and ``add_to`` (``g + scatter(x, key, dy)``) do both; ``scatters(x,
  keys, values)`` reads each value's part through ``gather``, whose own
  cotangent goes back through ``scatters``;
  ``numpy_reductions.extremum_grad`` (``max``'s gradient) gathers it back
  from the elements it selected; ``field``, ``attribute_gradient``,
  ``without_field``, ``like_iterable``, ``sequence_gradient``, ``repeated``,
  ``user_gradient``, ``item_buffer``, ``item_gradient``, ``number_buffer``
  and ``number_gradient`` move gradients about, and their cotangents go back the same way.
- ``runtime.J`` and ``runtime.call_pullback``, which gradient code calls
  for what it cannot see at compile time (a callee known only at run time,
  an object's construction, a helper that changes its argument, and every
  call in second-order code: third derivatives): ``J``'s rule keeps the
  call in a ``runtime.Pullback`` (with a copy of an object the call
  changes), and ``call_pullback``'s differentiates that pullback through
  code that recomputes it from the call's arguments (see
  ``ad.pipeline.vjp_plan``). ``runtime.forward_changing``, the call of a
  helper that changes its argument in place, has a rule like ``J``'s.
- That machinery differentiated again (fourth derivatives and up, third
  ones through calls known only at run time) is Python code zygote_py
  reads, made of calls with rules: ``Pullback.plan`` (``vjp_plan``) only
  decides how (it has no derivative), ``runtime.copied``, ``dense``, ``bound_object`` and
  ``shares_cells`` pass their cotangents through,
  ``runtime.raw_cotangent`` and ``call_cotangent`` rearrange them (each
  the other's adjoint), a ``Pullback``'s gradient is a ``Tangent`` of its
  fields ``f`` and ``args`` (``runtime.pullback_gradient``), and
  ``runtime.push``, forward mode through a call whose pullback reads none
  of its arguments' values, goes back through that call's pullback.
- ``mutation.take_item_owned`` (which may change the gradient it takes in
  place) is differentiated as ``mutation.take_item``, which copies it;
  ``numpy_shapes.unsort`` (``np.sort``'s gradient, which writes into an
  array it makes) reads its cotangent back in sorted order.

Their pushforwards, for forward mode over emitted gradient code (``zpy.hvp``
and ``zpy.hessian``, forward-over-reverse), apply each helper to the
tangents of the gradients it takes: it is linear in them.
"""
import collections
import collections.abc
import operator
import types
from typing import Any

import numpy as np

from zygote_py import errors, runtime, tangent
from zygote_py.ir import ops
from zygote_py.rules import numpy_linalg, numpy_reductions, numpy_shapes

from .. import registry
from ..registry import adjoint, nondifferentiable, pushforward

from zygote_py.rules import nested  # noqa: E402  (the rules below name their helpers through it)

nondifferentiable(runtime.seed, numpy_linalg.real_matrices, runtime.nestlevel, runtime.changing_method,
                  runtime.position, runtime.Pullback.plan, runtime.adds_in_python,
                  tangent.fields, runtime.is_number_zero, runtime.arrays.is_array, runtime.arrays.is_foreign)


@adjoint(runtime.copied)
def copied(values, changed=None):
    def back(g):
        return (g, None)
    return runtime.copied(values, changed), back


@adjoint(runtime.cached_value)
def cached_value(obj, name, computed):
    def back(dy):  # (the value cached is the one computed, checked: its gradient is that one's)
        return (None, None, dy)
    return runtime.cached_value(obj, name, computed), back


@pushforward(runtime.cached_value)
def cached_value_push(y, obj, name, computed, *, dcomputed):
    return dcomputed


@adjoint(runtime.accum)
def accum(a, b):
    def back(dy):
        return (nested.term_like(a, dy), nested.term_like(b, dy))
    return runtime.accum(a, b), back


def term_like(a, dy):
    """The cotangent ``dy`` of a sum of gradients, for the term ``a``: an
    array's as an array where the sum is a list (see ``tangent.add``)."""
    if a is None:
        return None
    if isinstance(a, np.ndarray) and isinstance(dy, (tuple, list)):
        return runtime.like_iterable(a, list(dy))
    return dy


@adjoint(runtime.add_into)
def add_into(g, v):
    def back(dy):
        return (dy, dy)
    return g + v, back


@adjoint(runtime.unbroadcast)
def unbroadcast(dy, x):
    def back(g):
        if g is None:
            return (None, None)
        dense = runtime.dense(g)
        if not np.iscomplexobj(dy) and np.iscomplexobj(dense):
            dense = np.real(dense)  # (a real dy made complex, x's dtype: its cotangent is the real part)
        if not np.shape(dy):
            return (dense, None)
        # broadcast back to dy's shape (zeros of dense's library: CuPy refuses a NumPy operand)
        zeros = np.zeros_like(dense, shape=np.shape(dy)) if runtime.arrays.is_foreign(dense) else np.zeros(np.shape(dy))
        full = dense + zeros
        if np.shape(full) != np.shape(dy):  # (a dy of fewer dimensions, which x's shape stretched)
            return (runtime.unbroadcast(full, dy), None)
        return (full, None)
    return runtime.unbroadcast(dy, x), back


@adjoint(runtime.spread)
def spread(dy, a):
    def back(g):
        return (runtime.unbroadcast(g, dy), None)
    return runtime.spread(dy, a), back


@adjoint(runtime.scatter)
def scatter(x, key, dy):
    def back(g):
        return (None, None, None if g is None else runtime.unbroadcast(runtime.picked(g, key), dy))
    return runtime.dense(runtime.scatter(x, key, dy)), back


@adjoint(runtime.picked)
def picked(g, key):
    def back(c):
        return (runtime.scatter(g, key, c), None)
    return runtime.picked(g, key), back


@adjoint(runtime.arrays.asarray)
def arrays_asarray(a):
    """An array as it is (another library's too: ``np.asarray``'s rule
    would compute a Dask array), a number or a sequence as ``np.asarray``
    makes it (its gradient of ``a``'s kind)."""
    y = runtime.arrays.asarray(a)

    def back(dy):
        if runtime.arrays.is_array(a):
            return (dy,)
        return (numpy_shapes.like(dy, a) if y.dtype.kind in "fc" else None,)
    return y, back


@adjoint(runtime.arrays.as_library)
def arrays_as_library(v, x):
    """The same values in ``x``'s library: the cotangent passes through
    (of ``x``'s library, as the gradients of the NumPy constants a rule
    mixes with another library's arrays are)."""
    def back(dy):
        return (dy, None)
    return runtime.arrays.as_library(v, x), back


@adjoint(runtime.scatters)
def scatters(x, keys, values):
    def back(g):
        return (None, None, runtime.gather(g, keys, values))
    return runtime.dense(runtime.scatters(x, keys, values)), back


@adjoint(runtime.gather)
def gather(g, keys, values):
    def back(d):
        return (runtime.scatters(g, keys, d), None, None)
    return runtime.gather(g, keys, values), back


@adjoint(runtime.repeated)
def repeated(dy, n):
    def back(g):
        total = None
        for item in g or ():
            total = runtime.accum(total, item)
        return (total, None)
    return runtime.repeated(dy, n), back


@adjoint(runtime.user_gradient)
def user_gradient(x, g):
    """``g`` as ``zpy.gradient`` returns it (dense, shaped like ``x``):
    the same vector."""
    def back(dy):
        return (None, dy)
    return runtime.user_gradient(x, g), back


@adjoint(runtime.item_buffer)
def item_buffer(g, x):
    """The gradient of an array as a list of its items' gradients (in
    gradient code differentiated again): the list's gradient is the
    array's."""
    def back(dl):
        if dl is None or g is None or runtime.is_number_zero(g):
            return (None, None)
        return (np.asarray(runtime.dense(dl), dtype=x.dtype), None)
    return runtime.item_buffer(g, x), back


@adjoint(runtime.item_gradient)
def item_gradient(values, x):
    def back(dg):
        return (None if dg is None else np.asarray(runtime.dense(dg)).tolist(), None)
    return runtime.item_gradient(values, x), back


@adjoint(runtime.number_buffer)
def number_buffer(g):
    """The gradient of a float vector as a list of its items' gradients (in
    gradient code differentiated again): the list's gradient is the
    array's (0 for an item that got none: one the loop did not take)."""
    def back(dl):
        if dl is None or g is None or runtime.is_number_zero(g):
            return (None,)
        return (np.array([0.0 if v is None else v for v in runtime.dense(dl)]),)
    return runtime.number_buffer(g), back


@adjoint(runtime.number_gradient)
def number_gradient(values):
    def back(dg):
        if dg is None or type(values) is not list:
            return (None,)
        return (np.asarray(runtime.dense(dg)).tolist(),)
    return runtime.number_gradient(values), back


@adjoint(runtime.sequence_gradient)
def sequence_gradient(n, key, dy, is_tuple):
    def back(g):
        return (None, None, None if g is None else g[key], None)
    return runtime.sequence_gradient(n, key, dy, is_tuple), back


@adjoint(runtime.field)
def field(grad, name):
    """The gradient of a field of a structural gradient is that field's
    (a dict's entry for the dict a pullback builds its closure's in)."""
    def back(g):
        if g is None or grad is None:
            return (None, None)
        return ({name: g} if isinstance(grad, dict) else tangent.Tangent(**{name: g}), None)
    return runtime.field(grad, name), back


@adjoint(runtime.field_gradient)
def field_gradient(obj, name, dy):
    """Linear in ``dy``: an object's gradient holding ``dy`` for its field
    ``name``; the cotangent of that field's entry goes back to ``dy``."""
    def back(g):
        return (None, None, runtime.field(g, name))
    return runtime.field_gradient(obj, name, dy), back


@adjoint(runtime.without_field)
def without_field(grad, name):
    """A structural gradient without one field's entry: its cotangent
    goes back to the other entries."""
    def back(g):
        return (runtime.without_field(g, name), None)
    return runtime.without_field(grad, name), back


@adjoint(runtime.attribute_gradient)
def attribute_gradient(obj, name, dy):
    """Linear in ``dy``: the gradient of ``obj``'s attribute ``name``, read
    back from the gradient of ``obj``."""
    grad = runtime.attribute_gradient(obj, name, dy)

    def back(g):
        if g is None or grad is None:
            return (None, None, None)
        if grad is dy:  # (a method's gradient, its object's)
            return (None, None, g)
        if isinstance(grad, tangent.Tangent) and name == "__dict__":  # (the fields', by name: a dict's)
            return (None, None, {k: runtime.field(g, k) for k in dy})
        if isinstance(grad, tangent.Tangent):
            return (None, None, runtime.field(g, name))
        if isinstance(obj, tuple):  # a namedtuple's field
            return (None, None, g[obj._fields.index(name)])
        if name in ("T", "mT"):
            return (None, None, runtime.attribute_gradient(obj, name, runtime.dense(g)))
        raise errors.NoDerivativeRule(
            f"no rule for the derivative of the gradient of a complex number's {name!r}",
            hint="differentiate to second order")
    return grad, back


@adjoint(runtime.like_iterable)
def like_iterable(iterable, grads, start=0):
    n = len(grads)

    def back(g):
        if g is None or runtime.is_number_zero(g) or isinstance(iterable, collections.abc.Mapping):
            return (None, None, None)
        if isinstance(iterable, (tuple, list, np.ndarray, runtime.EagerIterator)):
            return (None, [g[start + i] for i in range(n)], None)
        return (None, g, None)
    return runtime.like_iterable(iterable, grads, start), back


@adjoint(runtime.add_at)
@adjoint(runtime.add_to)
def add_at(g, x, key, dy):
    def back(c):
        if c is None:
            return (None, None, None, None)
        return (c, None, None, runtime.unbroadcast(runtime.picked(c, key), dy))
    return runtime.dense(g) + runtime.dense(runtime.scatter(x, key, dy)), back


@adjoint(numpy_shapes.unsort)
def unsort(dy, a, idx, axis):
    """``np.sort``'s gradient (``dy`` put back where each element came
    from) is linear in ``dy``: its cotangent is read back in sorted order."""
    def back(w):
        if w is None:
            return (None, None, None, None)
        dense = np.broadcast_to(runtime.dense(w), np.shape(a))
        return (runtime.unbroadcast(np.take_along_axis(dense, idx, axis), dy), None, None, None)
    return numpy_shapes.unsort(dy, a, idx, axis), back


@adjoint(runtime.J)
@adjoint(runtime.J_nested)
def J(f, /, *args, **kwargs):
    """``J`` in gradient code being differentiated again (a second
    derivative through calls known only at run time, a third derivative):
    its pullback becomes a :class:`runtime.Pullback`, whose gradient (the
    inputs' through it, from the rule of ``call_pullback``) adds to those
    through the value."""
    changed = runtime.changed_position(f, args)
    kept = runtime.copied(args, changed)  # (the call, or the code after it, may change them in place)
    y, raw = runtime.J(f, *args, **kwargs)
    pullback = runtime.Pullback(raw, f, kept, kwargs, changed=changed)

    def back(dout):  # (the callee's gradient, the positional arguments', then the keyword arguments')
        dy, dpullback = (None, None) if dout is None else dout
        grads = runtime.call_pullback(pullback, dy)[:1 + len(args) + len(kwargs)]
        if dpullback is None:
            return grads
        return runtime.accum(grads, runtime.call_gradient(dpullback, len(args), tuple(kwargs)))
    return (y, pullback), back



def J_forward(args, kwargs, dargs, dkwargs, held=False):
    """Forward mode through ``J`` (gradient code pushed forward: ``zpy.hvp``
    of a function whose gradient calls what the compiler could not see, or
    another function): the call pushed forward (``held``: see
    ``runtime.push``), and its pullback a :class:`runtime.Pullback` that
    keeps the call (made again when it is called), whose tangent is that of
    its fields ``f`` and ``args``, as its gradient is
    (:func:`runtime.pullback_gradient`)."""
    (f, *fargs), (df, *dfargs) = args, dargs
    mutable = [isinstance(a, (list, dict, np.ndarray)) for a in fargs]
    own = f in registry.CHANGES_IN_PLACE  # (one of the mutation pass's changes: see below)
    if f in registry.RUNS_USERS_CODE and f not in runtime.MACHINERY_PUSHES:
        _refuse_change(f)  # (its pullback runs once: pushing it by its adjoint would run it once per component)
    if any(mutable) and not own and any(type(a) is collections.defaultdict for a in fargs):
        _refuse_change(f)  # (before the call changes anything; reading a defaultdict may add a key)
    changed = runtime.changed_position(f, fargs)
    kept, dkept = runtime.copied(tuple(fargs), changed), runtime.copied(tuple(dfargs), changed)  # (as they were)
    # A change the mutation pass made explicit gives the changed object back, and the gradient code reads it
    # (and each name for it) from there on: its tangent is pushed on copies, leaving the tangents given (which
    # may be the caller's, or another value's) as they were.
    given = runtime.copied(tuple(dfargs), changed) if own else tuple(dfargs)
    y, dy = runtime.push(f, tuple(fargs), kwargs, given, dkwargs, df, held)
    helper = getattr(f, "__module__", None) == runtime.unbroadcast.__module__  # (gives back a gradient it takes)
    if not own and any(m and (y is a and not helper or not tangent.same(a, before))
                       for m, a, before in zip(mutable, fargs, kept)):
        _refuse_change(f)
    pullback = runtime.Pullback(None, f, kept, kwargs, changed=changed, held=held)
    return (y, pullback), (dy, runtime.pullback_gradient(df, dkept, dict(dkwargs) if kwargs else None))


def _refuse_change(f):
    """A call changing its argument in place, made by gradient code pushed
    forward: the argument's tangent would have to change in place too, and
    it may be the caller's."""
    raise errors.NoDerivativeRule(
        f"forward mode through a call of {registry.display_name(f)} that changes its argument in place, made in "
        "gradient code at run time, is not supported",
        hint="use reverse mode over the gradient: zpy.gradient of a function calling zpy.gradient")


def call_pullback_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through ``call_pullback(pullback, dy)`` for a pullback
    :func:`J_forward` made: the gradients' tangent is the pushforward of the
    code that computes them from the call's inputs and ``dy`` (``V`` of
    ``ad.pipeline.vjp_plan``) along the inputs' tangents (the pullback's)
    and ``dy``'s, brought back to ``J``'s convention (``from_v``)."""
    (pullback, dy), (dpullback, ddy) = args, dargs
    if dy is None:
        none = runtime.call_pullback(pullback, dy)
        return none, none  # (no gradients, whose tangents are none)
    if type(pullback) is not runtime.Pullback or pullback.cells is not None and pullback.cells[1]:
        raise errors.NoDerivativeRule(  # (forward_with_cells_forward refuses a call assigning its cells)
            "forward mode through a pullback that was not made by a call in the code pushed forward (or that "
            "assigns a closure's variables, nonlocal) is not supported",
            hint="use reverse mode over the gradient: zpy.gradient of a function calling zpy.gradient")
    plan = pullback.plan()
    grads = runtime.call_pullback(pullback, dy)
    if plan is None:
        return grads, runtime.zero_tangent(grads)
    v, _, from_v, method = plan
    if v is None:  # (linear in dy, independent of the inputs)
        if runtime.is_zero_tangent(ddy):
            return grads, runtime.zero_tangent(grads)
        return grads, runtime.call_pullback(runtime.J(pullback.f, *pullback.fresh(), **pullback.kwargs)[1], ddy)
    df, dfargs = runtime.field(dpullback, "f"), runtime.field(dpullback, "args")
    dfargs = (None,) * len(pullback.args) if dfargs is None else tuple(dfargs)
    vargs = (runtime.bound_object(pullback.f), *pullback.fresh()) if method else pullback.fresh()
    dvargs = (df, *dfargs) if method else dfargs
    with pullback.lent():  # (V's captured variables are f's, and a closure's cells hold what they held at the call)
        _, dv = runtime.push(v, (dy, *vargs), pullback.kwargs, (ddy, *dvargs),
                             runtime.field(dpullback, "kwargs") or {}, None if method else df, pullback.held)
    return grads, runtime.zero_tangent(grads) if dv is None else from_v(dv)


def forward_changing_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through ``forward_changing(f, position, args)`` (gradient
    code's call of a function that changes an argument in place): ``f``
    pushed forward once, the changed arguments' tangents copies of their own
    that change as they do, and its pullback a :class:`runtime.Pullback`
    that keeps the call and the arguments as they were (made again when it
    is called, see :func:`call_pullback_forward`), whose tangent is that of
    ``f`` and those arguments."""
    (f, position, fargs), (df, _, dfargs) = args, dargs
    fargs = tuple(fargs)
    dfargs = (None,) * len(fargs) if dfargs is None else tuple(dfargs)
    positions = position if type(position) is tuple else (position,)
    kept, dkept = runtime.copied(fargs, positions[0]), runtime.copied(dfargs, positions[0])
    given = tuple(runtime.owned(d, a) if i in positions else d for i, (a, d) in enumerate(zip(fargs, dfargs)))
    y, dy = runtime.push(f, fargs, {}, given, {}, df)
    pullback = runtime.Pullback(None, f, kept, {}, param_out=position, changed=positions[0])
    return (((y, *(fargs[p] for p in positions)), pullback),
            ((dy, *(given[p] for p in positions)), runtime.pullback_gradient(df, dkept)))


def forward_with_cells_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through ``forward_with_cells(f, shared, written, values,
    args)`` (gradient code's call of a nested function sharing cells with
    its caller): the closure pushed forward once, its cells lent the values
    they held at the call, its tangent ``f``'s with the cells' entries the
    tangents of those values; its pullback a :class:`runtime.Pullback`
    keeping those values and the arguments as they were, whose tangent is
    the closure's and the arguments'. One that assigns the cells
    (``nonlocal``), or that captures other differentiated values while
    the closure has no tangent here, is refused before it runs."""
    (f, shared, written, values, fargs), (df, _, _, dvalues, dfargs) = args, dargs
    if written or runtime.is_zero_tangent(df) and runtime.captures_differentiable(f, frozenset(shared)):
        raise errors.NoDerivativeRule(  # (a closure whose other captured variables' tangents are not known here)
            f"forward mode over the gradient of a call of {registry.display_name(f)}, which "
            + (f"assigns its caller's variable {written[0]!r} (nonlocal)," if written else
               "captures differentiated values besides those its caller changes,") + " is not supported",
            hint="pass the values it needs to it as arguments, or use reverse mode over the gradient: "
            "zpy.gradient of a function calling zpy.gradient")
    fargs = tuple(fargs)
    dfargs = (None,) * len(fargs) if dfargs is None else tuple(dfargs)
    dvalues = (None,) * len(shared) if dvalues is None else tuple(dvalues)
    kept, held, dkept = runtime.copied(fargs), runtime.copied(values), runtime.copied(dfargs)
    entries = {} if runtime.is_zero_tangent(df) else dict(tangent.entries(df))
    entries.update((n, d) for n, d in zip(shared, runtime.copied(dvalues)) if not runtime.is_zero_tangent(d))
    dclosure = tangent.Tangent(f.__code__.co_freevars, **entries) if entries else None
    with runtime.lent_cells(f, shared, values):
        y, dy = runtime.push(f, fargs, {}, dfargs, {}, dclosure)
    pullback = runtime.Pullback(None, f, kept, {}, cells=(shared, written, held))
    return (y, pullback), (dy, runtime.pullback_gradient(dclosure, dkept))


def gradient_function_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through ``gradient_function(f, args)``: the gradient
    function shares ``f``'s captured variables, and so their tangents (as
    its gradient is ``f``'s)."""
    return runtime.gradient_function(*args, **kwargs), dargs[0]


runtime.MACHINERY_PUSHES.update({
    runtime.gradient_function: gradient_function_forward,
    runtime.J: J_forward,
    runtime.J_nested: runtime.nested(J_forward),
    runtime.call_pullback: call_pullback_forward,
    runtime.forward_changing: forward_changing_forward,
    runtime.forward_with_cells: forward_with_cells_forward,
})

@adjoint(runtime.dense)
def dense(grads):
    """The same gradients, concrete: its cotangent passes through."""
    def back(c):
        return (c,)
    return runtime.dense(grads), back


@adjoint(runtime.shares_cells)
def shares_cells(v, f):
    def back(g):
        return (None, g)
    return runtime.shares_cells(v, f), back


@adjoint(runtime.bound_object)
def bound_object(f):
    def back(g):
        return (g,)
    return runtime.bound_object(f), back


@adjoint(runtime.pullback_gradient)
def pullback_gradient(df, dargs, dkwargs=None):
    def back(c):
        return (runtime.field(c, "f"), runtime.field(c, "args"), runtime.field(c, "kwargs"))
    return runtime.pullback_gradient(df, dargs, dkwargs), back


@adjoint(runtime.forward_changing)
def forward_changing(f, position, args):
    """``forward_changing`` (a call of a function that changes an argument
    in place, see ``mutation.call_changing``) in gradient code being
    differentiated: as :func:`J`'s rule, its pullback a
    :class:`runtime.Pullback` that knows the changed argument."""
    kept = runtime.copied(args, position)
    y, raw = runtime.forward_changing(f, position, args)
    pullback = runtime.Pullback(raw, f, kept, {}, param_out=position, changed=position)

    def back(dout):
        dy, dpullback = (None, None) if dout is None else dout
        grads = runtime.call_pullback(pullback, dy)[:1 + len(args)]
        if dpullback is not None:
            grads = runtime.accum(grads, runtime.call_gradient(dpullback, len(args)))
        return (grads[0], None, tuple(grads[1:]))
    return (y, pullback), back


@adjoint(runtime.forward_with_cells)
def forward_with_cells(f, shared, written, values, args):
    """``forward_with_cells`` (a call of a nested function that shares
    cells with its caller, see ``mutation.call_with_cells``) in gradient
    code being differentiated: as :func:`J`'s rule, its pullback a
    :class:`runtime.Pullback` that knows the values the cells held. The
    gradients of those values are the entries of the closure's gradient for
    those cells."""
    kept, held = runtime.copied(args), runtime.copied(values)  # (as they were: the call may change them in place)
    y, raw = runtime.forward_with_cells(f, shared, written, values, args)
    pullback = runtime.Pullback(raw, f, kept, {}, cells=(shared, written, held))

    def back(dout):
        dy, dpullback = (None, None) if dout is None else dout
        grads = runtime.call_pullback(pullback, dy)[:1 + len(args)]
        if dpullback is not None:
            grads = runtime.accum(grads, runtime.call_gradient(dpullback, len(args)))
        dclosure, dvalues = runtime.cells_gradient(grads[0], shared)
        dcells = runtime.field(dpullback, "cells")  # (read by code that reads the pullback's fields)
        if dcells is not None:
            dvalues = runtime.accum(dvalues, dcells[2])
        return (dclosure, None, None, dvalues, tuple(grads[1:]))
    return (y, pullback), back


@adjoint(runtime.raw_cotangent)
def raw_cotangent(fn, self_active, sig, nargs, keywords, w):
    """Linear in ``w``, which it rearranges: its cotangent goes back
    through :func:`runtime.call_cotangent`, which rearranges it back."""
    def back(c):
        return (None, None, None, None, None, runtime.call_cotangent(fn, self_active, sig, nargs, keywords, c))
    return runtime.raw_cotangent(fn, self_active, sig, nargs, keywords, w), back


@adjoint(runtime.call_cotangent)
def call_cotangent(fn, self_active, sig, nargs, keywords, raw):
    def back(c):
        return (None, None, None, None, None, runtime.raw_cotangent(fn, self_active, sig, nargs, keywords, c))
    return runtime.call_cotangent(fn, self_active, sig, nargs, keywords, raw), back


@adjoint(runtime.call_pullback)
def call_pullback(pullback, dy):
    """The pullback of a :class:`runtime.Pullback` (a derivative of
    gradient code that calls it) is that of a function computing it from
    the call's inputs and ``dy`` (see ``ad.pipeline.vjp_plan``): its
    gradient is the gradient of the call's callee and inputs
    (``runtime.pullback_gradient``). A call whose pullback reads none of
    its inputs' differentiated values gives them none, and ``dy`` the call's
    pushforward of the cotangent."""
    grads = runtime.call_pullback(pullback, dy)

    def back(w):
        if dy is None or w is None:
            return (None, None)
        if type(pullback) is not runtime.Pullback:
            raise errors.NoDerivativeRule(
                "differentiating a pullback that was not made in the code being differentiated is not supported",
                hint="differentiate the function that makes the pullback")
        plan = pullback.plan()
        if plan is None:
            return (None, None)
        v, to_v, _, method = plan
        vargs = (runtime.bound_object(pullback.f), *pullback.fresh()) if method else pullback.fresh()
        if v is None:
            dargs = runtime.dense(tuple(w[1:1 + len(vargs)]))  # (as tangents: no lazy cotangents)
            d = runtime.push(pullback.f, vargs, pullback.kwargs, dargs, {})[1]
            if runtime.arrays.is_array(dy) and isinstance(d, (tuple, list)):
                # (an array's gradient that a list's pullback split into items: dy's own is an array again)
                d = runtime.like_iterable(dy, list(d))
            return (None, d)
        v = runtime.shares_cells(v, pullback.f)  # (V's captured variables are f's)
        if pullback.cells is None:
            _, v_back = runtime.J(v, dy, *vargs, **pullback.kwargs)
        else:  # (V assigns the cells as the call did, lent the values they held)
            shared, written, values = pullback.cells
            _, v_back = runtime.forward_with_cells(v, shared, written, runtime.copied(values), (dy, *vargs))
            if written:  # (its cotangent: its value's, and none for the values it leaves in the cells)
                cells_back = v_back
                v_back = lambda c: cells_back((c, (None,) * len(written)))  # noqa: E731
        n = 2 + len(vargs)  # (V's own gradient, dy's, vargs', then the keyword arguments')
        g = v_back(to_v(w))[:n + len(pullback.kwargs)]
        df, dargs = (g[2], g[3:n]) if method else (g[0], g[2:n])
        dkwargs = dict(zip(pullback.kwargs, g[n:])) if pullback.kwargs else None
        return (runtime.pullback_gradient(df, tuple(dargs), dkwargs), g[1])
    return grads, back


@adjoint(runtime.push)
def push(f, args, kwargs, dargs, dkwargs):
    """The pushforward of a call whose pullback reads none of its
    arguments' values (the derivative of such a pullback, see
    ``call_pullback``'s rule, differentiated again): its tangent is linear
    in ``dargs`` and independent of ``args``, so the tangent's cotangent
    goes back to ``dargs`` through the call's pullback, as the value's goes
    to ``args``."""
    if not nested.reads_no_values(f):
        raise errors.NoDerivativeRule(
            f"reverse mode over forward mode through a call of {registry.display_name(f)} is not supported",
            hint="differentiate in reverse mode throughout: zpy.gradient of zpy.gradient instead of zpy.hvp or zpy.jvp")
    n = len(args)
    changed = runtime.changed_position(f, args)
    kept = runtime.copied(args, changed)  # (as J's rule keeps them: the call may change them in place)

    def back(c):
        cy, cdy = (None, None) if c is None else c
        gy = runtime.call_pullback(runtime.J(f, *runtime.copied(kept, changed), **kwargs)[1], cy)[1:1 + n]
        gd = runtime.call_pullback(runtime.J(f, *runtime.copied(kept, changed), **kwargs)[1], cdy)[1:1 + n]
        return (None, tuple(gy), None, tuple(gd), None)
    return runtime.push(f, args, kwargs, dargs, dkwargs), back


@adjoint(runtime.gradient_function)
def gradient_function(f, args, kwargs=None):
    """The gradient function made from ``f``'s code shares its captured
    variables: its gradient is ``f``'s."""
    def back(dg):
        return (dg, None, None)
    return runtime.gradient_function(f, args, kwargs), back


def gradient(f, *args):
    out, pullback = runtime.J_nested(runtime.gradient_function(f, args), *args)

    def back(dy):
        return runtime.call_pullback(pullback, (None, dy))[:1 + len(args)]
    return runtime.user_gradient(args, out[1]), back


def value_and_gradient(f, *args):
    out, pullback = runtime.J_nested(runtime.gradient_function(f, args), *args)

    def back(dy):
        return runtime.call_pullback(pullback, dy)[:1 + len(args)]
    return (out[0], runtime.user_gradient(args, out[1])), back


def pullback(f, *args):
    """``zpy.pullback`` in a function being differentiated: the value
    through ``J``, and a ``back`` that computes the gradients by code
    zygote_py reads (``J`` again, and its pullback), so that a call of it is
    differentiated in turn; ``back``'s own gradient, a ``Tangent`` of the
    ``f`` and ``args`` it captures, goes back to them."""
    y, pb = runtime.J_nested(f, *args)

    def back_user(dy):
        return runtime.user_gradient(args, runtime.J_nested(f, *args)[1](dy)[1:1 + len(args)])

    def back(c):
        cy, cback = (None, None) if c is None else c
        grads = runtime.call_pullback(pb, cy)[:1 + len(args)]
        return grads if cback is None else runtime.accum(grads, runtime.call_gradient(cback, len(args)))
    return (y, back_user), back


def forward_mode(f, primals, tangents):
    """``zpy.jvp`` in a function differentiated in reverse mode: its value,
    and a pullback that refuses (forward mode's machinery is no code
    zygote_py differentiates)."""
    def back(dy):
        raise errors.NoDerivativeRule(
            "reverse mode over forward mode (zpy.gradient of a function that calls zpy.jvp) is not supported",
            hint="nest zpy.gradient (reverse over reverse), or take zpy.hessian of the function")
    return runtime.push(f, tuple(primals), {}, tuple(tangents), {}), back


def value_and_gradient_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through ``zpy.value_and_gradient(f, *xs)`` (``jvp`` of
    a gradient is forward-over-reverse): the pushforward of the gradient
    code emitted for ``f`` (or of its rule and pullback), which gives the
    value too, from one run (``f`` may change its arguments in place, as
    the call does, and their tangents change alike). ``f``'s tangent, a
    closure's (of the variables it captures), is its gradient function's."""
    (f, *xs), (df, *dxs) = args, dargs
    if kwargs:
        raise errors.NoDerivativeRule(
            "forward mode over zpy.gradient with keyword arguments is not supported",
            hint="bind them in a lambda: zpy.gradient(lambda x: f(x, k=2.0), x)")
    xs, dxs = tuple(xs), tuple(dxs)
    (y, grads), (dy, dgrads) = runtime.push(runtime.gradient_function(f, xs), xs, {}, dxs, {}, df)
    return (y, runtime.user_gradient(xs, grads)), (dy, runtime.user_gradient(xs, dgrads))


def gradient_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through ``zpy.gradient(f, *xs)``: see
    :func:`value_and_gradient_forward`."""
    (_, grads), (_, dgrads) = value_and_gradient_forward(args, kwargs, dargs, dkwargs)
    return grads, dgrads


def run_grad(f, argnums, has_aux, value, bound, args, kwargs):
    """A call of the function ``zpy.grad(f, argnums)`` (or
    ``value_and_grad``) returned, in a function being differentiated: as
    :func:`value_and_gradient`, its gradients picked at ``argnums``; the
    cotangent of those goes back to them, ``f``'s to ``f``."""
    nested.nested_grad_supported(has_aux, kwargs)
    out, pullback = runtime.J_nested(runtime.gradient_function(f, args), *args)
    grads = runtime.user_gradient(args, out[1])
    picked = grads[argnums] if isinstance(argnums, int) else tuple(grads[i] for i in argnums)

    def back(dy):
        dvalue, dgrads = dy if value else (None, dy)
        given = {argnums: dgrads} if isinstance(argnums, int) else dict(zip(argnums, dgrads or (None,) * len(argnums)))
        full = tuple(given.get(i) for i in range(len(args)))
        g = runtime.call_pullback(pullback, (dvalue, full))[:1 + len(args)]
        return (g[0], None, None, None, None, tuple(g[1:]), None)
    return ((out[0], picked) if value else picked), back


def run_grad_forward(args, kwargs, dargs, dkwargs):
    """Forward mode through a call of ``zpy.grad(f)``'s function
    (``jacfwd(grad(f))`` is forward-over-reverse): as
    :func:`value_and_gradient_forward`, picked at ``argnums``; keyword
    arguments and a partial's bound arguments are constants."""
    f, argnums, has_aux, value, _, xs, keywords = args
    nested.nested_grad_supported(has_aux, {})
    fn, full, dfull, keywords = runtime.unpartial(f, xs, dargs[5], keywords)
    (y, grads), (dy, dgrads) = runtime.push(runtime.gradient_function(fn, full, keywords), full, keywords, dfull, {},
                                            dargs[0] if fn is f else None)
    skip = len(full) - len(xs)
    grads, dgrads = runtime.user_gradient(xs, grads[skip:]), runtime.user_gradient(xs, dgrads[skip:])
    picked, dpicked = ((g[argnums] if isinstance(argnums, int) else tuple(g[i] for i in argnums))
                       for g in (grads, dgrads))
    return ((y, picked), (dy, dpicked)) if value else (picked, dpicked)


def nested_grad_supported(has_aux, kwargs):
    """Refuse to differentiate a call of ``zpy.grad(f, has_aux=True)``'s
    function, or one with keyword arguments, again."""
    if has_aux or kwargs:
        raise errors.NoDerivativeRule(
            "differentiating again a call of the function zpy.grad returned, with has_aux=True or with keyword "
            "arguments, is not supported",
            hint="bind the keyword arguments in a lambda (zpy.grad(lambda x: f(x, training=False))), and "
            "differentiate a function without aux again")


nondifferentiable(nested_grad_supported)


@adjoint(numpy_reductions.extremum_grad)
def extremum_grad(dy, a, y, axis, keepdims):
    def back(g):
        if g is None:
            return (None, None, None, None, None)
        shares = numpy_reductions.extremum_grad(np.ones(np.shape(dy)), a, y, axis, keepdims)
        ddy = np.sum(runtime.dense(g) * shares, axis=axis, keepdims=keepdims)
        return (np.reshape(ddy, np.shape(dy)), None, None, None, None)
    return numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), back


@pushforward(runtime.copied)
def copied_push(y, values, changed=None, *, dvalues):
    return dvalues


@pushforward(runtime.take)
def take_push(y, iterable, *, diterable):
    """The tangents of the items a rule reads (``max(iterable)``'s): the
    iterable's own where the items are the iterable (a tuple, a list),
    else those of the items it yielded; its position has none."""
    items = y[0]
    if items is iterable:
        return (diterable, None)
    tangents = iter(runtime.tangent_of_items(iterable, None if runtime.is_zero_tangent(diterable) else diterable))
    return ([next(tangents) for _ in items], None)


@pushforward(runtime.cells_gradient)
def cells_gradient_push(y, dclosure, names, *, ddclosure):
    return runtime.cells_gradient(ddclosure, names)


@pushforward(runtime.dense)
def dense_push(y, grads, *, dgrads):
    return runtime.dense(dgrads)


@pushforward(runtime.bound_object)
def bound_object_push(y, f, *, df):
    return df


@pushforward(runtime.shares_cells)
def shares_cells_push(y, v, f, *, dv, df):
    return df


@pushforward(runtime.pullback_gradient)
def pullback_gradient_push(y, df, dargs, dkwargs=None, *, ddf, ddargs, ddkwargs):
    return runtime.pullback_gradient(ddf, ddargs, ddkwargs)


@pushforward(runtime.raw_cotangent)
def raw_cotangent_push(y, fn, self_active, sig, nargs, keywords, w, *, dw):
    return runtime.raw_cotangent(fn, self_active, sig, nargs, keywords, dw)


@pushforward(runtime.call_cotangent)
def call_cotangent_push(y, fn, self_active, sig, nargs, keywords, raw, *, draw):
    return runtime.call_cotangent(fn, self_active, sig, nargs, keywords, draw)


@pushforward(runtime.accum)
def accum_push(y, a, b, *, da, db):
    return runtime.accum(da, db)


@pushforward(runtime.add_into)
def add_into_push(y, g, v, *, dg, dv):
    return dg + dv


@pushforward(runtime.unbroadcast)
def unbroadcast_push(y, dy, x, *, ddy):
    return runtime.unbroadcast(ddy, x)


@pushforward(runtime.spread)
def spread_push(y, dy, a, *, ddy):
    return runtime.spread(ddy, a)


@pushforward(numpy_shapes.unsort)
def unsort_push(y, dy, a, idx, axis, *, ddy):
    return numpy_shapes.unsort(ddy, a, idx, axis)


@pushforward(runtime.scatter)
def scatter_push(y, x, key, dy, *, ddy):
    return runtime.scatter(x, key, ddy)


@pushforward(runtime.arrays.asarray)
def arrays_asarray_push(y, a, *, da):
    if runtime.arrays.is_array(a) or runtime.arrays.is_foreign(da):  # (a number's tangent may be a Dask array)
        return da
    return numpy_shapes.tangent_as(numpy_shapes.dense(da, a), y)


@pushforward(runtime.arrays.as_library)
def arrays_as_library_push(y, v, x, *, dv):
    return runtime.arrays.as_library(dv, x)


@pushforward(runtime.picked)
def picked_push(y, g, key, *, dg):
    return runtime.picked(dg, key)


@pushforward(runtime.scatters)
def scatters_push(y, x, keys, values, *, dvalues):
    return runtime.scatters(x, keys, dvalues)


@pushforward(runtime.gather)
def gather_push(y, g, keys, values, *, dg):
    return runtime.gather(dg, keys, values)


@pushforward(runtime.repeated)
def repeated_push(y, dy, n, *, ddy):
    return runtime.repeated(ddy, n)


@pushforward(runtime.user_gradient)
def user_gradient_push(y, x, g, *, dg):
    return runtime.user_gradient(x, dg)


@pushforward(runtime.item_buffer)
def item_buffer_push(y, g, x, *, dg):
    return runtime.item_buffer(dg, x)


@pushforward(runtime.item_gradient)
def item_gradient_push(y, values, x, *, dvalues):
    return runtime.item_gradient(dvalues, x)


@pushforward(runtime.number_buffer)
def number_buffer_push(y, g, *, dg):
    return runtime.number_buffer(dg)


@pushforward(runtime.number_gradient)
def number_gradient_push(y, values, *, dvalues):
    return runtime.number_gradient(dvalues)


@pushforward(runtime.sequence_gradient)
def sequence_gradient_push(y, n, key, dy, is_tuple, *, ddy):
    return runtime.sequence_gradient(n, key, ddy, is_tuple)


@pushforward(runtime.field)
def field_push(y, grad, name, *, dgrad):
    return runtime.field(dgrad, name)


@pushforward(runtime.field_gradient)
def field_gradient_push(y, obj, name, dy, *, ddy):
    return runtime.field_gradient(obj, name, ddy)


@pushforward(runtime.without_field)
def without_field_push(y, grad, name, *, dgrad):
    return runtime.without_field(dgrad, name)


@pushforward(runtime.attribute_gradient)
def attribute_gradient_push(y, obj, name, dy, *, ddy):
    return runtime.attribute_gradient(obj, name, ddy)


@pushforward(runtime.like_iterable)
def like_iterable_push(y, iterable, grads, start=0, *, dgrads):
    return runtime.like_iterable(iterable, dgrads, start)


@pushforward(runtime.add_at)
@pushforward(runtime.add_to)
def add_at_push(y, g, x, key, dy, *, dg, ddy):
    return runtime.add_at(dg, x, key, ddy)


@pushforward(numpy_reductions.extremum_grad)
def extremum_grad_push(y, dy, a, m, axis, keepdims, *, ddy):
    return numpy_reductions.extremum_grad(ddy, a, m, axis, keepdims)


def reads_no_values(f: Any) -> bool:
    """Whether the pullback of a call of ``f`` reads none of its arguments'
    differentiated values: ``f`` has a rule and is registered with
    ``registry.READS_NO_VALUES`` (below, and the changes in place, whose
    pullbacks move gradients about as a list's stack does in gradient code:
    see ``ad.mutation.operations``), or it is a namedtuple's or plain
    dataclass's constructor (each field's gradient goes to its argument)."""
    if type(f) in (types.FunctionType, types.BuiltinFunctionType, type) and f in registry.READS_NO_VALUES:
        return registry.lookup(f) is not None
    return isinstance(f, type) and runtime.field_constructor(f) is not None


registry.READS_NO_VALUES(
    operator.getitem, operator.add, operator.sub, operator.neg, operator.pos, float,
    ops.build_tuple, ops.build_list, ops.build_dict, ops.unpack, ops.unpack_starred,
    runtime.accum, runtime.spread_positional, runtime.field, runtime.sequence_gradient, runtime.like_iterable,
    runtime.repeated, runtime.item_buffer, runtime.item_gradient, runtime.number_buffer, runtime.number_gradient,
    runtime.user_gradient,
    runtime.attribute_gradient, runtime.scatter, runtime.scatters, runtime.gather, runtime.unbroadcast,
    runtime.add_to, runtime.add_at, runtime.picked,
)
