"""Jacobians, Hessian-vector products and Hessians, checked against
central differences of the function (Jacobians) and of its gradient
(Hessians), and the Rosenbrock Hessian against its closed form."""
import math

import numpy as np
import pytest

import zygote_py as zpy

STEP = 1e-6
RNG = np.random.default_rng(11)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        h[i + 1, i + 1] += 200
        h[i, i + 1] = h[i + 1, i] = -400 * x[i]
    return h


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


X_MLP = RNG.standard_normal((5, 3))
Y_MLP = np.eye(2)[[0, 1, 1, 0, 1]]


def mlp_loss(w1, w2):
    h = np.tanh(X_MLP @ w1)
    z = h @ w2
    p = np.exp(z - np.max(z, axis=1, keepdims=True))
    p = p / np.sum(p, axis=1, keepdims=True)
    return -np.sum(Y_MLP * np.log(p)) / 5


def central(f, x):
    """d f(x) / dx by central differences, shaped f's output + x's shape."""
    cols = []
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = STEP
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * STEP))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


def test_jacobian_of_softmax():
    x = RNG.standard_normal(4)
    (j,) = zpy.jacobian(softmax, x)
    assert j.shape == (4, 4)
    np.testing.assert_allclose(j, central(softmax, x), rtol=1e-6, atol=1e-9)
    s = softmax(x)
    np.testing.assert_allclose(j, np.diag(s) - np.outer(s, s), rtol=1e-12, atol=1e-15)


def test_jacobian_of_a_matrix_function_of_two_arguments():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    ja, jb = zpy.jacobian(lambda m, v: np.tanh(m @ v), a, b)
    assert ja.shape == (2, 2, 3) and jb.shape == (2, 3)
    np.testing.assert_allclose(ja, central(lambda m: np.tanh(m @ b), a), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(jb, central(lambda v: np.tanh(a @ v), b), rtol=1e-6, atol=1e-9)


def test_rosenbrock_hessian():
    x = RNG.standard_normal(6)
    h = zpy.hessian(rosenbrock, x)
    np.testing.assert_allclose(h, rosenbrock_hessian(x), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(h, central(lambda v: zpy.gradient(rosenbrock, v)[0], x), rtol=1e-5, atol=1e-5)


def test_hvp_matches_the_hessian_times_the_vector():
    x, v = RNG.standard_normal(5), RNG.standard_normal(5)
    (hv,) = zpy.hvp(rosenbrock, (x,), (v,))
    np.testing.assert_allclose(hv, rosenbrock_hessian(x) @ v, rtol=1e-12, atol=1e-9)


def test_mlp_loss_hessian_blocks():
    w1, w2 = RNG.standard_normal((3, 4)) * 0.5, RNG.standard_normal((4, 2)) * 0.5
    blocks = zpy.hessian(mlp_loss, w1, w2)
    assert blocks[0][1].shape == (3, 4, 4, 2) and blocks[1][0].shape == (4, 2, 3, 4)
    np.testing.assert_allclose(blocks[0][0], central(lambda a: zpy.gradient(mlp_loss, a, w2)[0], w1),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(blocks[0][1], central(lambda b: zpy.gradient(mlp_loss, w1, b)[0], w2),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(blocks[0][1], np.moveaxis(blocks[1][0], (0, 1), (2, 3)), rtol=1e-10, atol=1e-12)


def item_loop(v):
    s = 0.0
    for i in range(3):
        s = s + math.sin(v[i]) * v[i]
    return s * s


def test_hessian_of_a_loop_over_items():
    # (the gradient code adds each item's gradient into a list in place: forward mode pushes through it)
    x = np.array([0.3, 0.6, 0.9])
    h = zpy.hessian(item_loop, x)
    np.testing.assert_allclose(h, central(lambda y: zpy.gradient(item_loop, y)[0], x), rtol=1e-6, atol=1e-8)


def test_gradient_of_a_gradient_of_a_loop_over_items():
    # (...and reverse mode differentiates that change in place of a new list)
    def norm_of_gradient(y):
        g = zpy.gradient(item_loop, y)[0]
        assert type(g) is np.ndarray  # as zpy.gradient returns it outside
        return float(np.sum(g * g))
    x = np.array([0.3, 0.6, 0.9])
    np.testing.assert_allclose(zpy.gradient(norm_of_gradient, x)[0], central(norm_of_gradient, x), rtol=1e-6)


# Functions that change their arguments in place, run more than once by a
# derivative: each run must see the arguments as given (they gave the
# derivative at the changed arguments, in silence), and the caller's are
# left as they were.

def sgd_on_dict(p, lr):
    for _ in range(3):
        g = {k: 2 * p[k] + 0.1 for k in p}
        for k in p:
            p[k] -= lr * g[k]
    return sum(np.sum(v ** 3) for v in p.values())


def doubled_in_place(x):
    x *= 2.0
    return x ** 2


def _params():
    return {"w": np.array([0.5, -0.8]), "b": np.array([0.3])}


def test_hvp_of_a_function_changing_its_dict_argument():
    p = _params()
    got = zpy.hvp(sgd_on_dict, (p, 0.1), ({"w": np.zeros(2), "b": np.zeros(1)}, 1.0))
    assert np.array_equal(p["w"], _params()["w"]) and np.array_equal(p["b"], _params()["b"])

    def dlr(lr):
        return zpy.gradient(sgd_on_dict, _params(), lr)[1]
    want = (dlr(0.1 + STEP) - dlr(0.1 - STEP)) / (2 * STEP)
    assert np.isclose(got[1], want, rtol=1e-5)
    for k in ("w", "b"):
        dw = [(zpy.gradient(sgd_on_dict, _params(), 0.1 + s)[0][k]) for s in (STEP, -STEP)]
        assert np.allclose(got[0][k], (dw[0] - dw[1]) / (2 * STEP), rtol=1e-5, atol=1e-7)


def test_hessian_of_a_function_changing_its_dict_argument():
    def f(p):
        for k in p:
            p[k] = p[k] * 0.9 + 0.1
        return np.sum(p["w"] ** 3) + np.sum(p["w"] * p["b"])

    def plain(w, b):
        w, b = w * 0.9 + 0.1, b * 0.9 + 0.1
        return np.sum(w ** 3) + np.sum(w * b)

    p = {"w": np.array([0.5, -0.8]), "b": np.array([0.3, 0.2])}
    h = zpy.hessian(f, p)
    want = zpy.hessian(plain, p["w"], p["b"])
    assert np.allclose(h["w"]["w"], want[0][0]) and np.allclose(h["w"]["b"], want[0][1])
    assert np.allclose(h["w"]["w"], np.diag(6 * 0.81 * (p["w"] * 0.9 + 0.1)))


@pytest.mark.parametrize("transform", [zpy.jacfwd, zpy.jacrev, lambda f: lambda x: zpy.jacobian(f, x)[0]])
def test_jacobians_of_a_function_changing_its_argument(transform):
    x = np.array([1.0, 2.0])
    assert np.allclose(transform(doubled_in_place)(x), np.diag(8 * np.array([1.0, 2.0])))
    assert np.array_equal(x, [1.0, 2.0])


def test_a_pullback_called_twice_on_a_function_changing_its_argument():
    x = np.array([1.0, 2.0])
    y, back = zpy.pullback(doubled_in_place, x)
    assert np.array_equal(y, [4.0, 16.0]) and np.array_equal(x, [2.0, 4.0])  # (changed once, as by a call)
    assert np.array_equal(back(np.array([1.0, 0.0]))[0], [8.0, 0.0])
    assert np.array_equal(back(np.array([0.0, 1.0]))[0], [0.0, 16.0])
