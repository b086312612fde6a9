"""The IR verifier: run after every pass in the tests.

Checks the invariants stated in :mod:`zygote_py.ir.core`: each variable is
defined once; every use is dominated by its definition (a jump's values are
used at the end of their block, an exception edge's values at its start);
jumps pass as many values as their target has arguments (an exception edge
one fewer: the handler's first argument is the exception); every block has a
terminator and every edge a target.
"""
from __future__ import annotations

from .cfg import dominates, immediate_dominators, reverse_postorder_of
from .core import IR, Const, Jump, Starred, Var


class IRError(Exception):
    """An IR broke an invariant: a bug in the compiler, never the user's."""


CHECK = False
"""When true (the test suite sets it), every pass of
:func:`zygote_py.ir.passes.optimize` and every transform verifies its
result."""


def checked(ir: IR, after: str) -> IR:
    """``ir``, verified when :data:`CHECK` is on."""
    if CHECK:
        try:
            verify(ir)
        except IRError as e:
            raise IRError(f"after {after}: {e}\n{ir}") from None
    return ir


def verify(ir: IR) -> None:
    if not ir.blocks:
        raise IRError(f"{ir.name}: no blocks")
    defined_in: dict[Var, int] = {}

    def define(v: Var, bid: int) -> None:
        if not isinstance(v, Var):
            raise IRError(f"block {bid}: {v!r} defined but not a variable")
        if v in defined_in:
            raise IRError(f"{v!r} defined twice (blocks {defined_in[v]} and {bid})")
        defined_in[v] = bid

    for b in ir.blocks.values():
        for a in b.args:
            define(a, b.id)
        for s in b.stmts:
            define(s.var, b.id)
        if b.term is None:
            raise IRError(f"block {b.id} has no terminator")
        for j in b.jumps():
            _check_edge(ir, b.id, j, len(j.args))
        if b.handler is not None:
            _check_edge(ir, b.id, b.handler, len(b.handler.args) + 1)

    idom = _split_dominators(ir)
    for b in ir.blocks.values():
        if _entry(b.id) not in idom:
            continue
        seen = set(b.args)

        def use(op, where: str, at_entry: bool = False) -> None:
            if isinstance(op, Const):
                return
            if not isinstance(op, Var):
                raise IRError(f"block {b.id}: bad operand {op!r} in {where}")
            if op not in defined_in:
                raise IRError(f"block {b.id}: {op!r} used in {where} but never defined")
            home = defined_in[op]
            if home == b.id:
                ok = op in b.args if at_entry else op in seen
            else:
                # a block argument is defined at the block's entry, a statement
                # in its body, which an exception edge leaves before it ran
                where_def = _entry(home) if op in ir.blocks[home].args else _body(home)
                ok = where_def in idom and dominates(idom, where_def, _entry(b.id))
            if not ok:
                raise IRError(f"block {b.id}: {op!r} used in {where} before its definition dominates it")

        if b.handler is not None:
            for a in b.handler.args:
                use(a, "exception edge", at_entry=True)
        for s in b.stmts:
            for a in s.args:
                if isinstance(a, Starred):
                    a = a.value
                use(a, f"statement {s.var!r}")
            use(s.callee, f"statement {s.var!r}")
            for _, v in s.kwargs:
                use(v, f"statement {s.var!r}")
            seen.add(s.var)
        for op in b.term_operands():
            use(op, type(b.term).__name__.lower())
        for j in b.jumps():
            for a in j.args:
                use(a, f"jump to {j.target}")


def _entry(bid: int) -> int:
    return 2 * bid


def _body(bid: int) -> int:
    return 2 * bid + 1


def _split_dominators(ir: IR) -> dict[int, int]:
    """Dominators of the CFG with each block split in two: its entry, where
    its arguments are bound and its exception edge leaves, and its body,
    where its statements run and its terminator's edges leave. So a value a
    protected block computes does not dominate its handler."""
    succ: dict[int, list[int]] = {}
    for b in ir.blocks.values():
        succ[_entry(b.id)] = [_body(b.id)] + ([_entry(b.handler.target)] if b.handler else [])
        succ[_body(b.id)] = [_entry(j.target) for j in b.jumps()]
    order = reverse_postorder_of(_entry(ir.entry.id), succ.__getitem__)
    preds: dict[int, list[int]] = {n: [] for n in order}
    for n in order:
        for s in dict.fromkeys(succ[n]):
            preds[s].append(n)
    return immediate_dominators(order, preds)


def _check_edge(ir: IR, src: int, j: Jump, arity: int) -> None:
    target = ir.blocks.get(j.target)
    if target is None:
        raise IRError(f"block {src} jumps to missing block {j.target}")
    if len(target.args) != arity:
        raise IRError(
            f"block {src} passes {arity} values to block {j.target},"
            f" which takes {len(target.args)}"
        )
