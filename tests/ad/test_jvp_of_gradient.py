"""``jvp`` of a gradient (forward mode over the gradient code zygote_py
emits, issue 36 item 2) where it was refused: each tangent is checked
against central differences of the gradient.
"""
import math

import numpy as np
import pytest

import zygote_py as zpy

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 0.2, -0.9])


def assert_jvp_of_gradient(f, x=X, v=V):
    """``jvp`` of ``x -> gradient of f at x`` along ``v`` against the
    central difference of that gradient."""
    def gradient(a):
        return zpy.gradient(f, a.copy())[0]

    h = 1e-5
    want = (gradient(x + h * v) - gradient(x - h * v)) / (2 * h)
    _, got = zpy.jvp(gradient, (x.copy(),), (v,))
    assert got == pytest.approx(want, rel=1e-6, abs=1e-8)


def hypotenuse(x):
    """Gradient code holding a constant of its own (``sqrt``'s ``inf`` at
    zero), bound in a cell: no captured value."""
    return math.sqrt(1.0 + x[0] ** 2) * np.sum(x)


def through_a_list_of_functions(x):
    """Calls known only at run time: the gradient code differentiates them
    through their rules' ``vjp``, which captures ``math.log`` (whose
    ``base`` defaults to a float: no value the caller differentiates)."""
    return sum(g(1.0 + x[0] ** 2) * x[1] for g in (math.log, math.sin)) + np.sum(x ** 2)


@pytest.mark.parametrize("f", [hypotenuse, through_a_list_of_functions])
def test_jvp_of_gradient(f):
    assert_jvp_of_gradient(f)
