"""Derivative rules as IR, ready to be inlined.

A rule (:mod:`zygote_py.registry`) is ordinary Python::

    def mul(a, b):
        def back(dy):
            return (dy * b, dy * a)
        return a * b, back

We lower it twice: the rule itself (the *forward* part, whose statements
compute the output and whatever ``back`` captures) and ``back`` (the
*pullback* part). The rule's globals are resolved to constants, so inlined
code refers to the rule's ``math``, never to a user's global of the same
name. A rule is inlinable when its forward part is straight-line code that
returns ``(y, back)``, ``back`` has no loops, and every ``return`` in
``back`` returns a tuple display of the same length; otherwise the
compiler calls it at run time.
"""
from __future__ import annotations

import builtins
import inspect
import operator
import types
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .. import runtime
from ..backend.naming import clean
from ..errors import ZygoteError
from ..frontend.lower import lower
from ..frontend.source import get_source
from ..ir import ops
from ..ir.cfg import back_edges
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Starred, Statement, Var
from ..ir.passes import optimize, substitute
from ..rules import numpy_linalg
from .analysis import preserves_real, real_constant

_MISSING = object()


@dataclass
class RuleIR:
    """A rule, lowered."""

    target: Any
    forward: IR
    back: IR
    params: list[str]
    defaults: dict[str, Any]  # the parameters' default values
    captured: list[str]  # names ``back`` reads from the rule's scope
    arity: int  # gradients ``back`` returns
    method_calls: frozenset[Var]  # calls of methods that change nothing (``v.conjugate()``)
    param_of: dict[Var, str]  # forward values that are a parameter (the argument or its cell's read)
    passes_all: frozenset[Var]  # calls that pass the parameters in order, each as itself (see _passes_own)


_CACHE: dict[tuple[int, int], tuple[Any, Any, Optional[RuleIR]]] = {}


def rule_ir(rule: Any, target: Any) -> Optional[RuleIR]:
    """The lowered rule for the function ``target`` (one rule may serve
    several: ``operator.pow`` and ``np.power``), or None when it cannot be
    inlined (cached)."""
    key = (id(rule), id(target))
    hit = _CACHE.get(key)
    if hit is None or hit[0] is not rule or hit[1] is not target:
        try:
            ir = _prepare(rule, target)
        except ZygoteError:
            ir = None
        hit = _CACHE[key] = (rule, target, ir)
    return hit[2]


def resolve_globals(ir: IR, globals_: dict) -> None:
    """Globals, and attributes of modules, become constants: inlined rule
    code must not depend on the user's namespace."""
    env: dict[Var, Operand] = {}
    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            if fn is ops.load_global:
                n = s.args[0].value
                v = globals_.get(n, getattr(builtins, n, _MISSING))
                if v is not _MISSING:
                    env[s.var] = Const(v)
                    continue
            if fn is getattr and len(s.args) == 2:
                base = env.get(s.args[0], s.args[0])
                if isinstance(base, Const) and isinstance(base.value, types.ModuleType):
                    v = getattr(base.value, s.args[1].value, _MISSING)
                    if v is not _MISSING:
                        env[s.var] = Const(v)
                        continue
            kept.append(s)
        b.stmts = kept
    substitute(ir, env)


def _forward_cells(ir: IR) -> None:
    """In straight-line code, a read of a cell after a store to it is the
    stored value."""
    env: dict[Var, Operand] = {}
    stored: dict[str, Operand] = {}
    for s in ir.entry.stmts:
        fn = s.callee.value if isinstance(s.callee, Const) else None
        if fn is ops.store_deref:
            v = s.args[1]
            stored[s.args[0].value] = env.get(v, v) if isinstance(v, Var) else v
        elif fn is ops.load_deref and s.args[0].value in stored:
            env[s.var] = stored[s.args[0].value]
    substitute(ir, env)


def _calls(s: Statement, fn: Any) -> bool:
    return isinstance(s.callee, Const) and s.callee.value is fn


def _prepare(rule: Any, target: Any) -> Optional[RuleIR]:
    src = get_source(rule)
    sig = src.node.args
    if sig.vararg or sig.kwarg or sig.kwonlyargs or sig.posonlyargs:
        return None
    fwd = lower(src.node, filename=src.filename, name=src.name)
    resolve_globals(fwd, rule.__globals__)
    optimize(fwd)
    if len(fwd.blocks) != 1 or not isinstance(fwd.entry.term, Return):
        return None
    block = fwd.entry
    _forward_cells(fwd)
    defs = {s.var: s for s in block.stmts}
    ret = defs.get(block.term.value)
    if ret is None or not _calls(ret, ops.build_tuple) or len(ret.args) != 2:
        return None
    maker = defs.get(ret.args[1])
    if maker is None or not _calls(maker, ops.make_function) or len(maker.args) != 1:
        return None
    node = maker.args[0].value
    back = lower(node, filename=src.filename, name=f"{src.name}.back", freevars=fwd.cellvars)
    resolve_globals(back, rule.__globals__)
    optimize(back)
    if back_edges(back) or len(back.entry.args) != 1:
        return None
    arity = None
    for b in back.blocks.values():
        if isinstance(b.term, Return):
            d = next((s for s in b.stmts if s.var == b.term.value), None)
            if d is None or not _calls(d, ops.build_tuple) or any(isinstance(a, Starred) for a in d.args):
                return None
            if arity not in (None, len(d.args)):
                return None
            arity = len(d.args)
    if arity is None:
        return None
    params = [a.id for a in sig.args]
    if arity != len(params):
        return None
    defaults = dict(zip(params[len(params) - len(rule.__defaults__ or ()):], rule.__defaults__ or ()))
    block = fwd.entry
    param_of = dict(zip(block.args, params))
    param_of.update((x.var, x.args[0].value) for x in block.stmts if _calls(x, ops.load_deref))
    passes_all = frozenset(s.var for s in block.stmts if _passes_own(s, params, defaults, param_of))
    return RuleIR(target, fwd, back, params, defaults, list(back.freevars), arity,
                  _method_calls(fwd) | _method_calls(back), param_of, passes_all)


_UFUNC_OF = {operator.pow: np.power, operator.abs: np.absolute}
"""Operators whose rule on arrays is their ufunc's (``x ** y`` calls
``np.power`` on arrays): the user's own operation computes the rule's value.
(On a NumPy scalar ``**`` is C's ``pow``, which may round differently from
the ufunc.)"""

_MUTATORS = {"fill", "sort", "put", "itemset", "resize", "setflags", "partition", "append", "extend",
             "insert", "pop", "remove", "clear", "update", "setdefault", "__setitem__", "__delitem__"}
"""Methods that change their object, whose calls are never pure."""


def _method_calls(ir: IR) -> frozenset[Var]:
    """Calls in a rule of methods read off a value (``dy.sum()``,
    ``y.conjugate()``) that do not change it: pure, so they may be dropped
    when unused."""
    names = {s.var: s.args[1].value for b in ir.blocks.values() for s in b.stmts
             if _calls(s, getattr) and len(s.args) == 2 and isinstance(s.args[1], Const)}
    return frozenset(s.var for b in ir.blocks.values() for s in b.stmts
                     if isinstance(s.callee, Var) and s.callee in names and names[s.callee] not in _MUTATORS)


def bind_arguments(r: RuleIR, s: Statement) -> Optional[list[Operand]]:
    """The call's operands for each of the rule's parameters, in order
    (keyword arguments by name, defaults as constants), or None when the
    call does not bind (a starred argument, an unknown keyword, a missing
    argument): it is then left to the run-time call, which raises as
    Python would."""
    if any(isinstance(a, Starred) for a in s.args) or len(s.args) > len(r.params):
        return None
    bound: dict[str, Operand] = dict(zip(r.params, s.args))
    for k, v in s.kwargs:
        if k is None or k not in r.params or k in bound:
            return None
        bound[k] = v
    for p in r.params:
        if p not in bound:
            if p not in r.defaults:
                return None
            bound[p] = Const(r.defaults[p])
    return [bound[p] for p in r.params]


EFFECTS = {
    operator.setitem, operator.delitem, setattr, delattr,
    ops.store_deref, ops.store_global, ops.delete_deref, ops.delete_global,
}


def _pure(s: Statement) -> bool:
    """Whether a rule's statement has no effect (a call of a constant
    other than a store): arithmetic, ``math``, building values."""
    return isinstance(s.callee, Const) and s.callee.value not in EFFECTS


class Inliner:
    """Copies rule IR into a target IR with fresh variables and blocks."""

    def __init__(self, target: IR, line: Optional[int]):
        self.target = target
        self.line = line

    def _copy_stmt(self, s: Statement, env: dict[Var, Operand], r: RuleIR, var: Optional[Var] = None) -> Statement:
        def sub(op):
            if isinstance(op, Starred):
                return Starred(sub(op.value))
            return env.get(op, op) if isinstance(op, Var) else op

        v = var or self.target.new_var()
        env[s.var] = v
        return Statement(v, sub(s.callee), [sub(a) for a in s.args],
                         [(k, sub(x)) for k, x in s.kwargs], self.line, pure=_pure(s) or s.var in r.method_calls)

    def forward(
        self, r: RuleIR, args: list[Operand], original: Statement, out: list[Statement]
    ) -> tuple[Operand, dict[str, Operand]]:
        """Append the rule's forward statements to ``out``; the user's own
        call computes the output when the rule computes it the same way.
        Returns the output and the captured names' values."""
        params = dict(zip(r.params, args))
        env: dict[Var, Operand] = dict(zip(r.forward.entry.args, args))
        cells: dict[str, Operand] = {}
        block = r.forward.entry
        ret = next(s for s in block.stmts if s.var == block.term.value)
        y = ret.args[0]
        for s in block.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            if s is ret or fn is ops.make_function:
                continue
            if fn is ops.load_deref:
                n = s.args[0].value
                env[s.var] = params[n] if n in params else cells[n]
                continue
            if fn is ops.store_deref:
                v = s.args[1]
                cells[s.args[0].value] = env[v] if isinstance(v, Var) else v
                continue
            if s.var == y and self._computes_target(s, r, params):
                env[s.var] = original.var
                out.append(original)
                continue
            copied = self._copy_stmt(s, env, r, original.var if s.var == y else None)
            out.append(_tidy(copied, r) if s.var in r.passes_all else copied)
        for n, v in params.items():
            cells.setdefault(n, v)
        return original.var, cells

    @staticmethod
    def _computes_target(s: Statement, r: RuleIR, bound: dict[str, Operand]) -> bool:
        """Whether ``s`` calls the rule's target with the rule's parameters,
        positionally in order or by their own names (read directly or from
        their cells), leaving out only some that the user's call leaves out
        too (``bound`` to their defaults): then the user's call, whose
        arguments bind to the same parameters, computes the same value."""
        if not (_calls(s, r.target) or _calls(s, _UFUNC_OF.get(r.target))):
            return False
        passed = [r.param_of.get(a) for a in s.args]
        passed += [k for k, v in s.kwargs if k is not None and r.param_of.get(v) == k]
        return passed == [p for p in r.params if p in passed] and all(
            p in passed or p in r.defaults and isinstance(bound[p], Const)
            and type(bound[p].value) is type(r.defaults[p]) and bound[p].value == r.defaults[p]
            for p in r.params)

    def back(self, r: RuleIR, dy: Operand, captured: dict[str, Operand], block: Block,
             same_shape: frozenset[str] = frozenset(), real: frozenset[str] = frozenset(),
             real_dy: bool = False, vectors: frozenset[str] = frozenset()) -> tuple[Block, list[Operand]]:
        """Inline ``back(dy)`` at the end of ``block``. Returns the block
        where code continues and the gradients (one per rule argument).

        ``same_shape`` names parameters known to have the shape of the
        rule's output (the array operand of an elementwise operation with a
        number): reducing a gradient to their shape is no work, so
        ``runtime.unbroadcast(g, p)`` is ``g``. ``real`` names parameters
        known not to be complex (and ``real_dy`` says ``dy`` is not): the
        conjugate of a value computed from them alone is the value, so
        ``np.conjugate(v)`` (and ``v.conjugate()``) is ``v``, and
        ``np.iscomplexobj(v)`` is false.
        ``vectors`` names parameters known to be one-dimensional arrays:
        ``numpy_linalg.real_matrices(dy, x1, x2)`` of one is false (the
        rule's general way is taken, right for any shapes)."""
        ir = self.target
        loaded: dict[Var, str] = {}
        reals: set[Var] = {r.back.entry.args[0]} if real_dy else set()
        conjugates: dict[Var, Var] = {}  # v.conjugate, the bound method, of a real v
        env: dict[Var, Operand] = {r.back.entry.args[0]: dy}
        ids = {bid: (block if bid == r.back.entry.id else ir.new_block()) for bid in r.back.blocks}
        returns = [b for b in r.back.blocks.values() if isinstance(b.term, Return)]
        cont = None
        if len(r.back.blocks) > 1:
            cont = ir.new_block()
            cont.args = [ir.new_var() for _ in range(r.arity)]
        for bid, b in r.back.blocks.items():
            if bid == r.back.entry.id:
                continue
            dst = ids[bid]
            for a in b.args:
                v = ir.new_var()
                env[a] = v
                dst.args.append(v)
        outputs: list[Operand] = []
        for bid, b in r.back.blocks.items():
            dst = ids[bid]
            tuple_stmt = None
            for s in b.stmts:
                fn = s.callee.value if isinstance(s.callee, Const) else None
                if fn is ops.load_deref:
                    env[s.var] = captured[s.args[0].value]
                    loaded[s.var] = s.args[0].value
                    if loaded[s.var] in real:
                        reals.add(s.var)
                    continue
                if fn is numpy_linalg.real_matrices and len(s.args) == 3 and not s.kwargs \
                        and any(loaded.get(x) in vectors for x in s.args[1:]):
                    env[s.var] = Const(False)
                    continue
                if fn is np.iscomplexobj and len(s.args) == 1 and not s.kwargs and s.args[0] in reals:
                    env[s.var] = Const(False)  # (a branch for complex values, dropped)
                    continue
                if fn is runtime.unbroadcast and loaded.get(s.args[1]) in same_shape:
                    env[s.var] = env.get(s.args[0], s.args[0])
                    continue
                if fn is getattr and s.args[0] in reals and isinstance(s.args[1], Const) and s.args[1].value == "conjugate":
                    conjugates[s.var] = s.args[0]
                    continue
                if s.callee in conjugates and not s.args and not s.kwargs:
                    env[s.var] = env.get(conjugates[s.callee], conjugates[s.callee])
                    reals.add(s.var)
                    continue
                if fn is np.conjugate and len(s.args) == 1 and not s.kwargs and s.args[0] in reals:
                    env[s.var] = env.get(s.args[0], s.args[0])
                    reals.add(s.var)
                    continue
                if _keeps_real(fn, s, reals):
                    reals.add(s.var)
                if isinstance(b.term, Return) and s.var == b.term.value and fn is ops.build_tuple:
                    tuple_stmt = s
                    continue
                dst.stmts.append(self._copy_stmt(s, env, r))

            def sub(op):
                return env.get(op, op) if isinstance(op, Var) else op

            t = b.term
            if isinstance(t, Return):
                values = [sub(a) for a in tuple_stmt.args]
                if cont is None:
                    outputs = values
                else:
                    dst.term = Jump(cont.id, values)
            elif isinstance(t, Jump):
                dst.term = Jump(ids[t.target].id, [sub(a) for a in t.args])
            elif isinstance(t, Branch):
                dst.term = Branch(sub(t.cond), Jump(ids[t.then.target].id, [sub(a) for a in t.then.args]),
                                  Jump(ids[t.orelse.target].id, [sub(a) for a in t.orelse.args]), self.line)
            elif isinstance(t, Raise):
                dst.term = Raise(sub(t.exc), None if t.cause is None else sub(t.cause), self.line)
        if cont is None:
            return block, outputs
        del returns
        return cont, list(cont.args)


def grad_name(name: Optional[str]) -> Optional[str]:
    """``dx`` for the gradient of ``x``."""
    return None if not name else "d" + clean(name, "t")


def _keeps_real(fn: Any, s: Statement, reals: set[Var]) -> bool:
    """Whether a rule's statement makes a real value from real ones."""
    return preserves_real(fn) and not s.kwargs and all(
        a in reals if isinstance(a, Var) else real_constant(a.value) for a in s.args
    )


def _passes_own(s: Statement, params: list[str], defaults: dict[str, Any], param_of: dict[Var, str]) -> bool:
    """Whether a rule's call passes its parameters in order, each as
    itself, the first ones by position and the others by their own name,
    leaving out only some that have defaults (``np.sum(a, axis, dtype,
    keepdims=keepdims)`` in ``sum_(a, axis, dtype, out, keepdims)``: the
    other libraries' reductions take ``keepdims`` at another position, and
    ``out`` is no rule's to pass on)."""
    names = [param_of.get(a) for a in s.args]
    if not s.args or names != params[:len(names)] or any(k is None or param_of.get(v) != k for k, v in s.kwargs):
        return False
    passed = names + [k for k, _ in s.kwargs]
    return passed == [p for p in params if p in passed] and all(p in passed or p in defaults for p in params)


def _tidy(s: Statement, r: RuleIR) -> Statement:
    """A rule's call passing its parameters in order (``np.sum(a, axis,
    dtype, keepdims=keepdims)``), once the parameters are bound, leaves
    out the arguments that are the target's defaults and names the rest
    after the first one left out: ``np.sum(x, axis=1)``, as a person writes
    it, not ``np.sum(x, 1, None, keepdims=False)``."""
    if not isinstance(s.callee, Const):
        return s
    try:
        target = inspect.signature(s.callee.value).parameters
    except (TypeError, ValueError):
        return s
    positions = list(target)
    args: list[Operand] = []
    kwargs: list[tuple[str, Operand]] = []
    for name, a in [*zip(r.params, s.args), *s.kwargs]:
        p = target.get(name)
        if p is None or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return s  # the rule's parameters are not the target's
        if isinstance(a, Const) and name in r.defaults and _same_default(a.value, r.defaults[name], p.default):
            continue
        if not kwargs and len(args) == positions.index(name) and p.kind is p.POSITIONAL_OR_KEYWORD:
            args.append(a)
        else:
            kwargs.append((name, a))
    s.args, s.kwargs = args, kwargs
    return s


def _same_default(value: Any, rule_default: Any, target_default: Any) -> bool:
    """Whether passing ``value`` is the same as passing nothing: it is the
    rule's default, and the target's default is that too (or NumPy's
    no-value marker, meaning a ``None`` or ``False`` default)."""
    if not (type(value) is type(rule_default) and value == rule_default):
        return False
    if type(target_default) is type(rule_default) and target_default == rule_default:
        return True
    return type(target_default).__name__ == "_NoValueType" and rule_default in (None, False)

