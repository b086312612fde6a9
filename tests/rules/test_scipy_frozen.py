"""Frozen scipy.stats distributions (:mod:`zygote_py.rules.scipy_frozen`):
``norm(loc, scale).logpdf(x)`` is ``norm.logpdf(x, loc, scale)``, made inside
the differentiated function from differentiated parameters or outside it
and captured; checked against SciPy's values and against central finite
differences in reverse and forward mode and at second order
(:mod:`.ordercheck`)."""
import numpy as np
import pytest

scipy = pytest.importorskip("scipy")
import scipy.stats as st  # noqa: E402

import zygote_py as zpy  # noqa: E402
from zygote_py import registry  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402

from .npcheck import difference_gradient  # noqa: E402
from .ordercheck import check_orders  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error")

X = np.array([0.3, 0.7, 1.4])

# a distribution frozen with (x's scale, loc, scale, shapes): every method that has a formula
FROZEN = {
    "norm": (1.0, lambda loc, scale: st.norm(loc, scale)),
    "cauchy": (1.0, lambda loc, scale: st.cauchy(loc, scale=scale)),
    "laplace": (1.0, lambda loc, scale: st.laplace(loc=loc, scale=scale)),
    "logistic": (1.0, lambda loc, scale: st.logistic(loc, scale)),
    "expon": (1.0, lambda loc, scale: st.expon(loc, scale)),
    "t": (1.0, lambda loc, scale, df: st.t(df, loc, scale)),
    "gamma": (1.0, lambda loc, scale, a: st.gamma(a, loc=loc, scale=scale)),
    "chi2": (1.0, lambda loc, scale, df: st.chi2(df, loc, scale)),
    "beta": (0.5, lambda loc, scale, a, b: st.beta(a, b, loc, scale=scale)),
}
SHAPES = {"t": (3.5,), "gamma": (1.7,), "chi2": (2.7,), "beta": (2.3, 1.4)}
METHODS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def implementation(bound):
    return registry.implementation(bound.__func__)


@pytest.mark.parametrize("name", FROZEN)
def test_values_are_scipys(name):
    s, make = FROZEN[name]
    rv = make(0.1, 0.9, *SHAPES.get(name, ()))
    for m in METHODS:
        np.testing.assert_allclose(implementation(getattr(rv, m))(rv, X * s), getattr(rv, m)(X * s), rtol=1e-12,
                                   err_msg=f"{name}.{m}")


def every(rv, x):
    """A loss using every method of the frozen ``rv`` that has a formula."""
    return (np.sum(rv.logpdf(x) ** 2) + np.sum(rv.pdf(x) ** 2) + np.sum(np.sin(rv.cdf(x)))
            + 0.5 * np.sum(rv.logcdf(x) ** 2) + np.sum(rv.sf(x) ** 3) - 0.3 * np.sum(rv.logsf(x)))


@pytest.mark.parametrize("name", FROZEN)
def test_made_inside_first_order(name):
    """In the point, loc, scale and the shape parameters (but where the
    distribution functions have no derivative in them: see scipy_stats)."""
    s, make = FROZEN[name]
    shapes = SHAPES.get(name, ())
    if name in ("t", "gamma", "chi2", "beta"):
        def f(x, loc, scale, *p):
            return every(make(loc, scale, *shapes), x) + np.sum(make(loc, scale, *p).logpdf(x) ** 2)
    else:
        def f(x, loc, scale):
            return every(make(loc, scale), x)
    check_orders(f, X * s, 0.1, 0.9, *shapes, second=False)


@pytest.mark.parametrize("name", ["norm", "gamma", "beta"])  # (no shape, one, two; each formula's second order
def test_made_inside_second_order(name):                      # is test_scipy_stats's, unfrozen)
    s, make = FROZEN[name]
    check_orders(lambda x, loc, scale, *p: np.sum(make(loc, scale, *p).logpdf(x) ** 2 + make(loc, scale, *p).pdf(x)),
                 X * s, 0.1, 0.9, *SHAPES.get(name, ()))


def test_gradients_are_the_unfrozen_ones():
    g = zpy.gradient(lambda x, loc, scale, df: st.t(df, loc, scale=scale).logpdf(x), 0.3, 0.1, 0.9, 3.5)
    want = zpy.gradient(lambda x, loc, scale, df: st.t.logpdf(x, df, loc, scale), 0.3, 0.1, 0.9, 3.5)
    assert g == pytest.approx(want, rel=1e-14)
    # freeze() is the call; defaults (loc 0) get nothing
    (ds,) = zpy.gradient(lambda s: st.norm.freeze(scale=s).logpdf(0.3), 2.0)
    assert ds == pytest.approx(-0.5 + 0.3 ** 2 / 8, rel=1e-14)


def test_quantiles():
    check_orders(lambda q, loc, scale: np.sum(st.norm(loc, scale).ppf(q) ** 2 + st.norm(loc, scale).isf(q)),
                 np.array([0.1, 0.4, 0.8]), 0.1, 0.9)
    check_orders(lambda q, loc, scale: np.sum(st.t(3.5, loc, scale).ppf(q) ** 2), np.array([0.1, 0.4, 0.8]), 0.1, 0.9)


def test_counts():
    k = np.array([0.0, 1.0, 3.0])
    rv = st.poisson(1.3, 1.0)
    for m in ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"):
        np.testing.assert_allclose(implementation(getattr(rv, m))(rv, k), getattr(rv, m)(k), rtol=1e-12)
    check_orders(lambda mu: np.sum(st.poisson(mu).logpmf(k) ** 2 + st.poisson(mu).pmf(k) + st.poisson(mu).cdf(k)),
                 1.3)
    check_orders(lambda p: np.sum(st.binom(5, p).logpmf(k) ** 2 + st.binom(n=5, p=p).pmf(k)), 0.3)
    check_orders(lambda n, p: np.sum(st.nbinom(n, p, loc=-1.0).logpmf(k + 1) ** 2), 2.5, 0.3)


def test_uniform():
    check_orders(lambda x, loc, scale: np.sum(st.uniform(loc, scale).logpdf(x) ** 2 + st.uniform(loc, scale).cdf(x) ** 2
                                              + st.uniform(scale=scale).ppf(x * 0.5)), X * 0.5, 0.1, 0.9)


def test_captured():
    """Made outside and captured (also by a closure, at second order): its
    arguments are constants."""
    rv, t = st.norm(0.2, 1.3), st.gamma(1.7, scale=0.8)
    check_orders(lambda x: every(rv, x) + every(t, x), X)

    def outer(x):
        def inner(y):
            return np.sum(rv.logpdf(y) * y)
        return zpy.gradient(inner, x)[0]
    np.testing.assert_allclose(outer(X), st.norm.logpdf(X, 0.2, 1.3) - X * (X - 0.2) / 1.3 ** 2, rtol=1e-13)
    (g,) = zpy.gradient(lambda x: np.sum(outer(x) ** 2), X)  # (reverse mode: forward mode refuses the closure)
    np.testing.assert_allclose(g, difference_gradient(lambda x: np.sum(outer(x) ** 2), (X,), 0), rtol=1e-6)


def spd(rng, d):
    a = rng.standard_normal((d, d))
    return a @ a.T + d * np.eye(d)


@pytest.mark.parametrize("kind", ["number", "diagonal", "matrix"])
def test_multivariate_normal(kind):
    rng = np.random.default_rng(3)
    cov = {"number": 1.5, "diagonal": np.array([1.0, 2.0, 0.5]), "matrix": spd(rng, 3)}[kind]
    x, mean = rng.standard_normal((4, 3)), rng.standard_normal(3) * 0.1
    rv = st.multivariate_normal(mean, cov)
    for m in ("logpdf", "pdf"):
        np.testing.assert_allclose(implementation(getattr(rv, m))(rv, x), getattr(rv, m)(x), rtol=1e-12)
    assert implementation(rv.entropy)(rv) == pytest.approx(rv.entropy(), rel=1e-12)
    check_orders(lambda x, m, c: np.sum(st.multivariate_normal(m, c).logpdf(x) ** 2)
                 + st.multivariate_normal(mean=m, cov=c).entropy(), x, mean, cov)
    g = zpy.gradient(lambda m, c: np.sum(st.multivariate_normal(m, c).logpdf(x)), mean, cov)
    want = zpy.gradient(lambda m, c: np.sum(st.multivariate_normal.logpdf(x, m, c)), mean, cov)
    for a, b in zip(g, want):
        np.testing.assert_allclose(a, b, rtol=1e-13)
        assert np.shape(a) == np.shape(b)  # (a number cov gets a number)
    check_orders(lambda x: np.sum(rv.pdf(x)), x)  # captured


def test_dirichlet():
    rng = np.random.default_rng(4)
    x, alpha = np.array([0.2, 0.3, 0.5]), np.array([1.5, 2.0, 3.0])
    rv = st.dirichlet(alpha)
    assert implementation(rv.logpdf)(rv, x) == pytest.approx(rv.logpdf(x), rel=1e-12)
    check_orders(lambda u, a: st.dirichlet(a).logpdf(np.exp(u) / np.sum(np.exp(u))) ** 2 + st.dirichlet(a).pdf(x),
                 rng.standard_normal(3), alpha)


def test_what_has_no_formula_is_named():
    with pytest.raises(NoDerivativeRule, match="scipy.stats.skewnorm.logpdf"):
        zpy.gradient(lambda x: st.skewnorm(2.0).logpdf(x), 0.3)
    with pytest.raises(NoDerivativeRule, match="scipy.stats.skewnorm.logpdf"):
        zpy.jvp(lambda loc: st.skewnorm(2.0, loc).logpdf(0.3), (0.3,), (1.0,))
    with pytest.raises(NoDerivativeRule, match="rv_frozen.mean"):
        zpy.gradient(lambda loc: st.norm(loc, 1.0).mean(), 0.3)
