"""Generator expressions (issue 5, item 3).

A generator expression that is the one argument of a builtin reading every
item before it returns — ``sum``, ``min``, ``max``, ``sorted``, ``list``,
``tuple``, ``set``, ``frozenset``, ``dict`` — is differentiated as the list
comprehension with the same items, when the name really is that builtin
(checked when compiling, and again whenever the global is rebound). Any
other generator expression over differentiated values is refused at its
line: stored, passed to a user function, given to ``next``, ``any`` or
``all``. ``zpy.roundtrip`` keeps every generator expression as written.

Gradients are checked against central finite differences of the plain
function (:func:`assert_gradient`) or, for list and array arguments,
against the closed form. The functions under test are at module level: the
compiler reads their source.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import pipeline
from zygote_py.ad.analysis import ARRAY

from .fdcheck import assert_gradient

XS = [1.0, 3.0, 2.0]


def affine_terms(x, y):
    return sum(x * k + y for k in range(3))


def over_a_list(xs):
    return sum(v * v for v in xs)


def over_two_iterables(x, xs, ys):
    return sum(x * a * b for a in xs for b in ys if b > 0)


def nested_generators(x, y):
    return sum(sum(x * a + y * b for b in range(2)) for a in range(3))


def captures_a_local(x):
    c = x * 2.0
    return sum(c * k for k in range(3))


def captures_a_reassigned_local(x, y):
    c = x
    c = c * y
    return sum(c + k for k in range(3))


def inside_a_loop(x, y):
    s = y
    for i in range(4):
        s = s + sum(s * x / (k + 1) for k in range(i))
    return s


def largest(x, y):
    return max(x * v - y * v * v for v in XS)


def smallest(x, y):
    return min(x * v + y for v in XS)


def second_smallest(x, y):
    return sorted(x * v - y for v in XS)[1]


def tuple_of(x, y):
    t = tuple(x * v for v in XS)
    return t[0] * y + t[2]


def list_of(x, y):
    items = list(y * v + x for v in XS)
    return items[1] * items[2]


def constants_only(x):
    return sum(k * k for k in range(4)) * x


@pytest.mark.parametrize("f, args", [
    (affine_terms, (1.5, 2.0)),
    (over_two_iterables, (2.0, [1.0, 2.0], [1.0, -1.0, 3.0])),
    (captures_a_local, (1.5,)),
    (captures_a_reassigned_local, (1.5, 0.5)),
    (inside_a_loop, (0.7, 1.3)),
    (largest, (2.5, 0.25)),
    (smallest, (-1.5, 0.5)),
    (second_smallest, (1.5, 0.25)),
    (tuple_of, (1.5, 2.0)),
    (list_of, (1.5, 2.0)),
    (constants_only, (2.0,)),
])
def test_a_generator_consumed_by_a_builtin_is_differentiated(f, args):
    assert_gradient(f, *args)


def test_a_generator_inside_a_generator():
    assert_gradient(nested_generators, 1.5, -0.5)


def test_the_items_of_a_list_argument_get_their_gradients():
    value, (dxs,) = zpy.value_and_gradient(over_a_list, [1.0, 2.0, 3.0])
    assert value == 14.0 and dxs == [2.0, 4.0, 6.0]


def test_the_items_of_an_array_argument_get_their_gradients():
    xs = np.array([1.0, -2.0, 0.5])
    value, (dxs,) = zpy.value_and_gradient(over_a_list, xs)
    assert value == over_a_list(xs)
    np.testing.assert_array_equal(dxs, 2 * xs)


def test_the_iterables_get_their_gradients_too():
    _, (dx, dxs, dys) = zpy.value_and_gradient(over_two_iterables, 2.0, [1.0, 2.0], [1.0, -1.0, 3.0])
    assert dx == 12.0 and dxs == [8.0, 8.0] and dys == [6.0, 0.0, 6.0]  # -1.0 is filtered out


def test_a_generator_of_constants_stays_as_written():
    source = zpy.differentiable(constants_only).source
    assert "sum((k * k for k in range(4)))" in source


def test_roundtrip_keeps_generators_lazy():
    """``next`` takes one item: a list would divide by zero."""
    g = zpy.roundtrip(first_quotient)
    assert g([2.0, 0.0]) == 0.5
    assert "append" not in g.__zpy_source__


def first_quotient(xs):
    return next(1.0 / v for v in xs)


# -- a name that is not the builtin ---------------------------------------------


def first_item(items):
    return next(iter(items))


def sum_of_a_local(x):
    sum = first_item
    return sum(x * k for k in range(1, 3))


def test_a_local_named_sum_is_not_taken_for_the_builtin():
    with pytest.raises(zpy.UnsupportedSyntax, match="generator expression"):
        zpy.gradient(sum_of_a_local, 1.5)


def test_a_global_named_sum_is_not_taken_for_the_builtin(monkeypatch):
    """Compiled while ``sum`` is the builtin, then the module rebinds it:
    the compiled gradient is dropped, and the generator is refused."""
    assert zpy.gradient(affine_terms, 1.5, 2.0) == (3.0, 3.0)
    monkeypatch.setattr(sys.modules[__name__], "sum", first_item, raising=False)
    assert affine_terms(1.5, 2.0) == 2.0
    with pytest.raises(zpy.UnsupportedSyntax, match="generator expression"):
        zpy.gradient(affine_terms, 1.5, 2.0)
    monkeypatch.delattr(sys.modules[__name__], "sum")
    assert zpy.gradient(affine_terms, 1.5, 2.0) == (3.0, 3.0)


# -- generators that are not consumed at once -----------------------------------


def stored_then_summed(x):
    items = (x * k for k in range(3))
    return sum(items)


def given_to_a_user_function(x):
    return first_item(x * k for k in range(1, 3))


def first_of(x):
    return next(x * k for k in range(1, 3))


def any_of(x):
    return any(x * k > 1.0 for k in range(3)) * x


def stored_local_capture(x):
    c = x * 2.0
    items = (c * k for k in range(3))
    return sum(items)


@pytest.mark.parametrize("f", [stored_then_summed, given_to_a_user_function, first_of, stored_local_capture])
def test_a_generator_not_consumed_at_once_is_refused(f):
    with pytest.raises(zpy.UnsupportedSyntax, match="generator expression") as info:
        zpy.gradient(f, 1.5)
    assert info.value.function == f.__name__
    assert info.value.filename == __file__ and info.value.line == f.__code__.co_firstlineno + 1 + (
        f in (stored_local_capture,))


def test_a_generator_given_to_any_needs_no_gradient():
    """``any``'s result carries none, so neither do the generator's items."""
    assert zpy.gradient(any_of, 1.5) == (1.0,)
    assert zpy.gradient(any_of, 0.4) == (0.0,)


# -- sum(<generator>) as a running total; loops over enumerate and zip of arrays -


def cubes(x):
    return sum(v ** 3 for v in x)


def weighted_pairs(x, w):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, w), 1):
        total = total + i * a * b
    return total


@pytest.mark.parametrize("f, args", [(cubes, (np.array([0.3, -1.2, 2.0]),)),
                                     (weighted_pairs, (np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.5, -2.0])))])
def test_sums_and_enumerations_of_arrays_need_no_run_time_call(f, args):
    """Adding item by item (``0 + v0**3 + v1**3 ...``, as the builtin does:
    the same value, bit for bit), and reading each array at the step's
    index: plain code, checked against finite differences, in forward mode
    and at second order."""
    value, grads = zpy.value_and_gradient(f, *args)
    assert value == f(*args)
    source = pipeline.compiled(f, (True,) * len(args), (ARRAY,) * len(args), False).gradient_source
    assert "runtime.J" not in source and "mutation" not in source, source
    step = 1e-6
    for i, a in enumerate(args):
        for k in range(a.size):
            e = np.eye(a.size)[k] * step
            fd = (f(*args[:i], a + e, *args[i + 1:]) - f(*args[:i], a - e, *args[i + 1:])) / (2 * step)
            assert grads[i][k] == pytest.approx(fd, rel=1e-7, abs=1e-9)
    tangents = tuple(np.ones_like(a) for a in args)
    assert zpy.jvp(f, args, tangents)[1] == pytest.approx(sum(np.sum(g) for g in grads), rel=1e-12)
    h = zpy.hessian(lambda v: f(v, *args[1:]), args[0])
    fd = np.stack([(zpy.gradient(f, args[0] + e, *args[1:])[0] - zpy.gradient(f, args[0] - e, *args[1:])[0])
                   / (2 * step) for e in np.eye(args[0].size) * step], axis=-1)
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-8)
