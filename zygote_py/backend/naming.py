"""Out of SSA: Python names for SSA values.

Values that hold at the same time need different names; everything else
may share one, and values that flow into the same block argument prefer the
same name so that the copy on the edge disappears (``r = r`` is never
written). We compute liveness over the code as it will be emitted (after
expression folding), build the interference graph, and colour it greedily in
definition order, preferring the user's own variable names.

Special cases, both following Python rather than the SSA reading:

- a ``for`` loop's target is assigned only when the loop goes round again,
  so it interferes only with what is live into the loop body (the old value
  of ``i`` after the loop may keep the name ``i``);
- an exception handler's arguments are assigned at the start of each block
  of its try body (the values at that block's entry).
"""
from __future__ import annotations

import keyword
import re
from typing import Callable, Iterable, Optional

from ..ir.core import IR, Var

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def clean(hint: Optional[str], default: str) -> str:
    """A valid Python identifier made from a variable name hint."""
    if hint:
        hint = hint.split("@")[0]
    if not hint or not _IDENT.fullmatch(hint) or keyword.iskeyword(hint):
        return default
    return hint


def live_sets(
    ir: IR,
    order: list[int],
    uses_at_end: Callable[[int], set[Var]],
    defs_uses: Callable[[int], list[tuple[Optional[Var], set[Var]]]],
    entry_uses: Callable[[int], set[Var]],
) -> tuple[dict[int, set[Var]], dict[int, set[Var]]]:
    """Live-in (just after the block's arguments) and live-out sets.

    ``defs_uses(b)`` lists the block's emitted statements as (defined value,
    values read); ``uses_at_end(b)`` the values read by its terminator and
    jumps; ``entry_uses(b)`` those read at its start (exception edge)."""
    live_in: dict[int, set[Var]] = {b: set() for b in order}
    live_out: dict[int, set[Var]] = {b: set() for b in order}
    at_end = {b: uses_at_end(b) for b in order}  # (the same in every round: asked once)
    steps = {b: list(reversed(defs_uses(b))) for b in order}
    at_entry = {b: entry_uses(b) for b in order}
    changed = True
    while changed:
        changed = False
        for bid in reversed(order):
            b = ir.blocks[bid]
            out = set(at_end[bid])
            for j in b.jumps():
                out |= live_in[j.target] - set(ir.blocks[j.target].args)
            if b.handler is not None:
                h = ir.blocks[b.handler.target]
                out |= live_in[h.id] - set(h.args)
            live = set(out)
            for d, used in steps[bid]:
                if d is not None:
                    live.discard(d)
                live |= used
            live |= at_entry[bid]
            if out != live_out[bid] or live != live_in[bid]:
                live_out[bid], live_in[bid] = out, live
                changed = True
    return live_in, live_out


class Interference:
    def __init__(self) -> None:
        self.edges: dict[Var, set[Var]] = {}

    def add(self, a: Var, others: Iterable[Var]) -> None:
        for b in others:
            if a != b:
                self.edges.setdefault(a, set()).add(b)
                self.edges.setdefault(b, set()).add(a)

    def of(self, v: Var) -> set[Var]:
        return self.edges.get(v, set())


def allocate(
    order: list[Var],
    hints: dict[Var, str],
    graph: Interference,
    reserved: set[str],
    fixed: dict[Var, str],
    allowed: Optional[dict[Var, str]] = None,
) -> dict[Var, str]:
    """Greedy colouring: each value, in ``order``, takes the first of
    ``hint``, ``hint_1``, ``hint_2``... not taken by an interfering value
    and not reserved (unless ``allowed`` grants it that reserved name).
    ``fixed`` values (parameters) keep their names."""
    names = dict(fixed)
    allowed = allowed or {}
    for v in order:
        if v in names:
            continue
        base = hints[v]
        taken = {names[u] for u in graph.of(v) if u in names}
        candidate, k = base, 0
        while candidate in taken or candidate in reserved and allowed.get(v) != candidate:
            k += 1
            candidate = f"{base}_{k}"
        names[v] = candidate
    return names
