"""Differentiation inside differentiation: the order of differentiation
running (:func:`nestlevel`), and the gradient function of a callee as code
zygote_py differentiates again (:func:`gradient_function`).

May import: the rule table, :mod:`.dispatch` and the runtime's lower
modules, and the compiler only through :mod:`.seam`.
"""
from __future__ import annotations

import functools
import sys
import types
import weakref
from typing import Any, Callable, Optional

from .. import registry
from ..errors import NoDerivativeRule
from . import seam
from .arguments import call_cotangent, restricted
from .dispatch import J, keyword_positions
from .gradients import seed
from .values import calls_wrapped


NEST = [0]
"""How many differentiations are running (see :func:`nestlevel`)."""


COUNTED_CODE: "weakref.WeakSet[types.CodeType]" = weakref.WeakSet()
"""Code whose every running frame is one more differentiation: the gradient
functions ``zpy.grad``'s fast path calls without counting in ``NEST`` (two
list updates would cost it a third of its time; see ``backend.bound``)."""


STALE = object()
"""What a bound gradient function of ``zpy.grad``'s fast path returns when
its guards fail (see ``backend.bound``), so that the caller takes the
general path. Here, below both, so that ``zpy.grad`` holds it without
loading the compiler."""


def nestlevel() -> int:
    """The order of differentiation being performed where it is called: 0
    outside any, 1 in a function ``zpy.gradient`` differentiates, 2 in the
    inner function of a gradient taken inside that one, ..."""
    level = NEST[0]
    if COUNTED_CODE:
        frame = sys._getframe(1)
        while frame is not None:
            level += frame.f_code in COUNTED_CODE
            frame = frame.f_back
    return level


def nested(forward: Callable) -> Callable:
    """``forward``, counted as one more differentiation while it runs."""
    def run(*args: Any, **kwargs: Any) -> Any:
        NEST[0] += 1
        try:
            return forward(*args, **kwargs)
        finally:
            NEST[0] -= 1
    return run


def J_nested(f: Any, *args: Any) -> tuple[Any, Callable]:
    """:func:`J` of a gradient function: one more differentiation runs in it."""
    return nested(J)(f, *args)


def gradient_function(f: Any, args: tuple, kwargs: Optional[dict] = None) -> Callable:
    """A Python function of ``args`` (and ``kwargs``, constants) returning
    ``(f(*args, **kwargs), gradient of f)`` whose source zygote_py can
    read, so that the gradient is differentiated again (nested
    differentiation): the emitted gradient function of a Python ``f``, or
    :func:`rule_gradient` for an ``f`` with a rule. The gradient has one
    entry per argument; with ``kwargs``, where the arguments are the
    first parameters, one per parameter (theirs first), which forward
    mode pushes through the emitted code alone."""
    if calls_wrapped(f):
        f = f.__wrapped__
    rule = registry.lookup(f)
    if rule is not None:
        return rule_gradient(rule)
    if not isinstance(f, types.FunctionType):
        raise NoDerivativeRule(
            f"no rule for differentiating zpy.gradient of {registry.display_name(f)!r} again",
            hint="differentiate a plain Python function's gradient, or one with a rule",
        )
    kwargs = kwargs or {}
    active, numeric = seam.compiler().masks(f, args, kwargs)
    if kwargs:
        active = restricted(f, active, range(len(args)))
    entry = seam.compiler().compiled(f, active, numeric, False)
    g, sig = entry.gradient_function(f), entry.signature
    positional = sig.posonly + sig.args
    if kwargs and sig.vararg is None and len(args) <= len(positional) or \
            sig.names() == positional and len(positional) == len(args):
        return g
    return per_argument(f, g, sig)


def unpartial(f: Any, args: tuple, dargs: tuple, kwargs: dict) -> tuple[Any, tuple, tuple, dict]:
    """``f``, its arguments, their tangents and its keyword arguments with
    a ``functools.partial`` replaced by its function and the arguments it
    binds (constants: no tangents), so that :func:`gradient_function` gets
    a Python function."""
    while type(f) is functools.partial:
        args, dargs = (*f.args, *args), (*(None,) * len(f.args), *dargs)
        f, kwargs = f.func, {**f.keywords, **kwargs}
    return f, args, dargs, kwargs


def per_argument(f: Any, g: Callable, sig: Any) -> Callable:
    """The gradient function ``g`` of ``f`` (one gradient per parameter)
    giving one gradient per positional argument of the call, as
    ``zpy.gradient`` does: for ``f(*xs)``, a call that leaves a parameter
    to its default, or one with keyword arguments (constants)."""
    def gradient(*args, **kwargs):
        y, grads = g(*args, **kwargs)
        return y, call_cotangent(f, False, sig, len(args), list(kwargs), grads)[1:1 + len(args)]
    return gradient


def rule_gradient(rule: Callable) -> Callable:
    """A function of ``args`` returning ``(y, gradients)`` of a function
    through its rule ``rule``."""
    def gradient(*args):
        y, back = rule(*args)
        return y, back(seed(y))
    return gradient


def rule_vjp(rule: Callable, nargs: int, keywords: tuple = ()) -> Callable:
    """A function of ``(dout, *args, **kwargs)`` returning the gradients of
    a call of a function through its rule ``rule`` with ``nargs``
    positional arguments and the keyword arguments ``keywords`` (in call
    order), for the cotangent ``dout``, in :func:`J`'s convention: plain
    Python, so that the rule is differentiated again (see
    :class:`Pullback`)."""
    where = keyword_positions(rule, nargs, keywords)

    def vjp(dout, *args, **kwargs):
        y, back = rule(*args, **kwargs)
        grads = back(dout)
        return (None, *grads[:nargs], *[None if i is None or i >= len(grads) else grads[i] for i in where])
    return vjp
