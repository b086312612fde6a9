"""Forward mode of calls unknown at compile time: :func:`push` finds the
pushforward, the adjoint rule (one pullback per component), the Python
method or the compiled function for a callee and returns its value and
tangent; tangents of attributes, stores and in-place operators.

May import: the rule table, the runtime's other modules, and the compiler
only through :mod:`.seam`.
"""
from __future__ import annotations

import copy
import functools
import operator
import types
from typing import Any, Callable, Optional

import numpy as np

from .. import registry, tangent
from ..errors import NoDerivativeRule
from ..tangent import Tangent
from . import arrays, seam
from .arguments import call_spread
from .cells import call_with_cells, push_with_cells
from .dispatch import (
    apply_rule, field_constructor, float_operands, J, joins_sequences, Pullback, refuse_out, rule_pullback, vectorized,
)
from .gradients import call_pullback, changing_zero, field, is_zero_tangent, may_change, zero_operand, zero_tangent
from .iterators import (
    EagerIterator, filter_spans, items_first, ITERATORS, position, reversed_spans, tangent_of_items,
)
from .nesting import gradient_function, J_nested, per_argument, rule_gradient, rule_vjp
from .objects import (
    array_code, builtin_method, cached_value, check_array_attribute, class_attribute, getter_of, LINEAR_ATTRIBUTES,
    MISSING, number_subclass, python_init, setter,
)
from .operators import overload, overloaded_call, python_bound_method, python_method
from .sparse import dense
from .values import unshared


def push(f: Any, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict, df: Any = None,
         held: bool = False) -> tuple[Any, Any]:
    """``(f(*args, **kwargs), its tangent)`` for a callee known only at run
    time, given the arguments' tangents (``None``: zero) and the callee's
    own, ``df``: an object's whose class defines ``__call__`` in Python, or
    a function's (a ``Tangent`` of its captured variables and default
    values, as its gradient is). ``held``: the forward transform knows the
    callee (``J``'s: the function it calls) to be made of constants alone, so that a closure's captured
    arrays have zero tangents for certain (without it, a closure given no
    tangent that captured differentiable values is refused: a rule calling
    its function argument drops that function's tangent). The tangent is
    concrete (a zero, not ``None``) for a float output. An operator on an object whose class
    defines it in Python (``__add__``...) pushes that method forward."""
    methods = overload(f) if args else None
    if methods is not None:
        done = overloaded_call(methods, args, _method_pushforward, dargs)
        if done is not None:
            return done
    floats = float_operands(f, args)
    if floats:  # math.sin(obj): math.sin(float(obj)), obj.__float__ pushed forward
        pairs = [push(float, (a,), {}, (d,), {}) if i in floats else (a, d) for i, (a, d) in enumerate(zip(args, dargs))]
        return push(f, tuple(p[0] for p in pairs), kwargs, tuple(p[1] for p in pairs), dkwargs)
    reader = items_first(f, args)
    if reader is not None:  # (see J)
        return push(reader, args, kwargs, dargs, dkwargs)
    # (a callable object may be unhashable)
    if isinstance(f, type) and f in ITERATORS or f is iter and len(args) == 1:
        return _push_iterator(f, args, kwargs, dargs)
    if joins_sequences(f, args):
        return _push_joined(f, args, dargs)
    if f is functools.partial and not all(map(is_zero_tangent, (*dargs, *dkwargs.values()))):
        # a partial's tangent has the fields of its gradient (see rules.higher_order)
        return f(*args, **kwargs), Tangent(("func", "args", "keywords"), func=dargs[0], args=tuple(dargs[1:]),
                                           keywords={k: dkwargs.get(k) for k in kwargs})
    if f is call_spread:  # f(*a, **kw): f pushed (pushing it by call_spread's adjoint would run its pullback,
        # the user's code, once per component)
        g, a, kw = args
        dg, da, dkw = dargs
        return push(g, a, kw, (None,) * len(a) if da is None else tuple(da),
                    {k: None if dkw is None else dkw.get(k) for k in kw}, dg)
    if f is call_with_cells and not all(map(is_zero_tangent, (*dargs, *dkwargs.values()))):
        g, shared, written, _, *rest = args
        return push_with_cells(g, shared, written, dargs[3], tuple(rest), kwargs, dargs[4:], dkwargs)
    refuse_out(f, args, kwargs)
    rule = registry.lookup_pushforward(f)
    if rule is not None:
        y = arrays.call(f, args, kwargs)
        return y, seam.compiler().push_rule(rule, y, args, kwargs, dargs, dkwargs)
    if registry.is_nondifferentiable(f) or all(map(is_zero_tangent, (df, *dargs, *dkwargs.values()))):
        y = arrays.call(f, args, kwargs)
        return y, zero_tangent(y)
    pushed = MACHINERY_PUSHES.get(f) if type(f) is types.FunctionType else None
    if pushed is not None:  # (J and call_pullback: the value changes too, a pullback becoming a Pullback)
        return pushed(args, kwargs, dargs, dkwargs, held=True) if held else pushed(args, kwargs, dargs, dkwargs)
    if type(f) is types.FunctionType and f.__module__.startswith(_MACHINERY) and f.__code__ not in READABLE \
            and (f in _PULLBACKS or registry.lookup(f) is None):
        raise NoDerivativeRule(
            f"forward mode through zygote_py's own {f.__name__} (the run-time machinery of a gradient of a "
            "gradient) is not supported: a third derivative, or the second through a call to another function",
            hint="second derivatives: zpy.hessian or zpy.hvp, or a gradient of a gradient of a function "
            "made of arithmetic, math and NumPy; third derivatives: a gradient of a gradient of a gradient",
        )
    if registry.lookup(f) is not None:
        return push_by_adjoint(f, args, kwargs, dargs, dkwargs)
    implementation = registry.implementation(f)
    if implementation is not None:
        return push(implementation, args, kwargs, dargs, dkwargs)
    if type(f) is functools._lru_cache_wrapper:  # (see J)
        return push(f.__wrapped__, args, kwargs, dargs, dkwargs, df, held)
    if type(f) is np.vectorize:
        return push(vectorized(f), args, kwargs, dargs, dkwargs, df)
    if type(f) is functools.partial:  # its tangent (made above) holds those of its arguments
        return push(f.func, (*f.args, *args), {**f.keywords, **kwargs},
                    (*(field(df, "args") or (None,) * len(f.args)), *dargs),
                    {**(field(df, "keywords") or {}), **dkwargs}, field(df, "func"), held)
    if type(f) is Pullback:  # (gradient code calls a pullback it made directly: call_pullback, dy not None)
        return push(call_pullback, (f, *args), kwargs, (df, *dargs), dkwargs)
    call = python_method(type(f), "__call__")
    if call is not None:  # an object whose class defines __call__: its tangent is the object's
        return push(call, (f, *args), kwargs, (df, *dargs), dkwargs)
    if isinstance(f, types.BuiltinMethodType) and f.__self__ is not None and not isinstance(f.__self__, types.ModuleType) \
            or isinstance(f, types.MethodType) and arrays.is_foreign(f.__self__):
        return push_method(f, f.__self__, f.__name__, df, args, dargs, kwargs, dkwargs)  # (df: the object's, see attribute_tangent)
    if not is_zero_tangent(df):
        if not (isinstance(f, types.FunctionType) and isinstance(df, Tangent)):
            raise NoDerivativeRule(
                f"forward mode: calling {registry.display_name(f)!r} with a tangent of its own "
                f"(a {type(df).__name__}) is not supported",
                hint="pass the differentiated values it holds to it as arguments, or use reverse mode "
                "(zpy.gradient, zpy.jacobian)")
        if f.__code__ in PER_ARGUMENT:  # (its tangent is that of the gradient function it calls, g)
            df = Tangent(f.__code__.co_freevars, g=df)
        return seam.compiler().call_jvp_closure(f, df, args, kwargs, dargs, dkwargs)
    if python_bound_method(f):
        if isinstance(f.__func__, types.FunctionType):
            seam.compiler().never_library(f.__func__, f)
        return push(f.__func__, (f.__self__, *args), kwargs, (None, *dargs), dkwargs)
    if isinstance(f, types.FunctionType):
        # (a rule's vjp captures the rule, registered code whose float default values, odeint's h0=0.0,
        # are no differentiated value)
        return seam.compiler().call_jvp(f, args, kwargs, dargs, dkwargs, entry=held or f.__code__ in READABLE)
    names = field_constructor(f) if isinstance(f, type) else None
    if names is not None:  # a namedtuple's or a plain dataclass's fields get their arguments' tangents
        y = f(*args, **kwargs)
        given = {**dict(zip(names, dargs)), **dkwargs}
        if isinstance(y, tuple):
            return y, type(y)(*(zero_tangent(v) if given.get(n) is None else given[n] for n, v in zip(y._fields, y)))
        return y, Tangent(names, **given)
    if isinstance(f, type) and python_init(f):  # its __init__ fills in the object, and its tangent alike
        y, dy = f.__new__(f), Tangent()
        push(f.__init__, (y, *args), kwargs, (dy, *dargs), dkwargs)
        return y, dy
    if number_subclass(f, args, kwargs):  # MyF(x): x, as a MyF; its tangent a plain number, without MyF's operators
        y = f(*args)
        return y, (complex if isinstance(y, complex) else float)(dargs[0])
    raise NoDerivativeRule(
        f"forward mode: no pushforward for {registry.display_name(f)!r}",
        hint="register one with @zpy.pushforward, or an adjoint rule with @zpy.adjoint, "
        "or use reverse mode (zpy.gradient, zpy.jacobian)",
    )


def _push_joined(f: Any, args: tuple, dargs: tuple) -> tuple[Any, Any]:
    """``a + b`` or ``a * k`` of tuples or lists (:func:`joins_sequences`;
    a tuple's ``+=``, ``*=``), and their tangents joined or repeated alike
    (a zero one as the sequence's zero tangent: its items must stay
    apart)."""
    parts = [(zero_tangent(a) if is_zero_tangent(d) else d) if isinstance(a, (tuple, list)) else a
             for a, d in zip(args, dargs)]
    return f(*args), f(*parts)


def _method_pushforward(method: Callable, swapped: bool, args: tuple, dargs: tuple) -> tuple[Any, Any]:
    return push(method, args, {}, dargs, {})


def push_in_place(op: Callable, x: Any, v: Any, dx: Any, dv: Any) -> tuple[Any, Any]:
    """``x op= v`` (``op``: ``operator.iadd`` and the like) and its tangent,
    for an ``x`` of a kind the forward transform does not know: for a list
    or an array, ``dx`` changes in place alongside, as the transform emits
    it for one it knows (``dx += dv``; ``dx *= v; dx += x_old * dv``);
    anything else by :func:`push`, which pushes forward a class's Python
    method (``__iadd__``, or ``__add__`` as Python falls back) or a
    number's rule."""
    if not isinstance(x, (list, np.ndarray)) or next(overload(op)(x, v), None) is not None:
        return push(op, (x, v), {}, (dx, dv), {})
    if op not in (operator.iadd, operator.isub, operator.imul, operator.itruediv):
        raise NoDerivativeRule(f"forward mode: the in-place operator {op.__name__} on a {type(x).__name__}",
                               hint="write y = y ** v (a new value) instead of y **= v")
    dx = zero_operand(x) if dx is None else dx
    if op in (operator.iadd, operator.isub):
        y = op(x, v)
        if dv is not None or isinstance(x, list):  # (a list grows by the zeros of its new items)
            op(dx, zero_tangent(v) if dv is None else dv)
        return y, dx
    term = None if dv is None or op is not operator.imul else x * dv  # (before x changes)
    operand = unshared(v, x)
    y = op(x, v)
    if op is operator.imul:
        dx *= operand
        if term is not None:
            dx += term
    else:  # x /= v: d(x / v) = (dx - (x / v) dv) / v
        if dv is not None:
            dx -= y * dv
        dx /= operand
    return y, dx


def _push_iterator(f: Any, args: tuple, kwargs: dict, dargs: tuple) -> tuple[EagerIterator, EagerIterator]:
    """``map``, ``filter``, ``zip``, ``enumerate``, ``reversed`` and
    ``iter`` in forward mode: their items and the items' tangents, computed at once
    (as reverse mode computes them, see :class:`EagerIterator`), each
    iterable and its tangent read alike (``zip`` takes one item too many
    from the longer iterator, as Python's does)."""
    if f is map or f is filter:
        function, iterables, dits = args[0], args[1:], dargs[1:]
    else:
        function, iterables, dits = None, args[:1] if f in (enumerate, reversed, iter) else args, dargs
    if f is iter and type(iterables[0]) is EagerIterator:  # (an iterator's iterator is itself)
        return iterables[0], dits[0]
    starts = [position(it) for it in iterables]
    tangents = [tangent_of_items(it, d) for it, d in zip(iterables, dits)]
    if f is iter:
        return EagerIterator(list(iterables[0]), iterables, None, starts), EagerIterator(list(tangents[0]))
    if f is reversed:
        items = list(reversed(iterables[0]))
        return EagerIterator(items, iterables, reversed_spans(len(items))), EagerIterator(list(reversed(tangents[0])))
    rows, drows = list(zip(*iterables, **kwargs)) if f is not enumerate else None, None
    if f is enumerate:
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        return (EagerIterator(list(enumerate(iterables[0], start)), iterables, None, starts),
                EagerIterator([(0, d) for d in tangents[0]]))
    drows = list(zip(*tangents))
    if f is zip:
        return EagerIterator(rows, iterables, None, starts), EagerIterator(drows)
    if f is map:
        pairs = [push(function, row, {}, drow, {}) for row, drow in zip(rows, drows)]
        return (EagerIterator([p[0] for p in pairs], iterables, None, starts, deep=True),
                EagerIterator([p[1] for p in pairs]))
    test = bool if function is None else function
    kept = [i for i, row in enumerate(rows) if test(row[0])]
    return (EagerIterator([rows[i][0] for i in kept], iterables, filter_spans(kept, len(rows)), starts, deep=True),
            EagerIterator([drows[i][0] for i in kept]))


def float_tangent(x: Any, dx: Any) -> Any:
    """The tangent of ``float(x)``: ``float(dx)``, or where ``x``'s class
    defines ``__float__`` in Python, that method's pushed forward (Python
    calls it)."""
    method = python_method(type(x), "__float__")
    return float(dx) if method is None else push(method, (x,), {}, (dx,), {})[1]


def push_method(bound: Any, obj: Any, name: str, dobj: Any, args: tuple, dargs: tuple, kwargs: Optional[dict] = None,
                dkwargs: Optional[dict] = None) -> tuple[Any, Any]:
    """``obj.name(*args, **kwargs)`` (``bound`` is ``obj.name``) and its
    tangent, ``dobj`` being ``obj``'s tangent: the pushforward of the
    method's function on ``type(obj)`` with ``obj`` first. A method that
    changes ``obj`` (``ys.append(v)``) changes ``dobj`` alike."""
    kwargs, dkwargs = kwargs or {}, dkwargs or {}
    if type(obj) is super and isinstance(bound, types.MethodType) and bound.__self__ is obj.__self__:
        return push(bound.__func__, (bound.__self__, *args), kwargs, (dobj, *dargs), dkwargs)  # (super().f(x))
    builtin = builtin_method(bound)
    method = builtin or getattr(type(obj), name, None)  # (a NumPy scalar's: see builtin_method)
    if arrays.is_foreign(obj) and builtin is None and getattr(bound, "__self__", None) is obj \
            and not (registry.lookup_pushforward(bound) or registry.lookup(bound)):
        raise array_code(type(obj), name)  # (a method of its own, none of ndarray's: its library's code)
    if method is None or registry.lookup_pushforward(bound) or registry.lookup(bound) or registry.implementation(bound) \
            or getattr(bound, "__self__", None) is not obj:
        # (np.add.at: a rule of its own; a static or class method; a field holding a function or a
        # callable object, whose tangent is the field's)
        return push(bound, args, kwargs, dargs, dkwargs, None if dobj is None else attribute_tangent(obj, name, dobj))
    # (np.ndarray.sum on another library's array: push calls the array's own sum for the value, arrays.call)
    return push(method, (obj, *args), kwargs, (dobj, *dargs), dkwargs)


def attribute_tangent(obj: Any, name: str, dobj: Any, default: Any = MISSING, ddefault: Any = None) -> Any:
    """The tangent of ``obj.name`` for the tangent ``dobj`` of ``obj``
    (``ddefault``, the tangent of the ``default`` of ``getattr``, where that
    is the value):
    ``dobj.name`` for an array's (another library's too) or a number's
    :data:`LINEAR_ATTRIBUTES`,
    and for a field of a namedtuple or of an object (whose tangent
    is a ``Tangent``), ``obj.__dict__``'s the dict of its fields'; a
    property's getter pushed forward; zero for a
    class's constant and any other attribute of an array or a number.
    Anything else (a descriptor, ``__getattr__``) is refused."""
    if default is not MISSING and not hasattr(obj, name):
        return ddefault
    y = getattr(obj, name)
    check_array_attribute(obj, name, y)
    foreign = arrays.is_foreign(obj)  # (its attributes are ndarray's, whether a property in Python or in C)
    found = class_attribute(type(obj), name)
    getter = None if foreign else getter_of(found)
    if getter is not None:
        computed, t = push(getter, (obj,), {}, (dobj,), {})
        if isinstance(found, functools.cached_property):
            cached_value(obj, name, computed)
        return t
    if dobj is None:
        return zero_tangent(y)
    if foreign or isinstance(obj, (np.ndarray, np.generic, int, float, complex)):
        if isinstance(y, (types.BuiltinMethodType, types.MethodType)) and y.__self__ is obj:
            return dobj  # a bound method's tangent is its object's: push hands it to push_method
        return getattr(dobj, name) if name in LINEAR_ATTRIBUTES else zero_tangent(y)
    if isinstance(y, types.BuiltinMethodType) and y.__self__ is obj:
        return dobj  # (d.values, xs.index: the same, for a list's, a dict's... pushed by the method's rule)
    if isinstance(obj, tuple) and name in getattr(obj, "_fields", ()):
        return dobj[obj._fields.index(name)]
    if isinstance(dobj, Tangent) and name in tangent.fields(obj):
        t = getattr(dobj, name, None)
        return zero_tangent(y) if t is None else t
    if isinstance(dobj, Tangent) and name == "__dict__" and type(y) is dict:  # (see attribute_gradient)
        return {k: tangent.get(dobj, k) for k in y}
    if found is not MISSING and (not hasattr(type(found), "__get__") or isinstance(found, (staticmethod, classmethod))):
        return zero_tangent(y)  # a class's constant: no part of the object
    raise NoDerivativeRule(
        f"forward mode: no tangent for the attribute {name!r} of a {type(obj).__name__}",
        hint="pass the values the function needs as arguments, or use reverse mode (zpy.gradient)",
    )


_MACHINERY = ("zygote_py.runtime.", "zygote_py.api", "zygote_py.ad.pipeline")


PER_ARGUMENT = {c for c in per_argument.__code__.co_consts if isinstance(c, types.CodeType)}
READABLE = {c for g in (rule_vjp, rule_gradient, items_first) for c in g.__code__.co_consts
            if isinstance(c, types.CodeType)} | PER_ARGUMENT
"""The code of the machinery that forward mode reads as any Python function's: a rule's ``vjp`` and
``gradient`` (its rule called, then its pullback), which the pushforwards of ``call_pullback`` and
``zpy.gradient`` push (see ``rules.nested``), the gradient function that gives one gradient per
argument (``per_argument``: ``f`` has default values; its tangent, that of ``f``'s gradient function, is
its field ``g``'s), and the reading of an object's items before a built-in consumes them
(``items_first``)."""
_PULLBACKS = {J, J_nested, call_pullback, gradient_function}
"""The machinery whose reverse-mode rules (third derivatives) have no
pushforward rule: their pullbacks are closures."""
MACHINERY_PUSHES: dict[Callable, Callable] = {}
"""Forward mode through those of them that gradient code calls (``J``,
``call_pullback``, ``gradient_function``) and through ``zpy.gradient`` and
its kind, whose value and tangent come from one run: ``f`` to a function of
``(args, kwargs, dargs, dkwargs)`` returning the value and its tangent, as
:func:`push` does; registered by ``rules.nested`` (which keeps the call of
``J`` in a :class:`Pullback` that its pushforward reads) and
``own_rules``."""


def owned(t: Any, value: Any) -> Any:
    """A tangent of its own for ``value``, an object that changes in place
    (its tangent changes alongside, and must not be another value's as
    well): a shallow copy of its tangent ``t`` (an array, list, dict or
    ``Tangent``, whose fields that may change in place get a zero where
    they have none), or a zero where it has none (``None``)."""
    if t is None:
        return changing_zero(value)
    if isinstance(t, (np.ndarray, list, dict)):
        return t.copy()  # (a defaultdict's copy is one, with its factory)
    if isinstance(t, Tangent):
        return Tangent(**{k: changing_zero(getattr(value, k)) if d is None and may_change(getattr(value, k, None))
                          else d for k, d in tangent.values(t).items()})
    return t


def store_tangent(dtarget: Any, store: Callable, key: Any, dvalue: Any, value: Any, target: Any) -> None:
    """``store(dtarget, key, dvalue)`` (``setitem`` or ``setattr``), the
    tangent of ``store(target, key, value)``; a value without a tangent,
    or one that an array of integers truncates, stores a zero. An object's
    tangent, a ``Tangent``, is changed as its object is, through a
    property's setter or the class's own ``__setattr__``. An item stored
    through the class's own ``__setitem__`` (a ``dict`` subclass's too) is
    refused: what that stores where is not known here."""
    if dvalue is None or arrays.is_array(target) and target.dtype.kind not in "fc":
        dvalue = 0 if arrays.is_array(dtarget) else zero_tangent(value)
    found = setter(target, key, value) if store is setattr else None
    if found is not None:
        # a property's setter or the class's __setattr__, which has stored the value: pushed again on a copy of
        # the object, it changes the object's tangent as it changed the object (the copy takes the change again)
        fn, args = found
        push(fn, (copy.copy(target), *args[1:]), {}, (dtarget, *(None,) * (len(args) - 2), dvalue), {})
        return
    if isinstance(dtarget, Tangent) and store is setattr:
        tangent.values(dtarget)[key] = dvalue
    elif store is not setattr and (isinstance(dtarget, Tangent) or python_method(type(target), "__setitem__")):
        raise NoDerivativeRule(
            f"forward mode: an item stored into a {type(target).__name__}, whose class defines __setitem__",
            hint="call a method that stores it (obj.set(k, v)), or use reverse mode (zpy.gradient)",
        )
    else:
        store(dtarget, key, dvalue)


def changed_position(f: Any, args: tuple) -> Optional[int]:
    """The position of the argument that a call of ``f`` may change in
    place, copied whole for a pullback that makes the call again (see
    ``rules.nested``): the object of a function registered with
    ``registry.CHANGES_FIRST_ARGUMENT`` (the operations the mutation pass
    makes), or the tuple of arguments of :func:`push` (of ``list.append``,
    say, whose list a copy one level deep would share)."""
    if args and f in registry.CHANGES_FIRST_ARGUMENT:
        return 0
    return 1 if f is push else None


def iter_in_step(x: Any, dx: Any) -> tuple[Any, Any]:
    """``(iter(x), an iterator over its tangent dx in step)``, for a loop
    in forward mode over a value of a kind not known where it was
    compiled: the tangent's own iterator, which reads it as it goes as
    ``x``'s does; for an object whose class's ``__iter__`` is Python, both
    read through that first (see :func:`.iterators.items_first`), or, for
    one that has ``__getitem__`` too, through that ``__iter__`` pushed
    forward (the object's tangent is a ``Tangent`` of its fields)."""
    reader = items_first(iter, (x,))
    if reader is not None:
        return push(reader, (x,), {}, (dx,), {})
    method = python_method(type(x), "__iter__") if type(dx) is Tangent else None
    if method is not None:  # (one with __getitem__ too: Python's for calls __iter__, iter(self.layers), first)
        it, dit = push(method, (x,), {}, (dx,), {})
        if it is not x:
            return it, dit
    return iter(x), iter(dx)


def push_by_adjoint(f: Any, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict) -> tuple[Any, Any]:
    """``(f(...), J v)`` from ``f``'s adjoint rule, for a function without a
    pushforward: one pullback per real component of the output, the
    component of ``J v`` being the pullback's inner product with ``v``."""
    rule = registry.lookup(f)
    y, back = apply_rule(rule, f, args, kwargs)
    back = rule_pullback(rule, back, len(args), kwargs)
    tangents = (*dargs, *(dkwargs.get(k) for k in kwargs))

    def component(dy: Any) -> float:
        grads = back(dy)[1:]  # (after the function's own)
        return sum(_real_inner(g, t) for g, t in zip(grads, tangents))

    return y, _by_components(y, component)


def _by_components(y: Any, component: Callable[[Any], float]) -> Any:
    """The tangent of ``y`` whose real components are ``component(e)`` for
    each unit cotangent ``e`` of ``y``."""
    if isinstance(y, (tuple, list)):
        parts = []
        for i, item in enumerate(y):
            def at(e, i=i):
                return component(tuple(e if j == i else None for j in range(len(y))))
            parts.append(_by_components(item, at))
        return parts if isinstance(y, list) else tuple(parts)
    if isinstance(y, dict):
        return {k: _by_components(v, lambda e, k=k: component({j: e if j == k else None for j in y}))
                for k, v in y.items()}
    z = zero_tangent(y)
    if z is None:
        return _object_by_components(y, component)
    if arrays.is_foreign(y):
        raise NoDerivativeRule(
            f"forward mode through a call that gives a {type(y).__module__.split('.')[0]} array and has no forward "
            "rule: its tangent would be made element by element, computing the array",
            hint="use reverse mode: zpy.gradient, and for a Hessian-vector product the gradient of "
            "np.sum(zpy.gradient(f, x)[0] * v)")
    out = np.array(z, dtype=np.result_type(z), copy=True)
    flat = out.reshape(-1)
    for k in range(flat.size):
        units = (1.0, 1j) if out.dtype.kind == "c" else (1.0,)
        for u in units:
            e = np.zeros_like(out)
            e.reshape(-1)[k] = u
            cot = e if isinstance(y, np.ndarray) else type(z)(e[()])
            flat[k] += u * component(cot)
    return out if isinstance(y, np.ndarray) else type(z)(out[()])


_OPEN: set = set()
"""The ids of the objects :func:`_object_by_components` is inside of."""


def _object_by_components(y: Any, component: Callable[[Any], float]) -> Any:
    """:func:`_by_components` of an object with fields (the object a
    change in place leaves, ``obj.a = v``'s): a :class:`Tangent`, its fields'
    from the cotangents of one field each; ``None`` when no field has a
    tangent (an object without fields, a class, a module, a string)."""
    if id(y) in _OPEN:
        raise NoDerivativeRule(f"forward mode through a {type(y).__name__} that holds itself is not supported",
                               hint="use reverse mode (zpy.gradient)")
    if isinstance(y, (type, types.ModuleType, types.BuiltinFunctionType, str, bytes)):
        return None
    names = tangent.fields(y)
    _OPEN.add(id(y))
    try:
        parts = {name: _by_components(tangent.value(y, name),
                                      lambda e, name=name: component(Tangent(names, **{name: e})))
                 for name in names}
    finally:
        _OPEN.discard(id(y))
    return Tangent(names, **parts) if any(p is not None for p in parts.values()) else None


def _real_inner(g: Any, t: Any) -> float:
    """``Re <g, t>``; a zero tangent adds nothing, whatever the gradient
    (a rule's ``nan`` gradient in an argument it has none in: ``gammainc``'s
    ``a``, a number spread into the call)."""
    if g is None or t is None or type(t) in (int, float) and t == 0:
        return 0.0
    if isinstance(g, Tangent):
        return sum(_real_inner(v, field(t, k)) for k, v in tangent.entries(g).items())
    if isinstance(g, (tuple, list)):
        return sum(_real_inner(a, b) for a, b in zip(g, t))
    if isinstance(g, dict):
        return sum(_real_inner(v, t.get(k)) for k, v in g.items())
    return float(np.real(np.sum(np.conj(dense(g)) * t)))
