"""Class tests decided at compile time (``ad.classes``): a function called
at run time with an object of a plain class is compiled for that class,
its ``isinstance`` tests of the object folded with the branches they
guard, and compiled again for an object of another class, never run with
the code of the old one: an object whose class is changed, a global class
rebound, a class test after code of the user's that changes the class,
an ABC whose registrations change. Every gradient against central
differences, in reverse mode, forward mode and at second order
(``npcheck.check_program``)."""
from __future__ import annotations

import abc
import weakref

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import pipeline
from tests.rules.npcheck import check_program


@pytest.fixture
def compilations(monkeypatch):
    """The reverse-mode compilations made in the test, as ``(code, kinds)``
    (those of earlier tests forgotten)."""
    made = []
    compile_ = pipeline._compile

    def counting(fn, active, numeric, *args, **kwargs):
        made.append((fn.__code__, tuple(numeric)))
        return compile_(fn, active, numeric, *args, **kwargs)

    monkeypatch.setattr(pipeline, "_compile", counting)
    monkeypatch.setattr(pipeline, "_FORWARDS", weakref.WeakKeyDictionary())
    return made


def sources(fn, cls):
    """The emitted forwards of ``fn``'s compilations for an object of ``cls``."""
    return [e.source for key, entries in pipeline._FORWARDS[fn.__code__].items() for e in entries
            if any(isinstance(k, tuple) and k[0] == "attrs" and k[2] is cls for k in key[1])]


class Leaf:
    def __init__(self, value):
        self.value = value


class Node:
    def __init__(self, left, right):
        self.left = left
        self.right = right


class Scaled:
    def __init__(self, arg):
        self.arg = arg


def evaluate(e, x):
    if isinstance(e, Leaf):
        return e.value * x
    if isinstance(e, Node):
        return np.sin(evaluate(e.left, x)) * evaluate(e.right, x)
    return 2.0 * evaluate(e.arg, x)


TREE = Node(Node(Leaf(0.5), Scaled(Leaf(-1.5))), Node(Leaf(2.0), Node(Leaf(0.25), Scaled(Leaf(1.0)))))
X = np.array([0.3, -0.7, 1.1])


def test_each_class_gets_its_branch(compilations):
    """A recursive evaluator: one compilation of ``evaluate`` per class,
    each holding its class's branch alone (no ``isinstance`` left), the
    gradient against central differences in both modes and at second
    order."""
    check_program(lambda x: np.sum(evaluate(TREE, x)), X)
    for cls in (Leaf, Node, Scaled):
        (source,) = set(sources(evaluate, cls))
        assert "isinstance" not in source and ("np.sin" in source) == (cls is Node)
    assert len({k for c, k in compilations if c is evaluate.__code__}) == 3


def test_an_object_whose_class_is_changed(compilations):
    """The same object, its ``__class__`` changed between gradients: the
    compilation of its new class runs (the old one's would give the old
    branch's gradient)."""
    e = Leaf(0.5)
    e.arg = Leaf(1.5)
    for cls, expected in ((Leaf, 0.5), (Scaled, 3.0), (Leaf, 0.5)):
        e.__class__ = cls
        assert zpy.gradient(evaluate, e, 1.25)[1] == pytest.approx(expected, rel=1e-12)
        check_program(lambda x: np.sum(evaluate(e, x)), X)


KIND = Leaf


def picked(e, x):
    if isinstance(e, KIND):  # (a global: rebound, the test's answer changes)
        return e.value * x
    return x * x


def test_a_global_class_rebound(compilations):
    """The class a test reads from a global is guarded: rebound, the
    function is compiled again."""
    global KIND
    e = Leaf(0.5)
    try:
        for kind, expected in ((Leaf, 0.5), (Node, 2.5), (Leaf, 0.5)):
            KIND = kind
            assert zpy.gradient(picked, e, 1.25)[1] == pytest.approx(expected, rel=1e-12)
    finally:
        KIND = Leaf


def turn(e):
    e.__class__ = Scaled
    e.arg = Leaf(4.0)


def after_user_code(e, x):
    turn(e)  # (the user's code: the class the call began with is no longer the object's)
    if isinstance(e, Leaf):
        return e.value * x
    return evaluate(e, x)


def test_a_class_test_after_user_code_is_not_folded():
    """``isinstance`` after a call of the user's, which changes the
    object's class, tests the class the object has then."""
    for _ in range(2):
        assert zpy.gradient(after_user_code, Leaf(0.5), 1.25)[1] == pytest.approx(8.0, rel=1e-12)


class Shape(abc.ABC):
    pass


def measured(e, x):
    if isinstance(e, Shape):  # (an ABC: registering a class changes the answer)
        return e.value * x
    return x * x


def test_an_abc_is_tested_when_the_call_runs():
    """``isinstance`` with an ABC is not folded: a class registered after
    the first gradient passes the test in the next."""
    class Square:
        def __init__(self, value):
            self.value = value

    e = Square(0.5)
    assert zpy.gradient(measured, e, 1.25)[1] == pytest.approx(2.5, rel=1e-12)
    Shape.register(Square)
    assert zpy.gradient(measured, e, 1.25)[1] == pytest.approx(0.5, rel=1e-12)
