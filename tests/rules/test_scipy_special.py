"""The rules of :mod:`scipy.special`, part 1 (:mod:`zygote_py.rules.scipy_special`),
checked against central finite differences in reverse mode, forward mode
(:mod:`.npcheck`, which checks each pushforward against its pullback) and
at second order through compiled code (:mod:`.ordercheck`), and their
conventions at the edges."""
import numpy as np
import pytest

scipy = pytest.importorskip("scipy")
special = pytest.importorskip("scipy.special")

import zygote_py as zpy  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402
from zygote_py import registry  # noqa: E402
from zygote_py.ad import catalog  # noqa: E402

registry.load_lazy()  # (the rules join the built-in layer, as they would at the first look-up)
from zygote_py.rules import scipy_special  # noqa: E402

from .npcheck import check_rule  # noqa: E402
from .ordercheck import check_orders  # noqa: E402

# A NumPy warning away from an edge is a bug; the tests of edges say which
# warnings they expect.
pytestmark = pytest.mark.filterwarnings("error")


def between(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def away_from_zero(rng, shape):
    return rng.uniform(0.2, 2.5, shape) * rng.choice([-1.0, 1.0], shape)


# function, the values its argument is drawn from
UNARY = {
    "expit": (special.expit, between(-4, 4)),
    "logit": (special.logit, between(0.05, 0.95)),
    "entr": (special.entr, between(0.1, 3)),
    "i0": (special.i0, between(-3, 3)),
    "i1": (special.i1, between(-3, 3)),
    "i0e": (special.i0e, away_from_zero),
    "i1e": (special.i1e, away_from_zero),
    "j0": (special.j0, between(0.2, 12)),
    "j1": (special.j1, between(-12, 12)),
    "y0": (special.y0, between(0.3, 12)),
    "y1": (special.y1, between(0.3, 12)),
    "exp1": (special.exp1, between(0.2, 3)),
    "expi": (special.expi, away_from_zero),
    "exprel": (special.exprel, between(-3, 3)),
    "spence": (special.spence, between(0.1, 3)),  # (both branches of its slope: the series below |x| = 0.5)
    "riemann zeta": (special.zeta, lambda rng, shape: rng.choice([-2.5, 0.3, 1.6, 3.2], shape)
                     + rng.uniform(0, 0.4, shape)),
}

# function, the values its arguments are drawn from; the order v of the
# Bessel functions is an integer array (it gets no gradient)
BINARY = {
    "xlogy": (special.xlogy, between(-2, 2), between(0.2, 3)),
    "xlog1py": (special.xlog1py, between(-2, 2), between(-0.8, 3)),
    "rel_entr": (special.rel_entr, between(0.1, 3), between(0.1, 3)),
    "kl_div": (special.kl_div, between(0.1, 3), between(0.1, 3)),
    "poch": (special.poch, between(0.3, 3), between(-0.2, 2)),
    "hurwitz zeta": (special.zeta, between(1.5, 4), between(0.3, 3)),
    "iv": (special.iv, lambda rng, shape: rng.integers(-2, 3, shape), between(-3, 3)),
    "ive": (special.ive, lambda rng, shape: rng.integers(-2, 3, shape), away_from_zero),
    "jv": (special.jv, lambda rng, shape: rng.integers(-2, 3, shape), between(0.5, 8)),
    "yv": (special.yv, lambda rng, shape: rng.integers(-2, 3, shape), between(0.5, 8)),
    "yn": (special.yn, lambda rng, shape: rng.integers(-2, 4, shape), between(0.5, 8)),
    "expn": (special.expn, lambda rng, shape: rng.integers(0, 4, shape), between(0.3, 3)),
}

# every direction of broadcasting; None is a Python float
PAIRS = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((4,), (3, 4)), ((3, 4), None), (None, (2, 3)), (None, None)]


def draw(rng, sample, shape):
    if shape is None:
        value = sample(rng, ())
        return int(value) if np.issubdtype(np.asarray(value).dtype, np.integer) else float(value)
    return sample(rng, shape)


@pytest.mark.parametrize("shape", [None, (), (5,), (3, 4)])
@pytest.mark.parametrize("name", UNARY)
def test_unary_rules(name, shape):
    fn, sample = UNARY[name]
    check_rule(fn, draw(np.random.default_rng(1), sample, shape))


@pytest.mark.parametrize("name", ["expit", "logit", "i0", "i1e"])
def test_unary_rules_in_single_precision(name):
    fn, sample = UNARY[name]
    x = sample(np.random.default_rng(2), (4,)).astype(np.float32)
    check_rule(fn, x, rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("shapes", PAIRS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_rules(name, shapes):
    fn, first, second = BINARY[name]
    rng = np.random.default_rng(3)
    check_rule(fn, draw(rng, first, shapes[0]), draw(rng, second, shapes[1]))


@pytest.mark.parametrize("name", ["xlogy", "rel_entr", "iv", "hurwitz zeta"])
def test_binary_rules_in_single_precision(name):
    fn, first, second = BINARY[name]
    rng = np.random.default_rng(6)
    x1, x2 = first(rng, (3, 4)), second(rng, (4,)).astype(np.float32)
    check_rule(fn, x1 if x1.dtype.kind == "i" else x1.astype(np.float32), x2, rtol=1e-2, atol=1e-3)


def wrapped(fn, *constants):
    """A nonlinear, non-symmetric loss of ``fn(*constants, x)`` (or of
    ``fn(x, y)``), so that every second derivative counts."""
    def loss(*xs):
        return np.sum(np.sin(1.3 * fn(*constants, *xs)) * np.arange(1.0, 1.0 + np.size(xs[0])))
    return loss


@pytest.mark.parametrize("name", UNARY)
def test_unary_second_order(name):
    fn, sample = UNARY[name]
    check_orders(wrapped(fn), sample(np.random.default_rng(4), (3,)))


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "kl_div", "poch", "hurwitz zeta"])
def test_binary_second_order(name):
    fn, first, second = BINARY[name]
    rng = np.random.default_rng(5)
    check_orders(wrapped(fn), first(rng, (3,)), second(rng, (3,)))


@pytest.mark.parametrize("name, v", [("iv", 1.5), ("ive", -0.5), ("jv", 2.5), ("yv", 0.5), ("iv", 0), ("jv", -1),
                                     ("yn", 2), ("yn", -1), ("expn", 0), ("expn", 3)])
def test_bessel_second_order_in_x_with_any_order(name, v):
    fn, _, _ = BINARY[name]
    check_orders(wrapped(fn, v), np.array([0.7, 1.9, 3.1]))


def test_bessel_functions_of_order_0_and_1_are_jv_and_yv():
    x = np.array([0.7, 2.3, 5.1])
    for fn, general, v in [(special.j0, special.jv, 0), (special.j1, special.jv, 1), (special.y0, special.yv, 0),
                           (special.y1, special.yv, 1)]:
        (g,) = zpy.gradient(summed(fn), x)
        np.testing.assert_allclose(g, (general(v - 1, x) - general(v + 1, x)) / 2, rtol=1e-12)
    (g,) = zpy.gradient(lambda x: np.sum(special.jn(3, x)), x)  # (jn is jv)
    np.testing.assert_allclose(g, (special.jv(2, x) - special.jv(4, x)) / 2, rtol=1e-12)
    assert zpy.gradient(lambda n, x: special.yn(n, x), 2, 1.3)[0] is None


def test_exprel_near_zero():
    """exprel(x) = 1 + x / 2 + x**2 / 6 + ...: slope 1/2 and curvature 1/3
    at 0, with no 0 / 0."""
    assert zpy.gradient(summed(special.exprel), 0.0)[0] == pytest.approx(0.5, rel=1e-15)
    assert zpy.hessian(summed(special.exprel), 0.0) == pytest.approx(1 / 3, rel=1e-14)
    for x in [1e-9, -0.49, 0.51, -30.0]:  # the series and the closed form, on both sides of the switch
        want = (x * np.exp(x) - np.expm1(x)) / x ** 2 if abs(x) > 1e-3 else 0.5 + x / 3
        assert zpy.gradient(summed(special.exprel), x)[0] == pytest.approx(want, rel=1e-12)


def bessel_of_order_x(fn, x):
    return np.sum(fn(x / 2, x))


@pytest.mark.parametrize("name", ["iv", "ive", "jv", "yv"])
def test_a_differentiated_bessel_order_is_never_a_silent_zero(name):
    """The derivative in the order has no closed form: reverse mode refuses
    a differentiated order where the compiler sees the call, and where the
    function is known only at run time once a gradient uses it; forward mode refuses a nonzero tangent of the order and
    names it; a zero tangent, a constant order and an integer order are
    fine."""
    fn = BINARY[name][0]
    x = np.array([0.7, 1.9, 3.1])
    refused = f"scipy.special.{name} has no derivative with respect to its order 'v', and 'v' is differentiated here"
    with pytest.raises(NoDerivativeRule, match=refused):
        zpy.gradient(lambda v, x: np.sum(fn(v, x)), np.array([0.5, 1.5, 2.5]), x)
    with pytest.raises(NoDerivativeRule, match=refused):
        zpy.gradient(lambda x: bessel_of_order_x(fn, x), x)
    with pytest.raises(NoDerivativeRule, match=refused):
        zpy.gradient(lambda v, x: np.sum(fn(v=v, x=x)), 1.5, x)
    # the function known at run time only: passed in, or picked from a dict (an array order, a number)
    with pytest.raises(NoDerivativeRule, match=refused):
        zpy.gradient(lambda f, v, x: np.sum(f(v, x)), fn, np.array([0.5, 1.5, 2.5]), x)
    table = {name: fn}
    with pytest.raises(NoDerivativeRule, match=refused):
        zpy.gradient(lambda v, x: np.sum(table[name](v, x)), np.array([0.5, 1.5, 2.5]), x)
    for _ in range(2):  # (the second call: the compiled gradient's fast path)
        with pytest.raises(NoDerivativeRule, match=refused):
            zpy.gradient(lambda v: table[name](v, 1.3) * 2.0, 1.5)
    with pytest.raises(NoDerivativeRule, match=refused):
        zpy.hvp(lambda v, x: np.sum(table[name](v, x)), (1.5, x), (1.0, x))
    # a constant order there: the gradient in x, as where the function is known
    (dx,) = zpy.gradient(lambda x: np.sum(table[name](2.0 * 0.75, x) * x), x)
    np.testing.assert_allclose(dx, zpy.gradient(lambda x: np.sum(fn(1.5, x) * x), x)[0], rtol=1e-15)
    assert zpy.gradient(lambda f, x: np.sum(f(1.5, x)), fn, x)[0] is None
    assert zpy.gradient(lambda v, x: np.sum(fn(v, x)), 2, x)[0] is None
    (dx,) = zpy.gradient(lambda x: np.sum(fn(1.5, x)), x)
    np.testing.assert_allclose(dx, zpy.grad(lambda f, v, x: np.sum(f(v, x)), argnums=2)(fn, 1.5, x), rtol=1e-15)
    with pytest.raises(NoDerivativeRule, match=f"scipy.special.{name} has no derivative with respect to its order 'v'"):
        zpy.jvp(lambda x: bessel_of_order_x(fn, x), (x,), (np.ones(3),))
    with pytest.raises(NoDerivativeRule, match="order 'v'"):
        zpy.jvp(lambda v, x: np.sum(fn(v, x)), (np.array([0.5, 1.5, 2.5]), x), (np.ones(3), np.ones(3)))
    _, t = zpy.jvp(lambda v, x: np.sum(fn(v, x)), (np.array([0.5, 1.5, 2.5]), x), (np.zeros(3), np.ones(3)))
    assert t == pytest.approx(np.sum(zpy.gradient(lambda x: np.sum(fn(np.array([0.5, 1.5, 2.5]), x)), x)[0]))


BESSELS = {"jv": special.jv}


def order_from_a_dict(v, x):
    return np.sum(BESSELS["jv"](v, x) * x)  # (the line the error names)


def order_captured(v, x):
    return zpy.gradient(lambda x: np.sum(special.jv(v, x) * x), x)[0]  # (the line the error names)


@pytest.mark.parametrize("f, args", [(order_from_a_dict, (1.5, np.array([0.7, 1.9]))), (order_from_a_dict, (1.5, 0.7)),
                                     (lambda v, x: np.sum(order_captured(v, x)), (1.5, np.array([0.7, 1.9])))],
                         ids=["array", "numbers", "closure"])
def test_an_order_refused_at_run_time_names_the_users_line(f, args):
    where = order_captured if f.__name__ == "<lambda>" else f
    for _ in range(2):  # (the second call: the compiled gradient's fast path)
        with pytest.raises(NoDerivativeRule) as e:
            zpy.gradient(f, *args)
        assert e.value.filename == __file__ and e.value.line == where.__code__.co_firstlineno + 1


def order_on_one_path(v, x):
    if x > 0:
        return BESSELS["jv"](1.5, x) * v
    return BESSELS["jv"](v, x) * 2.0


def order_on_one_path_of_arrays(v, x):
    if x[0] > 0:
        return np.sum(BESSELS["jv"](1.5, x)) * v
    return np.sum(BESSELS["jv"](v, x))


@pytest.mark.parametrize("transform, dv", [(zpy.grad, lambda g: g), (zpy.value_and_grad, lambda g: g[1]),
                                           (lambda f: zpy.grad(f, argnums=(0, 1)), lambda g: g[0])],
                         ids=["grad", "value_and_grad", "argnums"])
def test_a_function_grad_made_refuses_an_order_on_a_later_path(transform, dv):
    """zpy.grad's function, bound to the compiled gradient by a first call
    whose path holds the order constant, refuses it on a later call whose
    path differentiates it (the bound fast path keeps the general path's
    refusals), for numbers as for arrays, and still answers the first
    path."""
    refused = "scipy.special.jv has no derivative with respect to its order 'v'"
    for f, fine, other in [(order_on_one_path, 1.3, -1.3),
                           (order_on_one_path_of_arrays, np.array([1.3, 2.0]), np.array([-1.3, 2.0]))]:
        g = transform(f)
        want = zpy.gradient(f, 1.5, fine)[0]
        assert dv(g(1.5, fine)) == pytest.approx(want, rel=1e-15)
        for _ in range(2):
            with pytest.raises(NoDerivativeRule, match=refused):
                g(1.5, other)
        assert dv(g(1.5, fine)) == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("name", ["yn", "expn"])
def test_a_differentiated_integer_order_is_refused(name):
    fn = getattr(special, name)
    with pytest.raises(NoDerivativeRule, match=f"scipy.special.{name} has no derivative with respect to its order 'n'"):
        zpy.jvp(lambda n, x: fn(n, x), (2.0, 1.3), (1.0, 0.0))
    with pytest.raises(NoDerivativeRule, match=f"scipy.special.{name} has no derivative with respect to its order 'n'"):
        zpy.gradient(lambda n, x: fn(n, x), 2.0, 1.3)


def test_bessel_order_constants_at_second_order_through_closures():
    """A float order captured by a closure or passed through a call made
    at run time (``fn(*constants, x)``) gets no refusal and no nan."""
    check_orders(wrapped(special.iv, 1.5), np.array([0.7, 1.9, 3.1]))
    v = 0.5

    def loss(x):
        return np.sum(np.sin(special.jv(v, x)) * x)

    check_orders(loss, np.array([0.7, 1.9, 3.1]))

    def outer(v, x):  # (the inner closure's order, differentiated by the outer gradient: refused)
        return zpy.gradient(lambda x: np.sum(special.jv(v, x) * x), x)[0]
    with pytest.raises(NoDerivativeRule, match="scipy.special.jv has no derivative with respect to its order 'v'"):
        zpy.gradient(lambda v: np.sum(outer(v, np.array([0.7, 1.9, 3.1]))), 1.5)
    (g,) = zpy.gradient(lambda x: np.sum(outer(1.5, x) ** 2), np.array([0.7, 1.9, 3.1]))
    assert np.all(np.isfinite(g))


# -- logsumexp, softmax, log_softmax -----------------------------------------


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


LOGSUMEXP = [
    dict(),
    dict(axis=0),
    dict(axis=-1),
    dict(axis=(0, 2)),
    dict(axis=1, keepdims=True),
    dict(axis=None, keepdims=True),
    dict(axis=(-1, 0), keepdims=True),
]


@pytest.mark.parametrize("kwargs", LOGSUMEXP)
def test_logsumexp(kwargs):
    check_rule(special.logsumexp, rand(2, 3, 4), kwargs=kwargs)


@pytest.mark.parametrize("kwargs", LOGSUMEXP)
def test_logsumexp_with_b(kwargs):
    # positive weights, and b broadcast along a's first axis
    check_rule(special.logsumexp, rand(2, 3, 4), kwargs=dict(kwargs, b=np.exp(rand(2, 3, 4, seed=1))))
    check_rule(special.logsumexp, rand(2, 3, 4), kwargs=dict(kwargs, b=np.exp(rand(3, 4, seed=2))))


@pytest.mark.parametrize("fn, kwargs", [(special.logsumexp, dict(axis=1, b=np.float32(2.0))),
                                        (special.softmax, dict(axis=0)), (special.log_softmax, dict(axis=1))])
def test_reductions_in_single_precision(fn, kwargs):
    check_rule(fn, rand(3, 4).astype(np.float32), kwargs=kwargs, rtol=1e-2, atol=1e-3)


def test_logsumexp_with_a_broadcast_against_b():
    check_rule(special.logsumexp, rand(4), kwargs=dict(axis=1, b=np.exp(rand(3, 4, seed=1))))
    check_rule(special.logsumexp, 0.3, kwargs=dict(b=np.exp(rand(5, seed=1))))


@pytest.mark.parametrize("kwargs", [dict(), dict(axis=1), dict(axis=0, keepdims=True)])
def test_logsumexp_return_sign(kwargs):
    a, b = rand(3, 4), rand(3, 4, seed=1)  # b of both signs: sums of both signs
    y, s = special.logsumexp(a, b=b, return_sign=True, **kwargs)
    dy = rand(*np.shape(y), seed=2) if np.ndim(y) else 0.7
    check_rule(special.logsumexp, a, kwargs=dict(kwargs, b=b, return_sign=True), dy=(dy, None))
    check_rule(special.logsumexp, a, kwargs=dict(kwargs, b=b, return_sign=True), dy=(dy, np.ones_like(s)))


def lse_loss(a, b):
    return np.sum(np.sin(special.logsumexp(a, axis=1, b=b)) * np.array([1.0, 2.0]))


def lse_sign_loss(a, b):
    # (keywords that name the parameters after a, in order: second-order
    # code calls logsumexp through the run-time J, by position)
    y, s = special.logsumexp(a, axis=0, b=b, keepdims=False, return_sign=True)
    return np.sum(np.cos(y) * s * np.array([1.0, -2.0, 3.0]))


def lse_keepdims_loss(a):
    return np.sum(np.sin(special.logsumexp(a, axis=(0, 1), keepdims=True) * a))


def test_logsumexp_second_order():
    check_orders(lse_loss, rand(2, 3), np.exp(rand(2, 3, seed=1)))
    check_orders(lse_sign_loss, rand(2, 3), rand(2, 3, seed=1))
    check_orders(lse_keepdims_loss, rand(2, 1, 3))


def row_lse(a):
    return np.sum(special.logsumexp(a, axis=1) * np.array([1.0, 2.0]))


def test_logsumexp_is_stable_where_exp_overflows():
    a = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -999.0]])
    g = zpy.gradient(row_lse, a)[0]
    weights = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(g, weights / weights.sum(axis=1, keepdims=True) * [[1.0], [2.0]], rtol=1e-12)
    assert all(np.isfinite(h).all() for h in zpy.hvp(row_lse, (a,), (np.ones((2, 3)),)))


def test_logsumexp_of_minus_infinity():
    a = np.array([[0.5, -np.inf, 1.5], [-np.inf, -np.inf, -np.inf]])
    assert zpy.value_and_gradient(row_lse, a)[0] == -np.inf
    g = zpy.gradient(lambda a: special.logsumexp(a, axis=1)[0], a)[0]
    np.testing.assert_allclose(g, [[special.softmax([0.5, 1.5])[0], 0.0, special.softmax([0.5, 1.5])[1]], [0, 0, 0]])
    # a slice whose result is -inf gives its entries 0, at every order
    g = zpy.gradient(lambda a: special.logsumexp(a, axis=1)[1], a)[0]
    np.testing.assert_array_equal(g, np.zeros((2, 3)))
    (h,) = zpy.hvp(lambda a: special.logsumexp(a, axis=1)[0], (a,), (np.ones((2, 3)),))
    assert not np.isnan(h).any()
    _, t = zpy.jvp(lambda a: special.logsumexp(a, axis=1)[0], (a,), (np.ones((2, 3)),))
    assert t == pytest.approx(1.0)


@pytest.mark.parametrize("fn", [special.softmax, special.log_softmax])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_softmax(fn, axis):
    check_rule(fn, rand(2, 3, 4), kwargs=dict(axis=axis))


def softmax_loss(x):
    return np.sum(special.softmax(x, axis=1) * np.array([1.0, -2.0, 0.5])) + np.sum(
        special.log_softmax(x, axis=0)[0] ** 2)


def test_softmax_second_order():
    check_orders(softmax_loss, rand(2, 3))


# -- conventions at the edges -------------------------------------------------


def summed(fn):
    def total(*args):
        return np.sum(fn(*args))
    return total


def test_xlogy_where_x_is_zero():
    dx, dy = zpy.gradient(summed(special.xlogy), 0.0, 2.0)
    assert (dx, dy) == (pytest.approx(np.log(2.0)), 0.0)
    with pytest.warns(RuntimeWarning, match="divide by zero"):  # log(0) == -inf, the slope along x
        dx, dy = zpy.gradient(summed(special.xlogy), np.zeros(2), np.array([0.0, 3.0]))
    assert dx[0] == -np.inf and dx[1] == pytest.approx(np.log(3.0))
    np.testing.assert_array_equal(dy, [0.0, 0.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        dx, dy = zpy.gradient(summed(special.xlog1py), np.zeros(2), np.array([-1.0, 3.0]))
    assert dx[0] == -np.inf and dx[1] == pytest.approx(np.log(4.0))
    np.testing.assert_array_equal(dy, [0.0, 0.0])


def test_entropies_at_zero():
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        assert zpy.gradient(summed(special.entr), 0.0)[0] == np.inf
    with pytest.warns(RuntimeWarning):  # log(0 / y) == -inf, the slope along x
        dx, dy = zpy.gradient(summed(special.rel_entr), np.array([0.0, 0.0]), np.array([2.0, 0.0]))
    assert dx[0] == -np.inf
    np.testing.assert_array_equal(dy, [0.0, 0.0])


def test_scaled_bessel_functions_at_their_kink():
    """``f(x) exp(-|x|)``: the mean of the one-sided slopes."""
    assert zpy.gradient(summed(special.i0e), 0.0)[0] == 0.0
    assert zpy.gradient(summed(special.i1e), 0.0)[0] == pytest.approx(0.5)
    assert zpy.gradient(lambda x: special.ive(1.0, x), 0.0)[0] == pytest.approx(0.5)


def test_zeta_slope_against_known_values():
    # zeta'(0) = -log(2 pi) / 2; zeta'(2) = pi**2 / 6 (euler_gamma + log(2 pi) - 12 log(glaisher))
    glaisher = 1.2824271291006226
    assert zpy.gradient(summed(special.zeta), 0.0)[0] == pytest.approx(-np.log(2 * np.pi) / 2, rel=1e-12)
    want = np.pi ** 2 / 6 * (np.euler_gamma + np.log(2 * np.pi) - 12 * np.log(glaisher))
    assert zpy.gradient(summed(special.zeta), 2.0)[0] == pytest.approx(want, rel=1e-11)
    # d/dx zeta(x, q) in q: -x zeta(x + 1, q); polygamma(1, q) == zeta(2, q)
    assert zpy.gradient(summed(special.zeta), 1.5, 0.25)[1] == pytest.approx(-1.5 * special.zeta(2.5, 0.25), rel=1e-12)


def test_zeta_slope_is_nan_where_it_would_be_inaccurate():
    assert np.isnan(scipy_special.zeta_slope(np.array([-6.5, -20.0]), None)).all()
    assert np.isfinite(scipy_special.zeta_slope(-5.9, None))


# -- what has no rule, and the table ------------------------------------------


@pytest.mark.parametrize("fn, name", [(lambda x: special.lambertw(x).real, "scipy.special.lambertw"),
                                      (lambda x: special.ellipk(x), "scipy.special.ellipk")])
def test_a_function_without_a_rule_is_named_as_imported(fn, name):
    with pytest.raises(NoDerivativeRule, match=name.replace(".", r"\.")):
        zpy.gradient(fn, 0.5)


def test_rules_table_has_a_scipy_special_section():
    assert registry._builtin.get(special.xlogy) is scipy_special.xlogy  # (not a user rule)
    assert catalog._section(special.xlogy) == catalog._section(special.logsumexp) == "scipy.special"
    assert catalog._treatment(scipy_special.iv, special.iv) == ("**v**, **x**", "inlined")  # (v: refused, see order_gradient)
    assert catalog._treatment(scipy_special.logsumexp, special.logsumexp) == (
        "**a**, axis, **b**, keepdims, return_sign", "inlined")


# -- fresnel, spence, hyp1f1, factorial, bernoulli -------------------------------


def test_fresnel_both_outputs_and_each_alone():
    x = np.array([-0.8, 0.3, 1.2, 2.1])
    check_orders(lambda x: np.sum(special.fresnel(x)[0] * x + np.cos(special.fresnel(x)[1])), x)
    (g,) = zpy.gradient(lambda x: np.sum(special.fresnel(x)[1]), x)  # (S's cotangent None)
    np.testing.assert_allclose(g, np.cos(np.pi / 2 * x * x), rtol=1e-14)
    (g,) = zpy.gradient(lambda x: special.fresnel(x)[0], 0.7)
    assert g == pytest.approx(np.sin(np.pi / 2 * 0.49), rel=1e-14)


def test_spence_at_its_edges():
    """slope log(z) / (1 - z): -1 at z = 1 (its limit), -inf at 0."""
    (g,) = zpy.gradient(lambda z: np.sum(special.spence(z)), np.array([1.0, 0.0]))
    assert g[0] == pytest.approx(-1.0) and g[1] == -np.inf
    h = 1e-6
    assert (special.spence(1 + h) - special.spence(1 - h)) / (2 * h) == pytest.approx(-1.0, rel=1e-6)


def test_hyp1f1_in_x_with_constant_parameters():
    x = np.array([-1.3, 0.4, 2.2])
    check_rule(special.hyp1f1, 1, 2, x)  # (the rule checked alone: integer parameters, which have no gradient)
    check_rule(special.hyp1f1, np.array([[1], [3]]), 2, x)
    check_orders(wrapped(special.hyp1f1, 0.5, 1.5), x)
    check_orders(wrapped(special.hyp1f1, 2, 3), x)  # (integer parameters)


@pytest.mark.parametrize("x", [np.array([-7.5, -1.3, 0.0, 0.4, 2.2, 9.0]), 35.0, -60.0])
def test_hyp1f1_in_its_parameters(x):
    """The series of the derivatives in a and b, on both sides of Kummer's
    transformation (x < 0), with a and b broadcast, negative a and b (not
    integers) among them; a of b - a == 0 (the polynomial case) too."""
    rng = np.random.default_rng(8)
    a = np.array([[0.5], [-1.7], [2.4]])
    check_rule(special.hyp1f1, a, 1.5, x, rtol=1e-5 if np.ndim(x) else 1e-4)
    check_rule(special.hyp1f1, 0.8, rng.uniform(0.3, 3.0, np.shape(x)), x)
    # (x at most 2.5 here: beyond, the values reach 1e6 and swamp the differences' step)
    check_rule(special.hyp1f1, 1.5, np.array([-0.5, 1.5, 3.0])[:, None], np.minimum(x, 2.5))


def hyp1f1_loss(a, b, x):
    return np.sum(np.sin(special.hyp1f1(a, b, x)) * np.array([1.0, -0.5, 2.0]))


def test_hyp1f1_second_order_in_all_three():
    check_orders(hyp1f1_loss, np.array([0.5, -0.7, 1.3]), np.array([1.5, 0.8, 2.5]), np.array([-1.3, 0.4, 2.2]))


def test_hyp1f1_parameter_slope_against_a_closed_form():
    """d/da M(a, 1, x) at a = 0 is sum x**n / (n n!) = Ei(x) - euler_gamma -
    log|x|: the polynomial M(0, 1, x) == 1 (for x > 0) and the Kummer
    transform's b - a == 1 (for x < 0)."""
    x = np.array([-6.0, -0.5, 0.7, 4.0])
    (da,) = zpy.gradient(lambda a: np.sum(special.hyp1f1(a, 1.0, x) * np.arange(1.0, 5.0)), 0.0)
    want = np.sum((special.expi(x) - np.euler_gamma - np.log(np.abs(x))) * np.arange(1.0, 5.0))
    assert da == pytest.approx(want, rel=1e-12)
    # hyp1f1(a, a, x) == exp(x): its derivatives in a and b cancel at a == b
    da, db = zpy.gradient(lambda a, b: special.hyp1f1(a, b, -3.0), 1.7, 1.7)
    assert da == pytest.approx(-db, rel=1e-12)


def test_hyp1f1_parameters_are_refused_where_the_series_does_not_converge():
    refused = r"hyp1f1's derivative with respect to its parameter 'a' is computed by a series that does not converge"
    for x in [300.0, -300.0]:
        with pytest.raises(NoDerivativeRule, match=refused):
            zpy.gradient(lambda a: special.hyp1f1(a, 2.0, x), 1.0)
        with pytest.raises(NoDerivativeRule, match=refused):
            zpy.jvp(lambda a, x: special.hyp1f1(a, 2.0, x), (1.0, x), (1.0, 0.0))
        with pytest.raises(NoDerivativeRule, match="parameter 'b'"):
            zpy.gradient(lambda b: special.hyp1f1(1.0, b, x), 2.0)
        # the derivative in x is computed there, the parameters constant
        want = 0.5 * special.hyp1f1(2.0, 3.0, x)
        assert zpy.gradient(lambda x: special.hyp1f1(1.0, 2.0, x), x)[0] == pytest.approx(want, rel=1e-12)
        assert zpy.jvp(lambda a, x: special.hyp1f1(a, 2.0, x), (1.0, x), (0.0, 1.0))[1] == pytest.approx(want)
    with pytest.raises(NoDerivativeRule, match="parameter 'a'"):  # (the sum cancels: more than 6 digits lost)
        zpy.gradient(lambda a: special.hyp1f1(a, 0.5, -50.0), 30.0)
    table = {"f": special.hyp1f1}  # (known at run time only)
    with pytest.raises(NoDerivativeRule, match="parameter 'b'"):
        zpy.gradient(lambda b, x: np.sum(table["f"](1.0, b, x)), 2.0, np.array([1.0, 300.0]))


def test_factorial_is_gammas_where_not_exact():
    n = np.array([-1.5, 0.0, 0.4, 2.5, 3.0, np.nan])
    formula = registry.implementation(special.factorial)
    np.testing.assert_array_equal(formula(n), special.factorial(n))
    assert formula(3.0) == special.factorial(3.0) and type(formula(3.0)) is type(special.factorial(3.0))
    check_orders(lambda n: np.sum(np.log(special.factorial(n)) * n), np.array([0.4, 1.7, 3.2]))
    (g,) = zpy.gradient(lambda n: np.sum(special.factorial(n)), np.array([-1.5, 2.0]))
    np.testing.assert_allclose(g, [0.0, 2.0 * special.digamma(3.0)], rtol=1e-14)
    assert zpy.gradient(lambda n, x: special.factorial(n, exact=True) * x, 4, 2.0) == (None, 24)
    with pytest.raises(NoDerivativeRule, match="extend='complex'"):
        zpy.gradient(lambda n: np.real(special.factorial(n, extend="complex")), 2.5)


def test_bernoulli_numbers_have_no_gradient():
    (g,) = zpy.gradient(lambda x: np.sum(special.bernoulli(4) * x), 2.0)
    assert g == pytest.approx(np.sum(special.bernoulli(4)))
    assert registry.is_nondifferentiable(special.bernoulli)


def test_sph_harm_y_in_the_angles():
    def f(theta, phi):  # (a real loss of the complex harmonics: real and imaginary parts, modulus)
        y = special.sph_harm_y(np.array([2, 3, 4]), np.array([1, -2, 3]), theta, phi)
        return np.sum(np.real(y) * 1.3 + np.imag(y) ** 2 + np.abs(y))

    check_orders(f, np.array([0.7, 1.1, 2.0]), np.array([0.3, 2.0, 4.0]))
    n, dphi = zpy.gradient(lambda n, phi: np.imag(special.sph_harm_y(n, 2, 0.9, phi)), 3, 0.4)
    assert n is None and dphi == pytest.approx(2 * np.real(special.sph_harm_y(3, 2, 0.9, 0.4)), rel=1e-12)
    with pytest.raises(NoDerivativeRule, match="diff_n"):
        zpy.gradient(lambda t: np.real(special.sph_harm_y(2, 1, t, 0.3, diff_n=1)[0]), 0.7)
