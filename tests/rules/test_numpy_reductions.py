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
from zygote_py.ad import pushrules
from zygote_py.ad.inline import rule_ir
from zygote_py.errors import NoDerivativeRule
from zygote_py import registry
from zygote_py.rules import numpy_reductions

from .npcheck import bind, check_rule
from .ordercheck import check_orders
from .pushcheck import check_pushforward, rules_of

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
    "nanprod": (np.nanprod, factors),
    "nanmax": (np.nanmax, distinct),
    "nanmin": (np.nanmin, distinct),
    "nanvar": (np.nanvar, distinct),
    "nanstd": (np.nanstd, distinct),
    "ptp": (np.ptp, distinct),
    "average": (np.average, distinct),
    "median": (np.median, distinct),
    "nanmedian": (np.nanmedian, distinct),
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


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "var", "std", "nansum", "nanmean", "nanprod", "nanvar",
                                  "nanstd"])
def test_reduction_to_a_wider_dtype_keeps_the_input_dtype(name):
    fn, draw = REDUCTIONS[name]
    x = draw((3, 4), seed=2).astype(np.float32)
    (g, *_) = check_rule(fn, x, kwargs=dict(axis=0, dtype=np.float64), **F32)
    assert g.dtype == np.float32


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "nansum", "ptp", "average", "median",
                                  "nanmax", "nanvar"])
def test_reduction_of_a_list(name):
    fn, draw = REDUCTIONS[name]
    (g, *_) = check_rule(fn, list(draw((4,), seed=3)))
    assert g.shape == (4,)


@pytest.mark.parametrize("ddof", [0, 1, 2])
@pytest.mark.parametrize("name", ["var", "std", "ndarray.var", "ndarray.std", "nanvar", "nanstd"])
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


def pushed(fn, *args, **kwargs):
    """The pushforward rule's tangent of ``fn(*args, **kwargs)`` for a
    tangent of ones of the first argument alone."""
    y = fn(*args, **kwargs)
    ones = (np.ones_like(args[0]),) + (None,) * (len(args) - 1)
    return pushrules.call(registry.lookup_pushforward(fn), y, args, kwargs, ones, {})


def check_at(fn, *args, dy=None, **kwargs):
    """The pushforward rule of ``fn`` against its adjoint rule at ``args``
    (ties, zeros, NaN...), for a random cotangent ``dy`` unless given."""
    rule = rules.lookup(fn)
    y, back = rule(*args, **kwargs)
    if dy is None:
        dy = np.asarray(np.random.default_rng(0).standard_normal(np.shape(y))).astype(np.result_type(y))
    g = back(dy)
    check_pushforward(fn, args, kwargs, y, [(where, g[pos]) for pos, _, where in bind(rule, args, kwargs)], dy)


@pytest.mark.parametrize("fn", [np.max, np.min, np.ndarray.max, np.ndarray.min])
def test_max_and_min_split_ties_evenly(fn):
    top = 3.0 if fn in (np.max, np.ndarray.max) else -3.0
    x = np.array([[top, 1.0, top, 0.5], [0.0, top, 2.0 * np.sign(top), -2.0 * np.sign(top)]])
    assert grads(fn, x)[0].tolist() == [[1 / 3, 0, 1 / 3, 0], [0, 1 / 3, 0, 0]]
    assert grads(fn, x, axis=1)[0].tolist() == [[0.5, 0, 0.5, 0], [0, 1, 0, 0]]
    assert grads(fn, x, axis=0, keepdims=True)[0].tolist() == [[1, 0, 1, 1], [0, 1, 0, 0]]
    g = grads(fn, np.full((2, 3), 1.5, np.float32), axis=0)[0]
    assert g.dtype == np.float32 and g.tolist() == [[0.5] * 3] * 2
    g = grads(fn, np.full((2, 2), 1.5, np.float32))[0]  # all of them tie
    assert g.dtype == np.float32 and g.tolist() == [[0.25] * 2] * 2
    assert pushed(fn, x) == 1.0 and pushed(fn, x, axis=1).tolist() == [1.0, 1.0]
    for kwargs in ({}, dict(axis=1), dict(axis=0, keepdims=True), dict(axis=(0, 1), keepdims=True)):
        check_at(fn, x, **kwargs)
    t = pushed(fn, np.full((2, 3), 1.5, np.float32), axis=0)
    assert t.dtype == np.float32 and t.tolist() == [1.0] * 3


def test_max_of_a_slice_with_nan_gives_it_no_gradient():
    x = np.array([[np.nan, 1.0], [2.0, 3.0], [4.0, 4.0]])
    assert grads(np.max, x, axis=1)[0].tolist() == [[0, 0], [0, 1], [0.5, 0.5]]
    assert np.all(grads(np.max, x)[0] == 0)
    assert pushed(np.max, x, axis=1).tolist() == [0, 1, 1] and pushed(np.max, x) == 0
    check_at(np.max, x, axis=1)


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
    assert pushed(np.prod, x) == pytest.approx(4e-300, rel=1e-12)


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
    check_pushforward(np.prod, (z,), dict(axis=0), y, [(0, back(dy)[0])], dy)
    for fn in (np.cumprod, np.cumsum, np.sum, np.mean, np.nanprod, np.var, np.std, np.nanvar, np.nanstd):
        out = fn(z, 0)
        dy = rng.standard_normal(out.shape) + (1j * rng.standard_normal(out.shape) if np.iscomplexobj(out) else 0)
        check_at(fn, z, axis=0, dy=dy)


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
    t = pushed(np.std, x, axis=1)
    assert t[0] == 0.0 and np.isfinite(t[1])
    check_at(np.std, x, axis=1)


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
    assert pushed(np.nansum, x, axis=1).tolist() == [2, 0, 3]
    check_at(np.nansum, x, axis=1)
    with pytest.warns(RuntimeWarning):  # NumPy's own, for the all-NaN row
        assert pushed(np.nanmean, x, axis=1).tolist() == [1, 0, 1]  # none for the all-NaN row
    with pytest.warns(RuntimeWarning):
        check_at(np.nanmean, x, axis=1)
    t32 = pushed(np.nanmean, x[[0, 2]].astype(np.float32), axis=0, keepdims=True)
    assert t32.dtype == np.float32 and t32.tolist() == [[1, 1, 1]]


# -- NaN-skipping reductions ----------------------------------------------------


def with_nan(shape, seed=0, draw=distinct):
    """``draw``'s values with about a quarter of them NaN (never a whole
    row along the last axis)."""
    x = draw(shape, seed=seed)
    holes = np.random.default_rng(seed).random(shape) < 0.25
    if len(shape):
        holes[..., 0] = False
    return np.where(holes, np.nan, x)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
@pytest.mark.parametrize("fn", [np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanvar, np.nanstd,
                                np.nanmedian], ids=lambda fn: fn.__name__)
def test_nan_reductions_with_nan(fn, axis):
    x = with_nan((3, 4, 5), seed=20, draw=factors if fn is np.nanprod else distinct)
    for keepdims in (False, True):
        g = check_rule(fn, x, kwargs=dict(axis=axis, keepdims=keepdims))
        assert np.all(g[0][np.isnan(x)] == 0)
    (g32, *_) = check_rule(fn, x.astype(np.float32), kwargs=dict(axis=axis), **F32)
    assert g32.dtype == np.float32


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("fn", [np.nancumsum, np.nancumprod], ids=lambda fn: fn.__name__)
def test_nan_scans(fn, axis):
    x = with_nan((3, 4, 5), seed=21, draw=factors)
    g = check_rule(fn, x, kwargs=dict(axis=axis))
    assert g[1:] == (None, None, None) and np.all(g[0][np.isnan(x)] == 0)
    (g32, *_) = check_rule(fn, x.astype(np.float32), axis, **F32)
    assert g32.dtype == np.float32
    check_rule(fn, factors((4, 5), seed=22), kwargs=dict(axis=axis))


def test_nancumprod_with_zeros():
    x = factors((3, 4), seed=23)
    x[1, 1], x[1, 2], x[2, 0] = 0.0, np.nan, 0.0
    for axis in (None, 0, 1):
        check_rule(np.nancumprod, x, axis)


def test_nanmax_and_nanmin_split_ties_and_skip_nan():
    x = np.array([[3.0, np.nan, 3.0, 1.0], [np.nan, np.nan, np.nan, np.nan], [-1.0, 2.0, np.nan, -1.0]])
    with pytest.warns(RuntimeWarning):  # NumPy's own, for the all-NaN row
        assert grads(np.nanmax, x, axis=1)[0].tolist() == [[0.5, 0, 0.5, 0], [0, 0, 0, 0], [0, 1, 0, 0]]
    with pytest.warns(RuntimeWarning):
        assert grads(np.nanmin, x, axis=1)[0].tolist() == [[0, 0, 0, 1], [0, 0, 0, 0], [0.5, 0, 0, 0.5]]
    assert grads(np.nanmax, x)[0].tolist() == [[0.5, 0, 0.5, 0], [0] * 4, [0] * 4]
    for fn in (np.nanmax, np.nanmin):
        with pytest.warns(RuntimeWarning):
            assert pushed(fn, x, axis=1).tolist() == [1, 0, 1]
        with pytest.warns(RuntimeWarning):
            check_at(fn, x, axis=1)
        check_at(fn, x)


def test_nanvar_and_nanstd_conventions():
    x = np.array([[1.0, np.nan, 3.0], [2.0, 2.0, np.nan], [np.nan, 5.0, np.nan]])
    g = grads(np.nanvar, x, axis=1)[0]
    np.testing.assert_allclose(g, [[-1, 0, 1], [0, 0, 0], [0, 0, 0]], rtol=1e-15)
    assert grads(np.nanstd, x, axis=1)[0][1].tolist() == [0, 0, 0]  # a constant slice
    with pytest.warns(RuntimeWarning):  # NumPy's own: one value, ddof=1
        g = grads(np.nanvar, x, axis=1, ddof=1)[0]
    assert np.isnan(g[2, 1]) and g[2, 0] == g[2, 2] == 0
    for fn in (np.nanvar, np.nanstd):
        check_at(fn, x, axis=1)
        with pytest.warns(RuntimeWarning):
            t = pushed(fn, x, axis=1, ddof=1)
        assert np.isnan(t[2]) and np.all(np.isfinite(t[:2]))
    assert pushed(np.nanstd, x, axis=1)[1] == 0.0


def test_nanprod_counts_nan_as_one():
    x = np.array([[2.0, np.nan, 3.0], [0.0, np.nan, 4.0]])
    assert grads(np.nanprod, x, axis=1)[0].tolist() == [[3, 0, 2], [4, 0, 0]]
    assert pushed(np.nanprod, x, axis=1).tolist() == [5, 4]
    check_at(np.nanprod, x, axis=1)


# -- ptp ----------------------------------------------------------------------------


def test_ptp_of_ties_and_constant_slices():
    x = np.array([[3.0, 1.0, 3.0, 1.0], [2.0, 2.0, 2.0, 2.0], [0.0, 5.0, 1.0, 0.5]])
    assert grads(np.ptp, x, axis=1)[0].tolist() == [[0.5, -0.5, 0.5, -0.5], [0] * 4, [-1, 1, 0, 0]]
    assert grads(np.ptp, x)[0].tolist() == [[0] * 4, [0] * 4, [-1, 1, 0, 0]]
    assert grads(np.ptp, x[:2])[0].tolist() == [[0.5, -0.5, 0.5, -0.5], [0, 0, 0, 0]]
    assert pushed(np.ptp, x, axis=1).tolist() == [0, 0, 0]
    for kwargs in (dict(axis=1), {}, dict(axis=0, keepdims=True)):
        check_at(np.ptp, x, **kwargs)
        check_at(np.ptp, x[:2], **kwargs)


def test_ndarray_ptp_where_numpy_has_it():
    assert (rules.lookup(getattr(np.ndarray, "ptp", None)) is not None) == hasattr(np.ndarray, "ptp")


# -- average ------------------------------------------------------------------------


def weights_for(shape, axis, seed=0):
    """Positive weights: of ``shape`` for ``axis=None``, or of the shape of
    the reduced axes, in the order ``axis`` names them."""
    rng = np.random.default_rng(seed)
    if axis is None:
        return rng.uniform(0.5, 2.0, shape)
    axes = axis if isinstance(axis, tuple) else (axis,)
    return rng.uniform(0.5, 2.0, tuple(shape[i] for i in axes))


def pair_cotangent(y, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(np.shape(v)) for v in y)


@pytest.mark.parametrize("returned", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, axis", [((5,), None), ((5,), 0), ((3, 4), None), ((3, 4), 1), ((3, 4), -2),
                                         ((2, 3, 4), (0, 2)), ((2, 3, 4), (2, 0)), ((2, 3, 4), None)], ids=str)
def test_weighted_average(shape, axis, keepdims, returned):
    a = distinct(shape, seed=24)
    for w in (weights_for(shape, axis, seed=25), np.broadcast_to(weights_for(shape, None, seed=26), shape).copy()):
        y = np.average(a, axis, w, returned, keepdims=keepdims)
        dy = pair_cotangent(y) if returned else None
        g = check_rule(np.average, a, axis, w, returned, kwargs=dict(keepdims=keepdims), dy=dy)
        assert g[2].shape == w.shape and g[1] is None and g[3:] == (None, None)


def test_average_returned_parts_alone():
    a, w = distinct((3, 4), seed=27), weights_for((3, 4), 1, seed=28)
    y = np.average(a, 1, w, True)
    da, _, dw, *_ = check_rule(np.average, a, 1, w, True, dy=(None, np.ones(3)))
    assert da is None and dw.tolist() == [3.0] * 4  # each weight is in all three sums
    check_rule(np.average, a, 1, w, True, dy=(np.ones(3), None))
    g = check_rule(np.average, a, 1, None, True, dy=pair_cotangent(y))  # without weights the count is constant
    assert g[2] is None
    assert check_rule(np.average, a, 1, None, True, dy=(None, np.ones(3)))[0] is None


def test_average_in_float32_and_with_lists():
    a = distinct((3, 4), seed=29).astype(np.float32)
    w = weights_for((3, 4), 0, seed=30).astype(np.float32)
    da, _, dw, *_ = check_rule(np.average, a, 0, w, **F32)
    assert da.dtype == dw.dtype == np.float32
    da, _, dw, *_ = check_rule(np.average, a, 0, w.astype(np.float64), **F32)  # a float64 result
    assert da.dtype == np.float32 and dw.dtype == np.float64
    check_rule(np.average, [1.5, -2.0, 0.5], kwargs=dict(weights=[1.0, 2.0, 0.5]))


# -- order statistics ---------------------------------------------------------------

METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]
QS = [0.3142, np.array([0.137, 0.773, 0.5571]), np.array([[0.2213], [0.9134]])]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, axis", [((7,), None), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), (0, 2)),
                                         ((2, 3, 4), None)], ids=str)
@pytest.mark.parametrize("q", QS, ids=lambda q: str(np.shape(q)))
@pytest.mark.parametrize("fn", [np.quantile, np.percentile, np.nanquantile, np.nanpercentile],
                         ids=lambda fn: fn.__name__)
def test_quantiles(fn, q, shape, axis, keepdims):
    q = q * 100 if fn in (np.percentile, np.nanpercentile) else q
    if fn in (np.nanquantile, np.nanpercentile) and np.ndim(q) > 1 and isinstance(axis, tuple):
        # NumPy lays out this result wrongly, so its gradient is refused, not wrong
        a = distinct(shape, seed=31)
        y, back = rules.lookup(fn)(a, q, axis=axis, keepdims=keepdims)
        with pytest.raises(NoDerivativeRule, match="several axes"):
            back(np.ones(np.shape(y)))
        with pytest.raises(NoDerivativeRule, match="several axes"):
            pushed(fn, a, q, axis=axis, keepdims=keepdims)
        return
    g = check_rule(fn, distinct(shape, seed=31), q, kwargs=dict(axis=axis, keepdims=keepdims))
    assert np.shape(g[1]) == np.shape(q) and g[2:] == (None,) * (len(g) - 2)
    if isinstance(q, float):
        assert type(g[1]) is float


@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods(method):
    for fn, q in ((np.quantile, QS[1]), (np.percentile, 100 * QS[0]), (np.nanquantile, QS[0])):
        check_rule(fn, distinct((3, 5), seed=32), q, kwargs=dict(axis=1, method=method))
        check_rule(fn, distinct((12,), seed=33), q, kwargs=dict(method=method))
    check_rule(np.nanquantile, with_nan((4, 6), seed=34), QS[1], kwargs=dict(axis=-1, method=method))


def test_quantiles_with_nan_and_in_float32():
    x = with_nan((3, 4, 5), seed=35)
    for fn, q in ((np.nanquantile, QS[1]), (np.nanpercentile, 31.4), (np.nanmedian, None)):
        args = (x,) if q is None else (x, q)
        for axis in (None, 1, (0, 2)):
            check_rule(fn, *args, kwargs=dict(axis=axis))
    (g, gq, *_) = check_rule(np.quantile, distinct((3, 4), seed=36).astype(np.float32), np.float32(0.3142),
                             kwargs=dict(axis=0), **F32)
    assert g.dtype == np.float32 and isinstance(gq, np.float32)
    (g, *_) = check_rule(np.median, distinct((3, 4), seed=37).astype(np.float32), 1, **F32)
    assert g.dtype == np.float32


def test_median_of_odd_and_even_counts():
    assert grads(np.median, np.array([4.0, 1.0, 3.0]))[0].tolist() == [0, 0, 1]
    assert grads(np.median, np.array([4.0, 1.0, 3.0, 2.0]))[0].tolist() == [0, 0, 0.5, 0.5]
    x = np.array([[4.0, 1.0, 3.0, 2.0], [0.0, 9.0, 7.0, np.nan]])
    assert grads(np.nanmedian, x, axis=1)[0].tolist() == [[0, 0, 0.5, 0.5], [0, 0, 1, 0]]
    assert pushed(np.nanmedian, x, axis=1).tolist() == [1, 1]
    check_at(np.nanmedian, x, axis=1)
    check_at(np.median, x[:1], axis=1)


def test_median_ties_share_evenly():
    assert grads(np.median, np.array([2.0, 1.0, 2.0, 3.0, 5.0]))[0].tolist() == [0.5, 0, 0.5, 0, 0]
    # an even count whose two middle values are one value, held by three elements
    g = grads(np.median, np.array([2.0, 1.0, 2.0, 2.0, 5.0, 6.0]))[0]
    np.testing.assert_allclose(g, [1 / 3, 0, 1 / 3, 1 / 3, 0, 0], rtol=1e-15)
    g = grads(np.median, np.full((2, 3), 1.5, np.float32), axis=0)[0]
    assert g.dtype == np.float32 and g.tolist() == [[0.5] * 3] * 2
    check_at(np.median, np.array([2.0, 1.0, 2.0, 3.0, 5.0]))
    check_at(np.median, np.array([2.0, 1.0, 2.0, 2.0, 5.0, 6.0]))
    t = pushed(np.median, np.full((2, 3), 1.5, np.float32), axis=0)
    assert t.dtype == np.float32 and t.tolist() == [1.0] * 3


def test_quantile_shares_its_neighbours_and_ties():
    x = np.array([5.0, 1.0, 3.0, 2.0, 4.0])  # q = 0.3: 0.2 of the way from 2 to 3
    g, gq, *_ = grads(np.quantile, x, 0.3)
    np.testing.assert_allclose(g, [0, 0, 0.2, 0.8, 0], rtol=1e-12)
    assert gq == pytest.approx(4.0)  # (3 - 2) * (n - 1)
    g, gq, *_ = grads(np.quantile, np.array([1.0, 3.0, 3.0, 3.0]), 0.5)
    np.testing.assert_allclose(g, [0, 1 / 3, 1 / 3, 1 / 3], rtol=1e-15)
    assert gq == 0.0
    assert grads(np.quantile, x, 1.0)[1] == 0.0  # the last value: no slope to the right
    assert grads(np.percentile, x, 100.0)[0].tolist() == [1, 0, 0, 0, 0]
    for args in ((x, 0.3), (np.array([1.0, 3.0, 3.0, 3.0]), 0.5), (x, 1.0)):
        check_at(np.quantile, *args)
    check_at(np.percentile, x, 100.0)
    t = pushrules.call(registry.lookup_pushforward(np.quantile), np.quantile(x, 0.3), (x, 0.3), {}, (None, 1.0), {})
    assert t == pytest.approx(4.0) and isinstance(t, np.float64)  # (3 - 2) * (n - 1) times dq


def test_order_statistics_of_a_slice_with_nan_have_no_gradient():
    x = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    assert grads(np.median, x, axis=1)[0].tolist() == [[0, 0, 0], [0, 1, 0]]
    g, gq, *_ = grads(np.quantile, x, np.array([0.25, 0.75]), axis=1)
    assert g[0].tolist() == [0, 0, 0] and np.all(np.isfinite(gq))
    assert pushed(np.median, x, axis=1).tolist() == [0, 1]
    check_at(np.median, x, axis=1)
    check_at(np.quantile, x, np.array([0.25, 0.75]), axis=1)
    with pytest.warns(RuntimeWarning):  # NumPy's own, for the all-NaN row
        g = grads(np.nanquantile, np.array([[np.nan, np.nan], [1.0, 2.0]]), 0.5, axis=1, method="hazen")[0]
    assert g.tolist() == [[0, 0], [0.5, 0.5]]


# -- cumulative_sum -------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(np, "cumulative_sum"), reason="NumPy before 2.1")
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum(include_initial):
    kw = dict(include_initial=include_initial)
    for x, axis in ((factors((5,)), None), (factors((5,)), 0), (factors((3, 4)), 1), (factors((3, 4)), -2),
                    (factors((2, 3, 4)), 1), (np.float64(1.5), None)):
        g = check_rule(np.cumulative_sum, x, kwargs=dict(axis=axis, **kw))
        assert g[1:] == (None,) * 4
    (g, *_) = check_rule(np.cumulative_sum, factors((3, 4)).astype(np.float32), kwargs=dict(axis=0, **kw), **F32)
    assert g.dtype == np.float32
    (g, *_) = check_rule(np.cumulative_sum, factors((3, 4)).astype(np.float32),
                         kwargs=dict(axis=0, dtype=np.float64, **kw), **F32)
    assert g.dtype == np.float32
    check_rule(np.cumulative_sum, [1.5, -2.0, 0.5], kwargs=kw)


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
    check_pushforward(fn, (x, *rest), {}, y, [(0, g[0])], dy)
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
        for ord in VECTOR_ORDS:
            assert pushed(np.linalg.norm, np.zeros(3), ord) == 0, ord
            check_at(np.linalg.norm, np.array([0.0, 2.0, -1.0]), ord)
    for ord in MATRIX_ORDS:
        assert np.all(grads(np.linalg.norm, np.zeros((2, 3)), ord)[0] == 0), ord
        assert pushed(np.linalg.norm, np.zeros((2, 3)), ord) == 0, ord
    g = grads(np.linalg.norm, np.array([[0.0, 0.0], [3.0, 4.0]]), axis=1)[0]
    np.testing.assert_allclose(g, [[0, 0], [0.6, 0.8]], rtol=1e-15)


def test_norm_ties_split_evenly():
    assert grads(np.linalg.norm, np.array([-2.0, 2.0, 1.0]), np.inf)[0].tolist() == [-0.5, 0.5, 0.0]
    x = np.array([[1.0, -3.0], [-2.0, 0.0]])  # both columns sum to 3 in absolute value
    assert grads(np.linalg.norm, x, 1)[0].tolist() == [[0.5, -0.5], [-0.5, 0.0]]
    check_at(np.linalg.norm, np.array([-2.0, 2.0, 1.0]), np.inf)
    check_at(np.linalg.norm, x, 1)
    check_at(np.linalg.norm, x, -np.inf, 1)


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
        check_pushforward(np.linalg.norm, (z, ord, axis), {}, y, [(0, g)], dy)


# -- registration ---------------------------------------------------------------

NONDIFFERENTIABLE = [
    np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.count_nonzero, np.any, np.all,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.argsort, np.ndarray.any, np.ndarray.all,
]


@pytest.mark.parametrize("fn", NONDIFFERENTIABLE, ids=lambda fn: fn.__qualname__)
def test_nondifferentiable(fn):
    assert rules.is_nondifferentiable(fn)


@pytest.mark.parametrize(
    "fn",
    [fn for fn, _ in REDUCTIONS.values()] + [np.cumsum, np.cumprod, np.ndarray.cumsum, np.ndarray.cumprod,
                                              np.linalg.norm, np.nancumsum, np.nancumprod, np.quantile,
                                              np.percentile, np.nanquantile, np.nanpercentile]
    + ([np.cumulative_sum] if hasattr(np, "cumulative_sum") else []),
    ids=lambda fn: fn.__qualname__,
)
def test_rule_is_registered_and_inlinable(fn):
    rule = rules.lookup(fn)
    assert rule is not None and rule_ir(rule, fn) is not None


@pytest.mark.parametrize("fn, kwargs", [
    (np.sum, dict(axis=1)), (np.mean, dict(axis=1, keepdims=True)), (np.max, dict(axis=1)), (np.var, dict(axis=1)),
    (np.std, dict(axis=0)), (np.prod, dict(axis=1)), (np.cumsum, dict(axis=1)), (np.cumprod, dict(axis=None)),
    (np.nansum, dict(axis=1)), (np.nanmean, dict(axis=1)), (np.linalg.norm, dict(axis=1)),
    (np.linalg.norm, dict(ord=1, axis=1)), (np.ptp, dict(axis=1)), (np.nanmax, dict(axis=1)),
    (np.median, dict(axis=1)), (np.average, dict(axis=1, weights=np.arange(1.0, 6.0))), (np.nanvar, dict(axis=1)),
    (np.nanprod, dict(axis=1)), (np.nancumsum, dict(axis=1)),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_sparse_cotangents(fn, kwargs):
    # the cotangent of y[1] alone, as the compiled gradient passes it
    y, back = rules.lookup(fn)(factors((4, 5), seed=19), **kwargs)
    sparse = runtime.scatter(y, 1, 1.5)
    dense = np.zeros(y.shape, y.dtype)
    dense[1] = 1.5
    np.testing.assert_allclose(back(sparse)[0], back(dense)[0], rtol=1e-15)



# -- pushforward rules ------------------------------------------------------------

@pytest.mark.parametrize("fn", rules_of(numpy_reductions), ids=registry.display_name)
def test_pushforward_is_inlinable(fn):
    # straight-line, so it is inlined into the emitted code
    assert pushrules.push_ir(registry.lookup_pushforward(fn)) is not None


@pytest.mark.parametrize("fn", [np.sum, np.mean, np.max, np.var, np.std, np.prod, np.nansum, np.nanmean,
                                np.median, np.linalg.norm], ids=lambda fn: fn.__name__)
def test_tangent_of_a_float32_reduction_to_a_scalar(fn):
    x = factors((3, 4), seed=38).astype(np.float32)
    t = pushed(fn, x)
    assert isinstance(t, np.float32), type(t)


@pytest.mark.parametrize("kwargs", [dict(axis=1), dict(axis=None), dict(axis=0, keepdims=True)])
@pytest.mark.parametrize("q", [0.3, np.array([0.2, 0.7])])
def test_weighted_quantile_and_percentile(kwargs, q):
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((3, 5)), rng.random((3, 5)) + 0.1
    check_rule(np.quantile, a, q, kwargs=dict(kwargs, method="inverted_cdf", weights=w))
    check_rule(np.percentile, a, q * 100, kwargs=dict(kwargs, method="inverted_cdf", weights=w))


def test_weighted_quantile_along_an_axis_and_zero_weights():
    a = np.array([[0.5, 2.0, 2.0, -1.0], [1.0, 3.0, 0.2, 0.4]])
    w = np.array([1.0, 0.0, 2.0, 0.5])
    check_rule(np.quantile, a, 0.4, kwargs=dict(axis=1, method="inverted_cdf", weights=w + 0.5))
    y, back = rules.lookup(np.quantile)(a, 0.9, 1, None, False, "inverted_cdf", False, w)
    assert y[0] == 2.0
    np.testing.assert_array_equal(back(np.ones(2))[0][0], [0, 0, 1, 0])  # (the equal element of weight 0: none)


QUANTILE_WEIGHTS = np.random.default_rng(1).random((2, 4)) + 0.1


def weighted_quantiles(x):
    return np.sum(np.sin(np.quantile(x * x, [0.3, 0.8], axis=1, method="inverted_cdf", weights=QUANTILE_WEIGHTS)))


def test_weighted_quantile_at_second_order():
    check_orders(weighted_quantiles, np.random.default_rng(0).standard_normal((2, 4)))
