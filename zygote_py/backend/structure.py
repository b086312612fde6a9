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
from dataclasses import replace
from typing import Optional

import gast

from ..ir.core import IR, Branch, Raise, Return
from . import layout


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


def structure(ir: IR, emitter: layout.Emitter) -> list[gast.stmt]:
    """The body of the function ``ir`` as Python statements."""
    # Emission recurses along the placement tree, whose depth grows with
    # the number of blocks (a long chain of blocks or of if statements).
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 1000 + 64 * len(ir.blocks)))
    try:
        return _Structurer(ir, emitter).run()
    finally:
        sys.setrecursionlimit(old)


class _Structurer:
    def __init__(self, ir: IR, em: layout.Emitter):
        self.ir, self.em = ir, em
        self._is_for: dict[int, bool] = {}
        self._names: dict[tuple[str, int], str] = {}
        self.budget = 0
        self.extra = 0
        self._hub_of: dict[int, int] = {}
        self.guards: set[int] = set()
        self.marks: dict[int, int] = {}
        self.layout: dict[int, layout.Ctx] = {}

    def error(self, message: str) -> layout.StructureError:
        return layout.StructureError(message, function=self.ir.name,
                              filename=self.ir.filename, line=self.ir.firstline)

    # facts about nodes

    def is_for(self, bid: int) -> bool:
        if bid not in self._is_for:
            self._is_for[bid] = self.em.for_loop(bid) is not None
        return self._is_for[bid]

    def two_way(self, node: layout.Node) -> bool:
        """A node that branches on a condition (not a ``for`` header)."""
        if node.kind == "cond":
            return True
        return (node.kind == "block" and isinstance(self.ir.blocks[node.block].term, Branch)
                and not self.is_for(node.block))

    def condition(self, node: layout.Node) -> gast.expr:
        return layout.condition(self.em, node.cond or ("leaf", node.block))

    def weight(self, v: int, g: Optional[layout.Graph] = None) -> int:
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
        return layout.assign(self._name("label", 0), self.marks[v])

    def guard_test(self, v: int) -> gast.expr:
        return gast.Compare(left=layout.name_of(self._name("label", 0)), ops=[gast.Eq()],
                            comparators=[layout.const(self.marks[v])])

    def flag(self, v: int) -> str:
        return self._name("more", v)

    def _name(self, hint: str, v: int) -> str:
        if (hint, v) not in self._names:
            self._names[(hint, v)] = self.em.fresh(hint)
        return self._names[(hint, v)]

    # the passes

    def run(self) -> list[gast.stmt]:
        g = layout.build(self.ir)
        self.graph = g
        self._merge_conditions(g)
        g.prune()
        base = g.copy()
        self.budget = max(_SPLIT_MIN_BUDGET, _SPLIT_FACTOR * sum(self.weight(v) for v in g.nodes))
        self._normalize(g)
        dup: set[layout.Edge] = set()
        dropped: set[int] = set()
        rounds = 8 * len(g.nodes) + 16
        if all(n.handler is None for n in g.nodes.values()):
            rounds = min(rounds, _MAX_ROUNDS)
        for _ in range(rounds):
            an = layout.Analysis(g, self.error)
            self._check_stepwise(an)
            plan = layout.Plan(self, an, dropped)
            emission = layout.Emission(self, an, plan, dup)
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
            return layout.tidy(out)
        return self._flat(base)

    def _check_stepwise(self, an: layout.Analysis) -> None:
        """Tell the emitter before a ``for`` header is written as anything
        but its block's one ``for`` loop."""
        seen: set[int] = set()
        for v in an.rpo:
            node = an.g.nodes[v]
            if node.kind == "block" and self.is_for(node.block):
                if node.block in seen or not layout.proper_for(an, v):
                    self.em.stepwise_loops()
                    return
                seen.add(node.block)

    def _normalize(self, g: layout.Graph) -> None:
        self._make_reducible(g)
        self._separate_wrappers(g)

    def _merge_conditions(self, g: layout.Graph) -> None:
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

    def _absorb(self, g: layout.Graph, x: layout.Node, y: layout.Node, arm: int, j: int) -> None:
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

    def _carries(self, e: layout.Edge) -> bool:
        """Whether taking ``e`` assigns anything."""
        return bool(e.labels) or (e.jump is not None and bool(self.em.copies(e.block, e.jump)))

    def _same_jump(self, a: layout.Edge, b: layout.Edge) -> bool:
        if a.dst != b.dst or a.labels != b.labels:
            return False
        ca = [] if a.jump is None else self.em.copies(a.block, a.jump)
        cb = [] if b.jump is None else self.em.copies(b.block, b.jump)
        return [gast.dump(s) for s in ca] == [gast.dump(s) for s in cb]

    # reducibility

    def _make_reducible(self, g: layout.Graph) -> None:
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

    def _irreducible(self, g: layout.Graph) -> Optional[tuple[set[int], list[int], dict[int, int]]]:
        """The first strongly connected component with several entries
        (outer components first), its entries, and the reverse postorder
        index."""
        rpo = layout.rpo_of(g)
        order = {v: i for i, v in enumerate(rpo)}
        preds: dict[int, list[int]] = defaultdict(list)
        for v in rpo:
            for s in g.successors(v):
                preds[s].append(v)

        def scan(nodes: list[int]):
            for comp in layout.sccs(nodes, g.successors):
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
    def _reach(g: layout.Graph, comp: set[int], start: int, avoid: int) -> list[int]:
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

    def _copy_weight(self, g: layout.Graph, comp: set[int], e: int, h: int) -> int:
        return sum(self.weight(v, g) for v in self._reach(g, comp, e, h))

    def _split(self, g: layout.Graph, comp: set[int], entries: list[int], header: int,
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
    def _clone(g: layout.Graph, v: int) -> layout.Node:
        n = g.nodes[v]
        twin = g.add(n.kind, n.block, n.handler)
        twin.cond = n.cond
        twin.label = n.id if n.label is None else n.label  # (a switch's copy tests the label its jumps assign)
        return twin

    @staticmethod
    def _dispatch(g: layout.Graph, targets: list[int]) -> layout.Node:
        """A switch node that every edge into ``targets`` now goes through,
        assigning the label that selects its old target."""
        switch = g.add("switch")
        value = {t: i + 1 for i, t in enumerate(targets)}
        for e in g.edges():
            if e.dst in value:
                e.labels += ((switch.id, value[e.dst]),)
                e.dst = switch.id
        switch.succ = [layout.Edge(switch.id, t) for t in targets]
        return switch

    def _separate_wrappers(self, g: layout.Graph) -> None:
        """Step 4 of the module docstring."""
        while True:
            an = layout.Analysis(g, self.error)
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
            front.succ = [layout.Edge(front.id, clash)]

    # repair

    def _repair(self, g: layout.Graph, an: layout.Analysis, emission: layout.Emission, dup: set[layout.Edge]) -> bool:
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

    def _splittable(self, g: layout.Graph, an: layout.Analysis, t: int) -> bool:
        node = g.nodes[t]
        return (node.kind in ("block", "cond") and t not in an.loops and t not in an.region
                and node.handler is None and not self.is_for(node.block)
                and self.weight(t) <= _SMALL_SPLIT)

    def _split_for(self, g: layout.Graph, an: layout.Analysis, e: layout.Edge, ctx: layout.Ctx) -> bool:
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

    def _guard_for(self, emission: layout.Emission, e: layout.Edge, ctx: layout.Ctx) -> bool:
        """Guard the code between the end of jump ``e``'s statement list (or
        of its loop) and its target, if falling through it gets there."""
        t = e.dst
        for start, level, _ in layout.skip_starts(emission.layout, ctx):
            path = layout.skip_path(emission.layout, None, start, t, level)
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

    def _exit_hub(self, g: layout.Graph, an: layout.Analysis, e: layout.Edge, h: int, brk: int) -> None:
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
            hub.succ = [layout.Edge(hub.id, brk)]
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
        hub.succ.insert(len(hub.succ) - 1, layout.Edge(hub.id, e.dst))
        e.labels += ((hub.id, len(hub.succ) - 1),)
        e.dst = hub.id

    def _flat(self, base: layout.Graph) -> list[gast.stmt]:
        """The last resort: every merge node becomes a case of one dispatch
        loop; all other nodes are inlined at their only predecessor."""
        g = base
        self.graph = g
        if any(n.handler is not None for n in g.nodes.values()):
            raise self.error("cannot structure this control flow around exception handlers")
        indegree: dict[int, int] = defaultdict(int)
        for e in g.edges():
            indegree[e.dst] += 1
        merges = [v for v in layout.rpo_of(g) if indegree[v] >= 2]
        if merges:
            self._dispatch(g, merges)
        self.guards, self.marks, self.layout = set(), {}, {}
        an = layout.Analysis(g, self.error)
        self._check_stepwise(an)
        emission = layout.Emission(self, an, layout.Plan(self, an, set()), set())
        out = emission.run()
        if emission.failures:
            e = emission.failures[0][0]
            raise self.error(f"cannot express the jump to block {g.nodes[e.dst].block}")
        return layout.tidy(out)
