# Gradients of ../../../examples/demo.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/demo.py -o demo_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   power  0eb1f13557835d73
#   foo    94a83e9d3a8e893f
#   X      911ba788cae2209c
#   layer  530d35eb5d7df992
#
# NAME_forward(*args) returns (y, pullback) and pullback(dy) the gradients
# (it may be called again); NAME_gradient(*args) returns the gradients;
# a method Class.name gives Class_name_forward(self, ...) and
# Class_name_gradient(self, ...).
# Parameters annotated int, bool, str or bytes, or with such a default,
# are not differentiated; float means a real number, np.ndarray a real
# array, and no annotation what the function's use of the parameter
# says (each function's kinds are listed above it, and checked when it
# runs); a dataclass whose fields are annotated so (or a method's self
# of one) gets a types.SimpleNamespace of its fields' gradients (the
# attributes of zpy.gradient's Tangent); a dict[str, float],
# dict[str, np.ndarray] or TypedDict so, a dict of its items' gradients
# (None for an item not read).
#
# Not differentiable:
#   main: main has no differentiated parameter (annotate one float or np.ndarray, or leave it unannotated)
#
# Not emitted (zpy emit --skip-failing):
#   central_difference (line 36): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import math
import numbers
import numpy as np
from demo import X


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# zygote_py.writer.standalone.real_arrays
def real_arrays(**values):
    """Raise ``TypeError`` unless each value is an array, the kind that a
    parameter annotated ``np.ndarray`` was emitted for: NumPy's, or another
    library's that NumPy's functions dispatch to (Dask's, CuPy's)."""
    for name, value in values.items():
        if not isinstance(value, np.ndarray) and (not any((getattr(type(value), p, None) is not None for p in ('__array_function__', '__array_ufunc__', '__array_namespace__')))):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for an array (a parameter annotated np.ndarray): pass np.asarray of it')


# zygote_py.runtime.unbroadcast
def unbroadcast(dy, x):
    """``dy`` summed down to the shape of ``x``, an operand that NumPy
    broadcast to the shape of ``dy``, with ``x``'s float dtype (a Python
    number ``x`` gets a Python number)."""
    if dy is None:
        return None
    shape = np.shape(x)
    dshape = np.shape(dy)
    if dshape != shape:
        extra = len(dshape) - len(shape)
        if extra >= 0:
            axes = tuple(range(extra)) + tuple((i + extra for i, n in enumerate(shape) if n == 1 and dshape[i + extra] != 1))
            if axes:
                dy = np.sum(dy, axis=axes, keepdims=True)
        if extra > 0:
            dy = np.reshape(dy, shape)
        elif np.shape(dy) != shape:
            dy = np.broadcast_to(dy, shape)
    if isinstance(x, np.generic) or hasattr(type(x), '__array_function__'):
        if x.dtype.kind in 'fc' and np.result_type(dy) != x.dtype:
            if np.iscomplexobj(dy) and x.dtype.kind != 'c':
                dy = np.real(dy)
            dy = (dy if hasattr(type(dy), '__array_function__') else np.asarray(dy)).astype(x.dtype)
        return dy[()] if isinstance(x, np.generic) and isinstance(dy, np.ndarray) else dy
    if isinstance(dy, (np.ndarray, np.generic)) and isinstance(x, (int, float)):
        dy = dy.item()
    return dy.real if isinstance(dy, complex) and (not isinstance(x, complex)) else dy


# zygote_py.runtime.user_gradient
def user_gradient(x, g):
    """The gradient ``g`` of the argument ``x`` as ``zpy.gradient`` returns
    it: an array of zeros for an array that this run's path did not
    reach."""
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and (g == 0):
        return np.zeros_like(x)
    return g


# zygote_py.runtime.spread
def spread(dy, a):
    """``dy`` broadcast to the shape of the array ``a``, with its dtype, as
    a new array of ``a``'s library (the gradient of ``a`` for a sum of it)."""
    zero = np.zeros_like(a)
    return (zero + dy).astype(zero.dtype, copy=False)


# zygote_py.rules.numpy_linalg.fit
def fit(g, x):
    """``g`` as the gradient of ``x``: summed down to ``x``'s shape where
    ``x`` was broadcast, real when ``x`` is real, of ``x``'s float dtype (a
    Python number for a number, an array for a list)."""
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if np.iscomplexobj(g) and (not np.iscomplexobj(x)):
        g = np.real(g)
    return unbroadcast(g, x)


# zygote_py.rules.numpy_linalg.real_matrices
def real_matrices(dy, x1, x2, least=2):
    """Whether ``x1 @ x2`` multiplies two arrays of one real dtype, ``dy``'s
    too, with ``least`` to 2 dimensions each: for two matrices its
    gradients are just ``dy @ x2.T`` and ``x1.T @ dy``."""
    return type(x1) is np.ndarray and type(x2) is np.ndarray and (least <= x1.ndim <= 2) and (least <= x2.ndim <= 2) and (x1.dtype is x2.dtype) and (x1.dtype.kind == 'f') and (getattr(dy, 'dtype', None) is x1.dtype)


# zygote_py.rules.numpy_linalg.sum_to
def sum_to(g, shape):
    """``g`` summed over the axes along which an array of ``shape`` was
    broadcast to ``g``'s shape."""
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple((extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1))
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


# zygote_py.rules.numpy_linalg.conj
def conj(x):
    """The complex conjugate, and ``x`` itself when it is real (no copy)."""
    return np.conj(x) if np.iscomplexobj(x) else x


# zygote_py.rules.numpy_linalg.mH
def mH(x):
    """The conjugate transposes of a stack of matrices."""
    return conj(np.swapaxes(x, -1, -2))


# zygote_py.rules.numpy_linalg.matmul_grad
def matmul_grad(dy, x1, x2, wrt):
    """The gradient of ``np.matmul(x1, x2)`` with respect to ``x1``
    (``wrt == 0``) or ``x2`` (``wrt == 1``): a 1-d ``x1`` is promoted to a
    row, a 1-d ``x2`` to a column, and batch dimensions are summed where the
    operand was broadcast."""
    if real_matrices(dy, x1, x2, 1) and (x1.ndim == 1 or x2.ndim == 1):
        if x1.ndim == 1 and x2.ndim == 1:
            return dy * (x2 if wrt == 0 else x1)
        if wrt == 0:
            return dy[:, None] * x2 if x1.ndim == 2 else x2 @ dy
        return x1[:, None] * dy if x2.ndim == 2 else dy @ x1
    a, b, g = [v if hasattr(type(v), '__array_function__') else np.asarray(v) for v in (x1, x2, dy)]
    if a.ndim == 1 and b.ndim == 1:
        return fit(g * conj(b), x1) if wrt == 0 else fit(g * conj(a), x2)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a.ndim == 1:
        g = np.expand_dims(g, -2)
    if b.ndim == 1:
        g = g[..., None]
    if wrt == 0:
        return fit(sum_to(g @ mH(b2), a2.shape).reshape(a.shape), x1)
    if b2.ndim == 2 and a2.ndim > 2:
        gb = mH(a2.reshape(-1, a2.shape[-1])) @ g.reshape(-1, g.shape[-1])
    else:
        gb = sum_to(mH(a2) @ g, b2.shape)
    return fit(gb.reshape(b.shape), x2)


# power (../../../examples/demo.py, line 12): x: a real number; n: a real number
def power_forward(x, n):
    real_numbers(x=x, n=n)
    trip = 0
    saved_r = []
    r = 1.0
    while n > 0:
        n -= 1
        saved_r.append(r)
        r *= x
        trip += 1

    def power_pullback(dr):
        saved_r_left = list(saved_r)
        dx = 0.0
        for _ in range(trip):
            r = saved_r_left.pop()
            dr_1 = dr * x
            dx = dx + dr * r
            dr = dr_1
        return (dx, None)
    return (r, power_pullback)


def power_gradient(x, n):
    real_numbers(x=x, n=n)
    trip = 0
    saved_r = []
    r = 1.0
    while n > 0:
        n -= 1
        saved_r.append(r)
        r *= x
        trip += 1
    dx, dr = (0.0, 1.0)
    for _ in range(trip):
        r = saved_r.pop()
        dr_1 = dr * x
        dx = dx + dr * r
        dr = dr_1
    return (dx, None)


# foo (../../../examples/demo.py, line 21): x: a real number
def foo_forward(x):
    real_numbers(x=x)
    a = math.sin(x)
    b = math.cos(a)

    def foo_pullback(db):
        return (-db * math.sin(a) * math.cos(x),)
    return (b, foo_pullback)


def foo_gradient(x):
    real_numbers(x=x)
    a = math.sin(x)
    return (-1.0 * math.sin(a) * math.cos(x),)


# layer (../../../examples/demo.py, line 31): W: a real array; b: a real array
def layer_forward(W, b):
    real_arrays(W=W, b=b)
    t_1 = W @ X
    t_2 = np.tanh(t_1 + b)
    t_3 = t_2 ** 2

    def layer_pullback(dy):
        t_4 = spread(dy, t_3) * (2.0 * t_2) * (1.0 - t_2 * t_2)
        db = unbroadcast(t_4, b)
        return (user_gradient(W, matmul_grad(unbroadcast(t_4, t_1), W, X, 0)), user_gradient(b, db))
    return (t_3.sum(), layer_pullback)


def layer_gradient(W, b):
    real_arrays(W=W, b=b)
    t_1 = W @ X
    t_2 = np.tanh(t_1 + b)
    t_4 = 2.0 * t_2 * 1.0 * (1.0 - t_2 * t_2)
    db = unbroadcast(t_4, b)
    return (user_gradient(W, matmul_grad(unbroadcast(t_4, t_1), W, X, 0)), user_gradient(b, db))
