"""Globals: read at call time (change one, the next gradient changes),
and assigned with ``global`` (the value read back is differentiated).
Checked against central finite differences and analytic values."""
import math

import numpy as np

import zygote_py as zpy

from .fdcheck import assert_gradient

H = 0.0
COUNT = 0


def global_assigned(x):
    global H
    H = x * x
    return H


def global_read_at_call_time(x):
    return x * H


def global_assigned_then_used(x):
    global H, COUNT
    H = math.sin(x)
    COUNT = COUNT + 1
    return H * x + H


def test_global_assignment_is_differentiated():
    assert_gradient(global_assigned, 3.0)
    assert zpy.gradient(global_assigned, 3.0) == (6.0,)
    assert H == 9.0


def test_globals_are_read_at_call_time():
    global H
    H = 2.0
    assert zpy.gradient(global_read_at_call_time, 3.0) == (2.0,)
    H = 5.0
    assert zpy.gradient(global_read_at_call_time, 3.0) == (5.0,)


def test_global_assigned_twice_in_a_call():
    before = COUNT
    assert_gradient(global_assigned_then_used, 0.7)
    assert COUNT > before


SCALE = np.array([1.0, 2.0])


def uses_a_global_array(x):
    return np.sum(SCALE * x * x)


def test_a_global_array_rebound_between_calls():
    global SCALE
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(zpy.gradient(uses_a_global_array, x)[0], 2 * SCALE * x)
    SCALE = np.array([3.0, -1.0])
    np.testing.assert_allclose(zpy.gradient(uses_a_global_array, x)[0], 2 * SCALE * x)


FACTOR = 2.0


class Half:
    def __mul__(self, x):
        return 0.5 * x


def scaled(x):
    return FACTOR * x


def test_code_specialised_on_a_global_number_is_redone_when_it_is_rebound():
    """The compiled gradient treats FACTOR as a number while it is one; bound
    to an object with a Python operator, the next call differentiates that."""
    global FACTOR
    FACTOR = 2.0
    assert zpy.gradient(scaled, 3.0) == (2.0,)
    FACTOR = Half()
    try:
        assert zpy.gradient(scaled, 3.0) == (0.5,)
    finally:
        FACTOR = 2.0
