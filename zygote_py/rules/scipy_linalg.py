"""Rules for :mod:`scipy.linalg`, imported (into the built-in layer) once
the user has imported ``scipy.linalg`` (see :func:`zygote_py.registry.when_imported`).

Covered: ``solve_triangular``, ``solve_banded``, ``cholesky``, ``cho_factor``,
``cho_solve``, ``lu_factor``, ``lu_solve``, ``solve``, ``inv``, ``det``,
``eigh``, ``expm``, ``sqrtm`` and ``solve_sylvester`` (which ``sqrtm``'s
derivatives solve), each with a pushforward. Every pullback is written
with functions that have rules themselves (SciPy's among them), so
second derivatives come from the same rules. Where NumPy's rules already
hold the derivative (:mod:`.numpy_decompositions`: Cholesky, ``det``, ``eigh``,
``solve``) they are reused.

Conventions (complex matrices follow :mod:`.numpy_decompositions`'s):

- Only the arrays get gradients; flags (``lower``, ``trans``,
  ``assume_a``...) never do. ``overwrite_a``/``overwrite_b`` are ignored
  (the rules keep their inputs, which the pullbacks read).
- What SciPy reads is what is differentiated. ``solve_triangular`` reads
  one triangle (without the diagonal when ``unit_diagonal``): the other
  entries get a zero gradient. ``solve`` and ``inv`` with ``assume_a``
  ``'diagonal'``, ``'tridiagonal'``, ``'upper triangular'`` or ``'lower
  triangular'`` likewise (``inv(assume_a='diagonal')``, which keeps the
  off-diagonal entries of its input, is refused). With ``assume_a=None`` (SciPy detects the
  structure) or ``'general'``/``'banded'``, every entry counts: a
  perturbation of a structured matrix's zeros makes SciPy solve the
  general system, whose derivative this is.
- Symmetric (Hermitian) inputs, with :mod:`.numpy_decompositions`'
  triangle convention: ``cholesky``, ``cho_factor``, ``eigh`` and
  ``solve``/``inv`` with ``assume_a`` ``'sym'``, ``'her'`` or ``'pos'``
  read one triangle of ``a`` (the lower one for ``lower=True``; ``eigh``'s
  default) and stand for the symmetric (Hermitian) matrix built from it,
  at which they are computed. The gradient is with respect to the entries
  read: ``G + G^H`` on the strict triangle, ``G``'s diagonal (its real
  part: the Hermitian routines ignore the imaginary part of the diagonal)
  on the diagonal, zeros on the other triangle (``G + G^T`` and the whole
  diagonal for ``'sym'``, complex symmetric), ``G`` the gradient with
  respect to the matrix read; a tangent in the other triangle has no
  effect.
- ``solve_banded((l, u), ab, b)``: ``ab`` and ``b``; ``ab`` holds the band
  of the matrix ``A`` as SciPy stores it (``ab[u + i - j, j] == A[i,
  j]``), and its corners, which SciPy does not read, get 0. The gradient
  of ``b`` solves the transposed (conjugated) band system with
  ``solve_banded`` itself; ``ab``'s is ``-db x^H`` on the band.
- ``cho_factor(a)`` returns ``(c, lower)``, ``c`` holding the Cholesky
  factor in one triangle and unspecified values in the other. Only the
  factor's triangle is differentiated: ``cho_solve`` gives the other
  triangle a zero gradient, and a nonzero cotangent reaching it from
  elsewhere raises :class:`~zygote_py.errors.NoDerivativeRule`; in forward
  mode its tangent is ``nan``. Used together, ``cho_solve(cho_factor(a),
  b)`` has the gradient of ``solve(a, b, assume_a='pos')``.
- ``lu_factor(a)`` returns ``(lu, piv)``: ``lu`` packs the unit lower
  factor's strict lower triangle and the upper factor; ``piv``, integer,
  has no derivative (pivoting is piecewise constant). Square 2-d matrices
  only. ``lu_solve`` reads ``lu`` as ``lu_factor`` packs it.
- ``expm``: the Fréchet derivative, from the block-triangular identity
  ``expm([[A, E], [0, A]]) = [[expm(A), L(A, E)], [0, expm(A)]]``; the
  gradient is ``L(A^H, G)``.
- ``sqrtm`` (called with its matrix only): ``X dX + dX X = dA`` is a
  Sylvester equation, solved by ``solve_sylvester``; the gradient solves
  ``X^H G + G X^H = Xbar``. A real matrix whose square root is complex
  gets the real part of the gradient.
- ``eigh``: standard problems only (``b=None``, ``type=1``, no
  ``subset_by_index``/``subset_by_value``); the others raise
  :class:`~zygote_py.errors.NoDerivativeRule` when differentiated.
  Eigenvectors as in ``np.linalg.eigh`` (distinct eigenvalues).
"""
import numpy as np
import scipy.linalg

from zygote_py import errors

# The rules call this module's helpers, and NumPy's rules' helpers, by
# their qualified names, so that the compiler can inline them.
from zygote_py.rules import numpy_decompositions, numpy_linalg, scipy_linalg

from ..registry import adjoint, array_valued, nondifferentiable, pushforward

# --------------------------------------------------------------------------
# Helpers


def trans_code(trans):
    """``trans`` (``0``/``'N'``, ``1``/``'T'``, ``2``/``'C'``) as 0, 1 or 2."""
    return {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2, "n": 0, "t": 1, "c": 2}[trans]


def op(m, trans):
    """``m``, its transpose or its conjugate transpose, as ``trans`` says."""
    code = scipy_linalg.trans_code(trans)
    if code == 0:
        return m
    return numpy_linalg.mT(m) if code == 1 else numpy_linalg.mH(m)


def triangle(m, lower, unit_diagonal=False):
    """The triangle of ``m`` a triangular solver reads (without the
    diagonal when ``unit_diagonal``)."""
    if lower:
        return np.tril(m, -1 if unit_diagonal else 0)
    return np.triu(m, 1 if unit_diagonal else 0)


def band(m, width):
    """``m`` with zeros beyond ``width`` off the diagonal."""
    return np.triu(np.tril(m, width), -width)


SYMMETRIC = {"sym": "T", "symmetric": "T", "her": "H", "hermitian": "H", "pos": "H", "positive definite": "H"}
"""``assume_a``'s symmetric structures: transposed (complex symmetric) or
conjugate-transposed (Hermitian) halves."""


def read_matrix(a, assume_a, lower):
    """The matrix SciPy's ``solve`` and ``inv`` use for ``a`` under
    ``assume_a``: a symmetric (Hermitian) one built from the triangle
    ``lower`` says, a triangle, a diagonal or a band; ``a`` itself for a
    general one. Linear: for a tangent of ``a``, the tangent of that
    matrix."""
    if assume_a in scipy_linalg.SYMMETRIC:
        return numpy_decompositions.from_triangle(a, lower, scipy_linalg.SYMMETRIC[assume_a] == "H")
    return scipy_linalg.project(a, assume_a)


def read_grad(g, assume_a, lower):
    """The transpose of :func:`read_matrix`: the gradient with respect to
    the entries of ``a`` read, for the gradient ``g`` of the matrix they
    stand for."""
    if assume_a in scipy_linalg.SYMMETRIC:
        return numpy_decompositions.to_triangle(g, lower, scipy_linalg.SYMMETRIC[assume_a] == "H")
    return scipy_linalg.project(g, assume_a)


def project(g, assume_a):
    """``g`` on the entries that a matrix of the non-symmetric structure
    ``assume_a`` has (its own transpose: for a gradient and for a
    tangent); ``g`` itself for a general one."""
    if assume_a == "diagonal":
        return numpy_linalg.diagonal_matrix(np.diagonal(g, 0, -2, -1))
    if assume_a == "tridiagonal":
        return scipy_linalg.band(g, 1)
    if assume_a == "upper triangular":
        return np.triu(g)
    if assume_a == "lower triangular":
        return np.tril(g)
    return g


def solve_triangular_grads(dy, a, b, x, trans, lower, unit_diagonal):
    """The gradients of ``x = solve_triangular(a, b, trans, lower,
    unit_diagonal)``, ``op(T) x = b``: ``db = op(T)^-H dx`` and, for ``T``,
    ``op`` applied to ``-db x^H``, on the triangle read."""
    code = scipy_linalg.trans_code(trans)
    if code == 1:  # (T^T)^-H = conj(T)^-1
        db = numpy_linalg.conj(scipy.linalg.solve_triangular(a, numpy_linalg.conj(dy), 0, lower, unit_diagonal))
    else:
        db = scipy.linalg.solve_triangular(a, dy, 2 - code, lower, unit_diagonal)
    gm = -(numpy_decompositions.as_columns(db, b) @ numpy_linalg.mH(numpy_decompositions.as_columns(x, b)))
    da = scipy_linalg.triangle(scipy_linalg.op(gm, code), lower, unit_diagonal)
    return (numpy_linalg.fit(numpy_linalg.sum_to(da, np.shape(a)), a),
            numpy_linalg.fit(numpy_linalg.sum_to(db, np.shape(b)), b))


def shift(v, k):
    """``v`` moved ``k`` places along its first axis, ``out[j] = v[j -
    k]``, with zeros shifted in."""
    n = np.shape(v)[0]
    m = min(abs(k), n)
    pad = [(0, 0)] * np.ndim(v)
    if k >= 0:
        pad[0] = (m, 0)
        return np.pad(v[:n - m], pad)
    pad[0] = (0, m)
    return np.pad(v[m:], pad)


def transposed_band(l_and_u, ab):
    """The band storage (for ``(u, l)``) of ``A^T``, ``ab`` that of ``A``
    (for ``(l, u)``): the diagonal ``k`` of ``A^T`` is ``A``'s ``-k``,
    moved ``k`` places."""
    lower, upper = l_and_u
    rows = [scipy_linalg.shift(ab[upper + lower - r], lower - r) for r in range(lower + upper + 1)]
    return np.stack(rows)


def solve_banded_grads(dy, l_and_u, ab, b, x):
    """The gradients of ``x = solve_banded(l_and_u, ab, b)``: ``db = A^-H
    dy``, and ``-db x^H`` on the band, in ``ab``'s storage (row ``r`` holds
    the diagonal ``u - r``, ``A[j - u + r, j]`` at column ``j``)."""
    lower, upper = l_and_u
    db = scipy.linalg.solve_banded((upper, lower), np.conj(scipy_linalg.transposed_band(l_and_u, ab)), dy)
    dcols, xcols = numpy_decompositions.as_columns(db, b), np.conj(numpy_decompositions.as_columns(x, b))
    rows = [-np.sum(scipy_linalg.shift(dcols, upper - r) * xcols, axis=-1) for r in range(lower + upper + 1)]
    return numpy_linalg.fit(np.stack(rows), ab), numpy_linalg.fit(db, b)


def banded_product(l_and_u, ab, x, b):
    """``A x`` for the band matrix ``A`` stored in ``ab`` (a column of
    ``x`` per column of ``b``)."""
    lower, upper = l_and_u
    cols = numpy_decompositions.as_columns(x, b)
    total = 0.0
    for r in range(lower + upper + 1):
        total = total + scipy_linalg.shift(ab[r][:, None] * cols, r - upper)
    return np.reshape(total, np.shape(x))


def cho_factor_grad(dy, a, y):
    """The gradient of ``(c, lower) = cho_factor(a)``, from the cotangent
    of the factor's triangle of ``c`` (see the module's docstring)."""
    dc = dy[0]
    if dc is None:
        return None
    c, lower = y
    if np.any(scipy_linalg.triangle(dc, not lower, True)):
        raise errors.NoDerivativeRule(
            "scipy.linalg.cho_factor: a gradient reached the triangle of c that does not hold the Cholesky "
            "factor (its values are unspecified)",
            hint="pass (c, lower) to scipy.linalg.cho_solve, or read the factor with np.tril(c) (lower=True) "
            "or np.triu(c), or use scipy.linalg.cholesky",
        )
    factor = scipy_linalg.triangle(c, lower)
    return numpy_decompositions.cholesky_grad(scipy_linalg.triangle(dc, lower), a, factor, not lower)


def cho_factor_tangent(da, y):
    """The tangent of ``c`` from ``cho_factor``: the factor's, and ``nan``
    in the triangle of unspecified values."""
    c, lower = y
    dl = numpy_decompositions.cholesky_tangent(da, scipy_linalg.triangle(c, lower), not lower)
    unspecified = scipy_linalg.triangle(np.ones(np.shape(c), bool), not lower, True)
    return np.where(unspecified, np.nan, dl)


def cholesky_product(dl, c, lower):
    """The tangent ``dA`` of ``A = L L^H`` (``U^H U`` when not ``lower``)
    for the tangent ``dl`` of the factor in ``c``."""
    f, d = scipy_linalg.triangle(c, lower), scipy_linalg.triangle(dl, lower)
    if lower:
        return d @ numpy_linalg.mH(f) + f @ numpy_linalg.mH(d)
    return numpy_linalg.mH(d) @ f + numpy_linalg.mH(f) @ d


def cho_solve_grads(dy, c_and_lower, b, x):
    """The gradients of ``x = cho_solve((c, lower), b)``, ``A x = b`` with
    ``A = L L^H``: ``db = A^-1 dx``, ``Abar = -db x^H``, and for the factor
    ``(Abar + Abar^H) L`` (``U (Abar + Abar^H)``) on its triangle."""
    c, lower = c_and_lower
    db = scipy.linalg.cho_solve(c_and_lower, dy)
    ga = -(numpy_decompositions.as_columns(db, b) @ numpy_linalg.mH(numpy_decompositions.as_columns(x, b)))
    s = ga + numpy_linalg.mH(ga)
    f = scipy_linalg.triangle(c, lower)
    dc = scipy_linalg.triangle(s @ f if lower else f @ s, lower)
    return numpy_linalg.fit(dc, c), numpy_linalg.fit(db, b)


def lu_rows(piv):
    """``(perm, inverse)`` for LAPACK's row interchanges ``piv``: ``a[perm]
    = L U``, and ``g[inverse]`` puts rows back where ``perm`` took them."""
    if np.ndim(piv) != 1:
        raise errors.NoDerivativeRule(
            "scipy.linalg.lu_factor and lu_solve are differentiated for one square matrix, not a batch",
            hint="factor each matrix of the batch in a loop, or use scipy.linalg.solve",
        )
    perm = np.arange(len(piv))
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm, np.argsort(perm)


nondifferentiable(lu_rows, trans_code)


def lu_factors(lu):
    """The unit lower factor and the upper factor packed in ``lu``."""
    return np.tril(lu, -1) + np.eye(np.shape(lu)[-1], dtype=lu.dtype), np.triu(lu)


def lu_factor_grad(dy, a, y):
    """The gradient of ``(lu, piv) = lu_factor(a)``, ``a[perm] = L U``
    (after the derivative ``L^-1 da' U^-1 = L^-1 dL + dU U^-1``, strictly
    lower plus upper): with ``G`` the cotangent of ``lu``,
    ``F = tril(L^H tril(G, -1), -1) + triu(triu(G) U^H)`` and
    ``abar[perm] = L^-H F U^-H``."""
    g = dy[0]
    if g is None:
        return None
    lu, piv = y
    perm, inverse = scipy_linalg.lu_rows(piv)
    low, up = scipy_linalg.lu_factors(lu)
    f = np.tril(numpy_linalg.mH(low) @ np.tril(g, -1), -1) + np.triu(np.triu(g) @ numpy_linalg.mH(up))
    x = scipy.linalg.solve_triangular(lu, f, 2, True, True)  # L^-H F
    ga = numpy_linalg.mH(scipy.linalg.solve_triangular(lu, numpy_linalg.mH(x), 0, False))  # L^-H F U^-H
    return numpy_linalg.fit(ga[inverse], a)


def lu_factor_tangent(da, y):
    """The tangent of ``lu``: with ``F = L^-1 da[perm] U^-1``,
    ``L tril(F, -1) + triu(F) U``."""
    lu, piv = y
    perm, inverse = scipy_linalg.lu_rows(piv)
    low, up = scipy_linalg.lu_factors(lu)
    z = scipy.linalg.solve_triangular(lu, da[perm], 0, True, True)  # L^-1 da'
    f = numpy_linalg.mT(scipy.linalg.solve_triangular(lu, numpy_linalg.mT(z), 1, False))  # L^-1 da' U^-1
    return low @ np.tril(f, -1) + np.triu(f) @ up


def lu_solve_grads(dy, lu_and_piv, b, x, trans):
    """The gradients of ``x = lu_solve((lu, piv), b, trans)``, ``op(A) x =
    b`` with ``A[perm] = L U``: ``db = op(A)^-H dx``, ``Abar = op(-db
    x^H)``, and for ``lu`` the strict lower triangle of
    ``Abar[perm] U^H`` and the upper one of ``L^H Abar[perm]``."""
    lu, piv = lu_and_piv
    code = scipy_linalg.trans_code(trans)
    if code == 1:
        db = numpy_linalg.conj(scipy.linalg.lu_solve(lu_and_piv, numpy_linalg.conj(dy), 0))
    else:
        db = scipy.linalg.lu_solve(lu_and_piv, dy, 2 - code)
    gm = -(numpy_decompositions.as_columns(db, b) @ numpy_linalg.mH(numpy_decompositions.as_columns(x, b)))
    perm, inverse = scipy_linalg.lu_rows(piv)
    low, up = scipy_linalg.lu_factors(lu)
    g = scipy_linalg.op(gm, code)[perm]
    dlu = np.tril(g @ numpy_linalg.mH(up), -1) + np.triu(numpy_linalg.mH(low) @ g)
    return numpy_linalg.fit(dlu, lu), numpy_linalg.fit(db, b)


def lu_product(dlu, lu, piv):
    """The tangent of ``A``, ``A[perm] = L U``, for a tangent ``dlu`` of
    the packed factors."""
    perm, inverse = scipy_linalg.lu_rows(piv)
    low, up = scipy_linalg.lu_factors(lu)
    return (np.tril(dlu, -1) @ up + low @ np.triu(dlu))[inverse]


def solve_grads(dy, a, b, x, lower, assume_a, transposed):
    """The gradients of ``scipy.linalg.solve``: those of
    ``np.linalg.solve`` for the matrix SciPy reads (transposed when
    ``transposed``), taken back to the entries of ``a`` read (see
    :func:`read_grad`)."""
    m = scipy_linalg.read_matrix(a, assume_a, lower)
    ga, gb = numpy_decompositions.solve_grads(dy, scipy_linalg.op(m, int(transposed)), b, x)
    ga = scipy_linalg.read_grad(scipy_linalg.op(ga, int(transposed)), assume_a, lower)
    return numpy_linalg.fit(ga, a), gb


def inverse_structure(assume_a):
    """``assume_a``, after refusing ``inv(a, assume_a='diagonal')``, whose
    result keeps ``a``'s off-diagonal entries (SciPy 1.17) rather than
    being the inverse of the diagonal matrix it reads. (Returned, to be
    used: the compiler drops unused calls of functions without
    derivatives.)"""
    if assume_a == "diagonal":
        raise errors.NoDerivativeRule(
            "scipy.linalg.inv(assume_a='diagonal') keeps the off-diagonal entries of its input: it is not "
            "differentiated",
            hint="invert the diagonal with 1 / np.diagonal(a) (np.diag(1 / np.diagonal(a)) for the matrix)",
        )
    return assume_a


nondifferentiable(inverse_structure)


def frechet(a, e):
    """``L(a, e)``, the derivative of ``expm`` at ``a`` along ``e``: the
    upper right block of ``expm([[a, e], [0, a]])``."""
    n = np.shape(a)[-1]
    zeros = np.zeros(np.shape(a), np.result_type(a, e))
    block = np.concatenate([np.concatenate([a, e], -1), np.concatenate([zeros, a], -1)], -2)
    return scipy.linalg.expm(block)[..., :n, n:]


def eigh_standard(lower, b, type, subset_by_index, subset_by_value):
    """``lower``, after refusing the derivative of a generalized or partial
    eigenproblem (returned, to be used: see :func:`inverse_structure`)."""
    if b is not None or type != 1 or subset_by_index is not None or subset_by_value is not None:
        raise errors.NoDerivativeRule(
            "scipy.linalg.eigh is differentiated for the standard problem of all eigenvalues only "
            "(b=None, type=1, no subset_by_index or subset_by_value)",
            hint="for a generalized problem with b positive definite, reduce it with a Cholesky factor: "
            "eigh(solve_triangular(L, solve_triangular(L, a, lower=True).T, lower=True)) with "
            "L = cholesky(b, lower=True); take a subset of the eigenvalues by indexing them",
        )
    return lower


nondifferentiable(eigh_standard)


# --------------------------------------------------------------------------
# Triangular and Cholesky solvers


@adjoint(scipy.linalg.solve_triangular)
def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    y = scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal, False, check_finite)

    def back(dy):
        da, db = scipy_linalg.solve_triangular_grads(dy, a, b, y, trans, lower, unit_diagonal)
        return (da, db, None, None, None, None, None)
    return y, back


@pushforward(scipy.linalg.solve_triangular)
def solve_triangular_push(y, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                          check_finite=True, *, da, db):
    """``dx = op(T)^-1 (db - op(dT) x)``, ``dT`` on the triangle read."""
    dm = scipy_linalg.op(scipy_linalg.triangle(da, lower, unit_diagonal), trans)
    r = numpy_decompositions.as_columns(db, b) - dm @ numpy_decompositions.as_columns(y, b)
    return np.reshape(scipy.linalg.solve_triangular(a, r, trans, lower, unit_diagonal), np.shape(y))


@adjoint(scipy.linalg.solve_banded)
def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    y = scipy.linalg.solve_banded(l_and_u, ab, b, False, False, check_finite)

    def back(dy):
        dab, db = scipy_linalg.solve_banded_grads(dy, l_and_u, ab, b, y)
        return (None, dab, db, None, None, None)
    return y, back


@pushforward(scipy.linalg.solve_banded)
def solve_banded_push(y, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True, *, dab, db):
    """``dx = A^-1 (db - dA x)``, ``dA`` the band stored in ``dab``."""
    return scipy.linalg.solve_banded(l_and_u, ab, db - scipy_linalg.banded_product(l_and_u, dab, y, b), False, False,
                                     check_finite)


@adjoint(scipy.linalg.cholesky)
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    y = scipy.linalg.cholesky(a, lower, False, check_finite)

    def back(dy):
        return (numpy_decompositions.cholesky_grad(dy, a, y, not lower), None, None, None)
    return y, back


@pushforward(scipy.linalg.cholesky)
def cholesky_push(y, a, lower=False, overwrite_a=False, check_finite=True, *, da):
    return numpy_decompositions.cholesky_tangent(da, y, not lower)


@adjoint(scipy.linalg.cho_factor)
def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    y = scipy.linalg.cho_factor(a, lower, False, check_finite)

    def back(dy):
        return (scipy_linalg.cho_factor_grad(dy, a, y), None, None, None)
    return y, back


@pushforward(scipy.linalg.cho_factor)
def cho_factor_push(y, a, lower=False, overwrite_a=False, check_finite=True, *, da):
    return (scipy_linalg.cho_factor_tangent(da, y), None)


@adjoint(scipy.linalg.cho_solve)
def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    y = scipy.linalg.cho_solve(c_and_lower, b, False, check_finite)

    def back(dy):
        dc, db = scipy_linalg.cho_solve_grads(dy, c_and_lower, b, y)
        return ((dc, None), db, None, None)
    return y, back


@pushforward(scipy.linalg.cho_solve)
def cho_solve_push(y, c_and_lower, b, overwrite_b=False, check_finite=True, *, dc_and_lower, db):
    """``dx = A^-1 (db - dA x)``, ``dA`` from the factor's tangent."""
    da = scipy_linalg.cholesky_product(dc_and_lower[0], c_and_lower[0], c_and_lower[1])
    r = numpy_decompositions.as_columns(db, b) - da @ numpy_decompositions.as_columns(y, b)
    return np.reshape(scipy.linalg.cho_solve(c_and_lower, r), np.shape(y))


# --------------------------------------------------------------------------
# LU


@adjoint(scipy.linalg.lu_factor)
def lu_factor(a, overwrite_a=False, check_finite=True):
    y = scipy.linalg.lu_factor(a, False, check_finite)

    def back(dy):
        return (scipy_linalg.lu_factor_grad(dy, a, y), None, None)
    return y, back


@pushforward(scipy.linalg.lu_factor)
def lu_factor_push(y, a, overwrite_a=False, check_finite=True, *, da):
    return (scipy_linalg.lu_factor_tangent(da, y), None)


@adjoint(scipy.linalg.lu_solve)
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    y = scipy.linalg.lu_solve(lu_and_piv, b, trans, False, check_finite)

    def back(dy):
        dlu, db = scipy_linalg.lu_solve_grads(dy, lu_and_piv, b, y, trans)
        return ((dlu, None), db, None, None, None)
    return y, back


@pushforward(scipy.linalg.lu_solve)
def lu_solve_push(y, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True, *, dlu_and_piv, db):
    """``dx = op(A)^-1 (db - op(dA) x)``."""
    da = scipy_linalg.lu_product(dlu_and_piv[0], lu_and_piv[0], lu_and_piv[1])
    r = numpy_decompositions.as_columns(db, b) - scipy_linalg.op(da, trans) @ numpy_decompositions.as_columns(y, b)
    return np.reshape(scipy.linalg.lu_solve(lu_and_piv, r, trans), np.shape(y))


# --------------------------------------------------------------------------
# General matrices


@adjoint(scipy.linalg.solve)
def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False):
    y = scipy.linalg.solve(a, b, lower, False, False, check_finite, assume_a, transposed)

    def back(dy):
        da, db = scipy_linalg.solve_grads(dy, a, b, y, lower, assume_a, transposed)
        return (da, db, None, None, None, None, None, None)
    return y, back


@pushforward(scipy.linalg.solve)
def solve_push(y, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
               transposed=False, *, da, db):
    """``dx = M^-1 (db - dM x)`` for the matrix ``M`` SciPy reads, ``dM``
    its tangent (transposed when ``transposed``)."""
    dm = scipy_linalg.op(scipy_linalg.read_matrix(da, assume_a, lower), int(transposed))
    r = numpy_decompositions.as_columns(db, b) - dm @ numpy_decompositions.as_columns(y, b)
    dx = scipy.linalg.solve(a, r, lower, False, False, check_finite, assume_a, transposed)
    return np.reshape(dx, np.shape(y))


@adjoint(scipy.linalg.inv)
def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    y = scipy.linalg.inv(a, False, check_finite, assume_a=assume_a, lower=lower)

    def back(dy):
        yh = numpy_linalg.mH(y)
        g = scipy_linalg.read_grad(-(yh @ dy @ yh), scipy_linalg.inverse_structure(assume_a), lower)
        return (numpy_linalg.fit(g, a), None, None, None, None)
    return y, back


@pushforward(scipy.linalg.inv)
def inv_push(y, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False, da):
    return -(y @ scipy_linalg.read_matrix(da, scipy_linalg.inverse_structure(assume_a), lower) @ y)


@adjoint(scipy.linalg.det)
def det(a, overwrite_a=False, check_finite=True):
    y = scipy.linalg.det(a, False, check_finite)

    def back(dy):
        return (numpy_decompositions.det_grad(dy, a, y), None, None)
    return y, back


@pushforward(scipy.linalg.det)
def det_push(y, a, overwrite_a=False, check_finite=True, *, da):
    return np.sum(numpy_decompositions.cofactor(a, y) * da, axis=(-2, -1))


@adjoint(scipy.linalg.eigh)
def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    y = scipy.linalg.eigh(a, b, lower=lower, eigvals_only=eigvals_only, type=type, check_finite=check_finite,
                          subset_by_index=subset_by_index, subset_by_value=subset_by_value, driver=driver)

    def back(dy):
        uplo = scipy_linalg.eigh_standard(lower, b, type, subset_by_index, subset_by_value)
        if eigvals_only:
            v = scipy.linalg.eigh(a, lower=uplo)[1]
            g = numpy_decompositions.to_triangle((v * dy[..., None, :]) @ numpy_linalg.mH(v), uplo)
            return (numpy_linalg.fit(g, a), None, None, None, None, None, None, None, None, None, None)
        return (numpy_decompositions.eigh_grad(dy, a, y, uplo), None, None, None, None, None, None, None, None, None,
                None)
    return y, back


@pushforward(scipy.linalg.eigh)
def eigh_push(y, a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
              check_finite=True, subset_by_index=None, subset_by_value=None, driver=None, da):
    """As ``np.linalg.eigh``'s: with ``m = v^H S v``, ``S`` the tangent of
    the Hermitian matrix read, ``Re(diag(m))`` and ``v (F * m)``."""
    uplo = scipy_linalg.eigh_standard(lower, b, type, subset_by_index, subset_by_value)
    w, v = scipy.linalg.eigh(a, lower=uplo)
    m = numpy_linalg.mH(v) @ numpy_decompositions.from_triangle(da, uplo) @ v
    dw = np.real(np.diagonal(m, 0, -2, -1))
    if eigvals_only:
        return dw
    return (dw, v @ (numpy_decompositions.inverse_gaps(w) * m))


# --------------------------------------------------------------------------
# Matrix functions


@adjoint(scipy.linalg.expm)
def expm(A):
    y = scipy.linalg.expm(A)

    def back(dy):
        return (numpy_linalg.fit(scipy_linalg.frechet(numpy_linalg.mH(A), dy), A),)
    return y, back


@pushforward(scipy.linalg.expm)
def expm_push(y, A, *, dA):
    return scipy_linalg.frechet(A, dA)


@adjoint(scipy.linalg.sqrtm)
def sqrtm(A):
    y = scipy.linalg.sqrtm(A)

    def back(dy):
        yh = numpy_linalg.mH(y)
        return (numpy_linalg.fit(scipy.linalg.solve_sylvester(yh, yh, dy), A),)
    return y, back


@pushforward(scipy.linalg.sqrtm)
def sqrtm_push(y, A, *, dA):
    return scipy.linalg.solve_sylvester(y, y, dA)


@adjoint(scipy.linalg.solve_sylvester)
def solve_sylvester(a, b, q):
    y = scipy.linalg.solve_sylvester(a, b, q)

    def back(dy):
        g = scipy.linalg.solve_sylvester(numpy_linalg.mH(a), numpy_linalg.mH(b), dy)
        return (numpy_linalg.fit(-(g @ numpy_linalg.mH(y)), a), numpy_linalg.fit(-(numpy_linalg.mH(y) @ g), b),
                numpy_linalg.fit(g, q))
    return y, back


@pushforward(scipy.linalg.solve_sylvester)
def solve_sylvester_push(y, a, b, q, *, da, db, dq):
    """``a dx + dx b = dq - da x - x db``."""
    return scipy.linalg.solve_sylvester(a, b, dq - da @ y - y @ db)


array_valued(scipy.linalg.solve_triangular, scipy.linalg.solve_banded, scipy.linalg.cholesky, scipy.linalg.cho_solve,
             scipy.linalg.lu_solve, scipy.linalg.solve, scipy.linalg.inv, scipy.linalg.det, scipy.linalg.expm, scipy.linalg.sqrtm,
             scipy.linalg.solve_sylvester)
