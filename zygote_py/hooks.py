"""Controlling the gradient from inside a differentiated function:
``stop_gradient``, ``hook``, ``checkpoint`` and the ``@non_differentiable``
decorator.

Each of these is plain Python when called outside differentiation; what
they do to the gradient comes from their entries in the rule registry
(:mod:`zygote_py.rules.hooks`), which the compiler and the run-time ``J``
consult as for any other function.

May import: the rule table (:mod:`zygote_py.registry`).
"""
from __future__ import annotations

import copy

from typing import Any, Callable, TypeVar

from . import registry

F = TypeVar("F", bound=Callable)


def stop_gradient(x: Any) -> Any:
    """``x``'s value; no gradient flows back to ``x`` (a number, an array, a
    structure) through this call. A mutable ``x`` (an array, a list, an
    object) is copied (deeply), so that changing the result in place
    cannot change ``x`` behind the gradient's back."""
    return copy.deepcopy(x)


def hook(fn: Callable[[Any], Any], x: Any) -> Any:
    """``x`` itself; in reverse, the gradient of the result is passed to
    ``fn`` (dense, shaped like ``x``), and ``fn``'s result is the gradient
    that flows to ``x``: ``hook(lambda g: np.clip(g, -1, 1), x)`` clips it,
    a ``fn`` that returns ``None`` blocks it."""
    return x


def checkpoint(f: Callable, *args: Any) -> Any:
    """``f(*args)``. Under differentiation the forward pass runs ``f``
    plainly, recording nothing for its pullback, and the pullback runs
    ``f``'s differentiated forward again on the same ``args`` to rebuild
    what it needs: memory for time. ``args`` get their gradients, and so
    does ``f`` when it is a closure over differentiated variables. ``f``
    must compute the same thing both times (no randomness, no changes to
    state it reads)."""
    return f(*args)


def non_differentiable(fn: F) -> F:
    """Decorator: no gradient flows through calls of ``fn``, which work as
    before; under differentiation, its output counts as a constant, so its
    arguments get no gradient from it (as registering it with
    ``zygote_py.rules.nondifferentiable`` does). Returns ``fn`` itself.
    Its result should be a new value, not one of its arguments: a change
    made in place to the result would not be seen as a change to the
    argument.

    ::

        @zpy.non_differentiable
        def bucket(x):
            return round(x * 10) / 10
    """
    registry.nondifferentiable(fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn)
    return fn
