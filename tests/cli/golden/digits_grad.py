# Gradients of ../../../examples/digits.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/digits.py -o digits_grad.py --function log_softmax --function cross_entropy --function logistic_loss --function mlp_loss --function logistic_predict --function mlp_predict --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   log_softmax    4fd0077325a1eab9
#   cross_entropy  9453b86c7ee0faf5
#
# NAME_forward(*args) returns (y, pullback) and pullback(dy) the gradients
# (it may be called again); NAME_gradient(*args) returns the gradients;
# a method Class.name gives Class_name_forward(self, ...) and
# Class_name_gradient(self, ...).
# Parameters annotated int, bool, str or bytes, or with such a default,
# are not differentiated; float or no annotation means a real number,
# np.ndarray a real array; a dataclass whose fields are annotated so
# (or a method's self of one) gets a types.SimpleNamespace of its
# fields' gradients (the attributes of zpy.gradient's Tangent).
#
# Not emitted (zpy emit --skip-failing):
#   logistic_loss (line 32): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   mlp_loss (line 37): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   logistic_predict (line 44): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   mlp_predict (line 48): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import numpy as np


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


# log_softmax (../../../examples/digits.py, line 21): z: a real array
def log_softmax_forward(z):
    real_arrays(z=z)
    t = z.max(axis=1, keepdims=True)
    z_1 = z - t
    t_1 = np.exp(z_1)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)

    def log_softmax_pullback(dy):
        dz = unbroadcast(dy, z_1)
        dz = dz + spread(-unbroadcast(dy, t_3) / t_2, t_1) * t_1
        dz = unbroadcast(dz, z)
        return (user_gradient(z, dz),)
    return (z_1 - t_3, log_softmax_pullback)


def log_softmax_gradient(z):
    real_arrays(z=z)
    t = z.max(axis=1, keepdims=True)
    z_1 = z - t
    t_1 = np.exp(z_1)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)
    t_4 = z_1 - t_3
    dy = seed(t_4)
    dz = unbroadcast(dy, z_1)
    dz = dz + spread(-unbroadcast(dy, t_3) / t_2, t_1) * t_1
    dz = unbroadcast(dz, z)
    return (user_gradient(z, dz),)


# cross_entropy (../../../examples/digits.py, line 26): logits: a real array; onehot: a real array
def cross_entropy_forward(logits, onehot):
    real_arrays(logits=logits, onehot=onehot)
    t = logits.max(axis=1, keepdims=True)
    z = logits - t
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
        dz = dz + spread(-unbroadcast(t_9, t_3) / t_2, t_1) * t_1
        dlogits = unbroadcast(dz, logits)
        return (user_gradient(logits, dlogits), user_gradient(onehot, donehot))
    return (t_8, cross_entropy_pullback)


def cross_entropy_gradient(logits, onehot):
    real_arrays(logits=logits, onehot=onehot)
    t = logits.max(axis=1, keepdims=True)
    z = logits - t
    t_1 = np.exp(z)
    t_2 = t_1.sum(axis=1, keepdims=True)
    t_3 = np.log(t_2)
    t_4 = z - t_3
    t_5 = onehot * t_4
    t_6 = -t_5.sum()
    t_7 = len(logits)
    t_8 = t_6 / t_7
    dy = seed(t_8)
    t_9 = spread(-unbroadcast(dy / t_7, t_6), t_5)
    donehot = unbroadcast(t_9 * t_4, onehot)
    t_9 = unbroadcast(t_9 * onehot, t_4)
    dz = unbroadcast(t_9, z)
    dz = dz + spread(-unbroadcast(t_9, t_3) / t_2, t_1) * t_1
    dlogits = unbroadcast(dz, logits)
    return (user_gradient(logits, dlogits), user_gradient(onehot, donehot))
