"""Inlining the calls of the user's own small functions (and ``dict(m, a=x)``).

A call ``g(x)`` of a Python function defined in the same module as the
function being differentiated (the same globals, so that every global it
reads means the same there), or in another of the user's modules beside
it (``from helpers import drag``: a file in the same directory or below,
not a library's), is replaced by ``g``'s body, its parameters bound to
the call's arguments (the globals of another module are read from that
module, and guarded there): the transform then differentiates one
function, with no run-time ``J`` and no pullback closure per call, and
the emitted gradient is plain code all the way down, which forward mode
can push forward again (a Hessian of a function calling a helper).

Inlined: functions without a rule, not recursive, without nested
functions, closures, generators, globals they assign, ``*args`` or
``**kwargs``, of at most :data:`LIMIT` statements, that change none of
their arguments in place (:mod:`.mutation` differentiates those as
calls), called with arguments that bind to their parameters at compile
time (and are not nested functions: see :mod:`.cells`), outside ``try``. The
compiled result is guarded on the global naming ``g`` (rebinding it
compiles again), or on the cell holding it (another function of the same
code, globals and default values reuses it: ``analysis.Like``).

A call of a function nested in the one being differentiated, made there
(``def f(v): return a * v * v`` then ``f(x)``), is inlined too
(:func:`_inline_nested`), when each variable of the enclosing function it
reads is a parameter never assigned again or a value assigned once in
its entry block: ``zpy emit`` then writes no nested function, and the
gradient module needs no zygote_py when it runs.
"""
from __future__ import annotations

import builtins
import contextvars
import functools
import operator
import site
import sysconfig
import types
from pathlib import Path
from typing import Any, Optional

import gast

from ..errors import ZygoteError
from ..frontend.lower import lower
from ..ir import ops
from ..ir.passes import optimize
from ..ir.verify import checked
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Raise, Return, Starred, Statement, Var
from .. import registry
from . import idioms
from .cells import rebound_names

LIMIT = 80
"""The most statements a function may have to be inlined."""

DEPTH = 4
"""How deep inlined calls may nest (a helper calling a helper...)."""


def inline_calls(ir: IR, fn: types.FunctionType) -> list[tuple]:
    """Inline, in place, the calls of ``ir`` (the IR of ``fn``) that qualify
    (see the module docstring), and then the calls those bring, to
    :data:`DEPTH` levels. Returns the guards the result rests on (the
    globals naming the functions inlined)."""
    from .analysis import _MISSING, Facts, guard, static_values
    from .mutation.versions import changed_positions
    from .pipeline import primal_ir  # (pipeline builds on this module)

    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    guards = []
    rules: set[int] = set()  # the globals of the rule modules whose implementations were inlined
    spliced = 0  # (calls of nested functions inlined: no guard)
    for _ in range(DEPTH):
        facts = Facts()
        static_values(ir, fn.__globals__, cells, facts)
        nested = {s.var for b in ir.blocks.values() for s in b.stmts
                  if isinstance(s.callee, Const) and s.callee.value is ops.make_function}
        calls = [s for b in ir.blocks.values() if b.handler is None for s in b.stmts]
        defs = {s.var: s for b in ir.blocks.values() for s in b.stmts}
        inlined = 0
        for s in calls:
            if isinstance(s.callee, Var) and s.callee in nested:
                done = _inline_nested(ir, defs[s.callee], s)
                inlined, spliced = inlined + done, spliced + done
                continue
            g = facts.callee(s)
            implementation = _implementation(g if g is not _MISSING else _method_of(s, defs, facts))
            g = implementation or g
            if implementation is not None:  # (and the helpers of its module, which its body calls)
                rules.add(id(g.__globals__))
            ours = implementation is not None or isinstance(g, types.FunctionType) and id(g.__globals__) in rules
            if not _qualifies(g, fn, ours) or any(a in nested for a in s.args) or any(changed_positions(g)):
                continue  # (passed a nested function, or changing an argument: see cells, mutation)
            try:
                callee = primal_ir(g)
            except ZygoteError:
                continue
            bound = _bind(callee, g, s)
            if bound is None or not _inlinable(callee) or _calls_itself(callee, g):
                continue
            outside = {} if g.__globals__ is fn.__globals__ else _globals_outside(callee, g, fn)
            if outside is None:
                continue
            b = next(b for b in ir.blocks.values() if any(x is s for x in b.stmts))  # (splices move statements)
            if isinstance(s.callee, Var) and s.callee in defs:
                defs[s.callee].pure = True  # the read of the function's name: dropped once unused
                base = defs[s.callee].args[0] if facts.callee(defs[s.callee]) is getattr else None
                if isinstance(base, Var) and base in defs and facts.callee(defs[base]) is getattr:
                    defs[base].pure = True  # (scipy.stats.norm of scipy.stats.norm.logpdf: an attribute read)
            _splice(ir, b, next(i for i, x in enumerate(b.stmts) if x is s), callee, bound,
                    {v: Const(value) for v, (name, value) in outside.items()
                     if fn.__globals__.get(name, builtins.__dict__.get(name, _UNBOUND)) is not value},
                    s.line if ours else None)
            if isinstance(s.callee, Var) and s.callee in facts.origin:
                guards.append(guard(facts, s.callee))
            guards += [("cell", _ModuleGlobal.of(g.__globals__, name), value) for name, value in outside.values()]
            inlined += 1
        displays = _dict_calls(ir, facts)
        guards += displays
        inlined += len(displays)
        if not inlined:
            break
    if guards or spliced:
        optimize(checked(ir, "inlining calls"))  # (the parameters' block arguments become the values passed)
        idioms.log_appends(ir)  # (a helper's HISTORY.append(v))
    return guards


def _dict_calls(ir: IR, facts: Any) -> list[tuple]:
    """``dict(a=x, b=y)`` (the builtin, with keywords) becomes the display
    ``{"a": x, "b": y}``, and ``dict(m, a=x, **n)`` the dict ``dict(m)``
    then its changes in place ``["a"] = x`` and ``update(n)``, as the
    display ``{**m, "a": x, **n}`` is lowered: values passed by keyword
    get gradients then, as a rule's keyword arguments do not. Returns the
    guards (the name ``dict`` still naming the builtin)."""
    guards = []
    for b in ir.blocks.values():
        out: list[Statement] = []
        for s in b.stmts:
            out.append(s)
            if facts.callee(s) is not dict or len(s.args) > 1 or not s.kwargs \
                    or any(isinstance(a, Starred) for a in s.args):
                continue
            guards.append(facts.origin.get(s.callee) if isinstance(s.callee, Var) else None)
            first = len(s.kwargs) if s.args else next((i for i, (k, _) in enumerate(s.kwargs) if k is None),
                                                      len(s.kwargs))
            rest, s.kwargs = s.kwargs[first if not s.args else 0:], s.kwargs[:first] if not s.args else []
            if not s.args:
                s.callee = Const(ops.build_dict)
                s.args = [x for k, v in s.kwargs for x in (Const(k), v)]
                s.kwargs = []
            for k, v in rest:
                change = (ops.merge_dict, [s.var, v]) if k is None else (operator.setitem, [s.var, Const(k), v])
                out.append(Statement(ir.new_var(), Const(change[0]), change[1], [], s.line))
        b.stmts = out
    return [g for g in guards if g is not None]


IMPLEMENTATIONS: contextvars.ContextVar[bool] = contextvars.ContextVar("IMPLEMENTATIONS", default=False)
"""Whether a call of a library function that a rule module implements in
Python (``registry.implemented_by``: ``scipy.stats.norm.logpdf``) is
inlined too, as that Python function: ``zpy emit`` sets it, so that the
gradient module differentiates the formula where it is called instead of
calling zygote_py's ``J`` on it when it runs (the same arithmetic)."""


def _implementation(g: Any) -> Optional[types.FunctionType]:
    """The Python function a library function ``g`` is differentiated as,
    where :data:`IMPLEMENTATIONS` asks for it to be inlined."""
    if not IMPLEMENTATIONS.get():
        return None
    try:
        impl = registry.implementation(g)
    except TypeError:  # (an unhashable callee: no implementation)
        return None
    return impl if isinstance(impl, types.FunctionType) else None


def _method_of(s: Statement, defs: dict[Var, Statement], facts: Any) -> Any:
    """The callee of ``s`` where it is an attribute read of an object known
    at compile time (``scipy.stats.norm.logpdf``: a method of an
    instance, which the static values leave to run time), else None."""
    d = defs.get(s.callee) if isinstance(s.callee, Var) else None
    if d is None or facts.callee(d) is not getattr or len(d.args) != 2 or not isinstance(d.args[1], Const):
        return None
    base = d.args[0].value if isinstance(d.args[0], Const) else facts.static.get(d.args[0])
    return None if base is None else getattr(base, d.args[1].value, None)


def _qualifies(g: Any, fn: types.FunctionType, rule_module: bool = False) -> bool:
    """Whether a call of ``g`` is inlined: the user's own function (or, with
    ``rule_module``, an implementation of a rule module or a helper of
    one, see :data:`IMPLEMENTATIONS`) that qualifies."""
    return (
        isinstance(g, types.FunctionType) and g is not fn
        and (rule_module or g.__globals__ is fn.__globals__ or _beside(g, fn))
        and not g.__closure__ and registry.lookup(g) is None and not registry.is_nondifferentiable(g)
        and registry.lookup_pushforward(g) is None
        and not g.__code__.co_flags & 0x2A0  # generators, coroutines, async generators
    )


_LIBRARIES = tuple(str(Path(p).resolve()) for p in {*site.getsitepackages(), site.getusersitepackages(),
                                                     sysconfig.get_paths()["stdlib"],
                                                     Path(__file__).resolve().parents[1]} if p)
"""Where zygote_py, installed libraries and the standard library live: their
functions are not the user's (they are differentiated by their rules, or by
``J``)."""


def _beside(g: types.FunctionType, fn: types.FunctionType) -> bool:
    """Whether ``g`` is defined in a file in ``fn``'s directory or below it
    (a module of the user's, beside the one being differentiated), not in
    a library."""
    return _file_beside(g.__code__.co_filename, fn.__code__.co_filename)


@functools.lru_cache(maxsize=1024)
def _file_beside(callee_file: str, caller_file: str) -> bool:
    """:func:`_beside` by the files' names (kept: resolving paths costs a
    first compilation more than its code does, asked for each callee)."""
    here, there = Path(caller_file), Path(callee_file)
    if not (here.is_file() and there.is_file()):
        return False
    here, there = here.resolve(), there.resolve()
    return there.is_relative_to(here.parent) and not str(there).startswith(_LIBRARIES) \
        and not str(here).startswith(_LIBRARIES)


class _ModuleGlobal:
    """A module's global ``name`` read as a cell is (``cell_contents``,
    ``ValueError`` when unbound; a builtin where the module does not bind
    the name): the guard of an inlined function's read of its own module's
    globals (checked as the compilation's other cells are)."""

    __slots__ = ("namespace", "name")
    _made: dict[tuple[int, str], "_ModuleGlobal"] = {}

    def __init__(self, namespace: dict, name: str):
        self.namespace, self.name = namespace, name

    @classmethod
    def of(cls, namespace: dict, name: str) -> "_ModuleGlobal":
        """One per module and name, so that a compilation guards it once."""
        made = cls._made.get((id(namespace), name))
        if made is None or made.namespace is not namespace:
            made = cls._made[(id(namespace), name)] = cls(namespace, name)
        return made

    @property
    def cell_contents(self) -> Any:
        value = self.namespace.get(self.name, builtins.__dict__.get(self.name, _UNBOUND))
        if value is _UNBOUND:
            raise ValueError(f"{self.name} is not bound")
        return value


_UNBOUND = object()


def _globals_outside(callee: IR, g: types.FunctionType, fn: types.FunctionType) -> Optional[dict[Var, tuple]]:
    """The reads of globals in ``callee``, the IR of ``g`` from another
    module than ``fn``'s: each read's variable → ``(name, value in g's
    module)``, the value taken as a constant where inlined unless ``fn``'s
    module binds the name to the same (``np``: read as it is). None when
    one is not bound there (left to the call)."""
    out = {}
    for b in callee.blocks.values():
        for st in b.stmts:
            if isinstance(st.callee, Const) and st.callee.value is ops.load_global:
                name = st.args[0].value
                value = g.__globals__.get(name, builtins.__dict__.get(name, _UNBOUND))
                if value is _UNBOUND:
                    return None
                out[st.var] = (name, value)
    return out


def _inline_nested(ir: IR, maker: Statement, s: Statement) -> int:
    """Inline the call ``s`` of the nested function ``maker`` makes (no
    defaults, one ``return`` or more, reading the enclosing function's
    variables, assigning none: ``def f(v): return a * v * v``), its reads
    of those variables (``load_deref``) then reading them in the enclosing
    function, where the call is made: the value the closure would read.
    Returns 1 if it did, else 0."""
    node = maker.args[0].value if len(maker.args) == 1 and not maker.kwargs else None
    if not isinstance(node, gast.FunctionDef) or node.decorator_list or rebound_names(ir):
        return 0  # (a nested function assigning the enclosing variables (nonlocal): cells.py's)
    try:
        callee = optimize(checked(lower(node, filename=ir.filename, name=node.name,
                                        freevars=[*ir.cellvars, *ir.freevars]), "lowering a nested function"))
    except ZygoteError:
        return 0
    b = next(b for b in ir.blocks.values() if any(x is s for x in b.stmts))
    before = ir.entry.stmts[:next(i for i, x in enumerate(b.stmts) if x is s)] if b is ir.entry else ir.entry.stmts
    stores: dict[str, list[Statement]] = {}
    for t in (t for c in ir.blocks.values() for t in c.stmts):
        if isinstance(t.callee, Const) and t.callee.value is ops.store_deref:
            stores.setdefault(t.args[0].value, []).append(t)
    loads = {t.var: t.args[0].value for c in callee.blocks.values() for t in c.stmts
             if isinstance(t.callee, Const) and t.callee.value is ops.load_deref}
    params = dict(zip(ir.signature.names(), ir.entry.args))
    values = {name: params[name] for name in loads.values() if name in params and name not in stores}
    values.update({name: stores[name][0].args[1] for name in loads.values() if len(stores.get(name, ())) == 1
                   and any(t is stores[name][0] for t in before) and stores[name][0].args[1] != maker.var})
    bound = _bind(callee, types.SimpleNamespace(__defaults__=None, __kwdefaults__=None), s)
    # (each variable it reads is a parameter never assigned again, or assigned once, in the entry block before
    # the call: the value it reads, whose gradient then flows as any value's; else, as a variable of an
    # enclosing function of this one, it is not inlined)
    if bound is None or not _inlinable(callee, nested=True) or set(loads.values()) - set(values):
        return 0
    _splice(ir, b, next(i for i, x in enumerate(b.stmts) if x is s), callee, bound,
            {v: values[name] for v, name in loads.items()})
    return 1


def _calls_itself(callee: IR, g: types.FunctionType) -> bool:
    """Whether ``g`` (whose IR is ``callee``) reads the global naming it:
    a recursive function, whose inlined body would bring the same call
    again, to :data:`DEPTH` copies of it per call site (two recursive
    calls: 2**DEPTH copies, and a compilation 30 times as long)."""
    return any(isinstance(s.callee, Const) and s.callee.value is ops.load_global
               and g.__globals__.get(s.args[0].value) is g
               for b in callee.blocks.values() for s in b.stmts)


def _inlinable(callee: IR, nested: bool = False) -> bool:
    """Whether ``callee`` may be spliced into a caller: a ``nested``
    function may read its enclosing function's variables."""
    sig = callee.signature
    stmts = [s for b in callee.blocks.values() for s in b.stmts]
    refused = _REFUSED - {ops.load_deref} if nested else _REFUSED
    return (
        sig.vararg is None and sig.kwarg is None and not callee.cellvars and (nested or not callee.freevars)
        and len(stmts) <= LIMIT
        and not any(isinstance(s.callee, Const) and s.callee.value in refused for s in stmts)
        and not any(b.handler is not None for b in callee.blocks.values())
    )


_REFUSED = {ops.store_global, ops.delete_global, ops.make_function, ops.make_scope, ops.load_deref,
            ops.store_deref}


def _bind(callee: IR, g: types.FunctionType, s: Statement) -> Optional[list[Operand]]:
    """The call's operands for each of ``g``'s parameters, or None when the
    call does not bind at compile time."""
    sig = callee.signature
    if any(isinstance(a, Starred) for a in s.args) or any(k is None for k, _ in s.kwargs):
        return None
    positional = sig.posonly + sig.args
    if len(s.args) > len(positional):
        return None
    bound: dict[str, Operand] = dict(zip(positional, s.args))
    for k, v in s.kwargs:
        if k in bound or k in sig.posonly or k not in positional + sig.kwonly:
            return None
        bound[k] = v
    defaults = dict(zip(positional[len(positional) - len(g.__defaults__ or ()):], g.__defaults__ or ()))
    defaults.update(g.__kwdefaults__ or {})
    out = []
    for p in positional + sig.kwonly:
        if p in bound:
            out.append(bound[p])
        elif p in defaults and _constant(defaults[p]):
            out.append(Const(defaults[p]))
        else:
            return None
    return out


def _constant(value: Any) -> bool:
    """A default value the inlined code may hold as a constant: one no
    call can change."""
    return value is None or isinstance(value, (bool, int, float, complex, str, bytes, tuple, frozenset))


def _splice(ir: IR, b: Block, i: int, callee: IR, args: list[Operand], constants: dict[Var, Operand],
            line: Optional[int] = None) -> None:
    """Replace the call ``b.stmts[i]`` by ``callee``'s blocks: ``b`` jumps
    to the copy of its entry with ``args``; each ``return v`` jumps to a new
    block holding the rest of ``b``, whose argument is the call's value.
    The statements defining the keys of ``constants`` are left out, their
    values read as the constants (or the caller's values: a nested
    function's reads of its enclosing function's variables). ``line``: the
    line of every statement inlined (a rule module's code: the user's
    call), else the callee's."""
    call = b.stmts[i]
    rest = ir.new_block()
    rest.args = [call.var]
    rest.stmts = b.stmts[i + 1:]
    rest.term, rest.handler = b.term, b.handler
    b.stmts = b.stmts[:i]
    env: dict[Var, Operand] = dict(constants)
    ids = {}
    for bid, cb in callee.blocks.items():
        ids[bid] = ir.new_block().id
        for v in cb.args + [st.var for st in cb.stmts if st.var not in constants]:
            env[v] = ir.new_var(callee.names.get(v))

    def sub(op: Any) -> Any:
        if isinstance(op, Starred):
            return Starred(sub(op.value))
        return env.get(op, op) if isinstance(op, Var) else op

    def jump(j: Jump) -> Jump:
        return Jump(ids[j.target], [sub(a) for a in j.args])

    for bid, cb in callee.blocks.items():
        nb = ir.blocks[ids[bid]]
        nb.args = [env[a] for a in cb.args]
        nb.stmts = [Statement(env[st.var], sub(st.callee), [sub(a) for a in st.args],
                              [(k, sub(v)) for k, v in st.kwargs], line or st.line, st.pure) for st in cb.stmts
                    if st.var not in constants]
        t = cb.term
        if isinstance(t, Return):
            nb.term = Jump(rest.id, [sub(t.value)])
        elif isinstance(t, Jump):
            nb.term = jump(t)
        elif isinstance(t, Branch):
            nb.term = Branch(sub(t.cond), jump(t.then), jump(t.orelse), line or t.line)
        else:
            nb.term = Raise(sub(t.exc), None if t.cause is None else sub(t.cause), line or t.line)
    b.term = Jump(ids[callee.entry.id], list(args))
