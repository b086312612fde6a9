# Found by the fuzzer, cut down by deleting lines (paths not taken may read
# undefined names). At (p0, p1, q, n) = fuzz_programs.POINTS:
# gradient raises IndexError (as in test_an_array_built_but_unused_on_the_path_taken), and jvp raises UnboundLocalError: cannot access local variable t_8
import math
import numpy as np

def h1(a, b):
    x, y, z = a, b, a * b
    u = np.array([a, b, 0.5])
    v = np.ones(3) * b
    d = {"a": (-3), "b": x}
    if v[1] < 0.0:
        for i1 in range(2):
                continue
    elif np.hypot(y, 2.0) <= (y + 1.5):
        y = (-d["b"])
    return np.sum((u ** 2) * u)

def prog(p0, p1, q, n):
    z = np.sum(q)
    v = np.array([p0, p1, p0 * p1])
    x = h1(b=(z / (1.0 + 3 ** 2)), a=math.exp(math.sin(p0)))
    if np.sum(v) < x:
        return h1((2.0 / (1.0 + p1 ** 2)), np.hypot(x, 3))
    return np.sum(np.minimum(v, p1) * v)
