"""Programs from a red team of fifty written the way scientists write them
(issue 30), kept where they found a bug. Each is checked with
``test_real_code.check``: reverse mode against central differences,
forward mode along a random direction, and ``zpy.hvp`` against central
differences of the gradient.
"""
from __future__ import annotations

import numpy as np
import pytest

from .test_real_code import check

P = np.array([0.4, -0.7, 1.1, 0.25, -0.35, 0.8])


def stacked_twice(p):
    # the list's gradient came from both stacks: it was joined with +
    # (a list of the two lists), so one of them was silently dropped
    rows = [np.sin(p * k) for k in range(1, 4)]
    return np.sum(np.stack(rows) ** 2) + np.sum(np.vstack(rows)[:, 0])


def a_list_read_twice(p):
    rows = [p, 2 * p]
    s = np.stack(rows)
    t = np.vstack(rows)
    return np.sum(s * t) + np.sum(np.array(rows)[1])


@pytest.mark.parametrize("f", [stacked_twice, a_list_read_twice])
def test_a_lists_gradients_from_several_reads_are_added_item_by_item(f):
    check(f, P)


def _windows(xs, k):
    for i in range(len(xs) - k + 1):
        yield xs[i:i + k]


def products_of_windows(p):
    # at second order np.prod's rule asked a NumPy scalar's .all(), refused as a differentiated call
    return sum(np.prod(w) for w in _windows(p, 3))


LABELS = [0, 1, 0, 2, 1, 0]


def group_statistics(p):
    # at second order np.mean of a list read a NumPy scalar's .size, refused as no field of it
    groups = {}
    for label, v in zip(LABELS, p):
        groups.setdefault(label, []).append(v)
    return sum(np.var(np.array(g)) + np.mean(g) for g in groups.values())


def test_a_numpy_scalars_all_and_metadata_carry_no_gradient():
    check(products_of_windows, P)
    check(group_statistics, P, forward=False)
