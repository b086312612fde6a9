"""The rules of :mod:`zygote_py.rules.numpy_arrays` (flips, splits,
partition, select...) and the in-place changes that the mutation pass makes
item stores (``y.fill``, ``np.copyto``, ``np.fill_diagonal``, ``ufunc.at``),
checked against central finite differences: each rule directly (reverse
mode, and its pushforward against it), and through compiled code at first
and second order."""
import warnings

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NoDerivativeRule

from .npcheck import check_rule
from .ordercheck import check_orders

pytestmark = pytest.mark.filterwarnings("error")


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def distinct(*shape, seed=0):
    """Values far apart from each other (no ties)."""
    return np.random.default_rng(seed).permutation(int(np.prod(shape))).reshape(shape) * 0.3 + 0.1


def loss(y):
    """A nonlinear, non-symmetric real function of an array: every second
    derivative of what it is composed with counts."""
    w = np.cos(np.arange(np.size(y)) * 1.7 + 0.3).reshape(np.shape(y))
    return np.sum(np.sin(y) * w) + 0.1 * np.sum(y * y * w)


# -- flips, rotations, axes -----------------------------------------------------


@pytest.mark.parametrize("fn", [np.flipud, np.fliplr])
@pytest.mark.parametrize("shape", [(2, 3), (3, 2, 2)])
def test_flips(fn, shape):
    check_rule(fn, rand(*shape))


def test_flipud_of_a_vector():
    check_rule(np.flipud, rand(4))


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 0)])
def test_rot90(k, axes):
    check_rule(np.rot90, rand(2, 3, 4), k, axes)


@pytest.mark.parametrize("axis, start", [(2, 0), (0, 3), (1, 1), (-1, 1), (0, -1), (2, 2), (1, 3)])
def test_rollaxis(axis, start):
    check_rule(np.rollaxis, rand(2, 3, 4), axis, start)


def test_flips_rotations_and_axes_at_second_order():
    check_orders(lambda x: loss(np.rot90(np.flipud(x), 3) + np.fliplr(x).T), rand(3, 3))
    check_orders(lambda x: loss(np.rollaxis(x, 2, 0)), rand(2, 1, 3))


# -- appending and splitting ----------------------------------------------------


@pytest.mark.parametrize("arr, values, axis", [
    ((2, 3), (2,), None), ((2, 3), (1, 3), 0), ((2, 3), (2, 2), 1), ((3,), (), None), ((3,), (2,), 0),
])
def test_append(arr, values, axis):
    check_rule(np.append, rand(*arr), rand(*values, seed=1), axis)


def test_append_of_numbers_and_lists():
    check_rule(np.append, rand(3), [1.5, -0.5])
    check_rule(np.append, [0.5, 2.0], 3.0)


@pytest.mark.parametrize("obj, axis", [(1, 0), ([0, 2], 1), (slice(0, 3, 2), None), (-1, -1)])
def test_delete(obj, axis):
    check_rule(np.delete, rand(3, 4), obj, axis)


@pytest.mark.parametrize("fn, shape, sections", [
    (np.vsplit, (4, 3), 2), (np.vsplit, (4, 3), [1, 3]), (np.hsplit, (2, 4), 2), (np.hsplit, (6,), [2, 5]),
    (np.hsplit, (2, 4, 2), [1]), (np.dsplit, (2, 2, 4), 2), (np.dsplit, (1, 2, 3), [1, 2]),
])
def test_splits(fn, shape, sections):
    pieces = fn(rand(*shape), sections)
    dy = [rand(*np.shape(p), seed=i + 1) for i, p in enumerate(pieces)]
    check_rule(fn, rand(*shape), sections, dy=dy)


def test_split_with_pieces_without_a_gradient():
    grads = check_rule(np.vsplit, rand(4, 2), 2, dy=[None, rand(2, 2)])
    assert np.all(grads[0][:2] == 0)


@pytest.mark.skipif(not hasattr(np, "row_stack"), reason="NumPy without np.row_stack")
def test_row_stack():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (NumPy 2: an alias of np.vstack)
        check_rule(np.row_stack, [rand(3), rand(2, 3, seed=1)])


@pytest.mark.parametrize("fn, kwargs", [
    (np.concatenate, dict(axis=1)), (np.stack, dict(axis=0)), (np.hstack, {}), (np.vstack, {}),
])
def test_joins_with_a_dtype(fn, kwargs):
    arrays = [rand(2, 3).astype(np.float32), rand(2, 3, seed=1).astype(np.float32)]
    grads = check_rule(fn, arrays, kwargs=dict(kwargs, dtype=np.float64), rtol=1e-3)
    assert all(g.dtype == np.float32 for g in grads[0])
    y, back = zpy.rules.lookup(fn)(arrays, **kwargs, dtype=np.int64, casting="unsafe")
    assert y.dtype == np.int64 and back(np.ones(y.shape))[0] is None


def test_appending_and_splitting_at_second_order():
    check_orders(lambda x: loss(np.append(np.hsplit(x, [1])[1], x[:1, 1:] * x[1:2, 1:], axis=0)), rand(3, 2))
    check_orders(lambda x: loss(np.append(x, [0.5, 2.0]) * np.concatenate([x, x], None, dtype=np.float64)),
                 rand(2, 1))


C = rand(3, 2, seed=5)


@pytest.mark.parametrize("f, shape", [
    (lambda x: loss(np.r_[x]), (3, 2)),
    (lambda x: loss(np.r_[x, C, x * x]), (3, 2)),
    (lambda x: loss(np.r_[x, C[:, 0], 1:4, 2.5, x[0] * x]), (3,)),
    (lambda x: loss(np.r_["0,2,0", x, x[::-1] ** 2]), (3,)),
    (lambda x: loss(np.r_["-1", x, C]), (3, 2)),
    (lambda x: loss(np.c_[x, C, x]), (3, 2)),
    (lambda x: loss(np.c_[x, np.cos(x), 0:3]), (3,)),
])
def test_r_and_c(f, shape):
    check_orders(f, rand(*shape))


def test_r_and_c_have_numpys_values_and_refuse_matrices():
    x, v = rand(3, 2), rand(3)
    r_ = zpy.registry.implementation(type(np.r_).__base__.__getitem__)
    for made, key in [(np.r_, (x, C, x)), (np.r_, (v, 3, 4.5, slice(1, 4))), (np.r_, (slice(0, 1, 4j), v)),
                      (np.r_, ("1,3,0", x, x)), (np.r_, ("0,3,1", v, v)), (np.c_, (v, v)), (np.r_, (np.arange(3), 2.5)),
                      (np.r_, v)]:
        want, got = made[key], r_(made, key)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(NoDerivativeRule, match="np.matrix"):
        zpy.gradient(lambda x: np.sum(np.r_["r", x, x]), v)


# -- partition, select, real_if_close -------------------------------------------


@pytest.mark.parametrize("shape, kth, axis", [
    ((6,), 2, -1), ((6,), [1, 4], -1), ((3, 5), 0, 1), ((4, 3), -1, 0), ((3, 4), 5, None),
])
def test_partition(shape, kth, axis):
    a = distinct(*shape)
    np.testing.assert_array_equal(zpy.rules.lookup(np.partition)(a, kth, axis)[0], np.partition(a, kth, axis))
    check_rule(np.partition, a, kth, axis)


def test_select():
    x = rand(3, 4)
    conds = [x > 0.5, x < -0.5]
    check_rule(np.select, conds, [rand(3, 4, seed=1), rand(4, seed=2)], rand(3, 1, seed=3))
    check_rule(np.select, conds, (rand(3, 4, seed=1), 2.5), 0.5)
    check_rule(np.select, [x > 0], [x], 0)


def test_select_of_overlapping_conditions_gives_the_first():
    x = np.array([1.0, 2.0, 3.0])
    y, back = zpy.rules.lookup(np.select)([x > 0, x > 1], [x, 2 * x], -1.0)
    dchoices, ddefault = back(np.ones(3))[1:]
    np.testing.assert_array_equal(dchoices[0], [1, 1, 1])
    np.testing.assert_array_equal(dchoices[1], [0, 0, 0])
    assert ddefault == 0


def test_real_if_close():
    close = rand(3) + 1e-18j
    y, _ = zpy.rules.lookup(np.real_if_close)(close)
    assert y.dtype == np.float64
    check_rule(np.real_if_close, rand(3))
    check_rule(np.real_if_close, rand(3) + 0.5j * rand(3, seed=1))
    grads = check_rule(np.real_if_close, close, dy=rand(3, seed=2))
    assert grads[0].dtype == np.complex128


def test_partition_select_at_second_order():
    check_orders(lambda x: loss(np.partition(x * x, 2)), distinct(5) - 0.6)
    check_orders(lambda x: loss(np.select([x > 0.2, x < -0.2], [x ** 2, np.sin(x)], x ** 3)), rand(2, 3))


# -- searches and orders: no gradient, never a refusal ---------------------------


@pytest.mark.parametrize("make", [
    lambda x: x[np.searchsorted(np.sort(x), 0.1)],
    lambda x: x[np.digitize(x, [-0.5, 0.5]).clip(0, 2)],
    lambda x: x[np.argsort(x)],
    lambda x: x[np.argpartition(x, 2)],
    lambda x: x[np.lexsort((x, -x))],
    lambda x: x[x.argpartition(1)],
    lambda x: x[np.sort(x).searchsorted(x)],
])
def test_searches_have_no_gradient_and_do_not_refuse(make):
    x = distinct(5) - 0.7
    check_orders(lambda v: loss(make(v)), x, second=False)


# -- in-place changes as stores ---------------------------------------------------


def fill_with_a_sum(v):
    y = v * 2
    y.fill(np.sum(v * v))
    return loss(y * v)


def fill_diagonal(v):
    y = v * 2
    np.fill_diagonal(y, v[0, :2] ** 2)
    return loss(y * v)


def fill_diagonal_wrapped(v):
    y = np.concatenate([v, v * v], axis=0)
    np.fill_diagonal(y, np.sin(v[0, 0]), wrap=True)
    return loss(y)


def copy_where(v):
    y = v * 2
    np.copyto(y, v[0] ** 2, where=v > 0.2)
    return loss(y * v)


def copy_all(v):
    y = np.zeros_like(v)
    np.copyto(y, np.sin(v))
    return loss(y * v)


def multiply_at(v):
    y = v * 2
    np.multiply.at(y, (0, [0, 1, 1]), v[1])
    return loss(y * v)


def maximum_at(v):
    y = v * 2
    np.maximum.at(y, (0, [0, 1, 1]), v[1] * 3)
    return loss(y * v)


def minimum_at(v):
    y = v + 0.0
    np.minimum.at(y, [1, 1, 0], np.cos(v[0]))
    return loss(y * v)


def partition_in_place(v):
    y = v * 2
    y.partition(1, axis=1)
    return loss(y * v)


@pytest.mark.parametrize("f", [
    fill_with_a_sum, fill_diagonal, copy_where, copy_all, multiply_at, maximum_at, minimum_at, partition_in_place,
], ids=lambda f: f.__name__)
def test_changes_in_place_at_first_and_second_order(f):
    check_orders(f, rand(2, 3) * 0.3 + 0.5)


def test_fill_diagonal_wrapped_at_first_order():
    check_orders(fill_diagonal_wrapped, rand(2, 3) * 0.3 + 0.5, second=False)


def test_changes_in_place_leave_the_arrays_as_numpy_does():
    def run(v):
        y = v * 2
        np.multiply.at(y, ([0, 0, 1], [1, 1, 2]), np.array([2.0, 0.0, -1.0]))
        np.copyto(y, 7.0, where=y < 0)
        np.fill_diagonal(y, [1.0, 3.0])
        return y

    x = rand(2, 3)
    y, back = zpy.pullback(run, x)
    np.testing.assert_array_equal(y, run(x))
    assert back(np.ones((2, 3)))[0].shape == (2, 3)


def test_multiply_at_with_a_zero_factor_is_exact():
    def f(v, b):
        y = v * 1.0
        np.multiply.at(y, [0, 0, 1], b)
        return np.sum(y * y)

    v, b = np.array([1.5, -2.0]), np.array([0.0, 3.0, 0.5])
    check_orders(f, v, b)


def test_an_unsupported_ufunc_at_is_refused():
    def f(v):
        y = v * 1.0
        np.subtract.at(y, [0], v[1])
        return np.sum(y)

    with pytest.raises(NoDerivativeRule, match="np.subtract.at"):
        zpy.gradient(f, rand(2))
