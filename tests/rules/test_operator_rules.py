"""The rules for :mod:`operator` and for the container intrinsics of
:mod:`zygote_py.ir.ops`."""
import itertools
import math
import operator
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zygote_py as zpy
from zygote_py import runtime
from zygote_py.ad import pushrules
from zygote_py.errors import NoDerivativeRule, UnsupportedSyntax
from zygote_py.ir import ops
from zygote_py.rules import is_nondifferentiable, lookup
from zygote_py.registry import lookup_pushforward

from .gradcheck import assert_gradients
from .npcheck import check_rule
from .pushcheck import check_pushforward

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


POW_EDGES = [
    (0.0, 0.5, (math.inf, 0)),
    (0.0, 2.0, (0.0, 0)),
    (0.0, 0, (0, None)),  # 0 ** 0 == 1: no error from 0 ** -1
    (2.0, 0.0, (0.0, math.log(2))),
    (-2.0, 2.0, (-4.0, math.nan)),
]


@pytest.mark.parametrize("a, b, expected", POW_EDGES)
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


def test_in_place_add_of_a_list_the_mutation_pass_left_is_refused():
    # (a list it could not prove held by one name alone: v = d["a"]; v += [y] gave d["a"] no gradient for y)
    xs = [1.0]
    with pytest.raises(UnsupportedSyntax, match="on a list of differentiated values"):
        lookup(operator.iadd)(xs, [2.0])
    assert xs == [1.0]


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


# -- pushforwards -------------------------------------------------------------
# (assert_gradients and check_rule check a pushforward against the adjoint
# rule they have checked against finite differences.)


def push(fn, args, dargs):
    """``fn``'s pushforward at ``args`` for the tangents ``dargs``."""
    return pushrules.call(lookup_pushforward(fn), fn(*args), args, {}, dargs, {})


def rand(*shape, dtype=np.float64, seed=0, low=-2.0, high=2.0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(low, high, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(low, high, shape)
    return x.astype(dtype)


SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 1)), ((2, 3), ()), ((), (2, 3))]


def operands(sa, sb, dtype, positive=False):
    low = 0.5 if positive else -2.0
    a = rand(*sa, dtype=dtype, seed=1, low=low)
    b = rand(*sb, dtype=dtype, seed=2, low=low)
    # a 0-d operand as a Python number, as NumPy code mostly has it
    return (a[()].item() if sa == () else a), (b[()].item() if sb == () else b)


def check_single(fn, *args):
    """check_rule's check of the pushforward against the adjoint, with the
    tolerance of single precision (in which the adjoint sums gradients)."""
    y, back = lookup(fn)(*args)
    dy = rand(*np.shape(y), dtype=y.dtype, seed=4)
    check_pushforward(fn, args, {}, y, list(enumerate(back(dy))), dy, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("sa, sb", SHAPES)
@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul, operator.truediv])
def test_arithmetic_on_arrays_broadcasts(fn, sa, sb, dtype):
    a, b = operands(sa, sb, dtype)
    (check_single if dtype == np.float32 else check_rule)(fn, a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("sa, sb", SHAPES)
@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
                                operator.mod])
def test_one_operands_tangent_alone_has_the_outputs_shape(fn, sa, sb, dtype):
    """The compiler drops a zero tangent's terms: what is left of the
    tangent is broadcast to the output's shape and dtype."""
    if fn is operator.mod and dtype == np.complex128:
        return
    a, b = operands(sa, sb, dtype, positive=fn is operator.pow)
    y = fn(a, b)
    da, db = a * 0.5 + 0.25, b * -0.5 + 0.125
    tangents = [push(fn, (a, b), (da, None)), push(fn, (a, b), (None, db))]
    for t in tangents:
        assert np.shape(t) == np.shape(y) and (not isinstance(y, np.ndarray) or t.dtype == y.dtype)
    single = dtype == np.float32
    np.testing.assert_allclose(tangents[0] + tangents[1], push(fn, (a, b), (da, db)), rtol=1e-5 if single else 1e-12)


@pytest.mark.parametrize("sa, sb", SHAPES)
def test_mod_on_arrays(sa, sb):
    a, b = operands(sa, sb, np.float64)
    b = b + np.sign(b) * 0.5 if isinstance(b, np.ndarray) else b + math.copysign(0.5, b)
    check_rule(operator.mod, a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("sa, sb", SHAPES)
def test_pow_on_arrays(sa, sb, dtype):
    a, b = operands(sa, sb, dtype, positive=True)
    check_rule(operator.pow, a, b)


@pytest.mark.parametrize(
    "a, b",
    [(rand(4, low=0.5), 2.0), (rand(4, low=0.5), 2), (rand(4, low=0.5), 0), (rand(4, low=0.5), 0.5),
     (rand(4, low=0.5, dtype=np.float32), 3.0), (2.5, rand(4))],
)
def test_pow_on_arrays_with_number_operands(a, b):
    (check_single if getattr(a, "dtype", None) == np.float32 else check_rule)(operator.pow, a, b)


@pytest.mark.parametrize("a, b", [
    (np.array([0.0, 1.0, -2.0]), 2.5),
    (np.array([0.0, 1.0, -2.0]), np.array([0.5, 0.0, 2.0])),
    (np.array([0.0, 0.0, 4.0]), np.array([0.5, 2.0, 0.0])),
])
def test_pow_pushforward_on_arrays_at_the_edges_is_the_adjoints(a, b):
    with np.errstate(all="ignore"):
        y, back = lookup(operator.pow)(a, b)
        for da, db in [(np.ones_like(a), None), (None, np.ones_like(b) if isinstance(b, np.ndarray) else 1.0)]:
            t = push(operator.pow, (a, b), (da, db))
            g = back(np.ones_like(y))[0 if db is None else 1]
            np.testing.assert_array_equal(t if np.shape(g) else np.sum(t), g)  # (a number's gradient is summed)


@pytest.mark.parametrize("fn", [operator.pow, operator.ipow, pow])
@pytest.mark.parametrize("a, b, expected", POW_EDGES)
def test_pow_pushforward_at_the_edges_is_the_adjoints(fn, a, b, expected):
    for i, want in enumerate(expected):
        if want is not None:
            got = push(fn, (a, b), (1.0 if i == 0 else None, 1.0 if i == 1 else None))
            assert got == want or math.isnan(got) and math.isnan(want), (i, got, want)


def test_pow_pushforward_adds_nothing_for_a_zero_tangent():
    """Not ``0 * nan`` from the slope in the exponent at a negative base,
    nor ``0 * inf`` from the slope in the base at 0."""
    assert push(operator.pow, (-2.0, 2.0), (1.0, 0.0)) == -4.0
    assert push(operator.pow, (-2.0, 2.0), (1.0, None)) == -4.0
    assert push(operator.pow, (0.0, 0.5), (0.0, 1.0)) == 0.0
    np.testing.assert_array_equal(push(operator.pow, (np.array([-2.0, 3.0]), 2.0), (np.ones(2), 0.0)), [-4.0, 6.0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
def test_abs_of_arrays(dtype):
    x = rand(2, 3, dtype=dtype)
    x[0, 0] = 0
    (check_single if dtype in (np.float32, np.complex64) else check_rule)(operator.abs, x)


@pytest.mark.parametrize("fn", [operator.neg, operator.pos])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_unary_on_arrays(fn, dtype):
    (check_single if dtype == np.float32 else check_rule)(fn, rand(2, 3, dtype=dtype))


@pytest.mark.parametrize("sa, sb", [((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)),
                                     ((2, 2, 3), (3, 4)), ((3, 4), (2, 4, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_matmul(sa, sb, dtype):
    check_rule(operator.matmul, rand(*sa, dtype=dtype, seed=1), rand(*sb, dtype=dtype, seed=2))


@pytest.mark.parametrize(
    "key", [1, (1, 2), slice(1, None), (Ellipsis, 0), np.array([2, 0, 2]), np.array([True, False, True]),
            (slice(None), [0, 2])],
    ids=repr,
)
def test_getitem_of_arrays(key):
    x = rand(3, 3)
    check_rule(operator.getitem, x, key)
    t = push(operator.getitem, (x, key), (x + 1, None))
    np.testing.assert_array_equal(t, (x + 1)[key])


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_numpy_scalars_keep_their_dtype(dtype):
    a, b = dtype(1.5), dtype(-0.75)
    for fn in (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.abs):
        args = (a, b) if fn not in (operator.neg, operator.abs) else (b,)
        y, back = lookup(fn)(*args)
        dy = dtype(0.5)
        check_pushforward(fn, args, {}, y, list(enumerate(back(dy))), dy, rtol=1e-5, atol=1e-6)


def central_difference(fn, args, dargs, h=1e-6):
    """The slope of ``fn`` at ``args`` along ``dargs`` (``None``: zero)."""
    def at(s):
        return fn(*(a if d is None else a + s * d for a, d in zip(args, dargs)))
    return (at(h) - at(-h)) / (2 * h)


COMPLEX_CASES = [
    (operator.add, (1 + 2j, 0.5 - 1j)), (operator.add, (1.5, 0.5 - 1j)),
    (operator.sub, (1 + 2j, 0.5 - 1j)), (operator.mul, (1 + 2j, 0.5 - 1j)), (operator.mul, (1.5, 0.5 - 1j)),
    (operator.truediv, (1 + 2j, 0.5 - 1j)), (operator.truediv, (1.5, 0.5 - 1j)),
    (operator.pow, (1 + 2j, 0.5 - 1j)), (operator.pow, (1 + 2j, 3)), (operator.pow, (1.5, 0.5 - 1j)),
    (operator.pow, (-2.0, 0.5)),  # a negative base to a fractional power: complex
    (operator.neg, (1 + 2j,)), (operator.pos, (1 + 2j,)), (operator.abs, (3 - 4j,)),
    (operator.iadd, (1 + 2j, 0.5 - 1j)), (operator.imul, (1 + 2j, 0.5 - 1j)), (operator.ipow, (1 + 2j, 0.5 - 1j)),
]


@pytest.mark.parametrize("fn, args", COMPLEX_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_pushforwards_of_complex_numbers(fn, args):
    rng = np.random.default_rng(3)
    dargs = tuple(None if isinstance(a, int) else complex(*rng.standard_normal(2)) if isinstance(a, complex)
                  else float(rng.standard_normal()) for a in args)
    t = push(fn, args, dargs)
    assert abs(t - central_difference(fn, args, dargs)) < 1e-6 * (1 + abs(t)), t
    y, back = lookup(fn)(*args)
    dy = complex(*rng.standard_normal(2)) if isinstance(y, complex) else float(rng.standard_normal())
    check_pushforward(fn, args, {}, y, list(enumerate(back(dy))), dy)


def test_abs_of_complex_zero_has_zero_tangent():
    assert push(operator.abs, (0j,), (1 + 1j,)) == 0.0


@pytest.mark.parametrize(
    "container, key, dcontainer, expected",
    [
        ((1.0, 2.0, 3.0), 1, (4.0, 5.0, None), 5.0),
        ([1.0, 2.0, 3.0], slice(1, None), [4.0, None, 6.0], [None, 6.0]),
        ({"a": 1.0, "b": 2.0}, "b", {"a": 4.0, "b": 5.0}, 5.0),
    ],
)
def test_getitem_pushforward_indexes_the_tangent(container, key, dcontainer, expected):
    assert push(operator.getitem, (container, key), (dcontainer, None)) == expected


def test_container_pushforwards():
    assert push(ops.build_tuple, (1.0, 2, 3.0), (4.0, None, 6.0)) == (4.0, 0, 6.0)
    assert push(ops.build_list, (1.0, 3.0), (4.0, None)) == [4.0, 0.0]
    kv, dkv = ("a", 1.0, "b", 2.0, "a", 3.0), (None, 4.0, None, 5.0, None, 6.0)
    assert push(ops.build_dict, kv, dkv) == {"a": 6.0, "b": 5.0}  # the last value of a repeated key
    assert push(ops.unpack, ([1.0, 2.0], 2), ([4.0, None], None)) == (4.0, None)
    assert push(ops.unpack_starred, ((1.0, 2.0, 3.0, 4.0), 1, 1), ((5.0, 6.0, 7.0, 8.0), None, None)) \
        == (5.0, [6.0, 7.0], 8.0)
    assert push(ops.check_bound, (2.0, "x"), (3.0, None)) == 3.0


def test_spread_pushforwards():
    f = runtime.spread_positional
    assert push(f, ((False, True, False), 1.0, [2.0, 3.0], 4.0), (None, 5.0, [6.0, None], None)) \
        == (5.0, 6.0, None, 0.0)
    # an iterator the call read: as many items as are left over
    assert push(f, ((True, False), iter([1.0, 2.0]), 3.0), (None, None, 4.0)) == (None, None, 4.0)
    g = runtime.spread_keywords
    assert push(g, (("a", None), 1.0, {"b": 2.0, "c": 3.0}), (None, 4.0, {"b": 5.0})) \
        == {"a": 4.0, "b": 5.0, "c": None}


PUSH_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 0, 2, -1, math.inf, -math.inf, math.nan, 1 + 1j, 0j]


@pytest.mark.parametrize(
    "fn, arity", [(fn, n) for n, fns in NUMERIC.items() for fn in fns],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_pushforwards_never_raise_where_the_operator_does_not(fn, arity):
    for args in itertools.product(PUSH_SPECIAL, repeat=arity):
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):
            continue
        choices = [[None] if isinstance(a, int) else [None, type(a)(1)] for a in args]
        for dargs in itertools.product(*choices):
            if any(t is not None for t in dargs):
                push(fn, args, dargs)


def test_a_product_with_a_constant_array_of_fewer_dimensions_at_second_order():
    """The pullback of ``x3 * E`` (``x3`` of shape (3, 4, 1), ``E`` a constant
    (4, 4)) differentiated again, its value unused: the output's zero
    cotangent, started as ``0``, times ``E`` has ``E``'s shape, which
    broadcasts with ``x3``'s but not to it (``unbroadcast`` crashed); the
    gradient of ``<back(v)(x), w>`` against central differences."""
    rng = np.random.default_rng(0)
    x, v, w, e = rng.standard_normal((3, 4)), rng.standard_normal((3, 4, 4)), rng.standard_normal((3, 4)), np.eye(4)

    def vjp_dot_w(x):
        y, back = zpy.pullback(lambda a: np.sin(a[:, :, None]) * e, x)
        return back(v)[0]

    _, back2 = zpy.pullback(vjp_dot_w, x)
    got = back2(w)[0]
    step = 1e-6
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = step
        want[i] = np.sum(w * (vjp_dot_w(x + d) - vjp_dot_w(x - d))) / (2 * step)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, -w * np.sin(x) * np.sum(v * e, axis=-1))
    # (the rule of unbroadcast itself, for such a gradient: summed back to its shape)
    check_rule(runtime.unbroadcast, rng.standard_normal((4, 4)), rng.standard_normal((3, 4, 1)))
