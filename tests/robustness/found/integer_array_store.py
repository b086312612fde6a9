"""Open (fuzz seed 11731, cut down): a value stored into an integer array
is truncated, but both modes carry its derivative on through the array
(gradient and tangent of p0 wrong). A fix: the array store rule gives the
value no gradient when the array is not of floats, and forward mode stores
a zero tangent there, without hiding the fill loop's take_item_owned."""
import numpy as np


def prog(p0, p1, q, n):
    u = np.full(3, 3)
    u[1] = -0.9 * p0
    return float(np.sum(np.minimum(u, p0) * u)) + p0 * u[1] + p1
