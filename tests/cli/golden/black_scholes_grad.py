# Gradients of ../../../examples/black_scholes.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/black_scholes.py -o black_scholes_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   norm_cdf            8f0ab8c7ce9d3687
#   call_price          337cc83ccf14c593
#   chain_value         8d7a2aa08fc48c08
#   erf_array           0cb39e81c58c4888
#   norm_pdf            a6ffda7419da1696
#   closed_form_greeks  19cdeaf7e6211270
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

import math
import numbers
import numpy as np
import operator
import types

inf = float('inf')


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


# zygote_py.writer.standalone.real_parameters
def real_parameters(numbers, arrays):
    """``real_numbers(**numbers)`` and ``real_arrays(**arrays)``: the
    parameters of both kinds checked in one line."""
    real_numbers(**numbers)
    real_arrays(**arrays)


# zygote_py.writer.standalone.is_foreign
def is_foreign(x):
    """Whether ``x`` is an array of another library than NumPy (Dask's,
    CuPy's): it implements one of NumPy's dispatch protocols, and is
    neither an ``np.ndarray`` nor a NumPy scalar."""
    cls = type(x)
    if issubclass(cls, (np.ndarray, np.generic, type)):
        return False
    return any((getattr(cls, p, None) is not None for p in ('__array_function__', '__array_ufunc__', '__array_namespace__')))


# zygote_py.writer.standalone.is_array
def is_array(x):
    """Whether ``x`` is an array: NumPy's (or a subclass), or another
    library's."""
    return isinstance(x, np.ndarray) or is_foreign(x)


# zygote_py.writer.standalone.plain
def plain(x):
    """Whether ``x`` is a number or an array, whose operations NumPy
    defines (not an object defining them in Python, as ``np.matrix``
    does)."""
    return type(x) in (bool, int, float, complex, np.ndarray) or isinstance(x, np.generic) or is_foreign(x)


# zygote_py.writer.standalone.by_rule
def by_rule(f, rule, *args):
    """``f(*args)`` and its pullback, by ``f``'s derivative rule ``rule``
    (both known when the module was emitted, the kinds of the arguments
    not): the pullback gives ``None`` for ``f``, then one gradient per
    argument, and no gradients for no cotangent (``None``, or the number 0
    for an array). Numbers, arrays and Python's containers only: an object
    whose class defines the operation in Python, and lists or tuples that
    ``+`` or ``*`` join or repeat, have other gradients (``zpy.gradient``
    computes them)."""
    for a in args:
        if not (plain(a) or type(a) in (str, slice, tuple, list, dict) or a is None or (a is ...)):
            raise TypeError(f"{getattr(f, '__name__', f)} of a {type(a).__name__}: this gradient module was emitted for numbers and arrays; differentiate it with zpy.gradient")
    if f in (operator.add, operator.mul, operator.iadd, operator.imul) and any((type(a) in (tuple, list) for a in args)):
        raise TypeError(f'{f.__name__} of a list or tuple: this gradient module was emitted for numbers and arrays; differentiate it with zpy.gradient')
    y, back = rule(*args)
    array = is_array(y)

    def pullback(dy):
        if dy is None or (array and isinstance(dy, (int, float, np.number)) and (dy == 0)):
            return (None,) * (len(args) + 1)
        return (None, *back(dy)[:len(args)])
    return (y, pullback)


# zygote_py.runtime.sequence_gradient
def sequence_gradient(n, key, dy, is_tuple):
    """The gradient of a tuple (``is_tuple``) or list of ``n`` items for the
    gradient ``dy`` of its item or slice ``key``."""
    grads = [None] * n
    grads[key] = dy
    return tuple(grads) if is_tuple else grads


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


# zygote_py.writer.standalone.scatter
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


# zygote_py.rules.operators.getitem
def getitem(container, key):
    """The rule of ``container[key]`` for a tuple, list, dict or array; the
    items of another container have no gradient here."""
    n = len(container) if isinstance(container, (tuple, list)) else 0

    def back(dy):
        if isinstance(container, (tuple, list)):
            return (sequence_gradient(n, key, dy, isinstance(container, tuple)), None)
        if isinstance(container, dict):
            return ({key: dy}, None)
        if is_array(container) or isinstance(container, np.generic):
            return (scatter(container, key, dy), None)
        raise TypeError(f'no gradient for the items of a {type(container).__name__} in this gradient module; differentiate it with zpy.gradient')
    return (container[key], back)


# zygote_py.rules.pymath.erf
def erf(x):

    def back(dy):
        return (dy * 2 / math.sqrt(math.pi) * math.exp(-x * x),)
    return (math.erf(x), back)


# zygote_py.ad.mutation.append
def append(obj, value):
    """``obj.append(value)``, then ``obj``."""
    obj.append(value)
    return obj


# zygote_py.ad.mutation.operations.append_
def append_(obj, value):
    """The rule of ``obj.append(value)`` (then ``obj``) for a list ``obj``:
    the gradient of the list as it was, and of ``value``, are the list's
    but its last item, and that item's."""
    if type(obj) is not list:
        raise TypeError(f'append to a {type(obj).__name__}: this gradient module was emitted for lists; differentiate it with zpy.gradient')
    obj.append(value)

    def back(dy):
        return (list(dy[:-1]), dy[-1])
    return (obj, back)


# zygote_py.runtime.spread
def spread(dy, a):
    """``dy`` broadcast to the shape of the array ``a``, with its dtype, as
    a new array of ``a``'s library (the gradient of ``a`` for a sum of it)."""
    zero = np.zeros_like(a)
    return (zero + dy).astype(zero.dtype, copy=False)


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


# zygote_py.runtime.call_pullback
def call_pullback(back, dy):
    """``back(dy)``: ``back`` is a pullback of :func:`by_rule`, which gives
    no gradients for no cotangent (``None``)."""
    return back(dy)


# zygote_py.runtime.user_gradient
def user_gradient(x, g):
    """The gradient ``g`` of the argument ``x`` as ``zpy.gradient`` returns
    it: an array of zeros for an array that this run's path did not
    reach."""
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and (g == 0):
        return np.zeros_like(x)
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


# zygote_py.runtime.is_number_zero
def is_number_zero(dy):
    """Whether ``dy``, an array's gradient, is the number 0 that the
    adjoint starts it from on the paths that give it none (or a multiple
    of it): a rule that reshapes the gradient cannot take it, and it
    gives no gradients."""
    return isinstance(dy, (int, float, np.number)) and dy == 0


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


# zygote_py.ir.ops.build_dict
def build_dict(*keys_and_values):
    """``{k1: v1, k2: v2}``: arguments alternate keys and values."""
    it = iter(keys_and_values)
    return {k: v for k, v in zip(it, it)}


# zygote_py.rules.operators.build_dict
def build_dict_1(*keys_and_values):
    y = build_dict(*keys_and_values)

    def back(dy):
        last = {k: i for i, k in enumerate(keys_and_values[::2])}
        grads = [None] * len(keys_and_values)
        for key, i in last.items():
            grads[2 * i + 1] = dy.get(key)
        return tuple(grads)
    return (y, back)


# norm_cdf (../../../examples/black_scholes.py, line 19): x: a real number
def norm_cdf_forward(x):
    real_numbers(x=x)
    t = math.sqrt(2.0)
    t_1 = x / t
    t_2 = 1.0 + math.erf(t_1)

    def norm_cdf_pullback(dy):
        return (dy * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_1 * t_1) / t,)
    return (0.5 * t_2, norm_cdf_pullback)


def norm_cdf_gradient(x):
    real_numbers(x=x)
    t = math.sqrt(2.0)
    t_1 = x / t
    return (0.5641895835477563 * math.exp(-t_1 * t_1) / t,)


# call_price (../../../examples/black_scholes.py, line 23): spot: a real number; strike: a real number; rate: a real number; vol: a real number; maturity: a real number
def call_price_forward(spot, strike, rate, vol, maturity):
    real_numbers(spot=spot, strike=strike, rate=rate, vol=vol, maturity=maturity)
    t = math.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strike
    t_2 = math.log(t_1)
    t_3 = 0.5 * vol
    t_4 = rate + t_3 * vol
    d1 = (t_2 + t_4 * maturity) / sd
    d2 = d1 - sd
    t_5 = -rate
    discount = math.exp(t_5 * maturity)
    t_6 = math.sqrt(2.0)
    t_7 = d1 / t_6
    t_9 = 0.5 * (1.0 + math.erf(t_7))
    t_15 = spot * t_9
    t_13 = strike * discount
    t_10 = math.sqrt(2.0)
    t_11 = d2 / t_10
    t_14 = 0.5 * (1.0 + math.erf(t_11))

    def call_price_pullback(dy):
        t_15 = -dy
        t_16 = t_15 * t_14
        dd2 = t_15 * t_13 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_11 * t_11) / t_10
        dstrike = t_16 * discount
        ddiscount = t_16 * strike
        dspot = dy * t_9
        dd1 = dy * spot * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_7 * t_7) / t_6
        t_15 = ddiscount * discount
        dmaturity = t_15 * t_5
        drate = -(t_15 * maturity)
        dsd = -dd2
        dd1 = dd1 + dd2
        t_15 = dd1 / sd
        dsd = dsd + -dd1 * d1 / sd
        t_16 = t_15 * maturity
        dmaturity = dmaturity + t_15 * t_4
        drate = drate + t_16
        dvol = t_16 * t_3
        dvol = dvol + t_16 * vol * 0.5
        t_15 = t_15 / (t_1 * 1.0)
        dspot = dspot + t_15 / strike
        dstrike = dstrike + -t_15 * t_1 / strike
        t_15 = dsd * vol
        dvol = dvol + dsd * t
        if t:
            t_15 = t_15 / (2 * t)
        else:
            t_15 = t_15 * inf
        dmaturity = dmaturity + t_15
        return (dspot, dstrike, drate, dvol, dmaturity)
    return (t_15 - t_13 * t_14, call_price_pullback)


def call_price_gradient(spot, strike, rate, vol, maturity):
    real_numbers(spot=spot, strike=strike, rate=rate, vol=vol, maturity=maturity)
    t = math.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strike
    t_2 = math.log(t_1)
    t_3 = 0.5 * vol
    t_4 = rate + t_3 * vol
    d1 = (t_2 + t_4 * maturity) / sd
    d2 = d1 - sd
    t_5 = -rate
    discount = math.exp(t_5 * maturity)
    t_6 = math.sqrt(2.0)
    t_7 = d1 / t_6
    t_9 = 0.5 * (1.0 + math.erf(t_7))
    t_13 = strike * discount
    t_10 = math.sqrt(2.0)
    t_11 = d2 / t_10
    t_14 = 0.5 * (1.0 + math.erf(t_11))
    t_15 = -1.0 * t_14
    dd2 = -1.0 * t_13 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_11 * t_11) / t_10
    dstrike = t_15 * discount
    ddiscount = t_15 * strike
    dd1 = spot * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_7 * t_7) / t_6
    t_15 = ddiscount * discount
    dmaturity = t_15 * t_5
    drate = -(t_15 * maturity)
    dsd = -dd2
    dd1 = dd1 + dd2
    t_15 = dd1 / sd
    dsd = dsd + -dd1 * d1 / sd
    t_16 = t_15 * maturity
    dmaturity = dmaturity + t_15 * t_4
    drate = drate + t_16
    dvol = t_16 * t_3
    dvol = dvol + t_16 * vol * 0.5
    t_15 = t_15 / t_1
    dspot = t_9 + t_15 / strike
    dstrike = dstrike + -t_15 * t_1 / strike
    t_15 = dsd * vol
    dvol = dvol + dsd * t
    if t:
        t_15 = t_15 / (2 * t)
    else:
        t_15 = t_15 * inf
    dmaturity = dmaturity + t_15
    return (dspot, dstrike, drate, dvol, dmaturity)


# chain_value (../../../examples/black_scholes.py, line 32): spot: a real number; strikes: a real array; rate: a real number; vol: a real number; maturity: a real number; positions: a real array
def chain_value_forward(spot, strikes, rate, vol, maturity, positions):
    real_parameters(numbers=dict(spot=spot, rate=rate, vol=vol, maturity=maturity), arrays=dict(strikes=strikes, positions=positions))
    trip = 0
    saved_v_back = []
    saved_y_back = []
    saved_y_back_1 = []
    saved_v_back_1 = []
    saved_y_back_2 = []
    saved_y_back_3 = []
    t = np.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strikes
    t_4 = np.log(t_1)
    t_2 = 0.5 * vol
    t_3 = rate + t_2 * vol
    t_5 = t_3 * maturity
    t_6 = t_4 + t_5
    d1 = t_6 / sd
    d2 = d1 - sd
    t_7 = np.sqrt(2.0)
    t_8 = d1 / t_7
    t_23 = []
    for item in range(len(t_8)):
        v, v_back = by_rule(operator.getitem, getitem, t_8, item)
        saved_v_back.append(v_back)
        t_25, y_back = by_rule(math.erf, erf, v)
        saved_y_back.append(y_back)
        t_23, y_back = by_rule(append, append_, t_23, t_25)
        saved_y_back_1.append(y_back)
        trip += 1
    t_9 = t_23
    trip_1 = 0
    t_10 = np.array(t_23)
    cdf1 = 0.5 * (1.0 + t_10)
    t_12 = np.sqrt(2.0)
    t_13 = d2 / t_12
    t_23 = []
    for item_1 in range(len(t_13)):
        v, v_back = by_rule(operator.getitem, getitem, t_13, item_1)
        saved_v_back_1.append(v_back)
        t_24, y_back = by_rule(math.erf, erf, v)
        saved_y_back_2.append(y_back)
        t_23, y_back = by_rule(append, append_, t_23, t_24)
        saved_y_back_3.append(y_back)
        trip_1 += 1
    t_14 = t_23
    t_15 = np.array(t_23)
    cdf2 = 0.5 * (1.0 + t_15)
    t_20 = spot * cdf1
    t_17 = -rate
    t_18 = np.exp(t_17 * maturity)
    t_19 = strikes * t_18
    t_21 = t_19 * cdf2
    prices = t_20 - t_21
    t_22 = positions * prices

    def chain_value_pullback(dy):
        saved_v_back_left = list(saved_v_back)
        saved_v_back_1_left = list(saved_v_back_1)
        saved_y_back_left = list(saved_y_back)
        saved_y_back_1_left = list(saved_y_back_1)
        saved_y_back_2_left = list(saved_y_back_2)
        saved_y_back_3_left = list(saved_y_back_3)
        t_23 = spread(dy, t_22)
        dpositions = unbroadcast(t_23 * np.conjugate(prices), positions)
        dprices = unbroadcast(t_23 * positions, prices)
        t_23 = unbroadcast(dprices, t_20)
        t_24 = -unbroadcast(dprices, t_21)
        t_25 = unbroadcast(t_24 * np.conjugate(cdf2), t_19)
        dcdf2 = unbroadcast(t_24 * t_19, cdf2)
        dstrikes = unbroadcast(t_25 * t_18, strikes)
        t_24 = unbroadcast(t_25 * strikes, t_18) * t_18
        dmaturity = t_24 * t_17
        drate = -(t_24 * maturity)
        dspot = unbroadcast(t_23 * np.conjugate(cdf1), spot)
        dcdf1 = t_23 * spot
        t_23 = dcdf2 * 0.5
        if t_15.dtype.kind not in 'fc':
            t_23 = None
        else:
            t_23 = like(t_23, t_14)
        t_23, t_24 = (0, t_23)
        for _ in range(trip_1):
            y_back = saved_y_back_3_left.pop()
            y_back_1 = saved_y_back_2_left.pop()
            v_back = saved_v_back_1_left.pop()
            t_24 = call_pullback(y_back, t_24)
            dv = call_pullback(y_back_1, t_24[2])[1]
            t_23, t_24 = (accum(t_23, accum(0, call_pullback(v_back, dv)[1])), t_24[1])
        dd2 = unbroadcast(t_23 / t_12, d2)
        t_23 = dcdf1 * 0.5
        if t_10.dtype.kind not in 'fc':
            t_23 = None
        else:
            t_23 = like(t_23, t_9)
        t_23, t_24 = (0, t_23)
        for _ in range(trip):
            y_back = saved_y_back_1_left.pop()
            y_back_1 = saved_y_back_left.pop()
            v_back = saved_v_back_left.pop()
            t_24 = call_pullback(y_back, t_24)
            dv = call_pullback(y_back_1, t_24[2])[1]
            t_23, t_24 = (accum(t_23, accum(0, call_pullback(v_back, dv)[1])), t_24[1])
        dd1 = unbroadcast(t_23 / t_7, d1)
        dsd = -unbroadcast(dd2, sd)
        dd1 = dd1 + unbroadcast(dd2, d1)
        t_23 = unbroadcast(dd1 / sd, t_6)
        dsd = dsd + unbroadcast(-dd1 * (d1 / sd), sd)
        t_24 = unbroadcast(t_23, t_5)
        t_25 = t_24 * maturity
        dmaturity = dmaturity + t_24 * t_3
        drate = drate + t_25
        dvol = t_25 * t_2
        dvol = dvol + t_25 * vol * 0.5
        t_23 = unbroadcast(t_23, t_4) / t_1
        dspot = dspot + unbroadcast(t_23 / strikes, spot)
        dstrikes = dstrikes + -t_23 * (t_1 / strikes)
        dvol = dvol + unbroadcast(dsd * t, vol)
        dmaturity = dmaturity + dsd * vol / (2.0 * t)
        return (dspot, user_gradient(strikes, dstrikes), drate, dvol, dmaturity, user_gradient(positions, dpositions))
    return (t_22.sum(), chain_value_pullback)


def chain_value_gradient(spot, strikes, rate, vol, maturity, positions):
    real_parameters(numbers=dict(spot=spot, rate=rate, vol=vol, maturity=maturity), arrays=dict(strikes=strikes, positions=positions))
    trip = 0
    saved_v_back = []
    saved_y_back = []
    saved_y_back_1 = []
    saved_v_back_1 = []
    saved_y_back_2 = []
    saved_y_back_3 = []
    t = np.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strikes
    t_4 = np.log(t_1)
    t_2 = 0.5 * vol
    t_3 = rate + t_2 * vol
    t_5 = t_3 * maturity
    t_6 = t_4 + t_5
    d1 = t_6 / sd
    d2 = d1 - sd
    t_7 = np.sqrt(2.0)
    t_8 = d1 / t_7
    t_23 = []
    for item in range(len(t_8)):
        v, v_back = by_rule(operator.getitem, getitem, t_8, item)
        saved_v_back.append(v_back)
        t_25, y_back = by_rule(math.erf, erf, v)
        saved_y_back.append(y_back)
        t_23, y_back = by_rule(append, append_, t_23, t_25)
        saved_y_back_1.append(y_back)
        trip += 1
    t_9 = t_23
    trip_1 = 0
    t_10 = np.array(t_23)
    cdf1 = 0.5 * (1.0 + t_10)
    t_12 = np.sqrt(2.0)
    t_13 = d2 / t_12
    t_23 = []
    for item_1 in range(len(t_13)):
        v, v_back = by_rule(operator.getitem, getitem, t_13, item_1)
        saved_v_back_1.append(v_back)
        t_24, y_back = by_rule(math.erf, erf, v)
        saved_y_back_2.append(y_back)
        t_23, y_back = by_rule(append, append_, t_23, t_24)
        saved_y_back_3.append(y_back)
        trip_1 += 1
    t_14 = t_23
    t_15 = np.array(t_23)
    cdf2 = 0.5 * (1.0 + t_15)
    t_20 = spot * cdf1
    t_17 = -rate
    t_18 = np.exp(t_17 * maturity)
    t_19 = strikes * t_18
    t_21 = t_19 * cdf2
    prices = t_20 - t_21
    t_22 = positions * prices
    t_25 = t_22.sum()
    t_23 = spread(seed(t_25), t_22)
    dpositions = unbroadcast(t_23 * np.conjugate(prices), positions)
    dprices = unbroadcast(t_23 * positions, prices)
    t_23 = unbroadcast(dprices, t_20)
    t_24 = -unbroadcast(dprices, t_21)
    t_26 = unbroadcast(t_24 * np.conjugate(cdf2), t_19)
    dcdf2 = unbroadcast(t_24 * t_19, cdf2)
    dstrikes = unbroadcast(t_26 * t_18, strikes)
    t_24 = unbroadcast(t_26 * strikes, t_18) * t_18
    dmaturity = t_24 * t_17
    drate = -(t_24 * maturity)
    dspot = unbroadcast(t_23 * np.conjugate(cdf1), spot)
    dcdf1 = t_23 * spot
    t_23 = dcdf2 * 0.5
    if t_15.dtype.kind not in 'fc':
        t_23 = None
    else:
        t_23 = like(t_23, t_14)
    t_23, t_24 = (0, t_23)
    for _ in range(trip_1):
        y_back = saved_y_back_3.pop()
        y_back_1 = saved_y_back_2.pop()
        v_back = saved_v_back_1.pop()
        t_24 = call_pullback(y_back, t_24)
        dv = call_pullback(y_back_1, t_24[2])[1]
        t_23, t_24 = (accum(t_23, accum(0, call_pullback(v_back, dv)[1])), t_24[1])
    dd2 = unbroadcast(t_23 / t_12, d2)
    t_23 = dcdf1 * 0.5
    if t_10.dtype.kind not in 'fc':
        t_23 = None
    else:
        t_23 = like(t_23, t_9)
    t_23, t_24 = (0, t_23)
    for _ in range(trip):
        y_back = saved_y_back_1.pop()
        y_back_1 = saved_y_back.pop()
        v_back = saved_v_back.pop()
        t_24 = call_pullback(y_back, t_24)
        dv = call_pullback(y_back_1, t_24[2])[1]
        t_23, t_24 = (accum(t_23, accum(0, call_pullback(v_back, dv)[1])), t_24[1])
    dd1 = unbroadcast(t_23 / t_7, d1)
    dsd = -unbroadcast(dd2, sd)
    dd1 = dd1 + unbroadcast(dd2, d1)
    t_23 = unbroadcast(dd1 / sd, t_6)
    dsd = dsd + unbroadcast(-dd1 * (d1 / sd), sd)
    t_24 = unbroadcast(t_23, t_5)
    t_26 = t_24 * maturity
    dmaturity = dmaturity + t_24 * t_3
    drate = drate + t_26
    dvol = t_26 * t_2
    dvol = dvol + t_26 * vol * 0.5
    t_23 = unbroadcast(t_23, t_4) / t_1
    dspot = dspot + unbroadcast(t_23 / strikes, spot)
    dstrikes = dstrikes + -t_23 * (t_1 / strikes)
    dvol = dvol + unbroadcast(dsd * t, vol)
    dmaturity = dmaturity + dsd * vol / (2.0 * t)
    return (dspot, user_gradient(strikes, dstrikes), drate, dvol, dmaturity, user_gradient(positions, dpositions))


# erf_array (../../../examples/black_scholes.py, line 44): x: a real array
def erf_array_forward(x):
    real_arrays(x=x)
    trip = 0
    saved_t = []
    saved_v = []
    saved_y_back = []
    t_2 = []
    for item in range(len(x)):
        saved_t.append(item)
        v = x[item]
        saved_v.append(v)
        t_2, y_back = by_rule(append, append_, t_2, math.erf(v))
        saved_y_back.append(y_back)
        trip += 1
    t = t_2
    t_1 = np.array(t_2)

    def erf_array_pullback(dy):
        saved_t_left = list(saved_t)
        saved_v_left = list(saved_v)
        saved_y_back_left = list(saved_y_back)
        if t_1.dtype.kind not in 'fc':
            t_2 = None
        else:
            t_2 = like(dy, t)
        dx = 0
        for _ in range(trip):
            y_back = saved_y_back_left.pop()
            v = saved_v_left.pop()
            t_4 = saved_t_left.pop()
            t_2 = call_pullback(y_back, t_2)
            t_5 = t_2[1]
            dv = accum(0, t_2[2]) * 2 / 1.7724538509055159 * math.exp(-v * v)
            if is_number_zero(dv):
                t_2 = 0
            else:
                t_2 = scatter(x, t_4, dv)
            dx = add_into(dx, t_2)
            t_2 = t_5
        return (user_gradient(x, dx),)
    return (t_1, erf_array_pullback)


def erf_array_gradient(x):
    real_arrays(x=x)
    trip = 0
    saved_t = []
    saved_v = []
    saved_y_back = []
    t_2 = []
    for item in range(len(x)):
        saved_t.append(item)
        v = x[item]
        saved_v.append(v)
        t_2, y_back = by_rule(append, append_, t_2, math.erf(v))
        saved_y_back.append(y_back)
        trip += 1
    t = t_2
    t_1 = np.array(t_2)
    dy = seed(t_1)
    if t_1.dtype.kind not in 'fc':
        t_2 = None
    else:
        t_2 = like(dy, t)
    dx = 0
    for _ in range(trip):
        y_back = saved_y_back.pop()
        v = saved_v.pop()
        t_3 = saved_t.pop()
        t_2 = call_pullback(y_back, t_2)
        t_4 = t_2[1]
        dv = accum(0, t_2[2]) * 2 / 1.7724538509055159 * math.exp(-v * v)
        if is_number_zero(dv):
            t_2 = 0
        else:
            t_2 = scatter(x, t_3, dv)
        dx = add_into(dx, t_2)
        t_2 = t_4
    return (user_gradient(x, dx),)


# norm_pdf (../../../examples/black_scholes.py, line 51): x: a real number
def norm_pdf_forward(x):
    real_numbers(x=x)
    t = -0.5 * x
    t_1 = math.exp(t * x)
    t_2 = math.sqrt(2.0 * math.pi)
    t_3 = t_1 / t_2

    def norm_pdf_pullback(dy):
        t_4 = dy / t_2 * t_1
        dx = t_4 * t
        dx = dx + t_4 * x * -0.5
        return (dx,)
    return (t_3, norm_pdf_pullback)


def norm_pdf_gradient(x):
    real_numbers(x=x)
    t = -0.5 * x
    t_1 = math.exp(t * x)
    t_4 = 1.0 / math.sqrt(2.0 * math.pi) * t_1
    dx = t_4 * t
    dx = dx + t_4 * x * -0.5
    return (dx,)


# closed_form_greeks (../../../examples/black_scholes.py, line 55): spot: a real number; strike: a real number; rate: a real number; vol: a real number; maturity: a real number
def closed_form_greeks_forward(spot, strike, rate, vol, maturity):
    real_numbers(spot=spot, strike=strike, rate=rate, vol=vol, maturity=maturity)
    t = math.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strike
    t_2 = math.log(t_1)
    t_3 = 0.5 * vol
    t_4 = rate + t_3 * vol
    d1 = (t_2 + t_4 * maturity) / sd
    d2 = d1 - sd
    t_5 = -rate
    discount = math.exp(t_5 * maturity)
    t_6 = math.sqrt(2.0)
    t_7 = d1 / t_6
    t_46 = 0.5 * (1.0 + math.erf(t_7))
    t_12 = -discount
    t_9 = math.sqrt(2.0)
    t_10 = d2 / t_9
    t_13 = 0.5 * (1.0 + math.erf(t_10))
    t_47 = t_12 * t_13
    t_14 = strike * maturity
    t_18 = t_14 * discount
    t_15 = math.sqrt(2.0)
    t_16 = d2 / t_15
    t_19 = 0.5 * (1.0 + math.erf(t_16))
    t_48 = t_18 * t_19
    t_20 = -0.5 * d1
    t_21 = math.exp(t_20 * d1)
    t_22 = math.sqrt(2.0 * math.pi)
    t_23 = t_21 / t_22
    t_25 = spot * t_23
    t_24 = math.sqrt(maturity)
    t_49 = t_25 * t_24
    t_26 = -0.5 * d1
    t_27 = math.exp(t_26 * d1)
    t_28 = math.sqrt(2.0 * math.pi)
    t_29 = t_27 / t_28
    t_30 = spot * sd
    t_31 = t_29 / t_30
    t_32 = -0.5 * d1
    t_33 = math.exp(t_32 * d1)
    t_34 = math.sqrt(2.0 * math.pi)
    t_35 = t_33 / t_34
    t_36 = spot * t_35
    t_50 = t_36 * vol
    t_37 = math.sqrt(maturity)
    t_38 = 2 * t_37
    t_39 = t_50 / t_38
    t_40 = rate * strike
    t_44 = t_40 * discount
    t_41 = math.sqrt(2.0)
    t_42 = d2 / t_41
    t_45 = 0.5 * (1.0 + math.erf(t_42))
    t_46, y_back = by_rule(build_dict, build_dict_1, 'delta', t_46, 'dual_delta', t_47, 'rho', t_48, 'vega', t_49, 'gamma', t_31, 'dmaturity', t_39 + t_44 * t_45)

    def closed_form_greeks_pullback(dy):
        t_46 = call_pullback(y_back, dy)
        t_48 = accum(0.0, t_46[2])
        t_49 = accum(0.0, t_46[4])
        t_50 = accum(0.0, t_46[6])
        t_47 = accum(0.0, t_46[8])
        t_51 = accum(0.0, t_46[10])
        t_46 = accum(0.0, t_46[12])
        t_52 = t_46 * t_45
        dd2 = t_46 * t_44 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_42 * t_42) / t_41
        t_53 = t_52 * discount
        ddiscount = t_52 * t_40
        drate = t_53 * strike
        dstrike = t_53 * rate
        t_52 = t_46 / t_38
        t_46 = -t_46 * t_39 / t_38 * 2
        if t_37:
            t_46 = t_46 / (2 * t_37)
        else:
            t_46 = t_46 * inf
        t_53 = t_52 * vol
        dvol = t_52 * t_36
        dspot = t_53 * t_35
        t_52 = t_53 * spot / t_34 * t_33
        dd1 = t_52 * t_32
        dd1 = dd1 + t_52 * d1 * -0.5
        t_52 = -t_51 * t_31 / t_30
        dsd = t_52 * spot
        dspot = dspot + t_52 * sd
        t_51 = t_51 / t_30 / t_28 * t_27
        dd1 = dd1 + t_51 * t_26
        dd1 = dd1 + t_51 * d1 * -0.5
        t_51 = t_47 * t_24
        t_47 = t_47 * t_25
        if t_24:
            t_47 = t_47 / (2 * t_24)
        else:
            t_47 = t_47 * inf
        dmaturity = t_46 + t_47
        dspot = dspot + t_51 * t_23
        t_46 = t_51 * spot / t_22 * t_21
        dd1 = dd1 + t_46 * t_20
        dd1 = dd1 + t_46 * d1 * -0.5
        t_46 = t_50 * t_19
        dd2 = dd2 + t_50 * t_18 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_16 * t_16) / t_15
        t_47 = t_46 * discount
        ddiscount = ddiscount + t_46 * t_14
        dstrike = dstrike + t_47 * maturity
        dmaturity = dmaturity + t_47 * strike
        dd2 = dd2 + t_49 * t_12 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_10 * t_10) / t_9
        ddiscount = ddiscount - t_49 * t_13
        dd1 = dd1 + t_48 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_7 * t_7) / t_6
        t_46 = ddiscount * discount
        dmaturity = dmaturity + t_46 * t_5
        drate = drate - t_46 * maturity
        dd1 = dd1 + dd2
        dsd = dsd - dd2
        t_46 = dd1 / sd
        dsd = dsd + -dd1 * d1 / sd
        t_47 = t_46 * maturity
        dmaturity = dmaturity + t_46 * t_4
        drate = drate + t_47
        dvol = dvol + t_47 * t_3
        dvol = dvol + t_47 * vol * 0.5
        t_46 = t_46 / (t_1 * 1.0)
        dspot = dspot + t_46 / strike
        dstrike = dstrike + -t_46 * t_1 / strike
        t_46 = dsd * vol
        dvol = dvol + dsd * t
        if t:
            t_46 = t_46 / (2 * t)
        else:
            t_46 = t_46 * inf
        dmaturity = dmaturity + t_46
        return (dspot, dstrike, drate, dvol, dmaturity)
    return (t_46, closed_form_greeks_pullback)


def closed_form_greeks_gradient(spot, strike, rate, vol, maturity):
    real_numbers(spot=spot, strike=strike, rate=rate, vol=vol, maturity=maturity)
    t = math.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strike
    t_2 = math.log(t_1)
    t_3 = 0.5 * vol
    t_4 = rate + t_3 * vol
    d1 = (t_2 + t_4 * maturity) / sd
    d2 = d1 - sd
    t_5 = -rate
    discount = math.exp(t_5 * maturity)
    t_6 = math.sqrt(2.0)
    t_7 = d1 / t_6
    t_46 = 0.5 * (1.0 + math.erf(t_7))
    t_12 = -discount
    t_9 = math.sqrt(2.0)
    t_10 = d2 / t_9
    t_13 = 0.5 * (1.0 + math.erf(t_10))
    t_47 = t_12 * t_13
    t_14 = strike * maturity
    t_18 = t_14 * discount
    t_15 = math.sqrt(2.0)
    t_16 = d2 / t_15
    t_19 = 0.5 * (1.0 + math.erf(t_16))
    t_48 = t_18 * t_19
    t_20 = -0.5 * d1
    t_21 = math.exp(t_20 * d1)
    t_22 = math.sqrt(2.0 * math.pi)
    t_23 = t_21 / t_22
    t_25 = spot * t_23
    t_24 = math.sqrt(maturity)
    t_49 = t_25 * t_24
    t_26 = -0.5 * d1
    t_27 = math.exp(t_26 * d1)
    t_28 = math.sqrt(2.0 * math.pi)
    t_29 = t_27 / t_28
    t_30 = spot * sd
    t_31 = t_29 / t_30
    t_32 = -0.5 * d1
    t_33 = math.exp(t_32 * d1)
    t_34 = math.sqrt(2.0 * math.pi)
    t_35 = t_33 / t_34
    t_36 = spot * t_35
    t_50 = t_36 * vol
    t_37 = math.sqrt(maturity)
    t_38 = 2 * t_37
    t_39 = t_50 / t_38
    t_40 = rate * strike
    t_44 = t_40 * discount
    t_41 = math.sqrt(2.0)
    t_42 = d2 / t_41
    t_45 = 0.5 * (1.0 + math.erf(t_42))
    t_48, y_back = by_rule(build_dict, build_dict_1, 'delta', t_46, 'dual_delta', t_47, 'rho', t_48, 'vega', t_49, 'gamma', t_31, 'dmaturity', t_39 + t_44 * t_45)
    t_46 = call_pullback(y_back, seed(t_48))
    t_49 = accum(0.0, t_46[2])
    t_50 = accum(0.0, t_46[4])
    t_51 = accum(0.0, t_46[6])
    t_47 = accum(0.0, t_46[8])
    t_52 = accum(0.0, t_46[10])
    t_46 = accum(0.0, t_46[12])
    t_53 = t_46 * t_45
    dd2 = t_46 * t_44 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_42 * t_42) / t_41
    t_54 = t_53 * discount
    ddiscount = t_53 * t_40
    drate = t_54 * strike
    dstrike = t_54 * rate
    t_53 = t_46 / t_38
    t_46 = -t_46 * t_39 / t_38 * 2
    if t_37:
        t_46 = t_46 / (2 * t_37)
    else:
        t_46 = t_46 * inf
    t_54 = t_53 * vol
    dvol = t_53 * t_36
    dspot = t_54 * t_35
    t_53 = t_54 * spot / t_34 * t_33
    dd1 = t_53 * t_32
    dd1 = dd1 + t_53 * d1 * -0.5
    t_53 = -t_52 * t_31 / t_30
    dsd = t_53 * spot
    dspot = dspot + t_53 * sd
    t_52 = t_52 / t_30 / t_28 * t_27
    dd1 = dd1 + t_52 * t_26
    dd1 = dd1 + t_52 * d1 * -0.5
    t_52 = t_47 * t_24
    t_47 = t_47 * t_25
    if t_24:
        t_47 = t_47 / (2 * t_24)
    else:
        t_47 = t_47 * inf
    dmaturity = t_46 + t_47
    dspot = dspot + t_52 * t_23
    t_46 = t_52 * spot / t_22 * t_21
    dd1 = dd1 + t_46 * t_20
    dd1 = dd1 + t_46 * d1 * -0.5
    t_46 = t_51 * t_19
    dd2 = dd2 + t_51 * t_18 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_16 * t_16) / t_15
    t_47 = t_46 * discount
    ddiscount = ddiscount + t_46 * t_14
    dstrike = dstrike + t_47 * maturity
    dmaturity = dmaturity + t_47 * strike
    dd2 = dd2 + t_50 * t_12 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_10 * t_10) / t_9
    ddiscount = ddiscount - t_50 * t_13
    dd1 = dd1 + t_49 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_7 * t_7) / t_6
    t_46 = ddiscount * discount
    dmaturity = dmaturity + t_46 * t_5
    drate = drate - t_46 * maturity
    dd1 = dd1 + dd2
    dsd = dsd - dd2
    t_46 = dd1 / sd
    dsd = dsd + -dd1 * d1 / sd
    t_47 = t_46 * maturity
    dmaturity = dmaturity + t_46 * t_4
    drate = drate + t_47
    dvol = dvol + t_47 * t_3
    dvol = dvol + t_47 * vol * 0.5
    t_46 = t_46 / (t_1 * 1.0)
    dspot = dspot + t_46 / strike
    dstrike = dstrike + -t_46 * t_1 / strike
    t_46 = dsd * vol
    dvol = dvol + dsd * t
    if t:
        t_46 = t_46 / (2 * t)
    else:
        t_46 = t_46 * inf
    dmaturity = dmaturity + t_46
    return (dspot, dstrike, drate, dvol, dmaturity)
