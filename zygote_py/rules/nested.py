"""Rules that make zygote_py's own API differentiable: ``zpy.gradient``
and ``zpy.value_and_gradient`` called inside a function being
differentiated (nested differentiation, to any order).

The gradient of ``f`` at ``args`` is computed by a Python function whose
source zygote_py can read (:func:`zygote_py.runtime.gradient_function`: the
gradient function it emitted for ``f``, or ``f``'s rule and its pullback):
differentiating the call is differentiating that function again, as Zygote
differentiates its own output. ``f``'s captured variables (the outer
function's variables, in ``lambda y: x * y``) are that function's captured
variables too, so their gradients reach the outer function: no
perturbation confusion. Registered by :mod:`zygote_py.api`, which defines
the functions.

- ``gradient(f, *args)``: the gradients of the gradients; ``f`` gets its
  captured variables' (a ``Tangent``).
- ``value_and_gradient(f, *args)``: the same, with the value's cotangent
  too.
- ``runtime.seed`` (the output's cotangent 1) has no gradient.
"""
from zygote_py import runtime

from .registry import nondifferentiable

nondifferentiable(runtime.seed)


def gradient(f, *args):
    out, pullback = runtime.J(runtime.gradient_function(f, args), *args)

    def back(dy):
        grads = runtime.call_pullback(pullback, (None, dy))
        return (grads[0], *(grads[1 + i] for i in range(len(args))))
    return out[1], back


def value_and_gradient(f, *args):
    out, pullback = runtime.J(runtime.gradient_function(f, args), *args)

    def back(dy):
        grads = runtime.call_pullback(pullback, dy)
        return (grads[0], *(grads[1 + i] for i in range(len(args))))
    return out, back
