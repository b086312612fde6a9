"""The rules of scipy.special's gamma, beta and error functions
(:mod:`zygote_py.rules.scipy_gamma`), checked against central finite
differences in reverse and forward mode (:mod:`.npcheck`) and at second
order through compiled code (:mod:`.ordercheck`)."""
import numpy as np
import pytest

scipy = pytest.importorskip("scipy")
import scipy.special as sp  # noqa: E402

import zygote_py as zpy  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402

from .npcheck import check_rule  # noqa: E402
from .ordercheck import check_orders  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error")


def between(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


# function, the values its argument is drawn from
UNARY = {
    "gammaln": (sp.gammaln, between(0.3, 4)),
    "gamma": (sp.gamma, between(0.3, 3)),
    "loggamma": (sp.loggamma, between(0.3, 4)),
    "rgamma": (sp.rgamma, between(-3.5, 3)),  # (both sides of 1/2, where its slope changes formula)
    "digamma": (sp.digamma, between(0.3, 4)),
    "erf": (sp.erf, between(-2, 2)),
    "erfc": (sp.erfc, between(-2, 2)),
    "erfinv": (sp.erfinv, between(-0.9, 0.9)),
    "erfcinv": (sp.erfcinv, between(0.1, 1.9)),
    "ndtr": (sp.ndtr, between(-3, 3)),
    "log_ndtr": (sp.log_ndtr, between(-6, 3)),
    "ndtri": (sp.ndtri, between(0.05, 0.95)),
}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(), (3, 2)])
def test_unary_rule(name, shape):
    fn, draw = UNARY[name]
    x = draw(np.random.default_rng(1), shape)
    check_rule(fn, float(x) if shape == () else x)


@pytest.mark.parametrize("name", UNARY)
def test_unary_orders(name):
    fn, draw = UNARY[name]
    check_orders(lambda x: np.sum(np.cos(fn(x))), draw(np.random.default_rng(2), (3,)))


def test_psi_is_digamma():
    assert zpy.gradient(lambda x: sp.psi(x), 2.5)[0] == pytest.approx(sp.polygamma(1, 2.5))


@pytest.mark.parametrize("fn", [sp.gammaln, sp.digamma, sp.erf])
def test_single_precision(fn):
    x = np.random.default_rng(3).uniform(0.5, 2, (4,)).astype(np.float32)
    check_rule(fn, x, rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("fn", [sp.gamma, sp.erf, sp.erfc, sp.ndtr, sp.log_ndtr])
def test_holomorphic_on_complex_arguments(fn):
    rng = np.random.default_rng(4)
    check_rule(fn, rng.uniform(0.5, 1.5, (3,)) + 1j * rng.uniform(-0.5, 0.5, (3,)))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_polygamma(n):
    rng = np.random.default_rng(5)
    check_rule(sp.polygamma, n, rng.uniform(0.5, 3, (4,)))
    check_rule(sp.polygamma, np.array([[0], [2]]), rng.uniform(0.5, 3, (3,)))  # broadcast orders
    check_orders(lambda x: np.sum(np.sin(sp.polygamma(n, x))), rng.uniform(0.5, 3, (3,)))


def test_each_derivative_is_the_next_function():
    assert zpy.gradient(sp.gammaln, 2.5)[0] == pytest.approx(sp.digamma(2.5), rel=1e-14)
    assert zpy.gradient(sp.digamma, 2.5)[0] == pytest.approx(sp.polygamma(1, 2.5), rel=1e-14)
    assert zpy.hessian(sp.gammaln, 2.5) == pytest.approx(sp.polygamma(1, 2.5), rel=1e-14)
    assert zpy.hessian(sp.digamma, 2.5) == pytest.approx(sp.polygamma(2, 2.5), rel=1e-14)


@pytest.mark.parametrize("fn", [sp.betaln, sp.beta])
@pytest.mark.parametrize("shapes", [((3, 1), (1, 2)), ((), (3,)), ((4,), None)])
def test_beta_functions(fn, shapes):
    rng = np.random.default_rng(6)
    a = rng.uniform(0.5, 3, shapes[0])
    b = 1.7 if shapes[1] is None else rng.uniform(0.5, 3, shapes[1])
    check_rule(fn, float(a) if shapes[0] == () else a, b)


def test_beta_functions_orders():
    rng = np.random.default_rng(7)
    check_orders(lambda a, b: np.sum(np.sin(sp.betaln(a, b)) + sp.beta(a, b)), rng.uniform(0.5, 3, (3,)),
                 rng.uniform(0.5, 3, (3,)))


# function, its shape parameters (integers: the test leaves them alone), the function of the last
# argument alone, where that argument is drawn from
INCOMPLETE = {
    "gammainc": (sp.gammainc, (3,), lambda x: sp.gammainc(3, x), between(0.2, 4)),
    "gammaincc": (sp.gammaincc, (3,), lambda x: sp.gammaincc(3, x), between(0.2, 4)),
    "betainc": (sp.betainc, (2, 3), lambda x: sp.betainc(2, 3, x), between(0.1, 0.9)),
    "betaincc": (sp.betaincc, (2, 3), lambda x: sp.betaincc(2, 3, x), between(0.1, 0.9)),
    "stdtr": (sp.stdtr, (3,), lambda x: sp.stdtr(3, x), between(-3, 3)),
    "stdtrit": (sp.stdtrit, (3,), lambda x: sp.stdtrit(3, x), between(0.05, 0.95)),
}


@pytest.mark.parametrize("name", INCOMPLETE)
def test_incomplete_functions_in_their_last_argument(name):
    fn, shape_params, alone, draw = INCOMPLETE[name]
    x = draw(np.random.default_rng(8), (4,))
    check_rule(fn, *shape_params, x)
    check_orders(lambda x: np.sum(np.sin(alone(x))), x)


@pytest.mark.parametrize("name", INCOMPLETE)
def test_incomplete_functions_shape_parameters_get_nan(name):
    fn, shape_params, _, draw = INCOMPLETE[name]
    x = float(draw(np.random.default_rng(9), ()))
    if len(shape_params) == 1:
        grads = zpy.gradient(lambda a: fn(a, x), 2.5)
        _, t = zpy.jvp(lambda a: fn(a, x), (2.5,), (1.0,))
    else:
        grads = zpy.gradient(lambda a, b: fn(a, b, x), 2.5, 1.5)
        _, t = zpy.jvp(lambda a: fn(a, 1.5, x), (2.5,), (1.0,))
    assert all(np.isnan(g) for g in grads) and np.isnan(t)


def test_incomplete_functions_constant_shape_parameters_bring_no_nan():
    # the pullback's nan gradient of a is 0 where its cotangent is, so second order, through the
    # run-time J (a starred call) and inlined, stays finite
    x, v = np.array([0.5, 1.5]), np.array([1.0, 2.0])
    p = (3,)
    hv = zpy.hvp(lambda x: np.sum(np.sin(sp.gammainc(*p, x))), (x,), (v,))[0]
    np.testing.assert_allclose(hv, zpy.hvp(lambda x: np.sum(np.sin(sp.gammainc(3, x))), (x,), (v,))[0], rtol=1e-14)
    assert np.all(np.isfinite(hv))


def test_gammainc_at_zero_is_the_limit_from_the_right():
    for a, slope in [(0.5, np.inf), (1.0, 1.0), (2.0, 0.0)]:
        assert zpy.gradient(lambda x: sp.gammainc(a, x), 0.0)[0] == slope


def test_incomplete_functions_in_a_distribution_function():
    """poisson's distribution function, gammaincc(k + 1, mu), has the slope
    -pmf(k) in mu."""
    k, mu = 3, 2.2
    assert zpy.gradient(lambda mu: sp.gammaincc(k + 1, mu), mu)[0] == pytest.approx(
        -np.exp(k * np.log(mu) - mu - sp.gammaln(k + 1)), rel=1e-13)


def test_log_ndtr_is_stable_far_in_the_lower_tail():
    # d/dx log ndtr(x) = pdf / cdf = sqrt(2 / pi) / erfcx(-x / sqrt(2)), finite where ndtr underflows
    for x in [-5.0, -40.0, -1e3]:
        (g,) = zpy.gradient(sp.log_ndtr, x)
        # (rel 1e-9: exp(-x**2 / 2 - log_ndtr(x)) cancels x**2 / 2 = 5e5 at x = -1e3)
        assert g == pytest.approx(np.sqrt(2 / np.pi) / sp.erfcx(-x / np.sqrt(2)), rel=1e-9)
    (h,) = zpy.gradient(lambda x: zpy.gradient(sp.log_ndtr, x)[0], -40.0)
    assert np.isfinite(h) and h == pytest.approx(-1.0, abs=1e-2)  # the slope of -x, nearly


@pytest.mark.parametrize("fn,x", [(sp.erfinv, 1.0), (sp.ndtri, 0.0), (sp.ndtri, 1.0)])
def test_inverse_functions_at_the_ends_of_their_domain(fn, x):
    assert zpy.gradient(fn, x)[0] == np.inf


@pytest.mark.parametrize("a,d", [(3.5, 1), (2.7, 3), (np.array([2.5, 4.0]), 4)])
def test_multigammaln(a, d):
    got = zpy.pullback(lambda a: sp.multigammaln(a, d), a)
    np.testing.assert_allclose(got[0], sp.multigammaln(a, d), rtol=1e-13)
    (g,) = got[1](np.ones(np.shape(a)) if np.ndim(a) else 1.0)
    np.testing.assert_allclose(g, sum(sp.digamma(a - j / 2) for j in range(d)), rtol=1e-13)
    check_orders(lambda a: np.sum(np.sin(sp.multigammaln(a, d))), np.atleast_1d(np.asarray(a, float)) + 0.3)


def test_multigammaln_raises_where_scipy_does():
    with pytest.raises(ValueError, match="condition a"):
        zpy.gradient(lambda a: sp.multigammaln(a, 4), 1.2)
    with pytest.raises(ValueError, match="positive integer"):
        zpy.gradient(lambda a: sp.multigammaln(a, 2.5), 3.0)


def test_a_function_without_a_rule_is_named():
    with pytest.raises(NoDerivativeRule, match="scipy.special.struve"):
        zpy.gradient(lambda x: sp.struve(0.0, x), 1.5)


def test_rgamma_at_the_poles_of_gamma():
    """1 / gamma is entire: slope (-1)**n n! at -n, and the second
    derivative there is finite too (2 euler_gamma at 0)."""
    for n in range(4):
        assert zpy.gradient(sp.rgamma, -float(n))[0] == pytest.approx((-1) ** n * sp.factorial(n), rel=1e-13)
    assert zpy.hessian(sp.rgamma, 0.0) == pytest.approx(2 * np.euler_gamma, rel=1e-12)
    check_orders(lambda x: np.sum(np.sin(sp.rgamma(x))), np.array([-2.0, -1.0, 0.0, 0.5]))


def test_loggamma_is_gammaln_for_positive_reals():
    x = np.array([0.4, 1.7, 30.0])
    np.testing.assert_allclose(zpy.gradient(lambda x: np.sum(sp.loggamma(x)), x)[0], sp.digamma(x), rtol=1e-14)
    assert zpy.hessian(sp.loggamma, 2.5) == pytest.approx(sp.polygamma(1, 2.5), rel=1e-14)
    z = np.array([1.5 + 0.5j, 0.7 - 1.2j])
    check_rule(sp.loggamma, z)  # (complex: first order, holomorphic)


def test_gammasgn_has_no_gradient():
    # d/dx (gammasgn(x) x) = gammasgn(x): the sign is a constant
    for x in [-1.5, -0.5, 2.5]:
        assert zpy.gradient(lambda x: sp.gammasgn(x) * x, x)[0] == sp.gammasgn(x)
    assert zpy.gradient(lambda x: sp.gammasgn(x), 2.5)[0] in (None, 0.0)


def test_stdtrit_inverts_stdtr():
    p = 0.3
    t = sp.stdtrit(4.0, p)
    assert zpy.gradient(lambda p: sp.stdtrit(4.0, p), p)[0] == pytest.approx(1 / zpy.gradient(
        lambda t: sp.stdtr(4.0, t), t)[0], rel=1e-13)
    (ddf, dp) = zpy.gradient(lambda df, p: sp.stdtrit(df, p), 4.0, p)
    assert np.isnan(ddf) and np.isfinite(dp)
