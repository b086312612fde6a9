"""Structuring: turn any control-flow graph back into Python statements.

Python has no ``goto``. Between blocks, control can only move by

- *falling through* to the code that follows the current statement list,
- ``continue`` to the header of the innermost loop,
- ``break`` to the code that follows the innermost loop statement,
- *inlining*: writing the target's code right at the jump (possible when the
  jump is the target's only way in, or when the target is a small block that
  returns or raises and may be duplicated),
- *labels*: ``label = k`` before one of the above, tested later by a
  guard ``if label == k:``, by an ``if label == k: break`` after a loop, or
  by a dispatch loop ``while True: if label == 1: ... elif label == 2:``.

:func:`structure` follows the dominator-tree structuring of Ramsey, "Beyond
Relooper: Recursive Translation of Unstructured Control Flow to Structured
Control Flow" (ICFP 2022), adapted to these jumps. It works on a private
graph whose nodes are IR blocks, merged conditions, copies of blocks and
synthetic switch and pass-through nodes; the IR is never changed. In order:

1. **Graph.** Blocks reachable from the entry become nodes; each edge keeps
   the IR jump it came from, so that the emitter can write its copies. The
   entry gets no incoming edges (a pass-through node is added if needed).
2. **Short circuits.** A branch node whose arm (assigning nothing) leads to
   a branch block with no statements of its own, reached only from there
   and sharing the other arm's target with identical copies, is merged with
   it into one condition ``a and b`` / ``a or b`` (possibly with ``not``),
   until no more merges apply. This undoes the frontend's lowering of
   ``and``/``or`` in conditions.
3. **Reducibility.** Strongly connected components are examined outermost
   first; one with several entries is irreducible. It is made reducible by
   node splitting (the entry whose choice copies least becomes the header;
   for every other entry, the part of the component reachable from it
   without passing the header is copied and the outside jumps to that entry
   go to the copy) while the added weight stays within a budget proportional
   to the function's size; beyond it, a switch node becomes the component's
   single entry (each jump into a former entry assigns the switch's label
   and goes to it): a small dispatch loop. Repeated until every loop has one
   header.
4. **Wrappers.** A loop header that is also the entry of a ``try`` region
   gets a pass-through node in front of it, which becomes the loop header
   (the ``try`` is inside the loop: its handler is in the loop) or the
   region's entry (the ``try`` is around the loop).
5. **Placement.** Every node gets one place (its *slot*): *inline* at its
   only forward edge; *after* the construct of its immediate dominator (a
   merge node: two or more forward edges), inside or outside that node's
   loop or ``try`` statement according to where it belongs; a loop's
   *follow* (its break target, placed first after the loop statement; see
   :meth:`_Plan._choose_follow`); a handler in its ``try``'s ``except``
   clause; a node that leaves a ``try`` region after that ``try`` statement
   or in its ``else`` clause.
6. **Emission.** A node's tree is its code, wrapped in its loop or ``try``
   statements, followed by the trees of the nodes placed after it. Loops
   become ``for`` loops (a ``for`` header whose next-item edge stays in the
   loop), ``while cond:`` (a header with no statements whose one arm leaves
   the loop), with ``else`` clauses when breaks skip the exit's code, or
   ``while True:``. Each jump is resolved in its context: inline, fall
   through, ``continue``, ``break``, duplicated, or skipping guarded code;
   the copies and label assignments of the edge come first.
7. **Repair.** A jump that cannot be resolved is fixed and emission is
   retried. In order of preference: a small terminal target is duplicated at
   that jump; a small target is split for it (if the copy's own jumps will
   be expressible or split in turn, within the budget); the code between the
   jump (or the end of its loop) and its target is guarded by
   ``if label == k:`` so that the jump can fall (or break, then fall) past
   it; the jump leaves its loop through a *hub*, a switch placed as the
   loop's follow (``label = k; break``, then ``if label == k:`` and the jump
   from there; the loop's entries reset the label). If all fail, the whole
   function becomes one dispatch loop over its merge nodes, every other node
   inlined at its only predecessor: always expressible, but not with
   exception handlers.
8. **Tidying.** ``if c: B else: <short>; break`` becomes ``if not c:
   <short>; break`` then ``B`` (likewise ``continue``); ``if c: <exits> else:
   B`` becomes ``if c: <exits>`` then ``B``; an empty ``then`` arm is dropped
   by negating the test. ``elif`` chains are left alone.

Invariants of the emission (they are what makes the output correct):

- falling off the end of a statement list transfers control to the list's
  follow node ``ft``; a loop body's ``ft`` is its header; a ``try`` body's is
  its ``else`` node or what follows the ``try``;
- every node's code is emitted exactly once (duplicated small terminals
  aside) and only where the enclosing ``try`` statements are exactly its
  handler chain, so exception edges are exactly the ``except`` clauses;
- block arguments are assigned only by the copies of the edge taken, on the
  edge itself, before the transfer;
- every forward jump to a guarded node assigns its label, so a guard is
  reached with its own value only by a jump to it, and with another value
  only by a jump past it;
- the output depends only on the IR and the emitter's answers (no iteration
  over unordered sets or object ids).

Graphs from structured source come out without labels, except where a loop
never loops (its body always breaks): its breaks become jumps over code.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Protocol

import gast

from ..errors import ZygoteError
from ..ir.core import IR, Branch, Jump, Raise, Return
from ..ir.cfg import immediate_dominators, reverse_postorder, reverse_postorder_of

_SMALL_TERMINAL = 2
"""A block that returns or raises with at most this many statements may be
duplicated at a jump instead of being reached by structure."""

_SMALL_SPLIT = 3
"""Weight (1 + statements) up to which a node may be split to make one jump
expressible."""

_SPLIT_MIN_BUDGET = 16
_SPLIT_FACTOR = 1.0
"""Node splitting may add ``max(_SPLIT_MIN_BUDGET, _SPLIT_FACTOR * w)``
weight to a function of weight ``w`` (a node weighs 1 + its statements)."""

_MAX_ROUNDS = 128
"""Rounds of emission and repair after which a function without exception
handlers takes the last resort, one dispatch loop: each round analyses the
whole graph again, and the pullback of a second derivative could take a
thousand of them (over a minute). The hardest control flow of the tests
takes under a hundred."""


class Emitter(Protocol):
    """What the structurer needs from the code generator
    (:class:`zygote_py.backend.emit.FunctionEmitter`). Every call returns
    fresh gast nodes: the structurer may call it several times for one block
    (a duplicated block, or a retried layout)."""

    def body(self, bid: int) -> list[gast.stmt]:
        """The block's statements (those folded into the terminator's
        expression left out; for a protected block, the copies for its
        exception edge come first)."""

    def condition(self, bid: int) -> gast.expr:
        """The condition of the block's ``Branch`` (truthy -> ``then``)."""

    def copies(self, src: int, jump: Jump) -> list[gast.stmt]:
        """Assignments giving ``jump.target``'s arguments the jump's values
        (``[]`` when the names coincide); emitted on the edge, before the
        transfer."""

    def terminal(self, bid: int) -> list[gast.stmt]:
        """``return v`` or ``raise e [from c]`` for a Return/Raise block."""

    def for_loop(self, bid: int) -> Optional[tuple[gast.expr, gast.expr]]:
        """``(target, iterable)`` if block ``bid`` is the header of a ``for``
        loop, else ``None``. Its terminator is ``Branch(%c, then=<exhausted>,
        orelse=<body>)`` and its statements are rendered by the ``for``
        statement (``body()`` is never called for it). See
        ``stepwise_loops``."""

    def handler(self, bid: int) -> tuple[str, list[gast.stmt]]:
        """For an exception handler block: the name for ``except
        BaseException as NAME:`` and the statements that start the clause."""

    def fresh(self, hint: str) -> str:
        """A new Python variable name (dispatch labels, loop flags)."""

    def stepwise_loops(self) -> None:
        """Called before the structurer writes a ``for`` header other than
        as the one ``for`` loop of its block (a header that heads no loop
        here, as in a dispatch loop, or a header written more than once):
        from then on, ``for_loop`` gives the iterator itself as the
        iterable."""


class StructureError(ZygoteError):
    """The control-flow graph has a shape Python cannot express with the
    constructs it has (an internal error: exception regions that are not
    nested, or an irreducible graph with exception handlers)."""


def structure(ir: IR, emitter: Emitter) -> list[gast.stmt]:
    """The body of the function ``ir`` as Python statements."""
    # Emission recurses along the placement tree, whose depth grows with
    # the number of blocks (a long chain of blocks or of if statements).
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 1000 + 64 * len(ir.blocks)))
    try:
        return _Structurer(ir, emitter).run()
    finally:
        sys.setrecursionlimit(old)


# -- the graph ----------------------------------------------------------------


@dataclass(eq=False)
class _Edge:
    """A jump between nodes. ``block``/``jump`` name the IR jump whose copies
    the edge carries (``None`` for synthetic edges); ``labels`` are the
    dispatch assignments ``(switch node, value)`` it makes."""

    src: int
    dst: int
    block: Optional[int] = None
    jump: Optional[Jump] = None
    labels: tuple[tuple[int, int], ...] = ()


@dataclass(eq=False)
class _Node:
    """``kind`` is ``block`` (an IR block), ``cond`` (a block whose branch
    condition absorbed others: ``cond`` is a tree of ``("leaf", bid)``,
    ``("not", t)``, ``("and", a, b)``, ``("or", a, b)``), ``switch`` (a
    dispatch on its label: value i+1 selects ``succ[i]``, any other value
    the last successor) or ``pass`` (no code, one successor). Two-way nodes
    list ``then`` first. A ``hub`` is the switch placed after a loop that
    jumps out of it lead to (its last successor is where the loop's breaks
    went). ``label``: the switch whose label a switch tests, when it is a
    copy of another made by node splitting (the jumps into it assign the
    original's label); ``None``, its own."""

    id: int
    kind: str
    block: Optional[int] = None
    succ: list[_Edge] = field(default_factory=list)
    cond: Optional[tuple] = None
    handler: Optional[int] = None
    hub: bool = False
    label: Optional[int] = None


class _Graph:
    def __init__(self) -> None:
        self.nodes: dict[int, _Node] = {}
        self.entry = 0
        self.next_id = 1

    def add(self, kind: str, block: Optional[int] = None,
            handler: Optional[int] = None) -> _Node:
        node = _Node(self.next_id, kind, block, handler=handler)
        self.next_id += 1
        self.nodes[node.id] = node
        return node

    def edges(self) -> list[_Edge]:
        return [e for n in self.nodes.values() for e in n.succ]

    def copy(self) -> "_Graph":
        g = _Graph()
        g.entry, g.next_id = self.entry, self.next_id
        for n in self.nodes.values():
            g.nodes[n.id] = _Node(
                n.id, n.kind, n.block,
                [replace(e) for e in n.succ], n.cond, n.handler, n.hub, n.label,
            )
        return g

    def successors(self, v: int) -> list[int]:
        """Every successor, exception edge last."""
        n = self.nodes[v]
        out = [e.dst for e in n.succ]
        if n.handler is not None:
            out.append(n.handler)
        return out

    def prune(self) -> None:
        """Drop the nodes no longer reachable from the entry."""
        keep = set(_rpo(self))
        for v in [v for v in self.nodes if v not in keep]:
            del self.nodes[v]


def _build(ir: IR) -> _Graph:
    g = _Graph()
    for bid in reverse_postorder(ir):
        b = ir.blocks[bid]
        if b.term is None:
            raise StructureError(
                f"block {bid} has no terminator", function=ir.name,
                filename=ir.filename, line=ir.firstline,
            )
        node = _Node(bid, "block", bid,
                     handler=None if b.handler is None else b.handler.target)
        node.succ = [_Edge(bid, j.target, bid, j) for j in b.jumps()]
        g.nodes[bid] = node
    g.next_id = max(ir.blocks) + 1
    g.entry = ir.entry.id
    if any(g.entry in g.successors(v) for v in g.nodes):
        start = g.add("pass")
        start.succ = [_Edge(start.id, g.entry)]
        g.entry = start.id
    return g


def _rpo(g: _Graph) -> list[int]:
    """Reverse postorder of the nodes reachable from the entry (successors
    in edge order, exception edge last)."""
    return reverse_postorder_of(g.entry, g.successors)


def _sccs(nodes: list[int], succ: Callable[[int], list[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components of the subgraph on ``nodes``
    (in the given order), each listed in that order, components ordered by
    their first node."""
    member = set(nodes)
    order = {v: i for i, v in enumerate(nodes)}
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter([s for s in succ(root) if s in member]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter([s for s in succ(w) if s in member])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp, key=order.__getitem__))
    return sorted(out, key=lambda c: order[c[0]])


# -- analysis -------------------------------------------------------------------


class _Analysis:
    """Orders, dominators, loops and exception regions of a reducible graph."""

    def __init__(self, g: _Graph, error: Callable[[str], StructureError]):
        self.g = g
        self.rpo = _rpo(g)
        self.index = {v: i for i, v in enumerate(self.rpo)}
        self.in_edges: dict[int, list[_Edge]] = {v: [] for v in self.rpo}
        self.preds: dict[int, list[int]] = {v: [] for v in self.rpo}
        for u in self.rpo:
            n = g.nodes[u]
            for e in n.succ:
                self.in_edges[e.dst].append(e)
                self.preds[e.dst].append(u)
            if n.handler is not None:
                self.preds[n.handler].append(u)
        self.idom = immediate_dominators(self.rpo, self.preds)
        self.back = {
            e for v in self.rpo for e in self.in_edges[v]
            if self.dominates(v, e.src)
        }
        self.fwd = {
            v: [e for e in self.in_edges[v] if e not in self.back]
            for v in self.rpo
        }
        self.loops: dict[int, set[int]] = {}
        for v in self.rpo:
            tails = [e.src for e in self.in_edges[v] if e in self.back]
            if tails:
                self.loops[v] = self._natural_loop(v, tails)
        self.loop_of = {v: self._innermost(v, None) for v in self.rpo}
        self.loop_parent = {h: self._innermost(h, h) for h in self.loops}
        self.children: dict[int, list[int]] = {v: [] for v in self.rpo}
        for v in self.rpo[1:]:
            self.children[self.idom[v]].append(v)
        self._regions(error)

    def dominates(self, a: int, b: int) -> bool:
        while a != b:
            up = self.idom[b]
            if up == b:
                return False
            b = up
        return True

    def _natural_loop(self, h: int, tails: list[int]) -> set[int]:
        body = {h}
        stack = list(tails)
        while stack:
            v = stack.pop()
            if v not in body:
                body.add(v)
                stack.extend(self.preds[v])
        return body

    def _innermost(self, v: int, skip: Optional[int]) -> Optional[int]:
        best = None
        for h, body in self.loops.items():
            if h != skip and v in body and (best is None or len(body) < len(self.loops[best])):
                best = h
        return best

    def _regions(self, error: Callable[[str], StructureError]) -> None:
        nodes = self.g.nodes
        self.chain: dict[int, tuple[int, ...]] = {}
        for v in self.rpo:
            out: list[int] = []
            h = nodes[v].handler
            while h is not None and h not in out:
                out.append(h)
                h = nodes[h].handler
            self.chain[v] = tuple(out)
        used = {nodes[u].handler for u in self.rpo}
        self.handlers = [v for v in self.rpo if v in used]
        self.region: dict[int, set[int]] = {}
        self.entry_of: dict[int, int] = {}
        for h in self.handlers:
            if self.in_edges[h]:
                raise error(f"handler block {nodes[h].block} is also reached by a jump")
            region = {v for v in self.rpo if h in self.chain[v]}
            entries = [
                v for v in self.rpo if v in region and (
                    v == self.g.entry
                    or any(e.src not in region for e in self.in_edges[v]))
            ]
            if len(entries) != 1:
                raise error(
                    f"the region protected by handler block {nodes[h].block}"
                    f" has {len(entries)} entries")
            self.region[h] = region
            self.entry_of[h] = entries[0]
        self.entered = {
            v: tuple(h for h in self.chain[v] if self.entry_of.get(h) == v)
            for v in self.rpo
        }
        for v, hs in self.entered.items():
            if self.chain[v][:len(hs)] != hs:
                raise error("exception regions are not nested")

    def outer_chain(self, v: int) -> tuple[int, ...]:
        """The handlers around ``v``'s try statements."""
        return self.chain[v][len(self.entered[v]):]


# -- placement --------------------------------------------------------------------


Slot = tuple


class _Plan:
    """Where each node's code goes (see the module docstring, step 5).

    Slots: ``("inline", edge)``, ``("after", p, layer)``, ``("else", p, h)``
    (the ``else`` clause of node ``p``'s ``try`` for handler ``h``),
    ``("except", h)``. Layer ``k`` of ``p`` is inside ``p``'s wrappers ``k``
    and further out and outside the ``k`` innermost ones; a node's wrappers
    are its loop, or the try statements of the regions it enters (innermost
    first).
    """

    def __init__(self, s: "_Structurer", an: _Analysis, dropped: set[int]):
        self.s, self.an = s, an
        self.subtree_weight = {v: s.weight(v) for v in an.rpo}
        for v in reversed(an.rpo[1:]):
            self.subtree_weight[an.idom[v]] += self.subtree_weight[v]
        self.follow: dict[int, int] = {}
        taken: set[int] = set()
        for h in an.rpo:
            if h in an.loops:
                f = self._choose_follow(h, taken)
                if f is not None:
                    self.follow[h] = f
                    taken.add(f)
        follow_of = {f: h for h, f in self.follow.items()}
        self.slot: dict[int, Slot] = {}
        self.after: dict[tuple[int, int], list[int]] = defaultdict(list)
        self.try_else: dict[tuple[int, int], int] = {}
        for v in an.rpo:
            if v == an.g.entry or v in dropped:
                continue
            if v in an.region:
                self.slot[v] = ("except", v)
                continue
            if v in follow_of:
                loc: Slot = ("after", follow_of[v], 1)
            elif len(an.fwd[v]) == 1:
                loc = ("inline", an.fwd[v][0])
            else:
                p = an.idom[v]
                loc = ("after", p, self._layer(p, v))
            loc = self._lift(v, loc)
            self.slot[v] = loc
            if loc[0] == "after":
                self.after[(loc[1], loc[2])].append(v)
        for nodes in self.after.values():
            nodes.sort(key=lambda v: (v not in follow_of, an.index[v]))

    def wrappers(self, v: int) -> list:
        if self.an.entered[v]:
            return list(self.an.entered[v])
        return ["loop"] if v in self.an.loops else []

    def _layer(self, p: int, v: int) -> int:
        an = self.an
        if an.entered[p]:
            return sum(1 for h in an.entered[p] if v not in an.region[h])
        if p in an.loops:
            return 0 if v in an.loops[p] else 1
        return 0

    def _protection(self, loc: Slot) -> tuple[int, ...]:
        an = self.an
        if loc[0] == "inline":
            return an.chain[loc[1].src]
        p = loc[1]
        k = an.entered[p].index(loc[2]) + 1 if loc[0] == "else" else loc[2]
        return an.chain[p][k:] if an.entered[p] else an.chain[p]

    def _lift(self, v: int, loc: Slot) -> Slot:
        """Move ``v`` out of the try statements it does not belong to."""
        an = self.an
        want = an.outer_chain(v)
        while True:
            have = self._protection(loc)
            if have == want:
                return loc
            n = len(have) - len(want)
            if n <= 0 or have[n:] != want:
                raise self.s.error(f"block {an.g.nodes[v].block} is protected by"
                                   " a handler whose region it does not enter")
            h = have[n - 1]
            p = an.entry_of[h]
            k = an.entered[p].index(h) + 1
            loc = ("after", p, k)
            key = (p, h)
            if (key not in self.try_else and self._protection(loc) == want
                    and all(e.src in an.region[h] for e in an.fwd[v])):
                self.try_else[key] = v
                return ("else", p, h)

    def _choose_follow(self, h: int, taken: set[int]) -> Optional[int]:
        """The node to place right after loop ``h``'s statement (its break
        target), among the *roots*: the nodes outside the loop whose
        immediate dominator is inside it. A hub comes first. Otherwise,
        among the header's exit target (if it leaves the loop) and the
        roots it leads to, or among all roots if there is none: the one
        most other roots lead to (where the loop's exits meet; past the
        header's exit target, that makes a loop ``else``), then one in the
        enclosing loop, then the heaviest. Other small terminal blocks are
        left to be duplicated where they are jumped to."""
        an, s = self.an, self.s
        body = an.loops[h]
        roots = [
            v for v in an.rpo
            if v not in body and an.idom[v] in body and v not in taken
            and v not in an.region and an.outer_chain(v) == an.chain[h]
        ]
        hubs = [v for v in roots if an.g.nodes[v].hub]
        if hubs:
            return hubs[0]
        reach = {r: self._reach_outside(r, body) for r in roots}
        exits = [e.dst for e in an.g.nodes[h].succ if e.dst not in body]
        if len(exits) == 1 and exits[0] in reach:
            candidates = [v for v in roots if v in reach[exits[0]]
                          and (v == exits[0] or not s.small_terminal(v))]
        else:
            candidates = [v for v in roots if not s.small_terminal(v)]
        candidates = [v for v in candidates if self._ends(v)]
        if not candidates:
            return None
        parent = an.loop_parent[h]
        return max(candidates, key=lambda v: (
            sum(1 for r in roots if r != v and v in reach[r]),
            an.loop_of[v] == parent,
            self.subtree_weight[v],
            -an.index[v],
        ))

    def _ends(self, v: int) -> bool:
        """Whether control can leave the function from ``v`` (by a return, a
        raise or an exception edge): a node that only loops forever is no
        place for a loop's breaks to meet."""
        g = self.an.g
        seen = {v}
        stack = [v]
        while stack:
            u = stack.pop()
            node = g.nodes[u]
            if not node.succ or node.handler is not None:
                return True
            for w in g.successors(u):
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return False

    def _reach_outside(self, start: int, body: set[int]) -> set[int]:
        seen = {start}
        stack = [start]
        while stack:
            for w in self.an.g.successors(stack.pop()):
                if w not in seen and w not in body:
                    seen.add(w)
                    stack.append(w)
        return seen


# -- emission ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Ctx:
    """Where control goes when the current statement list ends (``ft``), on
    ``continue`` (``loop``) and on ``break`` (``brk``)."""

    ft: Optional[int]
    loop: Optional[int] = None
    brk: Optional[int] = None


class _Emission:
    """One attempt at writing the planned graph as statements.

    Jumps that cannot be expressed are collected in ``failures`` (with the
    context they were met in) and stand as ``pass``; ``layout`` records the
    context each node's tree was written in, which is what the repairs and
    the guarded jumps of the next attempt rely on.
    """

    def __init__(self, s: "_Structurer", an: _Analysis, plan: _Plan, dup: set[_Edge]):
        self.s, self.an, self.plan, self.dup = s, an, plan, dup
        self.g = an.g
        self.em = s.em
        self.used: set[_Edge] = set()
        self.layout: dict[int, _Ctx] = {}
        self.planned = s.layout
        self.failures: list[tuple[_Edge, _Ctx]] = []
        self._skips: list[tuple[_Edge, _Ctx, Optional[int], Optional[int]]] = []

    def run(self) -> list[gast.stmt]:
        out = self.tree(self.g.entry, _Ctx(None))
        for e, ctx, start, level in self._skips:
            if _skip_path(self.layout, self.s.guards, start, e.dst, level) is None:
                self.failures.append((e, ctx))
        return out

    def dead(self) -> set[int]:
        """Duplicated nodes whose placed code no jump reaches."""
        return {
            e.dst for e in self.dup
            if not any(i in self.used for i in self.an.in_edges[e.dst])
        }

    # structure

    def tree(self, v: int, ctx: _Ctx) -> list[gast.stmt]:
        self.layout[v] = ctx
        out = self._layer(v, len(self.plan.wrappers(v)), ctx, self._core)
        if v in self.s.guards:
            return [gast.If(test=self.s.guard_test(v), body=out, orelse=[])]
        return out

    def _layer(self, v: int, k: int, ctx: _Ctx, core) -> list[gast.stmt]:
        nodes = self.plan.after.get((v, k), [])
        fts = nodes + [ctx.ft]
        out = self._wrapped(v, k, replace(ctx, ft=fts[0]), core)
        for m, ft in zip(nodes, fts[1:]):
            out += self.tree(m, replace(ctx, ft=ft))
        return out

    def _wrapped(self, v: int, k: int, ctx: _Ctx, core) -> list[gast.stmt]:
        if k == 0:
            return core(v, ctx)
        w = self.plan.wrappers(v)[k - 1]
        if w == "loop":
            return self._loop(v, ctx)
        return self._try(v, k, w, ctx, core)

    def _try(self, v: int, k: int, h: int, ctx: _Ctx, core) -> list[gast.stmt]:
        other = self.plan.try_else.get((v, h))
        body = self._layer(v, k - 1, replace(ctx, ft=ctx.ft if other is None else other), core)
        name, prologue = self.em.handler(self.g.nodes[h].block)
        clause = prologue + self.tree(h, ctx)
        orelse = [] if other is None else self.tree(other, ctx)
        handler = gast.ExceptHandler(
            type=_name("BaseException"), name=_name(name, gast.Store()),
            body=clause or [gast.Pass()],
        )
        if orelse and not _falls_through(clause):
            return [gast.Try(body=body, handlers=[handler], orelse=[], finalbody=[])] + orelse
        return [gast.Try(body=body, handlers=[handler], orelse=orelse, finalbody=[])]

    def _loop(self, h: int, ctx: _Ctx) -> list[gast.stmt]:
        inner = _Ctx(ft=h, loop=h, brk=ctx.ft)
        node = self.g.nodes[h]
        if node.kind == "block" and self.s.is_for(node.block) and _proper_for(self.an, h):
            done, step = node.succ
            target, iterable = self.em.for_loop(node.block)
            body = self._layer(h, 0, inner, lambda v, c: self.resolve(step, c))
            code = self.resolve(done, ctx)
            loop = gast.For(target=target, iter=iterable, body=body or [gast.Pass()],
                            orelse=[], type_comment=None)
            if code and _has_break(body):
                loop.orelse = code
                return [loop]
            return [loop] + code
        cond = self._while_condition(h)
        if cond is not None:
            test, step, leave = cond
            body = self._layer(h, 0, inner, lambda v, c: self.resolve(step, c))
            code = self.resolve(leave, ctx)
            loop = gast.While(test=test, body=body or [gast.Pass()], orelse=[])
            if not code or not _has_break(body):
                return [loop] + code
            if self.plan.slot.get(leave.dst) == ("inline", leave):
                loop.orelse = code
                return [loop]
        body = self._layer(h, 0, inner, self._core)
        return [gast.While(test=_const(True), body=body, orelse=[])]

    def _while_condition(self, h: int):
        """``(test, body edge, exit edge)`` when loop ``h`` can be ``while
        test:``, else ``None``."""
        node = self.g.nodes[h]
        if not self.s.two_way(node) or self.em.body(node.block):
            return None
        then, orelse = node.succ
        body = self.an.loops[h]
        if then.dst in body and orelse.dst not in body:
            return self.s.condition(node), then, orelse
        if orelse.dst in body and then.dst not in body:
            return _negate(self.s.condition(node)), orelse, then
        return None

    # one node's own code

    def _core(self, v: int, ctx: _Ctx) -> list[gast.stmt]:
        node = self.g.nodes[v]
        if node.kind == "pass":
            return self.resolve(node.succ[0], ctx)
        if node.kind == "switch":
            return self._switch(node, ctx)
        if node.kind == "block" and self.s.is_for(node.block):
            return self._for_step(node, ctx)
        out = self.em.body(node.block)
        if len(node.succ) == 2:
            then, orelse = node.succ
            return out + [gast.If(test=self.s.condition(node),
                                  body=self.resolve(then, ctx),
                                  orelse=self.resolve(orelse, ctx))]
        if len(node.succ) == 1:
            return out + self.resolve(node.succ[0], ctx)
        return out + self.em.terminal(node.block)

    def _switch(self, node: _Node, ctx: _Ctx) -> list[gast.stmt]:
        label = self.s.label(node.id if node.label is None else node.label)
        arms = [self.resolve(e, ctx) for e in node.succ]
        out = arms[-1]
        for i in range(len(arms) - 2, -1, -1):
            test = gast.Compare(left=_name(label), ops=[gast.Eq()], comparators=[_const(i + 1)])
            out = [gast.If(test=test, body=arms[i], orelse=out)]
        return out

    def _for_step(self, node: _Node, ctx: _Ctx) -> list[gast.stmt]:
        """One step of a ``for`` header that is not a loop here: take one
        item if there is one, then follow the matching edge."""
        done, step = node.succ
        target, iterable = self.em.for_loop(node.block)
        more = self.s.flag(node.id)
        return [
            _assign(more, False),
            gast.For(target=target, iter=iterable,
                     body=[_assign(more, True), gast.Break()], orelse=[],
                     type_comment=None),
            gast.If(test=_name(more), body=self.resolve(step, ctx),
                    orelse=self.resolve(done, ctx)),
        ]

    # jumps

    def resolve(self, e: _Edge, ctx: _Ctx) -> list[gast.stmt]:
        """The statements that take edge ``e`` from the end of a statement
        list in context ``ctx``."""
        out = [] if e.jump is None else self.em.copies(e.block, e.jump)
        out += [_assign(self.s.label(d), value) for d, value in e.labels]
        t = e.dst
        if t in self.s.guards and e not in self.an.back:
            out.append(self.s.guard_assign(t))
        slot = self.plan.slot.get(t)
        if slot is not None and slot[0] == "inline" and slot[1] is e:
            out += self.tree(t, ctx)
        elif t == ctx.ft:
            pass
        elif t == ctx.loop:
            out.append(gast.Continue())
        elif t == ctx.brk:
            out.append(gast.Break())
        elif e in self.dup:
            block = self.g.nodes[t].block
            return out + self.em.body(block) + self.em.terminal(block)
        elif t in self.s.marks and self._skip(e, ctx, out):
            pass
        else:
            self.failures.append((e, ctx))
            return out + [gast.Pass()]
        self.used.add(e)
        return out

    def _skip(self, e: _Edge, ctx: _Ctx, out: list[gast.stmt]) -> bool:
        """Reach ``e.dst`` by falling (or breaking, then falling) through
        guarded code, as the previous attempt's layout says is possible;
        checked again against this attempt's layout at the end."""
        for start, level, exit_loop in _skip_starts(self.planned, ctx):
            if _skip_path(self.planned, self.s.guards, start, e.dst, level) is not None:
                if e.dst not in self.s.guards:
                    out.append(self.s.guard_assign(e.dst))
                if exit_loop:
                    out.append(gast.Break())
                self._skips.append((e, ctx, start, level))
                return True
        return False


def _proper_for(an: _Analysis, h: int) -> bool:
    """Whether ``for`` header ``h`` heads a loop that its next-item edge
    stays in and its exhausted edge leaves."""
    if h not in an.loops:
        return False
    done, step = an.g.nodes[h].succ
    return step.dst in an.loops[h] and done.dst not in an.loops[h]


def _skip_starts(layout: dict[int, _Ctx], ctx: _Ctx):
    """Where control can go from the end of a statement list in ``ctx``
    without a jump to a named node: ``(node, loop level, via break)``."""
    yield ctx.ft, ctx.loop, False
    if ctx.loop is not None and ctx.loop in layout:
        yield ctx.brk, layout[ctx.loop].loop, True


def _skip_path(layout: dict[int, _Ctx], guards: set[int], start: Optional[int],
               target: int, level: Optional[int]) -> Optional[list[int]]:
    """The nodes written between ``start`` and ``target`` (which follows
    them at loop level ``level``), if falling through them reaches
    ``target``; ``None`` if it does not, or some of them are not guarded
    and ``guards`` is given."""
    path: list[int] = []
    x = start
    while x != target:
        if x is None or x == level or x not in layout or layout[x].loop != level:
            return None
        if guards is not None and x not in guards:
            return None
        path.append(x)
        x = layout[x].ft
    return path


# -- the driver --------------------------------------------------------------------


class _Structurer:
    def __init__(self, ir: IR, em: Emitter):
        self.ir, self.em = ir, em
        self._is_for: dict[int, bool] = {}
        self._names: dict[tuple[str, int], str] = {}
        self.budget = 0
        self.extra = 0
        self._hub_of: dict[int, int] = {}
        self.guards: set[int] = set()
        self.marks: dict[int, int] = {}
        self.layout: dict[int, _Ctx] = {}

    def error(self, message: str) -> StructureError:
        return StructureError(message, function=self.ir.name,
                              filename=self.ir.filename, line=self.ir.firstline)

    # facts about nodes

    def is_for(self, bid: int) -> bool:
        if bid not in self._is_for:
            self._is_for[bid] = self.em.for_loop(bid) is not None
        return self._is_for[bid]

    def two_way(self, node: _Node) -> bool:
        """A node that branches on a condition (not a ``for`` header)."""
        if node.kind == "cond":
            return True
        return (node.kind == "block" and isinstance(self.ir.blocks[node.block].term, Branch)
                and not self.is_for(node.block))

    def condition(self, node: _Node) -> gast.expr:
        return _condition(self.em, node.cond or ("leaf", node.block))

    def weight(self, v: int, g: Optional[_Graph] = None) -> int:
        node = (g or self.graph).nodes[v]
        if node.kind in ("block", "cond"):
            return 1 + len(self.ir.blocks[node.block].stmts)
        return 1

    def small_terminal(self, v: int) -> bool:
        node = self.graph.nodes[v]
        if node.kind != "block":
            return False
        b = self.ir.blocks[node.block]
        return isinstance(b.term, (Return, Raise)) and len(b.stmts) <= _SMALL_TERMINAL

    def label(self, v: int) -> str:
        return self._name("label", v)

    def _mark(self, v: int) -> None:
        if v not in self.marks:
            self.marks[v] = len(self.marks) + 1

    def guard_assign(self, v: int) -> gast.stmt:
        return _assign(self._name("label", 0), self.marks[v])

    def guard_test(self, v: int) -> gast.expr:
        return gast.Compare(left=_name(self._name("label", 0)), ops=[gast.Eq()],
                            comparators=[_const(self.marks[v])])

    def flag(self, v: int) -> str:
        return self._name("more", v)

    def _name(self, hint: str, v: int) -> str:
        if (hint, v) not in self._names:
            self._names[(hint, v)] = self.em.fresh(hint)
        return self._names[(hint, v)]

    # the passes

    def run(self) -> list[gast.stmt]:
        g = _build(self.ir)
        self.graph = g
        self._merge_conditions(g)
        g.prune()
        base = g.copy()
        self.budget = max(_SPLIT_MIN_BUDGET, _SPLIT_FACTOR * sum(self.weight(v) for v in g.nodes))
        self._normalize(g)
        dup: set[_Edge] = set()
        dropped: set[int] = set()
        rounds = 8 * len(g.nodes) + 16
        if all(n.handler is None for n in g.nodes.values()):
            rounds = min(rounds, _MAX_ROUNDS)
        for _ in range(rounds):
            an = _Analysis(g, self.error)
            self._check_stepwise(an)
            plan = _Plan(self, an, dropped)
            emission = _Emission(self, an, plan, dup)
            out = emission.run()
            self.layout = emission.layout
            if emission.failures:
                if self._repair(g, an, emission, dup):
                    continue
                break
            dead = emission.dead() - dropped
            if dead:
                dropped |= dead
                continue
            return _tidy(out)
        return self._flat(base)

    def _check_stepwise(self, an: _Analysis) -> None:
        """Tell the emitter before a ``for`` header is written as anything
        but its block's one ``for`` loop."""
        seen: set[int] = set()
        for v in an.rpo:
            node = an.g.nodes[v]
            if node.kind == "block" and self.is_for(node.block):
                if node.block in seen or not _proper_for(an, v):
                    self.em.stepwise_loops()
                    return
                seen.add(node.block)

    def _normalize(self, g: _Graph) -> None:
        self._make_reducible(g)
        self._separate_wrappers(g)

    def _merge_conditions(self, g: _Graph) -> None:
        """Step 2 of the module docstring."""
        indegree: dict[int, int] = defaultdict(int)
        for v in g.nodes:
            for s in g.successors(v):
                indegree[s] += 1
        handlers = {n.handler for n in g.nodes.values()}
        changed = True
        while changed:
            changed = False
            for x in list(g.nodes.values()):
                if x.id not in g.nodes or not self.two_way(x):
                    continue
                for arm in (0, 1):
                    y = g.nodes[x.succ[arm].dst]
                    if (y is x or y.id == g.entry or indegree[y.id] != 1
                            or y.id in handlers or y.handler != x.handler
                            or not self.two_way(y) or self.em.body(y.block)
                            or self._carries(x.succ[arm])):
                        continue
                    shared = x.succ[1 - arm]
                    match = [j for j in (0, 1) if self._same_jump(y.succ[j], shared)]
                    if not match:
                        continue
                    self._absorb(g, x, y, arm, match[0])
                    indegree[shared.dst] -= 1
                    changed = True
                    break

    def _absorb(self, g: _Graph, x: _Node, y: _Node, arm: int, j: int) -> None:
        cx = x.cond or ("leaf", x.block)
        cy = y.cond or ("leaf", y.block)
        if j != 1 - arm:
            cy = ("not", cy)
        kept = y.succ[1 - j]
        kept.src = x.id
        if arm == 0:
            x.cond, x.succ = ("and", cx, cy), [kept, x.succ[1]]
        else:
            x.cond, x.succ = ("or", cx, cy), [x.succ[0], kept]
        x.kind = "cond"
        del g.nodes[y.id]

    def _carries(self, e: _Edge) -> bool:
        """Whether taking ``e`` assigns anything."""
        return bool(e.labels) or (e.jump is not None and bool(self.em.copies(e.block, e.jump)))

    def _same_jump(self, a: _Edge, b: _Edge) -> bool:
        if a.dst != b.dst or a.labels != b.labels:
            return False
        ca = [] if a.jump is None else self.em.copies(a.block, a.jump)
        cb = [] if b.jump is None else self.em.copies(b.block, b.jump)
        return [gast.dump(s) for s in ca] == [gast.dump(s) for s in cb]

    # reducibility

    def _make_reducible(self, g: _Graph) -> None:
        """Step 3 of the module docstring."""
        while True:
            found = self._irreducible(g)
            if found is None:
                return
            comp, entries, order = found
            if any(g.nodes[v].handler is not None for v in comp) or any(
                    g.nodes[u].handler in comp for u in g.nodes):
                raise self.error("an irreducible loop contains exception handlers")
            costs = {h: sum(self._copy_weight(g, comp, e, h) for e in entries if e != h)
                     for h in entries}
            header = min(entries, key=lambda h: (costs[h], order[h]))
            if self.extra + costs[header] <= self.budget:
                self.extra += costs[header]
                self._split(g, comp, entries, header, order)
            else:
                self._dispatch(g, entries)
            g.prune()

    def _irreducible(self, g: _Graph) -> Optional[tuple[set[int], list[int], dict[int, int]]]:
        """The first strongly connected component with several entries
        (outer components first), its entries, and the reverse postorder
        index."""
        rpo = _rpo(g)
        order = {v: i for i, v in enumerate(rpo)}
        preds: dict[int, list[int]] = defaultdict(list)
        for v in rpo:
            for s in g.successors(v):
                preds[s].append(v)

        def scan(nodes: list[int]):
            for comp in _sccs(nodes, g.successors):
                if len(comp) == 1 and comp[0] not in g.successors(comp[0]):
                    continue
                inside = set(comp)
                entries = [v for v in comp if any(p not in inside for p in preds[v])]
                if len(entries) > 1:
                    return inside, entries, order
                found = scan([v for v in comp if v != entries[0]])
                if found is not None:
                    return found
            return None

        return scan(rpo)

    @staticmethod
    def _reach(g: _Graph, comp: set[int], start: int, avoid: int) -> list[int]:
        """Nodes of ``comp`` reachable from ``start`` without passing
        ``avoid``, in discovery order."""
        seen = [start]
        known = {start}
        for v in seen:
            for s in g.successors(v):
                if s in comp and s != avoid and s not in known:
                    known.add(s)
                    seen.append(s)
        return seen

    def _copy_weight(self, g: _Graph, comp: set[int], e: int, h: int) -> int:
        return sum(self.weight(v, g) for v in self._reach(g, comp, e, h))

    def _split(self, g: _Graph, comp: set[int], entries: list[int], header: int,
               order: dict[int, int]) -> None:
        """Copy, for each entry but ``header``, the part of the component
        it reaches without passing the header; outside edges into that
        entry go to the copy."""
        outside = [e for u in sorted(g.nodes) if u not in comp for e in g.nodes[u].succ]
        for entry in entries:
            if entry == header:
                continue
            part = sorted(self._reach(g, comp, entry, header), key=order.__getitem__)
            twin = {v: self._clone(g, v) for v in part}
            for v in part:
                twin[v].succ = [
                    replace(e, src=twin[v].id, dst=twin[e.dst].id if e.dst in twin else e.dst)
                    for e in g.nodes[v].succ
                ]
            for e in outside:
                if e.dst == entry:
                    e.dst = twin[entry].id

    @staticmethod
    def _clone(g: _Graph, v: int) -> _Node:
        n = g.nodes[v]
        twin = g.add(n.kind, n.block, n.handler)
        twin.cond = n.cond
        twin.label = n.id if n.label is None else n.label  # (a switch's copy tests the label its jumps assign)
        return twin

    @staticmethod
    def _dispatch(g: _Graph, targets: list[int]) -> _Node:
        """A switch node that every edge into ``targets`` now goes through,
        assigning the label that selects its old target."""
        switch = g.add("switch")
        value = {t: i + 1 for i, t in enumerate(targets)}
        for e in g.edges():
            if e.dst in value:
                e.labels += ((switch.id, value[e.dst]),)
                e.dst = switch.id
        switch.succ = [_Edge(switch.id, t) for t in targets]
        return switch

    def _separate_wrappers(self, g: _Graph) -> None:
        """Step 4 of the module docstring."""
        while True:
            an = _Analysis(g, self.error)
            clash = next((v for v in an.rpo if an.entered[v] and v in an.loops), None)
            if clash is None:
                return
            node = g.nodes[clash]
            outer = an.outer_chain(clash)[0] if an.outer_chain(clash) else None
            if any(h in an.loops[clash] for h in an.entered[clash]):
                # The except clause is inside the loop: so is the try.
                front = g.add("pass", handler=outer)
                moved = list(an.in_edges[clash])
            else:
                front = g.add("pass", handler=node.handler)
                moved = list(an.fwd[clash])
            for e in moved:
                e.dst = front.id
            front.succ = [_Edge(front.id, clash)]

    # repair

    def _repair(self, g: _Graph, an: _Analysis, emission: _Emission, dup: set[_Edge]) -> bool:
        """Step 7 of the module docstring (all but the last resort), for the
        first jump the emission could not express. Whether it worked."""
        e, ctx = emission.failures[0]
        t = e.dst
        if e not in dup and self.small_terminal(t) and an.chain[t] == an.chain[e.src]:
            dup.add(e)
            return True
        if self._split_for(g, an, e, ctx):
            return True
        if self._guard_for(emission, e, ctx):
            return True
        if ctx.loop is not None and ctx.brk is not None and t not in an.loops[ctx.loop]:
            self._exit_hub(g, an, e, ctx.loop, ctx.brk)
            self._normalize(g)
            return True
        return False

    def _splittable(self, g: _Graph, an: _Analysis, t: int) -> bool:
        node = g.nodes[t]
        return (node.kind in ("block", "cond") and t not in an.loops and t not in an.region
                and node.handler is None and not self.is_for(node.block)
                and self.weight(t) <= _SMALL_SPLIT)

    def _split_for(self, g: _Graph, an: _Analysis, e: _Edge, ctx: _Ctx) -> bool:
        """Give jump ``e`` its own copy of its small target, if each of the
        copy's own jumps can then be expressed right there or its target
        split in turn."""
        t = e.dst
        node = g.nodes[t]
        cost = self.weight(t)
        if not self._splittable(g, an, t) or self.extra + cost > self.budget:
            return False
        if not all(x.dst in (ctx.ft, ctx.loop, ctx.brk) or self.small_terminal(x.dst)
                   or self._splittable(g, an, x.dst) for x in node.succ):
            return False
        self.extra += cost
        twin = self._clone(g, t)
        twin.succ = [replace(x, src=twin.id) for x in node.succ]
        e.dst = twin.id
        self._normalize(g)
        return True

    def _guard_for(self, emission: _Emission, e: _Edge, ctx: _Ctx) -> bool:
        """Guard the code between the end of jump ``e``'s statement list (or
        of its loop) and its target, if falling through it gets there."""
        t = e.dst
        for start, level, _ in _skip_starts(emission.layout, ctx):
            path = _skip_path(emission.layout, None, start, t, level)
            if not path:
                continue
            known = set(path) <= self.guards and t in self.marks
            if known and emission.layout == emission.planned:
                continue
            for v in path + [t]:
                self._mark(v)
            self.guards |= set(path)
            return True
        return False

    def _exit_hub(self, g: _Graph, an: _Analysis, e: _Edge, h: int, brk: int) -> None:
        """Make jump ``e`` leave loop ``h`` through a hub after the loop:
        ``label = k`` then ``break``, and after the loop ``if label == k:``
        followed by the jump. The loop's entries reset the label; the other
        jumps to what followed the loop now reach the hub's last arm (those
        from outside the loop body with an explicit reset, as they need not
        come after an entry)."""
        if self._hub_of.get(brk) == h:
            hub = g.nodes[brk]
        else:
            hub = g.add("switch", handler=g.nodes[h].handler)
            hub.hub = True
            self._hub_of[hub.id] = h
            hub.succ = [_Edge(hub.id, brk)]
            later = not an.dominates(brk, h)
            for x in an.rpo:
                if x == brk or not an.dominates(h, x) or later and an.dominates(brk, x):
                    continue
                for jump in g.nodes[x].succ:
                    if jump.dst == brk:
                        jump.dst = hub.id
                        if x not in an.loops[h]:
                            jump.labels += ((hub.id, 0),)
            for jump in an.fwd[h]:
                jump.labels += ((hub.id, 0),)
        hub.succ.insert(len(hub.succ) - 1, _Edge(hub.id, e.dst))
        e.labels += ((hub.id, len(hub.succ) - 1),)
        e.dst = hub.id

    def _flat(self, base: _Graph) -> list[gast.stmt]:
        """The last resort: every merge node becomes a case of one dispatch
        loop; all other nodes are inlined at their only predecessor."""
        g = base
        self.graph = g
        if any(n.handler is not None for n in g.nodes.values()):
            raise self.error("cannot structure this control flow around exception handlers")
        indegree: dict[int, int] = defaultdict(int)
        for e in g.edges():
            indegree[e.dst] += 1
        merges = [v for v in _rpo(g) if indegree[v] >= 2]
        if merges:
            self._dispatch(g, merges)
        self.guards, self.marks, self.layout = set(), {}, {}
        an = _Analysis(g, self.error)
        self._check_stepwise(an)
        emission = _Emission(self, an, _Plan(self, an, set()), set())
        out = emission.run()
        if emission.failures:
            e = emission.failures[0][0]
            raise self.error(f"cannot express the jump to block {g.nodes[e.dst].block}")
        return _tidy(out)


# -- gast helpers ---------------------------------------------------------------------


def _name(id_: str, ctx=None) -> gast.Name:
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def _assign(target: str, value) -> gast.Assign:
    return gast.Assign(targets=[_name(target, gast.Store())], value=_const(value),
                       type_comment=None)


def _negate(test: gast.expr) -> gast.expr:
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        return test.operand
    return gast.UnaryOp(op=gast.Not(), operand=test)


def _condition(em: Emitter, tree: tuple) -> gast.expr:
    kind = tree[0]
    if kind == "leaf":
        return em.condition(tree[1])
    if kind == "not":
        return _negate(_condition(em, tree[1]))
    op = gast.And if kind == "and" else gast.Or
    values: list[gast.expr] = []
    for part in tree[1:]:
        sub = _condition(em, part)
        if isinstance(sub, gast.BoolOp) and isinstance(sub.op, op):
            values += sub.values
        else:
            values.append(sub)
    return gast.BoolOp(op=op(), values=values)


def _has_break(stmts: list[gast.stmt]) -> bool:
    """Whether a ``break`` in ``stmts`` leaves the loop they are the body of."""
    for s in stmts:
        if isinstance(s, gast.Break):
            return True
        if isinstance(s, gast.If) and (_has_break(s.body) or _has_break(s.orelse)):
            return True
        if isinstance(s, (gast.For, gast.While)) and _has_break(s.orelse):
            return True
        if isinstance(s, gast.Try) and (
                _has_break(s.body) or _has_break(s.orelse)
                or any(_has_break(h.body) for h in s.handlers)):
            return True
    return False


def _falls_through(stmts: list[gast.stmt]) -> bool:
    """Whether control may reach the end of ``stmts`` (conservative)."""
    if not stmts:
        return True
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise, gast.Break, gast.Continue)):
        return False
    if isinstance(last, gast.If):
        return _falls_through(last.body) or _falls_through(last.orelse)
    if isinstance(last, gast.While):
        return not (isinstance(last.test, gast.Constant) and last.test.value is True
                    and not _has_break(last.body))
    if isinstance(last, gast.Try):
        return (_falls_through(last.body + last.orelse)
                or any(_falls_through(h.body) for h in last.handlers))
    return True


def _tidy(stmts: list[gast.stmt], elif_position: bool = False) -> list[gast.stmt]:
    """Step 8 of the module docstring, recursively."""
    out: list[gast.stmt] = []
    for s in stmts:
        if isinstance(s, gast.If):
            out += _tidy_if(s, elif_position and len(stmts) == 1)
            continue
        if isinstance(s, (gast.For, gast.While)):
            s.body = _tidy(s.body) or [gast.Pass()]
            s.orelse = _tidy(s.orelse)
        elif isinstance(s, gast.Try):
            s.body = _tidy(s.body)
            s.orelse = _tidy(s.orelse)
            for h in s.handlers:
                h.body = _tidy(h.body) or [gast.Pass()]
        out.append(s)
    return out


def _tidy_if(s: gast.If, in_elif: bool) -> list[gast.stmt]:
    s.body = _tidy(s.body)
    s.orelse = _tidy(s.orelse, elif_position=True)
    if not s.body and s.orelse:
        s.test, s.body, s.orelse = _negate(s.test), _tidy(s.orelse), []
    if not s.body:
        s.body = [gast.Pass()]
        return [s]
    if in_elif or not s.orelse:
        return [s]
    if len(s.orelse) <= 3 and isinstance(s.orelse[-1], (gast.Break, gast.Continue)):
        rest = s.body
        s.test, s.body, s.orelse = _negate(s.test), s.orelse, []
        return [s] + rest
    if not _falls_through(s.body):
        rest, s.orelse = s.orelse, []
        return [s] + _tidy(rest)
    return [s]
