# Gradients of ../../../examples/projectile.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/projectile.py -o projectile_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   GRAVITY       099024ad4d234aec
#   flight_range  9609fc9d984f5dfe
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
#   best_angle (line 46): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   fit_drag (line 58): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import math
import numbers
import numpy as np

GRAVITY = 9.81
STOP = object()
inf = float('inf')


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# zygote_py.ir.ops.exhausted
def exhausted(value):
    """Whether :func:`iternext` reported the end of the iteration."""
    return value is STOP


# zygote_py.ir.ops.iternext
def iternext(iterator):
    """One step of a ``for`` loop: the next item, or ``STOP``."""
    return next(iterator, STOP)


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


# flight_range (../../../examples/projectile.py, line 22): angle: a real number; speed: a real number; drag: a real number; dt: a real number
def flight_range_forward(angle, speed, drag, dt=0.01):
    real_numbers(angle=angle, speed=speed, drag=drag, dt=dt)
    trip = 0
    saved_vx = []
    saved_vy = []
    saved_v = []
    saved_t = []
    saved_t_1 = []
    saved_t_2 = []
    saved_vx_1 = []
    saved_vy_1 = []
    t = math.cos(angle)
    vx = speed * t
    t_1 = math.sin(angle)
    vy = speed * t_1
    t_2 = dt * drag
    t_6 = GRAVITY
    x, y_1 = (0.0, 0.0)
    while True:
        saved_vx.append(vx)
        t_7 = vx * vx
        saved_vy.append(vy)
        v = math.sqrt(t_7 + vy * vy)
        saved_v.append(v)
        t_7 = t_2 * v
        saved_t.append(t_7)
        vx = vx - t_7 * vx
        saved_vx_1.append(vx)
        t_7 = drag * v
        saved_t_1.append(t_7)
        t_7 = t_6 + t_7 * vy
        saved_t_2.append(t_7)
        vy = vy - dt * t_7
        saved_vy_1.append(vy)
        x_1 = x + dt * vx
        y_2 = y_1 + dt * vy
        if y_2 < 0:
            break
        trip += 1
        x, y_1 = (x_1, y_2)
    y = y_1
    t_3 = x_1 - x
    t_6 = t_3 * y_1
    t_4 = y_1 - y_2
    t_5 = t_6 / t_4

    def flight_range_pullback(dout):
        saved_t_left = list(saved_t)
        saved_t_1_left = list(saved_t_1)
        saved_t_2_left = list(saved_t_2)
        saved_v_left = list(saved_v)
        saved_vx_left = list(saved_vx)
        saved_vx_1_left = list(saved_vx_1)
        saved_vy_left = list(saved_vy)
        saved_vy_1_left = list(saved_vy_1)
        t_6 = dout / t_4
        dy = -dout * t_5 / t_4
        dy_1 = -dy
        dx = t_6 * y
        dy = dy + t_6 * t_3
        dx_1 = dout - dx
        t_7 = iter(range(trip))
        ddrag, ddt, dx, t_6, dvx, dvy, dx_1 = (0.0, 0.0, dx_1, 0.0, 0.0, 0.0, dx)
        while True:
            vy = saved_vy_1_left.pop()
            vx = saved_vx_1_left.pop()
            t_8 = saved_t_2_left.pop()
            t_9 = saved_t_1_left.pop()
            t_10 = saved_t_left.pop()
            v = saved_v_left.pop()
            vy_1 = saved_vy_left.pop()
            vx_1 = saved_vx_left.pop()
            dy = dy + dy_1
            ddt = ddt + dy_1 * vy
            dvy = dvy + dy_1 * dt
            dx = dx + dx_1
            ddt = ddt + dx_1 * vx
            dvx = dvx + dx_1 * dt
            t_11 = -dvy
            t_12 = t_11 * dt
            ddt = ddt + t_11 * t_8
            t_8 = t_12 * vy_1
            dvy = dvy + t_12 * t_9
            dv = t_8 * drag
            ddrag = ddrag + t_8 * v
            t_8 = -dvx
            t_9 = t_8 * vx_1
            dvx = dvx + t_8 * t_10
            t_8 = t_6 + t_9 * v
            dv = dv + t_9 * t_2
            if v:
                t_6 = dv / (2 * v)
            else:
                t_6 = dv * inf
            dvy = dvy + 2 * (t_6 * vy_1)
            dvx = dvx + 2 * (t_6 * vx_1)
            t_6 = exhausted(iternext(t_7))
            if t_6:
                break
            dx, dy, t_6, dx_1, dy_1 = (0.0, 0.0, t_8, dx, dy)
        ddt = ddt + t_8 * drag
        ddrag = ddrag + t_8 * dt
        dspeed = dvy * t_1
        dangle = dvy * speed * math.cos(angle)
        dspeed = dspeed + dvx * t
        dangle = dangle + -(dvx * speed) * math.sin(angle)
        return (dangle, dspeed, ddrag, ddt)
    return (x + t_5, flight_range_pullback)


def flight_range_gradient(angle, speed, drag, dt=0.01):
    real_numbers(angle=angle, speed=speed, drag=drag, dt=dt)
    trip = 0
    saved_vx = []
    saved_vy = []
    saved_v = []
    saved_t = []
    saved_t_1 = []
    saved_t_2 = []
    saved_vx_1 = []
    saved_vy_1 = []
    t = math.cos(angle)
    vx = speed * t
    t_1 = math.sin(angle)
    vy = speed * t_1
    t_2 = dt * drag
    t_6 = GRAVITY
    x, y_1 = (0.0, 0.0)
    while True:
        saved_vx.append(vx)
        t_7 = vx * vx
        saved_vy.append(vy)
        v = math.sqrt(t_7 + vy * vy)
        saved_v.append(v)
        t_7 = t_2 * v
        saved_t.append(t_7)
        vx = vx - t_7 * vx
        saved_vx_1.append(vx)
        t_7 = drag * v
        saved_t_1.append(t_7)
        t_7 = t_6 + t_7 * vy
        saved_t_2.append(t_7)
        vy = vy - dt * t_7
        saved_vy_1.append(vy)
        x_1 = x + dt * vx
        y_2 = y_1 + dt * vy
        if y_2 < 0:
            break
        trip += 1
        x, y_1 = (x_1, y_2)
    y = y_1
    t_3 = x_1 - x
    t_6 = t_3 * y_1
    t_4 = y_1 - y_2
    t_5 = t_6 / t_4
    t_7 = x + t_5
    dout = seed(t_7)
    t_6 = dout / t_4
    dy = -dout * t_5 / t_4
    dy_1 = -dy
    dx = t_6 * y
    dy = dy + t_6 * t_3
    dx_1 = dout - dx
    t_8 = iter(range(trip))
    ddrag, ddt, dx, t_6, dvx, dvy, dx_1 = (0.0, 0.0, dx_1, 0.0, 0.0, 0.0, dx)
    while True:
        vy = saved_vy_1.pop()
        vx = saved_vx_1.pop()
        t_9 = saved_t_2.pop()
        t_10 = saved_t_1.pop()
        t_11 = saved_t.pop()
        v = saved_v.pop()
        vy_1 = saved_vy.pop()
        vx_1 = saved_vx.pop()
        dy = dy + dy_1
        ddt = ddt + dy_1 * vy
        dvy = dvy + dy_1 * dt
        dx = dx + dx_1
        ddt = ddt + dx_1 * vx
        dvx = dvx + dx_1 * dt
        t_12 = -dvy
        t_13 = t_12 * dt
        ddt = ddt + t_12 * t_9
        t_9 = t_13 * vy_1
        dvy = dvy + t_13 * t_10
        dv = t_9 * drag
        ddrag = ddrag + t_9 * v
        t_9 = -dvx
        t_10 = t_9 * vx_1
        dvx = dvx + t_9 * t_11
        t_9 = t_6 + t_10 * v
        dv = dv + t_10 * t_2
        if v:
            t_6 = dv / (2 * v)
        else:
            t_6 = dv * inf
        dvy = dvy + 2 * (t_6 * vy_1)
        dvx = dvx + 2 * (t_6 * vx_1)
        t_6 = exhausted(iternext(t_8))
        if t_6:
            break
        dx, dy, t_6, dx_1, dy_1 = (0.0, 0.0, t_9, dx, dy)
    ddt = ddt + t_9 * drag
    ddrag = ddrag + t_9 * dt
    dspeed = dvy * t_1
    dangle = dvy * speed * math.cos(angle)
    dspeed = dspeed + dvx * t
    dangle = dangle + -(dvx * speed) * math.sin(angle)
    return (dangle, dspeed, ddrag, ddt)
