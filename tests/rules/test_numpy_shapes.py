"""The rules of NumPy's shape, joining, indexing and construction functions,
checked against central finite differences (:mod:`.npcheck`)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import zygote_py as zpy
import zygote_py.rules as rules
from zygote_py.ad import pushrules
from zygote_py.ad.inline import rule_ir
from zygote_py.errors import NoDerivativeRule
from zygote_py import runtime
from zygote_py import registry
from zygote_py.rules import numpy_shapes, operators

from .npcheck import check_rule
from .pushcheck import check_pushforward, check_tangents_one_at_a_time, rules_of

# A NumPy warning (a complex value cast to real, a division by zero) is a bug.
pytestmark = pytest.mark.filterwarnings("error")

F32 = dict(rtol=1e-2, atol=1e-3)
HYPOTHESIS = settings(derandomize=True, max_examples=20, deadline=None)


def rand(*shape, seed=0, dtype=np.float64):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape), dtype)


def distinct(*shape, seed=0):
    """Values far apart from each other (no ties for sort)."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape) + 0.25


def check_layout(fn, view, base_shape, *args):
    """For functions whose result depends on the memory layout of their
    input (``order='A'``, ``'K'``): the rule's gradient at the strided view
    ``view(base)``, against the exact slopes of the linear ``fn`` along each
    element of the same view."""
    base = rand(*base_shape)
    a = view(base)
    y, back = rules.lookup(fn)(a, *args)
    np.testing.assert_array_equal(y, fn(a, *args))
    dy = rand(*np.shape(y), seed=1)
    got = back(dy)[0]
    expected = np.zeros(a.shape)
    for idx in np.ndindex(a.shape):
        b = np.zeros(base_shape)
        view(b)[idx] = 1.0
        expected[idx] = np.sum(dy * fn(view(b), *args))
    assert got.shape == a.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    check_pushforward(fn, (a, *args), {}, y, [(0, got)], dy)


LAYOUTS = [
    (lambda b: b, (2, 3, 4)),
    (lambda b: b.T, (4, 3, 2)),  # Fortran-contiguous
    (lambda b: b[::-1], (2, 3, 4)),
    (lambda b: b[:, ::-2], (2, 5, 4)),
    (lambda b: b.transpose(1, 0, 2)[::-1, :, ::-1], (3, 2, 4)),
    (lambda b: b.transpose(2, 0, 1)[:, :, ::2], (2, 6, 3)),
]


# -- shapes -------------------------------------------------------------------


@pytest.mark.parametrize("shape, newshape", [
    ((), (1,)), ((), ()), ((6,), (2, 3)), ((2, 3), (-1,)), ((2, 3, 4), (4, -1)),
    ((2, 3), (3, 2)), ((1, 5), 5),
])
@pytest.mark.parametrize("order", ["C", "F"])
def test_reshape(shape, newshape, order):
    check_rule(np.reshape, rand(*shape), newshape, order)
    check_rule(np.reshape, rand(*shape), kwargs=dict(shape=newshape, order=order))


@pytest.mark.parametrize("view, base_shape", LAYOUTS)
def test_reshape_and_ravel_follow_layout(view, base_shape):
    check_layout(np.reshape, view, base_shape, (3, -1), "A")
    check_layout(np.ravel, view, base_shape, "A")
    check_layout(np.ravel, view, base_shape, "K")
    check_layout(np.ndarray.flatten, view, base_shape, "K")


@pytest.mark.parametrize("view", [
    lambda b: np.broadcast_to(b[:, 0], (5, 3)), lambda b: np.broadcast_to(b[:, :1], (3, 4)),
    lambda b: np.broadcast_to(b.T[None], (2, 4, 3)), lambda b: np.broadcast_to(b[::-1, None, ::2], (3, 2, 2)),
    lambda b: np.broadcast_to(b.T[:, None], (4, 2, 3))[::-1],
])
def test_ravel_keep_order_of_broadcast_views(view):
    """Elements that share memory: each slot of ``dy`` must go to an
    element holding the value raveled into that slot."""
    a = view(distinct(3, 4))
    for fn in (np.ravel, np.ndarray.flatten):
        y, back = rules.lookup(fn)(a, "K")
        np.testing.assert_array_equal(y, fn(a, "K"))
        dy = rand(*y.shape, seed=1)
        assert np.isclose(np.sum(back(dy)[0] * a), np.sum(dy * y))
        check_pushforward(fn, (a, "K"), {}, y, [(0, back(dy)[0])], dy)


def test_reshape_float32():
    grads = check_rule(np.reshape, rand(2, 6, dtype=np.float32), (3, 4), **F32)
    assert grads[0].dtype == np.float32


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_and_flatten(shape, order):
    check_rule(np.ravel, rand(*shape), order)
    check_rule(np.ndarray.ravel, rand(*shape), order)
    check_rule(np.ndarray.flatten, rand(*shape), order)


@pytest.mark.parametrize("shape, args", [
    ((2, 3), (3, 2)), ((2, 3), ((3, 2),)), ((2, 3), ([6],)), ((4,), (-1,)),
    ((2, 3, 4), (4, 6)), ((), ((),)),
])
def test_ndarray_reshape(shape, args):
    grads = check_rule(np.ndarray.reshape, rand(*shape), *args)
    assert len(grads) == 1 + len(args) and all(g is None for g in grads[1:])


def test_ndarray_reshape_order():
    x = rand(2, 3)
    y, back = rules.lookup(np.ndarray.reshape)(x, 3, 2, order="F")
    np.testing.assert_array_equal(y, x.reshape(3, 2, order="F"))
    dy = rand(3, 2, seed=1)
    np.testing.assert_array_equal(back(dy)[0], dy.reshape(2, 3, order="F"))
    check_pushforward(np.ndarray.reshape, (x, 3, 2), dict(order="F"), y, [(0, back(dy)[0])], dy)
    f = np.asfortranarray(x)
    y, back = rules.lookup(np.ndarray.reshape)(f, 6, order="A")
    check_pushforward(np.ndarray.reshape, (f, 6), dict(order="A"), y, [(0, back(dy.ravel())[0])], dy.ravel())


@pytest.mark.parametrize("shape, axes", [
    ((), None), ((), ()), ((4,), None), ((4,), (0,)), ((2, 3), None), ((2, 3), (1, 0)),
    ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (-1, 0, 1)), ((2, 3, 4), [1, 2, 0]),
    ((2, 3, 4), np.array([0, 2, 1])),
])
def test_transpose(shape, axes):
    check_rule(np.transpose, rand(*shape), axes)


@pytest.mark.parametrize("shape, args", [
    ((2, 3), ()), ((2, 3), (None,)), ((2, 3), (1, 0)), ((2, 3, 4), ((2, 0, 1),)),
    ((2, 3, 4), (1, -1, 0)), ((5,), (0,)), ((), ()),
])
def test_ndarray_transpose(shape, args):
    grads = check_rule(np.ndarray.transpose, rand(*shape), *args)
    assert len(grads) == 1 + len(args)


@pytest.mark.parametrize("shape, a1, a2", [
    ((2, 3), 0, 1), ((2, 3, 4), 0, 2), ((2, 3, 4), -1, 1), ((3,), 0, 0),
])
def test_swapaxes(shape, a1, a2):
    check_rule(np.swapaxes, rand(*shape), a1, a2)
    check_rule(np.ndarray.swapaxes, rand(*shape), a1, a2)


@pytest.mark.parametrize("source, destination", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ([0, 2], [-1, -2])])
def test_moveaxis(source, destination):
    check_rule(np.moveaxis, rand(2, 3, 4), source, destination)


@pytest.mark.parametrize("shape, axis", [
    ((), 0), ((3,), 0), ((3,), 1), ((2, 3), -1), ((2, 3), (0, 3)), ((3,), (-1, 0)),
])
def test_expand_dims(shape, axis):
    check_rule(np.expand_dims, rand(*shape), axis)


@pytest.mark.parametrize("shape, axis", [
    ((1,), None), ((1, 3, 1), None), ((1, 3, 1), 0), ((1, 3, 1), -1), ((1, 3, 1), (0, 2)), ((3,), None),
])
def test_squeeze(shape, axis):
    check_rule(np.squeeze, rand(*shape), axis)
    check_rule(np.ndarray.squeeze, rand(*shape), axis)


@pytest.mark.parametrize("shape, target", [
    ((), (3,)), ((3, 1), (2, 3, 4)), ((4,), (3, 4)), ((1, 4), (3, 4)), ((2, 3), (2, 3)), ((1,), (5, 1)),
])
def test_broadcast_to(shape, target):
    check_rule(np.broadcast_to, rand(*shape), target)


def test_broadcast_to_python_float_and_float32():
    dx, _, _ = check_rule(np.broadcast_to, 1.5, (2, 3))
    assert type(dx) is float
    dx, _, _ = check_rule(np.broadcast_to, rand(3, 1, dtype=np.float32), (2, 3, 4), **F32)
    assert dx.dtype == np.float32


@pytest.mark.parametrize("fn", [np.atleast_1d, np.atleast_2d, np.atleast_3d])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_atleast(fn, shape):
    check_rule(fn, rand(*shape))


@pytest.mark.parametrize("fn", [np.atleast_1d, np.atleast_2d, np.atleast_3d])
def test_atleast_numbers_and_lists(fn):
    (dx,) = check_rule(fn, 1.5)
    assert type(dx) is float
    (dx,) = check_rule(fn, np.float32(1.5), **F32)
    assert type(dx) is np.float32
    (dx,) = check_rule(fn, [1.5, -2.0])
    assert type(dx) is list and all(type(v) is float for v in dx)


@HYPOTHESIS
@given(hnp.array_shapes(min_dims=0, max_dims=4, max_side=3), st.data())
def test_reshape_transpose_flip_hypothesis(shape, data):
    x = rand(*shape)
    check_rule(np.reshape, x, shape[::-1])
    check_rule(np.reshape, x, (-1,))
    axes = data.draw(st.permutations(range(len(shape))))
    check_rule(np.transpose, x, tuple(axes))
    if shape:
        axis = data.draw(st.integers(-len(shape), len(shape) - 1))
        check_rule(np.flip, x, axis)
        check_rule(np.roll, x, data.draw(st.integers(-4, 4)), axis)
        check_rule(np.expand_dims, x, axis)


@HYPOTHESIS
@given(hnp.mutually_broadcastable_shapes(num_shapes=1, min_dims=0, max_dims=4, max_side=3))
def test_broadcast_to_hypothesis(shapes):
    check_rule(np.broadcast_to, rand(*shapes.input_shapes[0]), shapes.result_shape)


# -- joining and splitting --------------------------------------------------------


@pytest.mark.parametrize("shapes, axis", [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 2)], 1), ([(2, 3), (2, 5)], -1),
    ([(2, 3), (4,), ()], None), ([(3,)], 0), ([(2, 3, 4), (2, 1, 4)], 1),
])
@pytest.mark.parametrize("container", [list, tuple])
def test_concatenate(shapes, axis, container):
    arrays = container(rand(*s, seed=i) for i, s in enumerate(shapes))
    darrays = check_rule(np.concatenate, arrays, axis)[0]
    assert type(darrays) is container and len(darrays) == len(arrays)


def test_concatenate_mixed_dtypes():
    arrays = [rand(2, dtype=np.float32), rand(3, seed=1)]
    darrays = check_rule(np.concatenate, arrays, **F32)[0]
    assert [d.dtype for d in darrays] == [np.float32, np.float64]


def test_concatenate_rows_of_an_array():
    x = rand(3, 2, 4)
    dx = check_rule(np.concatenate, x, 1)[0]
    assert isinstance(dx, np.ndarray) and dx.shape == x.shape


@pytest.mark.parametrize("shape, n, axis", [
    ((), 3, 0), ((3,), 2, 0), ((3,), 2, 1), ((2, 3), 3, -1), ((2, 3), 2, 1),
])
def test_stack(shape, n, axis):
    arrays = tuple(rand(*shape, seed=i) for i in range(n))
    darrays = check_rule(np.stack, arrays, axis)[0]
    assert type(darrays) is tuple


COMMON = [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], [(2, 3, 2), (2, 3, 2)]]
STACKED = [(np.hstack, s) for s in COMMON + [[(2, 3), (2, 1)], [(3,), (), (2,)]]] + [
    (np.vstack, s) for s in COMMON + [[(1, 3), (3,)], [(2, 3), (1, 3), (3,)]]] + [
    (np.dstack, s) for s in COMMON + [[(1, 3), (3,)], [(2, 3, 1), (2, 3)]]] + [
    (np.column_stack, s) for s in COMMON + [[(2, 1), (2,)], [(3, 2), (3,)]]]


@pytest.mark.parametrize("fn, shapes", STACKED, ids=lambda v: getattr(v, "__name__", repr(v)))
def test_hstack_vstack_dstack_column_stack(fn, shapes):
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    darrays = check_rule(fn, arrays)[0]
    assert type(darrays) is list and [d.shape for d in darrays] == shapes


def test_vstack_makes_rows_of_vectors():
    a, b = rand(3), rand(2, 3, seed=1)
    darrays = check_rule(np.vstack, (a, b))[0]
    assert darrays[0].shape == (3,) and type(darrays) is tuple


@pytest.mark.parametrize("shape, sections, axis", [
    ((6,), 3, 0), ((4, 6), 2, 1), ((4, 6), [1, 3], 0), ((6, 2), [2], -2),
])
def test_split(shape, sections, axis):
    x = rand(*shape)
    dy = [rand(*p.shape, seed=i + 1) for i, p in enumerate(np.split(x, sections, axis))]
    check_rule(np.split, x, sections, axis, dy=dy)
    dy[0] = None
    check_rule(np.split, x, sections, axis, dy=dy)


@pytest.mark.parametrize("shape, sections, axis", [((7,), 3, 0), ((4, 5), 2, 1), ((5, 2), [1, 4], 0)])
def test_array_split(shape, sections, axis):
    x = rand(*shape)
    dy = [rand(*p.shape, seed=i + 1) for i, p in enumerate(np.array_split(x, sections, axis))]
    dy[-1] = None
    (dx, _, _) = check_rule(np.array_split, x, sections, axis, dy=dy)
    assert dx.shape == x.shape


def test_split_float32():
    x = rand(4, 6, dtype=np.float32)
    dy = [rand(4, 3, seed=1, dtype=np.float32), None]
    dx, _, _ = check_rule(np.split, x, 2, 1, dy=dy, **F32)
    assert dx.dtype == np.float32


# -- rearranging ----------------------------------------------------------------


@pytest.mark.parametrize("shape, reps", [
    ((), 3), ((3,), 2), ((3,), (2, 2)), ((2, 3), 2), ((2, 3), (2, 1, 3)), ((2, 1, 3), (1, 2)), ((3,), 0),
])
def test_tile(shape, reps):
    check_rule(np.tile, rand(*shape), reps)


def test_tile_python_float_and_float32():
    dA, _ = check_rule(np.tile, 1.5, (2, 3))
    assert type(dA) is float
    dA, _ = check_rule(np.tile, rand(2, 3, dtype=np.float32), (2, 2), **F32)
    assert dA.dtype == np.float32


@pytest.mark.parametrize("shape, repeats, axis", [
    ((), 3, None), ((4,), 2, None), ((2, 3), 2, None), ((2, 3), 3, 0), ((2, 3), 2, -1),
    ((2, 3), np.array([2]), 1), ((4,), np.array([1, 0, 3, 2]), 0), ((2, 3), [0, 2, 1], 1),
    ((2, 3), [1, 0, 2, 0, 1, 0], None), ((2, 3), [0, 0], 0), ((3, 2), [2, 0, 0], 0),
])
def test_repeat(shape, repeats, axis):
    check_rule(np.repeat, rand(*shape), repeats, axis)
    check_rule(np.ndarray.repeat, rand(*shape), repeats, axis)


def test_repeat_python_float():
    da, _, _ = check_rule(np.repeat, 1.5, 4)
    assert type(da) is float


@pytest.mark.parametrize("shape, axis", [
    ((), None), ((4,), None), ((4,), 0), ((2, 3), -1), ((2, 3, 4), (0, 2)),
])
def test_flip(shape, axis):
    check_rule(np.flip, rand(*shape), axis)


@pytest.mark.parametrize("shape, shift, axis", [
    ((5,), 2, None), ((2, 3), 4, None), ((2, 3), -1, 1), ((2, 3, 4), (1, 2), (0, 2)), ((2, 3), (1, 1), 1),
])
def test_roll(shape, shift, axis):
    check_rule(np.roll, rand(*shape), shift, axis)


@pytest.mark.parametrize("shape, pad_width", [
    ((3,), 2), ((3,), (1, 2)), ((2, 3), 1), ((2, 3), ((1, 0), (2, 3))), ((2, 3), ((1, 2),)),
    ((2, 3, 2), ((0, 1), (1, 1), (2, 0))), ((2, 3), {1: (1, 2)}), ((2, 3), {0: 2}),
])
def test_pad_constant(shape, pad_width):
    x = rand(*shape)
    grads = check_rule(np.pad, x, pad_width)
    assert grads[3] is None  # the integer constant 0
    for values in [1.5, (1.5, -2.0), ((1.5, -2.0),), tuple((0.5 * i, -1.0 * i) for i in range(len(shape)))]:
        grads = check_rule(np.pad, x, pad_width, kwargs=dict(constant_values=values))
        dvalues = grads[3]
        assert type(dvalues) is type(values) and np.shape(dvalues) == np.shape(values)


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("shape, pad_width", [((4,), (2, 3)), ((3, 4), ((1, 2), (3, 1))), ((3, 2), 2)])
def test_pad_copying_modes(mode, shape, pad_width):
    grads = check_rule(np.pad, rand(*shape), pad_width, mode)
    assert grads[1:] == (None, None, None)


def test_pad_empty_mode_and_float32():
    x = rand(2, 3)
    y, back = rules.lookup(np.pad)(x, ((1, 0), (2, 1)), "empty")
    dy = rand(*y.shape, seed=1)
    np.testing.assert_array_equal(back(dy)[0], dy[1:, 2:5])
    check_pushforward(np.pad, (x, ((1, 0), (2, 1)), "empty"), {}, y, [(0, back(dy)[0])], dy)
    dx = check_rule(np.pad, rand(2, 3, dtype=np.float32), 1, "edge", **F32)[0]
    assert dx.dtype == np.float32


def test_pad_other_modes_have_no_rule():
    y, back = rules.lookup(np.pad)(rand(4), 2, "mean")
    np.testing.assert_array_equal(y, np.pad(rand(4), 2, "mean"))
    with pytest.raises(NoDerivativeRule, match="mean"):
        back(np.ones(8))
    with pytest.raises(NoDerivativeRule, match="mean"):
        pushrules.call(registry.lookup_pushforward(np.pad), y, (rand(4), 2, "mean"), {}, (np.ones(4), None, None), {})


def test_pad_of_integers_and_integer_values():
    push = registry.lookup_pushforward(np.pad)
    x = np.arange(3)
    assert pushrules.call(push, np.pad(x, 1, constant_values=1.5), (x, 1), dict(constant_values=1.5),
                          (None, None), dict(constant_values=1.0)) is None
    x = rand(3)
    t = pushrules.call(push, np.pad(x, 1), (x, 1), {}, (np.ones(3), None), {})
    np.testing.assert_array_equal(t, [0.0, 1.0, 1.0, 1.0, 0.0])
    t = pushrules.call(push, np.pad(x, 1, constant_values=2.0), (x, 1), dict(constant_values=2.0),
                       (None, None), dict(constant_values=1.0))
    np.testing.assert_array_equal(t, [1.0, 0.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("shape, axis", [
    ((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((3, 4), None),
])
def test_sort(shape, axis):
    check_rule(np.sort, distinct(*shape), axis)
    check_rule(np.sort, distinct(*shape), axis, "stable")


def test_sort_list_and_float32():
    (da, _, _, _) = check_rule(np.sort, [3.5, -1.0, 2.0])
    assert type(da) is list
    x = distinct(3, 4).astype(np.float32)
    (da, _, _, _) = check_rule(np.sort, x, 0, **F32)
    assert da.dtype == np.float32


@pytest.mark.parametrize("shape, indices, axis", [
    ((5,), 3, None), ((5,), [0, 4, 4, -1], None), ((2, 3), np.array([[0, 5], [5, 5]]), None),
    ((3, 4), [2, 0, 2], 0), ((3, 4), -1, 1), ((3, 4), np.array([[1, 1], [3, 0]]), 1),
    ((2, 3, 4), [0, 0, 3], -1),
])
def test_take(shape, indices, axis):
    check_rule(np.take, rand(*shape), indices, axis)
    check_rule(np.ndarray.take, rand(*shape), indices, axis)


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_take_modes(mode):
    check_rule(np.take, rand(3, 4), [-5, 7, 2, 9], 1, kwargs=dict(mode=mode))
    check_rule(np.take, rand(5), [-1, 12, 3], None, None, mode)


def test_take_float32():
    (da, *_) = check_rule(np.take, rand(4, 3, dtype=np.float32), [1, 1, 0], 0, **F32)
    assert da.dtype == np.float32


@pytest.mark.parametrize("shape, indices, axis", [
    ((5,), [4, 0, 0, 2], -1), ((3, 4), [[0, 0], [3, 1], [2, 2]], 1), ((3, 4), [[0, 2, 2, 1]], 0),
    ((3, 4), [[1], [0], [3]], -1), ((2, 3), [5, 0, 5], None), ((2, 3, 4), np.zeros((2, 1, 4), int), 1),
])
def test_take_along_axis(shape, indices, axis):
    check_rule(np.take_along_axis, rand(*shape), np.array(indices), axis)


@pytest.mark.parametrize("fn", [np.triu, np.tril])
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (2, 3, 4), (4,)])
@pytest.mark.parametrize("k", [-1, 0, 2])
def test_triu_tril(fn, shape, k):
    check_rule(fn, rand(*shape), k)


def test_triu_float32():
    (dm, _) = check_rule(np.triu, rand(3, 3, dtype=np.float32), **F32)
    assert dm.dtype == np.float32


# -- indexing -------------------------------------------------------------------


def index(x, key):
    return x[key]


@pytest.fixture
def indexing():
    rules.adjoint(index)(operators.getitem_array)
    yield
    rules.remove(index)


X = rand(4, 5, 6)
KEYS = [
    1, -1, slice(1, 3), slice(None, None, -2), slice(3, 0, -1), None, Ellipsis, (None, slice(None), 1),
    (Ellipsis, 2), (Ellipsis, None, 0), np.array([0, 2, 0]), [0, 0, 3], np.array([-1, -1, 0]),
    X > 0, np.array([True, False, True, True]), (slice(None), np.array([True, False, True, False, True])),
    (1, slice(None), 2), ([0, 2], slice(1, None)), (np.array([0, 1, 1]), slice(None), np.array([2, 2, 2])),
    (1, 2, 3), np.array([], dtype=int), np.array([[0, 1], [1, 1]]), (slice(None), [4, 4], None, -1),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k)[:30] for k in KEYS])
def test_getitem(indexing, key):
    dx, dkey = check_rule(index, X.copy(), key)
    assert dkey is None


@pytest.mark.parametrize("x, key", [
    (rand(), ()), (rand(), Ellipsis), (rand(), None), (rand(3, dtype=np.float32), [2, 2]),
    (rand(3, 4, dtype=np.float32), (slice(None), 1)),
])
def test_getitem_small_and_float32(indexing, x, key):
    dx, _ = check_rule(index, x, key, **F32)
    assert np.asarray(dx).dtype == x.dtype


# -- construction ---------------------------------------------------------------


@pytest.mark.parametrize("fn", [np.array, np.asarray, np.asanyarray])
def test_array_of_nested_structures(fn):
    dx, *_ = check_rule(fn, rand(2, 3))
    assert isinstance(dx, np.ndarray)
    nested = [[1.5, -2.0], (np.float32(0.5), np.float64(3.0))]
    dx, *_ = check_rule(fn, nested, **F32)  # a float32 leaf
    assert type(dx) is list and type(dx[0]) is list and type(dx[1]) is tuple
    assert type(dx[0][0]) is float and type(dx[1][0]) is np.float32 and type(dx[1][1]) is np.float64
    dx, *_ = check_rule(fn, (rand(3), rand(3, seed=1, dtype=np.float32)), **F32)
    assert type(dx) is tuple and dx[1].dtype == np.float32
    dx, *_ = check_rule(fn, [rand(), 2.0])
    assert isinstance(dx[0], np.ndarray) and dx[0].shape == () and type(dx[1]) is float
    dx, *_ = check_rule(fn, 2.5)
    assert type(dx) is float


@pytest.mark.parametrize("fn", [np.array, np.asarray, np.ascontiguousarray, np.asfortranarray])
def test_array_dtype(fn):
    x = rand(2, 3)
    dx, *_ = check_rule(fn, x, np.float32, **F32)
    assert dx.dtype == np.float64
    dx, *_ = check_rule(fn, [1.5, 2.5], "float32", **F32)
    assert type(dx) is list and type(dx[0]) is float
    grads = check_rule(fn, x, int)
    assert grads[0] is None
    grads = check_rule(fn, x, bool)
    assert grads[0] is None
    dx, *_ = check_rule(fn, x, complex, dy=rand(2, 3, seed=1) + 1j * rand(2, 3, seed=2), output=np.real)
    assert dx.dtype == np.float64


def test_array_ndmin():
    dx, *_ = check_rule(np.array, rand(3), kwargs=dict(ndmin=3))
    assert dx.shape == (3,)
    dx, *_ = check_rule(np.array, [1.5, 2.0], kwargs=dict(ndmin=2))
    assert type(dx) is list


def test_copy():
    for fn in (np.copy, np.ndarray.copy):
        dx, *_ = check_rule(fn, rand(2, 3))
        dx, *_ = check_rule(fn, rand(2, 3, dtype=np.float32), **F32)
        assert dx.dtype == np.float32


def test_astype():
    x = rand(2, 3)
    y, back = rules.lookup(np.ndarray.astype)(x, np.float32)
    assert y.dtype == np.float32
    dy = rand(2, 3, seed=1, dtype=np.float32)
    dx = back(dy)[0]
    assert dx.dtype == np.float64
    np.testing.assert_array_equal(dx, dy.astype(np.float64))
    check_pushforward(np.ndarray.astype, (x, np.float32), {}, y, [(0, dx)], dy)
    check_rule(np.ndarray.astype, rand(2, 3, dtype=np.float32), np.float64, **F32)
    assert check_rule(np.ndarray.astype, x, np.int64)[0] is None
    assert check_rule(np.ndarray.astype, x, "bool")[0] is None


@pytest.mark.parametrize("shape, fill_value", [
    ((2, 3), 1.5), ((2, 3), rand(3)), (4, rand()), ((2, 3), rand(2, 1)),
])
def test_full(shape, fill_value):
    grads = check_rule(np.full, shape, fill_value)
    assert type(grads[1]) is type(fill_value)
    assert check_rule(np.full, shape, fill_value, int)[1] is None


@pytest.mark.parametrize("start, stop, kwargs", [
    (0.5, 2.0, {}), (0.5, 2.0, dict(num=7, endpoint=False)), (-1.0, 3.0, dict(num=1)),
    (rand(3), 2.0, dict(num=5)), (rand(3), rand(2, 1, seed=1), dict(num=4, axis=-1)),
    (1.0, rand(2), dict(num=3, axis=1)),
])
def test_linspace(start, stop, kwargs):
    check_rule(np.linspace, start, stop, kwargs=kwargs)


def test_linspace_retstep_and_dtype():
    dy = (rand(6, seed=1), 0.7)
    dstart, dstop, *_ = check_rule(np.linspace, 0.5, 2.0, 6, kwargs=dict(retstep=True), dy=dy)
    assert type(dstart) is float
    dy = (None, np.array([0.7, -0.2]))
    check_rule(np.linspace, rand(2), 2.0, 4, True, True, dy=dy)
    assert check_rule(np.linspace, 0.5, 9.3, 4, kwargs=dict(dtype=int))[:2] == (None, None)


@pytest.mark.parametrize("shapes, kwargs", [
    ([(3,), (4,)], {}), ([(3,), (4,)], dict(indexing="ij")), ([(2,), (3,), (4,)], {}),
    ([(2,), (3,), (2,)], dict(indexing="ij", sparse=True)), ([(3,)], {}), ([(2, 2), (3,)], {}),
])
def test_meshgrid(shapes, kwargs):
    xs = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    dy = tuple(rand(*g.shape, seed=10 + i) for i, g in enumerate(np.meshgrid(*xs, **kwargs)))
    check_rule(np.meshgrid, *xs, kwargs=kwargs, dy=dy)
    dy = (None,) + dy[1:]
    grads = check_rule(np.meshgrid, *xs, kwargs=kwargs, dy=dy)
    assert grads[0] is None


# -- registration -----------------------------------------------------------------


NONDIFFERENTIABLE = [
    np.zeros, np.ones, np.empty, np.eye, np.identity, np.tri, np.arange, np.indices, np.argwhere,
    np.nonzero, np.flatnonzero, np.tril_indices, np.triu_indices, np.diag_indices, np.unravel_index,
    np.ravel_multi_index, np.ndarray.nonzero,
]


@pytest.mark.parametrize("fn", NONDIFFERENTIABLE, ids=lambda f: f.__qualname__)
def test_nondifferentiable(fn):
    assert rules.is_nondifferentiable(fn)


RUNTIME_ONLY = {np.ndarray.reshape, np.ndarray.transpose, np.pad, np.meshgrid}


@pytest.mark.parametrize("fn", [
    np.reshape, np.ravel, np.transpose, np.swapaxes, np.moveaxis, np.expand_dims, np.squeeze,
    np.broadcast_to, np.atleast_1d, np.atleast_2d, np.atleast_3d, np.concatenate, np.stack, np.hstack,
    np.vstack, np.dstack, np.column_stack, np.split, np.array_split, np.tile, np.repeat, np.flip,
    np.roll, np.pad, np.sort, np.take, np.take_along_axis, np.triu, np.tril, np.array, np.asarray,
    np.asanyarray, np.ascontiguousarray, np.asfortranarray, np.copy, np.full, np.linspace, np.meshgrid,
    np.ndarray.reshape, np.ndarray.transpose, np.ndarray.ravel, np.ndarray.flatten, np.ndarray.squeeze,
    np.ndarray.swapaxes, np.ndarray.repeat, np.ndarray.take, np.ndarray.copy, np.ndarray.astype,
], ids=lambda f: f.__qualname__)
def test_registered_and_inlinable(fn):
    rule = rules.lookup(fn)
    assert rule is not None and rule.__module__ == numpy_shapes.__name__
    assert (rule_ir(rule, fn) is None) == (fn in RUNTIME_ONLY)


RUNTIME_ONLY_PUSH = {np.ndarray.reshape, np.pad, np.meshgrid}
"""Pushforward rules with branches or loops, called at run time."""


@pytest.mark.parametrize("fn", rules_of(numpy_shapes), ids=registry.display_name)
def test_pushforward_inlinable(fn):
    push = registry.lookup_pushforward(fn)
    assert push.__name__ == rules.lookup(fn).__name__ + "_push"
    assert (pushrules.push_ir(push) is None) == (fn in RUNTIME_ONLY_PUSH)


def test_getitem_rule_inlinable_and_not_registered():
    assert rules.lookup(index) is None
    assert rule_ir(operators.getitem_array, index) is not None


def sparse_row(shape, seed=1):
    """A cotangent for an output of ``shape`` that only its row 1 reaches,
    as ``runtime.scatter`` makes it (possibly a sparse object), and the
    same cotangent as a plain array."""
    row = rand(*shape[1:], seed=seed)
    dense = np.zeros(shape)
    dense[1] = row
    return runtime.scatter(np.zeros(shape), 1, row), dense


@pytest.mark.parametrize("fn, args", [
    (np.reshape, (rand(4, 3), (6, 2))), (np.reshape, (rand(4, 3), (6, 2), "F")), (np.transpose, (rand(3, 4),)),
    (np.ravel, (rand(2, 4, 2), "F")), (np.concatenate, ([rand(2, 3), rand(3, 3, seed=1)],)),
    (np.stack, ((rand(3), rand(3, seed=1), rand(3, seed=2), rand(3, seed=3)),)),
    (np.pad, (rand(2, 3), 1, "constant", 1.5)), (np.pad, (rand(4, 3), 1, "reflect")), (np.sort, (distinct(5, 3), 0)),
    (np.take, (rand(4, 3), [0, 0, 2, 3], 0)), (np.tile, (rand(2, 3), (2, 1))), (np.repeat, (rand(2, 3), 2, 0)),
    (np.repeat, (rand(2, 3), [1, 3], 0)), (np.array, ([[1.5, 2.0], [0.5, 1.0], [3.0, 4.0], [1.0, 2.0]],)),
    (np.triu, (rand(4, 4),)), (np.take_along_axis, (rand(4, 3), np.array([[0, 1, 1]] * 4), 0)),
])
def test_sparse_cotangents(fn, args):
    """Pullbacks take a cotangent from ``runtime.scatter`` (the gradient of
    ``x[i]``) as they take the dense array it stands for."""
    y, back = rules.lookup(fn)(*args)
    sparse, dense = sparse_row(y.shape)
    for got, expected in zip(back(sparse), back(dense)):
        assert type(got) is type(expected) or isinstance(got, np.ndarray)
        if expected is not None:
            np.testing.assert_allclose(flat(got), flat(expected))


def flat(value):
    if isinstance(value, (tuple, list)):
        return np.concatenate([flat(v) for v in value])
    return np.ravel(np.asarray(value, dtype=float))


def test_python_float_cotangent_of_0d_output():
    (dx, _, _) = check_rule(np.reshape, rand(1, 1), (), dy=0.5)
    assert dx.shape == (1, 1)
    (dx, _) = check_rule(np.transpose, rand(), dy=0.5)
    assert isinstance(dx, np.ndarray) and dx.shape == ()


# -- pushforwards ----------------------------------------------------------------


@pytest.mark.parametrize("fn, items", [
    (np.concatenate, [rand(2, 3), np.ones((1, 3), int), rand(2, 3, seed=1, dtype=np.float32)]),
    (np.stack, (rand(3), np.arange(3), rand(3, seed=1))),
    (np.hstack, [rand(2), rand(3, seed=1)]),
    (np.vstack, [rand(3), np.arange(3), rand(2, 3, seed=1)]),
    (np.dstack, (rand(2, 2), rand(2, 2, seed=1))),
    (np.column_stack, [np.arange(3), rand(3, seed=1)]),
    (np.array, [[1.5, 2], (np.float32(0.5), 3.0)]),
    (np.array, [rand(2), [0.5, 3]]),
    (np.asarray, [2.5, rand()]),
])
def test_tangents_of_sequences_with_items_without_one(fn, items):
    """Only some items have a tangent (``None`` for the others, as an
    inlined rule gets them): the tangent is that of the same items with
    zeros for the missing ones, of ``fn``'s output's dtype."""
    rng = np.random.default_rng(3)

    def tangent(x, keep):
        """``keep``: whether ``x`` has a tangent, or a list of that for its items."""
        if isinstance(x, (list, tuple)) and keep is not False:
            keeps = keep if isinstance(keep, list) else [keep] * len(x)
            return type(x)(tangent(v, k) for v, k in zip(x, keeps))
        if not keep or np.asarray(x).dtype.kind != "f":
            return None
        return rng.standard_normal(x.shape) if isinstance(x, np.ndarray) else type(x)(rng.standard_normal())

    def zeros(x, t):
        if isinstance(x, (list, tuple)):
            return type(x)(zeros(v, d) for v, d in zip(x, [None] * len(x) if t is None else t))
        return np.zeros(np.shape(x)) if t is None else t

    y = fn(items)
    for keep in ([True, False, True], [False, True, False], [[True, False], False], [False, [False, True]]):
        keep = keep[:len(items)] + [True] * (len(items) - len(keep))
        if not any(keep):
            continue
        t = tangent(items, keep)
        got = pushrules.call(registry.lookup_pushforward(fn), y, (items,), {}, (t,), {})
        assert isinstance(got, np.ndarray) and got.shape == y.shape and got.dtype == y.dtype
        np.testing.assert_allclose(got, np.asarray(fn(zeros(items, t)), dtype=float))


@pytest.mark.parametrize("fn, args, kwargs", [
    (np.linspace, (rand(3), 2.0), dict(num=5)), (np.linspace, (rand(3), rand(2, 1, seed=1)), dict(num=4, axis=-1)),
    (np.linspace, (1.0, rand(2)), dict(num=3, axis=1)), (np.linspace, (rand(2), rand(2, seed=1)), {}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_pushforward_with_zero_tangents(fn, args, kwargs):
    check_tangents_one_at_a_time(fn, *args, kwargs=kwargs)


def test_meshgrid_of_an_integer_grid():
    x, n = rand(3), np.arange(4)
    y = np.meshgrid(x, n)
    dx, dn = pushrules.call(registry.lookup_pushforward(np.meshgrid), y, (x, n), {}, (np.ones(3), None), {})
    assert dn is None
    np.testing.assert_array_equal(dx, np.ones((4, 3)))


def items_product(x):
    items = x.tolist()
    return items[0] * items[1] + items[2] ** 2


def row_squares(x):
    return sum([v * v for v in np.outer(x, x).tolist()[1]])


@pytest.mark.parametrize("f", [items_product, row_squares])
def test_tolist_gradient_and_tangent(f):
    x = rand(3)
    (g,) = zpy.gradient(f, x)
    h = 1e-6
    fd = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)
    y, dy = zpy.jvp(f, (x,), (np.array([0.3, -1.1, 0.7]),))
    assert y == f(x) and dy == pytest.approx(fd @ np.array([0.3, -1.1, 0.7]), rel=1e-7)


def test_numpy_float64_made_of_a_number():
    f = lambda t: np.float64(t * t) * t  # noqa: E731
    assert zpy.gradient(f, 0.7)[0] == pytest.approx(3 * 0.49)
    assert zpy.jvp(f, (0.7,), (2.0,))[1] == pytest.approx(2 * 3 * 0.49)


def zeros_of_its_type(x):
    return np.sum((np.zeros(3, dtype=np.result_type(x, 1.0)) + x) ** 2)


def test_result_type_of_a_differentiated_array_carries_no_gradient():
    x = rand(3)
    (g,) = zpy.gradient(zeros_of_its_type, x)
    np.testing.assert_allclose(g, 2 * x, rtol=1e-12)
