"""A generator function read ahead: ``def pairs(xs): for a, b in zip(xs,
xs[1:]): yield a * b`` is lowered as the function that runs the same body,
collects what it yields into a list, and returns an iterator over that list
(``iter(yielded)``, whose rule returns an
:class:`~zygote_py.runtime.EagerIterator`), so that ``sum``, ``list``, a
``for`` loop, ``zip``... read the same items and each item's gradient goes
back to where it was made.

What changes is only when the body runs: all of it when the generator is
called, rather than item by item as it is read. A consumer that stops early
(a ``break``) gets the same items, but the body has computed the rest too
(and any error it raises there, or side effect it has, happens at the
call); one that changes, between two items, something the body reads would
see the change with Python's generator and not here. A loop that never ends
(``while True:`` with neither ``break`` nor ``return``, ``for i in
itertools.count()``) cannot be read ahead and is refused, as is a ``yield``
whose value is used (``x = yield v``: a value sent into the generator) and
``return v`` with a value (the value of a ``yield from``).

A function that returns a generator expression (``return ((x[i], x[i + 1])
for i in ...)``) is read ahead alike: it returns ``iter()`` of the list
comprehension with the same items.

May import: the errors.
"""
from __future__ import annotations

import copy
from typing import Iterator

import gast

from zygote_py.errors import UnsupportedSyntax

YIELDED = "_zpy_yielded"
"""The list the lowered generator collects its items into."""

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def is_generator(node: gast.AST) -> bool:
    """Whether ``node`` is a function with a ``yield`` of its own."""
    return isinstance(node, gast.FunctionDef) and any(isinstance(n, (gast.Yield, gast.YieldFrom))
                                                      for n in _own_nodes(node.body))


def read_ahead(node: gast.FunctionDef, *, function: str, filename: str) -> gast.FunctionDef:
    """A copy of the generator function ``node`` that collects what it
    yields and returns ``iter`` of that list (see the module's docstring);
    raises :class:`UnsupportedSyntax` for what cannot be read ahead."""
    node = copy.deepcopy(node)
    rewrite = _ReadAhead(function, filename)
    node.body = [_at(gast.Assign([_name(gast.Store())], gast.List([], gast.Load()), None), node),
                 *rewrite.statements(node.body), _at(_returned(), node.body[-1])]
    gast.fix_missing_locations(node)
    return node


def returns_generator(node: gast.AST) -> bool:
    """Whether ``node`` is a function that returns a generator expression
    (``return (f(v) for v in xs)``) of its own."""
    return isinstance(node, gast.FunctionDef) and any(
        isinstance(n, gast.Return) and isinstance(n.value, gast.GeneratorExp) for n in _own_nodes(node.body))


def returned_ahead(node: gast.FunctionDef) -> gast.FunctionDef:
    """A copy of ``node`` whose ``return (... for ...)`` returns ``iter([...
    for ...])``: the same items, read ahead as a generator function's are."""
    node = copy.deepcopy(node)
    for n in _own_nodes(node.body):
        if isinstance(n, gast.Return) and isinstance(n.value, gast.GeneratorExp):
            items = gast.copy_location(gast.ListComp(elt=n.value.elt, generators=n.value.generators), n.value)
            n.value = _at(gast.Call(gast.Name("iter", gast.Load(), None, None), [items], []), n)
    gast.fix_missing_locations(node)
    return node


def _own_nodes(body: list) -> Iterator[gast.AST]:
    """The nodes of ``body`` outside nested functions, lambdas and classes."""
    stack = list(body)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _NESTED):
            stack.extend(gast.iter_child_nodes(n))


def _name(ctx: gast.expr_context) -> gast.Name:
    return gast.Name(YIELDED, ctx, None, None)


def _returned() -> gast.Return:
    return gast.Return(gast.Call(gast.Name("iter", gast.Load(), None, None), [_name(gast.Load())], []))


def _at(new: gast.AST, old: gast.AST) -> gast.AST:
    for n in gast.walk(new):
        if "lineno" in getattr(n, "_attributes", ()):
            gast.copy_location(n, old)
    return new


def _endless_iterable(node: gast.expr) -> bool:
    """Whether ``node`` is ``itertools.count(...)``, ``cycle(...)`` or
    ``repeat(x)`` (also imported by name): an iterator with no end."""
    if not isinstance(node, gast.Call):
        return False
    f = node.func
    name = f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) else None
    return name in ("count", "cycle") or name == "repeat" and len(node.args) == 1 and not node.keywords


class _ReadAhead(gast.NodeTransformer):
    """``yield v`` as a statement becomes ``_zpy_yielded.append(v)``,
    ``yield from g`` becomes ``_zpy_yielded.extend(g)``, ``return`` returns
    the iterator; any other ``yield``, and a loop that never ends, is
    refused."""

    def __init__(self, function: str, filename: str):
        self.function, self.filename = function, filename

    def refuse(self, node: gast.AST, what: str, hint: str) -> None:
        raise UnsupportedSyntax(f"{what} is not supported in a generator function", function=self.function,
                                filename=self.filename, line=getattr(node, "lineno", None), hint=hint)

    def statements(self, body: list) -> list:
        return [self.visit(s) for s in body]

    def visit_Expr(self, node: gast.Expr) -> gast.AST:
        v = node.value
        if isinstance(v, (gast.Yield, gast.YieldFrom)):
            method = "append" if isinstance(v, gast.Yield) else "extend"
            item = v.value if v.value is not None else gast.Constant(None, None)
            self.generic_visit(v)
            if isinstance(item, gast.GeneratorExp):  # (extend reads it to the end: the same items)
                item = gast.copy_location(gast.ListComp(elt=item.elt, generators=item.generators), item)
            call = gast.Call(gast.Attribute(_name(gast.Load()), method, gast.Load()), [item], [])
            return _at(gast.Expr(call), node)
        return self.generic_visit(node)

    def visit_Yield(self, node: gast.AST) -> None:
        self.refuse(node, "a 'yield' whose value is used (a value sent into the generator)",
                    "yield as a statement of its own (yield v), and pass values in as arguments")

    visit_YieldFrom = visit_Yield

    def visit_Return(self, node: gast.Return) -> gast.AST:
        self.generic_visit(node)
        if node.value is not None and not (isinstance(node.value, gast.Constant) and node.value.value is None):
            self.refuse(node, "'return' with a value", "end the generator with a bare 'return'")
        return _at(_returned(), node)

    def visit_While(self, node: gast.While) -> gast.AST:
        endless = isinstance(node.test, gast.Constant) and bool(node.test.value) and not node.orelse
        if endless and not any(isinstance(n, (gast.Break, gast.Return, gast.Raise)) for n in _own_nodes(node.body)):
            self._endless(node)
        return self.generic_visit(node)

    def visit_For(self, node: gast.For) -> gast.AST:
        if _endless_iterable(node.iter) and not any(isinstance(n, (gast.Break, gast.Return, gast.Raise))
                                                    for n in _own_nodes(node.body)):
            self._endless(node)
        return self.generic_visit(node)

    def _endless(self, node: gast.AST) -> None:
        self.refuse(node, "a loop that never ends (an endless stream of items, which cannot be read ahead)",
                    "give the loop an end (a count of items as an argument), or take the items with "
                    "itertools.islice in a function that is not differentiated")

    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node  # (a nested function's yields are its own)

    visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef
