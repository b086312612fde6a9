"""Generic IR → IR passes. Each keeps the invariants of
:mod:`zygote_py.ir.verify` and changes no observable behaviour: a statement
is removed or evaluated early only when its callee is known to be pure and
unable to raise on the values it gets.
"""
from __future__ import annotations

import math
import operator
from collections import Counter
from typing import Any, Callable, Iterable, Optional

import numpy as np

from . import ops
from .cfg import predecessors, reverse_postorder
from .verify import checked
from .core import IR, Branch, Const, Jump, Operand, Starred, Statement, Var

PURE: set[Callable] = {ops.build_tuple, slice, ops.make_function}
"""Callees whose unused results may be dropped (given no starred argument:
unpacking runs arbitrary iterators)."""

FILLS: dict[Callable, int] = {np.full_like: 0}
"""Callees of two arguments returning a new array of the shape and dtype of
one, ``a``, filled with the other, ``s``, each with the position of ``a``
(``np.full_like(a, s)``; the runtime adds its ``spread(s, a)``, the
gradient of a sum): the fills :func:`fold_constants` fuses into a
product."""

_FOLDABLE: set[Callable] = {
    operator.add, operator.sub, operator.mul, operator.truediv,
    operator.floordiv, operator.mod, operator.pow, operator.neg, operator.pos,
    operator.invert, operator.not_, operator.lt, operator.le, operator.eq,
    operator.ne, operator.gt, operator.ge, operator.and_, operator.or_,
    operator.xor, operator.lshift, operator.rshift, ops.build_tuple, slice,
    operator.truth, math.log, math.log2, math.log10, math.sqrt, math.exp,
}
_SINGLETONS = (type(None), bool, type(Ellipsis))
"""Constants whose identity is their value: ``x is None`` on constants folds
(``1000 is 1000`` does not: int identity is the implementation's choice)."""
_LITERAL = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))


def member(value: Any, group: set) -> bool:
    """``value in group`` for values that may be unhashable (a callable
    object used as a constant)."""
    try:
        return value in group
    except TypeError:
        return False


def optimize(ir: IR) -> IR:
    """The standard clean-up pipeline, to a fixed point."""
    while True:
        before = size(ir)
        for p in (fold_constants, prune_unreachable, remove_trivial_args, merge_repeated, eliminate_dead_code,
                  merge_blocks):
            p(ir)
            checked(ir, p.__name__)
        if size(ir) == before:
            return ir


def use_counts(ir: IR, blocks: Optional[Iterable[int]] = None, handlers: bool = False) -> dict[Var, int]:
    """How many times each value is read, by statements, terminators and
    jumps (of ``blocks`` when given; and exception edges, with
    ``handlers``)."""
    reads: list = []
    for b in ir.blocks.values() if blocks is None else map(ir.blocks.__getitem__, blocks):
        if handlers and b.handler is not None:
            reads += b.handler.args
        for st in b.stmts:  # (st.operands(), without a generator: most passes ask for these counts)
            reads.append(st.callee)
            reads += st.args
            if st.kwargs:
                reads += [v for _, v in st.kwargs]
        reads += b.term_operands()
        for j in b.jumps():
            reads += j.args
    total: dict[Var, int] = {}
    for v, n in Counter(reads).items():  # (counted in C; a starred operand reads its value)
        if v.__class__ is Starred:
            v = v.value
        if v.__class__ is Var:
            total[v] = total.get(v, 0) + n
    return total


def size(ir: IR) -> tuple[int, int, int]:
    return (
        len(ir.blocks),
        sum(len(b.stmts) for b in ir.blocks.values()),
        sum(len(b.args) for b in ir.blocks.values()),
    )


def substitute(ir: IR, env: dict[Var, Operand], blocks: Optional[set[int]] = None) -> None:
    """Replace every use of a key of ``env`` by its value (followed
    transitively), in ``blocks`` when given, else everywhere."""
    if not env:
        return

    def sub(op):
        if isinstance(op, Starred):
            return Starred(sub(op.value))
        while isinstance(op, Var) and op in env:
            op = env[op]
        return op

    for b in ir.blocks.values():
        if blocks is not None and b.id not in blocks:
            continue
        for s in b.stmts:
            s.callee = sub(s.callee)
            s.args = [sub(a) for a in s.args]
            s.kwargs = [(k, sub(v)) for k, v in s.kwargs]
        t = b.term
        for name in ("value", "exc", "cause", "cond"):
            if getattr(t, name, None) is not None:
                setattr(t, name, sub(getattr(t, name)))
        for j in b.jumps() + ([b.handler] if b.handler else []):
            j.args = [sub(a) for a in j.args]


def _small(value: Any) -> bool:
    """A folded constant worth writing into the code (``1 << 100000`` or
    ``"ab" * 10**6`` stay computations)."""
    if isinstance(value, int):
        return value.bit_length() <= 128
    if isinstance(value, (str, bytes)):
        return len(value) <= 256
    if isinstance(value, tuple):
        return len(value) <= 256 and all(_small(v) for v in value)
    return True


def _is_literal(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_is_literal(v) for v in value)
    return isinstance(value, _LITERAL)


def _tuple_items(ir: IR) -> dict[Var, list[Operand]]:
    """The items of the tuple displays (``(x, y)``) and of the unpacks of
    one into as many values (``a, b = x, y``): a tuple's items never
    change."""
    stmts = [s for b in ir.blocks.values() for s in b.stmts if isinstance(s.callee, Const)]
    out = {s.var: list(s.args) for s in stmts
           if s.callee.value is ops.build_tuple and not any(isinstance(a, Starred) for a in s.args)}
    for s in stmts:
        if s.callee.value is ops.unpack and s.args[0] in out and isinstance(s.args[1], Const) \
                and s.args[1].value == len(out[s.args[0]]):
            out[s.var] = out[s.args[0]]
            s.pure = True  # (it cannot raise: the counts agree; dropped once its items are read directly)
            next(d for d in stmts if d.var == s.args[0]).pure = True  # (the display has no effect)
    return out


def fold_constants(ir: IR) -> None:
    """Evaluate pure operators on literal constants (``-1`` is lowered as
    ``operator.neg(1)``), and turn branches on constants into jumps."""
    env: dict[Var, Operand] = {}
    types_: dict[Var, tuple] = {}  # tuples of types built by the code: (int, float)
    tuples = _tuple_items(ir)
    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            args = [env.get(a, a) if isinstance(a, Var) else a for a in s.args]
            if fn is operator.getitem and len(args) == 2 and args[0] in tuples and isinstance(args[1], Const) \
                    and type(args[1].value) is int and -len(tuples[args[0]]) <= args[1].value < len(tuples[args[0]]):
                item = tuples[args[0]][args[1].value]  # a, b = x, y: a is x
                env[s.var] = env.get(item, item) if isinstance(item, Var) else item
                continue
            if fn is ops.build_tuple and args and all(isinstance(a, Const) and isinstance(a.value, type) for a in args):
                types_[s.var] = tuple(a.value for a in args)
            if fn is isinstance and not s.kwargs and len(args) == 2 and args[1] in types_:
                args[1] = Const(types_[args[1]])
            if fn is isinstance and not s.kwargs and len(args) == 2 and all(isinstance(a, Const) for a in args) and (
                _is_literal(args[0].value) and _is_type_spec(args[1].value)
            ):
                env[s.var] = Const(isinstance(args[0].value, args[1].value))
                continue
            if (
                (fn is operator.is_ or fn is operator.is_not) and len(args) == 2
                and all(isinstance(a, Const) for a in args)
                and any(isinstance(a.value, _SINGLETONS) for a in args)
            ):
                env[s.var] = Const((args[0].value is args[1].value) == (fn is operator.is_))
                continue
            if (
                member(fn, _FOLDABLE)
                and not s.kwargs
                and all(isinstance(a, Const) and _is_literal(a.value) for a in args)
            ):
                try:
                    value = fn(*(a.value for a in args))
                except Exception:
                    value = s
                if value is not s and _is_literal(value) and _small(value):
                    env[s.var] = Const(value)
                    continue
            kept.append(s)
        b.stmts = kept
    substitute(ir, env)
    _simplify_arithmetic(ir)
    called = {id(s.callee.value) for b in ir.blocks.values() for s in b.stmts if isinstance(s.callee, Const)}
    if any(id(f) in called for f in FILLS):
        fuse_fills(ir)
    if id(operator.neg) in called:
        _subtract_negations(ir)
        _cancel_negations(ir)
    for b in ir.blocks.values():
        t = b.term
        if isinstance(t, Branch) and isinstance(t.cond, Const) and _is_literal(t.cond.value):
            b.term = t.then if t.cond.value else t.orelse
        elif isinstance(t, Branch) and t.then.target == t.orelse.target and same_operands(t.then.args, t.orelse.args):
            b.term = t.then  # both ways lead to the same place with the same values


def same_operands(xs: list, ys: list) -> bool:
    """Operand lists that read the same values: the same variables, and
    constants that are one object or equal values of one type (``-0.0``
    is not ``0.0``)."""
    return len(xs) == len(ys) and all(
        x == y if isinstance(x, Var) or isinstance(y, Var)
        else isinstance(x, Const) and isinstance(y, Const) and _same_constant(x.value, y.value)
        for x, y in zip(xs, ys)
    )


def _same_constant(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        equal = a == b
    except Exception:
        return False
    return equal is True and repr(a) == repr(b)


def _is_type_spec(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(isinstance(v, type) for v in value)
    return isinstance(value, type)


_BOOLEAN = {
    operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, operator.not_,
    operator.and_, operator.or_, operator.xor, operator.invert, np.equal, np.not_equal, np.less, np.less_equal,
    np.greater, np.greater_equal, np.logical_and, np.logical_or, np.logical_not, np.logical_xor, np.isnan,
    np.isinf, np.isfinite, np.signbit,
}
"""Callees whose result may be a boolean (array), which ``1 * x`` and
``x + 0`` turn into integers."""


def _subtract_negations(ir: IR) -> None:
    """In compiler-made code, ``a + -b`` is ``a - b``."""
    uses = use_counts(ir)
    negs = {s.var: s for b in ir.blocks.values() for s in b.stmts
            if s.pure and isinstance(s.callee, Const) and s.callee.value is operator.neg and uses.get(s.var) == 1}
    for b in ir.blocks.values():
        for s in b.stmts:
            if s.pure and isinstance(s.callee, Const) and s.callee.value is operator.add and len(s.args) == 2 \
                    and s.args[1] in negs and not s.kwargs:
                neg = negs.pop(s.args[1])
                s.callee, s.args = Const(operator.sub), [s.args[0], neg.args[0]]


def _cancel_negations(ir: IR) -> None:
    """In compiler-made code, ``-(-a * b * c)`` is ``a * b * c``."""
    uses = use_counts(ir)
    defs = {s.var: s for b in ir.blocks.values() for s in b.stmts}

    def single(v: Any, fn: Any) -> Optional[Statement]:
        d = defs.get(v) if isinstance(v, Var) else None
        ok = d is not None and d.pure and isinstance(d.callee, Const) and d.callee.value is fn and not d.kwargs
        return d if ok and uses.get(v) == 1 else None

    env: dict[Var, Operand] = {}
    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            outer = s.pure and isinstance(s.callee, Const) and s.callee.value is operator.neg and len(s.args) == 1
            product = single(s.args[0], operator.mul) if outer else None
            while product is not None and single(product.args[0], operator.mul) is not None:
                product = single(product.args[0], operator.mul)
            inner = single(product.args[0], operator.neg) if product is not None else None
            if inner is not None:
                product.args[0] = inner.args[0]
                env[s.var] = s.args[0]
                del defs[s.var], defs[inner.var]  # (gone, and no longer read: neither cancels again)
                continue
            kept.append(s)
        b.stmts = kept
    substitute(ir, env)


_ELEMENTWISE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pow, np.conjugate}


def fuse_fills(ir: IR) -> bool:
    """In compiler-made code, ``np.full_like(a, s) * b`` (or another of
    :data:`FILLS`: the gradient of a sum, scaled by the derivative of what
    was summed) is ``b * s``, and ``np.full_like(a, s) / b`` is ``s / b``,
    when ``b``'s shape includes ``a``'s: one array made, not two. (Its
    dtype may differ where ``s`` is wider, which the ``unbroadcast`` to the
    operand's dtype undoes.) Returns whether it fused any, each fill then
    unused."""
    fills = {s.var: s for b in ir.blocks.values() for s in b.stmts
             if s.pure and isinstance(s.callee, Const) and member(s.callee.value, FILLS) and len(s.args) == 2
             and not any(isinstance(a, Starred) for a in s.args) and not s.kwargs}
    if not fills:
        return False
    uses = use_counts(ir)
    fills = {v: s for v, s in fills.items() if uses.get(v) == 1}
    fused = False
    defs = {s.var: s for b in ir.blocks.values() for s in b.stmts}

    stores: dict[str, list[Operand]] = {}  # (fused gradient code reads the forward's values from cells)
    for d in defs.values():
        if isinstance(d.callee, Const) and d.callee.value is ops.store_deref:
            stores.setdefault(d.args[0].value, []).append(d.args[1])
    params = dict(zip(ir.signature.names(), ir.entry.args))

    def value(v: Operand) -> Operand:
        """``v``, or the value stored in the cell ``v`` reads, stored once
        (a parameter's cell, never stored, holds the parameter)."""
        d = defs.get(v) if isinstance(v, Var) else None
        if d is not None and isinstance(d.callee, Const) and d.callee.value is ops.load_deref:
            cell = d.args[0].value
            if len(stores.get(cell, ())) == 1:
                return stores[cell][0]
            if cell not in stores and cell in params:
                return params[cell]
        return v

    def elementwise(v: Operand) -> Optional[Statement]:
        d = defs.get(v) if isinstance(v, Var) else None
        return d if d is not None and isinstance(d.callee, Const) and d.callee.value in _ELEMENTWISE \
            and not d.kwargs else None

    def covers(v: Operand, a: Operand) -> bool:
        """``v``'s shape includes ``a``'s: ``a`` itself, an elementwise
        operation of it, ``v`` the only array ``a`` was made of
        elementwise (``a = v * v``, ``a = 2.0 * v``), or both made so of
        one array (``a = u ** 2``, ``v = 2.0 * u``)."""
        v, a = value(v), value(a)
        d, e = elementwise(v), elementwise(a)
        return v == a or d is not None and a in map(value, d.args) or e is not None and all(
            value(x) == v or isinstance(x, Const) and type(x.value) in (int, float) for x in e.args) or \
            _made_of(e, value) is not None and _made_of(e, value) == _made_of(d, value)

    for b in ir.blocks.values():
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            if not (s.pure and (fn is operator.mul or fn is operator.truediv) and len(s.args) == 2):
                continue
            for i in (0, 1) if fn is operator.mul else (0,):
                fill, other = fills.get(s.args[i]), s.args[1 - i]
                k = FILLS[fill.callee.value] if fill is not None else 0
                if fill is not None and covers(other, fill.args[k]):
                    s.args = [other, fill.args[1 - k]] if fn is operator.mul else [fill.args[1 - k], other]
                    fill.pure = True
                    fused = True
                    break
    return _shapes_of_operands(ir, value, elementwise) or fused


def _made_of(e: Optional[Statement], value: Callable[[Operand], Operand]) -> Optional[Operand]:
    """The one array the elementwise arithmetic ``e`` is made of, with
    numbers only (``u * u``, ``2.0 * u``, ``u ** 2``), so that it has
    ``u``'s shape; not for what may join or repeat a list (``u + u``,
    ``u * 2``). Else None."""
    if e is None or any(isinstance(x, Starred) for x in e.args):
        return None
    numbers = [x for x in e.args if isinstance(x, Const)]
    arrays = {value(x) for x in e.args if not isinstance(x, Const)}
    if len(arrays) != 1 or any(type(x.value) not in (int, float) for x in numbers) or \
            e.callee.value is operator.add and not numbers or \
            e.callee.value is operator.mul and any(type(x.value) is int for x in numbers):
        return None
    return arrays.pop()


def _shapes_of_operands(ir: IR, value: Callable[[Operand], Operand],
                        elementwise: Callable[[Operand], Optional[Statement]]) -> bool:
    """``np.shape(a)`` of ``a = v * v`` (:func:`_made_of` ``v``) is
    ``np.shape(v)``, read from a value of ``v`` in sight there: a mean's
    gradient, its fill fused, then reads the product only for its size,
    and the product need not be kept. Returns whether it rewrote any."""
    rewrote = False
    for b in ir.blocks.values():
        seen: dict[Operand, Var] = {value(p): p for p in ir.entry.args}  # (a value in sight: a parameter, or made above)
        for s in b.stmts:
            if isinstance(s.callee, Const) and s.callee.value is np.shape and len(s.args) == 1 and not s.kwargs:
                v = _made_of(elementwise(value(s.args[0])), value)
                if v is not None and seen.get(v) is not None:
                    s.args = [seen[v]]
                    rewrote = True
            seen.setdefault(value(s.var), s.var)
    return rewrote


def _simplify_arithmetic(ir: IR) -> None:
    """In compiler-made (``pure``) arithmetic: ``x + 0``, ``0 + x``,
    ``x * 1``, ``1 * x`` and ``x ** 1`` are ``x`` (unless ``x`` may be a
    boolean, which they make an integer)."""
    env: dict[Var, Operand] = {}
    booleans = {s.var for b in ir.blocks.values() for s in b.stmts
                if isinstance(s.callee, Const) and member(s.callee.value, _BOOLEAN)}

    def is_(op, k):
        return isinstance(op, Const) and type(op.value) is int and op.value == k

    for b in ir.blocks.values():
        kept = []
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            a = [env.get(x, x) if isinstance(x, Var) else x for x in s.args]
            if s.pure and len(a) == 2 and not s.kwargs and not any(x in booleans for x in a):
                if fn is operator.add and is_(a[1], 0) or (fn is operator.mul or fn is operator.pow) and is_(a[1], 1):
                    env[s.var] = a[0]
                    continue
                if fn is operator.add and is_(a[0], 0) or fn is operator.mul and is_(a[0], 1):
                    env[s.var] = a[1]
                    continue
            kept.append(s)
        b.stmts = kept
    substitute(ir, env)


def prune_unreachable(ir: IR) -> None:
    """Drop blocks the entry cannot reach."""
    live = set(reverse_postorder(ir))
    for bid in [bid for bid in ir.blocks if bid not in live]:
        del ir.blocks[bid]


def remove_trivial_args(ir: IR) -> None:
    """Block-argument copy propagation: an argument that receives the same
    value on every incoming edge (ignoring itself) is that value. Handler
    blocks' exception arguments are never trivial. The replacements of a
    sweep over the blocks are substituted together."""
    preds = predecessors(ir)

    def resolve(v):
        while isinstance(v, Var) and v in env:
            v = env[v]
        return v

    while True:
        env: dict[Var, Operand] = {}
        for b in list(ir.blocks.values())[1:]:
            incoming = [j for p in preds[b.id] for j in _edges_to(ir.blocks[p], b.id)]
            for i in range(len(b.args) - 1, -1, -1):
                a = b.args[i]
                values = {}
                for j, handler in incoming:
                    if handler and i == 0:
                        values["exception"] = None
                        continue
                    v = resolve(j.args[i - 1] if handler else j.args[i])
                    if v != a:
                        values[v if isinstance(v, Var) else ("const", id(v.value))] = v
                if len(values) != 1 or "exception" in values:
                    continue
                (value,) = values.values()
                del b.args[i]
                for j, handler in incoming:
                    del j.args[i - 1 if handler else i]
                env[a] = value
        if not env:
            return
        substitute(ir, env)


def _edges_to(block, target: int) -> Iterable[tuple[Jump, bool]]:
    for j in block.jumps():
        if j.target == target:
            yield j, False
    if block.handler is not None and block.handler.target == target:
        yield block.handler, True


_MERGEABLE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos,
              operator.pow, operator.matmul, operator.getitem}
"""Operations that compute a value and change none of their operands."""


def merge_repeated(ir: IR) -> None:
    """Local common subexpressions: within a block, a compiler-made
    (``pure``) operation of :data:`_MERGEABLE` or :mod:`math` that repeats
    an earlier one, with no statement that may have an effect between them
    (``g[i] += v`` changes what ``g[i]`` reads), is that one's value
    (``dy * t + dy * t``). Only values that nothing could change in place
    are merged: those read by such operations and terminators alone."""
    def computes(s: Statement) -> bool:
        fn = s.callee.value if isinstance(s.callee, Const) else None
        return member(fn, _MERGEABLE) or getattr(fn, "__module__", None) == "math"

    escaping: set[Var] = set()
    for b in ir.blocks.values():
        for s in b.stmts:
            if not computes(s):
                escaping.update(v for v in s.operands() if isinstance(v, Var))
        for j in b.jumps():
            escaping.update(v for v in j.args if isinstance(v, Var))
    env: dict[Var, Operand] = {}
    for b in ir.blocks.values():
        seen: dict[tuple, Var] = {}
        for s in b.stmts:
            if not s.pure:
                seen.clear()
                continue
            if not computes(s) or s.kwargs or s.var in escaping or any(isinstance(a, Starred) for a in s.args):
                continue
            key = (id(s.callee.value), *(_operand_key(env.get(a, a) if isinstance(a, Var) else a) for a in s.args))
            if key in seen:
                env[s.var] = seen[key]
            else:
                seen[key] = s.var
    for b in ir.blocks.values():
        b.stmts = [s for s in b.stmts if s.var not in env]
    substitute(ir, env)


def _operand_key(op: Operand) -> Any:
    """What identifies an operand for :func:`merge_repeated`: a variable
    itself, a literal by type and ``repr`` (``-0.0`` is not ``0.0``), any
    other constant by identity."""
    if isinstance(op, Var):
        return op
    if type(op.value) in (int, float, complex, str, bool, type(None)):
        return type(op.value), repr(op.value)
    return "object", id(op.value)


def eliminate_dead_code(ir: IR) -> None:
    """Remove unused results of pure callees, and block arguments that no
    statement or terminator needs (also through other arguments)."""
    while True:
        live = _live_values(ir)
        changed = False
        for b in ir.blocks.values():
            keep = [s for s in b.stmts if s.var in live or not _droppable(s)]
            changed |= len(keep) != len(b.stmts)
            b.stmts = keep
        for b in list(ir.blocks.values())[1:]:
            for i in range(len(b.args) - 1, -1, -1):
                if b.args[i] in live or (i == 0 and _is_handler(ir, b.id)):
                    continue
                del b.args[i]
                for p in ir.blocks.values():
                    for j, handler in _edges_to(p, b.id):
                        del j.args[i - 1 if handler else i]
                changed = True
        if not changed:
            return


def _live_values(ir: IR) -> set[Var]:
    """Values needed by an effect: read by a terminator or by a statement
    that is kept (not a droppable pure one), or passed to a block argument
    or into a kept statement that is itself needed (a fixed point, so dead
    values feeding each other around a loop are not kept)."""
    sources: dict[Var, list[Operand]] = {}
    for b in ir.blocks.values():
        edges = [(j, False) for j in b.jumps()]
        if b.handler is not None:
            edges.append((b.handler, True))
        for j, handler in edges:
            target = ir.blocks[j.target]
            params = target.args[1:] if handler else target.args
            for p, v in zip(params, j.args):
                sources.setdefault(p, []).append(v)
    live: set[Var] = set()
    work: list[Var] = []
    for b in ir.blocks.values():
        for s in b.stmts:
            operands = [v for v in s.operands() if isinstance(v, Var)]
            if _droppable(s):
                sources.setdefault(s.var, []).extend(operands)
            else:
                work += operands
        work += [v for v in b.term_operands() if isinstance(v, Var)]
    while work:
        v = work.pop()
        if v in live:
            continue
        live.add(v)
        work += [x for x in sources.get(v, ()) if isinstance(x, Var) and x not in live]
    return live


def _droppable(s) -> bool:
    """A statement removed when its result is unused."""
    return s.pure or (
        isinstance(s.callee, Const)
        and member(s.callee.value, PURE)
        and not any(isinstance(a, Starred) for a in s.args)
    )


def _is_handler(ir: IR, bid: int) -> bool:
    return any(b.handler is not None and b.handler.target == bid for b in ir.blocks.values())


def merge_blocks(ir: IR) -> None:
    """Jump threading and block merging: an empty block that only jumps on
    is bypassed; a block whose single predecessor jumps to it
    unconditionally is appended to it, unless either is protected by an
    exception handler (a handler sees the values at its block's entry, so
    merging would change what it sees)."""
    while _thread(ir) | _merge(ir):
        pass


def _thread(ir: IR) -> bool:
    """One sweep of jump threading; whether any block was bypassed."""
    handlers = {b.handler.target for b in ir.blocks.values() if b.handler}
    readers: Optional[dict[Var, set[tuple[str, int]]]] = None
    changed = False
    for b in list(ir.blocks.values())[1:]:
        if b.stmts or not isinstance(b.term, Jump) or b.term.target == b.id or b.id in handlers:
            continue
        if b.args:
            readers = _readers(ir) if readers is None else readers
            if any(readers.get(a, set()) - {("jump", b.id)} for a in b.args):
                continue  # an argument read anywhere but in this block's own jump
        t = b.term
        for p in ir.blocks.values():
            for j in p.jumps():
                if j.target == b.id:
                    env = dict(zip(b.args, j.args))
                    j.target = t.target
                    j.args = [env.get(a, a) if isinstance(a, Var) else a for a in t.args]
                    if readers is not None:  # (now read in p's jump too)
                        for v in j.args:
                            if isinstance(v, Var):
                                readers.setdefault(v, set()).add(("jump", p.id))
        del ir.blocks[b.id]
        changed = True
    return changed


def _readers(ir: IR) -> dict[Var, set[tuple[str, int]]]:
    """Where each value is read: ``("jump", b)`` for the jumps of block
    ``b``, ``("block", b)`` for anything else in it."""
    out: dict[Var, set[tuple[str, int]]] = {}
    for b in ir.blocks.values():
        ops_ = [v for s in b.stmts for v in s.operands()]
        ops_ += b.term_operands()
        if b.handler is not None:
            ops_ += b.handler.args
        for v in ops_:
            if isinstance(v, Var):
                out.setdefault(v, set()).add(("block", b.id))
        for j in b.jumps():
            for v in j.args:
                if isinstance(v, Var):
                    out.setdefault(v, set()).add(("jump", b.id))
    return out


def _merge(ir: IR) -> bool:
    """One sweep of block merging (the arguments substituted once, at the
    end); whether any block was merged."""
    preds = predecessors(ir)
    into: dict[int, int] = {}  # a merged block → the block it was appended to

    def home(bid: int) -> int:
        while bid in into:
            bid = into[bid]
        return bid

    env: dict[Var, Operand] = {}
    for b in list(ir.blocks.values())[1:]:
        if len(preds[b.id]) != 1:
            continue
        p = ir.blocks[home(preds[b.id][0])]
        if p.id != b.id and isinstance(p.term, Jump) and p.term.target == b.id and p.handler is None \
                and b.handler is None:
            env.update(zip(b.args, p.term.args))
            p.stmts += b.stmts
            p.term = b.term
            del ir.blocks[b.id]
            into[b.id] = p.id
    substitute(ir, env)
    return bool(into)


def hoist_invariants(ir: IR) -> None:
    """Loop-invariant code motion for compiler-made (``pure``) statements
    that make immutable values (see :func:`_hoistable`): one whose
    operands are all defined outside a natural loop moves to the
    loop's preheader (the single predecessor outside it, when that block
    just jumps to the header), before a final ``iter(...)`` that a ``for``
    statement takes. Used on pullbacks, where a rule's ``math.cos(x)`` of
    an invariant ``x`` would otherwise run on every reverse iteration."""
    from .cfg import natural_loops

    preds = predecessors(ir)
    home = {a: b.id for b in ir.blocks.values() for a in b.args}
    home.update({s.var: b.id for b in ir.blocks.values() for s in b.stmts})
    loops = sorted(natural_loops(ir).items(), key=lambda item: -len(item[1]))
    for header, body in loops:
        outside = [p for p in preds[header] if p not in body]
        if len(outside) != 1 or not isinstance(ir.blocks[outside[0]].term, Jump):
            continue
        pre = ir.blocks[outside[0]]
        moved = True
        while moved:
            moved = False
            for bid in sorted(body):
                b = ir.blocks[bid]
                for s in list(b.stmts):
                    if not (s.pure and _hoistable(s)) or any(
                        isinstance(v, Var) and home.get(v) in body for v in s.operands()
                    ):
                        continue
                    b.stmts.remove(s)
                    pre.stmts.insert(_before_for_iterable(pre), s)
                    home[s.var] = pre.id
                    moved = True


_TOTAL = {math.tanh, math.atan, math.erf, math.erfc, math.fabs, isinstance}
"""Functions that make an immutable value and raise for no number, so
computing them once before a loop — even one that runs no iteration, even
where a branch inside the loop would have skipped them — changes nothing.
(Not arithmetic: ``[None] * n`` makes a list that code may change, and
``1 / x`` may raise; not ``math.log``, ``math.exp``, nor ``math.sin`` and
``math.cos``, which raise for infinity.)"""


def _hoistable(s) -> bool:
    return isinstance(s.callee, Const) and member(s.callee.value, _TOTAL)


def _before_for_iterable(block) -> int:
    """Where to add a statement to a block so that a final
    ``iter(make())`` stays last, with what it iterates just before it."""
    at = len(block.stmts)
    last = block.stmts[-1] if block.stmts else None
    if last is not None and isinstance(last.callee, Const) and last.callee.value is iter:
        at -= 1
        if at and last.args and block.stmts[at - 1].var == last.args[0]:
            at -= 1
    return at
