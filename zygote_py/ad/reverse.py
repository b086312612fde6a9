"""The reverse-mode transform: primal IR → forward IR + pullback IR.

After Innes, "Don't Unroll Adjoint" (2018) §3 and "Sense & Sensitivities"
(2019) §2–3. The forward IR is the primal with every active call replaced
by its rule's forward part (inlined) or by a run-time ``J`` that returns the
value and a pullback; it records what the pullback needs and returns
``(y, pullback)``. The pullback IR runs on the transposed control-flow
graph, each block's statements reversed:

- **Records.** A value the adjoint of block ``U`` needs is kept in a closure
  cell when ``U`` runs at most once per loop iteration of the value's own
  definition (in particular outside loops), else pushed on a per-variable
  stack just before its use and popped at the start of ``U``'s adjoint.
- **Control flow.** Loops are first put in a canonical form (one preheader,
  one latch, a block on every exit edge). A loop header records its *trip
  count* (a counter in a cell, pushed on exit when the loop is itself inside
  a loop), and its adjoint is ``for _ in range(trip)``. Any other block with
  several predecessors records which one branched to it (a cell, or a
  stack inside loops); its adjoint branches back on that record. An
  exception handler is such a merge block, whose protected predecessors
  pass their numbers on the exception edge; a block that raised is undone
  from its entry, as if it had not run (:meth:`_Reverse._exception_edges`).
- **Gradients.** The gradients of the active values live across a block
  travel as the adjoint block's arguments; a value used several times sums
  its contributions; ``None`` is the gradient that never arrived. Values
  known to be numbers (see :mod:`.analysis`) have gradients that are either
  statically ``None`` or numbers: they are added with ``+`` and start from
  ``0`` where some paths bring a gradient and others do not.
"""
from __future__ import annotations

import builtins
import inspect
import itertools
import operator
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np


from .. import runtime
from ..backend.naming import clean, live_sets
from ..errors import NoDerivativeRule, UnsupportedSyntax
from ..ir import ops
from ..ir import passes
from ..ir.cfg import natural_loops, predecessors, reverse_postorder
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Signature, Starred, Statement, Var
from .. import registry
from ..rules import higher_order
from . import analysis, callees, cells, idioms, mutation
from .mutation import loops as mutation_loops, versions as mutation_pass
from .analysis import Facts
from .nones import propagate_none
from .inline import Inliner, RuleIR, bind_arguments, rule_ir

NONE = Const(None)

def _none(op: Operand) -> bool:
    return isinstance(op, Const) and op.value is None


@dataclass
class Transformed:
    forward: IR
    pullback: IR
    guards: list[tuple] = field(default_factory=list)
    changed_params: list[str] = field(default_factory=list)
    """Differentiated parameters the function changes in place."""
    stored_globals: list[str] = field(default_factory=list)
    """Globals the function assigns differentiated values."""
    raises_out: bool = False
    """Whether the function may raise, to its caller, an exception carrying a
    differentiated value."""
    float_output: bool = False
    """Whether the value returned is always a Python float (whose seed is
    1.0, no run-time check needed)."""
    sum_output: bool = False
    """Whether the value returned is a sum or mean of an array known real
    (whose seed is 1.0 too: see :func:`analysis.is_real_sum`)."""
    real_arrays: frozenset = frozenset()
    """The forward's values known to be arrays of real numbers."""
    float_args: frozenset = frozenset()
    """The parameters that are Python floats where the code was compiled."""


def transform(
    primal: IR, fn: Any, active: list[bool], numeric: list[bool], self_active: bool = False,
    param_out: Optional[int] = None, cells_out: tuple = (),
) -> Transformed:
    """Differentiate ``primal`` (the IR of ``fn``) with respect to the
    parameters flagged in ``active``. ``param_out``: differentiate it as if
    each ``return v`` returned ``(v, the parameter param_out)`` (``(v,
    *those parameters)`` for a tuple of positions), which the
    function changes in place (for its caller, which goes on with the
    changed object: an ``__init__`` filling in ``self``, a function changing
    its argument). ``cells_out``: as if each
    ``return v`` returned ``v`` and the values of these cells, which ``fn``
    assigns (``nonlocal``) for its caller (see :mod:`.cells`)."""
    if not any(isinstance(b.term, Return) for b in primal.blocks.values()):
        return _never_returns(primal, fn, self_active)
    try:
        return _Reverse(primal, fn, active, numeric, self_active, param_out, cells_out).run()
    except analysis.MoreConsumers as more:
        return _Reverse(primal, fn, active, numeric, self_active, param_out, cells_out, more.consumers).run()


def _never_returns(primal: IR, fn: Any, self_active: bool) -> Transformed:
    """A function with no ``return`` only ever raises: its forward calls it
    as it is, so that what it raises leaves ``gradient`` unchanged; its
    pullback (never called) gives no gradients."""
    sig = primal.signature
    f = IR(f"{primal.name}_forward", primal.filename, primal.firstline, sig)
    entry = f.new_block()
    entry.args = [f.new_var(n) for n in sig.names()]
    params = dict(zip(sig.names(), entry.args))
    args: list = [params[n] for n in sig.posonly + sig.args]
    args += [Starred(params[sig.vararg])] if sig.vararg else []
    kwargs = [(n, params[n]) for n in sig.kwonly] + ([(None, params[sig.kwarg])] if sig.kwarg else [])
    y = f.new_var("y")
    entry.stmts.append(Statement(y, Const(fn), args, kwargs, primal.firstline))
    entry.term = Return(y, primal.firstline)
    a = IR(f"{primal.name}_pullback", primal.filename, primal.firstline, Signature(args=["dy"]))
    back = a.new_block()
    back.args = [a.new_var("dy")]
    back.term = Return(_call(a, back, ops.build_tuple, *[NONE] * (len(entry.args) + self_active)))
    return Transformed(f, a)


def _call(ir: IR, block: Block, callee: Any, *args, name: Optional[str] = None, pure: bool = False,
          line: Optional[int] = None) -> Var:
    v = ir.new_var(name)
    block.stmts.append(Statement(v, Const(callee), list(args), [], line, pure))
    return v


_SEQUENCES = (ops.build_list, ops.build_tuple, list, tuple, sorted)
"""Calls whose values a loop indexes as they are."""


class _Reverse:
    def __init__(self, primal: IR, fn: Any, active: list[bool], numeric: list[bool], self_active: bool,
                 param_out: Optional[int], cells_out: tuple = (), consumers: frozenset = frozenset()):
        self.fn = fn
        self.consumers = set(consumers)
        self.numeric = numeric
        self.param_out = param_out
        self.cells_out = cells_out
        self.f = self._working_copy(primal)
        self.self_active = self_active
        self.guards: dict[Any, tuple] = {}
        # the zero a gradient starts from: 0.0 when every differentiated
        # argument is a float (so gradients stay floats), else the exact 0
        floats = [k == analysis.FLOAT for k, on in zip(numeric, active) if on and k]
        self.zero = Const(0.0 if floats and all(floats) else 0)
        self.indices: set[Var] = set()
        self.cell_values = self._promote_cells()
        self._analyse(active)
        eager = self._consume_generators()
        if eager is not None:
            primal = eager
            self.f = self._working_copy(primal)
            self.cell_values = self._promote_cells()
            self._analyse(active)
        for g in callees.inline_calls(self.f, fn):
            self.guards[(g[0], g[1] if g[0] == "global" else id(g[1]))] = g
            self._analyse(active)
        self.shared = self._share_cells(active)
        self._mark_captured_values()
        self.changed_params = self._version_mutations(active, numeric)
        if self._spread_calls():
            self._analyse(active)
        if self._index_active_loops(numeric) | self._promote_globals():
            self._analyse(active)
        self._canonicalise()
        self._analyse(active)
        self._check_cells()
        self._check_globals()
        self._check_exceptions()
        analysis.numeric(self.f, numeric, self.facts)
        while _call_array_methods(self.f, self.facts) | idioms.index_unpacked_vectors(self.f, self.facts):
            # (x.sum(0).mean(): one link at a time)
            self._analyse(active)
            analysis.numeric(self.f, numeric, self.facts)
        _share_array_reads(self.f, self.facts)
        self._hoist_invariants()
        self.shift_free = idioms.shift_free(self.f, self.facts)
        floats = self.float_args = frozenset(a for a, k in zip(self.f.entry.args, numeric) if k == analysis.FLOAT)
        self.float_output = param_out is None and not cells_out and analysis.is_float(
            self.f, self.ret.term.value, floats, self.facts)
        self.sum_output = param_out is None and not cells_out and analysis.is_real_sum(
            self.f, self.ret.term.value, self.facts)
        for v in self.facts.constants:  # the code is specialised on their kinds
            self._guard(v)
        for b in self.f.blocks.values():  # and on its callees: one without a gradient makes its call inactive
            for s in b.stmts:
                self._guard(s.callee)
        if self.self_active:  # (where a module, built-in function or class the closure holds is taken to be inactive)
            for v, value in self.facts.static.items():
                if isinstance(value, analysis.HELD_WITHOUT_GRADIENT) and self.facts.origin.get(v, ("",))[0] == "cell":
                    self._guard(v)
        rv = self.ret.term.value
        seed = "d" + clean(self.f.names.get(rv), "y") if isinstance(rv, Var) and rv in self.f.names else "dy"
        taken = set(primal.names.values()) | set(primal.signature.names()) | set(primal.freevars)
        if seed == "dy" and "y" in taken or seed in taken:  # (the pullback must not hide a forward name)
            names = itertools.chain(("dout", "dout_"), (f"dout_{k}" for k in itertools.count(2)))
            seed = next(n for n in names if n not in taken)
        self.a = IR(f"{primal.name}_pullback", primal.filename, primal.firstline, Signature(args=[seed]))
        self.cell_names: set[str] = set(primal.signature.names())
        self.cell_names |= {s.args[0].value for b in primal.blocks.values() for s in b.stmts
                            if isinstance(s.callee, Const) and s.callee.value in (ops.load_global, ops.store_global)}
        self.cell_names |= set(primal.cellvars) | set(primal.freevars)
        self.forward_cells: list[str] = []

    def _working_copy(self, primal: IR) -> IR:
        """The copy of ``primal`` the transform changes: for ``param_out``,
        each ``return v`` returns ``(v, that parameter)`` (the mutation pass
        then makes it the parameter's last version)."""
        f = primal.copy()
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
            tree = _over_arrays(f, h, pre, xs, self.facts) if made_by in (zip, enumerate) else None
            if tree is not None:  # (each array read at the step's index, as zip's and enumerate's iterators do)
                for made_in, made in tree[2]:
                    made_in.stmts.remove(made)
                self.indices.add(mutation_loops.index_loop(f, h, pre, maker, tree[1], tree[0]))
                _unpack_displays(f)
                changed = True
                continue
            iterator = xs if passes.member(made_by, higher_order.ITERATORS) else None
            read = list if iterator is not None else None
            if read is None and not passes.member(made_by, _SEQUENCES):
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
                versions = _source_versions(f, defs[iterator][1], pre, h, defs, self.facts.callee, tuples)
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
        kept = _kept_values(f)
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
                elif not _changes_nothing(st, fn):
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

    # -- forward -------------------------------------------------------------------

    def run(self) -> Transformed:
        self.adj: dict[Var, tuple] = {}
        self.needs: dict[int, list[Var]] = {bid: [] for bid in self.f.blocks}
        self.captured_values = self._captured_values()
        for bid in self.order:
            self._forward_block(self.f.blocks[bid])
        self._liveness()
        self._record_alphas()
        self._record_control()
        self._adjoint()
        self._drop_unread_stacks()
        idioms.as_methods(self.f, self.facts.arrays, self.facts.callee)
        self.f.cellvars = sorted(set(self.f.cellvars) | set(self.forward_cells))
        self.a.freevars = sorted(self.forward_cells_used)
        return Transformed(self.f, self.a, list(self.guards.values()), self.changed_params, self.stored_globals,
                           self.raises_out, self.float_output, self.sum_output,
                           frozenset(self.facts.arrays & self.facts.real), self.float_args)

    def _forward_block(self, b: Block) -> None:
        if b.id in self.inert:
            return
        out: list[Statement] = []
        for s in b.stmts:
            if self._is_module_read(s):
                s.pure = True  # guarded: the compiled code assumes this value
            if s.var not in self.facts.active:
                out.append(s)
                continue
            fn = self.facts.callee(s)
            if fn is ops.make_scope and analysis.read_without_gradient(self.f, s.var, self.facts):  # any(...)
                out.append(s)
                continue
            if fn is ops.make_scope or fn is map:  # one that _consume_generators could not make a list
                found = analysis.consumed_generators(self.f, self.facts)
                if not found.keys() <= self.consumers:  # (active only once the mutation pass ran)
                    raise analysis.MoreConsumers(frozenset(self.consumers | found.keys()))
            if fn is ops.make_scope:
                raise UnsupportedSyntax(
                    "differentiating through a generator expression is not supported yet: its items are "
                    "computed where it is consumed, out of the gradient's reach",
                    function=self.f.name, filename=self.f.filename, line=s.line,
                    hint="pass it straight to sum(), min(), max(), sorted(), list(), tuple(), set() or dict(), "
                         "or build a list with [... for ...] instead",
                )
            if fn is not analysis._MISSING:
                self._guard(s.callee)
                if fn is ops.load_deref:
                    self.adj[s.var] = ("self", s.args[0].value)
                    out.append(s)
                    continue
                if fn in (ops.store_deref, ops.store_global):  # the gradient flows through the promoted reads
                    out.append(s)
                    continue
                if s.var in self.facts.fields:  # obj.name of a known field: its gradient is obj's, that field's
                    self.adj[s.var] = ("field", s.args[0], s.args[1].value)
                    self.f.names.setdefault(s.var, s.args[1].value)  # (w = p.w, not t = p.w)
                    self.needs[b.id].append(s.args[0])
                    out.append(s)
                    continue
                if fn is ops.make_function:
                    free = analysis.free_names(s.args[0].value)
                    captured = {c: v for c, v in {**self.captured_values.get(s.var, {}),
                                                  **cells.default_values(s)}.items()
                                if isinstance(v, Var) and v in self.facts.active}
                    # the cells it shares with this function's own closure: their gradients are this one's
                    shared = sorted(free & set(self.f.freevars)) if self.self_active else []
                    self.adj[s.var] = ("closure", captured, shared)
                    out.append(s)
                    continue
            rule = self._rule(s, fn)
            r = rule_ir(rule, fn) if rule is not None else None
            bound = bind_arguments(r, s) if r is not None and s.var in self.facts.numeric else None
            if bound is not None:
                inl = Inliner(self.f, s.line)
                _, captured = inl.forward(r, bound, s, out)
                self.adj[s.var] = ("inline", r, captured, bound)
                self.needs[b.id] += [captured[n] for n in r.captured if isinstance(captured[n], Var)]
                continue
            self._check_callable(s, fn)
            if s.kwargs and isinstance(fn, types.FunctionType):
                s = _keywords_by_position(s, fn)
            pair = self.f.new_var()
            out.append(Statement(pair, Const(runtime.J), [s.callee, *s.args], list(s.kwargs), s.line))
            t = self.f.new_var()
            back = self.f.new_var(clean(self.f.names.get(s.var), "y") + "_back")
            out.append(Statement(t, Const(ops.unpack), [pair, Const(2)], [], s.line))
            out.append(Statement(s.var, Const(operator.getitem), [t, Const(0)], [], s.line))
            out.append(Statement(back, Const(operator.getitem), [t, Const(1)], [], s.line))
            self.adj[s.var] = ("call", back, s)
            self.needs[b.id].append(back)
        b.stmts = out

    def _rule(self, s: Statement, fn: Any) -> Any:
        """The rule for the call ``s`` of ``fn``: the one for numbers when
        every operand is known to be a real number, not an array."""
        if fn is analysis._MISSING:
            return None
        if s.args and s.args[0] in self.facts.arrays:
            return registry.lookup_specialised(registry.ARRAY, fn)
        scalars = self.facts.scalars
        if s.args and not s.kwargs and all(
                not isinstance(a.value, complex) if isinstance(a, Const) else a in scalars for a in s.args):
            return registry.lookup_specialised(registry.SCALAR, fn)
        return registry.lookup(fn)

    def _is_module_read(self, s: Statement) -> bool:
        """A read of a module (a global), of a module's attribute, or of a
        builtin (``float``, ``abs``) that no global hides."""
        fn = s.callee.value if isinstance(s.callee, Const) else None
        if fn not in (ops.load_global, getattr) or s.var not in self.facts.static:
            return False
        base = self.facts.static[s.var] if fn is ops.load_global else self.facts.static.get(s.args[0])
        if fn is ops.load_global and isinstance(base, (types.BuiltinFunctionType, type)):
            return getattr(builtins, s.args[0].value, None) is base
        return isinstance(base, types.ModuleType)

    def _guard(self, callee: Operand) -> None:
        origin = analysis.guard(self.facts, callee) if isinstance(callee, Var) else None
        if origin is not None:
            self.guards[(origin[0], origin[1] if origin[0] == "global" else id(origin[1]))] = origin

    def _check_callable(self, s: Statement, fn: Any) -> None:
        """A callee known now that cannot be differentiated at run time is an
        error now, at the user's line."""
        if fn is analysis._MISSING or fn is None or registry.lookup(fn) is not None \
                or registry.implementation(fn) is not None \
                or passes.member(fn, runtime.OVERLOADS) and registry.is_nondifferentiable(fn):  # (~v: v.__invert__)
            return  # (a call of None, in a branch its test leaves: Python says how it fails, if it runs)
        if runtime.differentiable_callable(fn):
            return
        if getattr(fn, "__module__", None) == ops.__name__:  # Python's syntax, as the compiler lowers it
            raise NoDerivativeRule(
                f"no derivative rule for {(fn.__doc__ or fn.__name__).splitlines()[0].rstrip('.').replace('``', '`')} "
                "with differentiated values", function=self.f.name, filename=self.f.filename, line=s.line,
                hint="hold differentiated values in a list, a tuple or a dict instead")
        name = registry.display_name(fn)
        raise NoDerivativeRule(
            f"no derivative rule for {name!r}, which is called with differentiated arguments",
            function=self.f.name, filename=self.f.filename, line=s.line,
            hint=f"register one with @zpy.adjoint({name}) (see the docs on custom rules), or keep it out of the differentiated path",
        )

    # -- records --------------------------------------------------------------------

    def _liveness(self) -> None:
        # a closure reads the values of the variables it captures where it is made (its gradient is theirs)
        captures = {v: _vars(info[1].values()) for v, info in self.adj.items() if info[0] == "closure"}
        live_in, live_out = _live_sets(self.f, self.order, captures)
        act = self.facts.active
        key = lambda v: v.id  # noqa: E731
        self.live_in = live_in
        self.gout = {bid: sorted((v for v in live_out[bid] if v in act), key=key) for bid in self.order}
        self.gin = {
            bid: sorted((v for v in live_in[bid] | set(self.params[bid]) if v in act), key=key)
            for bid in self.order
        }

    def _cell(self, hint: str) -> str:
        base = clean(hint, "t")
        name, k = base, 0
        while name in self.cell_names:
            k += 1
            name = f"{base}_{k}"
        self.cell_names.add(name)
        self.forward_cells.append(name)
        return name

    def _record_alphas(self) -> None:
        """Decide how each value the adjoint needs is kept, and emit the
        forward side of it."""
        f = self.f
        home = {}
        for bid, b in f.blocks.items():
            for a in b.args:
                home[a] = bid
            for s in b.stmts:
                home[s.var] = bid
        self.cell_of: dict[Var, str] = {}
        self.stack_of: dict[tuple[Var, int], str] = {}
        params = dict(zip(f.entry.args, f.signature.names()))
        defs = {s.var: s for b in f.blocks.values() for s in b.stmts}
        for bid in self.order:
            seen = []
            for v in self.needs[bid]:
                if v in seen:
                    continue
                seen.append(v)
                loops = self.nest[bid]
                if loops and home[v] in self.loops[loops[0]] and not self._same_each_iteration(v, home, defs):
                    self.stack_of[(v, bid)] = self._cell("saved_" + clean(f.names.get(v), "t"))
                elif v not in self.cell_of:
                    if v in params:
                        self.cell_of[v] = params[v]
                        self.forward_cells.append(params[v])
                    else:
                        self.cell_of[v] = self._cell(clean(f.names.get(v), "t"))
            self.needs[bid] = seen
        entry = f.entry
        inits = []
        for v, name in self.cell_of.items():
            if v in params:
                continue
            h = home[v]
            # A loop-carried value is read after the loop: kept once, where
            # the loop is left, so the header stays a plain loop header.
            at = [e for e, left in self.exits.items() if h in left] if v in f.blocks[h].args and h in self.loops else []
            if self.nest[h] and not at:  # a value made in a loop, the same in every iteration: none if it runs 0 times
                inits.append(Statement(f.new_var(), Const(ops.store_deref), [Const(name), NONE]))
            for bid in at or [h]:
                b = f.blocks[bid]
                store = Statement(f.new_var(), Const(ops.store_deref), [Const(name), v])
                idx = self._record_at(b, next((i + 1 for i, s in enumerate(b.stmts) if s.var == v), 0))
                b.stmts.insert(idx, store)
        for (v, bid), name in self.stack_of.items():
            inits += self._new_stack(name)
            b = f.blocks[bid]
            # just after the value is made, or just before its first use
            at = next((i + 1 for i, s in enumerate(b.stmts) if s.var == v), None)
            if at is None:
                at = next((i for i, s in enumerate(b.stmts) if v in s.operands()), len(b.stmts))
            at = self._record_at(b, at)
            b.stmts[at:at] = self._push(name, v)
        entry.stmts[0:0] = inits

    def _same_each_iteration(self, v: Var, home: dict[Var, int], defs: dict[Var, Statement]) -> bool:
        """Whether ``v``, made in a loop, is the same number in every
        iteration of every loop around it: a :mod:`math` function or
        arithmetic (see :meth:`_invariant`) of real numbers made before the
        outermost one, or of such values. Then one cell keeps it for the
        pullback, as for a value made before the loop (a math function that
        may raise is not hoisted: the loop may run zero times)."""
        s = defs.get(v)
        loops = self.nest[home[v]] if v in home else []
        if s is None or not loops or s.kwargs or any(isinstance(a, Starred) for a in s.args):
            return False
        fn = self.facts.callee(s)
        number = all(isinstance(a, Const) and type(a.value) in (int, float) or a in self.facts.scalars
                     and a in self.facts.real for a in s.args)
        if not (self._invariant(s) or analysis.is_math_function(fn) and number and v in self.facts.scalars):
            return False
        body = self.loops[loops[0]]
        return all(isinstance(a, Const) or home.get(a) not in body or self._same_each_iteration(a, home, defs)
                   for a in s.args)

    @staticmethod
    def _record_at(b: Block, at: int) -> int:
        """Where in ``b`` a record goes that would go at ``at``: at the end
        of a protected block, so that it is made only if no statement of
        the block raised (see :meth:`_exception_edges`)."""
        return len(b.stmts) if b.handler is not None else at

    def _new_stack(self, name: str) -> list[Statement]:
        f = self.f
        lst = f.new_var()
        return [Statement(lst, Const(ops.build_list)),
                Statement(f.new_var(), Const(ops.store_deref), [Const(name), lst])]

    def _push(self, name: str, v: Operand) -> list[Statement]:
        f = self.f
        s, m = f.new_var(), f.new_var()
        return [Statement(s, Const(ops.load_deref), [Const(name)]),
                Statement(m, Const(getattr), [s, Const("append")]),
                Statement(f.new_var(), m, [v])]

    def _drop_unread_stacks(self) -> None:
        """A stack whose values the simplified pullback never reads is not
        kept: its list, pushes and pops go. (Its values were needed for a
        gradient that proved absent, or for the shape of an operand that
        proved the output's: ``t + a``, ``a`` a number.)"""
        a, f = self.a, self.f
        pops, _ = _stack_calls(a)
        uses = passes.use_counts(a)
        dead = {name for name in set(self.stack_of.values())
                if all(uses.get(s.var, 0) == 0 for s in pops.get(name, []))}
        if not dead:
            return
        for ir in (a, f):
            calls, reads = _stack_calls(ir)
            gone = {id(s) for name in dead for s in calls.get(name, [])}
            made = set()  # (the forward's lists, stored in their cells)
            for b in ir.blocks.values():
                for s in b.stmts:
                    if reads.get(s.var) in dead:
                        gone.add(id(s))
                    elif isinstance(s.callee, Const) and s.callee.value is ops.store_deref and s.args[0].value in dead:
                        gone.add(id(s))
                        made.add(s.args[1])
            for b in ir.blocks.values():
                b.stmts = [s for s in b.stmts if id(s) not in gone and s.var not in made]
        for name in dead:
            self._load_stmts.pop(name, None)
            self.forward_cells_used.discard(name)
            self.forward_cells.remove(name)

    def _record_control(self) -> None:
        """Trip counts for loop headers; for other merge blocks, which
        predecessor branched."""
        f = self.f
        self.trip: dict[int, str] = {}
        self.trip_stack: dict[int, str] = {}
        for h in self.loops:
            name = self._cell("trip")
            self.trip[h] = name
            pre = f.blocks[self.preheader[h]]
            pre.stmts.insert(0, Statement(f.new_var(), Const(ops.store_deref), [Const(name), Const(0)]))
            lt = f.blocks[self.latch[h]]
            t, u = f.new_var(), f.new_var()
            lt.stmts += [Statement(t, Const(ops.load_deref), [Const(name)]),
                         Statement(u, Const(operator.iadd), [t, Const(1)]),
                         Statement(f.new_var(), Const(ops.store_deref), [Const(name), u])]
            if len(self.nest[h]) > 1:
                self.trip_stack[h] = self._cell("saved_trip")
                f.entry.stmts[0:0] = self._new_stack(self.trip_stack[h])
        for s_id, left in self.exits.items():
            for h in left:
                if h in self.trip_stack:
                    k = f.new_var()
                    b = f.blocks[s_id]
                    b.stmts.append(Statement(k, Const(ops.load_deref), [Const(self.trip[h])]))
                    b.stmts += self._push(self.trip_stack[h], k)
        self.came: dict[int, tuple[str, bool]] = {}
        for bid in self.order:
            ps = self.sources[bid]
            if len(ps) < 2 or bid in self.loops:
                continue
            stacked = bool(self.nest[bid])
            name = self._cell("saved_path" if stacked else "path")
            if stacked:
                f.entry.stmts[0:0] = self._new_stack(name)
            self.came[bid] = (name, stacked)
            record = lambda v: self._push(name, v) if stacked else [  # noqa: E731
                Statement(f.new_var(), Const(ops.store_deref), [Const(name), v])]
            if bid in self.handlers:  # see _exception_edges
                b = f.blocks[bid]
                came = f.new_var("raised_in")
                b.args.append(came)
                for p in self.preds[bid]:
                    f.blocks[p].handler.args.append(Const(ps.index(p) if p in ps else 0))
                b.stmts[0:0] = record(came)
                continue
            for i, p in enumerate(ps):
                f.blocks[p].stmts += record(Const(i))

    # -- adjoint -------------------------------------------------------------------------

    def _adjoint(self) -> None:
        a = self.a
        self.forward_cells_used: set[str] = set()
        self.loads: dict[str, Var] = {}
        self.bar: dict[int, Block] = {}
        self.slots: dict[int, list[Var]] = {}
        self.iters_of: dict[int, list[int]] = {}
        self.maybe_adj: set[Var] = set()  # gradients that may be None at run time
        self.zero_ok: set[Var] = set()  # block arguments that may start from 0 where no gradient arrives
        self.zero_made: set[Var] = set()  # gradients that may be that 0 at run time (see _may_be_zero)
        self.seeded: list[tuple[list[tuple[Statement, int]], list[Statement]]] = []  # see _drop_unseeded_rules
        self.linear: set[int] = set()
        self.item_scatters: set[int] = set()  # pullbacks' statements of items x[i] (see _item_buffers)
        self.invoked: set[int] = set()  # pullbacks called directly (see _invoke)
        self.rule_constants: set[int] = set()  # ids of the constants of inlined pullbacks' code
        self.array_sums: set[Var] = set()  # adjoint blocks' gradients of arrays (see _add_in_place)
        entry = a.new_block()
        dy = a.new_var(a.signature.args[0])
        entry.args = [dy]
        self.bar[self.ret.id] = entry
        self.dself = None
        for bid in reversed(self.order):
            if bid == self.ret.id:
                continue
            b = a.new_block()
            self.bar[bid] = b
            self.slots[bid] = [a.new_var(self._dname(v)) for v in self.gout[bid]]
            b.args = list(self.slots[bid]) + [a.new_var("it") for _ in self.nest[bid]]
        self.xbar: dict[int, Block] = {}  # the adjoint of a raising block's entry, see _exception_edges
        for bid in reversed(self.order):
            if bid in self.raising:
                x = self.xbar[bid] = a.new_block()
                x.args = [a.new_var(self._dname(v)) for v in self.gin[bid]] + [a.new_var("it") for _ in self.nest[bid]]
        if self.self_active:
            self.dself = _call(a, entry, ops.build_dict)
        for bid in reversed(self.order):
            self._adjoint_block(bid)
        entry.stmts[0:0] = [self._load_stmts[n] for n in sorted(self._load_stmts)]
        self._simplify_adjoint()

    def _drop_unseeded_rules(self) -> bool:
        """An inlined pullback whose incoming gradient turned out to be
        ``None`` gives no gradients: rules are linear in it, so every
        statement of theirs that reads ``None`` is ``None`` too, even a
        call the simplifier cannot see through (``dot_grad(None, a, b,
        0)``). Returns whether it found one."""
        present = {id(st) for b in self.a.blocks.values() for st in b.stmts}
        found = False
        for k in range(len(self.seeded) - 1, -1, -1):
            uses, region = self.seeded[k]
            if any(id(st) in present and isinstance(st.args[i], Const) and st.args[i].value is None
                   for st, i in uses):
                self.linear.update(id(st) for st in region)
                del self.seeded[k]
                found = True
        return found

    def _simplify_adjoint(self) -> None:
        """Settle which gradients are statically absent, start the numeric
        ones that some paths leave out from 0, and add numbers with ``+``."""
        a = self.a
        passes.prune_unreachable(a)
        self._pass_zero_back()
        while True:
            before = passes.size(a)
            passes.remove_trivial_args(a)
            propagate_none(a, self.linear)
            if passes.size(a) == before and not self._drop_unseeded_rules():
                break
        for b in a.blocks.values():
            for j in b.jumps():
                params = a.blocks[j.target].args
                if any(p in self.zero_ok for p in params):
                    j.args = [
                        self.zero if p in self.zero_ok and isinstance(v, Const) and v.value is None else v
                        for p, v in zip(params, j.args)
                    ]
        maybe = set(self.maybe_adj)
        for b in a.blocks.values():
            for s in b.stmts:
                if isinstance(s.callee, Const) and s.callee.value is runtime.accum:
                    if any(isinstance(x, Const) and x.value is None or x in maybe for x in s.args):
                        maybe.add(s.var)
                    else:
                        s.callee = Const(operator.add)
        _doubled(a)
        item_adds = _fuse_scatter_adds(a, self.item_scatters)
        passes.optimize(a)
        if _drop_needless_zero_guards(a, self.rule_constants, self.invoked):
            passes.optimize(a)
        _join_scatters(a)
        _call_pullbacks_that_may_get_none(a, self.invoked)
        if _item_buffers(a, item_adds):
            passes.optimize(a)
        _add_in_place(a, self.array_sums)
        passes.hoist_invariants(a)

    def _pass_zero_back(self) -> None:
        """A block argument that is only passed on to arguments that start
        from 0 (a rule's gradient of a number, joined inside the rule
        before it reaches the caller's) starts from 0 too."""
        a = self.a
        read = {x for b in a.blocks.values() for s in b.stmts for x in s.operands()}
        read |= {x for b in a.blocks.values() for x in b.term_operands()}
        read |= {x for b in a.blocks.values() if b.handler is not None for x in b.handler.args}
        passed: dict[Var, list[Var]] = {}
        for b in a.blocks.values():
            for j in b.jumps():
                for p, v in zip(a.blocks[j.target].args, j.args):
                    passed.setdefault(v, []).append(p)
        params = {v for b in a.blocks.values() for v in b.args} - read
        found = True
        while found:
            more = {v for v in params - self.zero_ok if all(p in self.zero_ok for p in passed.get(v, [None]))}
            self.zero_ok |= more
            found = bool(more)

    @property
    def _load_stmts(self) -> dict[str, Statement]:
        if not hasattr(self, "_loads_cache"):
            self._loads_cache = {}
        return self._loads_cache

    def _dname(self, v: Var) -> Optional[str]:
        n = self.f.names.get(v)
        return None if n is None else "d" + clean(n, "t")

    def _load(self, name: str) -> Var:
        """A forward cell's value, read once at the pullback's start."""
        if name not in self._load_stmts:
            v = self.a.new_var()
            self._load_stmts[name] = Statement(v, Const(ops.load_deref), [Const(name)], pure=True)
            self.forward_cells_used.add(name)
        return self._load_stmts[name].var

    def _named(self, g: Operand, v: Var) -> Operand:
        """A gradient of a named value takes its name (``dx``)."""
        if isinstance(g, Var) and g not in self.a.names and self._dname(v):
            self.a.names[g] = self._dname(v)
        return g

    def _accum(self, block: Block, v: Var, g: Operand, h: Operand) -> Operand:
        """The sum of two gradients of ``v``. The gradient of a number is
        never ``None`` at run time once anything arrived: a gradient that
        may be ``None`` (from a pullback called at run time) is added to
        ``0`` first."""
        if v in self.facts.numeric:
            # each operand on its own: the other may yet turn out None
            g, h = (self._from_zero(block, v, x) if self._maybe(x) else x for x in (g, h))
        if _none(g):
            g, h = h, g
        if _none(g):
            return NONE
        if _none(h):
            return self._named(g, v)
        out = _call(self.a, block, runtime.accum, g, h, name=self._dname(v), pure=True)
        if self._maybe(g) and self._maybe(h):
            self.maybe_adj.add(out)
        if self._may_be_zero(g) and self._may_be_zero(h):
            self.zero_made.add(out)
        return out

    def _from_zero(self, block: Block, v: Var, g: Var) -> Var:
        """``accum(0, g)``: the gradient ``g`` of the number ``v``, or 0."""
        out = _call(self.a, block, runtime.accum, self.zero, g, name=self._dname(v), pure=True)
        self.zero_made.add(out)
        return out

    def _maybe(self, op: Operand) -> bool:
        return isinstance(op, Var) and op in self.maybe_adj

    def _slot(self, v: Var, slot: Var) -> None:
        """``slot``, an adjoint block's argument, is the gradient of ``v``:
        of a number or an array, 0 where no path gives one; else ``None``."""
        if v in self.facts.arrays:
            self.array_sums.add(slot)
        if v in self.facts.numeric:
            self.zero_ok.add(slot)
            self.zero_made.add(slot)
        else:
            self.maybe_adj.add(slot)

    def _may_be_zero(self, op: Operand) -> bool:
        """Whether the gradient ``op`` may be, at run time, the number 0 that
        a path giving none starts it from (:meth:`_slot`), or a sum or an
        elementwise rule's gradient of such zeros."""
        return isinstance(op, Var) and op in self.zero_made

    def _adjoint_block(self, bid: int) -> None:
        f, a = self.f, self.a
        B = f.blocks[bid]
        cur = self.bar[bid]
        grads: dict[Var, Operand] = {}
        if bid == self.ret.id:
            rv = B.term.value
            if isinstance(rv, Var) and rv in self.facts.active:
                grads[rv] = cur.args[0]
                if rv not in self.facts.numeric:
                    self.maybe_adj.add(cur.args[0])
            iters: dict[int, Operand] = {}
        else:
            for v, slot in zip(self.gout[bid], self.slots[bid]):
                grads[v] = slot
                self._slot(v, slot)
            iters = dict(zip(self.nest[bid], cur.args[len(self.slots[bid]):]))
        # the values recorded on stacks, popped in reverse order of pushing
        popped: dict[Var, Operand] = {}
        for h in self.exits.get(bid, []):
            if h in self.trip_stack:
                count = self._pop(cur, self.trip_stack[h], "trip")
            else:
                count = self._load(self.trip[h])
            r = _call(a, cur, range, count)
            iters[h] = _call(a, cur, iter, r)
        for v in reversed(self.needs[bid]):
            if (v, bid) in self.stack_of:
                popped[v] = self._pop(cur, self.stack_of[(v, bid)], f.names.get(v))
        flag = self._came(cur, bid) if bid not in self.xbar else None
        for s in reversed(B.stmts):
            info = self.adj.get(s.var)
            if info is None:
                continue
            dy = grads.pop(s.var, NONE)
            if isinstance(dy, Const) and dy.value is None:
                continue
            cur = self._adjoint_stmt(cur, bid, s, info, dy, grads, popped)
        if bid in self.xbar:
            x = self.xbar[bid]
            gin = self.gin[bid]
            cur.term = Jump(x.id, [grads.get(v, NONE) for v in gin] + [iters[h] for h in self.nest[bid]])
            cur, grads, iters = x, dict(zip(gin, x.args)), dict(zip(self.nest[bid], x.args[len(gin):]))
            for v, slot in grads.items():
                self._slot(v, slot)
            flag = self._came(cur, bid)
        if bid == f.entry.id:
            out = [grads.get(p, NONE) if p in self.facts.active else NONE for p in f.entry.args]
            if self.dself is not None:
                out.insert(0, self.dself)
            t = _call(a, cur, ops.build_tuple, *out)
            cur.term = Return(t)
            return
        if bid in self.loops:
            self._adjoint_header(cur, bid, grads, iters)
            return
        preds = self.sources[bid]
        if len(preds) == 1:
            cur.term = self._edge(cur, bid, preds[0], grads, iters)
            return
        targets = list(enumerate(preds))
        while len(targets) > 1:
            i, p = targets.pop(0)
            c = _call(a, cur, operator.eq, flag, Const(i), pure=True)
            rest = a.new_block()
            cur.term = Branch(c, self._edge_block(bid, p, grads, iters), Jump(rest.id))
            cur = rest
        cur.term = self._edge(cur, bid, targets[0][1], grads, iters)

    def _came(self, block: Block, bid: int) -> Optional[Var]:
        """Which predecessor branched to ``bid``, as recorded (``None`` if
        nothing is)."""
        if bid not in self.came:
            return None
        name, stacked = self.came[bid]
        return self._pop(block, name, "path") if stacked else self._load(name)

    def _pop(self, block: Block, stack: str, hint: Optional[str]) -> Var:
        s = self._load(stack)
        m = _call(self.a, block, getattr, s, Const("pop"))
        v = self.a.new_var(clean(hint, "t") if hint else None)
        block.stmts.append(Statement(v, m, []))
        return v

    def _alpha(self, v: Operand, popped: dict[Var, Operand]) -> Operand:
        if isinstance(v, Const):
            return v
        if v in popped:
            return popped[v]
        return self._load(self.cell_of[v])

    def _adjoint_stmt(self, cur: Block, bid: int, s: Statement, info: tuple, dy: Operand,
                      grads: dict[Var, Operand], popped: dict[Var, Operand]) -> Block:
        a = self.a
        kind = info[0]
        if kind == "self":
            _call(a, cur, runtime.accum_item, self.dself, Const(info[1]), dy)
            return cur
        if kind == "field":
            obj = info[1]
            g = _call(a, cur, runtime.field_gradient, self._alpha(obj, popped), Const(info[2]), dy, pure=True)
            self.maybe_adj.add(g)  # (added by accum, not +: a gradient module's stands in for Tangent without its +)
            grads[obj] = self._accum(cur, obj, grads.get(obj, NONE), g)
            return cur
        if kind == "closure":  # a closure's gradient: its captured variables' and default values'
            for name, v in info[1].items():
                g = _call(a, cur, runtime.field, dy, Const(name), pure=True)
                self.maybe_adj.add(g)
                grads[v] = self._accum(cur, v, grads.get(v, NONE), g)
            for name in info[2]:
                g = _call(a, cur, runtime.field, dy, Const(name), pure=True)
                _call(a, cur, runtime.accum_item, self.dself, Const(name), g)
            return cur
        if kind == "inline":
            _, r, captured, args = info
            env = {n: self._alpha(v, popped) for n, v in captured.items() if n in r.captured}
            start = cur
            real = frozenset(n for n, v in captured.items() if analysis.is_real(v, self.facts))
            known, first = set(a.blocks), len(cur.stmts)
            # an array's gradient that may be the 0 no path gave (see _simplify_adjoint): a rule that
            # reshapes it (concatenate's, cumsum's) would fail on it; it gives no gradients
            guard = self._may_be_zero(dy) and s.var in self.facts.arrays and not _elementwise(r)
            if guard:
                body, skip, join = a.new_block(), a.new_block(), a.new_block()
                cond = _call(a, cur, runtime.is_number_zero, dy, pure=True, line=s.line)
                cur.term, cur = Branch(cond, Jump(skip.id, []), Jump(body.id, []), s.line), body
            vectors = frozenset(n for n, v in captured.items() if isinstance(v, Var) and v in self.facts.vectors)
            same = _same_shape(r, args, self.facts.python_numbers | self.float_args)
            cur, outs = Inliner(a, s.line).back(r, dy, env, cur, same, real, s.var in self.facts.real, vectors)
            if guard:
                join.args = [a.new_var() for _ in outs]
                cur.term, skip.term = Jump(join.id, list(outs)), Jump(join.id, [NONE] * len(outs))
                cur, outs = join, join.args
                self.zero_made.update(outs)
            elif self._may_be_zero(dy):
                self.zero_made.update(g for g in outs if isinstance(g, Var))
            added = start.stmts[first:] + [st for bid, blk in a.blocks.items() if bid not in known for st in blk.stmts]
            self.seeded.append(([(st, i) for st in added for i, x in enumerate(st.args) if x == dy], added))
            self.rule_constants.update(id(x) for st in added for x in st.operands() if isinstance(x, Const) and x is not dy)
            if s.var in self.facts.vector_items:
                self.item_scatters.update(id(st) for st in added)  # (its scatter, once its callee is known)
            for i, (arg, g) in enumerate(zip(args, outs)):
                if isinstance(arg, Var) and arg in self.facts.active and (s.var, i) not in self.shift_free:
                    if cur is not start and g in cur.args:  # a gradient some paths of the rule leave out
                        (self.zero_ok if arg in self.facts.numeric else self.maybe_adj).add(g)
                    grads[arg] = self._accum(cur, arg, grads.get(arg, NONE), g)
            return cur
        _, back, call = info
        pb = self._alpha(back, popped)
        fn = runtime.call_pullback if self._maybe(dy) else None
        gs = _call(a, cur, fn, pb, dy, line=s.line, pure=True) if fn else self._invoke(cur, pb, dy, s.line)
        operands = [call.callee] + list(call.args) + [v for _, v in call.kwargs]
        for i, op in enumerate(operands):
            if isinstance(op, Var) and op in self.facts.active:
                g = _call(a, cur, operator.getitem, gs, Const(i), pure=True)
                self.maybe_adj.add(g)
                grads[op] = self._accum(cur, op, grads.get(op, NONE), g)
        return cur

    def _invoke(self, block: Block, pb: Operand, dy: Operand, line: Optional[int]) -> Var:
        """``pb(dy)``: pure, so that a ``dy`` later found to be ``None``
        makes it ``None`` (see :func:`nones.propagate_none`)."""
        v = self.a.new_var()
        block.stmts.append(Statement(v, pb, [dy], [], line, pure=True))
        self.invoked.add(id(block.stmts[-1]))
        return v

    def _edge_values(self, block: Block, bid: int, p: int, grads: dict[Var, Operand],
                     iters: dict[int, Operand]) -> list[Operand]:
        f = self.f
        jumps = [j for j in f.blocks[p].jumps() if j.target == bid]
        live = self.live_in[bid]
        own = set(self.params[bid])
        out = []
        for v in self.gout[p]:
            # (a parameter of the target passed to it again, as in a swap
            # y, z = z, y on a loop's back edge, has the gradient of what it
            # becomes there, not of itself)
            g = grads.get(v, NONE) if v in live and v not in own else NONE
            for j in jumps:
                for param, arg in zip(self.params[bid], j.args):
                    if arg == v and param in self.facts.active:
                        g = self._accum(block, v, g, grads.get(param, NONE))
            out.append(g)
        return out + [iters[h] for h in self.nest[p]]

    def _edge(self, block: Block, bid: int, p: int, grads, iters) -> Jump:
        if bid in self.handlers:
            return Jump(self.xbar[p].id, self._raise_edge_values(block, bid, p, grads, iters))
        return Jump(self.bar[p].id, self._edge_values(block, bid, p, grads, iters))

    def _raise_edge_values(self, block: Block, h: int, p: int, grads: dict[Var, Operand],
                           iters: dict[int, Operand]) -> list[Operand]:
        """The gradients of the values live at the entry of ``p``, which
        raised into its handler ``h``, and the iterators of the loops it
        was in (those the exception left replay their completed
        iterations)."""
        live = self.live_in[h]
        own = set(self.params[h])
        out = []
        for v in self.gin[p]:
            g = grads.get(v, NONE) if v in live and v not in own else NONE
            for param, arg in zip(self.params[h][1:], self.f.blocks[p].handler.args):
                if arg == v and param in self.facts.active:
                    g = self._accum(block, v, g, grads.get(param, NONE))
            out.append(g)
        for lp in self.nest[p]:
            if lp not in iters:
                iters = {**iters, lp: _call(self.a, block, iter, _call(self.a, block, range, self._load(self.trip[lp])))}
        return out + [iters[lp] for lp in self.nest[p]]

    def _edge_block(self, bid: int, p: int, grads, iters) -> Jump:
        e = self.a.new_block()
        e.term = self._edge(e, bid, p, grads, iters)
        return Jump(e.id)

    def _adjoint_header(self, cur: Block, h: int, grads: dict[Var, Operand], iters: dict[int, Operand]) -> None:
        """``for _ in range(trip)``: each iteration goes back to the latch's
        adjoint; when done, to the preheader's."""
        a = self.a
        slots = self.gin[h]
        d = a.new_block()
        d.args = [a.new_var(self._dname(v)) for v in slots]
        own = [a.new_var("it") for _ in self.nest[h]]
        d.args += own
        cur.term = Jump(d.id, [grads.get(v, NONE) for v in slots] + [iters[x] for x in self.nest[h]])
        inner = dict(zip(slots, d.args))
        for v in slots:
            self._slot(v, inner[v])
        inner_iters = dict(zip(self.nest[h], own))
        item = _call(a, d, ops.iternext, inner_iters[h], name="_")
        done = _call(a, d, ops.exhausted, item)
        d.term = Branch(
            done,
            self._edge_block(h, self.preheader[h], inner, inner_iters),
            self._edge_block(h, self.latch[h], inner, inner_iters),
        )


def _stack_calls(ir: IR) -> tuple[dict[str, list[Statement]], dict[Var, str]]:
    """The calls of each stack's methods in ``ir`` (``append`` in the
    forward, ``pop`` in the pullback), by the stack's cell, and the values
    the stacks are reached through (the cells' loads and the bound
    methods), with their cells."""
    reads: dict[Var, str] = {}
    for b in ir.blocks.values():
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            if fn is ops.load_deref:
                reads[s.var] = s.args[0].value
            elif fn is getattr and s.args[0] in reads:
                reads[s.var] = reads[s.args[0]]
    calls: dict[str, list[Statement]] = {}
    for b in ir.blocks.values():
        for s in b.stmts:
            if s.callee in reads:
                calls.setdefault(reads[s.callee], []).append(s)
    return calls, reads


def _kept_values(f: IR) -> set[Var]:
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


def _add_in_place(a: IR, sums: set[Var]) -> None:
    """``g = g + v`` in an adjoint loop, where ``g`` is an array's gradient
    (one of ``sums``) that enters the loop as 0 and that nothing else in
    the loop reads, becomes ``runtime.add_into(g, v)``: the first ``+``
    makes an array that only ``g`` holds, which later iterations add to in
    place (the gradients of an LSTM's weights, summed over its steps)."""
    uses = passes.use_counts(a)
    defs = {s.var: s for b in a.blocks.values() for s in b.stmts}
    preds = predecessors(a)
    for h, body in natural_loops(a).items():
        header = a.blocks[h]
        into = [(j, p in body) for p in preds[h] for j in a.blocks[p].jumps() if j.target == h]
        for k, g in enumerate(header.args):
            inside = [j.args[k] for j, back in into if back]
            if g not in sums or len(inside) != 1 or not all(
                    isinstance(j.args[k], Const) and type(j.args[k].value) in (int, float) and j.args[k].value == 0
                    for j, back in into if not back):
                continue
            s = defs.get(inside[0])
            readers = [st for bid in body for st in a.blocks[bid].stmts if g in st.operands()]
            if (s is None or readers != [s] or uses.get(s.var) != 1 or not isinstance(s.callee, Const)
                    or s.callee.value is not operator.add or s.args[0] != g or s.args[1] == g or s.kwargs):
                continue
            s.callee = Const(runtime.add_into)


def _call_pullbacks_that_may_get_none(a: IR, invoked: set[int]) -> None:
    """A pullback called directly, ``pb(dy)``, whose ``dy`` may be ``None``
    once the adjoint is simplified (a gradient added to one the simplifier
    found to be none, around a loop), is called through
    ``runtime.call_pullback``, which gives none for none. (``invoked``: the
    ``id`` of each such call.)"""
    maybe: set[Var] = set()

    def none(x) -> bool:
        return isinstance(x, Const) and x.value is None or x in maybe

    def may_give_none(s: Statement) -> bool:
        fn = s.callee.value if isinstance(s.callee, Const) else None
        if fn is runtime.accum:
            return all(none(x) for x in s.args)
        if fn is runtime.unbroadcast:
            return none(s.args[0])
        return fn in (operator.getitem, runtime.call_pullback, runtime.field) or isinstance(s.callee, Var)

    changed = True
    while changed:
        changed = False
        for b in a.blocks.values():
            for s in b.stmts:
                if s.var not in maybe and may_give_none(s):
                    maybe.add(s.var)
                    changed = True
            for j in b.jumps():
                for p, v in zip(a.blocks[j.target].args, j.args):
                    if p not in maybe and none(v):
                        maybe.add(p)
                        changed = True
    for b in a.blocks.values():
        for s in b.stmts:
            if id(s) in invoked and none(s.args[0]):
                s.callee, s.args = Const(runtime.call_pullback), [s.callee, s.args[0]]


_SUMS = (operator.add, operator.sub, runtime.accum)
"""Sums of gradients: the number 0 only when every term may be (0 plus a
gradient is that gradient, of its kind)."""

def _helper(fn: Any) -> bool:
    """A function of zygote_py's rules or run time that pullbacks call."""
    module = getattr(fn, "__module__", None) or ""
    return isinstance(fn, types.FunctionType) and module.startswith(("zygote_py.rules", "zygote_py.runtime", "zygote_py.ad.mutation.operations"))


def _drop_needless_zero_guards(a: IR, rule_constants: set[int], invoked: set[int]) -> bool:
    """Take the rule's way past each guard ``is_number_zero(g)`` (see
    :meth:`Adjoint._adjoint_stmt`) whose ``g``, once the adjoint is
    simplified, cannot be the number 0 that a path giving no gradient starts
    from. Optimistic, as constant propagation: a guard's zero way, and what
    flows from it, counts only once its ``g`` may be 0. A sum is 0 only if
    every term may be; what a pullback called at run time gives may be 0
    (the start of a number's gradient); a rule's own constant passed to
    one of zygote_py's helpers after the gradient (``matmul_grad(dy, a, b,
    0)``: ``wrt``) is no gradient (``rule_constants``: their ids;
    ``invoked``: the ids of the statements that call pullbacks directly)."""
    defs = {s.var: s for b in a.blocks.values() for s in b.stmts}
    guards = {
        b.id: defs[b.term.cond].args[0] for b in a.blocks.values()
        if isinstance(b.term, Branch) and b.term.cond in defs
        and isinstance(defs[b.term.cond].callee, Const) and defs[b.term.cond].callee.value is runtime.is_number_zero
    }
    if not guards:
        return False

    def zero(x) -> bool:
        if isinstance(x, Const):
            return type(x.value) in (int, float) and x.value == 0
        return x in maybe

    maybe: set[Var] = set()
    live: set[int] = set()  # guards whose zero way is taken
    changed = True
    while changed:
        changed, seen, todo = False, set(), [a.entry.id]
        while todo:
            b = a.blocks[todo.pop()]
            if b.id in seen:
                continue
            seen.add(b.id)
            for s in b.stmts:
                fn = s.callee.value if isinstance(s.callee, Const) else None
                operands = list(s.operands())[1:]  # (the callee: a pullback, see below)
                if _helper(fn):  # its parameters after the gradient: matmul_grad(dy, a, b, 0)
                    operands[1:] = [x for x in operands[1:] if not (isinstance(x, Const) and id(x) in rule_constants)]
                pulled = fn is runtime.call_pullback or id(s) in invoked  # a pullback's 0 for a number
                if s.var not in maybe and (pulled or (all if fn in _SUMS else any)(zero(x) for x in operands)):
                    maybe.add(s.var)
                    changed = True
            if b.id in guards and b.id not in live and zero(guards[b.id]):
                live.add(b.id)
                changed = True
            t = b.term
            jumps = [t.orelse] if b.id in guards and b.id not in live else list(b.jumps())
            if b.handler is not None:  # whatever a handler receives, conservatively
                new = set(a.blocks[b.handler.target].args) - maybe
                changed |= bool(new)
                maybe |= new
                todo.append(b.handler.target)
            for j in jumps:
                todo.append(j.target)
                for p, v in zip(a.blocks[j.target].args, j.args):
                    if p not in maybe and zero(v):
                        maybe.add(p)
                        changed = True
    for bid in guards.keys() - live:
        a.blocks[bid].term = a.blocks[bid].term.orelse
    return bool(guards.keys() - live)


def _keywords_by_position(s: Statement, fn: types.FunctionType) -> Statement:
    """The call ``s`` of the Python function ``fn`` with its keyword
    arguments passed by position, where they name the parameters that
    follow the positional ones (``h(b=y, a=x)`` is ``h(x, y)``): the same
    call, whose gradient code calls ``J`` by position, and so can be
    differentiated again. Otherwise ``s``."""
    code = fn.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount \
            or any(isinstance(a, Starred) for a in s.args):
        return s
    names = code.co_varnames[code.co_posonlyargcount:code.co_argcount]
    given = dict(s.kwargs)
    start = len(s.args) - code.co_posonlyargcount
    if start < 0 or len(given) != len(s.kwargs) or set(given) != set(names[start:start + len(given)]):
        return s
    return Statement(s.var, s.callee, [*s.args, *(given[k] for k in names[start:start + len(given)])], [],
                     s.line, s.pure)


_DOUBLED = {operator.mul, operator.truediv, operator.neg, runtime.unbroadcast}
"""Arithmetic whose two equal computations a gradient sum may add (see
:func:`_doubled`)."""


def _doubled(a: IR) -> None:
    """``g + h`` where ``h`` computes what ``g`` does (the same arithmetic
    of :data:`_DOUBLED` on the same operands: ``r * r`` gives ``r`` the
    gradient ``dy * r`` twice) becomes ``2 * g``, the same value, exactly,
    with one accumulation, as a person would write it (``h``, unused, is
    then dropped; ``g`` loses its name, to be written into the product)."""
    defs = {s.var: s for b in a.blocks.values() for s in b.stmts}

    def same(x: Operand, y: Operand, depth: int = 3) -> bool:
        if x == y:
            return True
        dx, dy = defs.get(x) if isinstance(x, Var) else None, defs.get(y) if isinstance(y, Var) else None
        return depth > 0 and dx is not None and dy is not None and isinstance(dx.callee, Const) \
            and isinstance(dy.callee, Const) and dx.callee.value is dy.callee.value \
            and passes.member(dx.callee.value, _DOUBLED) and not dx.kwargs and not dy.kwargs \
            and len(dx.args) == len(dy.args) and all(same(u, v, depth - 1) for u, v in zip(dx.args, dy.args))

    for s in defs.values():
        if isinstance(s.callee, Const) and s.callee.value is operator.add and len(s.args) == 2 and not s.kwargs \
                and s.args[0] != s.args[1] and isinstance(s.args[0], Var) and same(*s.args):
            s.callee, s.args = Const(operator.mul), [Const(2), s.args[0]]
            a.names.pop(s.args[1], None)  # (one line: dr = 2 * (dy * r))


def _fuse_scatter_adds(a: IR, item_scatters: set[int]) -> set[int]:
    """``g + scatter(x, key, v)``, the gradient of an indexed array gaining
    one more item's gradient, becomes ``add_at(g, x, key, v)``: one call,
    which extends ``g`` in place of making a scatter and then adding it;
    ``add_to`` when ``g`` is read nowhere else, which may update ``g`` in
    place (it checks at run time that no other reference to it exists).
    Not pure, so that no pass moves or merges it. Returns the ids of those
    made of one of ``item_scatters`` (see :func:`_item_buffers`)."""
    uses, _ = _uses(a)
    defs = {st.var: st for b in a.blocks.values() for st in b.stmts}
    item_adds: set[int] = set()
    for b in a.blocks.values():
        for st in b.stmts:
            if not (isinstance(st.callee, Const) and st.callee.value is operator.add and len(st.args) == 2):
                continue
            for acc, part in (st.args, st.args[::-1]):
                d = defs.get(part) if isinstance(part, Var) else None
                if d is not None and uses.get(part) == 1 and isinstance(d.callee, Const) and d.callee.value is runtime.scatter:
                    st.callee = Const(runtime.add_at)
                    st.pure = False
                    st.args = [acc, *d.args]
                    if id(d) in item_scatters:
                        item_adds.add(id(st))
                    break
    _update_in_place(a)
    return item_adds


def _join_scatters(a: IR) -> None:
    """A sum of scatters into one array, made in one block and read only by
    the sum (``scatter(z, k1, v1) + scatter(z, k2, v2)``, or ``add_at`` of
    one: the gradients of several slices of ``z``) becomes one call,
    ``runtime.scatters(z, (k1, k2), (v1, v2))``, which writes them into one
    array instead of making a scatter of each and adding them."""
    uses = passes.use_counts(a)
    for b in a.blocks.values():
        parts: dict[Var, tuple[Var, list[Operand], list[Operand], list[Statement]]] = {}
        out: list[Statement] = []
        for st in b.stmts:
            fn = st.callee.value if isinstance(st.callee, Const) and not st.kwargs else None
            joined = None
            if fn is runtime.scatter and len(st.args) == 3 and isinstance(st.args[0], Var):
                joined, sources = (st.args[0], [st.args[1]], [st.args[2]]), []
            elif fn is operator.add and len(st.args) == 2 and all(x in parts for x in st.args) \
                    and parts[st.args[0]][0] == parts[st.args[1]][0]:
                (x, k1, v1, _), (_, k2, v2, _) = parts[st.args[0]], parts[st.args[1]]
                joined, sources = (x, k1 + k2, v1 + v2), list(st.args)
            elif fn in (runtime.add_at, runtime.add_to) and len(st.args) == 4 and st.args[0] in parts \
                    and parts[st.args[0]][0] == st.args[1]:
                x, k1, v1, _ = parts[st.args[0]]
                joined, sources = (x, k1 + [st.args[2]], v1 + [st.args[3]]), [st.args[0]]
            if joined is None:
                out.append(st)
                continue
            x, keys, values = joined
            if sources:
                for v in values:  # each part's gradient on a line of its own
                    if isinstance(v, Var) and v not in a.names:
                        a.names[v] = f"{a.names.get(st.var) or 'd'}_part"
                gone = {id(m) for v in sources for m in parts.pop(v)[3]}
                out = [m for m in out if id(m) not in gone]
                ks, vs = a.new_var(), a.new_var()
                made = [Statement(ks, Const(ops.build_tuple), keys, [], st.line, True),
                        Statement(vs, Const(ops.build_tuple), values, [], st.line, True),
                        Statement(st.var, Const(runtime.scatters), [x, ks, vs], [], st.line, True)]
            else:
                made = [st]
            out += made
            if uses.get(st.var) == 1:
                parts[st.var] = (x, keys, values, made)
        b.stmts = out


def _item_buffers(a: IR, item_adds: set[int]) -> bool:
    """In a loop, a gradient that gains only items' gradients
    (``g = add_to(g, x, i, v)``, for items ``x[i]`` of a one-dimensional
    real array at integer indices, as ``item_adds`` says) is a Python list
    of its items' gradients while the loop runs: made where the loop is
    entered (``runtime.item_buffer``), added to with ``g[i] += v``, no call
    per item, and turned back into the gradient where the loop is left
    (``runtime.item_gradient``). A loop left by more than one edge keeps
    the calls. Returns whether it changed anything."""
    if not item_adds:
        return False
    preds = predecessors(a)
    where = {id(st): b for b in a.blocks.values() for st in b.stmts}
    reads: dict[Var, list[tuple[int, Any]]] = {}  # value -> (block, statement or jump) reading it
    for b in a.blocks.values():
        for st in b.stmts:
            for v in _vars(st.operands()):
                reads.setdefault(v, []).append((b.id, st))
        for v in _vars(b.term_operands()):
            reads.setdefault(v, []).append((b.id, b.term))
        for j in b.jumps():
            for v in _vars(j.args):
                reads.setdefault(v, []).append((b.id, j))
    entry_values = set(a.entry.args) | {st.var for st in a.entry.stmts}
    changed = False
    for h, body in natural_loops(a).items():
        exits = [(bid, t) for bid in body for t in a.blocks[bid].successors() if t not in body]
        if len(exits) != 1 or exits[0][0] != h or preds[exits[0][1]] != [h]:
            continue
        out = a.blocks[exits[0][1]]
        header = a.blocks[h]
        for p, g in enumerate(header.args):
            chain, cur = [], g
            while True:
                inside = [(bid, r) for bid, r in reads.get(cur, [])
                          if bid in body and not (isinstance(r, Jump) and r.target not in body)]
                if len(inside) != 1:
                    break
                bid, r = inside[0]
                if isinstance(r, Jump):
                    if r.target == h and r.args.index(cur) == p and r.args.count(cur) == 1 and chain:
                        chain.append(r)
                    break
                if id(r) not in item_adds or r.args[0] != cur or cur in r.args[1:] or r.args[1] not in entry_values:
                    break
                chain.append(r)
                cur = r.var
            if not chain or not isinstance(chain[-1], Jump) or len({st.args[1] for st in chain[:-1]}) != 1:
                continue
            x = chain[0].args[1]
            for q in preds[h]:
                if q in body:
                    continue
                stmts = a.blocks[q].stmts
                for j in a.blocks[q].jumps():
                    if j.target == h:
                        buf = a.new_var(a.names.get(g))
                        at = max((k + 1 for k, st in enumerate(stmts) if st.var in (j.args[p], x)), default=0)
                        stmts.insert(at, Statement(buf, Const(runtime.item_buffer), [j.args[p], x]))
                        j.args[p] = buf
            env = {}
            for st in chain[:-1]:
                b = where[id(st)]
                old, new = a.new_var(), a.new_var()
                _, _, key, v = st.args
                at = b.stmts.index(st)
                b.stmts[at:at + 1] = [Statement(old, Const(operator.getitem), [g, key], [], st.line),
                                      Statement(new, Const(operator.iadd), [old, v], [], st.line),
                                      Statement(a.new_var(), Const(operator.setitem), [g, key, new], [], st.line, False)]
                env[st.var] = g
            passes.substitute(a, env)
            leaving = next(j for j in header.jumps() if j.target == out.id)
            for v in [g, *(q for q, w in zip(out.args, leaving.args) if w == g)]:  # (the list, after the loop)
                done = a.new_var(a.names.get(v))
                passes.substitute(a, {v: done}, set(a.blocks) - body)
                out.stmts.insert(0, Statement(done, Const(runtime.item_gradient), [v, x], [], None, True))
            changed = True
    return changed


_IN_PLACE_FORMS = {runtime.add_at: runtime.add_to, mutation.take_item: mutation.take_item_owned}
"""Gradient updates and the forms of them that may change their first
argument in place (checking at run time that nothing else refers to it)."""


def _update_in_place(a: IR) -> None:
    """``add_at(g, ...)`` (and the others of :data:`_IN_PLACE_FORMS`) where
    ``g`` is dead afterwards (read by nothing later on any path) becomes
    ``add_to``, which may update ``g`` in place."""
    if not any(isinstance(st.callee, Const) and passes.member(st.callee.value, _IN_PLACE_FORMS)
               for b in a.blocks.values() for st in b.stmts):
        return  # (nothing to change: the liveness below is the costly part)
    order = reverse_postorder(a)
    _, live_out = _live_sets(a, order)
    for bid in order:
        live = set(live_out[bid]) | _read_at_end(a.blocks[bid])
        for st in reversed(a.blocks[bid].stmts):
            fn = st.callee.value if isinstance(st.callee, Const) else None
            if passes.member(fn, _IN_PLACE_FORMS) and st.args[0] not in live:
                st.callee = Const(_IN_PLACE_FORMS[fn])
                st.pure = False
            live.discard(st.var)
            live |= _vars(st.operands())


def _vars(ops_: list) -> set[Var]:
    return {v for v in ops_ if isinstance(v, Var)}


def _read_at_end(b: Block) -> set[Var]:
    """The values a block's terminator and jumps read."""
    return _vars(b.term_operands() + [v for j in b.jumps() for v in j.args])


def _live_sets(ir: IR, order: list[int], also_read: Optional[dict[Var, set[Var]]] = None
               ) -> tuple[dict[int, set[Var]], dict[int, set[Var]]]:
    """Live-in and live-out values of every block of ``ir``; the statement
    making a key of ``also_read`` reads its values too."""
    def at_entry(bid: int) -> set[Var]:
        h = ir.blocks[bid].handler
        return _vars(h.args) if h else set()

    extra = also_read or {}
    return live_sets(
        ir, order, lambda bid: _read_at_end(ir.blocks[bid]),
        lambda bid: [(st.var, _vars(st.operands()) | extra.get(st.var, set())) for st in ir.blocks[bid].stmts],
        at_entry,
    )


_ELEMENTWISE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.mod, operator.pow}


def _elementwise(r: RuleIR) -> bool:
    """Whether ``r`` is an elementwise operation's rule (whose gradient
    can be a number: it broadcasts)."""
    return isinstance(r.target, np.ufunc) or passes.member(r.target, _ELEMENTWISE)


def _same_shape(r: RuleIR, args: list[Operand], numbers: set[Var]) -> frozenset[str]:
    """The parameters of an elementwise operation between an array and a
    Python number (``1.0 + t``, ``x ** 2``, ``t + a`` for an item ``a`` of a
    constant tuple: ``numbers``) that have the output's shape: the array
    operand. (A Python number, weakly typed, changes no array's dtype.)"""
    elementwise = r.target in _ELEMENTWISE or isinstance(r.target, np.ufunc) and r.target.nin == 2 and r.target.nout == 1
    if not elementwise or len(args) != 2 or len(r.params) != 2:
        return frozenset()
    number = [a in numbers if isinstance(a, Var) else isinstance(a, Const) and type(a.value) in (int, float)
              for a in args]
    if number[0] != number[1]:
        return frozenset({r.params[number[0]]})
    return frozenset()


_CHANGES_NOTHING = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg,
    operator.pos, operator.abs, operator.mod, operator.lt, operator.le, operator.gt, operator.ge,
    operator.eq, operator.ne, abs, float, pow, ops.load_global, ops.store_global,
}
"""Callees that change no array and rebind no other global (not the
in-place operators: ``x += 1`` changes ``x``)."""


def _changes_nothing(st: Statement, fn: Any) -> bool:
    """Whether the statement ``st``, a call of ``fn``, is known to change
    no array and to rebind no global but the one it may store."""
    return st.pure or passes.member(fn, _CHANGES_NOTHING) or analysis.is_math_function(fn)


def _share_array_reads(f: IR, facts: Facts) -> None:
    """``x[i] * x[i]``: a second read of the same item of an array, with
    nothing between the two that could change the array, is the first
    read's value. One value then gets one gradient, added into ``x``'s
    once, and is recorded once for the pullback."""
    env: dict[Var, Operand] = {}
    for b in f.blocks.values():
        seen: dict[tuple, Var] = {}
        kept = []
        for st in b.stmts:
            fn = facts.callee(st)
            args = [env.get(a, a) if isinstance(a, Var) else a for a in st.args]
            if fn is operator.getitem and len(args) == 2 and args[0] in facts.arrays and not st.kwargs:
                key = (args[0], args[1] if isinstance(args[1], Var) else ("const", args[1].value))
                try:
                    hash(key)
                except TypeError:
                    key = None
                if key is not None and key in seen:
                    env[st.var] = seen[key]
                    continue
                if key is not None:
                    seen[key] = st.var
            elif not _changes_nothing(st, fn):
                seen.clear()  # anything else might change an array
            kept.append(st)
        b.stmts = kept
    passes.substitute(f, env)


def _call_array_methods(f: IR, facts: Facts) -> bool:
    """``x.sum(axis=1)`` on a known array becomes ``ndarray.sum(x,
    axis=1)``: a call of a function known at compile time, whose rule can
    be inlined (a bound method read off ``x`` is only known at run time).
    Only where the method is read for that call alone. Whether anything
    changed."""
    defs = {st.var: st for b in f.blocks.values() for st in b.stmts}
    uses, callee_uses = _uses(f)
    methods: dict[Var, tuple[Operand, Any]] = {}
    for v, st in defs.items():
        if (
            facts.callee(st) is getattr and len(st.args) == 2 and st.args[0] in facts.arrays
            and isinstance(st.args[1], Const) and isinstance(st.args[1].value, str)
            and callee_uses.get(v) == 1 and uses[v] == 1
        ):
            method = getattr(np.ndarray, st.args[1].value, None)
            if method is not None and (registry.lookup(method) is not None or registry.is_nondifferentiable(method)):
                methods[v] = (st.args[0], method)
    if not methods:
        return False
    for b in f.blocks.values():
        kept = []
        for st in b.stmts:
            if st.var in methods:
                continue
            if st.callee in methods:
                x, method = methods[st.callee]
                st.callee = Const(method)
                st.args = [x, *st.args]
            kept.append(st)
        b.stmts = kept
    return True


def _uses(ir: IR) -> tuple[dict[Var, int], dict[Var, int]]:
    """How many times each value is read (by statements, jumps and
    terminators), and how many of those reads call it."""
    as_callee: dict[Var, int] = {}
    for b in ir.blocks.values():
        for st in b.stmts:
            if isinstance(st.callee, Var):
                as_callee[st.callee] = as_callee.get(st.callee, 0) + 1
    return passes.use_counts(ir), as_callee


def _over_arrays(f: IR, loop: Block, pre: Block, xs: Var, facts: Facts) -> Optional[tuple[Any, list[Var], list]]:
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


def _unpack_displays(f: IR) -> None:
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


def _source_versions(f: IR, maker: Statement, pre: Block, loop: Block, defs: dict, callee: Callable,
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
            inner = _source_versions(f, defs[a][1], pre, loop, defs, callee, tuples)
            versions.append(f.new_var())
            tuples.append(Statement(versions[-1], Const(runtime.source_versions), inner, [], maker.line))
        else:
            versions.append(entry[a] if a in entry and mutation_pass.changed_in_place(f, entry[a], a) else a)
    return versions
