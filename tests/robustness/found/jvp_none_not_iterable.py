# Found by the fuzzer (make fuzz --exclude closure: program_101106), not cut down yet. At (p0, p1, q, n) =
# fuzz_programs.POINTS: jvp raised TypeError: 'NoneType' object is not iterable (a zip over u and v, u changed in place)
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    u = np.array([a, b, 0.5])
    v = np.ones(3) * b
    u = np.sin(np.sqrt(1.0 + v ** 2))
    return (v[-1] / (1.0 + (x / (1.0 + x ** 2)) ** 2)) + np.sum((u ** 2) * v)


def h2(w, s):
    x, y, z = s, np.sum(w), s * 0.5
    u = w
    v = np.sin(w)
    L = [(y ** 2), y]
    d = {"a": np.sin(-0.75), "b": x}
    for e1 in L[:4]:
        if np.sum(v) > z:
            break
        L.append(math.sin((-1.5)))
    L[-1] = (z + z)
    return ((u / (1.0 + v * u)) - z) * 1.0


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = math.sin(p0)
    u = q
    v = np.array([p0, p1, p0 * p1])
    L = [(0.5 * x), z]
    x = (-math.log(1.0 + 1.5 ** 2))
    u = np.maximum(np.where(v > z, u, u), 0.25)
    k1 = 0
    while k1 < 2:
        k1 += 1
        if np.mean(v) >= (z - y):
            x = math.tanh((np.mean(u) * (3 if u[1] <= x else z)))
        elif np.sum(v) >= z:
            v = v * 1.0
            v[0] = math.tanh(L[-1])
            if np.sum(v) <= z:
                return (-math.exp(math.sin(1.5))) + np.sum(np.full(3, z) * u)
        else:
            u = u * 1.0
            u[1] = 0.5 * (v.sum())
            y = math.tanh(L[-1])
    v = np.full(3, 3)
    for i2 in range(1, n + 1):
        for e3, f4 in zip(u, v):
            z = math.tanh(h1((2.0 * 0.5), ((i2 * 0.25) * x)))
            v = v.copy()
            v[-1] = 0.5 * (math.sqrt(1.0 + (i2 * 0.25) ** 2))
    return y + np.sum(np.sin(v) * u)
