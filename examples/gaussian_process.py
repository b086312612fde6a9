"""Gaussian-process regression: the kernel's hyperparameters fitted by
maximising the marginal likelihood, written with plain NumPy and SciPy.

    python examples/gaussian_process.py

The model: ``y ~ N(mean, K + noise I)`` with a squared-exponential kernel
``K[i, j] = signal² exp(-|x_i - x_j|² / (2 length²))``. The log marginal
likelihood is ``scipy.stats.multivariate_normal.logpdf`` of the targets,
which zygote_py differentiates through its formula (a Cholesky factor and
a triangular solve; see ``zygote_py/rules/scipy_stats.py``). The
hyperparameters live in a dict, in log space so that they stay positive,
and are fitted by gradient ascent on ``zpy.gradient`` of that dict.
"""
import numpy as np
import scipy.stats

import zygote_py as zpy


def kernel(params: dict[str, float], xs: np.ndarray, ys: np.ndarray):
    """The squared-exponential kernel between the rows of ``xs`` and ``ys``."""
    length, signal = np.exp(params["log_length"]), np.exp(params["log_signal"])
    distances = np.sum((xs[:, None, :] - ys[None, :, :]) ** 2, axis=-1)
    return signal ** 2 * np.exp(-0.5 * distances / length ** 2)


def log_marginal_likelihood(params: dict[str, float], xs: np.ndarray, ys: np.ndarray):
    """``log p(ys | xs, params)`` of the Gaussian process."""
    n = xs.shape[0]
    cov = kernel(params, xs, xs) + (np.exp(params["log_noise"]) + 1e-6) * np.eye(n)
    mean = np.full(n, params["mean"])
    return scipy.stats.multivariate_normal.logpdf(ys, mean, cov)


def predict(params: dict[str, float], xs: np.ndarray, ys: np.ndarray, tests: np.ndarray):
    """The posterior mean and standard deviation at ``tests``."""
    n = xs.shape[0]
    cov = kernel(params, xs, xs) + (np.exp(params["log_noise"]) + 1e-6) * np.eye(n)
    cross = kernel(params, tests, xs)
    mean = params["mean"] + cross @ np.linalg.solve(cov, ys - params["mean"])
    var = np.exp(2 * params["log_signal"]) - np.sum(cross * np.linalg.solve(cov, cross.T).T, axis=1)
    return mean, np.sqrt(np.maximum(var, 0.0))


def data(samples, seed=0):
    rng = np.random.default_rng(seed)
    xs = np.sort(rng.uniform(-3.0, 3.0, samples))[:, None]
    ys = np.sin(2.0 * xs[:, 0]) + 0.5 * xs[:, 0] + 0.1 * rng.standard_normal(samples)
    return xs, ys


def main(verbose=True, samples=30, steps=100, rate=0.01):
    xs, ys = data(samples)
    params = {"log_length": 0.0, "log_signal": 0.0, "log_noise": -1.0, "mean": 0.0}
    history = []
    for step in range(steps):
        value = log_marginal_likelihood(params, xs, ys)
        (grads, _, _) = zpy.gradient(log_marginal_likelihood, params, xs, ys)
        params = {k: v + rate * grads[k] for k, v in params.items()}
        history.append(value)
        if verbose and step % 20 == 0:
            print(f"step {step:3d}  log marginal likelihood {value:9.4f}")
    if verbose:
        mean, std = predict(params, xs, ys, np.linspace(-3.0, 3.0, 5)[:, None])
        print("fitted:", {k: round(float(v), 3) for k, v in params.items()})
        print("posterior mean at -3..3:", np.round(mean, 3), "std:", np.round(std, 3))
    return {"params": params, "history": history, "xs": xs, "ys": ys}


if __name__ == "__main__":
    main()
