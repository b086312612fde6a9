"""Every control-flow shape, differentiated and checked against central
finite differences of the plain function (and, where the derivative has a
closed form, against it).

Each function in :mod:`tests.ad.programs` is checked at several points,
chosen so that different branches and trip counts are taken and far enough
from a branch boundary that the function is smooth around them (which
:func:`assert_smooth` checks, so a bad point shows up as a test error, not
as a gradient bug).
"""
import math

import pytest

import zygote_py as zpy

from . import programs
from .fdcheck import assert_gradient, central_difference, float_positions, time_limit


def bug(n: int):
    return pytest.mark.xfail(strict=True, reason=f"see ad_bugs.md #{n}")


# name -> points; a point's float arguments are differentiated
CASES = {
    # branches
    "if_elif_else": [(-2.0,), (0.3,), (1.5,)],
    "if_without_else": [(1.0, 0.5), (0.2, 0.7)],
    "nested_if": [(1.0, 0.5), (1.0, -0.5), (-1.0, 0.5), (-0.5, -1.0)],
    "multiple_returns": [(3.0,), (1.0,), (-0.5,)],
    "conditional_expression": [(1.0, 0.5), (0.2, 0.7), (-2.0, -3.0)],
    "short_circuit_and": [(1.0, 0.5), (1.0, -0.5), (-1.0, 0.5)],
    "short_circuit_or": [(1.5, 0.5), (0.5, -3.0), (0.5, 0.5)],
    "short_circuit_mixed": [(1.0, 0.5), (-0.5, -0.5), (-2.0, 0.5)],
    "chained_comparison": [(0.5, 1.0), (1.5, 1.0), (-2.0, 1.0)],
    "abs_min_max": [(1.0, 0.5), (0.2, 0.7), (-1.0, 2.0)],
    "min_max_many": [(1.0, 0.5, 2.0), (0.3, 0.7, -0.1)],
    "sum_of_list": [(1.0, 0.5), (-2.0, 3.0)],
    "sum_with_start": [(1.0, 0.5)],
    "reads_module_constant": [(1.5,)],
    "augmented_assignments": [(0.7, 1.3), (-1.2, 0.4)],
    # loops
    "while_loop": [(0.7, 3), (1.2, 0), (0.3, 5)],
    "for_range": [(0.7, 3), (1.2, 0), (0.3, 5)],
    "for_range_start_stop_step": [(1.1, 0.5)],
    "for_negative_step": [(0.7, 3), (0.7, 0)],
    "for_over_tuple": [(0.7, 1.3)],
    "for_over_list_literal": [(0.7, 1.3), (1.5, 0.9), (1.5, -2.0)],
    "int_power_loop": [(0.7, 4), (-1.3, 5)],
    "while_compound_condition": [(0.7, 3), (0.7, 10), (3.0, 10)],
    "loop_with_break": [(0.7, 2), (0.7, 10), (3.0, 5)],
    "while_with_break": [(0.3,), (1.2,)],
    "loop_with_continue": [(0.7, 8), (0.3, 4)],
    "while_with_continue": [(0.7, 1.0), (2.0, 0.5)],
    "early_return_in_loop": [(0.5, 5), (1.7, 5), (3.0, 0)],
    "early_return_in_while": [(0.5,), (3.0,)],
    "nested_loops_2": [(0.7, 3), (0.3, 0)],
    "nested_loops_3": [(0.7, 0.4)],
    "nested_with_break_continue": [(0.7, 0.4), (2.1, 0.1), (0.1, 0.9)],
    "swap_in_a_loop": [(0.7, -1.3, 0), (0.7, -1.3, 1), (0.7, -1.3, 2), (0.7, -1.3, 3)],
    "tuple_swap_in_a_loop": [(0.7, -1.3, 0), (0.7, -1.3, 1), (0.7, -1.3, 4)],
    "for_else": [(0.5, 3), (0.5, 10), (0.5, 0)],
    "while_else": [(0.5, 0.3), (1.0, 2.0)],
    "newton_sqrt": [(2.0,), (9.5,), (0.3,)],
    "trip_count_from_x": [(2.5,), (0.4,)],
    "data_dependent_trip": [(0.7,), (2.3,)],
    "math_in_loop": [(0.3, 3), (-1.3, 4), (0.3, 0)],
    # calls
    "calls_helpers": [(1.0, 0.5)],
    "tuple_unpacking": [(1.0, 0.5), (-0.3, 0.8)],
    "tuple_from_helper_in_loop": [(0.7, 3)],
    "rec_pow": [(2.0, 3), (0.5, 0), (-1.5, 5)],
    "rec_float_factorial": [(3.5,), (0.5,), (5.2,)],
    "calls_recursive": [(1.3, 3.5)],
    "with_default": [(1.3,), (1.3, 0.5), (1.3, 0.5, 5)],
    "calls_with_default": [(1.3,)],
    "keyword_only": [(1.3, 0.5)],
    "calls_keyword_only": [(1.3, 0.5)],
    "even_odd_a": [(0.5, 4), (0.5, 3)],
    "nested_closure": [(0.5, 2.0)],
    "tuple_valued_math": [(1.3, 0.6), (2.9, 1.65), (-1.2, 0.3)],
    "dead_value_in_branch": [(0.5, 1.0), (0.5, -1.0)],
    "early_return_after_inner_loop": [(0.64, 0.52), (-0.64, 0.52), (1.5, 0.2)],
    "maybe_none_gradient_at_merge": [(0.37,), (6.0,)],
    "truthiness_of_call_result": [(0.37,)],
    "dead_call_result_compared": [(0.37,), (-0.64,), (1.5,)],
}

# (name, point index) -> bug number in /work/notes/ad_bugs.md
KNOWN_BUGS: dict[tuple[str, int], int] = {}


def _params():
    for name, points in CASES.items():
        for i, args in enumerate(points):
            known = KNOWN_BUGS.get((name, i))
            yield pytest.param(name, args, id=f"{name}-{i}", marks=[bug(known)] if known else [])


def assert_smooth(f, args) -> None:
    """The test's own precondition: ``f`` is smooth around ``args`` (two
    step sizes give the same finite difference)."""
    for i in float_positions(args):
        a, ra = central_difference(f, args, i, 1e-6)
        b, rb = central_difference(f, args, i, 1e-5)
        assert abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + ra + rb + 1e-9, (
            f"test point {args} is too close to a kink of {f.__name__} along argument {i}"
        )


@pytest.mark.parametrize("name, args", list(_params()))
def test_gradient(name, args):
    f = getattr(programs, name)
    assert_smooth(f, args)
    with time_limit(20):
        assert_gradient(f, *args)


def test_every_program_has_cases():
    """A function added to programs.py without points would go untested."""
    functions = {
        n for n, v in vars(programs).items()
        if callable(v) and getattr(v, "__module__", None) == programs.__name__
    }
    helpers = {"square", "helper_pair", "even_odd_b", "sum_squares_of_list", "ignores_first", "constant_one"}
    assert functions - helpers == set(CASES)


# closed forms -----------------------------------------------------------


@pytest.mark.parametrize("a", [0.3, 2.0, 9.5, 150.0])
def test_newton_sqrt_matches_closed_form(a):
    (g,) = zpy.gradient(programs.newton_sqrt, a)
    assert g == pytest.approx(0.5 / math.sqrt(a), rel=1e-9)


@pytest.mark.parametrize("x, n", [(2.0, 3), (-1.5, 5), (0.5, 1), (3.0, 0)])
def test_rec_pow_matches_closed_form(x, n):
    dx, dn = zpy.gradient(programs.rec_pow, x, n)
    assert dn is None
    assert (dx or 0.0) == pytest.approx(n * x ** (n - 1) if n else 0.0)


@pytest.mark.parametrize("x, n", [(2.0, 3), (-1.5, 5), (0.5, 0)])
def test_while_loop_value_is_the_plain_value(x, n):
    """The forward pass computes exactly what the function computes."""
    y, _ = zpy.value_and_gradient(programs.while_loop, x, n)
    assert y == programs.while_loop(x, n)


def test_trip_count_from_x_closed_form():
    # s = x * (1 + 2 + ... + k) with k = ceil(x): ds/dx = k(k+1)/2 piecewise
    for x, k in [(2.5, 3), (0.4, 1), (6.7, 7)]:
        assert zpy.gradient(programs.trip_count_from_x, x) == (pytest.approx(k * (k + 1) / 2),)


@pytest.mark.parametrize("xs", [[0.5, -1.5, 2.0], [], [3.0]])
def test_loop_over_a_list_argument(xs):
    (g,) = zpy.gradient(programs.sum_squares_of_list, xs)
    expected = [2 * c * math.cos(c) - c * c * math.sin(c) for c in xs]
    assert (g is None and not xs) or g == pytest.approx(expected, rel=1e-12)
