"""The state of SSA construction while a function is lowered: each block's
variables and the edges into it, the reads of variables not yet defined
that become block arguments (Braun et al., "Simple and Efficient
Construction of Static Single Assignment Form", 2013), and the frames of
the loops, ``try``, ``finally``, ``with`` and ``except`` blocks being
lowered.

May import: the IR.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Collection, Optional, Union

import gast

from zygote_py.ir import ops
from zygote_py.ir.core import IR, Block, Const, Jump, Operand, Var

if TYPE_CHECKING:
    from . import lower


UNBOUND = Const(ops.UNBOUND)


NONE = Const(None)


# An SSA variable: a function local by name, or a comprehension's own
# variable as (name, number of that comprehension).
Key = Union[str, tuple[str, int]]


def key_name(key: Key) -> str:
    return key if isinstance(key, str) else key[0]


def is_unbound(op: Any) -> bool:
    return isinstance(op, Const) and op.value is ops.UNBOUND


@dataclass
class _Edge:
    source: Block
    jump: Jump
    exceptional: bool


@dataclass
class _BlockState:
    """What SSA construction knows about one block.

    ``explicit`` leading arguments get their values from the jumps
    themselves (a handler's exception, the result of ``a or b``); the
    arguments after them stand for variables, with their incoming values
    per edge in ``incoming`` until :meth:`_SSA.finish` writes them into the
    jumps.
    """

    explicit: int
    edges: list[_Edge] = field(default_factory=list)
    sealed: bool = False
    defs: dict[Key, Operand] = field(default_factory=dict)
    entry: dict[Key, Operand] = field(default_factory=dict)
    incoming: dict[Var, list[Operand]] = field(default_factory=dict)
    incomplete: list[tuple[Key, Var]] = field(default_factory=list)


class SSA:
    """Per-block variable definitions and the block arguments joining them.

    Edges are only ever added to unsealed blocks: a block is sealed once
    every edge into it exists.
    """

    def __init__(self, ir: IR):
        self.ir = ir
        self.state: dict[int, _BlockState] = {}
        self.variable_args: set[Var] = set()

    def new_block(self, explicit: int = 0, handler: Optional[Block] = None) -> Block:
        """A block with ``explicit`` arguments, protected by ``handler``."""
        block = self.ir.new_block()
        block.args = [self.ir.new_var() for _ in range(explicit)]
        self.state[block.id] = _BlockState(explicit)
        if handler is not None:
            block.handler = Jump(handler.id)
            self._add_edge(block, block.handler, handler, exceptional=True)
        return block

    def jump(self, source: Block, target: Block, values: Collection[Operand] = ()) -> Jump:
        """A jump from ``source`` (whose definitions are final) to
        ``target`` passing ``values`` for its explicit arguments."""
        j = Jump(target.id, list(values))
        self._add_edge(source, j, target, exceptional=False)
        return j

    def _add_edge(self, source: Block, jump: Jump, target: Block, exceptional: bool) -> None:
        state = self.state[target.id]
        assert not state.sealed, f"edge into sealed block {target.id}"
        state.edges.append(_Edge(source, jump, exceptional))

    def has_edges(self, block: Block) -> bool:
        return bool(self.state[block.id].edges)

    def seal(self, block: Block) -> None:
        """Every edge into ``block`` exists: complete its arguments."""
        state = self.state[block.id]
        if state.sealed:
            return
        state.sealed = True
        for key, var in state.incomplete:
            state.incoming[var] = [self._at_edge(e, key) for e in state.edges]
        state.incomplete.clear()

    def write(self, block: Block, key: Key, value: Operand) -> None:
        self.state[block.id].defs[key] = value

    def define_at_entry(self, block: Block, key: Key, value: Operand) -> None:
        self.state[block.id].entry[key] = value

    def read(self, block: Block, key: Key) -> Operand:
        """The value of ``key`` at the current end of ``block``."""
        state = self.state[block.id]
        if key in state.defs:
            return state.defs[key]
        return self.read_entry(block, key)

    def read_entry(self, block: Block, key: Key) -> Operand:
        """The value of ``key`` when control enters ``block``."""
        state = self.state[block.id]
        if key in state.entry:
            return state.entry[key]
        if not state.sealed:
            value: Operand = self._new_arg(block, key)
            state.incomplete.append((key, value))
        elif not state.edges:
            value = UNBOUND
        elif len(state.edges) == 1:
            value = self._at_edge(state.edges[0], key)
        else:
            value = self._new_arg(block, key)
            # Cached before the look-up so that a loop leads back here.
            state.entry[key] = value
            state.incoming[value] = [self._at_edge(e, key) for e in state.edges]
        state.entry[key] = value
        return value

    def _at_edge(self, edge: _Edge, key: Key) -> Operand:
        if edge.exceptional:
            return self.read_entry(edge.source, key)
        return self.read(edge.source, key)

    def _new_arg(self, block: Block, key: Key) -> Var:
        var = self.ir.new_var(key_name(key))
        block.args.append(var)
        self.variable_args.add(var)
        return var

    def finish(self) -> None:
        """Seal what is left and write the variable arguments' values into
        the jumps."""
        for bid in list(self.state):
            self.seal(self.ir.blocks[bid])
        for bid, state in self.state.items():
            variables = self.ir.blocks[bid].args[state.explicit:]
            for i, edge in enumerate(state.edges):
                edge.jump.args.extend(state.incoming[v][i] for v in variables)


class Frame:
    """A construct enclosing the code being lowered: what protects it from
    exceptions, and what runs when ``break``/``continue``/``return`` jumps
    out of it."""

    def protection(self) -> Optional[Block]:
        """The handler block catching exceptions raised inside, if any."""
        return None

    def leave(self, lowerer: "lower._Lowerer") -> None:
        """Lower what runs on a jump out of this construct."""


@dataclass
class Loop(Frame):
    header: Block
    exit: Block


@dataclass
class Try(Frame):
    """The body of a ``try`` with ``except`` clauses."""

    handler: Block

    def protection(self) -> Optional[Block]:
        return self.handler


@dataclass
class Finally(Frame):
    """Everything a ``finally`` clause covers; leaving runs a copy of it."""

    handler: Block
    body: list[gast.stmt]

    def protection(self) -> Optional[Block]:
        return self.handler

    def leave(self, lowerer: "lower._Lowerer") -> None:
        lowerer._stmts(self.body)


@dataclass
class With(Frame):
    """A ``with`` body; leaving calls ``exit(manager, None, None, None)``."""

    handler: Block
    manager: Operand
    exit: Operand
    line: int

    def protection(self) -> Optional[Block]:
        return self.handler

    def leave(self, lowerer: "lower._Lowerer") -> None:
        lowerer._emit(self.exit, [self.manager, NONE, NONE, NONE], line=self.line)


@dataclass
class Except(Frame):
    """An ``except`` clause's body: a bare ``raise`` re-raises ``exc``;
    leaving unbinds the ``as`` name."""

    exc: Operand
    name: Optional[str]

    def leave(self, lowerer: "lower._Lowerer") -> None:
        if self.name is not None:
            lowerer._unbind(self.name)
