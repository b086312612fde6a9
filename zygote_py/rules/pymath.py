"""Rules for the :mod:`math` module (Python 3.11): every function with a
derivative has a rule, every other one is registered non-differentiable.

Conventions where a derivative is infinite, undefined or a kink — a rule
never raises there, since the program may not want that gradient at all:

- ``sqrt``, ``cbrt`` at 0, ``asin``, ``acos`` at ±1, ``acosh`` at 1: the
  one-sided slope, ``±inf`` (times ``dy``); so is ``pow(0, b)`` for
  ``0 < b < 1``.
- ``fabs`` and ``copysign``'s magnitude at 0: gradient 0 (``sign(0) == 0``,
  as JAX and PyTorch); ``hypot`` and ``dist`` at the origin, ``atan2`` at
  ``(0, 0)``: gradient 0 likewise.
- ``pow(a, b)``: the exponent gets ``None`` when it is an ``int``;
  otherwise ``d/db = y * log(a)`` for ``a > 0``, ``0`` for ``a == 0 < b``,
  and ``nan`` for ``a < 0``.
- ``copysign(x, y)``: only the magnitude ``x`` gets a gradient.
- ``fmod(a, b)`` and ``remainder(a, b)`` are ``a - n * b`` for an integer
  ``n``: ``d/da = 1``, ``d/db = -n``.
- ``ldexp(x, i)``: the integer ``i`` gets ``None``.
- ``frexp(x) == (m, e)`` and ``modf(x) == (frac, whole)`` are
  differentiable, taking a ``(dm, de)`` or ``(dfrac, dwhole)`` cotangent:
  the mantissa ``m == x * 2 ** -e`` has slope ``2 ** -e`` and the fractional
  part ``x - trunc(x)`` slope 1 between their jumps; ``e`` and ``whole`` are
  piecewise constant.
- ``nextafter(x, y)`` is ``x`` moved by one ulp: slope 1 in ``x`` (as finite
  differences see it), none in ``y``.
- ``prod(iterable, start=s)``: ``start`` is keyword-only, so, like every
  keyword argument under the rule contract, it gets no gradient.
- ``gamma`` and ``lgamma`` need the digamma function ψ, which :mod:`math`
  lacks; :func:`digamma` here supplies it.
- Iterable arguments (``dist``, ``prod``, ``fsum``) get a gradient of their
  type when they are a tuple or a list, else a list in iteration order.

Each rule has a pushforward (forward-mode) counterpart ``<name>_push`` with
the same conventions, except none. ``log_push`` takes ``base=math.e``
rather than ``*base``, so that a base without a tangent drops its term.

Non-differentiable (integer- or boolean-valued, or piecewise constant):
``floor ceil trunc isfinite isinf isnan isclose comb perm factorial gcd lcm
isqrt ulp``.

Skipped: none in Python 3.11. :data:`SKIPPED` lists, with the reason, any
public function of :mod:`math` deliberately left without an entry, so the
completeness test notices the functions a newer Python adds.
"""
import itertools
import math

# The rules below call this module's digamma by its qualified name, as they
# call math.cos, so that the compiler can inline them.
from zygote_py import runtime
from zygote_py.rules import pymath

from ..registry import adjoint, nondifferentiable, pushforward

SKIPPED: dict[str, str] = {}

nondifferentiable(
    math.floor, math.ceil, math.trunc, math.isfinite, math.isinf, math.isnan,
    math.isclose, math.comb, math.perm, math.factorial, math.gcd, math.lcm,
    math.isqrt, math.ulp,
)


def digamma(x: float) -> float:
    """ψ(x) = Γ'(x) / Γ(x) for real ``x`` that is not 0 or a negative
    integer (where Γ has poles; ``nan`` there, and at ``-inf``).

    Negative ``x`` by the reflection ψ(1 - x) - ψ(x) = π cot(πx); otherwise
    the recurrence ψ(x) = ψ(x + 1) - 1/x lifts ``x`` to at least 10, where
    the asymptotic series ln x - 1/(2x) - Σ B₂ₖ / (2k x²ᵏ) taken to x⁻¹²
    is accurate to about 1e-15.
    """
    if math.isinf(x):
        return x if x > 0 else math.nan
    if x <= 0 and x == math.floor(x):
        return math.nan
    if x < 0:
        return digamma(1 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 10:
        shift -= 1 / x
        x += 1
    t = 1 / (x * x)
    tail = t * (1 / 12 - t * (1 / 120 - t * (1 / 252 - t * (
        1 / 240 - t * (1 / 132 - t * 691 / 32760)))))
    return shift + math.log(x) - 0.5 / x - tail


@adjoint(math.sin)
def sin(x):
    def back(dy):
        return (dy * math.cos(x),)
    return math.sin(x), back


@pushforward(math.sin)
def sin_push(y, x, *, dx):
    return dx * math.cos(x)


@adjoint(math.cos)
def cos(x):
    def back(dy):
        return (-dy * math.sin(x),)
    return math.cos(x), back


@pushforward(math.cos)
def cos_push(y, x, *, dx):
    return -dx * math.sin(x)


@adjoint(math.tan)
def tan(x):
    y = math.tan(x)

    def back(dy):
        return (dy * (1 + y * y),)
    return y, back


@pushforward(math.tan)
def tan_push(y, x, *, dx):
    return dx * (1 + y * y)


@adjoint(math.asin)
def asin(x):
    def back(dy):
        d = math.sqrt((1 - x) * (1 + x))
        return (dy / d if d else dy * math.inf,)
    return math.asin(x), back


@pushforward(math.asin)
def asin_push(y, x, *, dx):
    d = math.sqrt((1 - x) * (1 + x))
    return dx / d if d else dx * math.inf


@adjoint(math.acos)
def acos(x):
    def back(dy):
        d = math.sqrt((1 - x) * (1 + x))
        return (-dy / d if d else -dy * math.inf,)
    return math.acos(x), back


@pushforward(math.acos)
def acos_push(y, x, *, dx):
    d = math.sqrt((1 - x) * (1 + x))
    return -dx / d if d else -dx * math.inf


@adjoint(math.atan)
def atan(x):
    def back(dy):
        return (dy / (1 + x * x),)
    return math.atan(x), back


@pushforward(math.atan)
def atan_push(y, x, *, dx):
    return dx / (1 + x * x)


@adjoint(math.atan2)
def atan2(a, b):
    """``atan2(a, b)``: the angle of the point ``(b, a)``."""
    def back(dy):
        r = math.hypot(a, b)
        if r == 0:
            return (0.0 * dy, 0.0 * dy)
        return (dy * b / r / r, -dy * a / r / r)
    return math.atan2(a, b), back


@pushforward(math.atan2)
def atan2_push(y, a, b, *, da, db):
    r = math.hypot(a, b)
    return (da * b - db * a) / r / r if r else 0.0


@adjoint(math.sinh)
def sinh(x):
    def back(dy):
        return (dy * math.cosh(x),)
    return math.sinh(x), back


@pushforward(math.sinh)
def sinh_push(y, x, *, dx):
    return dx * math.cosh(x)


@adjoint(math.cosh)
def cosh(x):
    def back(dy):
        return (dy * math.sinh(x),)
    return math.cosh(x), back


@pushforward(math.cosh)
def cosh_push(y, x, *, dx):
    return dx * math.sinh(x)


@adjoint(math.tanh)
def tanh(x):
    y = math.tanh(x)

    def back(dy):
        return (dy * (1 - y * y),)
    return y, back


@pushforward(math.tanh)
def tanh_push(y, x, *, dx):
    return dx * (1 - y * y)


@adjoint(math.asinh)
def asinh(x):
    def back(dy):
        return (dy / math.sqrt(x * x + 1),)
    return math.asinh(x), back


@pushforward(math.asinh)
def asinh_push(y, x, *, dx):
    return dx / math.sqrt(x * x + 1)


@adjoint(math.acosh)
def acosh(x):
    def back(dy):
        d = math.sqrt((x - 1) * (x + 1))
        return (dy / d if d else dy * math.inf,)
    return math.acosh(x), back


@pushforward(math.acosh)
def acosh_push(y, x, *, dx):
    d = math.sqrt((x - 1) * (x + 1))
    return dx / d if d else dx * math.inf


@adjoint(math.atanh)
def atanh(x):
    def back(dy):
        return (dy / ((1 - x) * (1 + x)),)
    return math.atanh(x), back


@pushforward(math.atanh)
def atanh_push(y, x, *, dx):
    return dx / ((1 - x) * (1 + x))


@adjoint(math.exp)
def exp(x):
    y = math.exp(x)

    def back(dy):
        return (dy * y,)
    return y, back


@pushforward(math.exp)
def exp_push(y, x, *, dx):
    return dx * y


@adjoint(math.exp2)
def exp2(x):
    y = math.exp2(x)

    def back(dy):
        return (dy * y * math.log(2),)
    return y, back


@pushforward(math.exp2)
def exp2_push(y, x, *, dx):
    return dx * y * math.log(2)


@adjoint(math.expm1)
def expm1(x):
    def back(dy):
        return (dy * math.exp(x),)
    return math.expm1(x), back


@pushforward(math.expm1)
def expm1_push(y, x, *, dx):
    return dx * math.exp(x)


@adjoint(math.log)
def log(x, base=math.e):
    y = math.log(x, base)  # (math.log(e) is exactly 1: the same value as math.log(x))

    def back(dy):
        log_base = math.log(base)
        return (dy / (x * log_base), -dy * y / (base * log_base))
    return y, back


@pushforward(math.log)
def log_push(y, x, base=math.e, *, dx, dbase):
    # (base=math.e rather than *base, so that a base without a tangent drops its term)
    return (dx / x - dbase * y / base) / math.log(base)


@adjoint(math.log2)
def log2(x):
    def back(dy):
        return (dy / (x * math.log(2)),)
    return math.log2(x), back


@pushforward(math.log2)
def log2_push(y, x, *, dx):
    return dx / (x * math.log(2))


@adjoint(math.log10)
def log10(x):
    def back(dy):
        return (dy / (x * math.log(10)),)
    return math.log10(x), back


@pushforward(math.log10)
def log10_push(y, x, *, dx):
    return dx / (x * math.log(10))


@adjoint(math.log1p)
def log1p(x):
    def back(dy):
        return (dy / (1 + x),)
    return math.log1p(x), back


@pushforward(math.log1p)
def log1p_push(y, x, *, dx):
    return dx / (1 + x)


@adjoint(math.sqrt)
def sqrt(x):
    y = math.sqrt(x)

    def back(dy):
        return (dy / (2 * y) if y else dy * math.inf,)
    return y, back


@pushforward(math.sqrt)
def sqrt_push(y, x, *, dx):
    return dx / (2 * y) if y else dx * math.inf


@adjoint(math.cbrt)
def cbrt(x):
    y = math.cbrt(x)

    def back(dy):
        return (dy / (3 * y * y) if y else dy * math.inf,)
    return y, back


@pushforward(math.cbrt)
def cbrt_push(y, x, *, dx):
    return dx / (3 * y * y) if y else dx * math.inf


@adjoint(math.pow)
def pow_(a, b):
    y = math.pow(a, b)

    def back(dy):
        if b == 0:
            da = dy * b  # y is the constant 1, even at a == 0
        elif a == 0 and b < 1:
            da = dy * math.inf  # the slope of a ** b at 0 when 0 < b < 1
        else:
            da = dy * b * math.pow(a, b - 1)
        if isinstance(b, int):
            return (da, None)
        if a > 0:
            return (da, dy * y * math.log(a))
        if a == 0 and b > 0:
            return (da, 0.0 * dy)
        return (da, dy * math.nan)  # log(a) is undefined
    return y, back


@pushforward(math.pow)
def pow_push(y, a, b, *, da, db):
    """The slopes of ``pow_``'s pullback; a zero tangent adds nothing, not ``0 * inf`` or ``0 * nan``."""
    # (called at run time, where zero tangents are concrete)
    dy = 0.0
    if da and b != 0:  # (b == 0: y is the constant 1, even at a == 0)
        dy = da * math.inf if a == 0 and b < 1 else da * b * math.pow(a, b - 1)
    if db and a > 0:
        dy = dy + db * y * math.log(a)
    elif db and not (a == 0 and b > 0):
        dy = dy + db * math.nan  # log(a) is undefined
    return dy


@adjoint(math.fabs)
def fabs(x):
    def back(dy):
        if x > 0:
            return (dy,)
        if x < 0:
            return (-dy,)
        # x is 0 (gradient 0) or nan (gradient nan)
        return (dy * x,)
    return math.fabs(x), back


@pushforward(math.fabs)
def fabs_push(y, x, *, dx):
    return dx if x > 0 else -dx if x < 0 else dx * x


@adjoint(math.hypot)
def hypot(*coordinates):
    y = math.hypot(*coordinates)

    def back(dy):
        scale = dy / y if y else 0.0 * dy
        return tuple(scale * c for c in coordinates)
    return y, back


@pushforward(math.hypot)
def hypot_push(y, *coordinates, dcoordinates):
    if not y:
        return 0.0
    return sum(c * t for c, t in zip(coordinates, dcoordinates) if t) / y


@adjoint(math.dist)
def dist(p, q):
    p_items = p if isinstance(p, (tuple, list)) else list(p)
    q_items = q if isinstance(q, (tuple, list)) else list(q)
    y = math.dist(p_items, q_items)

    def back(dy):
        scale = dy / y if y else 0.0 * dy
        dp = [scale * (a - b) for a, b in zip(p_items, q_items)]
        dq = [-g for g in dp]
        return (
            tuple(dp) if isinstance(p, tuple) else dp,
            tuple(dq) if isinstance(q, tuple) else dq,
        )
    return y, back


@pushforward(math.dist)
def dist_push(y, p, q, *, dp, dq):
    """Called at run time, where an item's tangent, or an iterator's, may be ``None``."""
    if not y:
        return 0.0
    p, q = runtime.items_read(p, dp), runtime.items_read(q, dq)  # (iterators: the primal call has read them)
    dp = itertools.repeat(None) if dp is None else dp
    dq = itertools.repeat(None) if dq is None else dq
    return sum((a - b) * ((s or 0.0) - (t or 0.0)) for a, b, s, t in zip(p, q, dp, dq)) / y


@adjoint(math.erf)
def erf(x):
    def back(dy):
        return (dy * 2 / math.sqrt(math.pi) * math.exp(-x * x),)
    return math.erf(x), back


@pushforward(math.erf)
def erf_push(y, x, *, dx):
    return dx * 2 / math.sqrt(math.pi) * math.exp(-x * x)


@adjoint(math.erfc)
def erfc(x):
    def back(dy):
        return (-dy * 2 / math.sqrt(math.pi) * math.exp(-x * x),)
    return math.erfc(x), back


@pushforward(math.erfc)
def erfc_push(y, x, *, dx):
    return -dx * 2 / math.sqrt(math.pi) * math.exp(-x * x)


@adjoint(math.gamma)
def gamma(x):
    y = math.gamma(x)

    def back(dy):
        return (dy * y * pymath.digamma(x),)
    return y, back


@pushforward(math.gamma)
def gamma_push(y, x, *, dx):
    return dx * y * pymath.digamma(x)


@adjoint(math.lgamma)
def lgamma(x):
    def back(dy):
        return (dy * pymath.digamma(x),)
    return math.lgamma(x), back


@pushforward(math.lgamma)
def lgamma_push(y, x, *, dx):
    return dx * pymath.digamma(x)


@adjoint(math.degrees)
def degrees(x):
    def back(dy):
        return (math.degrees(dy),)
    return math.degrees(x), back


@pushforward(math.degrees)
def degrees_push(y, x, *, dx):
    return math.degrees(dx)


@adjoint(math.radians)
def radians(x):
    def back(dy):
        return (math.radians(dy),)
    return math.radians(x), back


@pushforward(math.radians)
def radians_push(y, x, *, dx):
    return math.radians(dx)


@adjoint(math.copysign)
def copysign(a, b):
    def back(dy):
        if a == 0:
            return (0.0 * dy, None)
        if math.copysign(1, a) == math.copysign(1, b):
            return (dy, None)
        return (-dy, None)
    return math.copysign(a, b), back


@pushforward(math.copysign)
def copysign_push(y, a, b, *, da):
    """``da * sign(a) * sign(b)``, 0 at ``a == 0``."""
    return da * math.copysign(1.0, a) * math.copysign(1.0, b) * (a != 0)


@adjoint(math.fmod)
def fmod(a, b):
    y = math.fmod(a, b)

    def back(dy):
        # -dy * n, n = (a - y) / b; b is 0 here only when a or b is nan
        return (dy, -dy * (a - y) / b if b else dy * math.nan)
    return y, back


@pushforward(math.fmod)
def fmod_push(y, a, b, *, da, db):
    # -db * n, n = (a - y) / b; b is 0 here only when a or b is nan
    return da - db * (a - y) / b if b else da + db * math.nan


@adjoint(math.remainder)
def remainder(a, b):
    y = math.remainder(a, b)

    def back(dy):
        # -dy * n, n = (a - y) / b; b is 0 here only when a or b is nan
        return (dy, -dy * (a - y) / b if b else dy * math.nan)
    return y, back


@pushforward(math.remainder)
def remainder_push(y, a, b, *, da, db):
    # -db * n, n = (a - y) / b; b is 0 here only when a or b is nan
    return da - db * (a - y) / b if b else da + db * math.nan


@adjoint(math.ldexp)
def ldexp(x, i):
    def back(dy):
        return (math.ldexp(dy, i), None)
    return math.ldexp(x, i), back


@pushforward(math.ldexp)
def ldexp_push(y, x, i, *, dx):
    return math.ldexp(dx, i)


@adjoint(math.frexp)
def frexp(x):
    y = math.frexp(x)

    def back(dy):
        dm = dy[0]
        return (None if dm is None else math.ldexp(dm, -y[1]),)
    return y, back


@pushforward(math.frexp)
def frexp_push(y, x, *, dx):
    return (math.ldexp(dx, -y[1]), None)


@adjoint(math.modf)
def modf(x):
    def back(dy):
        return (dy[0],)
    return math.modf(x), back


@pushforward(math.modf)
def modf_push(y, x, *, dx):
    return (dx, None)


@adjoint(math.nextafter)
def nextafter(x, toward):
    def back(dy):
        return (dy, None)
    return math.nextafter(x, toward), back


@pushforward(math.nextafter)
def nextafter_push(y, x, toward, *, dx):
    return dx


@adjoint(math.prod)
def prod(iterable, *, start=1):
    items, first = runtime.take(iterable)
    y = math.prod(items, start=start)

    def back(dy):
        # Each factor's gradient is the product of all the others, formed
        # from prefix and suffix products so that no factor is divided out
        # (it may be 0).
        prefix = [start]
        for v in items[:-1]:
            prefix.append(prefix[-1] * v)
        grads = [None] * len(items)
        suffix = dy
        for i in range(len(items) - 1, -1, -1):
            grads[i] = prefix[i] * suffix
            suffix = suffix * items[i]
        return (runtime.like_iterable(iterable, grads, first),)
    return y, back


@pushforward(math.prod)
def prod_push(y, iterable, *, start=1, diterable):
    """The product rule, factor by factor: no factor is divided out (it may be 0)."""
    if diterable is None:
        return 0.0
    p, dy = start, 0.0
    for v, dv in zip(runtime.items_read(iterable, diterable), diterable):
        dy = dy * v + (p * dv if dv else 0.0)
        p = p * v
    return dy


@adjoint(math.fsum)
def fsum(iterable):
    items, first = runtime.take(iterable)

    def back(dy):
        return (runtime.like_iterable(iterable, runtime.repeated(dy, len(items)), first),)
    return math.fsum(items), back


@pushforward(math.fsum)
def fsum_push(y, iterable, *, diterable):
    return math.fsum(t for t in (() if diterable is None else diterable) if t)
