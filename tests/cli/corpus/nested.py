"""Functions that define a helper inside and call it there:
zpy emit inlines the calls (the helper reads the enclosing function's
parameters and a value it assigns once), so the gradient module runs
without zygote_py."""
import numpy as np


def closure(x, a):
    def f(v):
        return a * v * v
    return np.sum(f(x))


def scaled_norm(x: np.ndarray, s: float):
    def norm2(v):
        return np.sum(v * v)
    shift = s * 2.0

    def squash(v, w):
        return np.tanh(v * shift) + w
    return norm2(squash(x, s)) + norm2(x) * s
