"""Rules for :mod:`scipy.special`'s gamma, beta and error functions.

Imported into the built-in layer once the user has imported
``scipy.special`` (see :func:`registry.when_imported`).

Differentiable: ``gammaln loggamma gamma rgamma digamma (psi) polygamma
betaln beta erf erfc erfinv erfcinv ndtr log_ndtr ndtri gammainc
gammaincc betainc betaincc stdtr stdtrit poch`` and ``multigammaln`` (through its formula, a sum of
``gammaln``). ``gammasgn``, the sign of ``gamma``, is piecewise constant:
no gradient.

Each derivative is a special function with a rule of its own, so every
rule can be differentiated again, to any order: ``gammaln' = digamma``,
``digamma' = polygamma(1, .)``, ``polygamma(n, .)' = polygamma(n + 1,
.)``; the error functions' derivatives are Gaussians.

Conventions:

- Real arguments. ``gamma erf erfc ndtr log_ndtr`` also take complex ones
  and are holomorphic there: their gradient is ``dy`` times the conjugate
  of the derivative, as for NumPy's functions (``digamma``'s derivative,
  ``polygamma``, is real only).
- Integer orders get no gradient: ``n`` of ``polygamma(n, x)``, ``d`` of
  ``multigammaln(a, d)``.
- ``log_ndtr(x)``: the derivative ``exp(-x**2 / 2 - log_ndtr(x)) /
  sqrt(2 pi)`` is formed in logarithms, so it stays finite (about ``-x``)
  for very negative ``x``, where ``ndtr`` underflows.
- ``erfinv``, ``erfcinv``, ``ndtri`` are differentiated through their
  output (``erfinv' = sqrt(pi) / 2 * exp(y**2)``): ``inf`` at the ends of
  their domain, where the output is infinite.
- At the poles of ``gamma`` and ``gammaln`` (0, -1, -2...) the
  derivatives are ``inf`` or ``nan``, as the functions are. ``rgamma =
  1 / gamma`` is entire: its slope ``-rgamma(x) digamma(x)`` is formed, for
  ``x <= 1/2``, by the reflection formula as ``gamma(1 - x) (cos(pi x) -
  digamma(1 - x) sin(pi x) / pi)`` (:func:`rgamma_slope`), finite at the
  poles of ``gamma`` (``(-1)**n n!`` at ``-n``), at every order.
- ``loggamma(x)`` for real ``x`` is ``gammaln(x)`` for ``x > 0`` (``nan``
  for ``x < 0``): slope ``digamma(x)``. Complex arguments (the principal
  branch of log-gamma, holomorphic) get the conjugate of ``digamma`` at
  first order; higher orders need ``polygamma`` of complex numbers, which
  SciPy lacks.
- ``gammainc(a, x)`` and ``gammaincc(a, x)`` (the regularized incomplete
  gamma functions), ``betainc(a, b, x)`` and ``betaincc(a, b, x)`` (the
  incomplete beta functions) and ``stdtr(df, t)`` (Student's t
  distribution function) are differentiated in their last argument only:
  ``d/dx gammainc(a, x) = x**(a - 1) exp(-x) / gamma(a)``. ``stdtrit(df,
  p)``, the inverse of ``stdtr`` in ``t``, is differentiated in ``p``
  through its output: ``1 / stdtr'(df, t)``. Their
  derivatives in the shape parameters (``a``, ``b``, ``df``) have no
  closed form: those gradients (tangents) are ``nan`` wherever the
  cotangent (the tangent) is not 0, so that a loss depending on them
  through a shape parameter shows it instead of getting a wrong number,
  while a constant shape parameter, the common case, gets 0 or nothing
  and brings no ``nan`` into other gradients, at any order. The last argument's derivative at ``x == 0`` is the
  limit from the right: ``inf`` for ``a < 1``.
- ``factorial(n)`` is ``gamma(n + 1)`` for ``n >= 0`` and 0 below (SciPy's
  ``extend="zero"``), differentiated through that formula; ``exact=True``
  (integers) has no gradient, ``extend="complex"`` is refused.
- ``poch(z, m) == gamma(z + m) / gamma(z)``: ``z`` gets ``poch (digamma(z
  + m) - digamma(z))``, ``m`` gets ``poch digamma(z + m)``.
- ``betaln(a, b)``, ``beta(a, b)``, and the two-argument functions above,
  broadcast: each gradient is summed down to its argument's shape.
"""
import math

import numpy as np
import scipy.special

from zygote_py import errors, runtime
from zygote_py.rules import scipy_gamma

from ..registry import adjoint, implemented_by, nondifferentiable, pushforward

# --------------------------------------------------------------------------
# Helpers


def gammainc_slope(a, x):
    """``d/dx gammainc(a, x)``, the gamma density ``x**(a - 1) exp(-x) /
    gamma(a)``, formed in logarithms (no overflow for large ``a``); 0 where
    ``x <= 0`` and ``a > 1``, its limit."""
    positive = np.greater(x, 0)
    safe = np.where(positive, x, 1.0)
    inner = np.exp((a - 1.0) * np.log(safe) - safe - scipy.special.gammaln(a))
    at_zero = np.where(np.greater(a, 1.0), 0.0, np.where(np.equal(a, 1.0), 1.0, np.inf))
    return np.where(positive, inner, np.where(np.equal(x, 0), at_zero, np.nan))


def betainc_slope(a, b, x):
    """``d/dx betainc(a, b, x)``, the beta density ``x**(a - 1) (1 - x)**(b
    - 1) / beta(a, b)``, formed in logarithms; ``nan`` outside ``[0, 1]``
    and the one-sided limits at its ends."""
    inside = np.logical_and(np.greater(x, 0), np.less(x, 1))
    safe = np.where(inside, x, 0.5)
    inner = np.exp((a - 1.0) * np.log(safe) + (b - 1.0) * np.log1p(-safe) - scipy.special.betaln(a, b))
    at_zero = np.where(np.greater(a, 1.0), 0.0, np.where(np.equal(a, 1.0), 1.0 / scipy.special.beta(a, b), np.inf))
    at_one = np.where(np.greater(b, 1.0), 0.0, np.where(np.equal(b, 1.0), 1.0 / scipy.special.beta(a, b), np.inf))
    edge = np.where(np.equal(x, 0), at_zero, np.where(np.equal(x, 1), at_one, np.nan))
    return np.where(inside, inner, edge)


def stdtr_slope(df, t):
    """``d/dt stdtr(df, t)``, Student's t density with ``df`` degrees of
    freedom (the normal density for ``df == inf``)."""
    finite = np.where(np.isinf(df), 1.0, df)
    log_t = (scipy.special.gammaln((finite + 1.0) / 2) - scipy.special.gammaln(finite / 2)
             - 0.5 * np.log(finite * math.pi) - (finite + 1.0) / 2 * np.log1p(t * t / finite))
    return np.exp(np.where(np.isinf(df), -0.5 * t * t - 0.5 * math.log(2 * math.pi), log_t))


def no_slope(t):
    """The gradient (tangent) a shape parameter gets for the cotangent
    (its own tangent) ``t``, where its derivative has no closed form here:
    ``nan`` where ``t`` is not 0, and 0 where it is, so that a concrete zero
    (a constant shape parameter, a nested derivative's unused output)
    brings no ``nan`` (see the module's docstring). Constant in ``t``: a
    derivative of it is 0, never ``nan``."""
    return np.where(np.equal(t, 0), 0.0, np.nan)


# --------------------------------------------------------------------------
# Gamma and beta functions


@adjoint(scipy.special.gammaln)
def gammaln(x):
    def back(dy):
        return (dy * scipy.special.digamma(x),)
    return scipy.special.gammaln(x), back


@pushforward(scipy.special.gammaln)
def gammaln_push(y, x, *, dx):
    return dx * scipy.special.digamma(x)


@adjoint(scipy.special.gamma)
def gamma(x):
    y = scipy.special.gamma(x)

    def back(dy):
        return (dy * np.conjugate(y * scipy.special.digamma(x)),)
    return y, back


@pushforward(scipy.special.gamma)
def gamma_push(y, x, *, dx):
    return dx * (y * scipy.special.digamma(x))


@adjoint(scipy.special.loggamma)
def loggamma(x):
    def back(dy):
        return (dy * np.conjugate(scipy.special.digamma(x)),)
    return scipy.special.loggamma(x), back


@pushforward(scipy.special.loggamma)
def loggamma_push(y, x, *, dx):
    return dx * scipy.special.digamma(x)


def rgamma_slope(x):
    """``d/dx (1 / gamma(x)) = -rgamma(x) digamma(x)`` for ``x > 1/2``; by
    the reflection formula ``1 / gamma(x) = gamma(1 - x) sin(pi x) / pi``,
    ``gamma(1 - x) (cos(pi x) - digamma(1 - x) sin(pi x) / pi)`` for ``x <=
    1/2``, where ``digamma(x)`` has its poles (``rgamma`` has none). Each
    branch sees a safe argument, so that neither warns nor brings ``nan``
    into the higher orders."""
    right = np.greater(x, 0.5)
    xr = np.where(right, x, 1.0)
    xl = np.where(right, 0.0, x)
    reflected = scipy.special.gamma(1.0 - xl) * (
        np.cos(math.pi * xl) - scipy.special.digamma(1.0 - xl) * np.sin(math.pi * xl) / math.pi)
    return np.where(right, -scipy.special.rgamma(xr) * scipy.special.digamma(xr), reflected)


@adjoint(scipy.special.rgamma)
def rgamma(x):
    def back(dy):
        return (dy * scipy_gamma.rgamma_slope(x),)
    return scipy.special.rgamma(x), back


@pushforward(scipy.special.rgamma)
def rgamma_push(y, x, *, dx):
    return dx * scipy_gamma.rgamma_slope(x)


nondifferentiable(scipy.special.gammasgn)


@adjoint(scipy.special.digamma)
def digamma(x):
    def back(dy):
        return (runtime.unbroadcast(dy * scipy.special.polygamma(1, x), x),)  # (polygamma computes in float64)
    return scipy.special.digamma(x), back


@pushforward(scipy.special.digamma)
def digamma_push(y, x, *, dx):
    return runtime.shaped(dx * scipy.special.polygamma(1, x), y)


@adjoint(scipy.special.polygamma)
def polygamma(n, x):
    def back(dy):
        return (None, runtime.unbroadcast(dy * scipy.special.polygamma(n + 1, x), x))
    return scipy.special.polygamma(n, x), back


@pushforward(scipy.special.polygamma)
def polygamma_push(y, n, x, *, dx):
    return runtime.shaped(dx * scipy.special.polygamma(n + 1, x), y)


@adjoint(scipy.special.poch)
def poch(z, m):
    y = scipy.special.poch(z, m)

    def back(dy):
        after = scipy.special.digamma(z + m)
        return (runtime.unbroadcast(dy * y * (after - scipy.special.digamma(z)), z),
                runtime.unbroadcast(dy * y * after, m))
    return y, back


@pushforward(scipy.special.poch)
def poch_push(y, z, m, *, dz, dm):
    after = scipy.special.digamma(z + m)
    return runtime.shaped(dz * y * (after - scipy.special.digamma(z)) + dm * y * after, y)


@adjoint(scipy.special.betaln)
def betaln(a, b):
    def back(dy):
        both = scipy.special.digamma(a + b)
        return (
            runtime.unbroadcast(dy * (scipy.special.digamma(a) - both), a),
            runtime.unbroadcast(dy * (scipy.special.digamma(b) - both), b),
        )
    return scipy.special.betaln(a, b), back


@pushforward(scipy.special.betaln)
def betaln_push(y, a, b, *, da, db):
    both = scipy.special.digamma(a + b)
    return runtime.shaped(da * (scipy.special.digamma(a) - both) + db * (scipy.special.digamma(b) - both), y)


@adjoint(scipy.special.beta)
def beta(a, b):
    y = scipy.special.beta(a, b)

    def back(dy):
        both = scipy.special.digamma(a + b)
        return (
            runtime.unbroadcast(dy * y * (scipy.special.digamma(a) - both), a),
            runtime.unbroadcast(dy * y * (scipy.special.digamma(b) - both), b),
        )
    return y, back


@pushforward(scipy.special.beta)
def beta_push(y, a, b, *, da, db):
    both = scipy.special.digamma(a + b)
    return runtime.shaped(y * (da * (scipy.special.digamma(a) - both) + db * (scipy.special.digamma(b) - both)), y)


@implemented_by(scipy.special.multigammaln)
def multigammaln(a, d):
    """``log`` of the multivariate gamma function: ``d * (d - 1) / 4 *
    log(pi)`` plus ``gammaln(a - j / 2)`` summed over ``j < d``. SciPy's
    checks of ``d`` and ``a`` run first (it raises where they fail)."""
    scipy_gamma.check_multigammaln(a, d)
    total = d * (d - 1) * 0.25 * math.log(math.pi)
    for j in range(d):
        total = total + scipy.special.gammaln(a - j / 2)
    return total


def check_multigammaln(a, d):
    """Raise SciPy's ``ValueError`` where ``multigammaln(a, d)`` does: ``d``
    not a positive integer, or ``a <= (d - 1) / 2`` somewhere."""
    if not np.isscalar(d) or np.floor(d) != d:
        raise ValueError("d should be a positive integer (dimension)")
    if np.any(np.less_equal(a, 0.5 * (d - 1))):
        raise ValueError(f"condition a ({a}) > 0.5 * (d-1) ({0.5 * (d - 1)}) not met")


nondifferentiable(check_multigammaln)


# --------------------------------------------------------------------------
# Incomplete gamma and beta functions, Student's t distribution function


@adjoint(scipy.special.gammainc)
def gammainc(a, x):
    y = scipy.special.gammainc(a, x)

    def back(dy):
        return (
            runtime.unbroadcast(scipy_gamma.no_slope(dy), a),
            runtime.unbroadcast(dy * scipy_gamma.gammainc_slope(a, x), x),
        )
    return y, back


@pushforward(scipy.special.gammainc)
def gammainc_push(y, a, x, *, da, dx):
    return runtime.shaped(scipy_gamma.no_slope(da) + dx * scipy_gamma.gammainc_slope(a, x), y)


@adjoint(scipy.special.gammaincc)
def gammaincc(a, x):
    y = scipy.special.gammaincc(a, x)

    def back(dy):
        return (
            runtime.unbroadcast(scipy_gamma.no_slope(dy), a),
            runtime.unbroadcast(-dy * scipy_gamma.gammainc_slope(a, x), x),
        )
    return y, back


@pushforward(scipy.special.gammaincc)
def gammaincc_push(y, a, x, *, da, dx):
    return runtime.shaped(scipy_gamma.no_slope(da) - dx * scipy_gamma.gammainc_slope(a, x), y)


@adjoint(scipy.special.betainc)
def betainc(a, b, x):
    y = scipy.special.betainc(a, b, x)

    def back(dy):
        return (
            runtime.unbroadcast(scipy_gamma.no_slope(dy), a),
            runtime.unbroadcast(scipy_gamma.no_slope(dy), b),
            runtime.unbroadcast(dy * scipy_gamma.betainc_slope(a, b, x), x),
        )
    return y, back


@pushforward(scipy.special.betainc)
def betainc_push(y, a, b, x, *, da, db, dx):
    unknown = scipy_gamma.no_slope(da) + scipy_gamma.no_slope(db)
    return runtime.shaped(unknown + dx * scipy_gamma.betainc_slope(a, b, x), y)


@adjoint(scipy.special.betaincc)
def betaincc(a, b, x):
    y = scipy.special.betaincc(a, b, x)

    def back(dy):
        return (
            runtime.unbroadcast(scipy_gamma.no_slope(dy), a),
            runtime.unbroadcast(scipy_gamma.no_slope(dy), b),
            runtime.unbroadcast(-dy * scipy_gamma.betainc_slope(a, b, x), x),
        )
    return y, back


@pushforward(scipy.special.betaincc)
def betaincc_push(y, a, b, x, *, da, db, dx):
    unknown = scipy_gamma.no_slope(da) + scipy_gamma.no_slope(db)
    return runtime.shaped(unknown - dx * scipy_gamma.betainc_slope(a, b, x), y)


@adjoint(scipy.special.stdtr)
def stdtr(df, t):
    y = scipy.special.stdtr(df, t)

    def back(dy):
        return (
            runtime.unbroadcast(scipy_gamma.no_slope(dy), df),
            runtime.unbroadcast(dy * scipy_gamma.stdtr_slope(df, t), t),
        )
    return y, back


@pushforward(scipy.special.stdtr)
def stdtr_push(y, df, t, *, ddf, dt):
    return runtime.shaped(scipy_gamma.no_slope(ddf) + dt * scipy_gamma.stdtr_slope(df, t), y)


@adjoint(scipy.special.stdtrit)
def stdtrit(df, p):
    t = scipy.special.stdtrit(df, p)

    def back(dy):
        return (
            runtime.unbroadcast(scipy_gamma.no_slope(dy), df),
            runtime.unbroadcast(dy / scipy_gamma.stdtr_slope(df, t), p),
        )
    return t, back


@pushforward(scipy.special.stdtrit)
def stdtrit_push(t, df, p, *, ddf, dp):
    return runtime.shaped(scipy_gamma.no_slope(ddf) + dp / scipy_gamma.stdtr_slope(df, t), t)


# --------------------------------------------------------------------------
# Error functions and the normal distribution function


@adjoint(scipy.special.erf)
def erf(x):
    def back(dy):
        return (dy * np.conjugate(2 / math.sqrt(math.pi) * np.exp(-x * x)),)
    return scipy.special.erf(x), back


@pushforward(scipy.special.erf)
def erf_push(y, x, *, dx):
    return dx * (2 / math.sqrt(math.pi) * np.exp(-x * x))


@adjoint(scipy.special.erfc)
def erfc(x):
    def back(dy):
        return (dy * np.conjugate(-2 / math.sqrt(math.pi) * np.exp(-x * x)),)
    return scipy.special.erfc(x), back


@pushforward(scipy.special.erfc)
def erfc_push(y, x, *, dx):
    return dx * (-2 / math.sqrt(math.pi) * np.exp(-x * x))


@adjoint(scipy.special.erfinv)
def erfinv(x):
    y = scipy.special.erfinv(x)

    def back(dy):
        return (dy * (math.sqrt(math.pi) / 2 * np.exp(y * y)),)
    return y, back


@pushforward(scipy.special.erfinv)
def erfinv_push(y, x, *, dx):
    return dx * (math.sqrt(math.pi) / 2 * np.exp(y * y))


@adjoint(scipy.special.erfcinv)
def erfcinv(x):
    y = scipy.special.erfcinv(x)

    def back(dy):
        return (dy * (-math.sqrt(math.pi) / 2 * np.exp(y * y)),)
    return y, back


@pushforward(scipy.special.erfcinv)
def erfcinv_push(y, x, *, dx):
    return dx * (-math.sqrt(math.pi) / 2 * np.exp(y * y))


@adjoint(scipy.special.ndtr)
def ndtr(x):
    def back(dy):
        return (dy * np.conjugate(np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)),)
    return scipy.special.ndtr(x), back


@pushforward(scipy.special.ndtr)
def ndtr_push(y, x, *, dx):
    return dx * (np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


@adjoint(scipy.special.log_ndtr)
def log_ndtr(x):
    y = scipy.special.log_ndtr(x)

    def back(dy):
        return (dy * np.conjugate(np.exp(-0.5 * x * x - y - 0.5 * math.log(2 * math.pi))),)
    return y, back


@pushforward(scipy.special.log_ndtr)
def log_ndtr_push(y, x, *, dx):
    return dx * np.exp(-0.5 * x * x - y - 0.5 * math.log(2 * math.pi))


@adjoint(scipy.special.ndtri)
def ndtri(x):
    y = scipy.special.ndtri(x)

    def back(dy):
        return (dy * (math.sqrt(2 * math.pi) * np.exp(0.5 * y * y)),)
    return y, back


@pushforward(scipy.special.ndtri)
def ndtri_push(y, x, *, dx):
    return dx * (math.sqrt(2 * math.pi) * np.exp(0.5 * y * y))


# --------------------------------------------------------------------------
# factorial


@implemented_by(scipy.special.factorial)
def factorial(n, exact=False, extend="zero"):
    """``gamma(n + 1)`` for ``n >= 0``, 0 below (SciPy's ``extend="zero"``),
    ``nan`` for ``nan``. ``exact=True`` counts (integers): no gradient;
    ``extend="complex"`` is refused."""
    if exact:
        return scipy_gamma.exact_factorial(n, extend)
    if extend != "zero":
        raise errors.NoDerivativeRule(
            f"scipy.special.factorial(extend={extend!r}) is not differentiated",
            hint="use scipy.special.gamma(n + 1), which is, or extend='zero'")
    ok = np.greater_equal(n, 0)
    value = np.where(ok, scipy.special.gamma(np.where(ok, n, 0.0) + 1.0), 0.0)
    return np.where(np.isnan(n), np.nan, value)[()]


def exact_factorial(n, extend):
    return scipy.special.factorial(n, exact=True, extend=extend)


nondifferentiable(exact_factorial)
