"""Scalar code: calls between functions, loops, branches, math."""
import math

RATE = 0.5


def softplus(x):
    return math.sqrt(1.0 + x * x) + x


def power(x: float, n: int):
    r = 1.0
    while n > 0:
        n -= 1
        r *= x
    return r


def iterate(x, y, n: int):
    for _ in range(n):
        d = softplus(x * y) - y
        if d > 0:
            x = x - RATE * d
        else:
            x = x * math.exp(d)
    return x + power(y, 3)


def piecewise(x: float, y: float):
    if x > y:
        return math.sin(x) * y
    elif x < -y:
        return x / (1.0 + y * y)
    return math.cos(x - y) * x


def early(x, limit: float):
    total = 0.0
    k = 0
    while True:
        total += math.tanh(x) * x
        k += 1
        if total > limit or k > 5:
            break
        x = x * 1.5
    return total
