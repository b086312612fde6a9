"""The compiled-gradient cache and what closures capture: a compilation
rests on the *kind* of a captured number, array or tuple of numbers (its
type; an array's dtype and number of dimensions), not on the object, so a
closure rebuilt around new values of the same kind reuses it (a model
factory's closure in a training loop), and one of another kind is compiled
again, never run with code specialised for the old kind. A class whose
method is replaced is differentiated anew.

Each case counts compilations (``pipeline._compile``) and checks every
gradient against central differences in reverse mode, forward mode and at
second order (``npcheck.check_program``); a stale compilation gives the
wrong gradient (the scalar code of ``x * c`` skips the sum a broadcast
array needs), or the wrong count."""
from __future__ import annotations

import weakref

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import registry
from zygote_py.ad import pipeline
from tests.rules.npcheck import check_program, difference_gradient


@pytest.fixture
def compilations(monkeypatch):
    """The code objects of the reverse-mode compilations made in the test
    (the compilations of earlier tests forgotten)."""
    made = []
    compile_ = pipeline._compile

    def counting(fn, *args, **kwargs):
        made.append(fn.__code__)
        return compile_(fn, *args, **kwargs)

    monkeypatch.setattr(pipeline, "_compile", counting)
    monkeypatch.setattr(pipeline, "_FORWARDS", weakref.WeakKeyDictionary())
    return made


def scaled_by(c):
    def loss(x):
        return np.sum(np.sin(x * c) * x)
    return loss


def make(W):
    def predict(x):
        return np.tanh(x @ W)
    return predict


def training_loss(W, x):
    predict = make(W)  # rebuilt around each step's weights
    return np.sum(predict(x) ** 2)


X = np.array([0.3, -0.7, 1.1])


def test_new_arrays_of_one_kind_share_a_compilation(compilations):
    """A model factory's closure rebuilt at each step of a training loop
    (differentiated through ``runtime.J``), and a closure differentiated
    itself: one compilation of each, whatever the values."""
    rng = np.random.default_rng(1)
    W = rng.standard_normal((3, 2))
    for step in range(4):
        g = zpy.gradient(training_loss, W, X)
        for i in (0, 1):
            np.testing.assert_allclose(g[i], difference_gradient(training_loss, (W, X), i), rtol=1e-6, atol=1e-9)
        W = W - 0.1 * g[0]
        loss = scaled_by(W[:, 0])
        np.testing.assert_allclose(zpy.gradient(loss, X)[0], difference_gradient(loss, (X,), 0),
                                   rtol=1e-6, atol=1e-9)
    assert len(compilations) == 4  # training_loss, make, predict and loss, once each


@pytest.mark.parametrize("first, then", [
    (np.array([[0.5, -1.0, 2.0], [0.25, 1.5, -0.5]]), np.array([0.5, -1.0, 2.0])),  # 2-d, then 1-d
    (np.array([0.5, -1.0, 2.0]), np.array([[0.5, -1.0, 2.0], [1.0, 0.5, -0.25]])),  # 1-d, then 2-d
    (np.array([0.5, -1.0, 2.0]), np.array([0.5, -1.0, 2.0], dtype=np.float32)),  # another dtype
    (np.array([1, -2, 3]), np.array([0.5, -1.0, 2.0])),  # integers, then floats
    (0.75, np.array([[0.5, -1.0, 2.0], [1.0, 0.5, -0.25]])),  # a float, then an array it broadcasts to
    (np.array([0.5, -1.0, 2.0]), 0.75),  # an array, then a float
    (2, 0.75),  # an int, then a float
])
def test_a_captured_value_of_another_kind_is_compiled_again(compilations, first, then):
    """``x * c`` where ``c`` is captured: a compilation for a Python
    number adds ``dx`` as it is (``x``'s shape); for a ``c`` that ``x``
    broadcasts to it must sum. Each kind is compiled once: going back to
    the first kind reuses its compilation."""
    for c in (first, then, first, then):
        loss = scaled_by(c)
        check_program(loss, X) if np.shape(c) in ((), (3,)) else _check_broadcast(loss)
    assert compilations.count(loss.__code__) == 2


def _check_broadcast(loss):
    """``loss`` whose ``x * c`` broadcasts to a matrix (no second order:
    ``check_program``'s Hessian is fine too, but one check is the point)."""
    np.testing.assert_allclose(zpy.gradient(loss, X)[0], difference_gradient(loss, (X,), 0),
                               rtol=1e-6, atol=1e-9)
    _, t = zpy.jvp(loss, (X,), (np.ones(3),))
    np.testing.assert_allclose(t, np.sum(difference_gradient(loss, (X,), 0)), rtol=1e-6)


def test_a_captured_float_rebound_to_an_array_in_the_same_closure(compilations):
    """The same closure object, its cell rebound (``nonlocal``)."""
    c = 0.75

    def loss(x):
        return np.sum(x * c * x)

    def rebind(v):
        nonlocal c
        c = v

    check_program(loss, X)
    rebind(np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]]))
    np.testing.assert_allclose(zpy.gradient(loss, X)[0], 2 * X * np.sum(c, axis=0), rtol=1e-12)
    rebind(0.25)
    check_program(loss, X)
    assert compilations.count(loss.__code__) == 2


def test_a_captured_real_array_rebound_to_a_complex_one():
    def scaled(c):
        def loss(x):
            return np.sum(np.abs(x * c) ** 2)
        return loss

    for c in (np.array([0.5, -1.0, 2.0]), np.array([0.5 + 1j, -1.0, 2.0j])):
        loss = scaled(c)
        np.testing.assert_allclose(zpy.gradient(loss, X)[0], 2 * X * np.abs(c) ** 2, rtol=1e-12)
        np.testing.assert_allclose(zpy.gradient(loss, X)[0], difference_gradient(loss, (X,), 0), rtol=1e-6)


class Spring:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return 0.5 * self.k * x * x


def stiff_energy(self, x):
    return self.k * x ** 4


@pytest.fixture
def spring_method():
    yield
    Spring.energy = _ENERGY


_ENERGY = Spring.energy


def test_a_class_whose_method_is_replaced(spring_method):
    """The method is looked up on the class at each call: replacing it
    changes the gradient (an argument object, and one a closure captured)."""
    def total(s, x):
        return s.energy(x) + x

    spring = Spring(3.0)

    def captured(x):
        return spring.energy(x) * 2.0

    x = 1.25
    for expected_total, expected_captured in ((3.0 * x + 1.0, 6.0 * x), (12.0 * x ** 3 + 1.0, 24.0 * x ** 3)):
        assert zpy.gradient(total, spring, x)[1] == pytest.approx(expected_total, rel=1e-12)
        assert zpy.gradient(captured, x)[0] == pytest.approx(expected_captured, rel=1e-12)
        h = 1e-6
        fd = (captured(x + h) - captured(x - h)) / (2 * h)
        assert zpy.gradient(captured, x)[0] == pytest.approx(fd, rel=1e-6)
        assert zpy.jvp(captured, (x,), (1.0,))[1] == pytest.approx(fd, rel=1e-6)
        Spring.energy = stiff_energy


def power_chain(x, n):
    """Calls itself through the run-time ``J`` (a recursive callee is not
    inlined), which remembers that it has no rule."""
    return x if n == 0 else x * power_chain(x, n - 1)


@pytest.fixture
def chain_rule_removed():
    yield
    registry.remove(power_chain)


def apply(f, x):
    return f(x, 3) * 1.0  # (f known only when it runs: a call through J)


def test_a_rule_registered_for_a_function_already_called_at_run_time(chain_rule_removed):
    """``J`` calls a function it found to have no rule straight through its
    compiled forward, until a rule is registered: the rule then applies
    (here a deliberately wrong one, three times the true gradient), and
    once removed, the source again."""
    x = 1.3
    for _ in range(2):  # (the second time through the remembered dispatch)
        assert zpy.gradient(apply, power_chain, x)[1] == pytest.approx(4 * x ** 3, rel=1e-12)

    @zpy.adjoint(power_chain)
    def _(x, n):
        return power_chain(x, n), lambda dy: (3 * dy * (n + 1) * x ** n, None)

    assert zpy.gradient(apply, power_chain, x)[1] == pytest.approx(12 * x ** 3, rel=1e-12)
    registry.remove(power_chain)
    assert zpy.gradient(apply, power_chain, x)[1] == pytest.approx(4 * x ** 3, rel=1e-12)


def _scaled(x, c):
    return np.sum(x * c * x)


def _caller(x, c):
    return power_chain(_scaled(x, c), 2)


@pytest.mark.parametrize("x, c", [(1.5, 2.0), (1.5, 2), (np.array([1.5, -0.5]), 2.0), (1.5, True),
                                  (np.array([[1.5, -0.5]]), np.array([2.0, 1.0])), (np.array([1.5, -0.5]), 2)])
def test_the_kinds_of_run_time_arguments_decide_the_compilation(x, c):
    """The kinds ``J`` reads by type (a float, an int, a bool) or by value
    (an array's dtype and dimensions) pick the compilation, whichever
    came first: each gradient against central differences, in both
    modes (and at second order for arrays)."""
    if type(x) is np.ndarray and type(c) is np.ndarray:
        check_program(_caller, x, c)
        return
    g = zpy.gradient(_caller, x, c)
    assert (g[1] is None) == isinstance(c, int)
    np.testing.assert_allclose(g[0], difference_gradient(lambda x: _caller(x, c), (np.asarray(x),), 0), rtol=1e-6)
    dx = np.ones_like(x)
    np.testing.assert_allclose(zpy.jvp(lambda x: _caller(x, c), (x,), (dx,))[1], np.sum(g[0] * dx), rtol=1e-8)


class Weighted:
    """Fields read by a method called at run time: known by their kinds
    when the call begins (``analysis.attrs_kind``)."""

    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.name = "weighted"

    def loss(self, x):
        return np.sum(self.w * x * x + self.b * x)


def through_method(m, x):
    return apply_loss(m.loss, x)


def apply_loss(f, x):
    return f(x) * 1.0  # (f known only when it runs: a call through J)


@pytest.mark.parametrize("w, b", [(0.5, 2.0), (np.array([0.5, -1.0, 2.0]), 2.0),
                                  (0.5, np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]]))])
def test_a_field_rebound_to_another_kind(compilations, w, b):
    """An object whose fields are floats, then one rebound to an array
    (which ``x`` broadcasts to: a float's code would not sum its
    gradient), then back: each kind compiled once, every gradient (of
    ``x`` and of the fields) against central differences, in both modes
    and at second order."""
    m = Weighted(0.5, 2.0)
    for fields in ((0.5, 2.0), (w, b), (0.5, 2.0), (w, b)):
        m.w, m.b = fields
        check_program(lambda x: through_method(m, x), X)
        dm = zpy.gradient(through_method, m, X)[0]
        for name in ("w", "b"):
            def moved(v, name=name):
                old = getattr(m, name)
                setattr(m, name, v)
                try:
                    return through_method(m, X)
                finally:
                    setattr(m, name, old)
            np.testing.assert_allclose(getattr(dm, name), difference_gradient(moved, (np.asarray(getattr(m, name)),), 0)
                                       if np.ndim(getattr(m, name)) else
                                       (moved(getattr(m, name) + 1e-6) - moved(getattr(m, name) - 1e-6)) / 2e-6,
                                       rtol=1e-6, atol=1e-8)
    assert compilations.count(Weighted.loss.__code__) == (1 if np.ndim(w) == np.ndim(b) == 0 else 2)


class Scale:
    def __init__(self, w):
        self.w = w


SHARED = Scale(2.0)


def grow():
    SHARED.w = np.array([2.0, 3.0])


def scaled_twice(s, x):
    a = s.w * x
    grow()  # (rebinds s.w to an array, through another reference to s)
    return np.sum(a + s.w * x)


def apply_shared(f, x):
    return f(SHARED, x)


def test_a_field_rebound_by_code_the_method_runs():
    """A function that runs code of the user's (here inlined: an
    attribute store) between two reads of a field does not rest on the
    kinds its object's fields had when it was called."""
    for _ in range(2):
        SHARED.w = 2.0
        g = zpy.gradient(apply_shared, scaled_twice, 1.5)[1]
        assert type(g) is float and g == pytest.approx(9.0, rel=1e-12)


class Pair:
    def __init__(self, A):
        self.A = A

    def step(self, x, P):
        return self.A @ x, [self.A @ P, P.sum()]


def pair_loss(A, x):
    p = Pair(A)
    for _ in range(2):
        x, (P, s) = p.step(x, np.outer(x, x))  # (items of a tuple and a list a run-time call returned)
    return np.sum(x * x) + s


def test_items_of_what_a_run_time_call_returns():
    """``J``'s own path for an item of a tuple or list (the first
    list item unused: a zero cotangent for an array), against central
    differences in both modes and at second order."""
    A = np.array([[0.9, 0.2], [-0.1, 1.1]])
    check_program(pair_loss, A, np.array([0.5, -1.5]))


class Leaf:
    def __init__(self, value):
        self.value = value


class Node:
    def __init__(self, left, right):
        self.left = left
        self.right = right


def evaluate(e, x):
    if isinstance(e, Leaf):
        return e.value * x
    return np.sin(evaluate(e.left, x)) * evaluate(e.right, x)  # (e.left: J's own read of a field)


TREE = Node(Node(Leaf(0.5), Leaf(-1.5)), Node(Leaf(2.0), Node(Leaf(0.25), Leaf(1.0))))


def test_fields_read_at_run_time():
    """A recursive evaluator of a tree of objects (each field read by
    ``J``'s own path for a plain object's ``__dict__``), against central
    differences in both modes and at second order; the tree's gradient
    holds each leaf's."""
    x = np.array([0.3, -0.7, 1.1])
    check_program(lambda x: np.sum(evaluate(TREE, x)), x)
    dtree = zpy.gradient(lambda t: np.sum(evaluate(t, x)), TREE)[0]
    leaf = TREE.left.left

    def moved(v):
        old, leaf.value = leaf.value, v
        try:
            return np.sum(evaluate(TREE, x))
        finally:
            leaf.value = old
    assert dtree.left.left.value == pytest.approx((moved(0.5 + 1e-6) - moved(0.5 - 1e-6)) / 2e-6, rel=1e-6)


class Celsius:
    def __init__(self, c):
        self.c = c
        self.__dict__["f"] = 0.0  # (never read: the property comes first)

    @property
    def f(self):
        return self.c * 1.8 + 32.0


def warmer(o, x):
    return o.f * x


def test_a_property_named_like_a_field():
    """A property of the class comes before the object's ``__dict__``,
    on every path: the object's kind leaves it out, and ``J``'s read
    computes it."""
    o = Celsius(20.0)
    for _ in range(2):
        do, dx = zpy.gradient(apply, lambda x, n: warmer(o, x), 1.5)[1], zpy.gradient(warmer, o, 1.5)
        assert do == pytest.approx(68.0, rel=1e-12)
        assert dx[1] == pytest.approx(68.0, rel=1e-12) and dx[0].c == pytest.approx(1.8 * 1.5, rel=1e-12)


def with_weight(w):
    def weight(x, s=w):  # (no captured variables: inlined, its default s held as a constant)
        return s * x * x

    def loss(x):
        return np.sum(weight(x) + x)
    return loss


def test_a_captured_function_with_another_default_is_compiled_again(compilations):
    """A captured function is held to its code and its default values
    (``analysis.Like``), not to the object: the inliner binds ``s`` to the
    default, so another one is compiled again (each gradient against
    central differences, in both modes and at second order), and the
    first, made anew with the same default, reuses its compilation."""
    two, three = 2.0, 3.0
    for w in (two, three, two):
        loss = with_weight(w)
        check_program(loss, X)
        np.testing.assert_allclose(zpy.gradient(loss, X)[0], 2 * w * X + 1, rtol=1e-12)
    assert compilations.count(loss.__code__) == 2


def scaled_square(k):
    def square(x):  # (captures k, an int that forward mode can hold fixed: called through J, never inlined)
        return k * x * x

    def loss(x):
        return np.sum(square(x) + x)
    return loss


class Cube:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * x ** 3


class Square(Cube):
    def __call__(self, x):
        return self.k * x * x


def through(f):
    def loss(x):
        return np.sum(f(x) + x)
    return loss


def test_a_closure_rebuilt_around_new_functions_and_objects_reuses_its_compilation(compilations):
    """A closure made anew around a function made anew (of the same code,
    capturing another int) or an object of the same class (another
    field) is compiled once: the compiled code reads the captured value
    when it runs; an object of another class is compiled again. Each
    gradient against central differences, in both modes and at second
    order."""
    for k in (2, 3, -1):
        loss = scaled_square(k)
        check_program(loss, X)
        np.testing.assert_allclose(zpy.gradient(loss, X)[0], 2 * k * X + 1, rtol=1e-12)
    assert compilations.count(loss.__code__) == 1
    for f, want in ((Square(2.0), 4.0 * X + 1), (Square(3.0), 6.0 * X + 1), (Cube(2.0), 6.0 * X * X + 1)):
        loss = through(f)
        check_program(loss, X)
        np.testing.assert_allclose(zpy.gradient(loss, X)[0], want, rtol=1e-12)
    assert compilations.count(loss.__code__) == 2
