"""The forward-mode transform: primal IR → pushforward IR.

``f(x, n)`` becomes ``f_jvp(x, n, dx) -> (y, dy)``: the same blocks, each
value followed by its tangent. A value that does not depend on a
differentiated input has the tangent :data:`~.pushrules.ZERO`, known at
compile time and never computed; every other value gets a tangent
variable. The transform keeps the primal's control flow as it is (no
stacks, no transposed graph): a block argument whose value may carry a
tangent gets a tangent argument next to it, and a jump that passes a
value with a zero tangent passes a concrete zero
(:func:`.runtime.zero_operand`: a float zero for an integer array too).

- **Calls.** A call with a pushforward rule gets the rule inlined, its zero
  tangents dropped (:mod:`.pushrules`). A call of another Python function,
  or of a callee known only at run time, becomes ``runtime.push``, which
  transforms the callee in turn; a function with an adjoint rule but no
  pushforward rule gets its tangent from the adjoint
  (``runtime.push_by_adjoint``, one pullback per output element).
- **Structures.** The tangent of a tuple or list display is the display of
  the items' tangents (``None`` for an item without one), and an item read
  at a constant index from a display the transform made is that item's
  tangent, statically.
- **Changes in place.** An object's tangent is an object of the same kind
  that changes alongside it: ``y[k] = v`` is followed by ``dy[k] = dv``,
  ``ys.append(v)`` by ``dys.append(dv)``, ``y += v`` on an array by
  ``dy += dv``. Values that may be the same object (block arguments and the
  values passed to them, views and items read off an object, the results
  of in-place operators) form one *alias class*; when an active value is
  stored into a member, the whole class is active and its members made
  without a tangent (``np.zeros(n)``, ``[]``) get a concrete zero tangent
  of their own, which later changes update. A value read off an object (an
  item, a loop variable, ``d.get(k)``, an attribute) has that part of the
  object's tangent, never a copy; a change made through such a part
  reaches what its object holds (a display its items, a list what was
  appended, an object what its ``__init__`` stored), and the holders of
  a changed object get tangents holding its tangent, so that the change
  is seen wherever the object is reached from.

- **Shared variables.** Cells that may hold a differentiated value (a
  nested function reads them, or assigns them: ``nonlocal``) become SSA
  values, as in reverse mode (:mod:`.cells`): a call of a nested function
  sharing them is ``runtime.call_with_cells``, whose pushforward hands the
  nested function the cells' tangents and gets back, with its value's,
  those of the values it leaves in them.

Refused, with an error naming the line: nested functions and generator
expressions that read a differentiated value other than where they are
called as above (passed on, returned, or nested in such a function and
reading what it was handed), global variables assigned a differentiated
value, exception handlers reached by one, and in-place operators other
than ``+= -= *= /=`` on arrays.
"""
from __future__ import annotations

import copy as copy_module
import operator
import types
from typing import Any, Optional

import numpy as np

from .. import runtime
from ..backend.naming import clean
from ..frontend.source import is_emitted
from ..errors import UnsupportedSyntax
from ..ir import ops
from ..ir.cfg import reverse_postorder
from ..ir.passes import member, substitute
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Signature, Starred, Statement, Var
from .. import registry
from .. import tangent as tangent_module
from ..rules import operators
from . import analysis, callees, cells, idioms, pushrules
from .mutation import loops as mutation_loops, versions as mutation_pass
from .analysis import Facts
from .pushrules import ZERO, is_zero
from .reverse_passes import call_array_methods, value_uses

_VIEWS = {
    operator.getitem, getattr, np.reshape, np.ravel, np.transpose, np.swapaxes, np.moveaxis,
    np.squeeze, np.expand_dims, np.broadcast_to, np.diagonal, np.ndarray.reshape, np.ndarray.ravel,
    np.ndarray.transpose, np.ndarray.swapaxes, np.ndarray.squeeze, np.ndarray.diagonal, np.asarray,
    np.ndarray.view,
}
"""Callees whose result may share memory with their first operand."""

_PARTS = {iter, next, ops.iternext, ops.unpack}
"""Callees whose result may be a part of their first operand (an item, an
iterator over its items): its tangent is that part of the operand's."""
_PART_METHODS = {"get", "setdefault", "pop", "popitem", "__getitem__"}
"""Methods whose result may be a part of their object."""
_HOLDERS = {ops.build_list, ops.build_tuple, ops.build_dict, ops.build_set, list, tuple, dict, set, sorted,
            copy_module.copy, *runtime.ITERATORS}
"""Callees whose result holds their operands, or their operands' items."""
_DISPLAYS = {ops.build_list, ops.build_tuple, ops.build_dict, list, tuple, dict}
"""Callees whose value is a built-in container, whose operators are not a
class's Python methods."""
_SEQUENCES = {ops.build_list, ops.build_tuple, list, tuple}

_POWERS = {operator.pow, operator.ipow, pow, np.power}
"""Powers whose pushforward is :func:`operators.pow_constant_push` for a
constant exponent (inlined, without the general rule's edge cases)."""


_IN_PLACE = {operator.iadd, operator.isub, operator.imul, operator.itruediv}
_OTHER_IN_PLACE = {operator.ipow, operator.imatmul, operator.imod, operator.ifloordiv, operator.iand,
                   operator.ior, operator.ixor, operator.ilshift, operator.irshift}
_STORES = {operator.setitem, operator.delitem, setattr, delattr, ops.merge_dict, runtime.accum_item}
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "fill",
             "sort", "reverse", "popitem", "__setitem__", "__delitem__", "put", "itemset", "resize"}


def _array_method(name: str) -> bool:
    """Whether ``name`` is a method of ``np.ndarray`` with a rule, which
    changes no object (``self.A.dot(x)``, on a field whose kind the
    analysis cannot see). Were the object a user's whose ``dot`` keeps its
    argument, that method's own pushforward refuses the change: its object
    has no tangent."""
    method = getattr(np.ndarray, name, None)
    return name not in _MUTATORS and method is not None and \
        (registry.lookup(method) is not None or registry.lookup_pushforward(method) is not None)


def transform(primal: IR, fn: Any, active: list[bool], numeric: list[int], shared: tuple = (),
              given: tuple = (), written: tuple = ()) -> tuple[IR, list[tuple]]:
    """The pushforward of ``primal`` (the IR of ``fn``) with respect to the
    parameters flagged in ``active`` (``numeric``: the parameters' kinds,
    see :func:`.analysis.kind`): a function of the parameters and then one
    tangent per flagged parameter, returning ``(y, dy)``; and the guards
    it rests on (the globals and cells whose values it assumed).

    For a nested function called by ``runtime.call_with_cells``: it shares
    the cells ``shared`` with its caller (read at call time, never assumed),
    takes the tangents of those of ``given`` after the parameters', and
    returns the values it leaves in ``written`` with its own (see
    :mod:`.cells`)."""
    try:
        t = _Forward(primal, fn, active, numeric, shared, given, written)
        return t.run(), t.guards
    except analysis.MoreConsumers as more:
        t = _Forward(primal, fn, active, numeric, shared, given, written, more.consumers)
        return t.run(), t.guards


class _Forward:
    def __init__(self, primal: IR, fn: Any, active: list[bool], numeric: list[int], shared: tuple = (),
                 given: tuple = (), written: tuple = (), consumers: frozenset = frozenset()):
        self.fn = fn
        self.consumers = consumers
        self.emitted = is_emitted(fn)
        self.outer, self.given, self.written = frozenset(shared), given, written
        self.closures: dict[Var, tuple[tuple[str, ...], Var]] = {}  # escaping nested functions (see .cells)
        self.p = primal = self._working_copy(primal)
        self._analyse(active, numeric)
        consumers = self._consumers()
        if consumers:  # generator expressions read to the end: list comprehensions
            from .pipeline import primal_ir  # (pipeline builds on this module)

            self.p = primal = self._working_copy(primal_ir(fn, consumers))
            self._analyse(active, numeric)
        self.guards = callees.inline_calls(primal, fn)
        if self.guards:
            self._analyse(active, numeric)
        self.shared = self._share_cells(active, numeric)
        while call_array_methods(primal, self.facts):  # x.sum(0).mean(): one link at a time
            self._analyse(active, numeric)
        if mutation_pass.in_place_as_stores(primal, self.facts):
            self._analyse(active, numeric)
        if mutation_loops.index_changed_loops(primal, self.facts):
            self._analyse(active, numeric)
        self.guards += [analysis.guard(self.facts, v) for v in self.facts.origin]  # the globals and cells it reads
        self.defs = {s.var: s for b in primal.blocks.values() for s in b.stmts}
        self.materialise = self._changed_objects(active)
        self.active_params = active
        names = primal.signature.names()
        taken = set(names) | set(primal.names.values()) | set(primal.freevars)
        self.tangent_names = [self._fresh("d" + n, taken) for n, on in zip(names, active) if on]
        self.cell_tangent_names = [self._fresh("d" + n, taken) for n in given]
        sig = Signature(args=names + self.tangent_names + self.cell_tangent_names)
        self.f = IR(f"{primal.name}_jvp", primal.filename, primal.firstline, sig)
        self.f.cellvars, self.f.freevars = list(primal.cellvars), list(primal.freevars)  # (its own nonlocal)
        self.t: dict[Var, Operand] = {}  # primal value → its tangent
        self.items: dict[Var, list[Operand]] = {}  # a display's item tangents
        self.env: dict[Var, Var] = {}  # primal value → its copy
        self.loads: set[Var] = set()
        self.uses, self.callee_uses = value_uses(primal)
        self.changes = any(member(self.facts.callee(s), _STORES | _IN_PLACE | _OTHER_IN_PLACE)
                           or self._add_at(s) or self._method(s) is not None
                           and self._method(s)[1] in _MUTATORS and self.facts.callee(s) is analysis._MISSING
                           for s in self.defs.values())

    def _working_copy(self, primal: IR) -> IR:
        """The copy of ``primal`` the transform changes: the cells handed to
        a nested function read once at its start (``self.handed``, by name),
        those it assigns returned with its value; reads of parameters that
        nested functions capture, the parameters (``self.cells``); a log
        into a global list is a side effect (:func:`.idioms.log_appends`);
        ``d.setdefault(k, []).append(v)`` changes ``d[k]``
        (:func:`.idioms.setdefault_items`); ``d.update(k=v)`` passes a dict
        (:func:`.idioms.keyword_updates`); ``xs.sort()`` stores ``sorted(xs)``
        (:func:`.idioms.sorts_in_place`); ``s._replace(k=v)`` is
        ``ops.replace_fields`` (:func:`.idioms.replaced_fields`)."""
        p = primal.copy()
        idioms.log_appends(p)
        idioms.setdefault_items(p)
        idioms.keyword_updates(p)
        idioms.sorts_in_place(p)
        idioms.replaced_fields(p)
        read = cells.cells_out(p, self.written) if self.written else {}
        read.update(cells.cells_in(p, tuple(n for n in self.given if n not in self.written)))
        self.handed = {n: read[n] for n in self.given}
        self.cells = _parameter_cells(p)
        return p

    def _share_cells(self, active: list[bool], numeric: list[int]) -> set[str]:
        """The cells of this function that may hold a differentiated value
        become SSA values, and the calls of the nested functions that share
        them hand them their values and tangents (``runtime.call_with_cells``,
        see :mod:`.cells`). Returns their names."""
        p = self.p
        reading = [s for b in p.blocks.values() for s in b.stmts
                   if self.facts.callee(s) in (ops.make_function, ops.make_scope)
                   and analysis.free_names(s.args[0].value) & set(self.given)]
        if reading:
            raise self.refuse("a nested function or generator expression that reads a variable of the function "
                              "enclosing this one, which holds a differentiated value", reading[0].line,
                              "pass the value to it as an argument")
        shared = _cells_holding_active(p, self.facts, active, self.cells)
        if not shared:
            return shared

        def refuse(what: str, line: Optional[int]) -> UnsupportedSyntax:
            return self.refuse(what, line, "call the nested function where it is defined, or pass the variables "
                                           "to it as arguments and return their new values")

        cells.share_cells(p, shared, self.facts, refuse, self.closures)
        self._analyse(active, numeric)
        return shared

    def _consumers(self) -> frozenset:
        """The calls of :data:`analysis.CONSUMERS` that read an active
        generator expression to its end (``sum(f(v) for v in xs)``): its
        items are then those of the list comprehension (see
        :func:`analysis.consumed_generators`)."""
        return self.consumers | analysis.consumed_generators(self.p, self.facts).keys()

    def _analyse(self, active: list[bool], numeric: list[int]) -> None:
        """Static values (not of the cells shared with the caller, which change
        from call to call), activity (the handed cells with a tangent are
        active) and kinds."""
        self.facts = Facts()
        fn = self.fn
        closure = {n: c for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()) if n not in self.outer}
        analysis.static_values(self.p, fn.__globals__, closure, self.facts)
        self.facts.metadata = analysis.metadata_reads(self.p, numeric, self.facts)
        self.facts.active.update(self.handed.values())
        self.facts.active.update(self.closures)
        analysis.activity(self.p, active, False, self.facts, self.cells)
        analysis.numeric(self.p, numeric, self.facts)

    @staticmethod
    def _fresh(name: str, taken: set) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    def refuse(self, what: str, line: Optional[int], hint: str) -> UnsupportedSyntax:
        return UnsupportedSyntax(f"forward mode: {what}", function=self.p.name, filename=self.p.filename,
                                 line=line, hint=hint)

    # -- alias classes ------------------------------------------------------

    def _changed_objects(self, active: list[bool]) -> set[Var]:
        """The values whose object an active value is stored into, made
        active, with their holders (below); returns them. ``self.mutated``:
        the values whose object changes at all, which get tangent objects
        of their own.

        Values that may be the same object, or one a part of the other (a
        view, an item, an iterator over its items), form one class. An
        object also holds others (a list its items, an object its fields):
        a change made through a part (``rows[0][0] = x``, ``for r in rows:
        r.append(x)``) may change any object its class holds, and the
        holders of a changed object need tangents that hold its tangent
        (a zero made where they have none), so that the change is seen
        wherever the object is reached from."""
        parent: dict[Var, Var] = {}

        def find(v: Var) -> Var:
            while parent.get(v, v) != v:
                v = parent[v]
            return v

        def union(a: Operand, b: Operand) -> None:
            if isinstance(a, Var) and isinstance(b, Var):
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[ra] = rb

        holds: list[tuple[Var, Var]] = []  # (holder, held)

        def hold(holder: Operand, held: list) -> None:
            for h in held:
                h = h.value if isinstance(h, Starred) else h
                if isinstance(holder, Var) and isinstance(h, Var) and not self._scalar(h) \
                        and not isinstance(self.facts.static.get(h), analysis.HELD_WITHOUT_GRADIENT):
                    holds.append((holder, h))  # (a class, a module: nothing a change reaches: defaultdict(list))

        for p, v in analysis.edge_values(self.p):
            union(p, v)
        targets: list[tuple[Var, Statement]] = []
        for s in self.defs.values():
            fn = self.facts.callee(s)
            first = s.args[0] if s.args and not isinstance(s.args[0], Starred) else None
            in_place = (member(fn, _IN_PLACE) or member(fn, _OTHER_IN_PLACE)) and not self._scalar(first)
            method = self._method(s) if fn is analysis._MISSING else None
            if self._part(s) or in_place:
                union(s.var, first if method is None else method[0])
            if member(fn, _STORES) or in_place or self._add_at(s):
                if isinstance(first, Var):
                    targets.append((first, s))
            elif method is not None and method[1] in _MUTATORS:
                targets.append((method[0], s))  # (np.sort(x) is no x.sort(): a module's function)
            elif method is not None and method[1] not in _PART_METHODS and not _array_method(method[1]) \
                    and method[0] in self.defs and not self._known(method[0]) and method[0] not in self.facts.static \
                    and self.facts.callee(self.defs[method[0]]) is not super \
                    and any(isinstance(a, Var) and a in self.facts.active for a in s.args):
                targets.append((method[0], s))  # (a user's method given differentiated values may keep them)
            out = next((v for k, v in s.kwargs if k == "out"), None)
            if isinstance(out, Var):
                targets.append((out, s))
            if isinstance(fn, types.FunctionType) and registry.lookup_pushforward(fn) is None \
                    and registry.lookup(fn) is None:  # a Python function changing its argument
                definite, in_place = mutation_pass.changed_positions(fn)
                for i in (*definite, *in_place):
                    if i < len(s.args) and isinstance(s.args[i], Var) and not self._scalar(s.args[i]):
                        targets.append((s.args[i], s))
            if member(fn, _HOLDERS) or self._pushed(s, fn):
                hold(s.var, [*s.args, *(v for _, v in s.kwargs)])
            elif fn in (operator.setitem, setattr):
                hold(first, s.args[2:])
            elif fn is ops.merge_dict:
                hold(first, s.args[1:])  # (what the mapping holds)
            elif method is not None and method[1] in analysis.HOLDING_METHODS:
                hold(method[0], s.args[1:] if method[1] == "setdefault" else s.args)  # (a key: immutable)
            elif method is not None and method[1] not in _MUTATORS | _PART_METHODS:
                hold(s.var, [method[0]])  # xs.copy(), d.values()

        down: dict[Var, set[Var]] = {}  # class → the classes it holds
        up: dict[Var, set[Var]] = {}  # class → the classes holding it
        for h, i in holds:
            down.setdefault(find(h), set()).add(find(i))
            up.setdefault(find(i), set()).add(find(h))

        def spread(changes: list[tuple[Var, Statement]]) -> dict[Var, Statement]:
            """The classes that ``changes`` reach, each with a change
            reaching it: through a part, down to what its class holds;
            then up to the holders of each."""
            reached: dict[Var, Statement] = {}
            deep: set[Var] = set()  # (reached through a part)
            work = [(find(obj), s, obj not in self.defs or self._part(self.defs[obj])) for obj, s in changes]
            while work:
                r, s, through = work.pop()
                if r in reached and (r in deep or not through):
                    continue
                reached.setdefault(r, s)
                if through:
                    deep.add(r)
                    work += [(i, s, True) for i in down.get(r, ())]
            work = list(reached.items())
            while work:
                r, s = work.pop()
                for h in up.get(r, ()):
                    if h not in reached:
                        reached[h] = s
                        work.append((h, s))
            return reached

        values = [a for b in self.p.blocks.values() for a in b.args] + list(self.defs)
        self.mutated = {v for v in values if find(v) in spread(targets)}
        handed_back = {self.handed[n] for n in self.written if n in self.handed}  # (a cell handed in, and out)
        held = {find(v) for v, s in self.defs.items()
                if self.facts.callee(s) in (ops.load_deref, ops.load_global) and v not in handed_back}
        changed: set[Var] = set()
        while True:
            reached = spread([(obj, s) for obj, s in targets if any(
                isinstance(o, Var) and o in self.facts.active and o != obj for o in list(s.operands())[1:])])
            members = {v for v in values if find(v) in reached}
            if members <= changed:
                change = next((reached[r] for r in reached if r in held), None)
                if change is not None:  # read elsewhere too, where its tangent cannot follow
                    raise self.refuse("changing in place, with a differentiated value, an object that a nested "
                                      "function or a global variable holds", change.line,
                                      "change a copy made in this function (y = y.copy()), or pass the object to "
                                      "the nested function as an argument")
                return changed
            changed |= members
            self.facts.active |= members
            analysis.activity(self.p, active, False, self.facts)

    def _part(self, s: Statement) -> bool:
        """Whether the value of ``s`` may be its operand's object or a part
        of it (a view, an item, an iterator), whose tangent is then that
        part of the operand's tangent."""
        fn = self.facts.callee(s)
        if fn is analysis._MISSING:
            method = self._method(s)
            return method is not None and method[1] in _PART_METHODS
        if fn is getattr and len(s.args) == 2 and isinstance(s.args[1], Const) \
                and s.args[1].value in runtime.METADATA_ATTRIBUTES:
            return False  # (out.shape: a new tuple, no part of the array)
        return member(fn, _VIEWS) or member(fn, _PARTS)

    def _pushed(self, s: Statement, fn: Any) -> bool:
        """Whether ``s`` calls a class or a Python function that the
        transform hands to ``runtime.push`` (whose result may hold its
        arguments)."""
        if fn is analysis._MISSING:
            return self._method(s) is None
        return isinstance(fn, (type, types.FunctionType)) and registry.lookup_pushforward(fn) is None \
            and registry.lookup(fn) is None

    def _add_at(self, s: Statement) -> bool:
        """A call of ``np.add.at``, known statically or read off ``np.add``
        where it is called."""
        method = self._method(s)
        return mutation_pass.is_add_at(self.facts.callee(s)) or method is not None and method[1] == "at" \
            and isinstance(method[0], Var) and self.facts.static.get(method[0]) is np.add

    def _method(self, s: Statement) -> Optional[tuple[Operand, str]]:
        """``(object, name)`` for a call of a method read off a value."""
        if not isinstance(s.callee, Var) or s.callee not in self.defs:
            return None
        d = self.defs[s.callee]
        if self.facts.callee(d) is getattr and len(d.args) == 2 and isinstance(d.args[1], Const):
            return d.args[0], d.args[1].value
        return None

    # -- the transform ------------------------------------------------------

    def run(self) -> IR:
        p, f = self.p, self.f
        blocks = {bid: f.new_block() for bid in p.blocks}
        self.ids = {bid: b.id for bid, b in blocks.items()}
        for bid, b in p.blocks.items():
            nb = blocks[bid]
            for a in b.args:
                self.env[a] = f.new_var(p.names.get(a))
                nb.args.append(self.env[a])
            if bid == p.entry.id:
                for a, on in zip(b.args, self.active_params):
                    if a in self.materialise and not on:
                        raise self.refuse(
                            f"{p.names.get(a)!r} is changed in place with a differentiated value, but has no "
                            "tangent of its own, so its caller cannot see the change's", p.firstline,
                            "return the changed value and use it in the caller, or give it a tangent")
                tans = iter(self.tangent_names)
                for a, on in zip(b.args, self.active_params):
                    if on:
                        self.t[a] = f.new_var(next(tans))
                nb.args += [self.t[a] for a, on in zip(b.args, self.active_params) if on]
                for name, dname in zip(self.given, self.cell_tangent_names):
                    self.t[self.handed[name]] = f.new_var(dname)
                    nb.args.append(self.t[self.handed[name]])
            else:
                for a in b.args:
                    if a in self.facts.active:
                        self.t[a] = f.new_var(self._dname(a))
                        nb.args.append(self.t[a])
        for bid in reverse_postorder(p):  # a value's definition before its uses (inlining appends blocks)
            self._block(p.blocks[bid], blocks[bid])
        if self.changes:
            # a value read before an object changes in place must be
            # computed there: the emitter may move no statement but loads
            # (and the halves of a call's (value, tangent) pair, reads)
            pairs = {st.var for b in f.blocks.values() for st in b.stmts
                     if isinstance(st.callee, Const) and st.callee.value in _PUSHES}
            for b in f.blocks.values():
                for st in b.stmts:
                    st.pure = st.var in self.loads or _half_of_a_pair(st, pairs)
        known = {self.env[s.var]: self.facts.callee(s) for b in p.blocks.values() for s in b.stmts if s.var in self.env}
        idioms.as_methods(f, {self.env[v] for v in self.facts.arrays if v in self.env},
                          lambda s: known.get(s.var, analysis._MISSING))
        return f

    def _dname(self, v: Var) -> Optional[str]:
        n = self.p.names.get(v)
        return "d" + clean(n, "t") if n else None

    def tangent(self, op: Operand) -> Operand:
        if isinstance(op, Var):
            return self.t.get(op, ZERO)
        return ZERO

    def sub(self, op: Any) -> Any:
        if isinstance(op, Starred):
            return Starred(self.sub(op.value))
        return self.env[op] if isinstance(op, Var) else op

    def emit(self, out: list[Statement], callee: Any, *args: Operand, name: Optional[str] = None,
             line: Optional[int] = None, pure: bool = True) -> Var:
        """Append ``callee(*args)`` (``pure``: without effects, dropped when
        unused) and return its value."""
        v = self.f.new_var(name)
        out.append(Statement(v, Const(callee), list(args), [], line, pure))
        return v

    def concrete(self, out: list[Statement], op: Operand, line: Optional[int],
                 zero: Any = runtime.zero_tangent) -> Operand:
        """The tangent of ``op`` as a value: a zero made for a zero tangent
        (by ``zero``: :func:`.runtime.zero_operand` where code computes
        with it whatever ``op`` is)."""
        t = self.tangent(op)
        if not is_zero(t):
            return t
        if isinstance(op, Const) and type(op.value) in (float, complex, int, bool):
            return Const(runtime.zero_tangent(op.value))
        return self.emit(out, zero, self.sub(op), line=line)

    def _block(self, b: Block, nb: Block) -> None:
        out: list[Statement] = []
        for s in b.stmts:
            self._statement(s, out)
        if b.handler is not None:
            target = self.p.blocks[b.handler.target]
            nb.handler = Jump(self.ids[b.handler.target], [self.sub(a) for a in b.handler.args] + [
                self._zero_where_made(a, nb) if is_zero(self.tangent(a)) else self.tangent(a)
                for p, a in zip(target.args[1:], b.handler.args) if p in self.facts.active])
        t = b.term
        if isinstance(t, Return):
            y = self.sub(t.value)
            dy = self.concrete(out, t.value, t.line)
            pair = self.emit(out, ops.build_tuple, y, dy, line=t.line)
            nb.term = Return(pair, t.line)
        elif isinstance(t, Jump):
            nb.term = self._jump(t, out)
        elif isinstance(t, Branch):
            nb.term = Branch(self.sub(t.cond), self._jump(t.then, out), self._jump(t.orelse, out), t.line)
        else:
            nb.term = Raise(self.sub(t.exc), None if t.cause is None else self.sub(t.cause), t.line)
        nb.stmts = out

    def _zero_where_made(self, op: Operand, current: Block) -> Operand:
        """A concrete zero tangent of ``op`` made where ``op`` is (at the
        function's start for a constant): an exception handler's values are
        handed to it where each block of the ``try`` starts, before anything
        the block (``current``, being made) computes."""
        if isinstance(op, Const) and type(op.value) in (float, complex, int, bool):
            return Const(runtime.zero_tangent(op.value))
        v = self.sub(op)
        for b in self.f.blocks.values():
            at = 0 if b.id == self.ids[self.p.entry.id] and isinstance(v, Const) or v in b.args else next(
                (i + 1 for i, s in enumerate(b.stmts) if s.var == v), None)
            if at is not None and b is not current:
                z = self.f.new_var(None)
                b.stmts.insert(at, Statement(z, Const(runtime.zero_operand), [v], [], None))
                return z
        raise self.refuse("a value without a tangent that an exception handler receives as a differentiated "
                          "one, from a loop in the try", None, "move the loop out of the try, or use reverse mode "
                          "(zpy.gradient or zpy.jacobian)")

    def _jump(self, j: Jump, out: list[Statement]) -> Jump:
        target = self.p.blocks[j.target]
        args = [self.sub(a) for a in j.args]
        # (an active block argument's tangent is computed with: an integer array passed gets a float zero)
        args += [self.concrete(out, a, None, runtime.zero_operand) for p, a in zip(target.args, j.args)
                 if p in self.facts.active]
        return Jump(self.ids[j.target], args)

    def _statement(self, s: Statement, out: list[Statement]) -> None:
        fn = self.facts.callee(s)
        copy = Statement(self.f.new_var(self.p.names.get(s.var)), self.sub(s.callee),
                         [self.sub(a) for a in s.args], [(k, self.sub(v)) for k, v in s.kwargs], s.line, s.pure)
        self.env[s.var] = copy.var
        if s.var in self.facts.static and not isinstance(self.facts.static[s.var], (list, dict, set, np.ndarray)):
            copy.pure = True  # a global or a module's attribute, read: written where it is used
            self.loads.add(copy.var)
        operands = list(s.operands())
        touched = [o for o in operands if isinstance(o, Var) and (o in self.facts.active)]
        if not touched and s.var not in self.facts.active:
            out.append(copy)
            return
        if fn is ops.make_scope and analysis.read_without_gradient(self.p, s.var, self.facts):
            out.append(copy)  # any(v > 0 for v in xs): no tangent needed
            return
        if s.var in self.closures:
            self._closure(s, copy, out)
            return
        if fn is ops.make_function and cells.captured_names(s.args[0].value) & self.shared \
                or fn is ops.store_deref and s.args[0].value in self.shared | set(self.written) \
                or s.var in self.handed.values():
            out.append(copy)  # (the values and tangents of shared cells are handed to calls: see .cells)
            return
        if (fn is ops.make_scope or fn is map) \
                and not analysis.consumed_generators(self.p, self.facts).keys() <= self.consumers:
            raise analysis.MoreConsumers(self.consumers | analysis.consumed_generators(self.p, self.facts).keys())
        if fn in (ops.make_function, ops.make_scope):
            raise self.refuse("a nested function or generator expression that reads a differentiated value",
                              s.line, "use a list comprehension, or reverse mode (zpy.gradient, zpy.jacobian)")
        if fn in (ops.store_deref, ops.store_global):
            raise self.refuse("a nonlocal or global variable assigned a differentiated value", s.line,
                              "pass the value as an argument and return the result instead")
        if self._may_call_method(s, fn) or self._joins(s, fn) or self._reads_items(s, fn):
            # v * 2.0, v[k] for an object v whose class may define them; sum(v), a, b = v for one whose __iter__ may
            out.append(copy)
            self._push(s, None, copy, out)
            return
        if member(fn, _OTHER_IN_PLACE) and s.args[0] not in self.facts.scalars and self._known(s.args[0]):
            raise self.refuse("this in-place operator on an array", s.line,
                              "write y = y ** v (a new value) instead of y **= v")
        if member(fn, _IN_PLACE | _OTHER_IN_PLACE) and not self._scalar(s.args[0]):
            self._in_place(s, fn, copy, out)
            return
        if member(fn, _STORES):
            self._store(s, fn, copy, out)
            return
        if any(k == "out" for k, _ in s.kwargs):
            raise self.refuse("a NumPy function writing into out=", s.line, "assign its result instead")
        method = self._method(s)
        if method is not None and fn is analysis._MISSING:
            self._method_call(s, method, copy, out)
            return
        out.append(copy)
        if fn is ops.build_dict:
            values = [self.concrete(out, v, s.line) if i % 2 else copy.args[i] for i, v in enumerate(s.args)]
            self._set(s, self.emit(out, ops.build_dict, *values, name=self._dname(s.var), line=s.line), out)
            return
        if fn is ops.build_tuple and not any(isinstance(a, Starred) for a in s.args):
            items = [self.tangent(a) for a in s.args]
            self.items[s.var] = items  # (a tuple's items never change)
            self._set(s, self.emit(out, fn, *[self.concrete(out, a, s.line) for a in s.args],
                                   name=self._dname(s.var), line=s.line), out)
            return
        if fn is ops.build_list and not any(isinstance(a, Starred) for a in s.args):
            made = [self.concrete(out, a, s.line) for a in s.args]
            self._set(s, self.emit(out, fn, *made, name=self._dname(s.var), line=s.line), out)
            return
        if fn is operator.getitem and s.args[0] in self.items and isinstance(s.args[1], Const) \
                and isinstance(s.args[1].value, int):
            items = self.items[s.args[0]]
            k = s.args[1].value
            if -len(items) <= k < len(items):
                self._set(s, items[k], out)
                return
        if fn is operator.getitem and len(s.args) == 2 and not s.kwargs:
            # a part's tangent is that part of the tangent (a view of it
            # where the part is a view, so changes to either stay in step)
            dobj = self.tangent(s.args[0])
            part = ZERO if is_zero(dobj) else self.emit(out, operator.getitem, dobj, copy.args[1],
                                                        name=self._dname(s.var), line=s.line)
            self._set(s, part, out)
            return
        if fn is ops.unpack and s.args[0] in self.items:  # a tuple's items, known here
            self.items[s.var] = self.items[s.args[0]]
            self._set(s, self.tangent(s.args[0]), out)
            return
        if fn is iter and len(s.args) == 1 and not s.kwargs and not self.emitted and not self._known(s.args[0]) \
                and not is_zero(self.tangent(s.args[0])):  # (it may be an object whose class's __iter__ is Python)
            out.remove(copy)
            pair = self.emit(out, runtime.iter_in_step, copy.args[0], self.concrete(out, s.args[0], s.line),
                             line=s.line, pure=False)
            self._set(s, self._split(s, copy, pair, out), out)
            return
        if fn in (iter, ops.iternext, ops.unpack, ops.unpack_starred) and s.args and not s.kwargs:
            # the tangent's iterator runs in step with the value's
            dx = self.concrete(out, s.args[0], s.line)
            self._set(s, self.emit(out, fn, dx, *copy.args[1:], name=self._dname(s.var), line=s.line), out)
            return
        if fn is getattr and len(s.args) == 2 and isinstance(s.args[1], Const):
            if self.uses.get(s.var, 0) == self.callee_uses.get(s.var):
                return  # a method read off a value only to be called: the call has the tangent
            self._attribute(s, copy, out)
            return
        if fn is not analysis._MISSING and registry.is_nondifferentiable(fn):
            self._set(s, ZERO, out)
            return
        self._call(s, fn, copy, out)

    def _attribute(self, s: Statement, copy: Statement, out: list[Statement]) -> None:
        """``obj.name``: an array's ``T``, ``mT``, ``real`` and ``imag`` are
        linear in it, its ``shape`` and the like carry no tangent; for other
        objects, ``runtime.attribute_tangent`` decides."""
        obj, name = s.args[0], s.args[1].value
        dobj = self.tangent(obj)
        if name in runtime.METADATA_ATTRIBUTES or name == "__class__" or is_zero(dobj):
            self._set(s, ZERO, out)
        elif name in runtime.LINEAR_ATTRIBUTES and obj in self.facts.arrays:
            self._set(s, self.emit(out, getattr, dobj, s.args[1], name=self._dname(s.var), line=s.line), out)
        else:
            self._set(s, self.emit(out, runtime.attribute_tangent, copy.args[0], s.args[1], dobj,
                                   name=self._dname(s.var), line=s.line), out)

    def _may_call_method(self, s: Statement, fn: Any) -> bool:
        """An operator that Python would dispatch to an operand's Python
        method (``__mul__``, ``__getitem__``...: see ``runtime.OVERLOADS``),
        as that operand's kind is not known (a number, an array, a tuple or
        list of numbers, a display made here): ``runtime.push`` calls it."""
        methods = runtime.overload(fn) if fn is not analysis._MISSING else None
        if methods is None or member(fn, _IN_PLACE | _OTHER_IN_PLACE) and not self._scalar(s.args[0]) \
                or self.emitted:  # (gradient code: its own operators act on gradients, J calls the user's)
            return False  # (x += v on anything but a number: see _in_place)
        operands = s.args[:1] if len(methods.names) == 1 else s.args  # (a unary one: its object's)
        return not all(map(self._known, operands))

    def _reads_items(self, s: Statement, fn: Any) -> bool:
        """A builtin reading the items of an operand with a tangent whose
        kind is not known here (``sum(p)``, ``a, b = p``): it may be an
        object whose class's ``__iter__`` is Python code, which
        ``runtime.push`` reads through that (see ``runtime.items_first``).
        (Gradient code calls the user's through ``J``.)"""
        return not self.emitted and member(fn, runtime.ITEM_READERS) and fn is not iter and any(
            isinstance(a, Var) and not self._known(a) and a not in self.items and not is_zero(self.tangent(a))
            for a in s.args)

    def _joins(self, s: Statement, fn: Any) -> bool:
        """``a + b`` or ``a * k`` of a tuple or list known here (a display,
        a sequence of numbers): ``runtime.push`` joins or repeats their
        tangents, whose items the inlined rule would not keep apart where
        one is zero."""
        return member(fn, {operator.add, operator.mul}) and any(
            a in self.facts.sequences or a in self.defs and member(self.facts.callee(self.defs[a]), _SEQUENCES)
            for a in s.args if isinstance(a, Var))

    def _known(self, a: Operand) -> bool:
        """A number, an array, a tuple or list of numbers, or a display made
        here (of a built-in type, whose operators are not Python methods)."""
        if not isinstance(a, Var) or a in self.facts.numeric or a in self.facts.arrays or a in self.facts.sequences:
            return True
        return a in self.defs and member(self.facts.callee(self.defs[a]), _DISPLAYS)

    def _scalar(self, op: Operand) -> bool:
        """A number (not a list of numbers, which ``facts.scalars`` has too)."""
        return op in self.facts.scalars and op not in self.facts.sequences or isinstance(op, Const)

    def _set(self, s: Statement, t: Operand, out: list[Statement]) -> None:
        """Give ``s.var`` the tangent ``t``: made concrete when an active
        value is stored into its object later, and its own (a copy, unless
        it is a part of its operand's tangent; a zero where it has none at
        run time) when its object changes."""
        if is_zero(t) and s.var in self.materialise:
            t = self.emit(out, runtime.changing_zero, self.env[s.var], name=self._dname(s.var), line=s.line)
        elif not is_zero(t) and s.var in self.mutated and not self._part(s):
            t = self.emit(out, runtime.owned, t, self.env[s.var], name=self._dname(s.var), line=s.line)
        if not is_zero(t):
            self.t[s.var] = t

    def _call(self, s: Statement, fn: Any, copy: Statement, out: list[Statement]) -> None:
        rule = registry.lookup_pushforward(fn) if fn is not analysis._MISSING else None
        if member(fn, _POWERS) and rule is registry._push_builtin.get(registry.key(fn)) \
                and len(s.args) == 2 and isinstance(s.args[1], Const) and type(s.args[1].value) in (int, float):
            if s.args[1].value == 0:  # the constant 1
                self._set(s, ZERO, out)
                return
            rule = operators.pow_constant_push
        if rule is not None and analysis.is_math_function(fn) and s.var not in self.facts.numeric \
                and not self.emitted:
            rule = None  # math.sin(obj): at run time, by obj's __float__ where its class defines it (see runtime.push)
        if rule is not None:
            r = pushrules.push_ir(rule)
            bound = None if r is None else pushrules.bind(r, copy.args, copy.kwargs)
            if bound is not None:
                tangents = self._rule_tangents(r, s)
                here = len(out)
                t = pushrules.inline(self.f, out, r, copy.var, bound, tangents, s.line, s.var in self.facts.scalars)
                if member(fn, _IN_PLACE) and out[here - 1] is copy \
                        and all(copy.var not in st.operands() for st in out[here:]) and t != copy.var:
                    out[here - 1:] = out[here:] + [copy]  # x *= v on a number: dx first, which reads x
                made = next((st for st in reversed(out) if st.var == t), None) if isinstance(t, Var) else None
                if made is not None and isinstance(made.callee, Const) and made.callee.value is ops.build_tuple:
                    self.items[s.var] = [ZERO if isinstance(a, Const) and a.value is None else a for a in made.args]
                self._set(s, t, out)
                if not is_zero(self.tangent(s.var)) and isinstance(self.t[s.var], Var):
                    self._name(self.t[s.var], s.var)
                return
        self._push(s, rule, copy, out)

    def _push(self, s: Statement, rule: Any, copy: Statement, out: list[Statement]) -> None:
        """The call ``s`` (made by ``copy``, already in ``out``) and its
        tangent at run time: by ``rule`` called after it (not inlined), or
        without one, by ``runtime.push``, which makes the call, given the
        callee's own tangent where it has one (an object whose class
        defines ``__call__``, a closure)."""
        dargs = [self._arg_tangent(a, out, s.line) for a in s.args]
        dkw = [(k, self._arg_tangent(v, out, s.line)) for k, v in s.kwargs]
        args_t = self.emit(out, ops.build_tuple, *copy.args, line=s.line)
        kw_t = self._keywords(out, copy.kwargs, s.line)
        dargs_t = self.emit(out, ops.build_tuple, *dargs, line=s.line)
        dkw_t = self._keywords(out, dkw, s.line)
        if rule is not None:
            d = self.emit(out, pushrules.call, Const(rule), copy.var, args_t, kw_t, dargs_t, dkw_t,
                          name=self._dname(s.var), line=s.line)
            self._set(s, d, out)
            return
        out.remove(copy)  # runtime.push makes the call
        dcallee = self.tangent(s.callee)
        fn = self.facts.callee(s)
        called = s.args[0] if fn in _CALLS_FIRST and s.args else s.callee
        known = called.value if isinstance(called, Const) else self.facts.static.get(called)
        held = is_zero(self.tangent(called)) and self._held(called, {}) \
            and not (type(known) is types.FunctionType and known in runtime.MACHINERY_PUSHES)  # (J of J...)
        pair = self.f.new_var(None)
        out.append(Statement(pair, Const(runtime.push), [copy.callee, args_t, kw_t, dargs_t, dkw_t,
                                                         *(() if is_zero(dcallee) else (dcallee,))],
                             [("held", Const(True))] if held else [], s.line, False))
        self._set(s, self._split(s, copy, pair, out), out)

    def _held(self, op: Operand, seen: dict) -> bool:
        """Whether ``op`` is made here of constants alone: a global, a
        constant, a free variable (see :meth:`_cell_held`), or the value of
        a call, attribute or nested function made of such values alone,
        nothing differentiated changing it in place. A closure it holds has
        a zero tangent for certain (``runtime.push``'s ``held``: ``L =
        make_loss(np.ones(2)); L(x)``), where one reaching it from a
        parameter may be a closure whose tangent a caller dropped (a rule
        calling its function argument). ``seen``: the values decided, and
        those being decided (``None``: a loop, not held)."""
        if isinstance(op, Const):
            return True
        if op in seen:
            return bool(seen[op])
        seen[op] = None
        seen[op] = self._made_held(op, seen)
        return seen[op]

    def _made_held(self, op: Operand, seen: dict) -> bool:
        s = self.defs.get(op) if isinstance(op, Var) else None
        if s is None or op in self.facts.active:
            return False  # (a parameter, a value of a loop)
        fn = self.facts.callee(s)
        if fn is ops.make_function:
            names = cells.captured_names(s.args[0].value) & {*self.p.cellvars, *self.p.freevars}
            return all(self._cell_held(n, seen) for n in names) and all(
                self._held(a.value if isinstance(a, Starred) else a, seen) for a in s.args[1:])
        if fn is ops.load_deref:
            return self._cell_held(s.args[0].value, seen)
        if fn is ops.load_global:
            return op in self.facts.static  # (not a global it assigns)
        if fn in (ops.store_deref, ops.store_global, ops.make_scope):
            return False  # (a generator expression may read a cell)
        return all(self._held(a.value if isinstance(a, Starred) else a, seen)
                   for a in (s.callee, *s.args, *(v for _, v in s.kwargs)))

    def _cell_held(self, name: str, seen: dict) -> bool:
        """Whether the cell ``name`` holds constants alone (see
        :meth:`_held`): a free variable of a function that shares no cells
        with its caller (one that does may read a nested function capturing
        them), or a variable of this function that only it assigns, each
        time a held value (no parameter's: a parameter may hold a closure
        whose tangent a caller dropped)."""
        if name in self.p.freevars:
            return not self.outer and not self.given
        stores = [t for t in self.defs.values() if self.facts.callee(t) is ops.store_deref and t.args[0].value == name]
        return bool(stores) and name not in cells.rebound_names(self.p) \
            and name not in self.p.signature.names() and all(self._held(t.args[1], seen) for t in stores)

    def _closure(self, s: Statement, copy: Statement, out: list[Statement]) -> None:
        """A nested function that captures cells holding one value each
        (:func:`.cells.one_value_cells`), which may escape: its tangent is a
        ``Tangent`` of those values' tangents by name, as its gradient is
        (``runtime.push`` calls it with them)."""
        out.append(copy)
        names, held = self.closures[s.var]
        given = [(n, self.tangent(v)) for n, v in zip(names, self.defs[held].args)]
        given = [(n, t) for n, t in given if not is_zero(t)]
        if given:
            t = self.f.new_var(self._dname(s.var))
            out.append(Statement(t, Const(tangent_module.Tangent), [Const(names)], given, s.line))
            self.t[s.var] = t

    def _keywords(self, out: list[Statement], kwargs: list, line: Optional[int]) -> Var:
        """The dict of a call's keyword arguments (or of their tangents),
        ``**mapping`` entries merged in order (a zero tangent of a mapping
        adds none: the keywords it gives have zero tangents)."""
        d = self.emit(out, ops.build_dict, *[x for k, v in kwargs if k is not None for x in (Const(k), v)], line=line)
        for k, v in kwargs:
            if k is None and not (isinstance(v, Const) and v.value is None):
                out.append(Statement(self.f.new_var(None), Const(ops.merge_dict), [d, v], [], line, False))
        return d

    def _split(self, s: Statement, copy: Statement, pair: Var, out: list[Statement]) -> Var:
        """``copy.var = pair[0]`` and ``pair[1]``, its tangent, for ``pair``
        made by one of :data:`_PUSHES` (reads, dropped when unused)."""
        out.append(Statement(copy.var, Const(operator.getitem), [pair, Const(0)], [], s.line, True))
        return self.emit(out, operator.getitem, pair, Const(1), name=self._dname(s.var), line=s.line)

    def _name(self, t: Var, v: Var) -> None:
        name = self._dname(v)
        if name and t not in self.f.names:
            self.f.names[t] = name

    def _arg_tangent(self, a: Any, out: list[Statement], line: Optional[int]) -> Operand:
        if isinstance(a, Starred):  # *xs: the items of its tangent, a sequence as long
            return Starred(self.concrete(out, a.value, line))
        t = self.tangent(a)
        return Const(None) if is_zero(t) else t

    def _rule_tangents(self, r: pushrules.PushIR, s: Statement) -> dict[str, Any]:
        out: dict[str, Any] = {}
        names = r.params
        for i, a in enumerate(s.args):
            if i < len(names):
                out[names[i]] = self.tangent(a)
            elif r.vararg is not None:
                out.setdefault(r.vararg, []).append(self.tangent(a))
        if isinstance(out.get(r.vararg), list) and all(is_zero(t) for t in out[r.vararg]):
            out[r.vararg] = ZERO
        for k, v in s.kwargs:
            out[k] = self.tangent(v)
        return out

    def _method_call(self, s: Statement, method: tuple[Operand, str], copy: Statement,
                     out: list[Statement]) -> None:
        obj, name = method
        dobj = self.tangent(obj)
        dargs = [self._arg_tangent(a, out, s.line) for a in s.args]
        args_t = self.emit(out, ops.build_tuple, *copy.args, line=s.line)
        dargs_t = self.emit(out, ops.build_tuple, *dargs, line=s.line)
        keywords = []
        if s.kwargs:
            named = [(Const(k), c, v) for (k, v), (_, c) in zip(s.kwargs, copy.kwargs) if k is not None]
            kwargs_t = self.emit(out, ops.build_dict, *(x for n, c, _ in named for x in (n, c)), line=s.line)
            dkwargs_t = self.emit(out, ops.build_dict, *(x for n, _, v in named
                                                         for x in (n, self._arg_tangent(v, out, s.line))), line=s.line)
            for (k, v), (_, c) in zip(s.kwargs, copy.kwargs):
                if k is None:  # (**mapping: its items, and its tangent's, a dict of theirs by the same keys)
                    self.emit(out, ops.merge_dict, kwargs_t, c, line=s.line, pure=False)
                    self.emit(out, ops.merge_dict, dkwargs_t, self.concrete(out, v, s.line), line=s.line, pure=False)
            keywords = [kwargs_t, dkwargs_t]
        pair = self.emit(out, runtime.push_method, copy.callee, self.sub(obj), Const(name),
                         Const(None) if is_zero(dobj) else dobj, args_t, dargs_t, *keywords, line=s.line, pure=False)
        self._set(s, self._split(s, copy, pair, out), out)

    def _in_place(self, s: Statement, fn: Any, copy: Statement, out: list[Statement]) -> None:
        """``x += v`` on a value that may be an array or a list: the tangent
        changes in place alongside (``dx += dv``; ``dx *= v; dx += x_old *
        dv``). For a value of a kind not known here, ``runtime.push_in_place``
        does the same, or calls the method of a class that defines the
        operator."""
        x, v = s.args
        dx, dv = self.tangent(x), self.tangent(v)
        line = s.line
        if not self._known(x):  # a list, an array, a number or an object defining the operator: at run time
            pair = self.emit(out, runtime.push_in_place, Const(fn), self.sub(x), self.sub(v),
                             Const(None) if is_zero(dx) else dx, Const(None) if is_zero(dv) else dv,
                             line=line, pure=False)
            self.t[s.var] = self._split(s, copy, pair, out)
            return
        if is_zero(dx):  # an object without a tangent yet, changed by an active value
            dx = self.emit(out, runtime.zero_operand, self.sub(x), line=line)
        term = None
        if fn is operator.imul and not is_zero(dv):
            term = self.emit(out, operator.mul, self.sub(x), dv, line=line)  # before x changes
        operand = self.sub(v)
        if fn not in (operator.iadd, operator.isub) and not self._scalar(v):  # (x *= x: v as it was)
            operand = self.emit(out, runtime.unshared, operand, self.sub(x), line=line)
        out.append(copy)
        if fn in (operator.iadd, operator.isub):
            if is_zero(dv) and x not in self.facts.arrays:  # (a list grows by the zeros of its new items)
                dv = self.concrete(out, v, line)
            d = dx if is_zero(dv) else self.emit(out, fn, dx, dv, line=line, pure=False)
        elif fn is operator.imul:
            d = self.emit(out, operator.imul, dx, operand, line=line, pure=False)
            if term is not None:
                d = self.emit(out, operator.iadd, d, term, line=line, pure=False)
        else:  # x /= v: d(x / v) = (dx - (x / v) dv) / v
            d = dx
            if not is_zero(dv):
                d = self.emit(out, operator.isub, d, self.emit(out, operator.mul, copy.var, dv, line=line), line=line, pure=False)
            d = self.emit(out, operator.itruediv, d, operand, line=line, pure=False)
        self.t[s.var] = d
        self._name(d, s.var)

    def _store(self, s: Statement, fn: Any, copy: Statement, out: list[Statement]) -> None:
        """``y[k] = v`` (or ``del y[k]``, ``setattr``, a dict display's
        ``**m``): the same change to ``y``'s tangent."""
        out.append(copy)
        target = s.args[0]
        dtarget = self.tangent(target)
        if is_zero(dtarget):
            return  # an object with no tangent, and nothing active stored in it
        args = [self.sub(a) for a in s.args]
        if fn in (operator.setitem, setattr):
            value = s.args[2]
            dv = self.tangent(value)
            dvalue = Const(None) if is_zero(dv) else dv
            self.emit(out, runtime.store_tangent, dtarget, Const(fn), args[1], dvalue, args[2], args[0], line=s.line,
                      pure=False)
        elif fn is ops.merge_dict:
            self.emit(out, fn, dtarget, self.concrete(out, s.args[1], s.line), line=s.line, pure=False)
        elif fn is runtime.accum_item:  # (gradient code's d[k] = accum(d.get(k), g), a closure's gradient)
            dg = self.tangent(s.args[2])
            if not is_zero(dg):
                self.emit(out, fn, dtarget, args[1], dg, line=s.line, pure=False)
        else:
            self.emit(out, fn, dtarget, args[1], line=s.line, pure=False)


_CALLS_FIRST = (runtime.J, runtime.J_nested)
"""Gradient code's calls of the function given first (whose own tangent
``runtime.push``'s ``held`` is about)."""

_PUSHES = (runtime.push, runtime.push_method, runtime.push_in_place, runtime.iter_in_step)
"""The calls made at run time with their tangents, which return the pair
``(value, tangent)``."""


def _half_of_a_pair(st: Statement, pairs: set[Var]) -> bool:
    """``pair[0]`` or ``pair[1]`` of one of ``pairs`` (made by one of
    :data:`_PUSHES`), which reading changes nothing."""
    return isinstance(st.callee, Const) and st.callee.value is operator.getitem and isinstance(st.args[0], Var) \
        and st.args[0] in pairs


def _cells_holding_active(ir: IR, facts: Facts, active: list[bool], parameter_cells: dict[str, Var]) -> set[str]:
    """The cells of ``ir`` that may hold a differentiated value: a
    differentiated parameter's, one assigned a differentiated value here,
    and one a nested function assigns (``nonlocal``) if it reads such a
    cell or a call gives it a differentiated argument; the reads of those
    cells count as differentiated (added to ``facts.active``), to a fixed
    point."""
    params = dict(zip(ir.signature.names(), ir.entry.args))
    stmts = [s for b in ir.blocks.values() for s in b.stmts]
    makers = [s for s in stmts if facts.callee(s) is ops.make_function]
    own = set(ir.cellvars)
    found: set[str] = set()
    while True:
        facts.active.update(s.var for s in stmts if facts.callee(s) is ops.load_deref and s.args[0].value in found)
        analysis.activity(ir, active, False, facts, parameter_cells)
        more = {c for c in own if c in params and params[c] in facts.active}
        more |= {s.args[0].value for s in stmts if facts.callee(s) is ops.store_deref and s.args[0].value in own
                 and isinstance(s.args[1], Var) and s.args[1] in facts.active}
        for m in makers:
            node = m.args[0].value
            if cells.captured_names(node) & found or any(
                    s.callee == m.var and any(isinstance(o, Var) and o in facts.active for o in s.operands())
                    for s in stmts):
                more |= cells.assigned_names(node) & own
        if more <= found:
            return found
        found |= more


def _parameter_cells(ir: IR) -> dict[str, Var]:
    """Parameters that nested functions capture (cells), by name. Reads of
    one that is never assigned again, here or by a nested function, become
    reads of the parameter itself."""
    params = dict(zip(ir.signature.names(), ir.entry.args))
    assigned = cells.rebound_names(ir) | {s.args[0].value for b in ir.blocks.values() for s in b.stmts
                                          if isinstance(s.callee, Const) and s.callee.value is ops.store_deref}
    env: dict[Var, Operand] = {}
    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            if isinstance(s.callee, Const) and s.callee.value is ops.load_deref and s.args[0].value in params \
                    and s.args[0].value not in assigned:
                env[s.var] = params[s.args[0].value]
                continue
            kept.append(s)
        b.stmts = kept
    substitute(ir, env)
    return {n: params[n] for n in ir.cellvars if n in params}
