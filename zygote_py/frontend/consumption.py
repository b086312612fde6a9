"""What consumes a generator expression or a ``map``: the calls that read
one to its end (``sum``, ``list``, ``sorted``...), so that the lowering
reads it as a list comprehension (:data:`MAPPED`); the names an
assignment target binds.

May import: the IR.
"""
from __future__ import annotations

import copy
from typing import Any, Iterator, Optional, Union

import gast


def consumed_as_lists(node: Union[gast.FunctionDef, gast.Lambda], consumers: set[tuple[str, int]]) -> gast.AST:
    """A copy of ``node`` in which each call ``c(..., <generator
    expression>, ...)`` of its own scope, ``(c, position of the generator)``
    in ``consumers`` (``c`` a dotted name read from a global: ``sum``,
    ``math.fsum``), is ``c(..., <list comprehension>, ...)``: the same
    items, computed in the same order, all before ``c`` starts rather than
    as it asks for them. For a callee that reads every item before it
    returns, only the interleaving of its own work (adding, comparing,
    hashing items) with the items' computation changes, and a
    ``StopIteration`` raised by an item propagates as itself rather than as
    the ``RuntimeError`` a generator makes of it. A name some comprehension
    of the function binds as its own variable is left alone (it may not be
    the global there); so are nested functions, which are emitted as
    written."""
    shadowed = {n for c in gast.walk(node) if isinstance(c, gast.comprehension) for n in target_names(c.target)}
    rewrite = _ConsumedAsLists({c for c in consumers if c[0].split(".")[0] not in shadowed})
    node = copy.deepcopy(node)
    for part in [node.body] if isinstance(node, gast.Lambda) else node.body:
        rewrite.visit(part)
    return node


def _dotted_name(node: gast.expr) -> Optional[str]:
    """``math.fsum`` for that expression, a name or names' attributes; None
    for any other."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = _dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


class _ConsumedAsLists(gast.NodeVisitor):
    """Changes the calls in place (see :func:`_consumed_as_lists`), inner
    ones first."""

    def __init__(self, consumers: set[tuple[str, int]]):
        self.consumers = consumers

    def visit_Call(self, node: gast.Call) -> None:
        self.generic_visit(node)
        name = _dotted_name(node.func)
        for c, position in self.consumers:
            gen = node.args[position] if c == name and len(node.args) > position else None
            if isinstance(gen, gast.GeneratorExp):
                node.args[position] = gast.copy_location(gast.ListComp(elt=gen.elt, generators=gen.generators), gen)
                # sum(<generator>) adds as it goes: a running total, with no list for the gradient to go through
                node.summed = c == "sum" and len(node.args) == 1 and not node.keywords
            elif _mapped(gen) and ("map", MAPPED) in self.consumers:
                comprehension = _mapped_as_list(gen)
                for part in gast.walk(comprehension):  # (the new nodes stand at map's line)
                    if not hasattr(part, "lineno") and "lineno" in getattr(part, "_attributes", ()):
                        gast.copy_location(part, gen)
                node.args[position] = comprehension

    def visit_FunctionDef(self, node: gast.AST) -> None:
        pass  # a nested function: its names are its own

    visit_Lambda = visit_FunctionDef


MAPPED = -1
"""The position that, in a consumer ``("map", MAPPED)``, says that a call
``map(f, xs)`` read to its end by a consumer is read as the list
comprehension ``[f(x) for x in xs]`` (so that ``f``, a nested function
sharing variables with this one, is called where it is defined)."""


def _mapped(node: Any) -> bool:
    """Whether ``node`` is ``map(f, *iterables)`` with ``f`` a name or a
    lambda (an expression that evaluating once per item changes nothing)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "map" \
        and len(node.args) >= 2 and not node.keywords and isinstance(node.args[0], (gast.Name, gast.Lambda)) \
        and not any(isinstance(a, gast.Starred) for a in node.args)


def _mapped_as_list(node: gast.Call) -> gast.ListComp:
    """``[f(_m0) for _m0 in xs]``, or ``[f(_m0, _m1) for _m0, _m1 in zip(xs,
    ys)]``, for ``map(f, xs[, ys])``; for a lambda of plain parameters,
    its body over them (``[h * 0.5 for h in xs]``: a comprehension holding
    a lambda would not be lowered inline)."""
    f, n = node.args[0], len(node.args) - 1
    a = f.args if isinstance(f, gast.Lambda) else None
    plain = a is not None and not (a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults) \
        and len(a.args) == n
    names = [p.id for p in a.args] if plain else [f"_mapped_{i}" for i in range(n)]
    if n == 1:
        target, items = gast.Name(names[0], gast.Store(), None, None), node.args[1]
    else:
        target = gast.Tuple([gast.Name(n, gast.Store(), None, None) for n in names], gast.Store())
        items = gast.Call(gast.Name("zip", gast.Load(), None, None), node.args[1:], [])
    element = f.body if plain else gast.Call(f, [gast.Name(n, gast.Load(), None, None) for n in names], [])
    return gast.ListComp(elt=element, generators=[gast.comprehension(target, items, [], 0)])


def target_names(node: gast.AST) -> Iterator[str]:
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            yield n.id
