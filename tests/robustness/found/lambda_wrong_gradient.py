# Found by the fuzzer (make fuzz over floats), cut down by deleting lines (paths not taken may
# read undefined names). A silent wrong gradient: at (p0, p1, q, n) = fuzz_programs.POINTS,
# gradient of argument 0: 0.0, finite difference 0.93 (a lambda reading variables assigned in loops)
import math

import numpy as np


def h1(a, b):
    return math.log(1.0 + (3 / (1.0 + 0.5 ** 2)) ** 2)


def h2(w, s):
    def inner(r):
        return r * abs(-0.75)
    for i1 in range(2):
        if z <= 0.5 or y >= 0.5:
                break
        elif y >= 0.0:
            x = math.sin(h1(inner(z), (1.5 + (i1 * 0.25))))
    return np.exp(np.sin(np.minimum(v, z))) * x


def prog(p0, p1, q, n):
    x, y = p0, p1
    L = [3, x]
    lam = lambda r: r * z + y
    x = h1((x + 1.5), math.sqrt(1.0 + y ** 2))
    for i1 in range(1, n + 1):
        if x <= 0.5 and z <= y:
            break
        y = math.sin(L[-1])
        for i2 in range(2):
            z = math.sin((-math.exp(math.sin(0.5))))
            z, x = x, z
            L.append(0.5 * ((y - 0.5)))
        k4 = 0
        while k4 < 3 and x > -0.5:
            x = 0.5 * (math.log(1.0 + (z ** 2) ** 2))
    return lam(h1(b=z, a=y))
