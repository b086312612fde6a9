"""make demo: differentiate a function with a loop, print its IR and the
emitted gradient source, and check the gradient against finite differences
and the analytic value; then the same for a NumPy layer."""
import math

import numpy as np

import zygote_py as zpy


@zpy.differentiable
def power(x, n):
    r = 1.0
    while n > 0:
        n -= 1
        r *= x
    return r


@zpy.differentiable
def foo(x):
    a = math.sin(x)
    b = math.cos(a)
    return b


X = np.linspace(-1.0, 1.0, 5)  # data: a global, so not differentiated


@zpy.differentiable
def layer(W: np.ndarray, b: np.ndarray):
    return np.sum(np.tanh(W @ X + b) ** 2)


def central_difference(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def main():
    print("The function, as SSA IR (IRTools notation):\n")
    print(power.ir)
    (dx, dn) = power.gradient(2.0, 3)
    print("gradient(power, 2.0, 3) =", (dx, dn))
    print("\nThe emitted forward function and pullback:\n")
    print(power.source)
    fd = central_difference(lambda x: power(x, 3), 2.0)
    assert abs(dx - 12.0) < 1e-12 and dn is None, (dx, dn)
    assert abs(dx - fd) < 1e-6, (dx, fd)
    print(f"analytic 3 * 2.0**2 = 12.0, finite differences {fd:.9f}: ok\n")

    (g,) = foo.gradient(1.0)
    print(foo.source)
    expected = -math.sin(math.sin(1.0)) * math.cos(1.0)
    assert abs(g - expected) < 1e-12, (g, expected)
    assert abs(g - central_difference(foo, 1.0)) < 1e-6
    print(f"gradient(foo, 1.0) = {g:.6f} (analytic {expected:.6f}): ok\n")

    W, b = np.full((3, 5), 0.1), np.array([0.1, -0.2, 0.3])
    dW, db = layer.gradient(W, b)
    print(layer.source)
    h = np.tanh(W @ X + b)
    expected_db = 2 * h * (1 - h * h)
    assert np.allclose(db, expected_db, rtol=1e-12) and np.allclose(dW, np.outer(expected_db, X), rtol=1e-12)
    fd = central_difference(lambda v: layer(W, b + v * np.eye(3)[0]), 0.0)
    assert abs(db[0] - fd) < 1e-6, (db[0], fd)
    print(f"gradient(layer, W, b): db = {np.round(db, 6)} (analytic {np.round(expected_db, 6)}): ok")


if __name__ == "__main__":
    main()
