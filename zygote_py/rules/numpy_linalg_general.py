"""Rules for :mod:`numpy.linalg` on general operands: the eigenproblem of
non-symmetric matrices, least squares, tensor equations, chains of
products and condition numbers.

Covered: ``np.linalg``'s ``eig``, ``eigvals``, ``lstsq``, ``tensorsolve``,
``tensorinv``, ``multi_dot`` and ``cond``. (``matrix_norm`` and
``vector_norm`` are with ``norm`` in :mod:`.numpy_reductions`,
``matrix_transpose`` in :mod:`.numpy_shapes`, and the symmetric
decompositions, ``solve``, ``inv`` and ``pinv`` in
:mod:`.numpy_decompositions` and the products in :mod:`.numpy_linalg`,
whose conventions and helpers these rules share.)

Conventions:

- ``eig``: with ``P = V^-1 da V``, the eigenvalues move by
  ``diag(P)`` and the eigenvectors by ``V C``, ``C = F * P`` off the
  diagonal (``F[i, j] = 1 / (w[j] - w[i])``). NumPy scales each
  eigenvector to unit length and picks its phase; the tangent keeps the
  length (``Re(v_j^H dv_j) = 0``) and adds no turn of the phase (``C``'s
  diagonal real). A loss must not depend on the phases (for a real
  eigenvector, the sign): use ``|v|``, ratios of components, or ``v v^H``.
  The gradient, the transpose of that tangent, is
  ``V^-H (diag(wbar) + conj(F) * (V^H vbar - V^H V Re(diag(V^H vbar)))) V^H``.
  Repeated eigenvalues give ``inf`` or ``nan`` entries when the
  eigenvectors have a cotangent. A real ``a`` gets the real part; NumPy
  returns real eigenvalues and eigenvectors for a real ``a`` whose
  eigenvalues are all real, complex ones otherwise.
- ``eigvals``: ``V^-H diag(wbar) V^H``, the eigenvectors recomputed by
  ``eig`` and matched to the eigenvalues ``eigvals`` returned (LAPACK need
  not order them alike with and without eigenvectors).
- ``lstsq(a, b, rcond)``: the solution ``x = pinv(a) b``, differentiated
  through ``pinv``'s full-rank formula (see :mod:`.numpy_decompositions`): exact
  where ``a`` has full rank, and along changes that keep its rank
  otherwise. The residuals (for a tall ``a`` of full rank) are minima, so
  their gradient holds ``x`` fixed: ``2 r`` for ``b``, ``-2 r x^H`` for
  ``a`` (``r = b - a x``, column by column); the singular values get
  ``svdvals``'s gradient; the rank is an integer (no gradient).
- ``tensorsolve`` and ``tensorinv`` are ``solve`` and ``inv`` of ``a``
  reshaped to a square matrix (with ``axes`` moved last first).
- ``multi_dot``: operand ``k`` gets ``L^H dy R^H``, ``L`` and ``R`` the
  products of the operands before and after it (a 1-d first operand is a
  row, a 1-d last one a column, as NumPy reads them).
- ``cond(x, p)``: for ``p`` ``None``, 2, -2 the ratio of the extreme
  singular values, through their singular vectors (as ``norm``'s spectral
  norms); for ``'fro'``, ``'nuc'``, 1, -1, ``inf``, ``-inf``,
  ``norm(x, p) * norm(inv(x), p)`` through ``norm``'s gradient and
  ``inv``'s.

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``,
the transpose of its pullback with the same conventions. The pullbacks
change nothing in place, so that they can be differentiated again
(second derivatives).
"""
import numpy as np

# The rules below call the helpers by their qualified names, so that the
# compiler can inline the rules.
from zygote_py.rules import numpy_decompositions, numpy_linalg, numpy_linalg_general, numpy_reductions

from ..registry import adjoint, pushforward

# --------------------------------------------------------------------------
# Helpers


def eig_grad(dy, a, y):
    """The gradient of ``np.linalg.eig`` (see the module's conventions);
    ``None`` when neither output has a cotangent."""
    (dw, dv), (w, v) = dy, y
    if dw is None and dv is None:
        return None
    vh = numpy_linalg.mH(v)
    p = 0
    if dv is not None:
        g = vh @ dv
        d = np.real(np.diagonal(g, 0, -2, -1))
        p = numpy_linalg.conj(numpy_decompositions.inverse_gaps(w)) * (g - (vh @ v) * d[..., None, :])
    if dw is not None:
        p = p + np.eye(w.shape[-1]) * dw[..., None, :]
    return numpy_linalg.fit(np.linalg.solve(vh, p @ vh), a)


def eig_tangent(da, y):
    """The tangent of ``np.linalg.eig`` at ``y = (w, v)`` along ``da``."""
    w, v = y
    p = np.linalg.solve(v, da @ v)
    x = numpy_decompositions.inverse_gaps(w) * p
    c = -np.real(np.diagonal(numpy_linalg.mH(v) @ v @ x, 0, -2, -1))
    return np.diagonal(p, 0, -2, -1), v @ x + v * c[..., None, :]


def matched_eig(a, w):
    """``np.linalg.eig(a)``'s eigenvectors, in the order of the
    eigenvalues ``w`` (``eigvals(a)``)."""
    u, v = np.linalg.eig(a)
    order = np.argmin(np.abs(w[..., :, None] - u[..., None, :]), -1)
    return np.take_along_axis(v, order[..., None, :], -1)


def lstsq_grads(dy, a, b, y):
    """The gradients of ``a`` and ``b`` for ``y = np.linalg.lstsq(a, b)``
    (see the module's conventions)."""
    dx, dres, _, ds = dy
    x, res = y[0], y[1]
    A, B = np.asarray(a), np.asarray(b)
    ga = gb = None
    if dx is not None:
        p = np.linalg.pinv(A)
        ga = numpy_decompositions.pinv_grad(numpy_decompositions.as_columns(dx, B) @ numpy_linalg.mH(numpy_decompositions.as_columns(B, B)),
                                    A, p, False)
        gb = numpy_linalg.mH(p) @ dx
    if dres is not None and np.size(res):
        r = numpy_decompositions.as_columns(B - A @ x, B) * (2 * np.asarray(dres))
        ra = -(r @ numpy_linalg.mH(numpy_decompositions.as_columns(x, B)))
        rb = np.reshape(r, B.shape)
        ga = ra if ga is None else ga + ra
        gb = rb if gb is None else gb + rb
    if ds is not None:
        u, _, vh = np.linalg.svd(A, full_matrices=False)
        sa = numpy_decompositions.svd_values_grad(ds, u, vh)
        ga = sa if ga is None else ga + sa
    return (None if ga is None else numpy_linalg.fit(ga, a), None if gb is None else numpy_linalg.fit(gb, b))


def lstsq_tangent(da, db, a, b, y):
    """The tangent of ``np.linalg.lstsq(a, b)``: ``(dx, dres, None, ds)``."""
    x, res, _, s = y
    A, B = np.asarray(a), np.asarray(b)
    p = np.linalg.pinv(A)
    dx = numpy_decompositions.pinv_tangent(da, A, p, False) @ B + p @ db
    if np.size(res):
        r = B - A @ x
        dres = 2 * np.real(np.sum(numpy_decompositions.as_columns(numpy_linalg.conj(r) * (db - da @ x), B), 0))
    else:
        dres = np.zeros_like(res)
    u, _, vh = np.linalg.svd(A, full_matrices=False)
    ds = np.real(np.einsum("ji,jk,ik->i", numpy_linalg.conj(u), da, numpy_linalg.conj(vh)))
    return dx, dres.astype(res.dtype), None, ds.astype(s.dtype)


def tensor_matrix(a, b, axes):
    """``np.linalg.tensorsolve``'s ``a``, with ``axes`` moved last, as the
    square matrix it solves with (``b.size`` rows)."""
    A = np.asarray(a)
    if axes is not None:
        A = np.moveaxis(A, axes, tuple(range(A.ndim - len(axes), A.ndim)))
    return A, np.reshape(A, (np.size(b), -1))


def tensorsolve_grads(dy, a, b, axes, y):
    """The gradients of ``a`` and ``b`` for ``y = np.linalg.tensorsolve(a,
    b, axes)``: ``solve``'s, ``db = M^-H dy`` and ``dM = -db y^H``, on the
    matrix ``M`` of :func:`tensor_matrix`."""
    A, m = numpy_linalg_general.tensor_matrix(a, b, axes)
    gb = np.linalg.solve(numpy_linalg.mH(m), np.ravel(dy))
    ga = np.reshape(-np.multiply.outer(gb, numpy_linalg.conj(np.ravel(y))), A.shape)
    if axes is not None:
        ga = np.moveaxis(ga, tuple(range(A.ndim - len(axes), A.ndim)), axes)
    return numpy_linalg.fit(ga, a), numpy_linalg.fit(np.reshape(gb, np.shape(b)), b)


def tensorsolve_tangent(da, db, a, b, axes, y):
    """``tensorsolve(a, db - da . y)``, ``da`` contracted with ``y`` over
    ``y``'s axes."""
    d = da if axes is None else np.moveaxis(da, axes, tuple(range(np.ndim(da) - len(axes), np.ndim(da))))
    return np.linalg.tensorsolve(a, db - np.tensordot(d, y, np.ndim(y)), axes)


def tensorinv_square(x, ind):
    """``x`` (a ``tensorinv`` input or output, or a tangent or cotangent of
    one) as the square matrix ``tensorinv`` inverts (or its inverse)."""
    shape = np.shape(x)
    return np.reshape(x, (int(np.prod(shape[:ind])), -1))


def multi_dot_grads(dy, arrays):
    """The gradients of ``np.linalg.multi_dot(arrays)``, one per operand,
    in a list or tuple like ``arrays``."""
    mats = [np.asarray(x) for x in arrays]
    last = len(mats) - 1
    rows = [m if m.ndim == 2 else (m[None, :] if i == 0 else m[:, None]) for i, m in enumerate(mats)]
    g = np.reshape(dy, (rows[0].shape[0], rows[last].shape[1]))
    grads = []
    for i, m in enumerate(mats):
        gi = g
        if i > 0:
            gi = numpy_linalg.mH(numpy_linalg_general.chain(rows[:i])) @ gi
        if i < last:
            gi = gi @ numpy_linalg.mH(numpy_linalg_general.chain(rows[i + 1:]))
        grads.append(numpy_linalg.fit(np.reshape(gi, m.shape), arrays[i]))
    return tuple(grads) if isinstance(arrays, tuple) else grads


def chain(mats):
    """The product of one or more matrices."""
    return mats[0] if len(mats) == 1 else np.linalg.multi_dot(mats)


def multi_dot_tangent(darrays, arrays):
    """The sum over the operands with a tangent of the product with that
    operand replaced by its tangent."""
    total = None
    for i, d in enumerate(darrays):
        if d is not None:
            term = np.linalg.multi_dot([*arrays[:i], d, *arrays[i + 1:]])
            total = term if total is None else total + term
    return total


def cond_grad(dy, x, p, y):
    """The gradient of ``np.linalg.cond(x, p)`` (which is ``y``)."""
    X = np.asarray(x)
    if p is None or p == 2 or p == -2:
        u, s, vh = np.linalg.svd(X, full_matrices=False)
        hi, lo = (-1, 0) if p == -2 else (0, -1)
        k = np.arange(s.shape[-1])
        top, bottom = s[..., hi:hi + 1 or None], s[..., lo:lo + 1 or None]
        ds = (k == k[hi]) / bottom - (k == k[lo]) * (top / (bottom * bottom))
        return numpy_linalg.fit(numpy_decompositions.svd_values_grad(ds * np.asarray(dy)[..., None], u, vh), x)
    xi = np.linalg.inv(X)
    n1 = np.linalg.norm(X, p, (-2, -1))
    n2 = np.linalg.norm(xi, p, (-2, -1))
    d = np.asarray(dy)
    g1 = numpy_reductions.norm_grad(d * n2, X, p, (-2, -1), False, n1)
    g2 = numpy_reductions.norm_grad(d * n1, xi, p, (-2, -1), False, n2)
    xh = numpy_linalg.mH(xi)
    return numpy_linalg.fit(g1 - xh @ g2 @ xh, x)


# --------------------------------------------------------------------------
# Rules


@adjoint(np.linalg.eig)
def eig(a):
    y = np.linalg.eig(a)

    def back(dy):
        return (numpy_linalg_general.eig_grad(dy, a, y),)
    return y, back


@pushforward(np.linalg.eig)
def eig_push(y, a, *, da):
    return numpy_linalg_general.eig_tangent(da, y)


@adjoint(np.linalg.eigvals)
def eigvals(a):
    y = np.linalg.eigvals(a)

    def back(dy):
        v = numpy_linalg_general.matched_eig(a, y)
        vh = numpy_linalg.mH(v)
        return (numpy_linalg.fit(np.linalg.solve(vh, vh * dy[..., :, None]), a),)
    return y, back


@pushforward(np.linalg.eigvals)
def eigvals_push(y, a, *, da):
    """``diag(V^-1 da V)``."""
    v = numpy_linalg_general.matched_eig(a, y)
    return np.diagonal(np.linalg.solve(v, da @ v), 0, -2, -1)


@adjoint(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    y = np.linalg.lstsq(a, b, rcond)

    def back(dy):
        da, db = numpy_linalg_general.lstsq_grads(dy, a, b, y)
        return (da, db, None)
    return y, back


@pushforward(np.linalg.lstsq)
def lstsq_push(y, a, b, rcond=None, *, da, db):
    return numpy_linalg_general.lstsq_tangent(da, db, a, b, y)


@adjoint(np.linalg.tensorsolve)
def tensorsolve(a, b, axes=None):
    y = np.linalg.tensorsolve(a, b, axes)

    def back(dy):
        da, db = numpy_linalg_general.tensorsolve_grads(dy, a, b, axes, y)
        return (da, db, None)
    return y, back


@pushforward(np.linalg.tensorsolve)
def tensorsolve_push(y, a, b, axes=None, *, da, db):
    return numpy_linalg_general.tensorsolve_tangent(da, db, a, b, axes, y)


@adjoint(np.linalg.tensorinv)
def tensorinv(a, ind=2):
    y = np.linalg.tensorinv(a, ind)

    def back(dy):
        yh = numpy_linalg.mH(numpy_linalg_general.tensorinv_square(y, np.ndim(y) - ind))
        g = -(yh @ numpy_linalg_general.tensorinv_square(dy, np.ndim(y) - ind) @ yh)
        return (numpy_linalg.fit(np.reshape(g, np.shape(a)), a), None)
    return y, back


@pushforward(np.linalg.tensorinv)
def tensorinv_push(y, a, ind=2, *, da):
    m = numpy_linalg_general.tensorinv_square(y, np.ndim(y) - ind)
    return np.reshape(-(m @ numpy_linalg_general.tensorinv_square(da, ind) @ m), np.shape(y))


@adjoint(np.linalg.multi_dot)
def multi_dot(arrays, out=None):
    def back(dy):
        return (numpy_linalg_general.multi_dot_grads(dy, arrays), None)
    return np.linalg.multi_dot(arrays, out=out), back


@pushforward(np.linalg.multi_dot)
def multi_dot_push(y, arrays, out=None, *, darrays):
    return numpy_linalg_general.multi_dot_tangent(darrays, arrays)


@adjoint(np.linalg.cond)
def cond(x, p=None):
    y = np.linalg.cond(x, p)

    def back(dy):
        return (numpy_linalg_general.cond_grad(dy, x, p, y), None)
    return y, back


@pushforward(np.linalg.cond)
def cond_push(y, x, p=None, *, dx):
    slopes = numpy_linalg_general.cond_grad(np.ones_like(y), x, p, y)
    return np.sum(np.real(numpy_linalg.conj(slopes) * dx), (-2, -1))
