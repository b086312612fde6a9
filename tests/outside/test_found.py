"""Regression tests for the bugs the outside corpus found, each as its
minimal program against an analytic value (the corpus checks them against
finite differences too)."""
import numpy as np

import zygote_py as zpy


def closure_over(fn):
    return lambda a: np.sum(np.sin(fn(a)))


def test_a_compiled_gradient_is_guarded_on_the_callees_it_reads():
    # compiled for np.trunc (no gradient: the call was inactive), the
    # closure's gradient was reused for np.cos and gave None
    x = np.array([0.3, 1.2])
    assert zpy.gradient(closure_over(np.trunc), x)[0] is None
    g = zpy.gradient(closure_over(np.cos), x)[0]
    np.testing.assert_allclose(g, np.cos(np.cos(x)) * -np.sin(x), rtol=1e-12)


def test_hvp_with_complex_arguments_where_forward_mode_is_refused():
    # the closure captures an array, so hvp differentiates twice in reverse
    # mode, whose directional derivative must be real: Re(conj(v) g)
    w = np.array([1.0, 2.0])
    z, v = np.array([1 + 2j, -1j]), np.array([0.5 - 1j, 2 + 1j])
    (h,) = zpy.hvp(lambda z: np.sum(np.abs(z * w) ** 2), (z,), (v,))
    np.testing.assert_allclose(h, 2 * w ** 2 * v, rtol=1e-12)


def test_sinc_twice():
    # np.sinc's slope used np.divide(where=...), which has no rule; its
    # second derivative at 0 is -pi^2 / 3
    x, v = np.array([0.0, 0.3]), np.array([1.0, 1.0])
    (h,) = zpy.hvp(lambda x: np.sum(np.sinc(x)), (x,), (v,))
    p = np.pi * x[1]
    second = ((2 - p * p) * np.sin(p) - 2 * p * np.cos(p)) / (p ** 3) * np.pi ** 2
    np.testing.assert_allclose(h, [-np.pi ** 2 / 3, second], rtol=1e-9)


def test_jvp_of_a_closure_that_captured_a_ufunc():
    # np.hypot counted as a differentiated captured value: refused
    def twice(f):
        return lambda a: f(a, a)

    both = twice(np.hypot)
    x, v = np.array([1.0, -2.0]), np.array([0.5, 1.0])
    _, t = zpy.jvp(lambda x: np.sum(both(x)), (x,), (v,))
    assert np.isclose(t, np.sqrt(2) * np.sum(np.sign(x) * v))


def test_jvp_of_a_method_named_at_run_time():
    # getattr(x, name)() with name a variable: its tangent was 0, and its
    # keyword arguments were dropped
    x, v = np.arange(6.0).reshape(3, 2), np.ones((3, 2))
    name = "sum"
    y, t = zpy.jvp(lambda x: getattr(x, name)(axis=1), (x,), (v,))
    assert y.tolist() == [1.0, 5.0, 9.0] and t.tolist() == [2.0, 2.0, 2.0]


def test_second_derivatives_through_einsum_diagonals_and_traces():
    # in-place writes (einsum's list of gradients, diagonal_grad's plane)
    # were refused, and the sparse diagonal of trace's gradient gave 0
    a, v = np.arange(9.0).reshape(3, 3) / 9, np.ones((3, 3))
    (h,) = zpy.hvp(lambda a: np.einsum("ii", a) ** 2, (a,), (v,))
    np.testing.assert_allclose(h, 6 * np.eye(3), rtol=1e-12)  # 2 trace(v) I
    (h,) = zpy.hvp(lambda a: np.sum(np.sin(np.diag(a))), (a,), (v,))
    np.testing.assert_allclose(h, np.diag(-np.sin(np.diag(a))), rtol=1e-12)
    s = np.stack([a, a.T])
    (h,) = zpy.hvp(lambda s: np.sum(np.trace(s, 0, 1, 2) ** 2), (s,), (np.ones_like(s),))
    np.testing.assert_allclose(h, 6 * np.stack([np.eye(3)] * 2), rtol=1e-12)


def test_second_derivative_of_eigh_vectors():
    # eigh_grad wrote dw into a diagonal in place: refused at second order
    a = np.diag([1.0, 2.0, 4.0]) + 0.1
    v = np.zeros((3, 3))
    v[0, 1] = v[1, 0] = 1.0

    def f(a):
        return np.linalg.eigh(a)[1][0, 0] ** 2

    def g(a):
        return zpy.gradient(f, a)[0]

    (h,) = zpy.hvp(f, (a,), (v,))
    step = 1e-6
    np.testing.assert_allclose(h, (g(a + step * v) - g(a - step * v)) / (2 * step), rtol=1e-5, atol=1e-8)
