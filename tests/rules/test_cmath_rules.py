"""The registry covers :mod:`cmath` (the gradients themselves are checked
end to end, against finite differences, in tests/ad/test_complex.py), and
the pushforward rules of :mod:`cmath` and ``complex``."""
import cmath
import itertools
import math

import numpy as np
import pytest

from zygote_py.ad import pushrules
from zygote_py.rules import is_nondifferentiable, lookup, pycmath
from zygote_py.registry import lookup_pushforward

from .pushcheck import check_pushforward


def test_every_cmath_function_is_ruled_nondifferentiable_or_skipped():
    public = [name for name in dir(cmath) if not name.startswith("_") and callable(getattr(cmath, name))]
    missing = [
        name for name in public
        if lookup(getattr(cmath, name)) is None and not is_nondifferentiable(getattr(cmath, name))
        and name not in pycmath.SKIPPED
    ]
    assert missing == []
    assert not set(pycmath.SKIPPED) - set(public), "SKIPPED names a function cmath lacks"


def test_predicates_are_nondifferentiable():
    for fn in (cmath.isclose, cmath.isfinite, cmath.isinf, cmath.isnan):
        assert is_nondifferentiable(fn)


# -- pushforwards -------------------------------------------------------------
# Each is checked against central differences along a random direction, and
# against the adjoint rule: <dy, J v> == <back(dy), v>.

HOLOMORPHIC = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
               "tanh", "asinh", "acosh", "atanh"]
# away from the axes, where the branch cuts lie, and from the singular points
POINTS = [0.7 + 0.4j, -1.3 + 0.6j, -0.5 - 1.2j, 1.1 - 0.8j, 0.3, 0.6]


def direction(value, rng):
    if isinstance(value, complex):
        return complex(*rng.standard_normal(2))
    return float(rng.standard_normal()) if isinstance(value, float) else None


def cotangent(y, rng):
    if isinstance(y, tuple):
        return tuple(cotangent(v, rng) for v in y)
    return direction(y, rng)


def push(fn, args, dargs):
    return pushrules.call(lookup_pushforward(fn), fn(*args), args, {}, dargs, {})


def check(fn, args, seed=0):
    rng = np.random.default_rng(seed)
    dargs = tuple(direction(a, rng) for a in args)
    t = push(fn, args, dargs)
    h = 1e-6

    def at(s):
        return fn(*(a if d is None else a + s * d for a, d in zip(args, dargs)))

    hi, lo = at(h), at(-h)
    slope = tuple((p - q) / (2 * h) for p, q in zip(hi, lo)) if isinstance(hi, tuple) else (hi - lo) / (2 * h)
    assert np.allclose(t, slope, rtol=1e-6, atol=1e-8), (t, slope)
    assert type(t) is type(fn(*args)) or isinstance(t, tuple)
    y, back = lookup(fn)(*args)
    dy = cotangent(y, rng)
    check_pushforward(fn, args, {}, y, list(enumerate(back(dy)))[:len(args)], dy)  # (complex(): a default's)


@pytest.mark.parametrize("z", POINTS)
@pytest.mark.parametrize("name", HOLOMORPHIC + ["phase", "polar"])
def test_pushforward(name, z):
    check(getattr(cmath, name), (z,))


@pytest.mark.parametrize(
    "fn, args",
    [
        (cmath.log, (0.7 + 0.4j, 2.5 - 0.5j)), (cmath.log, (0.7 + 0.4j, 3.0)), (cmath.log, (2.0, 0.5 + 0.5j)),
        (cmath.rect, (1.5, 0.7)), (cmath.rect, (2.0, -2.5)),
        (complex, (1.5, -0.5)), (complex, (1.5 + 1j, -0.5 + 2j)), (complex, (1.5,)), (complex, (1.5 + 1j,)),
        (complex.conjugate, (1.5 - 2j,)), (float.conjugate, (1.5,)),
    ],
    ids=repr,
)
def test_pushforward_of_several_arguments(fn, args):
    check(fn, args)


def test_log_without_a_tangent_for_the_base():
    assert push(cmath.log, (2j, 10), (1.0, None)) == 1.0 / (2j * cmath.log(10))


@pytest.mark.parametrize(
    "fn, z, expected",
    [(cmath.sqrt, 0j, None), (cmath.asin, 1 + 0j, None), (cmath.acosh, -1 + 0j, None), (cmath.asinh, 1j, None),
     (cmath.phase, 0j, 0.0), (cmath.polar, 0j, (0.0, 0.0))],
)
def test_pushforward_at_singular_points(fn, z, expected):
    t = push(fn, (z,), (1 + 1j,))
    if expected is None:  # the slope has no limit in the complex plane: nan, as the gradient
        assert cmath.isnan(t)
    else:
        assert t == expected


SPECIAL = [0j, 1 + 0j, -1 + 0j, 1j, -1j, 0.0, 1.0, -1.0, 2.5, complex(math.inf, 0), complex(0, math.nan), math.nan]


@pytest.mark.parametrize("fn", [getattr(cmath, n) for n in HOLOMORPHIC + ["phase", "polar"]] + [cmath.rect, complex])
def test_pushforwards_never_raise_where_the_function_does_not(fn):
    arity = 2 if fn in (cmath.rect, complex) else 1
    for args in itertools.product(SPECIAL, repeat=arity):
        try:
            fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):
            continue
        for dargs in [(1.0,) * arity, (1j,) * arity, (1.0,) + (None,) * (arity - 1)]:
            push(fn, args, tuple(None if d is None else d if isinstance(a, complex) else 1.0
                                 for a, d in zip(args, dargs)))
