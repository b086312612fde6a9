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


def _summed(x, axis=None, scale=1.0):
    return np.sum(np.sin(x) * scale, axis=axis)


def _with_keywords(kwargs):
    def f(*a):
        return np.sum(_summed(*a, **kwargs) ** 2)
    return f


def keywords_from_a_dict(x):
    kw = {"scale": x[0]}
    return np.sum(_summed(x.reshape(2, 3), axis=1, **kw) ** 2)


def test_forward_mode_passes_keywords_from_a_mapping():
    # (autograd's test suite wraps every function as F(*a) calling fun(*a, **kwargs): forward mode refused it)
    check(_with_keywords({"axis": 0, "scale": 2.0}), P.reshape(2, 3))
    check(keywords_from_a_dict, P)


def items_of_reductions(x):
    # (hvp crashed: forward mode called ndarray.item on the NumPy scalar x.mean() gives)
    m = x.mean().item()
    s = np.sum(x ** 2).item()
    return m * s


def test_a_numpy_scalars_array_methods_in_forward_mode():
    check(items_of_reductions, P)
