"""The primal IR made ready for the reverse transform (:class:`Preparation`,
which :class:`~zygote_py.ad.reverse._Reverse` builds on): a working copy,
cells shared with nested functions, generators read as lists, changes in
place versioned, calls with spread arguments, invariants hoisted, loops
over differentiated values read by index, exceptions' edges, captured
values and globals promoted, each checked.

May import: the IR, the front end, the rules, the runtime, the rest of the
compiler below the reverse transform.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

from .. import runtime
from ..errors import UnsupportedSyntax
from ..ir import ops, passes
from ..ir.cfg import natural_loops, predecessors, reverse_postorder
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Starred, Statement, Var
from ..rules import higher_order
from . import analysis, cells, idioms
from .analysis import Facts
from .mutation import fills, loops as mutation_loops, versions as mutation_pass

SEQUENCES = (ops.build_list, ops.build_tuple, list, tuple, sorted)
"""Calls whose values a loop indexes as they are."""


def kept_values(f: IR) -> set[Var]:
    """The values ``f`` keeps beyond the statement that uses them: stored
    into a display, an item, an attribute, a list or dict by its method, a
    cell or a global; returned; passed to a later block (a call's argument
    is not kept: ``map(lambda v: v * k, xs)``)."""
    methods = {st.var for b in f.blocks.values() for st in b.stmts
               if isinstance(st.callee, Const) and st.callee.value is getattr and len(st.args) == 2
               and isinstance(st.args[1], Const) and st.args[1].value in analysis.HOLDING_METHODS}
    holders = (ops.build_list, ops.build_tuple, ops.build_dict, ops.build_set, operator.setitem, setattr,
               ops.store_deref, ops.store_global)
    kept: set[Var] = set()
    for b in f.blocks.values():
        for st in b.stmts:
            if isinstance(st.callee, Const) and st.callee.value in holders or st.callee in methods:
                kept.update(a for a in st.operands() if isinstance(a, Var))
        kept.update(a for a in b.term_operands() + [a for j in b.jumps() for a in j.args] if isinstance(a, Var))
    return kept


_CHANGES_NOTHING = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg,
    operator.pos, operator.abs, operator.mod, operator.lt, operator.le, operator.gt, operator.ge,
    operator.eq, operator.ne, abs, float, pow, ops.load_global, ops.store_global,
}
"""Callees that change no array and rebind no other global (not the
in-place operators: ``x += 1`` changes ``x``)."""


def changes_nothing(st: Statement, fn: Any) -> bool:
    """Whether the statement ``st``, a call of ``fn``, is known to change
    no array and to rebind no global but the one it may store."""
    return st.pure or passes.member(fn, _CHANGES_NOTHING) or analysis.is_math_function(fn)


def over_arrays(f: IR, loop: Block, pre: Block, xs: Var, facts: Facts) -> Optional[tuple[Any, list[Var], list]]:
    """For ``xs`` made by ``zip(a, b...)`` or ``enumerate(a[, start])`` of
    arrays (or of such ``zip`` and ``enumerate``), each read only there,
    which only the ``loop`` entered from ``pre`` iterates and which it does
    not change in place (a loop that does is the mutation pass's, which
    versions them): what :func:`.mutation.loops.index_loop` reads each step, the
    arrays, and the calls making ``xs`` (block, statement). An array keeps
    its length, so reading ``a[k]`` at step ``k`` is what the iterator
    reads; no list of the items is made."""
    defs = {s.var: (b, s) for b in f.blocks.values() for s in b.stmts}
    uses = passes.use_counts(f)
    entered = isinstance(pre.term, Jump) and pre.term.target == loop.id
    entry = {a: p for a, p in zip(pre.term.args, loop.args) if isinstance(a, Var)} if entered else {}
    arrays: list[Var] = []
    made: list[tuple[Block, Statement]] = []

    def tree(v: Operand) -> Any:
        if isinstance(v, Var) and v in facts.arrays:
            if v in entry and mutation_pass.changed_in_place(f, entry[v], v):
                return None
            arrays.append(v)
            return v
        b, s = defs.get(v, (None, None))
        fn = facts.callee(s) if s is not None else None
        if fn not in (zip, enumerate) or s.kwargs or any(isinstance(a, Starred) for a in s.args) or not s.args \
                or fn is enumerate and len(s.args) > 2 or uses.get(v) != 1:
            return None
        made.append((b, s))
        parts = [tree(a) for a in (s.args[:1] if fn is enumerate else s.args)]
        if any(p is None for p in parts):
            return None
        return (enumerate, s.args[1] if len(s.args) > 1 else Const(0), parts[0]) if fn is enumerate \
            else (zip, parts)

    found = tree(xs)
    return None if not isinstance(found, tuple) else (found, arrays, made)


def unpack_displays(f: IR) -> None:
    """``unpack(t, n)`` of a tuple display ``t`` of ``n`` items is ``t``,
    and ``t[j]`` (a constant ``j``) its item ``j``: the item of a loop over
    ``enumerate`` or ``zip`` bound to its targets, with no tuple for the
    gradient to go through (a display no longer read is dropped)."""
    while True:
        defs = {s.var: s for b in f.blocks.values() for s in b.stmts}

        def display(v: Operand) -> Optional[Statement]:
            d = defs.get(v) if isinstance(v, Var) else None
            ok = d is not None and isinstance(d.callee, Const) and d.callee.value is ops.build_tuple \
                and not any(isinstance(a, Starred) for a in d.args)
            return d if ok else None

        env: dict[Var, Operand] = {}
        for s in defs.values():
            fn = s.callee.value if isinstance(s.callee, Const) else None
            d = display(s.args[0]) if s.args and not s.kwargs and len(s.args) == 2 else None
            if d is None or not isinstance(s.args[1], Const) or type(s.args[1].value) is not int:
                continue
            if fn is ops.unpack and s.args[1].value == len(d.args):
                env[s.var] = d.var
            elif fn is operator.getitem and -len(d.args) <= s.args[1].value < len(d.args):
                env[s.var] = d.args[s.args[1].value]
        if not env:
            return
        passes.substitute(f, env)
        for b in f.blocks.values():
            b.stmts = [s for s in b.stmts if s.var not in env]
        used = passes.use_counts(f)
        for b in f.blocks.values():
            b.stmts = [s for s in b.stmts if display(s.var) is None or s.var in used]


def source_versions(f: IR, maker: Statement, pre: Block, loop: Block, defs: dict, callee: Callable,
                     tuples: list[Statement]) -> list[Operand]:
    """The lists and arrays that ``maker`` (a call of ``map``, ``zip``...)
    iterates over, as a ``loop`` that ``pre`` enters sees them each time
    round: the loop's argument for one that it changes in place, a copy
    after the mutation pass (see ``runtime.check_unchanged``), not for one
    it binds another value to; for an iterator made by such a call, its own
    (through ``runtime.source_versions``, whose statements are added to
    ``tuples``). None at all when
    one is spread (``zip(*rows)``): they are checked as they were."""
    if any(isinstance(a, Starred) for a in maker.args):
        return []
    made_by = callee(maker)
    sources = maker.args[1:] if made_by in (map, filter) else maker.args[:1] if made_by in (enumerate, reversed) \
        else maker.args
    entered = isinstance(pre.term, Jump) and pre.term.target == loop.id
    entry = {a: p for a, p in zip(pre.term.args, loop.args) if isinstance(a, Var)} if entered else {}
    versions: list[Operand] = []
    for a in sources:
        if isinstance(a, Var) and a in defs and passes.member(callee(defs[a][1]), higher_order.ITERATORS):
            inner = source_versions(f, defs[a][1], pre, loop, defs, callee, tuples)
            versions.append(f.new_var())
            tuples.append(Statement(versions[-1], Const(runtime.source_versions), inner, [], maker.line))
        else:
            versions.append(entry[a] if a in entry and mutation_pass.changed_in_place(f, entry[a], a) else a)
    return versions


class Preparation:
    """The steps of :class:`~zygote_py.ad.reverse._Reverse` that make the
    primal IR ready for the transform (see the module's docstring); they
    read and set the transform's state (``self.f``, ``self.facts``...)."""

    def _working_copy(self, primal: IR) -> IR:
        """The copy of ``primal`` the transform changes: for ``param_out``,
        each ``return v`` returns ``(v, that parameter)`` (the mutation pass
        then makes it the parameter's last version); a log into a global
        list is a side effect (:func:`.idioms.log_appends`); ``d.setdefault(k,
        []).append(v)`` changes ``d[k]`` (:func:`.idioms.setdefault_items`);
        ``d.update(k=v)`` passes a dict (:func:`.idioms.keyword_updates`);
        ``xs.sort()`` stores ``sorted(xs)`` (:func:`.idioms.sorts_in_place`);
        ``s._replace(k=v)`` is ``ops.replace_fields`` (:func:`.idioms.replaced_fields`)."""
        f = primal.copy()
        idioms.log_appends(f)
        idioms.setdefault_items(f)
        idioms.keyword_updates(f)
        idioms.sorts_in_place(f)
        idioms.replaced_fields(f)
        if self.param_out is not None:
            for b in f.blocks.values():
                if isinstance(b.term, Return):
                    pair = f.new_var()
                    outs = self.param_out if type(self.param_out) is tuple else (self.param_out,)
                    b.stmts.append(Statement(pair, Const(ops.build_tuple),
                                             [b.term.value, *(f.entry.args[p] for p in outs)]))
                    b.term.value = pair
        self.cells_in_hand = set(cells.cells_out(f, self.cells_out).values()) if self.cells_out else set()
        return f

    def _share_cells(self, active: list[bool]) -> set[str]:
        """Cells that are not one value (assigned more than once, or by a
        nested function) and hold differentiated values become SSA values
        here, and calls of the nested functions that share them pass them
        explicitly (see :mod:`.cells`). Returns their names."""
        f = self.f
        unpromoted = set(f.cellvars) - set(self.cell_values)
        stored = {st.args[0].value for b in f.blocks.values() for st in b.stmts
                  if isinstance(st.callee, Const) and st.callee.value is ops.store_deref
                  and any(isinstance(v, Var) and v in self.facts.active for v in st.args[1:])}
        # (a parameter's cell holds the parameter's value before any assignment: def g(): ... a ...; a = a * 3)
        stored |= {n for n, p in zip(f.signature.names(), f.entry.args) if p in self.facts.active}
        shared = unpromoted & (stored | self.rebound_inside)

        def refuse(what: str, line: Optional[int]) -> UnsupportedSyntax:
            return UnsupportedSyntax(f"differentiating through {what} is not supported yet",
                                     function=f.name, filename=f.filename, line=line,
                                     hint="call the nested function where it is defined, or pass the "
                                     "variables to it as arguments and return their new values")

        if shared and cells.share_cells(f, shared, self.facts, refuse):
            self._analyse(active)
        return shared

    def _consume_generators(self) -> Optional[IR]:
        """A differentiated generator expression that a call of
        :data:`analysis.CONSUMERS` reads to its end (``sum(x * k for k in
        r)``, ``math.fsum(...)``) is evaluated as the list comprehension it
        is then equivalent to, whose items the gradient reaches like those
        of any loop: returns the primal lowered again with every such call
        so (see ``consumers`` in :func:`~zygote_py.frontend.lower.lower`),
        or None when there is none. ``self.consumers`` holds those found
        earlier (a generator found active only after the mutation pass: see
        :class:`analysis.MoreConsumers`). The compilation is guarded on the globals
        the callees are read from: rebound, the function is compiled
        again."""
        found = analysis.consumed_generators(self.f, self.facts)
        for callee in found.values():
            self._guard(callee)
        self.consumers |= found.keys()
        if not self.consumers:
            return None
        from .pipeline import primal_ir  # (pipeline builds on this module)

        return primal_ir(self.fn, frozenset(self.consumers))

    def _analyse(self, active: list[bool]) -> None:
        self.facts = Facts()
        fn = self.fn
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        analysis.static_values(self.f, fn.__globals__, cells, self.facts)
        self.facts.indices = self.indices
        self.facts.metadata = analysis.metadata_reads(self.f, self.numeric, self.facts)
        analysis.activity(self.f, active, self.self_active, self.facts, self.cell_values)

    def _version_mutations(self, active: list[bool], numeric: list[int]) -> list[str]:
        """Changes made in place become new values (:mod:`.mutation`), one
        at a time, each seen by the activity analysis before the next.
        Returns the names of the parameters changed."""
        frontend = {a for b in self.f.blocks.values() for a in b.args}
        made: set[Var] = set(self.cells_in_hand)  # (the cells' values a call hands over, and takes back changed)
        passed: set[int] = set()
        changed: set[Var] = set()

        def refuse(message: str, line: Optional[int], hint: str) -> UnsupportedSyntax:
            return UnsupportedSyntax(message, function=self.f.name, filename=self.f.filename, line=line, hint=hint)

        updates = mutation_pass.item_updates(self.f)
        if updates:  # (which of them change parts of arrays or numbers)
            analysis.numeric(self.f, numeric, self.facts)
            mutation_pass.plain_item_updates(updates, self.facts)
        while True:
            analysis.numeric(self.f, numeric, self.facts)
            if mutation_pass.in_place_as_stores(self.f, self.facts):
                self._analyse(active)
                continue
            got = mutation_pass.version_mutation(self.f, self.facts, frontend, made, refuse, passed,
                                            owned=self.param_out is None and not self.cells_out)
            if got is None:
                break
            changed |= got
            self._analyse(active)
        if made:
            mutation_pass.snapshot_reads(self.f, self.facts, self.shared)
            self._analyse(active)
            analysis.numeric(self.f, numeric, self.facts)
            if fills.number_stores(self.f, self.facts):
                self._analyse(active)
        return [self.f.names[p] for p in self.f.entry.args if p in changed]

    def _spread_calls(self) -> bool:
        """``f(a, *xs, k=v, **m)`` with differentiated values among its
        arguments becomes ``call_spread(f, spread_positional(...),
        spread_keywords(...))``: three calls with rules, which send the
        gradients of the call's arguments back to the pieces they came
        from."""
        changed = False
        for b in self.f.blocks.values():
            out = []
            for s in b.stmts:
                spread = [a.value for a in s.args if isinstance(a, Starred)] + [v for k, v in s.kwargs if k is None]
                given = [a.value if isinstance(a, Starred) else a for a in s.args] + [v for _, v in s.kwargs]
                # (a differentiated argument placed after a spread one has a position known only when it runs)
                if not spread or not any(isinstance(v, Var) and v in self.facts.active for v in given):
                    out.append(s)
                    continue
                args, kwargs = self.f.new_var(), self.f.new_var()
                out.append(Statement(args, Const(runtime.spread_positional),
                                     [Const(tuple(isinstance(a, Starred) for a in s.args)),
                                      *(a.value if isinstance(a, Starred) else a for a in s.args)], [], s.line))
                out.append(Statement(kwargs, Const(runtime.spread_keywords),
                                     [Const(tuple(k for k, _ in s.kwargs)), *(v for _, v in s.kwargs)], [], s.line))
                out.append(Statement(s.var, Const(runtime.call_spread), [s.callee, args, kwargs], [], s.line))
                changed = True
            b.stmts = out
        return changed

    def _hoist_invariants(self) -> None:
        """Loop-invariant arithmetic on numbers (``dt * drag``) and reads of
        globals the compilation assumes to hold numbers or arrays
        (``GRAVITY``) move to the loop's preheader: computed once, and kept
        once for the pullback instead of recorded on a stack each iteration.
        Only what cannot raise or change anything moves (``+ - *`` and
        negation of real numbers), so a loop that runs zero times loses
        nothing."""
        f = self.f
        home = {v: bid for bid, b in f.blocks.items() for v in b.args + [s.var for s in b.stmts]}
        preds = predecessors(f)
        moved = True
        while moved:
            moved = False
            for h, body in self.loops.items():
                outside = [p for p in preds[h] if p not in body]
                if len(outside) != 1 or any(f.blocks[b].handler is not None for b in body | {outside[0]}):
                    continue
                pre = f.blocks[outside[0]]
                at = self._before_iterator(pre, f.blocks[h])
                for bid in sorted(body):
                    kept = []
                    for st in f.blocks[bid].stmts:
                        if self._invariant(st) and all(home.get(v) not in body for v in st.operands()
                                                       if isinstance(v, Var)):
                            made = {x.var for x in pre.stmts[at:]}
                            if any(v in made for v in st.operands()):
                                at = len(pre.stmts)
                            pre.stmts.insert(at, st)
                            at += 1
                            home[st.var] = pre.id
                            moved = True
                        else:
                            kept.append(st)
                    f.blocks[bid].stmts = kept

    def _before_iterator(self, pre: Block, header: Block) -> int:
        """Where in the preheader ``pre`` hoisted statements go: before the
        ``iter(range(n))`` of a for loop, which the emitter writes as the
        loop's own header, else at its end."""
        first = header.stmts[0] if header.stmts else None
        if first is None or self.facts.callee(first) is not ops.iternext:
            return len(pre.stmts)
        chain = {first.args[0]}
        for x in reversed(pre.stmts):
            if x.var in chain:
                chain |= {v for v in x.operands() if isinstance(v, Var)}
        return next((i for i, x in enumerate(pre.stmts) if x.var in chain), len(pre.stmts))

    def _invariant(self, st: Statement) -> bool:
        """Whether ``st`` may be computed before its loop: see
        :meth:`_hoist_invariants`. (Also a slice, and a tuple of slices and
        numbers, the key of ``z[:, :n]``: they cannot raise.)"""
        fn = self.facts.callee(st)
        if fn in (ops.load_global, getattr) and st.var in self.facts.static and not st.kwargs:
            return analysis.kind(self.facts.static[st.var]) != 0  # (a number or an array: not a callee, `range`)
        if fn in (slice, ops.build_tuple) and not st.kwargs and len(st.args) <= (3 if fn is slice else 8):
            made = {s.var for b in self.f.blocks.values() for s in b.stmts if self.facts.callee(s) is slice}
            return all(isinstance(a, Const) and (a.value is None or type(a.value) in (int, float, slice))
                       or isinstance(a, Var) and (a in made and fn is ops.build_tuple or a in self.facts.scalars)
                       for a in st.args)
        return (
            fn in (operator.add, operator.sub, operator.mul, operator.neg, operator.pos) and not st.kwargs
            and all(isinstance(a, Const) and type(a.value) in (int, float)
                    or a in self.facts.scalars and a in self.facts.real for a in st.args)
        )

    def _index_active_loops(self, numeric: list[int]) -> bool:
        """``for c in xs`` over a differentiated ``xs`` becomes
        ``for k in range(len(xs)): c = xs[k]``, so that each item's gradient
        goes back to its position through the rule of indexing. An ``xs``
        made by ``map``, ``zip``... is an iterator, which has neither: the
        loop is over ``list(xs)``; one of a kind not known here, over
        ``runtime.indexable(xs)`` (``xs`` itself if it is a sequence)."""
        f = self.f
        defs = {s.var: (b, s) for b in f.blocks.values() for s in b.stmts}
        known = False
        changed = False
        for h in list(f.blocks.values()):
            if len(h.stmts) != 2 or not isinstance(h.term, Branch):
                continue
            nxt, done = h.stmts
            if not (isinstance(nxt.callee, Const) and nxt.callee.value is ops.iternext):
                continue
            it = nxt.args[0]
            if it not in self.facts.active or it not in defs:
                continue
            pre, maker = defs[it]
            if not (isinstance(maker.callee, Const) and maker.callee.value is iter and len(maker.args) == 1):
                continue
            xs = maker.args[0]
            made_by = self.facts.callee(defs[xs][1]) if isinstance(xs, Var) and xs in defs else None
            if made_by in (zip, enumerate) and not known:
                analysis.numeric(f, numeric, self.facts)
                known = True
            tree = over_arrays(f, h, pre, xs, self.facts) if made_by in (zip, enumerate) else None
            if tree is not None:  # (each array read at the step's index, as zip's and enumerate's iterators do)
                for made_in, made in tree[2]:
                    made_in.stmts.remove(made)
                self.indices.add(mutation_loops.index_loop(f, h, pre, maker, tree[1], tree[0]))
                unpack_displays(f)
                changed = True
                continue
            iterator = xs if passes.member(made_by, higher_order.ITERATORS) else None
            read = list if iterator is not None else None
            if read is None and not passes.member(made_by, SEQUENCES):
                if not known:  # (which values are known to be arrays or sequences)
                    analysis.numeric(f, numeric, self.facts)
                    known = True
                if xs not in self.facts.arrays and xs not in self.facts.sequences:
                    read = runtime.indexable  # (of a kind not known here: an iterator, an object with __iter__)
            if read is not None:  # (read once, before the loop)
                items = f.new_var()
                pre.stmts.insert(pre.stmts.index(maker), Statement(items, Const(read), [xs], [], maker.line))
                xs = items
            k = mutation_loops.index_loop(f, h, pre, maker, [xs], xs)
            self.indices.add(k)
            if iterator is not None:  # Python's iterator reads the item now, the list was read before the loop
                tuples: list[Statement] = []
                versions = source_versions(f, defs[iterator][1], pre, h, defs, self.facts.callee, tuples)
                check = Statement(f.new_var(), Const(runtime.check_unchanged), [iterator, k, *versions], [],
                                  nxt.line)
                f.blocks[h.term.orelse.target].stmts[0:0] = [*tuples, check]
            changed = True
        return changed

    # -- canonical form of the primal's control flow -------------------------

    def _canonicalise(self) -> None:
        f = self.f
        self.quiet: set[int] = set()  # blocks made here, which cannot raise
        returns = [b for b in f.blocks.values() if isinstance(b.term, Return)]
        if len(returns) > 1 or returns[0].handler is not None:  # no handler may catch the pullback's errors
            ret = f.new_block()
            v = f.new_var()
            ret.args = [v]
            ret.term = Return(v, returns[0].term.line)
            for b in returns:
                b.term = Jump(ret.id, [b.term.value])
        self.ret = next(b for b in f.blocks.values() if isinstance(b.term, Return))
        for b in list(f.blocks.values()):
            t = b.term
            if isinstance(t, Branch) and t.then.target == t.orelse.target:
                t.orelse = self._split(t.orelse)
        if f.entry.id in natural_loops(f):
            old = f.entry
            new = Block(max(f.blocks) + 1)
            new.args = [f.new_var(f.names.get(a)) for a in old.args]
            new.term = Jump(old.id, list(new.args))
            f.blocks = {new.id: new, **f.blocks}
        changed = True
        while changed:
            changed = False
            preds = predecessors(f)
            for h, body in natural_loops(f).items():
                outside = [p for p in preds[h] if p not in body]
                inside = [p for p in preds[h] if p in body]
                for group in (outside, inside):
                    if len(group) > 1:
                        self._funnel(h, group)
                        changed = True
                        break
                if changed:
                    break
        self.loops = natural_loops(f)
        self.exits: dict[int, list[int]] = {}
        for b in list(f.blocks.values()):
            inner = [h for h, body in self.loops.items() if b.id in body]
            for j in b.jumps() if inner else ():
                left = [h for h in inner if j.target not in self.loops[h]]
                if left:
                    s = self._split(j)
                    j.target, j.args = s.target, s.args
                    self.exits[s.target] = left
        # Every edge into a header or a merge block is the unconditional
        # jump of a block of its own: the latch counts iterations, a merge
        # block's predecessors record themselves, on that edge only.
        for bid, ps in predecessors(f).items():
            if len(ps) > 1:
                for p in ps:
                    for j in f.blocks[p].jumps() if not isinstance(f.blocks[p].term, Jump) else ():
                        if j.target == bid:
                            s = self._split(j)
                            j.target, j.args = s.target, s.args
        self.loops = natural_loops(f)
        preds = predecessors(f)
        self.preheader = {h: next(p for p in preds[h] if p not in body) for h, body in self.loops.items()}
        self.latch = {h: next(p for p in preds[h] if p in body) for h, body in self.loops.items()}
        self.nest = {
            bid: sorted((h for h, body in self.loops.items() if bid in body), key=lambda h: -len(self.loops[h]))
            for bid in f.blocks
        }
        self.order = reverse_postorder(f)
        self.preds = preds
        self.params = {bid: list(b.args) for bid, b in f.blocks.items()}
        self._exception_edges()

    def _exception_edges(self) -> None:
        """Which protected blocks may raise into each handler, and which
        blocks have no adjoint statements.

        A protected block that raises is, to the gradient, a block that did
        not run (as in the IR: no value it made reaches its handler): its
        records are made at its end, after every statement that may raise,
        and a handler's adjoint goes back to the adjoint of the raising
        block's *entry*, skipping its statements. A handler with several
        such predecessors is a merge block like any other, except that its
        predecessors cannot record themselves on an edge that has no code:
        each passes its number as an extra handler argument, which the
        handler records. The blocks made here on edges (``quiet``) cannot
        raise and are left out. A block that ends in ``raise``, or from
        which no ``return`` can be reached, is left as it is: none of its
        statements' values reaches the output."""
        f = self.f
        self.handlers = {b.handler.target for b in f.blocks.values() if b.handler is not None}
        raisers: dict[int, list[int]] = {h: [] for h in self.handlers}
        for bid in self.order:
            h = f.blocks[bid].handler
            if h is not None and bid not in self.quiet:
                raisers[h.target].append(bid)
        self.sources = {bid: raisers.get(bid) or self.preds[bid] for bid in self.order}
        returning = {self.ret.id}
        work = [self.ret.id]
        while work:
            for p in self.preds[work.pop()]:
                if p not in returning:
                    returning.add(p)
                    work.append(p)
        self.inert = {bid for bid in self.order if bid not in returning or isinstance(f.blocks[bid].term, Raise)}
        self.raising = {p for h in self.handlers for p in self.sources[h]}

    def _check_exceptions(self) -> None:
        """What the gradient cannot follow from a raising block to its
        handler: the exception carrying a differentiated value, or leaving
        a loop that runs inside another loop (whose trip count the exit
        would have to push)."""
        f = self.f
        self._check_caught()
        self.raises_out = any(
            isinstance(b.term, Raise) and (b.handler is None or b.handler.target in self.inert)
            and any(isinstance(v, Var) and v in self.facts.active for v in b.term_operands())
            for b in f.blocks.values())
        for bid in sorted(self.raising):
            b = f.blocks[bid]
            if b.handler.target in self.inert:
                continue  # the exception ends the call
            line = next((s.line for s in b.stmts if s.line), getattr(b.term, "line", None))
            if isinstance(b.term, Raise) and any(isinstance(v, Var) and v in self.facts.active for v in b.term_operands()):
                self._unsupported("catching an exception that carries a differentiated value", line)
            h = b.handler.target
            left = [lp for lp in self.nest[bid] if lp not in self.nest[h]]
            if any(len(self.nest[lp]) > 1 for lp in left):
                self._unsupported("an exception caught outside a loop that runs inside another loop", line)

    def _check_caught(self) -> None:
        """Before a handler reads its exception (``e.args``, not ``isinstance``
        or ``raise``): ``runtime.caught(e)``, which refuses one that a
        called function raised carrying a differentiated value."""
        f = self.f
        excs = {f.blocks[h].args[0] for h in {b.handler.target for b in f.blocks.values() if b.handler is not None}}
        found = True
        while found:  # (and the block arguments it is passed to)
            more = {p for b in f.blocks.values() for j in b.jumps()
                    for p, v in zip(f.blocks[j.target].args, j.args) if v in excs} - excs
            excs |= more
            found = bool(more)
        for b in f.blocks.values():
            at = next((i for i, st in enumerate(b.stmts) if self.facts.callee(st) is not isinstance
                       and any(x in excs for x in st.operands())), None)
            if at is not None:
                st = b.stmts[at]
                read = next(x for x in st.operands() if x in excs)
                b.stmts.insert(at, Statement(f.new_var(), Const(runtime.caught), [read], [], st.line))

    def _mark_captured_values(self) -> None:
        """After each nested function made, an ``ops.captured_value`` statement
        for each promoted cell it captures: the mutation pass gives it the
        version of the value that reaches that point (``u[0] = x`` before
        ``g = lambda: u``: the changed ``u``), which is where the closure's
        gradient for the variable goes (see :meth:`_captured_values`)."""
        for b in self.f.blocks.values():
            out = []
            for s in b.stmts:
                out.append(s)
                if isinstance(s.callee, Const) and s.callee.value is ops.make_function:
                    free = analysis.free_names(s.args[0].value)
                    out += [Statement(self.f.new_var(), Const(ops.captured_value), [s.var, Const(c), v], [], s.line)
                            for c, v in sorted(self.cell_values.items()) if c in free and isinstance(v, Var)]
            b.stmts = out

    def _captured_values(self) -> dict[Var, dict[str, Operand]]:
        """The ``ops.captured_value`` statements, taken out of the code: for each
        nested function, the values of its promoted cells where it is made."""
        found: dict[Var, dict[str, Operand]] = {}
        for b in self.f.blocks.values():
            code = []
            for s in b.stmts:
                if isinstance(s.callee, Const) and s.callee.value is ops.captured_value:
                    found.setdefault(s.args[0], {})[s.args[1].value] = s.args[2]
                else:
                    code.append(s)
            b.stmts = code
        return found

    def _promote_cells(self) -> dict[str, Operand]:
        """A cell variable (a local a nested function captures) defined once
        — a parameter never reassigned, or a single store that comes before
        every read and every nested function that reads it — is that value: its reads become the value itself, so
        gradients flow through them as through any SSA value. The store
        stays, for the nested function. Not a store in a loop that a nested
        function made in the loop and kept (stored, returned: ``fs.append(
        lambda: v)``) outlives: that function reads the cell when called,
        when a later pass of the loop may have stored another value."""
        f = self.f
        from ..ir.cfg import dominates, dominators, successors

        idom = dominators(f)
        after = successors(f)

        def runs_again(sb: int, si: int, lb: int, li: int) -> bool:
            """Whether the store at ``(sb, si)`` may run after ``(lb, li)``."""
            if sb == lb and si > li:
                return True
            seen, work = set(), list(after[lb])
            while work:
                bid = work.pop()
                if bid == sb:
                    return True
                if bid not in seen:
                    seen.add(bid)
                    work += after[bid]
            return False
        params = dict(zip(f.signature.names(), f.entry.args))
        stores: dict[str, list[tuple[int, int, Statement]]] = {}
        loads: dict[str, list[tuple[int, int, Statement]]] = {}
        for bid, b in f.blocks.items():
            for i, st in enumerate(b.stmts):
                fn = st.callee.value if isinstance(st.callee, Const) else None
                if fn in (ops.store_deref, ops.delete_deref):
                    stores.setdefault(st.args[0].value, []).append((bid, i, st))
                elif fn is ops.load_deref:
                    loads.setdefault(st.args[0].value, []).append((bid, i, st))
                elif fn is ops.make_function:  # the nested function reads the cell: as a load, where it is made
                    for c in analysis.free_names(st.args[0].value) & set(f.cellvars):
                        loads.setdefault(c, []).append((bid, i, st))
        kept = kept_values(f)
        values: dict[str, Operand] = {}
        self.rebound_inside = cells.rebound_names(f)
        for c in f.cellvars:
            if c in self.rebound_inside:
                continue  # a nested function assigns it (nonlocal): not one value
            defs = stores.get(c, [])
            if not defs and c in params:
                values[c] = params[c]
            elif len(defs) == 1 and c not in params and defs[0][2].callee.value is ops.store_deref:
                sb, si, st = defs[0]
                if all(
                    (lb == sb and li > si) or (lb != sb and lb in idom and sb in idom and dominates(idom, sb, lb))
                    for lb, li, _ in loads.get(c, [])
                ) and not any(ld.callee.value is ops.make_function and ld.var in kept and runs_again(sb, si, lb, li)
                              for lb, li, ld in loads.get(c, [])):
                    values[c] = st.args[1]
        env = {}
        for c, v in values.items():
            for bid, i, st in loads.get(c, []):
                if st.callee.value is ops.load_deref:
                    env[st.var] = v
        for b in f.blocks.values():
            b.stmts = [st for st in b.stmts if st.var not in env]
        passes.substitute(f, env)
        return values

    def _check_cells(self) -> None:
        """Differentiated values in cells we could not promote would lose
        their gradient: say so instead."""
        params = dict(zip(self.f.signature.names(), self.f.entry.args))
        for c in sorted(self.rebound_inside - self.shared):
            if c in params and params[c] in self.facts.active:
                self._unsupported(f"a differentiated argument that a nested function assigns ({c!r}, nonlocal)",
                                  self.f.firstline)
        for b in self.f.blocks.values():
            for st in b.stmts:
                fn = st.callee.value if isinstance(st.callee, Const) else None
                if fn is ops.store_deref and st.args[0].value not in self.cell_values and (
                    st.args[0].value not in self.shared and st.args[0].value not in self.cells_out
                ) and any(
                    isinstance(v, Var) and v in self.facts.active for v in st.args[1:]
                ):
                    self._unsupported(
                        f"a variable captured by a nested function and assigned more than once "
                        f"({st.args[0].value!r})", st.line)

    def _promote_globals(self) -> bool:
        """``global g; g = v`` followed in the same block by reads of ``g``
        with nothing between that could rebind it: those reads are ``v``,
        so that gradients flow through them (the store stays). Whether
        any read changed."""
        env: dict[Var, Operand] = {}
        for b in self.f.blocks.values():
            stored: dict[str, Operand] = {}
            for st in b.stmts:
                fn = self.facts.callee(st)
                if fn is ops.store_global:
                    v = st.args[1]
                    stored[st.args[0].value] = env.get(v, v) if isinstance(v, Var) else v
                elif fn is ops.load_global and st.args[0].value in stored:
                    env[st.var] = stored[st.args[0].value]
                elif not changes_nothing(st, fn):
                    stored.clear()
        for b in self.f.blocks.values():
            b.stmts = [st for st in b.stmts if st.var not in env]
        passes.substitute(self.f, env)
        return bool(env)

    def _check_globals(self) -> None:
        """A read of a global holding a differentiated value that could not
        be promoted would lose its gradient: say so instead."""
        calls = [(st, self.facts.callee(st)) for b in self.f.blocks.values() for st in b.stmts]
        held = {st.args[0].value for st, fn in calls if fn is ops.store_global and st.args[1] in self.facts.active}
        self.stored_globals = sorted(held)
        for st, fn in calls:
            if fn is ops.load_global and st.args[0].value in held:
                self._unsupported(
                    f"a read of the global {st.args[0].value!r}, assigned a differentiated value, that is not "
                    "in the same block as the assignment (a loop, a branch or a call may come between)", st.line)

    def _split(self, j: Jump) -> Jump:
        """A new block on the edge ``j``; returns the edge into it."""
        s = self.f.new_block()
        s.term = Jump(j.target, list(j.args))
        self._protect_like_target(s)
        return Jump(s.id, [])

    def _protect_like_target(self, b: Block) -> None:
        """A block made on edges into ``t`` is the start of ``t``'s code:
        protected by the same handler (its arguments read at ``t``'s
        entry), so that every ``try`` region keeps one entry. It cannot
        raise."""
        t = self.f.blocks[b.term.target]
        if t.handler is not None:
            env = dict(zip(t.args, b.term.args))
            b.handler = Jump(t.handler.target, [env.get(v, v) for v in t.handler.args])
        self.quiet.add(b.id)

    def _funnel(self, target: int, sources: list[int]) -> None:
        """Route the edges from ``sources`` to ``target`` through one new
        block."""
        f = self.f
        t = f.blocks[target]
        m = f.new_block()
        m.args = [f.new_var(f.names.get(a)) for a in t.args]
        m.term = Jump(target, list(m.args))
        self._protect_like_target(m)
        for p in sources:
            for j in f.blocks[p].jumps():
                if j.target == target:
                    j.target = m.id

    def _unsupported(self, what: str, line: Optional[int]) -> None:
        raise UnsupportedSyntax(
            f"differentiating through {what} is not supported yet",
            function=self.f.name, filename=self.f.filename, line=line,
            hint="move that code into a function with a custom rule (@zpy.adjoint), or out of the differentiated path",
        )
