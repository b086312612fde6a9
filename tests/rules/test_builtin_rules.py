"""The rules for Python's builtin functions."""
import itertools
import math
import operator
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zygote_py import runtime
from zygote_py.ad import pushrules
from zygote_py import registry
from zygote_py.rules import is_nondifferentiable, lookup

from .gradcheck import assert_gradients
from .npcheck import check_rule

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
    assert y == 7.0 and back(1.0) == ([], 1.0)  # (then the keyword arguments': see runtime.rule_pullback)
    _, back = lookup(max)([], key=abs, default=7.0)
    assert back(1.0) == ([], None, 1.0)
    y, back = runtime.J(max, (), default=7.0)
    assert y == 7.0 and back(2.0) == (None, (), 2.0)


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
    y, back = runtime.J(float)  # (float(): its parameter's default gets the gradient, no argument does)
    assert y == 0.0 and back(1.0) == (None,)


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
def test_iterators_taken_by_hand_have_rules(fn):  # (a for loop needs neither: see the reverse transform)
    assert lookup(fn) is not None and not is_nondifferentiable(fn)


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


# -- pushforwards -------------------------------------------------------------


def push(fn, args, dargs, kwargs=None):
    """``fn``'s pushforward at ``args`` for the tangents ``dargs``."""
    kwargs = kwargs or {}
    rule = registry.lookup_pushforward(fn)
    return pushrules.call(rule, fn(*args, **kwargs), args, kwargs, dargs, {})


def test_max_min_pushforwards_follow_the_first_tie():
    x = 2.0
    assert push(max, (x, 1.0, x), (3.0, 4.0, 5.0)) == 3.0
    assert push(min, ([x, x],), ([3.0, 4.0],)) == 3.0
    assert push(max, ([1.0, -5.0, 2.0],), ([3.0, 4.0, 5.0],), {"key": abs}) == 4.0
    assert push(min, ([],), ([],), {"default": 7.0}) == 0.0  # a default without a tangent
    rule = registry.lookup_pushforward(max)
    assert pushrules.call(rule, 7.0, ([],), {"default": 7.0}, ([],), {"default": 3.0}) == 3.0
    assert pushrules.call(rule, 2.0, ([2.0],), {"default": 7.0}, ([1.0],), {"default": 3.0}) == 1.0
    assert runtime.is_zero_tangent(push(max, (1.0, 3), (2.0, None)))  # the int returned has none


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_of_an_array_takes_the_tangent_of_its_first_largest_item(dtype):
    x = np.array([1.0, 3.0, 3.0, 2.0], dtype)
    t = push(max, (x,), (np.array([1.0, 2.0, 4.0, 8.0], dtype),))
    assert t == 2.0 and t.dtype == dtype


def test_sum_pushforward_of_arrays_broadcasts_and_keeps_the_dtype():
    check_rule(sum, [np.ones((2, 3)), np.arange(6.0).reshape(2, 3)])  # (the adjoint: arrays of one shape)
    a = np.ones((2, 3), np.float32)
    b = np.arange(3, dtype=np.float32)
    t = push(sum, ([a, b],), ([None, np.ones(3, np.float32)],))
    assert t.shape == (2, 3) and t.dtype == np.float32
    assert runtime.is_zero_tangent(push(sum, ([1, 2],), ([None, None],)))
    assert push(sum, ([1.0, 2],), ([3.0, None], )) == 3.0
    assert push(sum, (iter([1.0]), 2.0), (None, 4.0)) == 4.0


@pytest.mark.parametrize(
    "base, exp",
    [(np.array([0.5, 2.0]), 2.0), (np.array([0.5, 2.0]), np.array([1.5, -0.5])), (2.0, np.array([0.5, 3.0])),
     (-8.0, 1 / 3), (1 + 2j, 0.5 - 1j)],
)
def test_pow_pushforward_is_that_of_the_operator(base, exp):
    dbase = np.ones_like(base) * 0.3 if isinstance(base, np.ndarray) else 0.3 * type(base)(1)
    dexp = np.ones_like(exp) * 0.7 if isinstance(exp, np.ndarray) else 0.7 * type(exp)(1)
    got = push(pow, (base, exp), (dbase, dexp))
    want = pushrules.call(registry.lookup_pushforward(operator.pow), base ** exp, (base, exp), {}, (dbase, dexp), {})
    np.testing.assert_array_equal(got, want)
    h = 1e-7  # and the central difference along (dbase, dexp)
    slope = (pow(base + h * dbase, exp + h * dexp) - pow(base - h * dbase, exp - h * dexp)) / (2 * h)
    np.testing.assert_allclose(got, slope, rtol=1e-6)
    assert runtime.is_zero_tangent(push(pow, (3, 4, 5), (None, None, None)))


def test_divmod_pushforward_of_arrays_broadcasts():
    a = np.array([[7.3, -3.1], [2.6, 9.2]])  # (away from the jumps)
    b = np.array([2.0, 1.5])
    check_rule(divmod, a, np.array([b, b]), dy=(None, np.ones((2, 2))))  # (the adjoint: operands of one shape)
    t = push(divmod, (a, b), (None, np.ones(2)))
    assert t[0] is None and t[1].shape == (2, 2)


def test_float_pushforward():
    assert push(float, (np.float32(1.5),), (np.float32(2.0),)) == 2.0
    assert type(push(float, (np.float32(1.5),), (np.float32(2.0),))) is float


def test_dict_method_pushforwards():
    d = {"a": 1.0, "b": 2.0}
    dd = {"a": 3.0, "b": None}
    assert push(dict.get, (d, "a"), (dd, None)) == 3.0
    assert push(dict.get, (d, "c", 5.0), (dd, None, 4.0)) == 4.0
    values, items = push(dict.values, (d,), (dd,)), push(dict.items, (d,), (dd,))
    assert list(values) == [3.0, None] and len(values) == 2
    assert list(items) == [(None, 3.0), (None, None)]
    assert list(push(dict.values, (d,), ({"b": 1.0},))) == [None, 1.0]  # a tangent without every key
    dd["b"] = 5.0  # (a view: it reads the tangent as it is when iterated)
    assert list(values) == [3.0, 5.0] and list(items) == [(None, 3.0), (None, 5.0)]


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    @property
    def norm2(self):
        return self.x * self.x + self.y * self.y


def test_getattr_pushforward():
    from zygote_py.tangent import Tangent

    p = Point(3.0, 4.0)
    dp = Tangent(x=1.0, y=0.5)
    assert push(getattr, (p, "x"), (dp, None)) == 1.0
    assert push(getattr, (p, "norm2"), (dp, None)) == 2 * 3.0 * 1.0 + 2 * 4.0 * 0.5
    z = 1 + 2j
    assert push(getattr, (z, "imag"), (0.5 - 3j, None)) == -3.0
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(push(getattr, (x, "T"), (x + 1, None)), (x + 1).T)


def test_forward_mode_over_getattrs_rule():
    """The pushforwards of getattr's rule's parts (a gradient's jvp of an
    attribute read at run time, as SciPy's OdeResult's ``sol.y``): a plain
    attribute's tangent, a property's refused, and the gradient's."""
    from zygote_py.errors import NoDerivativeRule
    from zygote_py.tangent import Tangent

    p = Point(3.0, 4.0)
    dp = Tangent(x=1.0, y=0.5)
    assert push(runtime.attribute, (p, "x", runtime.MISSING), (dp, None, None)) == (1.0, None)
    with pytest.raises(NoDerivativeRule, match="Point.norm2, a property"):
        push(runtime.attribute, (p, "norm2", runtime.MISSING), (dp, None, None))
    t = push(runtime.attribute_gradient, (p, "y", 2.0), (dp, None, 3.0))
    assert isinstance(t, Tangent) and t.y == 3.0


def test_super_pushforward_is_the_objects():
    class Base:
        pass

    class Child(Base):
        pass

    obj = Child()
    assert push(super, (Child, obj), (None, "tangent of obj")) == "tangent of obj"


def tangent_choices(value):
    """The tangents to try for an argument: none, or 1 at each float leaf."""
    if isinstance(value, float):
        return [None, 1.0]
    if isinstance(value, list):
        return [None, [1.0 if isinstance(v, float) else None for v in value]]
    return [None]


@pytest.mark.parametrize("fn", [pow, divmod, abs, max, min, sum, float])
def test_pushforwards_never_raise_where_the_function_does_not(fn):
    arity = 1 if fn in (abs, float) else 2
    for args in itertools.product(SPECIAL, repeat=arity):
        args = (list(args),) if fn is sum else args
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):
            continue
        for dargs in itertools.product(*map(tangent_choices, args)):
            if any(t is not None for t in dargs):
                push(fn, args, dargs)


def test_builtin_pow_of_arrays_is_the_power_operator():
    check_rule(pow, np.array([0.5, 2.0, 3.0]), 2.5)
    check_rule(pow, 1.5, np.array([0.5, 2.0]))


def test_divmod_gradients_are_reduced_to_broadcast_operands():
    a, b = np.array([5.0, 7.5, -3.0]), np.array([2.0])
    w = np.array([1.0, -2.0, 0.5])
    _, back = lookup(divmod)(a, b)
    da, db = back((None, w))
    h = 1e-6
    assert db.shape == (1,) and da.shape == (3,)
    slope = (np.sum(w * divmod(a, b + h)[1]) - np.sum(w * divmod(a, b - h)[1])) / (2 * h)
    assert db[0] == pytest.approx(slope, rel=1e-6)
    np.testing.assert_allclose(da, w)


def test_abs_of_a_single_precision_complex_scalar():
    z = np.complex64(3 + 4j)
    _, back = lookup(operator.abs)(z)
    (g,) = back(np.float32(2.0))
    assert g == pytest.approx(2.0 * z / abs(z))
