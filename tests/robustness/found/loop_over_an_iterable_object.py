"""Open: a loop over a differentiated object that defines __iter__ is
indexed as a sequence (for k in range(len(xs))), and crashes with
TypeError: no len(). It should read the object as list() does, or refuse
clearly (its values' fields are not known)."""
import math


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        return iter((self.a, self.b))


def prog(p0, p1, q, n):
    s = 0.0
    for c in Pair(p0, math.sin(p1)):
        s = s + c * c
    return s
