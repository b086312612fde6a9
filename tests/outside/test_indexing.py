"""Indexing, as other AD projects test it (autograd's ``test_numpy.py``
index tests: integers, slices, lists, mixed, fan-out of one index to
several uses, repeated indices): basic and advanced indexing, negative
steps, boolean masks, ``np.take``, ``np.where``, and assignment into a
copy."""
import numpy as np
import pytest

from .oracle import check, rand

X = rand((4, 3), 1)
MASK = X > 0

INDICES = {
    "int": lambda x: x[1],
    "negative-int": lambda x: x[-1, 2],
    "slice": lambda x: x[1:3],
    "step": lambda x: x[::2, 1:],
    "negative-step": lambda x: x[::-1, ::-2],
    "ellipsis-newaxis": lambda x: x[..., None, 1],
    "int-list": lambda x: x[[0, 2, 0]],
    "int-arrays": lambda x: x[np.array([0, 3, 3]), np.array([2, 1, 1])],
    "mixed": lambda x: x[1:, [2, 0]],
    "bool-mask": lambda x: x[MASK],
    "row-mask": lambda x: x[np.array([True, False, True, True])],
    "fan-out": lambda x: x[0] * x[1] + x[:, 0].sum() * x[2, 2],
    "transpose-then-index": lambda x: x.T[1, ::-1],
}


@pytest.mark.parametrize("name", INDICES)
def test_indexing(name):
    check(INDICES[name], X)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_take(axis):
    check(lambda x: np.take(x, [2, 0, 2], axis=axis), X)


def test_take_along_axis():
    # (np.compress, which autograd does not differentiate either, has no rule)
    order = np.argsort(X, axis=0)
    check(lambda x: np.take_along_axis(x, order, axis=0), X)


def test_where():
    check(lambda a, b: np.where(MASK, a, b), X, rand((4, 3), 2))
    check(lambda a: np.where(a > 0, a, 0.1 * a), X)  # (a leaky ReLU)
    check(lambda a, b: np.where(MASK, a, b), X, rand((3,), 3))  # (broadcast)


def test_setitem_on_a_copy():
    def fn(x):
        y = x.copy()
        y[0] = 2.0 * x[1]
        y[1:, 1] = np.sin(x[:3, 0])
        y[MASK] = y[MASK] ** 2
        return y

    check(fn, X)


def test_setitem_with_integer_arrays_and_add_at():
    def fn(x, v):
        y = np.zeros((5, 3))
        y[[0, 4, 2]] = v
        np.add.at(y, [1, 1, 3], x[:3] * 2.0)
        return y

    check(fn, X, rand((3, 3), 4))


Z = rand((3, 4), 5, complex)
BIG = np.abs(Z) > 1


def test_complex():
    check(lambda x: x[::-1, [1, 3]], Z)
    check(lambda x: x[BIG], Z)


def test_loop_over_items():
    # an item at a time, as a loop reads a vector
    def fn(x):
        s = 0.0
        for i in range(len(x)):
            s = s + x[i] * x[len(x) - 1 - i]
        return s

    check(fn, rand((5,), 6))
