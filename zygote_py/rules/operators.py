"""Rules for Python's operators (the functions of :mod:`operator`) and for
the intrinsics of :mod:`zygote_py.ir.ops` that build and take apart tuples,
lists and dicts.

Arithmetic has two rules per operator. The rule for numbers (``@scalar``),
used when the compiler knows every operand is a number and not an array,
is the derivative alone: ``(dy * b, dy * a)``. The rule for anything else
(``@adjoint``, also what the run-time ``J`` calls) reduces a broadcast
operand's gradient to its shape (``runtime.unbroadcast``) and conjugates
(the complex convention: ``dy * conj(b)``, a no-op for real values); a
first operand known to be an array gets NumPy's rules for ``**`` and
``abs``, and ``x[k]`` gets :func:`getitem_array`. Rules never coerce:
gradients are built from ``dy`` and the operands by the same operators, so
a ``Fraction`` computation with an integer or ``Fraction`` ``dy`` gets
exact ``Fraction`` gradients.

Conventions:

- ``a // b`` (and ``//=``) is piecewise constant, so it is registered
  non-differentiable: its operands get no gradient from it.
- ``a % b == a - b * (a // b)`` for every number type here (``Decimal``
  truncates in both), so ``d/da = 1`` and ``d/db = -(a // b)``.
- ``a ** b``: the exponent gets ``None`` when it is an ``int`` (a power, not
  an exponential); otherwise ``d/db = y * log(a)`` for ``a > 0``, ``0`` for
  ``a == 0 < b``, and ``nan`` where the logarithm is undefined, rather than
  an error that would break a program that never wanted that gradient.
  ``d/da`` at ``a == 0`` with ``0 < b < 1`` is ``inf``.
- ``abs(x)`` at ``x == 0`` has gradient ``0``, as in JAX and PyTorch
  (``sign(0) == 0``); at ``nan`` it is ``nan``.
- Python ``complex`` operands (see :mod:`.pycmath` for the convention):
  the rules for numbers are only for real operands, so complex values go
  through the conjugating rules, where ``**`` and ``abs`` choose
  :func:`pow_complex` and :func:`abs_complex`; a real operand's gradient is
  the real part (``runtime.unbroadcast``).
- In-place operators (``iadd``...) have the rules of their plain versions,
  which is right for numbers (immutable); on a differentiated array they
  raise ``UnsupportedSyntax`` until mutation is supported.
- ``a @ b`` is :func:`zygote_py.rules.numpy_linalg.matmul`'s rule.
- Containers: a tuple or list gets a tuple or list gradient of its own
  length (``None`` for items that get none), a dict a dict of the keys that
  get one.

Not covered here:

- sequence concatenation and repetition with ``+`` and ``*``: the gradient
  of such a value is refused with ``NoDerivativeRule`` (by
  ``runtime.unbroadcast``), as the rules treat their operands as numbers
  or arrays;
- ``&``, ``|``, ``^`` (on sets and dicts too) and ``build_set``: no entry,
  so a gradient reaching them is reported by the AD's run-time ``J``.
"""
import cmath
import math
import operator

import numpy as np

from zygote_py import errors, runtime
from zygote_py.ir import ops
from zygote_py.rules import numpy_elementwise, numpy_linalg

from .registry import adjoint, array, nondifferentiable, scalar

nondifferentiable(
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    operator.is_, operator.is_not, operator.not_, operator.truth,
    operator.contains, ops.contains, ops.not_contains, operator.countOf,
    operator.indexOf, operator.length_hint, operator.index,
    operator.floordiv, operator.ifloordiv,
    operator.invert, operator.lshift, operator.rshift,
    operator.ilshift, operator.irshift,
    ops.exhausted, ops.build_string, ops.format_value,
)


# -- numbers ----------------------------------------------------------------------
# The rules the compiler uses when it knows every operand is a number (not
# an array): the derivative and nothing else.


@scalar(operator.add)
def add(a, b):
    def back(dy):
        return (dy, dy)
    return a + b, back


@scalar(operator.iadd)
def iadd(a, b):
    def back(dy):
        return (dy, dy)
    return operator.iadd(a, b), back


@scalar(operator.sub)
def sub(a, b):
    def back(dy):
        return (dy, -dy)
    return a - b, back


@scalar(operator.isub)
def isub(a, b):
    def back(dy):
        return (dy, -dy)
    return operator.isub(a, b), back


@scalar(operator.mul)
def mul(a, b):
    def back(dy):
        return (dy * b, dy * a)
    return a * b, back


@scalar(operator.imul)
def imul(a, b):
    def back(dy):
        return (dy * b, dy * a)
    return operator.imul(a, b), back


@scalar(operator.truediv)
def truediv(a, b):
    y = a / b

    def back(dy):
        return (dy / b, -dy * y / b)
    return y, back


@scalar(operator.itruediv)
def itruediv(a, b):
    y = operator.itruediv(a, b)

    def back(dy):
        return (dy / b, -dy * y / b)
    return y, back


@scalar(operator.mod)
def mod(a, b):
    def back(dy):
        return (dy, -dy * (a // b))
    return a % b, back


@scalar(operator.imod)
def imod(a, b):
    def back(dy):
        return (dy, -dy * (a // b))
    return operator.imod(a, b), back


from zygote_py.rules import operators  # noqa: E402  (the rules below name their helpers through it)


@scalar(operator.pow)
@scalar(operator.ipow)
def pow_(a, b):
    y = a ** b

    def back(dy):
        if type(y) is complex:  # a negative number to a fractional power: Python's principal branch
            da, db = operators.pow_complex(a, b)[1](dy)
            return (da, db)
        if b == 0:
            da = dy * b  # y is the constant 1, even at a == 0
        elif a == 0 and b < 1:
            da = dy * math.inf  # the slope of a ** b at 0 when 0 < b < 1
        else:
            da = dy * b * a ** (b - 1)
        if isinstance(b, int):
            return (da, None)
        if a > 0:
            return (da, dy * y * math.log(a))
        if a == 0 and b > 0:
            return (da, dy * 0)
        return (da, dy * math.nan)  # log(a) is undefined
    return y, back


@scalar(operator.abs)
def abs_(x):
    def back(dy):
        if x > 0:
            return (dy,)
        if x < 0:
            return (-dy,)
        # x is 0 (gradient 0, typed like dy * x) or nan (gradient nan)
        return (dy * x,)
    return abs(x), back


# -- numbers and arrays -----------------------------------------------------------
# The rules for operands that may be arrays, and for calls the compiler
# cannot see (the run-time ``J``): an operand NumPy broadcast gets its
# gradient summed back to its shape.


@adjoint(operator.add)
def add_any(a, b):
    def back(dy):
        return (runtime.unbroadcast(dy, a), runtime.unbroadcast(dy, b))
    return a + b, back


@adjoint(operator.sub)
def sub_any(a, b):
    def back(dy):
        return (runtime.unbroadcast(dy, a), runtime.unbroadcast(-dy, b))
    return a - b, back


@adjoint(operator.mul)
def mul_any(a, b):
    def back(dy):
        return (runtime.unbroadcast(dy * b.conjugate(), a), runtime.unbroadcast(dy * a.conjugate(), b))
    return a * b, back


@adjoint(operator.truediv)
def truediv_any(a, b):
    y = a / b

    def back(dy):
        return (runtime.unbroadcast(dy / b.conjugate(), a), runtime.unbroadcast(-dy * (y / b).conjugate(), b))
    return y, back


@adjoint(operator.mod)
def mod_any(a, b):
    def back(dy):
        return (runtime.unbroadcast(dy, a), runtime.unbroadcast(-dy * (a // b), b))
    return a % b, back


@adjoint(operator.pow)
def pow_any(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return numpy_elementwise.power(a, b)
    if isinstance(a, complex) or isinstance(b, complex):
        return pow_complex(a, b)
    return pow_(a, b)


@adjoint(operator.abs)
def abs_any(x):
    if isinstance(x, np.ndarray):
        return numpy_elementwise.absolute(x)
    if isinstance(x, complex):
        return abs_complex(x)
    return abs_(x)


# -- complex numbers --------------------------------------------------------------
# What the dispatchers above choose for a Python complex operand (or a
# NumPy complex128 scalar, a subclass): the derivative conjugated, and the
# real part of the gradient for a real operand.


def pow_complex(a, b):
    """``a ** b`` on the principal branch: ``d/da = b * a ** (b - 1)``,
    ``d/db = y * log(a)``. At ``a == 0`` (where ``b`` is real and ``>= 0``,
    or Python raises) ``d/da`` has no limit for ``0 < b < 1``, nor ``d/db``
    for ``b == 0``: ``nan``."""
    y = a ** b

    def back(dy):
        if b == 0:
            da = dy * 0j  # y is the constant 1, even at a == 0
        elif a == 0 and b.real < 1:
            da = dy * math.nan
        else:
            da = dy * (b * a ** (b - 1)).conjugate()
        if isinstance(b, int):
            return (runtime.real_if_real(da, a), None)
        if a != 0:
            db = dy * (y * cmath.log(a)).conjugate()
        elif b.real > 0:
            db = dy * 0j
        else:
            db = dy * math.nan
        return (runtime.real_if_real(da, a), runtime.real_if_real(db, b))
    return y, back


def abs_complex(z):
    """``abs(z)``: ``dy * z / |z|`` (``∂|z|/∂x + i ∂|z|/∂y``), 0 at 0."""
    y = abs(z)

    def back(dy):
        return (dy * z / y if y else dy * 0j,)
    return y, back


def _in_place(op, rule):
    """The rule of an in-place operator: its plain version's derivative,
    and the in-place operation itself (Python numbers are immutable, so
    this is the plain operation for them). An array updated in place would
    lose the value that other pullbacks captured, so that is an error until
    mutation is supported."""

    def in_place(a, b):
        if isinstance(a, np.ndarray):
            raise errors.UnsupportedSyntax(
                "in-place arithmetic on a differentiated array (x += y) is not supported yet",
                hint="write x = x + y instead",
            )
        _, back = rule(a, b)
        return op(a, b), back
    in_place.__name__ = in_place.__qualname__ = op.__name__
    return in_place


array(operator.pow)(numpy_elementwise.power)
array(operator.abs)(numpy_elementwise.absolute)

IN_PLACE = [
    adjoint(op)(_in_place(op, rule)) for op, rule in [
        (operator.iadd, add_any), (operator.isub, sub_any), (operator.imul, mul_any),
        (operator.itruediv, truediv_any), (operator.imod, mod_any), (operator.ipow, pow_any),
    ]
]



@adjoint(operator.neg)
def neg(x):
    def back(dy):
        return (-dy,)
    return -x, back


@adjoint(operator.pos)
def pos(x):
    def back(dy):
        return (dy,)
    return +x, back


adjoint(operator.matmul)(numpy_linalg.matmul)

DISPATCHERS = {pow_any, abs_any, *IN_PLACE}
"""Rules that choose another rule by their operands' types at run time, so
the only built-in rules without a pullback of their own: never inlined (for
operands it knows to be numbers the compiler inlines the rule for numbers;
else it calls these at run time)."""


@adjoint(operator.getitem)
def getitem(container, key):
    def back(dy):
        if isinstance(container, (tuple, list)):
            grads = [None] * len(container)
            grads[key] = dy
            return (tuple(grads) if isinstance(container, tuple) else grads, None)
        if isinstance(container, dict):
            return ({key: dy}, None)
        if isinstance(container, np.ndarray):
            return (runtime.scatter(container, key, dy), None)
        raise errors.NoDerivativeRule(
            f"no rule for the gradient of indexing a {type(container).__name__}",
            hint="only tuples, lists, dicts and arrays have gradients for their items here",
        )
    return container[key], back


@array(operator.getitem)
def getitem_array(x, key):
    def back(dy):
        return (runtime.scatter(x, key, dy), None)
    return x[key], back


@adjoint(runtime.spread_positional)
def spread_positional(starred, *pieces):
    parts = [list(p) if spread else [p] for spread, p in zip(starred, pieces)]  # (iterators read once)

    def back(dy):
        grads = [None] * len(pieces)
        i = 0
        for k, (spread, piece) in enumerate(zip(starred, pieces)):
            n = len(parts[k])
            if dy is not None:
                grads[k] = runtime.like_iterable(piece, list(dy[i:i + n])) if spread else dy[i]
            i += n
        return (None, *grads)
    return runtime.spread_positional((True,) * len(parts), *parts), back


@adjoint(runtime.spread_keywords)
def spread_keywords(keys, *values):
    def back(dy):
        if dy is None:
            return (None,) * (1 + len(values))
        return (None, *(dy.get(k) if k is not None else {n: dy.get(n) for n in v} for k, v in zip(keys, values)))
    return runtime.spread_keywords(keys, *values), back


@adjoint(runtime.call_spread)
def call_spread(f, args, kwargs):
    y, pullback = runtime.J(f, *args, **kwargs)

    def back(dy):
        grads = runtime.call_pullback(pullback, dy)
        return (grads[0], tuple(grads[1 + i] for i in range(len(args))),
                {k: grads[1 + len(args) + i] for i, k in enumerate(kwargs)})
    return y, back


@adjoint(ops.build_tuple)
def build_tuple(*items):
    def back(dy):
        return tuple(dy)
    return ops.build_tuple(*items), back


@adjoint(ops.build_list)
def build_list(*items):
    def back(dy):
        return tuple(dy)
    return ops.build_list(*items), back


@adjoint(ops.build_dict)
def build_dict(*keys_and_values):
    y = ops.build_dict(*keys_and_values)

    def back(dy):
        # A repeated key keeps its last value; only that one gets dy[key].
        last = {k: i for i, k in enumerate(keys_and_values[::2])}
        grads = [None] * len(keys_and_values)
        for key, i in last.items():
            grads[2 * i + 1] = dy.get(key)
        return tuple(grads)
    return y, back


@adjoint(ops.unpack)
def unpack(value, count):
    def back(dy):
        return (tuple(dy) if isinstance(value, tuple) else list(dy), None)
    return ops.unpack(value, count), back


@adjoint(ops.unpack_starred)
def unpack_starred(value, before, after):
    y = ops.unpack_starred(value, before, after)

    def back(dy):
        middle = dy[before]
        if middle is None:
            middle = [None] * len(y[before])
        grads = (*dy[:before], *middle, *dy[before + 1:])
        return (grads if isinstance(value, tuple) else list(grads), None, None)
    return y, back


@adjoint(ops.check_bound)
def check_bound(value, name):
    def back(dy):
        return (dy, None)
    return ops.check_bound(value, name), back
