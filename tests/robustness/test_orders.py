"""Issue 36's invariant in ``make test``: the gradient code zygote_py emits
is differentiated again by zygote_py, correctly, in both modes. A sample of
the random-program suites (``make fuzz`` runs the full sweep: ``--second``,
``--third``) gets its second derivatives checked (``zpy.hvp``, reverse over
reverse, ``jvp`` of ``gradient``) against central differences of its
gradient, a few of them their third; see :mod:`orders`. A refusal (a clear
zygote_py error) is allowed; a wrong number or a crash is not.
"""
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

import zygote_py as zpy
from tests.ad import test_random_numpy, test_random_programs

from . import fuzz_programs as fp
from . import orders
from .fuzz import U, W

SETTINGS = dict(
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# make fuzz's programs (every construct) that compile quickly at second order,
# among them ones whose gradient code calls helpers through runtime.J
FUZZ_SEEDS = [2, 4, 6, 8, 9, 11, 12, 14]
THIRD_SEEDS = [2, 6]


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("robustness_orders")


def assert_right(out: orders.Orders) -> None:
    assert not out.findings, "\n".join(out.findings)


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_second_derivatives_of_fuzz_programs(program_dir, seed):
    prog = fp.load(program_dir, fp.write_program(fp.Chooser(random.Random(seed).randint)).source).prog
    out = orders.check_orders(prog, fp.POINTS[0], (*fp.DIRECTION, None))
    assert_right(out)
    assert out.counts[("hvp", "ok")] + out.skipped == 1  # (hvp refuses nothing: it falls back to reverse mode)


@pytest.mark.parametrize("seed", THIRD_SEEDS)
def test_third_derivatives_of_fuzz_programs(program_dir, seed):
    prog = fp.load(program_dir, fp.write_program(fp.Chooser(random.Random(seed).randint)).source).prog
    out = orders.check_orders(prog, fp.POINTS[0], (*fp.DIRECTION, None), W, U, order=3, compositions=())
    assert_right(out)


def test_a_tangent_iterator_over_a_range_of_gradient_code(program_dir):
    """Fuzz program 105: forward mode over its gradient code gave a
    ``range`` (a loop's trip count replayed) that it takes for a changing
    object the zero tangent ``None``, then iterated over it in step with
    the range ("'NoneType' object is not iterable"): its tangent is a zero
    per item now. ``hvp`` and ``jvp`` of the gradient against central
    differences."""
    prog = fp.load(program_dir, fp.write_program(fp.Chooser(random.Random(105).randint)).source).prog
    out = orders.check_orders(prog, fp.POINTS[0], (*fp.DIRECTION, None))
    assert_right(out)
    assert out.counts[("hvp", "ok")] == out.counts[("jvp of grad", "ok")] == 1


@settings(max_examples=6, **SETTINGS)
@given(test_random_programs.programs(loops=True), st.integers(0, 3))
def test_second_derivatives_of_random_float_programs(program_dir, program, n):
    source, k = program
    note(source)
    prog = test_random_programs.load(program_dir, source)
    args = (*test_random_programs.POINTS[0][:k], n)
    v = (0.6, -0.3, 0.8)[:k] + (None,)
    if test_random_programs.plain_value(prog, args) is not None:
        assert_right(orders.check_orders(prog, args, v))


@settings(max_examples=6, **SETTINGS)
@given(test_random_numpy.programs())
def test_second_derivatives_of_random_numpy_programs(program_dir, source):
    note(source)
    prog = test_random_programs.load(program_dir, source)
    args = test_random_numpy.POINTS[0]
    v = (np.array([[0.5], [-0.2], [0.9]]), np.array([0.3, -0.7, 0.1, 0.4]), -0.6)
    try:
        with np.errstate(all="ignore"):
            prog(*args)
    except ValueError:  # operands that do not broadcast: not a program
        return
    assert_right(orders.check_orders(prog, args, v))


SPLIT_SWITCH = """
import math


def helper(a, b, n=2):
    x = a
    y = b
    z = a * b
    z, y = y, z
    for i1 in range(1, n + 1):
        if z >= y:
            if z > 1.0 and y < z:
                break
        elif x > -0.5:
            y, z = z * 0.5, math.sin(y)
        else:
            if z > x:
                return ((-y) - math.exp(math.sin((i1 * 0.25))))
            z = 0.5 * (math.sqrt(1.0 + (-y) ** 2))
    return (-(-z))


def prog(p0, p1, p2, n):
    x = p0
    y = p1
    z = p2
    x = -0.75
    for c1 in (x, z,):
        y = math.tanh((helper(-0.75, z) if y < 1.0 else (y ** 3)))
    y = (helper(b=0.5, a=z) + helper(x, y))
    return (abs(x) if x < 1.0 else abs(z))
"""
"""A random program whose second-order code, structured, copies a dispatch
switch by node splitting: the copy tested a label of its own, which no jump
assigned (``NameError: name 'label_5' is not defined``, in both modes)."""


def test_a_copied_dispatch_switch_tests_the_label_its_jumps_assign(program_dir):
    prog = test_random_programs.load(program_dir, SPLIT_SWITCH)
    out = orders.check_orders(prog, (0.37, -1.21, 0.83, 0), (0.6, -0.3, 0.8, None), compositions=("hvp", "reverse"))
    assert_right(out)
    assert out.counts[("hvp", "ok")] == out.counts[("reverse", "ok")] == 1  # (its value is constant: zeros)


def test_the_checker_finds_a_wrong_second_derivative(monkeypatch):
    """A planted wrong Hessian-vector product is a finding, not a pass."""
    f = lambda x: np.sum(np.sin(x) * x)  # noqa: E731
    x, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    assert_right(orders.check_orders(f, (x,), (v,)))
    right = zpy.hvp
    monkeypatch.setattr(zpy, "hvp", lambda *a, **k: tuple(h * 1.001 for h in right(*a, **k)))
    out = orders.check_orders(f, (x,), (v,), compositions=("hvp",))
    assert out.counts[("hvp", "wrong")] == 1

