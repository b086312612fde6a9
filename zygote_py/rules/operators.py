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

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``,
one per operator for numbers and arrays alike (a broadcasting operator's
tangent goes through ``runtime.shaped``), the in-place operators sharing
their plain versions', except ``runtime.call_spread``'s: its tangent is
``f``'s, which a rule given the result could only get by calling ``f``
again, so the forward mode derives it from the adjoint rule.

- Lists and tuples joined with ``+`` or repeated with ``*`` (and ``+=``,
  ``*=`` of tuples), which the run-time ``J`` recognises by their types:
  the gradient of ``a + b`` is split back into ``a``'s first items and
  ``b``'s last ones; that of ``a * k`` is the sum of its ``k`` runs of
  ``len(a)`` items.

Not covered here:

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

from ..registry import SEQUENCE, adjoint, array, nondifferentiable, pushforward, scalar, specialised

nondifferentiable(
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    operator.is_, operator.is_not, operator.not_, operator.truth,
    operator.contains, ops.contains, ops.not_contains, operator.countOf,
    operator.indexOf, operator.length_hint, operator.index,
    operator.floordiv, operator.ifloordiv,
    operator.invert, operator.lshift, operator.rshift,
    operator.ilshift, operator.irshift,
    ops.exhausted, ops.build_string, ops.format_value, ops.match_args, ops.check_count,
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


def pow_slope(a, b, y, wrt):
    """The slope of ``y = a ** b`` in ``a`` (``wrt == 0``) or ``b`` (1) for
    real numbers, at the edges as :func:`pow_` has it."""
    if wrt == 0:
        if b == 0:
            return 0.0  # y is the constant 1, even at a == 0
        if a == 0 and b < 1:
            return math.inf  # the slope of a ** b at 0 when 0 < b < 1
        return b * a ** (b - 1)
    if a > 0:
        return y * math.log(a)
    return 0.0 if a == 0 and b > 0 else math.nan  # log(a) is undefined for a < 0


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


@pushforward(operator.add)
def add_any_push(y, a, b, *, da, db):
    return runtime.shaped(da + db, y)


@adjoint(operator.sub)
def sub_any(a, b):
    def back(dy):
        return (runtime.unbroadcast(dy, a), -runtime.unbroadcast(dy, b))  # (negated once summed)
    return a - b, back


@pushforward(operator.sub)
def sub_any_push(y, a, b, *, da, db):
    return runtime.shaped(da - db, y)


@adjoint(operator.mul)
def mul_any(a, b):
    def back(dy):
        return (runtime.unbroadcast(dy * np.conjugate(b), a), runtime.unbroadcast(dy * np.conjugate(a), b))
    return a * b, back


@pushforward(operator.mul)
def mul_any_push(y, a, b, *, da, db):
    return runtime.shaped(da * b + a * db, y)


@adjoint(operator.truediv)
def truediv_any(a, b):
    y = a / b

    def back(dy):
        return (runtime.unbroadcast(dy / np.conjugate(b), a), runtime.unbroadcast(-dy * np.conjugate(y / b), b))
    return y, back


@pushforward(operator.truediv)
def truediv_any_push(y, a, b, *, da, db):
    return runtime.shaped((da - y * db) / b, y)


@adjoint(operator.mod)
def mod_any(a, b):
    def back(dy):
        if isinstance(a, (str, bytes)):  # ("%.3f" % x: text, no gradient)
            return (None, None)
        return (runtime.unbroadcast(dy, a), runtime.unbroadcast(-dy * (a // b), b))
    return a % b, back


@pushforward(operator.mod)
def mod_any_push(y, a, b, *, da, db):
    if isinstance(a, (str, bytes)):  # ("%.3f" % x: text, no tangent)
        return None
    return runtime.shaped(da - db * (a // b), y)


@adjoint(operator.pow)
def pow_any(a, b):
    if runtime.arrays.is_array(a) or runtime.arrays.is_array(b):
        return numpy_elementwise.power(a, b)
    if isinstance(a, complex) or isinstance(b, complex):
        return pow_complex(a, b)
    return pow_(a, b)


@pushforward(operator.pow)
def pow_any_push(y, a, b, *, da, db):
    """``da * ∂y/∂a + db * ∂y/∂b`` by the slopes of the rule ``pow_any`` picks (not conjugated)."""
    # Called at run time, where zero tangents are concrete: a zero adds
    # nothing, rather than 0 * inf (the slope in a at a == 0 < b < 1) or
    # 0 * nan (in b at a < 0).
    if runtime.arrays.is_array(a) or runtime.arrays.is_array(b):
        slope = operators.power_slope
    elif isinstance(y, (complex, np.complexfloating)):
        slope = operators.pow_complex_slope
    else:
        slope = operators.pow_slope
    dy = 0.0
    for wrt, d in enumerate((da, db)):
        if d is None:
            continue
        if runtime.arrays.is_foreign(d):  # (np.any would compute a Dask array: each zero item adds nothing)
            dy = dy + np.where(d == 0, 0.0, d * slope(a, b, y, wrt))
        elif np.any(d):
            dy = dy + d * slope(a, b, y, wrt)
    return runtime.shaped(dy, y)


def pow_constant_push(y, a, b, *, da):
    """``a ** b`` for a constant number ``b`` other than 0 (which the
    forward transform picks for it, and inlines)."""
    return da * (b * a ** (b - 1))


def power_slope(a, b, y, wrt):
    """The slope of ``y = a ** b`` for arrays, at the edges as
    :func:`zygote_py.rules.numpy_elementwise.power` has it."""
    if wrt == 0:
        if isinstance(b, (int, float)) and b == 0:
            return 0.0  # y is the constant 1, even at a == 0
        if isinstance(b, (int, float)) and isinstance(a, np.ndarray):
            return b * a ** (b - 1)
        return np.where(np.equal(b, 0), 0.0, b * np.power(a, b - 1))
    if y.dtype.kind == "c":
        return y * np.log(a)
    # log(a) is undefined for a < 0, and y * log(a) tends to 0 as a -> 0 only for b > 0
    inside = np.greater(a, 0)
    return np.where(inside, y * np.log(np.where(inside, a, 1.0)),
                    np.where(np.logical_and(np.equal(a, 0), np.greater(b, 0)), 0.0, np.nan))


@adjoint(operator.abs)
def abs_any(x):
    if runtime.arrays.is_array(x) or isinstance(x, np.complexfloating):  # (np.complex64 is no Python complex)
        return numpy_elementwise.absolute(x)
    if isinstance(x, complex):
        return abs_complex(x)
    return abs_(x)


@pushforward(operator.abs)
def abs_any_push(y, x, *, dx):
    """Called at run time: the pushforward of the rule ``abs_any`` picks."""
    if runtime.arrays.is_array(x):
        return np.real(dx * np.conjugate(np.sign(x)))  # sign(x) == x / |x|, 0 at 0, also for complex x
    if isinstance(x, (complex, np.complexfloating)):
        return (x.conjugate() * dx).real / y if y else 0.0 * y  # 0 at 0
    return dx if x > 0 else -dx if x < 0 else dx * x  # 0 at 0, nan at nan


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


def pow_complex_slope(a, b, y, wrt):
    """The slope of ``y = a ** b`` in ``a`` (``wrt == 0``) or ``b`` (1) on
    the principal branch, at the edges as :func:`pow_complex` has it."""
    if wrt == 0:
        if b == 0:
            return 0j  # y is the constant 1, even at a == 0
        if a == 0 and b.real < 1:
            return complex(math.nan, math.nan)
        return b * a ** (b - 1)
    if a != 0:
        return y * cmath.log(a)
    return 0j if b.real > 0 else complex(math.nan, math.nan)


def abs_complex(z):
    """``abs(z)``: ``dy * z / |z|`` (``∂|z|/∂x + i ∂|z|/∂y``), 0 at 0."""
    y = abs(z)

    def back(dy):
        return (dy * z / y if y else dy * 0j,)
    return y, back


def _in_place(op, rule):
    """The rule of an in-place operator: its plain version's derivative,
    and the in-place operation itself (Python numbers are immutable, so
    this is the plain operation for them). The mutation pass versions the
    changes it can prove safe (see :mod:`zygote_py.ad.mutation`); an array
    met here is one it could not (it may share its memory with another
    value, or was not known to be an array), so that is an error; and so
    is a list (``v += [y]`` extends it) that it could not prove held by
    that name alone (``v = d["a"]``), whose holders would not see the
    change (a list it knows is extended: see ``mutation.extend``)."""

    def in_place(a, b):
        if isinstance(a, np.ndarray):
            raise errors.UnsupportedSyntax(
                "in-place arithmetic on a differentiated array (x += y) that may share its memory with another "
                "value, or that was not known to be an array where the code was compiled",
                hint="write x = x + y instead, or change a copy made in this function (x = x.copy())",
            )
        if isinstance(a, list):
            raise errors.UnsupportedSyntax(
                "in-place += or *= on a list of differentiated values that may be held elsewhere (read from a "
                "container or an attribute, an argument, or a function's result): its holders would not see it",
                hint="write v = v + [...] (a new list), or change it where it is held: d['a'].extend(...)",
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


# The in-place operators' pushforwards are their plain versions': right
# for numbers, and the forward transform changes an array's tangent in
# place itself (see zygote_py.ad.forward).
pushforward(operator.iadd)(add_any_push)
pushforward(operator.isub)(sub_any_push)
pushforward(operator.imul)(mul_any_push)
pushforward(operator.itruediv)(truediv_any_push)
pushforward(operator.imod)(mod_any_push)
pushforward(operator.ipow)(pow_any_push)


@adjoint(operator.neg)
def neg(x):
    def back(dy):
        return (-dy,)
    return -x, back


@pushforward(operator.neg)
def neg_push(y, x, *, dx):
    return -dx


@adjoint(operator.pos)
def pos(x):
    def back(dy):
        return (dy,)
    return +x, back


@pushforward(operator.pos)
def pos_push(y, x, *, dx):
    return dx


adjoint(operator.matmul)(numpy_linalg.matmul)


@pushforward(operator.matmul)
def matmul_push(y, a, b, *, da, db):
    return da @ b + a @ db


@specialised(SEQUENCE, operator.add)
def join(a, b):
    n = len(a)

    def back(dy):
        return (dy[:n], dy[n:])
    return a + b, back


@specialised(SEQUENCE, operator.mul)
def repeat(a, b):
    items = a if isinstance(a, (tuple, list)) else b
    n = len(items)

    def back(dy):
        total = [None] * n
        for start in range(0, len(dy), n):
            total = runtime.accum(total, list(dy[start:start + n]))
        d = tuple(total) if isinstance(items, tuple) else total
        return (d, None) if items is a else (None, d)
    return a * b, back


specialised(SEQUENCE, operator.iadd)(join)  # (a tuple's: a new one; a list's changes in place, see _in_place)
specialised(SEQUENCE, operator.imul)(repeat)


DISPATCHERS = {pow_any, abs_any, *IN_PLACE}
"""Rules that choose another rule by their operands' types at run time, so
the only built-in rules without a pullback of their own: never inlined (for
operands it knows to be numbers the compiler inlines the rule for numbers;
else it calls these at run time)."""


@adjoint(operator.getitem)
def getitem(container, key):
    n = len(container) if isinstance(container, (tuple, list)) else 0  # (a list may grow before the pullback)

    def back(dy):
        if isinstance(container, (tuple, list)):
            return (runtime.sequence_gradient(n, key, dy, isinstance(container, tuple)), None)
        if isinstance(container, dict):
            return ({key: dy}, None)
        if runtime.arrays.is_array(container) or isinstance(container, np.generic):  # (a NumPy scalar's x[()])
            return (runtime.scatter(container, key, dy), None)
        raise errors.NoDerivativeRule(
            f"no rule for the gradient of indexing a {type(container).__name__}",
            hint="only tuples, lists, dicts and arrays have gradients for their items here",
        )
    return container[key], back


@pushforward(operator.getitem)
def getitem_push(y, container, key, *, dcontainer):
    if runtime.arrays.is_foreign(dcontainer):  # (a NumPy array's tangent of another library: Dask's takes no x[i, j])
        return runtime.picked(dcontainer, key)
    return dcontainer[key]


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


@pushforward(runtime.spread_positional)
def spread_positional_push(y, starred, *pieces, dpieces):
    """The items' tangents (``None`` for an item without one)."""
    # A spread iterator, read by the call, has as many items as y has left
    # over: there may be one such piece without a tangent.
    sizes = [1 if not spread else len(d) if isinstance(d, (tuple, list, np.ndarray))
             else len(p) if isinstance(p, (tuple, list, np.ndarray)) else None
             for spread, p, d in zip(starred, pieces, dpieces)]
    if sizes.count(None) > 1:
        raise errors.NoDerivativeRule(
            "forward mode: no tangent for a call spreading several iterators without tangents (f(*a, *b))",
            hint="make them lists first: f(*list(a), *list(b))",
        )
    rest = len(y) - sum(n for n in sizes if n is not None)
    items = []
    for spread, d, n in zip(starred, dpieces, sizes):
        if not spread:
            items.append(d)
        else:
            items.extend([None] * (rest if n is None else n) if d is None else d)
    return tuple(items)


@adjoint(runtime.spread_keywords)
def spread_keywords(keys, *values):
    def back(dy):
        if dy is None:
            return (None,) * (1 + len(values))
        return (None, *[dy.get(k) if k is not None else {n: dy.get(n) for n in v} for k, v in zip(keys, values)])
    return runtime.spread_keywords(keys, *values), back


@pushforward(runtime.spread_keywords)
def spread_keywords_push(y, keys, *values, dvalues):
    """A dict of the values' tangents (``None`` for a value without one)."""
    out = {}
    for key, value, d in zip(keys, values, dvalues):
        if key is not None:
            out[key] = d
        else:  # **mapping: d is its tangent, a dict
            for k in value:
                out[k] = None if d is None else d.get(k)
    return out


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


@pushforward(ops.build_tuple)
def build_tuple_push(y, *items, ditems):
    return ditems


@adjoint(ops.build_list)
def build_list(*items):
    def back(dy):
        return tuple(dy)
    return ops.build_list(*items), back


@pushforward(ops.build_list)
def build_list_push(y, *items, ditems):
    return list(ditems)


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


@pushforward(ops.build_dict)
def build_dict_push(y, *keys_and_values, dkeys_and_values):
    # (a repeated key keeps its last value's tangent, as it keeps the value)
    return dict(zip(keys_and_values[::2], dkeys_and_values[1::2]))


@adjoint(ops.unpack)
def unpack(value, count):
    start = runtime.position(value)

    def back(dy):
        return (runtime.like_iterable(value, list(dy), start), None)
    return ops.unpack(value, count), back


@pushforward(ops.unpack)
def unpack_push(y, value, count, *, dvalue):
    return tuple(dvalue)


@adjoint(ops.unpack_starred)
def unpack_starred(value, before, after):
    start = runtime.position(value)
    y = ops.unpack_starred(value, before, after)

    def back(dy):
        middle = dy[before]
        if middle is None:
            middle = [None] * len(y[before])
        return (runtime.like_iterable(value, [*dy[:before], *middle, *dy[before + 1:]], start), None, None)
    return y, back


@pushforward(ops.unpack_starred)
def unpack_starred_push(y, value, before, after, *, dvalue):
    items = list(dvalue)
    stop = len(items) - after
    return (*items[:before], items[before:stop], *items[stop:])


@adjoint(ops.check_bound)
def check_bound(value, name):
    def back(dy):
        return (dy, None)
    return ops.check_bound(value, name), back


@pushforward(ops.check_bound)
def check_bound_push(y, value, name, *, dvalue):
    return dvalue
