"""A log kept in a module-level list (issue 30, item 4):
``HISTORY.append(float(loss))`` or ``HISTORY.append(loss)`` inside a
differentiated function is a side effect with no gradient (see
``ad.idioms.log_appends``): the gradient is the function's, and the list
receives plain values (never a tracer-like object), once per call. A
function that also reads the list back in its result is refused, as is a
log into a global whose ``append`` is a class's own.

Checked with ``test_real_code.check`` (reverse mode, forward mode and
``zpy.hvp`` against central differences).
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

import zygote_py as zpy

from .test_real_code import check

X = np.array([0.3, -1.2, 0.7, 2.0])
HISTORY: list = []
SEEN: set = set()
RECENT: collections.deque = collections.deque(maxlen=3)


def logs_the_loss(x):
    loss = np.sum(np.sin(x) * x ** 2)
    HISTORY.append(float(loss))
    HISTORY.append(loss)
    return loss


def logs_in_a_loop(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i] ** 3
        HISTORY.extend([total, x[i]])
        RECENT.appendleft(total)
    SEEN.add(float(total))
    return total


def _log(v):
    HISTORY.append(v)


def logs_in_a_helper(x):
    y = np.tanh(x) @ x
    _log(y)
    return y * y


def logs_and_trims(x):
    loss = np.sum((x - 1.0) ** 2)
    HISTORY.append(float(loss))
    if len(HISTORY) > 1000:  # (its length and clear() read no value back)
        HISTORY.clear()
    return loss


@pytest.mark.parametrize("f", [logs_the_loss, logs_in_a_loop, logs_in_a_helper, logs_and_trims])
def test_a_log_into_a_global_list_is_a_side_effect(f):
    HISTORY.clear()
    check(f, X)
    assert HISTORY and all(type(v) in (float, np.float64) for v in HISTORY)


def test_the_list_receives_the_values_once_per_call():
    HISTORY.clear()
    zpy.gradient(logs_the_loss, X)
    assert HISTORY == [pytest.approx(np.sum(np.sin(X) * X ** 2))] * 2
    assert type(HISTORY[0]) is float and type(HISTORY[1]) is np.float64


def reads_the_log_back(x):
    loss = np.sum(x ** 2)
    HISTORY.append(loss)
    return loss + HISTORY[0]


class Keeper:
    def __init__(self):
        self.kept = []

    def append(self, v):
        self.kept.append(v)


KEEPER = Keeper()


def logs_into_an_object(x):
    loss = np.sum(x ** 2)
    KEEPER.append(loss)
    return loss


def test_reading_the_log_back_is_refused():
    HISTORY.clear()
    HISTORY.append(1.0)
    with pytest.raises(zpy.UnsupportedSyntax, match="global"):
        zpy.gradient(reads_the_log_back, X)
    with pytest.raises(zpy.UnsupportedSyntax, match="global"):
        zpy.jvp(reads_the_log_back, (X,), (X,))


def test_a_log_into_an_object_of_ones_own_class_is_refused():
    with pytest.raises(zpy.UnsupportedSyntax, match="not a list, set or deque"):
        zpy.gradient(logs_into_an_object, X)
