"""Passes on the adjoint IR that the reverse transform runs after it made the
pullback: stacks of calls, in-place accumulation, needless zero guards
dropped, scatters fused and joined, loops over items given item buffers,
live sets, array reads shared.

May import: the IR, the rules, the runtime, the rest of the compiler below
the reverse transform.
"""
from __future__ import annotations

import inspect
import operator
import types
from typing import Any, Optional

import numpy as np


from .. import runtime
from ..backend.naming import live_sets
from ..ir import ops
from ..ir import passes
from ..ir.cfg import natural_loops, predecessors, reverse_postorder
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Starred, Statement, Var
from .. import registry
from . import mutation
from .analysis import Facts
from .inline import RuleIR
from . import prepare


def stack_calls(ir: IR) -> tuple[dict[str, list[Statement]], dict[Var, str]]:
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


def add_in_place(a: IR, sums: set[Var]) -> None:
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


def call_pullbacks_that_may_get_none(a: IR, invoked: set[int]) -> None:
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


def drop_needless_zero_guards(a: IR, rule_constants: set[int], invoked: set[int]) -> bool:
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


def keywords_by_position(s: Statement, fn: types.FunctionType) -> Statement:
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


passes.FILLS[runtime.spread] = 1  # (a sum's gradient: fused into the product that scales it, as np.full_like)

_DOUBLED = {operator.mul, operator.truediv, operator.neg, runtime.unbroadcast, np.conjugate}
"""Arithmetic whose two equal computations a gradient sum may add (see
:func:`_doubled`)."""


def doubled(a: IR) -> None:
    """``g + h`` where ``h`` computes what ``g`` does (the same arithmetic
    of :data:`_DOUBLED` on the same operands: ``r * r`` gives ``r`` the
    gradient ``dy * r`` twice) becomes ``2 * g``, the same value, exactly,
    with one accumulation, as a person would write it (``h``, unused, is
    then dropped; ``g`` loses its name, to be written into the product).
    So does ``(x + g) + h``, a running sum gaining both, which becomes
    ``x + 2 * g`` (equal up to rounding)."""
    defs = {s.var: s for b in a.blocks.values() for s in b.stmts}

    def same(x: Operand, y: Operand, depth: int = 3) -> bool:
        if x == y:
            return True
        dx, dy = defs.get(x) if isinstance(x, Var) else None, defs.get(y) if isinstance(y, Var) else None
        return depth > 0 and dx is not None and dy is not None and isinstance(dx.callee, Const) \
            and isinstance(dy.callee, Const) and dx.callee.value is dy.callee.value \
            and passes.member(dx.callee.value, _DOUBLED) and not dx.kwargs and not dy.kwargs \
            and len(dx.args) == len(dy.args) and all(same(u, v, depth - 1) for u, v in zip(dx.args, dy.args))

    def is_add(s: Optional[Statement]) -> bool:
        return s is not None and isinstance(s.callee, Const) and s.callee.value is operator.add \
            and len(s.args) == 2 and not s.kwargs

    uses = passes.use_counts(a)
    for s in defs.values():
        if is_add(s) and s.args[0] != s.args[1] and isinstance(s.args[0], Var) and same(*s.args):
            s.callee, s.args = Const(operator.mul), [Const(2), s.args[0]]
            a.names.pop(s.args[1], None)  # (one line: dr = 2 * (dy * r))
            continue
        inner = defs.get(s.args[0]) if is_add(s) and isinstance(s.args[0], Var) else None
        if is_add(inner) and uses.get(inner.var) == 1 and isinstance(inner.args[1], Var) \
                and inner.args[1] != s.args[1] and same(inner.args[1], s.args[1]):
            # (dz = dz + g; dz = dz + g, a running sum gaining the two: dz = dz + 2 * g)
            g = inner.args[1]
            s.args[0], s.args[1] = inner.args[0], inner.var
            inner.callee, inner.args = Const(operator.mul), [Const(2), g]
            a.names.pop(inner.var, None)
            a.names.pop(g, None)


def fuse_scatter_adds(a: IR, item_scatters: set[int]) -> set[int]:
    """``g + scatter(x, key, v)``, the gradient of an indexed array gaining
    one more item's gradient, becomes ``add_at(g, x, key, v)``: one call,
    which extends ``g`` in place of making a scatter and then adding it;
    ``add_to`` when ``g`` is read nowhere else, which may update ``g`` in
    place (it checks at run time that no other reference to it exists).
    Not pure, so that no pass moves or merges it. Returns the ids of those
    made of one of ``item_scatters`` (see :func:`_item_buffers`)."""
    uses, _ = value_uses(a)
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


def join_scatters(a: IR) -> None:
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


def item_buffers(a: IR, item_adds: set[int]) -> bool:
    """In a loop, a gradient that gains only items' gradients
    (``g = add_to(g, x, i, v)``, for items ``x[i]`` of a one-dimensional
    real array at integer indices, as ``item_adds`` says) is a Python list
    of its items' gradients while the loop runs: made where the loop is
    entered (``runtime.item_buffer``), added to with ``g[i] += v``, no call
    per item, and turned back into the gradient where the loop is left
    (``runtime.item_gradient``). So is the gradient of an array the loop
    filled with numbers (``mutation.store_number``), from which each step
    takes an item's gradient (``number_at(g, i)``, then ``g =
    without_number_owned(g, i)``): ``g[i]``, then ``g[i] = 0.0``, on
    ``runtime.number_buffer``'s list. A loop left by more than one edge
    keeps the calls. Returns whether it changed anything."""
    if not item_adds and not any(_is_call(st, mutation.without_number_owned) for b in a.blocks.values()
                                 for st in b.stmts):
        return False
    preds = predecessors(a)
    where = {id(st): b for b in a.blocks.values() for st in b.stmts}
    reads: dict[Var, list[tuple[int, Any]]] = {}  # value -> (block, statement or jump) reading it
    for b in a.blocks.values():
        for st in b.stmts:
            for v in vars_in(st.operands()):
                reads.setdefault(v, []).append((b.id, st))
        for v in vars_in(b.term_operands()):
            reads.setdefault(v, []).append((b.id, b.term))
        for j in b.jumps():
            for v in vars_in(j.args):
                reads.setdefault(v, []).append((b.id, j))
    entry_values = set(a.entry.args) | {st.var for st in a.entry.stmts}

    def adds_item(r: Any, cur: Var) -> bool:
        return id(r) in item_adds and r.args[0] == cur and cur not in r.args[1:] and r.args[1] in entry_values

    def takes_number(r: Any, cur: Var) -> bool:
        return _is_call(r, mutation.without_number_owned) and r.args[0] == cur and cur not in r.args[1:]

    changed = False
    for h, body in natural_loops(a).items():
        exits = [(bid, t) for bid in body for t in a.blocks[bid].successors() if t not in body]
        if len(exits) != 1 or exits[0][0] != h or preds[exits[0][1]] != [h]:
            continue
        out = a.blocks[exits[0][1]]
        header = a.blocks[h]
        for p, g in enumerate(header.args):
            chain, numbers, cur = [], [], g
            while True:
                inside = [(bid, r) for bid, r in reads.get(cur, [])
                          if bid in body and not (isinstance(r, Jump) and r.target not in body)]
                read = [r for _, r in inside if _is_call(r, mutation.number_at) and r.args[0] == cur
                        and cur not in r.args[1:]]
                inside = [(bid, r) for bid, r in inside if not any(r is n for n in read)]
                numbers += read
                if len(inside) != 1:
                    break
                bid, r = inside[0]
                if isinstance(r, Jump):
                    if r.target == h and r.args.index(cur) == p and r.args.count(cur) == 1 and chain:
                        chain.append(r)
                    break
                if not (adds_item(r, cur) or takes_number(r, cur)):
                    break
                chain.append(r)
                cur = r.var
            if not chain or not isinstance(chain[-1], Jump):
                continue
            steps = chain[:-1]
            taken = all(takes_number(st, st.args[0]) for st in steps)
            if not taken and (numbers or len({st.args[1] for st in steps}) != 1
                              or not all(adds_item(st, st.args[0]) for st in steps)):
                continue
            x = None if taken else steps[0].args[1]
            for q in preds[h]:
                if q in body:
                    continue
                stmts = a.blocks[q].stmts
                for j in a.blocks[q].jumps():
                    if j.target == h:
                        buf = a.new_var(a.names.get(g))
                        at = max((k + 1 for k, st in enumerate(stmts) if st.var in (j.args[p], x)), default=0)
                        stmts.insert(at, Statement(buf, Const(runtime.number_buffer), [j.args[p]]) if taken
                                     else Statement(buf, Const(runtime.item_buffer), [j.args[p], x]))
                        j.args[p] = buf
            env = {}
            for st in steps:
                b = where[id(st)]
                at = b.stmts.index(st)
                if taken:
                    b.stmts[at:at + 1] = [Statement(a.new_var(), Const(operator.setitem), [g, st.args[1], Const(0.0)],
                                                    [], st.line, False)]
                else:
                    old, new = a.new_var(), a.new_var()
                    _, _, key, v = st.args
                    b.stmts[at:at + 1] = [Statement(old, Const(operator.getitem), [g, key], [], st.line),
                                          Statement(new, Const(operator.iadd), [old, v], [], st.line),
                                          Statement(a.new_var(), Const(operator.setitem), [g, key, new], [], st.line,
                                                    False)]
                env[st.var] = g
            for r in numbers:  # (read before the step that zeros it: not pure, so that nothing moves it past that)
                r.callee, r.pure = Const(operator.getitem), False
            passes.substitute(a, env)
            leaving = next(j for j in header.jumps() if j.target == out.id)
            for v in [g, *(q for q, w in zip(out.args, leaving.args) if w == g)]:  # (the list, after the loop)
                done = a.new_var(a.names.get(v))
                passes.substitute(a, {v: done}, set(a.blocks) - body)
                out.stmts.insert(0, Statement(done, Const(runtime.number_gradient), [v], [], None, True) if taken
                                 else Statement(done, Const(runtime.item_gradient), [v, x], [], None, True))
            changed = True
    return changed


def numbers_stored_in_place(f: IR) -> None:
    """``y_1 = mutation.store_number(y, k, v)`` in the forward pass ``f``
    (an array the function made and fills with numbers; its rule needs
    nothing of it) becomes ``y[k] = v``: ``y_1`` is ``y``, the same
    object, so every read of it reads ``y`` (the pullback reads the
    forward pass's values through cells, which ``f`` stores)."""
    env: dict[Var, Operand] = {}
    for b in f.blocks.values():
        for st in b.stmts:
            if _is_call(st, mutation.store_number):
                env[st.var] = st.args[0]
                st.var, st.callee = f.new_var(), Const(operator.setitem)
    passes.substitute(f, env)


def _is_call(st: Any, fn: Any) -> bool:
    return isinstance(st, Statement) and isinstance(st.callee, Const) and st.callee.value is fn


_IN_PLACE_FORMS = {runtime.add_at: runtime.add_to, mutation.take_item: mutation.take_item_owned,
                   mutation.without_number: mutation.without_number_owned}
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
    _, live_out = adjoint_live_sets(a, order)
    for bid in order:
        live = set(live_out[bid]) | _read_at_end(a.blocks[bid])
        for st in reversed(a.blocks[bid].stmts):
            fn = st.callee.value if isinstance(st.callee, Const) else None
            if passes.member(fn, _IN_PLACE_FORMS) and st.args[0] not in live:
                st.callee = Const(_IN_PLACE_FORMS[fn])
                st.pure = False
            live.discard(st.var)
            live |= vars_in(st.operands())


def vars_in(ops_: list) -> set[Var]:
    return {v for v in ops_ if isinstance(v, Var)}


def _read_at_end(b: Block) -> set[Var]:
    """The values a block's terminator and jumps read."""
    return vars_in(b.term_operands() + [v for j in b.jumps() for v in j.args])


def adjoint_live_sets(ir: IR, order: list[int], also_read: Optional[dict[Var, set[Var]]] = None
               ) -> tuple[dict[int, set[Var]], dict[int, set[Var]]]:
    """Live-in and live-out values of every block of ``ir``; the statement
    making a key of ``also_read`` reads its values too."""
    def at_entry(bid: int) -> set[Var]:
        h = ir.blocks[bid].handler
        return vars_in(h.args) if h else set()

    extra = also_read or {}
    return live_sets(
        ir, order, lambda bid: _read_at_end(ir.blocks[bid]),
        lambda bid: [(st.var, vars_in(st.operands()) | extra.get(st.var, set())) for st in ir.blocks[bid].stmts],
        at_entry,
    )


_ELEMENTWISE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.mod, operator.pow}


def takes_zero(r: RuleIR) -> bool:
    """Whether ``r``'s pullback takes the number 0 (no gradient yet) for
    an array's gradient: an elementwise operation's (whose gradient can be
    a number: it broadcasts), and ``mutation.store_number``'s, so that a
    loop filling an array keeps its pullback's list of numbers (see
    :func:`item_buffers`) where the array may get no gradient."""
    return isinstance(r.target, np.ufunc) or passes.member(r.target, _ELEMENTWISE) or r.target is mutation.store_number


def same_shape(r: RuleIR, args: list[Operand], numbers: set[Var]) -> frozenset[str]:
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


def share_array_reads(f: IR, facts: Facts) -> None:
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
            elif not prepare.changes_nothing(st, fn):
                seen.clear()  # anything else might change an array
            kept.append(st)
        b.stmts = kept
    passes.substitute(f, env)


def call_array_methods(f: IR, facts: Facts) -> bool:
    """``x.sum(axis=1)`` on a known array becomes ``ndarray.sum(x,
    axis=1)``: a call of a function known at compile time, whose rule can
    be inlined (a bound method read off ``x`` is only known at run time).
    Only where the method is read for that call alone. Whether anything
    changed."""
    defs = {st.var: st for b in f.blocks.values() for st in b.stmts}
    uses, callee_uses = value_uses(f)
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


def value_uses(ir: IR) -> tuple[dict[Var, int], dict[Var, int]]:
    """How many times each value is read (by statements, jumps and
    terminators), and how many of those reads call it."""
    as_callee: dict[Var, int] = {}
    for b in ir.blocks.values():
        for st in b.stmts:
            if isinstance(st.callee, Var):
                as_callee[st.callee] = as_callee.get(st.callee, 0) + 1
    return passes.use_counts(ir), as_callee
