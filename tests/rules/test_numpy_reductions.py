"""The rules of NumPy's reductions and scans, checked against central finite
differences (:mod:`.npcheck`), and their conventions at ties and zeros."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import zygote_py.rules as rules
from zygote_py import runtime
from zygote_py.ad.inline import rule_ir

from .npcheck import check_rule

pytestmark = pytest.mark.filterwarnings("error")

F32 = dict(rtol=1e-2, atol=1e-3)
HYPOTHESIS = settings(derandomize=True, max_examples=25, deadline=None)


def distinct(shape, seed=0):
    """Values in [-2.5, 2.5], at least 0.05 apart (no ties for max and
    min, even after a finite-difference step)."""
    n = math.prod(shape)
    rng = np.random.default_rng(seed)
    return (rng.permutation(n) * 0.05 - 2.5 + rng.uniform(0, 0.01, n)).reshape(shape)


def factors(shape, seed=0):
    """Values of magnitude in [0.5, 1.5], either sign: products stay
    moderate and away from 0."""
    rng = np.random.default_rng(seed)
    return np.asarray(rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape))


# function, the values its argument is drawn from
REDUCTIONS = {
    "sum": (np.sum, distinct),
    "mean": (np.mean, distinct),
    "prod": (np.prod, factors),
    "max": (np.max, distinct),
    "amax": (np.amax, distinct),
    "min": (np.min, distinct),
    "amin": (np.amin, distinct),
    "var": (np.var, distinct),
    "std": (np.std, distinct),
    "nansum": (np.nansum, distinct),
    "nanmean": (np.nanmean, distinct),
    "ndarray.sum": (np.ndarray.sum, distinct),
    "ndarray.mean": (np.ndarray.mean, distinct),
    "ndarray.prod": (np.ndarray.prod, factors),
    "ndarray.max": (np.ndarray.max, distinct),
    "ndarray.min": (np.ndarray.min, distinct),
    "ndarray.var": (np.ndarray.var, distinct),
    "ndarray.std": (np.ndarray.std, distinct),
}

# shape, axis
AXES = [
    ((), None),
    ((5,), None),
    ((5,), 0),
    ((5,), -1),
    ((3, 4), None),
    ((3, 4), 0),
    ((3, 4), 1),
    ((3, 4), (0, 1)),
    ((2, 3, 4), None),
    ((2, 3, 4), -1),
    ((2, 3, 4), (0, 2)),
    ((2, 3, 4), (2, 1)),
]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, axis", AXES, ids=str)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction(name, shape, axis, keepdims):
    fn, draw = REDUCTIONS[name]
    g = check_rule(fn, draw(shape), kwargs=dict(axis=axis, keepdims=keepdims))
    assert all(x is None for x in g[1:])


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_by_position(name):
    fn, draw = REDUCTIONS[name]
    check_rule(fn, draw((3, 4)), 1)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_float32(name):
    fn, draw = REDUCTIONS[name]
    x = draw((3, 4), seed=1).astype(np.float32)
    for axis in (None, 1):
        (g, *_) = check_rule(fn, x, kwargs=dict(axis=axis), **F32)
        assert g.dtype == np.float32


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "var", "std", "nansum", "nanmean"])
def test_reduction_to_a_wider_dtype_keeps_the_input_dtype(name):
    fn, draw = REDUCTIONS[name]
    x = draw((3, 4), seed=2).astype(np.float32)
    (g, *_) = check_rule(fn, x, kwargs=dict(axis=0, dtype=np.float64), **F32)
    assert g.dtype == np.float32


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "nansum"])
def test_reduction_of_a_list(name):
    fn, draw = REDUCTIONS[name]
    (g, *_) = check_rule(fn, list(draw((4,), seed=3)))
    assert g.shape == (4,)


@pytest.mark.parametrize("ddof", [0, 1, 2])
@pytest.mark.parametrize("name", ["var", "std", "ndarray.var", "ndarray.std"])
def test_var_and_std_with_ddof(name, ddof):
    fn, draw = REDUCTIONS[name]
    x = draw((3, 4), seed=4)
    check_rule(fn, x, kwargs=dict(ddof=ddof))
    check_rule(fn, x, kwargs=dict(axis=0, ddof=ddof, keepdims=True))
    check_rule(fn, x, None, None, None, ddof)


@HYPOTHESIS
@given(
    name=st.sampled_from(sorted(REDUCTIONS)),
    shape_and_axis=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4).flatmap(
        lambda shape: st.tuples(st.just(shape), st.none() | hnp.valid_tuple_axes(len(shape), min_size=1))
    ),
    keepdims=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_reduction_on_any_shape(name, shape_and_axis, keepdims, seed):
    fn, draw = REDUCTIONS[name]
    shape, axis = shape_and_axis
    check_rule(fn, draw(shape, seed=seed), kwargs=dict(axis=axis, keepdims=keepdims), seed=seed)


# -- ties, zeros, NaN -------------------------------------------------------------


def grads(fn, *args, **kwargs):
    y, back = rules.lookup(fn)(*args, **kwargs)
    return back(np.ones(np.shape(y)) if np.ndim(y) else 1.0)


@pytest.mark.parametrize("fn", [np.max, np.min, np.ndarray.max, np.ndarray.min])
def test_max_and_min_split_ties_evenly(fn):
    top = 3.0 if fn in (np.max, np.ndarray.max) else -3.0
    x = np.array([[top, 1.0, top, 0.5], [0.0, top, 2.0 * np.sign(top), -2.0 * np.sign(top)]])
    assert grads(fn, x)[0].tolist() == [[1 / 3, 0, 1 / 3, 0], [0, 1 / 3, 0, 0]]
    assert grads(fn, x, axis=1)[0].tolist() == [[0.5, 0, 0.5, 0], [0, 1, 0, 0]]
    assert grads(fn, x, axis=0, keepdims=True)[0].tolist() == [[1, 0, 1, 1], [0, 1, 0, 0]]
    g = grads(fn, np.full((2, 3), 1.5, np.float32), axis=0)[0]
    assert g.dtype == np.float32 and g.tolist() == [[0.5] * 3] * 2


def test_max_of_a_slice_with_nan_gives_it_no_gradient():
    x = np.array([[np.nan, 1.0], [2.0, 3.0], [4.0, 4.0]])
    assert grads(np.max, x, axis=1)[0].tolist() == [[0, 0], [0, 1], [0.5, 0.5]]
    assert np.all(grads(np.max, x)[0] == 0)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("zeros", [[(1, 2)], [(1, 2), (2, 2)], [(1, 2), (1, 0)], [(0, 0), (1, 1), (2, 3)]], ids=str)
def test_prod_with_zeros(zeros, axis):
    x = factors((3, 4), seed=5)
    for idx in zeros:
        x[idx] = 0.0
    for keepdims in (False, True):
        check_rule(np.prod, x, kwargs=dict(axis=axis, keepdims=keepdims))
    check_rule(np.prod, x.astype(np.float32), kwargs=dict(axis=axis), **F32)


def test_prod_that_underflows():
    x = np.full(4, 1e-100)
    g = grads(np.prod, x)[0]
    np.testing.assert_allclose(g, np.full(4, 1e-300), rtol=1e-12)


def test_prod_of_complex():
    rng = np.random.default_rng(6)
    z = rng.uniform(0.5, 1.5, (3, 4)) + 1j * rng.uniform(-0.5, 0.5, (3, 4))
    z[1, 1] = 0.0
    dy = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    y, back = rules.lookup(np.prod)(z, axis=0)
    expected = np.zeros_like(z)
    for i, j in np.ndindex(z.shape):
        others = np.prod(np.delete(z[:, j], i))
        expected[i, j] = dy[j] * np.conj(others)
    np.testing.assert_allclose(back(dy)[0], expected, rtol=1e-12)


@pytest.mark.parametrize("shape, axis", [((5,), None), ((5,), 0), ((3, 4), None), ((3, 4), 0), ((3, 4), -1),
                                         ((2, 3, 4), 1), ((2, 3, 4), None)], ids=str)
@pytest.mark.parametrize("fn", [np.cumsum, np.cumprod, np.ndarray.cumsum, np.ndarray.cumprod],
                         ids=lambda fn: fn.__qualname__)
def test_scans(fn, shape, axis):
    g = check_rule(fn, factors(shape), kwargs=dict(axis=axis))
    assert g[1:] == (None, None, None)
    (g32, *_) = check_rule(fn, factors(shape, seed=1).astype(np.float32), kwargs=dict(axis=axis), **F32)
    assert g32.dtype == np.float32
    check_rule(fn, factors(shape, seed=2).astype(np.float32), kwargs=dict(axis=axis, dtype=np.float64), **F32)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("zeros", [[(0, 0)], [(1, 2)], [(2, 3)], [(1, 1), (1, 2)], [(0, 1), (2, 1), (2, 2)]],
                         ids=str)
def test_cumprod_with_zeros(zeros, axis):
    x = factors((3, 4), seed=7)
    for idx in zeros:
        x[idx] = 0.0
    check_rule(np.cumprod, x, kwargs=dict(axis=axis))


def test_cumsum_and_cumprod_of_a_list():
    check_rule(np.cumsum, [1.5, -2.0, 0.5])
    check_rule(np.cumprod, [1.5, -2.0, 0.5])
    check_rule(np.cumprod, [1.5, 0.0, 0.5])


def test_std_of_a_constant_slice_is_zero():
    x = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    g = grads(np.std, x, axis=1)[0]
    assert g[0].tolist() == [0.0, 0.0, 0.0] and np.all(g[1] != 0)


def test_nansum_and_nanmean_skip_nan():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [4.0, 5.0, 6.0]])
    dy = np.array([1.0, 2.0, 3.0])
    _, back = rules.lookup(np.nansum)(x, axis=1)
    assert back(dy)[0].tolist() == [[1, 0, 1], [0, 0, 0], [3, 3, 3]]
    with pytest.warns(RuntimeWarning):  # NumPy's own, for the all-NaN row
        _, back = rules.lookup(np.nanmean)(x, axis=1)
    assert back(dy)[0].tolist() == [[0.5, 0, 0.5], [0, 0, 0], [1, 1, 1]]
    (g,) = grads(np.nansum, x)[:1]
    assert g.tolist() == np.where(np.isnan(x), 0.0, 1.0).tolist()
    g32 = grads(np.nanmean, x[[0, 2]].astype(np.float32), axis=0, keepdims=True)[0]
    assert g32.dtype == np.float32 and g32.tolist() == [[0.5, 0, 0.5], [0.5, 1, 0.5]]


# -- norms ----------------------------------------------------------------------

VECTOR_ORDS = [None, 2, 1, np.inf, -np.inf, 3, 0.5, -1.5, 0]
MATRIX_ORDS = [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]


def check_norm(x, ord, axis=None, keepdims=False, **tolerances):
    """``check_rule`` for ``np.linalg.norm``; a float ``ord`` (which the
    oracle would take for a differentiated argument) is checked with an
    integer-valued stand-in that the rule treats the same way."""
    if isinstance(ord, float):
        return check_x(np.linalg.norm, x, ord, axis, keepdims)
    return check_rule(np.linalg.norm, x, kwargs=dict(ord=ord, axis=axis, keepdims=keepdims), **tolerances)


def check_x(fn, x, *rest):
    """The rule's gradient for ``x``, the first argument, against central
    differences of ``<dy, fn(x, *rest)>`` (the other arguments are held)."""
    y, back = rules.lookup(fn)(x, *rest)
    dy = np.random.default_rng(0).standard_normal(np.shape(y))
    g = back(dy)
    assert all(r is None for r in g[1:])
    expected = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += 1e-6
        down[idx] -= 1e-6
        expected[idx] = np.sum(dy * (fn(up, *rest) - fn(down, *rest))) / 2e-6
    assert g[0].shape == x.shape and g[0].dtype == x.dtype
    np.testing.assert_allclose(g[0], expected, rtol=1e-5, atol=1e-7)
    return g


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
def test_vector_norms(ord, keepdims):
    check_norm(distinct((5,), seed=8), ord, keepdims=keepdims)
    check_norm(distinct((3, 4), seed=9), ord, axis=1, keepdims=keepdims)
    check_norm(distinct((2, 3, 4), seed=10), ord, axis=-3, keepdims=keepdims)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
def test_matrix_norms(ord, keepdims):
    check_norm(distinct((3, 4), seed=11), ord, keepdims=keepdims)
    check_norm(distinct((4, 3), seed=12), ord, (1, 0), keepdims)
    check_norm(distinct((2, 3, 4), seed=13), ord, axis=(2, 0), keepdims=keepdims)


def test_norms_in_float32_and_of_lists():
    (g, *_) = check_rule(np.linalg.norm, distinct((3, 4), seed=14).astype(np.float32), **F32)
    assert g.dtype == np.float32
    for ord in ("nuc", 1, 2):
        (g, *_) = check_rule(np.linalg.norm, distinct((3, 4), seed=15).astype(np.float32), ord, **F32)
        assert g.dtype == np.float32
    check_rule(np.linalg.norm, [3.0, -4.0])
    check_rule(np.linalg.norm, [3.0, -4.0], 1)


def test_norm_of_the_flattened_array():
    check_rule(np.linalg.norm, distinct((2, 3, 4), seed=16))
    check_rule(np.linalg.norm, distinct((2, 3, 4), seed=17), kwargs=dict(keepdims=True))


def test_norms_at_zero_are_zero():
    with np.errstate(divide="ignore"):  # NumPy's own, for 0 ** -1.5
        assert np.all(grads(np.linalg.norm, np.array([0.0, 2.0, -1.0]), -1.5)[0] == 0)
        for ord in VECTOR_ORDS:
            assert np.all(grads(np.linalg.norm, np.zeros(3), ord)[0] == 0), ord
    for ord in MATRIX_ORDS:
        assert np.all(grads(np.linalg.norm, np.zeros((2, 3)), ord)[0] == 0), ord
    g = grads(np.linalg.norm, np.array([[0.0, 0.0], [3.0, 4.0]]), axis=1)[0]
    np.testing.assert_allclose(g, [[0, 0], [0.6, 0.8]], rtol=1e-15)


def test_norm_ties_split_evenly():
    assert grads(np.linalg.norm, np.array([-2.0, 2.0, 1.0]), np.inf)[0].tolist() == [-0.5, 0.5, 0.0]
    x = np.array([[1.0, -3.0], [-2.0, 0.0]])  # both columns sum to 3 in absolute value
    assert grads(np.linalg.norm, x, 1)[0].tolist() == [[0.5, -0.5], [-0.5, 0.0]]


def test_norm_of_complex():
    rng = np.random.default_rng(18)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    for ord, axis in ((None, None), (2, 1), (1, 0), (np.inf, 1), (3, 1), ("fro", None), ("nuc", None), (2, None)):
        y, back = rules.lookup(np.linalg.norm)(z, ord, axis)
        dy = rng.standard_normal(np.shape(y))
        g = back(dy)[0]
        expected = np.zeros_like(z)
        for idx in np.ndindex(z.shape):
            for step in (1e-6, 1e-6j):  # dL/dx + i dL/dy
                up, down = z.copy(), z.copy()
                up[idx] += step
                down[idx] -= step
                change = np.sum(dy * (np.linalg.norm(up, ord, axis) - np.linalg.norm(down, ord, axis)))
                expected[idx] += change / (2 * abs(step)) * (step / abs(step))
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7, err_msg=str((ord, axis)))


# -- registration ---------------------------------------------------------------

NONDIFFERENTIABLE = [
    np.argmax, np.argmin, np.argsort, np.count_nonzero, np.any, np.all,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.argsort, np.ndarray.any, np.ndarray.all,
]


@pytest.mark.parametrize("fn", NONDIFFERENTIABLE, ids=lambda fn: fn.__qualname__)
def test_nondifferentiable(fn):
    assert rules.is_nondifferentiable(fn)


@pytest.mark.parametrize(
    "fn",
    [fn for fn, _ in REDUCTIONS.values()] + [np.cumsum, np.cumprod, np.ndarray.cumsum, np.ndarray.cumprod,
                                              np.linalg.norm],
    ids=lambda fn: fn.__qualname__,
)
def test_rule_is_registered_and_inlinable(fn):
    rule = rules.lookup(fn)
    assert rule is not None and rule_ir(rule, fn) is not None


@pytest.mark.parametrize("fn, kwargs", [
    (np.sum, dict(axis=1)), (np.mean, dict(axis=1, keepdims=True)), (np.max, dict(axis=1)), (np.var, dict(axis=1)),
    (np.std, dict(axis=0)), (np.prod, dict(axis=1)), (np.cumsum, dict(axis=1)), (np.cumprod, dict(axis=None)),
    (np.nansum, dict(axis=1)), (np.nanmean, dict(axis=1)), (np.linalg.norm, dict(axis=1)),
    (np.linalg.norm, dict(ord=1, axis=1)),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_sparse_cotangents(fn, kwargs):
    # the cotangent of y[1] alone, as the compiled gradient passes it
    y, back = rules.lookup(fn)(factors((4, 5), seed=19), **kwargs)
    sparse = runtime.scatter(y, 1, 1.5)
    dense = np.zeros(y.shape, y.dtype)
    dense[1] = 1.5
    np.testing.assert_allclose(back(sparse)[0], back(dense)[0], rtol=1e-15)
