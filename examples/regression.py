"""A small model whose gradient module is checked in beside it.

`regression_grad.py` is written by

    zpy emit examples/regression.py -o examples/regression_grad.py

and runs with NumPy alone; `tests/cli/test_examples.py` fails when it is
stale (`zpy emit --check`). The parameters' annotations say what is
differentiated: arrays and floats are, the int `steps` is not.
"""
import math

import numpy as np

L2 = 0.01


def predict(w: np.ndarray, b: float, x: np.ndarray):
    return np.tanh(x @ w + b)


def loss(w: np.ndarray, b: float, x: np.ndarray, y: np.ndarray):
    r = predict(w, b, x) - y
    penalty = L2 * np.sum(w * w)
    if penalty > 1.0:
        penalty = np.sqrt(penalty)
    return np.mean(r * r) + penalty


def growth(rate: float, steps: int):
    """Compound growth with a smooth cap, step by step."""
    v = 1.0
    for _ in range(steps):
        v = v * (1.0 + rate)
        if v > 10.0:
            v = 10.0 + math.sqrt(v - 9.0)
    return v
