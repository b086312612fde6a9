"""Mutation as new values: the pass that lets the reverse transform
differentiate code that changes arrays, lists, dicts and objects in place.

SSA values never change, but ``y[k] = v`` changes the object ``y`` names.
This pass gives each change a new value: the statement becomes
``y_1 = mutation.store_item(y, k, v)`` (the same change, on the same
object, which the operation returns), and every later read of ``y`` reads
``y_1``. Later reads are found as in SSA construction (Braun et al., "Simple
and Efficient Construction of Static Single Assignment Form", 2013): the
object is a variable whose definitions are its first value and each change;
a read takes the definition that reaches it, through new block arguments
where definitions meet. Two names for one object (``z = y``) are one SSA
value, so a change through either reaches reads through both.

Each change then has a derivative rule (:mod:`zygote_py.rules.mutation`):
the gradient of the new value splits into the old value's and the written
value's, so an overwritten item's gradient vanishes.

Pullbacks that captured the object before a change must see its old
contents: a value that a change consumes and that a differentiated
statement also reads (other than by indexing, whose rule needs only the
shape) is copied where it is defined, and those statements read the copy
(``mutation.snapshot``); a differentiated statement that reads, before the
change, a value that may share the object's memory (a view, an item, a
list of views) reads a copy of that value (``mutation.snapshot_holder``).
So a change that is not itself differentiated is made a new value too
when a differentiated statement before it read the object. The emitted
code still changes the object in place, so arguments and aliases end up
exactly as plain Python leaves them.

What the pass cannot see it refuses, at the user's line: changing a value
that may share memory or items with another one (a view ``y[1:]``, an item
of a container, a function's result, a global), and changing an object
that reaches a name the pass does not track. An in-place operator on such
a value (``u *= 0.5``) is left as it is: its rule refuses it at run time
if it meets an array there (a number it rebinds).
"""
from __future__ import annotations

import copy
import operator
import types
import weakref
from typing import Any, Callable, Optional

import numpy as np

from .. import hooks, runtime
from ..errors import UnsupportedSyntax, ZygoteError
from .analysis import edge_values, _MISSING, Facts, static_values
from .cells import captured_names
from ..ir import ops
from ..ir.cfg import natural_loops, predecessors, reverse_postorder
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Starred, Statement, Var
from ..ir.passes import member, remove_trivial_args, substitute, use_counts
from .. import registry
from ..rules import mutation as mut, numpy_arrays, numpy_ufuncs

_ITEM_CHANGES = {operator.setitem: mut.store_item, operator.delitem: mut.delete_item, setattr: mut.store_attr,
                 ops.merge_dict: mut.update, mut.part_changed: mut.write_back,
                 mut.attribute_changed: mut.write_back_attribute, mut.handed_back: mut.adopt}
_METHODS = mut.METHODS
_PAIRS = {mut.pop, mut.setdefault, mut.call_changing, mut.call_method}  # they return the object and a value
_IN_PLACE = set(mut.PLAIN)
_IN_PLACE_CHANGES = (mut.update_maybe_array, mut.update_in_place)
_FRESH = {
    np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like, np.full_like,
    np.array, np.copy, np.ndarray.copy, np.arange, np.linspace, np.eye, np.identity,
    ops.build_list, ops.build_dict, ops.build_set, list, dict, copy.copy, copy.deepcopy, list.copy, dict.copy,
    mut.snapshot, mut.snapshot_holder, hooks.stop_gradient, runtime.item_buffer,
}
"""Callees whose result is a new object that nothing else refers to
(``runtime.item_buffer``'s, a list, in gradient code differentiated
again)."""
_NEW_RESULTS = {
    np.cumsum, np.cumprod, np.ndarray.cumsum, np.ndarray.cumprod, np.outer, np.where, np.concatenate, np.stack,
    np.hstack, np.vstack, np.sort, np.tile,
}
"""NumPy functions whose result is a new array (never a NumPy scalar),
unless an ``out`` argument (by keyword, or a third positional one; never
for ``np.where``) receives it."""
_MAY_BE_SCALARS = {
    np.sum, np.mean, np.prod, np.max, np.amax, np.min, np.amin, np.var, np.std, np.nansum, np.nanmean,
    np.linalg.norm, np.linalg.det, np.trace, np.dot, np.matmul, operator.matmul, np.inner, np.vdot, np.tensordot,
    np.einsum, np.take, np.clip,
    *(getattr(np.ndarray, m) for m in ("sum", "mean", "prod", "max", "min", "var", "std", "dot", "trace", "take",
                                       "clip", "item")),
}
"""NumPy functions whose value may be a NumPy scalar (a reduction over
every axis, a product of vectors): immutable, so ``y += v`` rebinds ``y``
rather than changing the object another name may hold."""
_FRESH_ARRAYS = _FRESH - {ops.build_list, ops.build_dict, ops.build_set, list, dict, copy.copy, copy.deepcopy,
                          list.copy, dict.copy, runtime.item_buffer}
"""…and is an array (so ``a += b`` changes it in place)."""
_OUT = object()
"""The change a ufunc's ``out=`` argument makes."""
_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg, operator.matmul}
_VERSIONED = {*_ITEM_CHANGES.values(), *_METHODS.values(), mut.update_in_place, mut.update_maybe_array, mut.add_at,
              mut.init_object, mut.call_changing, mut.call_method}


def version_mutation(f: IR, facts: Facts, frontend: set[Var], made: set[Var],
                     where: Callable[[str, Optional[int], str], UnsupportedSyntax],
                     passed: set[int], owned: bool = True) -> Optional[set[Var]]:
    """Rewrite the first change to a differentiated object in ``f`` as a
    new value (see the module docstring); ``None`` when there is none.
    Call again, with ``facts`` (the analyses' results) brought up to date
    with the new value, until then. ``frontend`` are the block arguments
    the program had before the first call and ``made`` those made since
    (it is updated); ``where`` builds the error for a change that is
    refused; ``passed`` holds the method calls and in-place operators left
    as they are (on parameters, or on objects that may be shared: such a
    method, or operator on an array, is refused at run time). Returns the parameters changed (empty, or the
    changed one). ``owned``: the function hands no changed argument back to a differentiated caller
    (``param_out``), so the arrays its parameters hold may be changed in place (``p[k] -= v``): no
    pullback outside it holds them."""
    active, arrays = facts.active, facts.arrays
    plain = arrays | facts.numeric | set(facts.static)  # objects whose methods change nothing here

    def callee(s: Statement) -> Any:
        """The callee, known statically or (``np.add.at``) a known object's method."""
        fn = facts.callee(s)
        if fn is _MISSING and isinstance(s.callee, Var) and s.callee in defs:
            m = defs[s.callee][1]
            if facts.callee(m) is getattr and len(m.args) == 2 and isinstance(m.args[1], Const):
                base = facts.static.get(m.args[0], _MISSING) if isinstance(m.args[0], Var) else m.args[0].value
                if base is np.add and m.args[1].value == "at":
                    return np.add.at
        return fn

    _late_method_reads(f, facts.callee)
    defs = {s.var: (b, s) for b in f.blocks.values() for s in b.stmts}
    maybe_arrays: frozenset = frozenset()
    if any(member(callee(s), _IN_PLACE) or isinstance(callee(s), types.FunctionType) for _, s in defs.values()):
        arrays = _only_arrays(f, arrays, defs, callee)  # (for in-place operators: only where they may change)
        maybe_arrays = _maybe_arrays(f, defs, callee, arrays, facts.scalars) \
            | _held_items(f, defs, callee, arrays, facts, owned)
    containers = _containers(f, defs, callee, facts.sequences)
    found = next(
        ((b, s, c) for b in f.blocks.values() for s in b.stmts
         if id(s) not in passed and (c := _as_change(s, defs, callee, arrays, plain, maybe_arrays, containers))
         is not None
         and (any(isinstance(o, Var) and o in active for o in s.operands())
              or _read_by_the_gradient(f, c[0], b, s, defs, callee, facts))),
        None,
    )
    if found is None:
        return None
    b, s, (root, op, args, pair) = found
    fresh = _is_fresh(f, root, defs, callee, made, b, s)
    same = _object_of(f, root, defs, callee)
    # (a change that runs the user's code, a function changing its argument, may raise having made part of it:
    # an `except` would go on with the part made; a `with` whose __exit__ swallowed it too, which is rare)
    if b.handler is not None and (_may_raise_after(f, b, s) or member(op, mut.CHANGE_THEIR_FIRST)
                                  and not _exits_a_with(f.blocks[b.handler.target], callee)) \
            and _read_from_handler(f, b, same):
        raise _in_a_try(f, root, where, s.line)
    aliases = _part_aliases(f, root, defs, callee, facts) if root in maybe_arrays and root in defs \
        and callee(defs[root][1]) in (operator.getitem, getattr) and op in _IN_PLACE_CHANGES else set()
    held, items, kept = _held_after(f, same, root, b, s, defs, callee, facts, aliases)
    if _keeps_length(op, args, defs, callee, arrays) and _over_the_object(
            f, b, _same_object(f, root, defs, callee), defs, callee, arrays | maybe_arrays | facts.sequences,
            lambda st: _as_change(st, defs, callee, arrays, plain, maybe_arrays)):
        return set()  # (the loop over it reads it by index now, as Python's iterators do: its reads are a change's)
    # (an array or a number: `+=` changes the one and replaces the other, so no other name may read it after; a
    # function changes the one, and leaves the other as it was)
    maybe = op is mut.update_maybe_array or op is mut.call_changing and root in maybe_arrays \
        and not _is_array(root, defs, callee, arrays)
    if maybe and (not fresh and _part_of(f, root, defs, callee, b, s) is None or held is not None
                  or _passed_on(f, same) or op is mut.update_maybe_array and any(_read_after(f, v, b, s) for v in same)):
        passed.add(id(s))  # (an array or a list changed there is refused at run time)
        return set()
    if op is mut.call_method and (root in f.entry.args or not fresh or held is not None) \
            and not (isinstance(args[1], Const) and args[1].value in _METHODS):
        passed.add(id(s))  # (a method that may change its object, which J refuses at run time where it does)
        return set()
    part = None
    if not fresh:
        part = _part_of(f, root, defs, callee, b, s)
        if part is None and op is mut.update_in_place:
            passed.add(id(s))  # (its rule refuses an array at run time, where it runs)
            return set()
        if part is None:
            raise _not_fresh(f, root, where, s.line)
        def mutable(v: Var) -> bool:
            return v not in facts.scalars or v in facts.sequences
        placed = {v for v in _placed(f, part[0], part[1], defs, callee, set()) - same if mutable(v)}
        # (and what those were read from: o = [p[0]]; o[0][0] = x; p[0][0] reads p)
        placed |= {h for v in placed for h in _read_from(f, v, defs, callee)} - same - {part[0]}
        other = next((v for v in sorted(placed, key=lambda v: v.id) if _read_after(f, v, b, s)), None)
        if other is None and _read_after(f, part[0], b, s) and _twice(f, part[0], defs, callee, mutable, set()):
            other = part[0]  # (l = [a, a]; l[0][0] = x; l[1][0])
        if other is not None:
            raise _another_name(f, root, other, where, s.line)
    if op in (mut.call_changing, mut.call_method) and _made_by(root, defs, callee) is not super:
        # the user's code may change what the object holds: b.items = a.items (super(): the object itself)
        # (a list or another object it was given as a field; an array changed in place there is refused when it
        # runs)
        inside = {st.args[2] for _, st in defs.values()
                  if callee(st) in (setattr, mut.store_attr) and len(st.args) == 3 and st.args[0] in same
                  and isinstance(st.args[2], Var) and st.args[2] not in same
                  and (st.args[2] not in facts.scalars or st.args[2] in facts.sequences)
                  and st.args[2] not in facts.arrays}
        inside |= {h for v in inside for h in _read_from(f, v, defs, callee)} - same
        other = next((v for v in sorted(inside, key=lambda v: v.id) if _read_after(f, v, b, s)), None)
        if other is not None:
            raise _another_name(f, root, other, where, s.line)
    if held is not None and op in (mut.store_item, mut.write_back) and (
            _over_keys(f, root, held, defs, callee, facts) or any(
                _over_keys(f, st.args[0], st.var, defs, callee, facts) for _, st in list(defs.values())
                if callee(st) is iter and st.args and st.args[0] in same and st.var != held)):
        # (for k in p: p[k] = ...; g = {k: ... for k in p} before it: the loops go over p's keys, read once:
        # see mut.keys_of)
        return set()
    if held is not None:
        raise _held(f, root, held, member(_made_by(held, defs, callee), {iter}), where, s.line)
    for home, r, h in kept:  # (a view, or an item, that a pullback keeps: it keeps a copy)
        copy_ = f.new_var(f.names.get(h))
        home.stmts.insert(home.stmts.index(r), Statement(copy_, Const(mut.snapshot_holder), [h], [], r.line))
        _substitute_in(r, h, copy_)
    for home, item in items:  # (a number, unless the array has more dimensions than the index; a method's value)
        check = mut.a_number if member(_made_by(item.args[0], defs, callee), _PAIRS) else mut.not_a_view
        home.stmts.insert(home.stmts.index(item) + 1, Statement(f.new_var(), Const(check), [item.var], [], item.line))
    version = _rewrite(f, b, s, op, args, pair)
    made.add(version)
    made |= _rename(f, root, version, b.id, frontend, where, s.line)
    if part is not None:  # self.items.append(v): then self.items = (the changed list), a change of self
        parent, key, store = part
        home = next(bb for bb in f.blocks.values() if any(st.var == version for st in bb.stmts))
        at = next(i for i, st in enumerate(home.stmts) if st.var == version)
        following = home.stmts[at + 1] if at + 1 < len(home.stmts) else None
        if following is not None and callee(following) is (setattr if store is mut.attribute_changed else
                                                            operator.setitem) \
                and _same_operands(following.args, [parent, key, version]):
            following.callee = Const(store)  # (p[k] -= v: its own store is the write-back)
        else:
            home.stmts.insert(at + 1, Statement(f.new_var(), Const(store), [parent, key, version], [], s.line))
    remove_trivial_args(f)
    return (same | aliases) & set(f.entry.args)  # (an array a parameter passed, changed as an item: d = {"w": w})


def _containers(f: IR, defs: dict, callee: Callable, sequences: set[Var]) -> set[Var]:
    """The values known to be lists or dicts (or sets): made by a display,
    ``list()``, ``dict()``, sequences of numbers, their versions, and block
    arguments that only these reach (a greatest fixed point)."""
    incoming = _incoming(f)
    def a_copy(st: Statement) -> bool:  # (of what may be one: xs.copy())
        m = defs[st.callee][1] if isinstance(st.callee, Var) and st.callee in defs else None
        return m is not None and callee(m) is getattr and _is_const(m.args[1], "copy") and not st.args

    out = set(sequences) | set(incoming)
    for v, (_, st) in defs.items():
        fn = callee(st)
        if member(fn, _CONTAINERS) or member(fn, _VERSIONED) and st.args or a_copy(st) or fn is operator.getitem \
                and member(_made_by(st.args[0], defs, callee), _PAIRS) and _is_const(st.args[1], 0):
            out.add(v)
    changed = True
    while changed:
        changed = False
        for v in list(out):
            st = defs[v][1] if v in defs else None
            keep = v in sequences or (all(isinstance(a, Var) and a in out for a in incoming[v]) if st is None
                                      else member(callee(st), _CONTAINERS) or a_copy(st)
                                      and defs[st.callee][1].args[0] in out or st.args and st.args[0] in out)
            if not keep:
                out.discard(v)
                changed = True
    return out


def _incoming(f: IR) -> dict[Var, list]:
    """Each block argument's values, one per edge into its block."""
    incoming: dict[Var, list] = {}
    for p, v in edge_values(f):
        incoming.setdefault(p, []).append(v)
    return incoming


def _late_method_reads(f: IR, callee: Callable) -> None:
    """``v.append(v.pop(0))`` (``r.put(r.get())``; ``g = c.get``, a change
    of ``c``, then ``g()``) reads ``v.append`` before a change of ``v``:
    the read moves to just before its call, so that it reads the changed
    version (the same object: the same method). (Its object, defined
    before it, is defined before its call.)"""
    uses = use_counts(f)
    assigned = {st.args[1].value for b in f.blocks.values() for st in b.stmts  # (obj.get = ...: read where written)
                if callee(st) in (setattr, mut.store_attr) and len(st.args) > 1 and isinstance(st.args[1], Const)}
    reads = {st.var: (b, st) for b in f.blocks.values() for st in b.stmts
             if callee(st) is getattr and len(st.args) == 2 and isinstance(st.args[1], Const)
             and st.args[1].value not in assigned and uses.get(st.var) == 1}
    for b in f.blocks.values():
        for st in list(b.stmts):
            if isinstance(st.callee, Var) and st.callee in reads:
                home, read = reads.pop(st.callee)
                if home is b and b.stmts.index(st) == b.stmts.index(read) + 1:
                    continue
                home.stmts.remove(read)
                b.stmts.insert(b.stmts.index(st), read)


def _part_of(f: IR, v: Var, defs: dict, callee: Callable, where: Block, change: Statement) -> Optional[tuple]:
    """``(parent, key, the change that stores it back)`` when ``v`` is read
    from a field or an item (``self.items``, ``rows[i]``) and no other read
    of that part before ``change`` is used after it: a change of ``v`` is
    then a change of ``parent`` too, made explicit by storing ``v`` back
    (which changes nothing at run time; ``mutation.write_back`` checks that
    an array's part is a view, not a copy). Reads after the change read the
    changed ``parent``."""
    if v not in defs:
        return None
    st = defs[v][1]
    fn = callee(st)
    if fn not in (getattr, operator.getitem) or len(st.args) != 2 or not isinstance(st.args[0], Var):
        return None
    parent, key = st.args
    if fn is getattr and not (isinstance(key, Const) and isinstance(key.value, str)):
        return None
    if member(_made_by(parent, defs, callee), _PAIRS):
        return None  # an (object, value) pair this pass made: its value is a call's result, no part of it
    reach = _reachable(f)
    order = {id(x): i for i, x in enumerate(where.stmts)}

    def after(bid: int, stmt: Optional[Statement]) -> bool:
        """Whether a point runs after the change (in its block, or one it leads to)."""
        if bid == where.id:
            return stmt is None or order.get(id(stmt), -1) > order[id(change)] or bid in reach[bid]
        return bid in reach[where.id]

    for b in f.blocks.values():
        for other in b.stmts:
            same = other is not st and callee(other) is fn and other.args[:1] == [parent] and len(other.args) == 2 and (
                other.args[1] == key if isinstance(key, Var) else isinstance(other.args[1], Const)
                and type(other.args[1].value) is type(key.value) and other.args[1].value == key.value)
            if not same or after(b.id, other) and not (b.id != where.id and where.id in reach[b.id]):
                continue
            used_after = any(other.var in list(x.operands()) and after(bb.id, x) for bb in f.blocks.values()
                             for x in bb.stmts) or any(
                other.var in bb.term_operands() + [a for j in bb.jumps() for a in j.args] and after(bb.id, None)
                for bb in f.blocks.values())
            if used_after:
                return None  # a read of the same part before the change, used after it: it would not see it
    return parent, key, mut.attribute_changed if fn is getattr else mut.part_changed


_BUILDS = {ops.build_list, ops.build_tuple, ops.build_dict, ops.build_set}
_SHALLOW_COPIES = {list, tuple, dict, copy.copy, list.copy, dict.copy, mut.snapshot, mut.snapshot_holder}
_HOLDS_THE_ITEMS = {getattr, operator.getitem, *_SHALLOW_COPIES}


def _put_into(f: IR, parents: set[Var], key: Optional[Operand], defs: dict, callee: Callable) -> tuple[list, bool]:
    """What was put into the objects ``parents``: their display's items
    (the one at a constant ``key`` only, of a list or tuple display),
    values stored into them, passed to a method of them or to their class;
    and whether an item may be there twice (``[a] * 2``, ``[a, a]``)."""
    out: list = []
    repeated = False
    for _, st in defs.values():
        fn = callee(st)
        if st.var in parents and (member(fn, _BUILDS) or isinstance(fn, type)):
            args = [a.value if isinstance(a, Starred) else a for a in st.args]
            repeated |= len({a for a in args if isinstance(a, Var)}) < sum(isinstance(a, Var) for a in args)
            if fn in (ops.build_list, ops.build_tuple) and isinstance(key, Const) and type(key.value) is int \
                    and not any(isinstance(a, Starred) for a in st.args) and -len(args) <= key.value < len(args):
                args = [args[key.value]]
            out += args
        elif st.var in parents and fn is operator.mul and st.args and isinstance(st.args[0], Var):
            repeated = True  # ([a] * 2: its items, twice)
            out += _put_into(f, _same_object(f, st.args[0], defs, callee), None, defs, callee)[0]
        elif st.args and st.args[0] in parents and (member(fn, _ITEM_CHANGES) or member(fn, _VERSIONED)) \
                and fn not in (mut.update_in_place, mut.update_maybe_array, mut.add_at):  # (arithmetic: nothing held)
            out += st.args[2:] if fn in (operator.setitem, mut.store_item) else st.args[1:]  # (not a key)
        elif isinstance(st.callee, Var) and st.callee in defs and callee(defs[st.callee][1]) is getattr \
                and defs[st.callee][1].args[0] in parents:  # parent.append(v)
            out += st.args
    return [v for v in out if isinstance(v, Var)], repeated


def _placed(f: IR, parent: Var, key: Optional[Operand], defs: dict, callee: Callable, seen: set[Var]) -> set[Var]:
    """The values that ``parent[key]`` may be (see :func:`_put_into`), and
    what those hold, and for a part of another object or a shallow copy
    of one, what was put into that."""
    parents = _same_object(f, parent, defs, callee) - seen
    seen |= parents
    out = set(_put_into(f, parents, key, defs, callee)[0])
    for v in list(out):
        out |= _placed(f, v, None, defs, callee, seen)
    for p in parents:  # (a part of another object, or a shallow copy of one, which holds the same items)
        if p in defs and member(callee(defs[p][1]), _HOLDS_THE_ITEMS) and defs[p][1].args \
                and isinstance(defs[p][1].args[0], Var):
            out |= _placed(f, defs[p][1].args[0], None, defs, callee, seen)
    return out


def _read_from(f: IR, v: Var, defs: dict, callee: Callable) -> set[Var]:
    """The objects ``v`` was read from as a part (``p[0]``, ``h.inner``,
    ``a[:1]``, a loop variable over ``p``) and those they were read from,
    which hold it: a change of ``v`` is a change of what they hold."""
    out: set[Var] = set()
    todo = [v]
    while todo:
        for w in _same_object(f, todo.pop(), defs, callee):
            st = defs[w][1] if w in defs else None
            if st is not None and callee(st) in (operator.getitem, getattr, ops.iternext, iter) and st.args \
                    and isinstance(st.args[0], Var) and st.args[0] not in out:
                out.add(st.args[0])
                todo.append(st.args[0])
    return out


def _twice(f: IR, parent: Var, defs: dict, callee: Callable, mutable: Callable[[Var], bool], seen: set[Var]) -> bool:
    """Whether a ``mutable`` object may be in ``parent`` twice (see
    :func:`_put_into`; or in what ``parent`` is a shallow copy of). (For an
    object this function did not make, ``mutation.write_back`` checks at
    run time.)"""
    parents = _same_object(f, parent, defs, callee) - seen
    seen |= parents
    items, repeated = _put_into(f, parents, None, defs, callee)
    items = [v for v in items if mutable(v)]
    repeated &= bool(items)
    groups = [_same_object(f, v, defs, callee) for v in items]
    return repeated or any(groups[i] & groups[j] for i in range(len(groups)) for j in range(i)) or any(
        p in defs and member(callee(defs[p][1]), _SHALLOW_COPIES) and defs[p][1].args
        and isinstance(defs[p][1].args[0], Var) and _twice(f, defs[p][1].args[0], defs, callee, mutable, seen)
        for p in parents)


_METHOD_VALUES = {"sort": np.sort, "partition": np.partition, "fill": None}
"""Array methods that change their array in place, and the function whose
value they leave in it (``None``: ``a.fill(v)`` leaves ``v``)."""
_FUNCTION_VALUES = {np.copyto: numpy_arrays.copied_into, np.fill_diagonal: numpy_arrays.filled_diagonal,
                    np.put: numpy_arrays.put_into}
"""NumPy functions that change their first argument in place, and the
function that returns the value they leave in it."""
_AT_UFUNCS = (np.multiply, np.maximum, np.minimum)
"""The ufuncs whose ``at`` is made a store (``np.add.at`` is a change of
its own, :func:`mut.add_at`)."""


def in_place_as_stores(f: IR, facts: Facts) -> bool:
    """Calls that change an array in place become item stores of the value
    they leave, which both modes differentiate (the call's value is
    ``None``): ``y.sort(...)`` of a known array ``y`` becomes ``t =
    np.sort(y, ...); y[...] = t``, and ``y.partition(...)`` alike;
    ``y.fill(v)`` becomes ``y[...] = v``; ``np.copyto(y, v, ...)``,
    ``np.fill_diagonal(y, v, ...)`` and ``np.multiply.at(y, i, v)`` (and
    ``maximum``'s, ``minimum``'s) become ``y[...] = t`` of the value that
    :mod:`zygote_py.rules.numpy_arrays` or :mod:`~zygote_py.rules.numpy_ufuncs`
    computes. Whether any changed."""
    defs = {s.var: s for b in f.blocks.values() for s in b.stmts}
    uses = use_counts(f)

    def read(m: Statement, names) -> Optional[str]:
        """The attribute name ``m = getattr(x, name)`` reads, if among ``names``."""
        if facts.callee(m) is getattr and len(m.args) == 2 and isinstance(m.args[1], Const) \
                and isinstance(m.args[1].value, str) and m.args[1].value in names:
            return m.args[1].value
        return None

    def ufunc_of(m: Statement) -> Any:
        """The ufunc whose ``at`` ``m`` reads (``np.multiply.at``), if one of :data:`_AT_UFUNCS`."""
        if read(m, ("at",)) is None:
            return None
        base = m.args[0]
        value = facts.static.get(base, _MISSING) if isinstance(base, Var) else base.value
        return value if any(value is u for u in _AT_UFUNCS) else None

    callees = {s.callee for s in defs.values() if isinstance(s.callee, Var)}
    methods = {v: m for v, m in defs.items() if v in callees and uses.get(v) == 1 and m.args and (
        read(m, _METHOD_VALUES) is not None and m.args[0] in facts.arrays or ufunc_of(m) is not None)}
    changed = False
    for b in f.blocks.values():
        out = []
        for s in b.stmts:
            if s.var in methods:
                continue
            fn = facts.callee(s)
            m = methods.get(s.callee) if isinstance(s.callee, Var) else None
            if any(isinstance(a, Starred) for a in s.args) or (m is None and not member(fn, _FUNCTION_VALUES)) \
                    or m is None and not (s.args and isinstance(s.args[0], Var)):
                if m is not None:
                    out.append(m)
                out.append(s)
                continue
            result = s.var
            if m is not None and ufunc_of(m) is not None:
                y = s.args[0]
                s.var, s.callee, s.args = f.new_var(), Const(numpy_ufuncs.ufunc_at), [Const(ufunc_of(m)), *s.args]
            elif m is not None and _METHOD_VALUES[read(m, _METHOD_VALUES)] is None:  # y.fill(v): y[...] = v
                y, value = m.args[0], s.args[0]
                out.append(Statement(f.new_var(), Const(operator.setitem), [y, Const(Ellipsis), value], [], s.line))
                substitute(f, {result: Const(None)})
                changed = True
                continue
            elif m is not None:
                y = m.args[0]
                s.var, s.callee, s.args = f.new_var(), Const(_METHOD_VALUES[read(m, _METHOD_VALUES)]), [y, *s.args]
            else:
                y = s.args[0]
                s.var, s.callee = f.new_var(), Const(_FUNCTION_VALUES[fn])
            out += [s, Statement(f.new_var(), Const(operator.setitem), [y, Const(Ellipsis), s.var], [], s.line)]
            substitute(f, {result: Const(None)})
            changed = True
        b.stmts = out
    return changed


def item_updates(f: IR) -> list[tuple[Statement, Statement, Statement]]:
    """``y[k] += v`` (or ``obj.a += v``) as the lowering writes it: the
    read ``t = y[k]``, the in-place operator ``t += v`` and the store
    ``y[k] = t``, each read once; see :func:`plain_item_updates`."""
    uses = use_counts(f)
    out = []
    for b in f.blocks.values():
        defs = {s.var: s for s in b.stmts}
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            read = operator.getitem if fn is operator.setitem else getattr
            if fn not in (operator.setitem, setattr) or len(s.args) != 3 or s.args[2] not in defs:
                continue
            update = defs[s.args[2]]
            if not (isinstance(update.callee, Const) and member(update.callee.value, _IN_PLACE)
                    and uses.get(update.var) == 1 and update.args[0] in defs and uses.get(update.args[0]) == 1):
                continue
            cur = defs[update.args[0]]
            if isinstance(cur.callee, Const) and cur.callee.value is read and _same_operands(cur.args, s.args[:2]):
                out.append((cur, update, s))
    return out


def plain_item_updates(updates: list[tuple[Statement, Statement, Statement]], facts: Facts) -> None:
    """``y[k] += v`` reads ``t = y[k]``, updates ``t`` in place when it is
    an array (a view into ``y``), and stores it back: the same as storing
    ``t + v``, which changes nothing behind the store's back. So the
    in-place operator of each of ``updates`` (see :func:`item_updates`)
    becomes the plain operator, when the item is part of an array or a
    number: an array held by a list, a dict or an object may be held
    elsewhere too, and is changed there."""
    for cur, update, store in updates:
        if store.callee.value is operator.setitem and store.args[0] in facts.arrays or cur.var in facts.scalars:
            update.callee = Const(mut.PLAIN[update.callee.value])


def _same_operands(xs: list, ys: list) -> bool:
    return len(xs) == len(ys) and all(
        x == y if isinstance(x, Var) else isinstance(y, Const) and x.value is y.value for x, y in zip(xs, ys)
    )


def snapshot_reads(f: IR, facts: Facts, shared: set[str]) -> None:
    """A value that a change consumes, and that differentiated statements
    read before it (on a path that then reaches the change), is copied
    before they read it, and they read the copy: their pullbacks run after
    the change and must see the value as it was. Indexing reads only the
    shape (its pullback scatters), so it reads the original. ``shared``
    are the cells whose nested functions' calls are handed their values
    (see :mod:`.cells`): those reads are the values' own."""
    active, callee = facts.active, facts.callee
    _keep_outputs(f, facts)
    defs = {s.var: (b, s) for b in f.blocks.values() for s in b.stmts}
    reach = _reachable(f)
    resized = _resized_objects(f, defs, callee)
    # (and the values handed to a differentiated call of a nested function, differentiated or not: its
    # pullback may keep them)
    reading = facts.active | {s.args[3] for b in f.blocks.values() for s in b.stmts
                              if callee(s) is runtime.call_with_cells and s.var in facts.active}
    for b in list(f.blocks.values()):
        for st in list(b.stmts):
            if member(callee(st), _VERSIONED) and isinstance(st.args[0], Var):
                for v in sorted(_same_object(f, st.args[0], defs, callee), key=lambda x: x.id):
                    _copy_reads(f, facts, b, st, v, defs, reach, resized, shared, reading)  # (under each name)


def _copy_reads(f: IR, facts: Facts, b: Block, st: Statement, v: Var, defs: dict, reach: dict,
                resized: set[Var], shared: set[str], reading: set[Var]) -> None:
    """:func:`snapshot_reads` for the change ``st`` (in ``b``) of the
    object ``v`` names; ``reading`` are the statements' values whose reads
    a pullback may keep."""
    active, callee = facts.active, facts.callee

    def before(bb: Block, r: Statement) -> bool:  # (or after it in a loop that changes it again)
        return b.id in reach[bb.id] if bb is not b else bb.stmts.index(r) < bb.stmts.index(st) or b.id in reach[b.id]

    readers = [
        (bb, r) for bb in f.blocks.values() for r in bb.stmts
        if r is not st and r.var in reading and v in list(r.operands())
        and not (_shape_read(r, v, callee) and v not in resized)
        and not (member(callee(r), _VERSIONED) and r.args[0] == v)  # (a change of it, which must change it)
        and not (callee(r) is mut.call_changing and type(r.args[1].value) is tuple
                 and v in [r.args[3 + p] for p in r.args[1].value])  # (project(u, v) changing v too)
        and not member(callee(r), _ITERATORS)  # (which read the items at once, and watch it for changes)
        and callee(r) not in (ops.store_deref, ops.store_global, ops.captured_value)  # (which hold it: not a copy)
        and before(bb, r)
    ]
    changed = _versions(f)
    holding = [r for bb in f.blocks.values() for r in bb.stmts
               if callee(r) in (ops.store_deref, ops.store_global)
               and (b.id in reach[bb.id] if bb is not b else bb.stmts.index(r) < bb.stmts.index(st))
               and isinstance(r.args[1], Var) and changed(v, r.args[1])]  # (the object, or a version)
    read_later = [r for r in holding
                  if callee(r) is ops.store_global or _cell_read_after(f, r.args[0].value, b, st, shared)]
    called = [r for r in holding if callee(r) is ops.store_deref and r.args[0].value not in shared and any(
        isinstance(c.callee, Var) and c.var in active and c.callee in defs
        and callee(defs[c.callee][1]) is ops.make_function and before(bb, c)
        and r.args[0].value in captured_names(defs[c.callee][1].args[0].value)
        for bb in f.blocks.values() for c in bb.stmts)]
    held = (read_later if any(isinstance(o, Var) and o in active for o in st.operands()) else []) + called
    if held:
        # a nested function (or a global) holds the object: where it reads it later, no copy may
        # stand for it and its reads there are out of the gradient's reach; where it was called
        # before the change, its pullback reads the object as it is after
        held = held[0]
        name = f.names.get(v) or held.args[0].value  # (the variable's own, or the one holding it)
        raise UnsupportedSyntax(
            f"changing {'`' + name + '`' if name else 'a value'} in place after a nested function "
            "captured it", function=f.name, filename=f.filename, line=st.line,
            hint="pass the value to the nested function as an argument, or change it before the "
            "nested function is defined")
    def copy_for(home: Block, at: int, reads: list[Statement]) -> None:
        copy_ = f.new_var(f.names.get(v))
        home.stmts.insert(at, Statement(copy_, Const(mut.snapshot), [v], [], st.line))
        for r in reads:
            _substitute_in(r, v, copy_)

    blocks = {bb.id: bb for bb, _ in readers}
    if len(blocks) > 1 and v in defs:  # one copy, where v is made
        home, d = defs[v]
        copy_for(home, home.stmts.index(d) + 1, [r for _, r in readers])
        return
    for bb in blocks.values():  # just before the first reader in each block (not where a block argument v
        mine = [r for b2, r in readers if b2 is bb]  # is bound: a loop's header stays as the loop transforms expect)
        copy_for(bb, min(bb.stmts.index(r) for r in mine), mine)


def _cell_read_after(f: IR, name: str, block: Block, change: Statement, shared: set[str]) -> bool:
    """Whether the cell variable ``name`` may be read after ``change``: by
    this function, or by a nested function that captures it and is called,
    or passed on, after the change (unless its calls are handed the cell's
    values: a cell of ``shared``)."""
    later = _later_blocks(f, block)
    return any(
        isinstance(st.callee, Const) and st.callee.value is ops.load_deref and _is_const(st.args[0], name)
        and (bb.id in later or bb is block and bb.stmts.index(st) > bb.stmts.index(change))
        or isinstance(st.callee, Const) and st.callee.value is ops.make_function and name not in shared
        and name in captured_names(st.args[0].value) and _read_after(f, st.var, block, change)
        for bb in f.blocks.values() for st in bb.stmts)


def _keep_outputs(f: IR, facts: Facts) -> None:
    """An array that a differentiated call made (``v = np.tanh(x)``), and
    that a change then consumes (``v -= 1``): the call's pullback may read
    its output (tanh's does), so the output is kept as it is and the code
    goes on with a copy of it, which the change changes. (The array is new,
    so every reference to it is a use of the value.)"""
    defs = {x.var: (bb, x) for bb in f.blocks.values() for x in bb.stmts}
    incoming = _incoming(f)

    def made_by_a_rule(v: Operand, seen: set) -> bool:
        """Whether ``v`` may be the output of a differentiated call (through
        block arguments: a loop's last value)."""
        if not isinstance(v, Var) or v in seen:
            return False
        seen.add(v)
        if v in defs:
            st = defs[v][1]
            fn = facts.callee(st)
            if fn in (operator.getitem, getattr) and len(st.args) == 2 and isinstance(st.args[0], Var):
                # (a part of an object, which no pullback reads back; unless a value put there is a call's
                # output, which its pullback may: [np.exp(v)][0])
                return any(made_by_a_rule(u, seen) for u in _placed(f, st.args[0], st.args[1], defs, facts.callee,
                                                                     set()))
            return v in facts.active and not member(fn, _FRESH) and not member(fn, _VERSIONED)
        return any(made_by_a_rule(u, seen) for u in incoming.get(v, ()))

    maybe_arrays: Optional[frozenset] = None  # (made when a call that changes its argument is met)
    for b in list(f.blocks.values()):
        for st in list(b.stmts):
            if not member(facts.callee(st), _VERSIONED) or not isinstance(st.args[0], Var):
                continue
            v = st.args[0]
            if facts.callee(st) is mut.call_changing and maybe_arrays is None:
                maybe_arrays = _maybe_arrays(f, defs, facts.callee, facts.arrays, facts.scalars)
            maybe = facts.callee(st) is mut.update_maybe_array or facts.callee(st) is mut.call_changing \
                and v in maybe_arrays  # (a number's copy is itself)
            if v not in facts.active or not (maybe or _is_array(v, defs, facts.callee, facts.arrays)) \
                    or not made_by_a_rule(v, set()):
                continue  # (an array: an object's identity is its whole point, and no rule reads it back)
            copy_ = f.new_var(f.names.get(v))
            facts.active.add(copy_)  # (the change, and what holds the array, read the copy)
            if v in defs:  # every reference to the new array is a use of v: all go to the copy
                home, d = defs[v]
                substitute(f, {v: copy_})
                home.stmts.insert(home.stmts.index(d) + 1, Statement(copy_, Const(mut.snapshot), [v], [], d.line))
            else:  # a block argument only fresh values reach: the change goes to a copy made just before it
                same = _same_object(f, v, defs, facts.callee)
                name = "`" + f.names[v] + "`" if v in f.names else "a value"
                cells = {x.args[0].value for _, x in defs.values()
                         if facts.callee(x) is ops.store_deref and x.args[1] in same}
                rebinding = {x.args[0].value for _, x in defs.values()
                             if facts.callee(x) is ops.store_deref and x.args[1] == st.var}
                if cells - rebinding:  # (`v -= 1` rebinds v's cell to the changed copy; an alias's change would not)
                    raise UnsupportedSyntax(  # (the variable would go on holding the unchanged object)
                        f"changing {name} in place in a loop while a nested function captures it",
                        function=f.name, filename=f.filename, line=st.line, hint="change a copy made "
                        "before the loop (u = u.copy()), or pass the value to the nested function as an argument")
                iterators = {x.var for _, x in defs.values()
                             if member(facts.callee(x), _ITERATORS) and any(o in same for o in x.operands())}
                iterators |= {x.var for _, x in defs.values() if facts.callee(x) is iter and x.args[0] in iterators}
                home = next(bb for bb in f.blocks.values() if v in bb.args)
                after = _later_blocks(f, home)
                at = home.args.index(v)
                changed = _versions(f)
                rebound = any(  # (what a loop's back edge brings round is not the object, changed or not)
                    j.target == home.id and src.id in after and not changed(j.args[at], v)
                    for src in f.blocks.values() for j in src.jumps())
                if rebound and any(_read_after(f, it, b, st) for it in iterators):
                    raise UnsupportedSyntax(  # (its run-time check follows the variable: it would miss the change)
                        f"changing {name} in place, then binding it to another value, in a loop that its map, "
                        "filter, zip, enumerate or reversed goes on iterating over", function=f.name,
                        filename=f.filename, line=st.line,
                        hint="iterate over a copy (enumerate(v.copy())), or index it in the loop")
                b.stmts.insert(b.stmts.index(st), Statement(copy_, Const(mut.snapshot), [v], [], st.line))
                _substitute_in(st, v, copy_)  # (all of it: call_changing passes the object to the callee too)
            defs = {x.var: (bb, x) for bb in f.blocks.values() for x in bb.stmts}


def changed_in_place(f: IR, v: Operand, root: Var) -> bool:
    """Whether ``v`` is ``root``, or ``root`` changed in place: one of the
    versions this pass made of it (through block arguments that only such
    versions reach), not another value bound to its name."""
    return _versions(f)(v, root)


def _versions(f: IR) -> Callable[[Operand, Var], bool]:
    """:func:`changed_in_place` for ``f`` as it is now, for many questions
    (the definitions and the edges are read once)."""
    defs = {st.var: st for b in f.blocks.values() for st in b.stmts}
    incoming = _incoming(f)

    def changed(v: Operand, root: Var) -> bool:
        seen: set[Var] = set()

        def version(x: Operand) -> bool:
            if x == root or x in seen:
                return True  # (a block argument met again: a loop passing the versions round)
            if not isinstance(x, Var):
                return False
            seen.add(x)
            st = defs.get(x)
            if st is None:
                return bool(incoming.get(x)) and all(version(u) for u in incoming[x])
            fn = st.callee.value if isinstance(st.callee, Const) else None
            if fn is operator.getitem and _is_const(st.args[1], 0) and isinstance(st.args[0], Var) \
                    and st.args[0] in defs and isinstance(defs[st.args[0]].callee, Const) \
                    and member(defs[st.args[0]].callee.value, _PAIRS):
                return version(defs[st.args[0]].args[0])  # the object out of an (object, value) pair
            return (member(fn, _VERSIONED) or fn is mut.snapshot) and version(st.args[0])

        return version(v)

    return changed


def _successors(f: IR) -> dict[int, set[int]]:
    """Each block's successors, through its jumps and its exception handler."""
    return {bid: {j.target for j in b.jumps()} | ({b.handler.target} if b.handler else set())
            for bid, b in f.blocks.items()}


def _reachable(f: IR) -> dict[int, set[int]]:
    """The blocks reachable from each block by one or more edges."""
    succ = _successors(f)
    out: dict[int, set[int]] = {}
    for bid in f.blocks:
        seen: set[int] = set()
        todo = list(succ[bid])
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo += succ[n]
        out[bid] = seen
    return out


def _resized_objects(f: IR, defs: dict, callee: Callable) -> set[Var]:
    """The values (every version) of the objects that some change may
    resize: a list's indexing pullback reads its length."""
    parent: dict[Var, Var] = {}

    def find(v: Var) -> Var:
        while parent.get(v, v) != v:
            v = parent[v]
        return v

    def union(a: Any, b: Any) -> None:
        if isinstance(a, Var) and isinstance(b, Var):
            parent[find(a)] = find(b)

    resizing: list[Var] = []
    for b in f.blocks.values():
        for st in b.stmts:
            fn = callee(st)
            if member(fn, _VERSIONED):
                obj = st.args[0]
                union(st.var, obj)
                if not _keeps_length(fn, st.args, defs, callee):
                    resizing.append(obj)
            elif fn is operator.getitem and st.args[0] in defs and member(callee(defs[st.args[0]][1]), _PAIRS):
                union(st.var, st.args[0])
        for j in b.jumps():
            for p, a in zip(f.blocks[j.target].args, j.args):
                union(p, a)
    roots = {find(v) for v in resizing}
    return {v for v in set(parent) | set(parent.values()) if find(v) in roots}


def _keeps_length(fn: Any, args: list, defs: dict, callee: Callable, arrays: frozenset = frozenset()) -> bool:
    """Whether the change ``fn(*args)`` keeps its object's length (any
    store into one of ``arrays`` does)."""
    if fn is mut.store_item and isinstance(args[0], Var) and _is_array(args[0], defs, callee, arrays):
        return True
    if fn is mut.store_item:
        key = args[1]
        if isinstance(key, Const):
            return not isinstance(key.value, slice)
        return key in defs and callee(defs[key][1]) is not slice
    return fn in (mut.update_in_place, mut.update_maybe_array, mut.store_attr, mut.write_back, mut.write_back_attribute)


def _shape_read(r: Statement, v: Var, callee: Callable) -> bool:
    """``r`` reads ``v`` only for its shape: indexing it, or changing it."""
    fn = callee(r)
    return fn is operator.getitem and r.args[0] == v and v not in r.args[1:] or member(fn, _VERSIONED)


def _as_change(s: Statement, defs: dict, callee: Callable, arrays: set[Var],
               plain: frozenset = frozenset(), maybe_arrays: frozenset = frozenset(),
               containers: Optional[set[Var]] = None) -> Optional[tuple]:
    """``(object, operation, arguments, returns a pair)`` when ``s``
    changes an object in place, or (a method call on an object not in
    ``plain``, an in-place operator on one of ``maybe_arrays``) may change
    it, and is not yet a versioned change; else ``None``. A list's or a
    dict's method (``append``, ``update``...) on an object not among
    ``containers`` (when given) may be a user class's, whose value counts:
    it is ``mutation.call_method``."""
    fn = callee(s)
    if member(fn, _ITEM_CHANGES) and s.args and isinstance(s.args[0], Var) and not s.kwargs:
        return s.args[0], _ITEM_CHANGES[fn], list(s.args), False
    if is_add_at(fn) and len(s.args) == 3 and isinstance(s.args[0], Var) and not s.kwargs:
        return s.args[0], mut.add_at, list(s.args), False
    out = [v for k, v in s.kwargs if k == "out"]
    if (isinstance(fn, np.ufunc) and fn.nout == 1 or type(fn) is type(np.sum)) and out and isinstance(out[0], Var):
        return out[0], _OUT, [out[0]], False  # (a ufunc's, or NumPy's np.cumsum(v, out=w))
    if fn is operator.iadd and len(s.args) == 2 and containers is not None and s.args[0] in containers \
            and not _is_array(s.args[0], defs, callee, arrays):
        return s.args[0], mut.extend, list(s.args), False  # (xs += ys of a list: xs.extend(ys), whose value is xs)
    if member(fn, _IN_PLACE) and len(s.args) == 2 and isinstance(s.args[0], Var) and _is_array(s.args[0], defs, callee, arrays):
        return s.args[0], mut.update_in_place, [*s.args, Const(fn)], False
    if member(fn, _IN_PLACE) and len(s.args) == 2 and s.args[0] in maybe_arrays:
        return s.args[0], mut.update_maybe_array, [*s.args, Const(fn)], False
    if _is_init(fn) and s.args and isinstance(s.args[0], Var) and not s.kwargs:  # Base.__init__(self, ...)
        return s.args[0], mut.init_object, [s.args[0], s.callee, *s.args[1:]], False
    if isinstance(fn, types.FunctionType) and not s.kwargs and not any(isinstance(a, Starred) for a in s.args):
        definite, in_place = changed_positions(fn)
        at = sorted({*definite, *(p for p in in_place if p < len(s.args) and (
            _is_array(s.args[p], defs, callee, arrays) or s.args[p] in maybe_arrays))})
        if at and at[-1] < len(s.args) and all(isinstance(s.args[p], Var) for p in at) \
                and len({s.args[p] for p in at}) == len(at):  # f(y) changing y (f(u, v) changing both)
            obj = s.args[at[0]]
            return obj, mut.call_changing, [obj, Const(at[0] if len(at) == 1 else tuple(at)), s.callee, *s.args], True
    if isinstance(s.callee, Var) and s.callee in defs and not s.kwargs:
        m = defs[s.callee][1]
        sup = defs.get(m.args[0])[1] if m.args and m.args[0] in defs else None
        if (callee(m) is getattr and _is_const(m.args[1], "__init__") and sup is not None
                and callee(sup) is super and len(sup.args) == 2 and isinstance(sup.args[1], Var)):
            return sup.args[1], mut.init_object, [sup.args[1], s.callee, *s.args], False  # super().__init__(...)
        if (callee(m) is getattr and len(m.args) == 2 and isinstance(m.args[0], Var)
                and isinstance(m.args[1], Const) and m.args[1].value in _METHODS and not _module_function(fn)):
            if containers is not None and m.args[0] not in containers:
                return m.args[0], mut.call_method, [m.args[0], m.args[1], *s.args], True
            op = _METHODS[m.args[1].value]
            return m.args[0], op, [m.args[0], *s.args], op in _PAIRS
        if (plain and callee(m) is getattr and len(m.args) == 2 and isinstance(m.args[0], Var)
                and m.args[0] not in plain and isinstance(m.args[1], Const) and isinstance(m.args[1].value, str)
                and not _copy_method(s.var, defs, callee) and not any(isinstance(a, Starred) for a in s.args)):
            kind = defs[m.args[0]][1] if m.args[0] in defs else None
            if kind is not None and callee(kind) is type and kind.args and s.args and s.args[0] == kind.args[0]:
                obj = s.args[0]  # type(cm).__enter__(cm), as a with block calls it: cm.__enter__()
                return (obj, mut.call_method, [obj, m.args[1], *s.args[1:]], True) if obj not in plain else None
            return m.args[0], mut.call_method, [m.args[0], m.args[1], *s.args], True  # obj.method(...)
    return None


_RETURNS_NEW: "weakref.WeakKeyDictionary[types.CodeType, bool]" = weakref.WeakKeyDictionary()
_VIEWS = {np.reshape, np.ndarray.reshape, np.ravel, np.ndarray.ravel, np.transpose, np.ndarray.transpose,
          np.squeeze, np.expand_dims}


def returns_new(fn: types.FunctionType) -> bool:
    """Whether every value ``fn`` (a Python function without a rule)
    returns is a new object that nothing else refers to, read from its
    code: one of :data:`_FRESH`, arithmetic, a ufunc's or :data:`_NEW_RESULTS`'
    value, a view (``np.reshape(flat, shape)``) of such a value read
    nowhere else, or another such function's value: a caller may change it
    in place (``vx = advect(...); project(vx, vy)``)."""
    from .pipeline import primal_ir  # (pipeline builds on this module)

    code = fn.__code__
    if code not in _RETURNS_NEW:
        _RETURNS_NEW[code] = False  # (a recursive call, meanwhile)
        if registry.lookup(fn) is not None or registry.is_nondifferentiable(fn) or fn.__closure__:
            return False
        try:
            ir = primal_ir(fn)
        except ZygoteError:
            return False
        facts = Facts()
        static_values(ir, fn.__globals__, {}, facts)
        defs = {st.var: st for b in ir.blocks.values() for st in b.stmts}
        uses = use_counts(ir)

        def new(v: Operand) -> bool:
            st = defs.get(v) if isinstance(v, Var) else None
            if st is None:
                return False
            f = facts.callee(st)
            if member(f, _FRESH) or member(f, _ARITHMETIC) or isinstance(f, np.ufunc) and f.nout == 1 \
                    and not st.kwargs or member(f, _NEW_RESULTS) and _no_out(st, f):
                return True
            if member(f, _VIEWS) and st.args and uses.get(st.args[0]) == 1:
                return new(st.args[0])
            return isinstance(f, types.FunctionType) and f is not fn and returns_new(f)

        _RETURNS_NEW[code] = all(new(b.term.value) for b in ir.blocks.values() if isinstance(b.term, Return))
    return _RETURNS_NEW[code]


_CHANGED: "weakref.WeakKeyDictionary[types.CodeType, tuple]" = weakref.WeakKeyDictionary()


def changed_positions(fn: types.FunctionType) -> tuple[tuple, tuple]:
    """The positions of the parameters that ``fn`` (a Python function
    without a rule) changes in place, read from its code (a change whose
    object is the parameter itself), and those it updates with an in-place
    operator, which changes them when they are arrays. (What this misses,
    ``fn``'s own compilation refuses when the parameter is differentiated.)"""
    from .pipeline import primal_ir  # (pipeline builds on this module)

    code = fn.__code__
    if code not in _CHANGED:
        _CHANGED[code] = ((), ())  # (a recursive call, meanwhile: no change known)
        if registry.lookup(fn) is not None or registry.is_nondifferentiable(fn):
            return _CHANGED[code]
        try:
            ir = primal_ir(fn)
        except ZygoteError:
            return _CHANGED[code]
        facts = Facts()
        static_values(ir, fn.__globals__, dict(zip(code.co_freevars, fn.__closure__ or ())), facts)
        defs = {s.var: (b, s) for b in ir.blocks.values() for s in b.stmts}
        params = list(ir.entry.args)

        def owner(v: Var) -> Var:
            """The object a part belongs to (``self`` for ``self.items``)."""
            seen = set()
            while v in defs and v not in seen and facts.callee(defs[v][1]) in (getattr, operator.getitem) \
                    and isinstance(defs[v][1].args[0], Var):
                seen.add(v)
                v = defs[v][1].args[0]
            return v

        def changed(arrays: set) -> set:
            return {params.index(owner(c[0])) for b in ir.blocks.values() for s in b.stmts
                    if (c := _as_change(s, defs, facts.callee, arrays)) is not None and owner(c[0]) in params}
        definite = changed(set())
        _CHANGED[code] = (tuple(sorted(definite)), tuple(sorted(changed(set(params)) - definite)))
    return _CHANGED[code]


def _module_function(fn: Any) -> bool:
    """``fn``, known statically, is a module's function (``np.append``),
    not an object's method of the same name."""
    if fn is _MISSING or fn is None:
        return False
    owner = getattr(fn, "__self__", None)
    return owner is None or isinstance(owner, types.ModuleType)


def _is_init(fn: Any) -> bool:
    """A class's ``__init__`` written in Python, called as a function."""
    return isinstance(fn, types.FunctionType) and fn.__name__ == "__init__"


def is_add_at(fn: Any) -> bool:
    """``np.add.at`` (a new bound method each time it is read)."""
    return getattr(fn, "__self__", None) is np.add and getattr(fn, "__name__", None) == "at"


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
            return _as_change(st, defs, facts.callee, facts.arrays, plain)
        if not any((c := change_of(s)) is not None and _keeps_length(c[1], c[2], defs, facts.callee, facts.arrays)
                   and _over_the_object(f, b, _same_object(f, c[0], defs, facts.callee), defs, facts.callee,
                                        facts.arrays | facts.sequences, change_of, iterators_only=True)
                   for b, s in defs.values()):
            return changed
        changed = True


def _over_the_object(f: IR, block: Block, same: set[Var], defs: dict, callee: Callable, sequences: set[Var],
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
                x in sequences or member(_made_by(x, defs, callee), {ops.build_list, list})
                or _is_array(x, defs, callee, sequences) for x in leaves):
            continue
        entering = [j for bb in f.blocks.values() for j in bb.jumps() if j.target == h.id]
        current = {}  # (each leaf as the step starts: the header's argument that carries it)
        for x in leaves:
            def of_x(v: Operand) -> bool:
                """Whether ``v`` may be the object ``x`` is, changed or not."""
                return x in _same_object(f, v, defs, callee)
            if any((c := change_of(st) or _versioned(st, callee)) is not None and of_x(c[0])
                   and not _keeps_length(c[1], c[2], defs, callee, sequences)
                   for bid in loops[h.id] for st in f.blocks[bid].stmts):
                return False
            at = [i for i, p in enumerate(h.args) if of_x(p)]
            if len(at) > 1 or at and not all(j.args[at[0]] == x or h.args[at[0]] in _same_object(
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
    return (st.args[0], fn, st.args) if member(fn, _VERSIONED) and st.args else None


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


def _passed_on(f: IR, same: set[Var]) -> bool:
    """Whether a value of ``same`` reaches a block argument that is not
    one of them (``w = v`` on one of several paths)."""
    return any(a in same and p not in same for b in f.blocks.values() for j in b.jumps()
               for a, p in zip(j.args, f.blocks[j.target].args))


def _held_items(f: IR, defs: dict, callee: Callable, arrays: set[Var], facts: Facts, owned: bool) -> set[Var]:
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
        v = st.args[0] if member(callee(st), _IN_PLACE) and len(st.args) == 2 else None
        if isinstance(v, Var) and v in defs and v not in facts.scalars and v not in arrays:
            read = defs[v][1]
            if callee(read) in (operator.getitem, getattr) and read.args and isinstance(read.args[0], Var) \
                    and read.args[0] not in arrays \
                    and not member(_made_by(read.args[0], defs, callee), _PAIRS) \
                    and not any(_made_by(w, defs, callee) is runtime.item_buffer
                                for w in _same_object(f, read.args[0], defs, callee)) \
                    and (owned or not _from_parameters(f, read.args[0], defs, callee)):
                out.add(v)
    return out


def _from_parameters(f: IR, v: Var, defs: dict, callee: Callable) -> bool:
    """Whether ``v`` may be a parameter, or a part of one (``self.layers``)."""
    return any(w in f.entry.args or w in defs and callee(defs[w][1]) in (operator.getitem, getattr, ops.iternext)
               and isinstance(defs[w][1].args[0], Var) and _from_parameters(f, defs[w][1].args[0], defs, callee)
               for w in _same_object(f, v, defs, callee)) or v not in defs


def _part_aliases(f: IR, root: Var, defs: dict, callee: Callable, facts: Facts) -> set[Var]:
    """For ``root``, an item or field (``p[k]``, ``self.w``) that an
    in-place operator changes, the other values that may be the same
    array: the other reads of that part, and the values put there
    (``p = {"w": w}``). A pullback that read one of them before the change
    must keep a copy, and none may be read after it (see :func:`_holders`)."""
    st = defs[root][1]
    fn, (parent, key) = callee(st), st.args
    parents = _same_object(f, parent, defs, callee)
    reads = {v for v, (_, r) in defs.items() if v != root and callee(r) is fn and len(r.args) == 2
             and r.args[0] in parents and _same_operands(r.args[1:], [key])}
    return reads | {v for v in _placed(f, parent, key, defs, callee, set()) if v not in facts.scalars}


def _array_or_number(st: Statement, callee: Callable) -> bool:
    """Whether ``st`` makes a new array or number: a ufunc's result,
    arithmetic, or such a value changed by an in-place operator."""
    fn = callee(st)
    return (isinstance(fn, np.ufunc) and fn.nout == 1 and not st.kwargs or member(fn, _ARITHMETIC)) \
        and any(isinstance(a, Var) for a in st.args) or fn is mut.update_maybe_array


def _maybe_arrays(f: IR, defs: dict, callee: Callable, arrays: set[Var], scalars: set[Var]) -> frozenset:
    """The values, not known to be numbers, that are arrays or numbers: a
    ufunc's result (``np.tanh(h(x))``), arithmetic (``h(x) * 0.5``), an
    array or such a value changed by an in-place operator, and a block
    argument that only these and arrays reach (a greatest fixed point)."""
    incoming = _incoming(f)
    changes = {v: st.args[0] for v, (_, st) in defs.items()
               if member(callee(st), _IN_PLACE) and len(st.args) == 2 and v not in scalars}
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


def _is_array(v: Var, defs: dict, callee: Callable, arrays: set[Var]) -> bool:
    """Whether ``v`` is known to be an array (not a number nor a NumPy
    scalar, which ``+=`` replaces instead of changing)."""
    while v in defs and member(callee(defs[v][1]), _VERSIONED):  # a changed array is still one
        st = defs[v][1]
        v = st.args[0]
        if not isinstance(v, Var):
            return False
    fn = callee(defs[v][1]) if v in defs else None
    if member(fn, _MAY_BE_SCALARS):
        return False
    if member(fn, _IN_PLACE):  # u *= 0.5 of an array u is u itself
        u = defs[v][1].args[0]
        return isinstance(u, Var) and _is_array(u, defs, callee, arrays)
    if member(fn, _ARITHMETIC) or isinstance(fn, np.ufunc):  # x * 1.0 of an array x is a new array
        return any(isinstance(a, Var) and _is_array(a, defs, callee, arrays) for a in defs[v][1].args)
    if v in arrays:
        return True
    return member(fn, _FRESH_ARRAYS) or member(fn, _NEW_RESULTS) or fn is not None and _copy_method(v, defs, callee) \
        and _is_array(defs[defs[v][1].callee][1].args[0], defs, callee, arrays)


def _only_arrays(f: IR, arrays: set[Var], defs: dict, callee: Callable) -> set[Var]:
    """``arrays`` (arrays or NumPy scalars) without the block arguments that
    a value not known to be an array may reach (a greatest fixed point)."""
    incoming = _incoming(f)
    out = set(arrays)
    while True:
        wrong = {p for p in out if p in incoming and p not in f.entry.args and not all(
            v == p or isinstance(v, Var) and _is_array(v, defs, callee, out) for v in incoming[p])}
        if not wrong:
            return out
        out -= wrong


def _made_by(v: Var, defs: dict, callee: Callable) -> Any:
    return callee(defs[v][1]) if v in defs else None


def _is_fresh(f: IR, root: Var, defs: dict, callee: Callable, made: set[Var], block: Block,
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
        fn = _made_by(v, defs, callee)
        if (member(fn, _FRESH) or member(fn, _VERSIONED) or member(fn, _ARITHMETIC) or isinstance(fn, (type, np.ufunc))
                or _copy_method(v, defs, callee) or member(fn, _NEW_RESULTS) and _no_out(defs[v][1], fn)
                or isinstance(fn, types.FunctionType) and returns_new(fn)):
            return True
        if member(fn, _IN_PLACE):  # u *= 0.5: u itself, if an array
            u = defs[v][1].args[0]
            return isinstance(u, Var) and fresh(u)
        if member(fn, _VIEWS) and defs[v][1].args and isinstance(defs[v][1].args[0], Var) \
                and use_counts(f).get(defs[v][1].args[0]) == 1:  # np.reshape(flat, shape) of a new array, read once
            return fresh(defs[v][1].args[0])
        if fn is operator.getitem and member(_made_by(defs[v][1].args[0], defs, callee), _PAIRS):
            pair = defs[defs[v][1].args[0]][1]  # the object out of an (object, value) pair, or obj.copy()'s value
            copied = callee(pair) is mut.call_method and len(pair.args) == 2 and _is_const(pair.args[1], "copy")
            return _is_const(defs[v][1].args[1], 0) or copied
        if v in defs:
            return False
        incoming = [j.args[b.args.index(v)] for b in f.blocks.values() if v in b.args
                    for p in f.blocks.values() for j in p.jumps() if j.target == b.id]
        # (root, or what changes of it made, around a loop; or a value no read of which runs after
        # the change: the object under another name, or the same name passed the unchanged object
        # again, would not see it)
        return all(isinstance(a, Var) and (root in _same_object(f, a, defs, callee)
                                           or not _read_after(f, a, block, change)) and fresh(a) for a in incoming)

    return fresh(root)


def _read_after(f: IR, v: Var, block: Block, change: Statement) -> bool:
    """Whether a read of ``v`` may run after ``change`` (in ``block``)
    with ``v`` still bound as it was: on a path from the change that does
    not pass ``v``'s definition again."""
    home = next(b.id for b in f.blocks.values() if v in b.args or any(st.var == v for st in b.stmts)) \
        if v not in f.entry.args else f.entry.id
    later = _later_blocks(f, block, {home})
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


def _exits_a_with(handler: Block, callee: Callable) -> bool:
    """Whether ``handler`` is a ``with`` block's (which reads the
    exception's ``__traceback__`` for ``__exit__``), not an ``except``."""
    return any(callee(st) is getattr and _is_const(st.args[1], "__traceback__") for st in handler.stmts)


def _may_raise_after(f: IR, block: Block, change: Statement) -> bool:
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


def _read_from_handler(f: IR, block: Block, same: set[Var]) -> bool:
    """Whether the exception handler of ``block`` is passed one of
    ``same``, or it or a block after it reads one."""
    region = {block.handler.target} | _later_blocks(f, f.blocks[block.handler.target])
    return any(a in same for a in block.handler.args) or any(
        any(isinstance(o, Var) and o in same for o in list(st.operands()) + [st.callee]) for bid in region
        for st in f.blocks[bid].stmts) or any(
        o in same for bid in region for o in f.blocks[bid].term_operands() + [a for j in f.blocks[bid].jumps()
                                                                            for a in j.args])


def _later_blocks(f: IR, block: Block, stop: set[int] = frozenset()) -> set[int]:
    """The blocks reachable from ``block``'s end without entering one of ``stop``."""
    succ = _successors(f)
    later: set[int] = set()
    todo = list(succ[block.id])
    while todo:
        n = todo.pop()
        if n not in later and n not in stop:
            later.add(n)
            todo += succ[n]
    return later


def _same_object(f: IR, root: Var, defs: dict, callee: Callable) -> set[Var]:
    """The values that may be the object ``root`` is: itself, the versions
    it was made from by earlier changes, and (through block arguments)
    the values a variable may have held before it."""
    incoming = _incoming(f)
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
        if member(fn, _VERSIONED) or member(fn, _IN_PLACE):
            todo.append(st.args[0])
        elif fn is operator.getitem and _is_const(st.args[1], 0) and member(_made_by(st.args[0], defs, callee), _PAIRS):
            todo.append(defs[st.args[0]][1].args[0])
    return out


def _object_of(f: IR, root: Var, defs: dict, callee: Callable) -> set[Var]:
    """:func:`_same_object`, and for a part (``d["m"]``, ``self.items``),
    the other reads of that part, which are the object too."""
    out = _same_object(f, root, defs, callee)
    st = defs[root][1] if root in defs else None
    if st is None or callee(st) not in (getattr, operator.getitem) or len(st.args) != 2 \
            or not isinstance(st.args[0], Var):
        return out
    parents = _object_of(f, st.args[0], defs, callee)
    grown = True
    while grown:  # (and the shallow copies of it, which hold the same parts, and what it is a copy of)
        copies = {v for v, (_, c) in defs.items() if member(callee(c), _SHALLOW_COPIES) and c.args
                  and (v in parents or c.args[0] in parents)}
        more = set().union(*(_same_object(f, v, defs, callee) | _same_object(f, defs[v][1].args[0], defs, callee)
                             for v in copies if isinstance(defs[v][1].args[0], Var)))
        grown = not more <= parents
        parents |= more
    for v, (_, other) in defs.items():
        if callee(other) is callee(st) and len(other.args) == 2 and other.args[0] in parents \
                and _same_operands(other.args[1:], st.args[1:]):
            out |= _same_object(f, v, defs, callee)
    return out


_NEW_VALUES = {
    *_ARITHMETIC, sum, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, operator.not_,
    operator.truth, operator.contains, operator.is_, operator.is_not, operator.floordiv, operator.mod, operator.pos,
    operator.abs, len, float, int, bool, complex, isinstance, abs, ops.exhausted, mut.keys_of, mut.sort_order,
}
"""Callees whose result holds no reference to their arguments (a number,
or a new array or container of new values). The iterators of
``_ITERATORS`` are left to their rules, which read the items in advance
and check at run time that no change reaches those not yet yielded
(``runtime.EagerIterator``); not ``iter``, whose loop reads the items by
their index as it goes (see ``reverse._index_active_loops``)."""
_ITERATORS = {enumerate, zip, map, filter, reversed}
_KEY_LISTS = {sorted, list, tuple, set, frozenset}
"""Calls that make a new container of what iterating over their argument
yields: of a dict, its keys."""
_CONTAINERS = {ops.build_list, ops.build_dict, ops.build_set, list, dict, set}
_KEEP_NO_VALUES = _ITERATORS | _CONTAINERS | {iter, ops.iternext, ops.build_tuple, getattr}
"""Calls whose pullbacks keep no values of their arguments: they hold
them, iterate over them, or name a method of them."""


def _held_after(f: IR, same: set[Var], root: Var, block: Block, change: Statement, defs: dict, callee: Callable,
                facts: Facts, aliases: set[Var] = frozenset()) -> tuple[Optional[Var], list[tuple[Block, Statement]],
                                                                        list[tuple]]:
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
    may be it too (see :func:`_part_aliases`), holders from the start."""
    held, items, before = _holders(f, same, root, block, change, defs, callee, facts, aliases)
    copied: set[Var] = set()  # (made from a copy: snapshot_reads gives one to a differentiated read of the object)
    grown = True
    while grown:
        grown = False
        for h in held - copied:
            st = defs[h][1] if h in defs else None
            made_from = [o for o in st.operands() if o in same or o in held] if st is not None else []
            if made_from and not member(callee(st), _ITERATORS) and all(
                    o in copied or o in same and h in facts.active and not _shape_read(st, o, callee)
                    for o in made_from):
                copied.add(h)
                grown = True
    loose = (held - copied) | {st.var for st in items}
    kept = [(b, r, h) for b in f.blocks.values() for r in b.stmts
            if r.var in facts.active and r is not change and any(o in loose for o in r.operands())
            and not member(callee(r), _KEEP_NO_VALUES) and not member(callee(r), _IN_PLACE)  # (a change of it)
            and before(b, r)
            for h in sorted({o for o in r.operands() if o in loose} - {r.var}, key=lambda v: v.id)
            if not _shape_read(r, h, callee)]
    holder = next((h for h in sorted(held, key=lambda v: v.id) if _read_after(f, h, block, change)), None)
    read = {st.var for st in items if _read_after(f, st.var, block, change)}
    return holder, [(b, st) for b in f.blocks.values() for st in b.stmts if st.var in read], kept


def _read_by_the_gradient(f: IR, root: Var, block: Block, change: Statement, defs: dict, callee: Callable,
                          facts: Facts) -> bool:
    """Whether a differentiated statement that may run before ``change``
    reads the object ``root`` changes, or a value that may hold it, or
    calls a nested function whose cell holds it: its pullback may keep
    the object, and must see it as it was, so the change is made a new
    value even where it is not differentiated."""
    same = _object_of(f, root, defs, callee)
    if root in defs and callee(defs[root][1]) is ops.load_global:  # (each read of a global is the object)
        same |= {st.var for b in f.blocks.values() for st in b.stmts
                 if callee(st) is ops.load_global and _same_operands(st.args, defs[root][1].args)}
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
             facts: Facts, aliases: set[Var] = frozenset()) -> tuple[set[Var], list[Statement],
                                                                     Callable[[Block, Statement], bool]]:
    """The values made before ``change`` that may hold the object (see
    :func:`_held_after`), the reads of its items at integers, and the test
    of whether a statement may run before the change with the object as
    it is."""
    made_by = [_made_by(v, defs, callee) for v in same]
    made = {defs[v][0].id for v in same if v in defs and not member(callee(defs[v][1]), _VERSIONED)
            and not member(callee(defs[v][1]), _IN_PLACE) and callee(defs[v][1]) not in (operator.getitem, getattr)}
    # (an item of a list, an attribute of an object: not the object)
    array = not any(member(fn, _CONTAINERS) or isinstance(fn, type) and not issubclass(fn, np.ndarray)
                    or fn is mut.init_object for fn in made_by)
    dicts = {ops.build_dict, dict, dict.copy}
    a_dict = any(member(fn, dicts) for fn in made_by) and all(
        fn is None or member(fn, dicts) or member(fn, _VERSIONED) for fn in made_by)  # (None: a block argument)

    preds: dict[int, list[int]] = {}
    for bid, targets in _successors(f).items():
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
        if (st.var in facts.scalars or member(fn, _NEW_VALUES) or isinstance(fn, np.ufunc)
                or member(fn, _MAY_BE_SCALARS) or member(fn, _FRESH_ARRAYS)
                or member(fn, _NEW_RESULTS) and _no_out(st, fn)):
            return False
        if member(fn, _ITERATORS):  # (over the object itself: checked when it runs; see runtime.EagerIterator)
            return any(isinstance(o, Var) and o in held for o in st.args)
        if _array_copy(st, defs, callee, facts):  # (hist.append(v.copy()): a new array of new numbers)
            return False
        if a_dict and member(fn, _KEY_LISTS) and st.args and st.args[0] in same:
            return False  # (sorted(d), list(d): d's keys)
        if member(fn, _PAIRS):
            return False  # (the object, and the value, which are read out of the pair below)
        if fn in (mut.write_back, mut.write_back_attribute, mut.part_changed, mut.attribute_changed):
            return False  # (the object a part of which was changed: a change of this part writes back again)
        if fn is operator.getitem and member(_made_by(st.args[0], defs, callee), _PAIRS) and st.args[0] not in held:
            if callee(defs[st.args[0]][1]) not in (mut.call_method, mut.call_changing):
                return False
            if _is_const(st.args[1], 1) and not any(  # (a method's value, which may be part of it: a number,
                    st.var in r.args and (member(callee(r), _ITERATORS) or callee(r) is iter)  # checked when it
                    for _, r in defs.values()):  # runs; not d.values(), a view that a loop goes over)
                items.append(st)
                return False
            return True
        if fn in (operator.getitem, getattr) and st.args[0] in same:
            # an item or attribute of the object; of an array, a view unless a number (or its shape)
            if fn is operator.getitem and array and integers(st.args[1]):
                items.append(st)
                return False
            return array and not (fn is getattr and _is_const(st.args[1], st.args[1].value)
                                  and st.args[1].value in runtime.METADATA_ATTRIBUTES)
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
    parent = _same_object(f, defs[root][1].args[0], defs, callee) if aliases else set()
    items: list[Statement] = []
    pairs = {v for v, (_, st) in defs.items() if member(callee(st), _PAIRS) and st.args and st.args[0] in same}
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


def _over_keys(f: IR, root: Var, held: Var, defs: dict, callee: Callable, facts: Facts) -> bool:
    """For ``held``, a ``for`` loop's iterator over the object ``root`` whose
    item a change stores (``for k in p: p[k] -= lr * g[k]``), and ``root``
    not known to be an array or a list: makes the loop go over
    ``mut.keys_of(root)``, the keys of a dict read when it starts (anything
    else is refused when it runs), and returns True; else False."""
    made = [held] if held in defs else [v for v in _incoming(f).get(held, []) if isinstance(v, Var)]
    if len(made) != 1 or made[0] not in defs:
        return False
    block, it = defs[made[0]]
    if callee(it) is not iter or it.args[0] != root or root in facts.arrays or root in facts.sequences \
            or member(_made_by(root, defs, callee), {ops.build_list, list, ops.build_tuple, tuple}):
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


def _held(f: IR, root: Var, holder: Var, loop: bool, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
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


def _another_name(f: IR, root: Var, other: Var, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name, also = f.names.get(root), f.names.get(other)
    return where(
        f"changing {'`' + name + '`' if name else 'part of an object'} in place, which may be "
        f"{'`' + also + '`' if also else 'a value put into the object'} (or hold it), read afterwards through that "
        "name, which would not see the change",
        line,
        "change it through one name only: read it back from the object after the change (a = l[0]), or change a "
        "copy put into the object",
    )


def _no_out(s: Statement, fn: Any) -> bool:
    """Whether a call of one of :data:`_NEW_RESULTS` passes no ``out``."""
    return not any(k == "out" or k is None for k, _ in s.kwargs) and not any(isinstance(a, Starred) for a in s.args) \
        and (len(s.args) <= 2 or fn is np.where)


def _in_a_try(f: IR, root: Var, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name = f.names.get(root)
    return where(
        f"changing {'`' + name + '`' if name else 'a value'} in place in a try (or with) block whose exception "
        "handler, or what runs after it, reads it: whether the change was made when the exception was raised is "
        "known only at run time",
        line,
        "make the change before or after the try block, or change a copy inside it and assign it after",
    )


def _not_fresh(f: IR, root: Var, where: Callable, line: Optional[int]) -> UnsupportedSyntax:
    name = f.names.get(root)
    return where(
        f"changing {'`' + name + '`' if name else 'a value'} in place, which may share its memory or items with "
        "another value (a view such as y[1:], an item of a container, a function's result, or a global)",
        line,
        "change a copy made in this function (y = y.copy(), l = list(l)), or index the original directly "
        "(y[1 + i] = v rather than t = y[1:]; t[i] = v)",
    )


def _copy_method(v: Var, defs: dict, callee: Callable) -> bool:
    """``v = obj.copy()``: a new object (of an array, a list, a dict)."""
    if v not in defs or not isinstance(defs[v][1].callee, Var) or defs[v][1].kwargs \
            or not all(isinstance(a, Const) for a in defs[v][1].args):  # (an array's order: y.copy('C'))
        return False
    m = defs.get(defs[v][1].callee)
    return m is not None and callee(m[1]) is getattr and len(m[1].args) == 2 and _is_const(m[1].args[1], "copy")


def _is_const(op: Any, value: Any) -> bool:
    return isinstance(op, Const) and type(op.value) is type(value) and op.value == value


def _rewrite(f: IR, b: Block, s: Statement, op: Any, args: list, pair: bool) -> Var:
    """Replace ``s`` by the versioned change; returns the new version."""
    at = b.stmts.index(s)
    name = f.names.get(args[0]) if isinstance(args[0], Var) else None
    if op in (mut.update_in_place, mut.update_maybe_array) or op is mut.extend and isinstance(s.callee, Const) \
            and s.callee.value is operator.iadd:  # (the operator's value is the changed object)
        s.callee, s.args = Const(op), args
        return s.var
    if op is _OUT:  # np.multiply(a, b, out=y): the product, then y[...] = it (as NumPy casts it into y)
        y = next(v for k, v in s.kwargs if k == "out")
        s.kwargs = [(k, v) for k, v in s.kwargs if k != "out"]
        result, new = s.var, f.new_var(name)
        s.var = f.new_var()
        b.stmts.insert(at + 1, Statement(new, Const(mut.store_item), [y, Const(Ellipsis), s.var], [], s.line))
        substitute(f, {result: new})
        return new
    if isinstance(s.callee, Var) and s.callee not in args:  # obj.append(v): the bound method is read for nothing now
        if use_counts(f).get(s.callee) == 1:
            home = next(bb for bb in f.blocks.values() if any(st.var == s.callee for st in bb.stmts))
            home.stmts = [st for st in home.stmts if st.var != s.callee]
            at = b.stmts.index(s)
    if not pair:
        new = f.new_var(name)
        b.stmts[at] = Statement(new, Const(op), args, [], s.line)
        substitute(f, {s.var: Const(None)})
        return new
    both, new = f.new_var(), f.new_var(name)
    stmts = [Statement(both, Const(op), args, [], s.line),
             Statement(new, Const(operator.getitem), [both, Const(0)], [], s.line)]
    positions = args[1].value if op is mut.call_changing else None
    if type(positions) is tuple:  # f(u, v) changing both: its value, and v as the call left it (a change of v)
        values = f.new_var()
        stmts += [Statement(values, Const(operator.getitem), [both, Const(1)], [], s.line),
                  Statement(s.var, Const(operator.getitem), [values, Const(0)], [], s.line),
                  *(Statement(f.new_var(), Const(mut.handed_back), [args[3 + p], values, Const(k)], [], s.line)
                    for k, p in enumerate(positions[1:], 1))]
    else:
        stmts.append(Statement(s.var, Const(operator.getitem), [both, Const(1)], [], s.line))
    b.stmts[at:at + 1] = stmts
    return new


def _rename(f: IR, root: Var, version: Var, where_changed: int, frontend: set[Var],
            error: Callable, line: Optional[int]) -> set[Var]:
    """Every read of ``root`` that the change reaches reads ``version``
    instead, through new block arguments where the two meet. Returns the
    block arguments made. ``root`` passed on to a block argument of the
    program's own (``frontend``: a variable assigned on several paths) is
    refused where that variable could be read after the change without
    seeing it: where it is passed the unchanged object and read after the
    change before it is bound again (another name for the object, or the
    same one on a path that leads to the change). Passed the changed
    object, it is that object, under its own name or another."""
    preds = predecessors(f)
    changed = f.blocks[where_changed]
    change = next(s for s in changed.stmts if s.var == version)
    home = next(b.id for b in f.blocks.values() if root in b.args or any(s.var == root for s in b.stmts))
    made: set[Var] = set()
    at_entry: dict[int, Var] = {}

    def read_end(bid: int) -> Var:
        if bid == where_changed:
            return version
        return root if bid == home else read_entry(bid)

    def read_entry(bid: int) -> Var:
        if bid == home:
            return root
        if bid not in at_entry:
            ps = preds[bid]
            if len(ps) == 1:  # (a handler is passed what its protected block had at its entry)
                only = f.blocks[ps[0]]
                raised = only.handler is not None and only.handler.target == bid \
                    and not any(j.target == bid for j in only.jumps())
                at_entry[bid] = read_entry(ps[0]) if raised else read_end(ps[0])
            else:
                phi = f.new_var(f.names.get(root))
                at_entry[bid] = phi
                f.blocks[bid].args.append(phi)
                made.add(phi)
                for p in ps:
                    for j in f.blocks[p].jumps():
                        if j.target == bid:
                            j.args.append(read_end(p))
                    h = f.blocks[p].handler  # (it passes the values at the protected block's entry)
                    if h is not None and h.target == bid:
                        h.args.append(read_entry(p))
        return at_entry[bid]

    for b in list(f.blocks.values()):
        here = b.id == where_changed
        after = False
        for st in b.stmts:
            if root in list(st.operands()):
                v = version if here and after else read_entry(b.id)
                if v != root:
                    _substitute_in(st, root, v)
            if st.var == version:
                after = True
        t = b.term
        for attr in ("value", "exc", "cause", "cond"):
            if getattr(t, attr, None) == root:
                setattr(t, attr, version if here else read_entry(b.id))
        for j in b.jumps():
            if root not in j.args:
                continue
            target = f.blocks[j.target]
            v = version if here else read_entry(b.id)
            if any(a == root and p in frontend and v == root and _read_after(f, p, changed, change)
                   for a, p in zip(j.args, target.args)):
                raise error(
                    f"changing `{f.names.get(root, 'a value')}` in place when another name may refer to it "
                    "(a variable assigned it on one of several paths)",
                    line, "change a copy (y = y.copy()) and use one name for it",
                )
            j.args = [v if a == root else a for a in j.args]
    return made


def _substitute_in(st: Statement, old: Var, new: Var) -> None:
    def sub(o):
        if isinstance(o, Starred):
            return Starred(sub(o.value))
        return new if o == old else o
    st.callee = sub(st.callee)
    st.args = [sub(a) for a in st.args]
    st.kwargs = [(k, sub(a)) for k, a in st.kwargs]
