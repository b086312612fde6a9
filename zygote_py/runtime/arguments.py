"""A call's arguments and their gradients: spreading ``*args`` and
``**kwargs``, and gradients rearranged between a function's parameters
(what its emitted pullback returns) and a call's arguments (what ``J``'s
convention returns: the callee's, then one per argument).

Also where a NumPy callable takes ``out`` by position
(:func:`numpy_parameters`), which both the compiler (it makes
``np.sum(x, 0, None, buf)`` a keyword call) and the run-time dispatch (it
refuses what it cannot version) read.

May import: :mod:`zygote_py.tangent`, :mod:`.gradients`, :mod:`.values`.
"""
from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import tangent
from ..errors import ZygoteError
from ..tangent import Tangent
from .gradients import accum
from .values import cell_value

if TYPE_CHECKING:
    from ..ir.core import Signature


def spread_positional(starred: tuple, *pieces: Any) -> tuple:
    """The positional arguments of a call ``f(a, *xs, b)``: ``pieces`` are
    ``a, xs, b`` and ``starred`` says which are spread (``*xs``)."""
    items: list = []
    for spread, piece in zip(starred, pieces):
        if spread:
            items.extend(piece)
        else:
            items.append(piece)
    return tuple(items)


def spread_keywords(keys: tuple, *values: Any) -> dict:
    """The keyword arguments of a call ``f(k=v, **m)``: ``keys`` are the
    keywords, ``None`` for a mapping to spread (``**m``). A keyword given
    twice is Python's ``TypeError``."""
    out: dict = {}
    for key, value in zip(keys, values):
        for k, v in (value.items() if key is None else [(key, value)]):
            if k in out:
                raise TypeError(f"got multiple values for keyword argument {k!r}")
            out[k] = v
    return out


def call_spread(f: Any, args: tuple, kwargs: dict) -> Any:
    """``f(*args, **kwargs)``."""
    return f(*args, **kwargs)


def raw_cotangent(fn: types.FunctionType, self_active: bool, sig: Signature, nargs: int, keywords: list[str],
                  w: tuple) -> tuple:
    """The adjoint of :func:`call_cotangent`: a cotangent of a call of
    ``fn``'s gradients in ``J``'s convention (the callee's, then one per
    argument) to one of the gradients its emitted pullback returns (one per
    parameter, after the closure's by name)."""
    positional = sig.posonly + sig.args
    by_name = dict(zip(positional, w[1:1 + nargs]))
    if sig.vararg:
        by_name[sig.vararg] = tuple(w[1 + len(positional):1 + nargs])
    extra = {}
    for k, c in zip(keywords, w[1 + nargs:]):
        if k in positional or k in sig.kwonly:
            by_name[k] = c
        else:
            extra[k] = c
    if sig.kwarg:
        by_name[sig.kwarg] = extra
    captured = {} if w[0] is None else tangent.entries(w[0])
    for p in defaulted(fn, sig, nargs, keywords):  # (a default value's gradient is the function's own)
        by_name[p] = captured.pop(p, None)
    raw = tuple(by_name.get(n) for n in sig.names())
    if self_active:
        if not set(captured) <= set(fn.__code__.co_freevars):
            raise ZygoteError(f"a gradient for {fn.__qualname__} names no variable it captures: {w[0]!r}",
                              hint="this is a bug in zygote_py: please report it")
        raw = (dict(captured), *raw)
    return raw


def call_cotangent(fn: types.FunctionType, self_active: bool, sig: Signature, nargs: int, keywords: list[str],
                   raw: tuple) -> tuple:
    """The gradients the emitted pullback of a call of ``fn`` returns
    (``raw``: the closure's by name when ``self_active``, then one per
    parameter) in ``J``'s convention: the callee's, then one per argument.
    The callee's holds those of its captured variables and of the default
    values the call left its parameters (``lambda t, k=a: t * k``), by name."""
    dself = None
    if self_active:
        dself, raw = closure_gradient(fn, raw[0]), raw[1:]
    if fn.__defaults__ or fn.__kwdefaults__:
        by_name = dict(zip(sig.names(), raw))
        left = {p: by_name[p] for p in defaulted(fn, sig, nargs, keywords) if by_name[p] is not None}
        if left:
            dself = Tangent(tangent.fields(fn), **({} if dself is None else tangent.entries(dself)), **left)
    return (dself, *call_grads(sig, nargs, keywords, raw))


def defaulted(fn: types.FunctionType, sig: Signature, nargs: int, keywords: list[str]) -> list[str]:
    """The parameters that a call of ``fn`` with ``nargs`` positional
    arguments and ``keywords`` leaves to their default values."""
    positional = sig.posonly + sig.args
    first = max(nargs, len(positional) - len(fn.__defaults__ or ()))
    kwdefaults = fn.__kwdefaults__ or {}
    return [p for p in positional[first:] if p not in keywords] + \
        [p for p in sig.kwonly if p in kwdefaults and p not in keywords]


def closure_gradient(fn: types.FunctionType, grads: dict[str, Any]) -> Tangent:
    """The gradient of the closure ``fn`` from its captured variables'
    gradients, by name. A nested function that calls itself captures
    itself: the gradient of that capture is the function's own, added in
    (its captured variables are the same cells)."""
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
        if grads.get(name) is not None and cell_value(cell) is fn:
            grads = accum(grads, dict(tangent.values(grads.pop(name))))
    return Tangent(tangent.fields(fn), **grads)


def call_grads(sig: Signature, nargs: int, keywords: list[str], grads: tuple) -> list[Any]:
    """Parameter gradients → one per positional argument of the call, then
    one per keyword argument, in call order."""
    if not keywords and sig.vararg is None and sig.kwarg is None and not sig.kwonly \
            and nargs == len(grads):  # (every parameter given by position: the gradients as they are)
        return list(grads)
    names = sig.names()
    by_name = dict(zip(names, grads))
    positional = sig.posonly + sig.args
    out = []
    for i in range(nargs):
        if i < len(positional):
            out.append(by_name[positional[i]])
        else:
            rest = by_name.get(sig.vararg)
            out.append(None if rest is None else rest[i - len(positional)])
    for k in keywords:
        if k in by_name and k != sig.vararg and k != sig.kwarg:
            out.append(by_name[k])
        else:
            extra = by_name.get(sig.kwarg) if sig.kwarg else None
            out.append(None if extra is None else extra.get(k))
    return out


def restricted(fn: types.FunctionType, active: tuple, positions: Any) -> tuple:
    """``active`` (one flag per parameter of ``fn``) with only the
    parameters that take the positional arguments at ``positions`` left
    differentiated (``*args`` takes those past the named ones)."""
    named = fn.__code__.co_argcount
    kept = {min(i, named) for i in positions}
    return tuple(a and p in kept for p, a in enumerate(active))


_PARAMETERS: dict[Any, Optional[tuple[str, ...]]] = {}


def numpy_parameters(fn: Any) -> Optional[tuple[str, ...]]:
    """The parameters of a NumPy callable that takes ``out``, in order, up to
    and including ``out`` and beyond while they may be given by position:
    a single-output ufunc's inputs then ``out`` (``np.add(a, b, buf)``);
    ``np.sum``'s ``a, axis, dtype, out, keepdims``; an array method's
    (``np.ndarray.sum``, its array first) those of NumPy's function of the
    same name. ``None`` for any other callable."""
    try:
        return _PARAMETERS[fn]
    except KeyError:
        pass
    except TypeError:  # (unhashable: no NumPy function)
        return None
    found = None
    same = getattr(np, fn.__name__, None) if type(fn) is types.MethodDescriptorType \
        and fn.__objclass__ is np.ndarray else fn
    if isinstance(same, np.ufunc):
        found = (*(f"x{i + 1}" for i in range(same.nin)), "out") if same.nout == 1 else None
    elif (getattr(same, "__module__", None) or "").split(".")[0] == "numpy":
        try:
            params = list(inspect.signature(same).parameters.values())
        except (TypeError, ValueError):
            params = []
        names = []
        for p in params:
            if p.kind is not p.POSITIONAL_OR_KEYWORD and p.kind is not p.POSITIONAL_ONLY:
                break
            names.append(p.name)
        found = tuple(names) if "out" in names else None
    _PARAMETERS[fn] = found
    return found


def out_argument(fn: Any, args: tuple, kwargs: dict) -> Any:
    """The array a call of the NumPy callable ``fn`` writes into (its
    ``out``, by keyword or by position), or ``None``."""
    names = numpy_parameters(fn)
    if names is None:
        return None
    out = kwargs.get("out") if kwargs else None
    at = names.index("out")
    return args[at] if out is None and len(args) > at else out
