"""From a Python function to its compiled forward function.

``forward(*args) -> (y, pullback)``; ``pullback(dy)`` returns one gradient
per parameter (preceded by the gradient of the function's captured
variables when those are differentiated). Compiled once per function code,
activity pattern and kind of argument, and cached; a compiled forward is
dropped when a global or captured value it specialised on is rebound.
"""
from __future__ import annotations

import builtins
import threading
import types
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..backend.compile import compile_def, function_def, instantiate, source_of
from ..frontend.lower import lower
from ..frontend.source import get_source
from ..ir import ops
from ..ir.core import IR, Const, Return, Signature, Statement
from ..ir.passes import optimize
from . import reverse
from .analysis import is_differentiable_value, is_number


@dataclass
class Compiled:
    code: types.CodeType
    constants: dict[str, Any]
    guards: list[tuple]
    source: str
    forward_ir: IR
    pullback_ir: IR

    def valid(self, fn: types.FunctionType) -> bool:
        for kind, key, value in self.guards:
            if kind == "global":
                current = fn.__globals__.get(key, getattr(builtins, key, _GONE))
                if current is not value:
                    return False
            else:
                try:
                    if key.cell_contents is not value:
                        return False
                except ValueError:
                    return False
        return True


_GONE = object()
_PRIMALS: "weakref.WeakKeyDictionary[types.CodeType, IR]" = weakref.WeakKeyDictionary()
_FORWARDS: "weakref.WeakKeyDictionary[types.CodeType, dict]" = weakref.WeakKeyDictionary()
_LOCK = threading.RLock()


def primal_ir(fn: types.FunctionType) -> IR:
    """The optimised SSA IR of ``fn`` (cached per code object)."""
    ir = _PRIMALS.get(fn.__code__)
    if ir is None:
        src = get_source(fn)
        ir = optimize(lower(src.node, filename=src.filename, name=fn.__name__, freevars=fn.__code__.co_freevars))
        _PRIMALS[fn.__code__] = ir
    return ir


def param_values(sig: Signature, fn: types.FunctionType, args: tuple, kwargs: dict) -> list[Any]:
    """The value each parameter takes in the call ``fn(*args, **kwargs)``
    (a sentinel where the call is wrong; the call itself will say so)."""
    positional = sig.posonly + sig.args
    n = len(positional)
    values: dict[str, Any] = dict(zip(positional, args))
    defaults = fn.__defaults__ or ()
    for name, d in zip(positional[n - len(defaults):], defaults):
        values.setdefault(name, d)
    kwd = dict(fn.__kwdefaults__ or {})
    extra = {}
    for k, v in kwargs.items():
        if k in positional or k in sig.kwonly:
            values[k] = v
        else:
            extra[k] = v
    out = [values.get(p, kwd.get(p, _GONE)) for p in positional]
    if sig.vararg:
        out.append(tuple(args[n:]))
    out += [values.get(p, kwd.get(p, _GONE)) for p in sig.kwonly]
    if sig.kwarg:
        out.append(extra)
    return out


def compiled(fn: types.FunctionType, active: tuple, numeric: tuple, self_active: bool) -> Compiled:
    key = (active, numeric, self_active)
    table = _FORWARDS.get(fn.__code__)
    entry = table.get(key) if table is not None else None
    if entry is not None and entry.valid(fn):
        return entry
    with _LOCK:
        table = _FORWARDS.setdefault(fn.__code__, {})
        entry = table.get(key)
        if entry is None or not entry.valid(fn):
            entry = _compile(fn, list(active), list(numeric), self_active)
            table[key] = entry
    return entry


def _compile(fn: types.FunctionType, active: list[bool], numeric: list[bool], self_active: bool) -> Compiled:
    primal = primal_ir(fn)
    t = reverse.transform(primal, fn, active, numeric, self_active)
    name = fn.__name__
    pb_def, pb_consts = function_def(t.pullback, f"{name}_pullback")
    f = t.forward
    ret = next(b for b in f.blocks.values() if isinstance(b.term, Return))
    pb, pair = f.new_var(), f.new_var()
    ret.stmts += [
        Statement(pb, Const(ops.make_function), [Const(pb_def)]),
        Statement(pair, Const(ops.build_tuple), [ret.term.value, pb]),
    ]
    ret.term = Return(pair, ret.term.line)
    optimize(f)
    fwd_def, fwd_consts = function_def(f, f"{name}_forward")
    constants = {**pb_consts, **fwd_consts}
    code = compile_def(fwd_def, constants, fn.__code__.co_freevars, f"forward of {fn.__qualname__}")
    return Compiled(code, constants, t.guards, source_of(fwd_def), f, t.pullback)


def forward_function(fn: types.FunctionType, entry: Compiled) -> types.FunctionType:
    return instantiate(entry.code, entry.constants, fn, keep_identity=False)


def masks(fn: types.FunctionType, args: tuple, kwargs: dict) -> tuple[tuple, tuple]:
    values = param_values(primal_ir(fn).signature, fn, args, kwargs)
    return (
        tuple(v is not _GONE and is_differentiable_value(v) for v in values),
        tuple(v is not _GONE and is_number(v) for v in values),
    )


def call_forward(fn: types.FunctionType, args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """For the run-time ``J``: ``fn(*args, **kwargs)`` and a pullback in
    ``J``'s convention (callee's gradient, positional, keyword)."""
    active, numeric = masks(fn, args, kwargs)
    self_active = any(
        is_differentiable_value(_cell_value(c)) for c in (fn.__closure__ or ())
    )
    entry = compiled(fn, active, numeric, self_active)
    forward = forward_function(fn, entry)
    y, back = forward(*args, **kwargs)
    sig = entry.forward_ir.signature

    def pullback(dy):
        grads = back(dy)
        dself = None
        if self_active:
            dself, grads = grads[0], grads[1:]
        return (dself, *call_grads(sig, len(args), list(kwargs), grads))

    return y, pullback


def _cell_value(cell) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return None


def call_grads(sig: Signature, nargs: int, keywords: list[str], grads: tuple) -> list[Any]:
    """Parameter gradients → one per positional argument of the call, then
    one per keyword argument, in call order."""
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
