"""Helpers for the IR tests: terse constructors for hand-built IRs, the pow
IR of DESIGN.md, and a small interpreter that serves as the behavioural
oracle (an IR must compute the same before and after a pass)."""
from __future__ import annotations

import builtins
import operator
from typing import Any, Callable, Iterable, Optional, Union

from zygote_py.ir import ops
from zygote_py.ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Starred, Statement, Var
from zygote_py.ir.printer import print_ir


def v(i: int) -> Var:
    return Var(i)


def c(value: Any) -> Const:
    return Const(value)


def call(
    var: int,
    fn: Callable,
    *args: Union[Operand, Starred],
    pure: bool = False,
    kwargs: Iterable[tuple[Optional[str], Operand]] = (),
) -> Statement:
    """``%var = fn(args...)`` with a constant callee."""
    return Statement(Var(var), Const(fn), list(args), list(kwargs), pure=pure)


def jump(target: int, *args: Operand) -> Jump:
    return Jump(target, list(args))


def branch(cond: Operand, then: Jump, orelse: Jump) -> Branch:
    return Branch(cond, then, orelse)


def block(
    bid: int,
    args: Iterable[int] = (),
    stmts: Iterable[Statement] = (),
    term: Any = None,
    handler: Optional[Jump] = None,
) -> Block:
    return Block(bid, [Var(a) for a in args], list(stmts), term, handler)


def make_ir(*blocks: Block, names: Optional[dict[int, str]] = None, name: str = "f") -> IR:
    """An IR of ``blocks`` in the order given (the first is the entry);
    ``nvars`` covers every variable used, so ``new_var`` stays fresh."""
    ir = IR(name, filename="hand.py")
    for b in blocks:
        ir.blocks[b.id] = b
    ir.names = {Var(i): n for i, n in (names or {}).items()}
    ir.nvars = max((x.id for x in _all_vars(ir)), default=0)
    return ir


def _all_vars(ir: IR) -> Iterable[Var]:
    for b in ir.blocks.values():
        yield from b.args
        for s in b.stmts:
            yield s.var
            yield from (o for o in s.operands() if isinstance(o, Var))


def pow_ir(names: bool = False) -> IR:
    """DESIGN.md's ``pow(x, n)``, block for block::

        1: (%1, %2)
          br 2 (1.0, %2)
        2: (%3, %4)
          %5 = operator.gt(%4, 0)
          br 4 unless %5
          br 3
        3:
          %6 = operator.sub(%4, 1)
          %7 = operator.mul(%3, %1)
          br 2 (%7, %6)
        4:
          return %3
    """
    return make_ir(
        block(1, [1, 2], term=jump(2, c(1.0), v(2))),
        block(
            2, [3, 4],
            [call(5, operator.gt, v(4), c(0))],
            branch(v(5), jump(3), jump(4)),
        ),
        block(
            3, [],
            [call(6, operator.sub, v(4), c(1)), call(7, operator.mul, v(3), v(1))],
            jump(2, v(7), v(6)),
        ),
        block(4, [], term=Return(v(3))),
        names={1: "x", 2: "n", 3: "r", 4: "n", 6: "n", 7: "r"} if names else None,
        name="pow",
    )


class StepLimit(Exception):
    """The interpreter ran more blocks than allowed (a non-terminating IR)."""


def interpret(ir: IR, *args: Any, limit: int = 10_000) -> tuple:
    """Run ``ir`` on ``args``: ``("returned", value)`` or ``("raised", type,
    args)``. Globals are Python's builtins; an exception raised in a
    protected block takes its exception edge with the values at the
    block's entry."""
    values: dict[Var, Any] = {}

    def get(op: Operand) -> Any:
        return op.value if isinstance(op, Const) else values[op]

    b, incoming = ir.entry, list(args)
    for _ in range(limit):
        values.update(zip(b.args, incoming))
        try:
            for s in b.stmts:
                values[s.var] = _run(s, get)
            t = b.term
            if isinstance(t, Branch):
                t = t.then if get(t.cond) else t.orelse
            if isinstance(t, Jump):
                b, incoming = ir.blocks[t.target], [get(a) for a in t.args]
            elif isinstance(t, Return):
                return ("returned", get(t.value))
            elif isinstance(t, Raise):
                if t.cause is None:
                    raise get(t.exc)
                raise get(t.exc) from get(t.cause)
        except Exception as e:  # the exception is the behaviour under test
            if b.handler is None:
                return ("raised", type(e), e.args)
            b, incoming = ir.blocks[b.handler.target], [e] + [get(a) for a in b.handler.args]
    raise StepLimit(f"{ir.name} ran {limit} blocks")


def _run(s: Statement, get: Callable[[Operand], Any]) -> Any:
    fn = get(s.callee)
    if fn is ops.load_global:
        return getattr(builtins, get(s.args[0]))
    args: list[Any] = []
    for a in s.args:
        if isinstance(a, Starred):
            args.extend(get(a.value))
        else:
            args.append(get(a))
    kwargs: dict[str, Any] = {}
    for k, val in s.kwargs:
        if k is None:
            kwargs.update(get(val))
        else:
            kwargs[k] = get(val)
    return fn(*args, **kwargs)


def blocks_text(ir: IR) -> str:
    """The printed blocks of ``ir``, without the printer's heading comment
    (the tests of passes compare code, not headings)."""
    lines = print_ir(ir).splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "".join(lines)


def statements(ir: IR) -> list[Statement]:
    return [s for b in ir.blocks.values() for s in b.stmts]


def callees(ir: IR) -> list[Any]:
    return [s.callee.value for s in statements(ir) if isinstance(s.callee, Const)]
