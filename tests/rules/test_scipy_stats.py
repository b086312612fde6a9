"""scipy.stats distributions differentiated through their formulas
(:mod:`zygote_py.rules.scipy_stats`): the formulas give SciPy's values,
support and invalid parameters included, and their derivatives are checked
against central finite differences in reverse and forward mode and at
second order (:mod:`.ordercheck`)."""
import warnings

import numpy as np
import pytest

scipy = pytest.importorskip("scipy")
import scipy.stats as st  # noqa: E402

import zygote_py as zpy  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402
from zygote_py import registry  # noqa: E402

from .ordercheck import check_orders  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error")

METHODS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]
# distribution, its shape parameters, where x is drawn from (inside the support with loc 0.1, scale 0.9)
CONTINUOUS = {
    "norm": ((), (-2.0, 2.0)),
    "cauchy": ((), (-2.0, 2.0)),
    "laplace": ((), (-2.0, 2.0)),
    "logistic": ((), (-2.0, 2.0)),
    "expon": ((), (0.3, 2.5)),
    "t": ((3.5,), (-2.0, 2.0)),
    "gamma": ((1.7,), (0.3, 2.5)),
    "chi2": ((2.7,), (0.3, 2.5)),
    "beta": ((2.3, 1.4), (0.2, 0.9)),
}
POINTS = np.array([-1.5, -0.3, 0.0, 0.1, 0.2, 0.7, 1.0, 2.5, np.nan, np.inf, -np.inf])


def formula(method):
    return registry.implementation(method)


def scipy_value(method, *args, **kwargs):
    with warnings.catch_warnings():  # (SciPy warns at scale 0)
        warnings.simplefilter("ignore")
        return method(*args, **kwargs)


@pytest.mark.parametrize("name", CONTINUOUS)
def test_values_are_scipys(name):
    shapes, _ = CONTINUOUS[name]
    dist = getattr(st, name)
    for m in METHODS:
        method = getattr(dist, m)
        ours = formula(method)
        for loc, scale in [(0, 1), (0.1, 0.9), (0.3, -1.0), (0.0, 0.0)]:
            got = ours(POINTS, *shapes, loc, scale)
            want = scipy_value(method, POINTS, *shapes, loc, scale)
            if name in ("gamma", "chi2") and m in ("logpdf", "pdf"):  # (SciPy: nan at inf, see the module)
                got, want = got[np.isfinite(POINTS)], want[np.isfinite(POINTS)]
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=f"{name}.{m} at {loc}, {scale}")
        assert type(ours(0.4, *shapes)) is type(method(0.4, *shapes))  # np.float64 for scalars
    if shapes:  # a shape parameter out of range: nan
        bad = (-1.0,) + shapes[1:]
        np.testing.assert_array_equal(formula(dist.logpdf)(0.4, *bad), scipy_value(dist.logpdf, 0.4, *bad))


def test_keywords_and_defaults():
    f = formula(st.norm.logpdf)
    assert f(0.3, scale=2.0) == pytest.approx(st.norm.logpdf(0.3, scale=2.0), rel=1e-14)
    assert formula(st.t.cdf)(0.3, df=4.0, loc=0.1) == pytest.approx(st.t.cdf(0.3, df=4.0, loc=0.1), rel=1e-14)
    assert formula(st.gamma.logpdf)([0.3, 1.2], a=2.0)[1] == pytest.approx(st.gamma.logpdf(1.2, a=2.0), rel=1e-14)
    (dx, dloc, dscale) = zpy.gradient(lambda x, loc, s: st.norm.logpdf(x, loc=loc, scale=s), 0.3, 0.1, 2.0)
    assert (dx, dloc, dscale) == pytest.approx((-0.05, 0.05, -0.495), rel=1e-13)


def at(method, x, loc, scale, shapes):
    # (spelt out: f(*shapes, x) misplaces the gradients of the arguments after the starred ones, a compiler bug)
    if len(shapes) == 0:
        return method(x, loc, scale)
    if len(shapes) == 1:
        return method(x, shapes[0], loc, scale)
    return method(x, shapes[0], shapes[1], loc, scale)


def every(d, x, loc, scale, shapes):
    """A loss using every method of the distribution ``d``."""
    return (np.sum(at(d.logpdf, x, loc, scale, shapes)) + np.sum(at(d.pdf, x, loc, scale, shapes) ** 2)
            + np.sum(np.sin(at(d.cdf, x, loc, scale, shapes))) + 0.5 * np.sum(at(d.logcdf, x, loc, scale, shapes))
            + np.sum(at(d.sf, x, loc, scale, shapes) ** 3) - 0.3 * np.sum(at(d.logsf, x, loc, scale, shapes)))


# every method, differentiated in the point, loc, scale and (but for the distribution functions of t, gamma,
# beta) the shape parameters
FIRST = {
    "norm": lambda x, loc, scale: every(st.norm, x, loc, scale, ()),
    "cauchy": lambda x, loc, scale: every(st.cauchy, x, loc, scale, ()),
    "laplace": lambda x, loc, scale: every(st.laplace, x, loc, scale, ()),
    "logistic": lambda x, loc, scale: every(st.logistic, x, loc, scale, ()),
    "expon": lambda x, loc, scale: every(st.expon, x, loc, scale, ()),
    "t": lambda x, loc, scale, df: every(st.t, x, loc, scale, (3.5,)) + np.sum(st.t.logpdf(x, df, loc, scale) * df),
    "gamma": lambda x, loc, scale, a: (every(st.gamma, x, loc, scale, (1.7,))
                                       + np.sum(st.gamma.pdf(x, a, loc, scale) * a)),
    "chi2": lambda x, loc, scale, df: (every(st.chi2, x, loc, scale, (2.7,))
                                       + np.sum(st.chi2.logpdf(x, df, loc, scale) * df)),
    "beta": lambda x, loc, scale, a, b: (every(st.beta, x, loc, scale, (2.3, 1.4))
                                         + np.sum(np.sin(st.beta.logpdf(x, a, b, loc, scale)) * a)),
}


@pytest.mark.parametrize("name", CONTINUOUS)
def test_first_order(name):
    shapes, (lo, hi) = CONTINUOUS[name]
    x = np.random.default_rng(1).uniform(lo, hi, (3,)) * 0.9 + 0.1
    check_orders(FIRST[name], x, 0.1, 0.9, *shapes, second=False)


SECOND = {
    "norm": lambda x, loc, s: np.sum(st.norm.logpdf(x, loc, s) ** 2 + st.norm.logcdf(x, loc, s)),
    "cauchy": lambda x, loc, s: np.sum(st.cauchy.logpdf(x, loc, s) ** 2 + st.cauchy.cdf(x, loc, s) ** 2),
    "laplace": lambda x, loc, s: np.sum(st.laplace.logpdf(x, loc, s) ** 2 + st.laplace.logsf(x, loc, s) ** 2),
    "logistic": lambda x, loc, s: np.sum(st.logistic.logpdf(x, loc, s) ** 2 + st.logistic.logcdf(x, loc, s) ** 2),
    "expon": lambda x, loc, s: np.sum(st.expon.logpdf(x, loc, s) ** 2 + st.expon.logcdf(x, loc, s) ** 2),
    "t": lambda x, loc, s, df: np.sum(st.t.logpdf(x, df, loc, s) ** 2 + st.t.cdf(x, 3.5, loc, s) ** 2),
    "gamma": lambda x, loc, s, a: np.sum(st.gamma.logpdf(x, a, loc, s) ** 2 + st.gamma.logsf(x, 1.7, loc, s) ** 2),
    "chi2": lambda x, loc, s, df: np.sum(st.chi2.logpdf(x, df, loc, s) ** 2 + st.chi2.cdf(x, 2.7, loc, s) ** 2),
    "beta": lambda x, loc, s, a, b: np.sum(st.beta.logpdf(x, a, b, loc, s) ** 2 + st.beta.cdf(x, 2.3, 1.4, loc, s)),
}


@pytest.mark.parametrize("name", CONTINUOUS)
def test_second_order(name):
    shapes, (lo, hi) = CONTINUOUS[name]
    x = float(np.random.default_rng(2).uniform(lo, hi)) * 0.9 + 0.1  # (arrays: test_first_order)
    check_orders(SECOND[name], x, 0.1, 0.9, *shapes)


def test_shape_parameters_of_distribution_functions_get_nan():
    (g,) = zpy.gradient(lambda a: st.gamma.cdf(1.2, a), 1.7)
    assert np.isnan(g)
    (g,) = zpy.gradient(lambda x: st.gamma.cdf(x, 1.7), 1.2)
    assert g == pytest.approx(st.gamma.pdf(1.2, 1.7), rel=1e-13)


def test_outside_the_support_the_gradient_is_zero():
    grads = zpy.gradient(lambda x, a, s: st.gamma.logpdf(x, a, 0.0, s) + st.beta.cdf(x, a, 2.0, 0.0, s), -0.5, 1.5, 1.0)
    assert grads == (0.0, 0.0, 0.0)
    assert zpy.gradient(lambda s: st.norm.logpdf(0.3, 0.0, s), -1.0) == (0.0,)


# --------------------------------------------------------------------------
# quantiles

QUANTILES = [(st.norm.ppf, ()), (st.norm.isf, ()), (st.t.ppf, (3.5,))]


@pytest.mark.parametrize("method, shapes", QUANTILES, ids=["norm.ppf", "norm.isf", "t.ppf"])
def test_quantile_values_are_scipys(method, shapes):
    q = np.array([-0.2, 0.0, 0.05, 0.3, 0.5, 0.9, 1.0, 1.3, np.nan])
    for loc, scale in [(0, 1), (0.1, 0.9), (0.3, -1.0), (0.0, 0.0)]:
        np.testing.assert_allclose(formula(method)(q, *shapes, loc, scale), scipy_value(method, q, *shapes, loc, scale),
                                   rtol=1e-12, err_msg=f"{method} at {loc}, {scale}")
    assert type(formula(method)(0.4, *shapes)) is type(method(0.4, *shapes))


def quantiles(q, loc, scale, df):
    return (np.sum(np.sin(st.norm.ppf(q, loc, scale)) * np.arange(1.0, 1.0 + np.size(q)))
            + np.sum(st.norm.isf(q, loc, scale) ** 2) + np.sum(np.cos(st.t.ppf(q, 3.5, loc, scale))))


def test_quantile_derivatives():
    q = np.array([0.1, 0.45, 0.8])
    check_orders(quantiles, q, 0.2, 1.3, 3.5)
    # broadcasting, as autograd checks it: q (4, 3), loc (1, 3), scale (4, 1)
    rng = np.random.default_rng(8)
    check_orders(lambda q, loc, s: np.sum(np.sin(st.norm.ppf(q, loc, s)) + st.norm.isf(q, loc=loc, scale=s) ** 2),
                 rng.uniform(0.05, 0.95, (4, 3)), rng.standard_normal((1, 3)), rng.uniform(0.5, 2, (4, 1)), second=False)


def test_quantile_slopes():
    q = 0.3
    assert zpy.gradient(lambda q: st.norm.ppf(q, 0.2, 1.5), q)[0] == pytest.approx(1.5 / st.norm.pdf(
        st.norm.ppf(q), 0, 1), rel=1e-13)
    assert zpy.gradient(lambda q: st.t.ppf(q, 3.5), q)[0] == pytest.approx(1 / st.t.pdf(st.t.ppf(q, 3.5), 3.5),
                                                                           rel=1e-12)
    assert np.isnan(zpy.gradient(lambda df: st.t.ppf(q, df), 3.5)[0])  # (no closed form in df)
    assert zpy.gradient(lambda q: st.norm.ppf(q), 1.0)[0] == np.inf


# --------------------------------------------------------------------------
# poisson


def test_poisson_values_are_scipys():
    k = np.array([-1.0, 0.0, 1.0, 2.5, 3.0, 7.0, np.nan, -np.inf])
    for m in ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"]:
        method = getattr(st.poisson, m)
        for mu, loc in [(2.2, 0), (0.7, 1), (0.0, 0), (-1.0, 0)]:
            np.testing.assert_allclose(formula(method)(k, mu, loc), scipy_value(method, k, mu, loc), rtol=1e-12,
                                       err_msg=f"poisson.{m} at mu={mu}, loc={loc}")
    at_infinity = {"logpmf": -np.inf, "pmf": 0.0, "cdf": 1.0, "logcdf": 0.0, "sf": 0.0, "logsf": -np.inf}
    for m, want in at_infinity.items():  # (SciPy's logpmf and pmf: nan, see the module)
        assert formula(getattr(st.poisson, m))(np.inf, 2.2) == want


def test_poisson_derivatives_in_mu():
    k = np.array([0.0, 1.0, 4.0])
    check_orders(lambda mu: np.sum(st.poisson.pmf(k, mu) + st.poisson.logcdf(k, mu) + np.sin(st.poisson.sf(k, mu))
                                   + st.poisson.logsf(k, mu)), 2.3, second=False)
    check_orders(lambda mu: np.sum(st.poisson.logpmf(k, mu) ** 2 + st.poisson.cdf(k, mu) ** 2), 2.3)
    dk, dmu = zpy.gradient(lambda k, mu: st.poisson.logpmf(k, mu), 3.0, 2.0)
    assert dk in (None, 0.0) and dmu == pytest.approx(0.5, rel=1e-14)


# --------------------------------------------------------------------------
# binom, bernoulli, geom, nbinom


COUNTS = {  # distribution, its parameters (valid and not)
    "binom": [(5, 0.3), (5.5, 0.3), (5, 1.2), (5, 0.0), (5, 1.0), (0, 0.4), (-1, 0.4)],
    "bernoulli": [(0.3,), (0.0,), (1.0,), (1.5,)],
    "geom": [(0.3,), (1.0,), (0.0,)],
    "nbinom": [(2.5, 0.3), (1, 1.0), (0, 0.3), (2.5, 0.0)],
}


@pytest.mark.parametrize("name", COUNTS)
def test_count_values_are_scipys(name):
    k = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 7.0, np.nan, -np.inf])
    dist = getattr(st, name)
    for m in ("logpmf", "pmf"):
        for params in COUNTS[name]:
            for loc in (0, 1):
                np.testing.assert_allclose(formula(getattr(dist, m))(k, *params, loc),
                                           scipy_value(getattr(dist, m), k, *params, loc), rtol=1e-12,
                                           err_msg=f"{name}.{m}{params} at loc={loc}")


def test_count_derivatives():
    k = np.array([0.0, 1.0, 3.0])
    check_orders(lambda p: np.sum(st.binom.logpmf(k, 5, p) ** 2 + st.binom.pmf(k, 5, p)), 0.3)
    check_orders(lambda p: np.sum(st.bernoulli.logpmf(np.array([0.0, 1.0]), p) ** 2) + st.bernoulli.pmf(1, p), 0.3)
    check_orders(lambda p: np.sum(st.geom.logpmf(k + 1, p) ** 2 + st.geom.pmf(k + 1, p)), 0.3)
    check_orders(lambda n, p: np.sum(st.nbinom.logpmf(k, n, p) ** 2 + st.nbinom.pmf(k, n, p)), 2.5, 0.3)
    dn, dp = zpy.gradient(lambda n, p: st.binom.logpmf(2.0, n, p), 5.0, 0.25)
    assert dn in (None, 0.0) and dp == pytest.approx(2 / 0.25 - 3 / 0.75, rel=1e-14)  # (n is a count)


# --------------------------------------------------------------------------
# uniform, pareto; the quantiles of cauchy and logistic


@pytest.mark.parametrize("name, shapes, methods", [
    ("uniform", (), ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]),
    ("pareto", (2.5,), ["logpdf", "pdf"]),
    ("cauchy", (), ["ppf", "isf"]),
    ("logistic", (), ["ppf", "isf"]),
])
def test_more_values_are_scipys(name, shapes, methods):
    x = np.array([-1.0, -0.1, 0.0, 0.1, 0.5, 0.9, 1.0, 1.5, 3.0, np.nan, np.inf, -np.inf])
    dist = getattr(st, name)
    for m in methods:
        for loc, scale in [(0, 1), (0.1, 0.9), (0.3, -1.0), (0.0, 0.0)]:
            np.testing.assert_allclose(formula(getattr(dist, m))(x, *shapes, loc, scale),
                                       scipy_value(getattr(dist, m), x, *shapes, loc, scale), rtol=1e-12,
                                       err_msg=f"{name}.{m} at {loc}, {scale}")


def test_more_derivatives():
    x = np.array([0.2, 0.5, 0.8])
    check_orders(lambda x, loc, s: np.sum(st.uniform.logpdf(x, loc, s) ** 2 + st.uniform.cdf(x, loc, s) ** 2
                                          + st.uniform.logsf(x, loc, s) + st.uniform.ppf(x, loc, s) ** 2
                                          + st.uniform.logcdf(x, loc, s) + st.uniform.pdf(x, loc, s) * x
                                          + st.uniform.sf(x, loc, s) ** 3), x, 0.1, 0.9)
    check_orders(lambda x, b, loc, s: np.sum(st.pareto.logpdf(x, b, loc, s) ** 2 + st.pareto.pdf(x, b, loc, s)),
                 x + 1.2, 2.5, 0.1, 0.9)
    check_orders(lambda q, loc, s: np.sum(st.cauchy.ppf(q, loc, s) ** 2 + st.cauchy.isf(q, loc, s)), x, 0.1, 0.9)
    check_orders(lambda q, loc, s: np.sum(st.logistic.ppf(q, loc, s) ** 2 + st.logistic.isf(q, loc, s)), x, 0.1, 0.9)
    (dq,) = zpy.gradient(lambda q: st.logistic.ppf(q, 0.0, 2.0), 0.25)
    assert dq == pytest.approx(2.0 / (0.25 * 0.75), rel=1e-14)


# --------------------------------------------------------------------------
# multivariate_normal


def spd(rng, d):
    a = rng.standard_normal((d, d))
    return a @ a.T + d * np.eye(d)


@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 4, 3)])
@pytest.mark.parametrize("cov_kind", ["matrix", "vector", "number"])
def test_multivariate_normal_values(shape, cov_kind):
    rng = np.random.default_rng(3)
    x, mean = rng.standard_normal(shape), rng.standard_normal(3)
    cov = {"matrix": spd(rng, 3), "vector": rng.uniform(0.5, 2, 3), "number": 1.7}[cov_kind]
    for m in ("logpdf", "pdf"):
        method = getattr(st.multivariate_normal, m)
        np.testing.assert_allclose(formula(method)(x, mean, cov), method(x, mean, cov), rtol=1e-12)
        if cov_kind == "matrix":  # (SciPy reads d = 1 off a number or vector without a mean)
            np.testing.assert_allclose(formula(method)(x, cov=cov), method(x, cov=cov), rtol=1e-12)
    one = formula(st.multivariate_normal.logpdf)(np.array([0.4, -0.2]), None, 2.0)
    assert one == pytest.approx(st.multivariate_normal.logpdf([0.4, -0.2], None, 2.0), rel=1e-13)
    assert formula(st.multivariate_normal.logpdf)([0.3, 1.2], 0.5, 2.0) == pytest.approx(
        st.multivariate_normal.logpdf([0.3, 1.2], 0.5, 2.0), rel=1e-13)  # d = 1: two points


def test_multivariate_normal_derivatives():
    rng = np.random.default_rng(4)
    x, mean, a = rng.standard_normal((2, 2)), rng.standard_normal(2), rng.standard_normal((2, 2))

    def loss(x, mean, a):  # cov = a a^T + 2 I: every perturbation of a perturbs cov symmetrically
        return np.sum(st.multivariate_normal.logpdf(x, mean, a @ a.T + 2 * np.eye(2)) ** 2) \
            + st.multivariate_normal.pdf(x[0], mean, a @ a.T + 2 * np.eye(2))

    check_orders(loss, x, mean, a)


def on_lower_triangle(g):
    """The gradient with respect to the lower triangle of a symmetric
    matrix whose symmetric gradient is ``g``."""
    return np.tril(2 * g, -1) + np.diag(np.diag(g))


def test_multivariate_normal_cov_gradient_is_on_the_lower_triangle():
    """SciPy reads ``cov``'s lower triangle: so does the gradient, checked
    at a non-symmetric ``cov`` entry by entry against SciPy's own values."""
    rng = np.random.default_rng(5)
    x, cov = rng.standard_normal(3), spd(rng, 3)
    (g,) = zpy.gradient(lambda c: st.multivariate_normal.logpdf(x, None, c), cov)
    inv = np.linalg.inv(cov)
    np.testing.assert_allclose(g, on_lower_triangle(0.5 * (inv @ np.outer(x, x) @ inv - inv)), rtol=1e-12)
    lopsided = cov + np.triu(rng.standard_normal((3, 3)), 1)
    assert st.multivariate_normal.logpdf(x, None, lopsided) == pytest.approx(st.multivariate_normal.logpdf(x, None, cov))
    (g2,) = zpy.gradient(lambda c: st.multivariate_normal.logpdf(x, None, c), lopsided)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    want = np.zeros((3, 3))
    for i, j in np.ndindex(3, 3):
        e = np.zeros((3, 3))
        e[i, j] = 1e-6
        want[i, j] = (st.multivariate_normal.logpdf(x, None, lopsided + e)
                      - st.multivariate_normal.logpdf(x, None, lopsided - e)) / 2e-6
    np.testing.assert_allclose(g2, want, rtol=1e-6, atol=1e-8)
    check_orders(lambda c: st.multivariate_normal.logpdf(x, None, c) ** 2, lopsided)


def singular_cov():
    a = np.array([[1.0, 0.3], [0.2, 1.5], [0.5, -0.4]])  # rank 2 of 3
    return a @ a.T


def test_multivariate_normal_allow_singular_values():
    rng = np.random.default_rng(9)
    cov, mean = singular_cov(), rng.standard_normal(3)
    vectors = np.linalg.svd(cov)[0]
    x = mean + 0.5 * rng.standard_normal((5, 2)) @ vectors[:, :2].T  # in the support
    x[1] += 0.1 * vectors[:, 2]  # not
    for m in ("logpdf", "pdf"):
        method = getattr(st.multivariate_normal, m)
        want = method(x, mean, cov, allow_singular=True)
        assert want[1] in (-np.inf, 0.0)
        np.testing.assert_allclose(formula(method)(x, mean, cov, True), want, rtol=1e-10)
        s = spd(rng, 3)  # full rank: the same as without allow_singular
        np.testing.assert_allclose(formula(method)(x, None, s, True), method(x, None, s), rtol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        zpy.gradient(lambda m: st.multivariate_normal.logpdf(x[0], m, cov), mean)
    with pytest.raises(ValueError, match="semidefinite"):
        zpy.gradient(lambda m: st.multivariate_normal.logpdf(x[0], m, -cov, allow_singular=True), mean)


def test_multivariate_normal_allow_singular_derivatives():
    """Along perturbations that keep the support (autograd's test moves x
    and the mean in the range only), and in cov, perturbed in the range."""
    rng = np.random.default_rng(10)
    cov = singular_cov()
    basis = np.linalg.svd(cov)[0][:, :2]
    mean = rng.standard_normal(3)
    u, b = rng.standard_normal(2), rng.standard_normal((2, 2))

    def loss(u, m2, b):  # x = mean + basis u, mean = basis m2 + const, cov = basis (b b^T + I) basis^T + cov
        c = cov + basis @ (b @ b.T + np.eye(2)) @ basis.T
        mu = mean + basis @ m2
        return (st.multivariate_normal.logpdf(mu + basis @ u, mu, c, allow_singular=True) ** 2
                + st.multivariate_normal.pdf(mean + basis @ u, mu, c, allow_singular=True))

    check_orders(loss, u, rng.standard_normal(2), b)
    # the gradient in x is the pseudo-inverse's
    x = mean + basis @ u
    (g,) = zpy.gradient(lambda x: st.multivariate_normal.logpdf(x, mean, cov, allow_singular=True), x)
    np.testing.assert_allclose(g, -np.linalg.pinv(cov) @ (x - mean), rtol=1e-10, atol=1e-12)


def test_multivariate_normal_entropy():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 3))
    for mean, cov in ((None, spd(rng, 3)), (None, singular_cov()), (np.zeros(2), np.array([0.5, 2.0])), (None, 1.7)):
        ours = formula(st.multivariate_normal.entropy)(mean, cov)
        assert ours == pytest.approx(st.multivariate_normal.entropy(mean, cov), rel=1e-11)
    s = spd(rng, 3)
    (g,) = zpy.gradient(lambda c: st.multivariate_normal.entropy(cov=c), s)
    np.testing.assert_allclose(g, on_lower_triangle(0.5 * np.linalg.inv(s)), rtol=1e-12)  # the analytic gradient
    check_orders(lambda a: st.multivariate_normal.entropy(np.zeros(3), a @ a.T + np.eye(3)) ** 2, a)


# --------------------------------------------------------------------------
# dirichlet


def softmax(u):
    e = np.exp(u - np.max(u, axis=0))
    return e / np.sum(e, axis=0)


def test_dirichlet_values():
    rng = np.random.default_rng(6)
    alpha = rng.uniform(0.5, 3, 4)
    for x in (softmax(rng.standard_normal(4)), softmax(rng.standard_normal((4, 3)))):
        for m in ("logpdf", "pdf"):
            method = getattr(st.dirichlet, m)
            np.testing.assert_allclose(formula(method)(x, alpha), method(x, alpha), rtol=1e-12)
            np.testing.assert_allclose(formula(method)(x[:-1], alpha), method(x[:-1], alpha), rtol=1e-12)
    with pytest.raises(ValueError, match="simplex"):
        zpy.gradient(lambda a: st.dirichlet.logpdf(np.array([0.3, 0.3, 0.3]), a), alpha[:3])


def test_dirichlet_derivatives():
    rng = np.random.default_rng(7)
    check_orders(lambda u, alpha: np.sum(st.dirichlet.logpdf(softmax(u), alpha) ** 2)
                 + st.dirichlet.pdf(softmax(u[:, 0]), alpha), rng.standard_normal((3, 2)), rng.uniform(0.5, 3, 3))
    alpha, x = np.array([1.5, 2.0, 3.0]), np.array([0.2, 0.3, 0.5])
    (g,) = zpy.gradient(lambda a: st.dirichlet.logpdf(x, a), alpha)
    from scipy.special import digamma
    np.testing.assert_allclose(g, np.log(x) - digamma(alpha) + digamma(np.sum(alpha)), rtol=1e-13)


# --------------------------------------------------------------------------
# What is not covered (frozen distributions are: test_scipy_frozen.py)


def test_a_method_without_a_formula_is_named():
    with pytest.raises(NoDerivativeRule, match="scipy.stats.skewnorm.logpdf"):
        zpy.gradient(lambda x: st.skewnorm.logpdf(x, 2.0), 0.3)
