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

Each change then has a derivative rule (:mod:`.operations`):
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

May import: the IR, the compiler's analysis and cells, the runtime, the rules,
the rest of this package.
"""
from __future__ import annotations

import operator
import types
import weakref
from typing import Any, Callable, Optional

import numpy as np

from ... import runtime
from ...errors import UnsupportedSyntax, ZygoteError
from ..analysis import edge_values, _MISSING, Facts, static_values
from ..cells import captured_names
from ...ir import ops
from ...ir.cfg import predecessors
from ...ir.core import IR, Block, Const, Operand, Return, Starred, Statement, Var
from ...ir.passes import member, remove_trivial_args, substitute, use_counts
from ... import registry
from ...rules import numpy_ufuncs
from . import operations as mut
from . import effects, loops, sharing


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
    if any(member(callee(s), effects.IN_PLACE) or isinstance(callee(s), types.FunctionType) for _, s in defs.values()):
        arrays = sharing.only_arrays(f, arrays, defs, callee)  # (for in-place operators: only where they may change)
        maybe_arrays = sharing.maybe_array_values(f, defs, callee, arrays, facts.scalars) \
            | sharing.held_items(f, defs, callee, arrays, facts, owned)
    containers = _containers(f, defs, callee, facts.sequences)
    changing_calls = frozenset(v for v, cls in facts.classes.items() if changes_itself(cls, "__call__"))
    found = next(
        ((b, s, c) for b in f.blocks.values() for s in b.stmts
         if id(s) not in passed and (c := as_change(s, defs, callee, arrays, plain, maybe_arrays, containers,
                                                      changing_calls))
         is not None
         and (any(isinstance(o, Var) and o in active for o in s.operands())
              or sharing.read_by_the_gradient(f, c[0], b, s, defs, callee, facts))),
        None,
    )
    if found is None:
        return None
    b, s, (root, op, args, pair) = found
    fresh = sharing.is_fresh(f, root, defs, callee, made, b, s)
    same = sharing.object_of(f, root, defs, callee)
    # (a change that runs the user's code, a function changing its argument, may raise having made part of it:
    # an `except` would go on with the part made; a `with` whose __exit__ swallowed it too, which is rare)
    if b.handler is not None and (sharing.may_raise_after(f, b, s) or member(op, mut.CHANGE_THEIR_FIRST)
                                  and not sharing.exits_a_with(f.blocks[b.handler.target], callee)) \
            and sharing.read_from_handler(f, b, same):
        raise sharing.in_a_try(f, root, where, s.line)
    aliases = sharing.part_aliases(f, root, defs, callee, facts) if root in maybe_arrays and root in defs \
        and callee(defs[root][1]) in (operator.getitem, getattr) and op in effects.IN_PLACE_CHANGES else set()
    held, items, kept = sharing.held_after(f, same, root, b, s, defs, callee, facts, aliases)
    if keeps_length(op, args, defs, callee, arrays) and loops.over_the_object(
            f, b, sharing.same_object(f, root, defs, callee), defs, callee, arrays | maybe_arrays | facts.sequences,
            lambda st: as_change(st, defs, callee, arrays, plain, maybe_arrays)):
        return set()  # (the loop over it reads it by index now, as Python's iterators do: its reads are a change's)
    # (an array or a number: `+=` changes the one and replaces the other, so no other name may read it after; a
    # function changes the one, and leaves the other as it was)
    maybe = op is mut.update_maybe_array or op is mut.call_changing and root in maybe_arrays \
        and not sharing.is_array(root, defs, callee, arrays)
    if maybe and (not fresh and _part_of(f, root, defs, callee, b, s) is None or held is not None
                  or loops.passed_on(f, same) or op is mut.update_maybe_array and any(sharing.read_after(f, v, b, s) for v in same)):
        passed.add(id(s))  # (an array or a list changed there is refused at run time)
        return set()
    if op is mut.call_method and (root in f.entry.args and root not in facts.objects or not fresh or held is not None) \
            and not (isinstance(args[1], Const) and args[1].value in effects.METHODS):
        # (a method that may change its object, which J refuses at run time where it does; an argument that is an
        # object of a plain class is changed as a new version: m.fit(x) caching self._V = np.vander(self.t, 3))
        passed.add(id(s))
        return set()
    part = None
    if not fresh:
        part = _part_of(f, root, defs, callee, b, s)
        if part is None and op is mut.update_in_place:
            passed.add(id(s))  # (its rule refuses an array at run time, where it runs)
            return set()
        if part is None:
            raise sharing.not_fresh(f, root, where, s.line)
        def mutable(v: Var) -> bool:
            return v not in facts.scalars or v in facts.sequences
        placed = {v for v in placed_in(f, part[0], part[1], defs, callee, set()) - same if mutable(v)}
        # (and what those were read from: o = [p[0]]; o[0][0] = x; p[0][0] reads p)
        placed |= {h for v in placed for h in _read_from(f, v, defs, callee)} - same - {part[0]}
        other = next((v for v in sorted(placed, key=lambda v: v.id) if sharing.read_after(f, v, b, s)), None)
        if other is None and sharing.read_after(f, part[0], b, s) and _twice(f, part[0], defs, callee, mutable, set()):
            other = part[0]  # (l = [a, a]; l[0][0] = x; l[1][0])
        if other is not None:
            raise sharing.another_name(f, root, other, where, s.line)
    if op in (mut.call_changing, mut.call_method) and sharing.defining_call(root, defs, callee) is not super:
        # the user's code may change what the object holds: b.items = a.items (super(): the object itself)
        # (a list or another object it was given as a field; an array changed in place there is refused when it
        # runs)
        inside = {st.args[2] for _, st in defs.values()
                  if callee(st) in (setattr, mut.store_attr) and len(st.args) == 3 and st.args[0] in same
                  and isinstance(st.args[2], Var) and st.args[2] not in same
                  and (st.args[2] not in facts.scalars or st.args[2] in facts.sequences)
                  and st.args[2] not in facts.arrays}
        inside |= {h for v in inside for h in _read_from(f, v, defs, callee)} - same
        other = next((v for v in sorted(inside, key=lambda v: v.id) if sharing.read_after(f, v, b, s)), None)
        if other is not None:
            raise sharing.another_name(f, root, other, where, s.line)
    if held is not None and op in (mut.store_item, mut.write_back) and (
            sharing.over_keys(f, root, held, defs, callee, facts) or any(
                sharing.over_keys(f, st.args[0], st.var, defs, callee, facts) for _, st in list(defs.values())
                if callee(st) is iter and st.args and st.args[0] in same and st.var != held)):
        # (for k in p: p[k] = ...; g = {k: ... for k in p} before it: the loops go over p's keys, read once:
        # see mut.keys_of)
        return set()
    if held is not None:  # (unless it is made by arithmetic, which makes numbers or arrays: 2 * v)
        made_new: list[Statement] = []
        again, items, kept = sharing.held_after(f, same, root, b, s, defs, callee, facts, aliases, made_new)
        if again is not None:
            raise sharing.held_error(f, root, held, member(sharing.defining_call(held, defs, callee), {iter}), where,
                                     s.line)
        for st, value in {(id(st), value): (st, value) for st, value in made_new}.values():
            home = defs[st.var][0]
            home.stmts.insert(home.stmts.index(st) + 1, Statement(f.new_var(), Const(mut.made_new), [value], [],
                                                                  st.line))
    for home, r, h in kept:  # (a view, or an item, that a pullback keeps: it keeps a copy)
        copy_ = f.new_var(f.names.get(h))
        home.stmts.insert(home.stmts.index(r), Statement(copy_, Const(mut.snapshot_holder), [h], [], r.line))
        _substitute_in(r, h, copy_)
    for home, item in items:  # (a number, unless the array has more dimensions than the index; a method's value)
        pair = defs[item.args[0]][1] if item.args[0] in defs else None
        check, operands = (mut.apart, [item.var, pair.args[0]]) if pair is not None and member(callee(pair), effects.PAIRS) \
            else (mut.not_a_view, [item.var])
        home.stmts.insert(home.stmts.index(item) + 1, Statement(f.new_var(), Const(check), operands, [], item.line))
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
                and same_operands(following.args, [parent, key, version]):
            following.callee = Const(store)  # (p[k] -= v: its own store is the write-back)
        else:
            home.stmts.insert(at + 1, Statement(f.new_var(), Const(store), [parent, key, version], [], s.line))
    remove_trivial_args(f)
    return (same | aliases) & set(f.entry.args)  # (an array a parameter passed, changed as an item: d = {"w": w})


def _containers(f: IR, defs: dict, callee: Callable, sequences: set[Var]) -> set[Var]:
    """The values known to be lists or dicts (or sets): made by a display,
    ``list()``, ``dict()``, sequences of numbers, their versions, and block
    arguments that only these reach (a greatest fixed point)."""
    incoming = incoming_values(f)
    def a_copy(st: Statement) -> bool:  # (of what may be one: xs.copy())
        m = defs[st.callee][1] if isinstance(st.callee, Var) and st.callee in defs else None
        return m is not None and callee(m) is getattr and sharing.is_const(m.args[1], "copy") and not st.args

    out = set(sequences) | set(incoming)
    for v, (_, st) in defs.items():
        fn = callee(st)
        if member(fn, effects.CONTAINERS) or member(fn, effects.VERSIONED) and st.args or a_copy(st) or fn is operator.getitem \
                and member(sharing.defining_call(st.args[0], defs, callee), effects.PAIRS) and sharing.is_const(st.args[1], 0):
            out.add(v)
    changed = True
    while changed:
        changed = False
        for v in list(out):
            st = defs[v][1] if v in defs else None
            keep = v in sequences or (all(isinstance(a, Var) and a in out for a in incoming[v]) if st is None
                                      else member(callee(st), effects.CONTAINERS) or a_copy(st)
                                      and defs[st.callee][1].args[0] in out or st.args and st.args[0] in out)
            if not keep:
                out.discard(v)
                changed = True
    return out


def incoming_values(f: IR) -> dict[Var, list]:
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
    if member(sharing.defining_call(parent, defs, callee), effects.PAIRS):
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


def _put_into(f: IR, parents: set[Var], key: Optional[Operand], defs: dict, callee: Callable) -> tuple[list, bool]:
    """What was put into the objects ``parents``: their display's items
    (the one at a constant ``key`` only, of a list or tuple display),
    values stored into them, passed to a method of them or to their class;
    and whether an item may be there twice (``[a] * 2``, ``[a, a]``)."""
    out: list = []
    repeated = False
    for _, st in defs.values():
        fn = callee(st)
        if st.var in parents and (member(fn, effects.BUILDS) or isinstance(fn, type)):
            args = [a.value if isinstance(a, Starred) else a for a in st.args]
            repeated |= len({a for a in args if isinstance(a, Var)}) < sum(isinstance(a, Var) for a in args)
            if fn in (ops.build_list, ops.build_tuple) and isinstance(key, Const) and type(key.value) is int \
                    and not any(isinstance(a, Starred) for a in st.args) and -len(args) <= key.value < len(args):
                args = [args[key.value]]
            out += args
        elif st.var in parents and fn is operator.mul and st.args and isinstance(st.args[0], Var):
            repeated = True  # ([a] * 2: its items, twice)
            out += _put_into(f, sharing.same_object(f, st.args[0], defs, callee), None, defs, callee)[0]
        elif st.args and st.args[0] in parents and (member(fn, effects.ITEM_CHANGES) or member(fn, effects.VERSIONED)) \
                and fn not in (mut.update_in_place, mut.update_maybe_array, mut.add_at):  # (arithmetic: nothing held)
            out += st.args[2:] if fn in (operator.setitem, mut.store_item) else st.args[1:]  # (not a key)
        elif isinstance(st.callee, Var) and st.callee in defs and callee(defs[st.callee][1]) is getattr \
                and defs[st.callee][1].args[0] in parents:  # parent.append(v)
            out += st.args
    return [v for v in out if isinstance(v, Var)], repeated


def placed_in(f: IR, parent: Var, key: Optional[Operand], defs: dict, callee: Callable, seen: set[Var]) -> set[Var]:
    """The values that ``parent[key]`` may be (see :func:`_put_into`), and
    what those hold, and for a part of another object or a shallow copy
    of one, what was put into that."""
    parents = sharing.same_object(f, parent, defs, callee) - seen
    seen |= parents
    out = set(_put_into(f, parents, key, defs, callee)[0])
    for v in list(out):
        out |= placed_in(f, v, None, defs, callee, seen)
    for p in parents:  # (a part of another object, or a shallow copy of one, which holds the same items)
        if p in defs and member(callee(defs[p][1]), effects.HOLDS_THE_ITEMS) and defs[p][1].args \
                and isinstance(defs[p][1].args[0], Var):
            out |= placed_in(f, defs[p][1].args[0], None, defs, callee, seen)
    return out


def _read_from(f: IR, v: Var, defs: dict, callee: Callable) -> set[Var]:
    """The objects ``v`` was read from as a part (``p[0]``, ``h.inner``,
    ``a[:1]``, a loop variable over ``p``) and those they were read from,
    which hold it: a change of ``v`` is a change of what they hold."""
    out: set[Var] = set()
    todo = [v]
    while todo:
        for w in sharing.same_object(f, todo.pop(), defs, callee):
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
    parents = sharing.same_object(f, parent, defs, callee) - seen
    seen |= parents
    items, repeated = _put_into(f, parents, None, defs, callee)
    items = [v for v in items if mutable(v)]
    repeated &= bool(items)
    groups = [sharing.same_object(f, v, defs, callee) for v in items]
    return repeated or any(groups[i] & groups[j] for i in range(len(groups)) for j in range(i)) or any(
        p in defs and member(callee(defs[p][1]), effects.SHALLOW_COPIES) and defs[p][1].args
        and isinstance(defs[p][1].args[0], Var) and _twice(f, defs[p][1].args[0], defs, callee, mutable, seen)
        for p in parents)


def in_place_as_stores(f: IR, facts: Facts) -> bool:
    """Calls that change an array in place become item stores of the value
    they leave, which both modes differentiate (the call's value is
    ``None``): ``y.sort(...)`` of a known array ``y`` becomes ``t =
    np.sort(y, ...); y[...] = t``, and ``y.partition(...)`` alike;
    ``y.fill(v)`` becomes ``y[...] = v``; ``np.copyto(y, v, ...)``,
    ``np.fill_diagonal(y, v, ...)`` and ``np.multiply.at(y, i, v)`` (and
    ``maximum``'s, ``minimum``'s) become ``y[...] = t`` of the value that
    :mod:`zygote_py.rules.numpy_arrays` or :mod:`~zygote_py.rules.numpy_ufuncs`
    computes; a NumPy call writing into ``out=`` first
    (:func:`_outputs_as_stores`). Whether any changed."""
    changed = _outputs_as_stores(f, facts)
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
        return value if any(value is u for u in effects.AT_UFUNCS) else None

    callees = {s.callee for s in defs.values() if isinstance(s.callee, Var)}
    methods = {v: m for v, m in defs.items() if v in callees and uses.get(v) == 1 and m.args and (
        read(m, effects.METHOD_VALUES) is not None and m.args[0] in facts.arrays or ufunc_of(m) is not None)}
    for b in f.blocks.values():
        out = []
        for s in b.stmts:
            if s.var in methods:
                continue
            fn = facts.callee(s)
            m = methods.get(s.callee) if isinstance(s.callee, Var) else None
            if any(isinstance(a, Starred) for a in s.args) or (m is None and not member(fn, effects.FUNCTION_VALUES)) \
                    or m is None and not (s.args and isinstance(s.args[0], Var)):
                if m is not None:
                    out.append(m)
                out.append(s)
                continue
            result = s.var
            if m is not None and ufunc_of(m) is not None:
                y = s.args[0]
                s.var, s.callee, s.args = f.new_var(), Const(numpy_ufuncs.ufunc_at), [Const(ufunc_of(m)), *s.args]
            elif m is not None and effects.METHOD_VALUES[read(m, effects.METHOD_VALUES)] is None:  # y.fill(v): y[...] = v
                y, value = m.args[0], s.args[0]
                out.append(Statement(f.new_var(), Const(operator.setitem), [y, Const(Ellipsis), value], [], s.line))
                substitute(f, {result: Const(None)})
                changed = True
                continue
            elif m is not None:
                y = m.args[0]
                s.var, s.callee, s.args = f.new_var(), Const(effects.METHOD_VALUES[read(m, effects.METHOD_VALUES)]), [y, *s.args]
            else:
                y = s.args[0]
                s.var, s.callee = f.new_var(), Const(effects.FUNCTION_VALUES[fn])
            out += [s, Statement(f.new_var(), Const(operator.setitem), [y, Const(Ellipsis), s.var], [], s.line)]
            substitute(f, {result: Const(None)})
            changed = True
        b.stmts = out
    return changed


def _outputs_as_stores(f: IR, facts: Facts) -> bool:
    """A NumPy call writing into an array, ``np.sum(x, 0, out=y)`` or
    ``np.sum(x, 0, None, y)`` by position, becomes ``t = np.sum(x, 0); y[...] =
    t`` (as NumPy casts it into ``y``), and its value, ``y``, is read from
    ``y``; where ``y`` is not known to be an array, the call's value after
    ``mutation.no_out(y)`` (a parameter ``out=None``). A ufunc's ``where=m``
    keeps ``y``'s items where ``m`` is false: the ufunc of the others is
    stored at ``m`` (:func:`_picked`); another function's ``where=`` with
    ``out=`` is refused where it runs. Whether any changed."""
    defs = {s.var: s for b in f.blocks.values() for s in b.stmts}
    uses = use_counts(f)
    unused: set[Var] = set()
    changed = False
    for b in f.blocks.values():
        out = []
        for s in b.stmts:
            fn, args = facts.callee(s), s.args
            method = _array_method(defs.get(s.callee) if isinstance(s.callee, Var) else None, facts)
            if method is not None:  # x.sum(0, None, y): np.ndarray.sum(x, 0, None, y)
                fn, args = getattr(np.ndarray, method.args[1].value), [method.args[0], *s.args]
            names = runtime.numpy_parameters(fn) if fn is not _MISSING else None
            y = runtime.out_argument(fn, args, dict(s.kwargs)) if names is not None else None
            if y is None or any(k is None for k, _ in s.kwargs) or len(args) > len(names) \
                    or any(isinstance(a, Starred) for a in args[:names.index("out") + 1]):
                out.append(s)
                continue
            at = names.index("out")
            keywords = [(k, v) for k, v in s.kwargs if k != "out"] \
                + [(k, v) for k, v in zip(names[at + 1:], args[at + 1:])]  # (keepdims, after out by position)
            keywords = [(k, v) for k, v in keywords if not (k == "where" and isinstance(v, Const) and v.value is True)]
            where = next((v for k, v in keywords if k == "where"), None)
            if where is not None and not (isinstance(fn, np.ufunc) and y in facts.arrays):
                out.append(s)  # (np.sum(x, where=m, out=y), or y not known: refused where it runs)
                continue
            if method is not None:
                s.callee = Const(fn)
                if uses.get(method.var) == 1:
                    unused.add(method.var)
            s.kwargs, s.args = [(k, v) for k, v in keywords if k != "where"], args[:at]
            changed = True
            if isinstance(y, Const) and y.value is None:
                out.append(s)
                continue
            if y not in facts.arrays:  # (np.cumsum(a, out=out) of a parameter out=None: NumPy's nancumprod)
                out += [Statement(f.new_var(), Const(mut.no_out), [y], [], s.line), s]
                continue
            key: Operand = Const(Ellipsis)
            if where is not None:  # np.divide(a, b, out=y, where=m): the ufunc of the items picked, stored at m
                made, key = _picked(f, s, y, where)
                out += made
            result, s.var = s.var, f.new_var()
            out += [s, Statement(f.new_var(), Const(operator.setitem), [y, key, s.var], [], s.line)]
            substitute(f, {result: y})
        b.stmts = out
    for b in f.blocks.values():
        b.stmts = [s for s in b.stmts if s.var not in unused]
    return changed


def _picked(f: IR, s: Statement, y: Var, where: Operand) -> tuple[list[Statement], Var]:
    """Statements that make the ufunc call ``s`` read its inputs at the
    items ``where`` picks of ``y``'s shape (``np.broadcast_to(a,
    np.shape(y))[m]``), so that it computes only those, as NumPy does
    (``np.log(x, out=y, where=x > 0)`` never takes the log of the others,
    nor its derivative); and the mask, the key to store at."""
    def call(fn: Any, *args: Operand) -> Var:
        v = f.new_var()
        made.append(Statement(v, Const(fn), list(args), [], s.line))
        return v

    made: list[Statement] = []
    shape = call(np.shape, y)
    mask = call(np.broadcast_to, where, shape)
    s.args = [call(operator.getitem, call(np.broadcast_to, a, shape), mask) for a in s.args]
    return made, mask


def _array_method(m: Optional[Statement], facts: Facts) -> Optional[Statement]:
    """``m`` when it reads a NumPy method that may write into ``out`` off a
    known array (``x.sum``)."""
    if m is None or facts.callee(m) is not getattr or len(m.args) != 2 or m.args[0] not in facts.arrays \
            or not isinstance(m.args[1], Const) or not isinstance(m.args[1].value, str):
        return None
    return m if runtime.numpy_parameters(getattr(np.ndarray, m.args[1].value, None)) is not None else None


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
            if not (isinstance(update.callee, Const) and member(update.callee.value, effects.IN_PLACE)
                    and uses.get(update.var) == 1 and update.args[0] in defs and uses.get(update.args[0]) == 1):
                continue
            cur = defs[update.args[0]]
            if isinstance(cur.callee, Const) and cur.callee.value is read and same_operands(cur.args, s.args[:2]):
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


def same_operands(xs: list, ys: list) -> bool:
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
    callee = facts.callee
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
            if member(callee(st), effects.VERSIONED) and isinstance(st.args[0], Var):
                for v in sorted(sharing.same_object(f, st.args[0], defs, callee), key=lambda x: x.id):
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
        and not (shape_read(r, v, callee) and v not in resized)
        and not (member(callee(r), effects.VERSIONED) and r.args[0] == v)  # (a change of it, which must change it)
        and not (callee(r) is mut.call_changing and type(r.args[1].value) is tuple
                 and v in [r.args[3 + p] for p in r.args[1].value])  # (project(u, v) changing v too)
        and not member(callee(r), effects.ITERATORS)  # (which read the items at once, and watch it for changes)
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
    later = sharing.later_blocks(f, block)
    return any(
        isinstance(st.callee, Const) and st.callee.value is ops.load_deref and sharing.is_const(st.args[0], name)
        and (bb.id in later or bb is block and bb.stmts.index(st) > bb.stmts.index(change))
        or isinstance(st.callee, Const) and st.callee.value is ops.make_function and name not in shared
        and name in captured_names(st.args[0].value) and sharing.read_after(f, st.var, block, change)
        for bb in f.blocks.values() for st in bb.stmts)


def _keep_outputs(f: IR, facts: Facts) -> None:
    """An array that a differentiated call made (``v = np.tanh(x)``), and
    that a change then consumes (``v -= 1``): the call's pullback may read
    its output (tanh's does), so the output is kept as it is and the code
    goes on with a copy of it, which the change changes. (The array is new,
    so every reference to it is a use of the value.)"""
    defs = {x.var: (bb, x) for bb in f.blocks.values() for x in bb.stmts}
    incoming = incoming_values(f)

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
                return any(made_by_a_rule(u, seen) for u in placed_in(f, st.args[0], st.args[1], defs, facts.callee,
                                                                     set()))
            return v in facts.active and not member(fn, effects.FRESH) and not member(fn, effects.VERSIONED)
        return any(made_by_a_rule(u, seen) for u in incoming.get(v, ()))

    maybe_arrays: Optional[frozenset] = None  # (made when a call that changes its argument is met)
    for b in list(f.blocks.values()):
        for st in list(b.stmts):
            if not member(facts.callee(st), effects.VERSIONED) or not isinstance(st.args[0], Var):
                continue
            v = st.args[0]
            if facts.callee(st) is mut.call_changing and maybe_arrays is None:
                maybe_arrays = sharing.maybe_array_values(f, defs, facts.callee, facts.arrays, facts.scalars)
            maybe = facts.callee(st) is mut.update_maybe_array or facts.callee(st) is mut.call_changing \
                and v in maybe_arrays  # (a number's copy is itself)
            if v not in facts.active or not (maybe or sharing.is_array(v, defs, facts.callee, facts.arrays)) \
                    or not made_by_a_rule(v, set()):
                continue  # (an array: an object's identity is its whole point, and no rule reads it back)
            copy_ = f.new_var(f.names.get(v))
            facts.active.add(copy_)  # (the change, and what holds the array, read the copy)
            if v in defs:  # every reference to the new array is a use of v: all go to the copy
                home, d = defs[v]
                substitute(f, {v: copy_})
                home.stmts.insert(home.stmts.index(d) + 1, Statement(copy_, Const(mut.snapshot), [v], [], d.line))
            else:  # a block argument only fresh values reach: the change goes to a copy made just before it
                same = sharing.same_object(f, v, defs, facts.callee)
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
                             if member(facts.callee(x), effects.ITERATORS) and any(o in same for o in x.operands())}
                iterators |= {x.var for _, x in defs.values() if facts.callee(x) is iter and x.args[0] in iterators}
                home = next(bb for bb in f.blocks.values() if v in bb.args)
                after = sharing.later_blocks(f, home)
                at = home.args.index(v)
                changed = _versions(f)
                rebound = any(  # (what a loop's back edge brings round is not the object, changed or not)
                    j.target == home.id and src.id in after and not changed(j.args[at], v)
                    for src in f.blocks.values() for j in src.jumps())
                if rebound and any(sharing.read_after(f, it, b, st) for it in iterators):
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
    incoming = incoming_values(f)

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
            if fn is operator.getitem and sharing.is_const(st.args[1], 0) and isinstance(st.args[0], Var) \
                    and st.args[0] in defs and isinstance(defs[st.args[0]].callee, Const) \
                    and member(defs[st.args[0]].callee.value, effects.PAIRS):
                return version(defs[st.args[0]].args[0])  # the object out of an (object, value) pair
            return (member(fn, effects.VERSIONED) or fn is mut.snapshot) and version(st.args[0])

        return version(v)

    return changed


def successors(f: IR) -> dict[int, set[int]]:
    """Each block's successors, through its jumps and its exception handler."""
    return {bid: {j.target for j in b.jumps()} | ({b.handler.target} if b.handler else set())
            for bid, b in f.blocks.items()}


def _reachable(f: IR) -> dict[int, set[int]]:
    """The blocks reachable from each block by one or more edges."""
    succ = successors(f)
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
            if member(fn, effects.VERSIONED):
                obj = st.args[0]
                union(st.var, obj)
                if not keeps_length(fn, st.args, defs, callee):
                    resizing.append(obj)
            elif fn is operator.getitem and st.args[0] in defs and member(callee(defs[st.args[0]][1]), effects.PAIRS):
                union(st.var, st.args[0])
        for j in b.jumps():
            for p, a in zip(f.blocks[j.target].args, j.args):
                union(p, a)
    roots = {find(v) for v in resizing}
    return {v for v in set(parent) | set(parent.values()) if find(v) in roots}


def keeps_length(fn: Any, args: list, defs: dict, callee: Callable, arrays: frozenset = frozenset()) -> bool:
    """Whether the change ``fn(*args)`` keeps its object's length (any
    store into one of ``arrays`` does)."""
    if fn is mut.store_item and isinstance(args[0], Var) and sharing.is_array(args[0], defs, callee, arrays):
        return True
    if fn is mut.store_item:
        key = args[1]
        if isinstance(key, Const):
            return not isinstance(key.value, slice)
        return key in defs and callee(defs[key][1]) is not slice
    return fn in (mut.update_in_place, mut.update_maybe_array, mut.store_attr, mut.write_back, mut.write_back_attribute)


def shape_read(r: Statement, v: Var, callee: Callable) -> bool:
    """``r`` reads ``v`` only for its shape: indexing it, or changing it."""
    fn = callee(r)
    return fn is operator.getitem and r.args[0] == v and v not in r.args[1:] or member(fn, effects.VERSIONED)


def as_change(s: Statement, defs: dict, callee: Callable, arrays: set[Var],
               plain: frozenset = frozenset(), maybe_arrays: frozenset = frozenset(),
               containers: Optional[set[Var]] = None, objects: frozenset = frozenset()) -> Optional[tuple]:
    """``(object, operation, arguments, returns a pair)`` when ``s``
    changes an object in place, or (a method call on an object not in
    ``plain``, an in-place operator on one of ``maybe_arrays``) may change
    it, and is not yet a versioned change; else ``None``. A list's or a
    dict's method (``append``, ``update``...) on an object not among
    ``containers`` (when given) may be a user class's, whose value counts:
    it is ``mutation.call_method``, and so is a call ``m(x)`` of one of
    ``objects`` (arguments whose class's ``__call__`` changes them:
    ``self.cache = h``)."""
    fn = callee(s)
    if isinstance(s.callee, Var) and s.callee in objects and not s.kwargs \
            and not any(isinstance(a, Starred) for a in s.args):
        return s.callee, mut.call_method, [s.callee, Const("__call__"), *s.args], True
    if member(fn, effects.ITEM_CHANGES) and s.args and isinstance(s.args[0], Var) and not s.kwargs:
        return s.args[0], effects.ITEM_CHANGES[fn], list(s.args), False
    if is_add_at(fn) and len(s.args) == 3 and isinstance(s.args[0], Var) and not s.kwargs:
        return s.args[0], mut.add_at, list(s.args), False
    if fn is operator.iadd and len(s.args) == 2 and containers is not None and s.args[0] in containers \
            and not sharing.is_array(s.args[0], defs, callee, arrays):
        return s.args[0], mut.extend, list(s.args), False  # (xs += ys of a list: xs.extend(ys), whose value is xs)
    if member(fn, effects.IN_PLACE) and len(s.args) == 2 and isinstance(s.args[0], Var) and sharing.is_array(s.args[0], defs, callee, arrays):
        return s.args[0], mut.update_in_place, [*s.args, Const(fn)], False
    if member(fn, effects.IN_PLACE) and len(s.args) == 2 and s.args[0] in maybe_arrays:
        return s.args[0], mut.update_maybe_array, [*s.args, Const(fn)], False
    if _is_init(fn) and s.args and isinstance(s.args[0], Var) and not s.kwargs:  # Base.__init__(self, ...)
        return s.args[0], mut.init_object, [s.args[0], s.callee, *s.args[1:]], False
    if isinstance(fn, types.FunctionType) and not s.kwargs and not any(isinstance(a, Starred) for a in s.args):
        definite, in_place = changed_positions(fn)
        at = sorted({*definite, *(p for p in in_place if p < len(s.args) and (
            sharing.is_array(s.args[p], defs, callee, arrays) or s.args[p] in maybe_arrays))})
        if at and at[-1] < len(s.args) and all(isinstance(s.args[p], Var) for p in at) \
                and len({s.args[p] for p in at}) == len(at):  # f(y) changing y (f(u, v) changing both)
            obj = s.args[at[0]]
            return obj, mut.call_changing, [obj, Const(at[0] if len(at) == 1 else tuple(at)), s.callee, *s.args], True
    if isinstance(s.callee, Var) and s.callee in defs and not s.kwargs:
        m = defs[s.callee][1]
        sup = defs.get(m.args[0])[1] if m.args and m.args[0] in defs else None
        if (callee(m) is getattr and sharing.is_const(m.args[1], "__init__") and sup is not None
                and callee(sup) is super and len(sup.args) == 2 and isinstance(sup.args[1], Var)):
            return sup.args[1], mut.init_object, [sup.args[1], s.callee, *s.args], False  # super().__init__(...)
        if (callee(m) is getattr and len(m.args) == 2 and isinstance(m.args[0], Var)
                and isinstance(m.args[1], Const) and m.args[1].value in effects.METHODS and not _module_function(fn)):
            if containers is not None and m.args[0] not in containers:
                return m.args[0], mut.call_method, [m.args[0], m.args[1], *s.args], True
            op = effects.METHODS[m.args[1].value]
            return m.args[0], op, [m.args[0], *s.args], op in effects.PAIRS
        if (plain and callee(m) is getattr and len(m.args) == 2 and isinstance(m.args[0], Var)
                and m.args[0] not in plain and isinstance(m.args[1], Const) and isinstance(m.args[1].value, str)
                and not sharing.copy_method(s.var, defs, callee) and not any(isinstance(a, Starred) for a in s.args)):
            kind = defs[m.args[0]][1] if m.args[0] in defs else None
            if kind is not None and callee(kind) is type and kind.args and s.args and s.args[0] == kind.args[0]:
                obj = s.args[0]  # type(cm).__enter__(cm), as a with block calls it: cm.__enter__()
                return (obj, mut.call_method, [obj, m.args[1], *s.args[1:]], True) if obj not in plain else None
            return m.args[0], mut.call_method, [m.args[0], m.args[1], *s.args], True  # obj.method(...)
    return None


_RETURNS_NEW: "weakref.WeakKeyDictionary[types.CodeType, bool]" = weakref.WeakKeyDictionary()


def returns_new(fn: types.FunctionType) -> bool:
    """Whether every value ``fn`` (a Python function without a rule)
    returns is a new object that nothing else refers to, read from its
    code: one of :data:`_FRESH`, arithmetic, a ufunc's or :data:`_NEW_RESULTS`'
    value, a view (``np.reshape(flat, shape)``) of such a value read
    nowhere else, or another such function's value: a caller may change it
    in place (``vx = advect(...); project(vx, vy)``)."""
    from ..pipeline import primal_ir  # (pipeline builds on this module)

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
            if member(f, effects.FRESH) or member(f, effects.ARITHMETIC) or isinstance(f, np.ufunc) and f.nout == 1 \
                    and not st.kwargs or member(f, effects.NEW_RESULTS) and sharing.no_out(st, f):
                return True
            if member(f, effects.VIEWS) and st.args and uses.get(st.args[0]) == 1:
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
    from ..pipeline import primal_ir  # (pipeline builds on this module)

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
                    if (c := as_change(s, defs, facts.callee, arrays)) is not None and owner(c[0]) in params}
        definite = changed(set())
        _CHANGED[code] = (tuple(sorted(definite)), tuple(sorted(changed(set(params)) - definite)))
    return _CHANGED[code]


_SELF_CALLS: "weakref.WeakKeyDictionary[types.CodeType, frozenset]" = weakref.WeakKeyDictionary()


def self_calls(fn: types.FunctionType) -> frozenset:
    """The names of the methods that ``fn`` (a method) calls on its first
    parameter (``self.features(x)``, or ``self(x)``: ``__call__``), read from its code: the run-time
    ``changing_method`` asks whether one of them changes the object, for a
    method that changes it only through another."""
    from ..pipeline import primal_ir  # (pipeline builds on this module)

    code = fn.__code__
    if code not in _SELF_CALLS:
        _SELF_CALLS[code] = frozenset()
        try:
            ir = primal_ir(fn)
        except ZygoteError:
            return _SELF_CALLS[code]
        if ir.entry.args:
            first = ir.entry.args[0]
            read = {s.var: s.args[1].value for b in ir.blocks.values() for s in b.stmts
                    if isinstance(s.callee, Const) and s.callee.value is getattr and len(s.args) == 2 and s.args[0] == first
                    and isinstance(s.args[1], Const) and isinstance(s.args[1].value, str)}
            read[first] = "__call__"  # (self(x) calls the class's __call__)
            _SELF_CALLS[code] = frozenset(read[s.callee] for b in ir.blocks.values() for s in b.stmts
                                          if isinstance(s.callee, Var) and s.callee in read)
    return _SELF_CALLS[code]


def changes_itself(cls: type, name: str, seen: tuple = ()) -> bool:
    """Whether ``cls``'s method ``name``, a Python function, changes its
    object in place, itself or through another method it calls on it
    (known from the class, for an argument: see the run-time
    ``changing_method``)."""
    method = getattr(cls, name, None)
    if not isinstance(method, types.FunctionType):
        return False
    return 0 in changed_positions(method)[0] or any(
        n not in seen and changes_itself(cls, n, (*seen, name)) for n in self_calls(method))


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


def _rewrite(f: IR, b: Block, s: Statement, op: Any, args: list, pair: bool) -> Var:
    """Replace ``s`` by the versioned change; returns the new version."""
    at = b.stmts.index(s)
    name = f.names.get(args[0]) if isinstance(args[0], Var) else None
    if op in (mut.update_in_place, mut.update_maybe_array) or op is mut.extend and isinstance(s.callee, Const) \
            and s.callee.value is operator.iadd:  # (the operator's value is the changed object)
        s.callee, s.args = Const(op), args
        return s.var
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
            if any(a == root and p in frontend and v == root and sharing.read_after(f, p, changed, change)
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
