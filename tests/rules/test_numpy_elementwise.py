"""The rules of NumPy's elementwise functions, checked against central finite
differences (:mod:`.npcheck`), and their conventions at kinks."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import zygote_py as zpy
import zygote_py.rules as rules
from zygote_py import runtime
from zygote_py.ad import pushrules
from zygote_py.ad.inline import rule_ir
from zygote_py import registry
from zygote_py.rules import numpy_elementwise

from .npcheck import bind, check_rule
from .pushcheck import check_pushforward, rules_of

# A NumPy warning (a division by zero, a complex value cast to real) away
# from a kink is a bug; the tests of kinks say which warnings they expect.
pytestmark = pytest.mark.filterwarnings("error")

F32 = dict(rtol=1e-2, atol=1e-3)
HYPOTHESIS = settings(derandomize=True, max_examples=25, deadline=None)


def anywhere(rng, shape):
    return rng.uniform(-2.5, 2.5, shape)


def away_from_zero(rng, shape):
    return rng.uniform(0.2, 2.5, shape) * rng.choice([-1.0, 1.0], shape)


def between(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


# function, the values its argument is drawn from
UNARY = {
    "negative": (np.negative, anywhere),
    "positive": (np.positive, anywhere),
    "exp": (np.exp, anywhere),
    "exp2": (np.exp2, anywhere),
    "expm1": (np.expm1, anywhere),
    "log": (np.log, between(0.2, 3)),
    "log2": (np.log2, between(0.2, 3)),
    "log10": (np.log10, between(0.2, 3)),
    "log1p": (np.log1p, between(-0.8, 3)),
    "sqrt": (np.sqrt, between(0.2, 3)),
    "cbrt": (np.cbrt, away_from_zero),
    "square": (np.square, anywhere),
    "reciprocal": (np.reciprocal, away_from_zero),
    "sin": (np.sin, anywhere),
    "cos": (np.cos, anywhere),
    "tan": (np.tan, between(-1.2, 1.2)),
    "arcsin": (np.arcsin, between(-0.9, 0.9)),
    "arccos": (np.arccos, between(-0.9, 0.9)),
    "arctan": (np.arctan, anywhere),
    "sinh": (np.sinh, anywhere),
    "cosh": (np.cosh, anywhere),
    "tanh": (np.tanh, anywhere),
    "arcsinh": (np.arcsinh, anywhere),
    "arccosh": (np.arccosh, between(1.1, 4)),
    "arctanh": (np.arctanh, between(-0.9, 0.9)),
    "absolute": (np.absolute, away_from_zero),
    "fabs": (np.fabs, away_from_zero),
    "sinc": (np.sinc, anywhere),
    "deg2rad": (np.deg2rad, anywhere),
    "rad2deg": (np.rad2deg, anywhere),
    "degrees": (np.degrees, anywhere),
    "radians": (np.radians, anywhere),
    "real": (np.real, anywhere),
    "imag": (np.imag, anywhere),
    "conjugate": (np.conjugate, anywhere),
}


def ratio_inside(rng, shape1, shape2):
    """Operands of ``remainder`` and ``fmod`` whose quotient is not near an
    integer (where they jump), for any broadcastable pair of shapes: a
    divisor of magnitude in [1, 1.05] and a dividend in ``k + [0.35, 0.65]``."""
    x2 = rng.uniform(1.0, 1.05, shape2) * rng.choice([-1.0, 1.0], shape2)
    x1 = rng.integers(-3, 4, shape1) + rng.uniform(0.35, 0.65, shape1)
    return x1, x2


def independent(draw1, draw2):
    return lambda rng, shape1, shape2: (draw1(rng, shape1), draw2(rng, shape2))


# function, the values its arguments are drawn from (for any two shapes)
BINARY = {
    "add": (np.add, independent(anywhere, anywhere)),
    "subtract": (np.subtract, independent(anywhere, anywhere)),
    "multiply": (np.multiply, independent(anywhere, anywhere)),
    "divide": (np.divide, independent(anywhere, away_from_zero)),
    "power": (np.power, independent(between(0.3, 3), anywhere)),
    "float_power": (np.float_power, independent(between(0.3, 3), anywhere)),
    "arctan2": (np.arctan2, independent(away_from_zero, anywhere)),  # away from the cut at x1 == 0
    "hypot": (np.hypot, independent(away_from_zero, anywhere)),
    "logaddexp": (np.logaddexp, independent(anywhere, anywhere)),
    "logaddexp2": (np.logaddexp2, independent(anywhere, anywhere)),
    "maximum": (np.maximum, independent(anywhere, anywhere)),
    "minimum": (np.minimum, independent(anywhere, anywhere)),
    "fmax": (np.fmax, independent(anywhere, anywhere)),
    "fmin": (np.fmin, independent(anywhere, anywhere)),
    "remainder": (np.remainder, ratio_inside),
    "fmod": (np.fmod, ratio_inside),
}

SHAPES = [(), (5,), (3, 4), (2, 3, 4)]

# every direction of broadcasting; None is a Python float
PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((1, 4), (3, 1)),
    ((4,), (3, 4)),
    ((3, 4), (4,)),
    ((), (3, 4)),
    ((3, 4), ()),
    (None, (3, 4)),
    ((3, 4), None),
    ((2, 1, 4), (3, 1)),
]


def operand(value, shape):
    """``value`` as a Python float when ``shape`` is None."""
    return float(value) if shape is None else value


def draw_pair(name, pair, seed=0, dtype=np.float64):
    fn, draw = BINARY[name]
    rng = np.random.default_rng(seed)
    s1, s2 = pair
    x1, x2 = draw(rng, () if s1 is None else s1, () if s2 is None else s2)
    return fn, operand(np.asarray(x1, dtype), s1), operand(np.asarray(x2, dtype), s2)


# -- unary ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, shape):
    fn, draw = UNARY[name]
    check_rule(fn, draw(np.random.default_rng(0), shape))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32(name):
    fn, draw = UNARY[name]
    x = draw(np.random.default_rng(1), (3, 4)).astype(np.float32)
    (g,) = check_rule(fn, x, **F32)
    assert g.dtype == np.float32


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_of_a_float32_scalar(name):
    fn, draw = UNARY[name]
    x = np.float32(draw(np.random.default_rng(2), ()))
    y, back = rules.lookup(fn)(x)
    (g,) = back(np.float32(0.5))
    assert isinstance(g, np.float32), type(g)
    check_pushforward(fn, (x,), {}, y, [(0, g)], np.float32(0.5), **F32)  # a np.float32 tangent too


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_of_a_python_float(name):
    fn, draw = UNARY[name]
    check_rule(fn, float(draw(np.random.default_rng(3), ())))


@HYPOTHESIS
@given(name=st.sampled_from(sorted(UNARY)), shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
       seed=st.integers(0, 2**16))
def test_unary_on_any_shape(name, shape, seed):
    fn, draw = UNARY[name]
    check_rule(fn, draw(np.random.default_rng(seed), shape), seed=seed)


# -- binary ---------------------------------------------------------------------


@pytest.mark.parametrize("pair", PAIRS, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, pair):
    fn, x1, x2 = draw_pair(name, pair)
    g1, g2 = check_rule(fn, x1, x2)
    for g, x in ((g1, x1), (g2, x2)):
        if isinstance(x, float):
            assert type(g) is float, (type(g), x)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float32(name):
    fn, x1, x2 = draw_pair(name, ((3, 1), (4,)), seed=1, dtype=np.float32)
    g1, g2 = check_rule(fn, x1, x2, **F32)
    assert g1.dtype == g2.dtype == np.float32


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_of_mixed_precision(name):
    # the float64 output's cotangent is cast back to each operand's dtype
    fn, x1, x2 = draw_pair(name, ((3, 4), (4,)), seed=2)
    g1, g2 = check_rule(fn, x1.astype(np.float32), x2, **F32)
    assert g1.dtype == np.float32 and g2.dtype == np.float64


@HYPOTHESIS
@given(name=st.sampled_from(sorted(BINARY)),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_binary_on_any_broadcast(name, shapes, seed):
    fn, x1, x2 = draw_pair(name, shapes.input_shapes, seed=seed)
    check_rule(fn, x1, x2, seed=seed)


def test_power_with_an_integer_exponent():
    x = np.random.default_rng(0).uniform(-2, 2, (3, 4))
    for b in (0, 1, 2, 3, -1):
        g = check_rule(np.power, x, b)
        assert g[1] is None
    check_rule(np.power, x, np.array([1, 2, 3, 4]))


def test_power_with_float_exponents_of_fast_paths():
    x = np.random.default_rng(0).uniform(0.3, 2, (3, 4))
    for b in (0.5, 1.0, 2.0, -1.0, 0.0):
        check_rule(np.power, x, b)
    check_rule(np.power, np.float32(1.5), np.float32(2.5), **F32)


# -- selection --------------------------------------------------------------------


@pytest.mark.parametrize(
    "bounds",
    [(-0.5, 0.5), (None, 0.5), (-0.5, None), ("array", "array"), ("array", 1.0), (-1.0, "row")],
    ids=str,
)
def test_clip(bounds):
    rng = np.random.default_rng(0)

    def bound(spec, lo, hi):
        """None or a number as given, or an array ("array": (3, 4), "row":
        (4,)) of values in [lo, hi]."""
        return rng.uniform(lo, hi, {"array": (3, 4), "row": (4,)}[spec]) if isinstance(spec, str) else spec

    a = rng.uniform(-2, 2, (3, 4))
    lo, hi = bound(bounds[0], -1.5, 0.0), bound(bounds[1], 0.0, 1.5)
    g = check_rule(np.clip, a, lo, hi)
    for b, gb in zip((lo, hi), g[1:]):
        assert (gb is None) == (b is None)
        if isinstance(b, float):
            assert type(gb) is float


def test_clip_by_keyword_and_in_float32():
    a = np.random.default_rng(1).uniform(-2, 2, (3, 4)).astype(np.float32)
    g = check_rule(np.clip, a, kwargs=dict(a_min=np.float32(-0.5), a_max=np.float32(0.5)), **F32)
    assert g[0].dtype == np.float32


def test_ndarray_clip():
    a = np.random.default_rng(2).uniform(-2, 2, (3, 4))
    check_rule(np.ndarray.clip, a, -0.5, 0.5)
    check_rule(np.ndarray.clip, a, kwargs=dict(max=0.5))
    g = check_rule(np.ndarray.clip, a, kwargs=dict(min=np.full(4, -0.5)))
    assert g[2] is None


@pytest.mark.parametrize("pair", [((3, 4), (3, 4)), ((3, 1), (4,)), (None, (3, 4)), ((), None)], ids=str)
def test_where(pair):
    rng = np.random.default_rng(0)
    s1, s2 = pair
    x = operand(rng.standard_normal(s1 or ()), s1)
    y = operand(rng.standard_normal(s2 or ()), s2)
    condition = rng.random(np.broadcast_shapes(np.shape(x), np.shape(y))) > 0.5
    g = check_rule(np.where, condition, x, y)
    assert g[0] is None


def test_full_like():
    a = np.zeros((3, 4))
    g = check_rule(np.full_like, a, 1.5)
    assert g[0] is None and type(g[1]) is float
    check_rule(np.full_like, a, np.arange(4.0))
    check_rule(np.full_like, a, np.float32(2.0), kwargs=dict(dtype=np.float32), **F32)


# -- float_power, copysign, ldexp ----------------------------------------------------


def test_float_power_with_integer_exponents_and_at_zero():
    x = np.random.default_rng(0).uniform(-2, 2, (3, 4))
    for b in (0, 1, 2, 3, -1):
        assert check_rule(np.float_power, x, b)[1] is None
    check_rule(np.float_power, x, np.array([1, 2, 3, 4]))
    with np.errstate(divide="ignore", invalid="ignore"):
        g1, g2 = grads(np.float_power, np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 0.5, 2.0, 0.0]))
    assert g1.tolist() == [0.0, math.inf, 0.0, 0.0]
    assert np.isnan(g2[0]) and g2[1:].tolist() == [0.0, 0.0, math.log(2.0)]
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = pushed(np.float_power, np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 0.5, 2.0, 0.0]))
    np.testing.assert_array_equal(t1, g1)
    np.testing.assert_array_equal(t2, g2)


def sign_pairs(rng, shape1, shape2):
    return away_from_zero(rng, shape1), away_from_zero(rng, shape2)


@pytest.mark.parametrize("pair", PAIRS, ids=str)
def test_copysign(pair):
    rng = np.random.default_rng(0)
    s1, s2 = pair
    x1, x2 = sign_pairs(rng, s1 or (), s2 or ())
    g1, g2 = check_rule(np.copysign, operand(x1, s1), operand(x2, s2))
    assert g2 is None
    if s1 is None:
        assert type(g1) is float


def test_copysign_conventions_and_float32():
    g1, g2 = grads(np.copysign, np.array([-2.0, 0.0, 3.0, -0.0, 1.0]), np.array([1.0, -1.0, -1.0, 2.0, -0.0]))
    assert g1.tolist() == [-1.0, 0.0, -1.0, 0.0, -1.0] and g2 is None  # -0.0 is negative
    t1, t2 = pushed(np.copysign, np.array([-2.0, 0.0, 3.0, -0.0, 1.0]), np.array([1.0, -1.0, -1.0, 2.0, -0.0]))
    assert t1.tolist() == g1.tolist() and not np.any(t2)  # (a zero tangent read at run time is concrete)
    x1 = away_from_zero(np.random.default_rng(1), (3, 4)).astype(np.float32)
    (g1, _) = check_rule(np.copysign, x1, np.float32(-1.5), **F32)
    assert g1.dtype == np.float32


@pytest.mark.parametrize("pair", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((4,), (3, 4)), ((3, 4), ()), (None, (3, 4)),
                                  ((3, 4), None), ((), ())], ids=str)
def test_ldexp(pair):
    rng = np.random.default_rng(0)
    s1, s2 = pair
    x1 = operand(anywhere(rng, s1 or ()), s1)
    x2 = 2 if s2 is None else rng.integers(-3, 4, s2)
    g1, g2 = check_rule(np.ldexp, x1, x2)
    assert g2 is None
    if s1 is None:
        assert type(g1) is float
    g1, _ = check_rule(np.ldexp, np.asarray(x1, np.float32), x2, **F32)
    assert np.asarray(g1).dtype == np.float32


# -- two outputs: frexp, modf, divmod --------------------------------------------------


def pair_of_cotangents(y, seed=0, keep=(True, True)):
    """A random cotangent of a pair of outputs; ``keep`` says which items
    are given (the others are None)."""
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(np.shape(v)).astype(np.result_type(v, np.float32)) if k else None
                 for v, k in zip(y, keep))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_frexp(shape):
    x = away_from_zero(np.random.default_rng(0), shape) * 5
    (g,) = check_rule(np.frexp, x, dy=pair_of_cotangents(np.frexp(x), keep=(True, False)))
    assert check_rule(np.frexp, x, dy=pair_of_cotangents(np.frexp(x), keep=(False, True))) == (None,)
    x32 = x.astype(np.float32)
    (g,) = check_rule(np.frexp, x32, dy=pair_of_cotangents(np.frexp(x32), keep=(True, False)), **F32)
    assert np.asarray(g).dtype == np.float32
    check_rule(np.frexp, 3.7, dy=(0.5, None))


def test_frexp_at_zero_and_powers_of_two():
    (g,) = rules.lookup(np.frexp)(np.array([0.0, 1.0, 2.0, -4.0, 3.0]))[1]((np.ones(5), None))
    assert g.tolist() == [1.0, 0.5, 0.25, 0.125, 0.25]
    assert pushed(np.frexp, np.array([0.0, 1.0, 2.0, -4.0, 3.0]))[0][0].tolist() == g.tolist()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_modf(shape):
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.9, shape)  # away from the jumps at integers
    y = np.modf(x)
    (g,) = check_rule(np.modf, x, dy=pair_of_cotangents(y))
    assert check_rule(np.modf, x, dy=pair_of_cotangents(y, keep=(False, True))) == (None,)
    x32 = x.astype(np.float32)
    (g,) = check_rule(np.modf, x32, dy=pair_of_cotangents(np.modf(x32)), **F32)
    assert np.asarray(g).dtype == np.float32


@pytest.mark.parametrize("pair", PAIRS, ids=str)
def test_divmod(pair):
    _, x1, x2 = draw_pair("remainder", pair)
    y = np.divmod(x1, x2)
    g1, g2 = check_rule(np.divmod, x1, x2, dy=pair_of_cotangents(y))
    for g, x in ((g1, x1), (g2, x2)):
        if isinstance(x, float):
            assert type(g) is float, (type(g), x)
    assert check_rule(np.divmod, x1, x2, dy=pair_of_cotangents(y, keep=(True, False))) == (None, None)


def test_divmod_float32_and_slope_in_the_divisor():
    _, x1, x2 = draw_pair("remainder", ((3, 1), (4,)), seed=1, dtype=np.float32)
    g1, g2 = check_rule(np.divmod, x1, x2, dy=pair_of_cotangents(np.divmod(x1, x2)), **F32)
    assert g1.dtype == g2.dtype == np.float32
    _, back = rules.lookup(np.divmod)(np.array([7.5, -7.5]), np.array([2.0, 2.0]))
    assert back((None, np.ones(2)))[1].tolist() == [-3.0, 4.0]  # -floor(x1 / x2)
    q, r = pushed(np.divmod, np.array([7.5, -7.5]), np.array([2.0, 2.0]))[1]
    assert q is None and r.tolist() == [-3.0, 4.0]


# -- angle, nan_to_num --------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_angle_of_real_input_is_flat(shape):
    x = away_from_zero(np.random.default_rng(0), shape)
    for deg in (False, True):
        g = check_rule(np.angle, x, deg)
        assert np.all(g[0] == 0) and g[1] is None
    (g, _) = check_rule(np.angle, away_from_zero(np.random.default_rng(1), (3, 4)).astype(np.float32), **F32)
    assert g.dtype == np.float32


def test_angle_of_complex_input():
    z = np.array([1 + 1j, -2 + 0.5j, 0j, -1 - 3j])
    _, back = rules.lookup(np.angle)(z)
    dy = np.array([1.0, 2.0, 3.0, -1.0])
    expected = dy * 1j / np.conj(np.where(z == 0, 1, z)) * (z != 0)
    np.testing.assert_allclose(back(dy)[0], expected, rtol=1e-15)  # 0 at z == 0
    _, back = rules.lookup(np.angle)(z, True)
    np.testing.assert_allclose(back(dy)[0], expected * 180 / np.pi, rtol=1e-15)
    g = rules.lookup(np.angle)(1 + 1j)[1](1.0)[0]
    assert type(g) is complex and g == pytest.approx(0.5j / (1 - 1j) * 2)
    (g, _) = rules.lookup(np.angle)(z.astype(np.complex64))[1](dy.astype(np.float32))
    assert g.dtype == np.complex64
    for deg in (False, True):
        check_at(np.angle, z, deg)
        check_at(np.angle, z.astype(np.complex64), deg, **F32)
    check_at(np.angle, 1 + 1j)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_nan_to_num_of_finite_values(shape):
    x = anywhere(np.random.default_rng(0), shape)
    g = check_rule(np.nan_to_num, x)
    assert g[1] is None and g[2] == 0.0 and g[3] is None and g[4] is None
    (g, *_) = check_rule(np.nan_to_num, anywhere(np.random.default_rng(1), (3, 4)).astype(np.float32), **F32)
    assert g.dtype == np.float32


def test_nan_to_num_of_nan_and_inf():
    x = np.array([[1.5, np.nan, np.inf], [-np.inf, -0.5, np.nan]])
    with np.errstate(invalid="ignore"):  # the oracle's steps at infinity
        dx, _, dnan, dpos, dneg = check_rule(np.nan_to_num, x, True, 2.0, 3.0, -4.0)
        check_rule(np.nan_to_num, x, kwargs=dict(nan=np.full(3, 2.0), posinf=np.float64(9.0), neginf=-4.0))
        z = x.astype(complex)
        z.imag = [[np.nan, 0.5, 1.0], [np.inf, np.nan, -2.0]]  # (x + 1j * y would spread NaN to both parts)
        g = check_rule(np.nan_to_num, z, True, 2.0, 3.0, -4.0, dy=np.full((2, 3), 0.5 - 1.5j))
    assert (dx == 0).tolist() == [[False, True, True], [True, False, True]]
    assert type(dnan) is float and type(dpos) is float and type(dneg) is float
    assert g[0].dtype == np.complex128 and (np.real(g[0]) == 0).tolist() == [[False, True, True], [True, False, True]]
    assert (np.imag(g[0]) == 0).tolist() == [[True, False, False], [True, True, False]]


# -- complex --------------------------------------------------------------------

HOLOMORPHIC = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "square", "reciprocal", "sin", "cos",
               "tan", "sinh", "cosh", "tanh", "arctan", "arcsinh", "arctanh", "arcsin", "negative", "sinc"]


def complex_slopes(fn, z, dy):
    """The gradient dL/dx + i dL/dy of L = Re <dy, fn(z)> by central
    differences along the real and the imaginary part of each element."""
    h = 1e-6
    g = np.zeros(z.shape, complex)
    for idx in np.ndindex(z.shape):
        for unit in (1, 1j):
            zp, zm = z.copy(), z.copy()
            zp[idx] += unit * h
            zm[idx] -= unit * h
            up = np.real(np.sum(np.conj(dy) * fn(zp)))
            down = np.real(np.sum(np.conj(dy) * fn(zm)))
            g[idx] += unit * (up - down) / (2 * h)
    return g


@pytest.mark.parametrize("name", HOLOMORPHIC)
def test_holomorphic_of_complex(name):
    rng = np.random.default_rng(0)
    z = rng.uniform(0.2, 0.7, (2, 3)) + 1j * rng.uniform(-0.5, 0.5, (2, 3))
    fn = UNARY[name][0]
    y, back = rules.lookup(fn)(z)
    dy = rng.standard_normal(y.shape) + 1j * rng.standard_normal(y.shape)
    (g,) = back(dy)
    np.testing.assert_allclose(g, complex_slopes(fn, z, dy), rtol=1e-6, atol=1e-8)
    check_pushforward(fn, (z,), {}, y, [(0, g)], dy)


# function, its arguments for a complex z, the position of z among them
NON_HOLOMORPHIC_OR_BINARY = {
    "absolute": (np.absolute, lambda z: (z,), 0),
    "real": (np.real, lambda z: (z,), 0),
    "imag": (np.imag, lambda z: (z,), 0),
    "conjugate": (np.conjugate, lambda z: (z,), 0),
    "ndarray.conj": (np.ndarray.conj, lambda z: (z,), 0),
    "ndarray.conjugate": (np.ndarray.conjugate, lambda z: (z,), 0),
    "multiply": (np.multiply, lambda z: (z, 2 - 1j), 0),
    "multiply by a complex array": (np.multiply, lambda z: (np.array([0.5 + 1j, -2j, 1.5]), z), 1),
    "divide": (np.divide, lambda z: (1 + 2j, z), 1),
    "power": (np.power, lambda z: (z, 2.5 - 0.5j), 0),
    "power, the exponent": (np.power, lambda z: (1.5 + 0.5j, z), 1),
    "add": (np.add, lambda z: (z, 1j), 0),
    "subtract": (np.subtract, lambda z: (1j, z), 1),
    "float_power": (np.float_power, lambda z: (z, 2.5 - 0.5j), 0),
    "angle": (np.angle, lambda z: (z,), 0),
    "angle in degrees": (np.angle, lambda z: (z, True), 0),
    "nan_to_num": (np.nan_to_num, lambda z: (z,), 0),
}


@pytest.mark.parametrize("name", sorted(NON_HOLOMORPHIC_OR_BINARY))
def test_complex_parts_and_arithmetic(name):
    fn, args_of, position = NON_HOLOMORPHIC_OR_BINARY[name]
    rng = np.random.default_rng(1)
    z = rng.uniform(0.2, 0.7, (2, 3)) + 1j * rng.uniform(-0.5, 0.5, (2, 3))
    y, back = rules.lookup(fn)(*args_of(z))
    dy = rng.standard_normal(y.shape)
    if np.iscomplexobj(y):
        dy = dy + 1j * rng.standard_normal(y.shape)
    grads = back(dy)
    g = grads[position]
    assert g.dtype == z.dtype
    np.testing.assert_allclose(g, complex_slopes(lambda v: fn(*args_of(v)), z, dy), rtol=1e-6, atol=1e-8)
    check_pushforward(fn, args_of(z), {}, y, list(enumerate(grads))[:len(args_of(z))], dy)


def test_real_and_imag_of_real_arrays():
    x = np.random.default_rng(0).standard_normal((2, 3))
    dy = np.ones((2, 3))
    assert np.array_equal(rules.lookup(np.real)(x)[1](dy)[0], dy)
    assert np.array_equal(rules.lookup(np.imag)(x)[1](dy)[0], np.zeros((2, 3)))
    assert np.array_equal(pushed(np.real, x)[0], dy)
    assert np.array_equal(pushed(np.imag, x)[0], np.zeros((2, 3)))


# -- conventions at kinks -----------------------------------------------------------


def grads(fn, *args):
    y, back = rules.lookup(fn)(*args)
    return back(np.ones(np.shape(y)))


def pushed(fn, *args):
    """For each argument, the pushforward rule's tangent of ``fn(*args)``
    for a tangent of ones of that argument alone (``None`` for one that
    takes no tangent): for an elementwise ``fn`` and arguments of the
    output's shape, the slopes that :func:`grads` gives."""
    y = fn(*args)
    rule = registry.lookup_pushforward(fn)
    out = []
    for i, x in enumerate(args):
        if isinstance(x, float) or np.asarray(x).dtype.kind in "fc":
            ones = tuple(np.ones_like(v) if j == i else None for j, v in enumerate(args))
            out.append(pushrules.call(rule, y, args, {}, ones, {}))
        else:
            out.append(None)
    return tuple(out)


def check_at(fn, *args, seed=0, **tolerances):
    """The pushforward rule of ``fn`` against its adjoint rule at ``args``
    (a kink, a tie...), for a random cotangent."""
    rule = rules.lookup(fn)
    y, back = rule(*args)
    dy = np.random.default_rng(seed).standard_normal(np.shape(y)).astype(np.result_type(y))
    g = back(dy)
    check_pushforward(fn, args, {}, y, [(where, g[pos]) for pos, _, where in bind(rule, args, {})], dy, seed,
                      **tolerances)


def test_absolute_at_zero_is_zero():
    for fn in (np.absolute, np.fabs):
        assert grads(fn, np.array([-2.0, 0.0, 3.0]))[0].tolist() == [-1.0, 0.0, 1.0]
        assert pushed(fn, np.array([-2.0, 0.0, 3.0]))[0].tolist() == [-1.0, 0.0, 1.0]
    assert pushed(np.absolute, np.array([0j, 3 + 4j]))[0].tolist() == [0.0, 0.6]
    check_at(np.absolute, np.array([0j, 3 + 4j, -1j]))


def test_absolute_of_complex_arrays_to_second_order():
    """``sign(z) = z / |z|`` depends on ``z``: the gradient of ``|z|^3``,
    ``3 |z| z``, is differentiated again (``np.sign`` itself has no
    derivative). ``sum Re(3 |z| z) = 3 sum |z| x`` has gradient
    ``3 (x z / |z| + |z|)``."""
    z = np.array([1 + 2j, -0.5 + 1j, 2 - 1j])

    def cube(z):
        return np.sum(np.abs(z) ** 3)

    (g,) = zpy.gradient(lambda z: np.sum(np.real(zpy.gradient(cube, z)[0])), z)
    np.testing.assert_allclose(g, 3 * (z.real * z / np.abs(z) + np.abs(z)))


def test_sqrt_cbrt_arcsin_at_their_edges_are_infinite():
    with np.errstate(divide="ignore"):
        assert grads(np.sqrt, np.array([0.0]))[0].tolist() == [math.inf]
        assert grads(np.cbrt, np.array([0.0]))[0].tolist() == [math.inf]
        assert grads(np.arcsin, np.array([1.0, -1.0]))[0].tolist() == [math.inf, math.inf]
        assert grads(np.arccos, np.array([1.0]))[0].tolist() == [-math.inf]
        assert grads(np.arccosh, np.array([1.0]))[0].tolist() == [math.inf]
        assert pushed(np.sqrt, np.array([0.0]))[0].tolist() == [math.inf]
        assert pushed(np.cbrt, np.array([0.0]))[0].tolist() == [math.inf]
        assert pushed(np.arcsin, np.array([1.0, -1.0]))[0].tolist() == [math.inf, math.inf]
        assert pushed(np.arccos, np.array([1.0]))[0].tolist() == [-math.inf]
        assert pushed(np.arccosh, np.array([1.0]))[0].tolist() == [math.inf]


def test_sinc_is_flat_at_zero():
    g = grads(np.sinc, np.array([0.0, 0.5]))[0]
    assert g[0] == 0.0 and g[1] == pytest.approx((np.cos(np.pi / 2) - np.sinc(0.5)) / 0.5)
    assert grads(np.sinc, 0.0)[0] == 0.0
    assert pushed(np.sinc, np.array([0.0, 0.5]))[0].tolist() == g.tolist()
    assert pushed(np.sinc, 0.0)[0] == 0.0


def test_hypot_and_arctan2_at_the_origin_are_zero():
    for fn in (np.hypot, np.arctan2):
        g1, g2 = grads(fn, np.array([0.0, 3.0]), np.array([0.0, 4.0]))
        assert g1[0] == 0.0 and g2[0] == 0.0 and np.all(np.isfinite(g1))
        t1, t2 = pushed(fn, np.array([0.0, 3.0]), np.array([0.0, 4.0]))
        assert t1[0] == 0.0 and t2[0] == 0.0 and np.all(np.isfinite(t1))
        check_at(fn, np.array([0.0, 3.0]), np.array([0.0, 4.0]))


@pytest.mark.parametrize("fn", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_extrema_split_ties_evenly(fn):
    x1 = np.array([1.0, 2.0, 3.0, 2.0])
    g1, g2 = grads(fn, x1, np.array([2.0]))
    wins = (x1 > 2.0) if fn in (np.maximum, np.fmax) else (x1 < 2.0)
    expected = np.where(x1 == 2.0, 0.5, wins * 1.0)
    assert g1.tolist() == expected.tolist()
    assert g2 == pytest.approx(np.sum(1 - expected))
    t1, t2 = pushed(fn, x1, np.array([2.0]))
    assert t1.tolist() == expected.tolist() and t2.tolist() == (1 - expected).tolist()
    check_at(fn, x1, np.array([2.0]))
    check_at(fn, x1, 2.0)


def test_relu_tie_with_a_python_zero():
    g1, g2 = grads(np.maximum, np.array([-1.0, 0.0, 2.0]), 0.0)
    assert g1.tolist() == [0.0, 0.5, 1.0] and g2 == 1.5 and type(g2) is float
    t1, t2 = pushed(np.maximum, np.array([-1.0, 0.0, 2.0]), 0.0)
    assert t1.tolist() == [0.0, 0.5, 1.0] and t2.tolist() == [1.0, 0.5, 0.0]


def test_nan_operands_of_extrema():
    x1, x2 = np.array([np.nan, 1.0]), np.array([1.0, np.nan])
    g1, g2 = grads(np.fmax, x1, x2)  # fmax ignores NaN: the other operand is the output
    assert g1.tolist() == [0.0, 1.0] and g2.tolist() == [1.0, 0.0]
    g1, g2 = grads(np.maximum, x1, x2)  # the output is NaN, equal to neither: x2 gets dy
    assert g1.tolist() == [0.0, 0.0] and g2.tolist() == [1.0, 1.0]
    for fn in (np.maximum, np.minimum, np.fmax, np.fmin):
        assert [t.tolist() for t in pushed(fn, x1, x2)] == [g.tolist() for g in grads(fn, x1, x2)]
        check_at(fn, np.array([np.nan, 1.0, np.nan]), np.array([1.0, np.nan, np.nan]))


def test_clip_at_its_bounds():
    a = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    da, dlo, dhi = grads(np.clip, a, -1.0, 1.0)
    assert da.tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert dlo == 1.5 and dhi == 1.5
    da, dlo, dhi = grads(np.clip, a, np.zeros(5), np.zeros(5))  # a_min == a_max: shared
    assert da.tolist() == [0.0, 0.0, 1 / 3, 0.0, 0.0]
    assert dlo.tolist() == dhi.tolist() == [0.5, 0.5, 1 / 3, 0.5, 0.5]
    da, dlo, dhi = grads(np.clip, np.array([np.nan, 0.5]), 0.0, 1.0)
    assert da.tolist() == [0.0, 1.0] and dlo == 0.0 and dhi == 0.0
    ta, tlo, thi = pushed(np.clip, a, -1.0, 1.0)
    assert ta.tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert tlo.tolist() == [1.0, 0.5, 0.0, 0.0, 0.0] and thi.tolist() == [0.0, 0.0, 0.0, 0.5, 1.0]
    ta, tlo, thi = pushed(np.clip, a, np.zeros(5), np.zeros(5))
    assert ta.tolist() == [0.0, 0.0, 1 / 3, 0.0, 0.0] and tlo.tolist() == thi.tolist() == [0.5, 0.5, 1 / 3, 0.5, 0.5]
    for fn in (np.clip, np.ndarray.clip):
        check_at(fn, a, -1.0, 1.0)
        check_at(fn, a, np.zeros(5), np.zeros(5))
        check_at(fn, np.array([np.nan, 0.5, -1.0]), -1.0, np.array([1.0, 0.5, 1.0]))
        check_at(fn, a, None, 1.0)
        check_at(fn, a, -1.0, None)


def test_power_conventions_at_zero():
    with np.errstate(divide="ignore", invalid="ignore"):
        g1, g2 = grads(np.power, np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 0.5, 2.0, 0.0]))
        assert g1.tolist() == [0.0, math.inf, 0.0, 0.0]
        assert np.isnan(g2[0]) and g2[1:].tolist() == [0.0, 0.0, math.log(2.0)]
        g1, g2 = grads(np.power, np.array([0.0, 1.0]), 0.0)
        assert g1.tolist() == [0.0, 0.0] and type(g2) is float
        g1, g2 = grads(np.power, 0.0, 0.0)
        assert g1 == 0.0
    g1, g2 = grads(np.power, np.array([-2.0, 2.0]), 2.0)  # no warning for the undefined log
    assert g1.tolist() == [-4.0, 4.0] and math.isnan(g2)
    g1, g2 = grads(np.power, np.array([-2.0]), np.array([3.0]))
    assert g1.tolist() == [12.0] and np.isnan(g2[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for fn in (np.power, np.float_power):
            for args in ((np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 0.5, 2.0, 0.0])),
                         (np.array([0.0, 1.0]), 0.0), (0.0, 0.0), (np.array([-2.0, 2.0]), 2.0),
                         (np.array([-2.0]), np.array([3.0]))):
                for t, g in zip(pushed(fn, *args), grads(fn, *args)):
                    if np.shape(t) == np.shape(g):  # (a broadcast float's gradient is a sum)
                        np.testing.assert_array_equal(t, g)


def test_remainder_and_fmod_slopes_in_the_divisor():
    x1, x2 = np.array([7.5, -7.5]), np.array([2.0, 2.0])
    assert grads(np.remainder, x1, x2)[1].tolist() == [-3.0, 4.0]  # -floor(x1 / x2)
    assert grads(np.fmod, x1, x2)[1].tolist() == [-3.0, 3.0]  # -trunc(x1 / x2)
    assert pushed(np.remainder, x1, x2)[1].tolist() == [-3.0, 4.0]
    assert pushed(np.fmod, x1, x2)[1].tolist() == [-3.0, 3.0]


# -- registration ---------------------------------------------------------------

NONDIFFERENTIABLE = [
    np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix, np.floor_divide, np.sign, np.signbit,
    np.heaviside, np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor, np.isfinite, np.isinf, np.isnan,
    np.isclose, np.allclose, np.array_equal, np.zeros_like, np.ones_like, np.empty_like, np.iscomplexobj,
    np.isrealobj, np.shape, np.ndim, np.size,
]


@pytest.mark.parametrize("fn", NONDIFFERENTIABLE, ids=lambda fn: fn.__name__)
def test_nondifferentiable(fn):
    assert rules.is_nondifferentiable(fn)
    assert rules.lookup(fn) is None


@pytest.mark.parametrize(
    "fn",
    [np.true_divide, np.abs, np.conj, np.mod, np.clip, np.where, np.ndarray.clip, np.ndarray.conj, np.copysign,
     np.ldexp, np.frexp, np.modf, np.divmod, np.angle, np.nan_to_num]
    + [fn for fn, _ in UNARY.values()] + [fn for fn, _ in BINARY.values()],
    ids=lambda fn: getattr(fn, "__qualname__", fn.__name__),
)
def test_rule_is_registered_and_inlinable(fn):
    rule = rules.lookup(fn)
    assert rule is not None
    assert rule_ir(rule, fn) is not None


@pytest.mark.parametrize("fn, args", [
    (np.sin, (np.linspace(-1, 1, 6),)),
    (np.negative, (np.linspace(-1, 1, 6),)),
    (np.deg2rad, (np.linspace(-1, 1, 6),)),
    (np.maximum, (np.linspace(-1, 1, 6), 0.0)),
    (np.multiply, (np.linspace(-1, 1, 6), np.linspace(2, 3, 6))),
    (np.where, (np.arange(6) % 2 == 0, np.linspace(-1, 1, 6), 2.0)),
    (np.clip, (np.linspace(-1, 1, 6), -0.5, 0.5)),
    (np.imag, (np.linspace(-1, 1, 6) * 1j,)),
    (np.float_power, (np.linspace(0.5, 1, 6), 2.5)),
    (np.copysign, (np.linspace(-1, 1, 6), -1.0)),
    (np.ldexp, (np.linspace(-1, 1, 6), 3)),
    (np.nan_to_num, (np.linspace(-1, 1, 6),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_sparse_cotangents(fn, args):
    # the cotangent of y[2] alone, as the compiled gradient passes it
    y, back = rules.lookup(fn)(*args)
    sparse = runtime.scatter(y, 2, 1.5)
    dense = np.zeros(y.shape, y.dtype)
    dense[2] = 1.5
    for g, expected in zip(back(sparse), back(dense)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(expected))


# -- pushforward rules ------------------------------------------------------------

@pytest.mark.parametrize("fn", rules_of(numpy_elementwise), ids=registry.display_name)
def test_pushforward_is_inlinable(fn):
    # straight-line, so it is inlined into the emitted code
    assert pushrules.push_ir(registry.lookup_pushforward(fn)) is not None


def test_pushforward_drops_zero_tangents():
    x = np.linspace(-1, 1, 6)
    rule = registry.lookup_pushforward(np.multiply)
    assert pushrules.call(rule, x * 2.0, (x, 2.0), {}, (np.ones(6), None), {}).tolist() == [2.0] * 6
    zero = pushrules.call(rule, x * 2.0, (x, 2.0), {}, (None, None), {})  # concrete, of y's kind
    assert zero.shape == x.shape and not np.any(zero)
    # the tangent of a broadcast operand alone has the output's shape and dtype
    t = pushrules.call(rule, x.astype(np.float32) * np.ones((2, 1)), (x.astype(np.float32), np.ones((2, 1))), {},
                       (None, np.ones((2, 1))), {})
    assert t.shape == (2, 6) and t.dtype == np.float64
    t = pushrules.call(registry.lookup_pushforward(np.where), x, (x > 0, x, np.float32(1.0)), {},
                       (None, None, np.float32(1.0)), {})
    assert t.shape == (6,) and t.dtype == x.dtype and t.tolist() == (x <= 0).tolist()
