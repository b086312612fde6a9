"""Python's operators on objects whose class defines them in Python
(``__add__``, ``__radd__``, ``__getitem__``...): which method Python calls
for an operator, in its order (:data:`OVERLOADS`), and which types are
numbers to the rules (:func:`number_type`).

May import: NumPy, :mod:`.sparse`.
"""
from __future__ import annotations

import functools
import operator
import sys
import types
from typing import Any, Callable, Iterator, Optional
import numbers

from . import arrays
from .sparse import Lazy


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
    if not (issubclass(cls, numbers.Number) or core is not None and issubclass(cls, core.AffineScalarFunc)):
        return False
    return not any(c.__module__.partition(".")[0] not in _NUMBER_MODULES and any(
        isinstance(c.__dict__.get(name), types.FunctionType) for name in _OPERATOR_METHODS) for c in cls.__mro__)


_NUMBER_MODULES = {"builtins", "numbers", "fractions", "decimal", "_pydecimal", "uncertainties"}
"""The modules whose number types have rules (see :func:`number_type`)."""


def python_method(cls: type, name: str) -> Optional[types.FunctionType]:
    """``cls``'s method ``name`` when it is a Python function that
    :func:`J` differentiates by its source: not a number type's (see
    :func:`number_type`), which have rules, nor a lazy gradient's (an
    array to the rules, in gradient code differentiated again), nor another
    library's array's (a Dask array's operators get the rules of NumPy's)."""
    method = getattr(cls, name, None)
    if isinstance(method, types.FunctionType) and not number_type(cls) and not issubclass(cls, Lazy) \
            and not arrays.foreign_type(cls):
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


def overload(f: Any) -> Optional[Callable]:
    """``f``'s methods in :data:`OVERLOADS`, or ``None`` (``f``'s type is
    checked first: any other callable may be unhashable)."""
    return OVERLOADS.get(f) if type(f) is types.BuiltinFunctionType or f is float else None


def python_bound_method(f: Any) -> bool:
    """Whether ``f`` is a Python function bound to its object, which
    :func:`J` differentiates with the object as its first argument; not a
    method of another library's array (see ``objects.builtin_method``)."""
    return isinstance(f, types.MethodType) and not arrays.is_foreign(f.__self__)
