"""The functions whose emitted gradient source is kept in tests/ad/golden/.

Kept apart from the other test programs so that editing those never moves
these functions' lines (the emitted source may point back to them).
"""
import math

import numpy as np


def foo(x):
    return math.cos(math.sin(x))


def pow_while(x, n):
    r = 1.0
    while n > 0:
        n -= 1
        r *= x
    return r


def pow_for(x, n):
    r = 1.0
    for _ in range(n):
        r *= x
    return r


def pow_rec(x, n):
    if n == 0:
        return 1.0
    return x * pow_rec(x, n - 1)


def branchy(x, y):
    if x > y:
        z = x * y
    elif x > 0.0:
        z = math.sin(x) + y
    else:
        z = math.exp(x) * y
    if z < 1.0:
        z = z * z
    return z


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def sum_of_squares(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def dense_layer(W, x, b):
    return np.sum(np.tanh(W @ x + b) ** 2)
