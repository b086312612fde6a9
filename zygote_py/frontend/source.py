"""Source retrieval: from a Python function object to the gast node of its
own definition, with the real line numbers of its file.

:func:`get_source` accepts plain and nested functions, lambdas, bound and
unbound methods, ``staticmethod``/``classmethod`` objects, and the
wrappers that only call the function they wrap (``@zpy.differentiable``,
``functools.lru_cache``: it follows their ``__wrapped__``). A
``functools.wraps`` decorator's wrapper is a function of its own, whose
source is the one to transform: it is what runs (``2 * f(x)``).

Invariants of the returned :class:`FunctionSource`:

- ``node`` is a ``gast.FunctionDef`` or ``gast.Lambda`` with no decorators;
  every node below it carries its real line in ``filename`` (column offsets
  are best effort);
- ``node``'s name and parameter names agree with ``function.__code__``, so a
  file edited since the function was defined is reported, never transformed.

Anything without retrievable source raises
:class:`~zygote_py.errors.SourceNotFound` naming the object and saying what
to do. Nothing is cached here; callers cache by code object.
"""
from __future__ import annotations

import ast
import copy
import inspect
import linecache
import types
import weakref
from dataclasses import dataclass
from typing import Any, Optional, Union

import gast

from zygote_py import runtime
from zygote_py.errors import SourceNotFound, UnsupportedSyntax

_HINT_DEFINE = "define it in a .py file, or register a rule with @zpy.adjoint"
_HINT_RULE = "register a derivative rule for it with @zpy.adjoint"
_HINT_STALE = "its file changed since it was defined; reload its module"

# Callables implemented in C: built-in functions and methods, slot wrappers.
_C_CALLABLES = (
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    types.MethodDescriptorType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
)


_EMITTED: "dict[int, tuple[weakref.ref, gast.FunctionDef]]" = {}
"""By the identity of a code object (code objects compared by value are
equal when they are compiled from equal trees: a weak dictionary keyed by
them lost a live one's entry when an equal one was collected)."""


def register_emitted(code: types.CodeType, node: gast.FunctionDef) -> None:
    """Make ``node``, the syntax tree zygote_py emitted and compiled to
    ``code``, the source of functions running ``code``: emitted gradients
    are differentiated again (nested differentiation) from it."""
    key = id(code)

    def forget(ref: weakref.ref) -> None:
        if _EMITTED.get(key, (None,))[0] is ref:
            del _EMITTED[key]
    _EMITTED[key] = (weakref.ref(code, forget), node)


def is_emitted(function: types.FunctionType) -> bool:
    """Whether ``function`` is code zygote_py emitted (a gradient, a
    pullback), differentiated again."""
    return _emitted(function.__code__) is not None


def _emitted(code: types.CodeType) -> Optional[gast.FunctionDef]:
    entry = _EMITTED.get(id(code))
    return entry[1] if entry is not None and entry[0]() is code else None


@dataclass
class FunctionSource:
    """A function's own syntax tree and where it came from."""

    node: Union[gast.FunctionDef, gast.Lambda]
    filename: str
    firstline: int
    name: str
    function: types.FunctionType
    bound_self: Optional[Any]


def get_source(obj: Any) -> FunctionSource:
    """Find and parse the source of the Python function behind ``obj``.

    ``obj`` may be a function, a lambda, a bound method (its ``__self__``
    becomes ``bound_self``; the class, for a classmethod), a
    ``staticmethod``/``classmethod`` object, or a ``@zpy.differentiable``
    or ``functools.lru_cache`` wrapper of any of these. Raises ``SourceNotFound`` for built-ins, C
    functions, callable objects and functions without a source file, and
    ``UnsupportedSyntax`` for ``async`` functions.
    """
    function, bound_self = _unwrap(obj)
    if not isinstance(function, types.FunctionType):
        raise _not_a_function(function)
    code = function.__code__
    if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise UnsupportedSyntax(
            "async functions cannot be differentiated",
            function=function.__qualname__,
            filename=code.co_filename,
            line=code.co_firstlineno,
            hint="differentiate a synchronous function instead",
        )
    emitted = _emitted(code)
    if emitted is not None:
        node = copy.deepcopy(emitted)
        node.lineno = node.end_lineno = code.co_firstlineno
        node.col_offset = node.end_col_offset = 0
    elif code.co_name == "<lambda>":
        node = _find_lambda(function)
    else:
        node = _find_def(function)
    if emitted is None:
        _check_matches(node, function)
    return FunctionSource(
        node=node,
        filename=code.co_filename,
        firstline=node.lineno,
        name=function.__qualname__,
        function=function,
        bound_self=bound_self,
    )


def _unwrap(obj: Any) -> tuple[Any, Optional[Any]]:
    """Peel bound methods, method descriptors and the wrappers of
    :func:`zygote_py.runtime.calls_wrapped`.

    A bound method cannot have ``None`` as its ``__self__``, so ``None``
    unambiguously means "not bound". The innermost binding wins: it is the
    ``self`` that the innermost function receives.
    """
    bound_self = None
    while True:
        if isinstance(obj, types.MethodType):
            bound_self, obj = obj.__self__, obj.__func__
        elif isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        elif runtime.calls_wrapped(obj):
            obj = obj.__wrapped__
        else:
            return obj, bound_self


def _find_def(function: types.FunctionType) -> gast.FunctionDef:
    """Parse the ``def`` block that ``inspect`` finds for ``function``.

    An indented block is parsed under ``if 1:`` rather than dedented:
    ``textwrap.dedent`` would also strip the continuation lines of
    multi-line strings, changing their values, and gives up on a block
    whose strings are less indented than the ``def``.
    """
    try:  # (by its code: ``inspect`` would follow a wrapper's ``__wrapped__``)
        lines, start = inspect.getsourcelines(function.__code__)
    except (OSError, TypeError):
        raise _missing(function) from None
    text = "".join(lines)
    indented = text[:1].isspace()
    if indented:
        text = "if 1:\n" + text
    try:
        statement = gast.parse(text).body[0]
    except SyntaxError:
        raise _stale(function) from None
    node = statement.body[0] if indented else statement
    if not isinstance(node, gast.FunctionDef):
        raise _stale(function)
    # The snippet's line 1 is the file's line ``start``, or the added ``if``.
    gast.increment_lineno(node, start - 2 if indented else start - 1)
    node.decorator_list = []
    return node


def _find_lambda(function: types.FunctionType) -> gast.Lambda:
    """Find ``function``'s lambda in its whole file.

    ``inspect`` cuts a lambda at the end of its first line and cannot start
    inside an open bracket, so the file is parsed (with ``ast``, which is
    fast; only the chosen node is converted to gast). Several lambdas can
    share a line; the instruction positions of Python 3.11
    (``co_positions``) say which one this code was compiled from.
    """
    code = function.__code__
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename, function.__globals__)
    if not lines:
        raise _missing(function)
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        raise _stale(function) from None
    candidates = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
    ]
    spans = _instruction_spans(code)
    if spans:
        inside = [n for n in candidates if all(_within(n.body, s) for s in spans)]
        if not inside:
            raise _stale(function)
        # Lambdas on one line are nested or disjoint, so those holding every
        # instruction form a chain; the innermost is this code's own.
        chosen = max(inside, key=lambda n: (n.body.lineno, n.body.col_offset))
    else:
        chosen = _lambda_without_positions(candidates, function)
    return gast.ast_to_gast(chosen)


def _instruction_spans(code: types.CodeType) -> list[tuple[int, int, int, int]]:
    """The source spans of ``code``'s instructions that have columns.

    The prologue and the implicit return sit at column 0 with zero width
    and say nothing about which lambda this is.
    """
    return [
        p
        for p in code.co_positions()
        if None not in p and (p[0], p[2]) != (p[1], p[3])
    ]


def _within(node: ast.AST, span: tuple[int, int, int, int]) -> bool:
    line, end_line, col, end_col = span
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col) and (end_line, end_col) <= end


def _lambda_without_positions(
    candidates: list[ast.Lambda], function: types.FunctionType
) -> ast.Lambda:
    """Choose among a line's lambdas by their parameters alone (Python run
    with ``-X no_debug_ranges`` keeps no columns); identical lambdas are
    interchangeable."""
    expected = _code_parameters(function.__code__)
    alike = [
        n for n in candidates if _same_parameters(_ast_parameters(n.args), expected)
    ]
    if not alike:
        raise _stale(function)
    if len({ast.dump(n) for n in alike}) > 1:
        code = function.__code__
        raise SourceNotFound(
            "several lambdas on this line look alike and Python kept no "
            "column positions to tell them apart",
            function=function.__qualname__,
            filename=code.co_filename,
            line=code.co_firstlineno,
            hint="put the lambda on a line of its own, or run Python "
            "without -X no_debug_ranges",
        )
    return alike[0]


def _check_matches(
    node: Union[gast.FunctionDef, gast.Lambda], function: types.FunctionType
) -> None:
    """Raise if ``node`` is not the definition ``function`` was compiled
    from (its file was edited since)."""
    code = function.__code__
    same_name = isinstance(node, gast.Lambda) or node.name == code.co_name
    parameters = [a.id for a in _gast_parameters(node.args)]
    if not (same_name and _same_parameters(parameters, _code_parameters(code))):
        raise _stale(function)


def _code_parameters(code: types.CodeType) -> tuple[str, ...]:
    """Parameter names in ``co_varnames`` order: positional, keyword-only,
    ``*args``, ``**kwargs``."""
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS)
    count += bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:count]


def _gast_parameters(args: gast.arguments) -> list[gast.Name]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return args.posonlyargs + args.args + args.kwonlyargs + extra


def _ast_parameters(args: ast.arguments) -> list[str]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + extra]


def _same_parameters(source: list[str], compiled: tuple[str, ...]) -> bool:
    # Inside a class body Python mangles a parameter ``__x`` to ``_C__x``.
    return len(source) == len(compiled) and all(
        s == c or (s.startswith("__") and c.startswith("_") and c.endswith(s))
        for s, c in zip(source, compiled)
    )


def _missing(function: types.FunctionType) -> SourceNotFound:
    code = function.__code__
    return SourceNotFound(
        f"cannot find the source code of {function.__qualname__!r} (was it "
        "defined in an interactive session or by exec?)",
        function=function.__qualname__,
        filename=code.co_filename,
        line=code.co_firstlineno,
        hint=_HINT_DEFINE,
    )


def _stale(function: types.FunctionType) -> SourceNotFound:
    code = function.__code__
    return SourceNotFound(
        f"the source of {function.__qualname__!r} in its file does not match "
        "the running function",
        function=function.__qualname__,
        filename=code.co_filename,
        line=code.co_firstlineno,
        hint=_HINT_STALE,
    )


def _not_a_function(obj: Any) -> SourceNotFound:
    """The error for anything that is not a Python function after
    unwrapping: a built-in or C function, a class, a callable object."""
    name = _display_name(obj)
    if isinstance(obj, _C_CALLABLES):
        what, hint = "a built-in function written in C", _HINT_RULE
    else:
        what, hint = f"a {type(obj).__qualname__}, not a Python function", (
            "pass a Python function, or " + _HINT_RULE
        )
    return SourceNotFound(
        f"cannot differentiate {name} by its source: it is {what}",
        function=name,
        hint=hint,
    )


def _display_name(obj: Any) -> str:
    """``math.sin``, ``list.append``, ``len``; ``Foo object`` for an
    instance."""
    name = getattr(obj, "__qualname__", None)
    if not isinstance(name, str):
        return f"{type(obj).__qualname__} object"
    module = getattr(obj, "__module__", None)
    if module in (None, "builtins", "__main__"):
        return name
    return f"{module}.{name}"
