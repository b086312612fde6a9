"""examples/ode_net.py: a neural ODE fitted through scipy.integrate.odeint
lowers its loss, and its gradient (the adjoint method) agrees with central
differences of the loss."""
import numpy as np
import pytest

pytest.importorskip("scipy.integrate")

import zygote_py as zpy  # noqa: E402


@pytest.fixture(scope="module")
def result(example):
    return example("ode_net").main(verbose=False, hidden=4, steps=12, samples=6, horizon=2.0)


def test_training_lowers_the_loss(result):
    losses = result["losses"]
    assert losses[-1] < 0.5 * losses[0]


def test_gradient_agrees_with_central_differences(example, result):
    ode_net = example("ode_net")
    w1, b1, w2 = result["params"]
    times, data = result["times"], result["data"]

    def loss(w1, b1, w2):
        return ode_net.trajectory_loss(w1, b1, w2, times, data, tol=1e-11)

    grads = zpy.gradient(loss, w1, b1, w2)
    h = 1e-6
    for i, p in enumerate((w1, b1, w2)):
        for idx in [(0,) * p.ndim, tuple(n - 1 for n in p.shape)]:
            step = np.zeros_like(p)
            step[idx] = h
            up = [w1, b1, w2]
            down = [w1, b1, w2]
            up[i], down[i] = p + step, p - step
            numeric = (loss(*up) - loss(*down)) / (2 * h)
            assert grads[i][idx] == pytest.approx(numeric, rel=1e-5, abs=1e-8)
