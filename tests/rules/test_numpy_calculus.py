"""The rules of :mod:`zygote_py.rules.numpy_calculus` (differences,
``gradient``, ``trapezoid``, ``interp``, ``polyval``, ``convolve``,
``correlate``, ``bincount``) and :mod:`zygote_py.rules.numpy_ufuncs` (the
ufuncs' ``reduce``, ``accumulate``, ``reduceat``; ``cumulative_prod``), and
the second derivatives of ``np.pad``, ``np.tile`` and ``np.repeat``, checked
against central finite differences: each rule directly (reverse mode, and
its pushforward against it), and through compiled code at first and second
order."""
import numpy as np
import pytest

from zygote_py import registry

from zygote_py.rules import lookup

from .npcheck import check_rule
from .ordercheck import check_orders
from .test_numpy_arrays import loss, rand

pytestmark = pytest.mark.filterwarnings("error")

# -- differences and derivatives ------------------------------------------------


@pytest.mark.parametrize("n, axis", [(0, -1), (1, -1), (2, 0), (3, 1)])
@pytest.mark.parametrize("ends", [{}, dict(prepend=0.5), dict(append="array"), dict(prepend="array", append=1.5)])
def test_diff(n, axis, ends):
    a = rand(4, 5)
    shape = list(a.shape)
    shape[axis] = 2
    kwargs = {k: rand(*shape, seed=3) if v == "array" else v for k, v in ends.items()}
    check_rule(np.diff, a, n, axis, kwargs=kwargs)


@pytest.mark.parametrize("kwargs", [{}, dict(to_begin=rand(2)), dict(to_end=1.5, to_begin=[0.5])])
def test_ediff1d(kwargs):
    check_rule(np.ediff1d, rand(2, 3), kwargs=kwargs)


@pytest.mark.parametrize("spacing", [(), (0.7,), (np.array([0.0, 0.4, 1.5, 2.0, 3.1]),)])
def test_gradient_along_one_axis(spacing):
    for edge_order in (1, 2):
        check_rule(np.gradient, rand(3, 5), *spacing, kwargs=dict(axis=1, edge_order=edge_order))
        check_rule(np.gradient, rand(5), *spacing, kwargs=dict(edge_order=edge_order))


@pytest.mark.parametrize("spacing, axis", [((), None), ((0.5, 2.0), None), ((0.3,), (1, 0)),
                                           ((np.array([0.0, 1.0, 1.5]), 0.5), None)])
def test_gradient_along_several_axes(spacing, axis):
    f = rand(3, 4)
    out = np.gradient(f, *spacing, axis=axis)
    dy = tuple(rand(*np.shape(o), seed=i + 1) for i, o in enumerate(out))
    check_rule(np.gradient, f, *spacing, kwargs=dict(axis=axis), dy=dy)


@pytest.mark.parametrize("kwargs", [{}, dict(dx=0.3), dict(axis=0), dict(x=np.array([0.0, 0.5, 1.6, 2.0])),
                                    dict(x="same", axis=0)])
def test_trapezoid(kwargs):
    y = rand(3, 4)
    if isinstance(kwargs.get("x"), str):
        kwargs = dict(kwargs, x=np.cumsum(np.abs(rand(3, 4, seed=2)), axis=0))
    check_rule(np.trapezoid, y, kwargs=kwargs)


def test_differences_and_derivatives_at_second_order():
    check_orders(lambda x: loss(np.diff(x * x, 2, axis=1, prepend=0.5, append=x[:, :1])), rand(2, 3))
    check_orders(lambda x, h: loss(np.trapezoid(x * x, dx=h)), rand(4), 0.3)
    check_orders(lambda x: loss(np.trapezoid(x, np.cumsum(x * x)) + np.ediff1d(x, to_end=x[:1])), rand(4))


def test_gradient_at_second_order():
    """In the values and the coordinates at once (one compilation: the
    slowest of these tests)."""
    check_orders(lambda x, t: loss(np.gradient(x * x, np.cumsum(t * t), edge_order=2)), rand(4), rand(4) + 2.0)


# -- interpolation and polynomials ----------------------------------------------


XP = np.array([-1.0, -0.2, 0.4, 1.1])
FP = np.array([0.5, -1.0, 2.0, 0.3])


@pytest.mark.parametrize("kwargs", [{}, dict(left=-2.0, right=3.5)])
def test_interp(kwargs):
    x = np.array([[-1.5, -0.7, 0.1], [0.5, 1.05, 2.0]])
    check_rule(np.interp, x, XP, FP, kwargs=kwargs)
    check_rule(np.interp, 0.3, XP, FP, kwargs=kwargs)


def test_interp_periodic_and_complex():
    check_rule(np.interp, np.array([-0.8, 0.3, 2.2, 4.3]), np.array([0.5, 2.5, 1.2, 3.0]), FP, kwargs=dict(period=3.0))
    check_rule(np.interp, np.array([-0.5, 0.3]), XP, FP + 1j * FP[::-1])


@pytest.mark.parametrize("p, x", [((3,), (2, 2)), ((1,), (3,)), ((4,), ()), ((2,), (3,))])
def test_polyval(p, x):
    check_rule(np.polyval, rand(*p), rand(*x, seed=1) if x else 0.7)


@pytest.mark.parametrize("n, increasing", [(None, False), (3, True), (1, False)])
def test_vander_through_its_formula(n, increasing):
    """``np.vander`` (``registry.implemented_by``), at a zero too, in both
    modes and at second order; its value is NumPy's own."""
    x = np.array([0.3, -1.2, 0.0, 2.0])
    assert np.array_equal(np.vander(x, n, increasing), registry.implementation(np.vander)(
        x, n, increasing))
    check_orders(lambda x: loss(np.vander(x, n, increasing) * np.arange(1.0, 1.0 + (n or 4))), x)


def put_twice(x):
    y = np.zeros(5)
    np.put(y, [0, 7], x[:2] * 2.0, mode="wrap")  # (7 wraps round to 2)
    np.put(y, [1, 3, 4], x[2])  # (a shorter value is repeated)
    return loss(y)


FORMULAS = [  # (NumPy functions differentiated through their formulas: registry.implemented_by)
    (put_twice, (3,)),  # (np.put: what it leaves in y, numpy_arrays.put_into)
    (lambda X: loss(np.cov(X)), (3, 5)),
    (lambda X: loss(np.cov(X, rowvar=False, bias=True)), (4, 2)),
    (lambda X: loss(np.cov(X[0], X[1], ddof=0)), (2, 5)),
    (lambda X: loss(np.corrcoef(X)), (3, 5)),
    (lambda x: loss(np.insert(x, 2, x[0] * 3.0)), (6,)),
    (lambda x: loss(np.insert(x, [1, 4], [5.0, x[1]])), (6,)),
    (lambda X: loss(np.insert(X, 3, 0.5)), (2, 3)),
    (lambda X: loss(np.apply_along_axis(lambda r: np.sum(r ** 2) * r[0], 1, X)), (3, 4)),
    (lambda X: loss(np.apply_along_axis(lambda r: r[::-1] * r, 0, X)), (3, 4)),
]


@pytest.mark.parametrize("f, shape", FORMULAS)
def test_through_their_formulas(f, shape):
    check_orders(f, rand(*shape))


def test_formulas_have_numpys_values():
    X, x = rand(3, 5), rand(6)
    for fn, args in ((np.cov, (X,)), (np.corrcoef, (X,)), (np.insert, (x, [1, 4], [5.0, 2.0])),
                     (np.cov, (X[0], X[1])), (np.insert, (X, 2, 7.0))):
        np.testing.assert_allclose(registry.implementation(fn)(*args), fn(*args), rtol=1e-13, atol=1e-14)


def test_interp_and_polyval_at_second_order():
    check_orders(lambda x, fp: loss(np.interp(x * x, XP, fp)), np.array([0.3, -0.5, 0.9, 1.3]), FP)
    check_orders(lambda xp: loss(np.interp(np.array([-0.5, 0.1, 0.9]), xp, FP)), XP)
    check_orders(lambda p, x: loss(np.polyval(p, x)), rand(3), rand(2, seed=1))


# -- convolution and counting ---------------------------------------------------


@pytest.mark.parametrize("fn", [np.convolve, np.correlate])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n, m", [(5, 3), (2, 4), (4, 4), (1, 3)])
def test_convolve_and_correlate(fn, mode, n, m):
    check_rule(fn, rand(n), rand(m, seed=1), mode)


def test_convolve_and_correlate_complex():
    z = rand(4) + 1j * rand(4, seed=2)
    check_rule(np.convolve, z, rand(3, seed=1), "same")
    check_rule(np.correlate, rand(3, seed=1), z, "full")


def test_bincount():
    x = np.array([0, 2, 2, 1, 0, 4])
    check_rule(np.bincount, x, rand(6))
    check_rule(np.bincount, x, rand(6).astype(np.float32), 7, rtol=1e-3)


def test_convolution_and_counting_at_second_order():
    check_orders(lambda a, v: loss(np.convolve(a * a, v, "same") + np.correlate(a, v * v, "same")),
                 rand(4), rand(3, seed=1))
    check_orders(lambda w: loss(np.bincount(np.array([0, 2, 2, 1]), w * w, 4)), rand(4))


# -- the ufuncs' methods ----------------------------------------------------------


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
@pytest.mark.parametrize("axis, keepdims", [(0, False), (1, True), (None, False), ((0, 1), False)])
def test_reduce(ufunc, axis, keepdims):
    a = rand(3, 4)
    a[1, 2] = 0.0 if ufunc is np.multiply else a[1, 2]
    check_rule(ufunc.reduce, a, axis, kwargs=dict(keepdims=keepdims))


def test_reduce_ties_and_zeros():
    check_rule(np.maximum.reduce, np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]]), 1)
    check_rule(np.multiply.reduce, np.array([[0.0, 3.0, 0.0], [2.0, 0.0, 0.5]]), 1)


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_accumulate(ufunc, axis):
    check_rule(ufunc.accumulate, rand(3, 5), axis)


def test_accumulate_with_zeros_and_repeated_extrema():
    check_rule(np.multiply.accumulate, np.array([2.0, 0.0, 3.0, 0.0, 1.5]))
    _, back = lookup(np.maximum.accumulate)(np.array([1.0, 0.5, 1.0, 2.0, 1.5]))
    np.testing.assert_array_equal(back(np.ones(5))[0], [3, 0, 0, 2, 0])  # (the first of equal maxima holds it)


@pytest.mark.parametrize("indices", [[0, 2, 3], [0, 3, 1, 4], [2], [0, 0, 4]])
def test_add_reduceat(indices):
    check_rule(np.add.reduceat, rand(5, 2), indices, 0)
    check_rule(np.add.reduceat, rand(2, 5), indices, 1)


@pytest.mark.parametrize("axis, include_initial", [(0, False), (1, True), (-1, False)])
def test_cumulative_prod(axis, include_initial):
    a = rand(3, 4)
    a[1, 1] = 0.0
    check_rule(np.cumulative_prod, a, kwargs=dict(axis=axis, include_initial=include_initial))


def test_ufunc_methods_at_second_order():
    check_orders(lambda x: loss(np.multiply.reduce(x, 1) + np.maximum.reduce(x * x, 1)), rand(2, 3))
    check_orders(lambda x: loss(np.multiply.accumulate(x, 1) * np.minimum.accumulate(np.sin(x), 0)), rand(2, 3))
    check_orders(lambda x: loss(np.add.reduceat(x * x, [0, 2, 1]) + np.cumulative_prod(x, include_initial=True)[1:]),
                 rand(3))


# -- second derivatives of pad, tile, repeat (were crashes) ------------------------


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_at_second_order(mode):
    check_orders(lambda x: loss(np.pad(x * x, (1, 2), mode=mode)), rand(3))
    check_orders(lambda x: loss(np.pad(x, ((1, 0), (0, 2)), mode)), rand(2, 2))


def test_tile_and_repeat_at_second_order():
    check_orders(lambda x: loss(np.tile(x * x, (2, 1)) + np.repeat(x, 2, axis=0)), rand(2, 2))
    check_orders(lambda x: loss(np.repeat(x * x, [1, 2, 0])), rand(3))
