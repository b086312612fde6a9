"""Real code, second part (issue 30): objects that cache constants on
``self`` or iterate themselves (``__iter__``, ``__next__``), frozen
dataclasses, and lists made from arrays, differentiated in reverse mode,
forward mode and at second order, each against central differences
(``test_real_code.check``; objects with :func:`check_object`).
"""
from __future__ import annotations

import numpy as np

from .test_real_code import check

P = np.array([0.1, 0.5, 0.9, 0.2])


# -- an array's gradient split into a list's items ----------------------------------


def filtered_and_sorted(x):
    # (hvp: the slice of a list made from an array gave the array's gradient's
    # cotangent as a list, and the division in prod's pullback failed on it)
    big = list(filter(lambda v: v > 0.3, x))
    return sum(big) * len(big) + np.prod(sorted(x)[:2]) + np.prod(list(x)[1:3])


def test_a_slice_of_a_list_made_from_an_array_at_second_order():
    check(filtered_and_sorted, P)
