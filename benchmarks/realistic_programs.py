"""Realistic programs for ``realistic.py``: written as users write them,
with classes, methods, closures, helpers and value-dependent loops, not as
benchmark loops.

Every program reads NumPy as ``np`` and its data from this module's
globals, so that ``realistic.py`` can run the same source against another
library: it executes this file again with ``np`` bound to that library's
NumPy-like module and the arrays below converted to its arrays (see
``realistic.load_programs``). Keep to what autograd, JAX and PyTorch all
spell alike (``np.sin``, ``np.sum``, ``np.array([...])`` of numbers,
``np.linalg.solve``, ``@``, ``.T``, slices); the data is made with
``numpy`` under its own name, which is never rebound.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy
import numpy as np

_rng = numpy.random.default_rng(34)

# --------------------------------------------------------------------------
# A dataclass physics model: a chain of springs between point masses
# --------------------------------------------------------------------------


@dataclass
class Spring:
    stiffness: float
    rest: float

    def energy(self, a, b):
        d = b - a
        return 0.5 * self.stiffness * (np.sqrt(np.sum(d * d)) - self.rest) ** 2


SPRINGS = [Spring(1.0 + 0.1 * i, 0.8 + 0.05 * (i % 3)) for i in range(15)]
CHAIN = numpy.cumsum(numpy.ones((16, 2)), axis=0) + 0.1 * _rng.standard_normal((16, 2))


def spring_energy(x):
    total = 0.0
    for i, spring in enumerate(SPRINGS):
        total = total + spring.energy(x[i], x[i + 1])
    return total


# --------------------------------------------------------------------------
# A Kalman filter written with methods
# --------------------------------------------------------------------------


class KalmanFilter:
    def __init__(self, F, H, Q, R):
        self.F = F
        self.H = H
        self.Q = Q
        self.R = R

    def predict(self, x, P):
        return self.F @ x, self.F @ P @ self.F.T + self.Q

    def update(self, x, P, z):
        S = self.H @ P @ self.H.T + self.R
        K = np.linalg.solve(S, self.H @ P).T
        innovation = z - self.H @ x
        return x + K @ innovation, P - K @ self.H @ P, innovation


KF_H = numpy.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
KF_Q = 0.01 * numpy.eye(4)
KF_R = 0.1 * numpy.eye(2)
KF_X0 = numpy.zeros(4)
KF_P0 = numpy.eye(4)
KF_ZS = numpy.cumsum(0.1 * _rng.standard_normal((20, 2)), axis=0)
KF_F = numpy.array([[1.0, 0.0, 0.1, 0.0], [0.0, 1.0, 0.0, 0.1], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def kalman_loss(F):
    kf = KalmanFilter(F, KF_H, KF_Q, KF_R)
    x, P = KF_X0, KF_P0
    loss = 0.0
    for z in KF_ZS:
        x, P = kf.predict(x, P)
        x, P, innovation = kf.update(x, P, z)
        loss = loss + np.sum(innovation * innovation)
    return loss


# --------------------------------------------------------------------------
# A closure-based model factory, rebuilt at every training step
# --------------------------------------------------------------------------


def make_model(W, b):
    def predict(x):
        return np.tanh(x @ W + b)
    return predict


MODEL_X = _rng.standard_normal((32, 8))
MODEL_Y = _rng.standard_normal((32, 4))
MODEL_W = 0.3 * _rng.standard_normal((8, 4))
MODEL_B = 0.1 * _rng.standard_normal(4)


def model_loss(W, b):
    predict = make_model(W, b)
    return np.mean((predict(MODEL_X) - MODEL_Y) ** 2)


# --------------------------------------------------------------------------
# An adaptive step-size ODE solver (step doubling)
# --------------------------------------------------------------------------


def damped_rate(y, k, c):
    return -k * y - c * y * y


def adaptive_ode(k, c):
    t, y, dt, T = 0.0, 1.0, 0.1, 2.0
    while t < T:
        dt = min(dt, T - t)
        full = y + dt * damped_rate(y, k, c)
        half = y + 0.5 * dt * damped_rate(y, k, c)
        half = half + 0.5 * dt * damped_rate(half, k, c)
        if abs(full - half) > 1e-4:
            dt = dt / 2.0
        else:
            t = t + dt
            y = half
            dt = dt * 1.5
    return y


# --------------------------------------------------------------------------
# An RK4 loop calling a helper that unpacks its parameters
# --------------------------------------------------------------------------


def lotka_volterra(y, p):
    a, b, c, d = p
    prey, predator = y
    return np.array([a * prey - b * prey * predator, c * prey * predator - d * predator])


def rk4_loss(p):
    y = np.array([1.0, 0.5])
    h = 0.05
    for _ in range(40):
        k1 = lotka_volterra(y, p)
        k2 = lotka_volterra(y + 0.5 * h * k1, p)
        k3 = lotka_volterra(y + 0.5 * h * k2, p)
        k4 = lotka_volterra(y + h * k3, p)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


RK4_P = numpy.array([1.1, 0.4, 0.4, 0.9])


# --------------------------------------------------------------------------
# A recursive expression evaluator
# --------------------------------------------------------------------------


class Expr:
    pass


@dataclass
class Const(Expr):
    value: float


@dataclass
class Name(Expr):
    name: str


@dataclass
class Add(Expr):
    left: Expr
    right: Expr


@dataclass
class Mul(Expr):
    left: Expr
    right: Expr


@dataclass
class Sin(Expr):
    arg: Expr


def evaluate(e, env):
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Name):
        return env[e.name]
    if isinstance(e, Add):
        return evaluate(e.left, env) + evaluate(e.right, env)
    if isinstance(e, Mul):
        return evaluate(e.left, env) * evaluate(e.right, env)
    return np.sin(evaluate(e.arg, env))


def _tree(depth):
    if depth == 0:
        return Add(Mul(Const(0.5), Name("x")), Name("y"))
    left, right = _tree(depth - 1), Sin(_tree(depth - 1))
    return Mul(left, right) if depth % 2 else Add(left, Sin(right))


EXPRESSION = _tree(5)


def expression(x, y):
    return evaluate(EXPRESSION, {"x": x, "y": y})


# --------------------------------------------------------------------------
# A Newton step with the Hessian (the step itself is what is timed)
# --------------------------------------------------------------------------


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


NEWTON_X = numpy.linspace(-0.5, 0.8, 10)
