"""The distributions of :mod:`zygote_py.rules.scipy_stats_more`: SciPy's
values (support and invalid parameters included), then their derivatives
against central finite differences in both modes and at second order
(:mod:`.ordercheck`)."""
import warnings

import numpy as np
import pytest

scipy = pytest.importorskip("scipy")
import scipy.stats as st  # noqa: E402

import zygote_py as zpy  # noqa: E402
from zygote_py import registry  # noqa: E402

from .ordercheck import check_orders  # noqa: E402

POINTS = np.array([-1.5, -0.3, 0.0, 0.1, 0.2, 0.7, 1.0, 2.5, 4.0, 6.5, np.nan, np.inf, -np.inf])
CASES = [
    ("truncnorm", (-0.5, 1.2), ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("truncnorm", (0.5, 2.2), ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),  # (bounds in the upper tail)
    ("gennorm", (1.7,), ["logpdf", "pdf", "cdf"]),
    ("vonmises", (1.5,), ["logpdf", "pdf"]),
    ("wrapcauchy", (0.4,), ["logpdf", "pdf"]),
]


@pytest.mark.parametrize("name, shapes, methods", CASES)
def test_values_are_scipys(name, shapes, methods):
    dist = getattr(st, name)
    for method in methods:
        formula = registry.implementation(getattr(dist, method))
        assert formula is not None, method
        for loc, scale in [(0, 1), (0.3, 1.7), (0.1, -1.0)]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = getattr(dist, method)(POINTS, *shapes, loc, scale)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (the formulas warn nowhere)
                got = formula(POINTS, *shapes, loc, scale)
            np.testing.assert_allclose(got, want, rtol=1e-10, equal_nan=True, err_msg=f"{name}.{method}")


def test_bernoulli_distribution_function_values():
    for method in ("cdf", "logcdf", "sf"):
        for p in (0.3, 0.0, 1.0) + ((1.5,) if method != "logcdf" else ()):  # (SciPy's logcdf is 0 above 1 there)
            for loc in (0, 1):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = getattr(st.bernoulli, method)(POINTS, p, loc)
                got = registry.implementation(getattr(st.bernoulli, method))(POINTS, p, loc)
                np.testing.assert_allclose(got, want, equal_nan=True, err_msg=method)


X = np.array([-0.2, 0.3, 0.9])


def test_truncnorm_derivatives_in_the_point_loc_scale_and_bounds():
    def f(x, a, b, loc, s):
        # (pdf, logcdf and sf are logpdf's, cdf's and logsf's formulas, exp'd or logged)
        return np.sum(st.truncnorm.logpdf(x, a, b, loc, s) + st.truncnorm.cdf(x, a, b, loc, s) ** 2
                      + st.truncnorm.logsf(x, a, b, loc, s))

    check_orders(f, X, -0.9, 1.3, 0.1, 1.2, second=False)
    check_orders(lambda x, a: f(x, a, 1.3, 0.1, 1.2), 0.3, -0.9)  # (second order: the point and a bound)

    def upper(x, b):  # bounds in the upper tail
        return np.sum(st.truncnorm.logpdf(x, 0.5, b) + st.truncnorm.cdf(x, 0.5, b))

    check_orders(upper, np.array([0.6, 1.1]), 2.2, second=False)


def test_gennorm_vonmises_wrapcauchy_derivatives():
    for dist, shape in [(st.gennorm, 1.7), (st.vonmises, 1.5), (st.wrapcauchy, 0.4)]:
        def f(x, c, loc, s, dist=dist):
            return np.sum(dist.logpdf(x, c, loc, s) + dist.pdf(x, c, loc, s) ** 2)

        check_orders(f, X + 1.0, shape, 0.05, 1.3, second=False)
        check_orders(lambda x, c: f(x, c, 0.05, 1.3), 1.3, shape)
    check_orders(lambda x, loc, s: np.sum(st.gennorm.cdf(x, 1.7, loc, s)), X, 0.05, 1.3, second=False)


def test_bernoulli_distribution_function_derivatives_in_p():
    k = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    check_orders(lambda p: np.sum(st.bernoulli.cdf(k, p) ** 2) + np.sum(st.bernoulli.logcdf(k[1:], p))
                  + np.sum(st.bernoulli.sf(k, p) ** 3), 0.3)


def test_bernoulli_ppf_values_and_zero_gradient():
    q = np.array([-0.1, 0.0, 0.3, 0.7, 0.71, 1.0, 1.1, np.nan])
    formula = registry.implementation(st.bernoulli.ppf)
    for p in (0.3, 0.0, 1.0, 1.5):
        for loc in (0, 2):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = st.bernoulli.ppf(q, p, loc)
            np.testing.assert_array_equal(formula(q, p, loc), want)
    assert zpy.gradient(lambda q, p: np.sum(st.bernoulli.ppf(q, p)), np.array([0.2, 0.9]), 0.3)[1] == 0.0


def test_betabinom_values_and_derivatives_in_a_and_b():
    k = np.array([-1, 0, 2, 5, 6, 2.5, np.nan])
    for args in [(5, 1.3, 0.7), (5.5, 1.3, 0.7), (5, -1.0, 0.7), (5, 1.3, 0.7, 1), (0, 2.0, 3.0)]:
        for method in ("logpmf", "pmf"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = getattr(st.betabinom, method)(k, *args)
            got = registry.implementation(getattr(st.betabinom, method))(k, *args)
            np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True, err_msg=f"{method}{args}")
    counts = np.array([0.0, 2.0, 5.0])
    check_orders(lambda a, b: np.sum(st.betabinom.logpmf(counts, 5, a, b) + st.betabinom.pmf(counts, 5, a, b)),
                 1.3, 0.7)


MULTINOMIAL = [([1, 2, 3], 6, [0.2, 0.3, 0.5]), ([1, 2, 3], 7, [0.2, 0.3, 0.5]),
               ([[1, 2, 3], [0, 0, 6]], 6, [0.2, 0.3, 0.5]), ([1, 2, 3], 6, [0.2, -0.3, 1.1]),
               ([1.5, 1.5, 3], 6, [0.2, 0.3, 0.5]), ([0, 2, 4], 6, [0.0, 0.5, 0.5]),
               ([1, 2, 3], 6, [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), ([1, -2, 7], 6, [0.2, 0.3, 0.5])]


@pytest.mark.parametrize("x, n, p", MULTINOMIAL)
def test_multinomial_values(x, n, p):
    for method in ("logpmf", "pmf"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(st.multinomial, method)(x, n, p)
        got = registry.implementation(getattr(st.multinomial, method))(x, n, np.array(p))
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
        assert np.shape(got) == np.shape(want)


def test_multinomial_derivatives_in_p():
    def f(u):  # (rows summing to 1, as SciPy asks)
        p = np.stack([u[0], u[1], 1.0 - u[0] - u[1]])
        return st.multinomial.logpmf([1, 2, 3], 6, p) + np.sum(st.multinomial.pmf([[1, 2, 3], [0, 1, 5]], 6, p))

    check_orders(f, np.array([0.2, 0.3]), second=False)
    check_orders(lambda u: st.multinomial.logpmf([1, 2, 3], 6, np.stack([u[0], u[1], 1.0 - u[0] - u[1]])),
                 np.array([0.2, 0.3]))
    (g,) = zpy.gradient(lambda p: st.multinomial.logpmf([1, 2, 3], 6, p), np.array([0.2, 0.3, 0.5]))
    np.testing.assert_allclose(g, [1 / 0.2 - 3 / 0.5, 2 / 0.3 - 3 / 0.5, 0.0])  # (the last: 1 - the others')


def test_frozen_forms():
    def f(x, a, loc):
        return (st.truncnorm(a, 1.2, loc=loc).logpdf(x) + st.vonmises(1.5).logpdf(x) + st.gennorm(1.7, loc).pdf(x)
                + st.wrapcauchy(0.3, loc=loc).logpdf(x + 1.0) + st.betabinom(5, a + 1.0, 0.7).logpmf(2))

    check_orders(f, 0.3, -0.5, 0.1, second=False)  # (scipy_frozen's second order: its own tests)
