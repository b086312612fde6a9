"""IR → Python statements: expression folding, naming, rendering.

:class:`FunctionEmitter` implements the structurer's ``Emitter`` protocol
(:mod:`zygote_py.backend.structure`) for one IR. Its work, in order:

1. **Folding.** An anonymous value read exactly once, in the same block, is
   written inside the expression that reads it, provided no other effect
   moves across it: scanning each block backwards, the statements folded
   into a reader are exactly those immediately before it, consumed in the
   reverse of Python's evaluation order. So ``%5 = math.cos(%1)``,
   ``%6 = math.sin(%5)`` becomes ``math.sin(math.cos(x))`` with the calls in
   their original order.
2. **Sugar.** ``ops.unpack`` followed by its item reads becomes ``a, b = v``;
   ``x = operator.iadd(x, v)`` becomes ``x += v`` (also on items and
   attributes); a ``for`` header becomes ``for target in iterable``, taking
   the ``iter(...)`` call from just before the loop.
3. **Naming** (:mod:`zygote_py.backend.naming`).
4. **Rendering** of operators as syntax; other constants (functions,
   modules, non-literal values) are read from names the caller binds
   (:attr:`FunctionEmitter.constants`).
"""
from __future__ import annotations

import copy
import functools
import math
import operator
import types
from collections import Counter
from typing import Any, Optional

import gast

from .. import registry
from ..ir import ops
from ..ir.cfg import reverse_postorder
from ..ir.core import IR, Branch, Const, Jump, Operand, Return, Starred, Statement, Var
from ..ir.passes import member, same_operands, use_counts
from . import naming

BINOPS = {
    operator.add: gast.Add, operator.sub: gast.Sub, operator.mul: gast.Mult,
    operator.truediv: gast.Div, operator.floordiv: gast.FloorDiv,
    operator.mod: gast.Mod, operator.pow: gast.Pow, operator.matmul: gast.MatMult,
    operator.lshift: gast.LShift, operator.rshift: gast.RShift,
    operator.and_: gast.BitAnd, operator.or_: gast.BitOr, operator.xor: gast.BitXor,
}
INPLACE = {
    operator.iadd: gast.Add, operator.isub: gast.Sub, operator.imul: gast.Mult,
    operator.itruediv: gast.Div, operator.ifloordiv: gast.FloorDiv,
    operator.imod: gast.Mod, operator.ipow: gast.Pow, operator.imatmul: gast.MatMult,
    operator.ilshift: gast.LShift, operator.irshift: gast.RShift,
    operator.iand: gast.BitAnd, operator.ior: gast.BitOr, operator.ixor: gast.BitXor,
}
UNARY = {operator.neg: gast.USub, operator.pos: gast.UAdd,
         operator.invert: gast.Invert, operator.not_: gast.Not}
COMPARE = {
    operator.lt: gast.Lt, operator.le: gast.LtE, operator.eq: gast.Eq,
    operator.ne: gast.NotEq, operator.gt: gast.Gt, operator.ge: gast.GtE,
    operator.is_: gast.Is, operator.is_not: gast.IsNot,
    ops.contains: gast.In, ops.not_contains: gast.NotIn,
}
DISPLAYS = {ops.build_tuple: gast.Tuple, ops.build_list: gast.List}
EMPTY_DISPLAYS = {ops.build_list, ops.build_set, ops.build_dict, ops.build_tuple}
"""Made with no effect: a ``for`` loop's iterable may be evaluated after them."""
STORES = {ops.store_global, ops.store_deref}
DELETES = {ops.delete_global, ops.delete_deref}
LOADS = {ops.load_global, ops.load_deref}
READ_ONLY = {*BINOPS, *UNARY, *COMPARE, *EMPTY_DISPLAYS, *LOADS, operator.getitem, getattr, len, abs}
"""Callees that change none of their operands (see ``_changes_nothing``)."""
NUMPY_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis", "shuffle"}
"""NumPy's functions that change an argument in place."""
NEVER_FOLD = {
    operator.setitem, setattr, operator.delitem, delattr, ops.iternext,
    ops.exhausted, ops.unpack, ops.unpack_starred, *STORES, *DELETES,
}
_ALIASES = {"numpy": "np"}
_CONVERSIONS = {"": -1, "s": ord("s"), "r": ord("r"), "a": ord("a")}
_LITERALS = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))


def _callee(s: Statement) -> Any:
    return s.callee.value if isinstance(s.callee, Const) else None


def name(id_: str, ctx=None) -> gast.Name:
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _free_names(node: gast.AST) -> set[str]:
    """Names a nested scope reads from outside: those it mentions but never
    binds (an over-approximation for scopes nested further)."""
    bound, used = set(), set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            (bound if isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)) else used).add(n.id)
    if isinstance(node, gast.FunctionDef):
        used.add(node.name)
    return used - bound


def at_line(nodes: list, line: Optional[int]) -> list:
    """Give generated nodes the user's source line, so that a traceback
    through emitted code points at the line the user wrote."""
    if line is not None:
        for node in nodes:
            for n in gast.walk(node):
                if isinstance(n, (gast.stmt, gast.expr)) and getattr(n, "lineno", None) is None:
                    n.lineno = n.end_lineno = line
                    n.col_offset = n.end_col_offset = 0
    return nodes


def _is_def(s: Statement) -> bool:
    return _callee(s) is ops.make_function and isinstance(s.args[0].value, gast.FunctionDef)


class FunctionEmitter:
    """Renders one IR; see the module docstring."""

    def __init__(self, ir: IR, aliases: Optional[dict[str, Any]] = None):
        self.ir = ir
        # globals that the compiled code is guarded to find holding these
        # values: a constant equal to one is written as that global's name
        self.aliases = {id(v): n for n, v in (aliases or {}).items()}
        self.guarded = aliases or {}
        self.order = reverse_postorder(ir)
        self.defs: dict[Var, Statement] = {}
        self.home: dict[Var, int] = {}
        self.uses = Counter(use_counts(ir, self.order, handlers=True))
        for bid in self.order:
            b = ir.blocks[bid]
            for a in b.args:
                self.home[a] = bid
            for s in b.stmts:
                self.defs[s.var] = s
                self.home[s.var] = bid
        self.skip: set[int] = set()  # id() of statements rendered elsewhere
        self.for_headers: dict[int, tuple[Statement, Optional[Statement], Optional[Statement]]] = {}
        self.unpacks: dict[int, list[Statement]] = {}
        self.makers: dict[int, Statement] = {}
        self.folded: dict[Var, Statement] = {}
        used_in = {}
        made_after, read_after = {}, {}  # how many effects the block has had where a value is made, read
        for bid in self.order:
            b = ir.blocks[bid]
            effects = 0
            for st in b.stmts:
                for v in st.operands():
                    if isinstance(v, Var):
                        used_in.setdefault(v, bid)
                        read_after.setdefault(v, effects)
                made_after[st.var] = effects
                effects += not self._changes_nothing(st)
            for v in b.term_operands() + [a for j in b.jumps() for a in j.args]:
                if isinstance(v, Var):
                    used_in.setdefault(v, bid)
                    read_after.setdefault(v, effects)
        self._find_unpacks()
        for st in self.defs.values():
            # Compiler-made values with no effect are written where they are
            # used: reads (a pullback's view of its forward's cells, a
            # guarded module attribute) anywhere, arithmetic within its
            # block (so a value hoisted out of a loop stays out) when no
            # effect comes between (a call may change the arrays it reads).
            if st.pure and (
                _callee(st) in LOADS or _callee(st) is getattr and isinstance(st.args[0], Var)
                and _callee(self.defs.get(st.args[0], st)) in LOADS
                or self._foldable(st) and used_in.get(st.var) == self.home[st.var]
                and read_after.get(st.var) == made_after[st.var]
            ):
                self.folded[st.var] = st
                self.skip.add(id(st))
        self._find_for_headers()
        self.cells: dict[Var, str] = self._coalesce_cells()
        for bid in self.order:
            if bid not in self.for_headers:
                self._fold_block(bid)
        self.constants: dict[str, Any] = {}
        self._const_names: dict[int, str] = {}
        self._name_values()

    # -- analysis ---------------------------------------------------------

    def _changes_nothing(self, s: Statement) -> bool:
        """Whether ``s`` is known to change no object in place: compiler-made
        (``pure``), or a call of an operator, of ``math`` or of NumPy's
        functions (other than those that write into an argument), without
        ``out`` or a spread argument."""
        fn = self._known(s.callee)
        if s.pure or member(fn, READ_ONLY):
            return True
        if fn is None or any(k in ("out", None) for k, _ in s.kwargs) or any(isinstance(a, Starred) for a in s.args):
            return False
        module = getattr(fn, "__module__", None) or ""
        return module == "math" or module.split(".")[0] == "numpy" and getattr(fn, "__name__", "") not in NUMPY_WRITERS

    def _known(self, op: Operand) -> Any:
        """The value of ``op`` when known here: a constant, a global the
        code is guarded to find holding one (``aliases``), an attribute of
        such a module; else ``None``."""
        if isinstance(op, Const):
            return op.value
        s = self.defs.get(op)
        if s is not None and _callee(s) is ops.load_global and isinstance(s.args[0], Const):
            return self.guarded.get(s.args[0].value)
        if s is not None and _callee(s) is getattr and len(s.args) == 2 and isinstance(s.args[1], Const):
            obj = self._known(s.args[0])
            return getattr(obj, s.args[1].value, None) if isinstance(obj, types.ModuleType) else None
        return None

    def _find_unpacks(self) -> None:
        for bid in self.order:
            stmts = self.ir.blocks[bid].stmts
            for i, s in enumerate(stmts):
                fn = _callee(s)
                if fn is ops.unpack:
                    n = s.args[1].value
                elif fn is ops.unpack_starred:
                    n = s.args[1].value + 1 + s.args[2].value
                else:
                    continue
                items = stmts[i + 1:i + 1 + n]
                if (
                    self.uses[s.var] == n
                    and len(items) == n
                    and all(
                        _callee(g) is operator.getitem
                        and g.args[0] == s.var
                        and isinstance(g.args[1], Const)
                        and g.args[1].value == k
                        for k, g in enumerate(items)
                    )
                ):
                    self.unpacks[id(s)] = items
                    self.skip.update(id(g) for g in items)

    def _find_for_headers(self) -> None:
        for bid in self.order:
            b = self.ir.blocks[bid]
            if len(b.stmts) != 2 or not isinstance(b.term, Branch):
                continue
            nxt, done = b.stmts
            if not (
                _callee(nxt) is ops.iternext
                and _callee(done) is ops.exhausted
                and done.args[0] == nxt.var
                and b.term.cond == done.var
                and isinstance(nxt.args[0], Var)
            ):
                continue
            it = nxt.args[0]
            maker = self.defs.get(it)
            pre = self.ir.blocks[self.home[it]] if it in self.home else None
            after = pre.stmts[pre.stmts.index(maker) + 1:] if maker in (pre.stmts if pre else ()) else None
            if not (
                maker is not None
                and _callee(maker) is iter
                and len(maker.args) == 1
                and not maker.kwargs
                and self.uses[it] == 1
                and after is not None
                and all(_callee(x) in EMPTY_DISPLAYS and not x.args and not x.kwargs for x in after)
                and isinstance(pre.term, Jump)
                and pre.term.target == bid
                and maker.var not in self.ir.names
            ):
                maker = None
            else:
                self.skip.add(id(maker))
                self.makers[pre.id] = maker
            body = self.ir.blocks[b.term.orelse.target]
            unpack = None
            if (
                body.stmts
                and id(body.stmts[0]) in self.unpacks
                and body.stmts[0].args[0] == nxt.var
                and self.uses[nxt.var] == 1
                and not body.args
            ):
                unpack = body.stmts[0]
                self.skip.add(id(unpack))
            self.for_headers[bid] = (nxt, maker, unpack)

    def _fold_block(self, bid: int) -> None:
        b = self.ir.blocks[bid]
        stmts = [s for s in b.stmts if id(s) not in self.skip]
        ends = b.term_operands()
        if isinstance(b.term, Jump):
            ends = list(b.term.args)
        maker = self.makers.get(bid)
        if maker is not None:
            # The for statement evaluates the iterable after the block and
            # its edge's copies: it may take only what came just before the
            # iter() call, and the copies take nothing.
            k = b.stmts.index(maker) - sum(id(s) in self.skip for s in b.stmts[:b.stmts.index(maker)])
            i = self._absorb(stmts, k, list(maker.operands()))
        else:
            i = self._absorb(stmts, len(stmts), ends)
        while i > 0:
            i = self._absorb(stmts, i - 1, list(stmts[i - 1].operands()))

    def _absorb(self, stmts: list[Statement], pos: int, operands: list) -> int:
        j = pos
        for op in reversed(operands):
            while j > 0 and _is_def(stmts[j - 1]) and len(stmts[j - 1].args) == 1 and not stmts[j - 1].kwargs:
                j -= 1  # binding a function without defaults has no effect to reorder
            if j == 0:
                break
            s = stmts[j - 1]
            if isinstance(op, Var) and s.var == op and self._foldable(s):
                self.folded[op] = s
                j = self._absorb(stmts, j - 1, list(s.operands()))
        return j

    def _foldable(self, s: Statement) -> bool:
        return (
            s.var not in self.ir.names
            and self.uses[s.var] == 1
            and _callee(s) not in NEVER_FOLD
            and not _is_def(s)
            and id(s) not in self.unpacks
            and id(s) not in self.skip  # an unpack's items are its targets
        )

    def _coalesce_cells(self) -> dict[Var, str]:
        """``v = ...`` then ``store_deref('n', v)``, the only store to ``n``:
        the value takes the cell's name and the store disappears."""
        stores: dict[str, list[Statement]] = {}
        for st in self.defs.values():
            if _callee(st) is ops.store_deref:
                stores.setdefault(st.args[0].value, []).append(st)
        out: dict[Var, str] = {}
        for bid in self.order:
            b = self.ir.blocks[bid]
            stmts = [st for st in b.stmts if id(st) not in self.skip]
            first = stmts[0] if stmts else None
            if first is not None and _callee(first) is ops.store_deref and len(stores[first.args[0].value]) == 1:
                v = first.args[1]
                if v in b.args and bid != self.ir.entry.id:
                    out[v] = first.args[0].value
                    self.skip.add(id(first))
            for prev, st in zip(stmts, stmts[1:]):
                if _callee(st) is not ops.store_deref or len(stores[st.args[0].value]) != 1:
                    continue
                v = st.args[1]
                made = [g.var for g in self.unpacks.get(id(prev), ())] or [prev.var]
                if v in made and v not in out and not _is_def(prev):
                    out[v] = st.args[0].value
                    self.skip.add(id(st))
        return out

    def _leaves(self, operands) -> set[Var]:
        out: set[Var] = set()
        for op in operands:
            if isinstance(op, Var):
                if op in self.folded:
                    out |= self._leaves(self.folded[op].operands())
                else:
                    out.add(op)
        return out

    def _emitted(self, bid: int) -> list[Statement]:
        return [
            s for s in self.ir.blocks[bid].stmts
            if id(s) not in self.skip and s.var not in self.folded
        ]

    def _name_values(self) -> None:
        ir = self.ir
        fixed = dict(zip(ir.entry.args, ir.signature.names()))
        hints: dict[Var, str] = {}
        for v in self.home:
            hints[v] = naming.clean(ir.names.get(v), "")
        for bid in self.order:  # values flowing into a named argument take its name
            b = ir.blocks[bid]
            for j in b.jumps():
                for p, v in zip(ir.blocks[j.target].args, j.args):
                    if isinstance(v, Var):
                        if not hints.get(v) and hints[p]:
                            hints[v] = hints[p]
                        elif not hints[p] and hints.get(v):
                            hints[p] = hints[v]
        for bid, (nxt, _, unpack) in self.for_headers.items():
            if not hints[nxt.var]:
                hints[nxt.var] = "item" if unpack or self.uses[nxt.var] else "_"
        for v, s in self.defs.items():
            if _is_def(s):
                fixed[v] = s.args[0].value.name
        fixed.update(self.cells)
        self.reserved = self._reserved_names()
        for bid in self.order:
            b = ir.blocks[bid]
            if b.handler is not None and ir.blocks[b.handler.target].args[0] not in fixed:
                exc = ir.blocks[b.handler.target].args[0]
                fixed[exc] = naming.allocate([exc], {exc: hints[exc] or "exc"}, naming.Interference(),
                                             self.reserved | set(fixed.values()), {})[exc]
                self.reserved.add(fixed[exc])
        for v in hints:
            if not hints[v]:
                hints[v] = "t"

        @functools.cache  # (asked again below, after the live sets)
        def defs_uses(bid):
            out = []
            if bid in self.for_headers:
                nxt, maker, _ = self.for_headers[bid]
                return [] if maker is not None else [(None, self._leaves(nxt.args[:1]))]
            for s in self._emitted(bid):
                used = self._leaves(s.operands())
                if id(s) in self.unpacks:
                    out.append((s.var, used))
                    out += [(g.var, set()) for g in self.unpacks[id(s)]]
                else:
                    out.append((s.var, used))
            return out

        @functools.cache
        def at_end(bid):
            b = ir.blocks[bid]
            used = self._leaves(b.term_operands())
            if bid in self.makers:  # the for statement evaluates the iterable after the block
                used |= self._leaves(self.makers[bid].operands())
            for j in b.jumps():
                used |= self._leaves(j.args)
            return used

        def at_entry(bid):
            h = ir.blocks[bid].handler
            return self._leaves(h.args) if h else set()

        live_in, live_out = naming.live_sets(ir, self.order, at_end, defs_uses, at_entry)
        graph = naming.Interference()
        for bid in self.order:
            b = ir.blocks[bid]
            live = set(live_out[bid]) | at_end(bid)
            if bid in self.for_headers:
                nxt = self.for_headers[bid][0]
                body = b.term.orelse.target
                graph.add(nxt.var, live_in[body])
                maker = self.for_headers[bid][1]
                if maker is not None:
                    for a in b.args:
                        graph.add(a, self._leaves(maker.operands()))
                unpack = self.for_headers[bid][2]
                if unpack is not None:
                    for g in self.unpacks[id(unpack)]:
                        graph.add(g.var, live_in[body])
                        graph.add(g.var, [x.var for x in self.unpacks[id(unpack)]])
            for d, used in reversed(defs_uses(bid)):
                graph.add(d, live)
                live.discard(d)
                live |= used
            live |= at_entry(bid)
            for a in b.args:
                graph.add(a, live | set(b.args))
            if b.handler is not None:
                h = ir.blocks[b.handler.target]
                defined = {d for d, _ in defs_uses(bid)}
                for p, v in zip(h.args[1:], b.handler.args):
                    same = {j.args[h.args.index(p) - 1] for j in self._handler_edges(h.id)}
                    graph.add(p, (live | defined) - same)
        order = [v for bid in self.order for v in ir.blocks[bid].args]
        order += [s.var for bid in self.order for s in ir.blocks[bid].stmts]
        order = [v for v in order if v not in self.folded]
        allowed = {}  # a value copied into a cell's argument may take the cell's name
        for bid in self.order:
            for j in ir.blocks[bid].jumps():
                for p, v in zip(ir.blocks[j.target].args, j.args):
                    if p in self.cells and isinstance(v, Var):
                        allowed[v] = hints[v] = self.cells[p]
        self.names = naming.allocate(order, hints, graph, self.reserved, fixed, allowed)
        self._taken = set(self.names.values()) | self.reserved

    def _handler_edges(self, hid: int) -> list[Jump]:
        return [
            b.handler for b in self.ir.blocks.values()
            if b.handler is not None and b.handler.target == hid
        ]

    def _reserved_names(self) -> set[str]:
        """Names the emitted function must not use for its own values:
        globals it reads or writes, cells, and every name mentioned in a
        nested scope kept as written."""
        out = set(self.ir.cellvars) | set(self.ir.freevars)
        for s in self.defs.values():
            fn = _callee(s)
            if fn in LOADS or fn in STORES or fn in DELETES:
                out.add(s.args[0].value)
            elif fn in (ops.make_function, ops.make_scope):
                out |= _free_names(s.args[0].value)
        return out

    # -- constants ----------------------------------------------------------

    def const(self, value: Any) -> gast.expr:
        if isinstance(value, bool) or value is None or value is Ellipsis:
            return gast.Constant(value=value, kind=None)
        if isinstance(value, (int, float)) and not (isinstance(value, float) and not math.isfinite(value)):
            if value < 0 or (isinstance(value, float) and math.copysign(1, value) < 0):
                return gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=-value, kind=None))
            return gast.Constant(value=value, kind=None)
        if isinstance(value, (str, bytes)):
            return gast.Constant(value=value, kind=None)
        if isinstance(value, complex) and value.real == 0 and math.isfinite(value.imag) and value.imag >= 0:
            return gast.Constant(value=value, kind=None)
        if isinstance(value, tuple) and all(isinstance(v, _LITERALS) for v in value):
            return gast.Tuple(elts=[self.const(v) for v in value], ctx=gast.Load())
        home = registry.home_module(value)
        if home is not None:
            return gast.Attribute(value=name(self._bind(home)), attr=value.__name__, ctx=gast.Load())
        owner = getattr(value, "__objclass__", None)  # a method read off its class: np.ndarray.reshape
        if isinstance(value, types.MethodDescriptorType) and registry.home_module(owner) is not None:
            return gast.Attribute(value=self.const(owner), attr=value.__name__, ctx=gast.Load())
        return name(self._bind(value))

    def _bind(self, value: Any) -> str:
        key = id(value)
        if key in self.aliases:
            return self.aliases[key]
        if key not in self._const_names:
            base = value.name if isinstance(value, ops.Sentinel) else getattr(value, "__name__", None) or ""
            base = naming.clean(_ALIASES.get(base, base.split(".")[-1]), "const")
            candidate, k = base, 0
            while candidate in self._taken:
                k += 1
                candidate = f"{base}_{k}"
            self._taken.add(candidate)
            self._const_names[key] = candidate
            self.constants[candidate] = value
        return self._const_names[key]

    def fresh(self, hint: str) -> str:
        candidate, k = hint, 0
        while candidate in self._taken:
            k += 1
            candidate = f"{hint}_{k}"
        self._taken.add(candidate)
        return candidate

    # -- expressions -----------------------------------------------------------

    def expr(self, op: Operand) -> gast.expr:
        if isinstance(op, Const):
            return self.const(op.value)
        if op in self.folded:
            return self.call_expr(self.folded[op])
        return name(self.names[op])

    def _arg(self, a) -> gast.expr:
        if isinstance(a, Starred):
            return gast.Starred(value=self.expr(a.value), ctx=gast.Load())
        return self.expr(a)

    def call_expr(self, s: Statement) -> gast.expr:
        fn = _callee(s)
        a = s.args
        plain = not s.kwargs and not any(isinstance(x, Starred) for x in a)
        if plain:
            if fn in BINOPS and len(a) == 2:
                return gast.BinOp(left=self.expr(a[0]), op=BINOPS[fn](), right=self.expr(a[1]))
            if fn in UNARY and len(a) == 1:
                return gast.UnaryOp(op=UNARY[fn](), operand=self.expr(a[0]))
            if fn in COMPARE and len(a) == 2:
                return gast.Compare(left=self.expr(a[0]), ops=[COMPARE[fn]()], comparators=[self.expr(a[1])])
            if fn is operator.getitem and len(a) == 2:
                return gast.Subscript(value=self.expr(a[0]), slice=self.key(a[1]), ctx=gast.Load())
            if fn is getattr and len(a) == 2 and self._attr_name(a[1]):
                return gast.Attribute(value=self.expr(a[0]), attr=a[1].value, ctx=gast.Load())
            if fn in LOADS:
                return name(a[0].value)
            if fn is ops.build_dict:
                return gast.Dict(keys=[self.expr(k) for k in a[::2]], values=[self.expr(v) for v in a[1::2]])
            if fn is ops.build_string:
                return gast.JoinedStr(values=[self._fstring_part(p) for p in a])
            if fn is ops.format_value:
                return gast.JoinedStr(values=[self._formatted(s)])
            if fn is ops.make_function:
                return self._lambda(s)
            if fn is ops.make_scope:
                node = copy.deepcopy(a[0].value)
                node.generators[0].iter = self.expr(a[1])
                return node
        if fn in DISPLAYS and not s.kwargs:
            return DISPLAYS[fn](elts=[self._arg(x) for x in a], ctx=gast.Load())
        if fn is ops.build_set and not s.kwargs:
            if not a:  # Python has no empty-set display
                return gast.Call(func=self.const(set), args=[], keywords=[])
            return gast.Set(elts=[self._arg(x) for x in a])
        return gast.Call(
            func=self.expr(s.callee),
            args=[self._arg(x) for x in a],
            keywords=[gast.keyword(arg=k, value=self.expr(v)) for k, v in s.kwargs],
        )

    @staticmethod
    def _attr_name(op) -> bool:
        return isinstance(op, Const) and isinstance(op.value, str) and op.value.isidentifier()

    def key(self, op: Operand) -> gast.expr:
        """A subscript: slices and tuples of slices as slice syntax."""
        s = self.folded.get(op) if isinstance(op, Var) else None
        if s is not None and _callee(s) is slice and len(s.args) == 3 and not s.kwargs:
            parts = [None if isinstance(x, Const) and x.value is None else self.expr(x) for x in s.args]
            return gast.Slice(lower=parts[0], upper=parts[1], step=parts[2])
        if s is not None and _callee(s) is ops.build_tuple and s.args and not s.kwargs and not any(
            isinstance(x, Starred) for x in s.args
        ):
            return gast.Tuple(elts=[self.key(x) for x in s.args], ctx=gast.Load())
        return self.expr(op)

    def _fstring_part(self, op) -> gast.expr:
        if isinstance(op, Const) and isinstance(op.value, str):
            return gast.Constant(value=op.value, kind=None)
        s = self.folded.get(op) if isinstance(op, Var) else None
        if s is not None and _callee(s) is ops.format_value:
            return self._formatted(s)
        return gast.FormattedValue(value=self.expr(op), conversion=-1, format_spec=None)

    def _formatted(self, s: Statement) -> gast.FormattedValue:
        """``{value!conversion:spec}`` from an ``ops.format_value`` call."""
        conv = s.args[1].value if len(s.args) > 1 else ""
        spec = s.args[2] if len(s.args) > 2 else Const("")
        fmt = None
        if not (isinstance(spec, Const) and spec.value == ""):
            inner = self.expr(spec)
            fmt = inner if isinstance(inner, gast.JoinedStr) else gast.JoinedStr(
                values=[gast.FormattedValue(value=inner, conversion=-1, format_spec=None)]
            )
        return gast.FormattedValue(value=self.expr(s.args[0]), conversion=_CONVERSIONS[conv], format_spec=fmt)

    def _with_defaults(self, node, s: Statement):
        node = copy.deepcopy(node)
        node.args.defaults = [self.expr(d) for d in s.args[1:]]
        kw = dict(s.kwargs)
        node.args.kw_defaults = [
            self.expr(kw[k.id]) if k.id in kw else None for k in node.args.kwonlyargs
        ]
        return node

    def _lambda(self, s: Statement) -> gast.expr:
        return self._with_defaults(s.args[0].value, s)

    # -- statements ------------------------------------------------------------

    def statement(self, s: Statement) -> list[gast.stmt]:
        fn = _callee(s)
        a = s.args
        if id(s) in self.unpacks:
            targets = [name(self.names[g.var], gast.Store()) for g in self.unpacks[id(s)]]
            if fn is ops.unpack_starred:
                i = a[1].value
                targets[i] = gast.Starred(value=targets[i], ctx=gast.Store())
            return [gast.Assign(targets=[gast.Tuple(elts=targets, ctx=gast.Store())], value=self.expr(a[0]), type_comment=None)]
        if _is_def(s):
            return [self._with_defaults(a[0].value, s)]
        if fn is operator.setitem and len(a) == 3 and not s.kwargs:
            target = gast.Subscript(value=self.expr(a[0]), slice=self.key(a[1]), ctx=gast.Store())
            return [self._assign_or_aug(target, a[2], lambda g: _callee(g) is operator.getitem and same_operands(g.args, a[:2]))]
        if fn is setattr and len(a) == 3 and self._attr_name(a[1]):
            target = gast.Attribute(value=self.expr(a[0]), attr=a[1].value, ctx=gast.Store())
            return [self._assign_or_aug(target, a[2], lambda g: _callee(g) is getattr and same_operands(g.args, a[:2]))]
        if fn is operator.delitem and len(a) == 2:
            return [gast.Delete(targets=[gast.Subscript(value=self.expr(a[0]), slice=self.key(a[1]), ctx=gast.Del())])]
        if fn is delattr and len(a) == 2 and self._attr_name(a[1]):
            return [gast.Delete(targets=[gast.Attribute(value=self.expr(a[0]), attr=a[1].value, ctx=gast.Del())])]
        if fn in STORES:
            return [self._assign_or_aug(name(a[0].value, gast.Store()), a[1], lambda g: _callee(g) in LOADS and same_operands(g.args[:1], a[:1]))]
        if fn in DELETES:
            return [gast.Delete(targets=[name(a[0].value, gast.Del())])]
        if self.uses[s.var] == 0:
            return [gast.Expr(value=self.call_expr(s))]
        target = self.names[s.var]
        if fn in INPLACE and isinstance(a[0], Var) and a[0] not in self.folded and self.names[a[0]] == target:
            return [gast.AugAssign(target=name(target, gast.Store()), op=INPLACE[fn](), value=self.expr(a[1]))]
        return [gast.Assign(targets=[name(target, gast.Store())], value=self.call_expr(s), type_comment=None)]

    def _assign_or_aug(self, target, value: Operand, reads_target) -> gast.stmt:
        """``target = value``, or ``target op= v`` when value is an in-place
        operator applied to a read of the same target."""
        s = self.folded.get(value) if isinstance(value, Var) else None
        if s is not None and _callee(s) in INPLACE and not s.kwargs:
            first = s.args[0]
            g = self.folded.get(first) if isinstance(first, Var) else None
            if g is not None and reads_target(g):
                return gast.AugAssign(target=target, op=INPLACE[_callee(s)](), value=self.expr(s.args[1]))
        return gast.Assign(targets=[target], value=self.expr(value), type_comment=None)

    # -- the structurer's Emitter protocol -----------------------------------------

    def body(self, bid: int) -> list[gast.stmt]:
        b = self.ir.blocks[bid]
        out: list[gast.stmt] = []
        if b.handler is not None:
            out += self.copies(bid, b.handler, handler=True)
        for s in self._emitted(bid):
            out += at_line(self.statement(s), s.line)
        return out

    def condition(self, bid: int) -> gast.expr:
        t = self.ir.blocks[bid].term
        return at_line([self.expr(t.cond)], t.line)[0]

    def copies(self, src: int, jump: Jump, handler: bool = False) -> list[gast.stmt]:
        params = self.ir.blocks[jump.target].args[1 if handler else 0:]
        pairs = [
            (self.names[p], v) for p, v in zip(params, jump.args)
            if not (isinstance(v, Var) and v not in self.folded and self.names.get(v) == self.names[p])
        ]
        if not pairs:
            return []
        if len(pairs) == 1:
            (n, v), = pairs
            return [gast.Assign(targets=[name(n, gast.Store())], value=self.expr(v), type_comment=None)]
        return [gast.Assign(
            targets=[gast.Tuple(elts=[name(n, gast.Store()) for n, _ in pairs], ctx=gast.Store())],
            value=gast.Tuple(elts=[self.expr(v) for _, v in pairs], ctx=gast.Load()),
            type_comment=None,
        )]

    def terminal(self, bid: int) -> list[gast.stmt]:
        t = self.ir.blocks[bid].term
        if isinstance(t, Return):
            return at_line([gast.Return(value=self.expr(t.value))], t.line)
        cause = None if t.cause is None else self.expr(t.cause)
        return at_line([gast.Raise(exc=self.expr(t.exc), cause=cause)], t.line)

    def for_loop(self, bid: int) -> Optional[tuple[gast.expr, gast.expr]]:
        if bid not in self.for_headers:
            return None
        nxt, maker, unpack = self.for_headers[bid]
        if unpack is not None:
            target = self.statement(unpack)[0].targets[0]
        else:
            target = name(self.names[nxt.var], gast.Store())
        iterable = self.expr(maker.args[0]) if maker is not None else self.expr(nxt.args[0])
        return target, iterable

    def stepwise_loops(self) -> None:
        """The structurer will write ``for`` headers one step at a time
        (a dispatch loop may come back to them): each must step the
        iterator the preheader made, so no ``iter(...)`` stays folded into
        a ``for`` statement."""
        for bid, (nxt, maker, unpack) in list(self.for_headers.items()):
            if maker is not None:
                self.skip.discard(id(maker))
                del self.makers[next(p for p, m in self.makers.items() if m is maker)]
                self.names[maker.var] = self.fresh("it")
                self.for_headers[bid] = (nxt, None, unpack)

    def handler(self, bid: int) -> tuple[str, list[gast.stmt]]:
        return self.names[self.ir.blocks[bid].args[0]], []

    # -- the whole function ----------------------------------------------------

    def declarations(self) -> list[gast.stmt]:
        """``global``/``nonlocal`` statements for the names the function
        assigns outside SSA."""
        glob, nonloc = set(), set()
        for s in self.defs.values():
            fn = _callee(s)
            if fn in (ops.store_global, ops.delete_global):
                glob.add(s.args[0].value)
            elif fn in (ops.store_deref, ops.delete_deref) and s.args[0].value in self.ir.freevars:
                nonloc.add(s.args[0].value)
        out: list[gast.stmt] = []
        if glob:
            out.append(gast.Global(names=sorted(glob)))
        if nonloc:
            out.append(gast.Nonlocal(names=sorted(nonloc)))
        return out
