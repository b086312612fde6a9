"""Rules for NumPy's reductions and scans: ``sum mean average prod max
amax min amin ptp var std median quantile percentile cumsum cumprod
cumulative_sum nansum nanmean nanprod nanmax nanmin nanvar nanstd
nanmedian nanquantile nanpercentile nancumsum nancumprod linalg.norm
linalg.matrix_norm linalg.vector_norm`` and
the methods ``ndarray.sum mean prod max min var std cumsum cumprod`` (and
``ndarray.ptp`` where NumPy has it, before NumPy 2; ``cumulative_sum``
where it has that, from NumPy 2.1).

Non-differentiable (integer- or boolean-valued): ``argmax argmin nanargmax
nanargmin argsort count_nonzero any all`` and their ``ndarray`` methods.

A rule takes the NumPy function's leading positional parameters, up to
``keepdims`` (``ddof`` for ``var`` and ``std``); ``initial=`` and
``where=`` are not parameters, so a call passing them has no rule (a
``TypeError``). ``axis``, ``dtype``, ``out``, ``keepdims``, ``ddof``,
``ord``, ``returned``, ``overwrite_input``, ``method`` and
``include_initial`` get ``None``. The pullback puts ``dy`` back along the reduced axes
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
  otherwise :func:`cumprod_grad`, exact with zeros: each element gets the
  sum of ``dy`` times the products that skip it, formed by a scan without
  division (so an element after a slice's first zero gets 0).
- ``nanmax``, ``nanmin``: as ``max`` and ``min`` among the elements that
  are not NaN; NaN elements, and all-NaN slices, get 0.
- ``ptp`` (``max - min``): ``max``'s gradient minus ``min``'s, ties split
  evenly as there; a constant slice gets 0.
- ``std`` where it is 0 (a constant slice): gradient 0, as ``abs`` at 0.
- ``nansum``, ``nanmean``, ``nanprod``, ``nanvar``, ``nanstd``,
  ``nancumsum``, ``nancumprod``: NaN elements get 0 (they count as 0 in
  sums, as 1 in products); ``nanmean`` of an all-NaN slice gives its
  elements 0; ``nanvar`` and ``nanstd`` are ``var`` and ``std`` of the
  elements that are not NaN (``nan`` where their count is at most
  ``ddof``, as for ``var``; 0 where ``nanstd`` is 0).
- ``average(a, axis, weights, returned, keepdims)``: with ``W`` the sum
  of a slice's weights, ``a`` gets ``dy * w / W`` and ``weights`` gets
  ``dy * (a - average) / W``, summed over the axes along which NumPy
  broadcast them (1-d weights, or weights of the shape of ``a`` along a
  tuple of axes); the returned sum of weights (``returned=True``, a pair
  whose cotangent items may be ``None``) adds its cotangent to every
  weight of the slice. Without weights it is ``mean``. ``keepdims`` is
  keyword-only in NumPy, a parameter of the rule.
- ``median``, ``quantile``, ``percentile`` and their ``nan`` versions,
  with any ``method``: NumPy takes ``(1 - g) s[j] + g s[j + 1]`` of the
  sorted values ``s`` of a slice (of those that are not NaN for the
  ``nan`` versions), so ``s[j]`` gets ``(1 - g) dy`` and ``s[j + 1]``
  gets ``g dy``: the middle element of an odd count gets all of ``dy``
  for ``median``, the two middle ones of an even count half each. Ties:
  each order statistic's share is split evenly among the elements of the
  slice equal to it (so a median equal to three elements gives each a
  third), as ``max`` does. A slice whose result is NaN (a NaN in it,
  without ``nan``; only NaN, with it) gets 0. ``q`` gets
  ``dy * (s[j + 1] - s[j])`` times the slope of ``j + g`` in ``q``:
  ``n - 1`` for ``'linear'`` (``n`` values in the slice), ``n + 1 -
  alpha - beta`` for the other continuous methods (0 where ``j + g`` is
  clipped to the first or last value), 0 for the piecewise constant ones
  (``'lower'``, ``'nearest'``...); where ``j + g`` is an integer it is the
  slope to the right (0 at ``q == 1``). ``percentile``'s ``q`` is in
  percent, its gradient a hundredth. ``overwrite_input=True`` is not
  passed on (the pullback reads ``a``; the result is the same). NumPy
  (2.4) lays out ``nanquantile`` and ``nanpercentile`` of a ``q`` with two
  or more dimensions over several axes wrongly (not ``q``'s shape first):
  asking for the gradient of such a call raises ``NoDerivativeRule``.
  ``weights=`` (``quantile`` and ``percentile``, with ``'inverted_cdf'``,
  the one method NumPy 2 weighs): the result is an element of the slice,
  so ``dy`` goes to the elements equal to it that have a positive weight,
  evenly; ``q`` and the weights, on which it depends piecewise
  constantly, get 0 and ``None``.
- ``cumulative_sum(x, axis, dtype, out, include_initial)``: ``cumsum``'s
  gradient; the leading 0 of ``include_initial=True`` depends on nothing.
  Its parameters after ``x`` are keyword-only in NumPy, parameters of the
  rule.
- ``linalg.norm``: the vector norms (``ord`` None, 2, 1, ``inf``,
  ``-inf``, 0, any other ``p``) and the matrix norms (``'fro'``,
  ``'nuc'``, 2, -2, 1, -1, ``inf``, ``-inf``) over one or two axes, as
  NumPy picks them. At 0 every norm has gradient 0 (``sign(0) == 0`` for
  ``|x|``, and elements at 0 of a ``p``-norm with ``p < 1`` get 0); ties
  of the ``inf``, 1-, ``-inf`` and -1-norms split ``dy`` evenly; the
  spectral norms take the singular vectors of the extreme singular value,
  and ``'nuc'`` is ``U @ Vh`` of the reduced SVD (any subgradient where
  singular values repeat or vanish). ``ord=0`` (a count) gets 0.
  ``linalg.matrix_norm`` is ``norm`` over the last two axes;
  ``linalg.vector_norm`` the vector norm of the elements along all of its
  ``axis`` (every element for ``None``, whatever the dimensions), taken as
  one vector. Their parameters after ``x`` are keyword-only in NumPy,
  parameters of the rules.

Complex inputs: ``sum``, ``mean``, ``cumsum``, ``cumulative_sum``,
``var``, ``std``, ``nanvar``, ``nanstd``, ``prod``, ``nanprod``,
``cumprod``, ``nancumprod`` and ``linalg.norm`` follow the convention of
:mod:`.numpy_elementwise` (``dy * conj(f'(z))`` for holomorphic parts).

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``
(``sum_push`` for ``sum_``, ``max_push`` and ``min_push``), the transpose
of its pullback with the same conventions: a reduction linear in ``a``
reduces ``da`` the same way; the others sum ``conj(slopes) * da`` over the
reduced axes, the slopes being the pullback's gradient for a cotangent of
ones (its real part for a real output of complex ``a``), so that ties,
zeros and NaN are treated alike in both directions.
"""
import math

import numpy as np

from zygote_py import errors, runtime

# The rules below call this module's helpers by their qualified names, so
# that the compiler can inline the rules.
from zygote_py.rules import numpy_elementwise, numpy_reductions

from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(
    np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.count_nonzero, np.any, np.all,
    np.ndarray.argmax, np.ndarray.argmin, np.ndarray.argsort, np.ndarray.any, np.ndarray.all,
)


def dtype_of(a):
    """The dtype of an array argument (also a list or a number)."""
    return runtime.arrays.asarray(a).dtype


@adjoint(np.sum)
def sum_(a, axis=None, dtype=None, out=None, keepdims=False):
    def back(dy):
        if axis is None or keepdims:
            return (runtime.spread(dy, a), None, None, None, None)
        return (runtime.spread(np.expand_dims(dy, axis), a), None, None, None, None)
    return np.sum(a, axis, dtype, keepdims=keepdims), back


@pushforward(np.sum)
def sum_push(y, a, axis=None, dtype=None, out=None, keepdims=False, *, da):
    return np.sum(da, axis, dtype, keepdims=keepdims)


@adjoint(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.mean(a, axis, dtype, keepdims=keepdims)

    def back(dy):
        if axis is None:  # (no read of y: a gradient that is not asked for the mean does not compute it)
            return (runtime.spread(dy / max(math.prod(np.shape(a)), 1), a), None, None, None, None)
        share = dy * (y.size / max(math.prod(np.shape(a)), 1))
        if keepdims:
            return (runtime.spread(share, a), None, None, None, None)
        return (runtime.spread(np.expand_dims(share, axis), a), None, None, None, None)
    return y, back


@pushforward(np.mean)
def mean_push(y, a, axis=None, dtype=None, out=None, keepdims=False, *, da):
    return np.mean(da, axis, dtype, keepdims=keepdims)


@adjoint(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.prod(a, axis, dtype, keepdims=keepdims)

    def back(dy):
        if dtype is not None or y.dtype.kind != "f" or runtime.arrays.is_foreign(y) or not y.all():
            # a zero factor (or a product that underflowed), or another library's array, whose zeros only
            # computing it would find: no dividing
            return (numpy_reductions.prod_grad(dy, a, axis, keepdims), None, None, None, None)
        if axis is None or keepdims:
            return (dy * y / a, None, None, None, None)
        return (np.expand_dims(dy * y, axis) / a, None, None, None, None)
    return y, back


@pushforward(np.prod)
def prod_push(y, a, axis=None, dtype=None, out=None, keepdims=False, *, da):
    slopes = numpy_reductions.prod_grad(np.ones_like(y), a, axis, keepdims)
    return np.sum(np.conjugate(slopes) * da, axis, dtype, keepdims=keepdims)


def extremum_grad(dy, a, y, axis, keepdims):
    """The gradient of ``a`` for ``y = max(a, axis)`` (or min): ``dy`` goes to
    the elements equal to the result, shared evenly among ties (a NaN
    result equals no element, so its slice gets none)."""
    if axis is None and not keepdims and type(a) is np.ndarray and a.dtype.kind == "f":
        hit = a == y
        n = int(np.count_nonzero(hit))
        g = hit.astype(a.dtype)
        if n != 1 or dy != 1:
            g *= dy / max(n, 1)
        return g
    if axis is None or keepdims:
        hit = np.equal(a, y)
        share = dy
    else:
        hit = np.equal(a, np.expand_dims(y, axis))
        share = np.expand_dims(dy, axis)
    # (no ties and no NaN: no dividing; never asked of another library's array, where it would compute)
    if runtime.arrays.is_foreign(hit) or np.count_nonzero(hit) != np.size(y) \
            or (axis is not None and np.isnan(y).any()):
        share = share / np.maximum(np.sum(hit, axis, keepdims=True), 1)
    dtype = np.result_type(y)
    if dtype.kind not in "fc":  # (an integer array's: its tangent, in forward mode, is float zeros)
        dtype = np.result_type(dtype, share)
    return np.multiply(hit, share, dtype=dtype)


@adjoint(np.max)
@adjoint(np.amax)
def max_(a, axis=None, out=None, keepdims=False):
    y = np.max(a, axis, keepdims=keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), None, None, None)
    return y, back


@pushforward(np.max)
@pushforward(np.amax)
def max_push(y, a, axis=None, out=None, keepdims=False, *, da):
    slopes = numpy_reductions.extremum_grad(np.ones_like(y), a, y, axis, keepdims)
    return np.sum(slopes * da, axis, keepdims=keepdims)


@adjoint(np.min)
@adjoint(np.amin)
def min_(a, axis=None, out=None, keepdims=False):
    y = np.min(a, axis, keepdims=keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), None, None, None)
    return y, back


@pushforward(np.min)
@pushforward(np.amin)
def min_push(y, a, axis=None, out=None, keepdims=False, *, da):
    slopes = numpy_reductions.extremum_grad(np.ones_like(y), a, y, axis, keepdims)
    return np.sum(slopes * da, axis, keepdims=keepdims)


@adjoint(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    y = np.var(a, axis, dtype, ddof=ddof, keepdims=keepdims)

    def back(dy):
        n = math.prod(np.shape(a)) / max(y.size, 1)
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


@pushforward(np.var)
def var_push(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, da):
    centred = a - np.mean(a, axis, keepdims=True)
    scale = 2 / numpy_reductions.dof(a, y, ddof)
    return np.sum(np.real(np.conjugate(centred) * da), axis, dtype, keepdims=keepdims) * scale


def dof(a, y, ddof):
    """The degrees of freedom ``n - ddof`` of ``y = np.var(a, ..., ddof)``
    (or ``std``) over slices of ``n`` elements; ``nan`` where there are
    none, as the gradients are then."""
    n = math.prod(np.shape(a)) / max(math.prod(np.shape(y)), 1)
    return n - ddof if n > ddof else np.nan


@adjoint(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    y = np.std(a, axis, dtype, ddof=ddof, keepdims=keepdims)

    def back(dy):
        n = math.prod(np.shape(a)) / max(y.size, 1)
        scale = 1 / (n - ddof) if n > ddof else np.nan
        dvar = dy * scale / np.where(y == 0, 1, y)  # a constant slice: centred is 0 there
        if axis is not None and not keepdims:
            dvar = np.expand_dims(dvar, axis)
        centred = a - np.mean(a, axis, keepdims=True)
        if dtype is None:
            return (centred * dvar, None, None, None, None, None)
        return (np.multiply(centred, dvar, dtype=numpy_reductions.dtype_of(a)), None, None, None, None, None)
    return y, back


@pushforward(np.std)
def std_push(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, da):
    """0 where ``y`` is 0 (a constant slice, where ``centred`` is 0)."""
    centred = a - np.mean(a, axis, keepdims=True)
    spread = numpy_reductions.dof(a, y, ddof) * np.where(y == 0, 1, y)
    return np.sum(np.real(np.conjugate(centred) * da), axis, dtype, keepdims=keepdims) / spread


@adjoint(np.cumsum)
def cumsum(a, axis=None, dtype=None, out=None):
    def back(dy):
        # the sum of dy over this element's position and those after it
        g = np.flip(np.cumsum(np.flip(dy, axis), axis), axis)
        if dtype is None:
            return (g.reshape(np.shape(a)), None, None, None)
        return (g.reshape(np.shape(a)).astype(numpy_reductions.dtype_of(a)), None, None, None)
    return np.cumsum(a, axis, dtype, out), back


@pushforward(np.cumsum)
def cumsum_push(y, a, axis=None, dtype=None, out=None, *, da):
    return np.cumsum(da, axis, dtype)


@adjoint(np.cumprod)
def cumprod(a, axis=None, dtype=None, out=None):
    y = np.cumprod(a, axis, dtype, out)

    def back(dy):
        if dtype is not None or y.dtype.kind != "f" or runtime.arrays.is_foreign(y) or not y.all():
            # a zero factor (or underflow), or another library's array, whose zeros only computing it finds: no
            # dividing
            return (numpy_reductions.cumprod_grad(dy, a, axis, y), None, None, None)
        g = np.flip(np.cumsum(np.flip(dy * y, axis), axis), axis) / np.reshape(a, np.shape(y))
        return (g.reshape(np.shape(a)), None, None, None)
    return y, back


@pushforward(np.cumprod)
def cumprod_push(y, a, axis=None, dtype=None, out=None, *, da):
    return numpy_reductions.cumprod_tangent(da, a, axis, y)


@adjoint(np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    def back(dy):
        if axis is None or keepdims:
            g = np.where(np.isnan(a), 0, dy)
        else:
            g = np.where(np.isnan(a), 0, np.expand_dims(dy, axis))
        return (g.astype(numpy_reductions.dtype_of(a), copy=False), None, None, None, None)
    return np.nansum(a, axis, dtype, keepdims=keepdims), back


@pushforward(np.nansum)
def nansum_push(y, a, axis=None, dtype=None, out=None, keepdims=False, *, da):
    return np.sum(np.where(np.isnan(a), 0, da), axis, dtype, keepdims=keepdims)


@adjoint(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.nanmean(a, axis, dtype, keepdims=keepdims)

    def back(dy):
        valid = ~np.isnan(a)
        count = np.maximum(np.sum(valid, axis, keepdims=True), 1)
        if axis is None or keepdims:
            g = np.where(valid, dy / count, 0)
        else:
            g = np.where(valid, np.expand_dims(dy, axis) / count, 0)
        return (g.astype(numpy_reductions.dtype_of(a), copy=False), None, None, None, None)
    return y, back


@pushforward(np.nanmean)
def nanmean_push(y, a, axis=None, dtype=None, out=None, keepdims=False, *, da):
    """0 for an all-NaN slice."""
    valid = ~np.isnan(a)
    count = np.maximum(np.sum(valid, axis, keepdims=keepdims), 1)
    return runtime.shaped(np.sum(np.where(valid, da, 0), axis, dtype, keepdims=keepdims) / count, y)


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


@pushforward(np.linalg.norm)
def norm_push(y, x, ord=None, axis=None, keepdims=False, *, dx):
    slopes = numpy_reductions.norm_grad(np.ones_like(y), x, ord, axis, keepdims, y)
    return np.sum(np.real(np.conjugate(slopes) * dx), axis, keepdims=keepdims)


@adjoint(np.linalg.matrix_norm)
def matrix_norm(x, keepdims=False, ord="fro"):
    y = np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)

    def back(dy):
        return (numpy_reductions.norm_grad(dy, x, ord, (-2, -1), keepdims, y), None, None)
    return y, back


@pushforward(np.linalg.matrix_norm)
def matrix_norm_push(y, x, keepdims=False, ord="fro", *, dx):
    slopes = numpy_reductions.norm_grad(np.ones_like(y), x, ord, (-2, -1), keepdims, y)
    return np.sum(np.real(np.conjugate(slopes) * dx), (-2, -1), keepdims=keepdims)


@adjoint(np.linalg.vector_norm)
def vector_norm(x, axis=None, keepdims=False, ord=2):
    y = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)

    def back(dy):
        return (numpy_reductions.vector_norm_grad(dy, x, ord, axis, y), None, None, None)
    return y, back


@pushforward(np.linalg.vector_norm)
def vector_norm_push(y, x, axis=None, keepdims=False, ord=2, *, dx):
    slopes = numpy_reductions.vector_norm_grad(np.ones_like(y), x, ord, axis, y)
    return np.sum(np.real(np.conjugate(slopes) * dx), axis, keepdims=keepdims)


@adjoint(np.nanmax)
def nanmax(a, axis=None, out=None, keepdims=False):
    y = np.nanmax(a, axis, keepdims=keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), None, None, None)
    return y, back


@pushforward(np.nanmax)
def nanmax_push(y, a, axis=None, out=None, keepdims=False, *, da):
    slopes = numpy_reductions.extremum_grad(np.ones_like(y), a, y, axis, keepdims)
    return np.sum(slopes * da, axis, keepdims=keepdims)


@adjoint(np.nanmin)
def nanmin(a, axis=None, out=None, keepdims=False):
    y = np.nanmin(a, axis, keepdims=keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), None, None, None)
    return y, back


@pushforward(np.nanmin)
def nanmin_push(y, a, axis=None, out=None, keepdims=False, *, da):
    slopes = numpy_reductions.extremum_grad(np.ones_like(y), a, y, axis, keepdims)
    return np.sum(slopes * da, axis, keepdims=keepdims)


@adjoint(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    y = np.ptp(a, axis, keepdims=keepdims)

    def back(dy):
        hi = np.max(a, axis, keepdims=keepdims)
        lo = np.min(a, axis, keepdims=keepdims)
        return (
            numpy_reductions.extremum_grad(dy, a, hi, axis, keepdims)
            - numpy_reductions.extremum_grad(dy, a, lo, axis, keepdims),
            None,
            None,
            None,
        )
    return y, back


@pushforward(np.ptp)
def ptp_push(y, a, axis=None, out=None, keepdims=False, *, da):
    hi = np.max(a, axis, keepdims=keepdims)
    lo = np.min(a, axis, keepdims=keepdims)
    slopes = (
        numpy_reductions.extremum_grad(np.ones_like(y), a, hi, axis, keepdims)
        - numpy_reductions.extremum_grad(np.ones_like(y), a, lo, axis, keepdims)
    )
    return np.sum(slopes * da, axis, keepdims=keepdims)


@adjoint(np.nanprod)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    y = np.nanprod(a, axis, dtype, keepdims=keepdims)

    def back(dy):
        missing = np.isnan(a)
        filled = np.where(missing, 1, a)  # a NaN counts as the factor 1
        if dtype is not None or y.dtype.kind != "f" or not y.all():
            g = numpy_reductions.prod_grad(dy, filled, axis, keepdims)
        elif axis is None or keepdims:
            g = dy * y / filled
        else:
            g = np.expand_dims(dy * y, axis) / filled
        return (np.where(missing, 0, g).astype(numpy_reductions.dtype_of(a), copy=False), None, None, None, None)
    return y, back


@pushforward(np.nanprod)
def nanprod_push(y, a, axis=None, dtype=None, out=None, keepdims=False, *, da):
    """A NaN counts as the factor 1, constant."""
    missing = np.isnan(a)
    slopes = numpy_reductions.prod_grad(np.ones_like(y), np.where(missing, 1, a), axis, keepdims)
    return np.sum(np.conjugate(slopes) * np.where(missing, 0, da), axis, dtype, keepdims=keepdims)


@adjoint(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    y = np.nanvar(a, axis, dtype, ddof=ddof, keepdims=keepdims)

    def back(dy):
        return (numpy_reductions.nanvar_grad(dy, a, axis, ddof, keepdims, None), None, None, None, None, None)
    return y, back


@pushforward(np.nanvar)
def nanvar_push(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, da):
    slopes = numpy_reductions.nanvar_grad(np.ones_like(y), a, axis, ddof, keepdims, None)
    return np.sum(np.real(np.conjugate(slopes) * da), axis, dtype, keepdims=keepdims)


@adjoint(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    y = np.nanstd(a, axis, dtype, ddof=ddof, keepdims=keepdims)

    def back(dy):
        return (numpy_reductions.nanvar_grad(dy, a, axis, ddof, keepdims, y), None, None, None, None, None)
    return y, back


@pushforward(np.nanstd)
def nanstd_push(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, da):
    slopes = numpy_reductions.nanvar_grad(np.ones_like(y), a, axis, ddof, keepdims, y)
    return np.sum(np.real(np.conjugate(slopes) * da), axis, dtype, keepdims=keepdims)


@adjoint(np.average)
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    y = np.average(a, axis, weights, returned, keepdims=keepdims)

    def back(dy):
        g = numpy_reductions.average_grads(dy, a, axis, weights, returned, keepdims, y)
        return (g[0], None, g[1], None, None)
    return y, back


@pushforward(np.average)
def average_push(y, a, axis=None, weights=None, returned=False, keepdims=False, *, da, dweights):
    return numpy_reductions.average_tangent(da, dweights, a, axis, weights, returned, keepdims, y)


# The order statistics: the rules never pass overwrite_input=True on, since
# the pullback reads a (the result is the same).


@adjoint(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    y = np.median(a, axis, keepdims=keepdims)

    def back(dy):
        g = numpy_reductions.quantile_grads(dy, a, 0.5, axis, "linear", keepdims, y, False)
        return (g[0], None, None, None, None)
    return y, back


@pushforward(np.median)
def median_push(y, a, axis=None, out=None, overwrite_input=False, keepdims=False, *, da):
    return numpy_reductions.quantile_tangent(da, 0.0, a, 0.5, axis, "linear", keepdims, y, False)


@adjoint(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    y = np.nanmedian(a, axis, keepdims=keepdims)

    def back(dy):
        g = numpy_reductions.quantile_grads(dy, a, 0.5, axis, "linear", keepdims, y, True)
        return (g[0], None, None, None, None)
    return y, back


@pushforward(np.nanmedian)
def nanmedian_push(y, a, axis=None, out=None, overwrite_input=False, keepdims=False, *, da):
    return numpy_reductions.quantile_tangent(da, 0.0, a, 0.5, axis, "linear", keepdims, y, True)


@adjoint(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, weights=None):
    """``weights`` is keyword-only in NumPy: the rule takes it by position
    too, so that it can be inlined (``percentile`` alike)."""
    y = np.quantile(a, q, axis, method=method, keepdims=keepdims, weights=weights)

    def back(dy):
        g = numpy_reductions.quantile_grads(dy, a, q, axis, method, keepdims, y, False, weights)
        return (g[0], runtime.unbroadcast(g[1], q), None, None, None, None, None, None)
    return y, back


@pushforward(np.quantile)
def quantile_push(y, a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, weights=None,
                  *, da, dq):
    return numpy_reductions.quantile_tangent(da, dq, a, q, axis, method, keepdims, y, False, weights)


@adjoint(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    y = np.nanquantile(a, q, axis, method=method, keepdims=keepdims)

    def back(dy):
        g = numpy_reductions.quantile_grads(dy, a, q, axis, method, keepdims, y, True)
        return (g[0], runtime.unbroadcast(g[1], q), None, None, None, None, None)
    return y, back


@pushforward(np.nanquantile)
def nanquantile_push(y, a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, da,
                     dq):
    return numpy_reductions.quantile_tangent(da, dq, a, q, axis, method, keepdims, y, True)


@adjoint(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, weights=None):
    y = np.percentile(a, q, axis, method=method, keepdims=keepdims, weights=weights)

    def back(dy):
        g = numpy_reductions.quantile_grads(dy, a, np.true_divide(q, 100), axis, method, keepdims, y, False, weights)
        return (g[0], runtime.unbroadcast(g[1] / 100, q), None, None, None, None, None, None)
    return y, back


@pushforward(np.percentile)
def percentile_push(y, a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
                    weights=None, *, da, dq):
    return numpy_reductions.quantile_tangent(da, dq / 100, a, np.true_divide(q, 100), axis, method, keepdims, y,
                                             False, weights)


@adjoint(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    y = np.nanpercentile(a, q, axis, method=method, keepdims=keepdims)

    def back(dy):
        g = numpy_reductions.quantile_grads(dy, a, np.true_divide(q, 100), axis, method, keepdims, y, True)
        return (g[0], runtime.unbroadcast(g[1] / 100, q), None, None, None, None, None)
    return y, back


@pushforward(np.nanpercentile)
def nanpercentile_push(y, a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, da,
                       dq):
    return numpy_reductions.quantile_tangent(da, dq / 100, a, np.true_divide(q, 100), axis, method, keepdims, y, True)


@adjoint(np.nancumsum)
def nancumsum(a, axis=None, dtype=None, out=None):
    def back(dy):
        g = np.flip(np.cumsum(np.flip(dy, axis), axis), axis).reshape(np.shape(a))
        return (np.where(np.isnan(a), 0, g).astype(numpy_reductions.dtype_of(a), copy=False), None, None, None)
    return np.nancumsum(a, axis, dtype, out), back


@pushforward(np.nancumsum)
def nancumsum_push(y, a, axis=None, dtype=None, out=None, *, da):
    return np.cumsum(np.where(np.isnan(a), 0, da), axis, dtype)


@adjoint(np.nancumprod)
def nancumprod(a, axis=None, dtype=None, out=None):
    y = np.nancumprod(a, axis, dtype, out)

    def back(dy):
        missing = np.isnan(a)
        g = numpy_reductions.cumprod_grad(dy, np.where(missing, 1, a), axis, y)  # a NaN counts as 1
        return (np.where(missing, 0, g).astype(numpy_reductions.dtype_of(a), copy=False), None, None, None)
    return y, back


@pushforward(np.nancumprod)
def nancumprod_push(y, a, axis=None, dtype=None, out=None, *, da):
    """A NaN counts as the factor 1, constant."""
    missing = np.isnan(a)
    return numpy_reductions.cumprod_tangent(np.where(missing, 0, da), np.where(missing, 1, a), axis, y)


def cumulative_sum(x, axis=None, dtype=None, out=None, include_initial=False):
    """``np.cumulative_sum`` (NumPy 2.1), whose parameters after ``x`` are
    keyword-only: the rule takes them by position too, so that it can be
    inlined."""
    def back(dy):
        g = np.flip(np.cumsum(np.flip(dy, axis), axis), axis)
        if include_initial:  # the leading 0 of the output depends on nothing
            g = np.delete(g, 0, axis)
        if dtype is None:
            return (g.reshape(np.shape(x)), None, None, None, None)
        return (g.reshape(np.shape(x)).astype(numpy_reductions.dtype_of(x)), None, None, None, None)
    return np.cumulative_sum(x, axis=axis, dtype=dtype, out=out, include_initial=include_initial), back


def cumulative_sum_push(y, x, axis=None, dtype=None, out=None, include_initial=False, *, dx):
    return np.cumulative_sum(dx, axis=axis, dtype=dtype, include_initial=include_initial)


if hasattr(np, "cumulative_sum"):
    adjoint(np.cumulative_sum)(cumulative_sum)
    pushforward(np.cumulative_sum)(cumulative_sum_push)


adjoint(np.ndarray.sum)(sum_)
adjoint(np.ndarray.mean)(mean)
adjoint(np.ndarray.prod)(prod)
adjoint(np.ndarray.max)(max_)
adjoint(np.ndarray.min)(min_)
adjoint(np.ndarray.var)(var)
adjoint(np.ndarray.std)(std)
adjoint(np.ndarray.cumsum)(cumsum)
adjoint(np.ndarray.cumprod)(cumprod)
if hasattr(np.ndarray, "ptp"):  # NumPy 1 only
    adjoint(np.ndarray.ptp)(ptp)

pushforward(np.ndarray.sum)(sum_push)
pushforward(np.ndarray.mean)(mean_push)
pushforward(np.ndarray.prod)(prod_push)
pushforward(np.ndarray.max)(max_push)
pushforward(np.ndarray.min)(min_push)
pushforward(np.ndarray.var)(var_push)
pushforward(np.ndarray.std)(std_push)
pushforward(np.ndarray.cumsum)(cumsum_push)
pushforward(np.ndarray.cumprod)(cumprod_push)
if hasattr(np.ndarray, "ptp"):
    pushforward(np.ndarray.ptp)(ptp_push)


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
    return np.expand_dims(g, axes) if axes else runtime.arrays.asarray(g)


def _others_product(v):
    """For each element along the last axis of ``v``, the product of all
    the other elements of its row, without dividing (zeros allowed)."""
    ones = np.ones_like(v[..., :1])
    before = np.cumprod(np.concatenate([ones, v[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, v[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def prod_grad(dy, a, axis, keepdims):
    """The gradient of ``np.prod(a, axis, keepdims=keepdims)`` for the
    cotangent ``dy``: ``dy`` times the product of the other elements of
    each element's slice, computed from products before and after it, so
    that zero factors are exact. Complex factors are conjugated."""
    x = runtime.arrays.asarray(a)
    axes = _axes(axis, x.ndim)
    dy_kept = runtime.arrays.asarray(dy) if keepdims or axis is None else _kept(dy, axes)
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    order = rest + axes
    moved = np.transpose(x, order)
    rows = np.reshape(moved, moved.shape[:len(rest)] + (-1,))  # (not the method: Dask's takes no order=)
    if rows.shape[-1] == 0:
        return np.zeros_like(x)
    others = np.conjugate(np.reshape(_others_product(rows), moved.shape))
    g = np.transpose(others, tuple(np.argsort(order))) * dy_kept  # (Dask's transpose takes no array of axes)
    return g.astype(x.dtype, copy=False) if x.dtype.kind in "fc" else g


def cumprod_grad(dy, a, axis, y):
    """The gradient of ``np.cumprod(a, axis)`` for the cotangent ``dy``,
    exact when ``a`` has zeros, and written so that its own derivatives
    are too (a second derivative differentiates it).

    Element ``i`` gets ``sum_{j >= i} dy_j prod_{k <= j, k != i} a_k``:
    the product ``e_i`` of the elements before it times ``s_i = sum_{j >=
    i} dy_j prod_{i < k <= j} a_k``, which runs backwards as ``s_i = dy_i
    + a_{i+1} s_{i+1}`` (:func:`linear_scan`). No division and no count
    of the zeros: polynomial in ``a`` and ``dy``, so exact with zeros at
    every order, and lazy on another library's array. (Complex: conjugated
    factors.)
    """
    x = runtime.arrays.asarray(a)
    flat = np.reshape(x, -1) if axis is None else x
    ax = 0 if axis is None else axis % max(x.ndim, 1)
    v = np.moveaxis(np.conjugate(flat), ax, -1)
    d = np.moveaxis(np.broadcast_to(dy, np.shape(flat)), ax, -1)
    after = np.flip(numpy_reductions.linear_scan(np.flip(d, -1), numpy_reductions.shifted(np.flip(v, -1), 1)), -1)
    g = np.reshape(np.moveaxis(numpy_reductions.exclusive_cumprod(v) * after, -1, ax), x.shape)
    return g.astype(x.dtype, copy=False) if x.dtype.kind in "fc" else g


def cumprod_tangent(da, a, axis, y):
    """The tangent of ``y = np.cumprod(a, axis)`` for the tangent ``da``,
    exact when ``a`` has zeros (the transpose of :func:`cumprod_grad`,
    differentiable again and lazy alike): ``t_j = sum_{i <= j} da_i e_i
    prod_{i < k <= j} a_k``, ``e_i`` the product of the elements before
    ``i``, which runs forwards as ``t_j = da_j e_j + a_j t_{j-1}``.
    """
    x = np.moveaxis(np.reshape(a, np.shape(y)), 0 if axis is None else axis, -1)  # flattened for axis=None
    dx = np.moveaxis(np.reshape(np.broadcast_to(da, np.shape(a)), np.shape(y)), 0 if axis is None else axis, -1)
    t = numpy_reductions.linear_scan(dx * numpy_reductions.exclusive_cumprod(x), x)
    return np.moveaxis(t, -1, 0 if axis is None else axis).astype(np.result_type(y), copy=False)


def exclusive_cumprod(v):
    """The product of the elements before each one along the last axis of
    ``v`` (1 for the first), without dividing."""
    return np.cumprod(numpy_reductions.shifted(v, 1, 1), axis=-1)


def shifted(v, d, fill=0):
    """``v`` moved ``d`` places along its last axis, ``fill`` in the first
    ``d`` (``v``'s library and chunks kept: slices and a concatenation)."""
    return np.concatenate([np.full_like(v[..., :d], fill), v[..., :-d]], axis=-1)


def linear_scan(u, c):
    """``s_j = u_j + c_j s_{j-1}`` along the last axis (``s_{-1} = 0``),
    that is ``s_j = sum_{i <= j} u_i prod_{i < k <= j} c_k``, by recursive
    doubling (Hillis and Steele 1986, on the associative pairs ``(c,
    u)``): after the step of distance ``d`` each ``s_j`` sums the ``2d``
    terms ending at ``j`` and ``p_j`` is the product of the ``2d`` factors
    ending there. ``ceil(log2 n)`` steps of shifted products and sums:
    no division (exact with zeros), no loop over values (lazy on Dask)."""
    s, p = u, c
    for k in range(max(np.shape(u)[-1] - 1, 0).bit_length()):
        d = 2 ** k
        s = s + p * numpy_reductions.shifted(s, d)
        p = p * numpy_reductions.shifted(p, d)
    return s


def _share(hit, g, axes):
    """``g`` split evenly among the ``hit`` elements of each slice over
    ``axes`` (a slice without any gets nothing)."""
    count = np.maximum(np.sum(hit, axis=axes, keepdims=True), 1)
    return hit * (g / count)


def _vector_norm_grad(x, ord, ax, y, dy):
    """The gradient of a vector norm along axis ``ax``; ``y`` and ``dy``
    have that axis kept (length 1)."""
    absx = np.abs(x)
    sign = numpy_elementwise.unit(x, absx)
    if ord is None or ord == 2:
        return x * (dy / np.where(y == 0, 1, y))
    if ord == 1:
        return sign * dy
    if ord == 0:
        return np.zeros_like(x)
    if ord == np.inf or ord == -np.inf:
        return sign * _share(absx == y, dy, (ax,))
    # |x|_p = (sum |x|^p)^(1/p): d/dx = sign(x) (|x| / y)^(p - 1); at a
    # kink (an element at 0, or y == 0, which for p < 0 is any element at 0) 0
    ratio = absx / np.where(y == 0, 1, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where((absx == 0) | (y == 0), 0, ratio ** (ord - 1))
    return sign * scaled * dy


def _matrix_norm_grad(x, ord, axes, y, dy):
    """The gradient of a matrix norm over ``axes`` (rows, columns); ``y``
    and ``dy`` have those axes kept (length 1)."""
    row, col = axes
    if ord is None or ord in ("fro", "f"):
        return x * (dy / np.where(y == 0, 1, y))
    if ord in (1, -1):  # the extreme column of absolute sums
        sums = np.sum(np.abs(x), axis=row, keepdims=True)
        return numpy_elementwise.unit(x, np.abs(x)) * _share(sums == y, dy, (col,))
    if ord in (np.inf, -np.inf):  # the extreme row of absolute sums
        sums = np.sum(np.abs(x), axis=col, keepdims=True)
        return numpy_elementwise.unit(x, np.abs(x)) * _share(sums == y, dy, (row,))
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
    xa = runtime.arrays.asarray(x)
    if not np.issubdtype(xa.dtype, np.inexact):
        xa = xa.astype(float)
    nd = xa.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1)):
        # the 2-norm of all the elements
        return xa * (runtime.arrays.asarray(dy) / np.where(y == 0, 1, y))
    axes = _axes(axis, nd)
    kept_y = runtime.arrays.asarray(y) if keepdims else _kept(y, axes)
    kept_dy = runtime.arrays.asarray(dy) if keepdims else _kept(dy, axes)
    if len(axes) == 1:
        g = _vector_norm_grad(xa, ord, axes[0], kept_y, kept_dy)
    else:
        g = _matrix_norm_grad(xa, ord, axes, kept_y, kept_dy)
    return g.astype(xa.dtype, copy=False)


def vector_norm_grad(dy, x, ord, axis, y):
    """The gradient of ``np.linalg.vector_norm(x, axis=axis, ord=ord)``
    (which is ``y``, with or without ``keepdims``): the axes of ``axis``
    (all of them for ``None``) flattened into one, last, and
    :func:`norm_grad`'s vector norm along it."""
    xa = runtime.arrays.asarray(x)
    nd = xa.ndim
    axes = _axes(axis, nd)
    last = tuple(range(nd - len(axes), nd))
    moved = np.moveaxis(xa, axes, last)
    flat = np.reshape(moved, moved.shape[:nd - len(axes)] + (-1,))
    rest = flat.shape[:-1]
    g = norm_grad(np.reshape(dy, rest), flat, ord, -1, False, np.reshape(y, rest))
    return np.moveaxis(np.reshape(g, moved.shape), last, axes)


def nanvar_grad(dy, a, axis, ddof, keepdims, std):
    """The gradient of ``np.nanvar(a, axis, ddof=ddof, keepdims=keepdims)``
    for the cotangent ``dy``, or of ``np.nanstd`` when its result ``std``
    is given: ``2 (a - mean) / (count - ddof)`` over the elements that are
    not NaN (divided by ``2 std`` for ``nanstd``, 0 where ``std`` is 0),
    0 at NaN elements, ``nan`` in a slice with ``count <= ddof``."""
    x = runtime.arrays.asarray(a)
    axes = _axes(axis, x.ndim)
    valid = ~np.isnan(x)
    count = np.sum(valid, axis=axes, keepdims=True)
    centred = x - np.nansum(x, axis=axes, keepdims=True) / np.maximum(count, 1)
    enough = count > ddof
    scale = np.where(enough, 2.0 / np.where(enough, count - ddof, 1), np.nan)
    d = runtime.arrays.asarray(dy) if keepdims else _kept(dy, axes)
    if std is not None:
        s = runtime.arrays.asarray(std) if keepdims else _kept(std, axes)
        d = d / (2 * np.where(s == 0, 1, s))  # a constant slice: centred is 0 there
    g = np.where(valid, centred * (scale * d), 0)
    return g.astype(x.dtype if x.dtype.kind in "fc" else np.dtype(float), copy=False)


def average_grads(dy, a, axis, weights, returned, keepdims, y):
    """The gradients of ``a`` and ``weights`` for ``y = np.average(a, axis,
    weights, returned, keepdims=keepdims)``: with ``W`` the sum of the
    weights of a slice and ``avg`` its average, ``d avg / d a = w / W``,
    ``d avg / d w = (a - avg) / W``, and the returned sum of weights has
    slope 1 in each weight (without weights it is a constant count)."""
    davg, dsw = dy if returned else (dy, None)
    avg = y[0] if returned else y
    x = runtime.arrays.asarray(a)
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(float)
    axes = _axes(axis, x.ndim)

    def kept(v):
        return runtime.arrays.asarray(v) if keepdims else _kept(v, axes)

    if weights is None:
        if davg is None:
            return None, None
        share = kept(davg) / (x.size / max(np.size(avg), 1))
        return np.broadcast_to(share, x.shape).astype(dtype), None
    w = runtime.arrays.asarray(weights)
    if w.shape == x.shape:
        wb = w
    else:  # weights along the axes: NumPy lines them up with them
        order = np.argsort(axes)
        wb = np.transpose(w, order).reshape(tuple(n if i in axes else 1 for i, n in enumerate(x.shape)))
    total = np.sum(wb, axis=axes, keepdims=True)
    da = None
    dw = np.zeros_like(x, np.result_type(x, wb, 1.0))  # (of x's library)
    if davg is not None:
        share = kept(davg) / total
        da = np.broadcast_to(share * wb, x.shape).astype(dtype)
        dw = dw + share * (x - kept(avg))
    if dsw is not None:
        dw = dw + kept(dsw)
    dw = runtime.unbroadcast(dw, wb)
    if wb is not w:
        dw = np.transpose(dw.reshape(np.transpose(w, order).shape), tuple(np.argsort(order)))  # (Dask: no array)
    return da, dw


def average_tangent(da, dw, a, axis, weights, returned, keepdims, y):
    """The tangent of ``y = np.average(a, axis, weights, returned,
    keepdims=keepdims)`` for the tangents ``da`` and ``dw`` of ``a`` and
    ``weights`` (the transpose of :func:`average_grads`): ``sum(w da + (a
    - avg) dw) / W`` over a slice, and for the returned sum of weights
    ``W``, ``sum(dw)`` (``None`` without weights: a constant count)."""
    avg = y[0] if returned else y
    x = runtime.arrays.asarray(a)
    axes = _axes(axis, x.ndim)
    dx = np.broadcast_to(da, x.shape)
    if weights is None:
        davg = runtime.shaped(np.mean(dx, axis=axes, keepdims=keepdims)[()], avg)
        return (davg, None) if returned else davg
    w = runtime.arrays.asarray(weights)
    dwb = np.broadcast_to(dw, w.shape)
    if w.shape == x.shape:
        wb = w
    else:  # weights along the axes, lined up with them as NumPy does
        order = np.argsort(axes)
        kept = tuple(n if i in axes else 1 for i, n in enumerate(x.shape))
        wb, dwb = np.transpose(w, order).reshape(kept), np.transpose(dwb, order).reshape(kept)
    total = np.sum(wb, axis=axes, keepdims=True)
    kept_avg = runtime.arrays.asarray(avg) if keepdims else _kept(avg, axes)
    davg = np.sum(wb * dx + (x - kept_avg) * dwb, axis=axes, keepdims=True) / total
    davg = runtime.shaped(np.reshape(davg, np.shape(avg))[()], avg)  # [()]: a scalar for a scalar avg
    if not returned:
        return davg
    return davg, runtime.shaped(np.sum(np.broadcast_to(dwb, x.shape), axis=axes, keepdims=keepdims), y[1])


_SLOPES_IN_Q = {
    "linear": 2, "weibull": 0, "hazen": 1, "median_unbiased": 2 / 3, "normal_unbiased": 3 / 4,
    "interpolated_inverted_cdf": 1,
}
"""For NumPy's continuous quantile methods, ``alpha + beta``: the index
into the ``n`` sorted values is ``n q + alpha + q (1 - alpha - beta) - 1``,
of slope ``n + 1 - alpha - beta`` in ``q``. The other methods are
piecewise constant in ``q``."""


def quantile_slopes(a, q, axis, method, skip_nan):
    """The slopes of ``np.quantile(a, q, axis, method=method)``
    (``np.nanquantile`` when ``skip_nan``) in ``a`` and in ``q``; see the
    module's conventions.

    Every method takes ``(1 - g) s[j] + g s[j + 1]`` of the sorted values
    ``s`` of a slice, with ``j`` and ``g`` that depend on ``q`` and the
    number of values only, so the quantile of the ranks ``0, 1, ..., n -
    1`` is ``j + g``: that gives them for any method (for ``'linear'``
    they are ``q (n - 1)`` directly).

    Returns ``(in_a, in_q, order)``. The slices are the rows of ``a``
    transposed by ``order`` (the other axes first) and flattened over the
    reduced ones; ``in_a`` has ``q``'s shape, then those rows': each
    quantile's slope in each element of its slice. ``in_q`` has ``q``'s
    shape, then the slices': each quantile's slope in its ``q``, or it is
    None for a method piecewise constant in ``q``.
    """
    x = runtime.arrays.asarray(a)
    axes = _axes(axis, x.ndim)
    if skip_nan and np.ndim(q) > 1 and isinstance(axis, tuple) and len(axis) > 1:
        raise errors.NoDerivativeRule(
            "no gradient for nanquantile or nanpercentile of a q with two or more dimensions over several "
            "axes: NumPy lays out that result in an order its gradient cannot follow",
            hint="reduce over one axis, or take the quantiles one q row at a time",
        )
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    order = rest + axes
    moved = np.transpose(x, order)
    rows = np.reshape(moved, moved.shape[:len(rest)] + (-1,))  # (not the method: Dask's takes no order=)
    n = rows.shape[-1]
    qs = runtime.arrays.asarray(q).astype(float)  # (another library's q: this rule's own order statistics')
    per_q = qs.reshape(qs.shape + (1,) * len(rest))
    # (another library's array without NaN skipped: no sort, which Dask lacks; each order statistic is found
    # as a quantile of its own below)
    unsorted = runtime.arrays.is_foreign(x) and not skip_nan
    ordered = None if unsorted else np.sort(rows, axis=-1)  # NaN last
    count = np.sum(~np.isnan(rows), axis=-1) if skip_nan else n
    if method == "linear":
        index = per_q * (runtime.arrays.asarray(count) - 1)
    elif skip_nan:
        # a slice of only NaN (whose result is NaN, and has no gradient) gets ranks too
        ranks = np.where(np.isnan(ordered) & (runtime.arrays.asarray(count) > 0)[..., None], np.nan,
                         np.arange(n, dtype=float))
        index = np.nanquantile(ranks, qs, axis=-1, method=method)
    else:
        index = np.quantile(runtime.arrays.as_library(np.arange(n, dtype=float), qs), qs, method=method)
        index = index.reshape(per_q.shape)
    index = runtime.arrays.as_library(index, x)  # (made from q in NumPy: CuPy mixes in no NumPy array)
    j = np.floor(index)
    frac = (index - j)[..., None]
    lo_at = np.clip(j, 0, max(n - 1, 0)).astype(np.intp)[..., None]
    hi_at = np.minimum(lo_at + 1, max(n - 1, 0))
    lead = (1,) * qs.ndim
    if unsorted:  # (the k-th smallest value is the quantile k / (n - 1) 'nearest' to it: no rounding moves it)
        lo = np.quantile(rows, np.reshape(lo_at, qs.shape) / max(n - 1, 1), axis=-1, method="nearest")[..., None]
        hi = np.quantile(rows, np.reshape(hi_at, qs.shape) / max(n - 1, 1), axis=-1, method="nearest")[..., None]
    else:
        lo = np.take_along_axis(ordered.reshape(lead + ordered.shape), lo_at, axis=-1)
        hi = np.take_along_axis(ordered.reshape(lead + ordered.shape), hi_at, axis=-1)
    values = rows.reshape(lead + rows.shape)
    on_lo, on_hi = values == lo, values == hi
    # each order statistic's weight shared evenly among the elements equal to it
    in_a = (
        (1 - frac) * on_lo / np.maximum(np.sum(on_lo, axis=-1, keepdims=True), 1)
        + frac * on_hi / np.maximum(np.sum(on_hi, axis=-1, keepdims=True), 1)
    )
    if method not in _SLOPES_IN_Q:
        return in_a, None, order
    gap = (hi - lo)[..., 0]
    slope = runtime.arrays.asarray(count) + 1 - _SLOPES_IN_Q[method]
    if method != "linear":  # flat where the index is clipped to the first or last value
        slope = np.where((index > 0) & (index < runtime.arrays.asarray(count) - 1), slope, 0)
    return in_a, np.where(np.isnan(gap), 0, gap) * slope, order


def weighted_shares(a, q, axis, y, weights):
    """For ``y = np.quantile(a, q, axis, method='inverted_cdf',
    weights=weights)``, an element of each slice: the share of each
    result's cotangent that each element of its slice gets (the elements
    equal to it with a positive weight, evenly), laid out as ``q``'s shape,
    then the slices', then the slice's elements; and the axes moved last."""
    x = runtime.arrays.asarray(a)
    axes = _axes(axis, x.ndim)
    order = tuple(i for i in range(x.ndim) if i not in axes) + axes
    w = runtime.arrays.asarray(weights)
    if w.shape != x.shape:  # (1-d weights along the one axis)
        w = np.reshape(w, (-1,) + (1,) * (x.ndim - axes[0] - 1))
    rows = np.transpose(x, order).reshape(np.transpose(x, order).shape[:x.ndim - len(axes)] + (-1,))
    wrows = np.transpose(np.broadcast_to(w, x.shape), order).reshape(rows.shape)
    hit = (rows == np.reshape(y, np.shape(q) + rows.shape[:-1] + (1,))) & (wrows > 0)
    return hit / np.maximum(np.sum(hit, axis=-1, keepdims=True), 1), order


def quantile_grads(dy, a, q, axis, method, keepdims, y, skip_nan, weights=None):
    """The gradients of ``a`` and ``q`` for ``y = np.quantile(a, q, axis,
    method=method, keepdims=keepdims)`` (``np.nanquantile`` when
    ``skip_nan``), from :func:`quantile_slopes`; a NaN result has none.
    With ``weights`` (``'inverted_cdf'``: ``y`` is an element of each
    slice, piecewise constant in ``q`` and the weights), from
    :func:`weighted_shares`."""
    x = runtime.arrays.asarray(a)
    if weights is not None:
        shares, order = numpy_reductions.weighted_shares(a, q, axis, y, weights)
        g = np.sum(np.reshape(dy, shares.shape[:-1] + (1,)) * shares, axis=tuple(range(np.ndim(q))))
        da = np.transpose(g.reshape(np.transpose(x, order).shape), tuple(np.argsort(order)))  # (Dask: no array)
        return da.astype(x.dtype if x.dtype.kind in "fc" else np.dtype(float), copy=False), np.zeros(np.shape(q))
    in_a, in_q, order = quantile_slopes(a, q, axis, method, skip_nan)
    q_axes = tuple(range(np.ndim(q)))
    out_shape = in_a.shape[:-1]  # q's shape, then the slices'
    dys = np.where(np.isnan(np.reshape(y, out_shape)), 0, np.reshape(dy, out_shape))
    g = np.sum(dys[..., None] * in_a, axis=q_axes)
    da = np.transpose(g.reshape(np.transpose(x, order).shape), tuple(np.argsort(order)))  # (Dask: no array)
    da = da.astype(x.dtype if x.dtype.kind in "fc" else np.dtype(float), copy=False)
    if in_q is None:
        return da, np.zeros(np.shape(q))
    return da, np.sum(dys * in_q, axis=tuple(range(len(q_axes), len(out_shape))))


def quantile_tangent(da, dq, a, q, axis, method, keepdims, y, skip_nan, weights=None):
    """The tangent of ``y = np.quantile(a, q, axis, method=method,
    keepdims=keepdims)`` (``np.nanquantile`` when ``skip_nan``) for the
    tangents ``da`` and ``dq``: the transpose of :func:`quantile_grads`."""
    x = runtime.arrays.asarray(a)
    if weights is not None:
        shares, order = numpy_reductions.weighted_shares(a, q, axis, y, weights)
        rows = np.transpose(np.broadcast_to(da, x.shape), order).reshape(shares.shape[np.ndim(q):])
        return runtime.shaped(np.reshape(np.sum(shares * rows, axis=-1), np.shape(y))[()], y)
    in_a, in_q, order = quantile_slopes(a, q, axis, method, skip_nan)
    rows = np.transpose(np.broadcast_to(da, x.shape), order).reshape(in_a.shape[np.ndim(q):])
    t = np.sum(in_a * rows, axis=-1)  # q's shape, then the slices'
    if in_q is not None:
        per_q = np.reshape(np.broadcast_to(dq, np.shape(q)), np.shape(q) + (1,) * (t.ndim - np.ndim(q)))
        t = t + in_q * runtime.arrays.as_library(per_q, x)  # (q's tangent, NumPy for a NumPy q)
    t = np.where(np.isnan(np.reshape(y, t.shape)), 0, t)
    return runtime.shaped(np.reshape(t, np.shape(y))[()], y)  # [()]: a scalar for a scalar y
