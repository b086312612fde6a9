"""What emitted gradient code calls at run time."""
from __future__ import annotations

import collections
import contextlib
import copy
import functools
import itertools
import dataclasses
import inspect
import math
import operator
import sys
import types
import weakref
from collections.abc import Mapping, MappingView
from typing import Any, Callable, Iterator, Optional

import numbers
from decimal import Decimal
from fractions import Fraction

import numpy as np

from . import tangent
from .errors import NoDerivativeRule, NonScalarOutput, UnsupportedSyntax
from .ir import ops
from .rules import registry
from .tangent import Tangent


def accum(a: Any, b: Any) -> Any:
    """The sum of two gradients of the same value, ``None`` being zero
    (:func:`tangent.add`, by the name gradient code calls it by)."""
    return tangent.add(a, b)


def seed(y: Any) -> Any:
    """The cotangent 1 for a real scalar output ``y``, of ``y``'s kind (a
    float 1.0 for a float, ``Fraction(1)`` for a fraction, ``Decimal(1)``
    for a decimal, which keeps their gradients exact: ``dy / 2`` stays a
    fraction; the integer 1 for an int); anything else raises
    :class:`NonScalarOutput`."""
    if type(y) is float:
        return 1.0
    if type(y) is np.float64:
        return _ONE64
    if isinstance(y, (Fraction, Decimal)):
        return type(y)(1)
    if isinstance(y, (bool, complex, np.complexfloating)) or not (
        isinstance(y, (numbers.Real, np.generic, np.ndarray)) or number_type(type(y))
    ):
        if isinstance(y, (complex, np.complexfloating)):
            raise NonScalarOutput(
                "gradient needs a real scalar output, not a complex value",
                hint="use zpy.pullback(f, *args): back(dy) is the gradient of Re(conj(dy) * y), so back(1) "
                "and back(1j) are those of y.real and y.imag, the two columns of the Jacobian; or return "
                "a real loss such as abs(y) ** 2",
            )
        raise NonScalarOutput(
            f"gradient needs a real scalar output, not a {type(y).__name__} value",
            hint="use zpy.pullback(f, *args) and call back(dy) with a cotangent shaped like the output",
        )
    if isinstance(y, np.ndarray):
        if y.ndim != 0 or y.dtype.kind not in "fiu":
            raise NonScalarOutput(
                f"gradient needs a real scalar output, not an array of shape {y.shape}",
                hint="use zpy.pullback(f, *args), or reduce the output to a scalar (e.g. .sum())",
            )
        return np.ones_like(y) if y.dtype.kind == "f" else 1
    if isinstance(y, np.floating):
        return y.dtype.type(1)
    return 1


_ONE64 = np.float64(1.0)


def zero_tangent(x: Any) -> Any:
    """The zero tangent of ``x`` in forward mode: a zero of its type for a
    float or complex number or array (NumPy scalars keep their dtype), the
    integer 0 for an integer or a boolean, the same structure for a tuple
    or list (a list for a dict's keys, values or items), and ``None`` (no
    tangent) for anything else: integer arrays, strings, objects."""
    if type(x) is float:
        return 0.0
    if isinstance(x, np.ndarray):
        return np.zeros_like(x) if x.dtype.kind in "fc" else None
    if isinstance(x, (np.floating, np.complexfloating)):
        return x.dtype.type(0)
    if isinstance(x, (float, complex)):
        return type(x)(0)
    if isinstance(x, (int, np.integer)):
        return 0  # (an integer carries no tangent; 0 keeps arithmetic on it working)
    if isinstance(x, (tuple, list, MappingView)):  # (d.keys(): a list, as list(d.keys()) is)
        items = [zero_tangent(v) for v in x]
        return tuple(items) if isinstance(x, tuple) else items
    if type(x) is collections.defaultdict:
        return changing_zero(x)  # (its missing keys get zero tangents as they are made)
    if isinstance(x, dict):
        return {k: zero_tangent(v) for k, v in x.items()}
    if isinstance(x, _Lazy):  # a gradient kept sparse
        return np.zeros(x.shape, x.dtype)
    return None


def shaped(t: Any, y: Any) -> Any:
    """The tangent ``t`` of ``y`` with ``y``'s shape and dtype: a
    pushforward rule of a broadcasting function returns
    ``shaped(da + db, y)``, since ``db`` alone (``da`` dropped as zero)
    may have fewer dimensions than ``y``. ``t`` itself when it already
    fits (always for Python numbers)."""
    if isinstance(y, (tuple, list)) and (not isinstance(t, (tuple, list)) or len(t) != len(y)):
        raise NoDerivativeRule(
            "forward mode: sequences joined with + or * (their tangents' items are not known apart)",
            hint="build the joined sequence with a display or a list comprehension, or use reverse mode",
        )
    if type(y) is not np.ndarray and not isinstance(y, np.generic):
        return t
    if type(t) is np.ndarray and t.shape == y.shape and t.dtype == y.dtype:
        return t if type(y) is np.ndarray else t[()]
    out = np.empty(np.shape(y), np.result_type(y))
    out[...] = t
    return out if type(y) is np.ndarray else out[()]


def is_zero_tangent(t: Any) -> bool:
    """Whether a run-time tangent is known to be zero without looking at
    its values: ``None``, or an integer (integers carry no tangent)."""
    return t is None or isinstance(t, (int, np.integer))


def add_into(g: Any, v: Any) -> Any:
    """``g + v``, where ``g`` is a gradient summed around a loop that an
    earlier ``+`` made (so nothing else holds it): added in place when both
    are arrays of one shape and dtype, which saves an array per
    iteration."""
    if type(g) is np.ndarray and type(v) is np.ndarray and g.shape == v.shape and g.dtype is v.dtype:
        g += v
        return g
    return g + v


def accum_item(grads: dict, key: Any, g: Any) -> None:
    """Add ``g`` into ``grads[key]`` (the gradient of a closure's captured
    variable, or of an object's field)."""
    grads[key] = accum(grads.get(key), g)


def field(grad: Any, name: str) -> Any:
    """The gradient of one field (or captured variable) in an object's or
    closure's structural gradient (a :class:`Tangent`, or the dict a
    pullback builds its closure's gradient in); ``None`` when there is
    none."""
    if grad is None:
        return None
    if isinstance(grad, Tangent):
        return tangent.get(grad, name)
    if isinstance(grad, dict):
        return grad.get(name)
    return getattr(grad, name, None)


def cells_gradient(dclosure: Any, names: tuple) -> tuple[Any, tuple]:
    """A closure's gradient from a call of it that shares the cells
    ``names`` with its caller (see :func:`call_with_cells`), split in two:
    the closure's own, without those cells' entries, and those entries, the
    gradients of the values the cells held at the call."""
    values = tuple(field(dclosure, name) for name in names)
    for name in names:
        dclosure = without_field(dclosure, name)
    return dclosure, values


def without_field(grad: Any, name: str) -> Any:
    """An object's or closure's structural gradient with ``name``'s entry
    removed (the field was overwritten: its old value has no gradient)."""
    if isinstance(grad, Tangent):
        return Tangent(**{**tangent.values(grad), name: None})
    if isinstance(grad, dict):
        return {k: v for k, v in grad.items() if k != name} or None
    return grad


def call_pullback(back: Any, dy: Any) -> Any:
    """``back(dy)``, or no gradients when ``dy`` is ``None``."""
    if dy is None:
        return _NO_GRADS
    return back(dy)


def is_number_zero(dy: Any) -> bool:
    """Whether ``dy``, an array's gradient, is the number 0 that the
    adjoint starts it from on the paths that give it none (or a multiple
    of it): a rule that reshapes the gradient cannot take it, and it
    gives no gradients."""
    return isinstance(dy, (int, float, np.number)) and dy == 0


class _NoGrads(tuple):
    """An endless run of ``None``: the gradients of a call no gradient
    reached, whatever its arity."""

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self if i.stop is None else (None,) * len(range(i.start or 0, i.stop, i.step or 1))
        return None


_NO_GRADS = _NoGrads()


def differentiable_callable(fn: Any) -> bool:
    """Whether :func:`J` can differentiate calls of ``fn`` with no rule:
    Python functions and methods (by their source), ``functools.partial``
    and ``functools.lru_cache`` objects of such a function, objects whose
    class defines ``__call__`` in Python, and subclasses of ``float`` and
    ``complex`` made from a number (see :func:`number_subclass`); not the operations the compiler lowers
    Python's syntax to (:mod:`zygote_py.ir.ops`), which are differentiated
    by their rules or not at all."""
    if isinstance(fn, types.MethodType):
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
        owner = _owner(cls, "__new__")
        return cls._fields if "_fields" in owner.__dict__ and _generated(cls.__new__) else None
    if dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and cls.__new__ is object.__new__:
        if dataclasses.is_dataclass(_owner(cls, "__init__")) and _generated(cls.__init__):
            return tuple(inspect.signature(cls).parameters)
    return None


def changing_method(obj: Any, name: str) -> Optional[Callable]:
    """``type(obj)``'s method ``name`` when it is a Python function that
    changes its object in place (see ``mutation.changed_positions``)."""
    from .ad.mutation import changed_positions

    method = getattr(type(obj), name, None)
    if not isinstance(method, types.FunctionType) or isinstance(obj, type):
        return None
    definite, in_place = changed_positions(method)
    return method if 0 in definite or 0 in in_place and isinstance(obj, np.ndarray) else None


def setter(obj: Any, name: str, value: Any) -> Optional[tuple[Callable, tuple]]:
    """The Python function that ``obj.name = value`` calls, and its
    arguments: the class's own ``__setattr__``, or a property's setter;
    ``None`` for a plain attribute (a ``__slots__`` one too). A descriptor
    of another kind whose ``__set__`` is Python code is refused: what it
    stores where is not known."""
    if isinstance(obj, type):
        return None
    custom = python_method(type(obj), "__setattr__")
    if custom is not None:
        return custom, (obj, name, value)
    found = _class_attribute(type(obj), name)
    if isinstance(found, property):
        if not isinstance(found.fset, types.FunctionType):
            raise NoDerivativeRule(f"assigning {type(obj).__name__}.{name}, a property whose setter is not Python "
                                   "code", hint="assign the attribute it stores instead")
        return found.fset, (obj, value)
    if isinstance(getattr(type(found), "__set__", None), types.FunctionType):
        raise NoDerivativeRule(
            f"assigning {type(obj).__name__}.{name} through a descriptor ({type(found).__name__}.__set__)",
            hint="assign the attribute it stores instead, or make it a property",
        )
    return None


def forward_changing(f: Any, position: Any, args: tuple) -> tuple[Any, Callable]:
    """``f(*args)`` for a Python function that changes ``args[position]``
    in place: ``(value, the changed object)`` and its pullback in ``J``'s
    convention, from the gradients of both (for a tuple of positions,
    ``(value, *the changed objects)``)."""
    from .ad import pipeline

    return pipeline.call_forward(f, args, {}, param_out=position)


def spread_positional(starred: tuple, *pieces: Any) -> tuple:
    """The positional arguments of a call ``f(a, *xs, b)``: ``pieces`` are
    ``a, xs, b`` and ``starred`` says which are spread (``*xs``)."""
    items: list = []
    for spread, piece in zip(starred, pieces):
        if spread:
            items.extend(piece)
        else:
            items.append(piece)
    return tuple(items)


def spread_keywords(keys: tuple, *values: Any) -> dict:
    """The keyword arguments of a call ``f(k=v, **m)``: ``keys`` are the
    keywords, ``None`` for a mapping to spread (``**m``). A keyword given
    twice is Python's ``TypeError``."""
    out: dict = {}
    for key, value in zip(keys, values):
        for k, v in (value.items() if key is None else [(key, value)]):
            if k in out:
                raise TypeError(f"got multiple values for keyword argument {k!r}")
            out[k] = v
    return out


def call_spread(f: Any, args: tuple, kwargs: dict) -> Any:
    """``f(*args, **kwargs)``."""
    return f(*args, **kwargs)


def call_with_cells(f: Any, shared: tuple, written: tuple, values: tuple, *args: Any,
                    **kwargs: Any) -> tuple[Any, tuple]:
    """``f(*args, **kwargs)`` for a nested function ``f`` that shares the
    cells ``shared`` with its caller (whose values at the call are
    ``values``), and the values it left in those it assigns, ``written``
    (see :mod:`zygote_py.ad.cells`)."""
    y = f(*args, **kwargs)
    cells = dict(zip(f.__code__.co_freevars, f.__closure__))
    return y, tuple(cells[name].cell_contents for name in written)


def forward_with_cells(f: Any, shared: tuple, written: tuple, values: tuple, args: tuple) -> tuple[Any, Callable]:
    """:func:`call_with_cells`'s call and its pullback in ``J``'s convention,
    from the gradients of its value and of the values it left in the cells
    ``written``. The call reads the values it was handed, which may be
    copies: its pullback must see an object as it was at the call, though
    the caller changes it in place afterwards (a cell it does not assign
    gets its object back after the call)."""
    from .ad import pipeline

    check_assigned(f, written)
    with lent_cells(f, shared, values, keep=written):  # (a call made again finds its cells as they were)
        return pipeline.call_forward(f, args, {}, cells_out=written)


@contextlib.contextmanager
def lent_cells(f: Any, names: tuple, values: tuple, keep: tuple = ()) -> Iterator[None]:
    """The cells ``names`` of the closure ``f`` hold ``values`` (those
    that are not ``ops.UNBOUND``) while the block runs, and their own
    values again after it, but for those in ``keep``, which keep what the
    block left in them."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__))
    own = {}
    for name, value in zip(names, values):
        cell = cells[name]
        if value is ops.UNBOUND:
            continue
        if name not in keep:
            try:
                own[name] = cell.cell_contents
            except ValueError:  # (unbound: unbound again after)
                own[name] = ops.UNBOUND
        cell.cell_contents = value
    try:
        yield
    finally:
        for name, value in own.items():
            if value is ops.UNBOUND:
                del cells[name].cell_contents
            else:
                cells[name].cell_contents = value


def push_with_cells(f: Any, shared: tuple, written: tuple, dvalues: Optional[tuple], args: tuple, kwargs: dict,
                    dargs: tuple, dkwargs: dict) -> tuple[tuple, tuple]:
    """:func:`call_with_cells`'s value ``(y, values left in written)`` and
    its tangent, given ``dvalues``, the tangents of the values of the cells
    ``shared`` at the call (``None``: all zero), and the arguments'. Every
    tangent is concrete (a zero, not ``None``), as the caller goes on
    computing with the cells' values."""
    from .ad import pipeline

    check_assigned(f, written)
    dvalues = (None,) * len(shared) if dvalues is None else dvalues
    (y, left), (dy, dleft) = pipeline.call_jvp_with_cells(f, shared, dvalues, written, args, kwargs, dargs, dkwargs)
    dleft = (None,) * len(written) if dleft is None else dleft
    return (y, left), (_concrete(y, dy), tuple(_concrete(v, d) for v, d in zip(left, dleft)))


def _concrete(x: Any, dx: Any) -> Any:
    return zero_tangent(x) if dx is None else dx


def check_assigned(f: Any, written: tuple) -> None:
    """Refuse a call of the nested function ``f``, which assigns the cells
    ``written``, while one of them is still unassigned: its compiled code
    reads each such cell once at its start (see :mod:`.ad.cells`)."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__))
    for name in written:
        try:
            cells[name].cell_contents
        except ValueError:
            raise UnsupportedSyntax(
                f"calling {f.__name__}, which assigns `{name}` (nonlocal), before `{name}` is assigned",
                hint=f"assign {name} before the call (for instance {name} = None)",
            ) from None


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


NEST = [0]
"""How many differentiations are running (see :func:`nestlevel`)."""

COUNTED_CODE: "weakref.WeakSet[types.CodeType]" = weakref.WeakSet()
"""Code whose every running frame is one more differentiation: the gradient
functions ``zpy.grad``'s fast path calls without counting in ``NEST`` (two
list updates would cost it a third of its time; see ``backend.bound``)."""


def nestlevel() -> int:
    """The order of differentiation being performed where it is called: 0
    outside any, 1 in a function ``zpy.gradient`` differentiates, 2 in the
    inner function of a gradient taken inside that one, ..."""
    level = NEST[0]
    if COUNTED_CODE:
        frame = sys._getframe(1)
        while frame is not None:
            level += frame.f_code in COUNTED_CODE
            frame = frame.f_back
    return level


def nested(forward: Callable) -> Callable:
    """``forward``, counted as one more differentiation while it runs."""
    def run(*args: Any, **kwargs: Any) -> Any:
        NEST[0] += 1
        try:
            return forward(*args, **kwargs)
        finally:
            NEST[0] -= 1
    return run


def J_nested(f: Any, *args: Any) -> tuple[Any, Callable]:
    """:func:`J` of a gradient function: one more differentiation runs in it."""
    return nested(J)(f, *args)


def gradient_function(f: Any, args: tuple, kwargs: Optional[dict] = None) -> Callable:
    """A Python function of ``args`` (and ``kwargs``, constants) returning
    ``(f(*args, **kwargs), gradient of f)`` whose source zygote_py can
    read, so that the gradient is differentiated again (nested
    differentiation): the emitted gradient function of a Python ``f``, or
    :func:`rule_gradient` for an ``f`` with a rule. The gradient has one
    entry per argument; with ``kwargs``, where the arguments are the
    first parameters, one per parameter (theirs first), which forward
    mode pushes through the emitted code alone."""
    from .ad import pipeline
    from .api import Differentiable, _restricted

    if isinstance(f, Differentiable) or type(f) is functools._lru_cache_wrapper:
        f = f.__wrapped__
    rule = registry.lookup(f)
    if rule is not None:
        return rule_gradient(rule)
    if not isinstance(f, types.FunctionType):
        raise NoDerivativeRule(
            f"no rule for differentiating zpy.gradient of {registry.display_name(f)!r} again",
            hint="differentiate a plain Python function's gradient, or one with a rule",
        )
    kwargs = kwargs or {}
    active, numeric = pipeline.masks(f, args, kwargs)
    if kwargs:
        active = _restricted(f, active, range(len(args)))
    entry = pipeline.compiled(f, active, numeric, False)
    g, sig = entry.gradient_function(f), entry.signature
    positional = sig.posonly + sig.args
    if kwargs and sig.vararg is None and len(args) <= len(positional) or \
            sig.names() == positional and len(positional) == len(args):
        return g
    return per_argument(f, g, sig)


def unpartial(f: Any, args: tuple, dargs: tuple, kwargs: dict) -> tuple[Any, tuple, tuple, dict]:
    """``f``, its arguments, their tangents and its keyword arguments with
    a ``functools.partial`` replaced by its function and the arguments it
    binds (constants: no tangents), so that :func:`gradient_function` gets
    a Python function."""
    while type(f) is functools.partial:
        args, dargs = (*f.args, *args), (*(None,) * len(f.args), *dargs)
        f, kwargs = f.func, {**f.keywords, **kwargs}
    return f, args, dargs, kwargs


def per_argument(f: Any, g: Callable, sig: Any) -> Callable:
    """The gradient function ``g`` of ``f`` (one gradient per parameter)
    giving one gradient per positional argument of the call, as
    ``zpy.gradient`` does: for ``f(*xs)``, a call that leaves a parameter
    to its default, or one with keyword arguments (constants)."""
    from .ad import pipeline

    def gradient(*args, **kwargs):
        y, grads = g(*args, **kwargs)
        return y, pipeline.call_cotangent(f, False, sig, len(args), list(kwargs), grads)[1:1 + len(args)]
    return gradient


def rule_gradient(rule: Callable) -> Callable:
    """A function of ``args`` returning ``(y, gradients)`` of a function
    through its rule ``rule``."""
    def gradient(*args):
        y, back = rule(*args)
        return y, back(seed(y))
    return gradient


def rule_vjp(rule: Callable, nargs: int, keywords: tuple = ()) -> Callable:
    """A function of ``(dout, *args, **kwargs)`` returning the gradients of
    a call of a function through its rule ``rule`` with ``nargs``
    positional arguments and the keyword arguments ``keywords`` (in call
    order), for the cotangent ``dout``, in :func:`J`'s convention: plain
    Python, so that the rule is differentiated again (see
    :class:`Pullback`)."""
    where = _keyword_positions(rule, nargs, keywords)

    def vjp(dout, *args, **kwargs):
        y, back = rule(*args, **kwargs)
        grads = back(dout)
        return (None, *grads[:nargs], *[None if i is None or i >= len(grads) else grads[i] for i in where])
    return vjp


def copied(values: tuple, changed: Optional[int] = None) -> tuple:
    """``values`` with each list, dict, array and plain object (of a class
    written in Python, with a ``__dict__``) among them copied (one level
    deep: code after the call may assign its items or fields; through
    tuples, which hold them as they are), and each
    :class:`EagerIterator` (at its position): their state at a call, for a
    :class:`Pullback`. ``changed``: the position (or a tuple of them) of an
    object the call changes in place, which may be of any kind, and is
    copied whole, the same copy wherever it is among ``values``."""
    out = tuple(list(v) if type(v) is list else dict(v) if type(v) is dict else v.copy() if type(v) is np.ndarray
                else copy.copy(v) if type(v) is EagerIterator or _plain_object(v)
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
    may have emptied the pullback's stacks)."""

    __slots__ = ("back", "f", "args", "kwargs", "param_out", "changed", "cells")

    def __init__(self, back: Callable, f: Any, args: tuple, kwargs: dict, param_out: Optional[int] = None,
                 changed: Optional[int] = None, cells: Optional[tuple[tuple, tuple, tuple]] = None):
        self.back, self.f, self.args, self.kwargs = back, f, args, kwargs
        self.param_out, self.changed, self.cells = param_out, changed, cells

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
        from .ad import pipeline

        with self.lent():
            return pipeline.vjp_plan(self.f, self.args, self.kwargs, self.param_out,
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


def indexable(xs: Any) -> Any:
    """``xs``, a differentiated value a loop goes over (see
    ``ad.reverse._index_active_loops``), as something the loop can index:
    itself when it is a sequence (a list, tuple or array, or an object with
    ``__len__`` and ``__getitem__`` that is not a mapping), else the list
    of what it yields (an iterator, a mapping's keys, an object with only
    ``__iter__``)."""
    if isinstance(xs, (list, tuple, np.ndarray)) or (
            hasattr(xs, "__len__") and hasattr(xs, "__getitem__") and not isinstance(xs, Mapping)):
        return xs
    return list(xs)


def shares_cells(v: Callable, f: Any) -> Callable:
    """``v``, a function that computes the pullback of a call of ``f``
    (see ``ad.pipeline.vjp_plan``) and shares ``f``'s captured variables:
    its gradient is ``f``'s."""
    return v


def vectorized(vf: np.vectorize) -> types.MethodType:
    """What calling the ``np.vectorize`` object ``vf`` runs, as code
    zygote_py differentiates: ``rules.higher_order.vectorized`` bound to
    ``vf`` (whose gradient is its function's captured variables')."""
    from .rules import higher_order

    return types.MethodType(higher_order.vectorized, vf)


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


def construct_vjp(cls: type, init_vjp: Callable) -> Callable:
    """The pullback of ``cls(*args, **kwargs)`` (see
    ``ad.pipeline.construct``) as a function of ``(dout, *args,
    **kwargs)`` whose source zygote_py reads, from ``init_vjp``, the
    emitted vjp of ``cls.__init__`` returning the object it fills in:
    differentiated again for the derivative of that pullback (see
    ``ad.pipeline.vjp_plan``)."""
    def vjp(dout, *args, **kwargs):
        return init_vjp((None, dout), cls.__new__(cls), *args, **kwargs)
    return vjp


def python_init(cls: type) -> bool:
    """Whether calling ``cls`` makes a plain object and runs an ``__init__``
    written in Python (which the compiler can read)."""
    return cls.__new__ is object.__new__ and isinstance(cls.__init__, types.FunctionType) and not _generated(cls.__init__)


def _owner(cls: type, name: str) -> type:
    """The class in ``cls``'s MRO that defines ``name``."""
    return next(c for c in cls.__mro__ if name in c.__dict__)


def _generated(fn: Any) -> bool:
    """A function that ``dataclasses`` or ``namedtuple`` wrote (from a
    string), not the user."""
    return isinstance(fn, types.FunctionType) and fn.__code__.co_filename == "<string>"


def _construct(cls: type, names: tuple[str, ...], args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """``cls(*args, **kwargs)`` for a :func:`field_constructor` class, and
    its pullback in ``J``'s convention: each argument gets the gradient of
    the field it was stored in."""
    named = [*names[:len(args)], *kwargs]

    def pullback(dy):
        if isinstance(dy, tuple):  # a namedtuple's gradient
            dy = dict(zip(cls._fields, dy))
        return (None, *(field(dy, n) for n in named))
    return cls(*args, **kwargs), pullback


def J(f: Any, /, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple]]:
    """``f(*args, **kwargs)`` and its pullback, for a callee known only at
    run time. The pullback returns the gradient of ``f`` itself (a
    ``Tangent`` of its captured variables; ``None`` for a plain function),
    then one per positional argument, then one per keyword argument in call
    order. An operator on an object whose class defines it in Python
    (``__add__``...) differentiates that method; a namedtuple or plain
    dataclass constructor passes each field's gradient to its argument."""
    from .ad import pipeline

    methods = overload(f) if args else None  # (float(): no object)
    if methods is not None:
        done = overloaded_call(methods, args, _method_pullback)
        if done is not None:
            return done
    floats = float_operands(f, args)
    if floats:
        return _of_floats(f, args, kwargs, floats)
    rule = rule_for(f, args)
    if rule is not None:
        y, back = _apply(rule, f, args, kwargs)
        return y, _rule_pullback(rule, back, len(args), kwargs, isinstance(y, np.ndarray))
    if registry.is_nondifferentiable(f):
        return f(*args, **kwargs), _no_pullback
    implementation = registry.implementation(f)
    if implementation is not None:  # (scipy.stats.norm.logpdf: its formula)
        y, back = J(implementation, *args, **kwargs)
        return y, lambda dy: (None, *back(dy)[1:])
    if isinstance(f, types.MethodType):
        if isinstance(f.__func__, types.FunctionType):
            pipeline.never_library(f.__func__, f)
        y, back = J(f.__func__, f.__self__, *args, **kwargs)
        return y, lambda dy: back(dy)[1:]
    method = builtin_method(f)
    if method is not None:
        # x.sum(axis=1), d.get(k), z.conjugate(): the rule of ndarray.sum,
        # dict.get, complex.conjugate, with x's gradient as the bound
        # method's own (getattr's rule passes it on to x)
        if registry.is_nondifferentiable(method):
            return f(*args, **kwargs), _no_pullback
        rule = registry.lookup(method)
        if rule is not None:
            y, back = _apply(rule, method, (f.__self__, *args), kwargs)
            pb = _rule_pullback(rule, back, len(args) + 1, kwargs, isinstance(y, np.ndarray))
            return y, lambda dy: pb(dy)[1:]  # (the method's gradient: x's, then its arguments')
    if isinstance(f, types.FunctionType):
        return pipeline.call_forward(f, args, kwargs)
    if type(f) is functools._lru_cache_wrapper:  # its function, not the cache: a cached value has no pullback
        return J(f.__wrapped__, *args, **kwargs)
    if type(f) is np.vectorize:
        return J(vectorized(f), *args, **kwargs)
    names = field_constructor(f) if isinstance(f, type) else None
    if names is not None:
        return _construct(f, names, args, kwargs)
    if isinstance(f, type) and python_init(f):
        return pipeline.construct(f, args, kwargs)
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
    from .ad.analysis import is_differentiable_value

    bound = getattr(f, "__self__", None)  # a built-in method's object (a module for a function)
    if any(is_differentiable_value(v) for v in (bound, *args, *kwargs.values())):
        name = registry.display_name(f)
        raise NoDerivativeRule(
            f"no derivative rule for {name!r}, which was called with differentiated arguments",
            hint=f"register one with @zpy.adjoint({name}), or keep it out of the differentiated path",
        )
    return f(*args, **kwargs), _no_pullback


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


def number_subclass(f: Any, args: tuple, kwargs: dict) -> bool:
    """Whether ``f(*args, **kwargs)`` makes an instance of a subclass of
    ``float`` or ``complex`` from one number, as the base class does (the
    subclass's ``__new__`` and ``__init__`` are the base's): the number,
    with its derivative."""
    return isinstance(f, type) and issubclass(f, (float, complex)) and f.__new__ in (float.__new__, complex.__new__) \
        and f.__init__ is object.__init__ and len(args) == 1 and not kwargs and isinstance(args[0], numbers.Number)


def builtin_method(f: Any) -> Any:
    """The method of ``ndarray``, ``dict``, ``list``, ``complex``,
    ``float`` or ``str`` that ``f`` is bound to its object, another
    method written in C (a subclass's inherited one is its base's), or for a NumPy
    scalar's, the NumPy function called the same way (``m.clip(0, 1)`` is
    ``np.clip(m, 0, 1)``), whose rule :func:`J` applies; ``None`` for
    anything else."""
    if not isinstance(f, types.BuiltinMethodType):
        return None
    if isinstance(f.__self__, np.generic):
        if f.__name__ in ("item", "tolist", "astype"):
            return getattr(np.generic, f.__name__)
        return getattr(np, f.__name__) if f.__name__ in _SCALAR_METHODS else None
    method = getattr(type(f.__self__), f.__name__, None)
    if type(f.__self__) in (np.ndarray, dict, list, complex, float, str):
        return method
    if not isinstance(method, types.MethodDescriptorType):
        return None
    # a method written in C of another type, whose rule if any: one a dict's or list's subclass inherits (a
    # defaultdict's values) is the dict's or list's; one of its own (an OrderedDict's values and
    # move_to_end, which keep its order) is its own
    return method


_SCALAR_METHODS = {"conjugate", "conj", "clip", "sum", "mean", "prod", "max", "min", "round", "std", "var"}
"""A NumPy scalar's methods that take their arguments as the NumPy functions
of the same names do after the array."""


@functools.lru_cache(maxsize=None)
def number_type(cls: type) -> bool:
    """Whether values of ``cls`` are numbers to the rules (their arithmetic
    is differentiated by the rules of numbers, not through their Python
    methods): the types of :mod:`numbers` (``Fraction``...), ``Decimal``,
    and the ``uncertainties`` package's numbers with uncertainty, which so
    carry their uncertainty into gradients (as Measurements.jl does in
    Zygote's paper); but not a subclass of the user's that defines an
    operator in Python (``class F(float): def __mul__...``)."""
    core = sys.modules.get("uncertainties.core")
    if not (issubclass(cls, (numbers.Number, Decimal)) or core is not None and issubclass(cls, core.AffineScalarFunc)):
        return False
    return not any(c.__module__.partition(".")[0] not in _NUMBER_MODULES and any(
        isinstance(c.__dict__.get(name), types.FunctionType) for name in _OPERATOR_METHODS) for c in cls.__mro__)


_NUMBER_MODULES = {"builtins", "numbers", "fractions", "decimal", "_pydecimal", "uncertainties"}
"""The modules whose number types have rules (see :func:`number_type`)."""


def python_method(cls: type, name: str) -> Optional[types.FunctionType]:
    """``cls``'s method ``name`` when it is a Python function that
    :func:`J` differentiates by its source: not a number type's (see
    :func:`number_type`), which have rules, nor a lazy gradient's (an
    array to the rules, in gradient code differentiated again)."""
    method = getattr(cls, name, None)
    if isinstance(method, types.FunctionType) and not number_type(cls) and not issubclass(cls, _Lazy):
        return method
    return None


def _binary(name: str, rname: str) -> Callable:
    """The methods Python calls for a binary operator, in its order
    (``a + b``: ``a.__add__(b)``, then ``b.__radd__(a)``; the reflected one
    first when ``b``'s class is a subclass of ``a``'s that overrides it):
    each Python method as ``(method, swapped)``, ``swapped`` when it takes
    the operands in reverse order. None when no operand has a Python method
    for it; none after a method that is not one (a built-in type's) gave
    the value: the operator's rule applies (see :func:`overloaded_call`)."""

    def methods(a: Any, b: Any, *mod: Any) -> Iterator[tuple[types.FunctionType, bool]]:
        ta, tb = type(a), type(b)
        if mod or python_method(ta, name) is None and python_method(tb, rname) is None:
            return  # (pow(a, b, m): modular, integers)
        order = [(a, name, b, False), (b, rname, a, True)]
        if tb is not ta and issubclass(tb, ta) and getattr(tb, rname, None) is not getattr(ta, rname, None):
            order.reverse()
        for obj, method_name, other, swapped in order:
            if swapped and ta is tb:
                continue
            method = python_method(type(obj), method_name)
            if method is None:
                builtin = getattr(type(obj), method_name, None)
                if builtin is not None and builtin(obj, other) is not NotImplemented:
                    return
                continue
            yield method, swapped
    methods.names = (name, rname)  # (the methods it dispatches to)
    return methods


def _unary(name: str) -> Callable:
    """The Python method Python calls for ``-a``, ``a[k]`` and the like: ``a``'s
    (see :func:`_binary`)."""

    def methods(a: Any, *rest: Any) -> Iterator[tuple[types.FunctionType, bool]]:
        method = python_method(type(a), name)
        if method is not None:
            yield method, False
    methods.names = (name,)  # (the methods it dispatches to)
    return methods


def _in_place(name: str, binary: Callable) -> Callable:
    """The methods Python calls for ``a += b`` and the like:
    ``a.__iadd__(b)`` when ``a``'s class has it in Python, then those of
    ``a + b`` (as Python falls back); none when ``a``'s built-in type has
    its own (``list.__iadd__``)."""

    def methods(a: Any, b: Any) -> Iterator[tuple[types.FunctionType, bool]]:
        method = python_method(type(a), name)
        if method is not None:
            yield method, False
        elif getattr(type(a), name, None) is not None:
            return  # a built-in type's own (list.__iadd__): the operator's rule applies
        yield from binary(a, b)
    methods.names = (name, *binary.names)  # (the methods it dispatches to)
    return methods


_BINARY = [
    (operator.add, operator.iadd, "add"), (operator.sub, operator.isub, "sub"),
    (operator.mul, operator.imul, "mul"), (operator.truediv, operator.itruediv, "truediv"),
    (operator.floordiv, operator.ifloordiv, "floordiv"), (operator.mod, operator.imod, "mod"),
    (operator.pow, operator.ipow, "pow"), (operator.matmul, operator.imatmul, "matmul"),
]
OVERLOADS: dict[Any, Callable] = {
    **{op: _binary(f"__{n}__", f"__r{n}__") for op, _, n in _BINARY},
    **{iop: _in_place(f"__i{n}__", _binary(f"__{n}__", f"__r{n}__")) for _, iop, n in _BINARY},
    pow: _binary("__pow__", "__rpow__"),
    operator.invert: _unary("__invert__"), operator.inv: _unary("__invert__"),
    **{op: _unary(f"__{n}__") for op, n in [
        (operator.neg, "neg"), (operator.pos, "pos"), (operator.abs, "abs"), (abs, "abs"),
        (operator.getitem, "getitem"), (float, "float"),
    ]},
}
"""Python's operators that a user class can define (``__add__`` ...): on
its instances, :func:`J` and :func:`push` differentiate the class's method
instead of applying the operator's rule, as Python calls the method instead
of the built-in operation (``float(obj)``: ``obj.__float__()``)."""


_OPERATOR_METHODS = {name for methods in OVERLOADS.values() for name in methods.names}
"""The methods of :data:`OVERLOADS` (``__add__``, ``__radd__``...)."""


def adds_in_python(items: Any, start: tuple) -> bool:
    """Whether ``sum(items, *start)`` calls a Python method: an item's or
    ``start``'s class defines ``__add__`` or ``__radd__`` in Python."""
    classes = set(map(type, items))
    classes.update(map(type, start))
    return any(python_method(c, "__add__") or python_method(c, "__radd__") for c in classes)


def overloaded_call(methods: Callable, args: tuple, call: Callable, *more: tuple) -> Optional[tuple]:
    """``f(*args)`` for an operator whose ``methods`` (its entry in
    :data:`OVERLOADS`) an operand's class defines in Python: ``call(method,
    swapped, args, *more)`` for each method Python would call, with
    ``args`` (and each of ``more``: their tangents) reversed for a
    reflected one (``swapped``), until one gives a value, not
    ``NotImplemented``. ``call`` returns the value first. ``None``: the
    operator's rule applies."""
    for method, swapped in methods(*args):
        done = call(method, swapped, *([a[::-1] for a in (args, *more)] if swapped else (args, *more)))
        if done[0] is not NotImplemented:
            return done
    return None


def _method_pullback(method: Callable, swapped: bool, args: tuple) -> tuple[Any, Callable]:
    """``J`` of an operator's method: its pullback gives the operands'
    gradients in the operator's order (a reflected method, ``b.__radd__(a)``
    for ``a + b``, takes them reversed)."""
    y, back = J(method, *args)
    if swapped:
        return y, lambda dy: (None, *back(dy)[:0:-1])
    return y, lambda dy: (None, *back(dy)[1:])


def overload(f: Any) -> Optional[Callable]:
    """``f``'s methods in :data:`OVERLOADS`, or ``None`` (``f``'s type is
    checked first: any other callable may be unhashable)."""
    return OVERLOADS.get(f) if type(f) is types.BuiltinFunctionType or f is float else None


def _apply(rule: Callable, f: Any, args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """``rule(*args, **kwargs)``; a call the rule does not take (a keyword
    such as ``out=`` that it leaves out) is reported as such, not as the
    rule's own ``TypeError``."""
    try:
        return rule(*args, **kwargs)
    except TypeError:
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
        raise


_PARAMS: dict[Any, Optional[list[str]]] = {}


def _keyword_positions(rule: Callable, nargs: int, keywords: Any) -> list[Optional[int]]:
    """Where the gradient of each keyword argument of a call of ``rule``
    with ``nargs`` positional arguments is among those its ``back``
    returns: one per parameter of the rule, or, for a rule with ``*args``,
    one per positional argument of the call, then, optionally, one per
    keyword argument in call order (``max``'s ``default=``). ``None``: the
    rule has no such parameter, and it gets none."""
    key = registry.key(rule)
    if key not in _PARAMS:
        params = inspect.signature(rule).parameters.values()
        _PARAMS[key] = None if any(p.kind is p.VAR_POSITIONAL for p in params) else [p.name for p in params]
    names = _PARAMS[key]
    if names is None:
        return [nargs + i for i in range(len(keywords))]
    return [names.index(k) if k in names else None for k in keywords]


def _rule_pullback(rule: Callable, back: Callable, nargs: int, kwargs: dict, array: bool = False) -> Callable:
    """``back`` in ``J``'s convention: the callee's gradient (``None``), one
    per positional argument, then one per keyword argument in call order
    (see :func:`_keyword_positions`). For an ``array`` output, the number 0
    that emitted code starts a gradient from on paths that give it none
    (:func:`is_number_zero`) gives no gradients without calling ``back``,
    which may reshape or index its cotangent (inlined rules are guarded
    alike at compile time)."""
    where = _keyword_positions(rule, nargs, kwargs)

    def pullback(dy):
        if array and is_number_zero(dy):
            return _NO_GRADS
        grads = back(dy)
        return (None, *grads[:nargs], *(None if i is None or i >= len(grads) else grads[i] for i in where))
    return pullback


def _no_pullback(dy: Any) -> tuple:
    return _NO_GRADS


def unbroadcast(dy: Any, x: Any) -> Any:
    """``dy`` summed down to the shape of ``x``, an operand that NumPy
    broadcast to the shape of ``dy``, and given ``x``'s floating dtype (a
    float32 input gets a float32 gradient). A Python number ``x`` gets a
    Python number. (``None``, no gradient, stays ``None``.)"""
    if type(x) is np.ndarray and type(dy) is np.ndarray and dy.shape == x.shape and dy.dtype is x.dtype:
        return dy  # the common case: no broadcast, no cast
    if type(dy) is float and type(x) in (float, np.float64) or type(dy) is type(x) is np.float64:
        return dy
    if dy is None:
        return None
    if isinstance(x, np.generic) and type(dy) is np.ndarray and x.dtype.kind == "f":
        dy = dy.sum()  # a NumPy scalar broadcast to an array
        if dy.dtype.kind == "c":
            dy = dy.real  # (a real scalar's gradient: the real part, as for an array)
        return dy if dy.dtype is x.dtype else x.dtype.type(dy)
    if isinstance(x, (list, tuple)):  # a sequence NumPy read as an array
        if isinstance(dy, (list, tuple)):
            from .ad.analysis import is_differentiable_value

            if not is_differentiable_value(x):  # ([None] * n, in a rule's pullback differentiated again)
                return None
            raise NoDerivativeRule(
                "no rule for the gradient of joining or repeating sequences with + or *",
                hint="build the sequence with a display instead, e.g. [*a, *b] or [x, y]",
            )
        g = unbroadcast(dy, np.asarray(x))
        return type(x)(g.tolist()) if np.ndim(g) else g.item()
    shape = getattr(x, "shape", None)
    if shape is None:  # a Python number
        if getattr(dy, "ndim", 0):
            dy = dy.sum()
        if isinstance(dy, (np.generic, np.ndarray)) and isinstance(x, (int, float, complex)):
            dy = dy.item()
        return real_if_real(dy, x)
    dshape = getattr(dy, "shape", ())
    if len(dshape) < len(shape):  # a gradient that broadcasts to x's shape: a zero started as 0
        dy = np.full(shape, dy)
    elif dshape != shape:
        extra = len(dshape) - len(shape)
        if extra:  # the leading axes, summed away (a bias's gradient: one reduction)
            dy = np.add.reduce(dy, axis=0 if extra == 1 else tuple(range(extra)))
            if not shape:
                dy = np.asarray(dy)  # (a 0-d array's gradient is one)
        ones = tuple(i for i, n in enumerate(shape) if n == 1 and dshape[i + extra] != 1)
        if ones:
            dy = np.add.reduce(dy, axis=ones, keepdims=True)
        if np.shape(dy) != shape:
            dy = np.broadcast_to(dy, shape)  # a cotangent of size 1 for a broadcast input
    if isinstance(x, np.generic) and isinstance(dy, np.ndarray):
        dy = dy[()]  # a NumPy scalar's gradient is a NumPy scalar
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind in "fc" and (not hasattr(dy, "dtype") or dy.dtype != dtype):  # (complex)
        dy = real_if_real(dy, x)
        dy = np.asarray(dy).astype(dtype, copy=False) if x.ndim or isinstance(dy, np.ndarray) else dtype.type(dy)
    return dy


def real_if_real(g: Any, x: Any) -> Any:
    """``g`` as the gradient of the number or array ``x``: its real part
    when ``x`` is real. (The complex convention: ``z = x + iy`` gets
    ``dL/dx + i dL/dy``, so a real ``x`` gets ``dL/dx`` alone.)"""
    return g.real if np.iscomplexobj(g) and not np.iscomplexobj(x) else g


def repeated(dy: Any, n: int) -> list:
    """``[dy] * n``: the gradients of ``n`` items that each add into a sum."""
    return [dy] * n


def sequence_gradient(n: int, key: Any, dy: Any, is_tuple: bool) -> Any:
    """The gradient of a tuple (``is_tuple``) or list of ``n`` items for the
    gradient ``dy`` of its item or slice ``key``."""
    grads = [None] * n
    grads[key] = dy
    return tuple(grads) if is_tuple else grads


def scatter(x: Any, key: Any, dy: Any) -> Any:
    """The cotangent of ``x`` for a cotangent ``dy`` of ``x[key]``: zeros of
    ``x``'s shape and dtype with ``dy`` added at ``key`` (repeated indices
    add up). For a basic index that picks a small part of ``x`` (``x[i]``,
    ``x[i, j]``, a short slice) it is a :class:`Scatter`, which costs
    O(size of ``dy``), not O(size of ``x``)."""
    if dy is None:
        return None
    if type(key) is int and type(x) is np.ndarray and x.shape[0] >= 4 and (
        type(dy) is float or getattr(dy, "dtype", x.dtype).kind != "c"
    ):
        return Scatter(x.shape, x.dtype, [(key, dy)], 1, 1 if type(dy) is float else np.size(dy))  # x[i], first
    shape = np.shape(x)
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "fc":
        dtype = np.dtype(float)
    if np.iscomplexobj(dy) and dtype.kind != "c":
        dy = np.real(dy)  # a real input's gradient is real (the complex convention)
    basic = basic_index(key)
    if basic and np.size(dy) * 4 <= math.prod(shape):
        return Scatter(shape, dtype, [(key, dy)], 1, np.size(dy))
    g = np.zeros(shape, dtype)
    if basic or _mask(key):
        g[key] = dy  # no index repeats: assignment is the sum, and much faster than add.at
    else:
        np.add.at(g, key, dy)
    return g


def scatters(x: Any, keys: tuple, values: tuple) -> Any:
    """``scatter(x, k1, v1) + scatter(x, k2, v2) + ...``: the cotangent of
    ``x`` for cotangents of several of its parts at once (the four gates of
    an LSTM, sliced from one array). Written into one array of zeros when
    the keys are basic indices (no element is picked twice by one key) and
    the real values fill at least a quarter of ``x``; otherwise the sum of
    the scatters, which may stay sparse. (``values`` ``None``: no
    gradient.)"""
    parts = [(k, v) for k, v in zip(keys, values or ()) if v is not None]
    if not parts:
        return None
    if type(x) is np.ndarray and x.dtype.kind == "f" and all(
        basic_index(k) and (type(v) is float or not np.iscomplexobj(v) and getattr(v, "dtype", x.dtype).kind in "fiu")
        for k, v in parts
    ) and sum(np.size(v) for _, v in parts) * 4 > x.size:
        g = np.zeros(x.shape, x.dtype)
        for k, v in parts:
            g[k] += v
        return g
    total = scatter(x, *parts[0])
    for k, v in parts[1:]:
        total = total + scatter(x, k, v)
    return total


def gather(g: Any, keys: tuple, values: tuple) -> Optional[tuple]:
    """The cotangents of the ``values`` that :func:`scatters` wrote into an
    array, for the array's cotangent ``g``: its parts at ``keys``, each
    summed to its value's shape."""
    if g is None:
        return None
    d = np.asarray(dense(g))
    return tuple(unbroadcast(d[k], v) for k, v in zip(keys, values))


def _mask(key: Any) -> bool:
    """One boolean mask, alone or among basic indices (no index repeats)."""
    parts = key if isinstance(key, tuple) else (key,)
    masks = [k for k in parts if isinstance(k, np.ndarray) and k.dtype == bool]
    return len(masks) == 1 and all(_basic_part(k) for k in parts if k is not masks[0])


def basic_index(key: Any) -> bool:
    """A NumPy basic index: integers and slices (no arrays, masks, lists)."""
    if isinstance(key, tuple):
        return all(_basic_part(k) for k in key)
    return isinstance(key, (int, np.integer, slice))


def _basic_part(k: Any) -> bool:
    return isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis


class _Lazy:
    """A cotangent kept in a cheaper form than a dense array, made dense
    (:meth:`dense`) by any use other than accumulation: arithmetic, a NumPy
    function, being returned to the user."""

    __slots__ = ()
    __array_priority__ = 1000
    shape: tuple
    dtype: Any

    def dense(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __array__(self, dtype=None, copy=None):
        g = self.dense()
        return g if dtype is None else g.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(i.dense() if isinstance(i, _Lazy) else i for i in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return func(*dense(args), **dense(kwargs))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, (int, float)) and other == 0:
            return self
        return self.dense() + other

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, (int, float)) and other == 0:
            return self
        return other + self.dense()

    def __neg__(self) -> Any:
        return -self.dense()

    def __mul__(self, other: Any) -> Any:
        return self.dense() * other

    def __rmul__(self, other: Any) -> Any:
        return other * self.dense()

    def __sub__(self, other: Any) -> Any:
        return self + (-other if isinstance(other, _Lazy) else -np.asarray(other))

    def __rsub__(self, other: Any) -> Any:
        return other + (-self)

    def __truediv__(self, other: Any) -> Any:
        return self.dense() / other

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dense(), name)

    def __getitem__(self, key: Any) -> Any:
        return self.dense()[key]


class Scatter(_Lazy):
    """A sparse cotangent ("Differentiating a Tensor Language", Bernstein et
    al. 2020, where an Iverson bracket keeps the gradient of ``x[i]`` from
    being a dense one-hot tensor): zeros of ``shape`` with values added at
    indices that pick no element twice (``x[i]``, a slice, a diagonal). The
    first ``count`` items of ``entries`` are this scatter's ``(key, value)``
    pairs; scatters made from one another share the list, and one extends
    it only when it owns its end (``count == len(entries)``), so adding one
    item is O(1) and no scatter ever sees another's later items. Adding two
    scatters joins them, or makes them dense when their values have as many
    elements as the array (the four gates of an LSTM, sliced from one
    array: their gradients are then written into one array, once, instead
    of on every use of the sum); multiplying by a number scales the values.
    ``filled``: the number of elements of the values (an element picked
    twice counts twice)."""

    __slots__ = ("shape", "dtype", "entries", "count", "filled")

    def __init__(self, shape: tuple, dtype: Any, entries: list, count: int, filled: int):
        self.shape, self.dtype, self.entries, self.count, self.filled = shape, dtype, entries, count, filled

    def dense(self) -> np.ndarray:
        g = np.zeros(self.shape, self.dtype)
        for key, value in self.entries[:self.count]:
            g[key] += value
        return g

    def plus(self, key: Any, value: Any) -> "Scatter":
        """This scatter with ``value`` added at ``key``."""
        entries = self.entries
        if len(entries) != self.count:
            entries = entries[:self.count]
        entries.append((key, value))
        return Scatter(self.shape, self.dtype, entries, self.count + 1,
                       self.filled + (1 if type(value) is float else np.size(value)))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, Scatter) and other.shape == self.shape:
            small, big = (other, self) if other.count <= self.count else (self, other)
            out = big
            for key, value in small.entries[:small.count]:
                out = out.plus(key, value)
            out = Scatter(out.shape, np.result_type(out.dtype, small.dtype), out.entries, out.count, out.filled)
            return out.dense() if out.filled >= math.prod(out.shape) else out
        return super().__add__(other)

    def __neg__(self) -> "Scatter":
        return self._map(operator.neg)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, (int, float, np.generic)) and np.ndim(other) == 0:
            return self._map(lambda v: v * other)
        return self.dense() * other

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, (int, float, np.generic)) and np.ndim(other) == 0:
            return self._map(lambda v: other * v)
        return other * self.dense()

    def __repr__(self) -> str:
        return f"Scatter(shape={self.shape}, {self.count} entries)"

    def _map(self, f: Callable) -> "Scatter":
        entries = [(key, f(value)) for key, value in self.entries[:self.count]]
        return Scatter(self.shape, self.dtype, entries, len(entries), self.filled)


class Items(_Lazy):
    """The gradient of a one-dimensional array as a Python list of its
    items' gradients, which :func:`add_to` updates in place: ``g[i] += v``
    on a list costs a fraction of the same on an array, and a loop over
    items adds one per item."""

    __slots__ = ("shape", "dtype", "values")

    def __init__(self, shape: tuple, dtype: Any, values: list):
        self.shape, self.dtype, self.values = shape, dtype, values

    def dense(self) -> np.ndarray:
        try:
            return np.fromiter(self.values, self.dtype, len(self.values))
        except TypeError:  # a complex item: a real array's gradient is its real part (the convention)
            return np.array(self.values).real.astype(self.dtype)

    def __repr__(self) -> str:
        return f"Items(shape={self.shape})"


def add_at(g: Any, x: Any, key: Any, dy: Any) -> Any:
    """``g + scatter(x, key, dy)``: a gradient of ``x`` with one more
    item's gradient added, extending ``g`` when it is a scatter."""
    if type(g) is Scatter and type(key) is int and (type(dy) is float or getattr(dy, "dtype", None) == g.dtype):
        return g.plus(key, dy)
    return g + scatter(x, key, dy)


def add_to(g: Any, x: Any, key: Any, dy: Any) -> Any:
    """:func:`add_at` where the compiler knows that the variable holding
    ``g`` is not read again: an :class:`Items` that nothing else refers to
    (its reference count says so) is updated in place. The loop ``for i
    ...: s += x[i] * w`` costs one list update per item."""
    if type(g) is Items and type(key) is int and _getrefcount(g) <= UNSHARED:
        g.values[key] += dy
        return g
    if (
        type(key) is int and type(x) is np.ndarray and x.ndim == 1 and x.dtype.kind == "f"
        and (type(dy) is float or isinstance(dy, np.floating))
    ):
        if type(g) is Items:  # shared: keep it as it is, and add to a scatter over it
            return Scatter(g.shape, g.dtype, [(Ellipsis, g), (key, dy)], 2, x.shape[0] + 1)
        values = [0.0] * x.shape[0] if isinstance(g, (int, float)) and g == 0 else np.asarray(g).tolist()
        values[key] += dy
        return Items(x.shape, x.dtype, values)
    return add_at(g, x, key, dy)


def item_buffer(g: Any, x: np.ndarray) -> list:
    """The gradient ``g`` of the one-dimensional array ``x`` (0 or ``None``
    for none yet) as a list of its items' gradients, which a loop over
    items adds to (see :func:`item_gradient`)."""
    if g is None or isinstance(g, (int, float)) and g == 0:
        return [0.0] * len(x)
    return np.asarray(dense(g)).tolist()


def item_gradient(values: list, x: np.ndarray) -> Items:
    """The gradient of ``x`` that :func:`item_buffer`'s list holds."""
    return Items(x.shape, x.dtype, values)


_getrefcount = sys.getrefcount


def _references(g: Any) -> int:
    return _getrefcount(g)


def _unshared() -> int:
    """The reference count :func:`add_to` sees for an object that only its
    caller's variable holds (the variable, the argument, getrefcount's own)."""
    g = Items((0,), np.dtype(float), [])
    return _references(g)


UNSHARED = _unshared()
"""The reference count a function sees for an argument that only its caller's
variable holds (see :func:`add_to`)."""


def dense(grads: Any) -> Any:
    """Gradients with every lazy cotangent (a :class:`Scatter`, an
    :class:`Items`) made dense, inside tuples, lists, dicts and tangents
    too."""
    if isinstance(grads, _Lazy):
        return grads.dense()
    if isinstance(grads, (tuple, list)):
        items = [dense(v) for v in grads]
        return type(grads)(*items) if hasattr(grads, "_fields") else type(grads)(items)
    if isinstance(grads, dict):
        return {k: dense(v) for k, v in grads.items()}
    if isinstance(grads, Tangent):
        return Tangent(**{k: dense(v) for k, v in tangent.values(grads).items()})
    return grads


def user_gradient(x: Any, g: Any) -> Any:
    """The gradient ``g`` of an argument ``x`` as the user gets it: made
    dense, and shaped like ``x`` — the same namedtuple for a namedtuple
    (one read by index has a plain tuple), a dict with ``x``'s keys, a
    tangent with every field of ``x``, an array of zeros for an array a
    gradient could reach but this run's path did not (the number 0)."""
    if g is None or isinstance(x, (bool, int, np.integer)):
        return None  # (an integer is not differentiated: a field holding one, a count, gets none either)
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and g == 0:
        return np.zeros_like(x)
    if type(x) is float and type(g) is int:
        return float(g)  # (the exact 0 a gradient starts from where arrays are differentiated too)
    if isinstance(x, (tuple, list)) and isinstance(g, (tuple, list)) and len(x) == len(g):
        items = [user_gradient(a, b) for a, b in zip(x, g)]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    if isinstance(x, dict) and isinstance(g, dict):  # (keys the function removed from x keep theirs)
        return {k: user_gradient(x.get(k), g.get(k)) for k in [*x, *(k for k in g if k not in x)]}
    if isinstance(g, Tangent):
        if isinstance(x, types.MethodType):
            x = x.__self__  # a bound method's gradient is its object's
        names = tangent.fields(x)
        return Tangent(names, **{
            k: user_gradient(tangent.value(x, k) if k in names else None, v) for k, v in tangent.values(g).items()
        })
    return dense(g)


def attribute(obj: Any, name: str, default: Any) -> tuple[Any, Optional[Callable]]:
    """``getattr(obj, name, default)`` (``default`` ``MISSING``: none) and,
    when it is a property or the default, a pullback from its cotangent to
    those of ``obj`` and ``default``; ``None`` for any other attribute,
    whose gradient is :func:`attribute_gradient`."""
    if default is not MISSING and not hasattr(obj, name):
        return default, _to_default
    found = _class_attribute(type(obj), name)
    getter = _getter(found)
    if getter is None:
        return getattr(obj, name), None
    computed, back = J(getter, obj)  # (the getter's gradient, and its object's)
    y = cached_value(obj, name, computed) if isinstance(found, functools.cached_property) else computed
    return y, lambda dy: (back(dy)[1], None)


def _getter(found: Any) -> Optional[Callable]:
    """The function that computes an attribute which a class defines as
    ``found``: a property's getter, a ``functools.cached_property``'s
    function; ``None`` for anything else."""
    if isinstance(found, property):
        return found.fget
    return found.func if isinstance(found, functools.cached_property) else None


def cached_value(obj: Any, name: str, computed: Any) -> Any:
    """``obj.name``, a ``functools.cached_property``, as Python reads it
    (computed and cached at the first read), given the value ``computed``
    by its function now, whose derivative is the attribute's: the value
    cached is taken to be its function of the object's fields, not a field
    of its own. Refused when it is not (a field changed since it was
    cached), as that derivative would be wrong. Read on a snapshot of an
    object (taken before a change in place), it is read, and cached, on
    the object, as Python does."""
    y = getattr(_SNAPSHOT_OF.get(obj, obj), name)
    if y is not computed and not _same_value(y, computed):
        raise NoDerivativeRule(
            f"the functools.cached_property {type(obj).__name__}.{name} holds a value cached before a field "
            "it is computed from changed: its derivative is unknown",
            hint=f"delete the cached value (del obj.{name}) after changing the object, or read the fields "
            "it is computed from",
        )
    return y


_SNAPSHOT_OF: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
"""The object each snapshot (:func:`object_snapshot`) was taken of."""


def object_snapshot(obj: Any) -> Any:
    """``copy.copy(obj)``, the snapshot of an object that code changes in
    place after a differentiated read (see ``mutation.snapshot``), which
    remembers ``obj`` for :func:`cached_value`."""
    snap = copy.copy(obj)
    with contextlib.suppress(TypeError):  # (no weak reference to it: it has no __dict__ to cache in)
        _SNAPSHOT_OF[snap] = obj
    return snap


def _same_value(a: Any, b: Any) -> bool:
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:  # (objects that are no numbers)
        try:
            return bool(a == b)
        except Exception:
            return False


def _to_default(dy: Any) -> tuple:
    return (None, dy)


MISSING = object()
"""No value: an attribute no class defines, an argument not given."""


def _class_attribute(cls: type, name: str) -> Any:
    """What ``cls`` or a base class defines under ``name`` (a method, a
    property, a constant), as stored; ``MISSING`` if none does."""
    for c in cls.__mro__:
        if name in c.__dict__:
            return c.__dict__[name]
    return MISSING


def attribute_gradient(obj: Any, name: str, dy: Any) -> Any:
    """The gradient of ``obj`` for a gradient ``dy`` of ``obj.name``. An
    array's ``T``, ``mT``, ``real`` and ``imag`` are linear in it; a bound
    method's gradient is its object's (``x.sum()``, ``p.norm()``: see
    ``J``). A field of a namedtuple gives the same namedtuple; a field of
    another object (a dataclass's, one in ``__dict__`` or ``__slots__``) a
    :class:`Tangent`. A class's constant is no part of the object: no
    gradient. Anything else (an attribute computed by a descriptor or
    ``__getattr__``) is refused."""
    if isinstance(obj, np.ndarray):
        if name == "T":
            return dy.T
        if name == "mT":
            return np.swapaxes(dy, -1, -2)
        if name == "real":
            return dy
        if name == "imag":
            return 1j * np.asarray(dy)
        if callable(getattr(obj, name)):
            return dy
        if name in METADATA_ATTRIBUTES:
            return None
        raise NoDerivativeRule(f"no rule for the gradient of an array's {name!r} attribute")
    if isinstance(obj, (int, float, complex, np.number)) and name in ("real", "imag"):
        if not np.iscomplexobj(obj):
            return dy if name == "real" else None  # a real number's imag is the constant 0
        return dy + 0j if name == "real" else 1j * dy  # z = x + iy gets dL/dx + i dL/dy
    if isinstance(obj, tuple) and name in getattr(obj, "_fields", ()):
        return type(obj)(*(dy if f == name else None for f in obj._fields))
    if isinstance(obj, super) and getattr(getattr(obj, name), "__self__", None) is obj.__self__:
        return dy  # super().method: a method bound to the object itself
    names = [] if isinstance(obj, super) else tangent.fields(obj)
    if name in names:
        return Tangent(names, **{name: dy})
    if getattr(getattr(obj, name), "__self__", None) is obj:
        return dy
    found = _class_attribute(type(obj), name)
    constant = not hasattr(type(found), "__get__") or isinstance(found, (staticmethod, classmethod))
    if found is not MISSING and constant:
        return None
    raise NoDerivativeRule(
        f"no rule for the gradient of the attribute {name!r} of a {type(obj).__name__}, which is no field of it "
        "(a descriptor or __getattr__ computes it)",
        hint="read the fields it is computed from instead, make it a @property, or register a rule for a "
        "function that reads it with @zpy.adjoint",
    )


class EagerIterator:
    """An iterator over items computed in advance: what the rules of
    ``map``, ``filter``, ``zip``, ``enumerate``, ``reversed`` and ``iter``
    return in place of Python's lazy iterators, since each item's pullback
    must be taken when the item is made. Like those it is exhausted once
    iterated over, and has no ``len``. Its gradient is a list with one
    gradient per item (``None`` for an item that gets none).

    Python's iterator reads its lists and arrays (``sources``) as it goes,
    so a loop that changes one in place ahead of it sees the change, which
    the items read in advance lack: :meth:`check` refuses that. Item ``k``
    was read from the positions ``range(*spans[k])`` of each source, the
    end of the iteration from ``range(*spans[-1])``; ``spans=None``: item
    ``k`` from position ``k``, the end from none. A source that is itself
    an :class:`EagerIterator` (``enumerate(zip(u, v))``) is checked through
    its own sources: item ``k`` was read from its items ``starts[i] +
    range(*spans[k])``, ``starts[i]`` being its position when this one was
    made."""

    __slots__ = ("items", "position", "sources", "watched", "spans", "inner", "deep")

    def __init__(self, items: list, sources: tuple = (), spans: list | None = None, starts: list | None = None,
                 deep: bool = False):
        self.items = items
        self.position = 0  # how many items it has yielded
        self.sources = sources
        self.deep = deep
        self.watched = [(i, _items_now(s, deep)) for i, s in enumerate(sources)
                        if type(s) in _WATCHED or type(s) is np.ndarray and s.ndim == 1]
        self.spans = spans
        self.inner = [(i, s, starts[i]) for i, s in enumerate(sources)
                      if type(s) is EagerIterator and (s.watched or s.inner)]

    def __iter__(self) -> "EagerIterator":
        return self

    def __next__(self) -> Any:
        if self.watched or self.inner:
            self.check(self.position)
        if self.position == len(self.items):
            raise StopIteration
        self.position += 1
        return self.items[self.position - 1]

    def __bool__(self) -> bool:
        return True  # as Python's iterators are, not by __len__

    def __len__(self) -> int:
        raise _NotASequence(
            "an iterator (from map, filter, zip, enumerate, reversed or iter) has no len(); a for loop "
            "over one that zygote_py cannot trace to the call that made it also ends up here",
            hint="make it a list first: for v in list(it)",
        )

    def __repr__(self) -> str:
        return f"EagerIterator({self.position} of {len(self.items)} items taken)"

    def check(self, k: int, sources: tuple | None = None) -> None:
        """Raise :class:`UnsupportedSyntax` unless the sources (or their
        versions ``sources``, where reverse mode changed a copy of them;
        for a source that is an iterator, a tuple of its sources' versions)
        still hold, where Python's iterator reads its item ``k`` (``k ==
        len(items)``: its end), what they held when the items were read."""
        lo, hi = (k, k + (k < len(self.items))) if self.spans is None else self.spans[k]
        for i, inner, start in self.inner:  # (the items it reads of an iterator, or at the end the next one)
            versions = sources[i] if sources is not None and type(sources[i]) is tuple else None
            for j in range(start + lo, start + max(hi, lo + 1)):
                inner.check(min(j, len(inner.items)), versions)
        for i, copy in self.watched:
            source = (self.sources if sources is None else sources)[i]
            same = len(source) == len(copy) and (
                all(_same_item(_contents(a, self.deep), b)
                    for a, b in zip((source if type(source) is list else list(source))[lo:hi], copy[lo:hi]))
                if type(copy) is list
                else source.dtype == copy.dtype and source[lo:hi].tobytes() == copy[lo:hi].tobytes())
            if not same:
                raise UnsupportedSyntax(
                    f"a loop changes the {type(source).__name__} that its map, filter, zip, enumerate or "
                    "reversed iterates over, where the iterator has yet to read it: Python's iterator reads "
                    "the change, zygote_py's read all the items when it was made",
                    hint="index the list or array in the loop to read the changed items "
                    "(for i in range(len(u)): e = u[i]), or iterate over a copy to read the items as they "
                    "were (zip(u.copy(), v))",
                )


_WATCHED = (list, type({}.values()), type({}.items()))
"""What an :class:`EagerIterator` watches, with 1-d arrays: what a loop may
change in place while Python's iterator reads it."""


def _items_now(source: Any, deep: bool) -> Any:
    """What :class:`EagerIterator` watches of ``source``: an array's copy;
    a list's or a dict view's items (see :func:`_contents`)."""
    return source.copy() if type(source) is np.ndarray else [_contents(v, deep) for v in source]


def _contents(v: Any, deep: bool) -> Any:
    """``v``, a dict item's parts, and (``deep``: for ``map`` and
    ``filter``, which computed something from it in advance) what a change
    in place would change: an array's bytes, a list's or a dict's items
    (one level). ``zip``, ``enumerate`` and ``reversed`` yield the object
    itself, whose changes the loop sees."""
    if deep and type(v) is np.ndarray:
        return (v, v.tobytes())
    if deep and type(v) in (list, dict):
        return (v, tuple(v.values() if type(v) is dict else v))
    if type(v) is tuple:
        return tuple(_contents(p, deep) for p in v)
    return v


def _same_item(a: Any, b: Any) -> bool:
    """Whether two :func:`_contents` are the same: the same objects, the
    same bytes."""
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(_same_item(x, y) for x, y in zip(a, b))
    return a == b if type(a) is bytes else a is b


class _NotASequence(NoDerivativeRule, TypeError):
    """``len()`` of an :class:`EagerIterator`: a ``TypeError``, as for
    Python's iterators (which ``list()`` and the like rely on), that says
    what to do."""


def position(iterable: Any) -> int:
    """Where the next item of ``iterable`` is among the items of its
    gradient: the items an :class:`EagerIterator` has yielded; 0 for
    anything else (a tuple, list or array is iterated from its start)."""
    return iterable.position if type(iterable) is EagerIterator else 0


def filter_spans(kept: list[int], n: int) -> list[tuple[int, int]]:
    """The :class:`EagerIterator` spans of ``filter``'s items, the items
    ``kept`` of its ``n``: each is read with those rejected before it."""
    ends = [k + 1 for k in kept]
    return list(zip([0, *ends], ends)) + [(ends[-1] if ends else 0, n)]


def reversed_spans(n: int) -> list[tuple[int, int]]:
    """The :class:`EagerIterator` spans of ``reversed``'s ``n`` items."""
    return [(n - 1 - k, n - k) for k in range(n)] + [(0, 0)]


def check_unchanged(iterator: Any, k: int, *sources: Any) -> None:
    """:meth:`EagerIterator.check` of item ``k`` against the versions
    ``sources`` of its sources, in a reverse-mode loop that reads the items
    by their index (see ``ad.reverse``)."""
    if type(iterator) is EagerIterator and (iterator.watched or iterator.inner):
        iterator.check(k, sources)


class TangentView:
    """The tangent of ``d.values()`` (or, ``items``, of ``d.items()``) in
    forward mode: like the view, it reads ``d``'s tangent ``dd`` as it is
    when iterated, which a loop changing ``d`` changes alongside."""

    __slots__ = ("d", "dd", "items")

    def __init__(self, d: dict, dd: Optional[dict], items: bool):
        self.d, self.dd, self.items = d, dd, items

    def __iter__(self) -> Iterator:
        for k in self.d:
            t = None if self.dd is None else self.dd.get(k)
            yield (None, t) if self.items else t

    def __len__(self) -> int:
        return len(self.d)


def source_versions(*sources: Any) -> tuple:
    """The versions of an iterator's sources, for :func:`check_unchanged`
    of an iterator that iterates over it (``enumerate(zip(u, v))``)."""
    return sources


def take(iterable: Any) -> tuple[Any, int]:
    """The items a rule reads from ``iterable``: the tuple or list itself,
    else a list of all the items it yields (which exhausts an iterator),
    and the :func:`position` of the first of them."""
    start = position(iterable)
    return (iterable if isinstance(iterable, (tuple, list)) else list(iterable)), start


def like_iterable(iterable: Any, grads: list, start: int = 0) -> Any:
    """The gradient of ``iterable`` from the gradients of the items it
    yielded, in iteration order, the first being its item ``start`` (see
    :func:`position`): a tuple for a tuple, an array for an array (``None``
    items as zeros), a list for a list or an :class:`EagerIterator`, with
    ``None`` for the items before and after these; ``None`` for a dict,
    whose items are its keys (a dict's gradient is keyed by them, and they
    get none); for anything else, the list ``grads``, but an object whose
    ``__iter__`` is a Python method must get none (which of its fields each
    item came from is not known)."""
    if isinstance(iterable, Mapping):
        return None
    if isinstance(iterable, (tuple, list, np.ndarray, EagerIterator)):
        n = len(iterable.items) if type(iterable) is EagerIterator else len(iterable)
        grads = [None] * start + list(grads) + [None] * (n - start - len(grads))
    elif any(g is not None for g in grads):
        check_iterated(iterable)
    if isinstance(iterable, tuple):
        return tuple(grads)
    if isinstance(iterable, np.ndarray):
        zero = np.zeros(iterable.shape[1:], iterable.dtype)
        return np.array([zero if g is None else g for g in grads], dtype=iterable.dtype).reshape(iterable.shape)
    return grads


def check_iterated(iterable: Any) -> None:
    """Raise :class:`NoDerivativeRule` if ``iterable``'s items, which carry
    derivatives, came from its ``__iter__`` written in Python (which of its
    fields each came from is not known), or from its ``__getitem__`` written
    in Python, read all at once (only a ``for`` loop indexes it, see
    :func:`indexable`)."""
    name = type(iterable).__name__
    if python_method(type(iterable), "__iter__") is not None:
        raise NoDerivativeRule(
            f"no rule for the derivatives of the items a {name} yields through its __iter__: which of its "
            "fields each came from is not known",
            hint=f"iterate over the list, tuple or array of {name} that holds them (for v in obj.items), or "
            f"give {name} __len__ and __getitem__")
    if getattr(type(iterable), "__iter__", None) is None and python_method(type(iterable), "__getitem__") is not None:
        raise NoDerivativeRule(
            f"no rule for the derivatives of the items a {name} yields through its __getitem__ to unpacking, "
            "list(), sum() and the like",
            hint=f"loop over the {name} (for v in obj), which indexes it, or index it (obj[0], obj[1])")


def iterator_gradient(dy: Any, iterator: EagerIterator) -> Any:
    """``dy``, the gradient of ``iterator``, checked to have one item per
    item of it: unpacking (``a, b = it``) gives a partly consumed iterator
    a gradient of its last items only."""
    if len(dy) != len(iterator.items):
        raise NoDerivativeRule(
            f"a gradient of {len(dy)} items for an iterator of {len(iterator.items)}: unpacking an "
            "iterator (from map, filter, zip, enumerate or reversed) after taking some of its items "
            "is not differentiated",
            hint="make it a list first (list(it)) and unpack that",
        )
    return dy


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


# --------------------------------------------------------------------------
# Forward mode (see zygote_py.ad.forward)
# --------------------------------------------------------------------------

def push(f: Any, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict, df: Any = None) -> tuple[Any, Any]:
    """``(f(*args, **kwargs), its tangent)`` for a callee known only at run
    time, given the arguments' tangents (``None``: zero) and the callee's
    own, ``df``: an object's whose class defines ``__call__`` in Python, or
    a function's (a ``Tangent`` of its captured variables and default
    values, as its gradient is). The tangent is concrete (a zero, not
    ``None``) for a float output. An operator on an object whose class
    defines it in Python (``__add__``...) pushes that method forward."""
    from .ad import pipeline, pushrules
    from .ad.analysis import is_differentiable_value

    methods = overload(f) if args else None
    if methods is not None:
        done = overloaded_call(methods, args, _method_pushforward, dargs)
        if done is not None:
            return done
    floats = float_operands(f, args)
    if floats:  # math.sin(obj): math.sin(float(obj)), obj.__float__ pushed forward
        pairs = [push(float, (a,), {}, (d,), {}) if i in floats else (a, d) for i, (a, d) in enumerate(zip(args, dargs))]
        return push(f, tuple(p[0] for p in pairs), kwargs, tuple(p[1] for p in pairs), dkwargs)
    if isinstance(f, type) and f in ITERATORS:  # (a callable object may be unhashable)
        return _push_iterator(f, args, kwargs, dargs)
    if joins_sequences(f, args):
        return _push_joined(f, args, dargs)
    if f is functools.partial and not all(map(is_zero_tangent, (*dargs, *dkwargs.values()))):
        # a partial's tangent has the fields of its gradient (see rules.higher_order)
        return f(*args, **kwargs), Tangent(("func", "args", "keywords"), func=dargs[0], args=tuple(dargs[1:]),
                                           keywords={k: dkwargs.get(k) for k in kwargs})
    if f is call_with_cells and not all(map(is_zero_tangent, (*dargs, *dkwargs.values()))):
        g, shared, written, _, *rest = args
        return push_with_cells(g, shared, written, dargs[3], tuple(rest), kwargs, dargs[4:], dkwargs)
    rule = registry.lookup_pushforward(f)
    if rule is not None:
        y = f(*args, **kwargs)
        return y, pushrules.call(rule, y, args, kwargs, dargs, dkwargs)
    if registry.is_nondifferentiable(f) or all(map(is_zero_tangent, (df, *dargs, *dkwargs.values()))):
        y = f(*args, **kwargs)
        return y, zero_tangent(y)
    if type(f) is types.FunctionType and f.__module__ in _MACHINERY and (f in _PULLBACKS or registry.lookup(f) is None):
        pushed = MACHINERY_PUSHES.get(f)
        if pushed is not None:  # (J and call_pullback: the value changes too, a pullback becoming a Pullback)
            return pushed(args, kwargs, dargs, dkwargs)
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
        return push(f.__wrapped__, args, kwargs, dargs, dkwargs, df)
    if type(f) is np.vectorize:
        return push(vectorized(f), args, kwargs, dargs, dkwargs, df)
    if type(f) is functools.partial:  # its tangent (made above) holds those of its arguments
        return push(f.func, (*f.args, *args), {**f.keywords, **kwargs},
                    (*(field(df, "args") or (None,) * len(f.args)), *dargs),
                    {**(field(df, "keywords") or {}), **dkwargs}, field(df, "func"))
    call = python_method(type(f), "__call__")
    if call is not None:  # an object whose class defines __call__: its tangent is the object's
        return push(call, (f, *args), kwargs, (df, *dargs), dkwargs)
    if isinstance(f, types.BuiltinMethodType) and f.__self__ is not None and not isinstance(f.__self__, types.ModuleType):
        return push_method(f, f.__self__, f.__name__, df, args, dargs, kwargs, dkwargs)  # (df: the object's, see attribute_tangent)
    if not is_zero_tangent(df):
        if not (isinstance(f, types.FunctionType) and isinstance(df, Tangent)):
            raise NoDerivativeRule(
                f"forward mode: calling {registry.display_name(f)!r} with a tangent of its own "
                f"(a {type(df).__name__}) is not supported",
                hint="pass the differentiated values it holds to it as arguments, or use reverse mode "
                "(zpy.gradient, zpy.jacobian)")
        return pipeline.call_jvp_closure(f, df, args, kwargs, dargs, dkwargs)
    if isinstance(f, types.MethodType):
        if isinstance(f.__func__, types.FunctionType):
            pipeline.never_library(f.__func__, f)
        return push(f.__func__, (f.__self__, *args), kwargs, (None, *dargs), dkwargs)
    if isinstance(f, types.FunctionType):
        return pipeline.call_jvp(f, args, kwargs, dargs, dkwargs)
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
    from .ad.pushrules import zero_operand
    from .rules.mutation import unshared

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
    """``map``, ``filter``, ``zip``, ``enumerate`` and ``reversed`` in
    forward mode: their items and the items' tangents, computed at once
    (as reverse mode computes them, see :class:`EagerIterator`), each
    iterable and its tangent read alike (``zip`` takes one item too many
    from the longer iterator, as Python's does)."""
    if f is map or f is filter:
        function, iterables, dits = args[0], args[1:], dargs[1:]
    else:
        function, iterables, dits = None, args[:1] if f is enumerate or f is reversed else args, dargs
    starts = [position(it) for it in iterables]
    tangents = [tangent_of_items(it, d) for it, d in zip(iterables, dits)]
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
    method = builtin_method(bound) or getattr(type(obj), name, None)  # (a NumPy scalar's: see builtin_method)
    if method is None or registry.lookup_pushforward(bound) or registry.lookup(bound) or registry.implementation(bound) \
            or getattr(bound, "__self__", None) is not obj:
        # (np.add.at: a rule of its own; a static or class method; a field holding a function or a
        # callable object, whose tangent is the field's)
        return push(bound, args, kwargs, dargs, dkwargs, None if dobj is None else attribute_tangent(obj, name, dobj))
    return push(method, (obj, *args), kwargs, (dobj, *dargs), dkwargs)


METADATA_ATTRIBUTES = frozenset(("shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "flags"))
"""An array's attributes that describe it rather than hold its values:
constants to differentiation (piecewise constant in the array)."""

LINEAR_ATTRIBUTES = {"T", "mT", "real", "imag", "flat"}
"""An array's attributes that are linear in it: their tangent is the same
attribute of its tangent (a view of it, as the attribute is of the array)."""


def attribute_tangent(obj: Any, name: str, dobj: Any, default: Any = MISSING, ddefault: Any = None) -> Any:
    """The tangent of ``obj.name`` for the tangent ``dobj`` of ``obj``
    (``ddefault``, the tangent of the ``default`` of ``getattr``, where that
    is the value):
    ``dobj.name`` for an array's or a number's :data:`LINEAR_ATTRIBUTES`,
    and for a field of a namedtuple or of an object (whose tangent
    is a ``Tangent``); a property's getter pushed forward; zero for a
    class's constant and any other attribute of an array or a number.
    Anything else (a descriptor, ``__getattr__``) is refused."""
    if default is not MISSING and not hasattr(obj, name):
        return ddefault
    y = getattr(obj, name)
    found = _class_attribute(type(obj), name)
    getter = _getter(found)
    if getter is not None:
        computed, t = push(getter, (obj,), {}, (dobj,), {})
        if isinstance(found, functools.cached_property):
            cached_value(obj, name, computed)
        return t
    if dobj is None:
        return zero_tangent(y)
    if isinstance(obj, (np.ndarray, np.generic, int, float, complex)):
        if isinstance(y, types.BuiltinMethodType) and y.__self__ is obj:
            return dobj  # a bound method's tangent is its object's: push hands it to push_method
        return getattr(dobj, name) if name in LINEAR_ATTRIBUTES else zero_tangent(y)
    if isinstance(obj, tuple) and name in getattr(obj, "_fields", ()):
        return dobj[obj._fields.index(name)]
    if isinstance(dobj, Tangent) and name in tangent.fields(obj):
        t = getattr(dobj, name, None)
        return zero_tangent(y) if t is None else t
    if found is not MISSING and (not hasattr(type(found), "__get__") or isinstance(found, (staticmethod, classmethod))):
        return zero_tangent(y)  # a class's constant: no part of the object
    raise NoDerivativeRule(
        f"forward mode: no tangent for the attribute {name!r} of a {type(obj).__name__}",
        hint="pass the values the function needs as arguments, or use reverse mode (zpy.gradient)",
    )


def items_read(iterable: Any, d: Any) -> Any:
    """The items a builtin that reads ``iterable`` to the end (``sorted``,
    ``functools.reduce``) read from it, after it has: the iterable itself
    for a tuple, list, range or array; for an :class:`EagerIterator`, its
    items that its tangent ``d`` (an iterator in step with it, not read
    yet) has left; a list of a dict's keys."""
    if isinstance(iterable, (tuple, list, range, np.ndarray)):
        return iterable
    if isinstance(iterable, (Mapping, MappingView)):
        return list(iterable)  # (a dict's keys: read again as they were)
    if type(iterable) is EagerIterator and type(d) is EagerIterator:
        return iterable.items[len(iterable.items) - (len(d.items) - d.position):]
    if d is None and type(iterable) is EagerIterator:
        return iterable.items[iterable.position:]
    raise NoDerivativeRule(
        f"forward mode: a function reading a {type(iterable).__name__} to the end (sorted, max, math.prod, "
        "functools.reduce...), which cannot be read twice",
        hint="make it a list first (list(it)), or use reverse mode (zpy.gradient)",
    )


ITERATORS = {map, filter, zip, enumerate, reversed}
"""The builtins whose values and tangents :func:`push` computes eagerly."""
_MACHINERY = {__name__, "zygote_py.api", "zygote_py.ad.pipeline"}
_PULLBACKS = {J, J_nested, call_pullback, gradient_function}
"""The machinery whose reverse-mode rules (third derivatives) have no
pushforward rule: their pullbacks are closures."""
MACHINERY_PUSHES: dict[Callable, Callable] = {}
"""Forward mode through those of them that gradient code calls (``J``,
``call_pullback``): ``f`` to a function of ``(args, kwargs, dargs,
dkwargs)`` returning the value and its tangent, as :func:`push` does;
registered by ``rules.nested``, which keeps the call in a
:class:`Pullback` that its pushforward reads."""


def tangent_of_items(iterable: Any, d: Any) -> Any:
    """``d``, the tangent of ``iterable``, or a zero one for each item (a
    float zero for each of an integer array's too: see ``zero_operand``).
    A dict's tangent is its values', not that of the keys it yields."""
    from .ad.pushrules import zero_operand

    if isinstance(iterable, Mapping):
        return zero_tangent(list(iterable))
    if d is not None and not isinstance(d, Mapping):
        return d
    if isinstance(iterable, (tuple, list, np.ndarray)):
        return zero_operand(iterable)
    if type(iterable) is EagerIterator:
        zeros = EagerIterator(zero_tangent(iterable.items))
        zeros.position = iterable.position
        return zeros
    return itertools.repeat(0)


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
        return Tangent(**{k: changing_zero(getattr(value, k)) if d is None and _changes(getattr(value, k, None))
                          else d for k, d in tangent.values(t).items()})
    return t


def changing_zero(x: Any, made: Optional[dict] = None) -> Any:
    """The zero tangent of ``x``, an object that changes in place with
    differentiated values: :func:`zero_tangent`, but a ``Tangent`` of its
    fields' zeros for an object with fields, a float zero for an integer
    array, and one zero for each object ``x`` reaches, where it reaches
    it (``[[0.0]] * 2`` gets one zero list twice), so that a change made
    through one place is seen through the others."""
    made = {} if made is None else made  # id of an object reached → its zero
    if id(x) in made:
        return made[id(x)]
    if isinstance(x, np.ndarray):
        z = made[id(x)] = np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else float)
    elif type(x) is list:  # (made known before its items, which may reach it again)
        z = made[id(x)] = []
        z += [changing_zero(v, made) for v in x]
    elif type(x) is dict:
        z = made[id(x)] = {}
        z.update((k, changing_zero(v, made)) for k, v in x.items())
    elif type(x) is collections.defaultdict:  # (its missing keys' tangents made as its items are)
        factory = x.default_factory
        z = made[id(x)] = collections.defaultdict(None if factory is None else lambda: changing_zero(factory()))
        z.update((k, changing_zero(v, made)) for k, v in x.items())
    elif type(x) is tuple:
        z = tuple(changing_zero(v, made) for v in x)
    elif _changes(x):
        z = made[id(x)] = Tangent()
        tangent.values(z).update((k, changing_zero(getattr(x, k), made)) for k in tangent.fields(x) if hasattr(x, k))
    else:
        z = zero_tangent(x)
    return z


def _changes(x: Any) -> bool:
    """Whether ``x`` is an object that may change in place and hold
    differentiated values: a list, dict or array, or an object with
    fields (or a ``__dict__`` to add them to)."""
    if isinstance(x, (list, dict, np.ndarray)):
        return True
    return not isinstance(x, (type, types.FunctionType, types.ModuleType, tuple, str, bytes, numbers.Number,
                              np.generic)) and x is not None and (hasattr(x, "__dict__") or bool(tangent.fields(x)))


def store_tangent(dtarget: Any, store: Callable, key: Any, dvalue: Any, value: Any, target: Any) -> None:
    """``store(dtarget, key, dvalue)`` (``setitem`` or ``setattr``), the
    tangent of ``store(target, key, value)``; a value without a tangent,
    or one that an array of integers truncates, stores a zero. An object's
    tangent, a ``Tangent``, is changed as its object is. An item stored
    through the class's own ``__setitem__`` (a ``dict`` subclass's too) is
    refused: what that stores where is not known here."""
    if dvalue is None or isinstance(target, np.ndarray) and target.dtype.kind not in "fc":
        dvalue = 0 if isinstance(dtarget, np.ndarray) else zero_tangent(value)
    if store is setattr and setter(target, key, value) is not None:
        raise NoDerivativeRule(f"forward mode: assigning {type(target).__name__}.{key}, a property or an "
                               "attribute that the class's own __setattr__ stores",
                               hint="assign the attribute it stores, or use reverse mode (zpy.gradient)")
    if isinstance(dtarget, Tangent) and store is setattr:
        tangent.values(dtarget)[key] = dvalue
    elif store is not setattr and (isinstance(dtarget, Tangent) or python_method(type(target), "__setitem__")):
        raise NoDerivativeRule(
            f"forward mode: an item stored into a {type(target).__name__}, whose class defines __setitem__",
            hint="call a method that stores it (obj.set(k, v)), or use reverse mode (zpy.gradient)",
        )
    else:
        store(dtarget, key, dvalue)


def push_by_adjoint(f: Any, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict) -> tuple[Any, Any]:
    """``(f(...), J v)`` from ``f``'s adjoint rule, for a function without a
    pushforward: one pullback per real component of the output, the
    component of ``J v`` being the pullback's inner product with ``v``."""
    rule = registry.lookup(f)
    y, back = _apply(rule, f, args, kwargs)
    back = _rule_pullback(rule, back, len(args), kwargs)
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
    if g is None or t is None:
        return 0.0
    if isinstance(g, Tangent):
        return sum(_real_inner(v, field(t, k)) for k, v in tangent.entries(g).items())
    if isinstance(g, (tuple, list)):
        return sum(_real_inner(a, b) for a, b in zip(g, t))
    if isinstance(g, dict):
        return sum(_real_inner(v, t.get(k)) for k, v in g.items())
    return float(np.real(np.sum(np.conj(dense(g)) * t)))
