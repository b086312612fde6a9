"""Control-flow graph queries: predecessors, orders, dominators, loops.

Dominators follow Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
Algorithm" (2001): iterate ``idom`` to a fixed point over reverse postorder.
Exception edges count as edges.
"""
from __future__ import annotations

from typing import Callable, Iterable

from .core import IR


def successors(ir: IR) -> dict[int, list[int]]:
    return {b.id: b.successors() for b in ir.blocks.values()}


def predecessors(ir: IR) -> dict[int, list[int]]:
    """For each block, the blocks with an edge into it, each once, in block
    order."""
    preds: dict[int, list[int]] = {bid: [] for bid in ir.blocks}
    for b in ir.blocks.values():
        for s in dict.fromkeys(b.successors()):
            preds[s].append(b.id)
    return preds


def reverse_postorder(ir: IR) -> list[int]:
    """Blocks reachable from the entry, in reverse postorder of a depth-first
    search that visits successors in edge order."""
    succ = successors(ir)
    return reverse_postorder_of(ir.entry.id, succ.__getitem__)


def reverse_postorder_of(entry: int, succ: Callable[[int], Iterable[int]]) -> list[int]:
    """Reverse postorder of the nodes reachable from ``entry`` in any graph
    given by its successor function."""
    seen = {entry}
    post: list[int] = []
    stack = [(entry, iter(succ(entry)))]
    while stack:
        node, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(succ(s))))
                break
        else:
            stack.pop()
            post.append(node)
    return post[::-1]


def dominators(ir: IR) -> dict[int, int]:
    """Immediate dominators of the reachable blocks; the entry maps to
    itself."""
    return immediate_dominators(reverse_postorder(ir), predecessors(ir))


def immediate_dominators(order: list[int], preds: dict[int, list[int]]) -> dict[int, int]:
    """Immediate dominators in any graph, given its reverse postorder (entry
    first) and predecessors; the entry maps to itself."""
    index = {b: i for i, b in enumerate(order)}
    idom = {order[0]: order[0]}

    def intersect(a: int, b: int) -> int:
        while a != b:
            while index[a] > index[b]:
                a = idom[a]
            while index[b] > index[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            done = [p for p in preds[b] if p in idom]
            new = done[0]
            for p in done[1:]:
                new = intersect(p, new)
            if idom.get(b) != new:
                idom[b] = new
                changed = True
    return idom


def dominates(idom: dict[int, int], a: int, b: int) -> bool:
    """Whether block ``a`` dominates block ``b`` (every block dominates
    itself)."""
    while True:
        if a == b:
            return True
        parent = idom[b]
        if parent == b:
            return False
        b = parent


def back_edges(ir: IR) -> list[tuple[int, int]]:
    """Edges ``(tail, header)`` whose header dominates their tail."""
    idom = dominators(ir)
    return [
        (b, s)
        for b in idom
        for s in ir.blocks[b].successors()
        if dominates(idom, s, b)
    ]


def natural_loops(ir: IR) -> dict[int, set[int]]:
    """For each loop header, the blocks of its natural loop (header
    included): those that reach a back edge's tail without passing the
    header. Unreachable blocks belong to no loop."""
    preds = predecessors(ir)
    reachable = set(reverse_postorder(ir))
    loops: dict[int, set[int]] = {}
    for tail, header in back_edges(ir):
        body = loops.setdefault(header, {header})
        work = [tail]
        while work:
            b = work.pop()
            if b not in body:
                body.add(b)
                work.extend(p for p in preds[b] if p in reachable)
    return loops
