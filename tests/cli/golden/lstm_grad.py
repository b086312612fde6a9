# Gradients of ../../../examples/lstm.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/lstm.py -o lstm_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   sigmoid  30a021ef7a8e28e0
#
# NAME_forward(*args) returns (y, pullback) and pullback(dy) the gradients
# (it may be called again); NAME_gradient(*args) returns the gradients;
# a method Class.name gives Class_name_forward(self, ...) and
# Class_name_gradient(self, ...).
# Parameters annotated int, bool, str or bytes, or with such a default,
# are not differentiated; float or no annotation means a real number,
# np.ndarray a real array; a dataclass whose fields are annotated so
# (or a method's self of one) gets a types.SimpleNamespace of its
# fields' gradients (the attributes of zpy.gradient's Tangent); a
# dict[str, float], dict[str, np.ndarray] or TypedDict so, a dict of
# its items' gradients (None for an item not read).
#
# Not differentiable:
#   main: main is a main function
#
# Not emitted (zpy emit --skip-failing):
#   adding_problem (line 47): changing `row` in place, which may share its memory or items with another value (a view such as y[1:], an item of a container, a function's result, or a global) (change a copy made in this function (y = y.copy(), l = list(l)), or index the original directly (y[1 + i] = v rather than t = y[1:]; t[i] = v))
#   adam (line 70): changing `v` in place, which may share its memory or items with another value (a view such as y[1:], an item of a container, a function's result, or a global) (change a copy made in this function (y = y.copy(), l = list(l)), or index the original directly (y[1 + i] = v rather than t = y[1:]; t[i] = v))
#   lstm_loss (line 26): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   init (line 56): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import numpy as np


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
