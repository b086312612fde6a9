"""Calls of the user's own functions of the same module, or of a module
beside it (``sibling.py``), inlined into the function being differentiated
(``ad/callees.py``): the gradient and the Hessian through them, checked
against finite differences, and their compilation guarded on the name of
the function called (and on the globals of the other module)."""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import callees, pipeline
from zygote_py.ad.analysis import ARRAY, FLOAT

from . import sibling
from .fdcheck import assert_gradient


def squash(v, k=2.0):
    if v > 0.0:
        return math.tanh(k * v)
    return v / k


def layer(w, x):
    return np.tanh(w @ x)


def twice(v):
    return squash(v) + squash(v, k=0.5)  # a helper calling a helper


def uses_helpers(x, y):
    return twice(x * y) + squash(y) * x


def network(w, x):
    return np.sum(layer(w, x) ** 2)


def test_gradients_through_inlined_calls():
    assert_gradient(uses_helpers, 0.7, -1.3)
    assert_gradient(uses_helpers, -0.4, 0.9)


def test_the_emitted_gradient_has_no_run_time_call():
    zpy.gradient(uses_helpers, 0.7, -1.3)
    source = pipeline.compiled(uses_helpers, (True, True), (3, 3), False).gradient_source
    assert "runtime.J" not in source and "math.tanh" in source


def test_a_hessian_through_a_call_is_forward_over_reverse():
    w, x = np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([1.0, -2.0])
    h = zpy.hessian(lambda v: network(w, v), x)
    step = 1e-6
    fd = np.stack([(zpy.gradient(network, w, x + step * e)[1] - zpy.gradient(network, w, x - step * e)[1])
                   / (2 * step) for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


def scale_global(v):
    return v * 3.0


def calls_a_global(x):
    return scale_global(x) * x


def scale_five(v):
    return v * 5.0


def test_rebinding_the_called_function_compiles_again(monkeypatch):
    assert zpy.gradient(calls_a_global, 2.0) == (12.0,)
    monkeypatch.setitem(calls_a_global.__globals__, "scale_global", scale_five)
    assert zpy.gradient(calls_a_global, 2.0) == (20.0,)


def tree_sum(t):
    if isinstance(t, np.ndarray):
        return np.sum(t ** 2)
    if isinstance(t, (list, tuple)):
        return sum([tree_sum(s) for s in t])
    if isinstance(t, dict):
        return sum([tree_sum(v) for v in t.values()])
    return t * t


def total_of_a_tree(ps):
    return tree_sum(ps) * 0.5


def test_a_recursive_helper_is_called_not_inlined():
    """(Inlined, each of its two recursive calls brought the helper again, to
    2**4 copies: a compilation of 14 to 34 s.)"""
    ps = [np.array([1.0, -2.0]), (np.array([0.5]), {"a": 3.0})]
    (g,) = zpy.gradient(total_of_a_tree, ps)
    np.testing.assert_allclose(g[0], ps[0])
    np.testing.assert_allclose(g[1][0], ps[1][0])
    assert g[1][1]["a"] == pytest.approx(3.0)
    source = pipeline.compiled(total_of_a_tree, (True,), (0,), False).gradient_source
    assert source.count("tree_sum") <= 2, source


def uses_a_sibling(x, c):
    return np.sum(np.sin(x)) + sibling.drag(x, c)


def test_a_function_of_a_sibling_module_is_inlined_and_guarded_there(monkeypatch):
    """Its globals are read in its own module (SCALE, np), and rebinding one
    there compiles again; the gradient has no run-time call."""
    x = np.array([0.3, -1.2, 2.0])
    dx, dc = zpy.gradient(uses_a_sibling, x, 0.5)
    np.testing.assert_allclose(dx, np.cos(x) + 2 * 0.5 * 3.0 * x, rtol=1e-14)
    assert dc == pytest.approx(3.0 * np.sum(x * x), rel=1e-14)
    source = pipeline.compiled(uses_a_sibling, (True, True), (ARRAY, FLOAT), False).gradient_source
    assert "runtime.J" not in source and "drag" not in source, source
    assert_gradient(lambda v, c: uses_a_sibling(np.array([v, 0.4]), c), 0.7, -1.3)
    monkeypatch.setattr(sibling, "SCALE", 5.0)
    np.testing.assert_allclose(zpy.gradient(uses_a_sibling, x, 0.5)[0], np.cos(x) + 5.0 * x, rtol=1e-14)
    h = zpy.hessian(lambda v: uses_a_sibling(v, 0.5), x)  # (forward over the inlined reverse)
    np.testing.assert_allclose(h, np.diag(-np.sin(x)) + 5.0 * np.eye(3), rtol=1e-12, atol=1e-14)


def test_a_library_function_is_not_inlined():
    assert not callees._beside(np.linalg.norm.__wrapped__, uses_a_sibling)
    assert not callees._beside(uses_a_sibling, zpy.gradient)
    assert callees._beside(sibling.drag, uses_a_sibling)


def with_nested(x, a):
    shift = a * 2.0

    def f(v):
        return math.sin(a * v) + shift * v * v
    return f(x) * f(x + 1.0)


def test_a_nested_function_called_where_it_is_defined_is_inlined():
    # (it reads the enclosing parameter a and the value shift, each assigned once: their gradients flow through)
    for args in ((0.7, -1.3), (-0.4, 0.9)):
        assert_gradient(with_nested, *args)
    zpy.gradient(with_nested, 0.7, -1.3)
    source = pipeline.compiled(with_nested, (True, True), (3, 3), False).gradient_source
    assert "runtime.J" not in source and "def f" not in source and "math.sin" in source, source
    # forward mode and second order through the inlined call, against central differences of the gradient
    x, a, h = 0.7, -1.3, 1e-6
    (tangent,) = zpy.jvp(with_nested, (x, a), (1.0, 0.5))[1:]
    slope = (with_nested(x + h, a + 0.5 * h) - with_nested(x - h, a - 0.5 * h)) / (2 * h)
    assert tangent == pytest.approx(slope, rel=1e-6)
    hessian = np.array(zpy.hessian(with_nested, x, a), dtype=float).reshape(2, 2)
    for j, e in enumerate(np.eye(2) * h):
        column = (np.array(zpy.gradient(with_nested, x + e[0], a + e[1]))
                  - np.array(zpy.gradient(with_nested, x - e[0], a - e[1]))) / (2 * h)
        np.testing.assert_allclose(hessian[:, j], column, rtol=1e-5, atol=1e-7)
