"""Idioms a red team found refused (issue 30, progs4 findings R3-R15):
each checked against central finite differences in reverse mode, forward
mode (``zpy.jvp``) and at second order (``zpy.hvp``) where the program
allows."""
import numpy as np

import zygote_py as zpy

STEP = 1e-6
RNG = np.random.default_rng(30)


def fd_gradient(f, x, *rest):
    """Central differences of ``f(x, *rest)`` along each item of ``x``."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = STEP
        g.flat[i] = (f(x + e, *rest) - f(x - e, *rest)) / (2 * STEP)
    return g


def check_modes(f, x, *rest, second=True):
    """``f(x, *rest)``'s gradient in ``x`` against finite differences, its
    jvp against the gradient's, and (``second``) its hvp against finite
    differences of the gradient."""
    g = zpy.gradient(f, x, *rest)[0]
    np.testing.assert_allclose(g, fd_gradient(f, x, *rest), rtol=1e-5, atol=1e-7)
    v = RNG.standard_normal(x.shape)
    y, dy = zpy.jvp(f, (x, *rest), (v, *[None] * len(rest)))
    np.testing.assert_allclose(y, f(x, *rest), rtol=1e-13)
    np.testing.assert_allclose(dy, np.sum(g * v), rtol=1e-9, atol=1e-12)
    if second:
        hv = zpy.hvp(f, (x, *rest), (v, *[None] * len(rest)))[0]
        grad = lambda z: zpy.gradient(f, z, *rest)[0]
        expected = (grad(x + STEP * v) - grad(x - STEP * v)) / (2 * STEP)
        np.testing.assert_allclose(hv, expected, rtol=1e-5, atol=1e-7)
    return g


# -- 1. a method that caches a value on its object (R9) -----------------------------


class Cached:
    def __init__(self):
        self.W = np.array([1.0, 2.0])
        self.cache = None
        self.calls = 0

    def __call__(self, x):
        h = x * self.W
        self.cache = h
        self.calls += 1
        return np.tanh(h)

    def loss(self, x):
        return np.sum(self(x) ** 2) + np.sum(self.cache ** 3)


def call_cached(x, m):
    return np.sum(m(x) ** 2)


def cache_read_back(x, m):
    return m.loss(x)


def test_a_call_that_caches_on_a_constant_model():
    x = np.array([0.5, -0.3])
    m = Cached()
    g = zpy.gradient(call_cached, x, m)[0]
    np.testing.assert_allclose(g, fd_gradient(call_cached, x, m), rtol=1e-5)
    assert m.calls >= 1 and m.cache is not None  # (the change happened, as in a plain call)


def test_a_cache_read_back_by_the_caller():
    x = np.array([0.5, -0.3])
    g = zpy.gradient(cache_read_back, x, Cached())[0]
    np.testing.assert_allclose(g, fd_gradient(cache_read_back, x, Cached()), rtol=1e-5)
    h = zpy.hvp(cache_read_back, (x, Cached()), (np.array([1.0, -2.0]), None))[0]
    grad = lambda z: zpy.gradient(cache_read_back, z, Cached())[0]
    np.testing.assert_allclose(h, (grad(x + STEP * np.array([1.0, -2.0])) - grad(x - STEP * np.array([1.0, -2.0])))
                               / (2 * STEP), rtol=1e-5)


def test_a_cache_read_back_of_a_differentiated_model():
    x = np.array([0.5, -0.3])
    w = np.array([1.0, 2.0])

    def by_weights(w):
        m = Cached()
        m.W = w
        return m.loss(x)

    g = zpy.grad(lambda m: m.loss(x))(Cached())
    np.testing.assert_allclose(g.W, fd_gradient(by_weights, w), rtol=1e-5)

