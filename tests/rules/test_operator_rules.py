"""The rules for :mod:`operator` and for the container intrinsics of
:mod:`zygote_py.ir.ops`."""
import itertools
import math
import operator
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zygote_py.errors import NoDerivativeRule
from zygote_py.ir import ops
from zygote_py.rules import is_nondifferentiable, lookup

from .gradcheck import assert_gradients

SETTINGS = settings(derandomize=True, max_examples=25, deadline=None)


def reals(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def away_from_zero(lo, hi, gap=0.1):
    return reals(lo, hi).filter(lambda v: abs(v) > gap)


DY = away_from_zero(-3, 3)
PAIR = st.tuples(reals(-10, 10), reals(-10, 10))
MOD_PAIR = st.tuples(reals(-10, 10), away_from_zero(-3, 3, gap=0.5)).filter(
    lambda p: 0.1 < (p[0] / p[1]) % 1 < 0.9  # away from the jumps of a % b
)

CASES = {
    "add": (operator.add, PAIR),
    "iadd": (operator.iadd, PAIR),
    "sub": (operator.sub, PAIR),
    "isub": (operator.isub, PAIR),
    "mul": (operator.mul, PAIR),
    "imul": (operator.imul, PAIR),
    "truediv": (operator.truediv, st.tuples(reals(-10, 10), away_from_zero(-10, 10))),
    "itruediv": (operator.itruediv, st.tuples(reals(-10, 10), away_from_zero(-10, 10))),
    "mod": (operator.mod, MOD_PAIR),
    "imod": (operator.imod, MOD_PAIR),
    "pow": (operator.pow, st.tuples(reals(0.1, 10), reals(-3, 3))),
    "ipow": (operator.ipow, st.tuples(reals(0.1, 10), reals(-3, 3))),
    "pow, int exponent": (operator.pow, st.tuples(away_from_zero(-5, 5), st.integers(-4, 4))),
    "neg": (operator.neg, st.tuples(reals(-10, 10))),
    "pos": (operator.pos, st.tuples(reals(-10, 10))),
    "abs": (operator.abs, st.tuples(away_from_zero(-10, 10))),
}


@pytest.mark.parametrize("name", CASES)
@SETTINGS
@given(data=st.data())
def test_rule_matches_finite_differences(name, data):
    fn, arguments = CASES[name]
    assert_gradients(fn, data.draw(arguments), data.draw(DY))


@pytest.mark.parametrize("fn", [operator.pow, operator.ipow])
def test_int_exponent_gets_no_gradient(fn):
    _, back = lookup(fn)(-2.0, 3)
    assert back(1.0) == (12.0, None)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (0.0, 0.5, (math.inf, 0)),
        (0.0, 2.0, (0.0, 0)),
        (0.0, 0, (0, None)),  # 0 ** 0 == 1: no error from 0 ** -1
        (2.0, 0.0, (0.0, math.log(2))),
        (-2.0, 2.0, (-4.0, math.nan)),
    ],
)
def test_pow_edges(a, b, expected):
    _, back = lookup(operator.pow)(a, b)
    for got, want in zip(back(1), expected):
        if isinstance(want, float) and math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want


def test_abs_at_zero_and_nan():
    _, back = lookup(operator.abs)(0.0)
    assert back(2.0) == (0.0,)
    _, back = lookup(operator.abs)(math.nan)
    assert math.isnan(back(2.0)[0])


F = Fraction


@pytest.mark.parametrize(
    "fn, args, dy, expected",
    [
        (operator.add, (F(1, 3), F(2, 7)), 1, (1, 1)),
        (operator.sub, (F(1, 3), F(2, 7)), F(1, 5), (F(1, 5), F(-1, 5))),
        (operator.mul, (F(1, 3), F(2, 7)), 1, (F(2, 7), F(1, 3))),
        (operator.truediv, (F(1, 3), F(2, 7)), 1, (F(7, 2), F(-49, 12))),
        (operator.itruediv, (F(1, 3), F(2, 7)), 1, (F(7, 2), F(-49, 12))),
        (operator.pow, (F(1, 3), 2), 1, (F(2, 3), None)),
        (operator.pow, (F(1, 3), -2), 1, (F(-54), None)),
        (operator.pow, (F(2, 3), 0), 1, (0, None)),
        (operator.neg, (F(1, 3),), F(1, 2), (F(-1, 2),)),
        (operator.abs, (F(-1, 3),), 1, (-1,)),
        (operator.abs, (F(0),), 1, (F(0),)),
        (operator.mod, (F(7, 2), F(1, 1)), 1, (1, -3)),
    ],
)
def test_fractions_stay_exact(fn, args, dy, expected):
    y, back = lookup(fn)(*args)
    assert y == fn(*args) and type(y) is type(fn(*args))
    grads = back(dy)
    assert grads == expected
    assert not any(isinstance(g, float) for g in grads)


@pytest.mark.parametrize(
    "fn, expected",
    [
        (operator.add, (Decimal(1), Decimal(1))),
        (operator.mul, (Decimal("2.5"), Decimal("1.25"))),
        (operator.sub, (Decimal(1), Decimal(-1))),
        (operator.truediv, (Decimal("0.4"), Decimal("-0.2"))),
    ],
)
def test_decimals(fn, expected):
    a, b = Decimal("1.25"), Decimal("2.5")
    y, back = lookup(fn)(a, b)
    assert y == fn(a, b)
    grads = back(Decimal(1))
    assert grads == expected and all(isinstance(g, Decimal) for g in grads)


def test_decimal_mod_truncates_like_decimal():
    a, b = Decimal("-7"), Decimal("2")
    y, back = lookup(operator.mod)(a, b)
    assert y == Decimal("-1")  # Decimal's % keeps the dividend's sign
    assert back(Decimal(1)) == (Decimal(1), Decimal(3))  # a == b * -3 + -1


NONDIFFERENTIABLE = [
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    operator.is_, operator.is_not, operator.not_, operator.truth,
    operator.contains, ops.contains, ops.not_contains, operator.floordiv,
    operator.ifloordiv, operator.invert, operator.index, ops.exhausted,
]


@pytest.mark.parametrize("fn", NONDIFFERENTIABLE)
def test_nondifferentiable(fn):
    assert is_nondifferentiable(fn) and lookup(fn) is None


@pytest.mark.parametrize(
    "container, key, expected",
    [
        ((1.0, 2.0, 3.0), 1, (None, 5.0, None)),
        ([1.0, 2.0, 3.0], -1, [None, None, 5.0]),
        ({"a": 1.0, "b": 2.0}, "b", {"b": 5.0}),
    ],
)
def test_getitem_gradient_has_the_container_structure(container, key, expected):
    y, back = lookup(operator.getitem)(container, key)
    assert y == container[key]
    assert back(5.0) == (expected, None)


@pytest.mark.parametrize(
    "container, key, dy, expected",
    [
        ((1.0, 2.0, 3.0, 4.0), slice(1, 3, None), (5.0, 6.0), (None, 5.0, 6.0, None)),
        ([1.0, 2.0, 3.0, 4.0], slice(None, None, 2), [5.0, None], [5.0, None, None, None]),
        ([1.0, 2.0, 3.0], slice(None, None, -1), [5.0, 6.0, 7.0], [7.0, 6.0, 5.0]),
    ],
)
def test_getitem_slices(container, key, dy, expected):
    y, back = lookup(operator.getitem)(container, key)
    assert y == container[key]
    assert back(dy) == (expected, None)


def test_getitem_of_an_unsupported_container_raises_when_a_gradient_reaches_it():
    _, back = lookup(operator.getitem)("abc", 0)
    with pytest.raises(NoDerivativeRule, match="str"):
        back(1.0)


@SETTINGS
@given(items=st.lists(reals(-5, 5), max_size=4), weights=st.lists(DY, min_size=4, max_size=4))
def test_getitem_against_finite_differences(items, weights):
    # sum of weights[i] * xs[i] read through getitem: its gradient is the weights
    for i in range(len(items)):
        grads = assert_gradients(operator.getitem, (items, i), weights[i])
        assert grads[0] == [weights[i] if j == i else None for j in range(len(items))]


@pytest.mark.parametrize("fn, kind", [(ops.build_tuple, tuple), (ops.build_list, list)])
def test_build_display(fn, kind):
    y, back = lookup(fn)(1.0, 2.0, 3.0)
    assert y == kind((1.0, 2.0, 3.0)) and type(y) is kind
    assert back(kind((4.0, None, 6.0))) == (4.0, None, 6.0)


def test_build_dict_gives_each_value_its_key_gradient():
    y, back = lookup(ops.build_dict)("a", 1.0, "b", 2.0, "a", 3.0)
    assert y == {"a": 3.0, "b": 2.0}
    # the first "a" is overwritten: its value gets nothing
    assert back({"a": 7.0}) == (None, None, None, None, None, 7.0)


@pytest.mark.parametrize(
    "value, expected",
    [((1.0, 2.0), (4.0, None)), ([1.0, 2.0], [4.0, None]), (iter([1.0, 2.0]), [4.0, None])],
)
def test_unpack_gradient_matches_the_value(value, expected):
    y, back = lookup(ops.unpack)(value, 2)
    assert y == (1.0, 2.0)
    assert back((4.0, None)) == (expected, None)


def test_unpack_keeps_python_errors():
    with pytest.raises(ValueError, match="too many values"):
        lookup(ops.unpack)((1, 2, 3), 2)


@pytest.mark.parametrize(
    "value, dy, expected",
    [
        ((1.0, 2.0, 3.0, 4.0), (5.0, [6.0, None], 7.0), (5.0, 6.0, None, 7.0)),
        ([1.0, 2.0, 3.0], (5.0, None, 7.0), [5.0, None, 7.0]),
    ],
)
def test_unpack_starred(value, dy, expected):
    y, back = lookup(ops.unpack_starred)(value, 1, 1)
    assert y == ops.unpack_starred(value, 1, 1)
    assert back(dy) == (expected, None, None)


def test_check_bound_passes_the_gradient():
    y, back = lookup(ops.check_bound)(2.0, "x")
    assert y == 2.0 and back(3.0) == (3.0, None)
    with pytest.raises(UnboundLocalError):
        lookup(ops.check_bound)(ops.UNBOUND, "x")


def test_in_place_add_of_lists_keeps_python_semantics():
    xs = [1.0]
    y, _ = lookup(operator.iadd)(xs, [2.0])
    assert y is xs and xs == [1.0, 2.0]


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 0, 2, -1, Fraction(1, 2),
           math.inf, -math.inf, math.nan]
NUMERIC = {
    2: [operator.add, operator.iadd, operator.sub, operator.isub, operator.mul,
        operator.imul, operator.truediv, operator.itruediv, operator.mod,
        operator.imod, operator.pow, operator.ipow],
    1: [operator.neg, operator.pos, operator.abs],
}


@pytest.mark.parametrize(
    "fn, arity", [(fn, n) for n, fns in NUMERIC.items() for fn in fns],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_pullbacks_never_raise_where_the_operator_does_not(fn, arity):
    for args in itertools.product(SPECIAL, repeat=arity):
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        _, back = lookup(fn)(*args)
        back(1.0)
        back(1)
