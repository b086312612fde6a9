# Found by the fuzzer (test_fuzz.py's run over floats). At (p0, p1, q, n) = fuzz_programs.POINTS:
# jvp raises IRError: after the forward transform: block 5: %25 used in statement %33 before its
# definition dominates it (with the IR verifier on, as in the tests)
import math

import numpy as np


def h1(a, b):
    x, y, z = a, b, a * b
    d = {"a": (z - 1.5), "b": y}
    z = (math.exp(math.sin(x)) if x > y else (-0.75 ** 2))
    return (-math.exp(math.sin(1.5)))


def h2(w, s):
    x, y, z = s, np.sum(w), s * 0.5
    u = w
    v = np.sin(w)
    d = {"a": (-3), "b": y}
    t = (x, (z if z >= -0.5 else 3))
    def inner(r):
        return r * h1(b=0.5, a=x)
    lam = lambda r: r * x + y
    x = lam((-z))
    x += (-math.sqrt(1.0 + x ** 2))
    return (z * np.ones(3)) * x


def prog(p0, p1, q, n):
    x, y = p0, p1
    z = math.sin(p0)
    y = ((-2.0) if y <= -0.5 else (0.5 ** 2))
    y = ((3 + x) if z < -0.5 else (z if x < 0.0 else 3))
    x = (h1(y, 2.0) * np.hypot(x, z))
    if x >= x:
        if x >= y or z > 0.0:
            z, y = y, z
            y, x = x, y
        elif z <= y:
            z = ((y - 1.5) if x < 0.5 else 2.0)
            x = (-abs(y))
        else:
            z = (-math.sqrt(1.0 + x ** 2))
    else:
        for e1 in (z, x, z,):
            z, y = y * 0.5, math.sin(z)
        else:
            z = math.exp(math.sin(min(0.5, x)))
            y = np.sin(h1(b=0.5, a=0.5))
    return ((x + y) * x)
