"""Python source → function objects, and the compile cache.

An emitted function is compiled inside a factory whose parameters are the
names the emitted code reads but Python cannot resolve by itself: the
constants the emitter bound (functions, modules, non-literal values) and
the original function's free variables. The factory is never called: we
take the inner code object and build the function with
``types.FunctionType``, giving it the original function's globals (so global
names are read at call time, as Python would) and a closure made of the
original cells (so ``nonlocal`` writes and later rebinding by the enclosing
function are shared) plus fresh cells for the constants.
"""
from __future__ import annotations

import threading
import types
import weakref
from typing import Any, Callable, Optional

import gast

from ..ir.core import IR, Signature
from .emit import FunctionEmitter, name
from .structure import structure

_FACTORY = "_zpy_factory"
_INNER = "_zpy_function"


def arguments(sig: Signature) -> gast.arguments:
    def arg(n: str) -> gast.Name:
        return gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)

    return gast.arguments(
        args=[arg(n) for n in sig.args],
        posonlyargs=[arg(n) for n in sig.posonly],
        vararg=arg(sig.vararg) if sig.vararg else None,
        kwonlyargs=[arg(n) for n in sig.kwonly],
        kw_defaults=[None] * len(sig.kwonly),
        kwarg=arg(sig.kwarg) if sig.kwarg else None,
        defaults=[],
    )


def function_def(
    ir: IR, fname: Optional[str] = None, aliases: Optional[dict[str, Any]] = None
) -> tuple[gast.FunctionDef, dict[str, Any]]:
    """The IR as a ``def`` (without defaults, which the function object
    carries) and the constants its body reads by name. ``aliases`` maps
    global names to the values the code may assume they hold."""
    em = FunctionEmitter(ir, aliases)
    body = em.declarations() + structure(ir, em)
    fdef = gast.FunctionDef(
        name=fname or ir.name, args=arguments(ir.signature), body=body or [gast.Pass()],
        decorator_list=[], returns=None, type_comment=None, type_params=[],
    )
    return fdef, em.constants


def unparse(node: gast.AST) -> str:
    module = gast.Module(body=[node], type_ignores=[]) if isinstance(node, gast.stmt) else node
    gast.fix_missing_locations(module)
    return gast.unparse(module).strip() + "\n"


def source_of(fdef: gast.FunctionDef) -> str:
    return unparse(fdef)


def compile_def(
    fdef: gast.FunctionDef, constants: dict[str, Any], freevars: tuple[str, ...], filename: str
) -> types.CodeType:
    """Compile ``fdef`` to a code object whose free variables are among
    ``constants`` and ``freevars``. Its statements carry the user's line
    numbers (see :func:`~zygote_py.backend.emit.at_line`) and ``filename`` is
    the user's file, so tracebacks through it show the user's source."""
    shown_name = fdef.name
    inner = gast.FunctionDef(
        name=_INNER, args=fdef.args, body=fdef.body, decorator_list=[],
        returns=None, type_comment=None, type_params=[],
    )
    params = sorted(constants) + [v for v in freevars if v not in constants]
    factory = gast.FunctionDef(
        name=_FACTORY,
        args=arguments(Signature(args=params)),
        body=[inner, gast.Return(value=name(_INNER))],
        decorator_list=[], returns=None, type_comment=None, type_params=[],
    )
    module = gast.Module(body=[factory], type_ignores=[])
    _place(module)
    code = compile(gast.gast_to_ast(module), filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType))
    return inner_code.replace(co_name=shown_name, co_qualname=shown_name)


def _place(module: gast.Module) -> None:
    """What ``gast.fix_missing_locations`` does (a node without one of its
    location attributes takes its parent's), with the factory and the
    function in it at the smallest line any node has (1 if none), columns
    0: one walk where two were (most of a small function's compilation is
    walking its tree)."""
    smallest = None
    later = []  # (node, attribute): the factory's line, known once the walk ends
    todo = [(module, (_FIRST, _FIRST, 0, 0))]
    while todo:
        node, parent = todo.pop()
        if "lineno" in node._attributes:
            here = tuple(getattr(node, attr, _UNSET) for attr in _LOCATION)
            if _UNSET in here:  # (emitted nodes mostly have all four: see emit.at_line)
                here = tuple(_inherit(node, attr, v, inherited, later)
                             for attr, v, inherited in zip(_LOCATION, here, parent))
            line = here[0]
            if type(line) is int and line and (smallest is None or line < smallest):  # (an inherited line is an
                smallest = line                                                         # ancestor's own)
            parent = here
        for field in node._fields:  # (gast.iter_child_nodes, without its generators)
            v = getattr(node, field, None)
            if isinstance(v, gast.AST):
                todo.append((v, parent))
            elif isinstance(v, list):
                todo.extend((c, parent) for c in v if isinstance(c, gast.AST))
    for node, attr in later:
        setattr(node, attr, smallest or 1)


_LOCATION = ("lineno", "end_lineno", "col_offset", "end_col_offset")
_UNSET, _FIRST = object(), object()


def _inherit(node: gast.AST, attr: str, value: Any, inherited: Any, later: list) -> Any:
    """``node``'s ``attr`` for :func:`_place`: its own, else its parent's
    (set on it), else (the factory's line, not known yet) noted in
    ``later``."""
    if value is not _UNSET:
        return value
    if inherited is _FIRST:
        later.append((node, attr))
    else:
        setattr(node, attr, inherited)
    return inherited


def instantiate(
    code: types.CodeType, constants: dict[str, Any], like: types.FunctionType,
    keep_identity: bool = True,
) -> types.FunctionType:
    """A function running ``code`` with ``like``'s globals, defaults and
    cells, and (with ``keep_identity``) its name, docstring and
    attributes."""
    own = dict(zip(like.__code__.co_freevars, like.__closure__ or ()))
    _CONSTANT_CELLS[code] = frozenset(n for n in code.co_freevars if n in constants)
    cells = tuple(
        types.CellType(constants[n]) if n in constants else own[n] for n in code.co_freevars
    )
    g = types.FunctionType(code, like.__globals__, code.co_name, like.__defaults__, cells)
    g.__kwdefaults__ = dict(like.__kwdefaults__) if like.__kwdefaults__ else None
    if not keep_identity:
        return g
    g.__name__ = like.__name__
    g.__qualname__ = like.__qualname__
    g.__doc__ = like.__doc__
    g.__module__ = like.__module__
    g.__dict__.update(like.__dict__)
    g.__dict__.pop("__wrapped__", None)
    return g


_CONSTANT_CELLS: "weakref.WeakKeyDictionary[types.CodeType, frozenset]" = weakref.WeakKeyDictionary()


def constant_cells(code: types.CodeType) -> frozenset:
    """The free variables of the emitted ``code`` that hold the constants
    the emitter bound (an ``inf``, an array): no variables it captures, so
    no differentiated values (see :func:`instantiate`)."""
    return _CONSTANT_CELLS.get(code, frozenset())


class CodeCache:
    """Compiled results keyed by the original function's code object (a
    redefined function has a new one), held weakly; thread-safe: one
    compilation per key even when threads race."""

    def __init__(self) -> None:
        self._entries: "weakref.WeakKeyDictionary[types.CodeType, Any]" = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()

    def get(self, key: types.CodeType, build: Callable[[], Any]) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is None:
                    entry = build()
                    self._entries[key] = entry
        return entry
