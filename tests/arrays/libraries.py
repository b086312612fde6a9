"""The array libraries the tests of :mod:`tests.arrays` run on: each
converts NumPy test data to its arrays and back, and says how to check that
nothing was computed (Dask) or moved off the device (CuPy). A library that
is not installed, or CuPy without a GPU, gives a skipped test. ``device``
is :class:`tests.arrays.device.Device`, CuPy's stand-in where no GPU is:
it refuses copies to the host and NumPy operands as CuPy does."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest


@dataclass(frozen=True)
class Library:
    name: str
    array_type: type
    make: Callable[[np.ndarray], Any]
    to_numpy: Callable[[Any], np.ndarray]
    untouched: Callable[[], contextlib.AbstractContextManager]
    """A context in which a library's array is never computed (Dask) or copied to the host (CuPy)."""
    takes_numpy: bool = True
    """Whether its arrays and NumPy's mix in one operation (CuPy refuses it: ``TypeError``)."""


def _dask() -> Library:
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")

    def forbid(dsk, keys, **kwargs):
        raise AssertionError("a Dask array was computed")

    return Library("dask", da.Array, lambda a: da.from_array(a, chunks=tuple(max(1, n // 2) for n in a.shape)),
                   lambda a: np.asarray(a.compute()), lambda: dask.config.set(scheduler=forbid))


def _cupy() -> Library:
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy is installed but sees no GPU")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("CuPy is installed but sees no GPU")
    # (CuPy refuses implicit copies to the host: np.asarray(cupy_array) raises TypeError)
    return Library("cupy", cp.ndarray, cp.asarray, cp.asnumpy, contextlib.nullcontext, takes_numpy=False)


def _device() -> Library:
    from tests.arrays.device import Device

    return Library("device", Device, lambda a: Device(np.array(a)), Device.get, contextlib.nullcontext,
                   takes_numpy=False)


LIBRARIES = {"dask": _dask, "cupy": _cupy, "device": _device}

