# Found by the fuzzer, cut down by deleting lines (paths not taken may read
# undefined names). At (p0, p1, q, n) = fuzz_programs.POINTS:
# jvp's value np.float64(30.602052874210443) != plain np.float64(26.504242370090946)
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    u = np.array([a, b, 0.5])
    v = np.ones(3) * b
    d = {"a": (-3), "b": x}
    if v[1] < 0.0:
        for i1 in range(2):
            d["a"] = 0.5 * (math.atan(z))
            if z <= x:
                continue
    elif np.hypot(y, 2.0) <= (y + 1.5):
        y = (-d["b"])
    return (-(1.5 / (1.0 + -0.75 ** 2))) + np.sum((u ** 2) * u)


def h2(w, s):
    def inner(r):
        return r * math.log(1.0 + 3 ** 2)
    return (-np.sort(v)) * 1.0


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = np.sum(q)
    u = q
    v = np.array([p0, p1, p0 * p1])
    x = h1(b=(z / (1.0 + 3 ** 2)), a=math.exp(math.sin(x)))
    if np.sum(v) < x:
        return h1((2.0 / (1.0 + y ** 2)), np.hypot(x, 3)) + np.sum(np.exp(np.sin(v)) * u)
    return math.sqrt(1.0 + np.max(u) ** 2) + np.sum(np.minimum(v, y) * v)
