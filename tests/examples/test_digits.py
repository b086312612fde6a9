"""examples/digits.py: logistic regression and the MLP learn the digits
(the MLP above 90% test accuracy), their losses fall, the plot is written,
and the MLP's gradient (``zpy.value_and_grad`` of its dict of parameters)
agrees with central differences."""
import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

import zygote_py as zpy  # noqa: E402


def test_models_learn_the_digits(example, tmp_path):
    plot = tmp_path / "digits.png"
    result = example("digits").main(epochs=4, hidden=32, plot=str(plot), verbose=False)
    assert result["mlp_accuracy"] > 0.9
    assert result["logistic_accuracy"] > 0.9
    for history in (result["logistic_history"], result["mlp_history"]):
        assert history[-1] < 0.5 * history[0]
        assert all(b < a for a, b in zip(history, history[1:]))
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_mlp_gradient_agrees_with_central_differences(example):
    digits = example("digits")
    X_train, _, y_train, _ = digits.load()
    X, Y = X_train[:20], np.eye(10)[y_train[:20]]
    rng = np.random.default_rng(1)
    params = {"W1": rng.normal(0, 0.3, (64, 8)), "b1": rng.normal(0, 0.1, 8), "W2": rng.normal(0, 0.3, (8, 10)),
              "b2": rng.normal(0, 0.1, 10)}
    value, grads = zpy.value_and_grad(digits.mlp_loss)(params, X, Y, 1e-3)
    assert value == pytest.approx(digits.mlp_loss(params, X, Y, 1e-3), rel=1e-12)
    h = 1e-6
    for key, index in [("W1", (10, 3)), ("b1", (5,)), ("W2", (7, 9)), ("b2", (0,))]:
        up = {k: p.copy() for k, p in params.items()}
        down = {k: p.copy() for k, p in params.items()}
        up[key][index] += h
        down[key][index] -= h
        numeric = (digits.mlp_loss(up, X, Y, 1e-3) - digits.mlp_loss(down, X, Y, 1e-3)) / (2 * h)
        assert grads[key][index] == pytest.approx(numeric, rel=1e-5, abs=1e-8)
    assert {k: g.shape for k, g in grads.items()} == {k: p.shape for k, p in params.items()}
