"""Lowering: one function's gast node to block-argument SSA IR.

The IR forms follow the contract in ``notes/ops_table.md`` (operators are
calls of :mod:`operator`, syntax without a library function is a call of
:mod:`zygote_py.ir.ops`), so that the backend can render each back to the
syntax it came from.

SSA is built directly from the syntax tree with the algorithm of Braun,
Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient
Construction of Static Single Assignment Form" (CC 2013), with block
arguments in place of phi functions (:class:`_SSA`): each block records the
current definition of each variable; reading a variable a block does not
define looks it up in the predecessors, creating a block argument where
several meet; loop headers stay *unsealed* (their predecessors unknown)
until the loop body is lowered, and the arguments created meanwhile are
completed when they are sealed. An exception edge passes the values at the
*entry* of the protected block (kept in a cache of their own, so a block's
later definitions never leak into its handler). Trivial arguments (every
incoming value the same, or the argument itself) are removed once the whole
function is built, repeatedly until none is left, which gives the same
result as the paper's on-the-fly removal.

A test (``if``, ``while``, ``assert``, a conditional expression, a
comprehension's ``if``) branches directly on ``and``/``or``/``not``/chained
comparisons, so that each value's truth is asked once, as CPython does
(:meth:`_Lowerer._condition`); elsewhere they are values joined by a block
argument.

Names live in one of four places (:mod:`zygote_py.frontend.scope`): SSA
values (locals), cells and free variables (``ops.load_deref``/
``store_deref``) and globals (``ops.load_global``/``store_global``). A local
read on a path where it may be unassigned goes through ``ops.check_bound``.

Invariants of the result (checked by :func:`zygote_py.ir.verify.verify`):
blocks are reachable from the entry, numbered 1, 2, ... in a reverse
postorder that follows the source; every statement and every
``Return``/``Raise``/``Branch`` carries its source line; inside a ``try`` or
``with`` body each source statement starts a block, and no block defines a
variable before a point that may raise (the handler sees the values at the
block's entry, so it would miss the definition).

"""
from __future__ import annotations

import sys

import copy
import importlib
import itertools
import operator
from typing import Any, Callable, Collection, Optional, Union

import gast

from zygote_py.errors import UnsupportedSyntax
from zygote_py.ir import ops
from zygote_py.ir.core import IR, Block, Branch, Const, Operand, Raise, Return, Signature, Starred, Statement, Var

from .patterns import lower_match
from .scope import Scope, analyze, comprehension_inlined
from . import cleanup, consumption, generators, ssa


__all__ = ["lower"]


_BINARY = {
    gast.Add: operator.add,
    gast.Sub: operator.sub,
    gast.Mult: operator.mul,
    gast.Div: operator.truediv,
    gast.FloorDiv: operator.floordiv,
    gast.Mod: operator.mod,
    gast.Pow: operator.pow,
    gast.MatMult: operator.matmul,
    gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
    gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_,
    gast.BitXor: operator.xor,
}


_INPLACE = {
    gast.Add: operator.iadd,
    gast.Sub: operator.isub,
    gast.Mult: operator.imul,
    gast.Div: operator.itruediv,
    gast.FloorDiv: operator.ifloordiv,
    gast.Mod: operator.imod,
    gast.Pow: operator.ipow,
    gast.MatMult: operator.imatmul,
    gast.LShift: operator.ilshift,
    gast.RShift: operator.irshift,
    gast.BitAnd: operator.iand,
    gast.BitOr: operator.ior,
    gast.BitXor: operator.ixor,
}


_UNARY = {
    gast.USub: operator.neg,
    gast.UAdd: operator.pos,
    gast.Invert: operator.invert,
    gast.Not: operator.not_,
}


_COMPARE = {
    gast.Lt: operator.lt,
    gast.LtE: operator.le,
    gast.Eq: operator.eq,
    gast.NotEq: operator.ne,
    gast.Gt: operator.gt,
    gast.GtE: operator.ge,
    gast.Is: operator.is_,
    gast.IsNot: operator.is_not,
    gast.In: ops.contains,
    gast.NotIn: ops.not_contains,
}


_CONVERSIONS = {-1: "", ord("s"): "s", ord("r"): "r", ord("a"): "a"}


# Comprehension kind -> (the empty accumulator, the method adding an item).
_ACCUMULATE = {
    gast.ListComp: (ops.build_list, "append"),
    gast.SetComp: (ops.build_set, "add"),
    gast.DictComp: (ops.build_dict, None),
}


def lower(
    node: Union[gast.FunctionDef, gast.Lambda],
    *,
    filename: str,
    name: str,
    freevars: Collection[str] = (),
    consumers: Collection[str] = (),
) -> IR:
    """Lower one function's gast node (line numbers already the file's) to
    SSA IR.

    ``freevars`` are the function's free variables (``co_freevars``).
    ``consumers`` name globals called on a generator expression that they
    read to the end before returning (the AD passes the builtins ``sum``,
    ``max``... it found, and guards on them): such a generator expression is
    lowered as the list comprehension it is then equivalent to (see
    :func:`_consumed_as_lists`). A generator function is lowered as the
    function that reads it ahead (:mod:`.generators`). Raises
    :class:`~zygote_py.errors.UnsupportedSyntax` naming the construct, the
    function, the file and the line for what cannot be lowered (a
    generator that cannot be read ahead, ``async``, ``class`` statements and relative imports inside the function,
    a mapping pattern's ``**rest``, ``try/except*``, a bare ``raise``
    outside an ``except`` clause).
    """
    if generators.is_generator(node):
        node = generators.read_ahead(node, function=name, filename=filename)
    elif generators.returns_generator(node):
        node = generators.returned_ahead(node)
    if consumers:
        scope = analyze(node, freevars, function=name, filename=filename)
        node = consumption.consumed_as_lists(node, {c for c in consumers if scope.kind(c[0].split(".")[0]) == "global"})
    return _Lowerer(node, filename=filename, name=name, freevars=freevars).run()


class _Lowerer:
    """Lowers one function; ``block`` is where code goes next (``None``
    after a ``return``, ``raise``, ``break`` or ``continue``: the rest of
    the suite is dead and not lowered)."""

    def __init__(
        self,
        node: Union[gast.FunctionDef, gast.Lambda],
        *,
        filename: str,
        name: str,
        freevars: Collection[str],
    ):
        self.node = node
        self.function = name
        self.filename = filename
        self.scope: Scope = analyze(node, freevars, function=name, filename=filename)
        self.ir = IR(
            name=name,
            filename=filename,
            firstline=node.lineno,
            signature=_signature(node.args),
        )
        self.ssa = ssa.SSA(self.ir)
        self.frames: list[ssa.Frame] = []
        # Innermost last: each inline comprehension's own variables.
        self.comprehensions: list[dict[str, ssa.Key]] = []
        self.block: Optional[Block] = None
        # Whether the current (protected) block has defined a variable: the
        # next point that may raise must then start a new block.
        self.dirty = False
        self.line = node.lineno
        self._numbers = itertools.count(1)

    def run(self) -> IR:
        params = self.ir.signature.names()
        entry = self.ssa.new_block(explicit=len(params))
        self.ssa.seal(entry)
        for var, param in zip(entry.args, params):
            self.ir.names[var] = param
            if self.scope.kind(param) == "local":
                self.ssa.define_at_entry(entry, param, var)
        self.block = entry
        if isinstance(self.node, gast.Lambda):
            value = self._expr(self.node.body)
            self._terminate(Return(value, line=self.node.lineno))
        else:
            self._stmts(self.node.body)
            if self.block is not None:
                end = getattr(self.node, "end_lineno", None) or self.line
                self._terminate(Return(ssa.NONE, line=end))
        self.ssa.finish()
        self.ir.cellvars = sorted(self.scope.cells)
        self.ir.freevars = list(self.scope.free)
        cleanup.cleanup(self.ir)
        return self.ir

    # -- blocks and statements of the IR ----------------------------------------

    def _protection(self) -> Optional[Block]:
        for frame in reversed(self.frames):
            handler = frame.protection()
            if handler is not None:
                return handler
        return None

    def _new_block(self, explicit: int = 0) -> Block:
        return self.ssa.new_block(explicit, self._protection())

    def _start(self, block: Block) -> None:
        """Continue in ``block``, all of whose predecessors are known."""
        self.ssa.seal(block)
        self._enter(block)

    def _enter(self, block: Block) -> None:
        self.block = block if self.ssa.has_edges(block) else None
        self.dirty = False

    def _split(self) -> None:
        """Continue in a new block (protected by the current handler)."""
        nxt = self._new_block()
        self._jump(nxt)
        self._start(nxt)

    def _suspend(self) -> tuple[Optional[Block], bool]:
        saved = (self.block, self.dirty)
        self.block = None
        return saved

    def _resume(self, saved: tuple[Optional[Block], bool]) -> None:
        self.block, self.dirty = saved

    def _handled_by_current(self) -> bool:
        want = self._protection()
        have = self.block.handler
        if want is None:
            return have is None
        return have is not None and have.target == want.id

    def _raising_point(self) -> None:
        """About to do something that may raise: the current block must be
        protected by the current handler and must not have defined a
        variable its handler would miss."""
        if not self._handled_by_current() or (self.dirty and self.block.handler is not None):
            self._split()

    def _emit(
        self,
        callee: Any,
        args: Collection[Union[Operand, Starred]] = (),
        kwargs: Collection[tuple[Optional[str], Operand]] = (),
        line: Optional[int] = None,
    ) -> Var:
        """Append ``%v = callee(*args, **kwargs)``; a callee that is not an
        operand is a constant."""
        if not isinstance(callee, (Var, Const)):
            callee = Const(callee)
        self._raising_point()
        var = self.ir.new_var()
        self.block.stmts.append(
            Statement(var, callee, list(args), list(kwargs), line=line or self.line)
        )
        return var

    def _jump(self, target: Block, values: Collection[Operand] = ()) -> None:
        if self.block is not None:
            self.block.term = self.ssa.jump(self.block, target, values)
            self.block = None

    def _branch(
        self,
        cond: Operand,
        then: Block,
        orelse: Block,
        then_values: Collection[Operand] = (),
        orelse_values: Collection[Operand] = (),
        line: Optional[int] = None,
    ) -> None:
        self._raising_point()  # the truth test may raise
        block = self.block
        block.term = Branch(
            cond,
            then=self.ssa.jump(block, then, then_values),
            orelse=self.ssa.jump(block, orelse, orelse_values),
            line=line or self.line,
        )
        self.block = None

    def _terminate(self, term: Union[Return, Raise]) -> None:
        if isinstance(term, Raise):
            self._raising_point()
        self.block.term = term
        self.block = None

    def _unsupported(self, what: str, line: int, hint: Optional[str] = None) -> UnsupportedSyntax:
        return UnsupportedSyntax(
            f"{what} is not supported",
            function=self.function,
            filename=self.filename,
            line=line,
            hint=hint,
        )

    # -- names -----------------------------------------------------------------

    def _resolve(self, name: str, comprehensions: bool = True) -> tuple[str, ssa.Key]:
        """Where ``name`` lives: ``("local", key)``, ``("cell", name)``,
        ``("free", name)`` or ``("global", name)``."""
        if comprehensions:
            for own in reversed(self.comprehensions):
                if name in own:
                    return "local", own[name]
        return self.scope.kind(name), name

    def _load(self, name: str, line: int) -> Operand:
        kind, key = self._resolve(name)
        if kind == "local":
            return self._read_local(key, line)
        if kind == "global":
            return self._emit(ops.load_global, [Const(name)], line=line)
        return self._emit(ops.load_deref, [Const(name)], line=line)

    def _store(self, name: str, value: Operand, line: int, comprehensions: bool = True) -> None:
        kind, key = self._resolve(name, comprehensions)
        if kind == "local":
            self._write_local(key, value)
        elif kind == "global":
            self._emit(ops.store_global, [Const(name), value], line=line)
        else:
            self._emit(ops.store_deref, [Const(name), value], line=line)

    def _delete(self, name: str, line: int) -> None:
        kind, key = self._resolve(name)
        if kind == "local":
            self._read_local(key, line)  # deleting an unbound local raises
            self._write_local(key, ssa.UNBOUND)
        elif kind == "global":
            self._emit(ops.delete_global, [Const(name)], line=line)
        else:
            self._emit(ops.delete_deref, [Const(name)], line=line)

    def _unbind(self, name: str) -> None:
        """What Python does to an ``except ... as name`` target when the
        clause ends: ``name = None; del name``."""
        kind, key = self._resolve(name, comprehensions=False)
        if kind == "local":
            self._write_local(key, ssa.UNBOUND)
        else:
            self._store(name, ssa.NONE, self.line, comprehensions=False)
            self._delete(name, self.line)

    def _write_local(self, key: ssa.Key, value: Operand) -> None:
        self.ssa.write(self.block, key, value)
        if isinstance(value, Var):
            self.ir.names.setdefault(value, ssa.key_name(key))
        # A comprehension's own variables are invisible to handlers.
        if isinstance(key, str) and self.block.handler is not None:
            self.dirty = True

    def _read_local(self, key: ssa.Key, line: int) -> Operand:
        value = self.ssa.read(self.block, key)
        if not (ssa.is_unbound(value) or value in self.ssa.variable_args):
            return value
        # May be unbound: checked here, and the checked value is the
        # variable's from now on. Checks of values that turn out to be
        # bound on every path are removed by drop_needless_checks.
        checked = self._emit(ops.check_bound, [value, Const(ssa.key_name(key))], line=line)
        self.ir.names[checked] = ssa.key_name(key)
        self.ssa.write(self.block, key, checked)
        return checked

    # -- statements ---------------------------------------------------------------

    def _stmts(self, body: list[gast.stmt]) -> None:
        for stmt in body:
            if self.block is None:
                return
            self._stmt(stmt)

    def _stmt(self, node: gast.stmt) -> None:
        self.line = node.lineno
        # In a protected region each statement starts a block of its own.
        if not self._handled_by_current() or (
            self.block.handler is not None and (self.block.stmts or self.dirty)
        ):
            self._split()
        method = getattr(self, "_stmt_" + type(node).__name__, None)
        if method is None:
            raise self._unsupported(f"'{type(node).__name__}' statement", node.lineno)
        method(node)

    def _stmt_Expr(self, node: gast.Expr) -> None:
        self._expr(node.value)

    def _stmt_Pass(self, node: gast.stmt) -> None:
        """Nothing to do; ``global`` and ``nonlocal`` were read by the scope
        analysis."""

    _stmt_Global = _stmt_Nonlocal = _stmt_Pass

    def _stmt_Assign(self, node: gast.Assign) -> None:
        value = self._expr(node.value)
        for target in node.targets:
            self._assign(target, value)

    def _stmt_AnnAssign(self, node: gast.AnnAssign) -> None:
        if node.value is not None:
            self._assign(node.target, self._expr(node.value))
            return
        # In a function an annotation alone evaluates the target's parts
        # but neither the annotation nor an assignment.
        target = node.target
        if isinstance(target, gast.Attribute):
            self._expr(target.value)
        elif isinstance(target, gast.Subscript):
            self._expr(target.value)
            self._key(target.slice)

    def _stmt_AugAssign(self, node: gast.AugAssign) -> None:
        fn = _INPLACE[type(node.op)]
        target, line = node.target, node.lineno
        if isinstance(target, gast.Name):
            current = self._load(target.id, line)
            result = self._emit(fn, [current, self._expr(node.value)], line=line)
            self._store(target.id, result, line)
        elif isinstance(target, gast.Attribute):
            obj = self._expr(target.value)
            attr = Const(target.attr)
            current = self._emit(getattr, [obj, attr], line=line)
            result = self._emit(fn, [current, self._expr(node.value)], line=line)
            self._emit(setattr, [obj, attr, result], line=line)
        else:
            obj = self._expr(target.value)
            key = self._key(target.slice)
            current = self._emit(operator.getitem, [obj, key], line=line)
            result = self._emit(fn, [current, self._expr(node.value)], line=line)
            self._emit(operator.setitem, [obj, key, result], line=line)

    def _assign(self, target: gast.expr, value: Operand) -> None:
        line = target.lineno
        if isinstance(target, gast.Name):
            self._store(target.id, value, line)
        elif isinstance(target, gast.Attribute):
            obj = self._expr(target.value)
            self._emit(setattr, [obj, Const(target.attr), value], line=line)
        elif isinstance(target, gast.Subscript):
            obj = self._expr(target.value)
            key = self._key(target.slice)
            self._emit(operator.setitem, [obj, key, value], line=line)
        elif isinstance(target, (gast.Tuple, gast.List)):
            self._unpack(target.elts, value, line)
        else:
            raise self._unsupported(f"assignment to {type(target).__name__}", line)

    def _unpack(self, targets: list[gast.expr], value: Operand, line: int) -> None:
        starred = [i for i, t in enumerate(targets) if isinstance(t, gast.Starred)]
        if starred:
            before = starred[0]
            after = len(targets) - before - 1
            items = self._emit(ops.unpack_starred, [value, Const(before), Const(after)], line=line)
        else:
            items = self._emit(ops.unpack, [value, Const(len(targets))], line=line)
        parts = [
            self._emit(operator.getitem, [items, Const(i)], line=line) for i in range(len(targets))
        ]
        for target, part in zip(targets, parts):
            self._assign(target.value if isinstance(target, gast.Starred) else target, part)

    def _stmt_Delete(self, node: gast.Delete) -> None:
        for target in node.targets:
            self._delete_target(target)

    def _delete_target(self, target: gast.expr) -> None:
        line = target.lineno
        if isinstance(target, gast.Name):
            self._delete(target.id, line)
        elif isinstance(target, gast.Attribute):
            obj = self._expr(target.value)
            self._emit(delattr, [obj, Const(target.attr)], line=line)
        elif isinstance(target, gast.Subscript):
            obj = self._expr(target.value)
            key = self._key(target.slice)
            self._emit(operator.delitem, [obj, key], line=line)
        else:
            for elt in target.elts:
                self._delete_target(elt)

    def _stmt_FunctionDef(self, node: gast.FunctionDef) -> None:
        decorators = [(self._expr(d), d.lineno) for d in node.decorator_list]
        fn: Operand = self._make_function(_bare_def(node), node.args, node.lineno)
        for decorator, line in reversed(decorators):
            fn = self._emit(decorator, [fn], line=line)
        self._store(node.name, fn, node.lineno)

    def _stmt_Import(self, node: gast.Import) -> None:
        """``import a.b`` binds ``a``, ``import a.b as c`` binds ``c`` to
        ``a.b`` (a module: no gradient; see ``analysis.static_values``)."""
        for alias in node.names:
            module = self._emit(importlib.import_module, [Const(alias.name)], line=node.lineno)
            if alias.asname is not None:
                self._store(alias.asname, module, node.lineno)
                continue
            top = alias.name.split(".")[0]
            value = module if top == alias.name else self._emit(importlib.import_module, [Const(top)], line=node.lineno)
            self._store(top, value, node.lineno)

    def _stmt_ImportFrom(self, node: gast.ImportFrom) -> None:
        if node.level:
            raise self._unsupported("a relative import inside a function", node.lineno,
                                    "write the absolute import (from package.module import name)")
        for alias in node.names:
            if alias.name == "*":
                raise self._unsupported("'from ... import *' inside a function", node.lineno,
                                        "import the names you use")
            value = self._emit(ops.import_from, [Const(node.module), Const(alias.name)], line=node.lineno)
            self._store(alias.asname or alias.name, value, node.lineno)

    def _stmt_Return(self, node: gast.Return) -> None:
        value = ssa.NONE if node.value is None else self._expr(node.value)
        self._unwind(-1)
        if self.block is not None:
            self._terminate(Return(value, line=node.lineno))

    def _stmt_Raise(self, node: gast.Raise) -> None:
        if node.exc is None:
            handling = [f for f in self.frames if isinstance(f, ssa.Except)]
            if not handling:
                raise self._unsupported(
                    "a bare 'raise' outside an 'except' clause",
                    node.lineno,
                    hint="raise the exception by name",
                )
            exc, cause = handling[-1].exc, None
        else:
            exc = self._expr(node.exc)
            cause = None if node.cause is None else self._expr(node.cause)
        self._terminate(Raise(exc, cause, line=node.lineno))

    def _stmt_Assert(self, node: gast.Assert) -> None:
        if sys.flags.optimize:  # python -O compiles asserts away; so do we
            return
        fail = self._new_block()
        ok = self._new_block()
        self._condition(node.test, ok, fail, node.lineno)
        self._start(fail)
        args = [] if node.msg is None else [self._expr(node.msg)]
        error = self._emit(AssertionError, args, line=node.lineno)
        self._terminate(Raise(error, line=node.lineno))
        self._start(ok)

    # -- control flow ------------------------------------------------------------------

    def _stmt_If(self, node: gast.If) -> None:
        if isinstance(node.test, gast.Constant):
            self._stmts(node.body if node.test.value else node.orelse)
            return
        then = self._new_block()
        orelse = self._new_block() if node.orelse else None
        after = self._new_block()
        self._condition(node.test, then, orelse or after, node.lineno)
        self._start(then)
        self._stmts(node.body)
        self._jump(after)
        if orelse is not None:
            self._start(orelse)
            self._stmts(node.orelse)
            self._jump(after)
        self._start(after)

    def _stmt_Match(self, node: gast.Match) -> None:
        lower_match(self, node)

    def _stmt_While(self, node: gast.While) -> None:
        forever = isinstance(node.test, gast.Constant)
        if forever and not node.test.value:
            self._stmts(node.orelse)
            return
        header = self._new_block()
        body = header if forever else self._new_block()
        orelse = self._new_block() if node.orelse else None
        exit_ = self._new_block()
        self._jump(header)
        self._enter(header)  # unsealed until the back edges exist
        if not forever:
            self._condition(node.test, body, orelse or exit_, node.lineno)
        self._loop_body(header, body, exit_, lambda loop: self._stmts(node.body))
        self._loop_else(orelse, node.orelse, exit_)

    def _stmt_For(self, node: gast.For) -> None:
        iterator = self._emit(iter, [self._expr(node.iter)], line=node.lineno)
        self._iterate(
            iterator,
            lambda item: self._assign(node.target, item),
            lambda loop: self._stmts(node.body),
            node.orelse,
            node.lineno,
        )

    def _iterate(
        self,
        iterator: Operand,
        bind: Callable[[Operand], None],
        body: Callable[[ssa.Loop], None],
        orelse: list[gast.stmt],
        line: int,
    ) -> None:
        """A ``for`` loop over ``iterator``: the header holds exactly
        ``iternext`` and ``exhausted``; the body starts with ``bind(item)``."""
        header = self._new_block()
        body_block = self._new_block()
        else_block = self._new_block() if orelse else None
        exit_ = self._new_block()
        self._jump(header)
        self._enter(header)
        item = self._emit(ops.iternext, [iterator], line=line)
        done = self._emit(ops.exhausted, [item], line=line)
        self._branch(done, else_block or exit_, body_block, line=line)

        def fill(loop: ssa.Loop) -> None:
            bind(item)
            body(loop)

        self._loop_body(header, body_block, exit_, fill)
        self._loop_else(else_block, orelse, exit_)

    def _loop_body(
        self, header: Block, body: Block, exit_: Block, fill: Callable[[ssa.Loop], None]
    ) -> None:
        loop = ssa.Loop(header, exit_)
        self.frames.append(loop)
        if body is not header:
            self._start(body)
        fill(loop)
        self._jump(header)
        self.frames.pop()
        self.ssa.seal(header)

    def _loop_else(self, block: Optional[Block], body: list[gast.stmt], exit_: Block) -> None:
        if block is not None:
            self._start(block)
            self._stmts(body)
            self._jump(exit_)
        self._start(exit_)

    def _stmt_Break(self, node: gast.Break) -> None:
        depth = self._innermost_loop()
        self._unwind(depth)
        self._jump(self.frames[depth].exit)

    def _stmt_Continue(self, node: gast.Continue) -> None:
        depth = self._innermost_loop()
        self._unwind(depth)
        self._jump(self.frames[depth].header)

    def _innermost_loop(self) -> int:
        return max(i for i, f in enumerate(self.frames) if isinstance(f, ssa.Loop))

    def _unwind(self, depth: int) -> None:
        """Lower what runs when control leaves the frames above
        ``frames[depth]`` (all of them for ``depth == -1``): ``finally``
        bodies, ``with`` exits. Each runs as its frame's enclosing code
        does: protected by the outer handlers only."""
        frames = self.frames
        for i in range(len(frames) - 1, depth, -1):
            if self.block is None:
                break
            self.frames = frames[:i]
            frames[i].leave(self)
        self.frames = frames

    # -- exceptions ----------------------------------------------------------------------

    def _stmt_Try(self, node: gast.Try) -> None:
        if not node.finalbody:
            self._try_except(node)
            return
        handler = self._new_block(explicit=1)
        self.frames.append(ssa.Finally(handler, node.finalbody))
        self._try_except(node)
        self.frames.pop()
        self._stmts(node.finalbody)  # the normal way out
        normal = self._suspend()
        self._start(handler)  # the exceptional way out: run it, re-raise
        self._stmts(node.finalbody)
        if self.block is not None:
            self._terminate(Raise(handler.args[0], line=node.lineno))
        self._resume(normal)

    def _try_except(self, node: gast.Try) -> None:
        if not node.handlers:
            self._stmts(node.body)
            return
        handler = self._new_block(explicit=1)
        self.frames.append(ssa.Try(handler))
        self._stmts(node.body)
        self.frames.pop()
        self._stmts(node.orelse)
        after = self._new_block()
        self._jump(after)
        self._except_clauses(handler, node.handlers, after, node.lineno)
        self._start(after)

    def _except_clauses(
        self, handler: Block, clauses: list[gast.ExceptHandler], after: Block, line: int
    ) -> None:
        """The handler block: try each clause in turn; re-raise if none
        matches."""
        self._start(handler)
        exc = handler.args[0]
        for clause in clauses:
            self.line = clause.lineno
            if clause.type is None:
                self._except_body(clause, exc, after)
                return
            kind = self._expr(clause.type)
            match = self._emit(isinstance, [exc, kind], line=clause.lineno)
            yes = self._new_block()
            no = self._new_block()
            self._branch(match, yes, no, line=clause.lineno)
            self._start(yes)
            self._except_body(clause, exc, after)
            self._start(no)
        self._terminate(Raise(exc, line=line))

    def _except_body(self, clause: gast.ExceptHandler, exc: Operand, after: Block) -> None:
        name = None if clause.name is None else clause.name.id
        if name is not None:
            self._store(name, exc, clause.lineno, comprehensions=False)
        frame = ssa.Except(exc, name)
        self.frames.append(frame)
        self._stmts(clause.body)
        self.frames.pop()
        if self.block is not None:
            frame.leave(self)
            self._jump(after)

    def _stmt_With(self, node: gast.With) -> None:
        self._with_items(node.items, node.body, node.lineno)

    def _with_items(self, items: list[gast.withitem], body: list[gast.stmt], line: int) -> None:
        """``with a, b: body`` is ``with a: with b: body``; each follows the
        language reference: enter and exit are looked up on the manager's
        type and called with the manager first."""
        item = items[0]
        manager = self._expr(item.context_expr)
        kind = self._emit(type, [manager], line=line)
        enter = self._emit(getattr, [kind, Const("__enter__")], line=line)
        exit_ = self._emit(getattr, [kind, Const("__exit__")], line=line)
        value = self._emit(enter, [manager], line=line)
        handler = self._new_block(explicit=1)
        self.frames.append(ssa.With(handler, manager, exit_, line))
        if item.optional_vars is not None:
            self._assign(item.optional_vars, value)
        if len(items) > 1:
            self._with_items(items[1:], body, line)
        else:
            self._stmts(body)
        self.frames.pop()
        after = self._new_block()
        if self.block is not None:
            self._emit(exit_, [manager, ssa.NONE, ssa.NONE, ssa.NONE], line=line)
            self._jump(after)
        self._start(handler)
        exc = handler.args[0]
        exc_type = self._emit(type, [exc], line=line)
        traceback = self._emit(getattr, [exc, Const("__traceback__")], line=line)
        swallow = self._emit(exit_, [manager, exc_type, exc, traceback], line=line)
        reraise = self._new_block()
        self._branch(swallow, after, reraise, line=line)
        self._start(reraise)
        self._terminate(Raise(exc, line=line))
        self._start(after)

    def _condition(self, node: gast.expr, yes: Block, no: Block, line: int) -> None:
        """Branch to ``yes`` or ``no`` on the truth of ``node``, testing
        each value once, as CPython's compiler does for a test: ``and``,
        ``or``, ``not``, conditional expressions and chained comparisons
        become jumps rather than values tested again."""
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            self._condition(node.operand, no, yes, line)
        elif isinstance(node, gast.BoolOp):
            is_and = isinstance(node.op, gast.And)
            for value in node.values[:-1]:
                rest = self._new_block()
                if is_and:
                    self._condition(value, rest, no, line)
                else:
                    self._condition(value, yes, rest, line)
                self._start(rest)
            self._condition(node.values[-1], yes, no, line)
        elif isinstance(node, gast.IfExp):
            first = self._new_block()
            second = self._new_block()
            self._condition(node.test, first, second, line)
            self._start(first)
            self._condition(node.body, yes, no, line)
            self._start(second)
            self._condition(node.orelse, yes, no, line)
        elif isinstance(node, gast.Compare) and len(node.ops) > 1:
            left = self._expr(node.left)
            for i, (op, comparator) in enumerate(zip(node.ops, node.comparators)):
                right = self._expr(comparator)
                result = self._emit(_COMPARE[type(op)], [left, right], line=node.lineno)
                if i == len(node.ops) - 1:
                    self._branch(result, yes, no, line=line)
                else:
                    rest = self._new_block()
                    self._branch(result, rest, no, line=line)
                    self._start(rest)
                left = right
        else:
            self._branch(self._expr(node), yes, no, line=line)

    # -- expressions ---------------------------------------------------------------------

    def _expr(self, node: gast.expr) -> Operand:
        method = getattr(self, "_expr_" + type(node).__name__, None)
        if method is None:
            raise self._unsupported(f"'{type(node).__name__}' expression", node.lineno)
        return method(node)

    def _expr_Constant(self, node: gast.Constant) -> Operand:
        return Const(node.value)

    def _expr_Name(self, node: gast.Name) -> Operand:
        return self._load(node.id, node.lineno)

    def _expr_BinOp(self, node: gast.BinOp) -> Operand:
        left = self._expr(node.left)
        right = self._expr(node.right)
        return self._emit(_BINARY[type(node.op)], [left, right], line=node.lineno)

    def _expr_UnaryOp(self, node: gast.UnaryOp) -> Operand:
        literal = node.operand
        if (
            isinstance(node.op, (gast.USub, gast.UAdd))
            and isinstance(literal, gast.Constant)
            and type(literal.value) in (int, float, complex)
        ):
            # A signed number is a literal, as Python's compiler folds it.
            return Const(_UNARY[type(node.op)](literal.value))
        operand = self._expr(node.operand)
        return self._emit(_UNARY[type(node.op)], [operand], line=node.lineno)

    def _expr_BoolOp(self, node: gast.BoolOp) -> Operand:
        """Short-circuit: the result is the first value deciding it."""
        join = self._new_block(explicit=1)
        is_and = isinstance(node.op, gast.And)
        for value in node.values[:-1]:
            v = self._expr(value)
            rest = self._new_block()
            if is_and:
                self._branch(v, rest, join, orelse_values=[v], line=node.lineno)
            else:
                self._branch(v, join, rest, then_values=[v], line=node.lineno)
            self._start(rest)
        self._jump(join, [self._expr(node.values[-1])])
        self._start(join)
        return join.args[0]

    def _expr_Compare(self, node: gast.Compare) -> Operand:
        """``a < b < c``: each operand evaluated once; the result is the
        first false comparison, else the last."""
        left = self._expr(node.left)
        if len(node.ops) == 1:
            right = self._expr(node.comparators[0])
            return self._emit(_COMPARE[type(node.ops[0])], [left, right], line=node.lineno)
        join = self._new_block(explicit=1)
        last = len(node.ops) - 1
        for i, (op, comparator) in enumerate(zip(node.ops, node.comparators)):
            right = self._expr(comparator)
            result = self._emit(_COMPARE[type(op)], [left, right], line=node.lineno)
            if i == last:
                self._jump(join, [result])
            else:
                rest = self._new_block()
                self._branch(result, rest, join, orelse_values=[result], line=node.lineno)
                self._start(rest)
            left = right
        self._start(join)
        return join.args[0]

    def _expr_IfExp(self, node: gast.IfExp) -> Operand:
        yes = self._new_block()
        no = self._new_block()
        join = self._new_block(explicit=1)
        self._condition(node.test, yes, no, node.lineno)
        self._start(yes)
        self._jump(join, [self._expr(node.body)])
        self._start(no)
        self._jump(join, [self._expr(node.orelse)])
        self._start(join)
        return join.args[0]

    def _expr_NamedExpr(self, node: gast.NamedExpr) -> Operand:
        value = self._expr(node.value)
        # A walrus inside a comprehension binds in the function.
        self._store(node.target.id, value, node.lineno, comprehensions=False)
        return value

    def _expr_Call(self, node: gast.Call) -> Operand:
        if getattr(node, "summed", False) and comprehension_inlined(node.args[0]):
            self._expr(node.func)  # (read first, as Python does: the compilation is guarded on its being sum)
            return self._summed(node.args[0])
        if _is_bare_super(node):
            call = self._super_call(node.lineno)
            if call is not None:
                return call
        callee = self._expr(node.func)
        args = self._items(node.args)
        kwargs = [(k.arg, self._expr(k.value)) for k in node.keywords]
        return self._emit(callee, args, kwargs, line=node.lineno)

    def _super_call(self, line: int) -> Optional[Operand]:
        """``super()`` in a method: ``super(__class__, <first parameter>)``,
        as Python's compiler arranges it."""
        params = self.ir.signature.posonly + self.ir.signature.args
        if (
            not params
            or self._resolve("super")[0] != "global"
            or self.scope.kind("__class__") != "free"
        ):
            return None
        callee = self._emit(ops.load_global, [Const("super")], line=line)
        cls = self._emit(ops.load_deref, [Const("__class__")], line=line)
        first = self._load(params[0], line)
        return self._emit(callee, [cls, first], line=line)

    def _items(self, nodes: list[gast.expr]) -> list[Union[Operand, Starred]]:
        return [
            Starred(self._expr(n.value)) if isinstance(n, gast.Starred) else self._expr(n)
            for n in nodes
        ]

    def _expr_Attribute(self, node: gast.Attribute) -> Operand:
        obj = self._expr(node.value)
        return self._emit(getattr, [obj, Const(node.attr)], line=node.lineno)

    def _expr_Subscript(self, node: gast.Subscript) -> Operand:
        obj = self._expr(node.value)
        key = self._key(node.slice)
        return self._emit(operator.getitem, [obj, key], line=node.lineno)

    def _key(self, node: gast.expr) -> Operand:
        """A subscript's key: slices become ``slice(...)``, several parts a
        tuple of them."""
        if isinstance(node, gast.Slice):
            return self._slice(node)
        if isinstance(node, gast.Tuple):
            parts = [
                Starred(self._expr(e.value)) if isinstance(e, gast.Starred) else self._key(e)
                for e in node.elts
            ]
            return self._emit(ops.build_tuple, parts, line=node.lineno)
        return self._expr(node)

    def _slice(self, node: gast.Slice) -> Operand:
        parts = [ssa.NONE if p is None else self._expr(p) for p in (node.lower, node.upper, node.step)]
        return self._emit(slice, parts, line=getattr(node, "lineno", None))

    def _expr_Tuple(self, node: gast.Tuple) -> Operand:
        return self._emit(ops.build_tuple, self._items(node.elts), line=node.lineno)

    def _expr_List(self, node: gast.List) -> Operand:
        return self._emit(ops.build_list, self._items(node.elts), line=node.lineno)

    def _expr_Set(self, node: gast.Set) -> Operand:
        return self._emit(ops.build_set, self._items(node.elts), line=node.lineno)

    def _expr_Dict(self, node: gast.Dict) -> Operand:
        """Entries before the first ``**m`` go into ``build_dict``; the rest
        are added in order (``ops.merge_dict`` for ``**m``)."""
        line = node.lineno
        entries: list[Operand] = []
        result: Optional[Var] = None
        for k, v in zip(node.keys, node.values):
            if k is None:
                mapping = self._expr(v)
                if result is None:
                    result = self._emit(ops.build_dict, entries, line=line)
                self._emit(ops.merge_dict, [result, mapping], line=line)
            elif result is None:
                entries += [self._expr(k), self._expr(v)]
            else:
                key, value = self._expr(k), self._expr(v)
                self._emit(operator.setitem, [result, key, value], line=line)
        if result is None:
            result = self._emit(ops.build_dict, entries, line=line)
        return result

    def _expr_JoinedStr(self, node: gast.JoinedStr) -> Operand:
        parts = [
            Const(v.value) if isinstance(v, gast.Constant) else self._expr(v) for v in node.values
        ]
        return self._emit(ops.build_string, parts, line=node.lineno)

    def _expr_FormattedValue(self, node: gast.FormattedValue) -> Operand:
        value = self._expr(node.value)
        conversion = Const(_CONVERSIONS[node.conversion])
        spec = node.format_spec
        if spec is None:
            spec_value: Operand = Const("")
        elif all(isinstance(v, gast.Constant) for v in spec.values):
            spec_value = Const("".join(v.value for v in spec.values))
        else:
            spec_value = self._expr_JoinedStr(spec)
        return self._emit(ops.format_value, [value, conversion, spec_value], line=node.lineno)

    def _expr_Lambda(self, node: gast.Lambda) -> Operand:
        return self._make_function(node, node.args, node.lineno)

    def _make_function(self, node: gast.AST, args: gast.arguments, line: int) -> Var:
        """``ops.make_function(node, *defaults, **kwdefaults)``, the default
        values evaluated here, positional ones first."""
        defaults = [self._expr(d) for d in args.defaults]
        kwdefaults = [
            (a.id, self._expr(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None
        ]
        return self._emit(ops.make_function, [Const(node), *defaults], kwdefaults, line=line)

    def _expr_GeneratorExp(self, node: gast.GeneratorExp) -> Operand:
        first = self._expr(node.generators[0].iter)
        return self._emit(ops.make_scope, [Const(node), first], line=node.lineno)

    def _expr_ListComp(self, node: gast.expr) -> Operand:
        if not comprehension_inlined(node):
            return self._expr_GeneratorExp(node)
        line = node.lineno
        iterator = self._emit(iter, [self._expr(node.generators[0].iter)], line=line)
        build, _ = _ACCUMULATE[type(node)]
        result = self._emit(build, [], line=line)
        number = next(self._numbers)
        own = {
            name: (name, number)
            for g in node.generators
            for name in consumption.target_names(g.target)
        }
        self.comprehensions.append(own)
        self._generator(node, 0, iterator, result)
        self.comprehensions.pop()
        return result

    _expr_SetComp = _expr_DictComp = _expr_ListComp

    def _summed(self, node: gast.ListComp) -> Operand:
        """``sum(<generator>)`` (``sum`` the builtin, see
        :func:`_consumed_as_lists`) as the running total ``0 + item + item
        ...`` that the builtin computes: the same additions in the same
        order (Python 3.12 and later add floats with a compensation, which
        may differ in the last bit)."""
        line = node.lineno
        iterator = self._emit(iter, [self._expr(node.generators[0].iter)], line=line)
        total = ("total", next(self._numbers))
        self._write_local(total, Const(0))
        number = next(self._numbers)
        self.comprehensions.append({name: (name, number) for g in node.generators for name in consumption.target_names(g.target)})
        self._generator(node, 0, iterator, total)
        self.comprehensions.pop()
        return self._read_local(total, line)

    def _generator(self, node: gast.expr, index: int, iterator: Operand, result: Var) -> None:
        """The loop of ``node.generators[index]`` and, inside it, the
        following ones; the innermost adds an item to ``result``."""
        gen = node.generators[index]
        line = node.lineno

        def body(loop: ssa.Loop) -> None:
            for cond in gen.ifs:
                keep = self._new_block()
                self._condition(cond, keep, loop.header, line)
                self._start(keep)
            if index + 1 < len(node.generators):
                inner = self._expr(node.generators[index + 1].iter)
                inner_iterator = self._emit(iter, [inner], line=line)
                self._generator(node, index + 1, inner_iterator, result)
            else:
                self._add_item(node, result)

        self._iterate(iterator, lambda item: self._assign(gen.target, item), body, [], line)

    def _add_item(self, node: gast.expr, result: Union[Var, ssa.Key]) -> None:
        line = node.lineno
        if not isinstance(result, Var):  # (the running total of :meth:`_summed`)
            item = self._expr(node.elt)
            self._write_local(result, self._emit(operator.add, [self._read_local(result, line), item], line=line))
            return
        if isinstance(node, gast.DictComp):
            key = self._expr(node.key)
            value = self._expr(node.value)
            self._emit(operator.setitem, [result, key, value], line=line)
            return
        method = self._emit(getattr, [result, Const(_ACCUMULATE[type(node)][1])], line=line)
        self._emit(method, [self._expr(node.elt)], line=line)


def _signature(args: gast.arguments) -> Signature:
    return Signature(
        posonly=[a.id for a in args.posonlyargs],
        args=[a.id for a in args.args],
        vararg=None if args.vararg is None else args.vararg.id,
        kwonly=[a.id for a in args.kwonlyargs],
        kwarg=None if args.kwarg is None else args.kwarg.id,
    )


def _is_bare_super(node: gast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, gast.Name)
        and func.id == "super"
        and not node.args
        and not node.keywords
    )


def _bare_def(node: gast.FunctionDef) -> gast.FunctionDef:
    """A copy of a nested ``def`` without decorators (applied by the
    lowering) and annotations (which would name the enclosing function's
    variables, not all of which keep their names)."""
    args = copy.copy(node.args)
    for name in ("posonlyargs", "args", "kwonlyargs"):
        setattr(args, name, [_bare_param(a) for a in getattr(args, name)])
    for name in ("vararg", "kwarg"):
        param = getattr(args, name)
        setattr(args, name, None if param is None else _bare_param(param))
    bare = copy.copy(node)
    bare.decorator_list = []
    bare.returns = None
    bare.args = args
    return bare


def _bare_param(param: gast.Name) -> gast.Name:
    bare = copy.copy(param)
    bare.annotation = None
    return bare
