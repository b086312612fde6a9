"""A neural ODE: a small network as the right-hand side of an ODE, fitted
to an observed trajectory through SciPy's solver.

    python examples/ode_net.py

The data is a damped spiral, ``y' = A y``, sampled at a few times. The
model is ``y' = W2 tanh(W1 y + b1)``, integrated by
``scipy.integrate.odeint`` from the observed start; the loss is the mean
squared distance between the model's trajectory and the data.
zygote_py differentiates through ``odeint`` by the adjoint method: SciPy
integrates the adjoint ODE backwards, with the network's vector-Jacobian
products from zygote_py (see ``zygote_py/rules/scipy_integrate.py``).
The weights are trained by Adam steps on ``zpy.gradient`` of the loss.
"""
import numpy as np
import scipy.integrate

import zygote_py as zpy

SPIRAL = np.array([[-0.1, 1.0], [-1.0, -0.1]])


def observations(times, start):
    """The damped spiral's states at ``times``, from ``start``."""
    return scipy.integrate.odeint(lambda y, t: SPIRAL @ y, start, times, rtol=1e-10, atol=1e-10)


def network(y: np.ndarray, t: float, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray):
    """The model's right-hand side: one hidden layer of tanh units."""
    return w2 @ np.tanh(w1 @ y + b1)


def trajectory_loss(w1, b1, w2, times, data, tol=1e-8):
    """Mean squared distance between the model's trajectory from the
    first observation and the observations."""
    ys = scipy.integrate.odeint(network, data[0], times, (w1, b1, w2), rtol=tol, atol=tol)
    return np.mean((ys - data) ** 2)


def initial_weights(hidden, seed=0):
    rng = np.random.default_rng(seed)
    return [0.5 * rng.standard_normal((hidden, 2)), np.zeros(hidden), 0.5 * rng.standard_normal((2, hidden))]


def adam(params, grads, state, rate, beta1=0.9, beta2=0.999):
    """One Adam step (Kingma and Ba 2015), in place of the parameters."""
    state["step"] += 1
    for i, (p, g) in enumerate(zip(params, grads)):
        state["m"][i] = beta1 * state["m"][i] + (1 - beta1) * g
        state["v"][i] = beta2 * state["v"][i] + (1 - beta2) * g * g
        m = state["m"][i] / (1 - beta1 ** state["step"])
        v = state["v"][i] / (1 - beta2 ** state["step"])
        params[i] = p - rate * m / (np.sqrt(v) + 1e-8)


def main(verbose=True, hidden=8, steps=60, samples=12, horizon=3.0, rate=0.05):
    times = np.linspace(0.0, horizon, samples)
    data = observations(times, np.array([2.0, 0.0]))
    params = initial_weights(hidden)
    state = {"step": 0, "m": [np.zeros_like(p) for p in params], "v": [np.zeros_like(p) for p in params]}
    losses = []
    for step in range(steps):
        loss = trajectory_loss(*params, times, data)
        grads = zpy.gradient(trajectory_loss, *params, times, data)[:3]
        losses.append(float(loss))
        if verbose and step % 10 == 0:
            print(f"step {step:3d}  loss {loss:.5f}")
        adam(params, grads, state, rate)
    losses.append(float(trajectory_loss(*params, times, data)))
    if verbose:
        print(f"final     loss {losses[-1]:.5f} (from {losses[0]:.5f})")
    return {"losses": losses, "params": params, "times": times, "data": data}


if __name__ == "__main__":
    main()
