# Gradients of ../../../examples/digits.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/digits.py -o digits_grad.py --function log_softmax --function cross_entropy --function logistic_loss --function mlp_loss --function logistic_predict --function mlp_predict --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   log_softmax       4fd0077325a1eab9
#   cross_entropy     9453b86c7ee0faf5
#   logistic_loss     06dacd66d9b80041
#   mlp_loss          48aa6ff56efb4b78
#   logistic_predict  84ddeb6c41256423
#   mlp_predict       7014dc22ceba8b22
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

import numbers as numbers_1
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


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers_1.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# zygote_py.writer.standalone.real_parameters
def real_parameters(numbers, arrays):
    """``real_numbers(**numbers)`` and ``real_arrays(**arrays)``: the
    parameters of both kinds checked in one line."""
    real_numbers(**numbers)
    real_arrays(**arrays)


# log_softmax (../../../examples/digits.py, line 21): z: a real array
def log_softmax_forward(z):
    real_arrays(z=z)
    z_1 = z - z.max(axis=1, keepdims=True)
    t_1 = np.exp(z_1)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)

    def log_softmax_pullback(dy):
        dz = unbroadcast(dy, z_1)
        dz = dz + t_1 * (-unbroadcast(dy, t_3) / t_2)
        dz = unbroadcast(dz, z)
        return (user_gradient(z, dz),)
    return (z_1 - t_3, log_softmax_pullback)


def log_softmax_gradient(z):
    real_arrays(z=z)
    z_1 = z - z.max(axis=1, keepdims=True)
    t_1 = np.exp(z_1)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)
    dy = seed(z_1 - t_3)
    dz = unbroadcast(dy, z_1)
    dz = dz + t_1 * (-unbroadcast(dy, t_3) / t_2)
    dz = unbroadcast(dz, z)
    return (user_gradient(z, dz),)


# cross_entropy (../../../examples/digits.py, line 26): logits: a real array; onehot: a real array
def cross_entropy_forward(logits, onehot):
    real_arrays(logits=logits, onehot=onehot)
    z = logits - logits.max(axis=1, keepdims=True)
    t_1 = np.exp(z)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)
    t_4 = z - t_3
    t_5 = onehot * t_4
    t_6 = -t_5.sum()
    t_7 = len(logits)
    t_8 = t_6 / t_7

    def cross_entropy_pullback(dy):
        t_9 = spread(-unbroadcast(dy / t_7, t_6), t_5)
        donehot = unbroadcast(t_9 * t_4, onehot)
        t_9 = unbroadcast(t_9 * onehot, t_4)
        dz = unbroadcast(t_9, z)
        dz = dz + t_1 * (-unbroadcast(t_9, t_3) / t_2)
        dlogits = unbroadcast(dz, logits)
        return (user_gradient(logits, dlogits), user_gradient(onehot, donehot))
    return (t_8, cross_entropy_pullback)


def cross_entropy_gradient(logits, onehot):
    real_arrays(logits=logits, onehot=onehot)
    z = logits - logits.max(axis=1, keepdims=True)
    t_1 = np.exp(z)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)
    t_4 = z - t_3
    t_5 = onehot * t_4
    t_6 = -t_5.sum()
    t_7 = len(logits)
    dy = seed(t_6 / t_7)
    t_9 = spread(-unbroadcast(dy / t_7, t_6), t_5)
    donehot = unbroadcast(t_9 * t_4, onehot)
    t_9 = unbroadcast(t_9 * onehot, t_4)
    dz = unbroadcast(t_9, z)
    dz = dz + t_1 * (-unbroadcast(t_9, t_3) / t_2)
    dlogits = unbroadcast(dz, logits)
    return (user_gradient(logits, dlogits), user_gradient(onehot, donehot))


# logistic_loss (../../../examples/digits.py, line 30): params: a dict of real arrays (its items read by key); X: a real array; Y: a real array
def logistic_loss_forward(params, X, Y):
    real_arrays(params_W=params['W'], params_b=params['b'], X=X, Y=Y)
    W = params['W']
    t = X @ W
    b = params['b']
    t_1 = t + b
    z = t_1 - t_1.max(axis=1, keepdims=True)
    t_3 = np.exp(z)
    t_4 = t_3.sum(axis=1, keepdims=True)
    t_5 = np.log(t_4)
    t_6 = z - t_5
    t_7 = Y * t_6
    t_8 = -t_7.sum()
    t_9 = len(t_1)
    t_10 = t_8 / t_9

    def logistic_loss_pullback(dy):
        t_11 = spread(-unbroadcast(dy / t_9, t_8), t_7)
        dY = unbroadcast(t_11 * t_6, Y)
        t_11 = unbroadcast(t_11 * Y, t_6)
        dz = unbroadcast(t_11, z)
        dz = dz + t_3 * (-unbroadcast(t_11, t_5) / t_4)
        t_11 = unbroadcast(dz, t_1)
        t_12 = unbroadcast(t_11, t)
        db = unbroadcast(t_11, b)
        dparams = key_gradient(params, 'b', db)
        dX, dW = (matmul_grad(t_12, X, W, 0), matmul_grad(t_12, X, W, 1))
        dparams = accum(dparams, key_gradient(params, 'W', dW))
        return (dparams, user_gradient(X, dX), user_gradient(Y, dY))
    return (t_10, logistic_loss_pullback)


def logistic_loss_gradient(params, X, Y):
    real_arrays(params_W=params['W'], params_b=params['b'], X=X, Y=Y)
    W = params['W']
    t = X @ W
    b = params['b']
    t_1 = t + b
    z = t_1 - t_1.max(axis=1, keepdims=True)
    t_3 = np.exp(z)
    t_4 = t_3.sum(axis=1, keepdims=True)
    t_5 = np.log(t_4)
    t_6 = z - t_5
    t_7 = Y * t_6
    t_8 = -t_7.sum()
    t_9 = len(t_1)
    dy = seed(t_8 / t_9)
    t_11 = spread(-unbroadcast(dy / t_9, t_8), t_7)
    dY = unbroadcast(t_11 * t_6, Y)
    t_11 = unbroadcast(t_11 * Y, t_6)
    dz = unbroadcast(t_11, z)
    dz = dz + t_3 * (-unbroadcast(t_11, t_5) / t_4)
    t_11 = unbroadcast(dz, t_1)
    t_12 = unbroadcast(t_11, t)
    db = unbroadcast(t_11, b)
    dparams = key_gradient(params, 'b', db)
    dX, dW = (matmul_grad(t_12, X, W, 0), matmul_grad(t_12, X, W, 1))
    dparams = accum(dparams, key_gradient(params, 'W', dW))
    return (dparams, user_gradient(X, dX), user_gradient(Y, dY))


# mlp_loss (../../../examples/digits.py, line 35): params: a dict of real arrays (its items read by key); X: a real array; Y: a real array; decay: a real number
def mlp_loss_forward(params, X, Y, decay):
    real_parameters(numbers=dict(decay=decay), arrays=dict(params_W1=params['W1'], params_W2=params['W2'], params_b1=params['b1'], params_b2=params['b2'], X=X, Y=Y))
    W1 = params['W1']
    W2 = params['W2']
    t = X @ W1
    b1 = params['b1']
    h = np.tanh(t + b1)
    t_1 = h @ W2
    b2 = params['b2']
    logits = t_1 + b2
    z = logits - logits.max(axis=1, keepdims=True)
    t_3 = np.exp(z)
    t_4 = t_3.sum(axis=1, keepdims=True)
    t_5 = np.log(t_4)
    t_6 = z - t_5
    t_7 = Y * t_6
    t_8 = -t_7.sum()
    t_9 = len(logits)
    t_10 = t_8 / t_9
    t_11 = W1 * W1
    t_13 = t_11.sum()
    t_12 = W2 * W2
    t_14 = t_12.sum()
    t_15 = t_13 + t_14
    t_16 = decay * t_15

    def mlp_loss_pullback(dy):
        t_17 = unbroadcast(dy, t_16)
        ddecay = unbroadcast(t_17 * t_15, decay)
        t_17 = t_17 * decay
        dW2 = 2 * unbroadcast(spread(unbroadcast(t_17, t_14), t_12) * W2, W2)
        dW1 = 2 * unbroadcast(spread(unbroadcast(t_17, t_13), t_11) * W1, W1)
        t_17 = spread(-unbroadcast(unbroadcast(dy, t_10) / t_9, t_8), t_7)
        dY = unbroadcast(t_17 * t_6, Y)
        t_17 = unbroadcast(t_17 * Y, t_6)
        dz = unbroadcast(t_17, z)
        dz = dz + t_3 * (-unbroadcast(t_17, t_5) / t_4)
        dlogits = unbroadcast(dz, logits)
        t_17 = unbroadcast(dlogits, t_1)
        db2 = unbroadcast(dlogits, b2)
        dparams = key_gradient(params, 'b2', db2)
        dh, t_17 = (matmul_grad(t_17, h, W2, 0), matmul_grad(t_17, h, W2, 1))
        dW2 = dW2 + t_17
        t_17 = dh * (1.0 - h * h)
        t_18 = unbroadcast(t_17, t)
        db1 = unbroadcast(t_17, b1)
        dparams = accum(dparams, key_gradient(params, 'b1', db1))
        dX = matmul_grad(t_18, X, W1, 0)
        dW1 = dW1 + matmul_grad(t_18, X, W1, 1)
        dparams = accum(dparams, key_gradient(params, 'W2', dW2))
        dparams = accum(dparams, key_gradient(params, 'W1', dW1))
        return (dparams, user_gradient(X, dX), user_gradient(Y, dY), ddecay)
    return (t_10 + t_16, mlp_loss_pullback)


def mlp_loss_gradient(params, X, Y, decay):
    real_parameters(numbers=dict(decay=decay), arrays=dict(params_W1=params['W1'], params_W2=params['W2'], params_b1=params['b1'], params_b2=params['b2'], X=X, Y=Y))
    W1 = params['W1']
    W2 = params['W2']
    t = X @ W1
    b1 = params['b1']
    h = np.tanh(t + b1)
    t_1 = h @ W2
    b2 = params['b2']
    logits = t_1 + b2
    z = logits - logits.max(axis=1, keepdims=True)
    t_3 = np.exp(z)
    t_4 = t_3.sum(axis=1, keepdims=True)
    t_5 = np.log(t_4)
    t_6 = z - t_5
    t_7 = Y * t_6
    t_8 = -t_7.sum()
    t_9 = len(logits)
    t_10 = t_8 / t_9
    t_13 = (W1 * W1).sum()
    t_14 = (W2 * W2).sum()
    t_15 = t_13 + t_14
    t_16 = decay * t_15
    dy = seed(t_10 + t_16)
    t_17 = unbroadcast(dy, t_16)
    ddecay = unbroadcast(t_17 * t_15, decay)
    t_17 = t_17 * decay
    dW2 = 2 * unbroadcast(W2 * unbroadcast(t_17, t_14), W2)
    dW1 = 2 * unbroadcast(W1 * unbroadcast(t_17, t_13), W1)
    t_17 = spread(-unbroadcast(unbroadcast(dy, t_10) / t_9, t_8), t_7)
    dY = unbroadcast(t_17 * t_6, Y)
    t_17 = unbroadcast(t_17 * Y, t_6)
    dz = unbroadcast(t_17, z)
    dz = dz + t_3 * (-unbroadcast(t_17, t_5) / t_4)
    dlogits = unbroadcast(dz, logits)
    t_17 = unbroadcast(dlogits, t_1)
    db2 = unbroadcast(dlogits, b2)
    dparams = key_gradient(params, 'b2', db2)
    dh, t_17 = (matmul_grad(t_17, h, W2, 0), matmul_grad(t_17, h, W2, 1))
    dW2 = dW2 + t_17
    t_17 = dh * (1.0 - h * h)
    t_19 = unbroadcast(t_17, t)
    db1 = unbroadcast(t_17, b1)
    dparams = accum(dparams, key_gradient(params, 'b1', db1))
    dX = matmul_grad(t_19, X, W1, 0)
    dW1 = dW1 + matmul_grad(t_19, X, W1, 1)
    dparams = accum(dparams, key_gradient(params, 'W2', dW2))
    dparams = accum(dparams, key_gradient(params, 'W1', dW1))
    return (dparams, user_gradient(X, dX), user_gradient(Y, dY), ddecay)


# logistic_predict (../../../examples/digits.py, line 43): params: a dict of real arrays (its items read by key); X: a real array
def logistic_predict_forward(params, X):
    real_arrays(params_W=params['W'], params_b=params['b'], X=X)
    t = X @ params['W']
    t_1 = t + params['b']

    def logistic_predict_pullback(dy):
        return (None, None)
    return (t_1.argmax(axis=1), logistic_predict_pullback)


def logistic_predict_gradient(params, X):
    real_arrays(params_W=params['W'], params_b=params['b'], X=X)
    t = X @ params['W']
    t_1 = t + params['b']
    t_1 = t_1.argmax(axis=1)
    seed(t_1)
    return (None, None)


# mlp_predict (../../../examples/digits.py, line 47): params: a dict of real arrays (its items read by key); X: a real array
def mlp_predict_forward(params, X):
    real_arrays(params_W1=params['W1'], params_b1=params['b1'], params_W2=params['W2'], params_b2=params['b2'], X=X)
    t = X @ params['W1']
    t_1 = np.tanh(t + params['b1'])
    t_2 = t_1 @ params['W2']
    t_3 = t_2 + params['b2']

    def mlp_predict_pullback(dy):
        return (None, None)
    return (t_3.argmax(axis=1), mlp_predict_pullback)


def mlp_predict_gradient(params, X):
    real_arrays(params_W1=params['W1'], params_b1=params['b1'], params_W2=params['W2'], params_b2=params['b2'], X=X)
    t = X @ params['W1']
    t_1 = np.tanh(t + params['b1'])
    t_2 = t_1 @ params['W2']
    t_3 = t_2 + params['b2']
    t_3 = t_3.argmax(axis=1)
    seed(t_3)
    return (None, None)
