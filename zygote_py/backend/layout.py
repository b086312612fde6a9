"""The graph that :mod:`.structure` turns into statements, and how it lays it
out: nodes and edges (a copy of the IR's CFG that node splitting and
dispatch rewrite), their analysis (dominators, loops, reachability), the
plan of where each node's code goes, and its emission as Python
statements (``if``/``while``/``for``/``break``), with the small AST helpers
they share; the emitter they call (:class:`Emitter`) and
:class:`StructureError`.

May import: the IR.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Optional, Protocol

import gast

from ..errors import ZygoteError
from ..ir.core import IR, Jump
from ..ir.cfg import immediate_dominators, reverse_postorder, reverse_postorder_of

if TYPE_CHECKING:
    from . import structure


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


@dataclass(eq=False)
class Edge:
    """A jump between nodes. ``block``/``jump`` name the IR jump whose copies
    the edge carries (``None`` for synthetic edges); ``labels`` are the
    dispatch assignments ``(switch node, value)`` it makes."""

    src: int
    dst: int
    block: Optional[int] = None
    jump: Optional[Jump] = None
    labels: tuple[tuple[int, int], ...] = ()


@dataclass(eq=False)
class Node:
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
    succ: list[Edge] = field(default_factory=list)
    cond: Optional[tuple] = None
    handler: Optional[int] = None
    hub: bool = False
    label: Optional[int] = None


class Graph:
    def __init__(self) -> None:
        self.nodes: dict[int, Node] = {}
        self.entry = 0
        self.next_id = 1

    def add(self, kind: str, block: Optional[int] = None,
            handler: Optional[int] = None) -> Node:
        node = Node(self.next_id, kind, block, handler=handler)
        self.next_id += 1
        self.nodes[node.id] = node
        return node

    def edges(self) -> list[Edge]:
        return [e for n in self.nodes.values() for e in n.succ]

    def copy(self) -> "Graph":
        g = Graph()
        g.entry, g.next_id = self.entry, self.next_id
        for n in self.nodes.values():
            g.nodes[n.id] = Node(
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
        keep = set(rpo_of(self))
        for v in [v for v in self.nodes if v not in keep]:
            del self.nodes[v]


def build(ir: IR) -> Graph:
    g = Graph()
    for bid in reverse_postorder(ir):
        b = ir.blocks[bid]
        if b.term is None:
            raise StructureError(
                f"block {bid} has no terminator", function=ir.name,
                filename=ir.filename, line=ir.firstline,
            )
        node = Node(bid, "block", bid,
                     handler=None if b.handler is None else b.handler.target)
        node.succ = [Edge(bid, j.target, bid, j) for j in b.jumps()]
        g.nodes[bid] = node
    g.next_id = max(ir.blocks) + 1
    g.entry = ir.entry.id
    if any(g.entry in g.successors(v) for v in g.nodes):
        start = g.add("pass")
        start.succ = [Edge(start.id, g.entry)]
        g.entry = start.id
    return g


def rpo_of(g: Graph) -> list[int]:
    """Reverse postorder of the nodes reachable from the entry (successors
    in edge order, exception edge last)."""
    return reverse_postorder_of(g.entry, g.successors)


def sccs(nodes: list[int], succ: Callable[[int], list[int]]) -> list[list[int]]:
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


class Analysis:
    """Orders, dominators, loops and exception regions of a reducible graph."""

    def __init__(self, g: Graph, error: Callable[[str], StructureError]):
        self.g = g
        self.rpo = rpo_of(g)
        self.index = {v: i for i, v in enumerate(self.rpo)}
        self.in_edges: dict[int, list[Edge]] = {v: [] for v in self.rpo}
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


Slot = tuple


class Plan:
    """Where each node's code goes (see the module docstring, step 5).

    Slots: ``("inline", edge)``, ``("after", p, layer)``, ``("else", p, h)``
    (the ``else`` clause of node ``p``'s ``try`` for handler ``h``),
    ``("except", h)``. Layer ``k`` of ``p`` is inside ``p``'s wrappers ``k``
    and further out and outside the ``k`` innermost ones; a node's wrappers
    are its loop, or the try statements of the regions it enters (innermost
    first).
    """

    def __init__(self, s: "structure._Structurer", an: Analysis, dropped: set[int]):
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


@dataclass(frozen=True)
class Ctx:
    """Where control goes when the current statement list ends (``ft``), on
    ``continue`` (``loop``) and on ``break`` (``brk``)."""

    ft: Optional[int]
    loop: Optional[int] = None
    brk: Optional[int] = None


class Emission:
    """One attempt at writing the planned graph as statements.

    Jumps that cannot be expressed are collected in ``failures`` (with the
    context they were met in) and stand as ``pass``; ``layout`` records the
    context each node's tree was written in, which is what the repairs and
    the guarded jumps of the next attempt rely on.
    """

    def __init__(self, s: "structure._Structurer", an: Analysis, plan: Plan, dup: set[Edge]):
        self.s, self.an, self.plan, self.dup = s, an, plan, dup
        self.g = an.g
        self.em = s.em
        self.used: set[Edge] = set()
        self.layout: dict[int, Ctx] = {}
        self.planned = s.layout
        self.failures: list[tuple[Edge, Ctx]] = []
        self._skips: list[tuple[Edge, Ctx, Optional[int], Optional[int]]] = []

    def run(self) -> list[gast.stmt]:
        out = self.tree(self.g.entry, Ctx(None))
        for e, ctx, start, level in self._skips:
            if skip_path(self.layout, self.s.guards, start, e.dst, level) is None:
                self.failures.append((e, ctx))
        return out

    def dead(self) -> set[int]:
        """Duplicated nodes whose placed code no jump reaches."""
        return {
            e.dst for e in self.dup
            if not any(i in self.used for i in self.an.in_edges[e.dst])
        }

    # structure

    def tree(self, v: int, ctx: Ctx) -> list[gast.stmt]:
        self.layout[v] = ctx
        out = self._layer(v, len(self.plan.wrappers(v)), ctx, self._core)
        if v in self.s.guards:
            return [gast.If(test=self.s.guard_test(v), body=out, orelse=[])]
        return out

    def _layer(self, v: int, k: int, ctx: Ctx, core) -> list[gast.stmt]:
        nodes = self.plan.after.get((v, k), [])
        fts = nodes + [ctx.ft]
        out = self._wrapped(v, k, replace(ctx, ft=fts[0]), core)
        for m, ft in zip(nodes, fts[1:]):
            out += self.tree(m, replace(ctx, ft=ft))
        return out

    def _wrapped(self, v: int, k: int, ctx: Ctx, core) -> list[gast.stmt]:
        if k == 0:
            return core(v, ctx)
        w = self.plan.wrappers(v)[k - 1]
        if w == "loop":
            return self._loop(v, ctx)
        return self._try(v, k, w, ctx, core)

    def _try(self, v: int, k: int, h: int, ctx: Ctx, core) -> list[gast.stmt]:
        other = self.plan.try_else.get((v, h))
        body = self._layer(v, k - 1, replace(ctx, ft=ctx.ft if other is None else other), core)
        name, prologue = self.em.handler(self.g.nodes[h].block)
        clause = prologue + self.tree(h, ctx)
        orelse = [] if other is None else self.tree(other, ctx)
        handler = gast.ExceptHandler(
            type=name_of("BaseException"), name=name_of(name, gast.Store()),
            body=clause or [gast.Pass()],
        )
        if orelse and not _falls_through(clause):
            return [gast.Try(body=body, handlers=[handler], orelse=[], finalbody=[])] + orelse
        return [gast.Try(body=body, handlers=[handler], orelse=orelse, finalbody=[])]

    def _loop(self, h: int, ctx: Ctx) -> list[gast.stmt]:
        inner = Ctx(ft=h, loop=h, brk=ctx.ft)
        node = self.g.nodes[h]
        if node.kind == "block" and self.s.is_for(node.block) and proper_for(self.an, h):
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
        return [gast.While(test=const(True), body=body, orelse=[])]

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

    def _core(self, v: int, ctx: Ctx) -> list[gast.stmt]:
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

    def _switch(self, node: Node, ctx: Ctx) -> list[gast.stmt]:
        label = self.s.label(node.id if node.label is None else node.label)
        arms = [self.resolve(e, ctx) for e in node.succ]
        out = arms[-1]
        for i in range(len(arms) - 2, -1, -1):
            test = gast.Compare(left=name_of(label), ops=[gast.Eq()], comparators=[const(i + 1)])
            out = [gast.If(test=test, body=arms[i], orelse=out)]
        return out

    def _for_step(self, node: Node, ctx: Ctx) -> list[gast.stmt]:
        """One step of a ``for`` header that is not a loop here: take one
        item if there is one, then follow the matching edge."""
        done, step = node.succ
        target, iterable = self.em.for_loop(node.block)
        more = self.s.flag(node.id)
        return [
            assign(more, False),
            gast.For(target=target, iter=iterable,
                     body=[assign(more, True), gast.Break()], orelse=[],
                     type_comment=None),
            gast.If(test=name_of(more), body=self.resolve(step, ctx),
                    orelse=self.resolve(done, ctx)),
        ]

    # jumps

    def resolve(self, e: Edge, ctx: Ctx) -> list[gast.stmt]:
        """The statements that take edge ``e`` from the end of a statement
        list in context ``ctx``."""
        out = [] if e.jump is None else self.em.copies(e.block, e.jump)
        out += [assign(self.s.label(d), value) for d, value in e.labels]
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

    def _skip(self, e: Edge, ctx: Ctx, out: list[gast.stmt]) -> bool:
        """Reach ``e.dst`` by falling (or breaking, then falling) through
        guarded code, as the previous attempt's layout says is possible;
        checked again against this attempt's layout at the end."""
        for start, level, exit_loop in skip_starts(self.planned, ctx):
            if skip_path(self.planned, self.s.guards, start, e.dst, level) is not None:
                if e.dst not in self.s.guards:
                    out.append(self.s.guard_assign(e.dst))
                if exit_loop:
                    out.append(gast.Break())
                self._skips.append((e, ctx, start, level))
                return True
        return False


def proper_for(an: Analysis, h: int) -> bool:
    """Whether ``for`` header ``h`` heads a loop that its next-item edge
    stays in and its exhausted edge leaves."""
    if h not in an.loops:
        return False
    done, step = an.g.nodes[h].succ
    return step.dst in an.loops[h] and done.dst not in an.loops[h]


def skip_starts(layout: dict[int, Ctx], ctx: Ctx):
    """Where control can go from the end of a statement list in ``ctx``
    without a jump to a named node: ``(node, loop level, via break)``."""
    yield ctx.ft, ctx.loop, False
    if ctx.loop is not None and ctx.loop in layout:
        yield ctx.brk, layout[ctx.loop].loop, True


def skip_path(layout: dict[int, Ctx], guards: set[int], start: Optional[int],
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


def name_of(id_: str, ctx=None) -> gast.Name:
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def assign(target: str, value) -> gast.Assign:
    return gast.Assign(targets=[name_of(target, gast.Store())], value=const(value),
                       type_comment=None)


def _negate(test: gast.expr) -> gast.expr:
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        return test.operand
    return gast.UnaryOp(op=gast.Not(), operand=test)


def condition(em: Emitter, tree: tuple) -> gast.expr:
    kind = tree[0]
    if kind == "leaf":
        return em.condition(tree[1])
    if kind == "not":
        return _negate(condition(em, tree[1]))
    op = gast.And if kind == "and" else gast.Or
    values: list[gast.expr] = []
    for part in tree[1:]:
        sub = condition(em, part)
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


def tidy(stmts: list[gast.stmt], elif_position: bool = False) -> list[gast.stmt]:
    """Step 8 of the module docstring, recursively."""
    out: list[gast.stmt] = []
    for s in stmts:
        if isinstance(s, gast.If):
            out += _tidy_if(s, elif_position and len(stmts) == 1)
            continue
        if isinstance(s, (gast.For, gast.While)):
            s.body = tidy(s.body) or [gast.Pass()]
            s.orelse = tidy(s.orelse)
        elif isinstance(s, gast.Try):
            s.body = tidy(s.body)
            s.orelse = tidy(s.orelse)
            for h in s.handlers:
                h.body = tidy(h.body) or [gast.Pass()]
        out.append(s)
    return out


def _tidy_if(s: gast.If, in_elif: bool) -> list[gast.stmt]:
    s.body = tidy(s.body)
    s.orelse = tidy(s.orelse, elif_position=True)
    if not s.body and s.orelse:
        s.test, s.body, s.orelse = _negate(s.test), tidy(s.orelse), []
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
        return [s] + tidy(rest)
    return [s]
