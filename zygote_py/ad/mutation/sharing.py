"""What else may hold an object that a change in place reaches: the items and
fields of containers, views and aliases of it (:func:`held_items`,
:func:`part_aliases`), whether it is fresh (made in the function, so that no
caller holds it), and the refusals, at the user's line, of changes the pass
cannot follow (another name for the object, a holder read after the change).

May import: the IR, the compiler's analysis, the rest of this package.
"""
from __future__ import annotations

import operator
import types
from typing import Any, Callable, Optional

import numpy as np

from ... import runtime
from ...errors import UnsupportedSyntax
from ..analysis import Facts
from ..cells import captured_names
from ...ir import ops
from ...ir.core import IR, Block, Const, Raise, Starred, Statement, Var
from ...ir.passes import member, use_counts
from . import operations as mut
from . import effects, versions


def held_items(f: IR, defs: dict, callee: Callable, arrays: set[Var], facts: Facts, owned: bool) -> set[Var]:
    """Items and fields of objects that are not arrays (``p[k]`` of a
    dict, ``self.w``), not known to be numbers, that an in-place operator
    changes: arrays or numbers, which a change of them stores back
    (``p[k] -= lr * g[k]``; see :func:`_part_of` and :func:`_part_aliases`).
    Not those of an (object, value) pair this pass made; not, unless
    ``owned``, those of a parameter: a differentiated caller's
    pullbacks may hold its arrays; nor those of a gradient's buffer of
    items (``runtime.item_buffer``, in gradient code differentiated again),
    which add numbers up."""
    out = set()
    for _, st in defs.values():
        v = st.args[0] if member(callee(st), effects.IN_PLACE) and len(st.args) == 2 else None
        if isinstance(v, Var) and v in defs and v not in facts.scalars and v not in arrays:
            read = defs[v][1]
            if callee(read) in (operator.getitem, getattr) and read.args and isinstance(read.args[0], Var) \
                    and read.args[0] not in arrays \
                    and not member(defining_call(read.args[0], defs, callee), effects.PAIRS) \
                    and not any(member(defining_call(w, defs, callee), effects.NUMBER_LISTS)
                                for w in same_object(f, read.args[0], defs, callee)) \
                    and (owned or not _from_parameters(f, read.args[0], defs, callee)):
                out.add(v)
    return out


def _from_parameters(f: IR, v: Var, defs: dict, callee: Callable) -> bool:
    """Whether ``v`` may be a parameter, or a part of one (``self.layers``)."""
    return any(w in f.entry.args or w in defs and callee(defs[w][1]) in (operator.getitem, getattr, ops.iternext)
               and isinstance(defs[w][1].args[0], Var) and _from_parameters(f, defs[w][1].args[0], defs, callee)
               for w in same_object(f, v, defs, callee)) or v not in defs


def part_aliases(f: IR, root: Var, defs: dict, callee: Callable, facts: Facts) -> set[Var]:
    """For ``root``, an item or field (``p[k]``, ``self.w``) that an
    in-place operator changes, the other values that may be the same
    array: the other reads of that part, and the values put there
    (``p = {"w": w}``). A pullback that read one of them before the change
    must keep a copy, and none may be read after it (see :func:`_holders`)."""
    st = defs[root][1]
    fn, (parent, key) = callee(st), st.args
    parents = same_object(f, parent, defs, callee)
    reads = {v for v, (_, r) in defs.items() if v != root and callee(r) is fn and len(r.args) == 2
             and r.args[0] in parents and versions.same_operands(r.args[1:], [key])}
    return reads | {v for v in versions.placed_in(f, parent, key, defs, callee, set()) if v not in facts.scalars}


def _array_or_number(st: Statement, callee: Callable) -> bool:
    """Whether ``st`` makes a new array or number: a ufunc's result,
    arithmetic, or such a value changed by an in-place operator."""
    fn = callee(st)
    return (isinstance(fn, np.ufunc) and fn.nout == 1 and not st.kwargs or member(fn, effects.ARITHMETIC)) \
        and any(isinstance(a, Var) for a in st.args) or fn is mut.update_maybe_array


def maybe_array_values(f: IR, defs: dict, callee: Callable, arrays: set[Var], scalars: set[Var]) -> frozenset:
    """The values, not known to be numbers, that are arrays or numbers: a
    ufunc's result (``np.tanh(h(x))``), arithmetic (``h(x) * 0.5``), an
    array or such a value changed by an in-place operator, and a block
    argument that only these and arrays reach (a greatest fixed point)."""
    incoming = versions.incoming_values(f)
    changes = {v: st.args[0] for v, (_, st) in defs.items()
               if member(callee(st), effects.IN_PLACE) and len(st.args) == 2 and v not in scalars}
    joins = {p: incoming[p] for p in incoming if p not in f.entry.args and p not in scalars}
    out = {v for v, (_, st) in defs.items() if v not in scalars and _array_or_number(st, callee)} | set(changes) \
        | set(joins)
    changed = True
    while changed:
        changed = False
        for v in list(out):
            reach = [changes[v]] if v in changes else joins.get(v, ())
            if not all(isinstance(a, Var) and (a in out or a in arrays) for a in reach):
                out.discard(v)
                changed = True
    return frozenset(out)


def is_array(v: Var, defs: dict, callee: Callable, arrays: set[Var]) -> bool:
    """Whether ``v`` is known to be an array (not a number nor a NumPy
    scalar, which ``+=`` replaces instead of changing)."""
    while v in defs and member(callee(defs[v][1]), effects.VERSIONED):  # a changed array is still one
        st = defs[v][1]
        v = st.args[0]
        if not isinstance(v, Var):
            return False
    fn = callee(defs[v][1]) if v in defs else None
    if member(fn, effects.MAY_BE_SCALARS):
        return False
    if member(fn, effects.IN_PLACE):  # u *= 0.5 of an array u is u itself
        u = defs[v][1].args[0]
        return isinstance(u, Var) and is_array(u, defs, callee, arrays)
    if member(fn, effects.ARITHMETIC) or isinstance(fn, np.ufunc):  # x * 1.0 of an array x is a new array
        return any(isinstance(a, Var) and is_array(a, defs, callee, arrays) for a in defs[v][1].args)
    if v in arrays:
        return True
    return member(fn, effects.FRESH_ARRAYS) or member(fn, effects.NEW_RESULTS) or fn is not None and copy_method(v, defs, callee) \
        and is_array(defs[defs[v][1].callee][1].args[0], defs, callee, arrays)


def only_arrays(f: IR, arrays: set[Var], defs: dict, callee: Callable) -> set[Var]:
    """``arrays`` (arrays or NumPy scalars) without the block arguments that
    a value not known to be an array may reach (a greatest fixed point)."""
    incoming = versions.incoming_values(f)
    out = set(arrays)
    while True:
        wrong = {p for p in out if p in incoming and p not in f.entry.args and not all(
            v == p or isinstance(v, Var) and is_array(v, defs, callee, out) for v in incoming[p])}
        if not wrong:
            return out
        out -= wrong


def defining_call(v: Var, defs: dict, callee: Callable) -> Any:
    return callee(defs[v][1]) if v in defs else None


def is_fresh(f: IR, root: Var, defs: dict, callee: Callable, made: set[Var], block: Block,
              change: Statement) -> bool:
    """A change must be to a parameter, a new object, a changed one, or a
    block argument that only such values reach, none of which is read
    where the change may have run before (another name for the object,
    which would not see it)."""
    seen: set[Var] = set()

    def fresh(v: Var) -> bool:
        if v in seen or v in f.entry.args or v in made:
            return True
        seen.add(v)
        fn = defining_call(v, defs, callee)
        if (member(fn, effects.FRESH) or member(fn, effects.VERSIONED) or member(fn, effects.ARITHMETIC) or isinstance(fn, (type, np.ufunc))
                or copy_method(v, defs, callee) or member(fn, effects.NEW_RESULTS) and no_out(defs[v][1], fn)
                or isinstance(fn, types.FunctionType) and versions.returns_new(fn)):
            return True
        if member(fn, effects.IN_PLACE):  # u *= 0.5: u itself, if an array
            u = defs[v][1].args[0]
            return isinstance(u, Var) and fresh(u)
        if member(fn, effects.VIEWS) and defs[v][1].args and isinstance(defs[v][1].args[0], Var) \
                and use_counts(f).get(defs[v][1].args[0]) == 1:  # np.reshape(flat, shape) of a new array, read once
            return fresh(defs[v][1].args[0])
        if fn is operator.getitem and member(defining_call(defs[v][1].args[0], defs, callee), effects.PAIRS):
            pair = defs[defs[v][1].args[0]][1]  # the object out of an (object, value) pair, or obj.copy()'s value
            copied = callee(pair) is mut.call_method and len(pair.args) == 2 and is_const(pair.args[1], "copy")
            return is_const(defs[v][1].args[1], 0) or copied
        if v in defs:
            return False
        incoming = [j.args[b.args.index(v)] for b in f.blocks.values() if v in b.args
                    for p in f.blocks.values() for j in p.jumps() if j.target == b.id]
        # (root, or what changes of it made, around a loop; or a value no read of which runs after
        # the change: the object under another name, or the same name passed the unchanged object
        # again, would not see it)
        return all(isinstance(a, Var) and (root in same_object(f, a, defs, callee)
                                           or not read_after(f, a, block, change)) and fresh(a) for a in incoming)

    return fresh(root)


def read_after(f: IR, v: Var, block: Block, change: Statement) -> bool:
    """Whether a read of ``v`` may run after ``change`` (in ``block``)
    with ``v`` still bound as it was: on a path from the change that does
    not pass ``v``'s definition again."""
    home = next(b.id for b in f.blocks.values() if v in b.args or any(st.var == v for st in b.stmts)) \
        if v not in f.entry.args else f.entry.id
    later = later_blocks(f, block, {home})
    for b in f.blocks.values():
        if b.id in later:
            reads = b.stmts
        elif b is block and not any(st.var == v for st in b.stmts[b.stmts.index(change):]):
            reads = b.stmts[b.stmts.index(change) + 1:]
        else:
            continue  # (or bound again after the change)
        if any(v in list(st.operands()) for st in reads) or v in b.term_operands() \
                or any(v in j.args for j in b.jumps()):
            return True
    return False


def exits_a_with(handler: Block, callee: Callable) -> bool:
    """Whether ``handler`` is a ``with`` block's (which reads the
    exception's ``__traceback__`` for ``__exit__``), not an ``except``."""
    return any(callee(st) is getattr and is_const(st.args[1], "__traceback__") for st in handler.stmts)


def may_raise_after(f: IR, block: Block, change: Statement) -> bool:
    """Whether an exception may reach ``block``'s handler after ``change``
    was made: from a statement after it in the block, a ``raise``, or a
    block after it that the same handler protects. (The handler is passed
    the object as it was: right when the change itself raises.)"""
    if block.stmts[-1] is not change or isinstance(block.term, Raise):
        return True
    todo, seen = [j.target for j in block.jumps()], set()
    while todo:
        bid = todo.pop()
        if bid in seen:
            continue
        seen.add(bid)
        nxt = f.blocks[bid]
        if nxt.handler is not None and nxt.handler.target == block.handler.target:
            if nxt.stmts or isinstance(nxt.term, Raise):
                return True
            todo += [j.target for j in nxt.jumps()]
    return False


def read_from_handler(f: IR, block: Block, same: set[Var]) -> bool:
    """Whether the exception handler of ``block`` is passed one of
    ``same``, or it or a block after it reads one."""
    region = {block.handler.target} | later_blocks(f, f.blocks[block.handler.target])
    return any(a in same for a in block.handler.args) or any(
        any(isinstance(o, Var) and o in same for o in list(st.operands()) + [st.callee]) for bid in region
        for st in f.blocks[bid].stmts) or any(
        o in same for bid in region for o in f.blocks[bid].term_operands() + [a for j in f.blocks[bid].jumps()
                                                                            for a in j.args])


def later_blocks(f: IR, block: Block, stop: set[int] = frozenset()) -> set[int]:
    """The blocks reachable from ``block``'s end without entering one of ``stop``."""
    succ = versions.successors(f)
    later: set[int] = set()
    todo = list(succ[block.id])
    while todo:
        n = todo.pop()
        if n not in later and n not in stop:
            later.add(n)
            todo += succ[n]
    return later


def same_object(f: IR, root: Var, defs: dict, callee: Callable) -> set[Var]:
    """The values that may be the object ``root`` is: itself, the versions
    it was made from by earlier changes, and (through block arguments)
    the values a variable may have held before it."""
    incoming = versions.incoming_values(f)
    out: set[Var] = set()
    todo: list = [root]
    while todo:
        v = todo.pop()
        if not isinstance(v, Var) or v in out:
            continue
        out.add(v)
        if v not in defs:
            todo += incoming.get(v, ())
            continue
        st = defs[v][1]
        fn = callee(st)
        if member(fn, effects.VERSIONED) or member(fn, effects.IN_PLACE):
            todo.append(st.args[0])
        elif fn is operator.getitem and is_const(st.args[1], 0) and member(defining_call(st.args[0], defs, callee), effects.PAIRS):
            todo.append(defs[st.args[0]][1].args[0])
    return out


def object_of(f: IR, root: Var, defs: dict, callee: Callable) -> set[Var]:
    """:func:`_same_object`, and for a part (``d["m"]``, ``self.items``),
    the other reads of that part, which are the object too."""
    out = same_object(f, root, defs, callee)
    st = defs[root][1] if root in defs else None
    if st is None or callee(st) not in (getattr, operator.getitem) or len(st.args) != 2 \
            or not isinstance(st.args[0], Var):
        return out
    parents = object_of(f, st.args[0], defs, callee)
    grown = True
    while grown:  # (and the shallow copies of it, which hold the same parts, and what it is a copy of)
        copies = {v for v, (_, c) in defs.items() if member(callee(c), effects.SHALLOW_COPIES) and c.args
                  and (v in parents or c.args[0] in parents)}
        more = set().union(*(same_object(f, v, defs, callee) | same_object(f, defs[v][1].args[0], defs, callee)
                             for v in copies if isinstance(defs[v][1].args[0], Var)))
        grown = not more <= parents
        parents |= more
    for v, (_, other) in defs.items():
        if callee(other) is callee(st) and len(other.args) == 2 and other.args[0] in parents \
                and versions.same_operands(other.args[1:], st.args[1:]):
            out |= same_object(f, v, defs, callee)
    return out


def held_after(f: IR, same: set[Var], root: Var, block: Block, change: Statement, defs: dict, callee: Callable,
                facts: Facts, aliases: set[Var] = frozenset(), made_new: Optional[list[Statement]] = None
                ) -> tuple[Optional[Var], list[tuple[Block, Statement]], list[tuple]]:
    """A value that may hold the changed object or share its memory (a
    view ``w = y[1:]``, a container ``[y]``, an iterator over it, another
    name a variable passed it to), made before ``change`` and read after
    it, which would not see the change (``None`` when there is none); the
    reads of an array's item at integers (``y[i]``, a number unless the
    array has more dimensions) read after it, which
    ``mutation.not_a_view`` checks at run time; and the differentiated
    statements before the change that read such a value or item (not one
    made from a copy of the object, see :func:`snapshot_reads`), as
    ``(block, statement, value)``: their pullbacks run after the change,
    so they must read a copy (``mutation.snapshot_holder``). ``same``: the
    values the object may be (see :func:`_same_object`); ``aliases``: values made before the change that
    may be it too (see :func:`_part_aliases`), holders from the start. With
    a list ``made_new``, arithmetic (``2 * v``) holds nothing, as it does
    where its value is a number or an array, nor does a container that
    only a key read from the object was stored under (``g[k] = 1.0``),
    as where the key is a string or a number: ``mutation.made_new`` checks
    each where it runs, and each is put into the list as ``(statement,
    the value to check after it)``."""
    held, items, before = _holders(f, same, root, block, change, defs, callee, facts, aliases, made_new)
    copied: set[Var] = set()  # (made from a copy: snapshot_reads gives one to a differentiated read of the object)
    grown = True
    while grown:
        grown = False
        for h in held - copied:
            st = defs[h][1] if h in defs else None
            made_from = [o for o in st.operands() if o in same or o in held] if st is not None else []
            if made_from and not member(callee(st), effects.ITERATORS) and all(
                    o in copied or o in same and h in facts.active and not versions.shape_read(st, o, callee)
                    for o in made_from):
                copied.add(h)
                grown = True
    loose = (held - copied) | {st.var for st in items}
    kept = [(b, r, h) for b in f.blocks.values() for r in b.stmts
            if r.var in facts.active and r is not change and any(o in loose for o in r.operands())
            and not member(callee(r), effects.KEEP_NO_VALUES) and not member(callee(r), effects.IN_PLACE)  # (a change of it)
            and before(b, r)
            for h in sorted({o for o in r.operands() if o in loose} - {r.var}, key=lambda v: v.id)
            if not versions.shape_read(r, h, callee)]
    holder = next((h for h in sorted(held, key=lambda v: v.id) if read_after(f, h, block, change)), None)
    read = {st.var for st in items if read_after(f, st.var, block, change)}
    return holder, [(b, st) for b in f.blocks.values() for st in b.stmts if st.var in read], kept


def read_by_the_gradient(f: IR, root: Var, block: Block, change: Statement, defs: dict, callee: Callable,
                          facts: Facts) -> bool:
    """Whether a differentiated statement that may run before ``change``
    reads the object ``root`` changes, or a value that may hold it, or
    calls a nested function whose cell holds it: its pullback may keep
    the object, and must see it as it was, so the change is made a new
    value even where it is not differentiated."""
    same = object_of(f, root, defs, callee)
    if root in defs and callee(defs[root][1]) is ops.load_global:  # (each read of a global is the object)
        same |= {st.var for b in f.blocks.values() for st in b.stmts
                 if callee(st) is ops.load_global and versions.same_operands(st.args, defs[root][1].args)}
    held, items, before = _holders(f, same, root, block, change, defs, callee, facts)
    reading = same | held | {st.var for st in items}
    cells = {st.args[0].value for b in f.blocks.values() for st in b.stmts
             if callee(st) is ops.store_deref and st.args[1] in reading
             or callee(st) is ops.load_deref and st.var in same}
    return any(
        st.var in facts.active and (
            any(isinstance(o, Var) and o in reading for o in st.operands())
            or isinstance(st.callee, Var) and st.callee in defs and callee(defs[st.callee][1]) is ops.make_function
            and cells & captured_names(defs[st.callee][1].args[0].value)) and before(b, st)
        for b in f.blocks.values() for st in b.stmts if st is not change)


def _holders(f: IR, same: set[Var], root: Var, block: Block, change: Statement, defs: dict, callee: Callable,
             facts: Facts, aliases: set[Var] = frozenset(), made_new: Optional[list[Statement]] = None
             ) -> tuple[set[Var], list[Statement], Callable[[Block, Statement], bool]]:
    """The values made before ``change`` that may hold the object (see
    :func:`_held_after`), the reads of its items at integers, and the test
    of whether a statement may run before the change with the object as
    it is."""
    made_by = [defining_call(v, defs, callee) for v in same]
    made = {defs[v][0].id for v in same if v in defs and not member(callee(defs[v][1]), effects.VERSIONED)
            and not member(callee(defs[v][1]), effects.IN_PLACE) and callee(defs[v][1]) not in (operator.getitem, getattr)}
    # (an item of a list, an attribute of an object: not the object)
    array = not any(member(fn, effects.CONTAINERS) or isinstance(fn, type) and not issubclass(fn, np.ndarray)
                    or fn is mut.init_object for fn in made_by)
    numbers = any(member(fn, effects.NUMBER_LISTS) for fn in made_by)  # (its items: numbers, which hold nothing)
    dicts = {ops.build_dict, dict, dict.copy}
    a_dict = any(member(fn, dicts) for fn in made_by) and all(
        fn is None or member(fn, dicts) or member(fn, effects.VERSIONED) for fn in made_by)  # (None: a block argument)

    preds: dict[int, list[int]] = {}
    for bid, targets in versions.successors(f).items():
        for t in targets:
            preds.setdefault(t, []).append(bid)
    leading = set()  # the blocks from whose end the change's block is reached, short of the object's making
    todo = [block.id] if block.id not in made else []
    while todo:
        for p in preds.get(todo.pop(), ()):
            if p not in leading:
                leading.add(p)
                if p not in made:
                    todo.append(p)
    order = {id(x): i for i, x in enumerate(block.stmts)}  # (by identity: statements compare by value)

    def before(b: Block, st: Statement) -> bool:
        """Whether ``st`` may run before the change with the object as it is
        (not before the statement that makes the object runs again)."""
        return b is block and order[id(st)] < order[id(change)] or b.id in leading

    def holds(st: Statement) -> bool:
        """Whether the result of ``st``, which reads the object or a value
        holding it, may hold it."""
        fn = callee(st)
        if (st.var in facts.scalars or member(fn, effects.NEW_VALUES) or isinstance(fn, np.ufunc)
                or member(fn, effects.MAY_BE_SCALARS) or member(fn, effects.FRESH_ARRAYS)
                or member(fn, effects.NEW_RESULTS) and no_out(st, fn)):
            return False
        if member(fn, effects.ITERATORS):  # (over the object itself: checked when it runs; see runtime.EagerIterator)
            return any(isinstance(o, Var) and o in held for o in st.args)
        if _array_copy(st, defs, callee, facts):  # (hist.append(v.copy()): a new array of new numbers)
            return False
        if a_dict and member(fn, effects.KEY_LISTS) and st.args and st.args[0] in same:
            return False  # (sorted(d), list(d): d's keys)
        if member(fn, effects.PAIRS):
            return False  # (the object, and the value, which are read out of the pair below)
        if fn in (mut.write_back, mut.write_back_attribute, mut.part_changed, mut.attribute_changed):
            return False  # (the object a part of which was changed: a change of this part writes back again)
        if fn is operator.getitem and member(defining_call(st.args[0], defs, callee), effects.PAIRS) and st.args[0] not in held:
            if callee(defs[st.args[0]][1]) not in (mut.call_method, mut.call_changing):
                return False
            if is_const(st.args[1], 1) and not any(  # (a method's value, which may be part of it: a number,
                    st.var in r.args and (member(callee(r), effects.ITERATORS) or callee(r) is iter)  # checked when it
                    for _, r in defs.values()):  # runs; not d.values(), a view that a loop goes over)
                items.append(st)
                return False
            return True
        if fn is operator.getitem and numbers and st.args[0] in same:
            return False
        if fn in (operator.getitem, getattr) and st.args[0] in same:
            # an item or attribute of the object; of an array, a view unless a number (or its shape)
            if fn is operator.getitem and array and integers(st.args[1]):
                items.append(st)
                return False
            return array and not (fn is getattr and is_const(st.args[1], st.args[1].value)
                                  and st.args[1].value in runtime.METADATA_ATTRIBUTES)
        if made_new is not None and member(fn, effects.ARITHMETIC):
            made_new.append((st, st.var))
            return False
        if made_new is not None and fn is mut.store_item and isinstance(st.args[1], Var) and not any(
                isinstance(o, Var) and (o in held or o in same or o in pairs) for o in (st.args[0], *st.args[2:])):
            made_new.append((st, st.args[1]))  # (g[k] = ... with k a key of the object, a string or a number)
            return False
        return True

    def integers(k: Any) -> bool:
        """Whether the index ``k`` is an integer or a tuple of them."""
        if isinstance(k, Const):
            return type(k.value) is int or type(k.value) is tuple and all(type(i) is int for i in k.value)
        if k in facts.indices or k in facts.scalars:
            return True
        return k in defs and callee(defs[k][1]) is ops.build_tuple and all(
            integers(a) for a in defs[k][1].args)

    held: set[Var] = {v for v in aliases if v not in defs and v not in same or v in defs and before(*defs[v])}
    # (the object the changed part is read from holds it too, and is written back to: see _part_of)
    parent = same_object(f, defs[root][1].args[0], defs, callee) if aliases else set()
    items: list[Statement] = []
    pairs = {v for v, (_, st) in defs.items() if member(callee(st), effects.PAIRS) and st.args and st.args[0] in same}
    grown = True  # (a pair of the object and a method's value, which may hold it, is read below)
    while grown:
        grown = False
        for b in f.blocks.values():
            for st in b.stmts:
                if st is change or st.var in held or st.var in same or st.var in parent or not before(b, st):
                    continue  # (the object's earlier versions are the object)
                if any(isinstance(o, Var) and (o in held or o in same or o in pairs) for o in st.operands()) \
                        and holds(st):
                    held.add(st.var)
                    grown = True
            for j in b.jumps():  # (root itself, passed on, is renamed; see _rename)
                for a, p in zip(j.args, f.blocks[j.target].args):
                    if (a in held or a in same and a != root) and p not in held and p not in same | parent:
                        held.add(p)
                        grown = True
    return held, items, before


def over_keys(f: IR, root: Var, held: Var, defs: dict, callee: Callable, facts: Facts) -> bool:
    """For ``held``, a ``for`` loop's iterator over the object ``root`` whose
    item a change stores (``for k in p: p[k] -= lr * g[k]``), and ``root``
    not known to be an array or a list: makes the loop go over
    ``mut.keys_of(root)``, the keys of a dict read when it starts (anything
    else is refused when it runs), and returns True; else False."""
    made = [held] if held in defs else [v for v in versions.incoming_values(f).get(held, []) if isinstance(v, Var)]
    if len(made) != 1 or made[0] not in defs:
        return False
    block, it = defs[made[0]]
    if callee(it) is not iter or it.args[0] != root or root in facts.arrays or root in facts.sequences \
            or member(defining_call(root, defs, callee), {ops.build_list, list, ops.build_tuple, tuple}):
        return False
    keys = f.new_var()
    block.stmts.insert(block.stmts.index(it), Statement(keys, Const(mut.keys_of), [it.args[0]], [], it.line))
    it.args[0] = keys
    return True


def _array_copy(st: Statement, defs: dict, callee: Callable, facts: Facts) -> bool:
    """Whether ``st`` is ``x.copy()`` (or ``x.tolist()``) of a known array
    ``x``: a new object sharing nothing with ``x`` (a list's or a dict's
    copy still holds their items)."""
    made = defs.get(st.callee) if isinstance(st.callee, Var) else None
    if made is None or st.args or st.kwargs:
        return False
    read = made[1]
    return callee(read) is getattr and len(read.args) == 2 and isinstance(read.args[1], Const) \
        and read.args[1].value in ("copy", "tolist") and read.args[0] in facts.arrays


def held_error(f: IR, root: Var, holder: Var, loop: bool, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name, other = f.names.get(root), f.names.get(holder)
    if loop:  # the iterator of ``for e in y``
        return where(
            f"changing {'`' + name + '`' if name else 'a value'} in place in a for loop over it, which reads "
            "the change as it goes", line,
            "loop over a copy (for e in y.copy()), or index it (for i in range(len(y)): e = y[i])")
    return where(
        f"changing {'`' + name + '`' if name else 'a value'} in place while "
        f"{'`' + other + '`' if other else 'a value made from it'}, which may share its memory or hold it "
        "(a view such as y[1:], a container holding it, an iterator over it), is used afterwards",
        line,
        "change a copy (y = y.copy()), or make the view or container after the change",
    )


def another_name(f: IR, root: Var, other: Var, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name, also = f.names.get(root), f.names.get(other)
    return where(
        f"changing {'`' + name + '`' if name else 'part of an object'} in place, which may be "
        f"{'`' + also + '`' if also else 'a value put into the object'} (or hold it), read afterwards through that "
        "name, which would not see the change",
        line,
        "change it through one name only: read it back from the object after the change (a = l[0]), or change a "
        "copy put into the object",
    )


def no_out(s: Statement, fn: Any) -> bool:
    """Whether a call of one of :data:`_NEW_RESULTS` passes no ``out``."""
    return not any(k == "out" or k is None for k, _ in s.kwargs) and not any(isinstance(a, Starred) for a in s.args) \
        and (len(s.args) <= 2 or fn is np.where)


def in_a_try(f: IR, root: Var, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name = f.names.get(root)
    return where(
        f"changing {'`' + name + '`' if name else 'a value'} in place in a try (or with) block whose exception "
        "handler, or what runs after it, reads it: whether the change was made when the exception was raised is "
        "known only at run time",
        line,
        "make the change before or after the try block, or change a copy inside it and assign it after",
    )


def not_fresh(f: IR, root: Var, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name = f.names.get(root)
    return where(
        f"changing {'`' + name + '`' if name else 'a value'} in place, which may share its memory or items with "
        "another value (a view such as y[1:], an item of a container, a function's result, or a global)",
        line,
        "change a copy made in this function (y = y.copy(), l = list(l)), or index the original directly "
        "(y[1 + i] = v rather than t = y[1:]; t[i] = v)",
    )


def copy_method(v: Var, defs: dict, callee: Callable) -> bool:
    """``v = obj.copy()``: a new object (of an array, a list, a dict)."""
    if v not in defs or not isinstance(defs[v][1].callee, Var) or defs[v][1].kwargs \
            or not all(isinstance(a, Const) for a in defs[v][1].args):  # (an array's order: y.copy('C'))
        return False
    m = defs.get(defs[v][1].callee)
    return m is not None and callee(m[1]) is getattr and len(m[1].args) == 2 and is_const(m[1].args[1], "copy")


def is_const(op: Any, value: Any) -> bool:
    return isinstance(op, Const) and type(op.value) is type(value) and op.value == value
