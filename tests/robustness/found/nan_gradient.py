# Found by the fuzzer, cut down by deleting lines (paths not taken may read
# undefined names). At (p0, p1, q, n) = fuzz_programs.POINTS:
# gradient of argument 2[0]: np.float64(nan), finite difference np.float64(0.8546507301865347)
import math

import numpy as np


def h1(a, b):
    return ((-2.0) - math.log(1.0 + y ** 2)) + np.sum(v * u)


def h2(w, s):
    x, y, z = s, np.sum(w), s * 0.5
    u = w
    d = {"a": (2.0 if y > 0.0 else 0.5), "b": z}
    v = np.log(1.0 + (-u) ** 2)
    return np.where(np.array([y, 0.5, -0.75]) > y, (-v), (u ** 2)) * x


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = math.sin(p0)
    u = q
    v = q * q
    u = (h2(u, z) * np.minimum(u, v))
    if math.sqrt(1.0 + x ** 2) >= math.tanh(3):
        return (-(x ** 3)) + np.sum(v * u)
    return math.sqrt(1.0 + math.sqrt(1.0 + 3 ** 2) ** 2) + np.sum((v + v) * u)
