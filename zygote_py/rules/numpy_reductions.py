"""Rules for NumPy's reductions and scans: ``sum mean prod max amax min
amin var std cumsum cumprod nansum nanmean linalg.norm`` and the methods
``ndarray.sum mean prod max min var std cumsum cumprod``.

Non-differentiable (integer- or boolean-valued): ``argmax argmin argsort
count_nonzero any all`` and their ``ndarray`` methods.

A rule takes the NumPy function's leading positional parameters, up to
``keepdims`` (``ddof`` for ``var`` and ``std``); ``initial=`` and
``where=`` are not parameters, so a call passing them has no rule (a
``TypeError``). ``axis``, ``dtype``, ``out``, ``keepdims``, ``ddof`` and
``ord`` get ``None``. The pullback puts ``dy`` back along the reduced axes
(``np.expand_dims`` unless ``keepdims``) and returns an array of the
input's shape and dtype (also when ``dtype=`` made the output wider).

Conventions:

- ``max``, ``min`` (and ``amax``, ``amin``): ``dy`` is split evenly among
  the elements equal to the extremum of their slice, as JAX does; a slice
  whose extremum is NaN gives its elements no gradient.
- ``prod``: each factor's gradient is the product of the others, formed
  without dividing by the factor: ``y / a`` when no product is 0, and
  otherwise products of the elements before and after each one
  (:func:`prod_grad`), so that zeros (one or several) are exact.
- ``cumprod``: likewise ``y / a`` when no prefix product is 0, and
  otherwise :func:`cumprod_grad`, exact with zeros: an element after a
  slice's first zero gets 0, the first zero the sum of ``dy`` times the
  products that skip it.
- ``std`` where it is 0 (a constant slice): gradient 0, as ``abs`` at 0.
- ``nansum``, ``nanmean``: NaN elements get 0; ``nanmean`` of an all-NaN
  slice gives its elements 0.
- ``linalg.norm``: the vector norms (``ord`` None, 2, 1, ``inf``,
  ``-inf``, 0, any other ``p``) and the matrix norms (``'fro'``,
  ``'nuc'``, 2, -2, 1, -1, ``inf``, ``-inf``) over one or two axes, as
  NumPy picks them. At 0 every norm has gradient 0 (``sign(0) == 0`` for
  ``|x|``, and elements at 0 of a ``p``-norm with ``p < 1`` get 0); ties
  of the ``inf``, 1-, ``-inf`` and -1-norms split ``dy`` evenly; the
  spectral norms take the singular vectors of the extreme singular value,
  and ``'nuc'`` is ``U @ Vh`` of the reduced SVD (any subgradient where
  singular values repeat or vanish). ``ord=0`` (a count) gets 0.

Complex inputs: ``sum``, ``mean``, ``cumsum``, ``var``, ``std``, ``prod``,
``cumprod`` and ``linalg.norm`` follow the convention of
:mod:`.numpy_elementwise` (``dy * conj(f'(z))`` for holomorphic parts).
"""
import numpy as np

# The rules below call this module's helpers by their qualified names, so
# that the compiler can inline the rules.
from zygote_py.rules import numpy_reductions

from .registry import adjoint, nondifferentiable

nondifferentiable(
    np.argmax, np.argmin, np.argsort, np.count_nonzero, np.any, np.all,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.argsort, np.ndarray.any, np.ndarray.all,
)


def dtype_of(a):
    """The dtype of an array argument (also a list or a number)."""
    return a.dtype if isinstance(a, np.ndarray) else np.asarray(a).dtype


@adjoint(np.sum)
def sum_(a, axis=None, dtype=None, out=None, keepdims=False):
    def back(dy):
        if axis is None or keepdims:
            return (np.full_like(a, dy), None, None, None, None)
        return (np.full_like(a, np.expand_dims(dy, axis)), None, None, None, None)
    return np.sum(a, axis, dtype, out, keepdims), back


@adjoint(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.mean(a, axis, dtype, out, keepdims)

    def back(dy):
        share = dy * (y.size / max(np.size(a), 1))
        if axis is None or keepdims:
            return (np.full_like(a, share), None, None, None, None)
        return (np.full_like(a, np.expand_dims(share, axis)), None, None, None, None)
    return y, back


@adjoint(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.prod(a, axis, dtype, out, keepdims)

    def back(dy):
        if dtype is not None or y.dtype.kind != "f" or not y.all():
            # a zero factor (or a product that underflowed): no dividing
            return (numpy_reductions.prod_grad(dy, a, axis, keepdims), None, None, None, None)
        if axis is None or keepdims:
            return (dy * y / a, None, None, None, None)
        return (np.expand_dims(dy * y, axis) / a, None, None, None, None)
    return y, back


def extremum_grad(dy, a, y, axis, keepdims):
    """The gradient of ``a`` for ``y = max(a, axis)`` (or min): ``dy`` goes to
    the elements equal to the result, shared evenly among ties (a NaN
    result equals no element, so its slice gets none)."""
    if axis is None or keepdims:
        hit = np.equal(a, y)
        share = dy
    else:
        hit = np.equal(a, np.expand_dims(y, axis))
        share = np.expand_dims(dy, axis)
    if np.count_nonzero(hit) != np.size(y) or (axis is not None and np.isnan(y).any()):
        share = share / np.maximum(np.sum(hit, axis, keepdims=True), 1)
    return np.multiply(hit, share, dtype=np.result_type(y))


@adjoint(np.max)
@adjoint(np.amax)
def max_(a, axis=None, out=None, keepdims=False):
    y = np.max(a, axis, out, keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), None, None, None)
    return y, back


@adjoint(np.min)
@adjoint(np.amin)
def min_(a, axis=None, out=None, keepdims=False):
    y = np.min(a, axis, out, keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), None, None, None)
    return y, back


@adjoint(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    y = np.var(a, axis, dtype, out, ddof, keepdims)

    def back(dy):
        n = np.size(a) / max(y.size, 1)
        scale = 2 / (n - ddof) if n > ddof else np.nan
        if axis is None or keepdims:
            dvar = dy * scale
        else:
            dvar = np.expand_dims(dy * scale, axis)
        centred = a - np.mean(a, axis, keepdims=True)
        if dtype is None:
            return (centred * dvar, None, None, None, None, None)
        return (np.multiply(centred, dvar, dtype=numpy_reductions.dtype_of(a)), None, None, None, None, None)
    return y, back


@adjoint(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    y = np.std(a, axis, dtype, out, ddof, keepdims)

    def back(dy):
        n = np.size(a) / max(y.size, 1)
        scale = 1 / (n - ddof) if n > ddof else np.nan
        dvar = dy * scale / np.where(y == 0, 1, y)  # a constant slice: centred is 0 there
        if axis is not None and not keepdims:
            dvar = np.expand_dims(dvar, axis)
        centred = a - np.mean(a, axis, keepdims=True)
        if dtype is None:
            return (centred * dvar, None, None, None, None, None)
        return (np.multiply(centred, dvar, dtype=numpy_reductions.dtype_of(a)), None, None, None, None, None)
    return y, back


@adjoint(np.cumsum)
def cumsum(a, axis=None, dtype=None, out=None):
    def back(dy):
        # the sum of dy over this element's position and those after it
        g = np.flip(np.cumsum(np.flip(dy, axis), axis), axis)
        if dtype is None:
            return (g.reshape(np.shape(a)), None, None, None)
        return (g.reshape(np.shape(a)).astype(numpy_reductions.dtype_of(a)), None, None, None)
    return np.cumsum(a, axis, dtype, out), back


@adjoint(np.cumprod)
def cumprod(a, axis=None, dtype=None, out=None):
    y = np.cumprod(a, axis, dtype, out)

    def back(dy):
        if dtype is not None or y.dtype.kind != "f" or not y.all():
            # a zero factor (or underflow): no dividing
            return (numpy_reductions.cumprod_grad(dy, a, axis, y), None, None, None)
        g = np.flip(np.cumsum(np.flip(dy * y, axis), axis), axis) / np.reshape(a, np.shape(y))
        return (g.reshape(np.shape(a)), None, None, None)
    return y, back


@adjoint(np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    def back(dy):
        if axis is None or keepdims:
            g = np.where(np.isnan(a), 0, dy)
        else:
            g = np.where(np.isnan(a), 0, np.expand_dims(dy, axis))
        return (g.astype(numpy_reductions.dtype_of(a), copy=False), None, None, None, None)
    return np.nansum(a, axis, dtype, out, keepdims), back


@adjoint(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.nanmean(a, axis, dtype, out, keepdims)

    def back(dy):
        valid = ~np.isnan(a)
        count = np.maximum(np.sum(valid, axis, keepdims=True), 1)
        if axis is None or keepdims:
            g = np.where(valid, dy / count, 0)
        else:
            g = np.where(valid, np.expand_dims(dy, axis) / count, 0)
        return (g.astype(numpy_reductions.dtype_of(a), copy=False), None, None, None, None)
    return y, back


@adjoint(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    y = np.linalg.norm(x, ord, axis, keepdims)

    def back(dy):
        # ord None: the 2-norm (Frobenius over two axes), with gradient
        # x / y, and 0 where y is 0
        if ord is None and axis is None:  # of all the elements: y is one number
            return (np.multiply(x, dy / y if y != 0 else 0.0 * dy), None, None, None)
        if ord is None:
            scale = dy / np.where(y == 0, 1, y)
            if keepdims:
                return (np.multiply(x, scale), None, None, None)
            return (np.multiply(x, np.expand_dims(scale, axis)), None, None, None)
        return (numpy_reductions.norm_grad(dy, x, ord, axis, keepdims, y), None, None, None)
    return y, back


adjoint(np.ndarray.sum)(sum_)
adjoint(np.ndarray.mean)(mean)
adjoint(np.ndarray.prod)(prod)
adjoint(np.ndarray.max)(max_)
adjoint(np.ndarray.min)(min_)
adjoint(np.ndarray.var)(var)
adjoint(np.ndarray.std)(std)
adjoint(np.ndarray.cumsum)(cumsum)
adjoint(np.ndarray.cumprod)(cumprod)


# -- helpers ------------------------------------------------------------------


def _axes(axis, ndim):
    """``axis`` (None, an int or a tuple) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(i % ndim for i in axis)
    return (axis % ndim,)


def _kept(g, axes):
    """``g``, a cotangent of a reduction over ``axes`` without
    ``keepdims``, with those axes back as length 1."""
    return np.expand_dims(g, axes) if axes else np.asarray(g)


def _others_product(v):
    """For each element along the last axis of ``v``, the product of all
    the other elements of its row, without dividing (zeros allowed)."""
    ones = np.ones(v.shape[:-1] + (1,), dtype=v.dtype)
    before = np.cumprod(np.concatenate([ones, v[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, v[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def prod_grad(dy, a, axis, keepdims):
    """The gradient of ``np.prod(a, axis, keepdims=keepdims)`` for the
    cotangent ``dy``: ``dy`` times the product of the other elements of
    each element's slice, computed from products before and after it, so
    that zero factors are exact. Complex factors are conjugated."""
    x = np.asarray(a)
    axes = _axes(axis, x.ndim)
    dy_kept = np.asarray(dy) if keepdims or axis is None else _kept(dy, axes)
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    order = rest + axes
    moved = np.transpose(x, order)
    rows = moved.reshape(moved.shape[:len(rest)] + (-1,))
    if rows.shape[-1] == 0:
        return np.zeros_like(x)
    others = _others_product(rows).reshape(moved.shape).conj()
    g = np.transpose(others, np.argsort(order)) * dy_kept
    return g.astype(x.dtype, copy=False) if x.dtype.kind in "fc" else g


def cumprod_grad(dy, a, axis, y):
    """The gradient of ``np.cumprod(a, axis)`` for the cotangent ``dy``,
    exact when ``a`` has zeros.

    Along a slice with its first zero at ``z``: an element before ``z``
    gets ``sum_{j >= i} dy_j y_j / a_i`` (it is not 0); the zero itself
    gets ``sum_{j >= z} dy_j y'_j``, where ``y'`` is the cumulative product
    with that zero replaced by 1; the elements after it get 0, since every
    product they are in has the factor 0.
    """
    x = np.asarray(a)
    flat = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis % max(x.ndim, 1)
    yy = np.asarray(y).conj()
    dyy = np.asarray(dy)
    zeros = flat == 0
    zeros_through = np.cumsum(zeros, axis=ax)  # zeros up to and including each element
    before = zeros_through == 0
    first = zeros & (zeros_through == 1)
    replaced = np.cumprod(np.where(first, 1, flat), axis=ax).conj()

    def tail_sum(v):
        return np.flip(np.cumsum(np.flip(v, ax), axis=ax), ax)

    safe = np.where(zeros, 1, flat).conj()
    g = np.where(before, tail_sum(dyy * yy) / safe, np.where(first, tail_sum(dyy * replaced), 0))
    g = g.reshape(x.shape)
    return g.astype(x.dtype, copy=False) if x.dtype.kind in "fc" else g


def _share(hit, g, axes):
    """``g`` split evenly among the ``hit`` elements of each slice over
    ``axes`` (a slice without any gets nothing)."""
    count = np.maximum(np.sum(hit, axis=axes, keepdims=True), 1)
    return hit * (g / count)


def _vector_norm_grad(x, ord, ax, y, dy):
    """The gradient of a vector norm along axis ``ax``; ``y`` and ``dy``
    have that axis kept (length 1)."""
    absx = np.abs(x)
    if ord is None or ord == 2:
        return x * (dy / np.where(y == 0, 1, y))
    if ord == 1:
        return np.sign(x) * dy
    if ord == 0:
        return np.zeros_like(x)
    if ord == np.inf or ord == -np.inf:
        return np.sign(x) * _share(absx == y, dy, (ax,))
    # |x|_p = (sum |x|^p)^(1/p): d/dx = sign(x) (|x| / y)^(p - 1); at a
    # kink (an element at 0, or y == 0, which for p < 0 is any element at 0) 0
    ratio = absx / np.where(y == 0, 1, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where((absx == 0) | (y == 0), 0, ratio ** (ord - 1))
    return np.sign(x) * scaled * dy


def _matrix_norm_grad(x, ord, axes, y, dy):
    """The gradient of a matrix norm over ``axes`` (rows, columns); ``y``
    and ``dy`` have those axes kept (length 1)."""
    row, col = axes
    if ord is None or ord in ("fro", "f"):
        return x * (dy / np.where(y == 0, 1, y))
    if ord in (1, -1):  # the extreme column of absolute sums
        sums = np.sum(np.abs(x), axis=row, keepdims=True)
        return np.sign(x) * _share(sums == y, dy, (col,))
    if ord in (np.inf, -np.inf):  # the extreme row of absolute sums
        sums = np.sum(np.abs(x), axis=col, keepdims=True)
        return np.sign(x) * _share(sums == y, dy, (row,))
    moved = np.moveaxis(x, (row, col), (-2, -1))
    u, s, vh = np.linalg.svd(moved, full_matrices=False)
    if ord == "nuc":
        g = u @ vh
    else:  # 2 or -2: the singular vectors of the largest or smallest singular value
        k = 0 if ord == 2 else -1
        g = u[..., :, k:k + 1 or None] @ vh[..., k:k + 1 or None, :]
    return np.moveaxis(g, (-2, -1), (row, col)) * np.where(y == 0, 0, dy)


def norm_grad(dy, x, ord, axis, keepdims, y):
    """The gradient of ``np.linalg.norm(x, ord, axis, keepdims)`` (which is
    ``y``) for the cotangent ``dy``; see the module's conventions."""
    xa = np.asarray(x)
    if not np.issubdtype(xa.dtype, np.inexact):
        xa = xa.astype(float)
    nd = xa.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1)):
        # the 2-norm of all the elements
        return xa * (np.asarray(dy) / np.where(y == 0, 1, y))
    axes = _axes(axis, nd)
    kept_y = np.asarray(y) if keepdims else _kept(y, axes)
    kept_dy = np.asarray(dy) if keepdims else _kept(dy, axes)
    if len(axes) == 1:
        g = _vector_norm_grad(xa, ord, axes[0], kept_y, kept_dy)
    else:
        g = _matrix_norm_grad(xa, ord, axes, kept_y, kept_dy)
    return g.astype(xa.dtype, copy=False)
