"""A mixture of Gaussians fitted by gradient ascent on its log-likelihood,
written with plain NumPy and SciPy.

    python examples/mixture.py

Each point's likelihood sums over the components, in log space:
``log p(x) = logsumexp_k(log w_k + sum_d log N(x_d; mu_kd, sigma_kd))``,
with ``scipy.special.logsumexp`` and ``log_softmax`` for the weights and
``scipy.stats.norm.logpdf`` for the components, all differentiated by
zygote_py's SciPy rules. The parameters are a dict (weights' logits,
means, log standard deviations), updated by Adam steps.
"""
import numpy as np
import scipy.special
import scipy.stats

import zygote_py as zpy


def log_likelihood(params: dict[str, np.ndarray], points: np.ndarray):
    """The mean log-likelihood of ``points`` (n, d) under the mixture."""
    log_weights = scipy.special.log_softmax(params["logits"])
    scales = np.exp(params["log_scales"])
    # (n, 1, d) against (k, d): each point under each component, summed over dimensions
    per_component = np.sum(scipy.stats.norm.logpdf(points[:, None, :], params["means"], scales), axis=2)
    return np.mean(scipy.special.logsumexp(log_weights + per_component, axis=1))


def data(samples, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[-2.0, 0.0], [2.0, 1.0], [0.0, -2.5]])
    labels = rng.integers(0, 3, samples)
    return centres[labels] + 0.5 * rng.standard_normal((samples, 2))


def initial(components, dims, seed=1):
    rng = np.random.default_rng(seed)
    return {"logits": np.zeros(components), "means": rng.standard_normal((components, dims)),
            "log_scales": np.zeros((components, dims))}


def main(verbose=True, samples=300, components=3, steps=150, rate=0.05):
    points = data(samples)
    params = initial(components, points.shape[1])
    first = {k: np.zeros_like(v) for k, v in params.items()}
    second = {k: np.zeros_like(v) for k, v in params.items()}
    history = []
    for step in range(1, steps + 1):
        value = log_likelihood(params, points)
        grads, _ = zpy.gradient(log_likelihood, params, points)
        for k in params:  # (Adam, ascending)
            first[k] = 0.9 * first[k] + 0.1 * grads[k]
            second[k] = 0.999 * second[k] + 0.001 * grads[k] ** 2
            m, v = first[k] / (1 - 0.9 ** step), second[k] / (1 - 0.999 ** step)
            params[k] = params[k] + rate * m / (np.sqrt(v) + 1e-8)
        history.append(value)
        if verbose and step % 30 == 0:
            print(f"step {step:3d}  mean log-likelihood {value:8.4f}")
    if verbose:
        print("weights:", np.round(np.exp(scipy.special.log_softmax(params["logits"])), 3))
        print("means:", np.round(params["means"], 2).tolist())
    return {"params": params, "history": history, "points": points}


if __name__ == "__main__":
    main()
