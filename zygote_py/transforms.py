"""Function transforms with JAX's names and semantics: ``grad``,
``value_and_grad``, ``vjp``, ``jacfwd`` and ``jacrev``.

Each takes a function and returns a function (``vjp`` a value and one),
beside the Zygote-style entry points of :mod:`.api` (``gradient(f,
*args)``), on which they are built. ``argnums`` chooses the positional
arguments differentiated; the others and every keyword argument are
constants, compiled as such (see ``api._compiled``). Arguments and results
are pytrees (:mod:`.tree`), Jacobians laid out as JAX lays them out (see
:mod:`.derivatives`).

The function ``grad`` returns is the fast path: it is bound to the
compiled gradient for the kinds of arguments it last saw (each one's type;
an array's dtype and dimension), guarded and picking the gradients asked
for (``Compiled.bound_gradient_function``, ``backend/bound.py``), and a
call calls that directly: the emitted code plus its check. When the check
fails (other kinds, a global rebound, a rule registered) or the call has
keyword arguments, it takes :func:`run_grad`, the general path, which binds
it again. Differentiated itself, the function reads as a call of
:func:`run_grad` alone (its declared source, :data:`DECLARED`), which has
derivative rules (``rules/nested.py``, registered by :mod:`.own_rules`): so ``jacfwd(grad(f))`` is a Hessian
(forward over reverse), and ``grad`` of a function that calls ``grad(f)`` a
second derivative.

May import: the public API (:mod:`.api`, :mod:`.derivatives`) and everything
below it.
"""
from __future__ import annotations

import numbers
import weakref
from typing import Any, Callable, Optional

import numpy as np

from . import api, derivatives, registry, runtime
from .errors import NoDerivativeRule, NonScalarOutput, WrongArguments, ZygoteError

__all__ = ["grad", "value_and_grad", "vjp", "jacfwd", "jacrev"]

_NEST = runtime.NEST
_STALE = runtime.STALE
_ABSENT = object()  # (the first positional argument of a call without any: fails every bound function's check)


def _unbound(*args: Any) -> Any:
    """The bound gradient function of a function ``grad`` made, before its
    first call and after a rule changed."""
    return _STALE


_BINDINGS: "weakref.WeakKeyDictionary[Callable, Callable]" = weakref.WeakKeyDictionary()
"""Each function ``grad`` made, and the function that binds it to a bound
gradient function (one store to a closure variable: rebinding is atomic)."""


def _unbind_all() -> None:
    """A rule was registered or removed: no bound gradient function is
    known to be valid (each was compiled with the rules of its time)."""
    for bind in list(_BINDINGS.values()):
        bind(_unbound)


registry.on_change(_unbind_all)


def grad(f: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """The function ``g(*args, **kwargs)`` returning the gradient of the
    real-scalar-valued ``f`` with respect to the positional argument
    ``argnums`` (an int: that gradient alone; a tuple of ints: a tuple of
    them). With ``has_aux``, ``f`` returns ``(value, aux)`` and ``g``
    returns ``(gradient, aux)``."""
    return _transform(f, argnums, has_aux, False, "grad")


def value_and_grad(f: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """As :func:`grad`, returning ``(value, gradient)``; with ``has_aux``,
    ``((value, aux), gradient)``."""
    return _transform(f, argnums, has_aux, True, "value_and_grad")


def _transform(f: Callable, argnums: int | tuple, has_aux: bool, value: bool, name: str) -> Callable:
    if not callable(f):
        raise WrongArguments(f"{name}: the first argument must be the function to differentiate, "
                             f"not a {type(f).__name__}", hint=f"write zpy.{name}(f)(x)")
    _wanted(argnums, None, name)
    fast, stale = _unbound, _STALE  # (closure variables: the fast path's cheapest reads)

    def transformed(first=_ABSENT, /, *rest, **kwargs):
        try:
            if not (rest or kwargs):
                g = fast(first)
            else:  # (no more arguments than the bound function's own parameters, the positional-only ones, after
                bound = fast  # which come its constants; read once: bind may run)
                g = bound(first, *rest) if not kwargs and len(rest) < bound.__code__.co_posonlyargcount else stale
        except ZygoteError as e:
            raise api._located(e, f) from None
        except RecursionError as e:
            raise api._too_deep(e, f) from None
        if g is not stale:
            return g
        return run_grad(f, argnums, has_aux, value, bind, (first, *rest), kwargs)

    def bind(bound: Callable) -> None:
        nonlocal fast
        fast = bound

    _BINDINGS[transformed] = bind
    transformed.__name__ = transformed.__qualname__ = f"{name}_{getattr(f, '__name__', 'f')}"
    transformed.__doc__ = f"zpy.{name} of {getattr(f, '__qualname__', f)!r}."
    return transformed


DECLARED = (
    "def transformed(first=_ABSENT, /, *rest, **kwargs):\n"
    "    return run_grad(f, argnums, has_aux, value, bind, (first, *rest), kwargs)\n")
"""What the compiler differentiates for a call of a function ``grad`` made
(the source :mod:`zygote_py.own_rules` registers for its code): its general
path, whose :func:`run_grad` has derivative rules; the fast path computes
the same."""


def _wanted(argnums: Any, n: Optional[int], name: str) -> tuple:
    """``argnums`` as a tuple of positions, checked (against the ``n``
    positional arguments of a call, when known)."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, tuple) or not nums or not all(isinstance(i, int) and i >= 0 for i in nums):
        raise WrongArguments(f"{name}: argnums must be an int or a non-empty tuple of ints >= 0, not {argnums!r}")
    if n is not None and max(nums) >= n:
        raise WrongArguments(f"{name}: argnums={argnums!r}, but the function was called with {n} positional "
                             f"argument{'' if n == 1 else 's'}",
                             hint="pass the differentiated arguments by position, not by keyword")
    return nums


def run_grad(f: Callable, argnums: int | tuple, has_aux: bool, value: bool, bind: Callable, args: tuple,
             kwargs: dict) -> Any:
    """A call of a function made by :func:`grad` or :func:`value_and_grad`
    (``bind``: what binds it, see :func:`_transform`) that its bound
    gradient function did not answer: the general path, which binds the
    gradient function it ran again when it may."""
    if len(args) == 1 and args[0] is _ABSENT:
        args = ()
    wanted = _wanted(argnums, len(args), "value_and_grad" if value else "grad")
    try:
        if has_aux:
            (y, aux), grads = _with_aux(f, args, kwargs, wanted)
        else:
            _NEST[0] += 1
            try:
                y, grads, binding = api.gradient_call(f, args, kwargs, wanted, value)
            finally:
                _NEST[0] -= 1
            if binding is not None:
                entry = binding[5]
                fast = entry.bound_gradient_function(binding[6], tuple(map(api._kind, args)), argnums, value)
                bind(_unbound if fast is None else fast)
                if entry.generation != registry.generation():  # (a rule changed since it was compiled, and
                    bind(_unbound)                              # _unbind_all may have run before the line above)
    except ZygoteError as e:
        raise api._located(e, f) from None
    except RecursionError as e:
        raise api._too_deep(e, f) from None
    g = grads[argnums] if isinstance(argnums, int) else tuple(grads[i] for i in argnums)
    if has_aux:
        return ((y, aux), g) if value else (g, aux)
    return (y, g) if value else g


def _with_aux(f: Callable, args: tuple, kwargs: dict, wanted: tuple) -> tuple[tuple, tuple]:
    """``((value, aux), gradients)`` for an ``f`` returning ``(value,
    aux)``: the gradients of ``value`` (``aux`` gets no cotangent)."""
    out, back = api._pullback(f, args, kwargs, wanted)
    if not isinstance(out, tuple) or len(out) != 2:
        raise NonScalarOutput(
            f"has_aux=True: the function must return a pair (value, aux), not a {type(out).__name__}",
            hint="return loss, aux; or leave has_aux out")
    return out, back((runtime.seed(out[0]), None))


def vjp(f: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(y, vjp_fn)``: ``y = f(*primals)`` and ``vjp_fn(dy)``, a tuple of
    the cotangents of the primals (one each; ``None`` where no gradient
    flows) for the output cotangent ``dy``, shaped like ``y``. With
    ``has_aux``, ``f`` returns ``(y, aux)`` and ``vjp`` returns ``(y,
    vjp_fn, aux)``. (``zpy.pullback`` is the same with Zygote's names.)"""
    try:
        out, back = api._pullback(f, primals, {}, None)
    except ZygoteError as e:
        raise api._located(e, f) from None
    if has_aux and (not isinstance(out, tuple) or len(out) != 2):
        raise NonScalarOutput(f"vjp with has_aux=True: the function must return a pair (y, aux), "
                              f"not a {type(out).__name__}", hint="return y, aux; or leave has_aux out")

    def vjp_fn(dy: Any) -> tuple:
        return tuple(back((dy, None) if has_aux else dy))

    return (out[0], vjp_fn, out[1]) if has_aux else (out, vjp_fn)


def jacfwd(f: Callable, argnums: int | tuple = 0) -> Callable:
    """The function ``j(*args, **kwargs)`` returning the Jacobian of ``f``
    with respect to the positional argument(s) ``argnums``, by forward
    mode (one ``jvp`` per input element): for an array output and an
    array argument, an array of shape ``out.shape + arg.shape``; for
    pytrees, the output's structure holding at each leaf the argument's
    (a tuple of them for a tuple ``argnums``). ``jacfwd(grad(f))`` is the
    Hessian."""
    _wanted(argnums, None, "jacfwd")
    if f in _JACOBIANS:
        return _second(f, argnums, "jacfwd")

    def jacobian_forward(*args: Any, **kwargs: Any) -> Any:
        _wanted(argnums, len(args), "jacfwd")
        y = f(*derivatives.fresh(args), **kwargs)
        return derivatives._jacobian_forward(f, args, kwargs, argnums, y)

    _JACOBIANS[jacobian_forward] = (f, argnums)
    return jacobian_forward


def jacrev(f: Callable, argnums: int | tuple = 0) -> Callable:
    """As :func:`jacfwd`, by reverse mode (one pullback per output
    element)."""
    _wanted(argnums, None, "jacrev")
    if f in _JACOBIANS:
        return _second(f, argnums, "jacrev")

    def jacobian_reverse(*args: Any, **kwargs: Any) -> Any:
        _wanted(argnums, len(args), "jacrev")
        try:
            return derivatives._jacobian_reverse(f, args, kwargs, argnums)
        except ZygoteError as e:
            raise api._located(e, f) from None

    _JACOBIANS[jacobian_reverse] = (f, argnums)
    return jacobian_reverse


_JACOBIANS: "weakref.WeakKeyDictionary[Callable, tuple]" = weakref.WeakKeyDictionary()
"""The functions :func:`jacfwd` and :func:`jacrev` made: the function each
differentiates, and its ``argnums``."""


def _second(jac: Callable, argnums: int | tuple, name: str) -> Callable:
    """The Jacobian of ``jac``, a function :func:`jacfwd` or :func:`jacrev`
    made for ``f`` (``jacfwd(jacrev(f))``, JAX's Hessian): for one
    argument each, numbers and arrays, the array of shape ``out.shape +
    a.shape + b.shape`` of each output element's second derivatives, by
    forward over reverse (``jacfwd(grad(f_i))``, the ``i``-th output
    ``f_i``), whichever modes were asked for. Pytrees and tuples of
    ``argnums`` are refused, saying what to write."""
    f, inner = _JACOBIANS[jac]
    user = getattr(f, "__qualname__", None)
    if not isinstance(argnums, int) or not isinstance(inner, int):
        raise NoDerivativeRule(
            f"{name} of a function made by jacfwd or jacrev, with a tuple of argnums: not differentiated yet",
            function=user, hint="take one argument at a time (argnums an int), or write zpy.hessian(f)(x)")

    def second(*args: Any, **kwargs: Any) -> Any:
        _wanted(argnums, len(args), name)
        if not all(isinstance(a, (numbers.Number, np.ndarray, np.generic)) for a in args):
            raise NoDerivativeRule(
                f"{name} of a function made by jacfwd or jacrev, at arguments that are not numbers or arrays: "
                "not differentiated yet", function=user, hint="write zpy.hessian(f)(x) for a scalar f")
        y = f(*derivatives.fresh(args), **kwargs)
        if not isinstance(y, (numbers.Number, np.ndarray, np.generic)):
            raise NoDerivativeRule(
                f"{name} of a function made by jacfwd or jacrev, of a {type(y).__name__} output: not differentiated "
                "yet", function=user, hint="differentiate each output array on its own")
        if np.ndim(y) == 0:
            return jacfwd(grad(f, inner), argnums)(*args, **kwargs)
        rows = [jacfwd(grad(lambda *xs, i=i: f(*xs, **kwargs)[i], inner), argnums)(*args)
                for i in np.ndindex(np.shape(y))]
        shape = np.shape(y) + np.shape(args[inner]) + np.shape(args[argnums])
        return np.reshape(np.stack([np.asarray(r, dtype=float) for r in rows]), shape)

    return second
