"""``None``, the zero gradient, carried through an adjoint's IR: what a
statement with a ``None`` operand gives, around loops too
(:func:`propagate_none`).

May import: the IR, the runtime (its helpers' linearity), NumPy.
"""
from __future__ import annotations

import operator
from typing import Callable, Optional, Union

import numpy as np

from ..ir.core import IR, Const, Operand, Var
from ..ir.passes import member, substitute
from ..runtime import accum, attribute_gradient, call_pullback, scatter, unbroadcast


_LINEAR = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
    operator.pos, operator.matmul, operator.mod, operator.pow,
}


def propagate_none(ir: IR, linear: frozenset = frozenset()) -> None:
    """``None`` is the zero gradient. In compiler-made (``pure``) code,
    an accumulation with ``None`` is its other operand, and rule arithmetic
    with a ``None`` operand is ``None``: rules are linear in the incoming
    gradient, so every term of theirs carries it. So is any statement whose
    ``id`` is in ``linear`` (of a pullback whose gradient is ``None``), and
    a block argument that only ever receives ``None``, around loops too (a
    loop-carried gradient that nothing seeds)."""
    # run-time helpers linear in one argument, the gradient: its position
    # (np.full_like(a, dy): a sum's gradient, broadcast back to its input)
    linear_in = {unbroadcast: 0, scatter: 2, attribute_gradient: 2, np.full_like: 1}

    def outcome(s, is_none) -> Optional[Union[str, int]]:
        """``"none"`` when ``s`` gives ``None`` given which operands are
        (``is_none``), the position of the operand it passes on (an
        accumulation with ``None``), else ``None``."""
        if not s.pure:
            return None
        nones = [is_none(a) for a in s.args]
        if isinstance(s.callee, Var):  # (a method of no gradient, g.reshape, is None too)
            nones.append(is_none(s.callee))
        if not any(nones):
            return None
        fn = s.callee.value if isinstance(s.callee, Const) else None
        if fn is accum:
            return "none" if all(nones) else (1 if nones[0] else 0)
        if (
            member(fn, _LINEAR) or getattr(fn, "__module__", None) == "math"
            or isinstance(s.callee, Var)  # a pullback: no gradient in, none out
            or fn is call_pullback
            or member(fn, linear_in) and nones[linear_in[fn]]
            or fn is operator.getitem and nones[0]  # an item of no gradients
            or id(s) in linear
        ):
            return "none"
        return None

    env: dict[Var, Operand] = {v: Const(None) for v in _none_around_loops(ir, outcome)}
    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            if s.var in env:
                continue
            args = [env.get(a, a) if isinstance(a, Var) else a for a in s.args]
            out = outcome(s, lambda a: isinstance(a, Const) and a.value is None
                          or isinstance(env.get(a), Const) and env[a].value is None)
            if out == "none":
                env[s.var] = Const(None)
            elif out is not None:
                env[s.var] = args[out]
            else:
                kept.append(s)
        b.stmts = kept
    substitute(ir, env)


def _none_around_loops(ir: IR, outcome: Callable) -> set[Var]:
    """The block arguments that receive only ``None``, and the statements
    that give ``None`` from them: the greatest fixed point, so that a
    gradient carried around a loop, which nothing outside it seeds, is
    ``None``."""
    incoming: dict[Var, list[Operand]] = {}
    for b in ir.blocks.values():
        for j, handler in [(j, False) for j in b.jumps()] + ([(b.handler, True)] if b.handler else []):
            params = ir.blocks[j.target].args[1:] if handler else ir.blocks[j.target].args
            for p, v in zip(params, j.args):
                incoming.setdefault(p, []).append(v)
    if not incoming:
        return set()
    stmts = [s for b in ir.blocks.values() for s in b.stmts if s.pure]
    none = set(incoming) | {s.var for s in stmts}

    def is_none(a) -> bool:
        return isinstance(a, Const) and a.value is None or a in none

    changed = True
    while changed:
        changed = False
        for p in [p for p in incoming if p in none and not all(is_none(v) for v in incoming[p])]:
            none.discard(p)
            changed = True
        for s in stmts:
            if s.var in none:
                out = outcome(s, is_none)
                if out is None or out != "none" and not is_none(s.args[out]):
                    none.discard(s.var)
                    changed = True
    return none
