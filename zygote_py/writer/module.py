"""A source module → its gradient module, as Python text (``zpy emit``).

For each selected function ``f`` of the module the gradient module defines
``f_forward(*args) -> (y, pullback)`` (the emitted forward function, its
pullback nested inside) and ``f_gradient(*args) -> gradients`` (the fused
gradient, with the value dropped from what it returns): the conventions of
``zpy.pullback`` and ``zpy.gradient``, one gradient per parameter, ``None``
where none flows. Calls between the module's functions are inlined by the
compiler (``ad/callees.py``); a call it keeps (recursion) runs the
callee's source, which is then copied into the gradient module.

The module is never run: :func:`zygote_py.frontend.static.load` builds
its functions from their ``def`` statements, and runs only the value
assignments and class statements they read (which the gradient module
then imports from the source module by name). Methods of top-level
classes are emitted as ``Class_name_forward(self, ...)`` and
``Class_name_gradient(self, ...)``.

**Which parameters are differentiated** is decided here, from the
annotations, since there are no arguments to look at (:func:`plan`):
``int``, ``bool``, ``str`` and ``bytes`` are not, nor an unannotated
parameter with such a default (``steps=40``); ``float`` is a real
number, and no annotation what the function's use of the parameter says
(:mod:`.usage`: a real array, a dict of them, else a real number);
``np.ndarray`` (or ``numpy.typing.NDArray``)
is a real array; a dataclass whose fields are all annotated ``float`` or
``np.ndarray`` (also a method's ``self``) has each field read
differentiated as such a parameter would be, its gradient a
``types.SimpleNamespace`` of the fields' (``analysis.fields_kind``); a
dict annotated ``dict[str, float]`` or ``dict[str, np.ndarray]``
(``typing.Dict``, ``Mapping``), or a ``TypedDict`` whose items are
annotated so, has each item it reads by a constant key (``params["w"]``)
differentiated so, its gradient a dict with its keys
(``analysis.items_kind``); anything else is differentiated with nothing assumed (which makes the
compiler call zygote_py's run-time ``J`` more often).

**Standalone.** The emitted code reads zygote_py helpers (``runtime.seed``,
``runtime.unbroadcast``, NumPy rules' helpers...). Each is copied into the
gradient module, once, under a comment naming its origin, when its source
uses only NumPy, other modules and builtins (the runtime's own helpers are
replaced by the plain versions in :mod:`.standalone`). A function whose
gradient would need one that cannot be copied (``runtime.J`` for a call
differentiated at run time) is not emitted: :class:`CannotEmit` at the
source line that needs it. Everything else the code reads is bound as the
source module binds it (its imports, its literals, its values by name) or
imported by its real name.

**Which functions.** A function that is plainly not differentiable (no
differentiated parameter, a ``main``, I/O) is listed as such; one that
cannot be emitted is listed with the reason and its line
(:attr:`Emitted.skipped`): ``zpy emit`` fails on it unless told to skip it.

**Staleness.** The header names the source file, the sha256 of every
definition the gradients depend on, and the zygote_py version; the output
is a pure function of those (and of zygote_py's code), so comparing bytes
is the check (:func:`stale`).
"""
from __future__ import annotations

import ast
import builtins
import collections.abc
import copy
import dataclasses
import inspect
import re
import sys
import textwrap
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import gast
import numpy as np

from .. import registry, runtime
from .._version import __version__
from ..ad import callees, mutation, pipeline
from ..ad.analysis import ARRAY, ARRAY_VALUED, FLOAT, NUMBER, fields_kind, items_kind
from ..errors import ZygoteError
from ..frontend import static
from ..ir import ops
from ..ir.passes import member
from ..backend.references import importable, literal
from . import standalone, tidy, usage

HEADER_LINE = "# generated — regenerate with zpy emit"
_PACKAGE = "zygote_py"
_NOT_DIFFERENTIATED = {"int": NUMBER, "bool": 0, "str": 0, "bytes": 0}


class CannotEmit(ZygoteError):
    """A function, or a value its gradient reads, cannot be written into a
    gradient module."""


class NoSuchFunction(CannotEmit):
    """``--function`` names no top-level function of the module."""


# --------------------------------------------------------------------------
# Which parameters are differentiated
# --------------------------------------------------------------------------

@dataclass
class Parameter:
    name: str
    active: bool
    kind: int
    described: str  # "a real number", "not differentiated (int)"...
    reads: Optional[str] = None  # the module's class whose fields' annotations gave the kind (a dependency)
    either: frozenset = frozenset()  # keys (None: the parameter itself) emitted for an array, a number allowed


def plan(module: static.StaticModule, name: str) -> list[Parameter]:
    """Each parameter of function (or method ``Class.name``) ``name`` (in
    the order of :func:`~zygote_py.ad.pipeline.param_values`),
    differentiated or not and its kind, from its annotation, else its
    default value (see the module's docstring). A method's ``self`` is
    differentiated with nothing assumed: its gradient is a structural
    tangent."""
    node = module.node(name)
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [_parameter(module, a, d, node) for a, d in zip(positional, defaults)]
    if "." in name and out:
        out[0] = _object(module, out[0].name, ast.Name(id=name.rpartition(".")[0])) or \
            Parameter(out[0].name, True, 0, "the object, differentiated, nothing assumed")
    if args.vararg:
        out.append(Parameter(args.vararg.arg, True, 0, "differentiated, nothing assumed"))
    out += [_parameter(module, a, d, node) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append(Parameter(args.kwarg.arg, True, 0, "differentiated, nothing assumed"))
    return out


def _parameter(module: static.StaticModule, a: ast.arg, default: Optional[ast.expr], fdef: ast.FunctionDef
               ) -> Parameter:
    ann = a.annotation
    if ann is None and default is None:  # (how the function uses it: see writer/usage.py)
        used = usage.usage(fdef, a.arg, lambda g: module.node(g) if getattr(
            module.bindings.get(g), "kind", None) == "function" else None)
        if used == "array":
            return Parameter(a.arg, True, ARRAY, "a real array (used as one)")
        if used == "either":
            return Parameter(a.arg, True, ARRAY, _EITHER, either=frozenset([None]))
        if isinstance(used, dict):
            kinds = {k: FLOAT if v == "number" else ARRAY for k, v in used.items()}
            described = {"either": "a real number or array", "array": "a real array", "number": "a real number"}
            return Parameter(a.arg, True, items_kind(kinds), "a dict (read by key) of " + ", ".join(
                f"{k} ({described[v]})" for k, v in used.items()),
                either=frozenset(k for k, v in used.items() if v == "either"))
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            ann = ast.Name(id="?")
    if ann is None and isinstance(default, ast.Constant) and not isinstance(default.value, float):
        # (steps=40, verbose=True, path="out.png": what a default says the parameter holds)
        kind = type(default.value).__name__
        if kind in _NOT_DIFFERENTIATED:
            return Parameter(a.arg, False, _NOT_DIFFERENTIATED[kind], f"not differentiated ({kind} default)")
        if default.value is None:
            return Parameter(a.arg, False, 0, "not differentiated (None default)")
    if ann is None or isinstance(ann, ast.Name) and ann.id == "float":
        return Parameter(a.arg, True, FLOAT, "a real number")
    if isinstance(ann, ast.Name) and ann.id in _NOT_DIFFERENTIATED:
        return Parameter(a.arg, False, _NOT_DIFFERENTIATED[ann.id], f"not differentiated ({ann.id})")
    base = ann.value if isinstance(ann, ast.Subscript) else ann
    if _array_type(_dotted(module.namespace, base)):
        return Parameter(a.arg, True, ARRAY, "a real array")
    return _mapping(module, a.arg, ann) or _object(module, a.arg, base) or \
        Parameter(a.arg, True, 0, "differentiated, nothing assumed")


_EITHER = "a real number or array (given to a library's function)"


def _array_type(t: Any) -> bool:
    return t is np.ndarray or typing.get_origin(t) is np.ndarray


_MAPPINGS = (dict, typing.Dict, typing.Mapping, typing.MutableMapping, collections.abc.Mapping,
             collections.abc.MutableMapping)


def _mapping(module: static.StaticModule, name: str, annotation: ast.expr) -> Optional[Parameter]:
    """A parameter annotated ``dict[str, float]`` or ``dict[str, np.ndarray]``
    (``Dict``, ``Mapping``): each ``name["key"]`` read is differentiated as a
    parameter of that kind would be, and the gradient is a dict with the
    same keys (see ``analysis.items_kind``)."""
    if not isinstance(annotation, ast.Subscript) or not isinstance(annotation.slice, ast.Tuple) or \
            len(annotation.slice.elts) != 2:
        return None
    t = _dotted(module.namespace, annotation.value)
    value = annotation.slice.elts[1]
    value_type = _dotted(module.namespace, value.value if isinstance(value, ast.Subscript) else value)
    if not any(t is m for m in _MAPPINGS) or not (value_type is float or _array_type(value_type)):
        return None
    kind = FLOAT if value_type is float else ARRAY
    return Parameter(name, True, items_kind(kind),
                     f"a dict of {'real numbers' if kind == FLOAT else 'real arrays'} (its items read by key)")


def _object(module: static.StaticModule, name: str, annotation: ast.expr) -> Optional[Parameter]:
    """A parameter annotated with a dataclass (the module's own, built for
    this, or an imported one) whose fields are annotated ``float`` or
    ``np.ndarray`` (or ``NDArray``): each field read is differentiated as a
    parameter of that kind would be, and the gradient is a namespace of the
    fields' gradients (see ``analysis.fields_kind``)."""
    if isinstance(annotation, ast.Name) and annotation.id not in module.namespace:
        module.resolve(annotation.id)  # (a class statement is run only when needed)
    cls = _dotted(module.namespace, annotation)
    typed_dict = isinstance(cls, type) and typing.is_typeddict(cls)
    if not (isinstance(cls, type) and (dataclasses.is_dataclass(cls) or typed_dict)):
        return None
    try:
        hints = typing.get_type_hints(cls, globalns=module.namespace if cls.__module__ == module.namespace.get(
            "__name__") else None)
    except Exception:  # (an annotation naming what the module does not define: nothing known)
        return None
    kinds = {}
    for f in hints if typed_dict else [f.name for f in dataclasses.fields(cls)]:
        t = hints.get(f)
        if t is not float and not _array_type(t):
            return None
        kinds[f] = FLOAT if t is float else ARRAY
    described = ", ".join(f"{f} ({'a real number' if k == FLOAT else 'a real array'})" for f, k in kinds.items())
    own = annotation.id if isinstance(annotation, ast.Name) and annotation.id in module.bindings else None
    if typed_dict:
        return Parameter(name, True, items_kind(kinds), f"a {cls.__name__} (a dict) of real items: {described}", own)
    return Parameter(name, True, fields_kind(kinds), f"a {cls.__name__} of real fields: {described}", own)


def _dotted(namespace: dict, node: ast.expr) -> Any:
    if isinstance(node, ast.Name):  # (a builtin where the module does not bind the name: dict, float)
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        return getattr(_dotted(namespace, node.value), node.attr, None)
    return None


# --------------------------------------------------------------------------
# The gradient module
# --------------------------------------------------------------------------

@dataclass
class Emitted:
    """A gradient module: its text, and what went into it."""

    text: str
    functions: list[str]
    skipped: dict[str, tuple[int, str]]
    """Functions that could not be emitted → (the source line, why)."""
    digests: dict[str, str]
    not_differentiable: dict[str, str] = field(default_factory=dict)
    """Functions that are plainly not differentiable (a ``main``, no real
    parameter) → why: listed, never a failure."""


def emit_module(
    path: Path, functions: Optional[list[str]] = None, shown_path: Optional[str] = None,
    command: Optional[str] = None,
) -> Emitted:
    """The gradient module of the source file ``path``: of the named
    ``functions`` (``name``, or ``Class.name`` for a method), or of every
    top-level function and method of a top-level class. A function that
    cannot be emitted is left out and listed in :attr:`Emitted.skipped`
    with the reason (callers decide whether that fails the run); one that
    is plainly not differentiable in :attr:`Emitted.not_differentiable`.
    ``shown_path`` is the source's name in the header; ``command`` the
    command that regenerates the file. The module's directory is first on
    ``sys.path`` meanwhile (:func:`~zygote_py.frontend.static.search_path`)."""
    with static.search_path(path):
        return _emit_module(path, functions, shown_path or path.name, command)


def _emit_module(path: Path, functions: Optional[list[str]], shown: str, command: Optional[str]) -> Emitted:
    module = static.load(path)
    names = functions if functions is not None else _every_function(module)
    planned: list[tuple[str, list[Parameter]]] = []
    skipped: dict[str, tuple[int, str]] = {}
    idle: dict[str, str] = {}
    for name in names:
        owner, _, method = name.rpartition(".")
        b = module.bindings.get(owner or name)
        if b is None or b.kind != ("class" if owner else "function") or owner and method not in {
                m.rpartition(".")[2] for m in module.methods(owner)}:
            raise NoSuchFunction(f"{path} has no top-level function or method {name!r}", filename=str(path),
                                 hint="zpy emit differentiates the module's top-level def statements and the "
                                 "plain methods of its top-level classes (Class.method)")
        params = plan(module, name)
        why = _not_differentiable(module, name, params)
        if why is not None and functions is not None:  # (asked for by name: a failure)
            skipped[name] = (module.node(name).lineno, why)
        elif why is not None:
            idle[name] = why
        else:
            planned.append((name, params))
    writer = _Writer(module)
    built: list[tuple[str, list[Parameter], list[ast.FunctionDef]]] = []
    for name, params in planned:
        try:
            module.check_names(name)
            built.append((name, params, _gradient_defs(module, name, params)))
        except Exception as e:
            skipped[name] = _reason(module, name, e)
    for _, _, defs in built:
        writer.reserve(defs)
    chosen = []
    for name, params, defs in built:
        try:
            writer.add(defs)
            chosen.append((name, params, defs))
        except Exception as e:
            skipped[name] = _reason(module, name, e)
    body = writer.texts()
    deps = module.dependencies([name for name, _, _ in chosen] + [p.reads for _, params, _ in chosen for p in params
                                                                  if p.reads is not None])
    digests = {d: module.digest(d) for d in deps}
    text = _header(shown, digests, skipped, idle, command or f"zpy emit {shown}") + writer.preamble()
    for (name, params, _), defs in zip(chosen, body):
        line = module.node(name).lineno
        text += f"\n\n# {name} ({shown}, line {line}): " + "; ".join(
            f"{p.name}: {p.described}" for p in params) + "\n" + "\n\n\n".join(defs) + "\n"
    return Emitted(text, [n for n, _, _ in chosen], skipped, digests, idle)


def _every_function(module: static.StaticModule) -> list[str]:
    """The module's top-level functions and the methods of its top-level
    classes, in source order."""
    out = []
    for name, b in module.bindings.items():
        if b.kind == "function":
            out.append(name)
        elif b.kind == "class":
            out += module.methods(name)
    return out


_IO = {"print", "open", "input"}


def _not_differentiable(module: static.StaticModule, name: str, params: list[Parameter]) -> Optional[str]:
    """Why function ``name`` is plainly not differentiable, if it is: no
    parameter is differentiated, it is a ``main``, or it does I/O."""
    if not any(p.active for p in params):
        return f"{name} has no differentiated parameter (annotate one float or np.ndarray, or leave it unannotated)"
    if name == "main":
        return f"{name} is a main function"
    node = module.node(name)
    io = sorted({n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id in _IO and n.func.id not in module.bindings})
    if io:
        return f"{name} does I/O ({', '.join(io)})"
    return None


def _reason(module: static.StaticModule, name: str, e: Exception) -> tuple[int, str]:
    """Why ``name`` was not emitted: the user's line, and what (with the
    hint)."""
    if isinstance(e, ZygoteError):
        line = e.line if e.line is not None and (e.filename is None or Path(e.filename) == module.path) \
            else module.node(name).lineno
        why = e.message.replace("\n", " ") + (f" ({e.hint})" if e.hint else "")
    else:  # (a failure of zygote_py itself: reported, never a crash of zpy emit)
        line = module.node(name).lineno
        why = f"zygote_py failed on it: {type(e).__name__}: {e}"
    return line, why


def _header(shown: str, digests: dict[str, str], skipped: dict[str, tuple[int, str]], idle: dict[str, str],
            command: str) -> str:
    width = max(map(len, digests), default=0)
    lines = [
        f"# Gradients of {shown}, written by zygote_py {__version__}.",
        f"{HEADER_LINE}: {command}",
        "#",
        "# Source definitions (sha256 of their text, first 16 hex digits):",
        *(f"#   {name.ljust(width)}  {digest}" for name, digest in digests.items()),
        "#",
        "# NAME_forward(*args) returns (y, pullback) and pullback(dy) the gradients",
        "# (it may be called again); NAME_gradient(*args) returns the gradients;",
        "# a method Class.name gives Class_name_forward(self, ...) and",
        "# Class_name_gradient(self, ...).",
        "# Parameters annotated int, bool, str or bytes, or with such a default,",
        "# are not differentiated; float means a real number, np.ndarray a real",
        "# array, and no annotation what the function's use of the parameter",
        "# says (each function's kinds are listed above it, and checked when it",
        "# runs); a dataclass whose fields are annotated so (or a method's self",
        "# of one) gets a types.SimpleNamespace of its fields' gradients (the",
        "# attributes of zpy.gradient's Tangent); a dict[str, float],",
        "# dict[str, np.ndarray] or TypedDict so, a dict of its items' gradients",
        "# (None for an item not read).",
    ]
    if idle:
        lines += ["#", "# Not differentiable:"] + [f"#   {k}: {v}" for k, v in idle.items()]
    if skipped:
        lines += ["#", "# Not emitted (zpy emit --skip-failing):"] + [
            f"#   {k} (line {line}): {why}" for k, (line, why) in skipped.items()]
    return "\n".join(lines) + "\n"


def _summary(value: Any) -> str:
    doc = inspect.getdoc(value) or ""
    first = re.split(r"(?<=[.:])\s", " ".join(doc.split()), maxsplit=1)[0]
    return first[:100].rstrip(".:") or "a zygote_py helper"


def _gradient_defs(module: static.StaticModule, name: str, params: list[Parameter]) -> list[ast.FunctionDef]:
    """``name_forward`` and ``name_gradient`` as Python ``ast`` definitions,
    their constants replaced by :func:`_constant` placeholders."""
    fn = module.function(name)
    inlined = callees.IMPLEMENTATIONS.set(True)  # (scipy.stats.norm.logpdf as its formula, not runtime.J)
    try:
        entry = pipeline.compiled(fn, tuple(p.active for p in params), tuple(p.kind for p in params), False)
    finally:
        callees.IMPLEMENTATIONS.reset(inlined)
    out = []
    for fdef, constants in (entry.forward_def(), entry.gradient_def(value=False)):
        tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))  # (new nodes: the entry's stay as they are)
        node = _without_caught_checks(ast.fix_missing_locations(tree).body[0], constants)
        if "." in name:  # (Class.name → Class_name_forward: one flat namespace of functions)
            renamed = {f.name: name.replace(".", "_") + f.name[len(fn.__name__):] for f in ast.walk(node)
                       if isinstance(f, ast.FunctionDef) and f.name.startswith(fn.__name__ + "_")}
            for n in ast.walk(node):
                if isinstance(n, ast.FunctionDef) and n.name in renamed:
                    n.name = renamed[n.name]
                elif isinstance(n, ast.Name) and n.id in renamed:
                    n.id = renamed[n.id]
        arrays = [p.name for p in params if p.kind == ARRAY and p.active and not _assigned(node, p.name)]
        if node.name.endswith("_gradient"):
            for ret in _returns(node):
                ret.value = _second(ret.value)
                _wrap_gradients(ret, params, arrays)
        else:
            for pullback in [n for n in ast.walk(node) if isinstance(n, ast.FunctionDef) and n is not node]:
                for ret in _returns(pullback):  # (one pullback per return of the forward)
                    _wrap_gradients(ret, params, arrays)
                _recallable(pullback)
        node = _Placeholders(constants).visit(node)
        _with_defaults(node, module.node(name))
        _check_kinds(node, params)
        _drop_unused_values(node, fn.__globals__)
        tidy.tidy(node)
        out.append(node)
    return out


def _check_kinds(fdef: ast.FunctionDef, params: list[Parameter]) -> None:
    """Begin ``fdef`` with a check that each differentiated real number or
    array parameter (or field of a dataclass parameter) holds one: code
    emitted for a number gives a wrong gradient for an array, where
    ``zpy.gradient`` would compile another."""
    values = []  # (kind, keyword, the value's expression)
    for p in params:
        if p.active and isinstance(p.kind, tuple) and p.kind[0] == "fields":
            values += [(k, f"{p.name}_{f}", ast.Attribute(value=ast.Name(id=p.name, ctx=ast.Load()), attr=f,
                                                        ctx=ast.Load())) for f, k in p.kind[1]]
        elif p.active and isinstance(p.kind, tuple):  # (a dict's items: those of its kind, or every one read)
            kinds = dict(p.kind[1]) if isinstance(p.kind[1], tuple) else dict.fromkeys(_keys_read(fdef, p.name),
                                                                                         p.kind[1])
            values += [(_EITHER if key in p.either else k, re.sub(r"\W", "_", f"{p.name}_{key}"), ast.Subscript(
                value=ast.Name(id=p.name, ctx=ast.Load()), slice=ast.Constant(key), ctx=ast.Load()))
                for key, k in kinds.items()]
        elif p.active:
            values.append((_EITHER if p.either else p.kind, p.name, ast.Name(id=p.name, ctx=ast.Load())))
    checks = [(check, [ast.keyword(arg=n, value=e) for k, n, e in values if k == kind])
              for kind, check in ((FLOAT, standalone.real_numbers), (ARRAY, standalone.real_arrays),
                                  (_EITHER, standalone.real_values))]
    checks = [(check, keywords) for check, keywords in checks if keywords]
    if len(checks) == 2 and checks[1][0] is standalone.real_arrays:
        # (one line: real_parameters(numbers=dict(b=b), arrays=dict(w=w, x=x)))
        checks = [(standalone.real_parameters, [
            ast.keyword(arg=arg, value=ast.Call(func=ast.Name(id="dict", ctx=ast.Load()), args=[], keywords=keywords))
            for arg, (_, keywords) in zip(("numbers", "arrays"), checks)])]
    for check, keywords in checks:
        call = ast.Call(func=_constant(check, check.__name__), args=[], keywords=keywords)
        fdef.body.insert(0, ast.Expr(value=call))
    ast.fix_missing_locations(fdef)


def _keys_read(fdef: ast.FunctionDef, name: str) -> list[str]:
    """The constant keys of the reads ``name["key"]`` in ``fdef``, in order."""
    return list(dict.fromkeys(n.slice.value for n in ast.walk(fdef) if isinstance(n, ast.Subscript) and isinstance(
        n.value, ast.Name) and n.value.id == name and isinstance(n.slice, ast.Constant) and type(n.slice.value) is str))


def _with_defaults(fdef: ast.FunctionDef, source: ast.FunctionDef) -> None:
    """Give ``fdef`` the default values of the source function, whose
    parameters it takes (``near_gradient(x, steps=3)``)."""
    def names(a: ast.arguments) -> list[str]:
        return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]

    if names(fdef.args) == names(source.args):
        fdef.args.defaults = copy.deepcopy(source.args.defaults)
        fdef.args.kw_defaults = copy.deepcopy(source.args.kw_defaults)


_PURE = ("math", "cmath", "numpy")


def _drop_unused_values(fdef: ast.FunctionDef, namespace: dict) -> None:
    """Drop the statements ``name = expression`` of ``fdef``'s body that
    compute what nothing reads (the value a fused gradient does not
    return, the record of a branch no pullback tests), where the expression is arithmetic and calls of NumPy's and
    ``math``'s functions, which change nothing; then an ``if`` whose
    branches that leaves empty, and an empty ``else``. ``namespace``: the
    globals of the source function."""
    def value(e: ast.expr) -> Any:
        if hasattr(e, "constant"):
            return e.constant
        return namespace.get(e.id) if isinstance(e, ast.Name) else None

    def pure(e: ast.expr) -> bool:
        for n in ast.walk(e):
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Attribute) and isinstance(value(f.value), types.ModuleType):
                    f = getattr(value(f.value), f.attr, None)
                else:
                    f = value(f)
                if not (isinstance(f, np.ufunc) or getattr(f, "__module__", None) in _PURE):
                    return False
            elif isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda)):
                return False
        return True

    def empty(body: list) -> bool:
        return all(isinstance(st, ast.Pass) for st in body)

    def dead(st: ast.stmt) -> bool:
        if isinstance(st, ast.Pass):
            return True  # (put back where a body would be left empty)
        if isinstance(st, ast.If):  # (both branches left empty by the statements dropped from them)
            return empty(st.body) and empty(st.orelse) and pure(st.test)
        return isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
            and st.targets[0].id not in read and pure(st.value)

    changed = True
    while changed:
        changed = False
        read = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for n in ast.walk(fdef):
            if isinstance(n, ast.If) and n.orelse and empty(n.orelse):
                n.orelse = []  # (no else: pass)
                changed = True
            for name in ("body", "orelse"):
                body = getattr(n, name, None)
                if isinstance(body, list) and any(isinstance(st, ast.stmt) and dead(st) for st in body) and (
                        n is fdef or not isinstance(n, (ast.FunctionDef, ast.Lambda))) and not (
                        len(body) == 1 and isinstance(body[0], ast.Pass)):
                    kept = [st for st in body if not dead(st)]
                    setattr(n, name, kept or ([] if name == "orelse" else [ast.Pass()]))
                    changed = True


def _recallable(pullback: ast.FunctionDef) -> None:
    """Make the pullback read the forward's records from copies of them, so
    that it may be called again, as ``zpy.pullback``'s may: each record
    ``saved`` it pops (a list the forward filled) becomes ``saved_left =
    list(saved)`` at its start."""
    popped = sorted({n.func.value.id for n in ast.walk(pullback)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop"
                     and isinstance(n.func.value, ast.Name)})
    local = {n.id for n in ast.walk(pullback) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for a in pullback.args.args}
    stacks = [name for name in popped if name not in local]
    taken = {n.id for n in ast.walk(pullback) if isinstance(n, ast.Name)}
    copies = {}
    for name in stacks:
        new = name + "_left"
        while new in taken:
            new += "_"
        copies[name] = new
    for n in ast.walk(pullback):
        if isinstance(n, ast.Name) and n.id in copies:
            n.id = copies[n.id]
    pullback.body[0:0] = [
        ast.Assign(targets=[ast.Name(id=new, ctx=ast.Store())],
                   value=ast.Call(func=ast.Name(id="list", ctx=ast.Load()), args=[ast.Name(id=old, ctx=ast.Load())],
                                  keywords=[]))
        for old, new in copies.items()
    ]
    ast.fix_missing_locations(pullback)


def _without_caught_checks(node: ast.FunctionDef, constants: dict[str, Any]) -> ast.FunctionDef:
    """``node`` without its ``runtime.caught(e)`` statements: in a gradient
    module the functions call each other's emitted code, so no exception is
    marked as carrying a differentiated value (see ``pipeline.call_forward``)."""
    def is_check(st: ast.stmt) -> bool:
        call = st.value if isinstance(st, ast.Expr) else None
        f = call.func if isinstance(call, ast.Call) else None
        return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            constants.get(f.value.id) is runtime and f.attr == "caught"

    for n in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(n, field, None)
            if isinstance(body, list) and any(isinstance(st, ast.stmt) and is_check(st) for st in body):
                setattr(n, field, [st for st in body if not is_check(st)] or [ast.Pass()])
    return node


def _returns(fdef: ast.FunctionDef) -> list[ast.Return]:
    """The ``return`` statements of ``fdef`` itself (not of nested
    functions)."""
    out, todo = [], list(fdef.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return):
            out.append(n)
        elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo += [c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt)]
    return out


def _second(value: ast.expr) -> ast.expr:
    """``(y, grads)`` → ``grads``."""
    if isinstance(value, ast.Tuple) and len(value.elts) == 2:
        return value.elts[1]
    return ast.Subscript(value=value, slice=ast.Constant(1), ctx=ast.Load())


def _assigned(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(node))


def _wrap_gradients(ret: ast.Return, params: list[Parameter], arrays: list[str]) -> None:
    """An array parameter's gradient goes through ``user_gradient`` (an
    unreached one is the number 0: zeros of its shape, as ``zpy.gradient``
    returns)."""
    if not isinstance(ret.value, ast.Tuple) or len(ret.value.elts) != len(params):
        return
    for i, p in enumerate(params):
        g = ret.value.elts[i]
        if p.name in arrays and not (isinstance(g, ast.Constant) and g.value is None):
            ret.value.elts[i] = ast.Call(
                func=_constant(standalone.runtime.user_gradient, "user_gradient"),
                args=[ast.Name(id=p.name, ctx=ast.Load()), g], keywords=[],
            )


def _constant(value: Any, hint: str, line: Optional[int] = None) -> ast.Name:
    """A read of ``value`` (a module, a helper...), named when the module is
    written (see :class:`_Writer`): a name carrying ``constant``, ``hint``
    (the emitter's name for it) and ``line`` (in the source)."""
    node = ast.Name(id=f"__zpy_constant_{id(value)}", ctx=ast.Load())
    node.constant, node.hint, node.line = value, hint, line
    return node


def _is_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and hasattr(node, "constant")


class _Placeholders(ast.NodeTransformer):
    """Every read of a constant → a :class:`_Constant`; ``m.attr`` of a
    zygote_py module ``m`` → the constant ``m.attr``."""

    def __init__(self, constants: dict[str, Any]):
        self.constants = constants

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.constants:
            return ast.copy_location(_constant(self.constants[node.id], node.id, getattr(node, "lineno", None)), node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        base = node.value
        if isinstance(base, ast.Name) and base.id in self.constants and isinstance(node.ctx, ast.Load):
            m = self.constants[base.id]
            if isinstance(m, types.ModuleType) and _ours(m) and hasattr(m, node.attr):
                return ast.copy_location(
                    _constant(getattr(m, node.attr), node.attr, getattr(node, "lineno", None)), node)
        self.generic_visit(node)
        return node


def _ours(value: Any) -> bool:
    name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
    return isinstance(name, str) and (name == _PACKAGE or name.startswith(_PACKAGE + "."))


class _NotCopyable(Exception):
    pass


class _Writer:
    """Names every value the emitted definitions read at module level:
    the source module's own bindings under their names, then each
    constant — reused when already bound, a builtin by its name, a
    zygote_py helper copied (or imported, listed in ``runtime``), a module
    imported, a literal assigned."""

    def __init__(self, module: static.StaticModule):
        self.module = module
        self.names: dict[str, Any] = {}
        self.by_id: dict[int, str] = {}
        self.local: set[str] = set()
        self.imports: list[str] = []
        self.literals: list[str] = []
        self.helpers: list[str] = []
        self.sources: list[str] = []
        self.defs: list[list[ast.FunctionDef]] = []

    # -- the whole module --------------------------------------------------

    def reserve(self, defs: list[ast.FunctionDef]) -> None:
        """Keep the names ``defs`` bind from naming module-level values."""
        for d in defs:
            self.local |= _locals(d)
            self.local.add(d.name)

    def add(self, defs: list[ast.FunctionDef]) -> None:
        """Name what one function's definitions (reserved first) read; if
        that fails (:class:`CannotEmit`), nothing of them is kept."""
        state = {k: copy.copy(v) for k, v in vars(self).items() if k not in ("module", "defs")}
        try:
            for d in defs:
                clash = self.module.bindings.get(d.name)
                if clash is not None:
                    raise CannotEmit(f"the gradient module would define {d.name}, which the source module "
                                     "defines too", filename=str(self.module.path), line=clash.line,
                                     hint="rename it, or emit the other functions with --function")
            for d in defs:
                for g in _globals(d):
                    self._user(g)
            for d in defs:
                self._by_rules(d)
            for d in defs:
                for c in _constants(d):
                    self._resolve(c)
        except Exception:
            vars(self).update(state)
            raise
        self.defs.append(defs)

    def _by_rules(self, d: ast.FunctionDef) -> None:
        """``runtime.J(f, *args)`` of a callee ``f`` known when emitting (the
        kinds of its arguments are not) whose derivative rule can be copied:
        ``by_rule(f, rule, *args)``, the rule copied (see
        :func:`.standalone.by_rule`). Other calls of ``J`` stay, and refuse
        the function (:meth:`_resolve`)."""
        local = _locals(d)
        for n in ast.walk(d):
            if not (isinstance(n, ast.Call) and _is_constant(n.func) and n.func.constant is runtime.J and n.args
                    and not n.keywords and not any(isinstance(a, ast.Starred) for a in n.args)):
                continue
            f = self._known(n.args[0], local)
            method = _array_method(f, n.args)
            rule = registry.lookup(method or f) if f is not None and f is not getattr else None
            if rule is None:
                continue
            try:
                self._check_copyable(rule, set())
            except _NotCopyable:
                continue
            helper = standalone.by_method if method else standalone.by_rule
            n.func = _constant(helper, helper.__name__, n.func.line)
            if method:  # (by_method(rule, obj, name, *args))
                n.args[0] = _constant(rule, rule.__name__, n.func.line)
            else:  # (by_rule(f, rule, *args))
                n.args.insert(1, _constant(rule, rule.__name__, n.func.line))

    def _known(self, node: ast.expr, local: set[str]) -> Any:
        """The value ``node`` reads when it is a constant, a builtin, a module
        the source imports or an attribute of one (``operator.matmul``,
        ``np.ndarray.reshape``); else None."""
        if _is_constant(node):
            return node.constant
        if isinstance(node, ast.Name) and node.id not in local:
            b = self.module.bindings.get(node.id)
            if b is None:
                return getattr(builtins, node.id, None)
            return self.module.namespace.get(node.id) if b.kind == "import" else None  # (np of import numpy as np)
        if isinstance(node, ast.Attribute):
            base = self._known(node.value, local)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def texts(self) -> list[list[str]]:
        """The added definitions' text, grouped per function (forward,
        gradient)."""
        return [[ast.unparse(_Substitute().visit(d)) for d in defs] for defs in self.defs]

    def preamble(self) -> str:
        plain = sorted(i for i in self.imports if i.startswith("import ") and _PACKAGE not in i)
        froms = sorted(i for i in self.imports if i.startswith("from ") and _PACKAGE not in i)
        ours = sorted(i for i in self.imports if _PACKAGE in i)
        parts = ["\n".join(g) for g in (plain + froms, ours) if g]
        text = "\n" + "\n\n".join(parts) + "\n" if parts else ""
        if self.literals:
            text += "\n" + "\n".join(self.literals) + "\n"
        for d in self.helpers + self.sources:
            text += "\n\n" + d + "\n"
        return text

    # -- the source module's names -----------------------------------------

    def _user(self, name: str) -> None:
        """Bind ``name`` as the source module binds it."""
        if name in self.names or name not in self.module.bindings and hasattr(builtins, name):
            return
        b = self.module.bindings.get(name)
        if b is None:
            raise CannotEmit(f"the gradient reads {name!r}, which the module does not define",
                             filename=str(self.module.path))
        if b.kind == "function":
            self._claim(name, self.module.functions.get(name))
            node = self.module.node(name)
            self.local |= _locals(node)
            self.sources.append(ast.get_source_segment(self.module.text, node))
            for g in self.module.global_names(name):
                self._user(g)
            return
        value = self.module.namespace[name]
        self._claim(name, value)
        if b.kind in ("value", "class"):  # (not written out: read from the source module, as it is)
            self.imports.append(f"from {self.module.path.stem} import {name}")
        elif b.kind == "literal":
            self.literals.append(f"{name} = {ast.get_source_segment(self.module.text, b.node.value)}")
        elif b.attr is None:
            self.imports.append(_import(b.module, name))
        else:
            self.imports.append(f"from {b.module} import {b.attr}" + ("" if b.attr == name else f" as {name}"))

    def _claim(self, name: str, value: Any) -> None:
        self.names[name] = value
        self.by_id.setdefault(id(value), name)

    def _free(self, hint: str) -> str:
        name, k = hint, 0
        while name in self.names or name in self.local or name in self.module.bindings or not name.isidentifier():
            k += 1
            name = f"{hint}_{k}"
        return name

    # -- constants ---------------------------------------------------------

    def _resolve(self, c: ast.Name) -> None:
        """Decide the name that reads ``c`` (``c.expr``); a zygote_py helper
        that cannot be copied is a :class:`CannotEmit` at ``c``'s line."""
        try:
            c.expr = self._name_of(c.constant, c.hint)
        except _NotCopyable:
            what = f"{_origin(c.constant)}.{getattr(c.constant, '__qualname__', c.hint)}"
            raise CannotEmit(f"its gradient would call {what} when it runs ({_summary(c.constant)}), and a "
                             "gradient module runs without zygote_py", filename=str(self.module.path),
                             line=c.line, hint="annotate the parameters (float, np.ndarray, int) so that the "
                             "kind of every value is known, or differentiate it with zpy.gradient") from None

    def _name_of(self, value: Any, hint: str) -> str:
        if id(value) not in self.by_id:
            bound = [n for n, b in self.module.bindings.items()
                     if b.kind == "import" and self.module.namespace.get(n) is value]
            if bound:  # (as the source module imports it: numpy as np)
                self._user(bound[0])
        if id(value) in self.by_id:
            return self.by_id[id(value)]
        b = getattr(value, "__name__", None)
        if isinstance(b, str) and getattr(builtins, b, None) is value and b not in self.names \
                and b not in self.local and b not in self.module.bindings:
            self._claim(b, value)
            return b
        if _sentinel(value):  # (ops.UNBOUND): a fresh one, shared by the helpers reading it
            name = self._free(hint)
            self._claim(name, value)
            self.literals.append(f"{name} = object()")
            return name
        if _ours(value) and not isinstance(value, types.ModuleType):
            self._check_copyable(value, set())
            return self._copy(value)
        if isinstance(value, types.ModuleType):
            name = self._free(hint)
            self._claim(name, value)
            self.imports.append(_import(value.__name__, name))
            return name
        if literal(value) or type(value) is float:
            if type(value) is float and hint == "const":
                hint = "nan" if value != value else "inf"
            name = self._free(hint)
            self._claim(name, value)
            self.literals.append(f"{name} = {_float(value) if type(value) is float else repr(value)}")
            return name
        where = importable(value) or _special_ufunc(value)
        if where is None:
            raise CannotEmit(f"the gradient reads a {type(value).__name__} ({value!r:.60}) that cannot be "
                             "written into a module", filename=str(self.module.path),
                             hint="bind it by an import or a literal in the source module")
        name = self._free(hint)
        self._claim(name, value)
        self.imports.append(f"from {where[0]} import {where[1]}" + ("" if where[1] == name else f" as {name}"))
        return name

    def _source(self, fn: types.FunctionType) -> ast.FunctionDef:
        node = ast.parse(textwrap.dedent(inspect.getsource(fn.__code__))).body[0]
        if not isinstance(node, ast.FunctionDef) or fn.__code__.co_freevars:
            raise _NotCopyable(fn)
        node.decorator_list = []  # (fn is the function this def makes, its code read: @adjoint(f) registers it)
        return static._without_annotations(node)

    def _check_copyable(self, fn: Any, seen: set) -> None:
        """Raise :class:`_NotCopyable` unless ``fn`` (or its replacement in
        :mod:`.standalone`) and the helpers it calls read only modules,
        literals, builtins and other copyable helpers."""
        fn = _replacement(fn)
        if id(fn) in seen or id(fn) in self.by_id:
            return
        seen.add(id(fn))
        if not isinstance(fn, types.FunctionType) or not _ours(fn):
            raise _NotCopyable(fn)
        for _, v, _ in _references(fn, self._source(fn)):
            if v is not _BUILTIN and not _sentinel(v) and \
                    not (isinstance(v, types.ModuleType) and not _ours(v) or literal(v)):
                self._check_copyable(v, seen)

    def _copy(self, value: Any) -> str:
        fn = _replacement(value)
        if id(fn) in self.by_id:  # (copied already, read by another helper: standalone.is_foreign)
            self.by_id[id(value)] = self.by_id[id(fn)]
            return self.by_id[id(fn)]
        name = self._free(fn.__name__)
        self._claim(name, value)
        self.by_id[id(fn)] = name
        node = self._source(fn)
        self.local |= _locals(node)
        refs = _references(fn, node)
        for ref, v, hint in refs:
            if v is not _BUILTIN:
                ref.id = self._name_of(v, hint)
        node = _Flatten().visit(node)
        node.name = name
        self.helpers.append(f"# {_origin(value)}.{value.__qualname__}\n" + ast.unparse(node))
        return name


def _array_method(f: Any, args: list[ast.expr]) -> Any:
    """``np.ndarray.sum`` for ``J(mutation.call_method, x, "sum", ...)``: a
    method of NumPy's arrays that changes nothing (its value an array), on
    an object whose kind is known only when it runs; else None."""
    if f is not mutation.call_method or len(args) < 3 or not isinstance(args[2], ast.Constant):
        return None
    method = getattr(np.ndarray, str(args[2].value), None)
    return method if method is not None and member(method, ARRAY_VALUED) else None


def _special_ufunc(value: Any) -> Optional[tuple[str, str]]:
    """``("scipy.special", name)`` for one of its ufuncs (which name no
    module: ``psi``, read by ``gammaln``'s rule), if SciPy is imported."""
    special = sys.modules.get("scipy.special")
    name = getattr(value, "__name__", None)
    if isinstance(value, np.ufunc) and special is not None and getattr(special, name, None) is value:
        return "scipy.special", name
    return None


def _replacement(value: Any) -> Any:
    """What a gradient module copies for ``value``: its plain version in
    :mod:`.standalone`, or itself."""
    try:
        return standalone.REPLACES.get(value, value)
    except TypeError:  # (unhashable: a namespace a rule reads)
        return value


def _origin(value: Any) -> str:
    """The module a zygote_py helper is read from (``zygote_py.runtime``
    for a run-time helper, as emitted code names it)."""
    home = registry.home_module(value)
    return value.__module__ if home is None else home.__name__


_BUILTIN = object()


def _sentinel(value: Any) -> bool:
    """A marker value, such as ``ops.UNBOUND`` or the standalone ``STOP``."""
    return type(value) is object or isinstance(value, ops.Sentinel)


def _references(fn: types.FunctionType, node: ast.FunctionDef) -> list[tuple[ast.Name, Any, str]]:
    """The global reads of the helper ``fn`` (whose definition is ``node``):
    ``(name node, value, name)``, the value being ``_BUILTIN`` for a builtin;
    ``m.attr`` of a zygote_py module ``m`` is a read of that attribute (its
    name node is marked to replace the attribute). Raises
    :class:`_NotCopyable` for a name it cannot resolve or a zygote_py module
    read otherwise."""
    names = set(static.global_names(node))
    namespace = dict(fn.__globals__)
    for n in list(ast.walk(node)):  # (runtime.arrays.is_foreign: the module runtime.arrays read as one name)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and \
                isinstance(n.value.value, ast.Name) and n.value.value.id in names:
            m = namespace.get(n.value.value.id)
            inner = getattr(m, n.value.attr, None) if isinstance(m, types.ModuleType) and _ours(m) else None
            if isinstance(inner, types.ModuleType) and _ours(inner):
                alias = "__zpy_module_" + inner.__name__.replace(".", "_")
                namespace[alias] = inner
                names.add(alias)
                n.value = ast.Name(id=alias, ctx=ast.Load())
    out = []
    attribute_bases = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in names:
            m = namespace.get(n.value.id)
            if isinstance(m, types.ModuleType) and _ours(m):
                if not hasattr(m, n.attr):
                    raise _NotCopyable(fn)
                n.value.flatten = True
                attribute_bases.add(id(n.value))
                out.append((n.value, getattr(m, n.attr), n.attr))
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in names and id(n) not in attribute_bases:
            if n.id in namespace:
                v = namespace[n.id]
                if isinstance(v, types.ModuleType) and _ours(v):
                    raise _NotCopyable(fn)
                out.append((n, v, n.id))
            elif hasattr(builtins, n.id):
                out.append((n, _BUILTIN, n.id))
            else:
                raise _NotCopyable(fn)
    return out


class _Flatten(ast.NodeTransformer):
    """``m.attr`` whose base was marked by :func:`_references` → the name
    given to the base (the copied helper ``attr``)."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if getattr(node.value, "flatten", False):
            return ast.copy_location(ast.Name(id=node.value.id, ctx=node.ctx), node)
        self.generic_visit(node)
        return node


class _Substitute(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if _is_constant(node):
            base, _, attr = node.expr.partition(".")
            new = ast.Name(id=base, ctx=ast.Load())
            if attr:
                new = ast.Attribute(value=new, attr=attr, ctx=ast.Load())
            return ast.copy_location(new, node)
        return node


def _constants(d: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(d) if _is_constant(n)]


def _locals(d: ast.AST) -> set[str]:
    """Every name ``d`` binds anywhere (parameters, assignments, nested
    functions): none of them can name a module-level value."""
    out = set()
    for n in ast.walk(d):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not d:
            out.add(n.name)
    return out


def _globals(d: ast.FunctionDef) -> list[str]:
    """The global names ``d`` reads other than its constants."""
    names = static.global_names(d)
    return [n for n in names if not n.startswith("__zpy_constant_")]


def _import(module: str, name: str) -> str:
    if module == name:
        return f"import {module}"
    parent, _, last = module.rpartition(".")
    if last == name and parent:
        return f"from {parent} import {name}"
    return f"import {module} as {name}"


def _float(x: float) -> str:
    """A float as a Python expression (``float('inf')`` for infinity)."""
    return repr(x) if x == x and abs(x) != float("inf") else f"float({str(x)!r})"


# --------------------------------------------------------------------------
# Staleness
# --------------------------------------------------------------------------

_DIGEST = re.compile(r"^#   (\w+)\s+([0-9a-f]{16})$")


def digests_of(text: str) -> dict[str, str]:
    """The source digests listed in a gradient module's header."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        m = _DIGEST.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def stale(current: Emitted, old: str) -> list[str]:
    """Why the gradient module text ``old`` differs from ``current``: the
    source definitions that changed, were added or were removed, or else
    what else did."""
    before = digests_of(old)
    reasons = [
        f"{name} {'changed' if name in before else 'added'}"
        for name, d in current.digests.items() if before.get(name) != d
    ] + [f"{name} removed" for name in before if name not in current.digests]
    if reasons:
        return reasons
    version = re.search(r"written by zygote_py (\S+)\.$", old.partition("\n")[0])
    if version and version.group(1) != __version__:
        return [f"written by zygote_py {version.group(1)}, this is {__version__}"]
    return ["its text differs from what zpy emit writes now (edited by hand, or zygote_py's output changed)"]
