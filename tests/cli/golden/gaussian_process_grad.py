# Gradients of ../../../examples/gaussian_process.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/gaussian_process.py -o gaussian_process_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   kernel  cc3f1877bcc60559
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
#   log_marginal_likelihood (line 32): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   predict (line 42): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   data (line 48): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import numbers as numbers_1
import numpy as np
import types


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


# zygote_py.runtime.scatter
def scatter(x, key, dy):
    """The gradient of ``x`` for a gradient ``dy`` of ``x[key]``: zeros of
    ``x``'s shape with ``dy`` added at ``key`` (repeated indices add up);
    zeros of another library's array where ``dy`` or ``x`` is one, with
    ``dy`` assigned (that library has no ``np.add.at``: one index,
    integers, slices or a mask)."""
    if dy is None:
        return None
    dtype = getattr(x, 'dtype', None)
    dtype = dtype if dtype is not None and dtype.kind in 'fc' else np.dtype(float)
    dy = np.real(dy) if dtype.kind != 'c' else dy
    lazy = [v for v in (dy, x) if hasattr(type(v), '__array_function__') and (not isinstance(v, (np.ndarray, np.generic)))]
    if lazy:
        if any((isinstance(k, list) or (np.ndim(k) and getattr(k, 'dtype', None) != bool) for k in (key if isinstance(key, tuple) else (key,)))):
            raise TypeError("the gradient of indexing another library's array with integer arrays (whose repeated indices add up) needs np.add.at, which it does not have")
        g = np.zeros_like(lazy[0], dtype=dtype, shape=np.shape(x))
        g[key] = dy
        return g
    g = np.zeros(np.shape(x), dtype)
    np.add.at(g, key, dy)
    return g


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


# zygote_py.runtime.spread
def spread(dy, a):
    """``dy`` broadcast to the shape of the array ``a``, with its dtype, as
    a new array of ``a``'s library (the gradient of ``a`` for a sum of it)."""
    zero = np.zeros_like(a)
    return (zero + dy).astype(zero.dtype, copy=False)


# zygote_py.runtime.user_gradient
def user_gradient(x, g):
    """The gradient ``g`` of the argument ``x`` as ``zpy.gradient`` returns
    it: an array of zeros for an array that this run's path did not
    reach."""
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and (g == 0):
        return np.zeros_like(x)
    return g


# zygote_py.runtime.seed
def seed_1(y):
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


# kernel (../../../examples/gaussian_process.py, line 20): params: a dict of real numbers (its items read by key); xs: a real array; ys: a real array
def kernel_forward(params, xs, ys):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal']), arrays=dict(xs=xs, ys=ys))
    t = np.exp(params['log_length'])
    t_1 = np.exp(params['log_signal'])
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = ys[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)

    def kernel_pullback(dy):
        t_13 = unbroadcast(dy * t_8, t_12) * t_12
        ddistances = unbroadcast(t_13 / t_9, t_10) * -0.5
        t_14 = spread(np.expand_dims(ddistances, -1), t_7) * (2.0 * t_6)
        dys = scatter(ys, t_3, -unbroadcast(t_14, t_5))
        dxs = scatter(xs, t_2, unbroadcast(t_14, t_4))
        dlog_signal = unbroadcast(dy * t_12, t_8) * (2.0 * t_1) * t_1
        dparams = key_gradient(params, 'log_signal', dlog_signal)
        dlog_length = unbroadcast(-t_13 * (t_11 / t_9), t_9) * (2.0 * t) * t
        dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
        return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys))
    return (t_8 * t_12, kernel_pullback)


def kernel_gradient(params, xs, ys):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal']), arrays=dict(xs=xs, ys=ys))
    t = np.exp(params['log_length'])
    t_1 = np.exp(params['log_signal'])
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = ys[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)
    dy = seed_1(t_8 * t_12)
    t_14 = unbroadcast(dy * t_8, t_12) * t_12
    ddistances = unbroadcast(t_14 / t_9, t_10) * -0.5
    t_15 = spread(np.expand_dims(ddistances, -1), t_7) * (2.0 * t_6)
    dys = scatter(ys, t_3, -unbroadcast(t_15, t_5))
    dxs = scatter(xs, t_2, unbroadcast(t_15, t_4))
    dlog_signal = unbroadcast(dy * t_12, t_8) * (2.0 * t_1) * t_1
    dparams = key_gradient(params, 'log_signal', dlog_signal)
    dlog_length = unbroadcast(-t_14 * (t_11 / t_9), t_9) * (2.0 * t) * t
    dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
    return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys))
