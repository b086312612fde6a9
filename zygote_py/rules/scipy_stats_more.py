"""More :mod:`scipy.stats` distributions differentiated through their
formulas, as :mod:`.scipy_stats` does (its helpers and conventions: SciPy's
values, support and invalid parameters; the point, ``loc``, ``scale`` and
the shape parameters differentiated): those of JAX's SciPy lists that the
first module did not cover.

- ``truncnorm``: ``logpdf pdf cdf logcdf sf logsf`` in the point, ``loc``,
  ``scale`` and the bounds ``a``, ``b`` (standardised, as SciPy's); the
  normalisation is ``ndtr(b) - ndtr(a)`` (or its mirror for bounds in the
  upper tail), accurate while that difference is not lost to rounding
  (bounds within about 37 standard deviations of the mean).
- ``gennorm``: ``logpdf pdf`` in the point, ``beta``, ``loc`` and
  ``scale``; ``cdf`` too, through ``gammainc``, whose derivative in its
  first argument has no closed form: ``cdf``'s gradient in ``beta`` is
  ``nan`` (see :mod:`.scipy_gamma`).
- ``vonmises`` (defined on the whole line, periodic, as SciPy's) and
  ``wrapcauchy`` (support ``[0, 2 pi]`` times the scale): ``logpdf pdf`` in
  the point, the shape ``kappa`` or ``c``, ``loc`` and ``scale``.
- ``bernoulli``: ``cdf logcdf sf`` in ``p`` (``k`` a count: no gradient);
  ``ppf``, piecewise constant: gradient 0.
- ``betabinom``: ``logpmf pmf`` in ``a`` and ``b`` (``k``, ``n`` counts).
- ``multinomial``: ``logpmf pmf`` in ``p`` (``x``, ``n`` counts). SciPy
  takes the last probability of each row as ``1 - sum`` of the others
  (whatever was passed; from SciPy 1.18 a row not summing to 1 is to give
  ``nan``), and so does the formula: the last entry of ``p`` gets no
  gradient, the others count through it too.
"""
import numpy as np
import scipy.special
import scipy.stats

from ..registry import implemented_by
from .scipy_stats import finish, log_of, positive, probability_outside, scaled, trials, xlogy

# --------------------------------------------------------------------------
# truncnorm: the standard normal on [a, b], then loc and scale


def truncnorm_mass(a, b):
    """``Phi(b) - Phi(a)``, from the tail where the bounds lie (the upper
    tail's differences of ``ndtr(-a) - ndtr(-b)`` keep their digits)."""
    upper = np.greater(a, 0)
    return np.where(upper, scipy.special.ndtr(-np.asarray(a)) - scipy.special.ndtr(-np.asarray(b)),
                    scipy.special.ndtr(b) - scipy.special.ndtr(a))


def truncnorm_parts(x, a, b, loc, scale):
    """``z``, the scale, where the value is ``nan`` (``a >= b`` too) and
    where ``z`` is inside ``[a, b]``."""
    z, scale, bad = scaled(x, loc, scale)
    bad = np.logical_or(bad, np.logical_not(np.less(a, b)))
    inside = np.logical_and(np.greater_equal(z, a), np.less_equal(z, b))
    return z, scale, bad, inside


@implemented_by(scipy.stats.truncnorm.logpdf)
def truncnorm_logpdf(x, a, b, loc=0, scale=1):
    z, scale, bad, inside = truncnorm_parts(x, a, b, loc, scale)
    z = np.where(inside, z, 0.5 * (np.maximum(a, -1e300) + np.minimum(b, 1e300)))
    mass = np.where(bad, 1.0, truncnorm_mass(a, b))
    value = -0.5 * z * z - 0.5 * np.log(2 * np.pi) - np.log(mass) - np.log(scale)
    return finish(value, bad, inside, -np.inf)


@implemented_by(scipy.stats.truncnorm.pdf)
def truncnorm_pdf(x, a, b, loc=0, scale=1):
    return np.exp(truncnorm_logpdf(x, a, b, loc, scale))


@implemented_by(scipy.stats.truncnorm.cdf)
def truncnorm_cdf(x, a, b, loc=0, scale=1):
    z, scale, bad, inside = truncnorm_parts(x, a, b, loc, scale)
    z = np.where(inside, z, a)
    mass = np.where(bad, 1.0, truncnorm_mass(a, b))
    below = np.where(np.greater(a, 0), scipy.special.ndtr(-np.asarray(a)) - scipy.special.ndtr(-z),
                     scipy.special.ndtr(z) - scipy.special.ndtr(a))
    return finish(below / mass, bad, inside, np.where(np.greater(x, loc + scale * np.asarray(b)), 1.0, 0.0))


@implemented_by(scipy.stats.truncnorm.logcdf)
def truncnorm_logcdf(x, a, b, loc=0, scale=1):
    return log_of(truncnorm_cdf(x, a, b, loc, scale))


@implemented_by(scipy.stats.truncnorm.sf)
def truncnorm_sf(x, a, b, loc=0, scale=1):
    z, scale, bad, inside = truncnorm_parts(x, a, b, loc, scale)
    z = np.where(inside, z, b)
    mass = np.where(bad, 1.0, truncnorm_mass(a, b))
    above = np.where(np.greater(a, 0), scipy.special.ndtr(-z) - scipy.special.ndtr(-np.asarray(b)),
                     scipy.special.ndtr(b) - scipy.special.ndtr(z))
    return finish(above / mass, bad, inside, np.where(np.less(x, loc + scale * np.asarray(a)), 1.0, 0.0))


@implemented_by(scipy.stats.truncnorm.logsf)
def truncnorm_logsf(x, a, b, loc=0, scale=1):
    return log_of(truncnorm_sf(x, a, b, loc, scale))


# --------------------------------------------------------------------------
# gennorm: density beta / (2 Gamma(1 / beta)) exp(-|z|^beta)


@implemented_by(scipy.stats.gennorm.logpdf)
def gennorm_logpdf(x, beta, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    beta, wrong = positive(beta)
    finite = np.isfinite(z)
    z = np.where(finite, z, 0.0)
    value = np.log(beta) - np.log(2.0) - scipy.special.gammaln(1.0 / beta) - np.abs(z) ** beta - np.log(scale)
    return finish(value, np.logical_or(bad, wrong), finite, -np.inf)


@implemented_by(scipy.stats.gennorm.pdf)
def gennorm_pdf(x, beta, loc=0, scale=1):
    return np.exp(gennorm_logpdf(x, beta, loc, scale))


@implemented_by(scipy.stats.gennorm.cdf)
def gennorm_cdf(x, beta, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    beta, wrong = positive(beta)
    finite = np.isfinite(z)
    half = 0.5 * scipy.special.gammainc(1.0 / beta, np.abs(np.where(finite, z, 0.0)) ** beta)
    return finish(0.5 + np.sign(z) * half, np.logical_or(bad, wrong), finite, np.where(np.greater(z, 0), 1.0, 0.0))


# --------------------------------------------------------------------------
# vonmises, wrapcauchy (circular)


@implemented_by(scipy.stats.vonmises.logpdf)
def vonmises_logpdf(x, kappa, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    kappa, wrong = positive(kappa)
    finite = np.isfinite(z)
    z = np.where(finite, z, 0.0)
    # log(2 pi I0(kappa)), with I0 = i0e exp(kappa) kept finite for a large kappa
    value = kappa * (np.cos(z) - 1.0) - np.log(2 * np.pi * scipy.special.i0e(kappa)) - np.log(scale)
    return finish(value, np.logical_or(bad, wrong), finite, np.nan)


@implemented_by(scipy.stats.vonmises.pdf)
def vonmises_pdf(x, kappa, loc=0, scale=1):
    return np.exp(vonmises_logpdf(x, kappa, loc, scale))


@implemented_by(scipy.stats.wrapcauchy.logpdf)
def wrapcauchy_logpdf(x, c, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    wrong = np.logical_not(np.logical_and(np.greater(c, 0), np.less(c, 1)))
    c = np.where(wrong, 0.5, c)
    inside = np.logical_and(np.greater_equal(z, 0), np.less_equal(z, 2 * np.pi))
    z = np.where(inside, z, 0.0)
    value = np.log1p(-c * c) - np.log(2 * np.pi) - np.log(1.0 + c * c - 2.0 * c * np.cos(z)) - np.log(scale)
    return finish(value, np.logical_or(bad, wrong), inside, -np.inf)


@implemented_by(scipy.stats.wrapcauchy.pdf)
def wrapcauchy_pdf(x, c, loc=0, scale=1):
    return np.exp(wrapcauchy_logpdf(x, c, loc, scale))


# --------------------------------------------------------------------------
# bernoulli's distribution function (its pmf: scipy_stats)


@implemented_by(scipy.stats.bernoulli.cdf)
def bernoulli_cdf(k, p, loc=0):
    k = np.floor(np.subtract(k, loc))
    bad = np.logical_or(np.logical_not(np.logical_and(np.greater_equal(p, 0), np.less_equal(p, 1))), np.isnan(k))
    p = np.where(bad, 0.5, p)
    value = np.where(np.less(k, 0), 0.0, np.where(np.less(k, 1), 1.0 - p, 1.0))
    return finish(value, bad, True, 0.0)


@implemented_by(scipy.stats.bernoulli.logcdf)
def bernoulli_logcdf(k, p, loc=0):
    return log_of(bernoulli_cdf(k, p, loc))


@implemented_by(scipy.stats.bernoulli.sf)
def bernoulli_sf(k, p, loc=0):
    k = np.floor(np.subtract(k, loc))
    bad = np.logical_or(np.logical_not(np.logical_and(np.greater_equal(p, 0), np.less_equal(p, 1))), np.isnan(k))
    p = np.where(bad, 0.5, p)
    value = np.where(np.less(k, 0), 1.0, np.where(np.less(k, 1), p, 0.0))
    return finish(value, bad, True, 0.0)


@implemented_by(scipy.stats.bernoulli.ppf)
def bernoulli_ppf(q, p, loc=0):
    bad = np.logical_or(probability_outside(p), np.logical_or(probability_outside(q), np.isnan(q)))
    upper = np.logical_or(np.equal(q, 1), np.greater(q, np.subtract(1.0, p)))  # (q == 1: the support's end)
    k = np.where(np.equal(q, 0), -1.0, np.where(upper, 1.0, 0.0))
    return finish(k + loc, bad, True, 0.0)


# --------------------------------------------------------------------------
# betabinom, multinomial (counts: no gradient)


@implemented_by(scipy.stats.betabinom.logpmf)
def betabinom_logpmf(k, n, a, b, loc=0):
    whole_n = np.floor(n)
    wrong = np.logical_not(np.logical_and(np.logical_and(np.greater_equal(n, 0), np.equal(whole_n, n)),
                                          np.logical_and(np.greater(a, 0), np.greater(b, 0))))
    k, whole, a, bad = trials(k, a, loc, wrong)
    b = np.where(bad, 1.0, b)
    n = np.where(bad, 0.0, whole_n)
    inside = np.logical_and(whole, np.logical_and(np.greater_equal(k, 0), np.less_equal(k, n)))
    k = np.where(inside, k, 0.0)
    value = (scipy.special.gammaln(n + 1.0) - scipy.special.gammaln(k + 1.0) - scipy.special.gammaln(n - k + 1.0)
             + scipy.special.betaln(k + a, n - k + b) - scipy.special.betaln(a, b))
    return finish(value, bad, inside, -np.inf)


@implemented_by(scipy.stats.betabinom.pmf)
def betabinom_pmf(k, n, a, b, loc=0):
    return np.exp(betabinom_logpmf(k, n, a, b, loc))


@implemented_by(scipy.stats.multinomial.logpmf)
def multinomial_logpmf(x, n, p):
    counts = np.floor(x)  # (counts: no gradient)
    p = np.asarray(p)
    q = np.concatenate([p[..., :-1], 1.0 - np.sum(p[..., :-1], axis=-1, keepdims=True)], axis=-1)
    bad = np.logical_or(np.any(probability_outside(q), axis=-1),
                        np.logical_not(np.logical_and(np.greater_equal(n, 0), np.equal(np.floor(n), n))))
    q = np.where(bad[..., None], 0.5, q)
    inside = np.logical_and(np.all(np.logical_and(np.equal(counts, x), np.greater_equal(counts, 0)), axis=-1),
                            np.equal(np.sum(counts, axis=-1), n))
    counts = np.where(inside[..., None], counts, 0.0)
    value = (scipy.special.gammaln(np.floor(n) + 1.0) - np.sum(scipy.special.gammaln(counts + 1.0), axis=-1)
             + np.sum(xlogy(counts, q), axis=-1))
    return finish(value, bad, inside, -np.inf)


@implemented_by(scipy.stats.multinomial.pmf)
def multinomial_pmf(x, n, p):
    return np.exp(multinomial_logpmf(x, n, p))
