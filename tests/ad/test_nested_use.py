"""Mixed and nested use of zygote_py's own API inside differentiated code
(issue 36, item 5), each checked against central finite differences:
``zpy.grad`` inside a function being differentiated, ``hessian`` of a
function that calls ``zpy.gradient``, a gradient and a Hessian-vector
product through an unrolled optimisation loop written with ``zpy.grad``
(``jvp`` of that gradient is still refused: a strict xfail). ``grad``
of ``jvp`` (reverse over forward) is refused by design, with a message
saying what to use (see ``test_nested.py``).
"""
import numpy as np
import pytest

import zygote_py as zpy


def central(f, x, v, h=1e-5):
    """``(f(x + h v) - f(x - h v)) / 2h`` for a function of one array."""
    return (np.asarray(f(x + h * v)) - np.asarray(f(x - h * v))) / (2 * h)


X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 0.2, -0.9])


def cubic_in_x(x):
    """``grad`` of a closure over ``x``, called inside the differentiated
    function: ``d/dy (y^3 sum(x)) = 3 y^2 sum(x)`` at ``y = x``."""
    return np.sum(zpy.grad(lambda y: np.sum(y ** 3) * np.sum(x))(x) * np.sin(x))


def test_grad_inside_a_function_being_differentiated():
    g = zpy.gradient(cubic_in_x, X)[0]
    assert g == pytest.approx(central(cubic_in_x, X, np.eye(3)[0])[()] * np.eye(3)[0]
                              + central(cubic_in_x, X, np.eye(3)[1])[()] * np.eye(3)[1]
                              + central(cubic_in_x, X, np.eye(3)[2])[()] * np.eye(3)[2], rel=1e-6, abs=1e-8)
    assert np.dot(g, V) == pytest.approx(central(cubic_in_x, X, V)[()], rel=1e-6)


def energy(x):
    return np.sum(np.sin(x) * x ** 2) + np.prod(np.cos(x))


def squared_force(x):
    """A function that calls ``zpy.gradient`` internally."""
    return np.sum(zpy.gradient(energy, x)[0] ** 2)


def test_hessian_of_a_function_that_calls_gradient():
    def gradient(x):
        return zpy.gradient(squared_force, x)[0]

    H = zpy.hessian(squared_force, X)
    assert H == pytest.approx(H.T, rel=1e-10, abs=1e-12)
    for k in range(3):
        assert H[:, k] == pytest.approx(central(gradient, X, np.eye(3)[k]), rel=1e-6, abs=1e-7)
    assert zpy.hvp(squared_force, (X,), (V,))[0] == pytest.approx(central(gradient, X, V), rel=1e-6, abs=1e-7)


A = np.array([1.0, -0.5, 0.25])


def inner_loss(w, a):
    return np.sum((w - a) ** 2 * (1.5 + np.cos(w)))


def unrolled(lr, w0):
    """Three gradient-descent steps on ``inner_loss``, written with
    ``zpy.grad``; the loss of where they end."""
    w = w0
    for _ in range(3):
        w = w - lr * zpy.grad(inner_loss)(w, A)
    return np.sum(w ** 2 * np.exp(-w))


def test_gradient_through_an_unrolled_optimisation_loop():
    lr, w0 = 0.1, X
    dlr, dw0 = zpy.gradient(unrolled, lr, w0)
    assert dlr == pytest.approx((unrolled(lr + 1e-6, w0) - unrolled(lr - 1e-6, w0)) / 2e-6, rel=1e-6)
    assert np.dot(dw0, V) == pytest.approx(central(lambda w: unrolled(lr, w), w0, V)[()], rel=1e-6)


def test_second_derivatives_through_an_unrolled_optimisation_loop():
    """``hvp`` along the learning rate and the initial point together, and
    ``jvp`` of the gradient (forward over reverse over reverse)."""
    lr, w0 = 0.1, X

    def gradient(point):
        dlr, dw0 = zpy.gradient(unrolled, point[0], point[1:])
        return np.concatenate([[dlr], dw0])

    point, direction = np.concatenate([[lr], w0]), np.concatenate([[0.3], V])
    want = central(gradient, point, direction)
    got = zpy.hvp(unrolled, (lr, w0), (0.3, V))
    assert np.concatenate([[got[0]], got[1]]) == pytest.approx(want, rel=1e-5, abs=1e-7)
    def along(a, b):
        dlr, dw0 = zpy.gradient(unrolled, a, b)
        return 0.3 * dlr + np.sum(V * dw0)

    reverse = zpy.gradient(along, lr, w0)
    assert np.concatenate([[reverse[0]], reverse[1]]) == pytest.approx(want, rel=1e-5, abs=1e-7)


@pytest.mark.xfail(strict=True, raises=zpy.errors.UnsupportedSyntax,
                   reason="forward mode: a rule's pullback made outside the code pushed forward has no tangent")
def test_jvp_of_a_gradient_through_an_unrolled_optimisation_loop():
    lr, w0 = 0.1, X

    def gradient(point):
        dlr, dw0 = zpy.gradient(unrolled, point[0], point[1:])
        return np.concatenate([[dlr], dw0])

    want = central(gradient, np.concatenate([[lr], w0]), np.concatenate([[0.3], V]))
    _, pushed = zpy.jvp(lambda a, b: zpy.gradient(unrolled, a, b), (lr, w0), (0.3, V))
    assert np.concatenate([[pushed[0]], pushed[1]]) == pytest.approx(want, rel=1e-5, abs=1e-7)


def test_jvp_of_the_gradient_of_a_function_that_changes_its_argument():
    """The gradient runs once, on the arguments as they are: the tangent is
    that of the gradient there (it was taken again after the change)."""
    def changing(q):
        u = q
        u += 0.25 * np.sin(q * q)
        return np.sum(u * u)

    def gradient(q):
        return zpy.gradient(changing, q.copy())[0]

    _, pushed = zpy.jvp(gradient, (X.copy(),), (V,))
    assert pushed == pytest.approx(central(gradient, X, V), rel=1e-6)
