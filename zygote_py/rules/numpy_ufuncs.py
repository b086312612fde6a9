"""Rules for the methods of NumPy's ufuncs ``add``, ``multiply``,
``maximum`` and ``minimum``: ``reduce``, ``accumulate``, ``at`` (through
:func:`ufunc_at`), ``add.reduceat``, and for ``cumulative_prod``.

A ufunc's method is a new bound object each time it is read
(``np.add.reduce``); it is keyed by its ufunc and name, so the rule
registered for one is found for the next.

- ``reduce(array, axis, dtype, out, keepdims)``: ``add`` as ``sum``,
  ``multiply`` as ``prod`` (exact with zeros), ``maximum`` and ``minimum``
  as ``max`` and ``min`` (ties split evenly), over ``axis`` (0 by default,
  ``None`` for every axis). ``initial=`` and ``where=`` are not
  parameters: a call passing them has no rule.
- ``accumulate(array, axis, dtype, out)``: ``add`` as ``cumsum``,
  ``multiply`` as ``cumprod``; ``maximum`` and ``minimum`` send each
  output's ``dy`` to the element that set the running extremum (the first
  of equal ones: increasing a later equal element would not change it; a
  NaN, once reached, is that element).
- ``add.reduceat(array, indices, axis, dtype, out)``: each output's ``dy``
  goes to every element of its run (one element where the next index is
  not larger).
- :func:`ufunc_at` ``(ufunc, a, indices, b)``: what ``ufunc.at(a, indices,
  b)`` leaves in ``a``, as a new array; the mutation pass
  (:func:`zygote_py.ad.mutation.versions.in_place_as_stores`) writes
  ``np.multiply.at(a, i, b)`` as ``a[...] = ufunc_at(np.multiply, a, i,
  b)`` (``np.add.at`` has its own change, ``mutation.add_at``). For
  ``multiply``: ``a`` gets ``dy`` times the product of the factors at its
  position, each factor ``dy`` times ``a`` and the other factors there
  (exact with zeros); for ``maximum`` and ``minimum`` the candidates equal
  to the result (``a``'s element and the values at its position; NaN
  equal to NaN) share ``dy`` evenly.
- ``cumulative_prod(x, axis, dtype, out, include_initial)``: ``cumprod``'s
  gradient; the leading 1 of ``include_initial=True`` depends on nothing.
"""
import numpy as np

from zygote_py import errors, runtime
from zygote_py.rules import numpy_reductions, numpy_shapes, numpy_ufuncs

from ..registry import adjoint, pushforward

# -- helpers ------------------------------------------------------------------


def kept(dy, axis, keepdims):
    """A reduction's cotangent with the reduced axes back as length 1."""
    if axis is None or keepdims:
        return dy
    return np.expand_dims(dy, axis)


def tail_sums(v, axis):
    """For each element along ``axis``: the sum of ``v`` from it to the
    end (the transpose of a cumulative sum)."""
    return np.flip(np.cumsum(np.flip(v, axis), axis), axis)


def running_source(a, y, axis, greater):
    """For each position along ``axis``, the index of the element whose
    value the running maximum (``greater``) or minimum ``y`` holds there:
    the last element that was strictly past the extremum before it, or the
    first NaN."""
    a = np.asarray(a)
    n = a.shape[axis]
    before = np.concatenate([np.take(y, [0], axis), np.take(y, np.arange(n - 1), axis)], axis)
    better = np.greater(a, before) if greater else np.less(a, before)
    new = better | (np.isnan(a) & ~np.isnan(before))
    first = np.arange(n).reshape((n,) + (1,) * (a.ndim - axis - 1)) == 0
    index = np.where(new | first, np.arange(n).reshape((n,) + (1,) * (a.ndim - axis - 1)), 0)
    return np.maximum.accumulate(index, axis)


def reduceat_grad(dy, array, indices, axis):
    """The gradient of ``np.add.reduceat(array, indices, axis)``: each
    output's cotangent added to every element of its run."""
    a = np.asarray(array)
    axis = axis % a.ndim
    n = a.shape[axis]
    starts = np.asarray(indices)
    stops = np.append(starts[1:], n)
    stops = np.where(stops > starts, stops, starts + 1)
    moved = np.moveaxis(np.asarray(dy), axis, 0)
    marks = np.zeros((n + 1,) + moved.shape[1:], np.result_type(moved, float))
    np.add.at(marks, starts, moved)
    np.add.at(marks, stops, -moved)
    g = np.moveaxis(np.cumsum(marks, axis=0)[:n], 0, axis)
    return numpy_shapes.like(g, array)


def positions(a, indices, b):
    """The flat positions in ``a`` that ``ufunc.at(a, indices, b)`` updates,
    one per value, and ``b`` broadcast to them."""
    pos = np.reshape(np.arange(np.size(a)), np.shape(a))[indices]
    return np.ravel(pos), np.ravel(np.broadcast_to(b, np.shape(pos)))


def ufunc_at(ufunc, a, indices, b):
    """What ``ufunc.at(a, indices, b)`` leaves in ``a``, as a new array."""
    if ufunc not in (np.multiply, np.maximum, np.minimum):
        raise errors.NoDerivativeRule(
            f"np.{ufunc.__name__}.at has no derivative rule",
            hint="np.add.at, np.multiply.at, np.maximum.at and np.minimum.at have one; or build the result "
            "without changing an array in place")
    out = np.array(a, copy=True)
    ufunc.at(out, indices, b)
    return out


def others_at(pos, bb, size):
    """For each value ``bb[k]`` at flat position ``pos[k]``: the product of
    the other values at the same position (without dividing: exact with
    zeros), and the product of all the values at each position."""
    total = np.ones(size, np.result_type(bb, float))
    np.multiply.at(total, pos, bb)
    zero = bb == 0
    others = total[pos] / np.where(zero, 1, bb)
    for k in np.flatnonzero(zero):  # (a zero factor: the others' product, read directly)
        others[k] = np.prod(bb[(pos == pos[k]) & (np.arange(np.size(bb)) != k)])
    return others, total


def extreme_at_shares(ufunc, a, pos, bb, y):
    """For ``maximum.at`` and ``minimum.at``: the share of each position's
    ``dy`` that ``a``'s element gets, and that each value gets."""
    flat_a, flat_y = np.ravel(a), np.ravel(y)
    yk = flat_y[pos]
    a_hit = (flat_a == flat_y) | (np.isnan(flat_a) & np.isnan(flat_y))
    b_hit = (bb == yk) | (np.isnan(bb) & np.isnan(yk))
    count = a_hit + np.bincount(pos, b_hit, np.size(flat_y))
    return a_hit / count, b_hit / count[pos]


def ufunc_at_grads(dy, ufunc, a, indices, b, y):
    """The gradients of :func:`ufunc_at`'s ``a`` and ``b``."""
    pos, bb = numpy_ufuncs.positions(a, indices, b)
    d = np.ravel(dy)
    if ufunc is np.multiply:
        others, total = numpy_ufuncs.others_at(pos, bb, np.size(a))
        da = np.reshape(d * np.conj(total), np.shape(a))
        db = d[pos] * np.conj(np.ravel(a)[pos] * others)
    else:
        share_a, share_b = numpy_ufuncs.extreme_at_shares(ufunc, a, pos, bb, y)
        da = np.reshape(d * share_a, np.shape(a))
        db = d[pos] * share_b
    shape = np.shape(np.reshape(np.arange(np.size(a)), np.shape(a))[indices])
    return numpy_shapes.like(da, a), runtime.unbroadcast(np.reshape(db, shape), b)


def ufunc_at_tangent(da, db, ufunc, a, indices, b, y):
    """The tangent of :func:`ufunc_at` (the transpose of
    :func:`ufunc_at_grads`)."""
    pos, bb = numpy_ufuncs.positions(a, indices, b)
    dflat = np.ravel(numpy_shapes.dense(da, a))
    _, dbb = numpy_ufuncs.positions(a, indices, numpy_shapes.dense(db, b))
    if ufunc is np.multiply:
        others, total = numpy_ufuncs.others_at(pos, bb, np.size(a))
        t = dflat * total
        t = t.astype(np.result_type(t, dbb, np.ravel(a)))
        np.add.at(t, pos, np.ravel(a)[pos] * others * dbb)
    else:
        share_a, share_b = numpy_ufuncs.extreme_at_shares(ufunc, a, pos, bb, y)
        t = (dflat * share_a).astype(np.result_type(dflat, dbb, float))
        np.add.at(t, pos, dbb * share_b)
    return numpy_shapes.tangent_as(np.reshape(t, np.shape(a)), y)


# -- reduce -------------------------------------------------------------------


@adjoint(np.add.reduce)
def add_reduce(array, axis=0, dtype=None, out=None, keepdims=False):
    def back(dy):
        g = np.broadcast_to(numpy_ufuncs.kept(dy, axis, keepdims), np.shape(array))
        return (numpy_shapes.like(g, array), None, None, None, None)
    return np.add.reduce(array, axis, dtype, out, keepdims), back


@pushforward(np.add.reduce)
def add_reduce_push(y, array, axis=0, dtype=None, out=None, keepdims=False, *, darray):
    return np.add.reduce(darray, axis, dtype, None, keepdims)


@adjoint(np.multiply.reduce)
def multiply_reduce(array, axis=0, dtype=None, out=None, keepdims=False):
    def back(dy):
        return (numpy_reductions.prod_grad(dy, array, axis, keepdims), None, None, None, None)
    return np.multiply.reduce(array, axis, dtype, out, keepdims), back


@pushforward(np.multiply.reduce)
def multiply_reduce_push(y, array, axis=0, dtype=None, out=None, keepdims=False, *, darray):
    slopes = numpy_reductions.prod_grad(np.ones_like(y), array, axis, keepdims)
    return np.add.reduce(np.conjugate(slopes) * darray, axis, dtype, None, keepdims)


@adjoint(np.maximum.reduce)
def maximum_reduce(array, axis=0, dtype=None, out=None, keepdims=False):
    y = np.maximum.reduce(array, axis, dtype, out, keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, array, y, axis, keepdims), None, None, None, None)
    return y, back


@pushforward(np.maximum.reduce)
def maximum_reduce_push(y, array, axis=0, dtype=None, out=None, keepdims=False, *, darray):
    slopes = numpy_reductions.extremum_grad(np.ones_like(y), array, y, axis, keepdims)
    return np.add.reduce(slopes * darray, axis, None, None, keepdims)


@adjoint(np.minimum.reduce)
def minimum_reduce(array, axis=0, dtype=None, out=None, keepdims=False):
    y = np.minimum.reduce(array, axis, dtype, out, keepdims)

    def back(dy):
        return (numpy_reductions.extremum_grad(dy, array, y, axis, keepdims), None, None, None, None)
    return y, back


@pushforward(np.minimum.reduce)
def minimum_reduce_push(y, array, axis=0, dtype=None, out=None, keepdims=False, *, darray):
    slopes = numpy_reductions.extremum_grad(np.ones_like(y), array, y, axis, keepdims)
    return np.add.reduce(slopes * darray, axis, None, None, keepdims)


# -- accumulate -----------------------------------------------------------------


@adjoint(np.add.accumulate)
def add_accumulate(array, axis=0, dtype=None, out=None):
    def back(dy):
        return (numpy_shapes.like(numpy_ufuncs.tail_sums(dy, axis), array), None, None, None)
    return np.add.accumulate(array, axis, dtype, out), back


@pushforward(np.add.accumulate)
def add_accumulate_push(y, array, axis=0, dtype=None, out=None, *, darray):
    return np.add.accumulate(darray, axis, dtype)


@adjoint(np.multiply.accumulate)
def multiply_accumulate(array, axis=0, dtype=None, out=None):
    y = np.multiply.accumulate(array, axis, dtype, out)

    def back(dy):
        return (numpy_shapes.like(numpy_reductions.cumprod_grad(dy, array, axis, y), array), None, None, None)
    return y, back


@pushforward(np.multiply.accumulate)
def multiply_accumulate_push(y, array, axis=0, dtype=None, out=None, *, darray):
    return numpy_reductions.cumprod_tangent(darray, array, axis, y)


@adjoint(np.maximum.accumulate)
def maximum_accumulate(array, axis=0, dtype=None, out=None):
    y = np.maximum.accumulate(array, axis, dtype, out)
    source = numpy_ufuncs.running_source(array, y, axis % np.ndim(array), True)

    def back(dy):
        return (numpy_shapes.untake_along_axis(dy, array, source, axis), None, None, None)
    return y, back


@pushforward(np.maximum.accumulate)
def maximum_accumulate_push(y, array, axis=0, dtype=None, out=None, *, darray):
    return np.take_along_axis(darray, numpy_ufuncs.running_source(array, y, axis % np.ndim(array), True), axis)


@adjoint(np.minimum.accumulate)
def minimum_accumulate(array, axis=0, dtype=None, out=None):
    y = np.minimum.accumulate(array, axis, dtype, out)
    source = numpy_ufuncs.running_source(array, y, axis % np.ndim(array), False)

    def back(dy):
        return (numpy_shapes.untake_along_axis(dy, array, source, axis), None, None, None)
    return y, back


@pushforward(np.minimum.accumulate)
def minimum_accumulate_push(y, array, axis=0, dtype=None, out=None, *, darray):
    return np.take_along_axis(darray, numpy_ufuncs.running_source(array, y, axis % np.ndim(array), False), axis)


@adjoint(np.add.reduceat)
def add_reduceat(array, indices, axis=0, dtype=None, out=None):
    def back(dy):
        return (numpy_ufuncs.reduceat_grad(dy, array, indices, axis), None, None, None, None)
    return np.add.reduceat(array, indices, axis, dtype, out), back


@pushforward(np.add.reduceat)
def add_reduceat_push(y, array, indices, axis=0, dtype=None, out=None, *, darray):
    return np.add.reduceat(darray, indices, axis, dtype)


# -- at ---------------------------------------------------------------------------


@adjoint(ufunc_at)
def ufunc_at_(ufunc, a, indices, b):
    y = numpy_ufuncs.ufunc_at(ufunc, a, indices, b)

    def back(dy):
        da, db = numpy_ufuncs.ufunc_at_grads(dy, ufunc, a, indices, b, y)
        return (None, da, None, db)
    return y, back


@pushforward(ufunc_at)
def ufunc_at_push(y, ufunc, a, indices, b, *, da, db):
    return numpy_ufuncs.ufunc_at_tangent(da, db, ufunc, a, indices, b, y)


# -- cumulative_prod --------------------------------------------------------------


def cumulative_prod(x, axis=None, dtype=None, out=None, include_initial=False):
    """``np.cumulative_prod`` (NumPy 2.1), whose parameters after ``x`` are
    keyword-only: the rule takes them by position too, so that it can be
    inlined."""
    y = np.cumulative_prod(x, axis=axis, dtype=dtype, out=out, include_initial=include_initial)

    def back(dy):
        return (numpy_ufuncs.cumulative_prod_grad(dy, x, axis, include_initial, y), None, None, None, None)
    return y, back


def cumulative_prod_push(y, x, axis=None, dtype=None, out=None, include_initial=False, *, dx):
    ax = 0 if axis is None else axis
    body = numpy_ufuncs.after_initial(y, ax, include_initial)
    t = numpy_reductions.cumprod_tangent(np.reshape(dx, np.shape(body)), np.reshape(x, np.shape(body)), ax, body)
    if include_initial:
        t = np.concatenate([np.zeros_like(np.take(t, [0], ax)), t], ax)
    return t


def after_initial(y, axis, include_initial):
    """``y`` without the leading 1 that ``include_initial`` put along
    ``axis``."""
    return np.take(y, np.arange(1, np.shape(y)[axis]), axis) if include_initial else y


def cumulative_prod_grad(dy, x, axis, include_initial, y):
    ax = 0 if axis is None else axis
    body = numpy_ufuncs.after_initial(y, ax, include_initial)
    d = numpy_ufuncs.after_initial(dy, ax, include_initial)
    g = numpy_reductions.cumprod_grad(d, np.reshape(x, np.shape(body)), ax, body)
    return numpy_shapes.like(np.reshape(g, np.shape(x)), x)


if hasattr(np, "cumulative_prod"):
    adjoint(np.cumulative_prod)(cumulative_prod)
    pushforward(np.cumulative_prod)(cumulative_prod_push)
