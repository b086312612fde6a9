# Found by the fuzzer, cut down by deleting lines (paths not taken may read
# undefined names). At (p0, p1, q, n) = fuzz_programs.POINTS:
# gradient raised AttributeError: 'float' object has no attribute 'reshape'
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    u = np.array([a, b, 0.5])
    v = np.ones(3) * b
    return ((-x) - (1.5 ** 2)) + np.sum(np.exp(np.sin(u)) * v)


def h2(w, s):
    return np.exp(np.sin(np.exp(np.sin(v)))) * 1.0


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = math.sin(p0)
    u = q
    v = np.cos(q) * p1
    z -= h1(b=(3 + 0.5), a=(z if z <= -0.5 else y))
    if np.sum(v) < z:
        for e1, f2 in zip(u, v):
            if (y - e1) > (f2 * 2.0):
                break
    elif np.sum(v) <= y:
        v = np.maximum(np.exp(np.sin(u)), y)
        if np.sum(v) >= z:
            z = (math.sin(x) + (1.5 - 1.5))
    return (np.hypot(0.5, y) * (y / (1.0 + x ** 2))) + np.sum(np.arctan(v) * u)
