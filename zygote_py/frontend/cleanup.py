"""Passes on a function's IR right after it is lowered: unreachable and
empty blocks removed, needless checks and trivial block arguments dropped,
blocks in source order and renumbered.

May import: the IR.
"""
from __future__ import annotations

from typing import Callable, Union


from zygote_py.ir import ops
from zygote_py.ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Starred, Statement, Var

from . import ssa


def cleanup(ir: IR) -> None:
    """Drop unreachable and empty pass-through blocks, ``check_bound`` calls
    on values bound on every path, and trivial block arguments; number the
    blocks and variables in source order."""
    _remove_unreachable(ir)
    _bypass_empty_blocks(ir)
    _remove_unreachable(ir)
    drop_needless_checks(ir)
    _remove_trivial_args(ir)
    _renumber(ir)


def _map_operands(ir: IR, fn: Callable[[Operand], Operand]) -> None:
    """Replace every operand ``op`` read anywhere by ``fn(op)``."""

    def arg(a: Union[Operand, Starred]) -> Union[Operand, Starred]:
        return Starred(fn(a.value)) if isinstance(a, Starred) else fn(a)

    for b in ir.blocks.values():
        for s in b.stmts:
            s.callee = fn(s.callee)
            s.args = [arg(a) for a in s.args]
            s.kwargs = [(k, fn(v)) for k, v in s.kwargs]
        for j in _all_jumps(b):
            j.args = [fn(a) for a in j.args]
        t = b.term
        if isinstance(t, Branch):
            t.cond = fn(t.cond)
        elif isinstance(t, Return):
            t.value = fn(t.value)
        elif isinstance(t, Raise):
            t.exc = fn(t.exc)
            if t.cause is not None:
                t.cause = fn(t.cause)


def _replace(ir: IR, replacements: dict[Var, Operand]) -> None:
    """Substitute values, following chains; a replaced value's name passes
    to its replacement if that has none."""

    def resolve(op: Operand) -> Operand:
        while isinstance(op, Var) and op in replacements:
            op = replacements[op]
        return op

    for old in replacements:
        new = resolve(old)
        if isinstance(new, Var) and old in ir.names:
            ir.names.setdefault(new, ir.names[old])
        ir.names.pop(old, None)
    _map_operands(ir, resolve)


def _all_jumps(b: Block) -> list[Jump]:
    return b.jumps() + ([b.handler] if b.handler is not None else [])


def _incoming(ir: IR) -> dict[int, list[tuple[Jump, int]]]:
    """For each block, the jumps into it with the index of the block
    argument their first value is for (1 for exception edges)."""
    out: dict[int, list[tuple[Jump, int]]] = {bid: [] for bid in ir.blocks}
    for b in ir.blocks.values():
        for j in b.jumps():
            out[j.target].append((j, 0))
        if b.handler is not None:
            out[b.handler.target].append((b.handler, 1))
    return out


def _remove_unreachable(ir: IR) -> None:
    entry = ir.entry.id
    seen = {entry}
    stack = [entry]
    while stack:
        for s in ir.blocks[stack.pop()].successors():
            if s not in seen:
                seen.add(s)
                stack.append(s)
    ir.blocks = {bid: b for bid, b in ir.blocks.items() if bid in seen}


def _bypass_empty_blocks(ir: IR) -> None:
    """Jump straight past blocks that only jump on (no arguments, no
    statements) and are not a branch's target: loop and ``if`` shapes stay
    as built. An empty block cannot raise, so its exception edge carries
    nothing."""
    branch_targets = {
        j.target for b in ir.blocks.values() if isinstance(b.term, Branch) for j in b.jumps()
    }
    onward = {
        b.id: b.term
        for b in ir.blocks.values()
        if b.id != ir.entry.id
        and b.id not in branch_targets
        and not b.args
        and not b.stmts
        and isinstance(b.term, Jump)
    }
    for b in ir.blocks.values():
        j = b.term
        if not isinstance(j, Jump):
            continue
        seen = {b.id}
        while j.target in onward and j.target not in seen:
            seen.add(j.target)
            nxt = onward[j.target]
            j.target, j.args = nxt.target, list(nxt.args)


def drop_needless_checks(ir: IR) -> None:
    """Remove ``check_bound(v, name)`` where ``v`` is bound on every path:
    a block argument may be unbound only if some incoming value may be."""
    incoming = _incoming(ir)
    maybe: set[Var] = set()
    changed = True
    while changed:
        changed = False
        for b in ir.blocks.values():
            for j, off in incoming[b.id]:
                for a, v in zip(b.args[off:], j.args):
                    if a not in maybe and (ssa.is_unbound(v) or v in maybe):
                        maybe.add(a)
                        changed = True
    replacements: dict[Var, Operand] = {}
    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            if _is_check(s) and not (ssa.is_unbound(s.args[0]) or s.args[0] in maybe):
                replacements[s.var] = s.args[0]
            else:
                kept.append(s)
        b.stmts = kept
    _replace(ir, replacements)


def _is_check(s: Statement) -> bool:
    return isinstance(s.callee, Const) and s.callee.value is ops.check_bound


def _identity(op: Operand) -> tuple:
    """Operands that are the same value: one variable, or equal literals of
    one type (``1`` and ``1.0`` differ, as do ``0.0`` and ``-0.0``)."""
    if isinstance(op, Var):
        return ("var", op.id)
    value = op.value
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return ("literal", type(value), repr(value))
    return ("object", id(value))


def _remove_trivial_args(ir: IR) -> None:
    """Remove block arguments whose incoming values are all one value (or
    the argument itself), until none is left (Braun et al., section 3.1)."""
    incoming = _incoming(ir)
    handlers = {b.handler.target for b in ir.blocks.values() if b.handler is not None}
    replacements: dict[Var, Operand] = {}

    def resolve(op: Operand) -> Operand:
        while isinstance(op, Var) and op in replacements:
            op = replacements[op]
        return op

    changed = True
    while changed:
        changed = False
        for b in ir.blocks.values():
            first = 1 if b.id in handlers else 0
            for i in reversed(range(first, len(b.args))):
                arg = b.args[i]
                values = {}
                for j, off in incoming[b.id]:
                    v = resolve(j.args[i - off])
                    if v != arg:
                        values[_identity(v)] = v
                if len(values) != 1:
                    continue
                (replacements[arg],) = values.values()
                del b.args[i]
                for j, off in incoming[b.id]:
                    del j.args[i - off]
                changed = True
    _replace(ir, replacements)


def _source_order(ir: IR) -> list[int]:
    """Reverse postorder of a depth-first search that takes successors
    latest-created first, so that of two independent successors the one
    created first (the first in the source) comes first."""
    entry = ir.entry.id
    seen = {entry}
    post: list[int] = []
    stack = [(entry, iter(sorted(set(ir.blocks[entry].successors()), reverse=True)))]
    while stack:
        node, successors = stack[-1]
        for s in successors:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(sorted(set(ir.blocks[s].successors()), reverse=True))))
                break
        else:
            stack.pop()
            post.append(node)
    return post[::-1]


def _renumber(ir: IR) -> None:
    """Number blocks 1, 2, ... in source order, and variables in order of
    definition through them."""
    order = _source_order(ir)
    block_ids = {old: new for new, old in enumerate(order, 1)}
    var_ids: dict[Var, Var] = {}
    for bid in order:
        b = ir.blocks[bid]
        for v in [*b.args, *(s.var for s in b.stmts)]:
            var_ids[v] = Var(len(var_ids) + 1)
    _map_operands(ir, lambda op: var_ids.get(op, op) if isinstance(op, Var) else op)
    blocks = {}
    for bid in order:
        b = ir.blocks[bid]
        b.id = block_ids[bid]
        b.args = [var_ids[a] for a in b.args]
        for s in b.stmts:
            s.var = var_ids[s.var]
        for j in _all_jumps(b):
            j.target = block_ids[j.target]
        blocks[b.id] = b
    ir.blocks = blocks
    ir.names = {var_ids[v]: n for v, n in ir.names.items() if v in var_ids}
    ir.nvars = len(var_ids)
