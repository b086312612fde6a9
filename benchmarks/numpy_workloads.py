"""NumPy workloads for ``make bench`` (imported by ``benchmarks/run.py``).

For each workload: the function as a user writes it, the gradient a careful
person writes by hand with NumPy, and a ``*_in(m)`` factory returning the same
function written against a NumPy-like module ``m`` (``autograd.numpy``,
``jax.numpy`` or ``torch``) for the peer libraries, plus its argument values.

zygote_py differentiates every positional float argument (a float or a float
array) and none of the globals, so data that is not a parameter (the input
of the logistic regression, the MLP's batch and labels) is a module-level
constant. All data is float64, drawn from generators with fixed seeds, one
per workload, so that adding a workload does not change another's data.

A hand-written gradient returns the gradient of the first argument alone when
the function has one differentiated argument, else a tuple with one gradient
per differentiated argument, in order.
"""
from __future__ import annotations

import numpy as np


def _is_torch(m) -> bool:
    return getattr(m, "__name__", "") == "torch"


def _constant(m, a: np.ndarray):
    """A module-level constant in the peer's array type. torch does not mix
    tensors and ndarrays in ``@``; autograd.numpy and jax.numpy take ndarrays
    as they are."""
    return m.from_numpy(a) if _is_torch(m) else a


def _max_rows(m, a):
    """``max(a, axis=1, keepdims=True)``: torch spells it ``amax(dim=, keepdim=)``."""
    return m.amax(a, dim=1, keepdim=True) if _is_torch(m) else m.max(a, axis=1, keepdims=True)


def _sum_rows(m, a):
    return m.sum(a, dim=1, keepdim=True) if _is_torch(m) else m.sum(a, axis=1, keepdims=True)


def _relu(m, a):
    # torch.maximum needs two tensors; clamp is its maximum with a number.
    return m.clamp(a, min=0.0) if _is_torch(m) else m.maximum(a, 0.0)


# --------------------------------------------------------------------------
# logsumexp over 100 numbers
# --------------------------------------------------------------------------

LOGSUMEXP_X = np.random.default_rng(1).standard_normal(100)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_hand(x):
    # The softmax. The max's own derivative cancels (it is subtracted inside
    # the log and added outside), so a careful person leaves it out.
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def logsumexp_in(m):
    def logsumexp(x):
        mx = m.max(x)
        return mx + m.log(m.sum(m.exp(x - mx)))
    return logsumexp


# --------------------------------------------------------------------------
# Logistic regression, as in the Zygote paper: 10 outputs, 784 inputs
# --------------------------------------------------------------------------

_rng = np.random.default_rng(2)
LOGISTIC_X = _rng.random(784)  # an input, pixel-like in [0, 1): a constant
LOGISTIC_W = _rng.standard_normal((10, 784)) * 0.01
LOGISTIC_B = _rng.standard_normal(10) * 0.01


def logistic(W, b):
    return np.sum(1.0 / (1.0 + np.exp(-(W @ LOGISTIC_X + b))))


def logistic_hand(W, b):
    s = 1.0 / (1.0 + np.exp(-(W @ LOGISTIC_X + b)))
    ds = s * (1.0 - s)
    return np.outer(ds, LOGISTIC_X), ds


def logistic_in(m):
    x = _constant(m, LOGISTIC_X)

    def logistic(W, b):
        return m.sum(1.0 / (1.0 + m.exp(-(W @ x + b))))
    return logistic


# --------------------------------------------------------------------------
# A two-layer MLP, 784 → 100 (ReLU) → 10, softmax cross-entropy averaged
# over a batch of 32
# --------------------------------------------------------------------------

_rng = np.random.default_rng(3)
MLP_X = _rng.random((32, 784))  # the batch: a constant
MLP_Y = np.eye(10)[_rng.integers(0, 10, 32)]  # one-hot labels: a constant
MLP_W1 = _rng.standard_normal((100, 784)) * np.sqrt(2 / 784)
MLP_B1 = _rng.standard_normal(100) * 0.01
MLP_W2 = _rng.standard_normal((10, 100)) * np.sqrt(2 / 100)
MLP_B2 = _rng.standard_normal(10) * 0.01


def mlp(W1, b1, W2, b2):
    h = np.maximum(MLP_X @ W1.T + b1, 0.0)
    z = h @ W2.T + b2
    zmax = np.max(z, axis=1, keepdims=True)
    logp = z - zmax - np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True))
    return -np.sum(MLP_Y * logp) / 32


def mlp_hand(W1, b1, W2, b2):
    a = MLP_X @ W1.T + b1
    h = np.maximum(a, 0.0)
    z = h @ W2.T + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    dz = (p - MLP_Y) / 32  # each row of Y sums to 1
    dh = dz @ W2
    da = dh * (a > 0.0)
    return da.T @ MLP_X, np.sum(da, axis=0), dz.T @ h, np.sum(dz, axis=0)


def mlp_in(m):
    X, Y = _constant(m, MLP_X), _constant(m, MLP_Y)

    def mlp(W1, b1, W2, b2):
        h = _relu(m, X @ W1.T + b1)
        z = h @ W2.T + b2
        zmax = _max_rows(m, z)
        logp = z - zmax - m.log(_sum_rows(m, m.exp(z - zmax)))
        return -m.sum(Y * logp) / 32
    return mlp


# --------------------------------------------------------------------------
# The trace of a 1000 × 1000 matrix
# --------------------------------------------------------------------------

TRACE_A = np.random.default_rng(4).standard_normal((1000, 1000))


def trace(A):
    return np.trace(A)


def trace_hand(A):
    return np.eye(len(A))


def trace_in(m):
    def trace(A):
        return m.trace(A)
    return trace


# --------------------------------------------------------------------------
# A Python loop indexing an array, n = 1,000 and 10,000
# --------------------------------------------------------------------------

INDEX_X_1K = np.random.default_rng(5).standard_normal(1_000)
INDEX_X_10K = np.random.default_rng(6).standard_normal(10_000)


def index_loop(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def index_loop_hand(x):
    return 2.0 * x


def index_loop_in(m):
    def index_loop(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i] * x[i]
        return s
    return index_loop


# --------------------------------------------------------------------------
# An array filled item by item in a Python loop (mutation), n = 1,000 and
# 10,000: the gradient of each y[i] = ... must cost O(1), not a copy of y
# --------------------------------------------------------------------------

FILL_X_1K = np.random.default_rng(7).standard_normal(1_000)
FILL_X_10K = np.random.default_rng(8).standard_normal(10_000)


def fill_loop(x):
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return np.sum(y * x)


def fill_loop_hand(x):
    return 3.0 * x * x


def fill_loop_in(m):
    def fill_loop(x):
        y = m.zeros(len(x), dtype=x.dtype) if _is_torch(m) else m.zeros(len(x))
        for i in range(len(x)):
            y[i] = x[i] * x[i]
        return m.sum(y * x)
    return fill_loop


# --------------------------------------------------------------------------
# A Hessian-vector product of the 100-dimensional Rosenbrock function
# --------------------------------------------------------------------------

HVP_X = np.random.default_rng(9).standard_normal(100)
HVP_V = np.random.default_rng(10).standard_normal(100)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hvp_hand(x, v):
    """H v from the tridiagonal Hessian, vectorised."""
    hv = np.zeros_like(x)
    hv[:-1] += (1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    hv[1:] += 200.0 * v[1:] - 400.0 * x[:-1] * v[:-1]
    return hv
