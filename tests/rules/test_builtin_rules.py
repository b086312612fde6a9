"""The rules for Python's builtin functions."""
import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zygote_py.rules import is_nondifferentiable, lookup

from .gradcheck import assert_gradients

SETTINGS = settings(derandomize=True, max_examples=25, deadline=None)


def reals(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


DY = reals(-3, 3).filter(lambda v: abs(v) > 0.1)
DISTINCT = st.lists(reals(-10, 10), min_size=1, max_size=5).filter(
    # finite differences need a gap between the extreme and the rest
    lambda xs: all(abs(a - b) > 1e-3 for i, a in enumerate(xs) for b in xs[i + 1:])
)

CASES = {
    "abs": (abs, st.tuples(reals(-10, 10).filter(lambda v: abs(v) > 0.1))),
    "max of arguments": (max, DISTINCT.filter(lambda xs: len(xs) > 1).map(tuple)),
    "min of arguments": (min, DISTINCT.filter(lambda xs: len(xs) > 1).map(tuple)),
    "max of a list": (max, st.tuples(DISTINCT)),
    "min of a tuple": (min, st.tuples(DISTINCT.map(tuple))),
    "sum of a list": (sum, st.tuples(st.lists(reals(-10, 10), max_size=5))),
    "sum of a tuple with start": (
        sum, st.tuples(st.lists(reals(-10, 10), max_size=5).map(tuple), reals(-10, 10))
    ),
    "pow": (pow, st.tuples(reals(0.1, 10), reals(-3, 3))),
    "pow, int exponent": (pow, st.tuples(reals(-5, 5), st.integers(0, 4))),
    "float": (float, st.tuples(reals(-10, 10))),
}


@pytest.mark.parametrize("name", CASES)
@SETTINGS
@given(data=st.data())
def test_rule_matches_finite_differences(name, data):
    fn, arguments = CASES[name]
    args = data.draw(arguments)
    grads = assert_gradients(fn, args, data.draw(DY))
    for arg, grad in zip(args, grads):
        if isinstance(arg, (tuple, list)):
            assert type(grad) is type(arg) and len(grad) == len(arg)


@SETTINGS
@given(
    ab=st.tuples(reals(-10, 10), reals(-3, 3).filter(lambda v: abs(v) > 0.5)).filter(
        lambda p: 0.1 < (p[0] / p[1]) % 1 < 0.9
    ),
    dy=DY,
)
def test_divmod_remainder_gradient(ab, dy):
    grads = assert_gradients(divmod, ab, (None, dy), scalar_dy=dy, output=lambda y: y[1])
    _, back = lookup(divmod)(*ab)
    assert back((dy, None)) == (None, None)  # the quotient is piecewise constant
    assert grads[0] == dy


def test_ties_give_the_whole_gradient_to_the_first():
    _, back = lookup(max)(2.0, 1.0, 2.0)
    assert back(1.0) == (1.0, None, None)
    x = 3.0
    _, back = lookup(min)([x, x])
    assert back(1.0) == ([1.0, None],)


def test_min_max_with_key_and_default():
    _, back = lookup(max)([1.0, -5.0, 2.0], key=abs)
    assert back(1.0) == ([None, 1.0, None],)
    y, back = lookup(min)([], default=7.0)
    assert y == 7.0 and back(1.0) == ([],)


def test_min_max_of_an_iterator_get_a_list_gradient():
    y, back = lookup(max)(v for v in (1.0, 3.0, 2.0))
    assert y == 3.0 and back(1.0) == ([None, 1.0, None],)
    _, back = lookup(sum)(iter([1.0, 2.0]), 0.5)
    assert back(2.0) == ([2.0, 2.0], 2.0)


def test_three_argument_pow_is_modular():
    y, back = lookup(pow)(3, 4, 5)
    assert y == 1 and back(1) == (None, None, None)
    y, back = lookup(pow)(3.0, 2, None)
    assert y == 9.0 and back(1.0) == (6.0, None, None)


def test_float_passes_the_gradient():
    assert lookup(float)(Fraction(1, 2))[1](2.0) == (2.0,)
    y, back = lookup(float)()
    assert y == 0.0 and back(1.0) == ()


@pytest.mark.parametrize(
    "fn, args, expected",
    [
        (abs, (Fraction(-1, 3),), (-1,)),
        (max, (Fraction(1, 3), Fraction(1, 2)), (None, 1)),
        (min, ([Fraction(1, 3), Fraction(1, 2)],), ([1, None],)),
        (sum, ([Fraction(1, 3), Fraction(1, 2)], Fraction(1, 5)), ([1, 1], 1)),
        (pow, (Fraction(1, 3), 3), (Fraction(1, 3), None)),
        (divmod, (Fraction(7, 2), Fraction(1)), (1, -3)),
    ],
)
def test_fractions_stay_exact(fn, args, expected):
    y, back = lookup(fn)(*args)
    assert y == fn(*args)
    dy = (None, 1) if fn is divmod else 1
    grads = back(dy)
    assert grads == expected
    leaves = [v for g in grads for v in (g if isinstance(g, list) else [g])]
    assert not any(isinstance(v, float) for v in leaves)


NONDIFFERENTIABLE = [
    int, round, len, range, isinstance, issubclass, print, bool, str, repr,
    type, id, hash, callable, hasattr, chr, ord, format,
]


@pytest.mark.parametrize("fn", NONDIFFERENTIABLE)
def test_nondifferentiable(fn):
    assert is_nondifferentiable(fn) and lookup(fn) is None


@pytest.mark.parametrize("fn", [iter, next])
def test_left_to_the_ad(fn):
    assert lookup(fn) is None and not is_nondifferentiable(fn)


def test_sum_of_math_values_keeps_floats():
    _, back = lookup(sum)([math.pi, math.e])
    assert back(0.5) == ([0.5, 0.5],)


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 0, 2, -1, Fraction(1, 2),
           math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("fn", [pow, divmod, abs, max, min])
def test_pullbacks_never_raise_where_the_function_does_not(fn):
    dy = (1.0, 1.0) if fn is divmod else 1.0
    arity = 1 if fn is abs else 2
    for args in itertools.product(SPECIAL, repeat=arity):
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        _, back = lookup(fn)(*args)
        back(dy)
