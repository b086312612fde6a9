"""Derivatives built on the two modes: Jacobians, Hessian-vector products
and Hessians.

- ``jacobian`` takes, per argument, one pushforward per input element
  (forward mode) when the output has more elements than the inputs
  together, else one pullback per output element (reverse mode).
- ``hvp`` and ``hessian`` are forward-over-reverse: the pushforward of the
  gradient code zygote_py emitted for ``f`` (:func:`runtime.gradient_function`,
  whose source the forward transform reads like any function's). Where
  forward mode refuses that code, they fall back to reverse-over-reverse,
  the gradient of the directional derivative ``gradient(f, x) · v`` (see
  :mod:`zygote_py.rules.nested`).

Each runs ``f`` on copies of its arguments (:func:`fresh`), so that
every run sees them as given where ``f`` changes them in place, and the
caller's arguments are left as they were.

Every one takes pytrees (``zpy.tree``'s: tuples, lists, dicts,
namedtuples, objects through their fields) as arguments and outputs, and
lays its result out as JAX does: the output's structure, then at each of
its leaves the input's (``hessian(f, {"w": w, "s": s})["w"]["s"]``); an
object's place holds a ``Tangent``, as its gradient does. A leaf that is
no float (an ``int``, a boolean mask, a string) has no derivative: its
blocks are ``None``. Keyword arguments are constants.

May import: the public API (:mod:`.api`), the runtime, :mod:`.tangent` and
:mod:`.tree`.
"""
from __future__ import annotations

import copy
import functools
from typing import Any, Callable, Optional

import numpy as np

from . import registry, runtime, tangent, tree
from .api import _given_tangent, _located, _pullback, gradient, jvp
from .errors import WrongArguments, ZygoteError
from .tangent import Tangent


def jacobian(f: Callable, /, *args: Any, **kwargs: Any) -> tuple:
    """The Jacobian of ``f`` at ``args``: for each positional argument, an
    array of shape ``np.shape(f(*args)) + np.shape(arg)`` (as JAX and
    autograd lay it out), zeros where no derivative flows; for pytrees, the
    output's structure holding at each leaf a tuple of the arguments'
    structures. Forward mode when the output is larger than the inputs,
    else reverse mode. With no arguments, JAX's spelling: the function
    ``lambda *args: jacobian(f, *args)`` (``zpy.jacobian(f)(x)``)."""
    if not args:
        return _transform(jacobian, f, kwargs)
    wanted = tuple(range(len(args)))
    y = f(*fresh(args), **kwargs)
    if _size(y) > _size(args):
        try:
            return _jacobian_forward(f, args, kwargs, wanted, y)
        except ZygoteError:
            pass  # (what forward mode refuses, reverse mode may not)
    return _jacobian_reverse(f, args, kwargs, wanted)


def _transform(derivative: Callable, f: Callable, kwargs: dict) -> Callable:
    """``derivative(f, *args, **kwargs)`` as a function of ``args``, for
    :func:`jacobian` or :func:`hessian` called as JAX's transforms are
    (``argnums=``, ``has_aux=`` are JAX's: ``zpy.jacfwd``/``zpy.jacrev``
    take ``argnums``)."""
    if kwargs:
        name = derivative.__name__
        raise WrongArguments(
            f"{name}(f) takes no keyword arguments of its own ({', '.join(kwargs)}): keyword arguments go to f "
            f"with the arguments, {name}(f, x, k=v) or {name}(f)(x, k=v)",
            function=getattr(f, "__qualname__", None),
            hint="for argnums write zpy.jacfwd(zpy.grad(f, argnums), argnums)" if name == "hessian"
            else "for argnums write zpy.jacrev(f, argnums)")

    @functools.wraps(f)
    def transformed(*args: Any, **kw: Any) -> Any:
        if not args:
            raise WrongArguments(f"{derivative.__name__}(f)(...) needs the arguments to differentiate at",
                                 function=getattr(f, "__qualname__", None))
        return derivative(f, *args, **kw)
    return transformed


def fresh(args: tuple) -> tuple:
    """Copies of the arguments ``args`` (``copy.deepcopy``'s, one memo:
    two arguments sharing an array share its copy), for one run of a
    function that a derivative runs more than once. An argument that
    ``copy.deepcopy`` cannot copy is passed as it is."""
    memo: dict = {}
    out = []
    for a in args:
        try:
            out.append(copy.deepcopy(a, memo))
        except Exception:  # noqa: BLE001  (whatever its __deepcopy__ or __reduce__ raises)
            out.append(a)
    return tuple(out)


def _size(x: Any) -> int:
    """The number of float elements in the tree ``x``."""
    return sum(int(np.size(v)) for v in tree.leaves(x) if is_float(v))


def is_float(v: Any) -> bool:
    """Whether the leaf ``v`` has derivatives: a float or complex number
    or array."""
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "fc"
    return isinstance(v, (float, complex, np.floating, np.complexfloating))


def shaped(x: Any) -> Any:
    """The tree ``x`` with each object (a dataclass, an object of a class
    of the user's) as a ``Tangent`` of its fields: the structure its
    gradients and tangents have, with ``x``'s leaves."""
    node = tree._node(x)  # (zpy.tree's reading of a node, so that the leaves come in its order)
    if node is None or node.kind == "none":
        return x
    children = [shaped(c) for c in node.children]
    if node.kind == "object":
        return Tangent(node.keys, **dict(zip(node.keys, children)))
    return tree._build(node, children)


_ABSENT = object()


def leaves_like(template: Any, g: Any) -> list:
    """The leaves of the gradient (or tangent) ``g`` of the tree whose
    :func:`shaped` form is ``template``, in ``template``'s leaf order:
    ``None`` where ``g`` has none (a ``None`` subtree: no gradient)."""
    marked = tree.map(lambda _: _ABSENT, template)
    found = tree.map(lambda _, v: v, marked, g)
    return [None if v is _ABSENT else v for v in tree.leaves(found)]


def _unit(x: Any, k: tuple) -> Any:
    """The unit tangent of the leaf ``x`` at its element ``k``, of ``x``'s
    kind: a float for a number, an array of ``x``'s shape otherwise."""
    if not isinstance(x, np.ndarray):
        return 1.0
    e = np.zeros(x.shape, dtype=float)
    e[k] = 1.0
    return e


def _zero(x: Any) -> Any:
    return np.zeros(x.shape) if isinstance(x, np.ndarray) else 0.0


def _directions(xs: list) -> list[tuple[int, tuple, list]]:
    """``(leaf, element, leaves)`` for each element of each float leaf of
    ``xs``: the leaves of the unit direction along it (zeros at the other
    float leaves, ``None`` at the others)."""
    out = []
    for i, x in enumerate(xs):
        if is_float(x):
            for k in np.ndindex(np.shape(x)):
                out.append((i, k, [(_unit(v, k) if j == i else _zero(v)) if is_float(v) else None
                                   for j, v in enumerate(xs)]))
    return out


def _inputs(args: tuple, wanted: tuple | int) -> Any:
    """The differentiated arguments as one tree: the argument at ``wanted``
    for an int, a tuple of those at ``wanted`` for a tuple."""
    return args[wanted] if isinstance(wanted, int) else tuple(args[i] for i in wanted)


def _per_argument(t: Any, wanted: tuple | int, n: int) -> tuple:
    """One tangent per argument of ``n`` from ``t``, the tangent of the
    arguments at ``wanted`` (see :func:`_inputs`); ``None`` for the
    others."""
    given = {wanted: t} if isinstance(wanted, int) else dict(zip(wanted, t))
    return tuple(given.get(j) for j in range(n))


def _jacobian_forward(f: Callable, args: tuple, kwargs: dict, wanted: tuple | int, y: Any) -> Any:
    """The Jacobian by forward mode: one ``jvp`` per element of the float
    leaves of the arguments at ``wanted``; ``y`` is ``f``'s output."""
    inputs = shaped(_inputs(args, wanted))
    xs, xdef = tree.flatten(inputs)
    ys, ydef = tree.flatten(shaped(y))
    columns: list[list[list]] = [[[] for _ in xs] for _ in ys]  # [output leaf][input leaf] → its columns
    for i, _, unit in _directions(xs):
        dy = jvp(f, fresh(args), _per_argument(tree.unflatten(xdef, unit), wanted, len(args)), **kwargs)[1]
        for o, d in enumerate(leaves_like(shaped(y), dy)):
            columns[o][i].append(None if d is None else np.asarray(d))
    return tree.unflatten(ydef, [tree.unflatten(xdef, [_columns(columns[o][i], yl, x) for i, x in enumerate(xs)])
                                 for o, yl in enumerate(ys)])


def _columns(cols: list, y: Any, x: Any) -> Optional[np.ndarray]:
    """A forward-mode block: the columns (tangents of the output leaf
    ``y``, one per element of ``x``) side by side."""
    if not (is_float(y) and is_float(x)):
        return None
    shape = np.shape(y) + np.shape(x)
    if not cols:
        return np.zeros(shape)
    return np.stack([np.zeros(np.shape(y)) if c is None else np.broadcast_to(c, np.shape(y)) for c in cols],
                    axis=-1).reshape(shape)


def _jacobian_reverse(f: Callable, args: tuple, kwargs: Optional[dict] = None,
                      wanted: Optional[tuple | int] = None) -> Any:
    """The Jacobian by reverse mode: one pullback per element of the
    float leaves of ``f``'s output (``wanted``: every argument, by
    default)."""
    kwargs = kwargs or {}
    wanted = tuple(range(len(args))) if wanted is None else wanted
    nums = (wanted,) if isinstance(wanted, int) else wanted
    y, back = _pullback(f, fresh(args), kwargs, nums)
    inputs = shaped(_inputs(args, wanted))
    xs, xdef = tree.flatten(inputs)
    ys, ydef = tree.flatten(shaped(y))
    rows: list[list[list]] = [[[] for _ in xs] for _ in ys]  # [output leaf][input leaf] → its rows
    for o, _, unit in _directions(ys):
        grads = back(tree.unflatten(ydef, unit))
        for i, g in enumerate(leaves_like(inputs, _inputs(grads, wanted))):
            rows[o][i].append(None if g is None else np.asarray(g))
    return tree.unflatten(ydef, [tree.unflatten(xdef, [_rows(rows[o][i], yl, x) for i, x in enumerate(xs)])
                                 for o, yl in enumerate(ys)])


def _rows(rows: list, y: Any, x: Any) -> Optional[np.ndarray]:
    """A reverse-mode block: the rows (gradients of the input leaf ``x``,
    one per element of ``y``) stacked."""
    if not (is_float(y) and is_float(x)):
        return None
    shape = np.shape(y) + np.shape(x)
    if not rows:
        return np.zeros(shape)
    return np.stack([np.zeros(np.shape(x)) if r is None else np.broadcast_to(r, np.shape(x)) for r in rows]) \
        .reshape(shape)


def hvp(f: Callable, primals: tuple, vectors: tuple, **kwargs: Any) -> tuple:
    """The Hessian of a real-scalar-valued ``f`` at ``primals`` times
    ``vectors`` (one per argument, each shaped like it; ``None`` for one
    held fixed, as an argument with no derivative is): one entry per
    argument. Keyword arguments are constants."""
    _check_vectors(f, primals, vectors)
    primals, vectors = tuple(primals), tuple(vectors)
    fn, full, directions, kwargs = runtime.unpartial(f, primals, vectors, kwargs)
    skip = len(full) - len(primals)
    runtime.NEST[0] += 1
    try:
        g = runtime.gradient_function(fn, full, kwargs)
        _, (_, dgrads) = runtime.push(g, fresh(full), kwargs, directions, {})
        return tuple(runtime.user_gradient(x, d) for x, d in zip(primals, dgrads[skip:]))
    except ZygoteError as e:
        if "forward mode" not in e.message:
            raise _located(e, f) from None
    finally:
        runtime.NEST[0] -= 1
    return _hvp_reverse(f, fresh(primals), vectors, kwargs)


def _check_vectors(f: Callable, primals: Any, vectors: Any) -> None:
    """Raise unless :func:`hvp`'s ``vectors`` are as :func:`jvp`'s
    tangents must be (structure, shapes, one per primal; ``None``: held
    fixed). (Not differentiated: a gradient of ``hvp`` reads the vectors
    as they are.)"""
    if not isinstance(primals, (tuple, list)) or not isinstance(vectors, (tuple, list)):
        raise WrongArguments("hvp: primals and vectors must be tuples (or lists), one item per argument",
                             function=getattr(f, "__qualname__", None),
                             hint="write zpy.hvp(f, (x,), (v,)) for one argument")
    if len(primals) != len(vectors):
        raise WrongArguments(f"hvp: {len(vectors)} vectors for {len(primals)} primals, one per argument",
                             function=getattr(f, "__qualname__", None), hint="give None for an argument held fixed")
    for x, v in zip(primals, vectors):
        if v is not None:
            _given_tangent(x, v, f, "hvp")


registry.nondifferentiable(_check_vectors)


def _hvp_reverse(f: Callable, primals: tuple, vectors: tuple, kwargs: dict) -> tuple:
    def directional(*xs):
        total = 0.0
        for g, v in zip(gradient(f, *xs, **kwargs), vectors):
            total = total + _inner(g, v)
        return total

    try:
        return gradient(directional, *primals)
    except ZygoteError as e:
        raise _located(e, f) from None


def _inner(g: Any, v: Any) -> Any:
    """The sum of ``g * v`` over the leaves of a gradient ``g`` and a
    direction ``v`` of one structure (tuples, lists, dicts, objects'
    fields; ``None``: zero), written so that zygote_py differentiates it in
    ``g``. For complex leaves it is the real inner product
    ``Re(sum(conj(v) * g))``, the derivative of a real loss along ``v`` in
    the convention ``g = dL/dx + i dL/dy``."""
    if g is None or v is None:
        return 0.0
    if isinstance(v, (tuple, list)):
        return sum([_inner(a, b) for a, b in zip(g, v)])
    if isinstance(v, dict):
        return sum([_inner(g.get(k), x) for k, x in v.items()])
    if isinstance(g, Tangent):
        return sum([_inner(runtime.field(g, k), tangent.value(v, k)) for k in tangent.fields(v)])
    return np.real(np.sum(np.conj(v) * g))


def hessian(f: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """The Hessian of a real-scalar-valued ``f`` at ``args``: for one
    argument an array of shape ``shape + shape``; for several, a tuple of
    tuples of blocks, ``H[i][j]`` of shape ``args[i].shape + args[j].shape``.
    For pytrees, JAX's nesting (``H["w"]["s"]`` for a dict argument); the
    blocks of a leaf with no derivative (an int, a boolean mask) are
    ``None``. One :func:`hvp` per element of the float leaves. With no
    arguments, JAX's spelling: the function ``lambda *args: hessian(f,
    *args)`` (``zpy.hessian(f)(x)``)."""
    if not args:
        return _transform(hessian, f, kwargs)
    if all(isinstance(a, (np.ndarray, int, float, complex, np.generic)) for a in args):
        return _hessian_of_leaves(f, args, kwargs)
    wanted = 0 if len(args) == 1 else tuple(range(len(args)))
    inputs = shaped(_inputs(args, wanted))
    xs, xdef = tree.flatten(inputs)
    columns: list[list[list]] = [[[] for _ in xs] for _ in xs]  # [gradient leaf][input leaf] → its columns
    for j, _, unit in _directions(xs):
        vectors = _per_argument(tree.unflatten(xdef, unit), wanted, len(args))
        for i, d in enumerate(leaves_like(inputs, _inputs(hvp(f, args, vectors, **kwargs), wanted))):
            columns[i][j].append(None if d is None else np.asarray(d, dtype=float))
    return tree.unflatten(xdef, [tree.unflatten(xdef, [_columns(columns[i][j], a, b) for j, b in enumerate(xs)])
                                 for i, a in enumerate(xs)])


def _hessian_of_leaves(f: Callable, args: tuple, kwargs: dict) -> Any:
    """:func:`hessian` where every argument is a number or an array,
    written without ``zpy.tree`` so that zygote_py differentiates it too
    (the gradient of a Hessian)."""
    shapes = [np.shape(a) for a in args]
    floats = [is_float(a) for a in args]
    blocks = [[None] * len(args) for _ in args]
    for j, shape in enumerate(shapes):
        if not floats[j]:
            continue
        columns = []
        for k in np.ndindex(shape):
            vectors = [_zero(a) if floats[i] else None for i, a in enumerate(args)]
            vectors[j] = _unit(args[j], k)
            columns.append(hvp(f, args, tuple(vectors), **kwargs))
        for i, s in enumerate(shapes):
            if floats[i]:
                blocks[i][j] = np.stack([np.zeros(s) if c[i] is None else np.asarray(c[i], dtype=float)
                                         for c in columns], axis=-1).reshape(s + shape)
    return blocks[0][0] if len(args) == 1 else tuple(tuple(row) for row in blocks)
