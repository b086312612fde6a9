"""Rules for NumPy's elementwise functions (its ufuncs, and ``np.clip``,
``np.where``, ``np.sinc``, ``np.real``, ``np.imag``, ``np.angle``,
``np.nan_to_num``, ``np.full_like``).

Differentiable: ``add subtract multiply divide (true_divide) power (pow)
float_power negative positive exp exp2 expm1 log log2 log10 log1p sqrt
cbrt square reciprocal sin cos tan arcsin arccos arctan arctan2 sinh cosh
tanh arcsinh arccosh arctanh absolute (abs) fabs copysign ldexp frexp modf
maximum minimum fmax fmin clip where hypot logaddexp logaddexp2 sinc
deg2rad rad2deg degrees radians real imag angle conjugate (conj) remainder
(mod) fmod divmod nan_to_num full_like`` and the methods ``ndarray.clip``,
``ndarray.conj``, ``ndarray.conjugate``.

Non-differentiable (piecewise constant, boolean- or integer-valued, or
about shapes and types): ``floor ceil round around rint trunc fix
floor_divide sign signbit heaviside`` the comparisons ``greater
greater_equal less less_equal equal not_equal``, ``logical_and logical_or
logical_not logical_xor isfinite isinf isnan isneginf isposinf isclose
allclose array_equal iscomplex isreal iscomplexobj isrealobj zeros_like
ones_like empty_like shape ndim size``.

Shapes and dtypes: a binary (or ternary) rule sums each operand's gradient
down to that operand's shape with :func:`runtime.unbroadcast`, which also
gives it the operand's floating dtype, and a Python number a Python number.
A unary rule's gradient is ``dy`` times a NumPy value of ``x``'s dtype, so
it has ``x``'s shape and dtype when ``dy`` has ``y``'s dtype, as the
compiled pullbacks give it. Operands are arrays, NumPy scalars or Python
numbers: pass a list through ``np.asarray`` first (``unbroadcast`` would
take it for a number, and a pullback may raise on it; none repeats it, as
``2 * x`` would).

Complex inputs: for a real loss and ``z = x + iy`` the gradient is
``dL/dx + i dL/dy``, so a holomorphic ``f`` gets ``dy * conj(f'(z))``. The
rules of holomorphic functions conjugate their derivative with
``.conjugate()``, which returns a real array itself at no cost. ``abs``
uses ``np.sign``, which is ``z / |z|`` for complex ``z`` since NumPy 2.
``cbrt fabs arctan2 hypot logaddexp logaddexp2 deg2rad rad2deg degrees
radians maximum minimum fmax fmin clip remainder fmod`` are for real
arguments only.

Conventions where a derivative is infinite, undefined or a kink — a rule
never raises there (NumPy may warn, as it does in the forward pass):

- ``sqrt``, ``cbrt`` at 0, ``arcsin``, ``arccos`` at ±1, ``arccosh`` at 1:
  the one-sided slope, ``±inf`` (times ``dy``).
- ``absolute`` and ``fabs`` at 0: gradient 0 (``sign(0) == 0``, as JAX and
  PyTorch); ``hypot`` and ``arctan2`` at ``(0, 0)``: 0 likewise.
- ``sinc`` (the normalised ``sin(pi x) / (pi x)``) at 0, where it is flat: 0.
- ``maximum``, ``minimum``, ``fmax``, ``fmin``: the operand equal to the
  output gets ``dy``; where the operands are equal, each gets ``dy / 2``.
  Where the output is NaN neither operand equals it: ``x2`` gets ``dy``
  (for ``fmax``/``fmin`` the NaN operand is ignored, so the other one,
  which is the output, gets ``dy``).
- ``clip(a, a_min, a_max)``: whichever of ``a``, ``a_min``, ``a_max``
  equals the output gets ``dy``: ``a`` strictly inside the bounds, the
  bound where ``a`` is clipped; where several do (``a == a_min``, or
  ``a_min == a_max``), they share it evenly. ``None`` bounds get ``None``.
- ``power(x1, x2)``: ``d/dx1 = x2 * x1 ** (x2 - 1)``, but 0 where
  ``x2 == 0`` (the output is the constant 1, even at ``x1 == 0``), and
  ``inf`` at ``x1 == 0`` for ``0 < x2 < 1``. ``d/dx2 = y * log(x1)`` for
  ``x1 > 0``, 0 for ``x1 == 0 < x2``, ``nan`` elsewhere (the logarithm is
  undefined); an ``int`` exponent gets ``None`` (a power, not an
  exponential).
- ``remainder`` (``mod``) and ``fmod``: ``y == x1 - n * x2`` for an integer
  ``n`` (``floor(x1 / x2)`` for ``remainder``, ``trunc(x1 / x2)`` for
  ``fmod``), so ``d/dx1 = 1`` and ``d/dx2 = -n``; ``n`` is computed as
  ``rint((x1 - y) / x2)``, so that it is the one ``y`` was computed with
  even where ``x1 / x2`` rounds to an integer.
- ``float_power`` (``power`` computed in float64 or complex128): as
  ``power``; the gradients are cast back to the operands' dtypes.
- ``copysign(x1, x2) == |x1| * sign(x2)``: ``d/dx1 = sign(x1) * sign(x2)``
  (the sign of ``x2`` read from its sign bit, so ``-0.0`` counts as
  negative), 0 at ``x1 == 0`` as for ``absolute``; ``x2`` only gives a
  sign, piecewise constant: ``None``.
- ``ldexp(x1, x2) == x1 * 2**x2``: ``d/dx1 = 2**x2``; the integer ``x2``
  gets ``None``.
- Two outputs: ``frexp``, ``modf`` and ``divmod`` return a pair, and their
  cotangent is a pair whose items may be ``None`` (that output unused).
  ``frexp(x) == (m, e)`` with ``x == m * 2**e``: ``dm/dx = 2**-e``, which
  at ``x == 0`` (where ``m`` jumps) is 1, and the one-sided slope from
  the right of a power of two (where ``m`` jumps from 1 to 0.5); the
  integer exponent carries no gradient. ``modf(x) == (fractional part,
  whole part)``: slopes 1 and 0 (the whole part is piecewise constant; at
  an integer, the slope of the fractional part away from the jump).
  ``divmod(x1, x2) == (floor_divide(x1, x2), remainder(x1, x2))``: the
  quotient is piecewise constant, the remainder ``x1 - q * x2`` gets
  ``d/dx1 = 1`` and ``d/dx2 = -q`` with the ``q`` of the output.
- ``angle(z, deg)``: 0 at ``z == 0``; for real ``z`` the angle is 0 or
  ``pi``, piecewise constant: gradient 0. ``deg=True`` scales it by
  ``180 / pi``.
- ``nan_to_num(x, copy, nan, posinf, neginf)``: ``x`` gets ``dy`` where
  it is finite and 0 where it is NaN or infinite (for complex ``x``, the
  real and imaginary parts separately, as NumPy replaces them); each given
  replacement value gets the sum of ``dy`` over the places it fills (an
  array of them, broadcast against ``x``, the sums along the broadcast
  axes); ``posinf=None`` and ``neginf=None``, the largest floats, get
  ``None``.
- ``where(condition, x, y)``: ``condition`` gets ``None``. Only the
  three-argument form has a rule.
- ``real(z)``: ``dy`` (made complex for a complex ``z``); ``imag(z)``:
  ``1j * dy`` for complex ``z``, 0 for a real one; ``conjugate``:
  ``conj(dy)``.
- ``full_like(a, fill_value, ...)``: ``fill_value`` gets the sum of ``dy``
  (it is broadcast to ``a``'s shape); ``a`` only gives the shape: ``None``.

Rules take the positional parameters of the NumPy function; a ufunc's
``out=``, ``where=``, ``dtype=``... are not parameters, so a call passing
them has no rule (a ``TypeError``). ``np.clip``'s keyword-only ``min=`` and
``max=`` (NumPy 2.1) likewise.
"""
import math

import numpy as np

from zygote_py import runtime
from zygote_py.rules import numpy_elementwise

from .registry import adjoint, nondifferentiable

nondifferentiable(
    np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix,
    np.floor_divide, np.sign, np.signbit, np.heaviside,
    np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.isfinite, np.isinf, np.isnan, np.isneginf, np.isposinf,
    np.isclose, np.allclose, np.array_equal, np.iscomplex, np.isreal,
    np.iscomplexobj, np.isrealobj,
    np.zeros_like, np.ones_like, np.empty_like, np.shape, np.ndim, np.size,
)


# -- arithmetic ---------------------------------------------------------------


@adjoint(np.add)
def add(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(dy, x2))
    return np.add(x1, x2), back


@adjoint(np.subtract)
def subtract(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(-dy, x2))
    return np.subtract(x1, x2), back


@adjoint(np.multiply)
def multiply(x1, x2):
    def back(dy):
        return (
            runtime.unbroadcast(dy * x2.conjugate(), x1),
            runtime.unbroadcast(dy * x1.conjugate(), x2),
        )
    return np.multiply(x1, x2), back


@adjoint(np.divide)
def divide(x1, x2):
    y = np.divide(x1, x2)

    def back(dy):
        d1 = dy / x2.conjugate()
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(-d1 * y.conjugate(), x2))
    return y, back


@adjoint(np.power)
def power(x1, x2):
    y = np.power(x1, x2)

    def back(dy):
        if isinstance(x2, (int, float)) and x2 == 0:
            d1 = 0.0 * dy  # y is the constant 1, even at x1 == 0
        elif isinstance(x2, (int, float)) and x2 == 2:
            d1 = dy * (2.0 * x1).conjugate()
        elif isinstance(x2, (int, float)) and isinstance(x1, np.ndarray):
            # ndarray ** number takes NumPy's fast paths (x1 ** 1, x1 ** 2...)
            d1 = dy * (x2 * x1 ** (x2 - 1)).conjugate()
        else:
            d1 = dy * np.where(np.equal(x2, 0), 0.0, x2 * np.power(x1, x2 - 1)).conjugate()
        if isinstance(x2, (int, np.integer)):
            return (runtime.unbroadcast(d1, x1), None)
        if y.dtype.kind == "c":
            d2 = dy * (y * np.log(x1)).conjugate()
        else:
            # log(x1) is undefined for x1 < 0, and y * log(x1) tends to 0
            # as x1 -> 0 only for x2 > 0
            inside = np.greater(x1, 0)
            d2 = dy * np.where(
                inside,
                y * np.log(np.where(inside, x1, 1.0)),
                np.where(np.logical_and(np.equal(x1, 0), np.greater(x2, 0)), 0.0, np.nan),
            )
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(d2, x2))
    return y, back


@adjoint(np.float_power)
def float_power(x1, x2):
    y = np.float_power(x1, x2)

    def back(dy):
        d1 = dy * np.where(np.equal(x2, 0), 0.0, x2 * np.float_power(x1, np.subtract(x2, 1))).conjugate()
        if isinstance(x2, (int, np.integer)):
            return (runtime.unbroadcast(d1, x1), None)
        if y.dtype.kind == "c":
            d2 = dy * (y * np.log(x1)).conjugate()
        else:
            # as for power: log(x1) is undefined for x1 < 0
            inside = np.greater(x1, 0)
            d2 = dy * np.where(
                inside,
                y * np.log(np.where(inside, x1, 1.0)),
                np.where(np.logical_and(np.equal(x1, 0), np.greater(x2, 0)), 0.0, np.nan),
            )
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(d2, x2))
    return y, back


@adjoint(np.negative)
def negative(x):
    def back(dy):
        return (-dy,)
    return np.negative(x), back


@adjoint(np.positive)
def positive(x):
    def back(dy):
        return (dy,)
    return np.positive(x), back


@adjoint(np.square)
def square(x):
    def back(dy):
        return (dy * (2.0 * x).conjugate(),)
    return np.square(x), back


@adjoint(np.reciprocal)
def reciprocal(x):
    y = np.reciprocal(x)

    def back(dy):
        return (-dy * (y * y).conjugate(),)
    return y, back


@adjoint(np.remainder)
def remainder(x1, x2):
    y = np.remainder(x1, x2)

    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(-dy * np.rint((x1 - y) / x2), x2))
    return y, back


@adjoint(np.fmod)
def fmod(x1, x2):
    y = np.fmod(x1, x2)

    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(-dy * np.rint((x1 - y) / x2), x2))
    return y, back


@adjoint(np.divmod)
def divmod_(x1, x2):
    y = np.divmod(x1, x2)

    def back(dy):
        # the quotient is piecewise constant: only the remainder's cotangent counts
        dr = dy[1]
        return (
            None if dr is None else runtime.unbroadcast(dr, x1),
            None if dr is None else runtime.unbroadcast(-dr * y[0], x2),
        )
    return y, back


# -- exponentials and logarithms ----------------------------------------------


@adjoint(np.exp)
def exp(x):
    y = np.exp(x)

    def back(dy):
        return (dy * y.conjugate(),)
    return y, back


@adjoint(np.exp2)
def exp2(x):
    y = np.exp2(x)

    def back(dy):
        return (dy * (y * math.log(2)).conjugate(),)
    return y, back


@adjoint(np.expm1)
def expm1(x):
    y = np.expm1(x)

    def back(dy):
        return (dy * (y + 1.0).conjugate(),)
    return y, back


@adjoint(np.log)
def log(x):
    def back(dy):
        return (dy / x.conjugate(),)
    return np.log(x), back


@adjoint(np.log2)
def log2(x):
    def back(dy):
        return (dy / (x * math.log(2)).conjugate(),)
    return np.log2(x), back


@adjoint(np.log10)
def log10(x):
    def back(dy):
        return (dy / (x * math.log(10)).conjugate(),)
    return np.log10(x), back


@adjoint(np.log1p)
def log1p(x):
    def back(dy):
        return (dy / (x + 1.0).conjugate(),)
    return np.log1p(x), back


@adjoint(np.logaddexp)
def logaddexp(x1, x2):
    y = np.logaddexp(x1, x2)

    def back(dy):
        return (
            runtime.unbroadcast(dy * np.exp(x1 - y), x1),
            runtime.unbroadcast(dy * np.exp(x2 - y), x2),
        )
    return y, back


@adjoint(np.logaddexp2)
def logaddexp2(x1, x2):
    y = np.logaddexp2(x1, x2)

    def back(dy):
        return (
            runtime.unbroadcast(dy * np.exp2(x1 - y), x1),
            runtime.unbroadcast(dy * np.exp2(x2 - y), x2),
        )
    return y, back


@adjoint(np.sqrt)
def sqrt(x):
    y = np.sqrt(x)

    def back(dy):
        return (dy / (2.0 * y).conjugate(),)
    return y, back


@adjoint(np.cbrt)
def cbrt(x):
    y = np.cbrt(x)

    def back(dy):
        return (dy / (3.0 * y * y),)
    return y, back


# -- trigonometric and hyperbolic ---------------------------------------------


@adjoint(np.sin)
def sin(x):
    def back(dy):
        return (dy * np.cos(x).conjugate(),)
    return np.sin(x), back


@adjoint(np.cos)
def cos(x):
    def back(dy):
        return (-dy * np.sin(x).conjugate(),)
    return np.cos(x), back


@adjoint(np.tan)
def tan(x):
    y = np.tan(x)

    def back(dy):
        return (dy * (1.0 + y * y).conjugate(),)
    return y, back


@adjoint(np.arcsin)
def arcsin(x):
    def back(dy):
        return (dy / np.sqrt(1.0 - x * x).conjugate(),)
    return np.arcsin(x), back


@adjoint(np.arccos)
def arccos(x):
    def back(dy):
        return (-dy / np.sqrt(1.0 - x * x).conjugate(),)
    return np.arccos(x), back


@adjoint(np.arctan)
def arctan(x):
    def back(dy):
        return (dy / (1.0 + x * x).conjugate(),)
    return np.arctan(x), back


@adjoint(np.arctan2)
def arctan2(x1, x2):
    """``arctan2(x1, x2)``: the angle of the point ``(x2, x1)``."""
    def back(dy):
        r2 = x1 * x1 + x2 * x2
        scale = dy / np.where(r2 == 0, 1.0, r2)  # the origin: x1 == x2 == 0 make the gradient 0
        return (runtime.unbroadcast(scale * x2, x1), runtime.unbroadcast(-scale * x1, x2))
    return np.arctan2(x1, x2), back


@adjoint(np.hypot)
def hypot(x1, x2):
    y = np.hypot(x1, x2)

    def back(dy):
        scale = dy / np.where(y == 0, 1.0, y)  # the origin: x1 == x2 == 0 make the gradient 0
        return (runtime.unbroadcast(scale * x1, x1), runtime.unbroadcast(scale * x2, x2))
    return y, back


@adjoint(np.sinh)
def sinh(x):
    def back(dy):
        return (dy * np.cosh(x).conjugate(),)
    return np.sinh(x), back


@adjoint(np.cosh)
def cosh(x):
    def back(dy):
        return (dy * np.sinh(x).conjugate(),)
    return np.cosh(x), back


@adjoint(np.tanh)
def tanh(x):
    y = np.tanh(x)

    def back(dy):
        return (dy * (1.0 - y * y).conjugate(),)
    return y, back


@adjoint(np.arcsinh)
def arcsinh(x):
    def back(dy):
        return (dy / np.sqrt(x * x + 1.0).conjugate(),)
    return np.arcsinh(x), back


@adjoint(np.arccosh)
def arccosh(x):
    def back(dy):
        return (dy / np.sqrt(x * x - 1.0).conjugate(),)
    return np.arccosh(x), back


@adjoint(np.arctanh)
def arctanh(x):
    def back(dy):
        return (dy / (1.0 - x * x).conjugate(),)
    return np.arctanh(x), back


@adjoint(np.sinc)
def sinc(x):
    y = np.sinc(x)

    def back(dy):
        # (cos(pi x) - sinc(x)) / x, and 0 at x == 0, where sinc is flat
        slope = np.divide(np.cos(np.pi * x) - y, x, out=np.zeros_like(y), where=np.not_equal(x, 0))
        return (dy * slope.conjugate(),)
    return y, back


@adjoint(np.deg2rad)
def deg2rad(x):
    def back(dy):
        return (dy * (math.pi / 180),)
    return np.deg2rad(x), back


@adjoint(np.radians)
def radians(x):
    def back(dy):
        return (dy * (math.pi / 180),)
    return np.radians(x), back


@adjoint(np.rad2deg)
def rad2deg(x):
    def back(dy):
        return (dy * (180 / math.pi),)
    return np.rad2deg(x), back


@adjoint(np.degrees)
def degrees(x):
    def back(dy):
        return (dy * (180 / math.pi),)
    return np.degrees(x), back


# -- absolute values, extrema, selection --------------------------------------


@adjoint(np.absolute)
def absolute(x):
    def back(dy):
        return (dy * np.sign(x),)
    return np.absolute(x), back


@adjoint(np.fabs)
def fabs(x):
    def back(dy):
        return (dy * np.sign(x),)
    return np.fabs(x), back


@adjoint(np.copysign)
def copysign(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(dy * (np.sign(x1) * np.copysign(1.0, x2)), x1), None)
    return np.copysign(x1, x2), back


# -- mantissas and exponents --------------------------------------------------


@adjoint(np.ldexp)
def ldexp(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(np.ldexp(dy, x2), x1), None)  # dy * 2**x2, exactly
    return np.ldexp(x1, x2), back


@adjoint(np.frexp)
def frexp(x):
    y = np.frexp(x)

    def back(dy):
        dm = dy[0]  # the exponent is an integer
        return (None if dm is None else np.ldexp(dm, -y[1]),)
    return y, back


@adjoint(np.modf)
def modf(x):
    def back(dy):
        return (dy[0],)  # the whole part is piecewise constant
    return np.modf(x), back


def first_share(dy, x1, x2, y):
    """The part of ``dy`` that goes to ``x1`` in ``y = maximum(x1, x2)``
    (or minimum, fmax, fmin): all of it where ``x1`` was picked, half where
    the two tie, none elsewhere."""
    tie = np.equal(x1, x2)
    if tie.any():
        return dy * (np.equal(x1, y) - 0.5 * tie)
    return dy * np.equal(x1, y)


@adjoint(np.maximum)
def maximum(x1, x2):
    y = np.maximum(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@adjoint(np.minimum)
def minimum(x1, x2):
    y = np.minimum(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@adjoint(np.fmax)
def fmax(x1, x2):
    y = np.fmax(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@adjoint(np.fmin)
def fmin(x1, x2):
    y = np.fmin(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@adjoint(np.clip)
def clip(a, a_min=None, a_max=None):
    y = np.clip(a, a_min, a_max)

    def back(dy):
        on_a = np.equal(a, y)
        on_min = False if a_min is None else np.equal(a_min, y)
        on_max = False if a_max is None else np.equal(a_max, y)
        if np.any((on_a & (on_min | on_max)) | (on_min & on_max)):
            # ties: those equal to y share dy evenly
            share = dy / np.maximum(1 * on_a + on_min + on_max, 1)
        else:
            share = dy
        return (
            runtime.unbroadcast(share * on_a, a),
            None if a_min is None else runtime.unbroadcast(share * on_min, a_min),
            None if a_max is None else runtime.unbroadcast(share * on_max, a_max),
        )
    return y, back


@adjoint(np.ndarray.clip)
def ndarray_clip(a, min=None, max=None):
    """``a.clip(min, max)``: ``np.clip``'s rule, with the method's names."""
    y = np.ndarray.clip(a, min, max)

    def back(dy):
        on_a = np.equal(a, y)
        on_min = False if min is None else np.equal(min, y)
        on_max = False if max is None else np.equal(max, y)
        if np.any((on_a & (on_min | on_max)) | (on_min & on_max)):
            share = dy / np.maximum(1 * on_a + on_min + on_max, 1)
        else:
            share = dy
        return (
            runtime.unbroadcast(share * on_a, a),
            None if min is None else runtime.unbroadcast(share * on_min, min),
            None if max is None else runtime.unbroadcast(share * on_max, max),
        )
    return y, back


@adjoint(np.where)
def where(condition, x, y):
    def back(dout):
        return (
            None,
            runtime.unbroadcast(np.where(condition, dout, 0), x),
            runtime.unbroadcast(np.where(condition, 0, dout), y),
        )
    return np.where(condition, x, y), back


# -- complex parts, fills -------------------------------------------------------


@adjoint(np.real)
def real(val):
    def back(dy):
        if np.iscomplexobj(val):
            return (runtime.unbroadcast(dy, val),)  # made complex, with a 0 imaginary part
        return (dy,)
    return np.real(val), back


@adjoint(np.imag)
def imag(val):
    def back(dy):
        if np.iscomplexobj(val):
            return (np.multiply(1j, dy),)  # a ufunc: also makes a sparse dy dense, and complex
        return (0.0 * dy,)  # the imaginary part of a real array is constant
    return np.imag(val), back


@adjoint(np.angle)
def angle(z, deg=False):
    def back(dy):
        if not np.iscomplexobj(z):
            return (0.0 * dy, None)  # 0 or pi: piecewise constant
        r2 = (z * z.conjugate()).real
        turn = np.multiply(1j, z) / np.where(r2 == 0, 1.0, r2)  # 1j / conj(z), and 0 at z == 0
        return (runtime.unbroadcast(dy * (turn * (180 / math.pi if deg else 1.0)), z), None)
    return np.angle(z, deg), back


@adjoint(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    def back(dy):
        if np.iscomplexobj(x):  # NumPy replaces the real and imaginary parts separately
            dx = np.real(dy) * np.isfinite(np.real(x)) + 1j * (np.imag(dy) * np.isfinite(np.imag(x)))
        else:
            dx = dy * np.isfinite(x)
        return (
            dx,
            None,
            runtime.unbroadcast(numpy_elementwise.filled(dy, x, np.isnan), nan),
            None if posinf is None else runtime.unbroadcast(numpy_elementwise.filled(dy, x, np.isposinf), posinf),
            None if neginf is None else runtime.unbroadcast(numpy_elementwise.filled(dy, x, np.isneginf), neginf),
        )
    return np.nan_to_num(x, copy, nan, posinf, neginf), back


def filled(dy, x, picks):
    """``dy`` at the places of ``x`` that ``picks`` (``np.isnan``,
    ``np.isposinf``...) selects, 0 elsewhere: the gradient of the value
    ``nan_to_num`` puts there, before it is summed to that value's shape.
    A complex ``x``'s real and imaginary parts count apart."""
    if np.iscomplexobj(x):
        return np.real(dy) * picks(np.real(x)) + np.imag(dy) * picks(np.imag(x))
    return dy * picks(x)


@adjoint(np.conjugate)
def conjugate(x):
    def back(dy):
        return (dy.conjugate(),)
    return np.conjugate(x), back


@adjoint(np.ndarray.conj)
def ndarray_conj(a):
    def back(dy):
        return (dy.conjugate(),)
    return np.ndarray.conj(a), back


@adjoint(np.ndarray.conjugate)
def ndarray_conjugate(a):
    def back(dy):
        return (dy.conjugate(),)
    return np.ndarray.conjugate(a), back


@adjoint(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    def back(dy):
        return (None, runtime.unbroadcast(dy, fill_value), None, None, None, None)
    return np.full_like(a, fill_value, dtype, order, subok, shape), back
