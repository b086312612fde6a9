# Found by the fuzzer, cut down by deleting lines (paths not taken may read
# undefined names). At (p0, p1, q, n) = fuzz_programs.POINTS:
# gradient raised TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    u = np.array([a, b, 0.5])
    v = np.ones(3) * b
    k1 = 0
    while k1 < 3:
            break
    z += ((0.5 - y) if x >= 0.5 else np.dot(u, u))
    return (np.max(v) * (--0.75)) + np.sum(np.sqrt(1.0 + v ** 2) * v)


def h2(w, s):
    if np.sum(u) <= x:
        return math.exp(math.sin(h1(b=x, a=z))) + np.sum((3 * u) * u)
    return np.log(1.0 + np.where(u > 2.0, u, v) ** 2) * y


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = math.sin(p0)
    u = q
    v = np.cos(q) * p1
    L = [(y if u[2] > 0.0 else -0.75), y]
    if h1(z, 2.0) < (-z):
            x = math.sin(abs(math.exp(math.sin(x))))
    else:
        L.append((y if x >= -0.5 else 2.0))
    return math.sqrt(1.0 + (z + 1.5) ** 2) + np.sum((u - 2.0) * v)
