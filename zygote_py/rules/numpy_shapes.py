"""Rules for NumPy's shape, joining, indexing and construction functions.

Every function here is linear in its array arguments (``sort`` piecewise):
each picks, permutes, copies or adds up their elements, so each pullback is
the transposed operation: a reshape back, the inverse permutation, a sum over the
copies, zeros with ``dy`` scattered into the selected places. Each rule has
a pushforward (forward-mode) counterpart ``<name>_push``, which applies the
function itself to the tangent (a sequence's items without a tangent taken
as zeros).

Covered:

- shapes: ``reshape ravel transpose swapaxes matrix_transpose (and
  linalg.matrix_transpose) moveaxis expand_dims squeeze broadcast_to
  atleast_1d atleast_2d atleast_3d``, and the methods
  ``ndarray.reshape transpose ravel flatten squeeze swapaxes``;
- joining and splitting: ``concatenate stack hstack vstack dstack
  column_stack split array_split``;
- rearranging: ``tile repeat flip roll pad sort take take_along_axis triu
  tril``, and ``ndarray.repeat take``;
- construction: ``array asarray asanyarray ascontiguousarray asfortranarray
  copy full linspace meshgrid``, and ``ndarray.copy astype``;
- (indexing, ``x[key]``, is :func:`zygote_py.rules.operators.getitem_array`.)

Conventions:

- Gradients of ndarray parameters have the parameter's shape and dtype. A
  parameter that is not an ndarray (a Python float, a nested list of
  numbers) gets a gradient of its own kind — a Python float, a NumPy scalar,
  the same nesting of tuples and lists — from ``array``, ``asarray`` and
  friends, ``atleast_*d``, ``tile``, ``repeat``, ``pad``, ``sort``,
  ``linspace``, ``full``, ``broadcast_to`` (a number or an ndarray), and for
  the items of the sequences that ``concatenate``, ``stack`` and the other
  joining functions take; the other rules expect ndarrays and give an
  ndarray gradient.
- A conversion to an integer or boolean dtype (``array``, ``asarray``,
  ``astype``, ``full``, ``linspace``, ``concatenate``, ``stack``,
  ``hstack``, ``vstack`` with such a ``dtype``) passes no
  gradient: the parameter gets ``None``. A conversion from real to complex
  passes the real part of ``dy``; other float conversions cast the gradient
  back to the input's dtype.
- ``sort``: the gradient goes back through the permutation ``argsort``
  chose; at tied values (a kink) that is the one-sided derivative for
  ``argsort``'s order of the ties. ``ndarray.sort`` sorts in place and returns
  ``None``, so it has no rule.
- ``take``, ``take_along_axis`` and integer-array indexing add up the
  gradients of repeated indices; ``mode='wrap'`` and ``'clip'`` map the
  indices first, as NumPy does.
- ``pad``: modes ``'constant'``, ``'empty'``, ``'edge'``, ``'reflect'``,
  ``'symmetric'`` and ``'wrap'`` (the last four copy elements, so their
  gradient adds the copies back). ``constant_values`` gets the sum of
  ``dy`` over the area it fills (a corner belongs to the last axis padding
  it, as in NumPy), or ``None`` when it is an integer. Other modes
  (``'linear_ramp'``, ``'mean'``, ``'maximum'``...) raise
  :class:`~zygote_py.errors.NoDerivativeRule` when their gradient is
  asked for.
- ``reshape``, ``ravel`` and ``flatten`` take every ``order``: ``'A'``
  and ``'K'`` depend on the input's memory layout, which the pullback reads
  from the input as NumPy does (``'K'``: axes by decreasing stride).
- ``triu``/``tril`` of a 1-d array (which NumPy turns into a matrix) sum
  the gradient over the rows it was repeated into.
- ``linspace``: ``start`` and ``stop`` are differentiable (the samples are
  ``start + t * (stop - start)``); ``num``, ``endpoint`` and ``axis`` are
  not. ``full``'s ``fill_value`` gets ``dy`` summed to its shape.
- ``meshgrid(*xi)``: each ``xi[k]`` gets its output's gradient summed over
  the axes it was repeated along (``None`` when that output's is ``None``).

Non-differentiable (their outputs are constants or indices): ``zeros ones
empty eye identity tri arange indices argwhere nonzero flatnonzero
tril_indices triu_indices diag_indices unravel_index ravel_multi_index``
and ``ndarray.nonzero``. ``arange`` is piecewise constant in its length
and is used for integer grids, so it is among them.

Rules that mutate an array they made (``add.at``, ``put_along_axis``) do it
in a helper here that returns the array: the compiler treats the calls of
an inlined rule as pure and may drop one whose result is unused.
"""
import numpy as np

from zygote_py import runtime
from zygote_py.errors import NoDerivativeRule
# The rules call this module's helpers by their qualified names, as they call
# np.reshape, so that the compiler can inline them.
from zygote_py.rules import numpy_shapes

from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(
    np.zeros, np.ones, np.empty, np.eye, np.identity, np.tri, np.arange,
    np.indices, np.argwhere, np.nonzero, np.flatnonzero, np.tril_indices,
    np.triu_indices, np.diag_indices, np.unravel_index, np.ravel_multi_index,
    np.ndarray.nonzero, np.result_type,
)


# -- helpers ------------------------------------------------------------------


def like(g, x):
    """``g``, a gradient shaped like ``x``, given ``x``'s kind: an ndarray of
    ``x``'s float dtype, a NumPy scalar of its type, a Python float, or the
    same nesting of tuples and lists. A real ``x`` gets the real part of a
    complex ``g``; a boolean gets ``None``."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "fc":
            return g
        if getattr(g, "dtype", None) == x.dtype and not isinstance(g, np.generic):
            return g
        g = np.asarray(g)
        if g.dtype.kind == "c" and x.dtype.kind != "c":
            g = g.real
        return g if g.dtype == x.dtype else g.astype(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (tuple, list)):
        g = np.asarray(g)  # once, rather than per item: g may be a sparse runtime.Scatter
        if g.ndim == 0 and len(x):  # the zero gradient a path that did not use the array gives it
            g = np.broadcast_to(g, (len(x),) + np.shape(np.asarray(x[0])))
        if g.ndim == 1 and all(type(v) is float for v in x):
            items = np.real(g).tolist()  # fast path: a flat list of floats
        else:
            items = [like(g[i], v) for i, v in enumerate(x)]
        return tuple(items) if isinstance(x, tuple) else items
    if isinstance(x, np.generic):
        if x.dtype.kind == "c":
            return x.dtype.type(g)
        return x.dtype.type(np.real(g)) if x.dtype.kind == "f" else np.real(g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, (int, float)):
        return float(np.real(g))
    check_not_made_in_python(x)
    return g


def check_not_made_in_python(x):
    """Raise :class:`NoDerivativeRule` if NumPy made its array of ``x``
    through the ``__array__`` method of ``x``'s class, written in Python:
    which of its fields each element came from is not known."""
    if runtime.python_method(type(x), "__array__") is not None:
        name = type(x).__name__
        raise NoDerivativeRule(
            f"the array NumPy makes of a {name} through its __array__: which of its fields each element came "
            "from is not known",
            hint=f"give {name} a method that builds the array (return np.array([self.a, self.b])) and call it, "
            "or build the array from its fields here")


def _grad_dtype(x, dy):
    """The dtype of a gradient array for ``x``: its own when it is a float
    array, else that of ``dy``."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind in "fc":
        return dtype
    return np.result_type(dy)


def _no_repeats(key):
    """Whether no element is selected twice by index ``key``: it has only
    integers, slices, ``None``, ``...`` and boolean masks."""
    parts = key if isinstance(key, tuple) else (key,)
    for k in parts:
        if k is None or k is Ellipsis or isinstance(k, (int, np.integer, slice)):
            continue
        if isinstance(k, np.ndarray) and (k.dtype == bool or k.ndim == 0):
            continue
        return False
    return True


def _scatter(shape, dtype, key, dy):
    """Zeros of ``shape`` with ``dy`` added at ``key`` (repeated indices add
    up). Assignment where no element can repeat: ``np.add.at`` is much
    slower. Another library's ``dy``: :func:`runtime.scatter` onto zeros of
    that library, which it has no ``np.add.at`` for."""
    if runtime.arrays.is_foreign(dy):
        return runtime.scatter(np.zeros_like(dy, dtype, shape=shape), key, dy)
    g = np.zeros(shape, dtype)
    if _no_repeats(key):
        g[key] = dy
    else:
        np.add.at(g, key, dy)
    return g


def unravel(dy, a, order):
    """The gradient of ``a`` from a cotangent ``dy`` of ``np.reshape(a, ...,
    order)``, ``np.ravel(a, order)`` or ``a.flatten(order)``."""
    shape = np.shape(a)
    if shape and not np.shape(dy):
        return dy  # a number, as the same number everywhere (the number 0: no gradient), has every shape
    flags = getattr(a, "flags", None)
    if order == "A":
        order = "F" if flags is not None and flags.f_contiguous and not flags.c_contiguous else "C"
    if order == "K":
        if flags is None or flags.c_contiguous:
            order = "C"
        elif flags.f_contiguous:
            order = "F"
        else:
            axes = _keep_order_axes(shape, a.strides)
            return np.transpose(np.reshape(dy, [shape[i] for i in axes]), tuple(np.argsort(axes)))
    return np.reshape(dy, shape, order)


def _keep_order_axes(shape, strides):
    """The axes, outermost first, in which ``ravel(order='K')`` reads an
    array: by decreasing absolute stride, each axis in index order. It is
    the insertion sort of NumPy's iterator: a zero stride (a broadcast axis)
    is ambiguous and moves no axis past it."""
    perm = list(range(len(shape)))[::-1]  # innermost first
    for i0 in range(1, len(perm)):
        s0, pos = strides[perm[i0]], i0
        for i1 in range(i0 - 1, -1, -1):
            s1 = strides[perm[i1]]
            if s0 != 0 and s1 != 0:
                if abs(s1) <= abs(s0):
                    break
                pos = i1
        perm.insert(pos, perm.pop(i0))
    return perm[::-1]


def read_order(a, order):
    """The order, ``'C'`` or ``'F'``, in which ``np.reshape(a, ..., order)``
    reads ``a``: ``'A'`` is ``'F'`` for a Fortran- but not C-contiguous
    ``a``. A tangent is read in ``a``'s order, whatever its own layout."""
    if order == "A":
        flags = getattr(a, "flags", None)
        return "F" if flags is not None and flags.f_contiguous and not flags.c_contiguous else "C"
    return order


def raveled(t, a, order):
    """``t`` raveled in the order in which ``np.ravel(a, order)`` reads
    ``a`` (``'A'`` and ``'K'`` depend on ``a``'s layout, not ``t``'s)."""
    if order == "K":
        flags = getattr(a, "flags", None)
        if flags is not None and not flags.c_contiguous and not flags.f_contiguous:
            return np.ravel(np.transpose(t, _keep_order_axes(np.shape(a), a.strides)))
        order = "F" if flags is not None and flags.f_contiguous and not flags.c_contiguous else "C"
    return np.ravel(t, read_order(a, order))


def dense(t, x):
    """The tangent ``t`` of a sequence ``x`` (a list or tuple, possibly
    nested) with its items that have none (``None``) made zeros of the
    item's type, so that NumPy joins and promotes the tangents as it does
    ``x``'s items; any other ``t`` as it is."""
    if t is None:
        return _zero(x)
    if isinstance(t, (tuple, list)):
        return type(t)([dense(ti, xi) for ti, xi in zip(t, x)])  # (a list, not a generator: differentiable)
    check_not_made_in_python(x)
    return t


def _zero(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_zero(v) for v in x)
    if isinstance(x, (np.ndarray, np.generic)):
        return np.zeros_like(x)
    if isinstance(x, (bool, int, float, complex)):
        return type(x)(0)
    return np.zeros_like(np.asarray(x))


def tangent_as(t, y, copy=False):
    """The tangent ``t`` of the values NumPy made the array ``y`` of, as
    ``y``'s: of its shape and dtype (the real part for a real ``y``), a
    new array when ``copy``; a float zero of its shape when ``y`` has an
    integer or boolean dtype, whose values carry no tangent but which a
    rule may compute with (``u * np.full(3, k)``, ``k`` an int on one
    path only; see ``runtime.zero_operand``)."""
    if y.dtype.kind not in "fc":
        return np.zeros_like(y, float) if runtime.arrays.is_foreign(y) else np.zeros(y.shape)
    t = runtime.arrays.asarray(t)
    if t.dtype.kind == "c" and y.dtype.kind != "c":
        t = t.real
    if runtime.arrays.is_foreign(t):  # (np.array would compute a Dask array, and refuses CuPy's)
        return np.reshape(t.astype(y.dtype, copy=copy), y.shape)
    return np.array(t, y.dtype, copy=True if copy else None).reshape(y.shape)


def unless_integer(t, dtype):
    """``t``, or ``None`` when ``dtype`` (``None`` for float) is an integer
    or boolean dtype, whose values carry no tangent."""
    return t if np.dtype(dtype).kind in "fc" else None


def _joined(dy, arrays, axis, shapes):
    """Cut ``dy`` along ``axis`` into pieces of the ``shapes`` the items of
    ``arrays`` had when joined, and give each its item's shape and kind."""
    bounds = np.cumsum([s[axis] for s in shapes])[:-1]
    pieces = np.split(dy, bounds, axis)
    grads = [like(np.reshape(p, np.shape(a)), a) for p, a in zip(pieces, arrays)]
    if isinstance(arrays, np.ndarray):
        return np.stack(grads) if grads else np.zeros(arrays.shape, _grad_dtype(arrays, dy))
    return tuple(grads) if isinstance(arrays, tuple) else grads


def unconcatenate(dy, arrays, axis):
    if axis is None:
        return _joined(dy, arrays, 0, [(np.size(a),) for a in arrays])
    return _joined(dy, arrays, axis, [np.shape(a) for a in arrays])


def unstack(dy, arrays, axis):
    parts = np.moveaxis(dy, axis, 0)
    grads = [like(parts[i], a) for i, a in enumerate(arrays)]
    if isinstance(arrays, np.ndarray):
        return np.stack(grads) if grads else np.zeros(arrays.shape, _grad_dtype(arrays, dy))
    return tuple(grads) if isinstance(arrays, tuple) else grads


def unhstack(dy, tup):
    shapes = [np.shape(a) or (1,) for a in tup]
    return _joined(dy, tup, 0 if len(shapes[0]) == 1 else 1, shapes)


def unvstack(dy, tup):
    shapes = [(1,) * (2 - len(s)) + s for s in map(np.shape, tup)]
    return _joined(dy, tup, 0, shapes)


def undstack(dy, tup):
    shapes = [{0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}.get(len(s), s) for s in map(np.shape, tup)]
    return _joined(dy, tup, 2, shapes)


def uncolumn_stack(dy, tup):
    shapes = [s if len(s) >= 2 else (s + (1, 1))[:2] for s in map(np.shape, tup)]
    return _joined(dy, tup, 1, shapes)


def unsplit(dy, ary, pieces, axis):
    """The gradient of ``ary`` from the cotangents ``dy`` of its ``pieces``
    (``None`` for a piece that got none)."""
    parts = [np.zeros_like(p) if d is None else d for d, p in zip(dy, pieces)]
    return like(np.concatenate(parts, axis), ary)


def untile(dy, A, reps):
    """Sum ``dy`` over the copies ``np.tile`` made of ``A``."""
    shape = np.shape(A)
    reps = tuple(np.ravel(reps))
    d = max(len(shape), len(reps))
    s = (1,) * (d - len(shape)) + shape
    r = (1,) * (d - len(reps)) + reps
    blocks = np.reshape(dy, [n for pair in zip(r, s) for n in pair])
    return like(np.reshape(blocks.sum(axis=tuple(range(0, 2 * d, 2))), shape), A)


def unrepeat(dy, a, repeats, axis):
    """Sum ``dy`` over the copies ``np.repeat`` made of each element."""
    shape = np.shape(a)
    if axis is None:
        n, axis = int(np.prod(shape)), 0
    else:
        axis = axis % len(shape)
        n = shape[axis]
    head, tail = dy.shape[:axis], dy.shape[axis + 1:]
    if np.size(repeats) == 1:
        r = int(np.ravel(repeats)[0])
        g = np.reshape(dy, head + (n, r) + tail).sum(axis=axis + 1)
    else:
        counts = np.broadcast_to(repeats, (n,))
        starts = np.cumsum(counts) - counts
        kept = counts > 0
        g = np.zeros(head + (n,) + tail, _grad_dtype(a, dy))
        if kept.any():
            g[(slice(None),) * axis + (kept,)] = np.add.reduceat(dy, starts[kept], axis)
    return like(np.reshape(g, shape), a)


def _pad_widths(pad_width, ndim):
    """``pad_width`` in every form ``np.pad`` takes, as an ``(ndim, 2)``
    array."""
    if isinstance(pad_width, dict):
        widths = np.zeros((ndim, 2), np.intp)
        for axis, w in pad_width.items():
            widths[axis] = w
        return widths
    return np.broadcast_to(np.asarray(pad_width), (ndim, 2))


def unpad(dy, array, pad_width, mode):
    """The gradient of ``array`` from a cotangent ``dy`` of ``np.pad``."""
    shape = np.shape(array)
    widths = _pad_widths(pad_width, len(shape))
    if mode in ("constant", "empty"):
        g = dy[tuple(slice(b, b + n) for (b, _), n in zip(widths, shape))]
    elif mode in ("edge", "reflect", "symmetric", "wrap"):
        # Pad the elements' positions the same way: each padded element
        # names the one it copies.
        size = int(np.prod(shape))
        source = np.pad(np.arange(size).reshape(shape), widths, mode)
        g = _scatter((size,), _grad_dtype(array, dy), source.ravel(), np.ravel(dy)).reshape(shape)
    else:
        raise NoDerivativeRule(
            f"np.pad has no derivative rule for mode={mode!r}",
            hint="the modes with one are 'constant', 'empty', 'edge', 'reflect', 'symmetric' and 'wrap'",
        )
    return like(g, array)


def pad_values_grad(dy, array, pad_width, constant_values):
    """The gradient of ``np.pad``'s ``constant_values``: ``dy`` summed over
    the area each value fills. Padding goes axis by axis, axis ``k`` filling
    the whole extent of the axes before it and the original extent of those
    after it, so a corner takes the value of the last axis that pads it."""
    v = np.asarray(constant_values)
    if v.dtype.kind not in "fc":
        return None
    dy = np.asarray(dy)
    shape = np.shape(array)
    widths = _pad_widths(pad_width, len(shape))
    inner = [slice(b, b + n) for (b, _), n in zip(widths, shape)]
    g = np.zeros((len(shape), 2), np.result_type(dy))
    for axis in range(len(shape)):
        head, tail = (slice(None),) * axis, tuple(inner[axis + 1:])
        b = widths[axis][0]
        g[axis, 0] = dy[head + (slice(0, b),) + tail].sum()
        g[axis, 1] = dy[head + (slice(b + shape[axis], None),) + tail].sum()
    return like(runtime.unbroadcast(g, v), constant_values)


def unsort(dy, a, idx, axis):
    """Put ``dy`` back where ``np.argsort`` took each element from."""
    if runtime.arrays.is_foreign(dy):  # (Dask has no put_along_axis, CuPy's writes no NumPy zeros: gather instead)
        return np.reshape(np.take_along_axis(dy, np.argsort(idx, axis), axis), np.shape(a))
    g = np.zeros(np.shape(a), _grad_dtype(a, dy))
    np.put_along_axis(g, idx, dy, axis)
    return like(g, a)


def untake(dy, a, indices, axis, mode):
    shape = np.shape(a)
    n = int(np.prod(shape)) if axis is None else shape[axis]
    if mode == "wrap":
        indices = np.mod(indices, n)
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    dtype = _grad_dtype(a, dy)
    if axis is None:
        return _scatter((n,), dtype, indices, dy).reshape(shape)
    return _scatter(shape, dtype, (slice(None),) * (axis % len(shape)) + (indices,), dy)


def untake_along_axis(dy, arr, indices, axis):
    shape = np.shape(arr)
    dtype = _grad_dtype(arr, dy)
    if axis is None:
        return _scatter((int(np.prod(shape)),), dtype, indices, dy).reshape(shape)
    axis = axis % len(shape)
    ones = (1,) * len(shape)
    key = tuple(
        indices if k == axis else np.arange(n).reshape(ones[:k] + (n,) + ones[k + 1:])
        for k, n in enumerate(shape)
    )
    return _scatter(shape, dtype, key, dy)


def linspace_grads(dy, start, stop, num, endpoint, retstep, axis):
    """The gradients of ``start`` and ``stop``: sample ``i`` is ``start + t *
    (stop - start)`` with ``t = i / div``, and the step ``(stop - start) /
    div``."""
    samples, dstep = dy if retstep else (dy, None)
    div = num - 1 if endpoint else num
    t = np.arange(num) / div if div > 0 else np.zeros(num)
    dstart = dstop = 0.0
    if samples is not None:
        axis = axis % np.ndim(samples)
        t = t.reshape((num,) + (1,) * (np.ndim(samples) - axis - 1))
        dstop = np.sum(samples * t, axis=axis)
        dstart = np.sum(samples, axis=axis) - dstop
    if dstep is not None and div > 0:
        dstart = dstart - dstep / div
        dstop = dstop + dstep / div
    dstart = np.broadcast_to(dstart, np.broadcast_shapes(np.shape(start), np.shape(stop)))
    dstop = np.broadcast_to(dstop, np.shape(dstart))
    return runtime.unbroadcast(dstart, start), runtime.unbroadcast(dstop, stop)


# -- shapes -------------------------------------------------------------------


@adjoint(np.reshape)
def reshape(a, shape, order="C"):
    def back(dy):
        if order == "C":
            return (np.reshape(dy, np.shape(a)), None, None)
        return (numpy_shapes.unravel(dy, a, order), None, None)
    return np.reshape(a, shape, order), back


@pushforward(np.reshape)
def reshape_push(y, a, shape, order="C", *, da):
    return np.reshape(da, shape, numpy_shapes.read_order(a, order))


@adjoint(np.ndarray.reshape)
def ndarray_reshape(self, *shape, order="C"):
    """``a.reshape(2, 3)`` and ``a.reshape((2, 3))``."""
    def back(dy):
        return (numpy_shapes.unravel(dy, self, order),) + (None,) * len(shape)
    # (order= only where it is not the default: another library's reshape, Dask's, may not take it)
    return (self.reshape(*shape) if order == "C" else self.reshape(*shape, order=order)), back


@pushforward(np.ndarray.reshape)
def ndarray_reshape_push(y, self, *shape, order="C", dself):
    """Called at run time (it branches), as rules with a keyword-only
    ``order`` are."""
    if order == "C":
        return dself.reshape(*shape)
    return np.reshape(dself, y.shape, numpy_shapes.read_order(self, order))


@adjoint(np.ndarray.ravel)
@adjoint(np.ravel)
def ravel(a, order="C"):
    def back(dy):
        if order == "C":
            return (np.reshape(dy, np.shape(a)), None)
        return (numpy_shapes.unravel(dy, a, order), None)
    return np.ravel(a, order), back


@pushforward(np.ndarray.ravel)
@pushforward(np.ravel)
def ravel_push(y, a, order="C", *, da):
    return numpy_shapes.raveled(da, a, order)


@adjoint(np.ndarray.flatten)
def ndarray_flatten(self, order="C"):
    def back(dy):
        if order == "C":
            return (np.reshape(dy, self.shape), None)
        return (numpy_shapes.unravel(dy, self, order), None)
    return self.flatten(order), back


@pushforward(np.ndarray.flatten)
def ndarray_flatten_push(y, self, order="C", *, dself):
    return numpy_shapes.raveled(dself, self, order).copy()


@adjoint(np.ndarray.tolist)
def ndarray_tolist(self):
    y = self.tolist()

    def back(dy):  # (a list of the items' gradients, None for an item that got none)
        return (numpy_shapes.tangent_as(numpy_shapes.dense(dy, y), self),)
    return y, back


@pushforward(np.ndarray.tolist)
def ndarray_tolist_push(y, self, *, dself):
    return np.broadcast_to(dself, self.shape).tolist()


@adjoint(np.transpose)
def transpose(a, axes=None):
    def back(dy):
        if axes is None:
            return (np.transpose(dy), None)
        return (np.transpose(dy, tuple(np.argsort(np.mod(axes, np.ndim(a))))), None)  # (Dask takes no array of axes)
    return np.transpose(a, axes), back


@pushforward(np.transpose)
def transpose_push(y, a, axes=None, *, da):
    return np.transpose(da, axes)


@adjoint(np.ndarray.transpose)
def ndarray_transpose(self, *axes):
    """``a.transpose()``, ``a.transpose(1, 0)``, ``a.transpose((1, 0))``."""
    perm = axes[0] if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)) else axes or None

    def back(dy):
        if perm is None:
            return (np.transpose(dy),) + (None,) * len(axes)
        return (np.transpose(dy, tuple(np.argsort(np.mod(perm, self.ndim)))),) + (None,) * len(axes)
    return self.transpose(*axes), back


@pushforward(np.ndarray.transpose)
def ndarray_transpose_push(y, self, *axes, dself):
    return dself.transpose(*axes)


@adjoint(np.ndarray.swapaxes)
@adjoint(np.swapaxes)
def swapaxes(a, axis1, axis2):
    def back(dy):
        return (np.swapaxes(dy, axis1, axis2), None, None)
    return np.swapaxes(a, axis1, axis2), back


@pushforward(np.ndarray.swapaxes)
@pushforward(np.swapaxes)
def swapaxes_push(y, a, axis1, axis2, *, da):
    return np.swapaxes(da, axis1, axis2)


@adjoint(np.matrix_transpose)
@adjoint(np.linalg.matrix_transpose)
def matrix_transpose(x):
    def back(dy):
        return (np.swapaxes(dy, -1, -2),)
    return np.matrix_transpose(x), back


@pushforward(np.matrix_transpose)
@pushforward(np.linalg.matrix_transpose)
def matrix_transpose_push(y, x, *, dx):
    return np.matrix_transpose(dx)


@adjoint(np.moveaxis)
def moveaxis(a, source, destination):
    def back(dy):
        return (np.moveaxis(dy, destination, source), None, None)
    return np.moveaxis(a, source, destination), back


@pushforward(np.moveaxis)
def moveaxis_push(y, a, source, destination, *, da):
    return np.moveaxis(da, source, destination)


@adjoint(np.expand_dims)
def expand_dims(a, axis):
    def back(dy):
        return (np.reshape(dy, np.shape(a)), None)
    return np.expand_dims(a, axis), back


@pushforward(np.expand_dims)
def expand_dims_push(y, a, axis, *, da):
    return np.expand_dims(da, axis)


@adjoint(np.ndarray.squeeze)
@adjoint(np.squeeze)
def squeeze(a, axis=None):
    def back(dy):
        return (np.reshape(dy, np.shape(a)), None)
    return np.squeeze(a, axis), back


@pushforward(np.ndarray.squeeze)
@pushforward(np.squeeze)
def squeeze_push(y, a, axis=None, *, da):
    return np.squeeze(da, axis)


@adjoint(np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    def back(dy):
        return (runtime.unbroadcast(dy, array), None, None)
    return np.broadcast_to(array, shape, subok), back


@pushforward(np.broadcast_to)
def broadcast_to_push(y, array, shape, subok=False, *, darray):
    return np.broadcast_to(darray, shape, subok)


@adjoint(np.atleast_1d)
def atleast_1d(ary):
    """One argument only; ``np.atleast_1d(a, b)`` gives a tuple and has no
    rule."""
    def back(dy):
        return (numpy_shapes.like(np.reshape(dy, np.shape(ary)), ary),)
    return np.atleast_1d(ary), back


@pushforward(np.atleast_1d)
def atleast_1d_push(y, ary, *, dary):
    return np.atleast_1d(dary)


@adjoint(np.atleast_2d)
def atleast_2d(ary):
    def back(dy):
        return (numpy_shapes.like(np.reshape(dy, np.shape(ary)), ary),)
    return np.atleast_2d(ary), back


@pushforward(np.atleast_2d)
def atleast_2d_push(y, ary, *, dary):
    return np.atleast_2d(dary)


@adjoint(np.atleast_3d)
def atleast_3d(ary):
    def back(dy):
        return (numpy_shapes.like(np.reshape(dy, np.shape(ary)), ary),)
    return np.atleast_3d(ary), back


@pushforward(np.atleast_3d)
def atleast_3d_push(y, ary, *, dary):
    return np.atleast_3d(dary)


# -- joining and splitting ------------------------------------------------------


@adjoint(np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """``dtype`` and ``casting`` are keyword-only in NumPy: the rule takes
    them by position too, so that it can be inlined (``stack``, ``hstack``
    and ``vstack`` alike)."""
    y = np.concatenate(arrays, axis, out, dtype=dtype, casting=casting)

    def back(dy):
        darrays = numpy_shapes.unconcatenate(dy, arrays, axis) if y.dtype.kind in "fc" else None
        return (darrays, None, None, None, None)
    return y, back


@pushforward(np.concatenate)
def concatenate_push(y, arrays, axis=0, out=None, dtype=None, casting="same_kind", *, darrays):
    return numpy_shapes.tangent_as(np.concatenate(numpy_shapes.dense(darrays, arrays), axis), y)


@adjoint(np.stack)
def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    y = np.stack(arrays, axis, out, dtype=dtype, casting=casting)

    def back(dy):
        darrays = numpy_shapes.unstack(dy, arrays, axis) if y.dtype.kind in "fc" else None
        return (darrays, None, None, None, None)
    return y, back


@pushforward(np.stack)
def stack_push(y, arrays, axis=0, out=None, dtype=None, casting="same_kind", *, darrays):
    return numpy_shapes.tangent_as(np.stack(numpy_shapes.dense(darrays, arrays), axis), y)


@adjoint(np.hstack)
def hstack(tup, dtype=None, casting="same_kind"):
    y = np.hstack(tup, dtype=dtype, casting=casting)

    def back(dy):
        return (numpy_shapes.unhstack(dy, tup) if y.dtype.kind in "fc" else None, None, None)
    return y, back


@pushforward(np.hstack)
def hstack_push(y, tup, dtype=None, casting="same_kind", *, dtup):
    return numpy_shapes.tangent_as(np.hstack(numpy_shapes.dense(dtup, tup)), y)


@adjoint(np.vstack)
def vstack(tup, dtype=None, casting="same_kind"):
    y = np.vstack(tup, dtype=dtype, casting=casting)

    def back(dy):
        return (numpy_shapes.unvstack(dy, tup) if y.dtype.kind in "fc" else None, None, None)
    return y, back


@pushforward(np.vstack)
def vstack_push(y, tup, dtype=None, casting="same_kind", *, dtup):
    return numpy_shapes.tangent_as(np.vstack(numpy_shapes.dense(dtup, tup)), y)


@adjoint(np.dstack)
def dstack(tup):
    def back(dy):
        return (numpy_shapes.undstack(dy, tup),)
    return np.dstack(tup), back


@pushforward(np.dstack)
def dstack_push(y, tup, *, dtup):
    return np.dstack(numpy_shapes.dense(dtup, tup))


@adjoint(np.column_stack)
def column_stack(tup):
    def back(dy):
        return (numpy_shapes.uncolumn_stack(dy, tup),)
    return np.column_stack(tup), back


@pushforward(np.column_stack)
def column_stack_push(y, tup, *, dtup):
    return np.column_stack(numpy_shapes.dense(dtup, tup))


@adjoint(np.split)
def split(ary, indices_or_sections, axis=0):
    y = np.split(ary, indices_or_sections, axis)

    def back(dy):
        return (numpy_shapes.unsplit(dy, ary, y, axis), None, None)
    return y, back


@pushforward(np.split)
def split_push(y, ary, indices_or_sections, axis=0, *, dary):
    return np.split(dary, indices_or_sections, axis)


@adjoint(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    y = np.array_split(ary, indices_or_sections, axis)

    def back(dy):
        return (numpy_shapes.unsplit(dy, ary, y, axis), None, None)
    return y, back


@pushforward(np.array_split)
def array_split_push(y, ary, indices_or_sections, axis=0, *, dary):
    return np.array_split(dary, indices_or_sections, axis)


# -- rearranging ----------------------------------------------------------------


@adjoint(np.tile)
def tile(A, reps):
    def back(dy):
        return (numpy_shapes.untile(dy, A, reps), None)
    return np.tile(A, reps), back


@pushforward(np.tile)
def tile_push(y, A, reps, *, dA):
    return np.tile(dA, reps)


@adjoint(np.ndarray.repeat)
@adjoint(np.repeat)
def repeat(a, repeats, axis=None):
    def back(dy):
        return (numpy_shapes.unrepeat(dy, a, repeats, axis), None, None)
    return np.repeat(a, repeats, axis), back


@pushforward(np.ndarray.repeat)
@pushforward(np.repeat)
def repeat_push(y, a, repeats, axis=None, *, da):
    return np.repeat(da, repeats, axis)


@adjoint(np.flip)
def flip(m, axis=None):
    def back(dy):
        return (np.flip(dy, axis), None)
    return np.flip(m, axis), back


@pushforward(np.flip)
def flip_push(y, m, axis=None, *, dm):
    return np.flip(dm, axis)


@adjoint(np.roll)
def roll(a, shift, axis=None):
    def back(dy):
        return (np.roll(dy, np.negative(shift), axis), None, None)
    return np.roll(a, shift, axis), back


@pushforward(np.roll)
def roll_push(y, a, shift, axis=None, *, da):
    return np.roll(da, shift, axis)


@adjoint(np.pad)
def pad(array, pad_width, mode="constant", constant_values=0):
    """Only ``'constant'`` takes an extra argument, ``constant_values``:
    NumPy rejects it for the other modes."""
    if mode == "constant":
        y = np.pad(array, pad_width, mode, constant_values=constant_values)
    else:
        y = np.pad(array, pad_width, mode)

    def back(dy):
        da = numpy_shapes.unpad(dy, array, pad_width, mode)
        if mode == "constant":
            return (da, None, None, numpy_shapes.pad_values_grad(dy, array, pad_width, constant_values))
        return (da, None, None, None)
    return y, back


@pushforward(np.pad)
def pad_push(y, array, pad_width, mode="constant", constant_values=0, *, darray, dconstant_values=None):
    """Called at run time (it branches on ``mode``), with concrete zero
    tangents: ``None`` for an integer ``array`` or ``constant_values``."""
    if y.dtype.kind not in "fc":
        return None
    if darray is None:
        darray = np.zeros(np.shape(array), y.dtype)
    if mode == "constant":
        return np.pad(darray, pad_width, mode, constant_values=0 if dconstant_values is None else dconstant_values)
    if mode == "empty":
        return np.pad(darray, pad_width)  # the values NumPy leaves uninitialised get no tangent
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return np.pad(darray, pad_width, mode)
    raise NoDerivativeRule(
        f"np.pad has no derivative rule for mode={mode!r}",
        hint="the modes with one are 'constant', 'empty', 'edge', 'reflect', 'symmetric' and 'wrap'",
    )


@adjoint(np.sort)
def sort(a, axis=-1, kind=None, order=None):
    """Sorted by ``argsort``, whose permutation the pullback inverts; the
    values equal ``np.sort``'s."""
    idx = np.argsort(a, axis, kind, order)
    y = np.take_along_axis(runtime.arrays.asarray(a), idx, axis)

    def back(dy):
        return (numpy_shapes.unsort(dy, a, idx, axis), None, None, None)
    return y, back


@pushforward(np.sort)
def sort_push(y, a, axis=-1, kind=None, order=None, *, da):
    """The tangent permuted as ``argsort`` permutes ``a`` (the adjoint's
    permutation, ties included)."""
    return np.take_along_axis(runtime.arrays.asarray(da), np.argsort(a, axis, kind, order), axis)


@adjoint(np.ndarray.take)
@adjoint(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    def back(dy):
        return (numpy_shapes.untake(dy, a, indices, axis, mode), None, None, None, None)
    return np.take(a, indices, axis, out, mode), back


@pushforward(np.ndarray.take)
@pushforward(np.take)
def take_push(y, a, indices, axis=None, out=None, mode="raise", *, da):
    return np.take(da, indices, axis, None, mode)


@adjoint(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    def back(dy):
        return (numpy_shapes.untake_along_axis(dy, arr, indices, axis), None, None)
    return np.take_along_axis(arr, indices, axis), back


@pushforward(np.take_along_axis)
def take_along_axis_push(y, arr, indices, axis=-1, *, darr):
    return np.take_along_axis(darr, indices, axis)


@adjoint(np.triu)
def triu(m, k=0):
    def back(dy):
        return (runtime.unbroadcast(np.triu(dy, k), m), None)
    return np.triu(m, k), back


@pushforward(np.triu)
def triu_push(y, m, k=0, *, dm):
    return np.triu(dm, k)


@adjoint(np.tril)
def tril(m, k=0):
    def back(dy):
        return (runtime.unbroadcast(np.tril(dy, k), m), None)
    return np.tril(m, k), back


@pushforward(np.tril)
def tril_push(y, m, k=0, *, dm):
    return np.tril(dm, k)


# -- construction ---------------------------------------------------------------


@adjoint(np.array)
def array(object, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    y = np.array(object, dtype, copy=copy, order=order, subok=subok, ndmin=ndmin)

    def back(dy):
        if y.dtype.kind not in "fc":
            dobject = None
        elif ndmin:
            dobject = numpy_shapes.like(np.reshape(dy, np.shape(object)), object)
        else:
            dobject = numpy_shapes.like(dy, object)
        return (dobject, None, None, None, None, None)
    return y, back


@pushforward(np.array)
def array_push(y, object, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, dobject):
    return numpy_shapes.tangent_as(numpy_shapes.dense(dobject, object), y, copy)


@adjoint(np.asarray)
def asarray(a, dtype=None, order=None):
    y = np.asarray(a, dtype, order)

    def back(dy):
        da = numpy_shapes.like(dy, a) if y.dtype.kind in "fc" else None
        return (da, None, None)
    return y, back


@pushforward(np.asarray)
def asarray_push(y, a, dtype=None, order=None, *, da):
    return numpy_shapes.tangent_as(numpy_shapes.dense(da, a), y)


@adjoint(np.asanyarray)
def asanyarray(a, dtype=None, order=None):
    y = np.asanyarray(a, dtype, order)

    def back(dy):
        da = numpy_shapes.like(dy, a) if y.dtype.kind in "fc" else None
        return (da, None, None)
    return y, back


@pushforward(np.asanyarray)
def asanyarray_push(y, a, dtype=None, order=None, *, da):
    return numpy_shapes.tangent_as(numpy_shapes.dense(da, a), y)


@adjoint(np.ascontiguousarray)
def ascontiguousarray(a, dtype=None):
    y = np.ascontiguousarray(a, dtype)

    def back(dy):
        da = numpy_shapes.like(np.reshape(dy, np.shape(a)), a) if y.dtype.kind in "fc" else None
        return (da, None)
    return y, back


@pushforward(np.ascontiguousarray)
def ascontiguousarray_push(y, a, dtype=None, *, da):
    return numpy_shapes.tangent_as(numpy_shapes.dense(da, a), y)


@adjoint(np.asfortranarray)
def asfortranarray(a, dtype=None):
    y = np.asfortranarray(a, dtype)

    def back(dy):
        da = numpy_shapes.like(np.reshape(dy, np.shape(a)), a) if y.dtype.kind in "fc" else None
        return (da, None)
    return y, back


@pushforward(np.asfortranarray)
def asfortranarray_push(y, a, dtype=None, *, da):
    return numpy_shapes.tangent_as(numpy_shapes.dense(da, a), y)


@adjoint(np.copy)
def copy(a, order="K", subok=False):
    def back(dy):
        return (dy, None, None)
    return np.copy(a, order, subok), back


@pushforward(np.copy)
def copy_push(y, a, order="K", subok=False, *, da):
    return np.copy(da, order, subok)


@adjoint(np.ndarray.copy)
def ndarray_copy(self, order="C"):
    def back(dy):
        return (dy, None)
    return self.copy(order), back


@pushforward(np.ndarray.copy)
def ndarray_copy_push(y, self, order="C", *, dself):
    return np.copy(dself, order)


@adjoint(np.ndarray.astype)
def ndarray_astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    # (order and subok change the memory layout and the class, not the values: other libraries' astype, Dask's,
    # takes neither)
    y = self.astype(dtype, casting=casting, copy=copy)

    def back(dy):
        dself = numpy_shapes.like(dy, self) if y.dtype.kind in "fc" else None
        return (dself, None, None, None, None, None)
    return y, back


@pushforward(np.ndarray.astype)
def ndarray_astype_push(y, self, dtype, order="K", casting="unsafe", subok=True, copy=True, *, dself):
    return numpy_shapes.tangent_as(dself, y, copy)


@adjoint(np.full)
def full(shape, fill_value, dtype=None, order="C"):
    y = np.full(shape, fill_value, dtype, order)

    def back(dy):
        dfill = runtime.unbroadcast(dy, fill_value) if y.dtype.kind in "fc" else None
        return (None, dfill, None, None)
    return y, back


@pushforward(np.full)
def full_push(y, shape, fill_value, dtype=None, order="C", *, dfill_value):
    return numpy_shapes.tangent_as(np.broadcast_to(dfill_value, np.shape(y)), y, True)


@adjoint(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    y = np.linspace(start, stop, num, endpoint, retstep, dtype, axis)

    def back(dy):
        if np.dtype(dtype).kind in "fc":
            dstart, dstop = numpy_shapes.linspace_grads(dy, start, stop, num, endpoint, retstep, axis)
        else:
            dstart = dstop = None
        return (dstart, dstop, None, None, None, None, None)
    return y, back


@pushforward(np.linspace)
def linspace_push(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, dstart, dstop):
    """The samples, and the step, are linear in ``start`` and ``stop``
    together (made one shape, as a zero tangent is a number)."""
    shape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    t = np.linspace(np.broadcast_to(dstart, shape), np.broadcast_to(dstop, shape), num, endpoint, retstep, dtype, axis)
    return numpy_shapes.unless_integer(t, dtype)


@adjoint(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """With ``indexing='xy'`` the first two inputs vary along axes 1 and 0;
    otherwise input ``k`` varies along axis ``k``."""
    grids = np.meshgrid(*xi, copy=copy, sparse=sparse, indexing=indexing)

    def back(dy):
        grads = []
        for k, (d, x) in enumerate(zip(dy, xi)):
            along = 1 - k if indexing == "xy" and len(xi) > 1 and k < 2 else k
            if d is None:
                grads.append(None)
                continue
            others = tuple(i for i in range(np.ndim(d)) if i != along)
            grads.append(numpy_shapes.like(np.reshape(np.sum(d, axis=others), np.shape(x)), x))
        return tuple(grads)
    return grids, back


@pushforward(np.meshgrid)
def meshgrid_push(y, *xi, copy=True, sparse=False, indexing="xy", dxi):
    """Called at run time (a loop), with concrete zero tangents: ``None``
    for an integer input, whose grid then has none."""
    grids = list(np.meshgrid(*numpy_shapes.dense(dxi, xi), copy=copy, sparse=sparse, indexing=indexing))
    for k, d in enumerate(dxi):
        if d is None:
            grids[k] = None
    return tuple(grids)
