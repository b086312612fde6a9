"""Rules for NumPy's products and linear algebra.

Covered: ``np.dot``, ``np.matmul``, ``np.inner``, ``np.outer``, ``np.vdot``,
``np.vecdot``, ``np.tensordot``, ``np.einsum``, ``np.trace``, ``np.diag``,
``np.diagonal``, ``np.kron``, ``np.cross``; the methods ``ndarray.dot``,
``ndarray.trace`` and ``ndarray.diagonal``; ``np.linalg``'s ``solve``,
``inv``, ``det``, ``slogdet``, ``cholesky``, ``qr``, ``eigh``,
``eigvalsh``, ``svd``, ``svdvals``, ``pinv``, ``matrix_power``, and its
array-API spellings ``matmul``, ``vecdot``, ``tensordot``, ``outer``,
``cross``, ``trace``, ``diagonal``. Every rule takes stacks of matrices
where NumPy does, and sums a gradient over the batch dimensions along which
its operand was broadcast.

:func:`matmul` can serve ``operator.matmul`` (``a @ b``) too. Its
pullback, like :func:`dot`'s, is the two products one writes by hand,
``dy @ b.T`` and ``a.T @ dy``, when both operands are 2-d arrays of one
real dtype; 1-d operands, stacks and mixed dtypes go through
:func:`matmul_grad`. Each operand's gradient is a separate call, so the
compiler drops the ones nobody needs.

Conventions:

- Complex inputs follow Zygote's convention (the gradient of a real loss
  is ``dL/dx + i dL/dy``): products conjugate the other operand, ``vdot``
  conjugates its first argument as NumPy does, decompositions use
  conjugate transposes. A real operand of a complex product gets the real
  part.
- ``einsum``: the gradient of operand ``k`` is the einsum of ``dy`` with
  the other operands producing ``k``'s subscripts. Labels of ``k`` found
  nowhere else (summed away) are broadcast back, a label repeated within
  ``k`` (``'ii->i'``) puts the gradient on that diagonal and zeros
  elsewhere, and ``...`` and size-1 dimensions are summed where NumPy
  broadcast them. The gradient einsums use the call's ``optimize``. Both
  the ``'ij,jk'`` and the interleaved ``(a, [0, 1], b, [1, 2])`` forms work.
- ``det``: the gradient is the matrix of cofactors, ``det(a) inv(a).T``.
  At ``det(a) == 0`` it is computed from the SVD instead (the adjugate is a
  polynomial in ``a``), so it is exact there too: nonzero at rank
  ``n - 1``, zero below.
- ``slogdet``: the gradient of ``logabsdet`` is ``inv(a).T``; ``sign`` is
  piecewise constant for real ``a`` (its cotangent is ignored) and a phase
  for complex ``a`` (its cotangent counts). At a singular ``a`` the entries
  are ``inf`` or ``nan``.
- ``cholesky``, ``eigh``, ``eigvalsh``, and ``svd``/``pinv`` with
  ``hermitian=True`` read one triangle of ``a`` and assume ``a`` is
  symmetric (Hermitian): the gradient is symmetrized,
  ``(g + g^H) / 2``, the gradient with respect to symmetric perturbations,
  not one on the triangle NumPy reads. Cholesky's is Murray's (2016)
  ``L^-H Phi(L^H Lbar) L^-1``, ``Phi`` taking the lower triangle with its
  diagonal halved.
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
- ``np.linalg.matrix_rank`` is integer-valued: registered
  non-differentiable.
- ``trace``: ``dy`` times the identity (with ``offset`` and the axes),
  dense. ``cross`` of 2-vectors treats them as 3-vectors with a zero third
  component, as NumPy does.

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``, the
transpose of its pullback under the conventions above: the symmetric-input
functions push ``sym(da)``, and the vectors of ``svd``/``qr`` the same
gauges; the trailing vectors that ``svd(full_matrices=True)`` and
``qr(mode='complete')`` of a non-square matrix add, which have no gradient,
get the tangent that turns them with the others and not among themselves.

Elsewhere: ``np.linalg``'s ``eig`` and ``eigvals`` (non-symmetric
matrices), ``lstsq``, ``cond``, ``multi_dot``, ``tensorsolve`` and
``tensorinv`` in :mod:`.numpy_linalg_general`; ``norm``, ``matrix_norm``
and ``vector_norm`` in :mod:`.numpy_reductions`; ``matrix_transpose`` in
:mod:`.numpy_shapes`.
"""
import numpy as np

from zygote_py import errors, runtime

# The rules below call this module's helpers by their qualified names, as
# they call np.dot, so that the compiler can inline them.
from zygote_py.rules import numpy_linalg

from .registry import adjoint, nondifferentiable, pushforward

nondifferentiable(np.linalg.matrix_rank)

# --------------------------------------------------------------------------
# Helpers


def fit(g, x):
    """``g`` as the gradient of ``x``: summed down to ``x``'s shape where
    ``x`` was broadcast, real when ``x`` is real, of ``x``'s float dtype (a
    Python number for a number, an array for a list)."""
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        g = np.real(g)
    return runtime.unbroadcast(g, x)


def conj(x):
    """The complex conjugate, and ``x`` itself when it is real (no copy)."""
    return np.conj(x) if np.iscomplexobj(x) else x


def mT(x):
    """The transposes of a stack of matrices (the last two axes)."""
    return np.swapaxes(x, -1, -2)


def mH(x):
    """The conjugate transposes of a stack of matrices."""
    return conj(np.swapaxes(x, -1, -2))


def sym(g):
    """The Hermitian part ``(g + g^H) / 2`` of a stack of matrices."""
    return (g + mH(g)) / 2


def sum_to(g, shape):
    """``g`` summed over the axes along which an array of ``shape`` was
    broadcast to ``g``'s shape."""
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1
    )
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def diagonal_view(x):
    """A writable view of the diagonals of a stack of square matrices."""
    return np.einsum("...ii->...i", x)


def diagonal_matrix(d):
    """The stack of diagonal matrices with the diagonals ``d`` (the last
    axis): what the pullbacks add to a matrix instead of writing into its
    diagonal, so that they can be differentiated again."""
    return d[..., None, :] * np.eye(np.shape(d)[-1], dtype=np.real(d).dtype)  # (float32 stays float32)


def real_matrices(dy, x1, x2, least=2):
    """Whether ``x1 @ x2`` multiplies two arrays of one real dtype, ``dy``'s
    too, with ``least`` to 2 dimensions each: for two matrices its
    gradients are just ``dy @ x2.T`` and ``x1.T @ dy``."""
    return (
        type(x1) is np.ndarray and type(x2) is np.ndarray and least <= x1.ndim <= 2 and least <= x2.ndim <= 2
        and x1.dtype is x2.dtype and x1.dtype.kind == "f" and getattr(dy, "dtype", None) is x1.dtype
    )


def matmul_grad(dy, x1, x2, wrt):
    """The gradient of ``np.matmul(x1, x2)`` with respect to ``x1``
    (``wrt == 0``) or ``x2`` (``wrt == 1``): a 1-d ``x1`` is promoted to a
    row, a 1-d ``x2`` to a column, and batch dimensions are summed where the
    operand was broadcast."""
    if real_matrices(dy, x1, x2, 1):  # a matrix and a vector, or two vectors
        if x1.ndim == 1 and x2.ndim == 1:
            return dy * (x2 if wrt == 0 else x1)
        if wrt == 0:  # (an outer product by broadcasting: faster than np.outer)
            return dy[:, None] * x2 if x1.ndim == 2 else x2 @ dy
        return x1[:, None] * dy if x2.ndim == 2 else dy @ x1
    # (an array of any library as it is: np.asarray would compute a Dask array; no helper of zygote_py's,
    # as zpy emit copies this function into gradient modules)
    a, b, g = (v if hasattr(type(v), "__array_function__") else np.asarray(v) for v in (x1, x2, dy))
    if a.ndim == 1 and b.ndim == 1:
        return fit(g * conj(b), x1) if wrt == 0 else fit(g * conj(a), x2)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a.ndim == 1:
        g = np.expand_dims(g, -2)
    if b.ndim == 1:
        g = g[..., None]
    if wrt == 0:
        return fit(sum_to(g @ mH(b2), a2.shape).reshape(a.shape), x1)
    if b2.ndim == 2 and a2.ndim > 2:
        # One product over all the stacked rows, rather than one per matrix
        # and then a sum.
        gb = mH(a2.reshape(-1, a2.shape[-1])) @ g.reshape(-1, g.shape[-1])
    else:
        gb = sum_to(mH(a2) @ g, b2.shape)
    return fit(gb.reshape(b.shape), x2)


@pushforward(matmul_grad)
def matmul_grad_push(y, dy, x1, x2, wrt, *, ddy, dx1, dx2):
    """Forward mode over emitted gradient code: linear in ``dy`` and in the
    other operand (through its conjugate, for complex ones)."""
    other = numpy_linalg.matmul_grad(dy, x1, dx2, 0) if wrt == 0 else numpy_linalg.matmul_grad(dy, dx1, x2, 1)
    return numpy_linalg.matmul_grad(ddy, x1, x2, wrt) + other


@pushforward(np.multiply.outer)
def multiply_outer_push(y, a, b, *, da, db):
    return np.multiply.outer(da, b) + np.multiply.outer(a, db)


def scalar_grad(dy, a, b, wrt):
    """The gradient of ``a * b`` (``np.dot`` or ``np.inner`` with a 0-d
    operand) with respect to ``a`` or ``b``."""
    if wrt == 0:
        return fit(dy * conj(np.asarray(b)), a)
    return fit(dy * conj(np.asarray(a)), b)


def tensordot_axes(axes, na, nb):
    """``np.tensordot``'s ``axes`` as two lists of nonnegative axes."""
    if isinstance(axes, (int, np.integer)):
        return list(range(na - axes, na)), list(range(axes))
    ia, ib = axes
    ia = [ia] if isinstance(ia, (int, np.integer)) else list(ia)
    ib = [ib] if isinstance(ib, (int, np.integer)) else list(ib)
    return [i % na for i in ia], [i % nb for i in ib]


def tensordot_grad(dy, a, b, axes, wrt):
    """The gradient of ``np.tensordot(a, b, axes)`` with respect to ``a`` or
    ``b``: ``dy`` contracted with the other operand over that operand's free
    axes, then transposed back to the operand's axis order."""
    A, B, g = np.asarray(a), np.asarray(b), np.asarray(dy)
    ia, ib = tensordot_axes(axes, A.ndim, B.ndim)
    fa = [i for i in range(A.ndim) if i not in ia]
    fb = [j for j in range(B.ndim) if j not in ib]
    # tensordot keeps the axes it does not contract in their order: the
    # other operand's contracted axes come out in increasing order, each
    # standing for its partner axis.
    if wrt == 0:
        ga = np.tensordot(g, conj(B), (list(range(len(fa), g.ndim)), fb))
        return fit(np.transpose(ga, np.argsort(fa + [ia[ib.index(j)] for j in sorted(ib)])), a)
    gb = np.tensordot(conj(A), g, (fa, list(range(len(fa)))))
    return fit(np.transpose(gb, np.argsort([ib[ia.index(i)] for i in sorted(ia)] + fb)), b)


def dot_grad(dy, a, b, wrt):
    """The gradient of ``np.dot(a, b)`` with respect to ``a`` or ``b``, in
    each of its cases: a product with a scalar, a matrix product (1-d
    operands as for ``matmul``), and the N-d case, a tensordot over ``a``'s
    last axis and ``b``'s second-to-last."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return scalar_grad(dy, a, b, wrt)
    if na <= 2 and nb <= 2 or na == 1 or nb == 1:
        return matmul_grad(dy, a, b, wrt)
    return tensordot_grad(dy, a, b, ([na - 1], [nb - 2]), wrt)


def inner_grad(dy, a, b, wrt):
    """The gradient of ``np.inner(a, b)``, a tensordot over the last axes
    (a product with a scalar)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return scalar_grad(dy, a, b, wrt)
    return tensordot_grad(dy, a, b, ([na - 1], [nb - 1]), wrt)


def outer_grad(dy, a, b, wrt):
    """The gradient of ``np.outer(a, b)``, which flattens its operands."""
    if wrt == 0:
        return fit(np.reshape(dy @ conj(np.ravel(b)), np.shape(a)), a)
    return fit(np.reshape(conj(np.ravel(a)) @ dy, np.shape(b)), b)


def vdot_grad(dy, a, b, wrt):
    """The gradient of ``np.vdot(a, b) = sum(conj(a) * b)``, flattened."""
    if wrt == 0:
        return fit(conj(dy) * np.reshape(b, np.shape(a)), a)
    return fit(dy * np.reshape(a, np.shape(b)), b)


def vecdot_grad(dy, x1, x2, axis, wrt):
    """The gradient of ``np.vecdot(x1, x2, axis=axis) = sum(conj(x1) * x2,
    axis)``."""
    g = np.expand_dims(np.asarray(dy), axis)
    if wrt == 0:
        return fit(conj(g) * np.asarray(x2), x1)
    return fit(g * np.asarray(x1), x2)


def kron_grad(dy, a, b, wrt):
    """The gradient of ``np.kron(a, b)``: ``dy`` with each axis split into
    an (``a``, ``b``) pair, times the other operand, summed over the other
    operand's axes."""
    A, B = np.asarray(a), np.asarray(b)
    nd = max(A.ndim, B.ndim)
    sa = (1,) * (nd - A.ndim) + A.shape
    sb = (1,) * (nd - B.ndim) + B.shape
    g = np.reshape(dy, [n for pair in zip(sa, sb) for n in pair])
    if wrt == 0:
        ga = np.sum(g * conj(B.reshape([n for m in sb for n in (1, m)])), axis=tuple(range(1, 2 * nd, 2)))
        return fit(ga.reshape(A.shape), a)
    gb = np.sum(g * conj(A.reshape([n for m in sa for n in (m, 1)])), axis=tuple(range(0, 2 * nd, 2)))
    return fit(gb.reshape(B.shape), b)


def cross_grad(dy, a, b, axisa, axisb, axisc, axis, wrt):
    """The gradient of ``np.cross`` with respect to ``a`` (``conj(b) x dy``)
    or ``b`` (``dy x conj(a)``): the triple product is cyclic. 2-vectors
    are 3-vectors with a zero third component."""
    if axis is not None:
        axisa = axisb = axisc = axis
    A = np.moveaxis(np.asarray(a), axisa, -1)
    B = np.moveaxis(np.asarray(b), axisb, -1)
    if A.shape[-1] == 2 and B.shape[-1] == 2:
        d = np.asarray(dy)[..., None] * np.array([0, 0, 1])
    else:
        d = np.moveaxis(np.asarray(dy), axisc, -1)
    if wrt == 0:
        B3 = np.concatenate([B, np.zeros_like(B[..., :1])], -1) if B.shape[-1] == 2 else B
        ga = sum_to(np.cross(conj(B3), d)[..., :A.shape[-1]], A.shape)
        return fit(np.moveaxis(ga, -1, axisa), a)
    A3 = np.concatenate([A, np.zeros_like(A[..., :1])], -1) if A.shape[-1] == 2 else A
    gb = sum_to(np.cross(d, conj(A3))[..., :B.shape[-1]], B.shape)
    return fit(np.moveaxis(gb, -1, axisb), b)


def float_dtype(x):
    """``x``'s dtype if it is inexact, else float64."""
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    return dtype if dtype.kind in "fc" else np.dtype(float)


def trace_grad(dy, a, offset, axis1, axis2):
    """The gradient of ``np.trace(a, offset, axis1, axis2)``: ``dy`` times
    the identity matrix in the plane of the two axes."""
    shape = np.shape(a)
    if len(shape) == 2 and np.ndim(dy) == 0 and not np.iscomplexobj(dy):
        # dy on a diagonal, kept sparse (O(n), not a dense n×n per use)
        return numpy_linalg.diagonal_scatter(a, offset, dy)
    eye = np.eye(shape[axis1], shape[axis2], offset, dtype=float_dtype(a))
    g = np.asarray(dy)[..., None, None] * eye  # (the outer product, by a rule differentiable again)
    return fit(np.moveaxis(g, (-2, -1), (axis1 % len(shape), axis2 % len(shape))), a)


def diagonal_scatter(a, offset, dy):
    """Zeros of the 2-d ``a``'s shape with ``dy`` (a number, or one value
    per item) added along its ``offset`` diagonal, as a sparse
    :class:`runtime.Scatter`."""
    n, m = np.shape(a)
    i = np.arange(max(0, min(n + min(offset, 0), m - max(offset, 0))))
    return runtime.Scatter((n, m), float_dtype(a), [((i + max(-offset, 0), i + max(offset, 0)), dy)], 1, i.size)


@adjoint(diagonal_scatter)
def diagonal_scatter_rule(a, offset, dy):
    """For a pullback using :func:`diagonal_scatter` differentiated again
    (a second derivative of ``trace`` or ``diagonal``): the cotangent of
    ``dy`` is the ``offset`` diagonal of the dense gradient's (summed, for
    a number ``dy``)."""
    def back(g):
        if g is None:
            return (None, None, None)
        return (None, None, runtime.unbroadcast(np.diagonal(runtime.dense(g), offset), dy))
    return runtime.dense(numpy_linalg.diagonal_scatter(a, offset, dy)), back


@pushforward(diagonal_scatter)
def diagonal_scatter_rule_push(y, a, offset, dy, *, ddy):
    return runtime.dense(numpy_linalg.diagonal_scatter(a, offset, ddy))


def diagonal_grad(dy, a, offset, axis1, axis2):
    """The gradient of ``np.diagonal(a, offset, axis1, axis2)``: zeros, with
    ``dy`` written onto that diagonal."""
    if np.ndim(a) == 2 and np.ndim(dy) == 1 and not np.iscomplexobj(dy) and {axis1, axis2} in ({0, 1}, {-2, -1}):
        if axis1 % 2 == 1:
            offset = -offset  # the diagonal of the transpose
        return numpy_linalg.diagonal_scatter(a, offset, dy)
    dy = np.asarray(dy)
    shape = np.shape(a)
    rows, cols = numpy_linalg.diagonal_places(shape[axis1], shape[axis2], offset, dy.shape[-1])
    # (the plane built by selection matrices, not written into: differentiable again)
    plane = np.einsum("...k,rk,ck->...rc", dy, rows, cols)
    return fit(np.moveaxis(plane, (-2, -1), (axis1 % len(shape), axis2 % len(shape))), a)


def diagonal_places(n, m, offset, k):
    """``(rows, cols)``: 0/1 matrices of shapes ``(n, k)`` and ``(m, k)``
    putting item ``i`` of an ``offset`` diagonal's ``k`` values at row
    ``i + max(-offset, 0)`` and column ``i + max(offset, 0)`` of an ``n x m``
    matrix."""
    return np.eye(n, k, -max(-offset, 0)), np.eye(m, k, -max(offset, 0))


def diag_grad(dy, v, k):
    """The gradient of ``np.diag(v, k)``: the ``k``-th diagonal of ``dy``
    for a 1-d ``v``; ``dy`` on the ``k``-th diagonal of zeros for a 2-d
    ``v``."""
    if np.ndim(v) == 1:
        return fit(np.diagonal(dy, k).copy(), v)
    return diagonal_grad(dy, v, k, 0, 1)


# einsum's subscripts, parsed to one letter per dimension.

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def einsum_parse(args):
    """``(arrays, positions, in_labels, out_labels)`` for ``np.einsum``'s
    positional arguments, in the string or the interleaved form:
    ``positions`` are the arrays' places among ``args``; labels are strings
    with one letter per dimension, ``...`` spelled out with unused letters
    (right-aligned, as NumPy broadcasts it), and the implicit output made
    explicit (the ellipsis, then the labels used once, in order)."""
    if isinstance(args[0], str):
        positions = list(range(1, len(args)))
        spec = args[0].replace(" ", "")
        lhs, arrow, rhs = spec.partition("->")
        terms = lhs.split(",")
        out = rhs if arrow else None
    else:
        positions = list(range(0, len(args) - 1, 2))

        def letters(sublist):
            return "".join("..." if s is Ellipsis else _LETTERS[s] for s in sublist)

        terms = [letters(args[i + 1]) for i in positions]
        out = letters(args[-1]) if len(args) % 2 else None
    arrays = [args[i] for i in positions]
    explicit = [t.replace("...", "") for t in terms]
    widths = [np.ndim(x) - len(e) if "..." in t else 0 for x, t, e in zip(arrays, terms, explicit)]
    used = set("".join(explicit) + (out or ""))
    ell = "".join(c for c in _LETTERS if c not in used)[: max(widths, default=0)]
    labels = [t.replace("...", ell[len(ell) - w:]) for t, w in zip(terms, widths)]
    if out is None:
        counts = "".join(explicit)
        out = "..." + "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    return arrays, positions, labels, out.replace("...", ell)


def einsum_grads(dy, args, optimize):
    """One gradient per positional argument of ``np.einsum(*args)``
    (``None`` for subscripts). Built without changes in place, so that a
    pullback using it can be differentiated again."""
    plans = numpy_linalg.einsum_plan(args, np.shape(dy))
    return tuple([None if plan is None else numpy_linalg.einsum_operand_grad(dy, args, plan, optimize)
                  for plan in plans])


def einsum_plan(args, dy_shape):
    """Per positional argument of ``np.einsum(*args)``, ``None`` for a
    subscript, else how :func:`einsum_operand_grad` makes the array's
    gradient: ``(position, spec, others, shape, summed, target, spread,
    ties)``: ``dy`` and the other arrays (at ``others``) contracted by
    ``spec`` onto the array's distinct labels, reshaped to ``shape`` (a 1
    for each label summed away), summed over the ``summed`` axes that
    broadcasting stretched, broadcast to ``target``, and, for a label
    repeated in the array (a diagonal, ``"ii->i"``), spread back by
    ``spread`` with identity matrices of the sizes ``ties``. Strings and
    shapes: no derivative."""
    arrays, positions, labels, out = einsum_parse(args)
    dims = {}
    for mine, shape in [*zip(labels, map(np.shape, arrays)), (out, dy_shape)]:
        for c, n in zip(mine, shape):
            dims[c] = max(dims.get(c, 1), n)
    plans = [None] * len(args)
    for k, (x, mine) in enumerate(zip(arrays, labels)):
        others = [j for j in range(len(arrays)) if j != k]
        unique = "".join(dict.fromkeys(mine))
        reached = set(out).union(*(labels[j] for j in others))
        present = "".join(c for c in unique if c in reached)
        spec = ",".join([out] + [labels[j] for j in others]) + "->" + present
        sizes = dict(zip(mine, np.shape(x)))
        shape = tuple(dims[c] if c in present else 1 for c in unique)
        target = tuple(sizes[c] for c in unique)
        summed = tuple(i for i, (n, t) in enumerate(zip(shape, target)) if t == 1 and n != 1)
        spread, ties = None, []
        if unique != mine:  # each later occurrence of a label: a fresh letter, tied to the first
            spare = iter(c for c in _LETTERS if c not in mine + out)
            terms, spread_out = [unique], ""
            for i, c in enumerate(mine):
                fresh = next(spare) if c in mine[:i] else c
                if fresh != c:
                    terms.append(c + fresh)
                    ties.append(sizes[c])
                spread_out += fresh
            spread = ",".join(terms) + "->" + spread_out
        plans[positions[k]] = (positions[k], spec, [positions[j] for j in others], shape, summed, target, spread,
                               ties)
    return plans


def einsum_operand_grad(dy, args, plan, optimize):
    """The gradient of ``np.einsum(*args)`` for one array, by its plan (see
    :func:`einsum_plan`)."""
    position, spec, others, shape, summed, target, spread, ties = plan
    g = np.reshape(np.einsum(spec, dy, *[conj(args[j]) for j in others], optimize=optimize), shape)
    if summed:
        g = g.sum(axis=summed, keepdims=True)
    if g.shape != target:
        g = np.broadcast_to(g, target) + np.zeros(target, dtype=g.dtype)
    if spread is not None:
        g = np.einsum(spread, g, *[np.eye(n) for n in ties])
    return fit(g, args[position])


nondifferentiable(einsum_plan)


# Decompositions


def cofactor(a, d):
    """The matrix of cofactors of ``a`` (its adjugate, transposed), given
    ``d = det(a)``: ``d * inv(a).T``, or, when ``a`` is singular, from the
    SVD ``a = U S Vh``: ``adj(a) = det(U) det(Vh) Vh^H adj(S) U^H``, where
    ``adj(S)`` holds the products of all singular values but one."""
    d = np.asarray(d)
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
    return fit(np.asarray(dy)[..., None, None] * conj(cofactor(a, y)), a)


def slogdet_grad(dy, a, y):
    """The gradient of ``np.linalg.slogdet``: ``inv(a)^H`` times the
    cotangent of ``log(det(a))`` (for a complex ``a``, the sign's is its
    imaginary part); ``None`` when neither output has one."""
    dsign, dlog = dy
    sign = y[0]
    complex_ = np.iscomplexobj(sign)
    if dlog is None and (dsign is None or not complex_):
        return None
    c = np.zeros(np.shape(sign)) if dlog is None else np.asarray(dlog)
    if complex_ and dsign is not None:
        c = c + 1j * np.imag(dsign * np.conj(sign))
    return fit(c[..., None, None] * mH(inverse(a, y)), a)


def inverse(a, y):
    """``inv(a)`` given ``y = slogdet(a)``; at a singular ``a``, the
    adjugate over the determinant: ``inf`` or ``nan`` entries, no error."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        d = np.asarray(y[0] * np.exp(y[1]))
        with np.errstate(divide="ignore", invalid="ignore"):
            return mT(cofactor(a, d)) / d[..., None, None]


def solve_grads(dy, a, b, y):
    """The gradients of ``x = np.linalg.solve(a, b)``: ``db = a^-H dx`` and
    ``da = -db x^H``. A 1-d ``b`` is one vector."""
    if np.ndim(b) == 1:
        db = np.linalg.solve(mH(a), np.asarray(dy)[..., None])
        da = -db * conj(y)[..., None, :]
        return fit(sum_to(da, np.shape(a)), a), fit(sum_to(db[..., 0], np.shape(b)), b)
    db = np.linalg.solve(mH(a), dy)
    da = -db @ mH(y)
    return fit(sum_to(da, np.shape(a)), a), fit(sum_to(db, np.shape(b)), b)


def as_columns(x, b):
    """``x`` (``b``, or a tangent or solution of ``solve(a, b)``) as a stack
    of matrices: a 1-d ``b`` is one column."""
    return x[..., None] if np.ndim(b) == 1 else x


def cholesky_grad(dy, a, y, upper):
    """The gradient of ``np.linalg.cholesky`` (after Murray 2016),
    symmetrized: ``a = L L^H`` gives ``L^-1 da L^-H = X + X^H`` with
    ``X = L^-1 dL`` lower triangular, so ``dL = L Phi(L^-1 da L^-H)``, where
    ``Phi`` takes the lower triangle and halves the diagonal, and the
    gradient for a cotangent ``Lbar`` is ``L^-H Phi(L^H Lbar) L^-1``."""
    L = mH(y) if upper else y
    # L^H is upper triangular, so the lower triangle of L^H Lbar reads only
    # Lbar's lower triangle: a cotangent on the zeros of L has no effect.
    p = np.tril(mH(L) @ (mH(dy) if upper else dy))
    p = p - 0.5 * diagonal_matrix(diagonal_view(p))
    x = np.linalg.solve(mH(L), p)  # L^-H P
    return fit(sym(mH(np.linalg.solve(mH(L), mH(x)))), a)  # (L^-H P) L^-1


def cholesky_tangent(da, y, upper):
    """The tangent of ``np.linalg.cholesky`` along ``sym(da)``:
    ``dL = L Phi(L^-1 sym(da) L^-H)`` (see :func:`cholesky_grad`)."""
    L = mH(y) if upper else y
    p = np.tril(np.linalg.solve(L, mH(np.linalg.solve(L, sym(da)))))  # L^-1 S L^-H, S Hermitian
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
    a = np.asarray(a)
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
    a = np.asarray(a)
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


def eigh_grad(dy, a, y):
    """The gradient of ``np.linalg.eigh`` (Giles 2008), symmetrized:
    ``v (diag(wbar) + F * (v^H vbar)) v^H`` with ``F`` from
    :func:`inverse_gaps`; ``None`` when neither output has a cotangent."""
    (dw, dv), (w, v) = dy, y
    if dv is None:
        if dw is None:
            return None
        return fit((v * dw[..., None, :]) @ mH(v), a)
    inner = inverse_gaps(w) * (mH(v) @ dv)
    if dw is not None:  # (F's diagonal is 0: inner's holds dw alone)
        inner = inner + diagonal_matrix(dw)
    return fit(sym(v @ inner @ mH(v)), a)


def svd_values_grad(ds, u, vh):
    """The gradient through singular values alone: ``u diag(ds) vh``."""
    return (u * ds[..., None, :]) @ vh


def svd_grad(dy, a, y, full_matrices, compute_uv, hermitian):
    """The gradient of ``np.linalg.svd`` (after Townsend 2016, derived for
    ``a = U S V^H`` with ``U``, ``V`` of ``k = min(m, n)`` columns):

    ``U [diag(sbar) + (F * (U^H Ubar - Ubar^H U)) S + S (F * (V^H Vbar -
    Vbar^H V))] V^H + (I - U U^H) Ubar S^-1 V^H + U S^-1 Vbar^H (I - V V^H)``

    with ``F[i, j] = 1 / (s[j]^2 - s[i]^2)``, plus, for complex ``a``,
    ``U diag(i Im(diag(U^H Ubar)) / s) V^H`` (the phases of the singular
    vectors are arbitrary; this is the gauge where ``V``'s stay put).
    ``Vbar`` is ``dVh^H``."""
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        return fit(svd_values_grad(dy, u, vh), a)
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
        return fit(svd_values_grad(ds, u, vh), a)
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
    return fit(sym(g) if hermitian else g, a)


def svd_tangent(da, a, y, full_matrices, compute_uv, hermitian):
    """The tangent of ``np.linalg.svd`` (along ``sym(da)`` when
    ``hermitian``), in :func:`svd_grad`'s gauge. With ``P = U^H da V`` and
    ``F`` as there: ``ds = Re(diag(P))``,
    ``dU = U [F * (P S + S P^H) + diag(i Im(diag(P)) / s)] + (I - U U^H) da V S^-1``,
    ``dV = V [F * (S P + P^H S)] + (I - V V^H) da^H U S^-1``. The vectors
    beyond the first ``min(m, n)`` (``full_matrices``), which are not
    unique, turn with the others and not among themselves:
    ``dU2 = -U dU^H U2``."""
    d = sym(da) if hermitian else da
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
    ``-x^H xbar x^H + (I - a x) xbar^H x x^H + x^H x xbar^H (I - x a)``."""
    A, xh = np.asarray(a), mH(y)
    t = mH(dy) @ (y @ xh)
    u = (xh @ y) @ mH(dy)
    g = -(xh @ dy @ xh) + (t - A @ (y @ t)) + (u - (u @ y) @ A)
    return fit(sym(g) if hermitian else g, a)


def pinv_tangent(da, a, y, hermitian):
    """The tangent of ``x = np.linalg.pinv(a)`` of full rank (along
    ``sym(da)`` when ``hermitian``):
    ``-x da x + x x^H da^H (I - a x) + (I - x a) da^H x^H x``."""
    A, d = np.asarray(a), sym(da) if hermitian else da
    t = (y @ mH(y)) @ mH(d)
    u = mH(d) @ (mH(y) @ y)
    return -(y @ d @ y) + (t - (t @ A) @ y) + (u - y @ (A @ u))


def matrix_power_grad(dy, a, n):
    """The gradient of ``np.linalg.matrix_power(a, n)``: the sum of
    ``(a^H)^i dy (a^H)^(n-1-i)`` over ``i < n``, accumulated as
    ``G <- a^H G + dy (a^H)^j``; through ``inv(a)`` for ``n < 0``."""
    A = np.asarray(a)
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
    A = np.asarray(a)
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
# Products


@adjoint(np.matmul)
@adjoint(np.linalg.matmul)
def matmul(x1, x2):
    """The rule of ``np.matmul``, ``np.linalg.matmul`` and ``a @ b``
    (``operator.matmul``), computed as ``x1 @ x2`` for all three."""
    def back(dy):
        if numpy_linalg.real_matrices(dy, x1, x2):
            return (dy @ x2.T, x1.T @ dy)
        return (numpy_linalg.matmul_grad(dy, x1, x2, 0), numpy_linalg.matmul_grad(dy, x1, x2, 1))
    return x1 @ x2, back


@pushforward(np.matmul)
@pushforward(np.linalg.matmul)
def matmul_push(y, x1, x2, *, dx1, dx2):
    return dx1 @ x2 + x1 @ dx2


@adjoint(np.dot)
def dot(a, b):
    def back(dy):
        if numpy_linalg.real_matrices(dy, a, b):
            return (dy @ b.T, a.T @ dy)
        return (numpy_linalg.dot_grad(dy, a, b, 0), numpy_linalg.dot_grad(dy, a, b, 1))
    return np.dot(a, b), back


@pushforward(np.dot)
def dot_push(y, a, b, *, da, db):
    return np.dot(da, b) + np.dot(a, db)


@adjoint(np.ndarray.dot)
def ndarray_dot(self, b):
    def back(dy):
        if numpy_linalg.real_matrices(dy, self, b):
            return (dy @ b.T, self.T @ dy)
        return (numpy_linalg.dot_grad(dy, self, b, 0), numpy_linalg.dot_grad(dy, self, b, 1))
    return self.dot(b), back


@pushforward(np.ndarray.dot)
def ndarray_dot_push(y, self, b, *, dself, db):
    return np.dot(dself, b) + np.dot(self, db)


@adjoint(np.inner)
def inner(a, b):
    def back(dy):
        return (numpy_linalg.inner_grad(dy, a, b, 0), numpy_linalg.inner_grad(dy, a, b, 1))
    return np.inner(a, b), back


@pushforward(np.inner)
def inner_push(y, a, b, *, da, db):
    return np.inner(da, b) + np.inner(a, db)


@adjoint(np.outer)
def outer(a, b):
    def back(dy):
        return (numpy_linalg.outer_grad(dy, a, b, 0), numpy_linalg.outer_grad(dy, a, b, 1))
    return np.outer(a, b), back


@pushforward(np.outer)
def outer_push(y, a, b, *, da, db):
    return np.outer(da, b) + np.outer(a, db)


@adjoint(np.linalg.outer)
def linalg_outer(x1, x2):
    def back(dy):
        return (numpy_linalg.outer_grad(dy, x1, x2, 0), numpy_linalg.outer_grad(dy, x1, x2, 1))
    return np.linalg.outer(x1, x2), back


@pushforward(np.linalg.outer)
def linalg_outer_push(y, x1, x2, *, dx1, dx2):
    return np.linalg.outer(dx1, x2) + np.linalg.outer(x1, dx2)


@adjoint(np.vdot)
def vdot(a, b):
    def back(dy):
        return (numpy_linalg.vdot_grad(dy, a, b, 0), numpy_linalg.vdot_grad(dy, a, b, 1))
    return np.vdot(a, b), back


@pushforward(np.vdot)
def vdot_push(y, a, b, *, da, db):
    return np.vdot(da, b) + np.vdot(a, db)


@adjoint(np.vecdot)
def vecdot(x1, x2, axis=-1):
    def back(dy):
        return (
            numpy_linalg.vecdot_grad(dy, x1, x2, axis, 0),
            numpy_linalg.vecdot_grad(dy, x1, x2, axis, 1),
            None,
        )
    return np.vecdot(x1, x2, axis=axis), back


@pushforward(np.vecdot)
def vecdot_push(y, x1, x2, axis=-1, *, dx1, dx2):
    return np.vecdot(dx1, x2, axis=axis) + np.vecdot(x1, dx2, axis=axis)


@adjoint(np.linalg.vecdot)
def linalg_vecdot(x1, x2, axis=-1):
    def back(dy):
        return (
            numpy_linalg.vecdot_grad(dy, x1, x2, axis, 0),
            numpy_linalg.vecdot_grad(dy, x1, x2, axis, 1),
            None,
        )
    return np.linalg.vecdot(x1, x2, axis=axis), back


@pushforward(np.linalg.vecdot)
def linalg_vecdot_push(y, x1, x2, axis=-1, *, dx1, dx2):
    return np.linalg.vecdot(dx1, x2, axis=axis) + np.linalg.vecdot(x1, dx2, axis=axis)


@adjoint(np.tensordot)
def tensordot(a, b, axes=2):
    def back(dy):
        return (
            numpy_linalg.tensordot_grad(dy, a, b, axes, 0),
            numpy_linalg.tensordot_grad(dy, a, b, axes, 1),
            None,
        )
    return np.tensordot(a, b, axes), back


@pushforward(np.tensordot)
def tensordot_push(y, a, b, axes=2, *, da, db):
    return np.tensordot(da, b, axes) + np.tensordot(a, db, axes)


@adjoint(np.linalg.tensordot)
def linalg_tensordot(x1, x2, axes=2):
    def back(dy):
        return (
            numpy_linalg.tensordot_grad(dy, x1, x2, axes, 0),
            numpy_linalg.tensordot_grad(dy, x1, x2, axes, 1),
            None,
        )
    return np.linalg.tensordot(x1, x2, axes=axes), back


@pushforward(np.linalg.tensordot)
def linalg_tensordot_push(y, x1, x2, axes=2, *, dx1, dx2):
    return np.linalg.tensordot(dx1, x2, axes=axes) + np.linalg.tensordot(x1, dx2, axes=axes)


@adjoint(np.einsum)
def einsum(*operands, optimize=False):
    def back(dy):
        return numpy_linalg.einsum_grads(dy, operands, optimize)
    return np.einsum(*operands, optimize=optimize), back


@pushforward(np.einsum)
def einsum_push(y, *operands, optimize=False, doperands):
    """The sum, over the operands with a tangent, of the einsum with the
    operand replaced by its tangent (called at run time: a loop)."""
    _, positions, _, _ = numpy_linalg.einsum_parse(operands)
    dy = None
    for k in positions:
        if doperands[k] is not None:
            term = np.einsum(*operands[:k], doperands[k], *operands[k + 1:], optimize=optimize)
            dy = term if dy is None else dy + term
    return dy


@adjoint(np.kron)
def kron(a, b):
    def back(dy):
        return (numpy_linalg.kron_grad(dy, a, b, 0), numpy_linalg.kron_grad(dy, a, b, 1))
    return np.kron(a, b), back


@pushforward(np.kron)
def kron_push(y, a, b, *, da, db):
    return np.kron(da, b) + np.kron(a, db)


@adjoint(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    def back(dy):
        return (
            numpy_linalg.cross_grad(dy, a, b, axisa, axisb, axisc, axis, 0),
            numpy_linalg.cross_grad(dy, a, b, axisa, axisb, axisc, axis, 1),
            None, None, None, None,
        )
    return np.cross(a, b, axisa, axisb, axisc, axis), back


@pushforward(np.cross)
def cross_push(y, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None, *, da, db):
    return np.cross(da, b, axisa, axisb, axisc, axis) + np.cross(a, db, axisa, axisb, axisc, axis)


@adjoint(np.linalg.cross)
def linalg_cross(x1, x2, axis=-1):
    def back(dy):
        return (
            numpy_linalg.cross_grad(dy, x1, x2, axis, axis, axis, None, 0),
            numpy_linalg.cross_grad(dy, x1, x2, axis, axis, axis, None, 1),
            None,
        )
    return np.linalg.cross(x1, x2, axis=axis), back


@pushforward(np.linalg.cross)
def linalg_cross_push(y, x1, x2, axis=-1, *, dx1, dx2):
    return np.linalg.cross(dx1, x2, axis=axis) + np.linalg.cross(x1, dx2, axis=axis)


# --------------------------------------------------------------------------
# Diagonals


@adjoint(np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    def back(dy):
        return (numpy_linalg.trace_grad(dy, a, offset, axis1, axis2), None, None, None, None)
    return np.trace(a, offset, axis1, axis2, dtype), back


@pushforward(np.trace)
def trace_push(y, a, offset=0, axis1=0, axis2=1, dtype=None, *, da):
    return np.trace(da, offset, axis1, axis2, dtype)


@adjoint(np.ndarray.trace)
def ndarray_trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    def back(dy):
        return (numpy_linalg.trace_grad(dy, self, offset, axis1, axis2), None, None, None, None)
    return self.trace(offset, axis1, axis2, dtype), back


@pushforward(np.ndarray.trace)
def ndarray_trace_push(y, self, offset=0, axis1=0, axis2=1, dtype=None, *, dself):
    return np.trace(dself, offset, axis1, axis2, dtype)


@adjoint(np.linalg.trace)
def linalg_trace(x, offset=0, dtype=None):
    def back(dy):
        return (numpy_linalg.trace_grad(dy, x, offset, -2, -1), None, None)
    return np.linalg.trace(x, offset=offset, dtype=dtype), back


@pushforward(np.linalg.trace)
def linalg_trace_push(y, x, offset=0, dtype=None, *, dx):
    return np.linalg.trace(dx, offset=offset, dtype=dtype)


@adjoint(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    def back(dy):
        return (numpy_linalg.diagonal_grad(dy, a, offset, axis1, axis2), None, None, None)
    return np.diagonal(a, offset, axis1, axis2), back


@pushforward(np.diagonal)
def diagonal_push(y, a, offset=0, axis1=0, axis2=1, *, da):
    return np.diagonal(da, offset, axis1, axis2)


@adjoint(np.ndarray.diagonal)
def ndarray_diagonal(self, offset=0, axis1=0, axis2=1):
    def back(dy):
        return (numpy_linalg.diagonal_grad(dy, self, offset, axis1, axis2), None, None, None)
    return self.diagonal(offset, axis1, axis2), back


@pushforward(np.ndarray.diagonal)
def ndarray_diagonal_push(y, self, offset=0, axis1=0, axis2=1, *, dself):
    return np.diagonal(dself, offset, axis1, axis2)


@adjoint(np.linalg.diagonal)
def linalg_diagonal(x, offset=0):
    def back(dy):
        return (numpy_linalg.diagonal_grad(dy, x, offset, -2, -1), None)
    return np.linalg.diagonal(x, offset=offset), back


@pushforward(np.linalg.diagonal)
def linalg_diagonal_push(y, x, offset=0, *, dx):
    return np.linalg.diagonal(dx, offset=offset)


@adjoint(np.diag)
def diag(v, k=0):
    def back(dy):
        return (numpy_linalg.diag_grad(dy, v, k), None)
    return np.diag(v, k), back


@pushforward(np.diag)
def diag_push(y, v, k=0, *, dv):
    return np.diag(dv, k)


# --------------------------------------------------------------------------
# np.linalg


@adjoint(np.linalg.solve)
def solve(a, b):
    y = np.linalg.solve(a, b)

    def back(dy):
        da, db = numpy_linalg.solve_grads(dy, a, b, y)
        return (da, db)
    return y, back


@pushforward(np.linalg.solve)
def solve_push(y, a, b, *, da, db):
    """``dx = a^-1 (db - da x)``, in columns (a 1-d ``b`` is one)."""
    x = numpy_linalg.as_columns(y, b)
    dx = np.linalg.solve(a, numpy_linalg.as_columns(db, b) - da @ x)
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
        return (numpy_linalg.det_grad(dy, a, y),)
    return y, back


@pushforward(np.linalg.det)
def det_push(y, a, *, da):
    """The cofactors' inner product with ``da`` (``det(a) tr(a^-1 da)``
    where ``a`` is invertible)."""
    return np.sum(numpy_linalg.cofactor(a, y) * da, axis=(-2, -1))


@adjoint(np.linalg.slogdet)
def slogdet(a):
    y = np.linalg.slogdet(a)

    def back(dy):
        return (numpy_linalg.slogdet_grad(dy, a, y),)
    return y, back


@pushforward(np.linalg.slogdet)
def slogdet_push(y, a, *, da):
    """With ``t = tr(a^-1 da)``: ``Re(t)`` for ``logabsdet`` and
    ``sign * i Im(t)`` for the sign (0 for a real ``a``)."""
    t = np.sum(numpy_linalg.mT(numpy_linalg.inverse(a, y)) * da, axis=(-2, -1))
    return (y[0] * (t - np.real(t)), np.real(t))


@adjoint(np.linalg.cholesky)
def cholesky(a, upper=False):
    y = np.linalg.cholesky(a, upper=upper)

    def back(dy):
        return (numpy_linalg.cholesky_grad(dy, a, y, upper), None)
    return y, back


@pushforward(np.linalg.cholesky)
def cholesky_push(y, a, upper=False, *, da):
    return numpy_linalg.cholesky_tangent(da, y, upper)


@adjoint(np.linalg.qr)
def qr(a, mode="reduced"):
    y = np.linalg.qr(a, mode)

    def back(dy):
        return (numpy_linalg.qr_grad(dy, a, y, mode), None)
    return y, back


@pushforward(np.linalg.qr)
def qr_push(y, a, mode="reduced", *, da):
    return numpy_linalg.qr_tangent(da, a, y, mode)


@adjoint(np.linalg.eigh)
def eigh(a, UPLO="L"):
    y = np.linalg.eigh(a, UPLO)

    def back(dy):
        return (numpy_linalg.eigh_grad(dy, a, y), None)
    return y, back


@pushforward(np.linalg.eigh)
def eigh_push(y, a, UPLO="L", *, da):
    """With ``m = v^H sym(da) v``: ``Re(diag(m))`` for the eigenvalues,
    ``v (F * m)`` for the eigenvectors, ``F`` from :func:`inverse_gaps`."""
    w, v = y
    m = numpy_linalg.mH(v) @ numpy_linalg.sym(da) @ v
    return (np.real(np.diagonal(m, 0, -2, -1)), v @ (numpy_linalg.inverse_gaps(w) * m))


@adjoint(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    y = np.linalg.eigvalsh(a, UPLO)

    def back(dy):
        v = np.linalg.eigh(a, UPLO).eigenvectors
        return (numpy_linalg.fit((v * dy[..., None, :]) @ numpy_linalg.mH(v), a), None)
    return y, back


@pushforward(np.linalg.eigvalsh)
def eigvalsh_push(y, a, UPLO="L", *, da):
    """``Re(diag(v^H da v))``."""
    v = np.linalg.eigh(a, UPLO).eigenvectors
    return np.real(np.einsum("...ji,...jk,...ki->...i", numpy_linalg.conj(v), da, v))


@adjoint(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    y = np.linalg.svd(a, full_matrices, compute_uv, hermitian)

    def back(dy):
        da = numpy_linalg.svd_grad(dy, a, y, full_matrices, compute_uv, hermitian)
        return (da, None, None, None)
    return y, back


@pushforward(np.linalg.svd)
def svd_push(y, a, full_matrices=True, compute_uv=True, hermitian=False, *, da):
    return numpy_linalg.svd_tangent(da, a, y, full_matrices, compute_uv, hermitian)


@adjoint(np.linalg.svdvals)
def svdvals(x):
    y = np.linalg.svdvals(x)

    def back(dy):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        return (numpy_linalg.fit(numpy_linalg.svd_values_grad(dy, u, vh), x),)
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
        return (numpy_linalg.pinv_grad(dy, a, y, hermitian), None, None)
    return y, back


@pushforward(np.linalg.pinv)
def pinv_push(y, a, rcond=None, hermitian=False, *, da):
    return numpy_linalg.pinv_tangent(da, a, y, hermitian)


@adjoint(np.linalg.matrix_power)
def matrix_power(a, n):
    def back(dy):
        return (numpy_linalg.matrix_power_grad(dy, a, n), None)
    return np.linalg.matrix_power(a, n), back


@pushforward(np.linalg.matrix_power)
def matrix_power_push(y, a, n, *, da):
    return numpy_linalg.matrix_power_tangent(da, a, n)
