"""A model module as people write them: a dataclass of parameters with a
method, a sibling import, a logger and an array of weights at the top
level, x.shape, an array filled in a loop, enumerate, a generator passed to
sum. tests/cli/test_realistic.py emits its gradients and runs them without
zygote_py."""
import logging
from dataclasses import dataclass

import numpy as np

from helpers import OFFSET, drag

log = logging.getLogger(__name__)
WEIGHTS = np.linspace(0.5, 1.5, 4)


@dataclass
class Params:
    w: np.ndarray
    b: float

    def predict(self, x: np.ndarray):
        return x @ self.w + self.b


def squares(x: np.ndarray):
    """An array filled item by item in a loop over its shape."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i] + i
    return np.sum(out * WEIGHTS)


def shifted(x: np.ndarray, scale: float):
    log.debug("shifted %d values", x.shape[0])
    return scale * np.sum((x - OFFSET) ** 2)


def energy(x: np.ndarray, c: float):
    total = 0.0
    for v in x:
        total = total + v * v
    return total + drag(x, c)


def weighted(x: np.ndarray):
    out = np.zeros(len(x))
    for i, v in enumerate(x):
        out[i] = v * WEIGHTS[i]
    return np.sum(out)


def moment(x: np.ndarray):
    return sum(v ** 3 for v in x)


def loss(p: Params, x: np.ndarray, y: np.ndarray):
    r = x @ p.w + p.b - y
    return np.sum(r * r) / x.shape[0]
