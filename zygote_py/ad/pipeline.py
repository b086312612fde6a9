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
from ..ir.core import IR, Branch, Const, Jump, Raise, Return, Signature, Starred, Statement, Var
from ..ir.passes import optimize
from ..ir.verify import checked
from . import reverse
from .analysis import is_differentiable_value, is_number


@dataclass
class Compiled:
    """One specialisation of a function's gradient: the forward function
    (returning the pullback) and, built on first use, the fused gradient
    function (forward, then the pullback's body with the seed 1)."""

    code: types.CodeType
    constants: dict[str, Any]
    guards: list[tuple]
    source: str
    forward_ir: IR
    pullback_ir: IR
    primal_forward: IR  # the forward before the pullback is attached
    fused: Optional[tuple[types.CodeType, dict[str, Any], str]] = None

    def __post_init__(self) -> None:
        self._globals = [(k, v) for kind, k, v in self.guards if kind == "global"]
        self._cells = [(k, v) for kind, k, v in self.guards if kind == "cell"]

    def valid(self, fn: types.FunctionType) -> bool:
        """Whether every global and cell the compilation specialised on
        still holds the same object (a global may also be a builtin)."""
        g = fn.__globals__
        for k, v in self._globals:
            if g.get(k, _GONE) is not v and (k in g or _BUILTINS.get(k, _GONE) is not v):
                return False
        for cell, v in self._cells:
            try:
                if cell.cell_contents is not v:
                    return False
            except ValueError:
                return False
        return True

    def global_checks(self, fn: types.FunctionType) -> Optional[tuple[tuple[str, Any], ...]]:
        """``(name, expected)`` pairs such that the compilation is valid
        while ``fn.__globals__.get(name, GONE) is expected`` for each (a
        builtin is expected to stay unshadowed); None if it also rests on
        closure cells."""
        if self._cells:
            return None
        g = fn.__globals__
        return tuple((k, v if k in g else GONE) for k, v in self._globals)

    def aliases(self) -> dict[str, Any]:
        return {key: value for kind, key, value in self.guards if kind == "global"}

    def gradient_function(self, fn: types.FunctionType) -> types.FunctionType:
        """``f_gradient(*args) -> (y, grads)``, one gradient per parameter."""
        if self.fused is None:
            with _LOCK:
                if self.fused is None:
                    ir = fuse(self.primal_forward, self.pullback_ir)
                    fdef, constants = function_def(ir, f"{fn.__name__}_gradient", self.aliases())
                    code = compile_def(fdef, constants, fn.__code__.co_freevars, fn.__code__.co_filename)
                    self.fused = (code, constants, source_of(fdef))
        code, constants, _ = self.fused
        return instantiate(code, constants, fn, keep_identity=False)


def fuse(forward: IR, pullback: IR) -> IR:
    """The forward IR followed by the pullback's blocks, entered with the
    seed 1 where the forward returned: ``f_gradient`` returns
    ``(y, gradients)``. The pullback's cells become the function's locals."""
    g = forward.copy()
    ret = next(b for b in g.blocks.values() if isinstance(b.term, Return))
    y = ret.term.value
    env: dict = {pullback.entry.args[0]: Const(1)}
    ids = {}
    for bid, b in pullback.blocks.items():
        nb = g.new_block()
        ids[bid] = nb.id
        for a in (b.args if bid != pullback.entry.id else ()):
            env[a] = g.new_var(pullback.names.get(a))
            nb.args.append(env[a])
        for st in b.stmts:
            env[st.var] = g.new_var(pullback.names.get(st.var))
    sub = lambda op: env.get(op, op) if isinstance(op, Var) else op  # noqa: E731
    for bid, b in pullback.blocks.items():
        nb = g.blocks[ids[bid]]
        for st in b.stmts:
            nb.stmts.append(Statement(
                env[st.var], sub(st.callee),
                [Starred(sub(a.value)) if isinstance(a, Starred) else sub(a) for a in st.args],
                [(k, sub(v)) for k, v in st.kwargs], st.line, st.pure,
            ))
        t = b.term
        if isinstance(t, Return):
            pair = g.new_var()
            nb.stmts.append(Statement(pair, Const(ops.build_tuple), [y, sub(t.value)]))
            nb.term = Return(pair, ret.term.line)
        elif isinstance(t, Jump):
            nb.term = Jump(ids[t.target], [sub(a) for a in t.args])
        elif isinstance(t, Branch):
            nb.term = Branch(sub(t.cond), Jump(ids[t.then.target], [sub(a) for a in t.then.args]),
                             Jump(ids[t.orelse.target], [sub(a) for a in t.orelse.args]), t.line)
        else:
            nb.term = Raise(sub(t.exc), None if t.cause is None else sub(t.cause), t.line)
    ret.term = Jump(ids[pullback.entry.id], [])
    g.cellvars = []
    return optimize(checked(g, "fusing forward and pullback"))


GONE = _GONE = object()
_BUILTINS = builtins.__dict__
_PRIMALS: "weakref.WeakKeyDictionary[types.CodeType, IR]" = weakref.WeakKeyDictionary()
_FORWARDS: "weakref.WeakKeyDictionary[types.CodeType, dict]" = weakref.WeakKeyDictionary()
_LOCK = threading.RLock()


def primal_ir(fn: types.FunctionType) -> IR:
    """The optimised SSA IR of ``fn`` (cached per code object)."""
    ir = _PRIMALS.get(fn.__code__)
    if ir is None:
        src = get_source(fn)
        ir = lower(src.node, filename=src.filename, name=fn.__name__, freevars=fn.__code__.co_freevars)
        ir = optimize(checked(ir, "lowering"))
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
    checked(t.forward, "the reverse transform (forward)")
    checked(t.pullback, "the reverse transform (pullback)")
    primal_forward = t.forward.copy()
    name = fn.__name__
    aliases = {key: value for kind, key, value in t.guards if kind == "global"}
    pb_def, pb_consts = function_def(t.pullback, f"{name}_pullback", aliases)
    f = t.forward
    ret = next(b for b in f.blocks.values() if isinstance(b.term, Return))
    pb, pair = f.new_var(), f.new_var()
    ret.stmts += [
        Statement(pb, Const(ops.make_function), [Const(pb_def)]),
        Statement(pair, Const(ops.build_tuple), [ret.term.value, pb]),
    ]
    ret.term = Return(pair, ret.term.line)
    optimize(f)
    fwd_def, fwd_consts = function_def(f, f"{name}_forward", {**pb_consts, **aliases})
    constants = {**pb_consts, **fwd_consts}
    code = compile_def(fwd_def, constants, fn.__code__.co_freevars, fn.__code__.co_filename)
    return Compiled(code, constants, t.guards, source_of(fwd_def), f, t.pullback, primal_forward)


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
