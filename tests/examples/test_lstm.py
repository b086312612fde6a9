"""examples/lstm.py: the LSTM's loss falls well below what predicting the
mean gives, and its gradient (a dict like its parameters) agrees with
central differences."""
import numpy as np
import pytest

import zygote_py as zpy


def test_loss_falls_below_the_mean_predictor(example):
    result = example("lstm").main(steps=6, hidden=8, iterations=300, batch=16, lr=0.02, verbose=False)
    test_losses = result["test_losses"]
    assert test_losses[-1] < 0.1 * result["baseline"]
    assert test_losses[-1] < 0.01 * test_losses[0]
    history = result["history"]
    assert np.mean(history[-50:]) < 0.1 * np.mean(history[:50])


def test_gradient_is_a_dict_that_agrees_with_central_differences(example):
    lstm = example("lstm")
    rng = np.random.default_rng(3)
    params = lstm.init(4, 2, rng)
    X, y = lstm.adding_problem(5, 4, rng)
    grads, _, _ = zpy.gradient(lstm.lstm_loss, params, X, y)
    assert set(grads) == set(params)
    h = 1e-6
    for key, index in [("Wx", (1, 5)), ("Wh", (2, 13)), ("b", (6,)), ("Wy", (3, 0)), ("by", (0,))]:
        assert grads[key].shape == params[key].shape
        up = {k: v.copy() for k, v in params.items()}
        down = {k: v.copy() for k, v in params.items()}
        up[key][index] += h
        down[key][index] -= h
        numeric = (lstm.lstm_loss(up, X, y) - lstm.lstm_loss(down, X, y)) / (2 * h)
        assert grads[key][index] == pytest.approx(numeric, rel=1e-5, abs=1e-9), key
