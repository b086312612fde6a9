"""The short differential fuzzing run of ``make test`` (``make fuzz`` runs
10,000 programs): hypothesis writes programs with
:mod:`tests.robustness.fuzz_programs`, and each one's gradient and ``jvp``
tangent must agree with central finite differences wherever the program is
smooth. A refusal (a clear zygote_py error naming the construct) is
allowed; a wrong number or a crash is not.

The runs over floats only (with math and NumPy calls on floats, branches,
loops, containers, closures and helpers) check 200 programs per mode; the
run with every construct (arrays, their mutation, np.sort) checks 60 in
both modes. The open bugs ``make fuzz`` still finds are in
test_known_bugs.py.
"""
import math

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from . import fuzz_programs as fp

SETTINGS = dict(
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

FLOATS = frozenset({"arrays", "array mutation", "np.sort"})
"""The constructs left out of programs over floats ("arrays" leaves out
the other two as well)."""


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("robustness_fuzz")


def check(program_dir, data, exclude: frozenset, modes=fp.MODES) -> None:
    program = fp.write_program(fp.Chooser(lambda lo, hi: data.draw(st.integers(lo, hi))), exclude)
    note(program.source)
    outcome = fp.check_source(program_dir, program.source, modes)
    assert not outcome.disagreements, "\n".join(outcome.disagreements)


@settings(max_examples=200, **SETTINGS)
@given(st.data())
def test_gradients_of_random_programs(program_dir, data):
    check(program_dir, data, FLOATS, modes=("gradient",))


@settings(max_examples=200, **SETTINGS)
@given(st.data())
def test_tangents_of_random_programs(program_dir, data):
    check(program_dir, data, FLOATS, modes=("jvp",))


@settings(max_examples=60, **SETTINGS)
@given(st.data())
def test_random_programs_with_every_construct(program_dir, data):
    check(program_dir, data, frozenset())


AUTOGRAD_PROGRAM = '''
import math

import numpy as np


def prog(p0, p1, q, n):
    return math.sin(p0) * p1 + np.sum(np.tanh(q) * q)
'''


def test_the_comparison_with_autograd_finds_a_wrong_gradient():
    """``make fuzz`` compares with autograd when it is installed (the test
    suite never needs it): a right gradient passes, a planted wrong one is
    reported, coordinate by coordinate."""
    pytest.importorskip("autograd")
    import numpy as np

    p0, p1, q = 0.37, -1.21, np.array([0.83, -0.4, 1.1])
    right = (math.cos(p0) * p1, math.sin(p0), np.tanh(q) + q / np.cosh(q) ** 2, None)
    out = fp.Outcome(gradients=[((p0, p1, q, 2), right)])
    fp.compare_with_autograd(AUTOGRAD_PROGRAM, out)
    assert out.checked_autograd == 1 and out.autograd_disagreements == []
    wrong = (right[0], right[1] + 1e-3, right[2], None)
    out = fp.Outcome(gradients=[((p0, p1, q, 2), wrong)])
    fp.compare_with_autograd(AUTOGRAD_PROGRAM, out)
    assert len(out.autograd_disagreements) == 1 and out.autograd_disagreements[0].startswith("gradient of argument 1:")
