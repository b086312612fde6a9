"""The helpers copied into gradient modules (backend/standalone.py) agree
with the runtime's on real numbers and arrays."""
import collections
import dataclasses
import operator
import types

import numpy as np
import pytest

from zygote_py import registry, runtime
from zygote_py.writer import standalone
from zygote_py.ir import ops
from zygote_py.ad import mutation
from zygote_py.rules import numpy_linalg, numpy_shapes

rng = np.random.default_rng(0)
A23, A13, A3, A1 = rng.normal(size=(2, 3)), rng.normal(size=(1, 3)), rng.normal(size=3), rng.normal(size=1)


def dense(g):
    return runtime.dense(g)


@pytest.mark.parametrize("dy,x", [
    (1.5, 2.0), (np.float64(1.5), 2.0), (A23, A23), (A23, A13), (A23, A3), (A23, 2.0), (A23, np.float64(2.0)),
    (A23, A1), (np.float64(1.0), np.float64(3.0)), (A23, A23.astype(np.float32)), (A3 + 1j * A3, A3),
])
def test_unbroadcast(dy, x):
    want = runtime.unbroadcast(dy, x)
    got = standalone.unbroadcast(dy, x)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.shape(got) == np.shape(want) and getattr(got, "dtype", None) == getattr(want, "dtype", None)


@pytest.mark.parametrize("y", [2.0, np.float64(2.0), np.float32(2.0), np.array(3.0), 3])
def test_seed(y):
    want, got = runtime.seed(y), standalone.seed(y)
    assert type(got) is type(want) and got == want


@pytest.mark.parametrize("y", [A3, "s", 1j, True])
def test_seed_refuses_what_is_not_a_real_scalar(y):
    with pytest.raises(Exception):
        runtime.seed(y)
    with pytest.raises(TypeError):
        standalone.seed(y)


@pytest.mark.parametrize("x,key,dy", [
    (A3, 1, 2.0), (A23, (1, 2), 2.0), (A23, 0, A3), (A23, (slice(None), 1), A23[:, 1]),
    (A3, np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0])), (A3, A3 > 0, np.ones(int((A3 > 0).sum()))),
    (np.arange(6.0), 4, 1.5),
])
def test_scatter_add_at_add_to(x, key, dy):
    np.testing.assert_array_equal(standalone.scatter(x, key, dy), dense(runtime.scatter(x, key, dy)))
    g = np.ones_like(x)
    np.testing.assert_array_equal(standalone.add_at(g, x, key, dy), dense(runtime.add_at(g.copy(), x, key, dy)))
    np.testing.assert_array_equal(standalone.add_to(0, x, key, dy), dense(runtime.add_to(0, x, key, dy)))


A64 = rng.normal(size=(6, 4))


@pytest.mark.parametrize("key", [
    np.array([0, 2, 2, -1, 2]), ([1, 1, 3], slice(1, None)), (slice(None), np.array([0, 3, 3, -1])), (..., [1, 1]),
    (slice(1, 4), [2, 0]), (np.array([0, 2, 2, 5]), np.array([1, 3, 3, -1])), ([[0], [5]], [1, 1]), A64[:, 0] > 0,
], ids=["rows", "rows-slice", "columns", "ellipsis", "slice-columns", "pairs", "broadcast-pairs", "mask"])
def test_scatter_adds_repeated_indices_on_dask_arrays(key):
    # (Dask has no np.add.at: repeated positions are added by assignment, in layers of distinct ones)
    da = pytest.importorskip("dask.array")
    dy = rng.normal(size=A64[key].shape)
    want = dense(runtime.scatter(A64, key, dy))
    for x, d in ((da.from_array(A64, chunks=3), da.from_array(dy)), (da.from_array(A64, chunks=3), dy),
                 (A64, da.from_array(dy))):
        got = standalone.scatter(x, key, d)
        assert isinstance(got, da.Array)
        np.testing.assert_allclose(got.compute(), want, rtol=1e-15, atol=0)


A48 = rng.normal(size=(4, 8))


@pytest.mark.parametrize("x,keys,values,dense_array", [
    (A48, tuple((slice(None), slice(2 * k, 2 * k + 2)) for k in range(4)), tuple(A48[:, 2 * k:2 * k + 2] for k in range(4)),
     True),
    (A48, ((slice(None), slice(0, 6)), (slice(None), slice(4, 8))), (A48[:, :6], A48[:, 4:]), True),  # overlapping
    (A48, (0, 1), (A48[0], None), False),  # a part with no gradient: a quarter of x, sparse
    (A48, (0, (1, 2)), (A48[0], 2.0), True),  # over a quarter of x
    (A3, (np.array([0, 0, 2]), 1), (np.array([1.0, 2.0, 3.0]), 4.0), True),  # repeated indices add up
    (A3, (0, slice(1, 3)), (1.0 + 2j, A3[1:] * 1j), True),  # a real x takes the real parts
])
def test_scatters_is_the_sum_of_the_scatters(x, keys, values, dense_array):
    want = 0
    for key, dy in zip(keys, values):
        if dy is not None:
            want = want + dense(runtime.scatter(x, key, dy))
    got = runtime.scatters(x, keys, values)
    assert type(got) is (np.ndarray if dense_array else runtime.Scatter)
    np.testing.assert_allclose(dense(got), want, rtol=1e-15)
    np.testing.assert_allclose(standalone.scatters(x, keys, values), want, rtol=1e-15)
    assert runtime.scatters(x, keys, (None,) * len(keys)) is None and standalone.scatters(x, keys, (None,) * len(keys)) is None


@pytest.mark.parametrize("a,b", [(None, 1.0), (1.0, None), (1.0, 2.0), ((1.0, None), (2.0, 3.0)),
                                 ([A3], [A3]), ({"a": 1.0}, {"a": 2.0, "b": 1.0})])
def test_accum(a, b):
    want, got = runtime.accum(a, b), standalone.accum(a, b)
    assert type(got) is type(want)
    assert repr(got) == repr(want)


@dataclasses.dataclass
class Point:
    w: np.ndarray
    b: float


def test_field_gradients_are_the_runtime_tangents_fields():
    """A namespace with the attributes of the runtime's Tangent, and the
    sum of two of them (accum) the sum of the Tangents, field by field."""
    p = Point(A3, 0.5)
    pairs = [(f(p, "w", A3), f(p, "b", 2.0)) for f in (runtime.field_gradient, standalone.field_gradient)]
    for (want_w, want_b), (got_w, got_b) in [pairs]:
        for want, got in ((want_w, got_w), (want_b, got_b), (runtime.accum(want_w, want_b), standalone.accum(got_w, got_b)),
                          (runtime.accum(want_w, want_w), standalone.accum(got_w, got_w))):
            assert type(got) is types.SimpleNamespace and list(vars(got)) == ["w", "b"]
            for name in ("w", "b"):
                if getattr(want, name) is None:
                    assert getattr(got, name) is None
                else:
                    np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


@pytest.mark.parametrize("x,g", [(A3, 0), (A3, 0.0), (A3, A3), (2.0, 0.0), (2.0, None)])
def test_user_gradient(x, g):
    want, got = runtime.user_gradient(x, g), standalone.user_gradient(x, g)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


def test_iteration_helpers():
    it = iter([None, 1])
    assert [standalone.iternext(it), standalone.iternext(it)] == [None, 1]
    end = standalone.iternext(it)
    assert standalone.exhausted(end) and not standalone.exhausted(None)
    assert ops.exhausted(ops.iternext(iter([])))


def test_every_replacement_has_the_runtime_name():
    for original, replacement in standalone.REPLACES.items():
        assert original.__name__ == replacement.__name__


@pytest.mark.parametrize("key,value", [(1, 2.0), (slice(0, 2), np.array([1.0, 2.0])), (np.array([0, 2]), 5.0),
                                       (A3 > 0, 7.0), ((1,), 3.0)])
def test_store_item(key, value):
    want, got = A3.copy(), A3.copy()
    assert mutation.store_item(want, key, value) is want and standalone.store_item(got, key, value) is got
    np.testing.assert_array_equal(got, want)


def test_store_item_refuses_a_repeated_position_as_the_runtime_does():
    with pytest.raises(Exception, match="repeats a position"):
        mutation.store_item(A3.copy(), np.array([0, 0]), 1.0)
    with pytest.raises(ValueError, match="repeats a position"):
        standalone.store_item(A3.copy(), np.array([0, 0]), 1.0)


def test_dense_gradients_are_kept():
    assert standalone.dense(A3) is A3 and standalone.dense(None) is None


@pytest.mark.parametrize("value", [1.5, 2, np.float32(1.0), np.float64(2.0), True])
def test_real_numbers_accepts_real_numbers(value):
    standalone.real_numbers(x=value)


@pytest.mark.parametrize("value", [A3, [1.0], 1j, "1.0", None])
def test_real_numbers_refuses_the_rest_naming_the_parameter(value):
    with pytest.raises(TypeError, match="^x is a .* annotate it"):
        standalone.real_numbers(b=1.0, x=value)


def test_real_arrays():
    standalone.real_arrays(w=A3, x=A23)
    with pytest.raises(TypeError, match="^x is a list"):
        standalone.real_arrays(w=A3, x=[1.0])


def test_real_parameters_checks_both_kinds():
    standalone.real_parameters(numbers=dict(b=1.0), arrays=dict(w=A3))
    with pytest.raises(TypeError, match="^b is a ndarray"):
        standalone.real_parameters(numbers=dict(b=A3), arrays=dict(w=A3))
    with pytest.raises(TypeError, match="^w is a float"):
        standalone.real_parameters(numbers=dict(b=1.0), arrays=dict(w=1.0))


@pytest.mark.parametrize("g,x", [
    (A3, A3), (A3.astype(np.float32), A3), (A3 + 1j * A3, A3), (A3, A3.astype(np.float32)), (np.float64(2.0), 3.0),
    (A3, [1.0, 2.0, 3.0]), (A23, (A3, A3)), (np.float64(0.0), (1.0, 2.0)), (2.0, np.float32(1.0)),
    (1j, 2.0), (A3, A3 > 0), (A3, np.arange(3)),
])
def test_like(g, x):
    want, got = numpy_shapes.like(g, x), standalone.like(g, x)
    assert type(got) is type(want)
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want) and all(type(u) is type(v) for u, v in zip(got, want))
    np.testing.assert_array_equal(np.asarray(got, dtype=object if want is None else None), np.asarray(want))


def test_like_refuses_an_array_made_in_python():
    class Pair:
        def __array__(self, dtype=None, copy=None):
            return np.array([1.0, 2.0])

    with pytest.raises(TypeError, match="through its __array__"):
        standalone.like(A1[:2], Pair())


def test_array_tests_are_the_runtimes():
    from zygote_py.runtime import arrays

    values = [A3, A23[0], np.float64(1.0), 2.0, [1.0, 2.0], np.ma.masked_array(A3), np.int64(3), np.ndarray]
    try:
        import dask.array as da
        values.append(da.from_array(A3, chunks=2))
    except ImportError:
        pass
    for v in values:
        assert standalone.is_foreign(v) == arrays.is_foreign(v), v
        assert standalone.is_array(v) == arrays.is_array(v), v
        got, want = standalone.asarray(v), arrays.asarray(v)
        assert type(got) is type(want) and (got is v) == (want is v), v


@pytest.mark.parametrize("f,args", [
    (operator.matmul, (A23, A3)), (operator.add, (A23, 2.0)), (operator.mul, (-0.5, A13)), (abs, (A3 - 0.2,)),
    (operator.pow, (A3, 2)), (ops.build_tuple, (A3, 2.0)),
])
def test_by_rule_is_the_runtimes_J(f, args):
    y, back = standalone.by_rule(f, registry.lookup(f), *args)
    want, want_back = runtime.J(f, *args)
    dy = tuple(np.ones_like(np.asarray(v)) for v in want) if f is ops.build_tuple else np.ones_like(want) + A1
    for got, g in zip([y, *back(dy)], [want, *want_back(dy)]):
        assert (got is None) == (g is None)
        if g is not None:
            np.testing.assert_allclose(np.hstack(got) if type(g) is tuple else got,
                                       np.hstack(g) if type(g) is tuple else g)
    assert standalone.call_pullback(back, None) == (None,) * (len(args) + 1)
    assert f is ops.build_tuple or back(0) == (None,) * (len(args) + 1)  # (an array's 0: no gradients)


def test_by_rule_refuses_what_the_runtime_differentiates_otherwise():
    class Meters:
        def __mul__(self, other):
            return self

    with pytest.raises(TypeError, match="^mul of a Meters: this gradient module was emitted for numbers and arrays"):
        standalone.by_rule(operator.mul, registry.lookup(operator.mul), Meters(), 2.0)
    with pytest.raises(TypeError, match="^mul of a matrix"):  # (whose * is @)
        standalone.by_rule(operator.mul, registry.lookup(operator.mul), np.asmatrix(A23), A3)
    with pytest.raises(TypeError, match="^add of a list or tuple"):
        standalone.by_rule(operator.add, registry.lookup(operator.add), [1.0], [2.0])


@pytest.mark.parametrize("shape,offset,dy", [((3, 3), 0, A3), ((2, 3), 1, np.array([1.0, 2.0])), ((3, 2), -1, 2.5)])
def test_diagonal_scatter_is_dense(shape, offset, dy):
    a = np.zeros(shape)
    np.testing.assert_array_equal(standalone.diagonal_scatter(a, offset, dy),
                                  dense(numpy_linalg.diagonal_scatter(a, offset, dy)))


@pytest.mark.parametrize("make,dy", [
    (lambda: (sum, [A3, 2 * A3]), A3 + 1), (lambda: (sum, (1.0, 2.0), 3.0), 1.5), (lambda: (sum, A23), A3),
    (lambda: (mutation.append, [A3, 1.0], 2.0), [A3, 2.0, 3.0]),
])
def test_the_rules_of_sum_and_append_are_the_runtimes(make, dy):
    f, *args = make()
    rule = standalone.REPLACES[registry.lookup(f)]
    y, back = standalone.by_rule(f, rule, *args)
    f, *args = make()
    want, want_back = runtime.J(f, *args)
    got, expected = [y, *back(dy)], [want, *want_back(dy)]
    assert len(got) == len(expected) and type(got[1]) is type(expected[1])
    for g, e in zip(got, expected):
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(flat(g), flat(e))


def flat(v):
    return np.hstack([np.ravel(u) for u in v]) if isinstance(v, (list, tuple)) else np.ravel(v)


def test_sum_and_append_refuse_objects_whose_class_adds_in_python():
    class Meters(float):
        def __add__(self, other):
            return self

    with pytest.raises(TypeError, match="^sum of what is not a list, tuple or array of numbers and arrays"):
        standalone.sum_([Meters(1.0), 2.0])
    with pytest.raises(TypeError, match="^append to a deque"):
        standalone.append_(collections.deque(), 1.0)


@pytest.mark.parametrize("container,key,dy", [((A3, 2.0), 0, A3 + 1), ([1.0, 2.0, 3.0], slice(1, None), [4.0, 5.0]),
                                              ({"a": 2.0}, "a", 3.0), (A23, (1, slice(None)), A3)])
def test_the_rule_of_an_item_is_the_runtimes(container, key, dy):
    y, back = standalone.by_rule(operator.getitem, standalone.getitem, container, key)
    want, want_back = runtime.J(operator.getitem, container, key)
    np.testing.assert_array_equal(y, want)
    got, expected = back(dy), want_back(dy)
    assert type(got[1]) is type(expected[1]) and got[2] is None and expected[2] is None
    if isinstance(expected[1], dict):
        assert got[1] == expected[1]
    else:
        assert all((g is None) == (e is None) for g, e in zip(got[1], expected[1]))
        np.testing.assert_allclose(flat([g for g in got[1] if g is not None]),
                                   flat([e for e in expected[1] if e is not None]))
    with pytest.raises(TypeError, match="^no gradient for the items of a range"):
        standalone.getitem(range(3), 1)[1](1.0)


def test_the_item_of_a_numpy_scalar_is_the_runtimes():
    # (x[()] of a float64: np.median's gradient code indexes one)
    got = standalone.getitem(np.float64(2.5), ())
    want = runtime.J(operator.getitem, np.float64(2.5), ())
    assert got[0] == want[0] == 2.5
    assert float(got[1](3.0)[0]) == float(want[1](3.0)[1]) == 3.0


def test_a_method_of_an_array_is_called_by_the_rule_of_numpys():
    pair, back = standalone.by_method(registry.lookup(np.ndarray.sum), A23, "sum", 1)
    want, want_back = runtime.J(mutation.call_method, A23, "sum", 1)
    assert pair[0] is A23 and want[0] is A23
    np.testing.assert_array_equal(pair[1], want[1])
    for got, expected in zip(back((A23, A3[:2])), want_back((A23, A3[:2]))):
        assert (got is None) == (expected is None)
        if expected is not None:
            np.testing.assert_allclose(got, expected)
    for other in ([1.0], np.asmatrix(A23)):
        with pytest.raises(TypeError, match="^sum of a (list|matrix): this gradient module was emitted for an array's"):
            standalone.by_method(registry.lookup(np.ndarray.sum), other, "sum")
