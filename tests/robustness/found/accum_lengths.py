# Found by the fuzzer (make fuzz over floats: program_1000853). At (p0, p1, q, n) = fuzz_programs.POINTS:
# gradient raised ValueError: accum: gradients of lengths 2 and 4 for the same value
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    L = [math.exp(math.sin(z)), x]
    y = np.tanh((-0.5))
    L[-1] = (-0.75 / (1.0 + z ** 2))
    return math.sqrt(1.0 + (-z) ** 2)


def h2(w, s):
    x, y, z = s, np.sum(w), s * 0.5
    u = w
    v = np.sin(w)
    L = [(-3), z]
    def inner(r):
        return r * np.cos(y)
    if L[-1] <= np.hypot(2.0, z):
        k1 = 0
        while k1 < 2 and z >= 0.5:
            k1 += 1
            L.append(math.sin((z - -0.75)))
        y *= math.cos(x)
    elif x > -0.5:
        z = (math.sin(1.5) / (1.0 + (-z) ** 2))
    else:
        k2 = 0
        while k2 < 3 and z >= z:
            k2 += 1
            if z >= math.log(1.0 + (k2 * 0.25) ** 2):
                return ((y - 2.0) - (-z))
            y = math.sin((-math.log(1.0 + (k2 * 0.25) ** 2)))
    for e3 in [1.5, z]:
        z, x = x * 0.5, math.sin(z)
    return ((u / (1.0 + u * u)) + np.full(3, -0.75)) * x


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = p0 * p1
    L = [(z - 2.0), z]
    k1 = 0
    while k1 < 2 and z > y:
        k1 += 1
        for e2 in L[:4]:
            y = 0.5 * (math.sin(((k1 * 0.25) / (1.0 + x ** 2))))
            L[0] = math.sin(h1(b=(k1 * 0.25), a=x))
        else:
            L[0] = math.tanh(((k1 * 0.25) if y < 0.5 else -0.75))
            x = math.sin((L[0] ** 3))
    z = ((-0.75 if z > 0.5 else 0.5) + (x - 3))
    for i3 in range(1, n + 1):
        for i4 in range(3):
            z -= math.sin(math.sqrt(1.0 + math.cos(z) ** 2))
            L[-1] = math.sin((y ** 3))
    for e5 in [1.5, 1.5, 1.5]:
        z = 0.5 * (((z - 1.5) / (1.0 + math.sin(y) ** 2)))
    else:
        for i6 in range(n):
            L.append(math.sin((-x)))
        if z <= z:
            if y <= x:
                return (-math.exp(math.sin(z)))
            z -= (L[-1] ** 3)
    k7 = 0
    while k7 < 3 and y > 0.0:
        k7 += 1
        if z >= y:
            break
        z = math.tanh((min(z, 1.5) * h1(b=3, a=(k7 * 0.25))))
    else:
        x -= (-math.tanh(y))
    return math.exp(math.sin(L[-1]))
