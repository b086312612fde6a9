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


def normalise(u):
    """Changes its argument in place."""
    u /= np.sqrt(1.0 + np.sum(u * u))
    return np.sum(u)


def through_a_function_changing_its_argument(x):
    u = x * 1.5
    s = normalise(u)
    return s * np.sum(np.sin(u) * x)


class Base:
    def __init__(self, w):
        self.w = w * 2.0


class Scaled(Base):
    def __init__(self, w, k):
        super().__init__(w)
        self.k = k

    def value(self, x):
        return np.sum(np.tanh(self.w * x))


def scale_down(u):
    """Changes its argument in place; ``sum``'s rule reads the list's items
    (``runtime.take``)."""
    u *= 1.0 / (1.0 + sum([np.sum(p * p) for p in [u[:2], u[1:]]]))


def through_a_sum_read_by_its_rule(x):
    u = x * 1.0
    scale_down(u)
    return np.sum(np.sin(u) * x)


def through_a_closure_over_a_changing_variable(x):
    """A nested function reading a variable its caller reassigns (the
    mutation pass's ``call_with_cells``): its pullback, replayed forward,
    runs with the cell holding the value it held at the call."""
    v, t = x * 1.0, 0.0
    for _ in range(2):
        v = np.sin(v) * 1.5
        g = lambda r: r * np.sum(v * v)
        t = t + g(0.5)
    return t


def closure_over_its_callers_argument_too(x):
    v = x * 1.0
    v = np.sin(v) * 1.5
    g = lambda r: r * np.sum(v * v * x)
    return g(0.5)


def test_a_closure_whose_other_captured_values_have_no_tangent_here():
    """Refused in forward mode over the gradient (``x``'s tangent does not
    reach the closure), never a wrong number: ``hvp`` falls back to reverse
    over reverse, which is checked."""
    with pytest.raises(zpy.errors.NoDerivativeRule, match="captures differentiated values"):
        zpy.jvp(lambda a: zpy.gradient(closure_over_its_callers_argument_too, a)[0], (X.copy(),), (V,))

    def gradient(a):
        return zpy.gradient(closure_over_its_callers_argument_too, a)[0]

    h = 1e-5
    want = (gradient(X + h * V) - gradient(X - h * V)) / (2 * h)
    assert zpy.hvp(closure_over_its_callers_argument_too, (X,), (V,))[0] == pytest.approx(want, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("f", [through_a_function_changing_its_argument, through_a_sum_read_by_its_rule,
                               through_a_closure_over_a_changing_variable])
def test_jvp_of_gradient_through_calls_of_the_users_code(f):
    """The mutation pass's calls of the user's code (a function or a method
    changing its argument, a base class's ``__init__``) pushed forward in
    one run; a rule's pullback that changes an argument replayed forward."""
    assert_jvp_of_gradient(f)


A = np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]])
B = np.array([1.0, -1.0, 0.5])
W1 = np.array([[0.4, -0.3, 0.8], [-0.6, 0.2, 0.5], [0.1, 0.9, -0.7], [0.3, -0.5, 0.2]])
W2 = np.array([[0.7, -0.2, 0.5, -0.9]])


class Quadratic:
    def __init__(self, a, b):
        self.A = a
        self.b = b

    def energy(self, x):
        return 0.5 * x.dot(self.A.dot(x)) - self.b.dot(x)


def quadratic_with_methods(x):
    return Quadratic(A, B).energy(x)


def mlp_with_defaults(x, w1=W1, w2=W2):
    return np.sum(w2 @ np.tanh(w1 @ x)) + 0.1 * np.sum(x ** 2)


@pytest.fixture
def no_reverse_over_reverse(monkeypatch):
    """``zpy.hvp`` must push the gradient code forward, not fall back."""
    def refused(*args):
        raise AssertionError("hvp fell back to reverse over reverse")
    monkeypatch.setattr(zpy.derivatives, "_hvp_reverse", refused)


def test_hessian_of_a_quadratic_written_with_methods(no_reverse_over_reverse):
    """A method of the user's class called (the mutation pass's
    ``call_method``), and ``self.A.dot(x)``, an array's method with a rule,
    which changes no object."""
    assert zpy.hessian(quadratic_with_methods, X) == pytest.approx(A, rel=1e-12)


def test_a_second_hessian_of_methods_compiles_nothing(monkeypatch):
    """The pullback of the mutation pass's ``call_method`` captures the
    object, another at each call: forward mode pushes it with the
    compilation made for the first (``analysis.Like``: the object's class
    is what it rests on), not a new one per Hessian."""
    zpy.hessian(quadratic_with_methods, X)
    compiled = []
    monkeypatch.setattr(zpy.ad.pipeline.CompiledJvp, "__init__", lambda self, *a: compiled.append(a))
    monkeypatch.setattr(zpy.ad.pipeline, "_compile", lambda *a: compiled.append(a))
    assert zpy.hessian(quadratic_with_methods, X) == pytest.approx(A, rel=1e-12)
    assert compiled == []


def test_hvp_of_a_function_with_default_values(no_reverse_over_reverse):
    """Its gradient function gives one gradient per argument
    (``runtime.per_argument``), read by forward mode."""
    def gradient(x):
        return zpy.gradient(mlp_with_defaults, x)[0]

    h = 1e-5
    want = (gradient(X + h * V) - gradient(X - h * V)) / (2 * h)
    assert zpy.hvp(mlp_with_defaults, (X,), (V,))[0] == pytest.approx(want, rel=1e-6, abs=1e-8)


def test_a_second_hvp_compiles_nothing(monkeypatch):
    """The closures forward mode pushes for calls known at run time (a
    rule's ``vjp``) are compiled once, not for each new object they
    capture."""
    zpy.hvp(through_a_list_of_functions, (X,), (V,))
    compiled = []
    monkeypatch.setattr(zpy.ad.pipeline.CompiledJvp, "__init__", lambda self, *a: compiled.append(a))
    assert zpy.hvp(through_a_list_of_functions, (X,), (V,))
    assert compiled == []
