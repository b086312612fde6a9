"""Plain NumPy functions of arrays, differentiated on other libraries' arrays
by :mod:`tests.arrays.test_other_libraries` and emitted by ``zpy emit``."""
import numpy as np


def logistic(w: np.ndarray, X: np.ndarray, y: np.ndarray):
    p = 1 / (1 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def broadcast(X: np.ndarray, b: np.ndarray):
    return np.sum(np.tanh(X * b + 0.5) ** 2)


def columns(X: np.ndarray):
    return np.sum(np.mean(X, axis=0) ** 2) + (X.sum(axis=1) ** 2).sum()


def gram(X: np.ndarray, W: np.ndarray):
    return np.sum((X.T @ X) * W) + np.sum(np.reshape(X, (-1,)) ** 3)


def piecewise(X: np.ndarray):
    return np.sum(np.maximum(X, 0.1) * X + np.where(X > 0.5, X, -X))


def sliced(X: np.ndarray):
    return np.sum(X[1:, :2] ** 2) + np.sum(np.sqrt(X ** 2 + 1) / (2 + X))


def extremes(X: np.ndarray):
    return np.sum(np.max(X, axis=1) ** 2) + np.sum(X * np.min(X, axis=0, keepdims=True)) + np.max(X)


def spreads(X: np.ndarray):
    return np.sum(np.var(X, axis=0)) + np.std(X) + np.sum(np.std(X, axis=1, ddof=1, keepdims=True) * X)


def magnitudes(X: np.ndarray, b: np.ndarray):
    return np.sum(abs(X - 0.5) * b) + np.sum(X / np.mean(X, axis=1, keepdims=True))


def products(X: np.ndarray):
    return np.sum(np.prod(X, axis=0) ** 2) + np.prod(X[0]) + np.sum(np.cumprod(X, axis=1) * X)


def rows(X: np.ndarray):
    # (repeated and negative rows: their gradients add up, without np.add.at; a method's reshape)
    picked = X[np.array([0, 2, 2, -1, 2])]
    return np.sum(picked ** 2) + np.sum(X[[1, 1, 3], 1:] * 3.0) + np.sum(X.reshape(24) ** 3)


def picks(X: np.ndarray):
    # (integer arrays along another axis than the rows: repeated and negative columns, after ..., with a slice)
    return np.sum(X[:, np.array([0, 3, 3, -1])] ** 2) + np.sum(X[..., [1, 1]] * X[..., [2, 0]]) + np.sum(X[1:4, [2, 0]] ** 3)


def pairs(X: np.ndarray, w: np.ndarray):
    # (two index arrays, which Dask cannot take: X is NumPy, and its gradient is lazy through w)
    return np.sum(X[np.array([0, 2, 2, 5]), np.array([1, 3, 3, -1])] ** 2 * w) + np.sum(X[[[0], [5]], [1, 1]] * w[:2])


def statistics(X: np.ndarray):
    return np.sum(np.linalg.norm(X, axis=1)) + np.std(X, ddof=1) + np.sum(np.average(X, axis=0, weights=X[:, 0]))


def algebra(X: np.ndarray):
    S = X.T @ X + 1.0
    return np.sum(np.linalg.cholesky(S)) + np.linalg.det(S) + np.sum(np.linalg.inv(S)) + np.trace(S)


def gathers(X: np.ndarray):
    return np.sum(np.take(X, [0, 2, 2], axis=1) ** 2) + np.sum(np.tensordot(X, X, axes=([0], [0])))
