"""Derivatives of :mod:`scipy.stats` distributions, through their formulas.

Imported into the built-in layer once the user has imported
``scipy.stats`` (see :func:`registry.when_imported`). Each method below is
registered with :func:`registry.implemented_by`: where a gradient is
wanted, the compiler differentiates the formula here (NumPy and the
:mod:`scipy.special` functions of :mod:`.scipy_gamma`, which have rules),
in both modes and to any order; elsewhere SciPy's own method runs.

Covered, with SciPy's arguments (positional or keyword, ``loc=0``,
``scale=1``), each differentiated in the point and in every parameter:

- ``norm t chi2 gamma beta expon cauchy laplace logistic``: ``logpdf pdf
  cdf logcdf sf logsf`` (shape parameters ``df`` of ``t`` and ``chi2``,
  ``a`` of ``gamma``, ``a, b`` of ``beta``, then ``loc`` and ``scale``);
- ``uniform``: ``logpdf pdf cdf logcdf sf logsf ppf``; ``pareto``:
  ``logpdf pdf`` (shape ``b``);
- ``norm.ppf norm.isf t.ppf cauchy.ppf cauchy.isf logistic.ppf
  logistic.isf`` (the quantiles) in ``q`` and the parameters;
- ``poisson``: ``logpmf pmf cdf logcdf sf logsf`` in ``mu`` (``k`` and
  ``loc`` are counts: no gradient); ``binom``, ``bernoulli``, ``geom``,
  ``nbinom``: ``logpmf pmf`` in ``p`` (and ``nbinom``'s ``n``; ``binom``'s
  ``n`` is a count: no gradient);
- ``multivariate_normal``: ``logpdf pdf`` in ``x``, ``mean`` and ``cov``
  (``allow_singular`` too), ``entropy`` in ``cov``;
- ``dirichlet``: ``logpdf pdf`` in ``x`` and ``alpha``.

Conventions:

- Values are SciPy's, support included: ``logpdf`` is ``-inf`` (``pdf``
  0) outside the support, ``cdf``/``sf`` 0 or 1 there, and ``nan`` where
  a parameter is out of range (``scale <= 0``, ``df <= 0``...) or the point
  is ``nan``; at an infinite point ``logpdf`` (``logpmf``) is ``-inf``,
  where SciPy's ``gamma`` (for ``a > 1``), ``poisson`` and ``nbinom`` give
  ``nan``.
  There the gradient is 0 (the value is constant), never
  ``nan`` from a formula evaluated where it does not apply. The formulas
  compute in the arguments' precision (SciPy promotes to float64).
- ``laplace``'s ``logpdf``, ``logcdf`` and ``logsf`` are formed in
  logarithms, so they stay finite far in the tails, where SciPy's (the
  logarithm of an underflowing density) are ``-inf``.
- The distribution functions of ``t``, ``chi2``, ``gamma``, ``beta`` and
  ``poisson`` go through ``stdtr``, ``gammainc``, ``betainc`` and their
  complements, whose derivatives in the shape parameter have no closed
  form: ``t.cdf``'s and ``t.ppf``'s gradient in ``df``, ``chi2.cdf``'s in
  ``df``, ``gamma.cdf``'s in ``a``, ``beta.cdf``'s in ``a`` and ``b`` are
  ``nan`` (see
  :mod:`.scipy_gamma`); in the point, ``loc``, ``scale`` and ``mu`` they
  are exact. ``chi2`` is ``gamma`` with ``a = df / 2`` and twice the scale.
- The quantiles ``ppf``/``isf`` are ``nan`` for ``q`` outside ``[0, 1]``
  and ``-inf``/``inf`` at its ends, where their slope in ``q`` is
  infinite.
- ``multivariate_normal``: ``cov`` a matrix, a vector (its diagonal) or a
  number (times the identity), ``mean`` ``None`` (zeros), ``x`` of shape
  ``(d,)`` or ``(..., d)``. SciPy reads the lower triangle of a matrix
  ``cov`` (through ``scipy.linalg.eigh``), and so do these formulas:
  ``cov``'s gradient is on that triangle, zeros above, as
  ``np.linalg.cholesky``'s (the triangle convention of
  :mod:`.numpy_decompositions`). The density is formed from the Cholesky
  factor of ``cov``. A singular ``cov`` (by SciPy's test) raises
  SciPy's ``LinAlgError`` unless ``allow_singular=True`` (always, for ``entropy``): then the
  density is SciPy's degenerate one, on the range of ``cov`` (found as
  SciPy finds it, from its eigenvalues, without a derivative), formed
  from ``U^T cov U`` for an orthonormal basis ``U`` of that range (the
  pseudo-determinant and pseudo-inverse), ``-inf`` (``pdf`` 0, gradient
  0) off the support. The derivatives are those along perturbations that
  keep the range: ``x`` and ``mean`` get the components of their
  gradients in it, ``cov`` ``U G U^T`` (a rank change makes the density
  jump: it has no derivative across).
- ``dirichlet``: ``x`` of shape ``(K,)`` or ``(K, n)`` (points as columns,
  as SciPy takes them), or with ``K - 1`` rows, the last completed to sum
  to 1; SciPy's own checks run first and raise its ``ValueError``.
- Frozen distributions (``norm(loc, scale).logpdf(x)``) are these
  methods with the frozen arguments: see :mod:`.scipy_frozen`.
"""
import math

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats
from scipy.stats import _multivariate

from ..registry import implemented_by, nondifferentiable

# --------------------------------------------------------------------------
# Helpers: SciPy's treatment of parameters and support


def scaled(x, loc, scale):
    """``z = (x - loc) / scale``, the scale (1 where it is not positive),
    and where the value is ``nan``: the scale is not positive, or the point
    is ``nan`` (``z`` is 0 there, where no formula warns)."""
    bad = np.logical_not(np.greater(scale, 0))
    scale = np.where(bad, 1.0, scale)
    z = (np.asarray(x) - loc) / scale
    bad = np.logical_or(bad, np.isnan(z))
    return np.where(bad, 0.0, z), scale, bad


def finish(value, bad, inside, outside):
    """SciPy's output: ``value`` inside the support, ``outside`` beyond it,
    ``nan`` where the arguments are not valid; a NumPy scalar for scalar
    arguments."""
    return np.where(bad, np.nan, np.where(inside, value, outside))[()]


def positive(p):
    """``p`` where it is positive (1 elsewhere), and where it is not: a
    shape parameter's check."""
    bad = np.logical_not(np.greater(p, 0))
    return np.where(bad, 1.0, p), bad


def xlogy(a, u):
    """``a * log(u)`` for ``u >= 0``, 0 where ``a == 0`` (at ``u == 0`` too),
    as ``scipy.special.xlogy``: the gradient in ``u`` at ``u == 0`` is 0."""
    pos = np.greater(u, 0)
    at_zero = np.where(np.equal(a, 0), 0.0, np.where(np.greater(a, 0), -np.inf, np.inf))
    return np.where(pos, a * np.log(np.where(pos, u, 1.0)), at_zero)


def xlog1py(a, u):
    """``a * log1p(u)`` for ``u >= -1``, 0 where ``a == 0``, as
    ``scipy.special.xlog1py``."""
    pos = np.greater(u, -1)
    at_zero = np.where(np.equal(a, 0), 0.0, np.where(np.greater(a, 0), -np.inf, np.inf))
    return np.where(pos, a * np.log1p(np.where(pos, u, 0.0)), at_zero)


def log_of(p):
    """``log(p)`` for a probability ``p`` (``-inf`` at 0, without a
    warning, and ``nan`` for ``nan``), as :func:`finish` gives it."""
    pos = np.greater(p, 0)
    return np.where(pos, np.log(np.where(pos, p, 1.0)), np.where(np.equal(p, 0), -np.inf, np.nan))[()]


# --------------------------------------------------------------------------
# norm


@implemented_by(scipy.stats.norm.logpdf)
def norm_logpdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(-0.5 * z * z - 0.5 * math.log(2 * math.pi) - np.log(scale), bad, True, 0.0)


@implemented_by(scipy.stats.norm.pdf)
def norm_pdf(x, loc=0, scale=1):
    return np.exp(norm_logpdf(x, loc, scale))


@implemented_by(scipy.stats.norm.cdf)
def norm_cdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(scipy.special.ndtr(z), bad, True, 0.0)


@implemented_by(scipy.stats.norm.logcdf)
def norm_logcdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(scipy.special.log_ndtr(z), bad, True, 0.0)


@implemented_by(scipy.stats.norm.sf)
def norm_sf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(scipy.special.ndtr(-z), bad, True, 0.0)


@implemented_by(scipy.stats.norm.logsf)
def norm_logsf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(scipy.special.log_ndtr(-z), bad, True, 0.0)


def quantile(q, loc, scale):
    """``q`` (0.5 where the value is ``nan``), the scale (1 there), and
    where the value is ``nan``: ``q`` outside ``[0, 1]`` or ``nan``, or the
    scale not positive (SciPy's checks of a quantile's arguments)."""
    bad = np.logical_not(np.logical_and(np.greater(scale, 0), np.logical_and(np.greater_equal(q, 0),
                                                                               np.less_equal(q, 1))))
    return np.where(bad, 0.5, q), np.where(bad, 1.0, scale), bad


@implemented_by(scipy.stats.norm.ppf)
def norm_ppf(q, loc=0, scale=1):
    q, scale, bad = quantile(q, loc, scale)
    return finish(loc + scale * scipy.special.ndtri(q), bad, True, 0.0)


@implemented_by(scipy.stats.norm.isf)
def norm_isf(q, loc=0, scale=1):
    q, scale, bad = quantile(q, loc, scale)
    return finish(loc - scale * scipy.special.ndtri(q), bad, True, 0.0)


def open_quantile(q, loc, scale, standard):
    """``loc + scale * standard(q)`` for a quantile function ``standard``
    of the open interval ``(0, 1)`` (``-inf`` and ``inf`` at its ends),
    with SciPy's checks (see :func:`quantile`)."""
    q, scale, bad = quantile(q, loc, scale)
    inside = np.logical_and(np.greater(q, 0), np.less(q, 1))
    value = loc + scale * standard(np.where(inside, q, 0.5))
    return finish(value, bad, inside, np.where(np.equal(q, 0), -np.inf, np.inf))


def cauchy_standard(q):
    return np.tan(math.pi * (q - 0.5))


def logistic_standard(q):
    return np.log(q) - np.log1p(-q)


@implemented_by(scipy.stats.cauchy.ppf)
def cauchy_ppf(q, loc=0, scale=1):
    return open_quantile(q, loc, scale, cauchy_standard)


@implemented_by(scipy.stats.cauchy.isf)
def cauchy_isf(q, loc=0, scale=1):
    return open_quantile(1.0 - np.asarray(q), loc, scale, cauchy_standard)


@implemented_by(scipy.stats.logistic.ppf)
def logistic_ppf(q, loc=0, scale=1):
    return open_quantile(q, loc, scale, logistic_standard)


@implemented_by(scipy.stats.logistic.isf)
def logistic_isf(q, loc=0, scale=1):
    return open_quantile(1.0 - np.asarray(q), loc, scale, logistic_standard)


# --------------------------------------------------------------------------
# t


@implemented_by(scipy.stats.t.logpdf)
def t_logpdf(x, df, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    df, wrong = positive(df)
    infinite = np.isinf(df)
    r = np.where(infinite, 1.0, df)
    student = (scipy.special.gammaln((r + 1.0) / 2) - scipy.special.gammaln(r / 2)
               - 0.5 * np.log(r * math.pi) - (r + 1.0) / 2 * np.log1p(z * z / r))
    normal = -0.5 * z * z - 0.5 * math.log(2 * math.pi)
    return finish(np.where(infinite, normal, student) - np.log(scale), np.logical_or(bad, wrong), True, 0.0)


@implemented_by(scipy.stats.t.pdf)
def t_pdf(x, df, loc=0, scale=1):
    return np.exp(t_logpdf(x, df, loc, scale))


@implemented_by(scipy.stats.t.cdf)
def t_cdf(x, df, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    df, wrong = positive(df)
    return finish(scipy.special.stdtr(df, z), np.logical_or(bad, wrong), True, 0.0)


@implemented_by(scipy.stats.t.logcdf)
def t_logcdf(x, df, loc=0, scale=1):
    return log_of(t_cdf(x, df, loc, scale))


@implemented_by(scipy.stats.t.sf)
def t_sf(x, df, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    df, wrong = positive(df)
    return finish(scipy.special.stdtr(df, -z), np.logical_or(bad, wrong), True, 0.0)


@implemented_by(scipy.stats.t.logsf)
def t_logsf(x, df, loc=0, scale=1):
    return log_of(t_sf(x, df, loc, scale))


@implemented_by(scipy.stats.t.ppf)
def t_ppf(q, df, loc=0, scale=1):
    q, scale, bad = quantile(q, loc, scale)
    df, wrong = positive(df)
    inside = np.logical_and(np.greater(q, 0), np.less(q, 1))  # (stdtrit(df, 0) is inf in SciPy 1.17)
    value = loc + scale * scipy.special.stdtrit(df, np.where(inside, q, 0.5))
    return finish(value, np.logical_or(bad, wrong), inside, np.where(np.equal(q, 0), -np.inf, np.inf))


# --------------------------------------------------------------------------
# gamma (support [0, inf))


@implemented_by(scipy.stats.gamma.logpdf)
def gamma_logpdf(x, a, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    a, wrong = positive(a)
    inside = np.logical_and(np.greater_equal(z, 0), np.isfinite(z))  # (SciPy: nan at inf, for a > 1)
    z = np.where(inside, z, 1.0)
    value = xlogy(a - 1.0, z) - z - scipy.special.gammaln(a) - np.log(scale)
    return finish(value, np.logical_or(bad, wrong), inside, -np.inf)


@implemented_by(scipy.stats.gamma.pdf)
def gamma_pdf(x, a, loc=0, scale=1):
    return np.exp(gamma_logpdf(x, a, loc, scale))


@implemented_by(scipy.stats.gamma.cdf)
def gamma_cdf(x, a, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    a, wrong = positive(a)
    inside = np.greater(z, 0)
    value = scipy.special.gammainc(a, np.where(inside, z, 1.0))
    return finish(value, np.logical_or(bad, wrong), inside, 0.0)


@implemented_by(scipy.stats.gamma.logcdf)
def gamma_logcdf(x, a, loc=0, scale=1):
    return log_of(gamma_cdf(x, a, loc, scale))


@implemented_by(scipy.stats.gamma.sf)
def gamma_sf(x, a, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    a, wrong = positive(a)
    inside = np.greater(z, 0)
    value = scipy.special.gammaincc(a, np.where(inside, z, 1.0))
    return finish(value, np.logical_or(bad, wrong), inside, 1.0)


@implemented_by(scipy.stats.gamma.logsf)
def gamma_logsf(x, a, loc=0, scale=1):
    return log_of(gamma_sf(x, a, loc, scale))


# --------------------------------------------------------------------------
# chi2: gamma with a = df / 2 and twice the scale


@implemented_by(scipy.stats.chi2.logpdf)
def chi2_logpdf(x, df, loc=0, scale=1):
    return gamma_logpdf(x, 0.5 * np.asarray(df), loc, 2.0 * np.asarray(scale))


@implemented_by(scipy.stats.chi2.pdf)
def chi2_pdf(x, df, loc=0, scale=1):
    return gamma_pdf(x, 0.5 * np.asarray(df), loc, 2.0 * np.asarray(scale))


@implemented_by(scipy.stats.chi2.cdf)
def chi2_cdf(x, df, loc=0, scale=1):
    return gamma_cdf(x, 0.5 * np.asarray(df), loc, 2.0 * np.asarray(scale))


@implemented_by(scipy.stats.chi2.logcdf)
def chi2_logcdf(x, df, loc=0, scale=1):
    return gamma_logcdf(x, 0.5 * np.asarray(df), loc, 2.0 * np.asarray(scale))


@implemented_by(scipy.stats.chi2.sf)
def chi2_sf(x, df, loc=0, scale=1):
    return gamma_sf(x, 0.5 * np.asarray(df), loc, 2.0 * np.asarray(scale))


@implemented_by(scipy.stats.chi2.logsf)
def chi2_logsf(x, df, loc=0, scale=1):
    return gamma_logsf(x, 0.5 * np.asarray(df), loc, 2.0 * np.asarray(scale))


# --------------------------------------------------------------------------
# beta (support [0, 1])


@implemented_by(scipy.stats.beta.logpdf)
def beta_logpdf(x, a, b, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    a, wrong_a = positive(a)
    b, wrong_b = positive(b)
    inside = np.logical_and(np.greater_equal(z, 0), np.less_equal(z, 1))
    z = np.where(inside, z, 0.5)
    value = xlog1py(b - 1.0, -z) + xlogy(a - 1.0, z) - scipy.special.betaln(a, b) - np.log(scale)
    return finish(value, np.logical_or(bad, np.logical_or(wrong_a, wrong_b)), inside, -np.inf)


@implemented_by(scipy.stats.beta.pdf)
def beta_pdf(x, a, b, loc=0, scale=1):
    return np.exp(beta_logpdf(x, a, b, loc, scale))


@implemented_by(scipy.stats.beta.cdf)
def beta_cdf(x, a, b, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    a, wrong_a = positive(a)
    b, wrong_b = positive(b)
    inside = np.logical_and(np.greater(z, 0), np.less(z, 1))
    value = scipy.special.betainc(a, b, np.where(inside, z, 0.5))
    wrong = np.logical_or(bad, np.logical_or(wrong_a, wrong_b))
    return finish(value, wrong, inside, np.where(np.greater_equal(z, 1), 1.0, 0.0))


@implemented_by(scipy.stats.beta.logcdf)
def beta_logcdf(x, a, b, loc=0, scale=1):
    return log_of(beta_cdf(x, a, b, loc, scale))


@implemented_by(scipy.stats.beta.sf)
def beta_sf(x, a, b, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    a, wrong_a = positive(a)
    b, wrong_b = positive(b)
    inside = np.logical_and(np.greater(z, 0), np.less(z, 1))
    value = scipy.special.betaincc(a, b, np.where(inside, z, 0.5))
    wrong = np.logical_or(bad, np.logical_or(wrong_a, wrong_b))
    return finish(value, wrong, inside, np.where(np.greater_equal(z, 1), 0.0, 1.0))


@implemented_by(scipy.stats.beta.logsf)
def beta_logsf(x, a, b, loc=0, scale=1):
    return log_of(beta_sf(x, a, b, loc, scale))


# --------------------------------------------------------------------------
# expon (support [0, inf))


@implemented_by(scipy.stats.expon.logpdf)
def expon_logpdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(-z - np.log(scale), bad, np.greater_equal(z, 0), -np.inf)


@implemented_by(scipy.stats.expon.pdf)
def expon_pdf(x, loc=0, scale=1):
    return np.exp(expon_logpdf(x, loc, scale))


@implemented_by(scipy.stats.expon.cdf)
def expon_cdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    inside = np.greater(z, 0)
    return finish(-np.expm1(-np.where(inside, z, 0.0)), bad, inside, 0.0)


@implemented_by(scipy.stats.expon.logcdf)
def expon_logcdf(x, loc=0, scale=1):
    return log_of(expon_cdf(x, loc, scale))


@implemented_by(scipy.stats.expon.sf)
def expon_sf(x, loc=0, scale=1):
    return np.exp(expon_logsf(x, loc, scale))


@implemented_by(scipy.stats.expon.logsf)
def expon_logsf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    inside = np.greater(z, 0)
    return finish(-z, bad, inside, 0.0)


# --------------------------------------------------------------------------
# cauchy


@implemented_by(scipy.stats.cauchy.logpdf)
def cauchy_logpdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    near = np.less(np.abs(z), 1)
    small = np.where(near, z, 0.0)
    large = np.abs(np.where(near, 1.0, z))  # (z * z would overflow far out)
    value = np.where(near, -np.log1p(small * small), -(2 * np.log(large) + np.log1p(1 / (large * large))))
    return finish(value - math.log(math.pi) - np.log(scale), bad, True, 0.0)


@implemented_by(scipy.stats.cauchy.pdf)
def cauchy_pdf(x, loc=0, scale=1):
    return np.exp(cauchy_logpdf(x, loc, scale))


@implemented_by(scipy.stats.cauchy.cdf)
def cauchy_cdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(np.arctan2(1.0, -z) / math.pi, bad, True, 0.0)


@implemented_by(scipy.stats.cauchy.logcdf)
def cauchy_logcdf(x, loc=0, scale=1):
    return log_of(cauchy_cdf(x, loc, scale))


@implemented_by(scipy.stats.cauchy.sf)
def cauchy_sf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(np.arctan2(1.0, z) / math.pi, bad, True, 0.0)


@implemented_by(scipy.stats.cauchy.logsf)
def cauchy_logsf(x, loc=0, scale=1):
    return log_of(cauchy_sf(x, loc, scale))


# --------------------------------------------------------------------------
# laplace


@implemented_by(scipy.stats.laplace.logpdf)
def laplace_logpdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(-np.abs(z) - math.log(2) - np.log(scale), bad, True, 0.0)


@implemented_by(scipy.stats.laplace.pdf)
def laplace_pdf(x, loc=0, scale=1):
    return np.exp(laplace_logpdf(x, loc, scale))


@implemented_by(scipy.stats.laplace.cdf)
def laplace_cdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    tail = 0.5 * np.exp(-np.abs(z))
    return finish(np.where(np.greater(z, 0), 1.0 - tail, tail), bad, True, 0.0)


@implemented_by(scipy.stats.laplace.logcdf)
def laplace_logcdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    above = np.greater(z, 0)
    value = np.where(above, np.log1p(-0.5 * np.exp(-np.where(above, z, 0.0))), np.where(above, 0.0, z) - math.log(2))
    return finish(value, bad, True, 0.0)


@implemented_by(scipy.stats.laplace.sf)
def laplace_sf(x, loc=0, scale=1):
    return laplace_cdf(-np.asarray(x), -np.asarray(loc), scale)


@implemented_by(scipy.stats.laplace.logsf)
def laplace_logsf(x, loc=0, scale=1):
    return laplace_logcdf(-np.asarray(x), -np.asarray(loc), scale)


# --------------------------------------------------------------------------
# logistic


@implemented_by(scipy.stats.logistic.logpdf)
def logistic_logpdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    y = -np.abs(z)
    return finish(y - 2.0 * np.log1p(np.exp(y)) - np.log(scale), bad, True, 0.0)


@implemented_by(scipy.stats.logistic.pdf)
def logistic_pdf(x, loc=0, scale=1):
    return np.exp(logistic_logpdf(x, loc, scale))


@implemented_by(scipy.stats.logistic.cdf)
def logistic_cdf(x, loc=0, scale=1):
    return np.exp(logistic_logcdf(x, loc, scale))


@implemented_by(scipy.stats.logistic.logcdf)
def logistic_logcdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(-np.logaddexp(0.0, -z), bad, True, 0.0)


@implemented_by(scipy.stats.logistic.sf)
def logistic_sf(x, loc=0, scale=1):
    return np.exp(logistic_logsf(x, loc, scale))


@implemented_by(scipy.stats.logistic.logsf)
def logistic_logsf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(-np.logaddexp(0.0, z), bad, True, 0.0)


# --------------------------------------------------------------------------
# poisson (counts k = 0, 1, 2...)


def counts(k, mu, loc):
    """The count ``floor(k - loc)`` (no gradient: a whole number), whether
    ``k - loc`` is one, ``mu`` (1 where it is negative), and where the
    value is ``nan``."""
    shifted = np.subtract(k, loc)
    k = np.floor(shifted)
    bad = np.logical_or(np.logical_not(np.greater_equal(mu, 0)), np.isnan(k))
    return k, np.equal(k, shifted), np.where(bad, 1.0, mu), bad


@implemented_by(scipy.stats.poisson.logpmf)
def poisson_logpmf(k, mu, loc=0):
    k, whole, mu, bad = counts(k, mu, loc)
    inside = np.logical_and(np.greater_equal(k, 0), np.logical_and(whole, np.isfinite(k)))
    k = np.where(inside, k, 0.0)
    return finish(xlogy(k, mu) - scipy.special.gammaln(k + 1.0) - mu, bad, inside, -np.inf)


@implemented_by(scipy.stats.poisson.pmf)
def poisson_pmf(k, mu, loc=0):
    return np.exp(poisson_logpmf(k, mu, loc))


@implemented_by(scipy.stats.poisson.cdf)
def poisson_cdf(k, mu, loc=0):
    k, whole, mu, bad = counts(k, mu, loc)
    inside = np.logical_and(np.greater_equal(k, 0), np.isfinite(k))
    value = scipy.special.gammaincc(np.where(inside, k, 0.0) + 1.0, mu)
    return finish(value, bad, inside, np.where(np.isposinf(k), 1.0, 0.0))


@implemented_by(scipy.stats.poisson.logcdf)
def poisson_logcdf(k, mu, loc=0):
    return log_of(poisson_cdf(k, mu, loc))


@implemented_by(scipy.stats.poisson.sf)
def poisson_sf(k, mu, loc=0):
    k, whole, mu, bad = counts(k, mu, loc)
    inside = np.logical_and(np.greater_equal(k, 0), np.isfinite(k))
    value = scipy.special.gammainc(np.where(inside, k, 0.0) + 1.0, mu)
    return finish(value, bad, inside, np.where(np.isposinf(k), 0.0, 1.0))


@implemented_by(scipy.stats.poisson.logsf)
def poisson_logsf(k, mu, loc=0):
    return log_of(poisson_sf(k, mu, loc))


# --------------------------------------------------------------------------
# binom, bernoulli, geom, nbinom (counts k; n of binom is a count too)


def trials(k, p, loc, p_wrong):
    """The count ``floor(k - loc)``, whether ``k - loc`` is one, ``p`` (0.5
    where the value is ``nan``), and where it is: ``p_wrong`` (``p`` out
    of its range) or ``k`` ``nan``."""
    shifted = np.subtract(k, loc)
    k = np.floor(shifted)
    bad = np.logical_or(p_wrong, np.isnan(k))
    return k, np.equal(k, shifted), np.where(bad, 0.5, p), bad


def probability_outside(p):
    """Where ``p`` is not in ``[0, 1]``."""
    return np.logical_not(np.logical_and(np.greater_equal(p, 0), np.less_equal(p, 1)))


@implemented_by(scipy.stats.binom.logpmf)
def binom_logpmf(k, n, p, loc=0):
    whole_n = np.floor(n)  # (a count: no gradient)
    wrong = np.logical_or(probability_outside(p),
                          np.logical_not(np.logical_and(np.greater_equal(n, 0), np.equal(whole_n, n))))
    k, whole, p, bad = trials(k, p, loc, wrong)
    n = np.where(bad, 0.0, whole_n)
    inside = np.logical_and(whole, np.logical_and(np.greater_equal(k, 0), np.less_equal(k, n)))
    k = np.where(inside, k, 0.0)
    value = (scipy.special.gammaln(n + 1.0) - scipy.special.gammaln(k + 1.0) - scipy.special.gammaln(n - k + 1.0)
             + xlogy(k, p) + xlog1py(n - k, -p))
    return finish(value, bad, inside, -np.inf)


@implemented_by(scipy.stats.binom.pmf)
def binom_pmf(k, n, p, loc=0):
    return np.exp(binom_logpmf(k, n, p, loc))


@implemented_by(scipy.stats.bernoulli.logpmf)
def bernoulli_logpmf(k, p, loc=0):
    return binom_logpmf(k, 1.0, p, loc)


@implemented_by(scipy.stats.bernoulli.pmf)
def bernoulli_pmf(k, p, loc=0):
    return np.exp(binom_logpmf(k, 1.0, p, loc))


@implemented_by(scipy.stats.geom.logpmf)
def geom_logpmf(k, p, loc=0):
    k, whole, p, bad = trials(k, p, loc, np.logical_not(np.logical_and(np.greater(p, 0), np.less_equal(p, 1))))
    inside = np.logical_and(whole, np.logical_and(np.greater_equal(k, 1), np.isfinite(k)))
    k = np.where(inside, k, 1.0)
    return finish(xlog1py(k - 1.0, -p) + np.log(p), bad, inside, -np.inf)


@implemented_by(scipy.stats.geom.pmf)
def geom_pmf(k, p, loc=0):
    return np.exp(geom_logpmf(k, p, loc))


@implemented_by(scipy.stats.nbinom.logpmf)
def nbinom_logpmf(k, n, p, loc=0):
    wrong = np.logical_not(np.logical_and(np.greater(n, 0), np.logical_and(np.greater(p, 0), np.less_equal(p, 1))))
    k, whole, p, bad = trials(k, p, loc, wrong)
    n = np.where(bad, 1.0, n)
    inside = np.logical_and(whole, np.logical_and(np.greater_equal(k, 0), np.isfinite(k)))
    k = np.where(inside, k, 0.0)
    value = (scipy.special.gammaln(n + k) - scipy.special.gammaln(k + 1.0) - scipy.special.gammaln(n)
             + xlogy(n, p) + xlog1py(k, -p))
    return finish(value, bad, inside, -np.inf)


@implemented_by(scipy.stats.nbinom.pmf)
def nbinom_pmf(k, n, p, loc=0):
    return np.exp(nbinom_logpmf(k, n, p, loc))


# --------------------------------------------------------------------------
# uniform (support [loc, loc + scale]) and pareto (support z >= 1)


@implemented_by(scipy.stats.uniform.logpdf)
def uniform_logpdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    inside = np.logical_and(np.greater_equal(z, 0), np.less_equal(z, 1))
    return finish(np.zeros_like(z) - np.log(scale), bad, inside, -np.inf)


@implemented_by(scipy.stats.uniform.pdf)
def uniform_pdf(x, loc=0, scale=1):
    return np.exp(uniform_logpdf(x, loc, scale))


@implemented_by(scipy.stats.uniform.cdf)
def uniform_cdf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(np.where(np.less(z, 0), 0.0, np.where(np.greater(z, 1), 1.0, z)), bad, True, 0.0)


@implemented_by(scipy.stats.uniform.logcdf)
def uniform_logcdf(x, loc=0, scale=1):
    return log_of(uniform_cdf(x, loc, scale))


@implemented_by(scipy.stats.uniform.sf)
def uniform_sf(x, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    return finish(np.where(np.less(z, 0), 1.0, np.where(np.greater(z, 1), 0.0, 1.0 - z)), bad, True, 0.0)


@implemented_by(scipy.stats.uniform.logsf)
def uniform_logsf(x, loc=0, scale=1):
    return log_of(uniform_sf(x, loc, scale))


@implemented_by(scipy.stats.uniform.ppf)
def uniform_ppf(q, loc=0, scale=1):
    q, scale, bad = quantile(q, loc, scale)
    return finish(loc + scale * q, bad, True, 0.0)


@implemented_by(scipy.stats.pareto.logpdf)
def pareto_logpdf(x, b, loc=0, scale=1):
    z, scale, bad = scaled(x, loc, scale)
    b, wrong = positive(b)
    inside = np.logical_and(np.greater_equal(z, 1), np.isfinite(z))
    z = np.where(inside, z, 1.0)
    return finish(np.log(b) - (b + 1.0) * np.log(z) - np.log(scale), np.logical_or(bad, wrong), inside, -np.inf)


@implemented_by(scipy.stats.pareto.pdf)
def pareto_pdf(x, b, loc=0, scale=1):
    return np.exp(pareto_logpdf(x, b, loc, scale))


# --------------------------------------------------------------------------
# multivariate_normal


def mvn_dim(mean, cov):
    """The dimension SciPy reads off ``mean`` and ``cov``."""
    if mean is not None:
        return int(np.size(mean))
    return 1 if np.ndim(cov) < 2 else int(np.shape(cov)[0])


nondifferentiable(mvn_dim)


def mvn_range(cov, allow_singular):
    """Orthonormal bases (columns) of the range of the covariance matrix
    ``cov`` and of its complement (the directions off the support), as
    SciPy's ``_PSD`` finds them (eigenvalues above its tolerance ``eps``),
    and ``1000 eps``, its tolerance off the support; ``(None, None, 0)``
    where ``cov`` has full rank. SciPy's errors: ``ValueError`` for a
    matrix that is not positive semidefinite, ``LinAlgError`` for a
    singular one unless ``allow_singular``."""
    s, u = scipy.linalg.eigh(cov, lower=True)
    eps = _multivariate._eigvalsh_to_eps(s)
    if np.min(s) < -eps:
        raise ValueError("The input matrix must be symmetric positive semidefinite.")
    if np.all(s > eps):
        return None, None, 0.0
    if not allow_singular:
        raise np.linalg.LinAlgError("When `allow_singular is False`, the input matrix must be symmetric positive "
                                    "definite.")
    return u[:, s > eps], u[:, s <= eps], 1e3 * eps


def mvn_outside(dev, null, tol):
    """Where the deviation ``dev`` from the mean leaves the support: its
    component along ``null`` (the complement of the covariance's range)
    has a norm of ``tol`` or more (SciPy's test)."""
    return np.linalg.norm(dev @ null, axis=-1) >= tol


nondifferentiable(mvn_dim, mvn_range, mvn_outside)


def mvn_matrix(d, cov):
    """``cov`` as a ``d`` by ``d`` matrix (from a number or a diagonal);
    a matrix as SciPy reads it, symmetric from its lower triangle."""
    cov = np.asarray(cov)
    if np.ndim(cov) == 0:
        return cov * np.eye(d)
    if np.ndim(cov) == 1:
        return np.diag(cov)
    return np.tril(cov) + np.transpose(np.tril(cov, -1))


def mvn_log_det_and_whitened(cov, dev, basis):
    """``log pdet(cov)`` and ``L^-1 dev`` (a column per point), ``L`` the
    Cholesky factor of ``cov``, or of ``U^T cov U`` with ``dev``'s
    component ``U^T dev`` for a basis ``U`` of the range (see the module)."""
    if basis is not None:
        cov = np.transpose(basis) @ cov @ basis
        dev = dev @ basis
    chol = np.linalg.cholesky(cov)
    return 2.0 * np.sum(np.log(np.diagonal(chol))), np.linalg.solve(chol, np.expand_dims(dev, -1))


@implemented_by(scipy.stats.multivariate_normal.logpdf)
def multivariate_normal_logpdf(x, mean=None, cov=1, allow_singular=False):
    d = mvn_dim(mean, cov)
    mean = np.zeros(d) if mean is None else np.reshape(mean, (d,))
    cov = mvn_matrix(d, cov)
    if np.ndim(x) == 0:
        x = np.reshape(x, (1,))
    elif np.ndim(x) == 1 and d == 1:
        x = np.reshape(x, (-1, 1))
    dev = np.asarray(x) - mean
    basis, null, tol = mvn_range(cov, allow_singular)
    log_det, z = mvn_log_det_and_whitened(cov, dev, basis)
    rank = d if basis is None else np.shape(basis)[1]
    out = -0.5 * (rank * math.log(2 * math.pi) + log_det + np.sum(z * z, axis=(-2, -1)))
    if basis is not None:
        out = np.where(mvn_outside(dev, null, tol), -np.inf, out)
    return np.squeeze(out)[()]


@implemented_by(scipy.stats.multivariate_normal.pdf)
def multivariate_normal_pdf(x, mean=None, cov=1, allow_singular=False):
    return np.exp(multivariate_normal_logpdf(x, mean, cov, allow_singular))


@implemented_by(scipy.stats.multivariate_normal.entropy)
def multivariate_normal_entropy(mean=None, cov=1):
    d = mvn_dim(mean, cov)
    cov = mvn_matrix(d, cov)
    basis, _, _ = mvn_range(cov, True)
    log_det, _ = mvn_log_det_and_whitened(cov, np.zeros(d), basis)
    rank = d if basis is None else np.shape(basis)[1]
    return 0.5 * (rank * (math.log(2 * math.pi) + 1.0) + log_det)


# --------------------------------------------------------------------------
# dirichlet


def check_dirichlet(x, alpha):
    """Raise SciPy's ``ValueError`` where ``dirichlet.logpdf(x, alpha)``
    does (its own checks)."""
    _multivariate._dirichlet_check_input(_multivariate._dirichlet_check_parameters(alpha), x)


nondifferentiable(check_dirichlet)


@implemented_by(scipy.stats.dirichlet.logpdf)
def dirichlet_logpdf(x, alpha):
    check_dirichlet(x, alpha)
    if np.shape(x)[0] != np.shape(alpha)[0]:
        x = np.concatenate((x, np.expand_dims(1.0 - np.sum(x, 0), 0)), axis=0)
    log_beta = np.sum(scipy.special.gammaln(alpha)) - scipy.special.gammaln(np.sum(alpha))
    return np.squeeze(np.sum(xlogy(alpha - 1.0, np.transpose(x)), -1) - log_beta)[()]


@implemented_by(scipy.stats.dirichlet.pdf)
def dirichlet_pdf(x, alpha):
    return np.exp(dirichlet_logpdf(x, alpha))
