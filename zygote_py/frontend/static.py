"""A module's functions without running the module (``zpy emit``,
``zpy show``).

:func:`load` parses a ``.py`` file and resolves its top-level names
statically:

- ``import m`` / ``import m as n`` / ``from m import a as b`` import the
  library ``m`` (only what the file itself imports; relative imports are
  not followed);
- ``NAME = literal`` (whatever :func:`ast.literal_eval` accepts) binds the
  literal;
- ``NAME = expression`` (a value that is not a literal: an array, a logger,
  a compiled regex, a dataclass instance) and ``class`` statements are
  bound when a function that is differentiated reads them, and only then
  (:meth:`StaticModule.resolve`): that one statement runs, once the names
  it reads are bound the same way; the gradient module reads such a value
  from the source module by its name;
- ``def`` statements become functions: each is compiled alone, without its
  decorators, under the file's real name and line numbers (so
  :func:`~zygote_py.frontend.source.get_source` reads it from the file as
  for any other function), and run in a namespace holding only the names
  above and the module's other functions. Defaults are evaluated;
  annotations are not.

The module's own directory comes first on ``sys.path`` while it is loaded
and compiled (:func:`search_path`), as for ``python path/model.py``, so that
sibling imports resolve. Nothing else at the top level runs. A name bound
any other way (a loop, a ``with``, more than once) is recorded with its
line and why it was not resolved; :meth:`StaticModule.check_names` turns a use of one by a
function into :class:`UnresolvedName`, naming the file and line.
"""
from __future__ import annotations

import __future__
import ast
import builtins
import hashlib
import importlib
import contextlib
import symtable
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from ..errors import ZygoteError


class UnresolvedName(ZygoteError):
    """A function reads a global name that cannot be resolved without
    running its module."""


@dataclass
class Binding:
    """How a top-level name is bound: ``kind`` is ``"import"`` (``module``,
    ``attr``: ``import module as name`` or ``from module import attr as
    name``), ``"literal"``, ``"function"``, ``"value"`` (a statement
    ``name = expression``) or ``"class"`` (``node``: the statement), and
    ``line``."""

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
    resolving: set[str] = field(default_factory=set)
    home: Optional[types.ModuleType] = None
    """The module object whose dict is :attr:`namespace`."""
    reads: dict[str, list[str]] = field(default_factory=dict)
    """Function → the global names it reads (:meth:`global_names`, asked
    again for each function that depends on it)."""

    def node(self, name: str) -> ast.FunctionDef:
        """The ``def`` of a function, or of a method ``Class.name``."""
        owner, _, method = name.rpartition(".")
        if owner:
            return next(st for st in self.bindings[owner].node.body
                        if isinstance(st, ast.FunctionDef) and st.name == method)
        return self.bindings[name].node

    def methods(self, cls: str) -> list[str]:
        """``Class.name`` of each plain method of the top-level class
        ``cls`` (not static, class or property methods), in source order."""
        out = []
        for st in self.bindings[cls].node.body:
            if isinstance(st, ast.FunctionDef) and not st.decorator_list and not (
                    st.name.startswith("__") and st.name.endswith("__")):
                out.append(f"{cls}.{st.name}")
        return out

    def function(self, name: str) -> types.FunctionType:
        """The function ``name``, or the method ``Class.name`` (its class is
        built: :meth:`resolve`)."""
        owner, _, method = name.rpartition(".")
        if not owner:
            return self.functions[name]
        self.check_names(owner)
        return vars(self.namespace[owner])[method]

    def resolve(self, name: str) -> bool:
        """Bind the value or class ``name`` by running its one statement,
        if every name that statement reads resolves; ``False`` (and the
        reason in :attr:`unresolved`) if not."""
        if name in self.namespace:
            return True
        b = self.bindings.get(name)
        if b is None or b.kind not in ("value", "class"):
            return False
        if name in self.resolving:
            self.unresolved[name] = (b.line, "its definition reads itself")
            return False
        self.resolving.add(name)
        try:
            for g in _statement_reads(b.node):
                if g in self.namespace or g not in self.bindings and hasattr(builtins, g):
                    continue
                if self.bindings.get(g) is not None and self.bindings[g].kind == "function":
                    self.unresolved[name] = (b.line, f"its value is computed by calling {g}, which zpy emit "
                                                     "does not run")
                    return False
                if not self.resolve(g):
                    line, why = self.unresolved.get(g, (None, "it is not defined in the module"))
                    self.unresolved[name] = (b.line, f"it reads {g!r}, which is not resolved: {why}")
                    return False
            code = compile(ast.Module(body=[b.node], type_ignores=[]), str(self.path), "exec",
                           flags=__future__.annotations.compiler_flag, dont_inherit=True)
            name_ = self.namespace["__name__"]
            before = sys.modules.get(name_)
            sys.modules[name_] = self.home
            try:
                exec(code, self.namespace)
            except Exception as e:  # the user's own statement: say why it did not run
                self.namespace.pop(name, None)
                self.unresolved[name] = (b.line, f"running its definition failed: {type(e).__name__}: {e}")
                return False
            finally:
                if before is None:
                    del sys.modules[name_]
                else:
                    sys.modules[name_] = before
            self.unresolved.pop(name, None)
            return True
        finally:
            self.resolving.discard(name)

    def segment(self, name: str) -> str:
        """The source text of a ``def`` (without decorators) or of a literal
        binding's statement."""
        return ast.get_source_segment(self.text, self.bindings[name].node)

    def segment_of(self, name: str) -> str:
        """:meth:`segment`, of a method ``Class.name`` too."""
        return ast.get_source_segment(self.text, self.node(name)) if "." in name else self.segment(name)

    def digest(self, name: str) -> str:
        """The first 16 hex digits of the sha256 of :meth:`segment`."""
        return hashlib.sha256(self.segment_of(name).encode()).hexdigest()[:16]

    def global_names(self, name: str) -> list[str]:
        """The global names function ``name`` reads (nested functions and
        comprehensions included), in order of first use."""
        if name not in self.reads:
            self.reads[name] = global_names(self.node(name))
        return self.reads[name]

    def dependencies(self, names: list[str]) -> list[str]:
        """``names`` and the module's functions, methods, classes and values
        they read, transitively (in source order; a method after its
        class)."""
        seen: set[str] = set()
        todo = list(names)
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            owner = n.rpartition(".")[0]
            if owner:
                todo.append(owner)
            kind = self.bindings[owner or n].kind
            reads = self.global_names(n) if kind == "function" or owner else \
                _statement_reads(self.bindings[n].node) if kind in ("value", "class") else []
            todo += [g for g in reads if g in self.bindings and self.bindings[g].kind != "import"]
        order = {name: i for i, name in enumerate(self.bindings)}
        return sorted(seen, key=lambda n: (order[n.rpartition(".")[0] or n], n.count("."), self._line(n)))

    def _line(self, name: str) -> int:
        return self.node(name).lineno if "." in name else self.bindings[name].line

    def check_names(self, name: str) -> None:
        """Raise :class:`UnresolvedName` if function ``name``, or a module
        function it reads, reads a global that is neither resolved nor a
        builtin."""
        for dep in self.dependencies([name]):
            kind = self.bindings[dep.rpartition(".")[0] or dep].kind
            if kind in ("value", "class") and "." not in dep:
                reads = [dep]
            elif kind == "function" or "." in dep:
                if dep in self.broken:
                    raise self.broken[dep]
                reads = self.global_names(dep)
            else:
                continue
            for g in reads:
                if g in self.namespace or g not in self.bindings and hasattr(builtins, g) or self.resolve(g):
                    continue
                line, why = self.unresolved.get(g, (None, "it is not defined in the module"))
                use = first_use(self.node(dep), g) if g != dep else line
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
    # (a module's own dict: a class statement finds its module, as @dataclass does, through sys.modules)
    home = types.ModuleType(path.stem)
    namespace = home.__dict__
    namespace.update({"__file__": str(path), "__builtins__": builtins})
    bindings: dict[str, Binding] = {}
    unresolved: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()

    def bind(name: str, b: Binding, value: Any = None) -> None:
        if b.kind in ("value", "class") and name in seen or name in bindings and \
                bindings[name].kind in ("value", "class"):
            # (running the last statement alone would not give the value the module ends with)
            return fail(name, b.line, "it is bound more than once at the top level")
        seen.add(name)
        bindings[name] = b
        unresolved.pop(name, None)
        if b.kind not in ("function", "value", "class"):
            namespace[name] = value

    def fail(name: str, line: int, why: str) -> None:
        seen.add(name)
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
            one = len(names) == len(targets) == 1
            for n in names if literal or one else _assigned(st):
                if literal:
                    bind(n, Binding("literal", st.lineno, node=st), value)
                elif one:
                    bind(n, Binding("value", st.lineno, node=st))
                else:
                    fail(n, st.lineno, "it is assigned by unpacking or a chained assignment")
        elif isinstance(st, ast.FunctionDef):
            bind(st.name, Binding("function", st.lineno, node=st))
        elif isinstance(st, ast.ClassDef):
            bind(st.name, Binding("class", st.lineno, node=st))
        else:
            for n in _assigned(st):
                fail(n, st.lineno, "it is bound by a statement zpy emit does not run")

    module = StaticModule(path, text, tree, namespace, bindings, unresolved, home=home)
    for name, b in bindings.items():
        if b.kind in ("value", "class"):  # until resolve runs its statement
            unresolved[name] = (b.line, "it is assigned a value that is not a literal" if b.kind == "value"
                                else "a class that cannot be built")
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


@contextlib.contextmanager
def search_path(path: Path) -> Iterator[None]:
    """The directory of ``path`` first on ``sys.path`` (as ``python
    path`` puts it), for as long as the block runs."""
    where = str(path.resolve().parent)
    sys.path.insert(0, where)
    try:
        yield
    finally:
        if where in sys.path:
            sys.path.remove(where)


def _statement_reads(st: ast.stmt) -> list[str]:
    """The names a value's assignment or a class statement reads when it
    runs (not those read only inside the class's methods, nor its
    annotations, which are not evaluated)."""
    if isinstance(st, ast.ClassDef):
        parts: list[ast.AST] = [*st.decorator_list, *st.bases, *(k.value for k in st.keywords)]
        for item in st.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                parts += [*item.decorator_list, *item.args.defaults, *(d for d in item.args.kw_defaults if d)]
            elif isinstance(item, ast.AnnAssign):
                parts += [item.value] if item.value is not None else []
            elif not isinstance(item, ast.ClassDef):
                parts.append(item)
        bound = {n.id for p in parts for n in ast.walk(p) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    else:
        parts, bound = [st.value], set()
    names = [n.id for p in parts for n in ast.walk(p) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [n for n in dict.fromkeys(names) if n not in bound]


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
    source = ast.unparse(node if _unannotated(node) else _without_annotations(node))
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


def _unannotated(node: ast.FunctionDef) -> bool:
    """Whether ``node`` has no decorator or annotation to leave out (an
    emitted gradient's definition): its text is read as it is."""
    return not node.decorator_list and not any(
        isinstance(n, ast.arg) and n.annotation is not None or isinstance(n, ast.AnnAssign)
        or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None for n in ast.walk(node))


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
