# Gradients of ../../../examples/lstm.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/lstm.py -o lstm_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   sigmoid    30a021ef7a8e28e0
#   lstm_loss  195d73352330e587
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
#   main: main is a main function
#
# Not emitted (zpy emit --skip-failing):
#   adding_problem (line 47): changing `row` in place, which may share its memory or items with another value (a view such as y[1:], an item of a container, a function's result, or a global) (change a copy made in this function (y = y.copy(), l = list(l)), or index the original directly (y[1 + i] = v rather than t = y[1:]; t[i] = v))
#   adam (line 70): changing `v` in place, which may share its memory or items with another value (a view such as y[1:], an item of a container, a function's result, or a global) (change a copy made in this function (y = y.copy(), l = list(l)), or index the original directly (y[1 + i] = v rather than t = y[1:]; t[i] = v))
#   init (line 56): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import math
import numpy as np
import types


# zygote_py.writer.standalone.real_arrays
def real_arrays(**values):
    """Raise ``TypeError`` unless each value is an array, the kind that a
    parameter annotated ``np.ndarray`` was emitted for: NumPy's, or another
    library's that NumPy's functions dispatch to (Dask's, CuPy's)."""
    for name, value in values.items():
        if not isinstance(value, np.ndarray) and (not any((getattr(type(value), p, None) is not None for p in ('__array_function__', '__array_ufunc__', '__array_namespace__')))):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for an array (a parameter annotated np.ndarray): pass np.asarray of it')


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


# zygote_py.writer.standalone.add_in_layers
def add_in_layers(g, key, dy):
    """``g``, an array of a library without ``np.add.at`` (Dask's), with
    ``dy`` added at ``key``, an index with integer arrays whose positions
    may repeat: the flat positions ``key`` picks (read off NumPy's
    ``arange`` of ``g``'s shape) are added by assignment, in layers of
    distinct positions: the first occurrence of each, then the second..."""
    shape = np.shape(g)
    picked = np.arange(math.prod(shape)).reshape(shape)[key]
    positions = np.reshape(picked, -1)
    values = np.reshape(np.broadcast_to(dy, np.shape(picked)), (-1,))
    flat = np.reshape(g, (-1,))
    left = np.arange(positions.size)
    while left.size:
        _, firsts = np.unique(positions[left], return_index=True)
        layer = left[firsts]
        flat[positions[layer]] = flat[positions[layer]] + values[layer]
        left = np.delete(left, firsts)
    return np.reshape(flat, shape)


# zygote_py.runtime.scatter
def scatter(x, key, dy):
    """The gradient of ``x`` for a gradient ``dy`` of ``x[key]``: zeros of
    ``x``'s shape with ``dy`` added at ``key`` (repeated indices add up);
    zeros of another library's array where ``dy`` or ``x`` is one (that
    library has no ``np.add.at``: ``dy`` is assigned, or added in layers
    for integer arrays, see :func:`add_in_layers`)."""
    if dy is None:
        return None
    dtype = getattr(x, 'dtype', None)
    dtype = dtype if dtype is not None and dtype.kind in 'fc' else np.dtype(float)
    dy = np.real(dy) if dtype.kind != 'c' else dy
    lazy = [v for v in (dy, x) if hasattr(type(v), '__array_function__') and (not isinstance(v, (np.ndarray, np.generic)))]
    if lazy:
        g = np.zeros_like(lazy[0], dtype=dtype, shape=np.shape(x))
        if any((isinstance(k, list) or (np.ndim(k) and getattr(k, 'dtype', None) != bool) for k in (key if isinstance(key, tuple) else (key,)))):
            return add_in_layers(g, key, dy)
        g[key] = dy
        return g
    g = np.zeros(np.shape(x), dtype)
    np.add.at(g, key, dy)
    return g


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


# zygote_py.runtime.key_gradient
def key_gradient(obj, key, dy):
    """The gradient of the dict ``obj`` for a gradient ``dy`` of its item
    ``key``: a dict with its keys, ``None`` for the others (a read the
    compiler knows to be one: see ``analysis.items_kind``)."""
    return {k: dy if k == key else None for k in obj}


# zygote_py.runtime.accum
def accum(a, b):
    """The sum of two gradients of the same value, ``None`` being zero;
    tuples, lists, dicts and the namespaces of :func:`field_gradient` add
    item by item."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, types.SimpleNamespace):
        return types.SimpleNamespace(**{k: accum(v, getattr(b, k)) for k, v in vars(a).items()})
    if isinstance(a, (tuple, list)):
        items = [accum(u, v) for u, v in zip(a, b)]
        return items if isinstance(a, list) else tuple(items)
    if isinstance(a, dict):
        total = dict(a)
        for key, value in b.items():
            total[key] = accum(total.get(key), value)
        return total
    return a + b


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


# zygote_py.runtime.scatters
def scatters(x, keys, values):
    """``scatter(x, k1, v1) + scatter(x, k2, v2) + ...``."""
    total = None
    for key, dy in zip(keys, values):
        if dy is not None:
            g = scatter(x, key, dy)
            total = g if total is None else total + g
    return total


# zygote_py.runtime.add_into
def add_into(g, v):
    """``g + v``, where ``g`` is a gradient summed around a loop that an
    earlier ``+`` made (so nothing else holds it): added in place when both
    are arrays of one shape and dtype, which saves an array per
    iteration."""
    if type(g) is np.ndarray and type(v) is np.ndarray and (g.shape == v.shape) and (g.dtype is v.dtype):
        g += v
        return g
    return g + v


# sigmoid (../../../examples/lstm.py, line 19): z: a real array
def sigmoid_forward(z):
    real_arrays(z=z)
    t = np.exp(-z)
    t_1 = 1.0 + t
    t_2 = 1.0 / t_1

    def sigmoid_pullback(dy):
        return (user_gradient(z, dy * (t_2 / t_1) * t),)
    return (t_2, sigmoid_pullback)


def sigmoid_gradient(z):
    real_arrays(z=z)
    t = np.exp(-z)
    t_1 = 1.0 + t
    t_2 = 1.0 / t_1
    dy = seed(t_2)
    return (user_gradient(z, dy * (t_2 / t_1) * t),)


# lstm_loss (../../../examples/lstm.py, line 23): params: a dict (read by key) of Wx (a real array), Wh (a real array), b (a real array), by (a real array), Wy (a real array); X: a real array (used as one); y: a real array (used as one)
def lstm_loss_forward(params, X, y):
    real_arrays(params_Wh=params['Wh'], params_Wx=params['Wx'], params_Wy=params['Wy'], params_b=params['b'], params_by=params['by'], X=X, y=y)
    trip = 0
    saved_t = []
    saved_t_1 = []
    saved_h = []
    saved_t_2 = []
    saved_t_3 = []
    saved_t_4 = []
    saved_t_5 = []
    saved_z = []
    saved_t_6 = []
    saved_t_7 = []
    saved_t_8 = []
    saved_t_9 = []
    saved_t_10 = []
    saved_t_11 = []
    saved_t_12 = []
    saved_t_13 = []
    saved_t_14 = []
    saved_t_15 = []
    saved_t_16 = []
    saved_t_17 = []
    saved_g = []
    saved_c = []
    saved_t_18 = []
    saved_t_19 = []
    saved_t_20 = []
    Wx = params['Wx']
    Wh = params['Wh']
    b = params['b']
    hidden = len(Wh)
    h_1 = np.zeros((X.shape[0], hidden))
    c = np.zeros((X.shape[0], hidden))
    t_6 = slice(None, None, None)
    t_7 = slice(None, None, None)
    t_8 = slice(None, None, None)
    t_9 = slice(None, None, None)
    t_10 = slice(None, None, None)
    t_11 = slice(None, None, None)
    for t_12 in range(X.shape[1]):
        t_14 = (t_6, t_12, t_7)
        saved_t.append(t_14)
        t_14 = X[t_14]
        saved_t_1.append(t_14)
        t_14 = t_14 @ Wx
        saved_t_2.append(t_14)
        saved_h.append(h_1)
        t_15 = h_1 @ Wh
        saved_t_3.append(t_15)
        t_14 = t_14 + t_15
        saved_t_4.append(t_14)
        z = t_14 + b
        saved_z.append(z)
        t_14 = (t_8, slice(None, hidden, None))
        saved_t_5.append(t_14)
        t_14 = np.exp(-z[t_14])
        saved_t_6.append(t_14)
        t_14 = 1.0 + t_14
        saved_t_7.append(t_14)
        t_14 = 1.0 / t_14
        saved_t_8.append(t_14)
        t_15 = (t_9, slice(hidden, 2 * hidden, None))
        saved_t_9.append(t_15)
        t_15 = np.exp(-z[t_15])
        saved_t_10.append(t_15)
        t_15 = 1.0 + t_15
        saved_t_11.append(t_15)
        t_15 = 1.0 / t_15
        saved_t_12.append(t_15)
        t_16 = (t_10, slice(2 * hidden, 3 * hidden, None))
        saved_t_13.append(t_16)
        t_16 = np.exp(-z[t_16])
        saved_t_14.append(t_16)
        t_16 = 1.0 + t_16
        saved_t_15.append(t_16)
        t_16 = 1.0 / t_16
        saved_t_16.append(t_16)
        t_17 = (t_11, slice(3 * hidden, None, None))
        saved_t_17.append(t_17)
        g = np.tanh(z[t_17])
        saved_g.append(g)
        saved_c.append(c)
        t_15 = t_15 * c
        saved_t_18.append(t_15)
        t_14 = t_14 * g
        saved_t_19.append(t_14)
        c = t_15 + t_14
        t_14 = np.tanh(c)
        saved_t_20.append(t_14)
        h_1 = t_16 * t_14
        trip += 1
    h = h_1
    Wy = params['Wy']
    t = h_1 @ Wy
    by = params['by']
    prediction = t + by
    t_1 = (slice(None, None, None), 0)
    t_2 = prediction[t_1]
    t_3 = t_2 - y
    t_4 = t_3 ** 2
    t_5 = t_4.mean()

    def lstm_loss_pullback(dout):
        saved_c_left = list(saved_c)
        saved_g_left = list(saved_g)
        saved_h_left = list(saved_h)
        saved_t_left = list(saved_t)
        saved_t_1_left = list(saved_t_1)
        saved_t_10_left = list(saved_t_10)
        saved_t_11_left = list(saved_t_11)
        saved_t_12_left = list(saved_t_12)
        saved_t_13_left = list(saved_t_13)
        saved_t_14_left = list(saved_t_14)
        saved_t_15_left = list(saved_t_15)
        saved_t_16_left = list(saved_t_16)
        saved_t_17_left = list(saved_t_17)
        saved_t_18_left = list(saved_t_18)
        saved_t_19_left = list(saved_t_19)
        saved_t_2_left = list(saved_t_2)
        saved_t_20_left = list(saved_t_20)
        saved_t_3_left = list(saved_t_3)
        saved_t_4_left = list(saved_t_4)
        saved_t_5_left = list(saved_t_5)
        saved_t_6_left = list(saved_t_6)
        saved_t_7_left = list(saved_t_7)
        saved_t_8_left = list(saved_t_8)
        saved_t_9_left = list(saved_t_9)
        saved_z_left = list(saved_z)
        t_6 = spread(dout / max(math.prod(np.shape(t_4)), 1), t_4) * (2.0 * t_3)
        dy = -unbroadcast(t_6, y)
        dprediction = scatter(prediction, t_1, unbroadcast(t_6, t_2))
        t_6 = unbroadcast(dprediction, t)
        dby = unbroadcast(dprediction, by)
        dparams = key_gradient(params, 'by', dby)
        dh, dWy = (matmul_grad(t_6, h, Wy, 0), matmul_grad(t_6, h, Wy, 1))
        dparams = accum(dparams, key_gradient(params, 'Wy', dWy))
        dX, dWx, dWh, db, dc = (0, 0, 0, 0, 0)
        for _ in range(trip):
            t_6 = saved_t_20_left.pop()
            t_7 = saved_t_19_left.pop()
            t_9 = saved_t_18_left.pop()
            c = saved_c_left.pop()
            g = saved_g_left.pop()
            t_10 = saved_t_17_left.pop()
            t_11 = saved_t_16_left.pop()
            t_12 = saved_t_15_left.pop()
            t_13 = saved_t_14_left.pop()
            t_14 = saved_t_13_left.pop()
            t_15 = saved_t_12_left.pop()
            t_16 = saved_t_11_left.pop()
            t_17 = saved_t_10_left.pop()
            t_18 = saved_t_9_left.pop()
            t_19 = saved_t_8_left.pop()
            t_20 = saved_t_7_left.pop()
            t_21 = saved_t_6_left.pop()
            z = saved_z_left.pop()
            t_22 = saved_t_5_left.pop()
            t_23 = saved_t_4_left.pop()
            t_24 = saved_t_3_left.pop()
            t_25 = saved_t_2_left.pop()
            h_1 = saved_h_left.pop()
            t_26 = saved_t_1_left.pop()
            t_27 = saved_t_left.pop()
            dc = dc + unbroadcast(dh * t_11, t_6) * (1.0 - t_6 * t_6)
            t_9 = unbroadcast(dc, t_9)
            t_7 = unbroadcast(dc, t_7)
            dg = unbroadcast(t_7 * t_19, g)
            dc = unbroadcast(t_9 * t_15, c)
            dz_part = dg * (1.0 - g * g)
            dz_part_1 = unbroadcast(dh * t_6, t_11) * (t_11 / t_12) * t_13
            dz_part_2 = unbroadcast(t_9 * c, t_15) * (t_15 / t_16) * t_17
            dz_part_3 = unbroadcast(t_7 * g, t_19) * (t_19 / t_20) * t_21
            dz = scatters(z, (t_10, t_14, t_18, t_22), (dz_part, dz_part_1, dz_part_2, dz_part_3))
            t_6 = unbroadcast(dz, t_23)
            db = add_into(db, unbroadcast(dz, b))
            t_7 = unbroadcast(t_6, t_25)
            t_6 = unbroadcast(t_6, t_24)
            dh, t_6 = (matmul_grad(t_6, h_1, Wh, 0), matmul_grad(t_6, h_1, Wh, 1))
            dWh = add_into(dWh, t_6)
            t_6, t_7 = (matmul_grad(t_7, t_26, Wx, 0), matmul_grad(t_7, t_26, Wx, 1))
            dWx = add_into(dWx, t_7)
            dX = add_into(dX, scatter(X, t_27, t_6))
        dparams = accum(dparams, key_gradient(params, 'b', db))
        dparams = accum(dparams, key_gradient(params, 'Wh', dWh))
        dparams = accum(dparams, key_gradient(params, 'Wx', dWx))
        return (dparams, user_gradient(X, dX), user_gradient(y, dy))
    return (t_5, lstm_loss_pullback)


def lstm_loss_gradient(params, X, y):
    real_arrays(params_Wh=params['Wh'], params_Wx=params['Wx'], params_Wy=params['Wy'], params_b=params['b'], params_by=params['by'], X=X, y=y)
    trip = 0
    saved_t = []
    saved_t_1 = []
    saved_h = []
    saved_t_2 = []
    saved_t_3 = []
    saved_t_4 = []
    saved_t_5 = []
    saved_z = []
    saved_t_6 = []
    saved_t_7 = []
    saved_t_8 = []
    saved_t_9 = []
    saved_t_10 = []
    saved_t_11 = []
    saved_t_12 = []
    saved_t_13 = []
    saved_t_14 = []
    saved_t_15 = []
    saved_t_16 = []
    saved_t_17 = []
    saved_g = []
    saved_c = []
    saved_t_18 = []
    saved_t_19 = []
    saved_t_20 = []
    Wx = params['Wx']
    Wh = params['Wh']
    b = params['b']
    hidden = len(Wh)
    h_1 = np.zeros((X.shape[0], hidden))
    c = np.zeros((X.shape[0], hidden))
    t_5 = slice(None, None, None)
    t_6 = slice(None, None, None)
    t_7 = slice(None, None, None)
    t_8 = slice(None, None, None)
    t_9 = slice(None, None, None)
    t_10 = slice(None, None, None)
    for t_11 in range(X.shape[1]):
        t_13 = (t_5, t_11, t_6)
        saved_t.append(t_13)
        t_13 = X[t_13]
        saved_t_1.append(t_13)
        t_13 = t_13 @ Wx
        saved_t_2.append(t_13)
        saved_h.append(h_1)
        t_14 = h_1 @ Wh
        saved_t_3.append(t_14)
        t_13 = t_13 + t_14
        saved_t_4.append(t_13)
        z = t_13 + b
        saved_z.append(z)
        t_13 = (t_7, slice(None, hidden, None))
        saved_t_5.append(t_13)
        t_13 = np.exp(-z[t_13])
        saved_t_6.append(t_13)
        t_13 = 1.0 + t_13
        saved_t_7.append(t_13)
        t_13 = 1.0 / t_13
        saved_t_8.append(t_13)
        t_14 = (t_8, slice(hidden, 2 * hidden, None))
        saved_t_9.append(t_14)
        t_14 = np.exp(-z[t_14])
        saved_t_10.append(t_14)
        t_14 = 1.0 + t_14
        saved_t_11.append(t_14)
        t_14 = 1.0 / t_14
        saved_t_12.append(t_14)
        t_15 = (t_9, slice(2 * hidden, 3 * hidden, None))
        saved_t_13.append(t_15)
        t_15 = np.exp(-z[t_15])
        saved_t_14.append(t_15)
        t_15 = 1.0 + t_15
        saved_t_15.append(t_15)
        t_15 = 1.0 / t_15
        saved_t_16.append(t_15)
        t_16 = (t_10, slice(3 * hidden, None, None))
        saved_t_17.append(t_16)
        g = np.tanh(z[t_16])
        saved_g.append(g)
        saved_c.append(c)
        t_14 = t_14 * c
        saved_t_18.append(t_14)
        t_13 = t_13 * g
        saved_t_19.append(t_13)
        c = t_14 + t_13
        t_13 = np.tanh(c)
        saved_t_20.append(t_13)
        h_1 = t_15 * t_13
        trip += 1
    h = h_1
    Wy = params['Wy']
    t = h_1 @ Wy
    by = params['by']
    prediction = t + by
    t_1 = (slice(None, None, None), 0)
    t_2 = prediction[t_1]
    t_3 = t_2 - y
    t_5 = 2.0 * t_3 * (1.0 / max(math.prod(np.shape(t_3)), 1))
    dy = -unbroadcast(t_5, y)
    dprediction = scatter(prediction, t_1, unbroadcast(t_5, t_2))
    t_5 = unbroadcast(dprediction, t)
    dby = unbroadcast(dprediction, by)
    dparams = key_gradient(params, 'by', dby)
    dh, dWy = (matmul_grad(t_5, h, Wy, 0), matmul_grad(t_5, h, Wy, 1))
    dparams = accum(dparams, key_gradient(params, 'Wy', dWy))
    dX, dWx, dWh, db, dc = (0, 0, 0, 0, 0)
    for _ in range(trip):
        t_5 = saved_t_20.pop()
        t_6 = saved_t_19.pop()
        t_7 = saved_t_18.pop()
        c = saved_c.pop()
        g = saved_g.pop()
        t_8 = saved_t_17.pop()
        t_9 = saved_t_16.pop()
        t_10 = saved_t_15.pop()
        t_11 = saved_t_14.pop()
        t_13 = saved_t_13.pop()
        t_14 = saved_t_12.pop()
        t_15 = saved_t_11.pop()
        t_16 = saved_t_10.pop()
        t_17 = saved_t_9.pop()
        t_18 = saved_t_8.pop()
        t_19 = saved_t_7.pop()
        t_20 = saved_t_6.pop()
        z = saved_z.pop()
        t_21 = saved_t_5.pop()
        t_22 = saved_t_4.pop()
        t_23 = saved_t_3.pop()
        t_24 = saved_t_2.pop()
        h_1 = saved_h.pop()
        t_25 = saved_t_1.pop()
        t_26 = saved_t.pop()
        dc = dc + unbroadcast(dh * t_9, t_5) * (1.0 - t_5 * t_5)
        t_7 = unbroadcast(dc, t_7)
        t_6 = unbroadcast(dc, t_6)
        dg = unbroadcast(t_6 * t_18, g)
        dc = unbroadcast(t_7 * t_14, c)
        dz_part = dg * (1.0 - g * g)
        dz_part_1 = unbroadcast(dh * t_5, t_9) * (t_9 / t_10) * t_11
        dz_part_2 = unbroadcast(t_7 * c, t_14) * (t_14 / t_15) * t_16
        dz_part_3 = unbroadcast(t_6 * g, t_18) * (t_18 / t_19) * t_20
        dz = scatters(z, (t_8, t_13, t_17, t_21), (dz_part, dz_part_1, dz_part_2, dz_part_3))
        t_5 = unbroadcast(dz, t_22)
        db = add_into(db, unbroadcast(dz, b))
        t_6 = unbroadcast(t_5, t_24)
        t_5 = unbroadcast(t_5, t_23)
        dh, t_5 = (matmul_grad(t_5, h_1, Wh, 0), matmul_grad(t_5, h_1, Wh, 1))
        dWh = add_into(dWh, t_5)
        t_5, t_6 = (matmul_grad(t_6, t_25, Wx, 0), matmul_grad(t_6, t_25, Wx, 1))
        dWx = add_into(dWx, t_6)
        dX = add_into(dX, scatter(X, t_26, t_5))
    dparams = accum(dparams, key_gradient(params, 'b', db))
    dparams = accum(dparams, key_gradient(params, 'Wh', dWh))
    dparams = accum(dparams, key_gradient(params, 'Wx', dWx))
    return (dparams, user_gradient(X, dX), user_gradient(y, dy))
