"""Rules for conversions between arrays, NumPy scalars and Python values,
and for the functions that describe an array rather than compute with it.

- ``np.float32(x)``, ``np.float16(x)`` (``np.float64`` is with ``float`` in
  :mod:`.builtins`) pass ``dy`` on, as ``x``'s kind (a float64 array read
  as float32 gets a float64 gradient).
- ``s.astype(dtype)`` of a NumPy scalar ``s`` as ``ndarray.astype``.
- ``x.item(*index)`` is ``x[index]`` as a Python number: its gradient is
  ``dy`` at that position (a sparse :class:`~zygote_py.runtime.Scatter`
  where that is cheaper); a NumPy scalar's ``item()`` and ``tolist()``
  are the scalar itself (``ndarray.tolist`` is in :mod:`.numpy_shapes`).
- No gradient: the integer and boolean scalar types (``np.int64(x)``:
  truncation is piecewise constant), ``ndarray.round``, and what reads an
  array's type or shape rather than its values (``np.finfo``,
  ``np.promote_types``...). Reading ``x.shape``,
  ``x.dtype``, ``x.size`` and the other metadata of a differentiated
  array is a constant too (see ``runtime.METADATA_ATTRIBUTES``).
"""
import numpy as np

from zygote_py import runtime
from zygote_py.rules import numpy_conversions, numpy_shapes

from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_,
    np.ndarray.round, np.generic.round,
    np.finfo, np.iinfo, np.dtype, np.promote_types, np.can_cast, np.min_scalar_type, np.issubdtype, np.isscalar,
)


@adjoint(np.float32)
def numpy_float32(x=0.0):
    def back(dy):
        return (numpy_shapes.like(dy, x),)
    return np.float32(x), back


@pushforward(np.float32)
def numpy_float32_push(y, x=0.0, *, dx):
    return np.float32(dx)


@adjoint(np.float16)
def numpy_float16(x=0.0):
    def back(dy):
        return (numpy_shapes.like(dy, x),)
    return np.float16(x), back


@pushforward(np.float16)
def numpy_float16_push(y, x=0.0, *, dx):
    return np.float16(dx)


@adjoint(np.ndarray.item)
def ndarray_item(self, *args):
    key = numpy_conversions.item_index(self, args)

    def back(dy):
        return (runtime.scatter(self, key, dy), *(None,) * len(args))
    return self.item(*args), back


@pushforward(np.ndarray.item)
def ndarray_item_push(y, self, *args, dself, dargs):
    return dself[numpy_conversions.item_index(self, args)].item()


@adjoint(np.generic.item)
@adjoint(np.generic.tolist)
def generic_item(self, *args):
    def back(dy):
        return (numpy_shapes.like(dy, self), *(None,) * len(args))
    return self.item(*args), back


@pushforward(np.generic.item)
@pushforward(np.generic.tolist)
def generic_item_push(y, self, *args, dself, dargs):
    return float(dself) if isinstance(y, float) else dself


@adjoint(np.generic.astype)
def generic_astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    y = self.astype(dtype, order, casting, subok, copy)

    def back(dy):
        dself = numpy_shapes.like(dy, self) if np.dtype(dtype).kind in "fc" else None
        return (dself, None, None, None, None, None)
    return y, back


@pushforward(np.generic.astype)
def generic_astype_push(y, self, dtype, order="K", casting="unsafe", subok=True, copy=True, *, dself):
    return np.asarray(dself).astype(y.dtype)[()] if y.dtype.kind in "fc" else None


def item_index(x, args):
    """The index of ``x[...]`` that ``x.item(*args)`` reads: a flat
    position, a position per axis, or the one item of a one-item array."""
    if not args:
        if x.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return (0,) * x.ndim
    if len(args) == 1:
        (i,) = args
        return tuple(i) if isinstance(i, tuple) else np.unravel_index(i, x.shape)
    return args


@adjoint(np.fromiter)
def fromiter(iter, dtype, count=-1):
    items, start = runtime.take(iter)
    y = np.fromiter(items, dtype, count)

    def back(dy):
        if y.dtype.kind not in "fc":
            return (None, None, None)
        grads = [numpy_shapes.like(dy[k], items[k]) for k in range(len(y))]
        return (runtime.like_iterable(iter, grads, start), None, None)
    return y, back


@pushforward(np.fromiter)
def fromiter_push(y, iter, dtype, count=-1, *, diter):
    return numpy_shapes.tangent_as(numpy_shapes.dense(list(diter)[:len(y)], list(iter)[:len(y)]), y)
