"""The block-argument SSA IR, after IRTools.jl and MLIR.

A function is an ordered set of blocks; the first is the entry, whose
arguments are the function's parameters. A block has arguments, a
straight-line list of statements, and one terminator. Every statement is a
call ``%v = callee(args..., key=arg...)``: operators, attribute access,
literals and displays are calls of the functions in :mod:`zygote_py.ir.ops`
or :mod:`operator`, so that all language semantics live in libraries and the
passes stay small.

Invariants (checked by :func:`zygote_py.ir.verify.verify`):

- every variable is defined once, by a block argument or a statement;
- every use is dominated by its definition;
- a jump passes exactly as many values as its target block has arguments;
- an exception edge (``Block.handler``) passes, as the handler's arguments
  after the first, values defined at the *entry* of the protected block; the
  handler's first argument receives the exception. A protected block that
  raises part-way is treated as if it had not run at all (no value it
  defined reaches the handler).
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Union


class Var:
    """An SSA value, printed ``%id``. Equal to the variables of the same
    number; hashed by it (the compiler hashes variables a great deal)."""

    __slots__ = ("id",)

    def __init__(self, id: int):
        self.id = id

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Var and other.id == self.id

    def __hash__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"%{self.id}"


@dataclass(frozen=True, eq=False)
class Const:
    """A compile-time constant operand: a literal, a function, a module."""

    value: Any

    def __repr__(self) -> str:
        return const_repr(self.value)


Operand = Union[Var, Const]


@dataclass(frozen=True)
class Starred:
    """``*value`` among a call's positional arguments or a display's items."""

    value: Operand

    def __repr__(self) -> str:
        return f"*{self.value!r}"


@dataclass
class Statement:
    """``var = callee(*args, **kwargs)``.

    ``kwargs`` pairs a keyword with its operand; a ``None`` keyword stands
    for ``**operand``. ``line`` is the line in the user's file. ``pure``
    marks a statement the compiler made and knows to have no effect (the
    arithmetic of an inlined derivative rule), so it may be dropped when
    its result is unused.
    """

    var: Var
    callee: Operand
    args: list[Union[Operand, Starred]] = field(default_factory=list)
    kwargs: list[tuple[Optional[str], Operand]] = field(default_factory=list)
    line: Optional[int] = None
    pure: bool = False

    def operands(self) -> Iterator[Operand]:
        """Every operand read, in Python's evaluation order."""
        yield self.callee
        for a in self.args:
            yield a.value if isinstance(a, Starred) else a
        for _, v in self.kwargs:
            yield v


@dataclass
class Jump:
    """``br target (args...)``."""

    target: int
    args: list[Operand] = field(default_factory=list)


@dataclass
class Branch:
    """``br orelse unless cond`` then ``br then``: Python truthiness of cond."""

    cond: Operand
    then: Jump
    orelse: Jump
    line: Optional[int] = None


@dataclass
class Return:
    value: Operand
    line: Optional[int] = None


@dataclass
class Raise:
    """``raise exc from cause``; ``cause is None`` means no ``from`` clause."""

    exc: Operand
    cause: Optional[Operand] = None
    line: Optional[int] = None


Terminator = Union[Jump, Branch, Return, Raise]


@dataclass
class Block:
    id: int
    args: list[Var] = field(default_factory=list)
    stmts: list[Statement] = field(default_factory=list)
    term: Optional[Terminator] = None
    handler: Optional[Jump] = None

    def jumps(self) -> list[Jump]:
        """The terminator's outgoing edges (not the exception edge)."""
        t = self.term
        if isinstance(t, Jump):
            return [t]
        if isinstance(t, Branch):
            return [t.then, t.orelse]
        return []

    def term_operands(self) -> list[Operand]:
        """The values the terminator reads itself (not its jumps' values)."""
        t = self.term
        if isinstance(t, Branch):
            return [t.cond]
        if isinstance(t, Return):
            return [t.value]
        if isinstance(t, Raise):
            return [t.exc] + ([t.cause] if t.cause is not None else [])
        return []

    def successors(self) -> list[int]:
        """Targets of every outgoing edge, exception edge last."""
        out = [j.target for j in self.jumps()]
        if self.handler is not None:
            out.append(self.handler.target)
        return out


@dataclass
class Signature:
    """A function's parameters, in the order of the entry block's arguments:
    positional-only, positional-or-keyword, ``*vararg``, keyword-only,
    ``**kwarg``. Defaults are not part of the IR; they are evaluated where
    the function is defined."""

    posonly: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    vararg: Optional[str] = None
    kwonly: list[str] = field(default_factory=list)
    kwarg: Optional[str] = None

    def names(self) -> list[str]:
        out = self.posonly + self.args
        if self.vararg:
            out.append(self.vararg)
        out += self.kwonly
        if self.kwarg:
            out.append(self.kwarg)
        return out


@dataclass
class IR:
    """One function in SSA form.

    ``names`` gives the source variable a value was assigned to, where there
    is one; the backend uses it to name Python variables. ``cellvars`` are
    the function's locals captured by nested scopes, and ``freevars`` the
    variables it captures from enclosing functions: both live outside SSA,
    read and written through ``ops.load_deref``/``ops.store_deref``.
    """

    name: str
    filename: str = "<unknown>"
    firstline: int = 0
    signature: Signature = field(default_factory=Signature)
    blocks: dict[int, Block] = field(default_factory=dict)
    names: dict[Var, str] = field(default_factory=dict)
    cellvars: list[str] = field(default_factory=list)
    freevars: list[str] = field(default_factory=list)
    nvars: int = 0

    @property
    def entry(self) -> Block:
        return next(iter(self.blocks.values()))

    def new_var(self, name: Optional[str] = None) -> Var:
        self.nvars += 1
        v = Var(self.nvars)
        if name is not None:
            self.names[v] = name
        return v

    def new_block(self) -> Block:
        bid = max(self.blocks, default=0) + 1
        b = Block(bid)
        self.blocks[bid] = b
        return b

    def copy(self) -> "IR":
        """A copy whose blocks, statements and edges can be changed without
        touching this IR (constants are shared, not copied)."""

        def jump(j: Optional[Jump]) -> Optional[Jump]:
            return None if j is None else Jump(j.target, list(j.args))

        def term(t):
            if isinstance(t, Jump):
                return jump(t)
            if isinstance(t, Branch):
                return Branch(t.cond, jump(t.then), jump(t.orelse), t.line)
            if isinstance(t, Return):
                return Return(t.value, t.line)
            if isinstance(t, Raise):
                return Raise(t.exc, t.cause, t.line)
            return t

        out = IR(
            self.name, self.filename, self.firstline, self.signature,
            names=dict(self.names), cellvars=list(self.cellvars),
            freevars=list(self.freevars), nvars=self.nvars,
        )
        for bid, b in self.blocks.items():
            out.blocks[bid] = Block(
                bid, list(b.args),
                [Statement(s.var, s.callee, list(s.args), list(s.kwargs), s.line, s.pure) for s in b.stmts],
                term(b.term), jump(b.handler),
            )
        return out

    def __str__(self) -> str:
        from .printer import print_ir

        return print_ir(self)


def const_repr(value: Any) -> str:
    """How a constant reads in printed IR: literals by ``repr``, functions,
    classes and modules by their qualified name."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    node_name = type(value).__name__
    if type(value).__module__.startswith("gast"):  # a nested scope kept as written
        return f"<def {value.name}>" if hasattr(value, "name") else f"<{node_name.lower()}>"
    if isinstance(value, types.ModuleType):
        return value.__name__
    qualname = getattr(value, "__qualname__", None)
    module = getattr(value, "__module__", None)
    if qualname is not None and callable(value):
        if module in (None, "builtins"):
            return qualname
        if module == "_operator":
            module = "operator"
        elif module == "zygote_py.ir.ops":
            module = "ops"
        return f"{module}.{qualname}"
    return repr(value)
