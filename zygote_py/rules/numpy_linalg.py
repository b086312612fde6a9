"""Rules for NumPy's products, diagonals and ``einsum``, and the helpers
that every linear-algebra rule module shares (:func:`fit`, :func:`conj`,
:func:`mT`, :func:`mH`, :func:`sym`, :func:`sum_to`,
:func:`diagonal_matrix`...).

Covered: ``np.dot``, ``np.matmul``, ``np.inner``, ``np.outer``, ``np.vdot``,
``np.vecdot``, ``np.tensordot``, ``np.einsum``, ``np.trace``, ``np.diag``,
``np.diagonal``, ``np.kron``, ``np.cross``; the methods ``ndarray.dot``,
``ndarray.trace`` and ``ndarray.diagonal``; and ``np.linalg``'s array-API
spellings ``matmul``, ``vecdot``, ``tensordot``, ``outer``, ``cross``,
``trace``, ``diagonal``. Every rule takes stacks of matrices where NumPy
does, and sums a gradient over the batch dimensions along which its operand
was broadcast.

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
- ``trace``: ``dy`` times the identity (with ``offset`` and the axes),
  dense. ``cross`` of 2-vectors treats them as 3-vectors with a zero third
  component, as NumPy does.

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``, the
transpose of its pullback.

Elsewhere: ``np.linalg``'s decompositions (``cholesky``, ``qr``,
``eigh``, ``eigvalsh``, ``svd``, ``svdvals``), ``solve``, ``inv``,
``det``, ``slogdet``, ``pinv`` and ``matrix_power`` in
:mod:`.numpy_decompositions`; ``eig`` and ``eigvals`` (non-symmetric
matrices), ``lstsq``, ``cond``, ``multi_dot``, ``tensorsolve`` and
``tensorinv`` in :mod:`.numpy_linalg_general`; ``norm``, ``matrix_norm``
and ``vector_norm`` in :mod:`.numpy_reductions`; ``matrix_transpose`` in
:mod:`.numpy_shapes`.
"""
import numpy as np

from zygote_py import runtime

# The rules below call this module's helpers by their qualified names, as
# they call np.dot, so that the compiler can inline them.
from zygote_py.rules import numpy_linalg

from ..registry import adjoint, nondifferentiable, pushforward

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
    # (float32 stays float32; the identity is of d's library: CuPy mixes in no NumPy array)
    return d[..., None, :] * np.eye(np.shape(d)[-1], dtype=np.real(d).dtype,
                                    like=d if runtime.arrays.is_foreign(d) else None)


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
    if real_matrices(dy, x1, x2, 1) and (x1.ndim == 1 or x2.ndim == 1):  # a matrix and a vector, or two vectors
        if x1.ndim == 1 and x2.ndim == 1:
            return dy * (x2 if wrt == 0 else x1)
        if wrt == 0:  # (an outer product by broadcasting: faster than np.outer)
            return dy[:, None] * x2 if x1.ndim == 2 else x2 @ dy
        return x1[:, None] * dy if x2.ndim == 2 else dy @ x1
    # (an array of any library as it is: np.asarray would compute a Dask array; no helper of zygote_py's,
    # as zpy emit copies this function into gradient modules)
    a, b, g = [v if hasattr(type(v), "__array_function__") else np.asarray(v) for v in (x1, x2, dy)]
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
    other operand (through its conjugate, for complex ones); an operand
    with no tangent (an integer array's ``None``) adds no term."""
    d_other = dx2 if wrt == 0 else dx1
    by_dy = numpy_linalg.matmul_grad(ddy, x1, x2, wrt)
    if runtime.is_zero_tangent(d_other):
        return by_dy
    other = numpy_linalg.matmul_grad(dy, x1, dx2, 0) if wrt == 0 else numpy_linalg.matmul_grad(dy, dx1, x2, 1)
    return by_dy + other


@pushforward(np.multiply.outer)
def multiply_outer_push(y, a, b, *, da, db):
    return np.multiply.outer(da, b) + np.multiply.outer(a, db)


def scalar_grad(dy, a, b, wrt):
    """The gradient of ``a * b`` (``np.dot`` or ``np.inner`` with a 0-d
    operand) with respect to ``a`` or ``b``."""
    if wrt == 0:
        return fit(dy * conj(runtime.arrays.asarray(b)), a)
    return fit(dy * conj(runtime.arrays.asarray(a)), b)


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
    A, B, g = runtime.arrays.asarray(a), runtime.arrays.asarray(b), runtime.arrays.asarray(dy)
    ia, ib = tensordot_axes(axes, A.ndim, B.ndim)
    fa = [i for i in range(A.ndim) if i not in ia]
    fb = [j for j in range(B.ndim) if j not in ib]
    # tensordot keeps the axes it does not contract in their order: the
    # other operand's contracted axes come out in increasing order, each
    # standing for its partner axis.
    if wrt == 0:
        ga = np.tensordot(g, conj(B), (list(range(len(fa), g.ndim)), fb))
        return fit(np.transpose(ga, tuple(int(i) for i in np.argsort(fa + [ia[ib.index(j)] for j in sorted(ib)]))), a)
    gb = np.tensordot(conj(A), g, (fa, list(range(len(fa)))))
    return fit(np.transpose(gb, tuple(int(i) for i in np.argsort([ib[ia.index(i)] for i in sorted(ia)] + fb))), b)


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
    g = np.expand_dims(runtime.arrays.asarray(dy), axis)
    if wrt == 0:
        return fit(conj(g) * runtime.arrays.asarray(x2), x1)
    return fit(g * runtime.arrays.asarray(x1), x2)


def kron_grad(dy, a, b, wrt):
    """The gradient of ``np.kron(a, b)``: ``dy`` with each axis split into
    an (``a``, ``b``) pair, times the other operand, summed over the other
    operand's axes."""
    A, B = runtime.arrays.asarray(a), runtime.arrays.asarray(b)
    if (A.ndim == 0) != (B.ndim == 0):  # (a product with a number, whose axes need no splitting, in any order)
        return fit(sum_to(dy * conj(B if wrt == 0 else A), (A if wrt == 0 else B).shape), a if wrt == 0 else b)
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
    A = np.moveaxis(runtime.arrays.asarray(a), axisa, -1)
    B = np.moveaxis(runtime.arrays.asarray(b), axisb, -1)
    if A.shape[-1] == 2 and B.shape[-1] == 2:
        d = runtime.arrays.asarray(dy)[..., None] * np.array([0, 0, 1])
    else:
        d = np.moveaxis(runtime.arrays.asarray(dy), axisc, -1)
    if wrt == 0:
        B3 = np.concatenate([B, np.zeros_like(B[..., :1])], -1) if B.shape[-1] == 2 else B
        ga = sum_to(np.cross(conj(B3), d)[..., :A.shape[-1]], A.shape)
        return fit(np.moveaxis(ga, -1, axisa), a)
    A3 = np.concatenate([A, np.zeros_like(A[..., :1])], -1) if A.shape[-1] == 2 else A
    gb = sum_to(np.cross(d, conj(A3))[..., :B.shape[-1]], B.shape)
    return fit(np.moveaxis(gb, -1, axisb), b)


def float_dtype(x):
    """``x``'s dtype if it is inexact, else float64."""
    dtype = x.dtype if hasattr(x, "dtype") else runtime.arrays.asarray(x).dtype
    return dtype if dtype.kind in "fc" else np.dtype(float)


def trace_grad(dy, a, offset, axis1, axis2):
    """The gradient of ``np.trace(a, offset, axis1, axis2)``: ``dy`` times
    the identity matrix in the plane of the two axes."""
    shape = np.shape(a)
    if len(shape) == 2 and np.ndim(dy) == 0 and not np.iscomplexobj(dy):
        # dy on a diagonal, kept sparse (O(n), not a dense n×n per use)
        return numpy_linalg.diagonal_scatter(a, offset, dy)
    eye = np.eye(shape[axis1], shape[axis2], offset, dtype=float_dtype(a))
    g = runtime.arrays.asarray(dy)[..., None, None] * eye  # (the outer product, by a rule differentiable again)
    return fit(np.moveaxis(g, (-2, -1), (axis1 % len(shape), axis2 % len(shape))), a)


def diagonal_scatter(a, offset, dy):
    """Zeros of the 2-d ``a``'s shape with ``dy`` (a number, or one value
    per item) added along its ``offset`` diagonal, as a sparse
    :class:`runtime.Scatter` (dense, of its library, for another library's
    ``dy``, whose values a NumPy scatter would move to the host)."""
    n, m = np.shape(a)
    i = np.arange(max(0, min(n + min(offset, 0), m - max(offset, 0))))
    key = (i + max(-offset, 0), i + max(offset, 0))
    if runtime.arrays.is_foreign(dy):
        return runtime.scatter(np.zeros_like(dy, float_dtype(a), shape=(n, m)), key, dy)
    return runtime.Scatter((n, m), float_dtype(a), [(key, dy)], 1, i.size)


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
    dy = runtime.arrays.asarray(dy)
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
            if dims.get(c, 1) == 1:  # broadcasting: a 1 yields to any size, 0 included
                dims[c] = n
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
