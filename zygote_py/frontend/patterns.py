"""Lowering of ``match`` statements (PEP 634) to tests and branches.

A ``match`` is what an ``if/elif`` chain over its subject would be: the
subject is evaluated once, then each ``case`` in turn tests its pattern with
ordinary calls (``isinstance``, ``len``, ``==``, ``is``, ``in``, ``hasattr``)
and reads the parts it captures with ordinary calls (``x[i]``,
``getattr(x, name)``, ``x[k]``), so that the AD differentiates a capture
through the rule of the read that made it, as if the user had written the
chain. A pattern's captures are bound once all of it has matched, before
its guard (which sees them, as in Python; they stay bound when the guard
fails).

The tests are Python's: a sequence pattern matches a
``collections.abc.Sequence`` that is not a ``str``, ``bytes`` or
``bytearray`` (so not a NumPy array) of the right length; a mapping pattern
a ``collections.abc.Mapping`` holding each key; a class pattern an
instance whose attributes exist (``hasattr``), positional sub-patterns
naming the attributes of the class's ``__match_args__`` (read at run time
by ``ops.match_args``),
but the one positional sub-pattern of ``bool bytearray bytes dict float
frozenset int list set str tuple`` (the builtin, not a name of the
module's) matches the subject itself. A mapping pattern's ``**rest`` is
refused with ``UnsupportedSyntax``.
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import gast

from zygote_py.ir import ops
from zygote_py.ir.core import Block, Const, Operand

if TYPE_CHECKING:
    from .lower import _Lowerer

_NOT_SEQUENCES = (str, bytes, bytearray)
_SELF_MATCHING = {"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"}
"""Builtin classes whose one positional sub-pattern matches the subject itself."""

Bindings = list[tuple[str, Operand]]


def lower_match(lowerer: "_Lowerer", node: gast.Match) -> None:
    """Lower ``node`` in ``lowerer``'s current block (see the module docstring)."""
    subject = lowerer._expr(node.subject)
    after = lowerer._new_block()
    for case in node.cases:
        lowerer.line = case.pattern.lineno
        body = lowerer._new_block()
        nxt = lowerer._new_block()
        _Case(lowerer, nxt).match(case.pattern, subject, bind=True)
        if case.guard is not None:
            lowerer._condition(case.guard, body, nxt, case.guard.lineno)
        else:
            lowerer._jump(body)
        lowerer._start(body)
        lowerer._stmts(case.body)
        lowerer._jump(after)
        lowerer._start(nxt)
        if lowerer.block is None:
            break  # (an irrefutable case: no later one runs)
    lowerer._jump(after)
    lowerer._start(after)


class _Case:
    """Emits one pattern's tests: each failing test branches to ``fail``."""

    def __init__(self, lowerer: "_Lowerer", fail: Block):
        self.low = lowerer
        self.fail = fail

    def call(self, fn, *args: Operand) -> Operand:
        return self.low._emit(fn, list(args), line=self.low.line)

    def require(self, cond: Operand) -> None:
        """Continue where ``cond`` is true; branch to ``fail`` where not."""
        ok = self.low._new_block()
        self.low._branch(cond, ok, self.fail, line=self.low.line)
        self.low._start(ok)

    def match(self, pattern: gast.AST, subject: Operand, bind: bool) -> Bindings:
        """Test ``pattern`` against ``subject``; its captures, stored when
        ``bind`` (else returned, for the enclosing pattern to bind once all
        of it has matched)."""
        method = getattr(self, "_" + type(pattern).__name__, None)
        if method is None:
            raise self.low._unsupported(f"the pattern {type(pattern).__name__}", pattern.lineno)
        self.low.line = pattern.lineno
        captures = method(pattern, subject)
        if bind:
            self.store(captures)
            return []
        return captures

    def store(self, captures: Bindings) -> None:
        for name, value in captures:
            self.low._store(name, value, self.low.line)

    def _MatchValue(self, p: gast.MatchValue, subject: Operand) -> Bindings:
        self.require(self.call(operator.eq, subject, self.low._expr(p.value)))
        return []

    def _MatchSingleton(self, p: gast.MatchSingleton, subject: Operand) -> Bindings:
        self.require(self.call(operator.is_, subject, Const(p.value)))
        return []

    def _MatchAs(self, p: gast.MatchAs, subject: Operand) -> Bindings:
        captures = [] if p.pattern is None else self.match(p.pattern, subject, bind=False)
        return captures + ([] if p.name is None else [(p.name, subject)])

    def _MatchOr(self, p: gast.MatchOr, subject: Operand) -> Bindings:
        matched = self.low._new_block()
        outer = self.fail
        for i, alternative in enumerate(p.patterns):
            self.fail = outer if i == len(p.patterns) - 1 else self.low._new_block()
            self.match(alternative, subject, bind=True)  # (each alternative binds the same names)
            self.low._jump(matched)
            if self.fail is not outer:
                self.low._start(self.fail)
        self.fail = outer
        self.low._start(matched)
        return []

    def _MatchSequence(self, p: gast.MatchSequence, subject: Operand) -> Bindings:
        self.require(self.call(isinstance, subject, Const(Sequence)))
        self.require(self.call(operator.not_, self.call(isinstance, subject, Const(_NOT_SEQUENCES))))
        star = next((i for i, q in enumerate(p.patterns) if isinstance(q, gast.MatchStar)), None)
        n = len(p.patterns) if star is None else len(p.patterns) - 1
        size = self.call(len, subject)
        self.require(self.call(operator.eq if star is None else operator.ge, size, Const(n)))
        captures: Bindings = []
        for i, q in enumerate(p.patterns):
            if i == star:
                if q.name is not None:
                    after = len(p.patterns) - 1 - i
                    part = self.call(slice, Const(i), Const(-after if after else None), Const(None))
                    captures.append((q.name, self.call(list, self.call(operator.getitem, subject, part))))
                continue
            index = i if star is None or i < star else i - len(p.patterns)
            captures += self.match(q, self.call(operator.getitem, subject, Const(index)), bind=False)
        return captures

    def _MatchMapping(self, p: gast.MatchMapping, subject: Operand) -> Bindings:
        if p.rest is not None:
            raise self.low._unsupported(
                "'**rest' in a mapping pattern", p.lineno, hint="read the other keys from the subject itself")
        self.require(self.call(isinstance, subject, Const(Mapping)))
        keys = [self.low._expr(k) for k in p.keys]
        for key in keys:
            self.require(self.call(ops.contains, key, subject))
        captures: Bindings = []
        for key, q in zip(keys, p.patterns):
            captures += self.match(q, self.call(operator.getitem, subject, key), bind=False)
        return captures

    def _MatchClass(self, p: gast.MatchClass, subject: Operand) -> Bindings:
        cls = self.low._expr(p.cls)
        self.require(self.call(isinstance, subject, cls))
        captures: Bindings = []
        if self._self_matching(p.cls) and len(p.patterns) == 1:
            captures += self.match(p.patterns[0], subject, bind=False)
        elif p.patterns:
            names = self.call(ops.match_args, cls, Const(len(p.patterns)))
            for i, q in enumerate(p.patterns):
                name = self.call(operator.getitem, names, Const(i))
                self.require(self.call(hasattr, subject, name))
                captures += self.match(q, self.call(getattr, subject, name), bind=False)
        for name, q in zip(p.kwd_attrs, p.kwd_patterns):
            self.require(self.call(hasattr, subject, Const(name)))
            captures += self.match(q, self.call(getattr, subject, Const(name)), bind=False)
        return captures

    def _self_matching(self, cls: gast.expr) -> bool:
        return (isinstance(cls, gast.Name) and cls.id in _SELF_MATCHING
                and self.low._resolve(cls.id)[0] == "global" and hasattr(builtins, cls.id))
