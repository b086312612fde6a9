"""Binary operators and ufuncs with broadcasting, as other AD projects test
them (autograd's ``test_systematic.py`` binary ufuncs, ``test_binary_ops``
and the argument-by-argument checks of ``test_scalar_ops.py``): every pair
of operand shapes from a Python float to a three-dimensional array that
broadcasts, both operands differentiated, complex operands for the
arithmetic, and the same array as both operands."""
import operator

import numpy as np
import pytest

from .oracle import check, rand

# operand shapes that broadcast: () is a Python float
PAIRS = [((), ()), ((2, 3), (3,)), ((2, 1, 3), (4, 1))]


def operand(shape, low, high, seed):
    x = low + (high - low) * np.random.default_rng(seed).random(shape)
    return float(x) if shape == () else x


# (function, range of the first operand, range of the second), away from
# ties, zeros of the divisor and the jumps of mod
FUNCTIONS = [
    (operator.add, (-2, 2), (-2, 2)), (operator.sub, (-2, 2), (-2, 2)), (operator.mul, (-2, 2), (-2, 2)),
    (operator.truediv, (-2, 2), (0.5, 2)), (operator.pow, (0.5, 2), (-2, 2)),
    (np.multiply, (-2, 2), (-2, 2)),
    (np.divide, (-2, 2), (-2, -0.5)), (np.power, (0.5, 2), (-2, 2)),
    (np.maximum, (-2, -0.1), (0.1, 2)), (np.minimum, (0.1, 2), (-2, -0.1)),
    (np.fmax, (0.1, 2), (-2, -0.1)), (np.fmin, (-2, -0.1), (0.1, 2)),
    (np.arctan2, (-2, 2), (0.5, 2)), (np.hypot, (0.5, 2), (-2, -0.5)),
    (np.logaddexp, (-2, 2), (-2, 2)), (np.logaddexp2, (-2, 2), (-2, 2)),
    (np.mod, (0.1, 0.9), (1.1, 2)), (np.remainder, (-0.9, -0.1), (1.1, 2)), (np.fmod, (0.1, 0.9), (1.1, 2)),
    (operator.mod, (2.1, 2.9), (1.1, 1.9)),
    (np.copysign, (0.5, 2), (-2, -0.5)),
]


@pytest.mark.parametrize("sa, sb", PAIRS, ids=str)
@pytest.mark.parametrize("fn, ra, rb", FUNCTIONS, ids=[f.__name__ for f, _, _ in FUNCTIONS])
def test_broadcast(fn, ra, rb, sa, sb):
    check(fn, operand(sa, *ra, 1), operand(sb, *rb, 2))


COMPLEX = [operator.add, operator.sub, operator.mul, operator.truediv, np.power]


@pytest.mark.parametrize("sa, sb", [((2, 3), ()), ((3,), (2, 1))], ids=str)
@pytest.mark.parametrize("fn", COMPLEX, ids=lambda f: f.__name__)
def test_complex(fn, sa, sb):
    a = rand(sa, 3, complex) if sa else complex(0.6, 0.3)
    b = rand(sb, 4, complex) + 2.0 if sb else complex(1.2, -0.4)
    check(fn, a, b)


@pytest.mark.parametrize("fn", [lambda a, b: a * b, lambda a, b: a ** b, lambda a, b: np.dot(a, b)],
                         ids=["mul", "pow", "dot"])
def test_real_with_complex(fn):
    # a real operand meets a complex one: its gradient is the real part
    check(fn, rand((3,), 5) ** 2 + 0.5, rand((3,), 6, complex))


@pytest.mark.parametrize("fn", [operator.mul, operator.truediv, np.hypot, np.logaddexp, np.arctan2,
                                lambda a, b: a ** b], ids=["mul", "truediv", "hypot", "logaddexp", "arctan2", "pow"])
def test_same_operand(fn):
    # the same array as both operands: the two gradients add up
    x = operand((2, 3), 0.5, 2, 7)
    check(lambda a: fn(a, a), x)


def test_comparisons_cut_the_gradient():
    # comparisons and floor division have no gradient; what they select does
    x, y = rand((2, 3), 8), rand((2, 3), 9)
    check(lambda a, b: np.where(a > b, a * b, a - b) + np.floor_divide(a, 1.7), x, y)
