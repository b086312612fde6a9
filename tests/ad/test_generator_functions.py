"""Generator functions and explicit iterators (issue 30): a user's
generator function, called inside differentiated code, is read ahead (see
``zygote_py.frontend.generators``): its items reach ``sum``, ``list``, a
``for`` loop, ``zip``, ``np.array(list(...))``, ``next`` and unpacking with
their gradients. ``iter(xs)`` and ``next(it)`` over differentiated values
are differentiated. An endless generator, and a ``yield`` whose value is
used, are refused at their line.

Each program is checked with ``test_real_code.check``: reverse mode against
central differences, forward mode along a random direction, and ``zpy.hvp``
against central differences of the gradient.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import zygote_py as zpy

from .test_real_code import check

X = np.array([0.3, -1.2, 0.7, 2.0, -0.4])


def pairs(xs):
    for a, b in zip(xs, xs[1:]):
        yield a * b


def scaled(xs, c):
    for v in xs:
        if v > 0:
            yield c * v
        else:
            yield v * v
    yield c


def chained(xs):
    yield from pairs(xs)
    yield from (v * 2.0 for v in xs)


def first_n(xs, n):
    i = 0
    while True:
        if i >= n:
            return
        yield np.sin(xs[i])
        i += 1


def summed(x):
    return sum(pairs(list(x)))


def listed(x):
    return np.sum(np.array(list(pairs(list(x)))) ** 2)


def looped(x):
    t = 0.0
    for p in scaled(x, x[0]):
        t = t + p * p
    return t


def zipped(x):
    t = 0.0
    for p, q in zip(pairs(x), x):
        t = t + p * q
    return t


def with_a_break(x):
    t = 0.0
    for k, p in enumerate(chained(x)):
        if k > 5:
            break
        t = t + np.cos(p)
    return t


def unpacked(x):
    a, b, c = first_n(x, 3)
    return a * b + c


def by_next(x):
    it = pairs(x)
    head = next(it)
    return head * sum(it) + next(iter([x[1]]), 0.0)


def explicit_iterator(x):
    it = iter([x[0], x[1] * x[2], np.exp(x[3])])
    first = next(it)
    t = 0.0
    for v in it:
        t = t + v * first
    return t + next(it, x[4])


@pytest.mark.parametrize("f", [summed, listed, looped, zipped, with_a_break, unpacked,
                               explicit_iterator])
def test_a_generator_functions_items_are_differentiated(f):
    check(f, X)


def test_next_on_a_generator_is_differentiated_once():
    check(by_next, X, second=False)
    with pytest.raises(zpy.NoDerivativeRule, match="next"):
        zpy.hvp(by_next, (X,), (X,))


def endless(x):
    while True:
        yield x


def counted(x):
    for k in itertools.count():
        yield x * k


def sent(x):
    y = yield x
    yield y


def consumes(gen):
    def f(x):
        return sum(itertools.islice(gen(x), 3))
    return f


@pytest.mark.parametrize("gen, what", [(endless, "never ends"), (counted, "never ends"), (sent, "value is used")])
def test_a_generator_that_cannot_be_read_ahead_is_refused(gen, what):
    with pytest.raises(zpy.UnsupportedSyntax, match=what):
        zpy.gradient(lambda x: next(gen(x)) * 1.0, 1.5)


def test_the_plain_call_is_still_a_lazy_generator():
    assert summed(X) == pytest.approx(sum(a * b for a, b in zip(X, X[1:])))
    assert next(endless(2.0)) == 2.0


class Bag:
    def __init__(self, xs):
        self.xs = xs

    def __iter__(self):
        for v in self.xs:
            yield v * 2.0


class Countdown:
    def __init__(self, xs):
        self.xs, self.i = xs, 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= len(self.xs):
            raise StopIteration
        self.i += 1
        return self.xs[self.i - 1]


def loop_over_a_bag(x):
    t = 0.0
    for v in Bag(list(x)):
        t = t + v * v * v
    return t


def loop_over_a_bag_argument(c, bag):
    t = 0.0
    for v in bag:
        t = t + np.sin(v * c)
    return t


def loop_over_a_countdown(x):
    t = 0.0
    for v in Countdown(list(x)):
        t = t + v * v
    return t


def test_a_loop_over_an_object_whose_iter_is_a_generator_in_reverse_mode():
    check(loop_over_a_bag, X, forward=False, second=False)
    g = zpy.gradient(loop_over_a_bag_argument, 1.5, Bag([0.3, -0.8]))
    assert g[0] == pytest.approx(sum(2 * v * np.cos(2 * v * 1.5) for v in [0.3, -0.8]))
    assert g[1].xs == pytest.approx([2 * 1.5 * np.cos(2 * v * 1.5) for v in [0.3, -0.8]])


def test_a_loop_over_an_objects_own_iter_in_forward_mode_and_at_second_order():
    """(Forward mode and second order refused a generator __iter__, every
    mode an __iter__ returning the object with its own __next__.)"""
    check(loop_over_a_bag, X)
    check(loop_over_a_countdown, X)


def consecutive(x):
    return ((x[i], x[i + 1]) for i in range(len(x) - 1))


def returned_generator_expression(x):
    return sum((b - a) ** 2 for a, b in consecutive(x))


def test_a_function_returning_a_generator_expression_is_read_ahead():
    check(returned_generator_expression, X)
