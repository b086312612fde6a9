"""The helpers copied into gradient modules (backend/standalone.py) agree
with the runtime's on real numbers and arrays."""
import numpy as np
import pytest

from zygote_py import runtime
from zygote_py.backend import standalone
from zygote_py.ir import ops

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


@pytest.mark.parametrize("a,b", [(None, 1.0), (1.0, None), (1.0, 2.0), ((1.0, None), (2.0, 3.0)),
                                 ([A3], [A3]), ({"a": 1.0}, {"a": 2.0, "b": 1.0})])
def test_accum(a, b):
    want, got = runtime.accum(a, b), standalone.accum(a, b)
    assert type(got) is type(want)
    assert repr(got) == repr(want)


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
