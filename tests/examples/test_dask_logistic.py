"""examples/dask_logistic.py, run small: on a local cluster of two worker
processes its loss starts at log 2 and falls at every step, the weights
head for the model's, the plot is written where matplotlib is; and the
gradient it descends (``zpy.value_and_gradient`` of the NumPy loss on Dask
arrays) is the logistic gradient written by hand, and lazy."""
import math

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("dask.distributed")

import zygote_py as zpy  # noqa: E402


def test_training_on_a_local_cluster(example, tmp_path):
    plot = tmp_path / "loss.png"
    result = example("dask_logistic").main(rows=40_000, chunk=10_000, steps=4, plot=str(plot), verbose=False)
    history = result["history"]
    assert history[0] == pytest.approx(math.log(2), rel=1e-12)
    assert all(b < a for a, b in zip(history, history[1:]))
    assert np.corrcoef(result["w"], result["w_true"])[0, 1] > 0.99
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not plot.exists()
    else:
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_gradient_is_the_logistic_gradient_and_lazy(example):
    dask_logistic = example("dask_logistic")
    X, y, _, _ = dask_logistic.data(5_000, chunk=1_000)
    w, b = np.linspace(0.3, -0.3, 8), 0.1
    value, (dw, db) = zpy.value_and_gradient(dask_logistic.loss, w, b, X=X, y=y)
    assert isinstance(value, da.Array) and isinstance(dw, da.Array)
    residual = 1 / (1 + da.exp(-(X @ w + b))) - y  # (p - y)
    np.testing.assert_allclose(dw.compute(), (X.T @ residual / len(y)).compute(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(db), residual.mean().compute(), rtol=1e-12)
