"""A stand-in for CuPy where no GPU is: :class:`Device`, an array held in
NumPy that behaves as CuPy's does at the boundary of the host. It takes
part in NumPy's functions and ufuncs (``__array_function__``,
``__array_ufunc__``), and refuses what CuPy refuses:

- an implicit copy to the host (``np.asarray(x)``, ``np.array(x)``: its
  ``__array__`` raises ``TypeError``); ``x.get()`` is the explicit one, and
  ``np.asarray(v, like=x)`` the explicit copy of NumPy data to the device;
- a NumPy array mixed with it in a ufunc or an operator (CuPy raises
  ``TypeError: Unsupported type <class 'numpy.ndarray'>``), or a NumPy
  array of floats passed with it to a NumPy function (integer and boolean
  ones, indices, are let through: CuPy takes them as indices).

Reductions give 0-d arrays, as CuPy's do (not NumPy scalars). Running
zygote_py's tests on it finds the rules and helpers that would move a
CuPy array to the host or mix it with NumPy's."""
from __future__ import annotations

from typing import Any

import numpy as np


class Device(np.lib.mixins.NDArrayOperatorsMixin):
    """An array "on the device" (see the module)."""

    __slots__ = ("_a",)

    def __init__(self, a: np.ndarray):
        self._a = a

    def get(self) -> np.ndarray:
        """A copy on the host (CuPy's ``ndarray.get``)."""
        return self._a.copy()

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed (a Device array; use .get())")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        result = getattr(ufunc, method)(*(_device(i, "ufunc") for i in inputs),
                                        **{k: _device(v, "ufunc") for k, v in kwargs.items()})
        return None if method == "at" else _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        if func in _COPIES_TO_DEVICE:  # (np.asarray(v, like=x): the explicit copy, as cp.asarray(v) is)
            return Device(np.array(*_device(args, "index"), **_device(kwargs, "index")))
        return _wrap(func(*_device(args, "function"), **_device(kwargs, "function")))

    def __getitem__(self, key):
        return _wrap(self._a[_device(key, "index")])

    def __setitem__(self, key, value):
        self._a[_device(key, "index")] = _device(value, "ufunc")

    def __copy__(self) -> "Device":
        return Device(self._a.copy())

    def __deepcopy__(self, memo) -> "Device":
        return Device(self._a.copy())

    def __getattr__(self, name):  # (data attributes: real, imag, strides...; methods are defined below)
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._a, name)
        if callable(value):
            raise AttributeError(f"Device has no method {name!r}")
        return _wrap(value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __float__(self) -> float:  # (an explicit, synchronising read, as CuPy allows)
        return float(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __bool__(self) -> bool:
        return bool(self._a)

    def __repr__(self) -> str:
        return f"Device({self._a!r})"

    @property
    def shape(self) -> tuple:
        return self._a.shape

    @property
    def dtype(self) -> np.dtype:
        return self._a.dtype

    @property
    def ndim(self) -> int:
        return self._a.ndim

    @property
    def size(self) -> int:
        return self._a.size

    @property
    def T(self) -> "Device":
        return Device(self._a.T)


def _method(name: str):
    def method(self, *args, **kwargs):
        return _wrap(getattr(self._a, name)(*_device(args, "function"), **_device(kwargs, "function")))
    method.__name__ = method.__qualname__ = name
    return method


for _name in ("all any argmax argmin argsort astype clip conj conjugate copy cumprod cumsum diagonal dot flatten "
              "item max mean min nonzero prod ravel repeat reshape round squeeze std sum swapaxes take tolist "
              "trace transpose var").split():
    setattr(Device, _name, _method(_name))  # (real methods, bound as CuPy's are: zygote_py gives them ndarray's rules)


_COPIES_TO_DEVICE = (np.asarray, np.array)
"""NumPy's functions that copy NumPy data to the device when called with
``like=`` a device array (NEP 35; NumPy hands only such calls of them on to
``__array_function__``), as ``cp.asarray(numpy_array)`` does."""


def _device(v: Any, where: str) -> Any:
    """``v`` with its :class:`Device` arrays as their NumPy arrays, refusing
    the NumPy arrays CuPy refuses ``where`` (see the module)."""
    if isinstance(v, Device):
        return v._a
    if isinstance(v, np.ndarray):
        if where == "ufunc" or where == "function" and v.dtype.kind not in "biu":
            raise TypeError(f"Unsupported type {type(v)} (a NumPy array mixed with a Device array in a {where})")
        return v
    if isinstance(v, (tuple, list)):
        return type(v)(_device(i, where) for i in v)
    if isinstance(v, dict):
        return {k: _device(i, where) for k, i in v.items()}
    return v


def _wrap(v: Any) -> Any:
    """A NumPy result as the device's: arrays and NumPy scalars as
    :class:`Device` arrays (CuPy's reductions give 0-d arrays)."""
    if isinstance(v, (np.ndarray, np.generic)):
        return Device(np.asarray(v))
    if isinstance(v, (tuple, list)):
        items = [_wrap(i) for i in v]
        return type(v)(*items) if hasattr(v, "_fields") else type(v)(items)  # (np.linalg's results: namedtuples)
    return v
