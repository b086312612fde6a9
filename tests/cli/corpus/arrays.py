"""NumPy code: matrix products, reductions, broadcasting, a branch and a loop."""
import numpy as np
from numpy import linalg


def predict(w: np.ndarray, x: np.ndarray):
    return np.tanh(x @ w)


def mse(w: np.ndarray, x: np.ndarray, y: np.ndarray):
    r = predict(w, x) - y
    return np.mean(r ** 2)


def logsumexp(v: np.ndarray):
    m = np.max(v)
    return m + np.log(np.sum(np.exp(v - m)))


def broadcast(a: np.ndarray, b: float):
    s = np.sum(a * b + np.sin(a).T)
    if s > 0:
        s = s * s
    return s


def norms(a: np.ndarray, steps: int):
    total = 0.0
    for _ in range(steps):
        total = total + linalg.norm(a)
        a = a * 0.5
    return total


def picks(v: np.ndarray):
    return v[0] * v[1] + np.sum(v[1:] ** 2)
