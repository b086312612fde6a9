"""The rules for :mod:`scipy.linalg`, against central finite differences:
each rule alone (:func:`npcheck.check_rule`, or :func:`check_loss`), its
pushforward against its pullback, and whole programs at first and second
order in both modes (:func:`ordercheck.check_orders`). Functions that read
one triangle of a symmetric matrix are checked at NON-symmetric inputs
(:func:`lopsided`: noise on the triangle not read), each entry perturbed:
the gradient is on the entries read (the triangle convention)."""
import numpy as np
import pytest

scipy_linalg = pytest.importorskip("scipy.linalg")

import zygote_py as zpy  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402
from zygote_py import registry  # noqa: E402
from zygote_py.ad import catalog  # noqa: E402
from zygote_py.rules import lookup  # noqa: E402

from .npcheck import check_rule  # noqa: E402
from .ordercheck import check_orders  # noqa: E402
from .pushcheck import check_pushforward  # noqa: E402
from .test_numpy_linalg import check_loss, linear, lopsided, numeric_gradient, rand, spd, well_conditioned  # noqa: E402

sl = scipy_linalg

COVERED = [sl.solve_triangular, sl.solve_banded, sl.cholesky, sl.cho_factor, sl.cho_solve, sl.lu_factor, sl.lu_solve, sl.solve,
           sl.inv, sl.det, sl.eigh, sl.expm, sl.sqrtm, sl.solve_sylvester]


@pytest.mark.parametrize("fn", COVERED, ids=lambda f: f.__name__)
def test_covered_functions_have_both_rules_and_scipy_names(fn):
    assert lookup(fn) is not None and registry.lookup_pushforward(fn) is not None
    assert registry.display_name(fn) == f"scipy.linalg.{fn.__name__}"
    assert catalog._section(fn) == "scipy.linalg"


def test_rules_table_has_a_scipy_linalg_section():
    table = catalog.markdown()
    section = table.split("## scipy.linalg")[1].split("## ")[0]
    for fn in COVERED:
        assert f"`scipy.linalg.{fn.__name__}`" in section


def loss(y):
    """Nonlinear and different for every entry: every second derivative
    counts."""
    return np.sum(np.sin(1.3 * y + 0.2) * y)


A = well_conditioned((3, 3), 1)
B = rand((3, 2), 2)
S = spd((3, 3), 3)


# ---------------------------------------------------------------------------
# Triangular and LU solvers


@pytest.mark.parametrize("trans", [0, 1, 2, "T"])
@pytest.mark.parametrize("lower, unit", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("sb", [(3,), (3, 2)])
def test_solve_triangular(trans, lower, unit, sb):
    grads = check_rule(sl.solve_triangular, A, rand(sb, 4), kwargs=dict(trans=trans, lower=lower, unit_diagonal=unit))
    # the entries not read get no gradient
    unread = np.triu(np.ones((3, 3)), 0 if unit else 1) if lower else np.tril(np.ones((3, 3)), 0 if unit else -1)
    assert np.all(grads[0][unread == 1] == 0)


def test_solve_triangular_batches_broadcast():
    check_rule(sl.solve_triangular, well_conditioned((2, 3, 3), 5), rand((3, 2), 6), kwargs=dict(lower=True))


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_triangular_and_lu_solvers_complex(trans):
    a = well_conditioned((3, 3), 7, np.complex128)
    b = rand((3, 2), 8, np.complex128)
    w = rand((3, 2), 9, np.complex128)
    lossf, cotangent = linear(w)
    check_loss(sl.solve_triangular, a, b, kwargs=dict(trans=trans, lower=True), loss=lossf, cotangent=cotangent,
               argnums=(0, 1))
    lu_piv = sl.lu_factor(a)

    def solved(lu, b):
        return sl.lu_solve((lu, lu_piv[1]), b, trans=trans)

    grads = lookup(sl.lu_solve)(lu_piv, b, trans)[1](w)
    np.testing.assert_allclose(grads[0][0], numeric_gradient(lambda lu: lossf(solved(lu, b)), lu_piv[0]), rtol=1e-6)
    np.testing.assert_allclose(grads[1], numeric_gradient(lambda b: lossf(solved(lu_piv[0], b)), b), rtol=1e-6)


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("sb", [(3,), (3, 2)])
def test_lu_solve(trans, sb):
    check_rule(sl.lu_solve, sl.lu_factor(A), rand(sb, 4), kwargs=dict(trans=trans))


def test_lu_factor_pivots_and_packs():
    a = rand((4, 4), 10)  # (pivoting: no diagonal dominance)
    assert np.any(sl.lu_factor(a)[1] != np.arange(4))
    w = rand((4, 4), 11)
    lossf, _ = linear(w)
    grads = check_loss(sl.lu_factor, a, loss=lambda y: lossf(y[0]), cotangent=lambda y: (w, None))
    assert grads[1:] == (None, None)


def test_lu_of_a_batch_is_refused():
    with pytest.raises(NoDerivativeRule, match="batch"):
        zpy.gradient(lambda a: np.sum(sl.lu_factor(a)[0]), well_conditioned((2, 3, 3)))


# ---------------------------------------------------------------------------
# Cholesky


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky(lower):
    w = rand((3, 3), 12)
    lossf, cotangent = linear(w)
    grads = check_loss(sl.cholesky, lopsided(S, lower), kwargs=dict(lower=lower), loss=lossf, cotangent=cotangent)
    assert not np.any((np.triu if lower else np.tril)(grads[0], 1 if lower else -1))


@pytest.mark.parametrize("lower", [False, True])
def test_cho_factor_differentiates_the_factor_triangle(lower):
    w = rand((3, 3), 13)
    tri = np.tril if lower else np.triu
    x = lopsided(S, lower)
    y, back = lookup(sl.cho_factor)(x, lower)
    grads = back((tri(w), None))
    assert grads[1:] == (None, None, None)
    np.testing.assert_allclose(grads[0], numeric_gradient(lambda a: np.sum(tri(w) * sl.cho_factor(a, lower)[0]), x),
                               rtol=1e-6, atol=1e-8)
    # forward mode: the factor's tangent, nan where the values are unspecified
    v = rand((3, 3), 14)
    dc, dlower = registry.lookup_pushforward(sl.cho_factor)(y, x, lower, da=v)
    assert dlower is None and np.all(np.isnan(dc[tri(np.ones((3, 3))) == 0]))
    np.testing.assert_allclose(np.sum(tri(w) * tri(dc)), np.sum(grads[0] * v), rtol=1e-10)


def test_cho_factor_refuses_a_gradient_on_its_unspecified_triangle():
    def f(a):
        c, lower = sl.cho_factor(a)
        return np.sum(c)

    with pytest.raises(NoDerivativeRule, match="does not hold the Cholesky factor"):
        zpy.gradient(f, S)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("sb", [(3,), (3, 2)])
def test_cho_solve(lower, sb):
    # c's unspecified triangle gets a zero gradient (cho_solve does not read it)
    grads = check_rule(sl.cho_solve, sl.cho_factor(S, lower=lower), rand(sb, 14))
    assert grads[0][1] is None
    assert not np.any((np.triu if lower else np.tril)(grads[0][0], -1 if not lower else 1))


def cho_pair(a, b):
    return loss(sl.cho_solve(sl.cho_factor(a), b))


def test_cho_factor_and_cho_solve_together_are_solve_pos():
    x = lopsided(S, False)  # (both read the upper triangle)
    got = zpy.gradient(cho_pair, x, B)
    want = zpy.gradient(lambda a, b: loss(sl.solve(a, b, assume_a="pos")), x, B)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[0], numeric_gradient(lambda a: cho_pair(a, B), x), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------------
# solve, inv, det


STRUCTURED = [None, "gen", "diagonal", "tridiagonal", "upper triangular", "lower triangular", "banded"]


@pytest.mark.parametrize("assume_a", STRUCTURED)
@pytest.mark.parametrize("transposed", [False, True])
def test_solve_reads_what_scipy_reads(assume_a, transposed):
    check_rule(sl.solve, A, B, kwargs=dict(assume_a=assume_a, transposed=transposed))


def test_solve_vector_and_batches():
    check_rule(sl.solve, A, rand((3,), 5))
    check_rule(sl.solve, well_conditioned((2, 3, 3), 6), rand((3, 2), 7))


@pytest.mark.parametrize("assume_a", ["sym", "her", "pos"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_and_inv_symmetric(assume_a, lower):
    w = rand((3, 2), 15)
    lossf, cotangent = linear(w)
    x = lopsided(S, lower)
    grads = check_loss(sl.solve, x, B, kwargs=dict(assume_a=assume_a, lower=lower), loss=lossf, cotangent=cotangent,
                       argnums=(0, 1))
    assert not np.any((np.triu if lower else np.tril)(grads[0], 1 if lower else -1))
    w = rand((3, 3), 16)
    lossf, cotangent = linear(w)
    check_loss(sl.inv, x, kwargs=dict(assume_a=assume_a, lower=lower), loss=lossf, cotangent=cotangent)


@pytest.mark.parametrize("assume_a", ["sym", "her", "pos"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_and_inv_symmetric_complex(assume_a, lower):
    """Hermitian: the imaginary part of the diagonal is not read either;
    complex symmetric (``'sym'``): the whole diagonal is."""
    if assume_a == "sym":
        z = rand((3, 3), 31, complex)
        x = z + z.T + 6 * np.eye(3)
        x = x + ((np.triu if lower else np.tril)(rand((3, 3), 32, complex), 1 if lower else -1))
    else:
        x = lopsided(spd((3, 3), 31, complex), lower)
    b, w = rand((3, 2), 33, complex), rand((3, 2), 34, complex)
    lossf, cotangent = linear(w)
    check_loss(sl.solve, x, b, kwargs=dict(assume_a=assume_a, lower=lower), loss=lossf, cotangent=cotangent,
               argnums=(0, 1))
    lossf, cotangent = linear(rand((3, 3), 35, complex))
    check_loss(sl.inv, x, kwargs=dict(assume_a=assume_a, lower=lower), loss=lossf, cotangent=cotangent)


def test_symmetric_solve_of_a_matrix_with_another_lower_triangle():
    """SciPy reads the upper triangle: the gradient is the one at the
    symmetric matrix built from it, on that triangle (``G + G^T`` off the
    diagonal)."""
    a = np.triu(S) + np.tril(rand((3, 3), 17), -1)
    g = zpy.gradient(lambda a, b: loss(sl.solve(a, b, assume_a="pos")), a, B)
    up = np.triu(S) + np.triu(S, 1).T
    want = zpy.gradient(lambda a, b: loss(np.linalg.solve(a, b)), up, B)
    np.testing.assert_allclose(g[0], np.triu(want[0] + want[0].T, 1) + np.diag(np.diag(want[0])), rtol=1e-10)
    np.testing.assert_allclose(g[1], want[1], rtol=1e-10)


@pytest.mark.parametrize("assume_a", [None, "gen", "upper triangular", "lower triangular"])
def test_inv(assume_a):
    check_rule(sl.inv, A, kwargs=dict(assume_a=assume_a))


def inv_diagonal(a):
    return np.sum(sl.inv(a, assume_a="diagonal"))


def test_inv_of_a_diagonal_is_refused():
    """SciPy keeps the off-diagonal entries there."""
    with pytest.raises(NoDerivativeRule, match="diagonal"):
        zpy.gradient(inv_diagonal, A)
    with pytest.raises(NoDerivativeRule, match="diagonal"):
        zpy.jvp(inv_diagonal, (A,), (A,))


def test_inv_det_float32_keep_their_dtype():
    a32 = A.astype(np.float32)
    for fn in (sl.inv, sl.det, sl.expm):
        grads = check_rule(fn, a32, rtol=1e-2, atol=1e-3)
        assert grads[0].dtype == np.float32


def test_det():
    check_rule(sl.det, A)
    check_rule(sl.det, well_conditioned((2, 3, 3), 18))


# ---------------------------------------------------------------------------
# eigh


@pytest.mark.parametrize("lower", [True, False])
def test_eigh(lower):
    ww, wv = rand((3,), 19), rand((3, 3), 20)

    def lossf(y):  # blind to the eigenvectors' signs
        w, v = y
        return np.sum(ww * w) + np.sum(wv * v * v)

    x = lopsided(S, lower)
    check_loss(sl.eigh, x, kwargs=dict(lower=lower), loss=lossf, cotangent=lambda y: (ww, 2 * wv * y[1]))
    lossf, cotangent = linear(ww)
    check_loss(sl.eigh, x, kwargs=dict(lower=lower, eigvals_only=True), loss=lossf, cotangent=cotangent)


def generalized(a):
    return np.sum(sl.eigh(a, S + np.eye(3), eigvals_only=True))


def subset(a):
    return np.sum(sl.eigh(a, eigvals_only=True, subset_by_index=[1, 2]))


def second_type(a):
    return np.sum(sl.eigh(a, S, type=2)[0])


@pytest.mark.parametrize("f", [generalized, subset, second_type])
def test_eigh_other_problems_are_refused(f):
    with pytest.raises(NoDerivativeRule, match="standard problem"):
        zpy.gradient(f, S)
    with pytest.raises(NoDerivativeRule, match="standard problem"):
        zpy.jvp(f, (S,), (S,))


# ---------------------------------------------------------------------------
# Matrix functions


def test_expm():
    check_rule(sl.expm, A / 3)
    check_rule(sl.expm, rand((2, 3, 3), 21))


def test_expm_gradient_is_the_adjoint_frechet_derivative():
    a, g = rand((4, 4), 22), rand((4, 4), 23)
    (da,) = lookup(sl.expm)(a)[1](g)
    np.testing.assert_allclose(da, sl.expm_frechet(a.T, g, compute_expm=False), rtol=1e-12)


def test_sqrtm():
    check_rule(sl.sqrtm, S)
    check_rule(sl.sqrtm, A)  # (not symmetric)


def test_solve_sylvester():
    check_rule(sl.solve_sylvester, A, well_conditioned((2, 2), 24), rand((3, 2), 25))


# ---------------------------------------------------------------------------
# Programs, first and second order, both modes


def tri_lower(a, b):
    return loss(sl.solve_triangular(a, b, lower=True))


def tri_transposed_unit(a, b):
    return loss(sl.solve_triangular(a, b, trans="T", unit_diagonal=True))


def chol(a):
    return loss(sl.cholesky(a))


def chol_lower(a):
    return loss(sl.cholesky(a, lower=True))


def expm3(a):
    return loss(sl.expm(a / 3))


def sqrtm_(a):
    return loss(sl.sqrtm(a))


def inv_(a):
    return loss(sl.inv(a))


def inv_pos(a):
    return loss(sl.inv(a, assume_a="pos"))


def solve_sym_lower(a, b):
    return loss(sl.solve(a, b, assume_a="sym", lower=True))


def det_(a):
    return np.sin(sl.det(a) / 10)


def solve_(a, b):
    return loss(sl.solve(a, b))


def solve_lower_transposed(a, b):
    return loss(sl.solve(a, b, transposed=True, assume_a="lower triangular"))


def lu_(a, b):
    return loss(sl.lu_solve(sl.lu_factor(a), b))


def lu_transposed(a, b):
    return loss(sl.lu_solve(sl.lu_factor(a), b, trans=1))


def eigh_values(a):
    return loss(sl.eigh(a)[0])


def eigh_vectors_upper(a):
    w, v = sl.eigh(a, lower=False)
    return loss(v * v) + loss(w)


def sylvester(a, b, q):
    return loss(sl.solve_sylvester(a, b, q))


A2, B2, S2 = well_conditioned((2, 2), 28), rand((2,), 29), spd((2, 2), 30)
UPPER_READ, LOWER_READ, UPPER_READ2 = lopsided(S, False) / 2, lopsided(S, True) / 2, lopsided(S2, False) / 2


@pytest.mark.parametrize("f, args", [
    (tri_lower, (A, B2 @ A[:2])), (tri_transposed_unit, (A2, B2)), (chol, (UPPER_READ,)), (chol_lower, (LOWER_READ,)),
    (cho_pair, (UPPER_READ2, B2)), (expm3, (A,)), (sqrtm_, (S,)), (inv_, (A,)), (inv_pos, (UPPER_READ,)),
    (solve_sym_lower, (LOWER_READ, B)), (det_, (A,)), (solve_, (A2, B2)), (solve_lower_transposed, (A2, B2)),
    (lu_, (A, B2 @ A[:2])), (lu_transposed, (A2, B2)), (eigh_values, (LOWER_READ,)),
    (eigh_vectors_upper, (UPPER_READ,)), (sylvester, (A, A2, B)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_first_and_second_order(f, args):
    check_orders(f, *args)


def test_a_function_without_a_rule_is_named_as_imported():
    with pytest.raises(NoDerivativeRule, match="scipy.linalg.logm"):
        zpy.gradient(lambda a: np.sum(sl.logm(a)), S)


def test_pushforward_of_tuple_arguments():
    """``cho_solve`` and ``lu_solve`` take their factors in a tuple: its
    tangent is a tuple too."""
    for fn, factor in ((sl.cho_solve, sl.cho_factor(S)), (sl.lu_solve, sl.lu_factor(A))):
        y, back = lookup(fn)(factor, B)
        dy = rand(y.shape, 27)
        grads = back(dy)
        check_pushforward(fn, (factor, B), {}, y, [(0, grads[0]), (1, grads[1])], dy)


# ---------------------------------------------------------------------------
# Banded solver


def band(l_and_u, n, seed):
    """A well-conditioned band matrix in SciPy's storage, its unread
    corners filled with nonzeros (they must get no gradient)."""
    lower, upper = l_and_u
    ab = rand((lower + upper + 1, n), seed)
    ab[upper] += 4.0
    return ab


@pytest.mark.parametrize("l_and_u", [(1, 1), (2, 0), (0, 2), (1, 2), (3, 3)])
@pytest.mark.parametrize("sb", [(4,), (4, 2)])
def test_solve_banded(l_and_u, sb):
    ab = band(l_and_u, 4, 20)
    dab, db = check_rule(sl.solve_banded, l_and_u, ab, rand(sb, 21))[1:3]
    lower, upper = l_and_u
    for r in range(lower + upper + 1):  # the corners: ab[r, j] with A[j - upper + r, j] outside the matrix
        k = upper - r
        unread = [j for j in range(4) if not 0 <= j - k < 4]
        assert np.all(dab[r, unread] == 0)


def test_solve_banded_is_the_dense_solve():
    ab = band((1, 2), 5, 22)
    dense = sum(np.diag(ab[r, max(2 - r, 0):5 + min(2 - r, 0)], 2 - r) for r in range(4))
    b = rand((5,), 23)
    (gd, gb_dense) = zpy.gradient(lambda a, b: loss(np.linalg.solve(a, b)), dense, b)
    (gab, gb) = zpy.gradient(lambda ab, b: loss(sl.solve_banded((1, 2), ab, b)), ab, b)
    np.testing.assert_allclose(gb, gb_dense, rtol=1e-12)
    for r in range(4):
        k = 2 - r
        np.testing.assert_allclose(gab[r, max(k, 0):5 + min(k, 0)], np.diagonal(gd, k), rtol=1e-12, atol=1e-14)


def test_solve_banded_orders():
    check_orders(lambda ab, b: loss(sl.solve_banded((1, 1), ab, b)), band((1, 1), 4, 24), rand((4, 2), 25))
