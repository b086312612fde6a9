# Gradients of ../../../examples/ciede2000.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/ciede2000.py -o ciede2000_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   hue_angle  2b8f2027aa64c0f8
#   linear     ba2ff04bf985729b
#   lab_f      0cfa3bfa69a57f5c
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
#   fit (line 132): changing `rgb` in place while `grad`, which may share its memory or hold it (a view such as y[1:], a container holding it, an iterator over it), is used afterwards (change a copy (y = y.copy()), or make the view or container after the change)
#   ciede2000 (line 26): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   srgb_to_lab (line 91): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   distance_to (line 91): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import cmath
import math
import numbers
import numpy as np

inf = float('inf')


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# zygote_py.ir.ops._count_error
def _count_error(got, count):
    if got > count:
        return ValueError(f'too many values to unpack (expected {count})')
    return ValueError(f'not enough values to unpack (expected {count}, got {got})')


# zygote_py.ir.ops.unpack
def unpack(value, count):
    """``a, b = value``: exactly ``count`` items, with Python's errors."""
    items = tuple(value)
    if len(items) != count:
        raise _count_error(len(items), count)
    return items


# zygote_py.runtime.real_if_real
def real_if_real(g, x):
    """``g`` as the gradient of ``x``: its real part when ``x`` is real."""
    return g.real if np.iscomplexobj(g) and (not np.iscomplexobj(x)) else g


# zygote_py.rules.operators.pow_complex
def pow_complex(a, b):
    """``a ** b`` on the principal branch: ``d/da = b * a ** (b - 1)``,
    ``d/db = y * log(a)``. At ``a == 0`` (where ``b`` is real and ``>= 0``,
    or Python raises) ``d/da`` has no limit for ``0 < b < 1``, nor ``d/db``
    for ``b == 0``: ``nan``."""
    y = a ** b

    def back(dy):
        if b == 0:
            da = dy * 0j
        elif a == 0 and b.real < 1:
            da = dy * math.nan
        else:
            da = dy * (b * a ** (b - 1)).conjugate()
        if isinstance(b, int):
            return (real_if_real(da, a), None)
        if a != 0:
            db = dy * (y * cmath.log(a)).conjugate()
        elif b.real > 0:
            db = dy * 0j
        else:
            db = dy * math.nan
        return (real_if_real(da, a), real_if_real(db, b))
    return (y, back)


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


# hue_angle (../../../examples/ciede2000.py, line 79): b: a real number; a: a real number
def hue_angle_forward(b, a):
    real_numbers(b=b, a=a)
    if a == 0:
        if b == 0:
            path_2 = 0
            h = 0.0

            def hue_angle_pullback(dy):
                if path_2 == 0:
                    db, da = (0.0, 0.0)
                else:
                    t = math.degrees(dy)
                    t_1 = math.hypot(b, a)
                    if t_1 == 0:
                        db, da = (0.0 * t, 0.0 * t)
                    else:
                        db, da = (t * a / t_1 / t_1, -t * b / t_1 / t_1)
                return (db, da)
            return (h, hue_angle_pullback)
    h = math.degrees(math.atan2(b, a))
    if h < 0:
        h += 360
    path_2 = 1

    def hue_angle_pullback(dy):
        if path_2 == 0:
            db, da = (0.0, 0.0)
        else:
            t = math.degrees(dy)
            t_1 = math.hypot(b, a)
            if t_1 == 0:
                db, da = (0.0 * t, 0.0 * t)
            else:
                db, da = (t * a / t_1 / t_1, -t * b / t_1 / t_1)
        return (db, da)
    return (h, hue_angle_pullback)


def hue_angle_gradient(b, a):
    real_numbers(b=b, a=a)
    if a == 0:
        label = 1
        if b == 0:
            path_2 = 0
            label = 2
    else:
        label = 1
    if label == 1:
        path_2 = 1
    if path_2 == 0:
        db, da = (0.0, 0.0)
    else:
        t = math.degrees(1.0)
        t_1 = math.hypot(b, a)
        if t_1 == 0:
            db, da = (0.0 * t, 0.0 * t)
        else:
            db, da = (t * a / t_1 / t_1, -t * b / t_1 / t_1)
    return (db, da)


# linear (../../../examples/ciede2000.py, line 99): c: a real number
def linear_forward(c):
    real_numbers(c=c)
    if c <= 0.04045:
        t_2 = c / 12.92
        path = 0
        t_3 = t_2
    else:
        t = (c + 0.055) / 1.055
        t_1 = t ** 2.4
        path = 1
        t_3 = t_1

    def linear_pullback(dy):
        if path == 0:
            dc = dy / 12.92
        else:
            if type(t_1) is complex:
                t_3 = unpack(pow_complex(t, 2.4)[1](dy), 2)
                t_3 = t_3[0]
            else:
                t_3 = dy * 2.4 * t ** 1.4
            dc = t_3 / 1.055
        return (dc,)
    return (t_3, linear_pullback)


def linear_gradient(c):
    real_numbers(c=c)
    if c <= 0.04045:
        t_3 = c / 12.92
        path = 0
    else:
        t = (c + 0.055) / 1.055
        t_1 = t ** 2.4
        path = 1
        t_3 = t_1
    dy = seed(t_3)
    if path == 0:
        dc = dy / 12.92
    else:
        if type(t_1) is complex:
            t_4 = unpack(pow_complex(t, 2.4)[1](dy), 2)
            t_4 = t_4[0]
        else:
            t_4 = dy * 2.4 * t ** 1.4
        dc = t_4 / 1.055
    return (dc,)


# lab_f (../../../examples/ciede2000.py, line 106): t: a real number
def lab_f_forward(t):
    real_numbers(t=t)
    if t > 0.008856451679035631:
        t_2 = t ** 0.3333333333333333
        path = 0
        t_3 = t_2
    else:
        t_3 = t / 0.12841854934601665 + 0.13793103448275862
        path = 1

    def lab_f_pullback(dy):
        if path == 0:
            if type(t_2) is complex:
                t_3 = unpack(pow_complex(t, 0.3333333333333333)[1](dy), 2)
                dt = t_3[0]
            elif t == 0:
                dt = dy * inf
            else:
                dt = dy * 0.3333333333333333 * t ** (-0.6666666666666667)
        else:
            dt = dy / 0.12841854934601665
        return (dt,)
    return (t_3, lab_f_pullback)


def lab_f_gradient(t):
    real_numbers(t=t)
    if t > 0.008856451679035631:
        t_3 = t ** 0.3333333333333333
        path = 0
    else:
        t_3 = t / 0.12841854934601665 + 0.13793103448275862
        path = 1
    dy = seed(t_3)
    if path == 0:
        if type(t_3) is complex:
            t_4 = unpack(pow_complex(t, 0.3333333333333333)[1](dy), 2)
            dt = t_4[0]
        elif t == 0:
            dt = dy * inf
        else:
            dt = dy * 0.3333333333333333 * t ** (-0.6666666666666667)
    else:
        dt = dy / 0.12841854934601665
    return (dt,)
