"""Rules for zygote_py's own gradient controls (:mod:`zygote_py.hooks`).

- ``stop_gradient(x)`` is non-differentiable: its output is a constant.
- ``hook(fn, x)``: ``x`` gets ``fn`` applied to the gradient of the result,
  as the user sees gradients (:func:`zygote_py.runtime.user_gradient`:
  dense, shaped like ``x``). A ``fn`` that returns ``None`` blocks the
  gradient: ``x`` gets none from this call. ``fn`` gets no gradient. The
  compiler does not know that the result has ``x``'s kind (a number, an
  array), so its calls go through :func:`zygote_py.runtime.J`, where a
  ``None`` gradient is allowed (an inlined rule's gradient of a number
  must be a number).
- ``checkpoint(f, *args)``: the forward pass calls ``f`` plainly; the
  pullback differentiates the call again with :func:`zygote_py.runtime.J`
  and pulls the gradient back through it, to ``f`` (a closure's captured
  variables) and to each argument.
"""
from zygote_py import hooks, runtime

from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(hooks.stop_gradient)


@adjoint(hooks.hook)
def hook(fn, x):
    def back(dy):
        return (None, fn(runtime.user_gradient(x, dy)))
    return hooks.hook(fn, x), back


@adjoint(hooks.checkpoint)
def checkpoint(f, *args):
    def back(dy):
        # (indexed, not unpacked: J may return the endless run of None)
        grads = runtime.J(f, *args)[1](dy)
        return (grads[0], *[grads[1 + i] for i in range(len(args))])
    return hooks.checkpoint(f, *args), back


@pushforward(hooks.hook)
def hook_push(y, fn, x, *, dx):
    return dx  # (the hook sees gradients, in reverse mode)


@pushforward(hooks.checkpoint)
def checkpoint_push(y, f, *args, dargs):
    """Called at run time: forward mode keeps nothing, so it has nothing to
    save; the tangent is ``f``'s."""
    return runtime.push(f, args, {}, dargs, {})[1]
