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
- ``runtime.seed`` (the output's cotangent 1) and
  ``numpy_linalg.real_matrices`` (a test) have no gradient.
- The run-time helpers emitted gradient code calls are linear in the
  gradients they take: ``accum(a, b)`` and ``add_into(g, v)`` pass their
  cotangent to both,
  ``unbroadcast(dy, x)`` broadcasts it back to ``dy``'s shape,
  ``scatter(x, key, dy)`` reads ``dy``'s part at ``key``, and ``add_at``
  and ``add_to`` (``g + scatter(x, key, dy)``) do both;
  ``numpy_reductions.extremum_grad`` (``max``'s gradient) gathers it back
  from the elements it selected.

Their pushforwards, for forward mode over emitted gradient code (``zpy.hvp``
and ``zpy.hessian``, forward-over-reverse), apply each helper to the
tangents of the gradients it takes: it is linear in them.
"""
import numpy as np

from zygote_py import errors, runtime
from zygote_py.rules import numpy_linalg, numpy_reductions

from . import registry
from .registry import adjoint, nondifferentiable, pushforward

nondifferentiable(runtime.seed, numpy_linalg.real_matrices, runtime.nestlevel)


@adjoint(runtime.accum)
def accum(a, b):
    def back(dy):
        return (None if a is None else dy, None if b is None else dy)
    return runtime.accum(a, b), back


@adjoint(runtime.add_into)
def add_into(g, v):
    def back(dy):
        return (dy, dy)
    return g + v, back


@adjoint(runtime.unbroadcast)
def unbroadcast(dy, x):
    def back(g):
        if g is None or not np.shape(dy):
            return (g, None)
        return (runtime.dense(g) + np.zeros(np.shape(dy)), None)  # broadcast back to dy's shape
    return runtime.unbroadcast(dy, x), back


@adjoint(runtime.scatter)
def scatter(x, key, dy):
    def back(g):
        return (None, None, None if g is None else runtime.unbroadcast(np.asarray(runtime.dense(g))[key], dy))
    return runtime.dense(runtime.scatter(x, key, dy)), back


@adjoint(runtime.add_at)
@adjoint(runtime.add_to)
def add_at(g, x, key, dy):
    def back(c):
        if c is None:
            return (None, None, None, None)
        return (c, None, None, runtime.unbroadcast(np.asarray(runtime.dense(c))[key], dy))
    return runtime.dense(g) + runtime.dense(runtime.scatter(x, key, dy)), back


def gradient(f, *args):
    out, pullback = runtime.J_nested(runtime.gradient_function(f, args), *args)

    def back(dy):
        grads = runtime.call_pullback(pullback, (None, dy))
        return (grads[0], *(grads[1 + i] for i in range(len(args))))
    return out[1], back


def value_and_gradient(f, *args):
    out, pullback = runtime.J_nested(runtime.gradient_function(f, args), *args)

    def back(dy):
        grads = runtime.call_pullback(pullback, dy)
        return (grads[0], *(grads[1 + i] for i in range(len(args))))
    return out, back


def gradient_push(y, f, *args, dargs):
    """Forward mode: the pushforward of the gradient code emitted for ``f``
    (so ``jvp`` of a gradient is forward-over-reverse)."""
    return value_and_gradient_push(y, f, *args, dargs=dargs)[1]


def value_and_gradient_push(y, f, *args, dargs):
    if registry.lookup(f) is not None:
        raise errors.NoDerivativeRule(
            f"forward mode: the derivative of the gradient of {registry.display_name(f)}, a function with a "
            "rule, is not supported (its rule's pullback is a closure)",
            hint="use reverse mode over it: zpy.gradient of a function calling zpy.gradient, or zpy.hessian")
    return runtime.push(runtime.gradient_function(f, args), args, {}, dargs, {})[1]


@adjoint(numpy_reductions.extremum_grad)
def extremum_grad(dy, a, y, axis, keepdims):
    def back(g):
        if g is None:
            return (None, None, None, None, None)
        shares = numpy_reductions.extremum_grad(np.ones(np.shape(dy)), a, y, axis, keepdims)
        ddy = np.sum(runtime.dense(g) * shares, axis=axis, keepdims=keepdims)
        return (np.reshape(ddy, np.shape(dy)), None, None, None, None)
    return numpy_reductions.extremum_grad(dy, a, y, axis, keepdims), back


@pushforward(runtime.accum)
def accum_push(y, a, b, *, da, db):
    return runtime.accum(da, db)


@pushforward(runtime.add_into)
def add_into_push(y, g, v, *, dg, dv):
    return dg + dv


@pushforward(runtime.unbroadcast)
def unbroadcast_push(y, dy, x, *, ddy):
    return runtime.unbroadcast(ddy, x)


@pushforward(runtime.scatter)
def scatter_push(y, x, key, dy, *, ddy):
    return runtime.scatter(x, key, ddy)


@pushforward(runtime.add_at)
@pushforward(runtime.add_to)
def add_at_push(y, g, x, key, dy, *, dg, ddy):
    return runtime.add_at(dg, x, key, ddy)


@pushforward(numpy_reductions.extremum_grad)
def extremum_grad_push(y, dy, a, m, axis, keepdims, *, ddy):
    return numpy_reductions.extremum_grad(ddy, a, m, axis, keepdims)
