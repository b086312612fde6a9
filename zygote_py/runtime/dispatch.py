"""Reverse mode of calls unknown at compile time: :func:`J` finds the
rule, the Python method, the constructor or the compiled function for a
callee and returns its value and pullback; :class:`Pullback` keeps a call
so that its pullback can be differentiated again.

May import: the rule table (:mod:`zygote_py.registry`), the runtime's lower
modules, and the compiler only through :mod:`.seam`.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import dataclasses
import inspect
import operator
import types
import weakref
from typing import Any, Callable, Optional

import numpy as np

from .. import registry
from ..errors import NoDerivativeRule, UnsupportedSyntax
from ..tangent import Tangent
from . import arrays, seam
from .arguments import out_argument
from .cells import forward_with_cells, lent_cells
from .gradients import call_pullback, field, field_gradient, is_number_zero, NO_GRADS, no_pullback
from .iterators import EagerIterator, items_first
from .objects import (
    array_code, builtin_method, cached_value, check_array_attribute, class_attribute, construct_fields, generated,
    getter_of, MISSING, number_subclass, owner_of, plain_attributes, python_init, to_default,
)
from .operators import overload, overloaded_call, python_bound_method, python_method
from .values import is_differentiable_value


def differentiable_callable(fn: Any) -> bool:
    """Whether :func:`J` can differentiate calls of ``fn`` with no rule:
    Python functions and methods (by their source), ``functools.partial``
    and ``functools.lru_cache`` objects of such a function, objects whose
    class defines ``__call__`` in Python, and subclasses of ``float`` and
    ``complex`` made from a number (see :func:`number_subclass`); not the operations the compiler lowers
    Python's syntax to (:mod:`zygote_py.ir.ops`), which are differentiated
    by their rules or not at all."""
    if python_bound_method(fn):
        fn = fn.__func__
    if isinstance(fn, types.FunctionType):
        return fn.__module__ != "zygote_py.ir.ops"
    if type(fn) in (functools.partial, functools._lru_cache_wrapper):  # J calls its function
        inner = fn.func if type(fn) is functools.partial else fn.__wrapped__
        return registry.lookup(inner) is not None or registry.is_nondifferentiable(inner) or (
            differentiable_callable(inner))
    if isinstance(fn, type) and (field_constructor(fn) is not None or python_init(fn)
                                 or number_subclass(fn, (0.0,), {})):
        return True
    call = getattr(type(fn), "__call__", None)
    return isinstance(call, types.FunctionType)


def field_constructor(cls: type) -> Optional[tuple[str, ...]]:
    """The parameters of ``cls`` when calling it only stores its arguments
    in the fields of these names: a namedtuple, or a dataclass with the
    ``__init__`` that ``@dataclass`` writes and no ``__post_init__``; a
    :class:`Pullback` or a :class:`Tangent`, made in gradient code
    differentiated again (a tangent's optional first argument, the names of
    fields without a gradient, stands for no field: ``""``)."""
    if cls is Tangent:
        return ("",)
    if cls is Pullback:
        return Pullback.__slots__
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        owner = owner_of(cls, "__new__")
        return cls._fields if "_fields" in owner.__dict__ and generated(cls.__new__) else None
    if dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and cls.__new__ is object.__new__:
        if dataclasses.is_dataclass(owner_of(cls, "__init__")) and generated(cls.__init__):
            return tuple(inspect.signature(cls).parameters)
    return None


def changing_method(obj: Any, name: str, seen: tuple = ()) -> Optional[Callable]:
    """``type(obj)``'s method ``name`` when it is a Python function that
    changes its object in place (see ``ad.mutation.versions.changed_positions``),
    itself or through another method it calls on it (``self.features(x)``
    caching a value: see ``ad.mutation.versions.self_calls``)."""
    method = getattr(type(obj), name, None)
    if not isinstance(method, types.FunctionType) or isinstance(obj, type):
        return None
    definite, in_place = seam.compiler().changed_positions(method)
    if 0 in definite or 0 in in_place and isinstance(obj, np.ndarray):
        return method
    calls = seam.compiler().self_calls(method)
    return method if any(n not in seen and changing_method(obj, n, (*seen, name)) for n in calls) else None


def forward_changing(f: Any, position: Any, args: tuple) -> tuple[Any, Callable]:
    """``f(*args)`` for a Python function that changes ``args[position]``
    in place: ``(value, the changed object)`` and its pullback in ``J``'s
    convention, from the gradients of both (for a tuple of positions,
    ``(value, *the changed objects)``)."""
    return seam.compiler().call_forward(f, args, {}, param_out=position)


def caught(exc: BaseException) -> None:
    """At the start of an exception handler of a differentiated function:
    refuse an exception that a function it called raised carrying a
    differentiated value (marked by ``pipeline.call_forward``), which the
    gradient cannot follow to the handler."""
    raiser = getattr(exc, "_zpy_raised_by", None)
    if raiser is not None:
        raise UnsupportedSyntax(
            f"catching the {type(exc).__name__} that {raiser} raised carrying a differentiated value: "
            "differentiating that is not supported yet",
            hint=f"return the value from {raiser} instead of raising it",
        )


_ITERATORS = (EagerIterator, type(iter([])), type(iter(())), type(iter(range(0))))
"""Iterators that ``copy.copy`` copies at their position (a generator
function's items, read ahead: ``iter()`` of a list)."""


def copied(values: tuple, changed: Optional[int] = None) -> tuple:
    """``values`` with each list, dict, array and plain object (of a class
    written in Python, with a ``__dict__``) among them copied (one level
    deep: code after the call may assign its items or fields; through
    tuples, which hold them as they are), and each
    :class:`EagerIterator` or iterator over a list, tuple or range (at its
    position): their state at a call, for a
    :class:`Pullback`. ``changed``: the position (or a tuple of them) of an
    object the call changes in place, which may be of any kind, and is
    copied whole, the same copy wherever it is among ``values``."""
    out = tuple(list(v) if type(v) is list else dict(v) if type(v) is dict else v.copy() if type(v) is np.ndarray
                else copy.copy(v) if type(v) in _ITERATORS or _plain_object(v)
                else copied(v) if type(v) is tuple else v for v in values)  # (a tuple of a cell's list, say)
    for position in () if changed is None else changed if type(changed) is tuple else (changed,):
        obj = values[position]
        try:
            own = copy.deepcopy(obj)
        except Exception as e:  # noqa: BLE001  (whatever its __deepcopy__ or __reduce__ raises)
            raise NoDerivativeRule(
                f"differentiating again a change in place of a {type(obj).__name__}, which copy.deepcopy cannot "
                f"copy ({type(e).__name__}: {e})", hint="differentiate once, or make the object copyable") from None
        out = tuple(own if v is obj else o for v, o in zip(values, out))
    return out


def _plain_object(v: Any) -> bool:
    """An instance of a user's class with a ``__dict__`` (not zygote_py's)."""
    cls = type(v)
    return cls.__new__ is object.__new__ and hasattr(v, "__dict__") and not cls.__module__.startswith("zygote_py")


class Pullback:
    """The pullback of a call that :func:`J` (or :func:`forward_changing`,
    which also returns the argument ``param_out`` it changes in place, or
    :func:`forward_with_cells`, whose closure shares ``cells``) made
    in code being differentiated itself (a second derivative through calls
    known at run time, a third derivative and up). It keeps the call, ``f``
    and its arguments as they were (``changed``: the position of one the
    call changes), so that it is differentiated in turn through code
    zygote_py can read that computes it from them (see
    ``ad.pipeline.vjp_plan`` and the rules of ``J`` and ``call_pullback`` in
    ``rules.nested``). Its gradient is the gradient of the call's inputs
    through it, in ``J``'s convention. Calling it calls the pullback; called
    again, it pulls back through a new forward of the call (the first call
    may have emptied the pullback's stacks). ``held``: ``f`` holds
    constants alone (see ``runtime.push``), and so does the code computing
    its pullback, which shares its captured variables."""

    __slots__ = ("back", "f", "args", "kwargs", "param_out", "changed", "cells", "held")

    def __init__(self, back: Callable, f: Any, args: tuple, kwargs: dict, param_out: Optional[int] = None,
                 changed: Optional[int] = None, cells: Optional[tuple[tuple, tuple, tuple]] = None,
                 held: bool = False):
        self.back, self.f, self.args, self.kwargs = back, f, args, kwargs
        self.param_out, self.changed, self.cells, self.held = param_out, changed, cells, held

    def __call__(self, dy: Any) -> Any:
        back, self.back = self.back, None
        if back is None and self.param_out is not None:
            back = forward_changing(self.f, self.param_out, self.fresh())[1]
        elif back is None and self.cells is not None:
            shared, written, values = self.cells
            with self.lent():
                back = forward_with_cells(self.f, shared, written, copied(values), self.fresh())[1]
        elif back is None:
            back = J(self.f, *self.fresh(), **self.kwargs)[1]
        return back(dy)

    def plan(self) -> Optional[tuple]:
        """How to differentiate this pullback (``ad.pipeline.vjp_plan``),
        decided while a closure's cells hold what they held at the call."""
        with self.lent():
            return seam.compiler().vjp_plan(self.f, self.args, self.kwargs, self.param_out,
                                     self.cells[1] if self.cells else ())

    def lent(self) -> contextlib.AbstractContextManager:
        """For a call of :func:`forward_with_cells` (``cells``: its
        ``shared``, ``written`` and ``values``), its closure's cells holding
        the values they held at the call while the block runs."""
        if self.cells is None:
            return contextlib.nullcontext()
        shared, _, values = self.cells
        return lent_cells(self.f, shared, copied(values))

    def fresh(self) -> tuple:
        """Copies of the call's arguments, for a call made again (which may
        change them, as the first did)."""
        return copied(self.args, self.changed)


def shares_cells(v: Callable, f: Any) -> Callable:
    """``v``, a function that computes the pullback of a call of ``f``
    (see ``ad.pipeline.vjp_plan``) and shares ``f``'s captured variables:
    its gradient is ``f``'s."""
    return v


def vectorized(vf: np.vectorize) -> types.MethodType:
    """What calling the ``np.vectorize`` object ``vf`` runs, as code
    zygote_py differentiates: ``rules.higher_order.vectorized`` (the implementation registered for ``np.vectorize.__call__``) bound to
    ``vf`` (whose gradient is its function's captured variables')."""
    return types.MethodType(registry.implementation(np.vectorize.__call__), vf)


def bound_object(f: Any) -> Any:
    """The object of the bound method ``f``, whose gradient is the
    method's; a :class:`Pullback` itself (called, it is the first argument
    of :func:`call_pullback`), an ``np.vectorize`` object (see
    :func:`vectorized`), and an object whose class defines ``__call__`` in
    Python (the first argument of that method)."""
    return f.__self__ if isinstance(f, (types.MethodType, types.BuiltinMethodType)) else f


def pullback_gradient(df: Any, dargs: tuple, dkwargs: Optional[dict] = None) -> Tangent:
    """The gradient of a :class:`Pullback`: its fields ``f``'s, ``args``'
    and, for a call with keyword arguments that get gradients,
    ``kwargs``' (by name; the rules of ``J`` and ``call_pullback`` in
    ``rules.nested``)."""
    if dkwargs is None:
        return Tangent(f=df, args=dargs)
    return Tangent(f=df, args=dargs, kwargs=dkwargs)


def call_gradient(dpullback: Any, n: int, keywords: tuple = ()) -> tuple:
    """The gradient of a :class:`Pullback` of a call with ``n`` positional
    arguments and the keyword arguments ``keywords`` (see
    :func:`pullback_gradient`; read from its fields by code differentiated
    again, a ``Tangent`` of more of them), or of the ``back`` of a nested
    ``zpy.pullback``, which captures the same ``f`` and ``args``, in
    ``J``'s convention: the callee's, then one per positional argument,
    then one per keyword argument."""
    dargs = field(dpullback, "args")
    dkwargs = field(dpullback, "kwargs") or {}
    return (field(dpullback, "f"), *((None,) * n if dargs is None else dargs), *[dkwargs.get(k) for k in keywords])


def J(f: Any, /, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple]]:
    """``f(*args, **kwargs)`` and its pullback, for a callee known only at
    run time. The pullback returns the gradient of ``f`` itself (a
    ``Tangent`` of its captured variables; ``None`` for a plain function),
    then one per positional argument, then one per keyword argument in call
    order. An operator on an object whose class defines it in Python
    (``__add__``...) differentiates that method; a namedtuple or plain
    dataclass constructor passes each field's gradient to its argument."""
    if type(f) is types.FunctionType and _PLAIN.get(f) == _GENERATION[0]:
        return seam.compiler().call_forward(f, args, kwargs)
    if f is getattr and len(args) == 2 and not kwargs:
        done = _field_read(*args)
        if done is not None:
            return done
    if f is operator.getitem and len(args) == 2 and type(args[1]) is int and type(args[0]) in (tuple, list) \
            and not kwargs:  # (an item of what a call known only at run time returned: x, P = kf.predict(x, P))
        rule = _of_generation(_ITEM_RULE, registry.lookup, operator.getitem)
        y, back = rule(*args)
        return y, rule_pullback(rule, back, 2, kwargs, arrays.is_array(y))
    if type(f) is types.BuiltinFunctionType and args and not kwargs and all(type(a) in _FLOATS for a in args):
        # (a + b of an evaluator's numbers: no operator method, no sequence, no out= to look for)
        rule = registry.lookup(f)
        if rule is not None:
            try:
                y, back = rule(*args)
            except TypeError:
                refuse_call(rule, f, args, kwargs)
                raise
            return y, rule_pullback(rule, back, len(args), kwargs, arrays.is_array(y))
    methods = overload(f) if args else None  # (float(): no object)
    if methods is not None:
        done = overloaded_call(methods, args, _method_pullback)
        if done is not None:
            return done
    floats = float_operands(f, args)
    if floats:
        return _of_floats(f, args, kwargs, floats)
    reader = items_first(f, args)
    if reader is not None:  # sum(obj), a, b = obj: obj's items through its class's __iter__
        y, back = J(reader, *args, **kwargs)
        return y, lambda dy: (None, *back(dy)[1:])
    rule = rule_for(f, args)
    if rule is not None:
        y, back = apply_rule(rule, f, args, kwargs)
        return y, rule_pullback(rule, back, len(args), kwargs, arrays.is_array(y))
    if registry.is_nondifferentiable(f):
        refuse_out(f, args, kwargs)  # (np.floor(x, out=y): y's gradient is no longer the one it had)
        return f(*args, **kwargs), no_pullback
    implementation = registry.implementation(f)
    if implementation is not None:  # (scipy.stats.norm.logpdf: its formula)
        y, back = J(implementation, *args, **kwargs)
        return y, lambda dy: (None, *back(dy)[1:])
    if python_bound_method(f):
        if isinstance(f.__func__, types.FunctionType):
            seam.compiler().never_library(f.__func__, f)
        y, back = J(f.__func__, f.__self__, *args, **kwargs)
        return y, lambda dy: back(dy)[1:]
    method = builtin_method(f)
    if method is not None:
        # x.sum(axis=1), d.get(k), z.conjugate(): the rule of ndarray.sum,
        # dict.get, complex.conjugate, with x's gradient as the bound
        # method's own (getattr's rule passes it on to x)
        if registry.is_nondifferentiable(method):
            refuse_out(method, (f.__self__, *args), kwargs)
            return f(*args, **kwargs), no_pullback
        rule = registry.lookup(method)
        if rule is not None:
            y, back = apply_rule(rule, method, (f.__self__, *args), kwargs)
            pb = rule_pullback(rule, back, len(args) + 1, kwargs, arrays.is_array(y))
            return y, lambda dy: pb(dy)[1:]  # (the method's gradient: x's, then its arguments')
    if isinstance(f, types.FunctionType):
        done = seam.compiler().call_forward(f, args, kwargs)
        if type(f) is types.FunctionType:
            _PLAIN[f] = _GENERATION[0]
        return done
    if type(f) is functools._lru_cache_wrapper:  # its function, not the cache: a cached value has no pullback
        return J(f.__wrapped__, *args, **kwargs)
    if type(f) is np.vectorize:
        return J(vectorized(f), *args, **kwargs)
    names = field_constructor(f) if isinstance(f, type) else None
    if names is not None:
        return construct_fields(f, names, args, kwargs)
    if isinstance(f, type) and arrays.foreign_type(f) and python_init(f) \
            and any(is_differentiable_value(v) for v in (*args, *kwargs.values())):
        raise array_code(f, "__init__")  # (made by its library's functions, np.asarray(v, like=x))
    if isinstance(f, type) and python_init(f):
        return seam.compiler().construct(f, args, kwargs)
    if type(f) is functools.partial:
        return _call_partial(f, args, kwargs)
    if number_subclass(f, args, kwargs):  # MyF(x): x, as a MyF
        return f(*args), lambda dy: (None, dy)
    if type(f) is Pullback:  # a pullback called directly: the rule of call_pullback
        y, back = J(call_pullback, f, *args, **kwargs)
        return y, lambda dy: back(dy)[1:]
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType):
        y, back = J(call, f, *args, **kwargs)
        return y, lambda dy: back(dy)[1:]
    bound = getattr(f, "__self__", None)  # a built-in method's object (a module for a function)
    if any(is_differentiable_value(v) for v in (bound, *args, *kwargs.values())):
        name = registry.display_name(f)
        raise NoDerivativeRule(
            f"no derivative rule for {name!r}, which was called with differentiated arguments",
            hint=f"register one with @zpy.adjoint({name}), or keep it out of the differentiated path",
        )
    return f(*args, **kwargs), no_pullback


_FLOATS = (float, np.float64)
"""Types of numbers whose operators are built in (no method of the
user's), and that no NumPy function reads as a sequence."""

_PLAIN: "weakref.WeakKeyDictionary[types.FunctionType, int]" = weakref.WeakKeyDictionary()
"""Python functions that :func:`J` found to be differentiated through
their source (no rule, not marked non-differentiable, no registered
implementation), with the registry's generation then: until a rule is
registered or removed, their calls go straight to the compiled forward
(a recursive function's every call: the look-ups cost more than a call)."""
_GENERATION = registry.current_generation


def _field_read(obj: Any, name: Any) -> Optional[tuple[Any, Callable]]:
    """``J(getattr, obj, name)`` for a field in the ``__dict__`` of an
    object of a plain class (see :func:`~.objects.plain_attributes`), when
    getattr's rule is the built-in one: what that rule computes, without
    looking the attribute up on the class (an expression tree's
    ``e.left``); ``None`` for any other read."""
    shadowed = plain_attributes(type(obj))
    if shadowed is None or type(name) is not str or name in shadowed:
        return None
    d = getattr(obj, "__dict__", None)
    if type(d) is not dict or name not in d:
        return None
    if not _of_generation(_GETATTR, registry.is_builtin_rule, getattr):
        return None
    y = d[name]
    array = arrays.is_array(y)

    def pullback(dy):
        if array and is_number_zero(dy):
            return NO_GRADS
        return (None, field_gradient(obj, name, dy), None)
    return y, pullback


def _of_generation(slot: list, ask: Callable, fn: Any) -> Any:
    """``ask(fn)`` about the registry, kept in ``slot`` (``[generation,
    answer]``) until a rule is registered or removed."""
    if slot[0] != _GENERATION[0]:
        slot[:] = [_GENERATION[0], ask(fn)]
    return slot[1]


_GETATTR: list = [None, False]  # (whether getattr's rule is the built-in one)
_ITEM_RULE: list = [None, None]  # (operator.getitem's rule)


def rule_for(f: Any, args: tuple) -> Optional[Callable]:
    """The adjoint rule of the call ``f(*args)``: ``f``'s, or for lists
    and tuples that it joins or repeats, its rule for them."""
    return registry.lookup_specialised(registry.SEQUENCE, f) if joins_sequences(f, args) else registry.lookup(f)


def joins_sequences(f: Any, args: tuple) -> bool:
    """Whether ``f(*args)`` joins two lists or tuples (``a + b``) or repeats
    one (``a * 3``), making a new one (``+=`` and ``*=`` do for a tuple,
    not for a list, which they change in place): the operators' rules for
    sequences apply (see ``registry.SEQUENCE``)."""
    if type(f) is not types.BuiltinFunctionType or f not in _JOINS or len(args) != 2:
        return False
    a, b = (isinstance(v, (tuple, list)) for v in args)
    return (a and b or a != b and isinstance(args[1] if a else args[0], (int, np.integer))) \
        and (f in (operator.add, operator.mul) or isinstance(args[0], tuple))


_JOINS = {operator.add, operator.mul, operator.iadd, operator.imul}


def float_operands(f: Any, args: tuple) -> list[int]:
    """The positions of ``args`` that ``f``, a function of :mod:`math` with
    a rule, reads through their class's ``__float__`` written in Python:
    ``math.sin(obj)`` is ``math.sin(float(obj))``, as Python calls it."""
    if getattr(f, "__module__", None) != "math" or registry.lookup(f) is None:
        return []
    return [i for i, a in enumerate(args) if python_method(type(a), "__float__") is not None]


def _of_floats(f: Any, args: tuple, kwargs: dict, floats: list[int]) -> tuple[Any, Callable]:
    """:func:`J` of ``f`` applied to ``args``, those at the positions
    ``floats`` (see :func:`float_operands`) by their ``float()``, whose
    ``__float__`` is differentiated."""
    converted = {i: J(float, args[i]) for i in floats}
    y, back = J(f, *(converted[i][0] if i in converted else a for i, a in enumerate(args)), **kwargs)

    def pullback(dy):
        grads = back(dy)  # (indexed, not sliced: it may be the endless run of None)
        out = [grads[k] for k in range(1 + len(args) + len(kwargs))]
        for i, (_, float_back) in converted.items():
            out[1 + i] = None if out[1 + i] is None else float_back(out[1 + i])[1]
        return tuple(out)
    return y, pullback


def _method_pullback(method: Callable, swapped: bool, args: tuple) -> tuple[Any, Callable]:
    """``J`` of an operator's method: its pullback gives the operands'
    gradients in the operator's order (a reflected method, ``b.__radd__(a)``
    for ``a + b``, takes them reversed)."""
    y, back = J(method, *args)
    if swapped:
        return y, lambda dy: (None, *back(dy)[:0:-1])
    return y, lambda dy: (None, *back(dy)[1:])


def refuse_out(f: Any, args: tuple, kwargs: dict) -> None:
    """Refuse a call of a NumPy function, known only at run time, that
    writes into an array (``out=``, by keyword or by position): the compiler
    makes a call it sees a new value of that array
    (:func:`~zygote_py.ad.mutation.versions.in_place_as_stores`), but here the
    array's later reads would miss the write."""
    if (kwargs or len(args) > 1) and out_argument(f, args, kwargs) is not None:
        name = registry.display_name(f)
        raise NoDerivativeRule(
            f"{name} writing into out= with where=, or in a call whose function is known only when it runs",
            hint=f"assign its result instead: y = {name}(...), or y = np.where(mask, {name}(...), y) for where=",
        )


def apply_rule(rule: Callable, f: Any, args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """``rule(*args, **kwargs)``; a call the rule does not take (a keyword
    such as ``where=`` that it leaves out) is reported as such, not as the
    rule's own ``TypeError``; a call writing into ``out=`` is refused
    (:func:`refuse_out`)."""
    refuse_out(f, args, kwargs)
    try:
        return rule(*args, **kwargs)
    except TypeError:
        refuse_call(rule, f, args, kwargs)
        raise


def refuse_call(rule: Callable, f: Any, args: tuple, kwargs: dict) -> None:
    """Raise :class:`NoDerivativeRule` if ``rule``, which raised a
    ``TypeError``, does not take the call ``f(*args, **kwargs)`` (a keyword
    such as ``where=`` that it leaves out); return if it does (the
    ``TypeError`` is the rule's own, to raise again)."""
    try:
        inspect.signature(rule).bind(*args, **kwargs)
    except TypeError as e:
        name = registry.display_name(f)
        raise NoDerivativeRule(
            f"the derivative rule for {name!r} does not take this call ({e})",
            hint=f"call {name} without the arguments its rule leaves out (out= and where= write "
            "into arrays, which is not differentiated yet), or register your own rule with "
            f"@zpy.adjoint({name})",
        ) from None


_PARAMS: dict[Any, Optional[list[str]]] = {}


def keyword_positions(rule: Callable, nargs: int, keywords: Any) -> tuple[Optional[int], ...]:
    """Where the gradient of each keyword argument of a call of ``rule``
    with ``nargs`` positional arguments is among those its ``back``
    returns: one per parameter of the rule, or, for a rule with ``*args``,
    one per positional argument of the call, then, optionally, one per
    keyword argument in call order (``max``'s ``default=``). ``None``: the
    rule has no such parameter, and it gets none. A tuple: a closure that
    captures it (``rule_vjp``'s) is compiled in forward mode for its kind,
    not for the object."""
    if not keywords:  # (most calls: no signature to read)
        return ()
    key = registry.key(rule)
    if key not in _PARAMS:
        params = inspect.signature(rule).parameters.values()
        _PARAMS[key] = None if any(p.kind is p.VAR_POSITIONAL for p in params) else [p.name for p in params]
    names = _PARAMS[key]
    if names is None:
        return tuple(nargs + i for i in range(len(keywords)))
    return tuple(names.index(k) if k in names else None for k in keywords)


def rule_pullback(rule: Callable, back: Callable, nargs: int, kwargs: dict, array: bool = False) -> Callable:
    """``back`` in ``J``'s convention: the callee's gradient (``None``), one
    per positional argument, then one per keyword argument in call order
    (see :func:`keyword_positions`). For an ``array`` output, the number 0
    that emitted code starts a gradient from on paths that give it none
    (:func:`is_number_zero`) gives no gradients without calling ``back``,
    which may reshape or index its cotangent (inlined rules are guarded
    alike at compile time)."""
    where = keyword_positions(rule, nargs, kwargs)

    def pullback(dy):
        if array and is_number_zero(dy):
            return NO_GRADS
        grads = back(dy)
        return (None, *grads[:nargs], *(None if i is None or i >= len(grads) else grads[i] for i in where))
    return pullback


def attribute(obj: Any, name: str, default: Any) -> tuple[Any, Optional[Callable]]:
    """``getattr(obj, name, default)`` (``default`` ``MISSING``: none) and,
    when it is a property or the default, a pullback from its cotangent to
    those of ``obj`` and ``default``; ``None`` for any other attribute,
    whose gradient is :func:`attribute_gradient`."""
    if default is not MISSING and not hasattr(obj, name):
        return default, to_default
    # (another library's array: its properties, Dask's shape and ndim, are an array's attributes, not code to
    # differentiate)
    found = class_attribute(type(obj), name)
    getter = None if arrays.is_foreign(obj) else getter_of(found)
    if getter is None:
        y = getattr(obj, name)
        check_array_attribute(obj, name, y)
        return y, None
    computed, back = J(getter, obj)  # (the getter's gradient, and its object's)
    y = cached_value(obj, name, computed) if isinstance(found, functools.cached_property) else computed
    return y, lambda dy: (back(dy)[1], None)


def _call_partial(f: functools.partial, args: tuple, kwargs: dict) -> tuple[Any, Callable[[Any], tuple]]:
    """:func:`J` of a ``functools.partial`` object: its function called
    with the bound arguments and the call's. The partial's own gradient is
    a dict of its fields: ``func`` (the function's gradient), ``args`` (a
    tuple, one per bound argument) and ``keywords`` (a dict, one per bound
    keyword the call does not override)."""
    keywords = {**f.keywords, **kwargs}
    y, back = J(f.func, *f.args, *args, **keywords)
    n = len(f.args)

    def pullback(dy):
        grads = back(dy)  # (indexed, not sliced: it may be the endless run of None)
        by_name = {k: grads[1 + n + len(args) + i] for i, k in enumerate(keywords)}
        own = {"func": grads[0], "args": tuple(grads[1 + i] for i in range(n)),
               "keywords": {k: by_name[k] for k in f.keywords if k not in kwargs}}
        return (own, *(grads[1 + n + i] for i in range(len(args))), *(by_name[k] for k in kwargs))
    return y, pullback
