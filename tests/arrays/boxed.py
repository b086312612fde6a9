"""A small array class written in Python, as pydata ``sparse`` and other
libraries write theirs: :class:`Boxed` holds a NumPy array in a field and
takes part in NumPy's functions and ufuncs (``__array_function__``,
``__array_ufunc__``). Its methods are plain Python functions (not bound
built-ins, as Dask's and CuPy's are), and it has methods, a property and a
field of its own, none of ``np.ndarray``'s, which zygote_py must refuse
rather than differentiate (their derivative would be taken for zero)."""
from __future__ import annotations

import numpy as np


def _unboxed(v):
    if isinstance(v, Boxed):
        return v.data
    if isinstance(v, (tuple, list)):
        return type(v)(_unboxed(i) for i in v)
    return v


def _boxed(v):
    return Boxed(v) if isinstance(v, (np.ndarray, np.generic)) else v


class Boxed(np.lib.mixins.NDArrayOperatorsMixin):
    """An array held in NumPy (see the module)."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        result = getattr(ufunc, method)(*_unboxed(inputs), **{k: _unboxed(v) for k, v in kwargs.items()})
        return None if method == "at" else _boxed(result)

    def __array_function__(self, func, types, args, kwargs):
        return _boxed(func(*_unboxed(args), **{k: _unboxed(v) for k, v in kwargs.items()}))

    def __getitem__(self, key):
        return _boxed(self.data[_unboxed(key)])

    def __setitem__(self, key, value):
        self.data[_unboxed(key)] = _unboxed(value)

    def __len__(self):
        return len(self.data)

    def __float__(self):
        return float(self.data)

    @property
    def shape(self):
        return self.data.shape

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def T(self):
        return Boxed(self.data.T)

    def sum(self, axis=None, keepdims=False):
        return _boxed(self.data.sum(axis, keepdims=keepdims))

    def astype(self, dtype, copy=True):
        return Boxed(self.data.astype(dtype, copy=copy))

    def copy(self):
        return Boxed(self.data.copy())

    def reshape(self, *shape):
        return Boxed(self.data.reshape(*shape))

    # its own, none of np.ndarray's:

    def squares(self):
        return Boxed(self.data ** 2)

    @property
    def doubled(self):
        return Boxed(self.data * 2)
