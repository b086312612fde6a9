# Found by the fuzzer (make fuzz over floats: program_1002061). At (p0, p1, q, n) = fuzz_programs.POINTS:
# jvp raised TypeError: '<' not supported between instances of 'float' and 'builtin_function_or_method'
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    d = {"a": np.cos(1.5), "b": x}
    if y > z:
        z *= 0.5
    elif z <= -0.5:
        k1 = 0
        while k1 < 2 and x > 0.5:
            k1 += 1
            d["c"] = 0.5 * (((k1 * 0.25) + x))
            y *= 0.5
        if (-3) > abs(2.0):
            return ((y / (1.0 + -0.75 ** 2)) + (3 ** 3))
    z = (-math.exp(math.sin(-0.75)))
    return ((1.5 + 3) ** 3)


def h2(w, s):
    x, y, z = s, np.sum(w), s * 0.5
    u = w
    v = np.sin(w)
    L = [(-y), y]
    y, x = x * 0.5, math.sin(y)
    return (-(v * u)) * x


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = math.sin(p0)
    d = {"a": math.exp(math.sin(x)), "b": x}
    t = (z, abs(0.5))
    for e1 in (y, y,):
        if (-0.75 if x < -0.5 else 1.5) >= (y if x <= x else 3):
            continue
        x = math.tanh((-(x / (1.0 + 2.0 ** 2))))
    x = math.exp(math.sin((-3)))
    k2 = 0
    while k2 < 3:
        k2 += 1
        for e3 in [z]:
            if z > 0.5:
                continue
        for e4 in [y]:
            x -= 0.5 * (abs((-z)))
    else:
        z = ((0.5 / (1.0 + 0.5 ** 2)) * h1(y, x))
        k5 = 0
        while k5 < 3 and y < z:
            k5 += 1
            d["b"] = 0.5 * (math.sqrt(1.0 + z ** 2))
            x *= math.cos(z)
        else:
            if (--0.75) > math.sqrt(1.0 + 3 ** 2):
                return (math.fabs(3) + np.tanh(x))
            y -= 2.0
    return h1(b=math.atan(0.5), a=np.hypot(y, 2.0))
