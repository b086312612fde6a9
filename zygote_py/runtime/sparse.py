"""Sparse cotangents: the gradient of ``x[i]`` kept as the few values it
adds (:class:`Scatter`), and a 1-d array's gradient kept as a Python list
of its items' (:class:`Items`), each made dense by any use other than
accumulation; :func:`scatter` and :func:`add_to`, which make them.

May import: NumPy, :mod:`zygote_py.tangent`, :mod:`zygote_py.errors`.
"""
from __future__ import annotations

import collections
import math
import operator
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import tangent
from ..errors import NoDerivativeRule, in_zygote_py
from ..tangent import Tangent
from . import arrays


def scatter(x: Any, key: Any, dy: Any) -> Any:
    """The cotangent of ``x`` for a cotangent ``dy`` of ``x[key]``: zeros of
    ``x``'s shape and dtype with ``dy`` added at ``key`` (repeated indices
    add up). For a basic index that picks a small part of ``x`` (``x[i]``,
    ``x[i, j]``, a short slice) it is a :class:`Scatter`, which costs
    O(size of ``dy``), not O(size of ``x``)."""
    if dy is None:
        return None
    if type(key) is int and type(x) is np.ndarray and x.shape[0] >= 4 and (
        type(dy) is float or getattr(dy, "dtype", x.dtype).kind != "c"
    ):
        return Scatter(x.shape, x.dtype, [(key, dy)], 1, 1 if type(dy) is float else np.size(dy))  # x[i], first
    shape = np.shape(x)
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "fc":
        dtype = np.dtype(float)
    if np.iscomplexobj(dy) and dtype.kind != "c":
        dy = np.real(dy)  # a real input's gradient is real (the complex convention)
    basic = basic_index(key)
    lazy = next((v for v in (dy, x) if arrays.is_foreign(v)), None)
    if lazy is not None:  # (zeros of its library: a NumPy array would compute a Dask dy into it, or refuse CuPy's)
        g = np.zeros_like(lazy, dtype=dtype, shape=shape)
        if basic or _mask(key):
            g[key] = dy
            return g
        return _scatter_advanced(g, key, dy)
    if basic and np.size(dy) * 4 <= math.prod(shape):
        return Scatter(shape, dtype, [(key, dy)], 1, np.size(dy))
    g = np.zeros(shape, dtype)
    if basic or _mask(key):
        g[key] = dy  # no index repeats: assignment is the sum, and much faster than add.at
    else:
        np.add.at(g, key, dy)
    return g


def picked(g: Any, key: Any) -> Any:
    """``g[key]`` for a cotangent ``g`` (what :func:`scatter`'s ``dy`` gets
    back: its transpose), through :class:`Advanced` for another library's
    array indexed by integer arrays, which it may not take on several axes
    (Dask)."""
    g = arrays.asarray(dense(g))
    at = None if not arrays.is_foreign(g) or basic_index(key) or _mask(key) else Advanced.of(key, np.shape(g))
    if at is None:
        return g[key]
    part = at.moved(g)[(np.reshape(at.flat, -1), *at.slices)]
    return np.moveaxis(np.reshape(part, at.flat.shape + np.shape(part)[1:]), range(len(at.dims)), at.dims)


def _scatter_advanced(g: Any, key: Any, dy: Any) -> Any:
    """``g`` (zeros of another library) with ``dy`` added at ``key``, a key
    with NumPy integer arrays (``x[:, cols]``, ``x[rows, cols]``,
    ``x[..., idx]``, repeated indices), without ``np.add.at``, which such
    a library lacks: the axes the arrays index are moved first and made
    one, whose positions their broadcast arrays give (:class:`Advanced`),
    and each layer of distinct positions is added by assignment along it,
    lazily."""
    at = Advanced.of(key, np.shape(g))
    if at is None:
        raise NoDerivativeRule(
            f"the gradient of indexing a {type(g).__module__.split('.')[0]} array with {key!r}: integer "
            "arrays, masks and integers are supported, with slices (the index arrays of NumPy)",
            hint="index it with NumPy integer arrays, slices, integers or a boolean mask (no None, no index "
            "array of that library), or compute the array first",
        )
    moved = at.moved(g)
    d = np.moveaxis(np.broadcast_to(dy, at.result_shape), at.dims, range(len(at.dims)))
    d = np.reshape(d, (-1, *np.shape(d)[len(at.dims):]))
    positions = np.reshape(at.flat, -1)
    for layer in _unique_layers(positions):  # (each layer's positions are distinct: assignment adds them once)
        where = (positions[layer], *at.slices)
        moved[where] = moved[where] + d[layer]
    return at.back(moved)


@dataclass(frozen=True)
class Advanced:
    """A NumPy index with integer arrays (advanced indexing) laid out along
    one axis: ``x[key]`` is ``moved[flat, *slices]``, ``moved`` being ``x``
    with its axes in ``order`` (the indexed ones first, raveled into one),
    with the broadcast index's dimensions moved to ``dims``."""

    order: tuple
    flat: np.ndarray
    """Each picked element's position along the raveled indexed axes."""
    slices: tuple
    dims: tuple
    result_shape: tuple
    moved_shape: tuple
    """``x``'s shape in ``order``, before the indexed axes are raveled."""

    @property
    def basic_shape(self) -> tuple:
        return self.moved_shape[len(self.order) - len(self.slices):]

    @staticmethod
    def of(key: Any, shape: tuple) -> "Advanced | None":
        """The layout of ``key`` on an array of ``shape``, or ``None`` for
        a key it does not cover (``None`` among the parts, an index that is
        not a NumPy array, list, integer, slice or ``...``)."""
        parts: list = []
        for k in key if isinstance(key, tuple) else (key,):
            k = np.asarray(k) if isinstance(k, list) else k
            if isinstance(k, np.ndarray) and k.dtype == bool and k.ndim:
                parts.extend(np.nonzero(k))  # (a mask picks the positions of its True elements)
            elif isinstance(k, np.ndarray) and k.dtype.kind in "iu" or _basic_part(k) and k is not None:
                parts.append(k)
            else:
                return None
        ellipses = [i for i, k in enumerate(parts) if k is Ellipsis]
        if len(ellipses) > 1 or len(parts) - len(ellipses) > len(shape):
            return None
        if ellipses:
            parts[ellipses[0]:ellipses[0] + 1] = [slice(None)] * (len(shape) - len(parts) + 1)
        parts += [slice(None)] * (len(shape) - len(parts))
        indexed = [i for i, k in enumerate(parts) if not isinstance(k, slice)]
        rest = [i for i, k in enumerate(parts) if isinstance(k, slice)]
        flat = np.ravel_multi_index(np.broadcast_arrays(*(np.asarray(parts[i]) % shape[i] for i in indexed)),
                                    tuple(shape[i] for i in indexed))
        # (NumPy puts the index's dimensions where the indexed axes are, or first when they are apart)
        start = indexed[0] if indexed == list(range(indexed[0], indexed[-1] + 1)) else 0
        sliced = tuple(len(range(*parts[i].indices(shape[i]))) for i in rest)
        return Advanced(tuple(indexed + rest), flat, tuple(parts[i] for i in rest),
                        tuple(range(start, start + flat.ndim)), sliced[:start] + flat.shape + sliced[start:],
                        tuple(shape[i] for i in indexed + rest))

    def moved(self, x: Any) -> Any:
        """``x`` laid out as ``moved`` (its indexed axes first, as one)."""
        return np.reshape(np.transpose(x, self.order), (-1, *self.basic_shape))

    def back(self, moved: Any) -> Any:
        """The inverse of :meth:`moved`."""
        return np.transpose(np.reshape(moved, self.moved_shape), tuple(int(i) for i in np.argsort(self.order)))


def _unique_layers(rows: np.ndarray) -> list[np.ndarray]:
    """The positions of ``rows`` split into layers without a repeated row:
    the first occurrence of each row, then the second, and so on."""
    order = np.argsort(rows, kind="stable")
    ranked = rows[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]]) if len(rows) else np.zeros(0, int)
    rank = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)]))
    return [order[rank == r] for r in range(rank.max() + 1 if len(rows) else 0)]


def scatters(x: Any, keys: tuple, values: tuple) -> Any:
    """``scatter(x, k1, v1) + scatter(x, k2, v2) + ...``: the cotangent of
    ``x`` for cotangents of several of its parts at once (the four gates of
    an LSTM, sliced from one array). Written into one array of zeros when
    the keys are basic indices (no element is picked twice by one key) and
    the real values fill at least a quarter of ``x``; otherwise the sum of
    the scatters, which may stay sparse. (``values`` ``None``: no
    gradient.)"""
    parts = [(k, v) for k, v in zip(keys, values or ()) if v is not None]
    if not parts:
        return None
    if type(x) is np.ndarray and x.dtype.kind == "f" and all(
        basic_index(k) and (type(v) is float or not np.iscomplexobj(v) and getattr(v, "dtype", x.dtype).kind in "fiu")
        for k, v in parts
    ) and sum(np.size(v) for _, v in parts) * 4 > x.size:
        g = np.zeros(x.shape, x.dtype)
        for k, v in parts:
            g[k] += v
        return g
    total = scatter(x, *parts[0])
    for k, v in parts[1:]:
        total = total + scatter(x, k, v)
    return total


def _mask(key: Any) -> bool:
    """One boolean mask, alone or among basic indices (no index repeats)."""
    parts = key if isinstance(key, tuple) else (key,)
    masks = [k for k in parts if arrays.is_array(k) and k.dtype == bool]  # (another library's too: x[x > 0])
    return len(masks) == 1 and all(_basic_part(k) for k in parts if k is not masks[0])


def basic_index(key: Any) -> bool:
    """A NumPy basic index: integers and slices (no arrays, masks, lists)."""
    if isinstance(key, tuple):
        return all(_basic_part(k) for k in key)
    return isinstance(key, (int, np.integer, slice))


def _basic_part(k: Any) -> bool:
    return isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis


@arrays.own
class Lazy:
    """A cotangent kept in a cheaper form than a dense array, made dense
    (:meth:`dense`) by any use other than accumulation: arithmetic, a NumPy
    function, being returned to the user."""

    __slots__ = ()
    __array_priority__ = 1000
    shape: tuple
    dtype: Any

    def dense(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __array__(self, dtype=None, copy=None):
        g = self.dense()
        return g if dtype is None else g.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(i.dense() if isinstance(i, Lazy) else i for i in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return func(*dense(args), **dense(kwargs))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, (int, float)) and other == 0:
            return self
        return self.dense() + other

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, (int, float)) and other == 0:
            return self
        return other + self.dense()

    def __neg__(self) -> Any:
        return -self.dense()

    def __mul__(self, other: Any) -> Any:
        return self.dense() * other

    def __rmul__(self, other: Any) -> Any:
        return other * self.dense()

    def __sub__(self, other: Any) -> Any:
        return self + (-other if isinstance(other, Lazy) else -np.asarray(other))

    def __rsub__(self, other: Any) -> Any:
        return other + (-self)

    def __truediv__(self, other: Any) -> Any:
        return self.dense() / other

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dense(), name)

    def __getitem__(self, key: Any) -> Any:
        return self.dense()[key]


class Refused(Lazy):
    """The cotangent of an argument that has no derivative (a Bessel
    function's order, ``registry.constant_argument``) reached through a
    call dispatched at run time, where it is not known whether the caller
    differentiates the argument: it stays itself through the arithmetic of
    accumulation and the chain rule, and raises its ``error`` where it
    would be used as a value (made dense: returned to the user, converted to
    an array or a number). A caller that holds the argument constant drops
    it unseen."""

    __slots__ = ("error", "shape")
    dtype = np.dtype(float)

    def __init__(self, error: NoDerivativeRule, shape: tuple) -> None:
        self.error, self.shape = _at_callers_line(error), shape

    def dense(self) -> np.ndarray:
        raise self.error

    def __repr__(self) -> str:
        return f"<no gradient: {self.error.message}>"

    def __float__(self) -> float:
        raise self.error

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.shape, np.ndim, np.size):
            return func(np.broadcast_to(0.0, self.shape))
        return self

    def _same(self, *other: Any) -> "Refused":
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _same
    __neg__ = __pos__ = _same

    def __getitem__(self, key: Any) -> Any:
        return self


def _at_callers_line(error: NoDerivativeRule) -> NoDerivativeRule:
    """``error`` located at the innermost frame outside zygote_py: the
    user's code whose pullback is running (emitted code runs with the
    user's line numbers), the line of the call that made it."""
    frame = sys._getframe(1)
    while frame is not None and in_zygote_py(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None or error.function is not None:
        return error
    # (the emitted definitions are named after the user's function: f_gradient, f_pullback, see ad.pipeline)
    name = re.sub(r"(_forward|_gradient|_pullback|_jvp)+$", "", frame.f_code.co_name)
    return type(error)(error.message, function=name, filename=frame.f_code.co_filename, line=frame.f_lineno,
                       hint=error.hint)


class Scatter(Lazy):
    """A sparse cotangent ("Differentiating a Tensor Language", Bernstein et
    al. 2020, where an Iverson bracket keeps the gradient of ``x[i]`` from
    being a dense one-hot tensor): zeros of ``shape`` with values added at
    indices that pick no element twice (``x[i]``, a slice, a diagonal). The
    first ``count`` items of ``entries`` are this scatter's ``(key, value)``
    pairs; scatters made from one another share the list, and one extends
    it only when it owns its end (``count == len(entries)``), so adding one
    item is O(1) and no scatter ever sees another's later items. Adding two
    scatters joins them, or makes them dense when their values have as many
    elements as the array (the four gates of an LSTM, sliced from one
    array: their gradients are then written into one array, once, instead
    of on every use of the sum); multiplying by a number scales the values.
    ``filled``: the number of elements of the values (an element picked
    twice counts twice)."""

    __slots__ = ("shape", "dtype", "entries", "count", "filled")

    def __init__(self, shape: tuple, dtype: Any, entries: list, count: int, filled: int):
        self.shape, self.dtype, self.entries, self.count, self.filled = shape, dtype, entries, count, filled

    def dense(self) -> np.ndarray:
        g = np.zeros(self.shape, self.dtype)
        for key, value in self.entries[:self.count]:
            g[key] += value
        return g

    def plus(self, key: Any, value: Any) -> "Scatter":
        """This scatter with ``value`` added at ``key``."""
        entries = self.entries
        if len(entries) != self.count:
            entries = entries[:self.count]
        entries.append((key, value))
        return Scatter(self.shape, self.dtype, entries, self.count + 1,
                       self.filled + (1 if type(value) is float else np.size(value)))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, Scatter) and other.shape == self.shape:
            small, big = (other, self) if other.count <= self.count else (self, other)
            out = big
            for key, value in small.entries[:small.count]:
                out = out.plus(key, value)
            out = Scatter(out.shape, np.result_type(out.dtype, small.dtype), out.entries, out.count, out.filled)
            return out.dense() if out.filled >= math.prod(out.shape) else out
        return super().__add__(other)

    def __neg__(self) -> "Scatter":
        return self._map(operator.neg)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, (int, float, np.generic)) and np.ndim(other) == 0:
            return self._map(lambda v: v * other)
        return self.dense() * other

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, (int, float, np.generic)) and np.ndim(other) == 0:
            return self._map(lambda v: other * v)
        return other * self.dense()

    def __repr__(self) -> str:
        return f"Scatter(shape={self.shape}, {self.count} entries)"

    def _map(self, f: Callable) -> "Scatter":
        entries = [(key, f(value)) for key, value in self.entries[:self.count]]
        return Scatter(self.shape, self.dtype, entries, len(entries), self.filled)


class Items(Lazy):
    """The gradient of a one-dimensional array as a Python list of its
    items' gradients, which :func:`add_to` updates in place: ``g[i] += v``
    on a list costs a fraction of the same on an array, and a loop over
    items adds one per item."""

    __slots__ = ("shape", "dtype", "values")

    def __init__(self, shape: tuple, dtype: Any, values: list):
        self.shape, self.dtype, self.values = shape, dtype, values

    def dense(self) -> np.ndarray:
        try:
            return np.fromiter(self.values, self.dtype, len(self.values))
        except TypeError:  # a complex item: a real array's gradient is its real part (the convention)
            return np.array(self.values).real.astype(self.dtype)

    def __repr__(self) -> str:
        return f"Items(shape={self.shape})"


def add_at(g: Any, x: Any, key: Any, dy: Any) -> Any:
    """``g + scatter(x, key, dy)``: a gradient of ``x`` with one more
    item's gradient added, extending ``g`` when it is a scatter."""
    if type(g) is Scatter and type(key) is int and (type(dy) is float or getattr(dy, "dtype", None) == g.dtype):
        return g.plus(key, dy)
    return g + scatter(x, key, dy)


def add_to(g: Any, x: Any, key: Any, dy: Any) -> Any:
    """:func:`add_at` where the compiler knows that the variable holding
    ``g`` is not read again: an :class:`Items` that nothing else refers to
    (its reference count says so) is updated in place. The loop ``for i
    ...: s += x[i] * w`` costs one list update per item."""
    if type(g) is Items and type(key) is int and _getrefcount(g) <= UNSHARED:
        g.values[key] += dy
        return g
    if (
        type(key) is int and type(x) is np.ndarray and x.ndim == 1 and x.dtype.kind == "f"
        and (type(dy) is float or isinstance(dy, np.floating))
    ):
        if type(g) is Items:  # shared: keep it as it is, and add to a scatter over it
            return Scatter(g.shape, g.dtype, [(Ellipsis, g), (key, dy)], 2, x.shape[0] + 1)
        values = [0.0] * x.shape[0] if isinstance(g, (int, float)) and g == 0 else np.asarray(g).tolist()
        values[key] += dy
        return Items(x.shape, x.dtype, values)
    return add_at(g, x, key, dy)


def item_buffer(g: Any, x: np.ndarray) -> list:
    """The gradient ``g`` of the one-dimensional array ``x`` (0 or ``None``
    for none yet) as a list of its items' gradients, which a loop over
    items adds to (see :func:`item_gradient`)."""
    if g is None or isinstance(g, (int, float)) and g == 0:
        return [0.0] * len(x)
    return np.asarray(dense(g)).tolist()


def item_gradient(values: list, x: np.ndarray) -> Items:
    """The gradient of ``x`` that :func:`item_buffer`'s list holds."""
    return Items(x.shape, x.dtype, values)


def number_buffer(g: Any) -> Any:
    """The gradient ``g`` of a one-dimensional float array as a list of its
    items' gradients, which a loop that filled the array item by item
    reads and zeros, one item per step (see :func:`number_gradient`); for
    no gradient (0 or ``None``), a dict whose every item reads 0.0."""
    if g is None or isinstance(g, (int, float)) and g == 0:
        return collections.defaultdict(float)
    return np.asarray(dense(g)).tolist()


def number_gradient(values: Any) -> Any:
    """The gradient that :func:`number_buffer`'s list holds (0 for its dict:
    zeros are all it was given)."""
    return np.array(values) if type(values) is list else 0


_getrefcount = sys.getrefcount


def _references(g: Any) -> int:
    return _getrefcount(g)


def _unshared() -> int:
    """The reference count :func:`add_to` sees for an object that only its
    caller's variable holds (the variable, the argument, getrefcount's own)."""
    g = Items((0,), np.dtype(float), [])
    return _references(g)


UNSHARED = _unshared()
"""The reference count a function sees for an argument that only its caller's
variable holds (see :func:`add_to`)."""


def dense(grads: Any) -> Any:
    """Gradients with every lazy cotangent (a :class:`Scatter`, an
    :class:`Items`) made dense, inside tuples, lists, dicts and tangents
    too."""
    if isinstance(grads, Lazy):
        return grads.dense()
    if isinstance(grads, (tuple, list)):
        items = [dense(v) for v in grads]
        return type(grads)(*items) if hasattr(grads, "_fields") else type(grads)(items)
    if isinstance(grads, dict):
        return {k: dense(v) for k, v in grads.items()}
    if isinstance(grads, Tangent):
        return Tangent(**{k: dense(v) for k, v in tangent.values(grads).items()})
    return grads
