# Found by the fuzzer (make fuzz with every construct: program_1302709), not cut down yet; also at HEAD.
# At (p0, p1, q, n) = fuzz_programs.POINTS: gradient raised TypeError: unsupported operand type(s) for +:
# 'NoneType' and 'float' (in the emitted prog_gradient, at h1's first line: h1, which defines a nested
# function, is inlined into prog).

import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    u = np.array([a, b, 0.5])
    v = np.ones(3) * b
    def inner(r):
        return r * math.exp(math.sin(-0.75))
    z = np.dot(np.log(1.0 + v ** 2), v)
    return math.cos(np.mean(v)) + np.sum(np.full(3, y) * v)


def h2(w, s):
    x, y, z = s, np.sum(w), s * 0.5
    u = w
    v = np.sin(w)
    x = (-(-x))
    return np.exp(np.sin(np.maximum(u, 0.25))) * y


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = p0 * p1
    u = q
    v = np.array([p0, p1, p0 * p1])
    L = [(3 - 3), y]
    t = (z, L[1])
    u = u.copy()
    u[-1] = (y * -0.75)
    y = np.sin(np.arctan2(3, 1.5 + np.tanh(y)))
    u = (np.where(u > 2.0, v, v) * (u + v))
    return h1(b=L[0], a=np.tanh(x)) + np.sum((2.0 * v) * v)
