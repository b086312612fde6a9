# Gradients of ../../../examples/gaussian_process.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/gaussian_process.py -o gaussian_process_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
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
# Not differentiable:
#   main: main is a main function
#
# Not emitted (zpy emit --skip-failing):
#   kernel (line 22): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   log_marginal_likelihood (line 29): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   predict (line 37): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   data (line 48): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
