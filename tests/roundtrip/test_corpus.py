"""Every corpus function, recompiled by ``zygote_py.roundtrip``, behaves
exactly like the original on each of its inputs; and the corpus covers the
constructs it claims to."""
import functools
import inspect
from typing import Callable, Iterator, Optional

import gast
import numpy as np
import pytest

from zygote_py import roundtrip

from . import corpus
from .harness import check_same, first_difference, run


def _case_id(func: Callable) -> str:
    return func.__qualname__


_INPUTS = [
    pytest.param(c.func, args, id=f"{_case_id(c.func)}-{i}")
    for c in corpus.CASES
    for i, args in enumerate(c.inputs)
]


@functools.cache
def _roundtripped(func: Callable) -> Callable:
    """Recompile each function once for all its inputs."""
    return roundtrip(func)


@pytest.mark.parametrize("func, args", _INPUTS)
def test_roundtrip_behaves_like_original(func, args):
    check_same(func, _roundtripped(func), args)


@pytest.mark.parametrize("func", [c.func for c in corpus.CASES], ids=_case_id)
def test_roundtrip_recompiles(func):
    """The identity would pass every behavioural test; the pipeline must
    return new code."""
    g = _roundtripped(func)
    assert g is not func
    assert getattr(g, "__code__", None) is not func.__code__


# ---------------------------------------------------------------------------
# The corpus itself
# ---------------------------------------------------------------------------


def test_corpus_size_and_inputs():
    assert len(corpus.CASES) >= 170
    few = [c for c in corpus.CASES if len(c.inputs) < 2]
    assert not few, f"cases with fewer than two inputs: {few}"


def _corpus_tree() -> gast.Module:
    return gast.parse(inspect.getsource(corpus))


def test_every_public_function_is_registered():
    defined = [
        node.name for node in _corpus_tree().body
        if isinstance(node, gast.FunctionDef) and not node.name.startswith("_")
    ]
    assert len(defined) == len(set(defined)), "a function is defined twice"
    registered = {c.func.__qualname__ for c in corpus.CASES}
    assert set(defined) - registered == {"case"}


def _outcome(case, args):
    """Run an original corpus function: the exception it raised (or None)
    and the types of the positional arguments it mutated."""
    outcome = run(case.func, args)
    mutated = {type(a) for a, b in zip(args.args, outcome.args.args)
               if first_difference(a, b) is not None}
    return outcome.error, mutated


def test_corpus_raises_and_mutates():
    """The inputs include the failures and mutations the round trip must
    reproduce."""
    raised, mutated_types = set(), set()
    for case in corpus.CASES:
        for args in case.inputs:
            error, mutated = _outcome(case, args)
            if error is not None:
                raised.add(type(error))
            mutated_types |= mutated
    for kind in (ZeroDivisionError, KeyError, UnboundLocalError,
                 AssertionError, IndexError, ValueError, TypeError,
                 AttributeError, NameError, StopIteration, RuntimeError,
                 corpus.CornerCase, corpus.LookupFailed):
        assert kind in raised, f"no input raises {kind.__name__}"
    for kind in (list, dict, np.ndarray, corpus.Box, corpus.Circle):
        assert kind in mutated_types, f"no input mutates a {kind.__name__}"


# ---------------------------------------------------------------------------
# Construct coverage: each construct must occur in corpus.py
# ---------------------------------------------------------------------------

Ancestors = tuple  # ((parent, field), ...) from the module down


def _walk(node, ancestors: Ancestors = ()) -> Iterator[tuple]:
    """Every node with its chain of (parent, field name) pairs."""
    yield node, ancestors
    for name, value in gast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, gast.AST):
                yield from _walk(child, ancestors + ((node, name),))


_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)


def _enclosing(ancestors: Ancestors, kinds, field: Optional[str] = None):
    """The nearest ancestor of one of ``kinds`` within the same function
    (reached through ``field`` if given), or None."""
    for parent, name in reversed(ancestors):
        if isinstance(parent, kinds) and (field is None or name == field):
            return parent
        if isinstance(parent, _SCOPES):
            return None
    return None


def _in_loop_body(ancestors: Ancestors) -> bool:
    return _enclosing(ancestors, (gast.For, gast.While), "body") is not None


def _is_call_to(node, name: str) -> bool:
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == name)


def _name_ids(node, ctx) -> set:
    return {n.id for n in gast.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, ctx)}


def _comprehension_shadows(node, ancestors: Ancestors) -> bool:
    """A comprehension whose target name is also a local of the function
    around it."""
    if not isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp)):
        return False
    function = _enclosing(ancestors, gast.FunctionDef)
    if function is None:
        return False
    targets = set().union(*(_name_ids(g.target, gast.Store)
                            for g in node.generators))
    outer = {n.targets[0].id for n in gast.walk(function)
             if isinstance(n, gast.Assign) and
             isinstance(n.targets[0], gast.Name)}
    return bool(targets & outer)


def _recursive_nested_def(node, ancestors: Ancestors) -> bool:
    return (isinstance(node, gast.FunctionDef)
            and _enclosing(ancestors, gast.FunctionDef) is not None
            and any(_is_call_to(n, node.name) for n in gast.walk(node)))


@functools.cache
def _module_generators() -> frozenset:
    return frozenset(
        n.name for n in _corpus_tree().body
        if isinstance(n, gast.FunctionDef)
        and any(isinstance(m, gast.Yield) for m in gast.walk(n)))


def _nested_generator(node, ancestors: Ancestors) -> bool:
    return (isinstance(node, gast.FunctionDef)
            and _enclosing(ancestors, gast.FunctionDef) is not None
            and any(isinstance(m, gast.Yield) for m in gast.walk(node)))


def _for_over(test: Callable) -> Callable:
    return lambda n, a: isinstance(n, gast.For) and test(n.iter)


def _is(kind, test: Callable = lambda n: True) -> Callable:
    return lambda n, a: isinstance(n, kind) and test(n)


def _op(kind, op) -> Callable:
    return _is(kind, lambda n: isinstance(n.op, op))


def _store(kind) -> Callable:
    return _is(kind, lambda n: isinstance(n.ctx, gast.Store))


def _unpacking(n) -> bool:
    return isinstance(n, (gast.Tuple, gast.List)) and isinstance(
        n.ctx, gast.Store)


def _decorated_with(name: str) -> Callable:
    def test(n):
        return any(
            (isinstance(d, gast.Name) and d.id == name)
            or (isinstance(d, gast.Attribute) and d.attr == name)
            for d in n.decorator_list)
    return _is(gast.FunctionDef, test)


def _in_field(kind, field: str, node_kind) -> Callable:
    return lambda n, a: (isinstance(n, node_kind)
                         and _enclosing(a, kind, field) is not None)


_BINARY = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod,
           gast.Pow, gast.MatMult, gast.LShift, gast.RShift, gast.BitAnd,
           gast.BitOr, gast.BitXor)
_UNARY = (gast.USub, gast.UAdd, gast.Invert, gast.Not)
_COMPARE = (gast.Lt, gast.LtE, gast.Eq, gast.NotEq, gast.Gt, gast.GtE,
            gast.Is, gast.IsNot, gast.In, gast.NotIn)

CONSTRUCTS = {
    # assignment
    "assignment to several targets":
        _is(gast.Assign, lambda n: len(n.targets) > 1),
    "tuple unpacking": _is(gast.Assign,
                           lambda n: isinstance(n.targets[0], gast.Tuple)),
    "list unpacking": _is(gast.Assign,
                          lambda n: isinstance(n.targets[0], gast.List)),
    "nested unpacking":
        lambda n, a: _unpacking(n) and any(_unpacking(e) for e in n.elts),
    "starred unpacking": _store(gast.Starred),
    "attribute target": _store(gast.Attribute),
    "subscript target": _store(gast.Subscript),
    "slice target": lambda n, a: _store(gast.Subscript)(n, a) and isinstance(
        n.slice, gast.Slice),
    "for target that is an attribute":
        _is(gast.For, lambda n: isinstance(n.target, gast.Attribute)),
    **{f"augmented assignment {op.__name__}": _op(gast.AugAssign, op)
       for op in _BINARY},
    **{f"augmented assignment to {kind.__name__}":
       _is(gast.AugAssign, lambda n, kind=kind: isinstance(n.target, kind))
       for kind in (gast.Name, gast.Attribute, gast.Subscript)},
    "annotated assignment with value":
        _is(gast.AnnAssign, lambda n: n.value is not None),
    "annotated assignment without value":
        _is(gast.AnnAssign, lambda n: n.value is None),
    "annotated attribute target":
        _is(gast.AnnAssign, lambda n: isinstance(n.target, gast.Attribute)),
    # control flow
    "elif": _is(gast.If, lambda n: len(n.orelse) == 1
                and isinstance(n.orelse[0], gast.If)),
    "else": _is(gast.If, lambda n: n.orelse
                and not isinstance(n.orelse[0], gast.If)),
    "while with else": _is(gast.While, lambda n: bool(n.orelse)),
    "while True": _is(gast.While, lambda n: isinstance(n.test, gast.Constant)
                      and n.test.value is True),
    "for with else": _is(gast.For, lambda n: bool(n.orelse)),
    "for over range": _for_over(lambda it: _is_call_to(it, "range")),
    "for over zip": _for_over(lambda it: _is_call_to(it, "zip")),
    "for over enumerate": _for_over(lambda it: _is_call_to(it, "enumerate")),
    "for over dict items": _for_over(
        lambda it: isinstance(it, gast.Call) and isinstance(
            it.func, gast.Attribute) and it.func.attr == "items"),
    "for over a dict literal": _for_over(lambda it: isinstance(it, gast.Dict)),
    "for over a list literal": _for_over(lambda it: isinstance(it, gast.List)),
    "for over a string": _for_over(lambda it: isinstance(it, gast.Constant)
                                   and isinstance(it.value, str)),
    "for over a generator expression":
        _for_over(lambda it: isinstance(it, gast.GeneratorExp)),
    "for over a generator function": _for_over(
        lambda it: isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
        and it.func.id in _module_generators()),
    "break": _is(gast.Break),
    "continue": _is(gast.Continue),
    "pass": _is(gast.Pass),
    "return inside a loop":
        lambda n, a: isinstance(n, gast.Return) and _in_loop_body(a),
    "return inside try": _in_field(gast.Try, "body", gast.Return),
    "return inside with": _in_field(gast.With, "body", gast.Return),
    "return inside except": _in_field(gast.ExceptHandler, "body", gast.Return),
    "return in finally": _in_field(gast.Try, "finalbody", gast.Return),
    "break through finally": lambda n, a: isinstance(n, gast.Break) and (
        (t := _enclosing(a, (gast.Try, gast.For, gast.While), "body"))
        is not None and isinstance(t, gast.Try) and bool(t.finalbody)),
    "continue through finally": lambda n, a: isinstance(n, gast.Continue) and (
        (t := _enclosing(a, (gast.Try, gast.For, gast.While), "body"))
        is not None and isinstance(t, gast.Try) and bool(t.finalbody)),
    # operators
    **{f"binary {op.__name__}": _op(gast.BinOp, op) for op in _BINARY},
    **{f"unary {op.__name__}": _op(gast.UnaryOp, op) for op in _UNARY},
    **{f"comparison {op.__name__}": _is(
        gast.Compare, lambda n, op=op: any(isinstance(o, op) for o in n.ops))
       for op in _COMPARE},
    "chained comparison": _is(gast.Compare, lambda n: len(n.ops) > 1),
    "and": _op(gast.BoolOp, gast.And),
    "or": _op(gast.BoolOp, gast.Or),
    "and inside or": _is(gast.BoolOp, lambda n: isinstance(n.op, gast.Or) and
                         any(isinstance(v, gast.BoolOp) for v in n.values)),
    "conditional expression": _is(gast.IfExp),
    "nested conditional expression":
        _is(gast.IfExp, lambda n: isinstance(n.orelse, gast.IfExp)),
    "walrus": _is(gast.NamedExpr),
    "walrus in a comprehension": _in_field(gast.comprehension, "ifs",
                                           gast.NamedExpr),
    # calls, attributes, subscripts
    "call with *args":
        _is(gast.Call, lambda n: any(isinstance(a, gast.Starred)
                                     for a in n.args)),
    "call with keywords": _is(gast.Call, lambda n: any(
        k.arg is not None for k in n.keywords)),
    "call with **kwargs": _is(gast.Call, lambda n: any(
        k.arg is None for k in n.keywords)),
    "call of a call": _is(gast.Call, lambda n: isinstance(n.func, gast.Call)),
    "method call": _is(gast.Call, lambda n: isinstance(n.func,
                                                       gast.Attribute)),
    "attribute load": _is(gast.Attribute,
                          lambda n: isinstance(n.ctx, gast.Load)),
    "slice with step": _is(gast.Slice, lambda n: n.step is not None),
    "slice without bounds": _is(gast.Slice, lambda n: n.lower is None
                                and n.upper is None),
    "tuple subscript": _is(gast.Subscript,
                           lambda n: isinstance(n.slice, gast.Tuple)),
    "Ellipsis subscript": _is(gast.Subscript, lambda n: any(
        isinstance(c, gast.Constant) and c.value is Ellipsis
        for c in gast.walk(n.slice))),
    "None subscript": _is(gast.Subscript, lambda n: any(
        isinstance(c, gast.Constant) and c.value is None
        for c in gast.walk(n.slice))),
    # displays
    "tuple display": _is(gast.Tuple, lambda n: isinstance(n.ctx, gast.Load)),
    "list display": _is(gast.List, lambda n: isinstance(n.ctx, gast.Load)),
    "set display": _is(gast.Set),
    "dict display": _is(gast.Dict),
    **{f"starred item in a {kind.__name__}": _is(kind, lambda n: any(
        isinstance(e, gast.Starred) for e in n.elts))
       for kind in (gast.Tuple, gast.List, gast.Set)},
    "** in a dict display": _is(gast.Dict,
                                lambda n: any(k is None for k in n.keys)),
    # comprehensions
    "list comprehension": _is(gast.ListComp),
    "set comprehension": _is(gast.SetComp),
    "dict comprehension": _is(gast.DictComp),
    "generator expression": _is(gast.GeneratorExp),
    "comprehension with two for clauses": _is(
        (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp),
        lambda n: len(n.generators) > 1),
    "comprehension with a condition": _is(
        (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp),
        lambda n: any(g.ifs for g in n.generators)),
    "comprehension inside a comprehension": _is(
        gast.ListComp, lambda n: isinstance(n.elt, gast.ListComp)),
    "comprehension shadowing a local": _comprehension_shadows,
    # functions and scopes
    "lambda": _is(gast.Lambda),
    "lambda with a default": _is(gast.Lambda, lambda n: bool(n.args.defaults)),
    "nested def": lambda n, a: isinstance(n, gast.FunctionDef) and _enclosing(
        a, gast.FunctionDef) is not None,
    "nested def with defaults": lambda n, a: isinstance(
        n, gast.FunctionDef) and bool(n.args.defaults) and _enclosing(
        a, gast.FunctionDef) is not None,
    "keyword-only default": _is(gast.FunctionDef, lambda n: any(
        d is not None for d in n.args.kw_defaults)),
    "positional-only parameters":
        _is(gast.FunctionDef, lambda n: bool(n.args.posonlyargs)),
    "*args and **kwargs parameters": _is(
        gast.FunctionDef, lambda n: n.args.vararg and n.args.kwarg),
    "decorated nested def": lambda n, a: isinstance(
        n, gast.FunctionDef) and len(n.decorator_list) > 1 and _enclosing(
        a, gast.FunctionDef) is not None,
    "recursive nested def": _recursive_nested_def,
    "nested generator def": _nested_generator,
    "nonlocal": _is(gast.Nonlocal),
    "global": _is(gast.Global),
    # f-strings
    "f-string": _is(gast.JoinedStr),
    **{f"f-string conversion !{c}": _is(
        gast.FormattedValue, lambda n, c=c: n.conversion == ord(c))
       for c in "sra"},
    "f-string format spec":
        _is(gast.FormattedValue, lambda n: n.format_spec is not None),
    "f-string nested format spec": _is(
        gast.FormattedValue, lambda n: n.format_spec is not None and any(
            isinstance(v, gast.FormattedValue)
            for v in n.format_spec.values)),
    # assert, raise, del
    "assert with message": _is(gast.Assert, lambda n: n.msg is not None),
    "assert without message": _is(gast.Assert, lambda n: n.msg is None),
    "raise from": _is(gast.Raise, lambda n: n.cause is not None),
    "raise from None": _is(gast.Raise, lambda n: isinstance(
        n.cause, gast.Constant) and n.cause.value is None),
    "bare raise": _is(gast.Raise, lambda n: n.exc is None),
    **{f"del of a {kind.__name__}": _is(
        gast.Delete, lambda n, kind=kind: any(
            isinstance(t, kind) for t in n.targets))
       for kind in (gast.Name, gast.Subscript, gast.Attribute)},
    # with
    "with": _is(gast.With),
    "with ... as": _is(gast.With, lambda n: any(
        i.optional_vars is not None for i in n.items)),
    "with several items": _is(gast.With, lambda n: len(n.items) > 1),
    "nested with": _in_field(gast.With, "body", gast.With),
    # try
    "try/except": _is(gast.Try, lambda n: bool(n.handlers)),
    "try/except/else": _is(gast.Try, lambda n: bool(n.orelse)),
    "try/finally": _is(gast.Try, lambda n: bool(n.finalbody)),
    "try/except/else/finally": _is(gast.Try, lambda n: bool(
        n.handlers and n.orelse and n.finalbody)),
    "nested try": _in_field(gast.Try, "body", gast.Try),
    "except with a tuple of types": _is(
        gast.ExceptHandler, lambda n: isinstance(n.type, gast.Tuple)),
    "except ... as": _is(gast.ExceptHandler, lambda n: n.name is not None),
    "bare except": _is(gast.ExceptHandler, lambda n: n.type is None),
    "several except clauses": _is(gast.Try, lambda n: len(n.handlers) > 1),
    # classes
    "class": _is(gast.ClassDef),
    "super()": lambda n, a: _is_call_to(n, "super") and not n.args,
    "super(Class, self)": lambda n, a: _is_call_to(n, "super") and bool(
        n.args),
    "property": _decorated_with("property"),
    "property setter": _decorated_with("setter"),
    "staticmethod": _decorated_with("staticmethod"),
    "classmethod": _decorated_with("classmethod"),
}


@functools.cache
def _corpus_nodes() -> list:
    return list(_walk(_corpus_tree()))


@pytest.mark.parametrize("construct", list(CONSTRUCTS))
def test_corpus_covers(construct):
    test = CONSTRUCTS[construct]
    assert any(test(node, ancestors) for node, ancestors in _corpus_nodes())
