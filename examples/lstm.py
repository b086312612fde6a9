"""An LSTM written in plain NumPy, trained with zygote_py's gradients on the
adding problem (Hochreiter & Schmidhuber 1997): each step of a sequence
carries a random number and a marker, and the target is the sum of the two
marked numbers, which the network must remember across the sequence.

    python examples/lstm.py

The parameters are a dict of arrays, and so is their gradient (same keys,
same shapes). The time loop is an ordinary Python `for`; the emitted
pullback runs it backwards over the states the forward loop recorded.
"""
import argparse

import numpy as np

import zygote_py as zpy


def sigmoid(z: np.ndarray):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_loss(params, X, y):
    """Mean squared error of the LSTM's prediction after the last step.
    X: (batch, steps, inputs), y: (batch,)."""
    Wx, Wh, b = params["Wx"], params["Wh"], params["b"]
    hidden = len(Wh)
    h = np.zeros((X.shape[0], hidden))
    c = np.zeros((X.shape[0], hidden))
    for t in range(X.shape[1]):
        z = X[:, t, :] @ Wx + h @ Wh + b
        i = sigmoid(z[:, :hidden])                  # input gate
        f = sigmoid(z[:, hidden:2 * hidden])        # forget gate
        o = sigmoid(z[:, 2 * hidden:3 * hidden])    # output gate
        g = np.tanh(z[:, 3 * hidden:])              # candidate cell
        c = f * c + i * g
        h = o * np.tanh(c)
    prediction = h @ params["Wy"] + params["by"]
    return np.mean((prediction[:, 0] - y) ** 2)


def adding_problem(n, steps, rng):
    values = rng.uniform(0.0, 1.0, (n, steps))
    markers = np.zeros((n, steps))
    for row in markers:
        first, second = rng.choice(steps, 2, replace=False)
        row[first] = row[second] = 1.0
    X = np.stack([values, markers], axis=2)
    return X, np.sum(values * markers, axis=1)


def init(hidden, inputs, rng):
    scale = 1.0 / np.sqrt(hidden)
    b = np.zeros(4 * hidden)
    b[hidden:2 * hidden] = 1.0                      # forget gate open at the start
    return {"Wx": rng.normal(0.0, scale, (inputs, 4 * hidden)),
            "Wh": rng.normal(0.0, scale, (hidden, 4 * hidden)),
            "b": b,
            "Wy": rng.normal(0.0, scale, (hidden, 1)),
            "by": np.zeros(1)}


def adam(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam step over a dict of parameters, in place."""
    state["t"] += 1
    for k, g in grads.items():
        m = state.setdefault("m_" + k, np.zeros_like(g))
        v = state.setdefault("v_" + k, np.zeros_like(g))
        m[...] = beta1 * m + (1 - beta1) * g
        v[...] = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1 ** state["t"])
        v_hat = v / (1 - beta2 ** state["t"])
        params[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + eps)


def main(steps=10, hidden=16, iterations=1500, batch=32, lr=0.01, seed=0, verbose=True):
    rng = np.random.default_rng(seed)
    params = init(hidden, 2, rng)
    X_test, y_test = adding_problem(500, steps, rng)
    # Predicting the mean, 1.0, whatever the input: the loss to beat.
    baseline = np.mean((y_test - 1.0) ** 2)
    state = {"t": 0}
    history = []
    test_losses = [lstm_loss(params, X_test, y_test)]
    for it in range(1, iterations + 1):
        X, y = adding_problem(batch, steps, rng)
        loss, (grads, _, _) = zpy.value_and_gradient(lstm_loss, params, X, y)
        adam(params, grads, state, lr)
        history.append(loss)
        if it % 100 == 0:
            test_losses.append(lstm_loss(params, X_test, y_test))
            if verbose:
                print(f"iteration {it:5d}: training loss {np.mean(history[-100:]):.4f}, "
                      f"test loss {test_losses[-1]:.4f}")
    if verbose:
        print(f"test loss {test_losses[0]:.4f} -> {test_losses[-1]:.4f} "
              f"(predicting the mean: {baseline:.4f})")
    return {"history": history, "test_losses": test_losses, "baseline": baseline}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=1500)
    args = parser.parse_args()
    main(steps=args.steps, iterations=args.iterations)
