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
allclose array_equal iscomplex isreal iscomplexobj isrealobj issubdtype
zeros_like ones_like empty_like shape ndim size``.

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
``np.conjugate``, which other libraries' arrays have too (Dask's have no
``.conjugate()``); the compiler drops it where the value is known to be
real. ``abs``
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

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``
(``divmod_push`` for ``divmod_``), the transpose of its pullback, with the
same conventions; a holomorphic function's tangent is ``f'(z) * dz``,
unconjugated. A binary or ternary one returns ``runtime.shaped(..., y)``,
since an operand's tangent alone may have fewer dimensions than ``y`` or
another dtype.
"""
import math

import numpy as np

from zygote_py import runtime
from zygote_py.runtime import arrays
from zygote_py.rules import numpy_elementwise

from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(
    np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix,
    np.floor_divide, np.sign, np.signbit, np.heaviside,
    np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.isfinite, np.isinf, np.isnan, np.isneginf, np.isposinf,
    np.isclose, np.allclose, np.array_equal, np.iscomplex, np.isreal,
    np.iscomplexobj, np.isrealobj, np.issubdtype,
    np.zeros_like, np.ones_like, np.empty_like, np.shape, np.ndim, np.size,
)


# -- arithmetic ---------------------------------------------------------------


@adjoint(np.add)
def add(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(dy, x2))
    return np.add(x1, x2), back


@pushforward(np.add)
def add_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 + dx2, y)


@adjoint(np.subtract)
def subtract(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(dy, x1), -runtime.unbroadcast(dy, x2))  # (negated once summed)
    return np.subtract(x1, x2), back


@pushforward(np.subtract)
def subtract_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 - dx2, y)


@adjoint(np.multiply)
def multiply(x1, x2):
    def back(dy):
        return (
            runtime.unbroadcast(dy * np.conjugate(x2), x1),
            runtime.unbroadcast(dy * np.conjugate(x1), x2),
        )
    return np.multiply(x1, x2), back


@pushforward(np.multiply)
def multiply_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 * x2 + x1 * dx2, y)


@adjoint(np.divide)
def divide(x1, x2):
    y = np.divide(x1, x2)

    def back(dy):
        d1 = dy / np.conjugate(x2)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(-d1 * np.conjugate(y), x2))
    return y, back


@pushforward(np.divide)
def divide_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped((dx1 - y * dx2) / x2, y)


@adjoint(np.power)
def power(x1, x2):
    y = np.power(x1, x2)

    def back(dy):
        if isinstance(x2, (int, float)) and x2 == 0:
            d1 = 0.0 * dy  # y is the constant 1, even at x1 == 0
        elif isinstance(x2, (int, float)) and x2 == 2:
            d1 = dy * np.conjugate(2.0 * x1)
        elif isinstance(x2, (int, float)) and isinstance(x1, np.ndarray):
            # ndarray ** number takes NumPy's fast paths (x1 ** 1, x1 ** 2...)
            d1 = dy * np.conjugate(x2 * x1 ** (x2 - 1))
        else:
            d1 = dy * np.conjugate(np.where(np.equal(x2, 0), 0.0, x2 * np.power(x1, x2 - 1)))
        if isinstance(x2, (int, np.integer)):
            return (runtime.unbroadcast(d1, x1), None)
        if y.dtype.kind == "c":
            d2 = dy * np.conjugate(y * np.log(x1))
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


@pushforward(np.power)
def power_push(y, x1, x2, *, dx1, dx2):
    base_slope = np.where(np.equal(x2, 0), 0.0, x2 * np.power(x1, x2 - 1))
    return runtime.shaped(dx1 * base_slope + dx2 * numpy_elementwise.exponent_slope(x1, x2, y), y)


@adjoint(np.float_power)
def float_power(x1, x2):
    y = np.float_power(x1, x2)

    def back(dy):
        d1 = dy * np.conjugate(np.where(np.equal(x2, 0), 0.0, x2 * np.float_power(x1, np.subtract(x2, 1))))
        if isinstance(x2, (int, np.integer)):
            return (runtime.unbroadcast(d1, x1), None)
        if y.dtype.kind == "c":
            d2 = dy * np.conjugate(y * np.log(x1))
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


@pushforward(np.float_power)
def float_power_push(y, x1, x2, *, dx1, dx2):
    base_slope = np.where(np.equal(x2, 0), 0.0, x2 * np.float_power(x1, np.subtract(x2, 1)))
    return runtime.shaped(dx1 * base_slope + dx2 * numpy_elementwise.exponent_slope(x1, x2, y), y)


def exponent_slope(x1, x2, y):
    """The slope of ``y = power(x1, x2)`` (or ``float_power``) in ``x2``:
    ``y * log(x1)``, and for a real ``y`` 0 at ``x1 == 0 < x2`` and ``nan``
    where ``x1`` has no real logarithm, as the adjoint rules take it."""
    if y.dtype.kind == "c":
        return y * np.log(x1)
    inside = np.greater(x1, 0)
    return np.where(
        inside,
        y * np.log(np.where(inside, x1, 1.0)),
        np.where(np.logical_and(np.equal(x1, 0), np.greater(x2, 0)), 0.0, np.nan),
    )


@adjoint(np.negative)
def negative(x):
    def back(dy):
        return (-dy,)
    return np.negative(x), back


@pushforward(np.negative)
def negative_push(y, x, *, dx):
    return -dx


@adjoint(np.positive)
def positive(x):
    def back(dy):
        return (dy,)
    return np.positive(x), back


@pushforward(np.positive)
def positive_push(y, x, *, dx):
    return dx


@adjoint(np.square)
def square(x):
    def back(dy):
        return (dy * np.conjugate(2.0 * x),)
    return np.square(x), back


@pushforward(np.square)
def square_push(y, x, *, dx):
    return dx * (2.0 * x)


@adjoint(np.reciprocal)
def reciprocal(x):
    y = np.reciprocal(x)

    def back(dy):
        return (-dy * np.conjugate(y * y),)
    return y, back


@pushforward(np.reciprocal)
def reciprocal_push(y, x, *, dx):
    return -dx * (y * y)


@adjoint(np.remainder)
def remainder(x1, x2):
    y = np.remainder(x1, x2)

    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(-dy * np.rint((x1 - y) / x2), x2))
    return y, back


@pushforward(np.remainder)
def remainder_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 - dx2 * np.rint((x1 - y) / x2), y)


@adjoint(np.fmod)
def fmod(x1, x2):
    y = np.fmod(x1, x2)

    def back(dy):
        return (runtime.unbroadcast(dy, x1), runtime.unbroadcast(-dy * np.rint((x1 - y) / x2), x2))
    return y, back


@pushforward(np.fmod)
def fmod_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 - dx2 * np.rint((x1 - y) / x2), y)


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


@pushforward(np.divmod)
def divmod_push(y, x1, x2, *, dx1, dx2):
    """The quotient is piecewise constant: no tangent."""
    return (None, runtime.shaped(dx1 - dx2 * y[0], y[1]))


# -- exponentials and logarithms ----------------------------------------------


@adjoint(np.exp)
def exp(x):
    y = np.exp(x)

    def back(dy):
        return (dy * np.conjugate(y),)
    return y, back


@pushforward(np.exp)
def exp_push(y, x, *, dx):
    return dx * y


@adjoint(np.exp2)
def exp2(x):
    y = np.exp2(x)

    def back(dy):
        return (dy * np.conjugate(y * math.log(2)),)
    return y, back


@pushforward(np.exp2)
def exp2_push(y, x, *, dx):
    return dx * (y * math.log(2))


@adjoint(np.expm1)
def expm1(x):
    y = np.expm1(x)

    def back(dy):
        return (dy * np.conjugate(y + 1.0),)
    return y, back


@pushforward(np.expm1)
def expm1_push(y, x, *, dx):
    return dx * (y + 1.0)


@adjoint(np.log)
def log(x):
    def back(dy):
        return (dy / np.conjugate(x),)
    return np.log(x), back


@pushforward(np.log)
def log_push(y, x, *, dx):
    return dx / x


@adjoint(np.log2)
def log2(x):
    def back(dy):
        return (dy / np.conjugate(x * math.log(2)),)
    return np.log2(x), back


@pushforward(np.log2)
def log2_push(y, x, *, dx):
    return dx / (x * math.log(2))


@adjoint(np.log10)
def log10(x):
    def back(dy):
        return (dy / np.conjugate(x * math.log(10)),)
    return np.log10(x), back


@pushforward(np.log10)
def log10_push(y, x, *, dx):
    return dx / (x * math.log(10))


@adjoint(np.log1p)
def log1p(x):
    def back(dy):
        return (dy / np.conjugate(x + 1.0),)
    return np.log1p(x), back


@pushforward(np.log1p)
def log1p_push(y, x, *, dx):
    return dx / (x + 1.0)


@adjoint(np.logaddexp)
def logaddexp(x1, x2):
    y = np.logaddexp(x1, x2)

    def back(dy):
        return (
            runtime.unbroadcast(dy * np.exp(x1 - y), x1),
            runtime.unbroadcast(dy * np.exp(x2 - y), x2),
        )
    return y, back


@pushforward(np.logaddexp)
def logaddexp_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 * np.exp(x1 - y) + dx2 * np.exp(x2 - y), y)


@adjoint(np.logaddexp2)
def logaddexp2(x1, x2):
    y = np.logaddexp2(x1, x2)

    def back(dy):
        return (
            runtime.unbroadcast(dy * np.exp2(x1 - y), x1),
            runtime.unbroadcast(dy * np.exp2(x2 - y), x2),
        )
    return y, back


@pushforward(np.logaddexp2)
def logaddexp2_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(dx1 * np.exp2(x1 - y) + dx2 * np.exp2(x2 - y), y)


@adjoint(np.sqrt)
def sqrt(x):
    y = np.sqrt(x)

    def back(dy):
        return (dy / np.conjugate(2.0 * y),)
    return y, back


@pushforward(np.sqrt)
def sqrt_push(y, x, *, dx):
    return dx / (2.0 * y)


@adjoint(np.cbrt)
def cbrt(x):
    y = np.cbrt(x)

    def back(dy):
        return (dy / (3.0 * y * y),)
    return y, back


@pushforward(np.cbrt)
def cbrt_push(y, x, *, dx):
    return dx / (3.0 * y * y)


# -- trigonometric and hyperbolic ---------------------------------------------


@adjoint(np.sin)
def sin(x):
    def back(dy):
        return (dy * np.conjugate(np.cos(x)),)
    return np.sin(x), back


@pushforward(np.sin)
def sin_push(y, x, *, dx):
    return dx * np.cos(x)


@adjoint(np.cos)
def cos(x):
    def back(dy):
        return (-dy * np.conjugate(np.sin(x)),)
    return np.cos(x), back


@pushforward(np.cos)
def cos_push(y, x, *, dx):
    return -dx * np.sin(x)


@adjoint(np.tan)
def tan(x):
    y = np.tan(x)

    def back(dy):
        return (dy * np.conjugate(1.0 + y * y),)
    return y, back


@pushforward(np.tan)
def tan_push(y, x, *, dx):
    return dx * (1.0 + y * y)


@adjoint(np.arcsin)
def arcsin(x):
    def back(dy):
        return (dy / np.conjugate(np.sqrt(1.0 - x * x)),)
    return np.arcsin(x), back


@pushforward(np.arcsin)
def arcsin_push(y, x, *, dx):
    return dx / np.sqrt(1.0 - x * x)


@adjoint(np.arccos)
def arccos(x):
    def back(dy):
        return (-dy / np.conjugate(np.sqrt(1.0 - x * x)),)
    return np.arccos(x), back


@pushforward(np.arccos)
def arccos_push(y, x, *, dx):
    return -dx / np.sqrt(1.0 - x * x)


@adjoint(np.arctan)
def arctan(x):
    def back(dy):
        return (dy / np.conjugate(1.0 + x * x),)
    return np.arctan(x), back


@pushforward(np.arctan)
def arctan_push(y, x, *, dx):
    return dx / (1.0 + x * x)


@adjoint(np.arctan2)
def arctan2(x1, x2):
    """``arctan2(x1, x2)``: the angle of the point ``(x2, x1)``."""
    def back(dy):
        r2 = x1 * x1 + x2 * x2
        scale = dy / np.where(r2 == 0, 1.0, r2)  # the origin: x1 == x2 == 0 make the gradient 0
        return (runtime.unbroadcast(scale * x2, x1), runtime.unbroadcast(-scale * x1, x2))
    return np.arctan2(x1, x2), back


@pushforward(np.arctan2)
def arctan2_push(y, x1, x2, *, dx1, dx2):
    r2 = x1 * x1 + x2 * x2
    return runtime.shaped((dx1 * x2 - dx2 * x1) / np.where(r2 == 0, 1.0, r2), y)


@adjoint(np.hypot)
def hypot(x1, x2):
    y = np.hypot(x1, x2)

    def back(dy):
        scale = dy / np.where(y == 0, 1.0, y)  # the origin: x1 == x2 == 0 make the gradient 0
        return (runtime.unbroadcast(scale * x1, x1), runtime.unbroadcast(scale * x2, x2))
    return y, back


@pushforward(np.hypot)
def hypot_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped((dx1 * x1 + dx2 * x2) / np.where(y == 0, 1.0, y), y)


@adjoint(np.sinh)
def sinh(x):
    def back(dy):
        return (dy * np.conjugate(np.cosh(x)),)
    return np.sinh(x), back


@pushforward(np.sinh)
def sinh_push(y, x, *, dx):
    return dx * np.cosh(x)


@adjoint(np.cosh)
def cosh(x):
    def back(dy):
        return (dy * np.conjugate(np.sinh(x)),)
    return np.cosh(x), back


@pushforward(np.cosh)
def cosh_push(y, x, *, dx):
    return dx * np.sinh(x)


@adjoint(np.tanh)
def tanh(x):
    y = np.tanh(x)

    def back(dy):
        return (dy * np.conjugate(1.0 - y * y),)
    return y, back


@pushforward(np.tanh)
def tanh_push(y, x, *, dx):
    return dx * (1.0 - y * y)


@adjoint(np.arcsinh)
def arcsinh(x):
    def back(dy):
        return (dy / np.conjugate(np.sqrt(x * x + 1.0)),)
    return np.arcsinh(x), back


@pushforward(np.arcsinh)
def arcsinh_push(y, x, *, dx):
    return dx / np.sqrt(x * x + 1.0)


@adjoint(np.arccosh)
def arccosh(x):
    def back(dy):
        return (dy / np.conjugate(np.sqrt(x * x - 1.0)),)
    return np.arccosh(x), back


@pushforward(np.arccosh)
def arccosh_push(y, x, *, dx):
    return dx / np.sqrt(x * x - 1.0)


@adjoint(np.arctanh)
def arctanh(x):
    def back(dy):
        return (dy / np.conjugate(1.0 - x * x),)
    return np.arctanh(x), back


@pushforward(np.arctanh)
def arctanh_push(y, x, *, dx):
    return dx / (1.0 - x * x)


@adjoint(np.sinc)
def sinc(x):
    y = np.sinc(x)

    def back(dy):
        return (dy * np.conjugate(numpy_elementwise.sinc_slope(x, y)),)
    return y, back


@pushforward(np.sinc)
def sinc_push(y, x, *, dx):
    return dx * numpy_elementwise.sinc_slope(x, y)


def sinc_slope(x, y):
    """``sinc'(x) = (cos(pi x) - sinc(x)) / x`` for ``y = sinc(x)``. Near
    0, where that is 0 / 0, its Taylor series ``-pi^2 x / 3 + pi^4 x^3 /
    30`` (exact to rounding for ``|x| < 1e-3``), so that the slope's own
    derivative, a second derivative of ``sinc``, is right at 0 as well.
    Plain NumPy calls (no ``out=``, ``where=``): differentiable again."""
    small = np.abs(x) < 1e-3
    safe = np.where(small, 1.0, x)
    return np.where(small, x * (np.pi ** 4 / 30 * x * x - np.pi ** 2 / 3), (np.cos(np.pi * safe) - y) / safe)


@adjoint(np.deg2rad)
def deg2rad(x):
    def back(dy):
        return (dy * (math.pi / 180),)
    return np.deg2rad(x), back


@pushforward(np.deg2rad)
def deg2rad_push(y, x, *, dx):
    return dx * (math.pi / 180)


@adjoint(np.radians)
def radians(x):
    def back(dy):
        return (dy * (math.pi / 180),)
    return np.radians(x), back


@pushforward(np.radians)
def radians_push(y, x, *, dx):
    return dx * (math.pi / 180)


@adjoint(np.rad2deg)
def rad2deg(x):
    def back(dy):
        return (dy * (180 / math.pi),)
    return np.rad2deg(x), back


@pushforward(np.rad2deg)
def rad2deg_push(y, x, *, dx):
    return dx * (180 / math.pi)


@adjoint(np.degrees)
def degrees(x):
    def back(dy):
        return (dy * (180 / math.pi),)
    return np.degrees(x), back


@pushforward(np.degrees)
def degrees_push(y, x, *, dx):
    return dx * (180 / math.pi)


# -- absolute values, extrema, selection --------------------------------------


def unit(x, absx):
    """``np.sign(x)``, which is ``x / |x|`` (0 at 0) for a complex ``x``:
    written so for one, as np.sign has no derivative and ``x / |x|`` has
    one (the gradient of a complex ``|x|`` differentiated again).
    ``absx`` is ``np.abs(x)``."""
    if np.iscomplexobj(x):
        return x / np.where(absx == 0, 1, absx)
    return np.sign(x)


@adjoint(np.absolute)
def absolute(x):
    y = np.absolute(x)

    def back(dy):
        return (dy * numpy_elementwise.unit(x, y),)
    return y, back


@pushforward(np.absolute)
def absolute_push(y, x, *, dx):
    """``Re(conj(sign(x)) dx)``, with ``sign(x) == x / |x|`` (0 at 0) also for complex ``x``."""
    return np.real(dx * np.conjugate(np.sign(x)))


@adjoint(np.fabs)
def fabs(x):
    def back(dy):
        return (dy * np.sign(x),)
    return np.fabs(x), back


@pushforward(np.fabs)
def fabs_push(y, x, *, dx):
    return dx * np.sign(x)


@adjoint(np.copysign)
def copysign(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(dy * (np.sign(x1) * np.copysign(1.0, x2)), x1), None)
    return np.copysign(x1, x2), back


@pushforward(np.copysign)
def copysign_push(y, x1, x2, *, dx1):
    return runtime.shaped(dx1 * (np.sign(x1) * np.copysign(1.0, x2)), y)


# -- mantissas and exponents --------------------------------------------------


@adjoint(np.ldexp)
def ldexp(x1, x2):
    def back(dy):
        return (runtime.unbroadcast(np.ldexp(dy, x2), x1), None)  # dy * 2**x2, exactly
    return np.ldexp(x1, x2), back


@pushforward(np.ldexp)
def ldexp_push(y, x1, x2, *, dx1):
    return runtime.shaped(np.ldexp(dx1, x2), y)


@adjoint(np.frexp)
def frexp(x):
    y = np.frexp(x)

    def back(dy):
        dm = dy[0]  # the exponent is an integer
        return (None if dm is None else np.ldexp(dm, -y[1]),)
    return y, back


@pushforward(np.frexp)
def frexp_push(y, x, *, dx):
    return (np.ldexp(dx, -y[1]), None)


@adjoint(np.modf)
def modf(x):
    def back(dy):
        return (dy[0],)  # the whole part is piecewise constant
    return np.modf(x), back


@pushforward(np.modf)
def modf_push(y, x, *, dx):
    return (dx, None)


def first_share(dy, x1, x2, y):
    """The part of ``dy`` that goes to ``x1`` in ``y = maximum(x1, x2)``
    (or minimum, fmax, fmin): all of it where ``x1`` was picked, half where
    the two tie, none elsewhere."""
    tie = np.equal(x1, x2)
    if arrays.is_foreign(tie) or tie.any():  # (testing a Dask array's ties would compute them)
        return dy * (np.equal(x1, y) - 0.5 * tie)
    return dy * np.equal(x1, y)


@adjoint(np.maximum)
def maximum(x1, x2):
    y = np.maximum(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@pushforward(np.maximum)
def maximum_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(np.where(np.equal(x1, x2), 0.5 * (dx1 + dx2), np.where(np.equal(x1, y), dx1, dx2)), y)


@adjoint(np.minimum)
def minimum(x1, x2):
    y = np.minimum(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@pushforward(np.minimum)
def minimum_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(np.where(np.equal(x1, x2), 0.5 * (dx1 + dx2), np.where(np.equal(x1, y), dx1, dx2)), y)


@adjoint(np.fmax)
def fmax(x1, x2):
    y = np.fmax(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@pushforward(np.fmax)
def fmax_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(np.where(np.equal(x1, x2), 0.5 * (dx1 + dx2), np.where(np.equal(x1, y), dx1, dx2)), y)


@adjoint(np.fmin)
def fmin(x1, x2):
    y = np.fmin(x1, x2)

    def back(dy):
        d1 = numpy_elementwise.first_share(dy, x1, x2, y)
        return (runtime.unbroadcast(d1, x1), runtime.unbroadcast(dy - d1, x2))
    return y, back


@pushforward(np.fmin)
def fmin_push(y, x1, x2, *, dx1, dx2):
    return runtime.shaped(np.where(np.equal(x1, x2), 0.5 * (dx1 + dx2), np.where(np.equal(x1, y), dx1, dx2)), y)


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


@pushforward(np.clip)
def clip_push(y, a, a_min=None, a_max=None, *, da, da_min, da_max):
    """The mean of the tangents of those of ``a``, ``a_min``, ``a_max`` equal to the output
    (``np.equal(None, y)`` is all False)."""
    on_a = np.equal(a, y)
    on_min = np.equal(a_min, y)
    on_max = np.equal(a_max, y)
    ties = np.maximum(on_a.astype(int) + on_min + on_max, 1)
    return runtime.shaped((da * on_a + da_min * on_min + da_max * on_max) / ties, y)


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


@pushforward(np.ndarray.clip)
def ndarray_clip_push(y, a, min=None, max=None, *, da, dmin, dmax):
    on_a = np.equal(a, y)
    on_min = np.equal(min, y)
    on_max = np.equal(max, y)
    ties = np.maximum(on_a.astype(int) + on_min + on_max, 1)
    return runtime.shaped((da * on_a + dmin * on_min + dmax * on_max) / ties, y)


@adjoint(np.where)
def where(condition, x, y):
    def back(dout):
        return (
            None,
            runtime.unbroadcast(np.where(condition, dout, 0), x),
            runtime.unbroadcast(np.where(condition, 0, dout), y),
        )
    return np.where(condition, x, y), back


@pushforward(np.where)
def where_push(out, condition, x, y, *, dx, dy):
    """(The output is ``out`` here, as ``y`` is an operand.)"""
    return runtime.shaped(np.where(condition, dx, dy), out)


# -- complex parts, fills -------------------------------------------------------


@adjoint(np.real)
def real(val):
    def back(dy):
        if np.iscomplexobj(val):
            return (runtime.unbroadcast(dy, val),)  # made complex, with a 0 imaginary part
        return (dy,)
    return np.real(val), back


@pushforward(np.real)
def real_push(y, val, *, dval):
    return np.real(dval)


@adjoint(np.imag)
def imag(val):
    def back(dy):
        if np.iscomplexobj(val):
            return (np.multiply(1j, dy),)  # a ufunc: also makes a sparse dy dense, and complex
        return (0.0 * dy,)  # the imaginary part of a real array is constant
    return np.imag(val), back


@pushforward(np.imag)
def imag_push(y, val, *, dval):
    return np.imag(dval)


@adjoint(np.angle)
def angle(z, deg=False):
    def back(dy):
        if not np.iscomplexobj(z):
            return (0.0 * dy, None)  # 0 or pi: piecewise constant
        r2 = (z * np.conjugate(z)).real
        turn = np.multiply(1j, z) / np.where(r2 == 0, 1.0, r2)  # 1j / conj(z), and 0 at z == 0
        return (runtime.unbroadcast(dy * (turn * (180 / math.pi if deg else 1.0)), z), None)
    return np.angle(z, deg), back


@pushforward(np.angle)
def angle_push(y, z, deg=False, *, dz):
    """``Im(dz / z)``, as ``Im(conj(z) dz) / |z|**2`` (0 at ``z == 0``, and for real ``z``)."""
    r2 = np.real(z * np.conjugate(z))
    slope = np.imag(np.conjugate(z) * dz) / np.where(r2 == 0, 1.0, r2)
    return runtime.shaped(slope * np.where(deg, 180 / math.pi, 1.0), y)


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


@pushforward(np.nan_to_num)
def nan_to_num_push(y, x, copy=True, nan=0.0, posinf=None, neginf=None, *, dx, dnan, dposinf, dneginf):
    return runtime.shaped(
        numpy_elementwise.where_finite(dx, x)
        + numpy_elementwise.placed(dnan, x, np.isnan)
        + numpy_elementwise.placed(dposinf, x, np.isposinf)
        + numpy_elementwise.placed(dneginf, x, np.isneginf),
        y,
    )


def filled(dy, x, picks):
    """``dy`` at the places of ``x`` that ``picks`` (``np.isnan``,
    ``np.isposinf``...) selects, 0 elsewhere: the gradient of the value
    ``nan_to_num`` puts there, before it is summed to that value's shape.
    A complex ``x``'s real and imaginary parts count apart."""
    if np.iscomplexobj(x):
        return np.real(dy) * picks(np.real(x)) + np.imag(dy) * picks(np.imag(x))
    return dy * picks(x)


def where_finite(dx, x):
    """``dx`` where ``x`` is finite and 0 where ``nan_to_num`` replaces it
    (a complex ``x``'s real and imaginary parts apart)."""
    if np.iscomplexobj(x):
        return np.real(dx) * np.isfinite(np.real(x)) + 1j * (np.imag(dx) * np.isfinite(np.imag(x)))
    return dx * np.isfinite(x)


def placed(d, x, picks):
    """The tangent ``d`` of a value ``nan_to_num`` puts at the places of
    ``x`` that ``picks`` selects, there, and 0 elsewhere (the transpose of
    :func:`filled`)."""
    if np.iscomplexobj(x):
        return d * picks(np.real(x)) + 1j * (d * picks(np.imag(x)))
    return d * picks(x)


@adjoint(np.conjugate)
def conjugate(x):
    def back(dy):
        return (np.conjugate(dy),)
    return np.conjugate(x), back


@pushforward(np.conjugate)
def conjugate_push(y, x, *, dx):
    return np.conjugate(dx)


@adjoint(np.ndarray.conj)
def ndarray_conj(a):
    def back(dy):
        return (np.conjugate(dy),)
    return np.ndarray.conj(a), back


@pushforward(np.ndarray.conj)
def ndarray_conj_push(y, a, *, da):
    return da.conj()


@adjoint(np.ndarray.conjugate)
def ndarray_conjugate(a):
    def back(dy):
        return (np.conjugate(dy),)
    return np.ndarray.conjugate(a), back


@pushforward(np.ndarray.conjugate)
def ndarray_conjugate_push(y, a, *, da):
    return np.conjugate(da)


@adjoint(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    def back(dy):
        return (None, runtime.unbroadcast(dy, fill_value), None, None, None, None)
    return np.full_like(a, fill_value, dtype, order, subok, shape), back


@pushforward(np.full_like)
def full_like_push(y, a, fill_value, dtype=None, order="K", subok=True, shape=None, *, dfill_value):
    return runtime.shaped(dfill_value, y)
