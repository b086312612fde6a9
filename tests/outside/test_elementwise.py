"""Unary functions element by element, as other AD projects test them
(autograd's ``test_systematic.py`` unary ufuncs and ``test_scalar_ops.py``):
each on a Python float and on arrays of a few shapes drawn from the
function's domain, complex inputs where the function is analytic or
real-valued on them, against finite differences to second order."""
import numpy as np
import pytest

from .oracle import check, rand

# (function, low, high): inputs are drawn uniformly in [low, high), away
# from the function's poles, branch cuts and jumps.
REAL = [
    (np.sin, -2, 2), (np.cos, -2, 2), (np.tan, -1.1, 1.1),
    (np.arcsin, -0.9, 0.9), (np.arccos, -0.9, 0.9), (np.arctan, -2, 2),
    (np.sinh, -2, 2), (np.cosh, -2, 2), (np.tanh, -2, 2),
    (np.arcsinh, -2, 2), (np.arccosh, 1.1, 4), (np.arctanh, -0.9, 0.9),
    (np.exp, -2, 2), (np.exp2, -2, 2), (np.expm1, -2, 2),
    (np.log, 0.2, 2), (np.log2, 0.2, 2), (np.log10, 0.2, 2), (np.log1p, 0.2, 2),
    (np.sqrt, 1, 3), (np.cbrt, 0.5, 3), (np.square, -2, 2), (np.reciprocal, 0.5, 2),
    (np.abs, 0.1, 4), (np.absolute, -4, -0.1), (np.fabs, 0.1, 4),
    (np.negative, -2, 2), (np.positive, -2, 2),
    (np.deg2rad, -2, 2), (np.rad2deg, -0.05, 0.05), (np.degrees, -0.05, 0.05), (np.radians, -2, 2),
    (np.sinc, -1.5, 1.5),
    # piecewise constant: a zero gradient away from the jumps
    (np.sign, 0.1, 2), (np.floor, 0.1, 0.9), (np.ceil, 1.1, 1.9), (np.rint, 0.1, 0.4), (np.trunc, -0.9, -0.1),
    (np.real, -2, 2), (np.imag, -2, 2), (np.conj, -2, 2), (np.conjugate, -2, 2), (np.real_if_close, -2, 2),
    (np.nan_to_num, -2, 2),
]

COMPLEX = [np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh, np.exp, np.expm1, np.log, np.log10, np.sqrt,
           np.square, np.reciprocal, np.abs, np.negative, np.real, np.imag, np.conj, np.angle, np.arctan,
           np.arcsinh]

SHAPES = [(), (3, 2)]  # a Python float and an array


def uniform(shape, low, high, seed):
    x = low + (high - low) * np.random.default_rng(seed).random(shape)
    return float(x) if shape == () else x


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fn, low, high", REAL, ids=[f.__name__ for f, _, _ in REAL])
def test_real(fn, low, high, shape):
    check(fn, uniform(shape, low, high, len(shape)))


@pytest.mark.parametrize("fn", COMPLEX, ids=lambda f: f.__name__)
def test_complex(fn):
    # moduli between 0.5 and 1.5 and phases away from the negative real
    # axis, where log, sqrt and angle have their branch cut
    rng = np.random.default_rng(3)
    z = rng.uniform(0.5, 1.5, (3, 2)) * np.exp(1j * rng.uniform(-2, 2, (3, 2)))
    if fn in (np.tan, np.arctan, np.arcsinh):
        z = z * 0.5
    check(fn, z)


@pytest.mark.parametrize("fn", [lambda x: -x, lambda x: +x, lambda x: abs(x), lambda x: x ** 3,
                                lambda x: 2.0 ** x, lambda x: 1.0 / x, lambda x: 3.0 - x, lambda x: x ** 0.5],
                         ids=["neg", "pos", "abs", "cube", "exp2", "inverse", "rsub", "sqrt"])
@pytest.mark.parametrize("x", [0.7, rand((3,), 4) ** 2 + 0.5, complex(0.6, 0.8)], ids=["float", "array", "complex"])
def test_operators(fn, x):
    check(fn, x)


def test_compositions():
    # a chain of unary functions, where a rule's output feeds the next
    check(lambda x: np.log(np.cosh(np.tanh(x)) + np.exp(np.sin(x) ** 2)), rand((2, 3), 5))
    check(lambda x: np.sqrt(np.abs(np.exp(x) + 1j * np.cos(x))), rand((4,), 6))
