"""Gradient accumulation (:func:`zygote_py.runtime.accum`)."""
from fractions import Fraction

import numpy as np
import pytest

from zygote_py.runtime import accum


def test_none_is_zero():
    g = [1.0, None]
    assert accum(None, g) is g
    assert accum(g, None) is g
    assert accum(None, None) is None


def test_numbers_add():
    assert accum(1.5, 2) == 3.5
    total = accum(Fraction(1, 3), Fraction(1, 6))
    assert total == Fraction(1, 2) and isinstance(total, Fraction)


def test_tuples_and_lists_add_item_by_item():
    assert accum((1.0, None, (2.0, None)), (None, 3.0, (4.0, 5.0))) == (1.0, 3.0, (6.0, 5.0))
    total = accum([1.0, None], [2.0, None])
    assert total == [3.0, None] and isinstance(total, list)


def test_lengths_must_agree():
    with pytest.raises(ValueError, match="lengths 2 and 3"):
        accum((1.0, 2.0), (1.0, 2.0, 3.0))


def test_dicts_add_over_the_union_of_keys():
    a = {"x": 1.0, "y": [1.0, None]}
    b = {"y": [None, 2.0], "z": 3.0}
    assert accum(a, b) == {"x": 1.0, "y": [1.0, 2.0], "z": 3.0}
    assert a == {"x": 1.0, "y": [1.0, None]}  # the operands are left alone


def test_arrays_add_into_a_new_array():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    total = accum(a, b)
    assert total is not a and total is not b
    np.testing.assert_array_equal(total, [4.0, 6.0])
    np.testing.assert_array_equal(a, [1.0, 2.0])
