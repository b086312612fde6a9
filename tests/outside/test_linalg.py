"""Linear algebra, as other AD projects test it (autograd's
``test_linalg.py`` and the dot, matmul, tensordot and einsum checks of
``test_systematic.py``): inverses, solves, determinants, factorisations
through losses that do not depend on their sign or phase conventions,
norms of every ``ord`` and ``axis``, and products of every shape
combination, on stacks of matrices and complex inputs where NumPy takes
them."""
import numpy as np
import pytest

from tests.rules.test_numpy_linalg import spd, sym, well_conditioned

from .oracle import check, rand

la = np.linalg


@pytest.mark.parametrize("shape, dtype", [((3, 3), float), ((3, 3), complex), ((2, 3, 3), float)], ids=str)
def test_inverse_and_determinants(shape, dtype):
    a = well_conditioned(shape, 1, dtype)
    check(la.inv, a)
    check(la.det, a)
    check(lambda x: la.slogdet(x)[1], a)


@pytest.mark.parametrize("shape_b", [(3,), (3, 2)], ids=str)
def test_solve(shape_b):
    check(la.solve, well_conditioned((3, 3), 2), rand(shape_b, 3))


def test_solve_stacked_and_complex():
    check(la.solve, well_conditioned((2, 3, 3), 4), rand((2, 3, 2), 5))
    check(la.solve, well_conditioned((3, 3), 6, complex), rand((3,), 7, complex))


@pytest.mark.parametrize("dtype", [float, complex], ids=["real", "complex"])
def test_cholesky(dtype):
    # of the symmetric (Hermitian) part: the gradient is the symmetric one
    check(lambda a: la.cholesky(sym(a)), spd((3, 3), 8, dtype))
    check(lambda a: la.cholesky(sym(a)), spd((2, 3, 3), 9))


@pytest.mark.parametrize("dtype, uplo", [(float, "L"), (complex, "U")], ids=["real-L", "complex-U"])
def test_eigh(dtype, uplo):
    # values, and vectors through |v|^2, which no sign or phase changes
    def fn(a):
        w, v = la.eigh(sym(a), uplo)
        return w, np.abs(v) ** 2

    check(fn, spd((3, 3), 10, dtype))


def test_eigh_stacked():
    check(lambda a: la.eigvalsh(sym(a)), spd((2, 3, 3), 11))
    check(lambda a: np.abs(la.eigh(sym(a))[1]) ** 2, spd((2, 3, 3), 12))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4)], ids=str)
def test_svd(shape):
    # singular values, and the projector u u^T (invariant to the signs)
    def fn(a):
        u, s, vh = la.svd(a, full_matrices=False)
        return s, u @ u.T, vh.T @ vh

    check(fn, rand(shape, 13))
    check(lambda a: la.svd(a, compute_uv=False), rand(shape, 14))


def test_svd_complex():
    check(lambda a: la.svd(a, compute_uv=False), rand((3, 2), 15, complex))
    check(lambda a: np.abs(la.svd(a)[0]) ** 2, rand((3, 3), 16, complex))


@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(mode):
    # R's diagonal is made positive: q and r then do not depend on signs
    def fn(a):
        q, r = la.qr(a, mode=mode)
        signs = np.sign(np.diagonal(r))
        return q[:, :3] * signs, r[:3] * signs[:, None]

    check(fn, rand((4, 3), 17))


def test_qr_r_only():
    check(lambda a: np.abs(la.qr(a, mode="r")), rand((3, 3), 18))


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3, 2)], ids=str)
def test_pinv(shape):
    check(la.pinv, rand(shape, 19))


@pytest.mark.parametrize("n", [0, 1, 3, -2])
def test_matrix_power(n):
    check(lambda a: la.matrix_power(a, n), well_conditioned((3, 3), 20) / 3)


VECTOR_ORDS = [None, 1, 2, 3, np.inf, -np.inf, 0.5]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


# (the order is read from the list by its index: forward mode refuses a
# closure that captures a float, whose tangent it cannot see)
@pytest.mark.parametrize("i", range(len(VECTOR_ORDS)), ids=[str(o) for o in VECTOR_ORDS])
def test_vector_norms(i):
    check(lambda x: la.norm(x, VECTOR_ORDS[i]), rand((5,), 21))
    check(lambda x: la.norm(x, VECTOR_ORDS[i], axis=1), rand((2, 4), 22))


@pytest.mark.parametrize("i", range(len(MATRIX_ORDS)), ids=[str(o) for o in MATRIX_ORDS])
def test_matrix_norms(i):
    check(lambda x: la.norm(x, MATRIX_ORDS[i]), rand((3, 4), 23))


@pytest.mark.parametrize("axis, keepdims", [((0, 1), False), ((2, 0), True), (1, True), (-1, False)], ids=str)
def test_norm_axes(axis, keepdims):
    check(lambda x: la.norm(x, axis=axis, keepdims=keepdims), rand((3, 2, 4), 24))


@pytest.mark.parametrize("ord", [None, 2, "nuc"], ids=str)
def test_complex_norms(ord):
    z = rand((3, 2), 25, complex)
    check(lambda x: la.norm(x, ord), z)
    check(lambda x: la.norm(x, axis=0), z)


# operand shapes of the products: () a Python float
PRODUCTS = {
    np.dot: [((), (3,)), ((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4))],
    np.matmul: [((2, 3), (3,)), ((3,), (3, 4)), ((1, 2, 2), (3, 2, 1))],
    np.inner: [((), (3,)), ((2, 3), (4, 3))],
    np.outer: [((3,), (2,)), ((2, 2), (3,))],
    np.vdot: [((3,), (3,)), ((2, 2), (4,))],
    np.kron: [((2, 2), (3, 1)), ((3,), (2,))],
}
CASES = [(fn, sa, sb) for fn, pairs in PRODUCTS.items() for sa, sb in pairs]


def value(shape, seed, dtype=float):
    return float(rand((), seed)) if shape == () else rand(shape, seed, dtype)


@pytest.mark.parametrize("fn, sa, sb", CASES, ids=[f"{f.__name__}-{a}-{b}" for f, a, b in CASES])
def test_products(fn, sa, sb):
    check(fn, value(sa, 26), value(sb, 27))


@pytest.mark.parametrize("fn", [np.dot, np.matmul, np.inner, np.outer, np.vdot])
def test_complex_products(fn):
    check(fn, rand((3,), 28, complex), rand((3,), 29, complex))
    check(fn, rand((3,), 30), rand((3,), 31, complex))


def test_matmul_operator():
    check(lambda a, b: a @ b @ a.T, rand((2, 3), 32), rand((3, 3), 33))


TENSORDOTS = [((2, 3, 2), (3, 4, 2), ((1,), (0,))), ((2, 3), (1, 2, 3), ((0, 1), (1, 2))),
              ((2, 2), (2, 2, 4), 2), ((4,), (), 0), ((2, 6), (6, 3), [-1, 0])]


@pytest.mark.parametrize("sa, sb, axes", TENSORDOTS, ids=str)
def test_tensordot(sa, sb, axes):
    check(lambda a, b: np.tensordot(a, b, axes), value(sa, 34), value(sb, 35))


EINSUMS = [
    ("ij->ji", [(3, 4)]), ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("ijk,lji->lki", [(3, 4, 4), (4, 4, 3)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("k,nk->", [(5,), (4, 5)]),
    ("jk...,lj...->lk...", [(3, 2, 2), (2, 3, 2)]), ("ij,k", [(3, 2), (3,)]),
    ("ijk,lji,lli->lki", [(3, 4, 4), (4, 4, 3), (4, 4, 3)]), ("i,i,i->", [(3,), (3,), (3,)]),
]


@pytest.mark.parametrize("spec, shapes", EINSUMS, ids=[s for s, _ in EINSUMS])
def test_einsum(spec, shapes):
    operands = [rand(s, 36 + k) for k, s in enumerate(shapes)]
    check(lambda *xs: np.einsum(spec, *xs), *operands)


def test_einsum_complex_and_sublists():
    check(lambda a, b: np.einsum("ij,jk->ik", a, b), rand((2, 3), 40, complex), rand((3, 2), 41))
    check(lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), rand((2, 3), 42), rand((3, 4), 43))


def test_compositions():
    # a Gaussian log-likelihood: Cholesky, triangular solve via solve, logdet
    def nll(a, x):
        c = a @ a.T + np.eye(3)
        sign, logdet = la.slogdet(c)
        return 0.5 * x @ la.solve(c, x) + 0.5 * logdet

    check(nll, rand((3, 3), 44), rand((3,), 45))
