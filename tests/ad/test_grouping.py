"""Grouping values into lists of a dict (issue 30, item 3):
``d.setdefault(k, []).append(v)`` (read as ``d.setdefault(k, []);
d[k].append(v)``, see ``ad.idioms.setdefault_items``) and a
``collections.defaultdict(list)``'s ``d[k].append(v)``, each group then
reduced, checked with ``test_real_code.check`` (reverse mode, forward mode
and ``zpy.hvp`` against central differences).
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

from .test_real_code import check

X = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
LABELS = [0, 1, 0, 2, 1, 0]


def grouped_by_setdefault(x):
    groups = {}
    for label, v in zip(LABELS, x):
        groups.setdefault(label, []).append(v * v)
    return sum(np.mean(np.array(g)) * (k + 1) for k, g in groups.items())


def grouped_by_parity(x):
    d = {}
    for i in range(len(x)):
        d.setdefault(i % 2, []).append(x[i])
    return sum(np.sum(np.array(v) ** 2) * np.max(np.array(v)) for v in d.values())


def grouped_rows(x):
    rows = x.reshape(3, 2)
    by = {}
    for i, row in enumerate(rows):
        by.setdefault("even" if i % 2 == 0 else "odd", []).extend([row[0], np.sin(row[1])])
    return np.prod(np.array(by["even"])) + np.sum(np.array(by["odd"]))


def grouped_by_defaultdict(x):
    d = collections.defaultdict(list)
    for label, v in zip(LABELS, x):
        d[label].append(np.exp(v))
    return sum(np.log(sum(g)) for g in d.values())


@pytest.mark.parametrize("f", [grouped_by_setdefault, grouped_by_parity, grouped_rows, grouped_by_defaultdict])
def test_values_grouped_into_lists_of_a_dict(f):
    check(f, X)
