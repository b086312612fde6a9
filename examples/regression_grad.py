# Gradients of regression.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit regression.py -o regression_grad.py
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   L2       e7ec14a0312ff031
#   predict  9f077ce8ece37ece
#   loss     740519af85b43412
#   growth   d9e218cbfe159054
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

import math
import numbers as numbers_1
import numpy as np

L2 = 0.01
inf = float('inf')


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers_1.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# zygote_py.writer.standalone.real_arrays
def real_arrays(**values):
    """Raise ``TypeError`` unless each value is an array, the kind that a
    parameter annotated ``np.ndarray`` was emitted for: NumPy's, or another
    library's that NumPy's functions dispatch to (Dask's, CuPy's)."""
    for name, value in values.items():
        if not isinstance(value, np.ndarray) and (not any((getattr(type(value), p, None) is not None for p in ('__array_function__', '__array_ufunc__', '__array_namespace__')))):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for an array (a parameter annotated np.ndarray): pass np.asarray of it')


# zygote_py.writer.standalone.real_parameters
def real_parameters(numbers, arrays):
    """``real_numbers(**numbers)`` and ``real_arrays(**arrays)``: the
    parameters of both kinds checked in one line."""
    real_numbers(**numbers)
    real_arrays(**arrays)


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


# zygote_py.runtime.user_gradient
def user_gradient(x, g):
    """The gradient ``g`` of the argument ``x`` as ``zpy.gradient`` returns
    it: an array of zeros for an array that this run's path did not
    reach."""
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and (g == 0):
        return np.zeros_like(x)
    return g


# zygote_py.runtime.seed
def seed(y):
    """The cotangent 1 for the real scalar output ``y``, of ``y``'s type
    (of its library for an array: NumPy's, Dask's, CuPy's)."""
    if type(y) is float:
        return 1.0
    if hasattr(type(y), '__array_function__') and y.ndim == 0 and (y.dtype.kind in 'fiu'):
        return np.ones_like(y) if y.dtype.kind == 'f' else 1
    if isinstance(y, np.floating):
        return y.dtype.type(1)
    if isinstance(y, (int, np.integer)) and (not isinstance(y, bool)):
        return 1
    raise TypeError(f'a gradient needs a real scalar output, not {type(y).__name__} {np.shape(y)}')


# zygote_py.runtime.spread
def spread(dy, a):
    """``dy`` broadcast to the shape of the array ``a``, with its dtype, as
    a new array of ``a``'s library (the gradient of ``a`` for a sum of it)."""
    zero = np.zeros_like(a)
    return (zero + dy).astype(zero.dtype, copy=False)


# predict (regression.py, line 18): w: a real array; b: a real number; x: a real array
def predict_forward(w, b, x):
    real_parameters(numbers=dict(b=b), arrays=dict(w=w, x=x))
    t_1 = np.tanh(x @ w + b)

    def predict_pullback(dy):
        t_2 = dy * (1.0 - t_1 * t_1)
        db = unbroadcast(t_2, b)
        dx, dw = (matmul_grad(t_2, x, w, 0), matmul_grad(t_2, x, w, 1))
        return (user_gradient(w, dw), db, user_gradient(x, dx))
    return (t_1, predict_pullback)


def predict_gradient(w, b, x):
    real_parameters(numbers=dict(b=b), arrays=dict(w=w, x=x))
    t_1 = np.tanh(x @ w + b)
    t_2 = seed(t_1) * (1.0 - t_1 * t_1)
    db = unbroadcast(t_2, b)
    dx, dw = (matmul_grad(t_2, x, w, 0), matmul_grad(t_2, x, w, 1))
    return (user_gradient(w, dw), db, user_gradient(x, dx))


# loss (regression.py, line 22): w: a real array; b: a real number; x: a real array; y: a real array
def loss_forward(w, b, x, y):
    real_parameters(numbers=dict(b=b), arrays=dict(w=w, x=x, y=y))
    t_1 = np.tanh(x @ w + b)
    r = t_1 - y
    t_2 = w * w
    penalty = L2 * t_2.sum()
    path = penalty > 1.0
    if path:
        penalty = np.sqrt(penalty)
    t_5 = r * r
    t_6 = t_5.mean()

    def loss_pullback(dout):
        dpenalty = unbroadcast(dout, penalty)
        dr = 2 * unbroadcast(spread(unbroadcast(dout, t_6) / max(math.prod(np.shape(t_5)), 1), t_5) * r, r)
        if path:
            dpenalty = dpenalty / (2.0 * penalty)
        dw = 2 * unbroadcast(spread(dpenalty * L2, t_2) * w, w)
        dy = -unbroadcast(dr, y)
        t_7 = unbroadcast(dr, t_1) * (1.0 - t_1 * t_1)
        db = unbroadcast(t_7, b)
        dx = matmul_grad(t_7, x, w, 0)
        dw = dw + matmul_grad(t_7, x, w, 1)
        return (user_gradient(w, dw), db, user_gradient(x, dx), user_gradient(y, dy))
    return (t_6 + penalty, loss_pullback)


def loss_gradient(w, b, x, y):
    real_parameters(numbers=dict(b=b), arrays=dict(w=w, x=x, y=y))
    t_1 = np.tanh(x @ w + b)
    r = t_1 - y
    penalty = L2 * (w * w).sum()
    path = penalty > 1.0
    if path:
        penalty = np.sqrt(penalty)
    t_6 = (r * r).mean()
    dout = seed(t_6 + penalty)
    dpenalty = unbroadcast(dout, penalty)
    dr = 2 * unbroadcast(r * (unbroadcast(dout, t_6) / max(math.prod(np.shape(r)), 1)), r)
    if path:
        dpenalty = dpenalty / (2.0 * penalty)
    dw = 2 * unbroadcast(w * (dpenalty * L2), w)
    dy = -unbroadcast(dr, y)
    t_7 = unbroadcast(dr, t_1) * (1.0 - t_1 * t_1)
    db = unbroadcast(t_7, b)
    dx = matmul_grad(t_7, x, w, 0)
    dw = dw + matmul_grad(t_7, x, w, 1)
    return (user_gradient(w, dw), db, user_gradient(x, dx), user_gradient(y, dy))


# growth (regression.py, line 30): rate: a real number; steps: not differentiated (int)
def growth_forward(rate, steps):
    real_numbers(rate=rate)
    saved_path = []
    trip = 0
    saved_v = []
    saved_t = []
    t = 1.0 + rate
    v = 1.0
    for _ in range(steps):
        saved_v.append(v)
        v = v * t
        if v > 10.0:
            t_1 = math.sqrt(v - 9.0)
            saved_t.append(t_1)
            v = 10.0 + t_1
            saved_path.append(0)
        else:
            saved_path.append(1)
        trip += 1

    def growth_pullback(dv):
        saved_path_left = list(saved_path)
        saved_t_left = list(saved_t)
        saved_v_left = list(saved_v)
        t_1 = 0.0
        for _ in range(trip):
            path = saved_path_left.pop()
            if path == 0:
                t_3 = saved_t_left.pop()
                if t_3:
                    dv = dv / (2 * t_3)
                else:
                    dv = dv * inf
            v = saved_v_left.pop()
            dv, t_1 = (dv * t, t_1 + dv * v)
        return (t_1, None)
    return (v, growth_pullback)


def growth_gradient(rate, steps):
    real_numbers(rate=rate)
    saved_path = []
    trip = 0
    saved_v = []
    saved_t = []
    t = 1.0 + rate
    v = 1.0
    for _ in range(steps):
        saved_v.append(v)
        v = v * t
        if v > 10.0:
            t_1 = math.sqrt(v - 9.0)
            saved_t.append(t_1)
            v = 10.0 + t_1
            saved_path.append(0)
        else:
            saved_path.append(1)
        trip += 1
    dv, t_1 = (1.0, 0.0)
    for _ in range(trip):
        path = saved_path.pop()
        if path == 0:
            t_3 = saved_t.pop()
            if t_3:
                dv = dv / (2 * t_3)
            else:
                dv = dv * inf
        v = saved_v.pop()
        dv, t_1 = (dv * t, t_1 + dv * v)
    return (t_1, None)
