"""Rules for ``np.linalg``'s decompositions and the inverses,
determinants and solves built on them.

Covered: ``np.linalg``'s ``solve``, ``inv``, ``det``, ``slogdet``,
``cholesky``, ``qr``, ``eigh``, ``eigvalsh``, ``svd``, ``svdvals``,
``pinv`` and ``matrix_power``; ``matrix_rank`` is integer-valued
(registered non-differentiable). Every rule takes stacks of matrices where
NumPy does, and sums a gradient over the batch dimensions along which its
operand was broadcast. Complex inputs follow :mod:`.numpy_linalg`'s
convention (conjugate transposes), whose helpers these rules share.

Conventions:

- ``det``: the gradient is the matrix of cofactors, ``det(a) inv(a).T``.
  At ``det(a) == 0`` it is computed from the SVD instead (the adjugate is a
  polynomial in ``a``), so it is exact there too: nonzero at rank
  ``n - 1``, zero below.
- ``slogdet``: the gradient of ``logabsdet`` is ``inv(a).T``; ``sign`` is
  piecewise constant for real ``a`` (its cotangent is ignored) and a phase
  for complex ``a`` (its cotangent counts). At a singular ``a`` the entries
  are ``inf`` or ``nan``.
- The triangle convention: ``cholesky``, ``eigh``, ``eigvalsh``, and
  ``svd``/``pinv`` with ``hermitian=True`` read one triangle of ``a``
  (``cholesky``'s lower one, its upper one for ``upper=True``; the one
  ``UPLO`` names; the lower one for ``hermitian=True``) and the real part
  of its diagonal, as LAPACK does, and stand for the Hermitian matrix
  built from them (:func:`from_triangle`). The gradient is with respect
  to the entries read: ``G + G^H`` on the strict triangle read, ``Re``
  of ``G``'s diagonal on the diagonal, zeros on the other triangle, for
  the gradient ``G`` with respect to that Hermitian matrix
  (:func:`to_triangle`). So it is exact for any ``a``, symmetric or not;
  for a symmetric perturbation it gives the same directional derivative
  as the symmetrized gradient ``(G + G^H) / 2`` (which this is not), and
  a tangent in the other triangle (or the imaginary part of the diagonal)
  has no effect in forward mode. As JAX and autograd do. Cholesky's ``G``
  is Murray's (2016) ``L^-H Phi(L^H Lbar) L^-1``, ``Phi`` taking the
  lower triangle with its diagonal halved.
- ``eigh``, ``svd``: the eigenvectors' and singular vectors' gradients
  assume distinct eigenvalues (singular values), and, for ``svd``'s
  vectors, nonzero singular values; where that fails the gradient has
  ``inf`` or ``nan`` entries rather than raising. A loss must not depend on
  the vectors' signs (phases), which are arbitrary. The values' gradients
  (``eigvalsh``, ``svd(compute_uv=False)``, ``svdvals``) have no such
  restriction.
- ``svd`` of an ``m x n`` matrix with ``full_matrices=True`` (NumPy's
  default) and ``m != n``: the vectors beyond the first ``min(m, n)`` are
  not unique, so a nonzero cotangent on them raises
  :class:`~zygote_py.errors.NoDerivativeRule` (use
  ``full_matrices=False``); ``qr(mode='complete')`` of a tall matrix
  likewise. ``qr(mode='raw')`` has no gradient.
- ``pinv``: the full-rank formula (Golub and Pereyra 1973); at a rank
  change the pseudo-inverse is not continuous.
- ``matrix_power(a, n)``: any integer ``n``; negative powers through
  ``inv(a)``.

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``, the
transpose of its pullback under the conventions above: the symmetric-input
functions push ``from_triangle(da)``, and the vectors of ``svd``/``qr`` the same
gauges; the trailing vectors that ``svd(full_matrices=True)`` and
``qr(mode='complete')`` of a non-square matrix add, which have no gradient,
get the tangent that turns them with the others and not among themselves.
The pullbacks change nothing in place, so that they can be differentiated
again (second derivatives).
"""
import numpy as np

from zygote_py import errors, runtime

# The rules below call the helpers by their qualified names, as they call
# np.linalg.solve, so that the compiler can inline them.
from zygote_py.rules import numpy_decompositions, numpy_linalg

from .numpy_linalg import conj, diagonal_matrix, diagonal_view, fit, float_dtype, mH, mT, sum_to
from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(np.linalg.matrix_rank)

# --------------------------------------------------------------------------
# Helpers


def cofactor(a, d):
    """The matrix of cofactors of ``a`` (its adjugate, transposed), given
    ``d = det(a)``: ``d * inv(a).T``, or, when ``a`` is singular, from the
    SVD ``a = U S Vh``: ``adj(a) = det(U) det(Vh) Vh^H adj(S) U^H``, where
    ``adj(S)`` holds the products of all singular values but one."""
    d = runtime.arrays.asarray(d)
    if np.all(d != 0):
        try:
            return d[..., None, None] * mT(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            pass
    u, s, vh = np.linalg.svd(a)
    one = np.ones_like(s[..., :1])
    before = np.cumprod(np.concatenate([one, s[..., :-1]], -1), -1)
    after = np.cumprod(np.concatenate([one, s[..., :0:-1]], -1), -1)[..., ::-1]
    phase = np.linalg.det(u) * np.linalg.det(vh)
    adj = (mH(vh) * (before * after)[..., None, :]) @ mH(u) * phase[..., None, None]
    return mT(adj)


def det_grad(dy, a, y):
    """The gradient of ``np.linalg.det``: ``dy`` times the cofactors."""
    return fit(runtime.arrays.asarray(dy)[..., None, None] * conj(cofactor(a, y)), a)


def slogdet_grad(dy, a, y):
    """The gradient of ``np.linalg.slogdet``: ``inv(a)^H`` times the
    cotangent of ``log(det(a))`` (for a complex ``a``, the sign's is its
    imaginary part); ``None`` when neither output has one."""
    dsign, dlog = dy
    sign = y[0]
    complex_ = np.iscomplexobj(sign)
    if dlog is None and (dsign is None or not complex_):
        return None
    c = np.zeros(np.shape(sign)) if dlog is None else runtime.arrays.asarray(dlog)
    if complex_ and dsign is not None:
        c = c + 1j * np.imag(dsign * np.conj(sign))
    return fit(c[..., None, None] * mH(inverse(a, y)), a)


def inverse(a, y):
    """``inv(a)`` given ``y = slogdet(a)``; at a singular ``a``, the
    adjugate over the determinant: ``inf`` or ``nan`` entries, no error."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        d = runtime.arrays.asarray(y[0] * np.exp(y[1]))
        with np.errstate(divide="ignore", invalid="ignore"):
            return mT(cofactor(a, d)) / d[..., None, None]


def solve_grads(dy, a, b, y):
    """The gradients of ``x = np.linalg.solve(a, b)``: ``db = a^-H dx`` and
    ``da = -db x^H``. A 1-d ``b`` is one vector."""
    if np.ndim(b) == 1:
        db = np.linalg.solve(mH(a), runtime.arrays.asarray(dy)[..., None])
        da = -db * conj(y)[..., None, :]
        return fit(sum_to(da, np.shape(a)), a), fit(sum_to(db[..., 0], np.shape(b)), b)
    db = np.linalg.solve(mH(a), dy)
    da = -db @ mH(y)
    return fit(sum_to(da, np.shape(a)), a), fit(sum_to(db, np.shape(b)), b)


def as_columns(x, b):
    """``x`` (``b``, or a tangent or solution of ``solve(a, b)``) as a stack
    of matrices: a 1-d ``b`` is one column."""
    return x[..., None] if np.ndim(b) == 1 else x


def from_triangle(a, lower, conjugate=True):
    """The Hermitian matrix that LAPACK's Hermitian routines read in
    ``a``: its lower (``lower``) or upper triangle, mirrored with the
    conjugate, and the real part of its diagonal; the complex symmetric
    one, mirrored without the conjugate and with the whole diagonal, for
    ``conjugate=False`` (SciPy's ``assume_a='sym'``). Linear in ``a``: for
    a tangent of ``a``, the tangent of that matrix."""
    t = np.tril(a, -1) if lower else np.triu(a, 1)
    if conjugate:
        return t + mH(t) + diagonal_matrix(np.real(diagonal_view(a)))
    return t + mT(t) + diagonal_matrix(diagonal_view(a))


def to_triangle(g, lower, conjugate=True):
    """The transpose of :func:`from_triangle`: for the gradient ``g`` of
    the matrix read, the gradient of the entries of ``a`` read. The strict
    triangle read gets ``g + g^H`` (``g + g^T``), the diagonal ``g``'s
    (its real part), the other triangle zeros."""
    h = g + (mH(g) if conjugate else mT(g))
    t = np.tril(h, -1) if lower else np.triu(h, 1)
    d = diagonal_view(g)
    return t + diagonal_matrix(np.real(d) if conjugate else d)


def reads_lower(UPLO):
    """Whether ``eigh``/``eigvalsh`` read the lower triangle (NumPy takes
    ``UPLO`` in either case)."""
    return UPLO.upper() == "L"


nondifferentiable(reads_lower)


def cholesky_grad(dy, a, y, upper):
    """The gradient of ``np.linalg.cholesky`` (after Murray 2016), on
    the triangle read (the lower one, the upper one for ``upper``):
    ``a = L L^H`` gives ``L^-1 da L^-H = X + X^H`` with
    ``X = L^-1 dL`` lower triangular, so ``dL = L Phi(L^-1 da L^-H)``, where
    ``Phi`` takes the lower triangle and halves the diagonal, and the
    gradient for a cotangent ``Lbar`` is ``L^-H Phi(L^H Lbar) L^-1`` for the
    Hermitian matrix read (:func:`to_triangle` then takes it to ``a``)."""
    L = mH(y) if upper else y
    # L^H is upper triangular, so the lower triangle of L^H Lbar reads only
    # Lbar's lower triangle: a cotangent on the zeros of L has no effect.
    p = np.tril(mH(L) @ (mH(dy) if upper else dy))
    p = p - 0.5 * diagonal_matrix(diagonal_view(p))
    x = np.linalg.solve(mH(L), p)  # L^-H P
    return fit(to_triangle(mH(np.linalg.solve(mH(L), mH(x))), not upper), a)  # (L^-H P) L^-1


def cholesky_tangent(da, y, upper):
    """The tangent of ``np.linalg.cholesky``: ``dL = L Phi(L^-1 S L^-H)``
    for the tangent ``S`` of the Hermitian matrix read (see
    :func:`cholesky_grad`); ``da`` in the other triangle has no effect."""
    L = mH(y) if upper else y
    s = from_triangle(da, not upper)
    p = np.tril(np.linalg.solve(L, mH(np.linalg.solve(L, s))))  # L^-1 S L^-H
    p = p - 0.5 * diagonal_matrix(diagonal_view(p))
    dL = L @ p
    return mH(dL) if upper else dL


def qr_tall_grad(q, r, dq, dr):
    """The gradient of ``q, r = qr(a)`` for ``m >= n``: with
    ``M = R Rbar^H - Qbar^H Q`` and ``C`` the Hermitian matrix with ``M``'s
    strict lower triangle and the real part of its diagonal,
    ``abar = (Qbar + Q C) R^-H``."""
    m = 0
    if dr is not None:
        m = r @ mH(dr)
    if dq is not None:
        m = m - mH(dq) @ q
    lower = np.tril(m, -1)
    c = lower + mH(lower) + diagonal_matrix(np.real(diagonal_view(m)))
    b = q @ c if dq is None else dq + q @ c
    return mH(np.linalg.solve(r, mH(b)))


def qr_grad(dy, a, y, mode):
    """The gradient of ``np.linalg.qr(a, mode)``. A wide ``a = [X | Y]``
    (``m < n``) has ``R = [U | V]`` with ``X = Q U`` and ``V = Q^H Y``, so
    ``Y``'s gradient is ``Q Vbar`` and ``X``'s that of a square QR with
    ``Qbar + Y Vbar^H``."""
    a = runtime.arrays.asarray(a)
    if mode == "r":
        (q, r), dq, dr = np.linalg.qr(a), None, dy
    elif mode in ("reduced", "complete"):
        (q, r), (dq, dr) = y, dy
    else:
        raise errors.NoDerivativeRule(
            f"np.linalg.qr(mode={mode!r}) has no gradient",
            hint="use mode='reduced', 'complete' or 'r'",
        )
    m, n = a.shape[-2:]
    if m > n and q.shape[-1] == m:  # 'complete': trailing columns of Q not unique
        if dq is not None and np.any(dq[..., n:]):
            raise errors.NoDerivativeRule(
                "np.linalg.qr(mode='complete') of a tall matrix: its trailing columns of Q "
                "are not unique, so they have no gradient",
                hint="use mode='reduced'",
            )
        q, r = q[..., :n], r[..., :n, :]
        dq = None if dq is None else dq[..., :n]
        dr = None if dr is None else dr[..., :n, :]
    if dq is None and dr is None:
        return None
    if m >= n:
        return fit(qr_tall_grad(q, r, dq, dr), a)
    du = None if dr is None else dr[..., :m]
    dv = np.zeros_like(r[..., m:]) if dr is None else dr[..., m:]
    dq = a[..., m:] @ mH(dv) if dq is None else dq + a[..., m:] @ mH(dv)
    gx = qr_tall_grad(q, r[..., :m], dq, du)
    return fit(np.concatenate([gx, q @ dv], -1), a)


def qr_tangent(da, a, y, mode):
    """The tangent of ``np.linalg.qr(a, mode)``, in the gauge of NumPy's
    (LAPACK's) factors, where ``R`` has a real diagonal. For ``X = Q U``
    (``a``'s first ``k = min(m, n)`` columns, ``U`` square) and
    ``C = Q^H dX U^-1``: ``Q^H dQ = Omega``, the anti-Hermitian matrix with
    ``C``'s strict lower triangle and the imaginary part of its diagonal,
    ``dU = (C - Omega) U`` and ``dQ = dX U^-1 - Q (C - Omega)``. A wide
    ``a``'s ``V = Q^H Y`` gets ``dQ^H Y + Q^H dY``; the trailing columns of
    a tall ``'complete'`` Q, which are not unique, get ``-Q dQ^H Q2``
    (they turn with the others and not among themselves)."""
    if mode not in ("reduced", "complete", "r"):
        raise errors.NoDerivativeRule(
            f"np.linalg.qr(mode={mode!r}) has no derivative",
            hint="use mode='reduced', 'complete' or 'r'",
        )
    a = runtime.arrays.asarray(a)
    q, r = np.linalg.qr(a) if mode == "r" else y
    m, n = a.shape[-2:]
    k = min(m, n)
    q1, u = q[..., :k], r[..., :k, :k]
    b = mH(np.linalg.solve(mH(u), mH(da[..., :k])))  # dX U^-1
    c = mH(q1) @ b
    lower = np.tril(c, -1)
    omega = lower - mH(lower) + diagonal_matrix(diagonal_view(c) - np.real(diagonal_view(c)))
    dq = b - q1 @ (c - omega)
    dr = (c - omega) @ u
    if n > m:
        dr = np.concatenate([dr, mH(dq) @ a[..., k:] + mH(q1) @ da[..., k:]], -1)
    if mode == "r":
        return dr
    if q.shape[-1] > k:  # 'complete', tall
        dq = np.concatenate([dq, -q1 @ (mH(dq) @ q[..., k:])], -1)
        dr = np.concatenate([dr, np.zeros_like(r[..., k:, :])], -2)
    return dq, dr


def inverse_gaps(w):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it. Written
    without changes in place, so that a pullback using it can be
    differentiated again (and without dividing by the zero gaps of the
    diagonal, whose derivative would be ``nan``)."""
    off = ~np.eye(w.shape[-1], dtype=bool)
    with np.errstate(divide="ignore"):
        return np.where(off, 1 / np.where(off, w[..., None, :] - w[..., :, None], 1), 0)


def eigh_grad(dy, a, y, lower):
    """The gradient of ``np.linalg.eigh`` (Giles 2008) on the triangle
    read (:func:`to_triangle`): ``v (diag(wbar) + F * (v^H vbar)) v^H``
    with ``F`` from :func:`inverse_gaps`; ``None`` when neither output has
    a cotangent."""
    (dw, dv), (w, v) = dy, y
    if dv is None:
        if dw is None:
            return None
        return fit(to_triangle((v * dw[..., None, :]) @ mH(v), lower), a)
    inner = inverse_gaps(w) * (mH(v) @ dv)
    if dw is not None:  # (F's diagonal is 0: inner's holds dw alone)
        inner = inner + diagonal_matrix(dw)
    return fit(to_triangle(v @ inner @ mH(v), lower), a)


def svd_values_grad(ds, u, vh):
    """The gradient through singular values alone: ``u diag(ds) vh``."""
    return (u * ds[..., None, :]) @ vh


def hermitian_grad(g, a, hermitian):
    """``g`` as the gradient of ``a``, on its lower triangle when
    ``hermitian`` (``svd`` and ``pinv`` read that one then)."""
    return fit(to_triangle(g, True) if hermitian else g, a)


def svd_grad(dy, a, y, full_matrices, compute_uv, hermitian):
    """The gradient of ``np.linalg.svd`` (after Townsend 2016, derived for
    ``a = U S V^H`` with ``U``, ``V`` of ``k = min(m, n)`` columns):

    ``U [diag(sbar) + (F * (U^H Ubar - Ubar^H U)) S + S (F * (V^H Vbar -
    Vbar^H V))] V^H + (I - U U^H) Ubar S^-1 V^H + U S^-1 Vbar^H (I - V V^H)``

    with ``F[i, j] = 1 / (s[j]^2 - s[i]^2)``, plus, for complex ``a``,
    ``U diag(i Im(diag(U^H Ubar)) / s) V^H`` (the phases of the singular
    vectors are arbitrary; this is the gauge where ``V``'s stay put).
    ``Vbar`` is ``dVh^H``. With ``hermitian``, NumPy factors the lower
    triangle of ``a`` (through ``eigh``): the gradient is on that triangle."""
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        return hermitian_grad(svd_values_grad(dy, u, vh), a, hermitian)
    (du, ds, dvh), (u, s, vh) = dy, y
    m, n = np.shape(a)[-2:]
    k = s.shape[-1]
    if full_matrices and m != n:
        if du is not None and np.any(du[..., k:]) or dvh is not None and np.any(dvh[..., k:, :]):
            raise errors.NoDerivativeRule(
                "np.linalg.svd(full_matrices=True) of a non-square matrix: its trailing "
                "singular vectors are not unique, so they have no gradient",
                hint="use np.linalg.svd(a, full_matrices=False)",
            )
        u, vh = u[..., :k], vh[..., :k, :]
        du = None if du is None else du[..., :k]
        dvh = None if dvh is None else dvh[..., :k, :]
    if du is None and dvh is None:
        if ds is None:
            return None
        return hermitian_grad(svd_values_grad(ds, u, vh), a, hermitian)
    f = inverse_gaps(s * s)
    core = np.zeros(f.shape, dtype=np.result_type(u, f))
    if ds is not None:
        core = core + diagonal_matrix(ds)
    g = 0
    if du is not None:
        j = mH(u) @ du
        core = core + (f * (j - mH(j))) * s[..., None, :]
        if np.iscomplexobj(j):
            core = core + diagonal_matrix(1j * np.imag(diagonal_view(j)) / s)
        if m > k:
            g = ((du - u @ j) / s[..., None, :]) @ vh
    if dvh is not None:
        kk = vh @ mH(dvh)
        core = core + s[..., :, None] * (f * (kk - mH(kk)))
        if n > k:
            g = g + (u / s[..., None, :]) @ (dvh - (dvh @ mH(vh)) @ vh)
    g = (u @ core) @ vh + g
    return hermitian_grad(g, a, hermitian)


def svd_tangent(da, a, y, full_matrices, compute_uv, hermitian):
    """The tangent of ``np.linalg.svd`` (along ``from_triangle(da)``
    when ``hermitian``), in :func:`svd_grad`'s gauge. With ``P = U^H da V`` and
    ``F`` as there: ``ds = Re(diag(P))``,
    ``dU = U [F * (P S + S P^H) + diag(i Im(diag(P)) / s)] + (I - U U^H) da V S^-1``,
    ``dV = V [F * (S P + P^H S)] + (I - V V^H) da^H U S^-1``. The vectors
    beyond the first ``min(m, n)`` (``full_matrices``), which are not
    unique, turn with the others and not among themselves:
    ``dU2 = -U dU^H U2``."""
    d = from_triangle(da, True) if hermitian else da
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        return np.real(np.einsum("...ji,...jk,...ik->...i", conj(u), d, conj(vh)))
    u, s, vh = y
    m, n = np.shape(a)[-2:]
    k = s.shape[-1]
    u1, vh1 = u[..., :k], vh[..., :k, :]
    v1 = mH(vh1)
    p = mH(u1) @ d @ v1
    ds = np.real(diagonal_view(p))
    f = inverse_gaps(s * s)
    row, col = s[..., None, :], s[..., :, None]
    ph = mH(p)
    omega_u = f * (p * row + col * ph)
    if np.iscomplexobj(p):  # (F's diagonal is 0: omega_u's holds this alone)
        omega_u = omega_u + diagonal_matrix(1j * np.imag(diagonal_view(p)) / s)
    du = u1 @ omega_u
    dv = v1 @ (f * (col * p + ph * row))
    if m > k:
        du = du + (d @ v1 - u1 @ p) / row
    if n > k:
        dv = dv + (mH(d) @ u1 - v1 @ ph) / row
    if u.shape[-1] > k:
        du = np.concatenate([du, -u1 @ (mH(du) @ u[..., k:])], -1)
    dvh = mH(dv)
    if vh.shape[-2] > k:
        dvh = np.concatenate([dvh, -(vh[..., k:, :] @ dv) @ vh1], -2)
    return du, ds, dvh


def pinv_grad(dy, a, y, hermitian):
    """The gradient of ``x = np.linalg.pinv(a)`` of full rank:
    ``-x^H xbar x^H + (I - a x) xbar^H x x^H + x^H x xbar^H (I - x a)``,
    with ``a`` the Hermitian matrix read when ``hermitian`` (its lower
    triangle), the gradient on that triangle."""
    A, xh = from_triangle(a, True) if hermitian else runtime.arrays.asarray(a), mH(y)
    t = mH(dy) @ (y @ xh)
    u = (xh @ y) @ mH(dy)
    g = -(xh @ dy @ xh) + (t - A @ (y @ t)) + (u - (u @ y) @ A)
    return hermitian_grad(g, a, hermitian)


def pinv_tangent(da, a, y, hermitian):
    """The tangent of ``x = np.linalg.pinv(a)`` of full rank (of the
    Hermitian matrix read, along ``from_triangle(da)``, when
    ``hermitian``):
    ``-x da x + x x^H da^H (I - a x) + (I - x a) da^H x^H x``."""
    if hermitian:
        A, d = from_triangle(a, True), from_triangle(da, True)
    else:
        A, d = runtime.arrays.asarray(a), da
    t = (y @ mH(y)) @ mH(d)
    u = mH(d) @ (mH(y) @ y)
    return -(y @ d @ y) + (t - (t @ A) @ y) + (u - y @ (A @ u))


def matrix_power_grad(dy, a, n):
    """The gradient of ``np.linalg.matrix_power(a, n)``: the sum of
    ``(a^H)^i dy (a^H)^(n-1-i)`` over ``i < n``, accumulated as
    ``G <- a^H G + dy (a^H)^j``; through ``inv(a)`` for ``n < 0``."""
    A = runtime.arrays.asarray(a)
    if n < 0:
        b = np.linalg.inv(A)
        gb = matrix_power_grad(dy, b, -n)
        return fit(-(mH(b) @ gb @ mH(b)), a)
    if n == 0:
        return fit(np.zeros(A.shape, float_dtype(A)), a)
    ah = mH(A)
    g, power = dy, ah
    for _ in range(n - 1):
        g = ah @ g + dy @ power
        power = power @ ah
    return fit(g, a)


def matrix_power_tangent(da, a, n):
    """The tangent of ``np.linalg.matrix_power(a, n)``: the sum of
    ``a^i da a^(n-1-i)`` over ``i < n``, accumulated as
    ``D <- a D + da a^j``; through ``inv(a)`` for ``n < 0``."""
    A = runtime.arrays.asarray(a)
    if n < 0:
        b = np.linalg.inv(A)
        return matrix_power_tangent(-(b @ da @ b), b, -n)
    if n == 0:
        return np.zeros(A.shape, float_dtype(A))
    d, power = da, A
    for _ in range(n - 1):
        d = A @ d + da @ power
        power = power @ A
    return d



# --------------------------------------------------------------------------
# np.linalg


@adjoint(np.linalg.solve)
def solve(a, b):
    y = np.linalg.solve(a, b)

    def back(dy):
        da, db = numpy_decompositions.solve_grads(dy, a, b, y)
        return (da, db)
    return y, back


@pushforward(np.linalg.solve)
def solve_push(y, a, b, *, da, db):
    """``dx = a^-1 (db - da x)``, in columns (a 1-d ``b`` is one)."""
    x = numpy_decompositions.as_columns(y, b)
    dx = np.linalg.solve(a, numpy_decompositions.as_columns(db, b) - da @ x)
    return np.reshape(dx, np.shape(y))


@adjoint(np.linalg.inv)
def inv(a):
    y = np.linalg.inv(a)

    def back(dy):
        yh = numpy_linalg.mH(y)
        return (-(yh @ dy @ yh),)
    return y, back


@pushforward(np.linalg.inv)
def inv_push(y, a, *, da):
    return -(y @ da @ y)


@adjoint(np.linalg.det)
def det(a):
    y = np.linalg.det(a)

    def back(dy):
        return (numpy_decompositions.det_grad(dy, a, y),)
    return y, back


@pushforward(np.linalg.det)
def det_push(y, a, *, da):
    """The cofactors' inner product with ``da`` (``det(a) tr(a^-1 da)``
    where ``a`` is invertible)."""
    return np.sum(numpy_decompositions.cofactor(a, y) * da, axis=(-2, -1))


@adjoint(np.linalg.slogdet)
def slogdet(a):
    y = np.linalg.slogdet(a)

    def back(dy):
        return (numpy_decompositions.slogdet_grad(dy, a, y),)
    return y, back


@pushforward(np.linalg.slogdet)
def slogdet_push(y, a, *, da):
    """With ``t = tr(a^-1 da)``: ``Re(t)`` for ``logabsdet`` and
    ``sign * i Im(t)`` for the sign (0 for a real ``a``)."""
    t = np.sum(numpy_linalg.mT(numpy_decompositions.inverse(a, y)) * da, axis=(-2, -1))
    return (y[0] * (t - np.real(t)), np.real(t))


@adjoint(np.linalg.cholesky)
def cholesky(a, upper=False):
    y = np.linalg.cholesky(a, upper=upper)

    def back(dy):
        return (numpy_decompositions.cholesky_grad(dy, a, y, upper), None)
    return y, back


@pushforward(np.linalg.cholesky)
def cholesky_push(y, a, upper=False, *, da):
    return numpy_decompositions.cholesky_tangent(da, y, upper)


@adjoint(np.linalg.qr)
def qr(a, mode="reduced"):
    y = np.linalg.qr(a, mode)

    def back(dy):
        return (numpy_decompositions.qr_grad(dy, a, y, mode), None)
    return y, back


@pushforward(np.linalg.qr)
def qr_push(y, a, mode="reduced", *, da):
    return numpy_decompositions.qr_tangent(da, a, y, mode)


@adjoint(np.linalg.eigh)
def eigh(a, UPLO="L"):
    y = np.linalg.eigh(a, UPLO)

    def back(dy):
        return (numpy_decompositions.eigh_grad(dy, a, y, numpy_decompositions.reads_lower(UPLO)), None)
    return y, back


@pushforward(np.linalg.eigh)
def eigh_push(y, a, UPLO="L", *, da):
    """With ``m = v^H S v``, ``S`` the tangent of the Hermitian matrix
    read (:func:`from_triangle`): ``Re(diag(m))`` for the eigenvalues,
    ``v (F * m)`` for the eigenvectors, ``F`` from :func:`inverse_gaps`."""
    w, v = y
    s = numpy_decompositions.from_triangle(da, numpy_decompositions.reads_lower(UPLO))
    m = numpy_linalg.mH(v) @ s @ v
    return (np.real(np.diagonal(m, 0, -2, -1)), v @ (numpy_decompositions.inverse_gaps(w) * m))


@adjoint(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    y = np.linalg.eigvalsh(a, UPLO)

    def back(dy):
        v = np.linalg.eigh(a, UPLO).eigenvectors
        g = numpy_decompositions.to_triangle((v * dy[..., None, :]) @ numpy_linalg.mH(v),
                                             numpy_decompositions.reads_lower(UPLO))
        return (numpy_linalg.fit(g, a), None)
    return y, back


@pushforward(np.linalg.eigvalsh)
def eigvalsh_push(y, a, UPLO="L", *, da):
    """``Re(diag(v^H S v))``, ``S`` the tangent of the Hermitian matrix
    read."""
    v = np.linalg.eigh(a, UPLO).eigenvectors
    s = numpy_decompositions.from_triangle(da, numpy_decompositions.reads_lower(UPLO))
    return np.real(np.einsum("...ji,...jk,...ki->...i", numpy_linalg.conj(v), s, v))


@adjoint(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    y = np.linalg.svd(a, full_matrices, compute_uv, hermitian)

    def back(dy):
        da = numpy_decompositions.svd_grad(dy, a, y, full_matrices, compute_uv, hermitian)
        return (da, None, None, None)
    return y, back


@pushforward(np.linalg.svd)
def svd_push(y, a, full_matrices=True, compute_uv=True, hermitian=False, *, da):
    return numpy_decompositions.svd_tangent(da, a, y, full_matrices, compute_uv, hermitian)


@adjoint(np.linalg.svdvals)
def svdvals(x):
    y = np.linalg.svdvals(x)

    def back(dy):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        return (numpy_linalg.fit(numpy_decompositions.svd_values_grad(dy, u, vh), x),)
    return y, back


@pushforward(np.linalg.svdvals)
def svdvals_push(y, x, *, dx):
    """``Re(diag(u^H dx v))``."""
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return np.real(np.einsum("...ji,...jk,...ik->...i", numpy_linalg.conj(u), dx, numpy_linalg.conj(vh)))


@adjoint(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False):
    y = np.linalg.pinv(a, rcond, hermitian)

    def back(dy):
        return (numpy_decompositions.pinv_grad(dy, a, y, hermitian), None, None)
    return y, back


@pushforward(np.linalg.pinv)
def pinv_push(y, a, rcond=None, hermitian=False, *, da):
    return numpy_decompositions.pinv_tangent(da, a, y, hermitian)


@adjoint(np.linalg.matrix_power)
def matrix_power(a, n):
    def back(dy):
        return (numpy_decompositions.matrix_power_grad(dy, a, n), None)
    return np.linalg.matrix_power(a, n), back


@pushforward(np.linalg.matrix_power)
def matrix_power_push(y, a, n, *, da):
    return numpy_decompositions.matrix_power_tangent(da, a, n)
