"""A module's functions without running the module (``zpy emit``,
``zpy show``).

:func:`load` parses a ``.py`` file and resolves its top-level names
statically:

- ``import m`` / ``import m as n`` / ``from m import a as b`` import the
  library ``m`` (only what the file itself imports; relative imports are
  not followed);
- ``NAME = literal`` (whatever :func:`ast.literal_eval` accepts) binds the
  literal;
- ``def`` statements become functions: each is compiled alone, without its
  decorators, under the file's real name and line numbers (so
  :func:`~zygote_py.frontend.source.get_source` reads it from the file as
  for any other function), and run in a namespace holding only the names
  above and the module's other functions. Defaults are evaluated;
  annotations are not.

Nothing else at the top level runs. A name bound any other way (a class,
an expression, a loop) is recorded with its line and why it was not
resolved; :meth:`StaticModule.check_names` turns a use of one by a
function into :class:`UnresolvedName`, naming the file and line.
"""
from __future__ import annotations

import __future__
import ast
import builtins
import hashlib
import importlib
import symtable
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..errors import ZygoteError


class UnresolvedName(ZygoteError):
    """A function reads a global name that cannot be resolved without
    running its module."""


@dataclass
class Binding:
    """How a top-level name is bound: ``kind`` is ``"import"`` (``module``,
    ``attr``: ``import module as name`` or ``from module import attr as
    name``), ``"literal"`` or ``"function"`` (``node``), and ``line``."""

    kind: str
    line: int
    module: Optional[str] = None
    attr: Optional[str] = None
    node: Optional[ast.AST] = None


@dataclass
class StaticModule:
    """A module's statically resolved top level."""

    path: Path
    text: str
    tree: ast.Module
    namespace: dict[str, Any]
    """The globals of the module's functions."""
    bindings: dict[str, Binding]
    unresolved: dict[str, tuple[int, str]]
    """Name → (line, why it was not resolved)."""
    functions: dict[str, types.FunctionType] = field(default_factory=dict)
    """Top-level functions, in source order."""
    broken: dict[str, ZygoteError] = field(default_factory=dict)
    """Functions whose ``def`` failed (a default naming an unresolved name)."""

    def node(self, name: str) -> ast.FunctionDef:
        return self.bindings[name].node

    def segment(self, name: str) -> str:
        """The source text of a ``def`` (without decorators) or of a literal
        binding's statement."""
        return ast.get_source_segment(self.text, self.bindings[name].node)

    def digest(self, name: str) -> str:
        """The first 16 hex digits of the sha256 of :meth:`segment`."""
        return hashlib.sha256(self.segment(name).encode()).hexdigest()[:16]

    def global_names(self, name: str) -> list[str]:
        """The global names function ``name`` reads (nested functions and
        comprehensions included), in order of first use."""
        return global_names(self.node(name))

    def dependencies(self, names: list[str]) -> list[str]:
        """``names`` and the module's functions and literals they read,
        transitively (in source order)."""
        seen: set[str] = set()
        todo = list(names)
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if self.bindings[n].kind == "function":
                todo += [g for g in self.global_names(n)
                         if g in self.bindings and self.bindings[g].kind in ("function", "literal")]
        return [n for n in self.bindings if n in seen]

    def check_names(self, name: str) -> None:
        """Raise :class:`UnresolvedName` if function ``name``, or a module
        function it reads, reads a global that is neither resolved nor a
        builtin."""
        for dep in self.dependencies([name]):
            if self.bindings[dep].kind != "function":
                continue
            if dep in self.broken:
                raise self.broken[dep]
            for g in self.global_names(dep):
                if g in self.namespace or hasattr(builtins, g):
                    continue
                line, why = self.unresolved.get(g, (None, "it is not defined in the module"))
                use = first_use(self.node(dep), g)
                raise UnresolvedName(
                    f"{dep} reads {g!r}, which zpy emit cannot resolve without running the module: {why}"
                    + (f" (line {line})" if line else ""),
                    function=dep, filename=str(self.path), line=use,
                    hint="bind it by an import or a literal at the module's top level, or pass it as an argument",
                )


def load(path: Path) -> StaticModule:
    """Parse ``path`` and build its functions without running it (see the
    module's docstring)."""
    text = path.read_text()
    tree = ast.parse(text, str(path))
    namespace: dict[str, Any] = {"__name__": path.stem, "__file__": str(path), "__builtins__": builtins}
    bindings: dict[str, Binding] = {}
    unresolved: dict[str, tuple[int, str]] = {}

    def bind(name: str, b: Binding, value: Any = None) -> None:
        bindings[name] = b
        unresolved.pop(name, None)
        if b.kind != "function":
            namespace[name] = value

    def fail(name: str, line: int, why: str) -> None:
        bindings.pop(name, None)
        namespace.pop(name, None)
        unresolved[name] = (line, why)

    for st in tree.body:
        if isinstance(st, ast.Import):
            for a in st.names:
                name = a.asname or a.name.partition(".")[0]
                try:
                    module = importlib.import_module(a.name)
                except Exception as e:  # the import of a library the module uses
                    fail(name, st.lineno, f"import {a.name} failed: {e}")
                    continue
                value = module if a.asname else importlib.import_module(name)
                bind(name, Binding("import", st.lineno, module=a.name if a.asname else name), value)
        elif isinstance(st, ast.ImportFrom):
            for a in st.names:
                name = a.asname or a.name
                if st.level or a.name == "*":
                    fail(name, st.lineno, "relative and * imports are not followed")
                    continue
                try:
                    module = importlib.import_module(st.module)
                    value = getattr(module, a.name) if hasattr(module, a.name) else \
                        importlib.import_module(f"{st.module}.{a.name}")
                except Exception as e:
                    fail(name, st.lineno, f"from {st.module} import {a.name} failed: {e}")
                    continue
                bind(name, Binding("import", st.lineno, module=st.module, attr=a.name), value)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None:
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            try:
                value = ast.literal_eval(st.value)
                literal = len(names) == len(targets) == 1
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                literal = False
            for n in names if literal else _assigned(st):
                if literal:
                    bind(n, Binding("literal", st.lineno, node=st), value)
                else:
                    fail(n, st.lineno, "it is assigned a value that is not a literal")
        elif isinstance(st, ast.FunctionDef):
            bind(st.name, Binding("function", st.lineno, node=st))
        elif isinstance(st, ast.ClassDef):
            fail(st.name, st.lineno, "classes are not supported by zpy emit")
        else:
            for n in _assigned(st):
                fail(n, st.lineno, "it is bound by a statement zpy emit does not run")

    module = StaticModule(path, text, tree, namespace, bindings, unresolved)
    flags = __future__.annotations.compiler_flag
    for name, b in bindings.items():
        if b.kind != "function":
            continue
        node = ast.FunctionDef(**{f: getattr(b.node, f) for f in b.node._fields})
        node.decorator_list = []
        ast.copy_location(node, b.node)
        code = compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec", flags=flags, dont_inherit=True)
        try:
            exec(code, namespace)  # only a ``def``: binds the function, evaluating its defaults
        except Exception as e:
            namespace.pop(name, None)
            module.broken[name] = UnresolvedName(
                f"the default values of {name} cannot be evaluated without running the module: {e}",
                function=name, filename=str(path), line=b.line,
                hint="use literals as default values",
            )
            continue
        module.functions[name] = namespace[name]
    return module


def _assigned(st: ast.stmt) -> list[str]:
    """The names a top-level statement may bind in the module."""
    out = []
    for n in ast.walk(st):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.append(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not st:
            out.append(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out += [a.asname or a.name.partition(".")[0] for a in n.names]
    return out


def global_names(node: ast.FunctionDef) -> list[str]:
    """The global names a top-level function reads, by Python's own scope
    analysis (:mod:`symtable`), in order of first use."""
    source = ast.unparse(_without_annotations(node))
    table = symtable.symtable(source, "<def>", "exec").get_children()[0]
    found: set[str] = set()

    def walk(t: symtable.SymbolTable) -> None:
        for s in t.get_symbols():
            if s.is_global() and s.is_referenced():
                found.add(s.get_name())
        for child in t.get_children():
            walk(child)

    walk(table)
    order = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in found]
    return list(dict.fromkeys(order))


def _without_annotations(node: ast.FunctionDef) -> ast.FunctionDef:
    """A copy of ``node`` without decorators or annotations, which are not
    run when its function is built here."""
    node = ast.parse(ast.unparse(node)).body[0]
    node.decorator_list = []
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            n.annotation = None
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n.returns = None
        elif isinstance(n, ast.AnnAssign):
            n.annotation = ast.Constant(None)
    return node


def first_use(node: ast.AST, name: str) -> Optional[int]:
    """The line of the first read of ``name`` in ``node``."""
    lines = [n.lineno for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]
    return min(lines) if lines else None
