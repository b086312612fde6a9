"""The rules for ``scipy.integrate.odeint`` and ``solve_ivp`` (the adjoint
method in reverse mode, the tangent ODE in forward mode), against analytic
gradients and central finite differences of solutions computed with tight
tolerances."""
import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import zygote_py as zpy  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402
from zygote_py import registry  # noqa: E402
from zygote_py.ad import catalog  # noqa: E402
from zygote_py.rules import lookup  # noqa: E402

T = np.linspace(0.0, 1.0, 5)
T3 = np.linspace(0.0, 1.0, 3)


def fd(f, args, i, h=1e-5):
    """Central differences of ``f`` along argument ``i`` (an array or a
    number)."""
    x = args[i]
    if np.ndim(x) == 0:
        up, down = list(args), list(args)
        up[i], down[i] = x + h, x - h
        return (f(*up) - f(*down)) / (2 * h)
    g = np.zeros(np.shape(x))
    for k in np.ndindex(np.shape(x)):
        up, down = list(args), list(args)
        e = np.zeros(np.shape(x))
        e[k] = h
        up[i], down[i] = x + e, x - e
        g[k] = (f(*up) - f(*down)) / (2 * h)
    return g


def check(f, *args, rtol=1e-6, atol=1e-8, forward=True):
    """Reverse mode against central differences, and forward mode along a
    random direction against the reverse-mode gradient."""
    grads = zpy.gradient(f, *args)
    for i in range(len(args)):
        np.testing.assert_allclose(grads[i], fd(f, args, i), rtol=rtol, atol=atol, err_msg=f"argument {i}")
    if forward:
        rng = np.random.default_rng(1)
        vs = tuple(rng.standard_normal(np.shape(a)) if np.ndim(a) else float(rng.standard_normal()) for a in args)
        _, t = zpy.jvp(f, args, vs)
        np.testing.assert_allclose(t, sum(np.sum(g * v) for g, v in zip(grads, vs)), rtol=rtol, atol=atol)
    return grads


@pytest.mark.parametrize("fn", [integrate.odeint, integrate.solve_ivp])
def test_registered_with_scipy_names(fn):
    assert lookup(fn) is not None and registry.lookup_pushforward(fn) is not None
    assert registry.display_name(fn) == f"scipy.integrate.{fn.__name__}"
    assert catalog._section(fn) == "scipy.integrate"


# ---------------------------------------------------------------------------
# Linear decay: y(t) = y0 exp(-k t)


def decay(y, t, k):
    return -k * y


def decay_loss(y0, k):
    ys = integrate.odeint(decay, y0, T, args=(k,), rtol=1e-10, atol=1e-10)
    return np.sum(ys[-1] ** 2) + np.sum(ys[2])


def test_linear_decay_against_the_analytic_gradient():
    y0, k = np.array([1.0, -2.0]), 0.7
    dy0, dk = zpy.gradient(decay_loss, y0, k)
    e1, eh = np.exp(-k), np.exp(-k * T[2])
    np.testing.assert_allclose(dy0, 2 * y0 * e1 ** 2 + eh, rtol=1e-8)
    np.testing.assert_allclose(dk, -2 * np.sum(y0 ** 2) * e1 ** 2 - T[2] * np.sum(y0) * eh, rtol=1e-8)
    _, t = zpy.jvp(decay_loss, (y0, k), (np.array([0.5, 1.0]), 2.0))
    np.testing.assert_allclose(t, dy0 @ [0.5, 1.0] + 2 * dk, rtol=1e-8)


def test_linear_decay_solve_ivp_and_a_single_arg():
    def loss(y0, k):
        sol = integrate.solve_ivp(decay_t, (0.0, 1.0), y0, t_eval=T, args=(k,), method="DOP853", rtol=1e-10, atol=1e-10)
        return np.sum(sol.y[:, -1] ** 2) + sol.y[0, 1]

    check(loss, np.array([1.0, -2.0]), 0.7)


def decay_t(t, y, k):
    return -k * y


# ---------------------------------------------------------------------------
# Lotka-Volterra


def lotka_volterra(y, t, a, b, c, d):
    prey, predator = y
    return np.array([a * prey - b * prey * predator, d * prey * predator - c * predator])


def lv_loss(y0, theta):
    ys = integrate.odeint(lotka_volterra, y0, T, args=tuple(theta), rtol=1e-10, atol=1e-10)
    return np.sum(np.sin(ys) * ys)


THETA = np.array([1.1, 0.4, 0.9, 0.3])
Y0 = np.array([1.5, 0.8])


def test_lotka_volterra_odeint():
    check(lv_loss, Y0, THETA, rtol=1e-5, atol=1e-7)


def lv_first(t, y, a, b, c, d):
    return lotka_volterra(y, t, a, b, c, d)


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_lotka_volterra_solve_ivp(method):
    def loss(y0, theta):
        sol = integrate.solve_ivp(lv_first, (0.0, 1.0), y0, method=method, t_eval=T, args=tuple(theta), rtol=1e-10, atol=1e-10)
        return np.sum(np.sin(sol.y) * sol.y)

    check(loss, Y0, THETA, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------
# A tiny neural ODE, its weights captured by the right-hand side


def neural_loss(w1, w2, y0):
    def field(y, t):
        return np.tanh(w1 @ y + t) @ w2

    ys = integrate.odeint(field, y0, T, rtol=1e-10, atol=1e-10)
    return np.sum((ys[-1] - 0.5) ** 2)


def test_neural_ode_weights_captured_by_closure():
    rng = np.random.default_rng(0)
    w1, w2 = 0.5 * rng.standard_normal((3, 2)), 0.5 * rng.standard_normal((3, 2))
    y0 = np.array([0.3, -0.2])
    check(neural_loss, w1, w2, y0, rtol=1e-5, atol=1e-7, forward=False)
    # forward mode passes the closure over differentiated values on, with its tangent (it was refused)
    along = (w1, w2, np.ones(2))
    _, dy = zpy.jvp(neural_loss, (w1, w2, y0), along)
    h = 1e-6
    up = neural_loss(*(a + h * d for a, d in zip((w1, w2, y0), along)))
    down = neural_loss(*(a - h * d for a, d in zip((w1, w2, y0), along)))
    assert dy == pytest.approx((up - down) / (2 * h), rel=1e-6)


def test_closure_over_constants_in_forward_mode():
    def loss(y0):
        rate = 0.5

        def field(y, t):
            return -rate * y * y

        return np.sum(integrate.odeint(field, y0, T, rtol=1e-10, atol=1e-10)[-1])

    check(loss, np.array([1.0, 2.0]))


# ---------------------------------------------------------------------------
# Times, options


def test_odeint_time_gradients():
    def loss(t):
        return np.sum(np.cos(integrate.odeint(lotka_volterra, Y0, t, args=tuple(THETA), rtol=1e-10, atol=1e-10)))

    check(loss, np.array([0.1, 0.4, 0.7, 1.2]), rtol=1e-5, atol=1e-7)


def test_solve_ivp_time_gradients():
    def ends(span):
        sol = integrate.solve_ivp(lv_first, span, Y0, args=tuple(THETA), rtol=1e-10, atol=1e-10)
        return np.sum(sol.y[:, -1] ** 2)

    def evals(t_eval, t0):
        sol = integrate.solve_ivp(lv_first, (t0, 1.5), Y0, t_eval=t_eval, args=tuple(THETA), rtol=1e-10, atol=1e-10)
        return np.sum(np.cos(sol.y))

    check(ends, np.array([0.2, 1.1]), rtol=1e-5, atol=1e-7)
    check(evals, np.array([0.3, 0.5, 1.0]), 0.2, rtol=1e-5, atol=1e-7)


def test_odeint_tfirst_and_full_output():
    def loss(y0, k):
        ys, info = integrate.odeint(decay_t, y0, T, args=(k,), tfirst=True, full_output=True, rtol=1e-10, atol=1e-10)
        return np.sum(ys ** 2)

    check(loss, np.array([1.0, -2.0]), 0.7)


def test_solve_ivp_vectorized():
    def field(t, y, k):
        return -k * y * y

    def loss(y0, k):
        sol = integrate.solve_ivp(field, (0.0, 1.0), y0, t_eval=T, args=(k,), vectorized=True, rtol=1e-10, atol=1e-10)
        return np.sum(sol["y"])  # (the entry read as a dict's)

    check(loss, np.array([1.0, 2.0]), 0.7, forward=False)


# ---------------------------------------------------------------------------
# Refusals


# ---------------------------------------------------------------------------
# Second order: hvp, a gradient of a gradient, jvp of a gradient, against
# central differences of the gradient (and the linear decay's known Hessian)


def positional_loss(y0, k):
    return np.sum(integrate.odeint(decay, y0, T3, (k,), None, 0, 0, None, None, 1e-10, 1e-10)[-1] ** 2)


def decay_hessian(y0, k):
    """The Hessian of positional_loss, sum(y0^2) exp(-2k), in (y0, k)."""
    e = np.exp(-2 * k)
    return np.block([[2 * e * np.eye(2), -4 * e * y0[:, None]], [-4 * e * y0[None, :], 4 * e * np.sum(y0 ** 2)]])


def check_second_order(f, args, v, expected=None, modes=("hvp", "grad", "jvp")):
    """hvp, the gradient of <gradient, v> and the jvp of the gradient along
    ``v`` (those named in ``modes``), at ``args``, against ``expected`` or
    central differences of the gradient."""
    if expected is None:
        h = 1e-4
        up = zpy.gradient(f, *(a + h * d for a, d in zip(args, v)))
        down = zpy.gradient(f, *(a - h * d for a, d in zip(args, v)))
        expected = [(a - b) / (2 * h) for a, b in zip(up, down)]

    def directional(*xs):
        return sum(np.sum(g * d) for g, d in zip(zpy.gradient(f, *xs), v))

    ways = {"hvp": lambda: zpy.hvp(f, args, v), "grad": lambda: zpy.gradient(directional, *args),
            "jvp": lambda: zpy.jvp(lambda *xs: zpy.gradient(f, *xs), args, v)[1]}
    for mode in modes:
        got = ways[mode]()
        for i, want in enumerate(expected):
            np.testing.assert_allclose(got[i], want, rtol=1e-5, atol=1e-7, err_msg=f"{mode}, argument {i}")


def test_second_order_linear_decay_against_its_hessian():
    y0, k, v = np.array([1.0, -2.0]), 0.7, (np.array([0.5, 1.0]), -0.3)
    hv = decay_hessian(y0, k) @ np.append(v[0], v[1])
    check_second_order(positional_loss, (y0, k), v, expected=(hv[:2], hv[2]))


def driven(y, t, c, rate):
    return np.array([y[1], -c * y[1] - rate * np.sin(y[0]) + 0.2 * t])


def times_loss(y0, c, t):
    def field(y, s):  # (c, differentiated, captured; the rate a captured constant)
        return driven(y, s, c, rate)

    rate = 1.3
    ys = integrate.odeint(field, y0, t, rtol=1e-11, atol=1e-11)
    return np.sum(ys[:, 0] ** 2) + np.sum(ys[-1])


def times_ivp_loss(y0, c, t):  # (c through args=; t_span's start apart from t_eval's first time, its end constant)
    sol = integrate.solve_ivp(lambda s, y, c, rate: driven(y, s, c, rate), (t[0], 1.2), y0,
                              t_eval=np.array([0.4, 0.8, 1.2]) * t[1], args=(c, 1.3), method="DOP853", rtol=1e-11,
                              atol=1e-11)
    return np.sum(sol.y[0] ** 2) + np.sum(sol.y[:, -1])


@pytest.mark.parametrize("f, modes", [(times_loss, ("hvp", "grad")), (times_ivp_loss, ("grad", "jvp"))],
                         ids=["odeint", "solve_ivp"])
def test_second_order_in_the_times_and_the_parameters(f, modes):
    """The output times and t_span's start, with the initial state and a
    parameter, of a right-hand side depending on the time: captured by a
    closure (odeint) or passed through args= (solve_ivp); forward over
    reverse (hvp, jvp of the gradient: the same sweep) and reverse over
    reverse. (The times and the closure's floats were refused.)"""
    check_second_order(f, (np.array([0.8, -0.1]), 0.4, np.array([0.1, 0.5, 1.0])),
                       (np.array([0.3, -0.7]), 0.5, np.array([0.2, -0.4, 0.6])), modes=modes)


def test_events_are_refused():
    def hit(t, y, k):
        return y[0] - 0.5

    def loss(y0):
        return np.sum(integrate.solve_ivp(decay_t, (0.0, 1.0), y0, events=hit, args=(0.7,)).y)

    with pytest.raises(NoDerivativeRule, match="events"):
        zpy.gradient(loss, np.array([1.0, 2.0]))


def test_a_function_without_a_rule_is_named_as_imported():
    def loss(k):
        return integrate.quad(np.exp, 0.0, k)[0]

    with pytest.raises(NoDerivativeRule, match="scipy.integrate.quad"):
        zpy.gradient(loss, 1.0)

