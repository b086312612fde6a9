"""A function reading a global that only running the module would bind."""
import math

FACTOR = math.pi / 2


def fine(x):
    return math.sin(x)


def uses_factor(x):
    return math.sin(x) * FACTOR


for _k in range(3):
    LAST = _k


def uses_last(x):
    return x * LAST
