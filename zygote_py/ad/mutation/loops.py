"""Loops over an object that the loop changes in place (``for v in xs: xs[i]
= ...``): read by their index as they go (:func:`index_changed_loops`), as
Python's iterator does.

May import: the IR, the compiler's analysis, the rest of this package.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

from ..analysis import Facts
from ...ir import ops
from ...ir.cfg import natural_loops
from ...ir.core import IR, Block, Branch, Const, Jump, Operand, Starred, Statement, Var
from ...ir.passes import member
from . import effects, sharing, versions


def index_changed_loops(f: IR, facts: Facts) -> bool:
    """Forward mode's share of :func:`_over_the_object`: a loop over
    ``zip`` or ``enumerate`` of an array or a list that it changes in place
    reads it by index (over the object itself, Python's own iterator reads
    the change). Whether any changed."""
    changed = False
    plain = facts.arrays | facts.numeric | set(facts.static)
    while True:
        defs = {s.var: (b, s) for b in f.blocks.values() for s in b.stmts}

        def change_of(st: Statement) -> Optional[tuple]:
            return versions.as_change(st, defs, facts.callee, facts.arrays, plain)
        if not any((c := change_of(s)) is not None and versions.keeps_length(c[1], c[2], defs, facts.callee, facts.arrays)
                   and over_the_object(f, b, sharing.same_object(f, c[0], defs, facts.callee), defs, facts.callee,
                                        facts.arrays | facts.sequences, change_of, iterators_only=True)
                   for b, s in defs.values()):
            return changed
        changed = True


def over_the_object(f: IR, block: Block, same: set[Var], defs: dict, callee: Callable, sequences: set[Var],
                     change_of: Callable[[Statement], Optional[tuple]], iterators_only: bool = False) -> bool:
    """A for loop, around ``block``, over the object ``same`` holds (an
    array or a list, one of ``sequences`` or made as a list), or over
    ``zip`` and ``enumerate`` of it and of other such values (``for i, (e,
    w) in enumerate(zip(y, ws))``), where no change in the loop (by
    ``change_of``) changes the length of any of them: made ``for k in
    range(min(len(y), len(ws))): i, (e, w) = k, (y[k], ws[k])``, with each
    as it is at the start of each step, which is what Python's iterators
    read. ``False`` (nothing changed) when there is no such loop (a dict
    yields its keys), or one binds a variable to another object. (With
    ``iterators_only``, not a loop over the object itself.)"""
    loops = natural_loops(f)
    for h in sorted(f.blocks.values(), key=lambda b: b.id):
        if block.id not in loops.get(h.id, ()) or len(h.stmts) != 2 or not isinstance(h.term, Branch) \
                or callee(h.stmts[0]) is not ops.iternext or h.stmts[0].args[0] not in defs:
            continue
        pre, maker = defs[h.stmts[0].args[0]]
        tree = _iterated(maker.args[0], defs, callee) if callee(maker) is iter and len(maker.args) == 1 \
            and not maker.kwargs else None
        leaves = _leaves(tree)
        if iterators_only and not isinstance(tree, tuple) or not any(x in same for x in leaves) or not all(
                x in sequences or member(sharing.defining_call(x, defs, callee), {ops.build_list, list})
                or sharing.is_array(x, defs, callee, sequences) for x in leaves):
            continue
        entering = [j for bb in f.blocks.values() for j in bb.jumps() if j.target == h.id]
        current = {}  # (each leaf as the step starts: the header's argument that carries it)
        for x in leaves:
            def of_x(v: Operand) -> bool:
                """Whether ``v`` may be the object ``x`` is, changed or not."""
                return x in sharing.same_object(f, v, defs, callee)
            if any((c := change_of(st) or _versioned(st, callee)) is not None and of_x(c[0])
                   and not versions.keeps_length(c[1], c[2], defs, callee, sequences)
                   for bid in loops[h.id] for st in f.blocks[bid].stmts):
                return False
            at = [i for i, p in enumerate(h.args) if of_x(p)]
            if len(at) > 1 or at and not all(j.args[at[0]] == x or h.args[at[0]] in sharing.same_object(
                    f, j.args[at[0]], defs, callee) for j in entering):
                return False
            current[x] = h.args[at[0]] if at else x
        index_loop(f, h, pre, maker, leaves, _substitute_leaves(tree, current))
        return True
    return False


def _iterated(xs: Operand, defs: dict, callee: Callable) -> Any:
    """What ``iter(xs)`` goes over: ``xs`` itself, or for ``xs`` made by
    ``zip(a, b)`` or ``enumerate(a, start)``, ``(zip, [a's, b's])`` or
    ``(enumerate, start, a's)``; ``None`` for any other iterator."""
    if not isinstance(xs, Var) or xs not in defs:
        return xs
    st = defs[xs][1]
    fn = callee(st)
    if fn not in (zip, enumerate, map, filter, reversed):
        return xs
    if st.kwargs or any(isinstance(a, Starred) for a in st.args) or fn is enumerate and len(st.args) > 2:
        return None
    if fn is zip:
        parts = [_iterated(a, defs, callee) for a in st.args]
        return (zip, parts) if parts and all(p is not None for p in parts) else None
    if fn is enumerate:
        part = _iterated(st.args[0], defs, callee)
        return None if part is None else (enumerate, st.args[1] if len(st.args) > 1 else Const(0), part)
    return None


def _leaves(tree: Any) -> list[Operand]:
    """The values :func:`_iterated`'s ``tree`` reads items of."""
    if tree is None:
        return []
    if isinstance(tree, tuple):
        return [x for part in (tree[1] if tree[0] is zip else [tree[2]]) for x in _leaves(part)]
    return [tree]


def _substitute_leaves(tree: Any, current: dict) -> Any:
    if isinstance(tree, tuple):
        return (zip, [_substitute_leaves(p, current) for p in tree[1]]) if tree[0] is zip \
            else (enumerate, tree[1], _substitute_leaves(tree[2], current))
    return current[tree]


def _versioned(st: Statement, callee: Callable) -> Optional[tuple]:
    """``(object, operation, arguments)`` of a change already versioned."""
    fn = callee(st)
    return (st.args[0], fn, st.args) if member(fn, effects.VERSIONED) and st.args else None


def index_loop(f: IR, header: Block, pre: Block, maker: Statement, sized: list[Operand], tree: Any) -> Var:
    """The for loop with ``header`` (``item = iternext(it)``, then whether
    it is exhausted), over ``it = iter(...)`` (``maker``, in ``pre``), made
    to go over ``range(len(xs))`` for the shortest ``xs`` of ``sized`` and
    read its item as ``tree`` (see :func:`_iterated`) at ``k`` at the start
    of each step: ``source[k]`` for a value ``source``, a tuple for
    ``zip`` and ``enumerate``; returns ``k``."""
    nxt, done = header.stmts
    n, r, k = f.new_var(), f.new_var(), f.new_var()
    lengths = [Statement(f.new_var(), Const(len), [xs], [], maker.line) for xs in sized] if len(sized) > 1 else []
    shortest = Statement(n, Const(min), [x.var for x in lengths], [], maker.line) if lengths \
        else Statement(n, Const(len), list(sized), [], maker.line)
    at = pre.stmts.index(maker)
    pre.stmts[at:at] = [*lengths, shortest, Statement(r, Const(range), [n], [], maker.line)]
    maker.args = [r]
    item = nxt.var
    nxt.var = k
    done.args = [k]
    body = f.blocks[header.term.orelse.target]
    starts_a_try = body.handler is not None and (header.handler is None or header.handler.target != body.handler.target)
    if body.id == header.id or body.args or starts_a_try:
        # (an empty body, threaded away, or a try block, whose handler would skip the read's pullback: the read
        # gets a block of its own, in the try block the loop is in)
        body = f.new_block()
        body.term, header.term.orelse = header.term.orelse, Jump(body.id, [])
        if starts_a_try and header.handler is not None:
            body.handler = Jump(header.handler.target, list(header.handler.args))
    reads: list[Statement] = []
    _read(f, tree, k, item, nxt.line, reads)
    body.stmts[0:0] = reads
    return k


def _read(f: IR, tree: Any, k: Var, out: Var, line: Optional[int], reads: list[Statement]) -> None:
    """Append to ``reads`` the statements that read ``tree``'s item ``k``
    (see :func:`index_loop`) into ``out``."""
    if not isinstance(tree, tuple):
        reads.append(Statement(out, Const(operator.getitem), [tree, k], [], line))
        return
    parts = tree[1] if tree[0] is zip else [tree[2]]
    items = [f.new_var() for _ in parts]
    for part, v in zip(parts, items):
        _read(f, part, k, v, line, reads)
    if tree[0] is enumerate:
        start = tree[1]
        if not (isinstance(start, Const) and type(start.value) is int and start.value == 0):
            i = f.new_var()
            reads.append(Statement(i, Const(operator.add), [k, start], [], line))
        else:
            i = k
        items.insert(0, i)
    reads.append(Statement(out, Const(ops.build_tuple), items, [], line))


def passed_on(f: IR, same: set[Var]) -> bool:
    """Whether a value of ``same`` reaches a block argument that is not
    one of them (``w = v`` on one of several paths)."""
    return any(a in same and p not in same for b in f.blocks.values() for j in b.jumps()
               for a, p in zip(j.args, f.blocks[j.target].args))
