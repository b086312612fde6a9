"""Module-level values that are not literals (a logger, an expression, an
array): zpy emit runs just these assignments, and the gradient module reads
them from this module by name. A default says a parameter is an int."""
import logging
import math

import numpy as np

log = logging.getLogger(__name__)
SCALE = math.pi / 4
OFFSET = np.linspace(0.0, 1.0, 3)


def scaled(x):
    log.debug("scaled")
    return math.sin(x) * SCALE


def shifted(v: np.ndarray):
    return np.sum((v - OFFSET) ** 2)


def near(x, steps=3):
    for _ in range(steps):
        x = x - 0.1 * math.tanh(x)
    return x * x
