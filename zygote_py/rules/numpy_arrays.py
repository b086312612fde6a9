"""Rules for more of NumPy's array manipulation: flips and rotations,
appending and splitting, partial sorting, selection, and the values that
NumPy's in-place fillers write.

Covered: ``flipud fliplr rot90 rollaxis append delete vsplit hsplit
dsplit row_stack`` (where NumPy still has it), ``partition``, ``select``,
``real_if_close``, ``np.r_[...]`` and ``np.c_[...]`` (through their
formula: arrays, numbers and ranges made alike and concatenated), and the pure functions :func:`filled_diagonal` and
:func:`copied_into`, the values ``np.fill_diagonal`` and ``np.copyto`` write
into their array: the mutation pass
(:func:`zygote_py.ad.mutation.versions.in_place_as_stores`) turns ``np.fill_diagonal(
a, v)`` into ``a[...] = filled_diagonal(a, v)``, and ``np.copyto(a, b)``,
``a.fill(v)`` and ``a.partition(k)`` alike, so that both modes
differentiate them as item stores.

Non-differentiable (their values are indices): ``searchsorted digitize
argpartition lexsort`` and ``ndarray.searchsorted argpartition``.

Conventions:

- Every function here but ``real_if_close`` picks or copies elements, so
  its pullback puts ``dy`` back where each element came from; gradients
  have the shape and kind of their argument (:func:`numpy_shapes.like`).
- ``partition``: the gradient goes back through the permutation
  ``argpartition`` chose (the rule's value is that arrangement, which is
  NumPy's: both run the same selection); elements tied with the ``kth``
  value get the one-sided derivative for that order, as ``sort``'s do.
- ``select(condlist, choicelist, default)``: each element's ``dy`` goes to
  the first choice whose condition holds there, else to ``default``;
  choices and ``default`` that NumPy broadcast get it summed back.
- ``real_if_close(a, tol)``: where it drops a complex ``a``'s imaginary
  parts (all within ``tol``), the output is ``a``'s real part, whose
  gradient is ``dy`` as a complex number (the imaginary parts are ignored:
  a kink that holds only near the real axis); otherwise the identity.
- ``copied_into(dst, src, where)``: ``dst`` gets ``dy`` where ``where`` is
  false, ``src`` where it is true (summed where NumPy broadcast ``src``).
- ``filled_diagonal(a, val, wrap)``: ``val`` (repeated along the diagonal
  as NumPy repeats it) gets ``dy`` at the diagonal positions, ``a`` the
  rest.
"""
import numpy as np

from zygote_py import errors, runtime
from zygote_py.rules import numpy_arrays, numpy_shapes

from ..registry import adjoint, implemented_by, nondifferentiable, pushforward

nondifferentiable(
    np.searchsorted, np.digitize, np.argpartition, np.lexsort, np.ndarray.searchsorted, np.ndarray.argpartition,
)


# -- helpers ------------------------------------------------------------------


def rolled_axis(ndim, axis, start):
    """Where ``np.rollaxis(a, axis, start)`` puts ``a``'s axis ``axis``
    (``a`` of ``ndim`` dimensions): its ``np.moveaxis`` destination."""
    axis = axis % ndim
    start = start + ndim if start < 0 else start
    return start - 1 if axis < start else start


def select_grads(dy, condlist, choicelist, default):
    """The gradients of ``np.select``'s choices and default: ``dy`` where
    each is the one picked (the first choice whose condition holds)."""
    dy = np.asarray(dy)
    taken = np.zeros(np.shape(dy), bool)
    grads = []
    for cond, choice in zip(condlist, choicelist):
        here = np.logical_and(cond, np.logical_not(taken))
        grads.append(runtime.unbroadcast(np.where(here, dy, 0), choice))
        taken = np.logical_or(taken, cond)
    dchoices = tuple(grads) if isinstance(choicelist, tuple) else grads
    return dchoices, runtime.unbroadcast(np.where(taken, 0, dy), default)


def undelete(dy, arr, obj, axis):
    """The gradient of ``np.delete(arr, obj, axis)``: ``dy`` put back where
    the kept elements came from, zeros where the deleted ones were."""
    n = np.size(arr) if axis is None else np.shape(arr)[axis]
    kept = np.delete(np.arange(n), obj)
    return numpy_shapes.like(numpy_shapes.untake(dy, arr, kept, axis, "raise"), arr)


def copied_into(dst, src, where=True):
    """What ``np.copyto(dst, src, where=where)`` leaves in ``dst``, as a new
    array (``dst`` is not changed)."""
    out = np.array(dst, copy=True)
    np.copyto(out, src, where=where)
    return out


def put_into(a, ind, v, mode="raise"):
    """What ``np.put(a, ind, v, mode)`` leaves in ``a``, as a new array (``a``
    is not changed), written with functions that have rules: the flat
    positions ``ind`` get ``v``'s items, repeated as ``np.put`` repeats a
    shorter ``v``. Differentiated as user code is (it has no rule)."""
    flat = np.ravel(np.array(a, copy=True))
    where = np.ravel(np.asarray(ind))
    if mode == "wrap":
        where = where % flat.size
    elif mode == "clip":
        where = np.clip(where, 0, flat.size - 1)
    flat[where] = np.take(np.ravel(v), np.arange(where.size) % np.size(v))
    return np.reshape(flat, np.shape(a))


def concatenation_settings(concatenator, key):
    """``(axis, ndmin, trans1d, first, dtype)`` for ``concatenator[key]``
    (``np.r_``, ``np.c_``): the concatenator's settings, changed by a
    leading directive string (``"1"``, ``"0,2"``, ``"0,2,1"``), where the
    items start in ``key`` (a tuple), and their common type (numbers count
    weakly, as NumPy counts them). Refused: the matrix builders (a string
    key, the ``"r"``/``"c"`` directives), whose results are ``np.matrix``."""
    lead = key[0] if isinstance(key, tuple) and key and isinstance(key[0], str) else None
    if isinstance(key, str) or lead in ("r", "c"):
        raise errors.NoDerivativeRule("np.r_ / np.c_ building an np.matrix (a string key or the 'r', 'c' directive)",
                                      hint="build an array: np.r_[...] with arrays, or np.block")
    settings = [concatenator.axis, concatenator.ndmin, concatenator.trans1d]
    first = 0
    if lead is not None:
        numbers = [int(n) for n in lead.split(",")]  # (axis, then ndmin, then trans1d)
        settings[:len(numbers)] = numbers
        first = 1
    axis, ndmin, trans1d = settings
    items = key[first:] if isinstance(key, tuple) else (key,)
    kinds = [concatenation_range(item, ndmin, trans1d).dtype if isinstance(item, slice)
             else item if type(item) in np.ScalarType else np.asarray(item).dtype for item in items]
    return axis, ndmin, trans1d, first, np.result_type(*kinds)


def concatenation_range(item, ndmin, trans1d):
    """What ``np.r_``/``np.c_`` make of a slice item: NumPy's range (or
    ``linspace`` for a complex step), given ``ndmin`` dimensions, the range
    along the axis ``trans1d`` names."""
    return type(np.r_).__base__(0, False, ndmin, trans1d)[item]


def concatenation_shape(shape, ndmin):
    """An item's shape with ones in front up to ``ndmin`` dimensions."""
    return (1,) * (ndmin - len(shape)) + tuple(shape)


def concatenation_axes(ndim, ndmin, trans1d):
    """The transposition ``np.r_``/``np.c_`` apply to an item of ``ndim``
    dimensions after :func:`concatenation_shape`: for ``ndim < ndmin``, its
    own axes start at ``trans1d``; otherwise none (the identity). (NumPy
    leaves numbers untransposed: all their axes have length one.)"""
    axes = list(range(max(ndim, ndmin)))
    if trans1d == -1 or ndim >= ndmin:
        return axes
    k1 = trans1d + ndmin - ndim + 1 if trans1d < 0 else trans1d
    return axes[:k1] + axes[ndmin - ndim:] + axes[k1:ndmin - ndim]


nondifferentiable(concatenation_settings, concatenation_range, concatenation_shape, concatenation_axes)


def filled_diagonal(a, val, wrap=False):
    """What ``np.fill_diagonal(a, val, wrap)`` leaves in ``a``, as a new
    array (``a`` is not changed)."""
    out = np.array(a, copy=True)
    np.fill_diagonal(out, val, wrap)
    return out


def diagonal_mask(a, wrap):
    """Where ``np.fill_diagonal(a, ..., wrap)`` writes: a boolean array of
    ``a``'s shape, and the positions, in order, as flat indices."""
    mask = np.zeros(np.shape(a), bool)
    np.fill_diagonal(mask, True, wrap)
    return mask, np.flatnonzero(mask)


def diagonal_values_grad(dy, a, val, wrap):
    """The gradient of ``fill_diagonal``'s ``val``: ``dy`` at the diagonal,
    added over the positions each of ``val``'s items was repeated to."""
    if np.asarray(val).dtype.kind not in "fc":
        return None
    _, flat = diagonal_mask(a, wrap)
    taken = np.ravel(dy)[flat]
    n = np.size(val)
    if n == 1:
        return numpy_shapes.like(np.reshape(np.sum(taken), np.shape(val)), val)
    g = np.bincount(np.arange(np.size(flat)) % n, taken, n)  # val's items repeat (NumPy cycles it along .flat)
    return numpy_shapes.like(np.reshape(g, np.shape(val)), val)


# -- flips, rotations, axes -----------------------------------------------------


@adjoint(np.flipud)
def flipud(m):
    def back(dy):
        return (np.flipud(dy),)
    return np.flipud(m), back


@pushforward(np.flipud)
def flipud_push(y, m, *, dm):
    return np.flipud(dm)


@adjoint(np.fliplr)
def fliplr(m):
    def back(dy):
        return (np.fliplr(dy),)
    return np.fliplr(m), back


@pushforward(np.fliplr)
def fliplr_push(y, m, *, dm):
    return np.fliplr(dm)


@adjoint(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    def back(dy):
        return (np.rot90(dy, -k, axes), None, None)
    return np.rot90(m, k, axes), back


@pushforward(np.rot90)
def rot90_push(y, m, k=1, axes=(0, 1), *, dm):
    return np.rot90(dm, k, axes)


@adjoint(np.rollaxis)
def rollaxis(a, axis, start=0):
    def back(dy):
        return (np.moveaxis(dy, numpy_arrays.rolled_axis(np.ndim(a), axis, start), axis % np.ndim(a)), None, None)
    return np.rollaxis(a, axis, start), back


@pushforward(np.rollaxis)
def rollaxis_push(y, a, axis, start=0, *, da):
    return np.rollaxis(da, axis, start)


# -- appending and splitting ----------------------------------------------------


@adjoint(np.append)
def append(arr, values, axis=None):
    def back(dy):
        darr, dvalues = numpy_shapes.unconcatenate(dy, (arr, values), axis)
        return (darr, dvalues, None)
    return np.append(arr, values, axis), back


@pushforward(np.append)
def append_push(y, arr, values, axis=None, *, darr, dvalues):
    return numpy_shapes.tangent_as(np.append(darr, dvalues, axis), y)


@adjoint(np.vsplit)
def vsplit(ary, indices_or_sections):
    y = np.vsplit(ary, indices_or_sections)

    def back(dy):
        return (numpy_shapes.unsplit(dy, ary, y, 0), None)
    return y, back


@pushforward(np.vsplit)
def vsplit_push(y, ary, indices_or_sections, *, dary):
    return np.vsplit(dary, indices_or_sections)


@adjoint(np.hsplit)
def hsplit(ary, indices_or_sections):
    """Along axis 1, or 0 for a 1-d ``ary``."""
    y = np.hsplit(ary, indices_or_sections)

    def back(dy):
        return (numpy_shapes.unsplit(dy, ary, y, min(1, np.ndim(ary) - 1)), None)
    return y, back


@pushforward(np.hsplit)
def hsplit_push(y, ary, indices_or_sections, *, dary):
    return np.hsplit(dary, indices_or_sections)


@adjoint(np.dsplit)
def dsplit(ary, indices_or_sections):
    y = np.dsplit(ary, indices_or_sections)

    def back(dy):
        return (numpy_shapes.unsplit(dy, ary, y, 2), None)
    return y, back


@pushforward(np.dsplit)
def dsplit_push(y, ary, indices_or_sections, *, dary):
    return np.dsplit(dary, indices_or_sections)


@adjoint(np.delete)
def delete(arr, obj, axis=None):
    def back(dy):
        return (numpy_arrays.undelete(dy, arr, obj, axis), None, None)
    return np.delete(arr, obj, axis), back


@pushforward(np.delete)
def delete_push(y, arr, obj, axis=None, *, darr):
    return np.delete(darr, obj, axis)


if hasattr(np, "row_stack"):  # (deprecated in NumPy 2.0: np.vstack)
    @adjoint(np.row_stack)
    def row_stack(tup, dtype=None, casting="same_kind"):
        def back(dy):
            return (numpy_shapes.unvstack(dy, tup), None, None)
        return np.vstack(tup, dtype=dtype, casting=casting), back

    @pushforward(np.row_stack)
    def row_stack_push(y, tup, dtype=None, casting="same_kind", *, dtup):
        return numpy_shapes.tangent_as(np.vstack(numpy_shapes.dense(dtup, tup)), y)


# -- partial sorting and selection ----------------------------------------------


@adjoint(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """Arranged by ``argpartition``, whose permutation the pullback
    inverts."""
    idx = np.argpartition(a, kth, axis, kind, order)
    y = np.take_along_axis(np.asarray(a), idx, axis)

    def back(dy):
        if axis is None:
            return (numpy_shapes.like(np.reshape(numpy_shapes.unsort(dy, np.ravel(a), idx, 0), np.shape(a)), a),
                    None, None, None, None)
        return (numpy_shapes.unsort(dy, a, idx, axis), None, None, None, None)
    return y, back


@pushforward(np.partition)
def partition_push(y, a, kth, axis=-1, kind="introselect", order=None, *, da):
    return np.take_along_axis(np.asarray(da), np.argpartition(a, kth, axis, kind, order), axis)


@adjoint(np.select)
def select(condlist, choicelist, default=0):
    def back(dy):
        dchoices, ddefault = numpy_arrays.select_grads(dy, condlist, choicelist, default)
        return (None, dchoices, ddefault)
    return np.select(condlist, choicelist, default), back


@pushforward(np.select)
def select_push(y, condlist, choicelist, default=0, *, dchoicelist, ddefault):
    t = np.select(condlist, numpy_shapes.dense(dchoicelist, choicelist), numpy_shapes.dense(ddefault, default))
    return numpy_shapes.tangent_as(t, y)


@adjoint(np.real_if_close)
def real_if_close(a, tol=100):
    y = np.real_if_close(a, tol)

    def back(dy):
        return (numpy_shapes.like(dy, a), None)
    return y, back


@pushforward(np.real_if_close)
def real_if_close_push(y, a, tol=100, *, da):
    return numpy_shapes.tangent_as(da, y)


# -- the values of in-place fillers ---------------------------------------------


@adjoint(copied_into)
def copied_into_(dst, src, where=True):
    def back(dy):
        ddst = numpy_shapes.like(np.where(where, 0, dy), dst)
        return (ddst, runtime.unbroadcast(np.where(where, dy, 0), src), None)
    return numpy_arrays.copied_into(dst, src, where), back


@pushforward(copied_into)
def copied_into_push(y, dst, src, where=True, *, ddst, dsrc):
    return numpy_shapes.tangent_as(np.where(where, dsrc, ddst), y)


@adjoint(filled_diagonal)
def filled_diagonal_(a, val, wrap=False):
    def back(dy):
        mask, _ = numpy_arrays.diagonal_mask(a, wrap)
        da = numpy_shapes.like(np.where(mask, 0, dy), a)
        return (da, numpy_arrays.diagonal_values_grad(dy, a, val, wrap), None)
    return numpy_arrays.filled_diagonal(a, val, wrap), back


@pushforward(filled_diagonal)
def filled_diagonal_push(y, a, val, wrap=False, *, da, dval):
    return numpy_shapes.tangent_as(numpy_arrays.filled_diagonal(da, dval, wrap), y)


# -- through their formulas -------------------------------------------------------


@implemented_by(np.insert)
def insert(arr, obj, values, axis=None):
    """``np.insert`` of ``values`` into ``arr`` flattened (``axis=None``)
    or one-dimensional, as stores into a new array: where the old items go
    and where the new ones go are read from ``np.insert`` of their
    positions."""
    a = np.asarray(arr)
    if axis is None or a.ndim == 1 and axis in (0, -1):
        a = np.ravel(a)
        places = np.insert(np.arange(a.size), obj, -1)
        out = np.zeros(places.shape, np.result_type(a.dtype, np.asarray(values).dtype))
        out[places >= 0] = a
        out[places < 0] = values
        return out
    raise errors.NoDerivativeRule("np.insert along an axis of an array of more than one dimension",
                                  hint="insert into the flattened array, or build it with np.concatenate")


@implemented_by(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``np.apply_along_axis``: ``func1d`` called on each line of ``arr``
    along ``axis``, its values stacked where the axis was."""
    if kwargs:
        raise errors.NoDerivativeRule("np.apply_along_axis with keyword arguments for func1d",
                                      hint="bind them first: np.apply_along_axis(lambda r: f(r, k=v), axis, arr)")
    a = np.asarray(arr)
    axis = axis % a.ndim
    moved = np.moveaxis(a, axis, -1)
    lead = moved.shape[:-1]
    lines = np.reshape(moved, (-1, moved.shape[-1]))
    out = np.stack([np.asarray(func1d(line, *args)) for line in lines])
    out = np.reshape(out, lead + out.shape[1:])
    result = list(range(len(lead), out.ndim))
    return np.moveaxis(out, result, [axis + i for i in range(len(result))])


@implemented_by(type(np.r_).__base__.__getitem__)
def axis_concatenated(concatenator, key):
    """``np.r_[key]`` and ``np.c_[key]`` (``AxisConcatenator.__getitem__``):
    each array item given at least ``ndmin`` dimensions (ones in front,
    moved by ``trans1d``), each number one element, each slice its range;
    all cast to their common type (numbers weakly, as NumPy does) and
    concatenated along ``axis``."""
    axis, ndmin, trans1d, first, dtype = numpy_arrays.concatenation_settings(concatenator, key)
    parts = []
    for item in key[first:] if isinstance(key, tuple) else (key,):
        if isinstance(item, slice):
            parts.append(numpy_arrays.concatenation_range(item, ndmin, trans1d))
        else:
            part = np.reshape(item, numpy_arrays.concatenation_shape(np.shape(item), ndmin))
            parts.append(np.transpose(part, numpy_arrays.concatenation_axes(np.ndim(item), ndmin, trans1d)))
    return np.concatenate(parts, axis, dtype=dtype)
