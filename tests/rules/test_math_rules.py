"""The rules for :mod:`math`, against central finite differences of the
functions themselves."""
import inspect
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zygote_py.ad import pushrules
from zygote_py.rules import is_nondifferentiable, lookup, pymath
from zygote_py.registry import lookup_pushforward

from .gradcheck import assert_gradients, at

SETTINGS = settings(derandomize=True, max_examples=25, deadline=None)


def reals(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def away_from_zero(lo, hi, gap=0.05):
    return reals(lo, hi).filter(lambda v: abs(v) > gap)


def fractional_part_inside(a, b):
    """``a / b`` is not near an integer or a half-integer, where ``fmod``,
    ``remainder`` and ``%`` jump."""
    frac = (a / b) % 1
    return 0.1 < frac < 0.4 or 0.6 < frac < 0.9


DY = away_from_zero(-3, 3, gap=0.1)

# function, strategy of its positional arguments
CASES = {
    "sin": (math.sin, st.tuples(reals(-10, 10))),
    "cos": (math.cos, st.tuples(reals(-10, 10))),
    "tan": (math.tan, st.tuples(reals(-1.4, 1.4))),
    "asin": (math.asin, st.tuples(reals(-0.95, 0.95))),
    "acos": (math.acos, st.tuples(reals(-0.95, 0.95))),
    "atan": (math.atan, st.tuples(reals(-10, 10))),
    "atan2": (
        math.atan2,
        st.tuples(reals(-5, 5), reals(-5, 5)).filter(
            # away from the origin and from the cut along the negative x axis
            lambda p: math.hypot(*p) > 0.1 and not (p[1] < 0 and abs(p[0]) < 0.1)
        ),
    ),
    "sinh": (math.sinh, st.tuples(reals(-5, 5))),
    "cosh": (math.cosh, st.tuples(reals(-5, 5))),
    "tanh": (math.tanh, st.tuples(reals(-5, 5))),
    "asinh": (math.asinh, st.tuples(reals(-50, 50))),
    "acosh": (math.acosh, st.tuples(reals(1.05, 50))),
    "atanh": (math.atanh, st.tuples(reals(-0.95, 0.95))),
    "exp": (math.exp, st.tuples(reals(-20, 20))),
    "exp2": (math.exp2, st.tuples(reals(-20, 20))),
    "expm1": (math.expm1, st.tuples(reals(-20, 20))),
    "log": (math.log, st.tuples(reals(0.01, 100))),
    "log with base": (
        math.log,
        st.tuples(reals(0.01, 100), reals(0.1, 10).filter(lambda b: abs(b - 1) > 0.1)),
    ),
    "log2": (math.log2, st.tuples(reals(0.01, 100))),
    "log10": (math.log10, st.tuples(reals(0.01, 100))),
    "log1p": (math.log1p, st.tuples(reals(-0.9, 100))),
    "sqrt": (math.sqrt, st.tuples(reals(0.01, 100))),
    "cbrt": (math.cbrt, st.tuples(away_from_zero(-100, 100))),
    "pow": (math.pow, st.tuples(reals(0.1, 10), reals(-3, 3))),
    "pow of a negative base": (
        math.pow, st.tuples(away_from_zero(-5, -0.1), st.integers(-3, 3))
    ),
    "fabs": (math.fabs, st.tuples(away_from_zero(-10, 10))),
    "hypot": (
        math.hypot,
        st.lists(reals(-5, 5), min_size=1, max_size=4)
        .map(tuple)
        .filter(lambda p: math.hypot(*p) > 0.1),
    ),
    "erf": (math.erf, st.tuples(reals(-3, 3))),
    "erfc": (math.erfc, st.tuples(reals(-3, 3))),
    "gamma": (math.gamma, st.tuples(reals(0.1, 6))),
    "gamma of a negative": (math.gamma, st.tuples(reals(-2.9, -2.1))),
    "lgamma": (math.lgamma, st.tuples(reals(0.1, 30))),
    "lgamma of a negative": (math.lgamma, st.tuples(reals(-4.9, -4.1))),
    "degrees": (math.degrees, st.tuples(reals(-10, 10))),
    "radians": (math.radians, st.tuples(reals(-500, 500))),
    "copysign": (math.copysign, st.tuples(away_from_zero(-10, 10), away_from_zero(-10, 10))),
    "fmod": (
        math.fmod,
        st.tuples(reals(-10, 10), away_from_zero(-3, 3, gap=0.5)).filter(
            lambda p: fractional_part_inside(*p)
        ),
    ),
    "remainder": (
        math.remainder,
        st.tuples(reals(-10, 10), away_from_zero(-3, 3, gap=0.5)).filter(
            lambda p: fractional_part_inside(*p)
        ),
    ),
    "ldexp": (math.ldexp, st.tuples(reals(-10, 10), st.integers(-5, 5))),
    "nextafter": (math.nextafter, st.tuples(reals(-10, 10), reals(-10, 10))),
    "dist": (
        math.dist,
        st.integers(1, 4)
        .flatmap(lambda n: st.tuples(
            st.lists(reals(-5, 5), min_size=n, max_size=n),
            st.lists(reals(-5, 5), min_size=n, max_size=n).map(tuple),
        ))
        .filter(lambda pq: math.dist(*pq) > 0.1),
    ),
    "prod of a list": (math.prod, st.tuples(st.lists(reals(-3, 3), max_size=5))),
    "prod of a tuple": (math.prod, st.tuples(st.lists(reals(-3, 3), max_size=5).map(tuple))),
    "fsum": (math.fsum, st.tuples(st.lists(reals(-100, 100), max_size=5))),
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
@given(x=reals(-10, 10).filter(lambda v: abs(v - round(v)) > 0.05), dy=DY)
def test_modf_gradient_is_that_of_the_fractional_part(x, dy):
    grads = assert_gradients(math.modf, (x,), (dy, None), scalar_dy=dy, output=lambda y: y[0])
    _, back = lookup(math.modf)(x)
    assert back((None, dy)) == (None,)
    assert grads == (dy,)


@SETTINGS
@given(
    x=st.tuples(reals(1.1, 1.9), st.integers(-10, 10)).map(lambda p: math.ldexp(*p)),
    dy=DY,
)
def test_frexp_gradient_is_that_of_the_mantissa(x, dy):
    assert_gradients(math.frexp, (x,), (dy, None), scalar_dy=dy, output=lambda y: y[0])
    _, back = lookup(math.frexp)(x)
    assert back((None, dy)) == (None,)


@pytest.mark.parametrize(
    "fn, args, nones",
    [
        (math.ldexp, (1.5, 3), (1,)),
        (math.copysign, (1.5, -2.0), (1,)),
        (math.nextafter, (1.5, 2.0), (1,)),
        (math.pow, (1.5, 3), (1,)),
    ],
)
def test_arguments_without_gradient_get_none(fn, args, nones):
    _, back = lookup(fn)(*args)
    grads = back(1.0)
    assert [i for i, g in enumerate(grads) if g is None] == list(nones)


KINKS_AND_EDGES = [
        (math.sqrt, (0.0,), (math.inf,)),
        (math.cbrt, (0.0,), (math.inf,)),
        (math.asin, (1.0,), (math.inf,)),
        (math.asin, (-1.0,), (math.inf,)),
        (math.acos, (1.0,), (-math.inf,)),
        (math.acosh, (1.0,), (math.inf,)),
        (math.fabs, (0.0,), (0.0,)),
        (math.copysign, (0.0, -1.0), (0.0, None)),
        (math.hypot, (0.0, 0.0), (0.0, 0.0)),
        (math.atan2, (0.0, 0.0), (0.0, 0.0)),
        (math.dist, ([0.0, 1.0], [0.0, 1.0]), ([0.0, 0.0], [-0.0, -0.0])),
        (math.pow, (0.0, 0.5), (math.inf, 0.0)),
        (math.pow, (0.0, 2.0), (0.0, 0.0)),
        (math.pow, (0.0, 0.0), (0.0, math.nan)),
        (math.pow, (-2.0, 2.0), (-4.0, math.nan)),
        (math.prod, ([0.0, 3.0, 0.0],), ([0.0, 0.0, 0.0],)),
        (math.prod, ([0.0, 3.0, 2.0],), ([6.0, 0.0, 0.0],)),
        (math.hypot, (), ()),
]


@pytest.mark.parametrize("fn, args, expected", KINKS_AND_EDGES)
def test_values_at_kinks_and_edges(fn, args, expected):
    _, back = lookup(fn)(*args)
    grads = back(1.0)
    assert len(grads) == len(expected)
    for got, want in zip(grads, expected):
        if isinstance(want, float) and math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want


def test_prod_start_scales_the_gradient():
    _, back = lookup(math.prod)([2.0, 5.0], start=3.0)
    assert back(1.0) == ([15.0, 6.0],)


def test_iterators_get_list_gradients():
    _, back = lookup(math.fsum)(iter([1.0, 2.0]))
    assert back(2.0) == ([2.0, 2.0],)
    _, back = lookup(math.dist)(iter([3.0]), (0.0,))
    assert back(1.0) == ([1.0], (-1.0,))


@pytest.mark.parametrize(
    "x, expected",
    [
        (1.0, -0.5772156649015329),  # -γ
        (0.5, -0.5772156649015329 - 2 * math.log(2)),
        (2.0, 1 - 0.5772156649015329),
        (-0.5, 0.03648997397857652),  # ψ(1.5), since cot(-π/2) = 0
        (100.0, 4.600161852738087),
    ],
)
def test_digamma_known_values(x, expected):
    assert math.isclose(pymath.digamma(x), expected, rel_tol=1e-13, abs_tol=1e-14)


def test_digamma_is_nan_at_poles():
    assert all(math.isnan(pymath.digamma(x)) for x in (0.0, -1.0, -7.0, -math.inf))
    assert pymath.digamma(math.inf) == math.inf


def test_lgamma_gradient_at_infinities():
    for x, expected in ((math.inf, math.inf), (-math.inf, math.nan)):
        y, back = lookup(math.lgamma)(x)
        assert y == math.inf
        (grad,) = back(1.0)
        assert grad == expected or (math.isnan(grad) and math.isnan(expected))


NONDIFFERENTIABLE = [
    "floor", "ceil", "trunc", "isfinite", "isinf", "isnan", "isclose", "comb",
    "perm", "factorial", "gcd", "lcm", "isqrt", "ulp",
]


@pytest.mark.parametrize("name", NONDIFFERENTIABLE)
def test_nondifferentiable(name):
    fn = getattr(math, name)
    assert is_nondifferentiable(fn) and lookup(fn) is None


def test_every_math_function_is_ruled_nondifferentiable_or_skipped():
    public = [
        name for name in dir(math)
        if not name.startswith("_") and callable(getattr(math, name))
    ]
    missing = [
        name for name in public
        if lookup(getattr(math, name)) is None
        and not is_nondifferentiable(getattr(math, name))
        and name not in pymath.SKIPPED
    ]
    assert missing == []
    assert not set(pymath.SKIPPED) - set(public), "SKIPPED names a function math lacks"


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3, math.inf, -math.inf, math.nan]
ARGUMENT_COUNTS = {"hypot": (0, 1, 2, 3), "log": (1, 2)}


def special_calls():
    """Every ruled math function at every combination of special values."""
    for name in sorted(n for n in dir(math) if lookup(getattr(math, n, None))):
        fn = getattr(math, name)
        if name in ("prod", "fsum"):
            calls = [([a, b],) for a, b in itertools.product(SPECIAL, repeat=2)]
        elif name == "dist":
            calls = [([a], [b]) for a, b in itertools.product(SPECIAL, repeat=2)]
        else:
            if name in ARGUMENT_COUNTS:
                counts = ARGUMENT_COUNTS[name]
            else:
                counts = (len(inspect.signature(fn).parameters),)
            calls = [c for n in counts for c in itertools.product(SPECIAL, repeat=n)]
        yield pytest.param(fn, calls, id=name)


@pytest.mark.parametrize("fn, calls", list(special_calls()))
def test_pullbacks_never_raise_where_the_function_does_not(fn, calls):
    dy = (1.0, None) if fn in (math.frexp, math.modf) else 1.0
    for args in calls:
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):
            continue
        _, back = lookup(fn)(*args)
        back(dy)


def push(fn, args, dargs, kwargs=None):
    """``fn``'s pushforward at ``args`` for the tangents ``dargs``."""
    kwargs = kwargs or {}
    return pushrules.call(lookup_pushforward(fn), fn(*args, **kwargs), args, kwargs, dargs, {})


def unit_tangents(args):
    """``(dargs, path)``: a tangent 1 at the float leaf ``path`` of ``args``
    (an argument, or an item of a list or tuple argument), none elsewhere."""
    for i, a in enumerate(args):
        if isinstance(a, float):
            yield tuple(1.0 if j == i else None for j in range(len(args))), (i,)
        elif isinstance(a, (tuple, list)):
            for k in range(len(a)):
                item = type(a)(1.0 if m == k else 0.0 for m in range(len(a)))
                yield tuple(item if j == i else None for j in range(len(args))), (i, k)


@pytest.mark.parametrize("fn, args, expected", KINKS_AND_EDGES)
def test_pushforwards_at_kinks_and_edges_are_the_adjoints(fn, args, expected):
    """At a real number, the tangent for a unit tangent of one argument is
    that argument's gradient for a unit cotangent."""
    for dargs, path in unit_tangents(args):
        got, want = push(fn, args, dargs), at(expected, path)
        want = 0.0 if want is None else want  # (no gradient: a zero tangent)
        assert got == want or math.isnan(got) and math.isnan(want), (path, got, want)


def test_pushforwards_of_tuple_outputs():
    assert push(math.frexp, (12.0,), (1.0,)) == (1.0 / 16, None)
    assert push(math.modf, (2.5,), (3.0,)) == (3.0, None)


def test_prod_pushforward_leaves_start_without_a_tangent():
    assert push(math.prod, ([2.0, 5.0],), ([1.0, 0.5],), {"start": 3.0}) == 3.0 * (5.0 + 2.0 * 0.5)
    assert push(math.prod, ([2.0, 5],), ([1.0, 0],)) == 5.0


@pytest.mark.parametrize("fn, calls", list(special_calls()))
def test_pushforwards_never_raise_where_the_function_does_not(fn, calls):
    for args in calls:
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):
            continue
        for dargs, _ in unit_tangents(args):
            push(fn, args, dargs)
        if len(args) > 1:  # and every argument's tangent at once
            push(fn, args, tuple(1.0 if isinstance(a, float) else [1.0] * len(a) if isinstance(a, list) else None
                                 for a in args))
