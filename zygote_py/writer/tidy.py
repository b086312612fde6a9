"""Rewrites that make an emitted gradient read like one written by hand,
each computing what the compiler's code computes (``zpy emit``; issue 35's
line target: ``examples/regression.py``'s ``loss_gradient``).

- ``if real_matrices(...): fast else: general`` (the matrix product's
  rule) keeps only the general ``matmul_grad`` calls: the same gradient
  for every operand, without a fast path a reader has to check.
- ``a, t = (e1, e2)`` in a function's body, ``t`` read once after it, by
  the next statement, is ``a = e1`` with ``e2`` there (``dx = matmul_grad(
  ...)``, ``dw = dw + matmul_grad(...)``), when ``e2`` reads no ``a`` and the
  fold is made as below.
- ``t = NAME`` of a module-level value read once more under another name
  (``t_3 = L2``) reads ``NAME`` itself.
- ``y = expr`` then ``dy = seed(y)`` (a fused gradient's output) is
  ``dy = seed(expr)``.
- ``if c: ...; path = 0 else: path = 1`` (a branch record) is
  ``path = 1`` then ``if c: ...; path = 0``; outside loops, where the
  record is only compared with those constants, ``path = c`` then ``if
  path: ...`` (and ``path == 0`` is ``path``, ``path == 1`` ``not path``).
- ``if c: ...; a = expr; ...; v_1 = a`` (a value of ``v`` on one path
  only, copied to the name the paths share), outside loops, is ``v_1 =
  expr`` with ``a`` read as ``v_1``, which nothing assigns again; and
  ``v_1`` is named ``v`` where that name is free.
- ``t = expr`` read once, by the next statement, where nothing but names
  and attributes would be read before it (``t = x @ w`` then ``y =
  np.tanh(t + b)``), is that expression there (``y = np.tanh(x @ w + b)``),
  when the line stays short: the same operations in the same order.
"""
from __future__ import annotations

import ast
import re
from typing import Any, Callable

from .. import runtime
from ..rules import numpy_linalg


def tidy(fdef: ast.FunctionDef) -> None:
    """Rewrite ``fdef``, whose reads of zygote_py's helpers are
    placeholders carrying them (``constant``), in place (see the module's
    docstring)."""
    def helper(value: Any) -> Callable[[ast.expr], bool]:
        return lambda func: getattr(func, "constant", None) is value

    fast_path, seed = helper(numpy_linalg.real_matrices), helper(runtime.seed)
    reads = _reads([fdef])
    for n in ast.walk(fdef):
        for field in ("body", "orelse"):
            body = getattr(n, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(n, field, _block(body, fast_path, seed, reads))
    for f in [n for n in ast.walk(fdef) if isinstance(n, ast.FunctionDef)]:
        _split_pairs(f.body)
    _aliases(fdef)
    _shared_values(fdef)
    _boolean_records(fdef)
    ast.fix_missing_locations(fdef)


def _block(body: list[ast.stmt], fast_path: Callable, seed: Callable, reads: dict[str, int]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for st in body:
        if isinstance(st, ast.If) and isinstance(st.test, ast.Call) and fast_path(st.test.func) and st.orelse:
            out += st.orelse  # (matmul_grad: the gradient for any operands)
            continue
        record = _record(st)
        if record is not None:
            out.append(record)
            st.orelse = []
        if out and isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and seed(st.value.func) and \
                len(st.value.args) == 1 and isinstance(st.value.args[0], ast.Name) and _assigns(out[-1]) == \
                st.value.args[0].id and reads.get(st.value.args[0].id) == 1:
            st.value.args[0] = out.pop().value  # (the output, computed where it is seeded)
        elif out and isinstance(st, (ast.Assign, ast.Return)) and st.value is not None and _fold(out[-1], st, reads):
            out.pop()
        out.append(st)
    return out


_LINE = 100
"""The longest line a folded expression may make (``_fold``)."""


def _fold(first: ast.stmt, then: ast.Assign | ast.Return, reads: dict[str, int]) -> bool:
    """Put the value of ``first`` (``t = expr``) in place of the one read of
    ``t``, in ``then``'s value, if that read is the only one and only names,
    attributes and constants are evaluated before it there; whether it
    did."""
    name = _assigns(first)
    if name is None or reads.get(name) != 1:
        return False
    path = _path_to(then.value, name)
    if path is None:
        return False
    before = _evaluated_before(then.value, path)  # (an assignment's targets come after its value)
    path = [then, *path]  # (the value may be the read itself: return t)
    if not all(isinstance(n, (ast.Name, ast.Attribute, ast.Constant, ast.expr_context, ast.operator, ast.unaryop,
                              ast.cmpop, ast.boolop, ast.keyword)) for n in before):
        return False
    parent, read = path[-2], path[-1]
    value = first.value  # (ast.unparse puts the parentheses precedence needs)
    for field, old in ast.iter_fields(parent):
        if old is read:
            setattr(parent, field, value)
        elif isinstance(old, list) and any(v is read for v in old):
            setattr(parent, field, [value if v is read else v for v in old])
    if len(ast.unparse(then)) + 8 > _LINE:
        for field, new in ast.iter_fields(parent):  # (too long: as it was)
            if new is value:
                setattr(parent, field, read)
            elif isinstance(new, list) and any(v is value for v in new):
                setattr(parent, field, [read if v is value else v for v in new])
        return False
    return True


def _path_to(node: ast.AST, name: str) -> list[ast.AST] | None:
    """The nodes from ``node`` down to its read of ``name``."""
    if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
        return [node]
    if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
        return None  # (read later, or many times)
    for child in ast.iter_child_nodes(node):
        path = _path_to(child, name)
        if path is not None:
            return [node, *path]
    return None


def _evaluated_before(node: ast.AST, path: list[ast.AST]) -> list[ast.AST]:
    """The nodes under ``node`` that Python evaluates before the last node
    of ``path`` (children left to right), other than its ancestors."""
    out: list[ast.AST] = []
    for parent, child in zip(path, path[1:]):
        for c in ast.iter_child_nodes(parent):
            if c is child:
                break
            out += list(ast.walk(c))
    return out


def _assigns(st: ast.stmt) -> str | None:
    """The one name ``st`` assigns (``name = expression``), if it is one."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return st.targets[0].id
    return None


def _reads(nodes: list[ast.AST]) -> dict[str, int]:
    """How many times ``nodes`` read each name."""
    out: dict[str, int] = {}
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out[n.id] = out.get(n.id, 0) + 1
    return out


def _record(st: ast.stmt) -> ast.stmt | None:
    """``name = constant`` when ``st`` is ``if c: ...; name = k else: name =
    constant`` (neither the test nor the body reading ``name``): the
    assignment that can go before it, the ``else`` dropped."""
    if not isinstance(st, ast.If) or len(st.orelse) != 1:
        return None
    other = st.orelse[0]
    name = _assigns(other)
    if name is None or not isinstance(other.value, ast.Constant) or name in _reads([st.test, *st.body]) or not any(
            _assigns(b) == name and isinstance(b.value, ast.Constant) for b in st.body):
        return None
    return other


def _aliases(fdef: ast.FunctionDef) -> None:
    """``t = NAME`` (a module-level value, ``t`` assigned nowhere else):
    ``t`` read as ``NAME``, the assignment dropped."""
    stores: dict[str, int] = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, ast.arg):  # (a parameter: not a module-level value)
            stores[n.arg] = 2
    aliases = {}
    for n in ast.walk(fdef):
        for field in ("body", "orelse"):
            body = getattr(n, field, None)
            if not isinstance(body, list):
                continue
            for st in body:
                name = _assigns(st) if isinstance(st, ast.stmt) else None
                if name is not None and stores.get(name) == 1 and isinstance(st.value, ast.Name) and \
                        st.value.id not in stores and not hasattr(st.value, "constant"):
                    aliases[name] = st.value.id
    if not aliases:
        return
    for n in ast.walk(fdef):
        for field in ("body", "orelse"):
            body = getattr(n, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(n, field, [st for st in body if _assigns(st) not in aliases or not isinstance(
                    st.value, ast.Name)] or [ast.Pass()])
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in aliases:
            n.id = aliases[n.id]


def _split_pairs(body: list[ast.stmt]) -> None:
    """``a, t = (e1, e2)`` then a statement reading ``t``, the only read of
    it in what follows in ``body`` (a function's: nothing else runs after
    it), ``e2`` not reading ``a``: ``a = e1`` and ``e2`` folded into that
    statement (see :func:`_fold`)."""
    i = 0
    while i + 1 < len(body):
        st, then = body[i], body[i + 1]
        pair = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else None
        if isinstance(pair, ast.Tuple) and isinstance(st.value, ast.Tuple) and len(pair.elts) == len(
                st.value.elts) == 2 and all(isinstance(t, ast.Name) for t in pair.elts) and isinstance(
                then, (ast.Assign, ast.Return)) and then.value is not None:
            (a, t), (e1, e2) = [n.id for n in pair.elts], st.value.elts
            later = _reads(body[i + 1:]).get(t, 0)
            if a != t and later == 1 and _reads([then.value]).get(t) == 1 and a not in _reads([e2]) and _fold(
                    ast.Assign(targets=[ast.Name(id=t, ctx=ast.Store())], value=e2), then, {t: 1}):
                body[i] = ast.copy_location(ast.Assign(targets=[pair.elts[0]], value=e1), st)
        i += 1


def _stores(node: ast.AST) -> dict[str, int]:
    """How many times ``node`` (and the functions in it) assign each name;
    a parameter counts twice (it is assigned by the call)."""
    out: dict[str, int] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out[n.id] = out.get(n.id, 0) + 1
        elif isinstance(n, ast.arg):
            out[n.arg] = 2
    return out


def _shared_values(fdef: ast.FunctionDef) -> None:
    """``if c: ...; a = expr; ...; v_1 = a`` in ``fdef``'s own body (no
    loop around it), ``a`` assigned nowhere else, ``v_1`` only there and
    before it (or in its ``else``), by no nested function, and not read
    between the two: ``v_1 = expr``, every
    read of ``a`` a read of ``v_1`` (which holds ``a``'s value wherever
    ``a`` was set), then ``v_1`` named ``v`` if that name is free."""
    for k, st in enumerate(fdef.body):
        if not isinstance(st, ast.If):
            continue
        for i, copy in enumerate(st.body):
            shared, value = _assigns(copy), getattr(copy, "value", None)
            if shared is None or not isinstance(value, ast.Name):
                continue
            stores, a = _stores(fdef), value.id
            source = next((j for j, b in enumerate(st.body[:i]) if _assigns(b) == a), None)
            nested = [n for n in ast.walk(fdef) if isinstance(n, ast.FunctionDef) and n is not fdef]
            if source is None or stores.get(a) != 1 or stores.get(shared) != 2 or shared in _reads(
                    st.body[source + 1:i]) or any(shared in _stores(n) for n in nested) or any(
                    shared in _stores(b) for b in fdef.body[k + 1:]):
                continue  # (the other value of shared set after the if, or a nested function's own shared)
            st.body[source].targets[0].id = shared
            del st.body[i]
            for n in ast.walk(fdef):
                if isinstance(n, ast.Name) and n.id == a:
                    n.id = shared
            base = re.sub(r"_\d+$", "", shared)
            if base != shared and base not in stores and base not in _reads([fdef]) or base == a:
                for n in ast.walk(fdef):
                    if isinstance(n, ast.Name) and n.id == shared:
                        n.id = base
            break


def _boolean_records(fdef: ast.FunctionDef) -> None:
    """``path = k1`` then ``if c: ...; path = k0`` in ``fdef``'s own body
    (no loop around it), ``path`` assigned nowhere else and read only as
    ``path == k0`` or ``path == k1``: ``path = c``, ``if path:``, the
    comparisons ``path`` and ``not path``."""
    for before, st in zip(fdef.body, fdef.body[1:]):
        name = _assigns(before)
        if name is None or not isinstance(st, ast.If) or not isinstance(before.value, ast.Constant) or \
                _stores(fdef).get(name) != 2:
            continue
        inside = [b for b in st.body if _assigns(b) == name and isinstance(b.value, ast.Constant)]
        if len(inside) != 1 or name in _reads([st.test]):
            continue
        taken, other = inside[0].value.value, before.value.value
        compared = [n for n in ast.walk(fdef) if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name)
                    and n.left.id == name and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq)
                    and isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value in (taken, other)]
        if taken == other or _reads([fdef]).get(name) != len(compared):
            continue
        tests = {id(n): n.comparators[0].value == taken for n in compared}
        before.value, st.test = st.test, ast.Name(id=name, ctx=ast.Load())
        st.body.remove(inside[0])
        if not st.body:
            st.body = [ast.Pass()]
        _Replace(tests, name).visit(fdef)


class _Replace(ast.NodeTransformer):
    """``path == k`` (its node's id in ``tests``) → ``path`` where ``k`` is
    the value the branch taken sets, else ``not path``."""

    def __init__(self, tests: dict[int, bool], name: str):
        self.tests, self.name = tests, name

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if id(node) not in self.tests:
            return self.generic_visit(node)
        read = ast.Name(id=self.name, ctx=ast.Load())
        return read if self.tests[id(node)] else ast.UnaryOp(op=ast.Not(), operand=read)
