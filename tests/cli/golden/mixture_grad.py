# Gradients of ../../../examples/mixture.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/mixture.py -o mixture_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   log_likelihood  47e9073bcd5533b2
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
#   data (line 33): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   initial (line 38): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import math
import numpy as np
import scipy
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


# zygote_py.runtime.key_gradient
def key_gradient(obj, key, dy):
    """The gradient of the dict ``obj`` for a gradient ``dy`` of its item
    ``key``: a dict with its keys, ``None`` for the others (a read the
    compiler knows to be one: see ``analysis.items_kind``)."""
    return {k: dy if k == key else None for k in obj}


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


# zygote_py.rules.scipy_special.logsumexp_slopes
def logsumexp_slopes(a, axis, b, keepdims, y, sign):
    """``(dy/da, dy/db)`` of ``y = log|sum(b * exp(a))|`` (the sum's sign
    ``sign``, None where it is positive), broadcast to the shape of ``a``
    and ``b`` together: 0 in the slices whose ``y`` is ``-inf``. ``dy/db``
    is None without ``b``."""
    kept = y if axis is None or keepdims else np.expand_dims(y, axis)
    empty = np.isneginf(kept)
    weight = np.where(empty, 0.0, np.exp(a - np.where(empty, 0.0, kept)))
    if sign is not None:
        weight = weight * (sign if axis is None or keepdims else np.expand_dims(sign, axis))
    if b is None:
        return (weight, None)
    return (weight * b, weight)


# zygote_py.rules.scipy_special.logsumexp_grads
def logsumexp_grads(dy, a, axis, b, keepdims, y, sign):
    """The gradients of ``a`` and ``b`` (None without ``b``) for the
    cotangent ``dy`` (None: no gradient) of ``y = logsumexp(a, axis, b,
    keepdims)``."""
    if dy is None:
        return (None, None)
    kept = dy if axis is None or keepdims else np.expand_dims(dy, axis)
    slopes = logsumexp_slopes(a, axis, b, keepdims, y, sign)
    da = unbroadcast(kept * slopes[0], a)
    if b is None:
        return (da, None)
    return (da, unbroadcast(kept * slopes[1], b))


# zygote_py.rules.numpy_shapes.like
def like(g, x):
    """``g``, a gradient shaped like ``x``, given ``x``'s kind: an ndarray of
    ``x``'s float dtype, a NumPy scalar of its type, a Python float, or the
    same nesting of tuples and lists (real for a real ``x``, ``None`` for a
    boolean). An object whose class makes its array in Python
    (``__array__``) is refused: which field each element came from is not
    known."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in 'fc' or (getattr(g, 'dtype', None) == x.dtype and (not isinstance(g, np.generic))):
            return g
        g = np.asarray(g)
        g = g.real if g.dtype.kind == 'c' and x.dtype.kind != 'c' else g
        return g if g.dtype == x.dtype else g.astype(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (tuple, list)):
        g = np.asarray(g)
        if g.ndim == 0 and len(x):
            g = np.broadcast_to(g, (len(x),) + np.shape(np.asarray(x[0])))
        items = [like(g[i], v) for i, v in enumerate(x)]
        return tuple(items) if isinstance(x, tuple) else items
    if isinstance(x, np.generic):
        return x.dtype.type(g if x.dtype.kind == 'c' else np.real(g)) if x.dtype.kind in 'fc' else np.real(g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, (int, float)):
        return float(np.real(g))
    if isinstance(getattr(type(x), '__array__', None), types.FunctionType):
        raise TypeError(f'no gradient for the array NumPy makes of a {type(x).__name__} through its __array__')
    return g


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


# log_likelihood (../../../examples/mixture.py, line 20): params: a dict of real arrays (its items read by key); points: a real array
def log_likelihood_forward(params, points):
    real_arrays(params_logits=params['logits'], params_log_scales=params['log_scales'], params_means=params['means'], points=points)
    log_weights = scipy.special.log_softmax(params['logits'])
    scales = np.exp(params['log_scales'])
    t = (slice(None, None, None), None, slice(None, None, None))
    t_1 = points[t]
    means = params['means']
    bad = np.logical_not(np.greater(scales, 0))
    scale = np.where(bad, 1.0, scales)
    t_2 = np.asarray(t_1)
    t_3 = t_2 - means
    z = t_3 / scale
    bad_1 = np.logical_or(bad, np.isnan(z))
    t_4 = np.where(bad_1, 0.0, z)
    t_5 = -0.5 * t_4
    t_6 = t_5 * t_4
    t_18 = 2 * math.pi
    t_8 = t_6 - 0.5 * math.log(t_18)
    t_9 = np.log(scale)
    t_10 = t_8 - t_9
    t_12 = np.where(True, t_10, 0.0)
    t_13 = np.where(bad_1, np.nan, t_12)
    t_14 = t_13[()]
    per_component = np.sum(t_14, axis=2)
    t_15 = log_weights + per_component
    t_16 = scipy.special.logsumexp(t_15, axis=1)
    t_17 = t_16.mean()

    def log_likelihood_pullback(dy):
        t_18 = logsumexp_grads(spread(dy / max(math.prod(np.shape(t_16)), 1), t_16), t_15, 1, None, False, t_16, None)[0]
        dlog_weights = unbroadcast(t_18, log_weights)
        dper_component = unbroadcast(t_18, per_component)
        t_18 = unbroadcast(np.where(True, unbroadcast(np.where(bad_1, 0, scatter(t_13, (), spread(np.expand_dims(dper_component, 2), t_14))), t_12), 0), t_10)
        dscale = -unbroadcast(t_18, t_9) / scale
        t_18 = unbroadcast(unbroadcast(t_18, t_8), t_6)
        dz = unbroadcast(np.where(bad_1, 0, unbroadcast(t_18 * np.conjugate(t_5), t_4) + unbroadcast(t_18 * np.conjugate(t_4), t_5) * -0.5), z)
        t_18 = unbroadcast(dz / scale, t_3)
        dscale = dscale + unbroadcast(-dz * np.conjugate(z / scale), scale)
        t_19 = unbroadcast(t_18, t_2)
        dmeans = -unbroadcast(t_18, means)
        if t_2.dtype.kind in 'fc':
            t_18 = like(t_19, t_1)
        else:
            t_18 = 0
        dscales = unbroadcast(np.where(bad, 0, dscale), scales)
        dparams = key_gradient(params, 'means', dmeans)
        dpoints = scatter(points, t, t_18)
        dlog_scales = dscales * scales
        dparams = accum(dparams, key_gradient(params, 'log_scales', dlog_scales))
        dlogits = dlog_weights - np.exp(log_weights) * np.sum(dlog_weights, None, keepdims=True)
        dparams = accum(dparams, key_gradient(params, 'logits', dlogits))
        return (dparams, user_gradient(points, dpoints))
    return (t_17, log_likelihood_pullback)


def log_likelihood_gradient(params, points):
    real_arrays(params_logits=params['logits'], params_log_scales=params['log_scales'], params_means=params['means'], points=points)
    log_weights = scipy.special.log_softmax(params['logits'])
    scales = np.exp(params['log_scales'])
    t = (slice(None, None, None), None, slice(None, None, None))
    t_1 = points[t]
    means = params['means']
    bad = np.logical_not(np.greater(scales, 0))
    scale = np.where(bad, 1.0, scales)
    t_2 = np.asarray(t_1)
    t_3 = t_2 - means
    z = t_3 / scale
    bad_1 = np.logical_or(bad, np.isnan(z))
    t_4 = np.where(bad_1, 0.0, z)
    t_5 = -0.5 * t_4
    t_6 = t_5 * t_4
    t_18 = 2 * math.pi
    t_8 = t_6 - 0.5 * math.log(t_18)
    t_9 = np.log(scale)
    t_10 = t_8 - t_9
    t_12 = np.where(True, t_10, 0.0)
    t_13 = np.where(bad_1, np.nan, t_12)
    t_14 = t_13[()]
    per_component = np.sum(t_14, axis=2)
    t_15 = log_weights + per_component
    t_16 = scipy.special.logsumexp(t_15, axis=1)
    dy = seed_1(t_16.mean())
    t_18 = logsumexp_grads(spread(dy / max(math.prod(np.shape(t_16)), 1), t_16), t_15, 1, None, False, t_16, None)[0]
    dlog_weights = unbroadcast(t_18, log_weights)
    dper_component = unbroadcast(t_18, per_component)
    t_18 = unbroadcast(np.where(True, unbroadcast(np.where(bad_1, 0, scatter(t_13, (), spread(np.expand_dims(dper_component, 2), t_14))), t_12), 0), t_10)
    dscale = -unbroadcast(t_18, t_9) / scale
    t_18 = unbroadcast(unbroadcast(t_18, t_8), t_6)
    dz = unbroadcast(np.where(bad_1, 0, unbroadcast(t_18 * np.conjugate(t_5), t_4) + unbroadcast(t_18 * np.conjugate(t_4), t_5) * -0.5), z)
    t_18 = unbroadcast(dz / scale, t_3)
    dscale = dscale + unbroadcast(-dz * np.conjugate(z / scale), scale)
    t_19 = unbroadcast(t_18, t_2)
    dmeans = -unbroadcast(t_18, means)
    if t_2.dtype.kind in 'fc':
        t_18 = like(t_19, t_1)
    else:
        t_18 = 0
    dscales = unbroadcast(np.where(bad, 0, dscale), scales)
    dparams = key_gradient(params, 'means', dmeans)
    dpoints = scatter(points, t, t_18)
    dlog_scales = dscales * scales
    dparams = accum(dparams, key_gradient(params, 'log_scales', dlog_scales))
    dlogits = dlog_weights - np.exp(log_weights) * np.sum(dlog_weights, None, keepdims=True)
    dparams = accum(dparams, key_gradient(params, 'logits', dlogits))
    return (dparams, user_gradient(points, dpoints))
