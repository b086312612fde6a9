"""examples/gaussian_process.py and examples/mixture.py: models written
with plain NumPy and SciPy (``multivariate_normal.logpdf``, ``logsumexp``,
``log_softmax``, ``norm.logpdf``) train, and their gradients (and, for the
Gaussian process, Hessian-vector products) agree with central
differences."""
import numpy as np
import pytest

pytest.importorskip("scipy.stats")

import zygote_py as zpy  # noqa: E402


def _moved(params, key, index, h):
    out = {k: np.array(v, dtype=float) for k, v in params.items()}
    out[key][index] += h
    return {k: v if np.ndim(v) else float(v) for k, v in out.items()}


def _check_gradient(f, params, *rest, h=1e-6, rtol=1e-5):
    grads = zpy.gradient(f, params, *rest)[0]
    for key, value in params.items():
        for index in ([()] if np.ndim(value) == 0 else [(0,) * np.ndim(value), tuple(n - 1 for n in np.shape(value))]):
            numeric = (f(_moved(params, key, index, h), *rest) - f(_moved(params, key, index, -h), *rest)) / (2 * h)
            assert np.asarray(grads[key])[index] == pytest.approx(numeric, rel=rtol, abs=1e-8), (key, index)


def test_gaussian_process_fits_and_its_gradients_are_right(example):
    gp = example("gaussian_process")
    result = gp.main(verbose=False, samples=12, steps=25, rate=0.05)
    history = result["history"]
    assert history[-1] > history[0] + 2.0
    xs, ys = result["xs"], result["ys"]
    start = {"log_length": 0.1, "log_signal": -0.2, "log_noise": -1.5, "mean": 0.3}
    _check_gradient(gp.log_marginal_likelihood, start, xs, ys)

    # second order: the Hessian along a direction, against differences of the gradient
    def of_vector(v):
        return gp.log_marginal_likelihood(dict(zip(sorted(start), v)), xs, ys)

    v0 = np.array([start[k] for k in sorted(start)])
    direction = np.array([0.3, -0.5, 0.2, 1.0])
    (hv,) = zpy.hvp(of_vector, (v0,), (direction,))
    h = 1e-5
    up, down = zpy.gradient(of_vector, v0 + h * direction)[0], zpy.gradient(of_vector, v0 - h * direction)[0]
    np.testing.assert_allclose(hv, (up - down) / (2 * h), rtol=1e-5, atol=1e-7)


def test_mixture_fits_and_its_gradient_is_right(example):
    mixture = example("mixture")
    result = mixture.main(verbose=False, samples=60, steps=40)
    history = result["history"]
    assert history[-1] > history[0] + 0.3
    start = mixture.initial(3, 2, seed=4)
    _check_gradient(mixture.log_likelihood, start, result["points"])
