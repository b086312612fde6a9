"""Rules that make helper arrays of their own (order statistics, sorting,
integrals, splits, masks, SciPy's special functions) keep them in the
argument's library: on Dask (nothing computed) and on the CuPy stand-in
(no NumPy operand, no copy to the host), reverse mode, forward mode and
``hvp`` give NumPy's results, themselves checked against central
differences."""
import functools

import numpy as np
import pytest

import zygote_py as zpy
from tests.arrays.test_other_libraries import central, check

rng = np.random.default_rng(371)
X = rng.uniform(0.1, 1.0, size=(6, 4))
V = rng.normal(size=X.shape)


def orders(X):
    # (q's NumPy arrays: the interpolation weights and indices are made from it)
    return (np.sum(np.median(X, axis=0) ** 2) + np.sum(np.quantile(X, [0.2, 0.7], axis=1) ** 2)
            + np.sum(np.quantile(X, 0.3, axis=0, method="hazen")))


def sorts(X):
    return np.sum(np.sort(X, axis=0)[-2:] ** 3) + np.sum(np.sort(X, axis=None)[:5] ** 2)


def integrals(X):
    return (np.sum(np.trapezoid(X ** 2, axis=0)) + np.trapezoid(X[:, 0] ** 2, X[:, 1])
            + np.trapezoid(X[0] ** 3, dx=0.5) + np.sum(np.trapezoid(X, X ** 2, axis=0)))


def pieces(X):
    # (unpacked: forward mode over the gradient compares the list of pieces before and after each call)
    a, b, c = np.split(X, 3)
    left, right = np.split(X, [1], axis=1)
    return np.sum(a * b * c) + np.sum(left ** 2 * right[:, :1]) + np.sum(np.array_split(X, 4, axis=0)[3] ** 3)


def masked(X):
    m = X > 0.5  # (a mask of the argument's library)
    return np.sum(X[m] ** 2) + np.sum(X[:, 0][m[:, 0]] ** 3)


def stored(X):
    Y = X * 1.0
    Y[Y > 0.5] = 0.0  # (an item store through a mask of the argument's library)
    Y[1] = Y[1] * X[2]
    return np.sum(Y ** 2 * X)


PROGRAMS = [orders, sorts, integrals, pieces, masked, stored]
NOT_IN_DASK = (sorts, integrals, pieces)
"""Dask has no np.sort, np.trapezoid or np.split: it computes them in NumPy
(a FutureWarning), in the function itself."""


@functools.cache  # (once per program, not per library)
def _expected(f):
    """``f``'s gradient, tangent along ``V`` and Hessian-vector product at
    NumPy's ``X``, checked against central differences."""
    (g,) = zpy.gradient(f, X)
    np.testing.assert_allclose(g, central(f, (X,))[0], rtol=1e-6, atol=1e-8)
    _, t = zpy.jvp(f, (X,), (V,))
    np.testing.assert_allclose(t, np.sum(g * V), rtol=1e-10)
    (hv,) = zpy.hvp(f, (X,), (V,))
    h = 1e-5
    (up,), (down,) = zpy.gradient(f, X + h * V), zpy.gradient(f, X - h * V)
    np.testing.assert_allclose(hv, (up - down) / (2 * h), rtol=1e-5, atol=1e-6)
    return g, t, hv


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_rules_making_helper_arrays_keep_the_library(library, f):
    if library.name == "dask" and f in NOT_IN_DASK:
        pytest.skip("Dask computes this function itself")
    g, t, hv = _expected(f)
    with library.untouched():
        _, got_t = zpy.jvp(f, (library.make(X),), (library.make(V),))
        if library.name == "dask" and f is masked:
            # (Dask's x[mask] has a size only computing tells: Dask itself refuses to broadcast the cotangents
            # of its reads, never a gradient laid out wrongly)
            with pytest.raises(ValueError, match="cannot broadcast shape"):
                zpy.gradient(f, library.make(X))
            got_g, got_hv = g, hv
        else:
            (got_g,) = zpy.gradient(f, library.make(X))
            (got_hv,) = zpy.hvp(f, (library.make(X),), (library.make(V),))
    check(got_t, t, library)
    if got_g is not g:
        check(got_g, g, library)
        check(got_hv, hv, library)


def changed_view(X):
    Y = X * 1.0
    row = Y[1]
    row[0] = 5.0  # (a view of Y in NumPy and CuPy, a copy in Dask)
    return np.sum(Y ** 2 * X)


def added_in_place(X):
    Y = X * 1.0
    Y += X ** 2  # (in place in NumPy and CuPy, a new array in Dask)
    return np.sum(Y ** 2)


@pytest.mark.parametrize("f", [changed_view, added_in_place], ids=lambda f: f.__name__)
def test_changes_in_place_whose_reach_depends_on_the_library_are_refused(library, f):
    # (the gradient took the part for a copy: a silent wrong gradient on CuPy's views)
    expected = central(f, (X,))[0]
    np.testing.assert_allclose(zpy.gradient(f, X)[0], expected, rtol=1e-6, atol=1e-8)
    with library.untouched(), pytest.raises(zpy.errors.UnsupportedSyntax, match="depends on its library"):
        zpy.gradient(f, library.make(X))


def filled(X):
    Y = np.zeros_like(X)  # (made with no tangent, then changed in place: changing_zero, may_change)
    Y[0] = X[1] ** 2
    Y[2] = X[3] * X[0]
    return np.sum(Y * X)


def rows(X):
    total = 0.0
    for row in X:  # (like_iterable: the rows' gradients stacked in X's library, not a list)
        total = total + np.sum(row ** 3)
    a, b, *rest = X
    return total + sum(X[0]) + np.sum(a * b) + np.sum(rest[-1] ** 2)


def integers(X):
    k = np.floor(X[0] * 3).astype(int)  # (an integer array computed with: zero_operand, a float zero of its library)
    return np.sum(np.where(X[1] > 0.5, X[1], k) * X[2])


@pytest.mark.parametrize("f", [filled, rows, integers], ids=lambda f: f.__name__)
def test_run_time_helpers_take_library_arrays_as_arrays(library, f):
    # (changing_zero made a Tangent of a Device's fields, like_iterable a list of a Dask array's rows)
    g, t, hv = _expected(f)
    with library.untouched():
        (got_g,) = zpy.gradient(f, library.make(X))
        _, got_t = zpy.jvp(f, (library.make(X),), (library.make(V),))
        (got_hv,) = zpy.hvp(f, (library.make(X),), (library.make(V),))
    check(got_g, g, library)
    check(got_t, t, library)
    check(got_hv, hv, library)


def special_functions(X):
    from scipy import special

    return (np.sum(special.gammaln(X + 1.0)) + np.sum(special.expit(X) ** 2) + np.sum(special.erf(X) * X)
            + np.sum(special.xlogy(X, X + 0.5)) + np.sum(special.xlog1py(X, X) * special.logit(X / 2)))


def test_scipy_special_rules_on_library_arrays_in_reverse_mode(library):
    # (SciPy's ufuncs dispatch to the array's library, and so do their rules' slopes: lazy on Dask. logsumexp is not
    # here: SciPy's own computes a Dask array unless SCIPY_ARRAY_API=1 is set before SciPy is imported)
    pytest.importorskip("scipy")
    (g,) = zpy.gradient(special_functions, X)
    np.testing.assert_allclose(g, central(special_functions, (X,))[0], rtol=1e-6, atol=1e-8)
    with library.untouched():
        y, back = zpy.pullback(special_functions, library.make(X))
        (got,) = back(1.0)
    check(y, special_functions(X), library)
    check(got, g, library)
