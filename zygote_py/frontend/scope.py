"""Scope analysis for the function being lowered: which of its names are
SSA locals, cells, free variables or globals, and which of its constructs
zygote_py cannot lower.

Python's rules (the language reference, "Naming and binding"), restated for
one function ``f``:

- a name bound in ``f`` (assignment, ``for``/``with``/``except`` target,
  ``del``, nested ``def``, parameter, walrus target — also a walrus inside a
  comprehension of ``f``) is local to ``f`` unless declared ``global`` or
  ``nonlocal``;
- a local that a nested scope (``lambda``, nested ``def``, generator
  expression, comprehension kept as its own scope) reads or writes is a
  *cell*: it lives outside SSA;
- ``nonlocal`` names, and names of ``f.__code__.co_freevars``, are *free*;
- every other name is global (builtins included).

List, set and dict comprehensions are lowered inline unless they hold a
``lambda`` or a generator expression (:func:`comprehension_inlined`); an
inline comprehension's targets are its own, separate from ``f``'s locals.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterator, Optional, Union

import gast

from zygote_py.errors import UnsupportedSyntax

COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp)
_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)

_GENERATOR_HINT = "zygote_py transforms ordinary functions; build and return a list instead"
_ASYNC_HINT = "zygote_py transforms synchronous code only"

# Constructs of the function's own scope that lowering rejects:
# node type -> (what the message calls it, hint).
_UNSUPPORTED: dict[type, tuple[str, Optional[str]]] = {
    gast.Yield: ("'yield'", _GENERATOR_HINT),
    gast.YieldFrom: ("'yield from'", _GENERATOR_HINT),
    gast.Await: ("'await'", _ASYNC_HINT),
    gast.AsyncFunctionDef: ("'async def'", _ASYNC_HINT),
    gast.AsyncFor: ("'async for'", _ASYNC_HINT),
    gast.AsyncWith: ("'async with'", _ASYNC_HINT),
    gast.ClassDef: (
        "a 'class' statement inside a function",
        "define the class at module level",
    ),
    gast.TryStar: ("'try/except*'", "use 'except' clauses instead"),
}


@dataclass(frozen=True)
class Scope:
    """How the function being lowered sees each name.

    ``locals`` are bound in the function (parameters included) and not
    declared ``global``/``nonlocal``; ``cells`` the locals captured by a
    nested scope; ``free`` the free variables the function or its nested
    scopes use, in ``co_freevars`` order then ``nonlocal`` names;
    ``declared_free`` every name that is free if not local.
    """

    locals: frozenset[str]
    cells: frozenset[str]
    free: tuple[str, ...]
    declared_free: frozenset[str]

    def kind(self, name: str) -> str:
        """``"cell"``, ``"local"`` (an SSA value), ``"free"`` or
        ``"global"``."""
        if name in self.cells:
            return "cell"
        if name in self.locals:
            return "local"
        if name in self.declared_free:
            return "free"
        return "global"


def comprehension_inlined(node: gast.AST) -> bool:
    """Whether a list/set/dict comprehension is lowered inline: it is unless
    its own scope (everything but its first iterable, which Python
    evaluates in the enclosing scope) holds a lambda or a generator
    expression, whose closures need the comprehension's variables as real
    cells."""
    if not isinstance(node, COMPREHENSIONS):
        return False
    return not any(
        isinstance(n, (gast.Lambda, gast.GeneratorExp))
        for part in _comprehension_own_parts(node)
        for n in gast.walk(part)
    )


def analyze(
    node: Union[gast.FunctionDef, gast.Lambda],
    freevars: Collection[str],
    *,
    function: str,
    filename: str,
) -> Scope:
    """The :class:`Scope` of ``node``; raises ``UnsupportedSyntax`` for the
    first construct (in source order) that lowering rejects."""
    check_supported(node, function=function, filename=filename)
    top = _FunctionSymbols()
    top.parameters(node.args)
    if isinstance(node, gast.Lambda):
        top.visit(node.body)
    else:
        for stmt in node.body:
            top.visit(stmt)
    declared_free = top.nonlocals | (frozenset(freevars) - top.globals)
    locals_ = top.bound - top.globals - top.nonlocals
    captured = top.captured - top.globals
    used_free = ((top.refs | captured | top.nonlocals) & declared_free) - locals_
    ordered = [n for n in freevars if n in used_free]
    ordered += sorted(used_free - set(ordered))
    return Scope(
        locals=frozenset(locals_),
        cells=frozenset(captured & locals_),
        free=tuple(ordered),
        declared_free=frozenset(declared_free),
    )


def check_supported(
    node: Union[gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda],
    *,
    function: str,
    filename: str,
) -> None:
    """Raise ``UnsupportedSyntax`` for the first construct of the function's
    own scope (nested functions' bodies excluded: they are emitted as
    written) that lowering rejects."""
    found = []
    if isinstance(node, gast.AsyncFunctionDef):
        found.append(node)
    for n in _own_scope_nodes(node):
        if type(n) in _UNSUPPORTED or (
            isinstance(n, gast.comprehension) and n.is_async
        ):
            found.append(n)
    if not found:
        return
    first = min(found, key=lambda n: (_line(n), getattr(n, "col_offset", 0)))
    if isinstance(first, gast.comprehension):
        what, hint = "'async for' in a comprehension", _ASYNC_HINT
    else:
        what, hint = _UNSUPPORTED[type(first)]
    raise UnsupportedSyntax(
        f"{what} is not supported",
        function=function,
        filename=filename,
        line=_line(first),
        hint=hint,
    )


def _line(node: gast.AST) -> int:
    line = getattr(node, "lineno", None)
    if line is None and isinstance(node, gast.comprehension):
        line = getattr(node.target, "lineno", 0)
    return line or 0


def _own_scope_nodes(node: gast.AST) -> Iterator[gast.AST]:
    """Every node lowered as part of ``node``'s body: nested functions and
    classes are yielded, with their decorators and defaults, but not their
    bodies."""
    if isinstance(node, gast.Lambda):
        stack = [node.body]
    else:
        stack = list(reversed(node.body))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _FUNCTIONS):
            parts = list(getattr(n, "decorator_list", [])) + _defaults(n.args)
        elif isinstance(n, gast.ClassDef):
            parts = []
        else:
            parts = list(gast.iter_child_nodes(n))
        stack.extend(reversed(parts))


def _defaults(args: gast.arguments) -> list[gast.expr]:
    return list(args.defaults) + [d for d in args.kw_defaults if d is not None]


def _comprehension_own_parts(node: gast.AST) -> list[gast.AST]:
    """The parts of a comprehension evaluated in its own scope."""
    first, *rest = node.generators
    parts: list[gast.AST] = [first.target, *first.ifs]
    for g in rest:
        parts += [g.target, g.iter, *g.ifs]
    if isinstance(node, gast.DictComp):
        parts += [node.key, node.value]
    else:
        parts.append(node.elt)
    return parts


def _target_names(node: gast.AST) -> Iterator[str]:
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            yield n.id


class _Symbols(gast.NodeVisitor):
    """Names bound and referenced in one scope, and the free names of the
    scopes nested in it (``captured``).

    In a comprehension scope, walrus targets belong to the enclosing
    function (``hoisted``) and count as references here.
    """

    # Whether nested functions' annotations are evaluated in this scope;
    # lowering drops them from the functions it creates (see lower.py).
    annotations = True

    def __init__(self, comprehension: bool = False):
        self.comprehension = comprehension
        self.bound: set[str] = set()
        self.refs: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.captured: set[str] = set()
        self.hoisted: set[str] = set()

    def free(self) -> set[str]:
        """Names this scope takes from enclosing function scopes."""
        local = self.bound - self.globals - self.nonlocals
        return ((self.refs | self.captured) - local - self.globals) | self.nonlocals

    def parameters(self, args: gast.arguments) -> None:
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            self.bound.add(a.id)
        for a in (args.vararg, args.kwarg):
            if a is not None:
                self.bound.add(a.id)

    # -- names -----------------------------------------------------------------

    def visit_Name(self, node: gast.Name) -> None:
        self.name(node.id, isinstance(node.ctx, gast.Load))

    def name(self, name: str, load: bool) -> None:
        if load:
            self.refs.add(name)
            if name == "super":
                # Python gives every function that names super the
                # enclosing class's cell, for a zero-argument super().
                self.refs.add("__class__")
        else:
            self.bound.add(name)

    def visit_Global(self, node: gast.Global) -> None:
        self.globals.update(node.names)

    def visit_Nonlocal(self, node: gast.Nonlocal) -> None:
        self.nonlocals.update(node.names)

    def visit_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.visit(node.value)
        if self.comprehension:
            self.hoisted.add(node.target.id)
            self.refs.add(node.target.id)
        else:
            self.name(node.target.id, load=False)

    def visit_alias(self, node: gast.alias) -> None:
        if node.name != "*":
            self.bound.add(node.asname or node.name.split(".")[0])

    def visit_MatchAs(self, node: gast.MatchAs) -> None:
        if node.name is not None:
            self.bound.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: gast.MatchStar) -> None:
        if node.name is not None:
            self.bound.add(node.name)

    def visit_MatchMapping(self, node: gast.MatchMapping) -> None:
        if node.rest is not None:
            self.bound.add(node.rest)
        self.generic_visit(node)

    # -- nested scopes ---------------------------------------------------------

    def visit_FunctionDef(self, node: gast.FunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self._outer_parts_of(node.args)
        if node.returns is not None and self.annotations:
            self.visit(node.returns)
        inner = _Symbols()
        inner.parameters(node.args)
        for stmt in node.body:
            inner.visit(stmt)
        self.captured |= inner.free()
        self.name(node.name, load=False)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: gast.Lambda) -> None:
        self._outer_parts_of(node.args)
        inner = _Symbols()
        inner.parameters(node.args)
        inner.visit(node.body)
        self.captured |= inner.free()

    def visit_ClassDef(self, node: gast.ClassDef) -> None:
        for part in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(part)
        body = _Symbols()
        for stmt in node.body:
            body.visit(stmt)
        # Class-level names are not visible to methods; the class provides
        # its methods' __class__ cell itself.
        self.captured |= (body.refs - body.bound) | (body.captured - {"__class__"})
        self.name(node.name, load=False)

    def _outer_parts_of(self, args: gast.arguments) -> None:
        """Defaults and annotations are evaluated where the function is
        defined."""
        for d in _defaults(args):
            self.visit(d)
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for a in params:
            if a is not None and a.annotation is not None and self.annotations:
                self.visit(a.annotation)

    def visit_ListComp(self, node: gast.AST) -> None:
        self.comprehension_scope(node)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def comprehension_scope(self, node: gast.AST) -> None:
        """A comprehension with its own scope: the first iterable belongs
        here, the rest to the comprehension."""
        self.visit(node.generators[0].iter)
        inner = _Symbols(comprehension=True)
        for part in _comprehension_own_parts(node):
            inner.visit(part)
        self.captured |= inner.free()
        if self.comprehension:
            self.hoisted |= inner.hoisted
        else:
            self.bound |= inner.hoisted


class _FunctionSymbols(_Symbols):
    """The symbols of the function being lowered: like :class:`_Symbols`,
    except that inline comprehensions are not scopes of their own — their
    targets are hidden from the function's names while inside them."""

    annotations = False

    def __init__(self) -> None:
        super().__init__()
        self._comprehension_targets: list[set[str]] = []

    def name(self, name: str, load: bool) -> None:
        if any(name in targets for targets in self._comprehension_targets):
            return
        super().name(name, load)

    def visit_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.visit(node.value)
        self.bound.add(node.target.id)

    def visit_ListComp(self, node: gast.AST) -> None:
        if not comprehension_inlined(node):
            self.comprehension_scope(node)
            return
        self.visit(node.generators[0].iter)
        targets = {n for g in node.generators for n in _target_names(g.target)}
        self._comprehension_targets.append(targets)
        for part in _comprehension_own_parts(node):
            self.visit(part)
        self._comprehension_targets.pop()

    visit_SetComp = visit_DictComp = visit_ListComp
