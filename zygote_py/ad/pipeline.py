"""From a Python function to its compiled gradient code.

Two functions are emitted from one reverse transform, each on first use:
``f_forward(*args) -> (y, pullback)``, whose ``pullback(dy)`` returns one
gradient per parameter (preceded by the gradient of the function's
captured variables, a dict by name, when those are differentiated),
and the fused ``f_gradient(*args) -> (y, gradients)``, the forward pass
followed by the pullback's body. Compiled once per function code, activity pattern and kind
of argument, and cached; a compilation is dropped when a global or captured
value it specialised on is rebound, or a rule is registered or removed.
"""
from __future__ import annotations

import builtins
import copy
import dataclasses
import functools
import gc
import inspect
import math
import operator
import threading
import types
import weakref
from typing import Any, Callable, Optional

import gast
import numpy as np

from ..backend.bound import bound_def
from ..backend.compile import compile_def, constant_cells, function_def, instantiate, source_of
from ..errors import NoDerivativeRule, UnsupportedSyntax
from ..frontend.lower import lower
from ..frontend.source import get_source, register_emitted
from ..ir import ops
from ..ir.core import IR, Branch, Const, Jump, Operand, Raise, Return, Signature, Starred, Statement, Var
from ..ir.passes import (eliminate_dead_code, fold_constants, fuse_fills, member, merge_blocks, optimize, substitute,
                         use_counts)
from ..ir.verify import checked
from .. import registry, runtime, tangent
from ..tangent import Tangent
from ..rules import nested as nested_rules
from . import callees, pushrules, reverse
from .mutation import versions as mutation_pass
from ..runtime.arguments import call_cotangent, defaulted, raw_cotangent
from ..runtime.arrays import is_foreign
from ..runtime.values import captures_differentiable, cell_value, is_differentiable_value
from .analysis import LIBRARIES, Facts, Kind, Like, attrs_kind, is_float, kind, static_values


def _without_gc(build: Callable) -> Callable:
    """``build`` run with the cyclic garbage collector paused: compiling
    allocates many short-lived objects, and the collector's passes over
    them took a millisecond of a 30 ms compile (its garbage is collected
    afterwards, as usual)."""
    @functools.wraps(build)
    def run(*args: Any, **kwargs: Any) -> Any:
        was = gc.isenabled()
        gc.disable()
        try:
            return build(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return run


def fuse(forward: IR, pullback: IR, float_output: bool, sum_output: bool = False,
         real_arrays: frozenset = frozenset(), value: bool = True, cotangent: bool = False,
         float_args: frozenset = frozenset(), known_globals: Optional[dict] = None) -> IR:
    """The forward IR followed by the pullback's blocks, entered with the
    seed ``runtime.seed(y)`` (1 of the output's kind, or an error for an
    output that is not a real scalar; 1.0 for an output known to be a
    float, or a sum of an array of ``real_arrays``) where the forward
    returned: ``f_gradient`` returns ``(y, gradients)``. The pullback's
    cells become the function's locals. ``value=False``, for a sum: ``y``
    is not computed, and ``None`` is returned in its place.
    ``cotangent=True``: the seed is a new first parameter instead, the
    cotangent of ``y`` (``f_vjp(dout, *params) -> (y, gradients)``)."""
    g = forward.copy()
    ret = next(b for b in g.blocks.values() if isinstance(b.term, Return))
    y = ret.term.value
    seed: Operand = Const(1.0)
    if cotangent:
        seed = g.new_var(_fresh_name(pullback.signature.args[0], g.signature))
        g.entry.args.insert(0, seed)
        sig, name = g.signature, g.names[seed]
        g.signature = (dataclasses.replace(sig, posonly=[name, *sig.posonly]) if sig.posonly
                       else dataclasses.replace(sig, args=[name, *sig.args]))
        float_output = sum_output = False
    elif not (float_output or sum_output):
        seed = g.new_var(pullback.signature.args[0])
        ret.stmts.append(Statement(seed, Const(runtime.seed), [y], [], ret.term.line))
    env: dict = {pullback.entry.args[0]: seed}
    ids = {}
    for bid, b in pullback.blocks.items():
        nb = g.new_block()
        ids[bid] = nb.id
        for a in (b.args if bid != pullback.entry.id else ()):
            env[a] = g.new_var(pullback.names.get(a))
            nb.args.append(env[a])
        for st in b.stmts:
            env[st.var] = g.new_var(pullback.names.get(st.var))
    sub = lambda op: env.get(op, op) if isinstance(op, Var) else op  # noqa: E731
    for bid, b in pullback.blocks.items():
        nb = g.blocks[ids[bid]]
        for st in b.stmts:
            nb.stmts.append(Statement(
                env[st.var], sub(st.callee),
                [Starred(sub(a.value)) if isinstance(a, Starred) else sub(a) for a in st.args],
                [(k, sub(v)) for k, v in st.kwargs], st.line, st.pure,
            ))
        t = b.term
        if isinstance(t, Return):
            pair = g.new_var()
            nb.stmts.append(Statement(pair, Const(ops.build_tuple), [y if value else Const(None), sub(t.value)]))
            nb.term = Return(pair, ret.term.line)
        elif isinstance(t, Jump):
            nb.term = Jump(ids[t.target], [sub(a) for a in t.args])
        elif isinstance(t, Branch):
            nb.term = Branch(sub(t.cond), Jump(ids[t.then.target], [sub(a) for a in t.then.args]),
                             Jump(ids[t.orelse.target], [sub(a) for a in t.orelse.args]), t.line)
        else:
            nb.term = Raise(sub(t.exc), None if t.cause is None else sub(t.cause), t.line)
    ret.term = Jump(ids[pullback.entry.id], [])
    g.cellvars = []
    merge_blocks(checked(g, "fusing forward and pullback"))  # (each part is optimised already)
    if float_output or sum_output:
        fold_constants(g)  # (the seed 1.0 in the pullback's arithmetic)
        _times_one(g, real_arrays, float_args, known_globals or {})
    if fuse_fills(g):  # (a sum's gradient times a value of the forward's, in sight now)
        eliminate_dead_code(g)
    if not value and sum_output:
        _drop_value(g, y)
    elif not value and float_output:
        _drop_float_value(g, float_args, known_globals or {})
    return g


def _fresh_name(name: str, sig: Signature) -> str:
    """``name``, or ``name`` with underscores after it, unused by ``sig``."""
    while name in sig.names():
        name += "_"
    return name


def _drop_value(g: IR, y: Var) -> None:
    """Remove the sum ``y`` (a reduction of a real array, which cannot
    raise) when nothing reads it, nor a cell it is kept in for a pullback
    that does not read the cell."""
    stmts = [s for b in g.blocks.values() for s in b.stmts]
    loaded = {s.args[0].value for s in stmts if isinstance(s.callee, Const) and s.callee.value is ops.load_deref}
    for b in g.blocks.values():
        b.stmts = [s for s in b.stmts if not (
            isinstance(s.callee, Const) and s.callee.value is ops.store_deref and s.args[1] == y
            and s.args[0].value not in loaded)]
    if use_counts(g).get(y, 0) == 0:
        for b in g.blocks.values():
            b.stmts = [s for s in b.stmts if s.var != y]
        eliminate_dead_code(g)  # (the method the sum was read as)


_TOTAL_ON_FLOATS = {math.tanh, math.atan, math.erf, math.erfc, math.fabs, operator.add, operator.sub, operator.mul,
                    operator.iadd, operator.isub, operator.imul, operator.neg, operator.pos}
"""Functions that raise for no float operands (an overflow is an infinity)."""

_FINITE_ON_FLOATS = {math.sin, math.cos, math.tan}
"""Functions of a float that raise only for an infinity."""

_BOUNDED = {math.sin, math.cos, math.tanh, math.atan, math.erf, math.erfc}
"""Functions of a float whose value is never an infinity."""


def _drop_float_value(g: IR, float_args: frozenset, known_globals: dict) -> None:
    """With the float value not returned (``value=False``): remove what
    computed it, and nothing else reads, where it cannot raise, so that
    leaving it out changes nothing but the time taken (``sin(cos(x))``'s
    ``sin``: the sine of a cosine, never an infinity, raises for no value).
    Arithmetic of floats but division, ``tanh``, ``atan``, ``erf``,
    ``erfc`` and ``fabs`` raise for no float; ``sin``, ``cos`` and ``tan``
    only for an infinity, which a value of :data:`_BOUNDED` is not."""
    facts = Facts()
    static_values(g, known_globals, {}, facts)
    defs = {s.var: s for b in g.blocks.values() for s in b.stmts}
    floats = set(float_args)

    def quiet(s: Statement) -> bool:
        fn = facts.callee(s)
        if s.kwargs or not s.args or any(isinstance(a, Starred) for a in s.args):
            return False
        if not member(fn, _TOTAL_ON_FLOATS):
            made = defs.get(s.args[0]) if len(s.args) == 1 else None
            if not (member(fn, _FINITE_ON_FLOATS) and made is not None and member(facts.callee(made), _BOUNDED)):
                return False
        return all(isinstance(a, Const) and type(a.value) in (int, float) or is_float(g, a, floats, facts)
                   for a in s.args)

    dropped = False
    while True:
        eliminate_dead_code(g)  # (the value's block arguments, and the reads of the functions called)
        uses = use_counts(g)
        for b in g.blocks.values():  # (a value an exception handler receives)
            for x in b.handler.args if b.handler is not None else ():
                if isinstance(x, Var):
                    uses[x] = uses.get(x, 0) + 1
        dead = {s.var for b in g.blocks.values() for s in b.stmts if not uses.get(s.var) and quiet(s)}
        if not dead:
            break
        for b in g.blocks.values():
            b.stmts = [s for s in b.stmts if s.var not in dead]
        dropped = True
    if dropped:
        optimize(g)  # (branches left with nothing to do)


def _times_one(g: IR, real_arrays: frozenset, float_args: frozenset, known_globals: dict) -> None:
    """``1.0 * x`` and ``x * 1.0`` (the seed 1.0 times ``x``) are ``x``,
    exactly, for a float ``x`` (``float_args``: the parameters that are
    floats; ``known_globals``: the globals the compilation is guarded on,
    such as ``math``), and for a quotient of arrays of
    ``real_arrays`` (or of them and numbers) read only there: an array of
    floats, new, that nothing else holds (a Python float is weakly typed:
    the product has ``x``'s dtype)."""
    facts = Facts()
    static_values(g, known_globals, {}, facts)
    defs = {s.var: s for b in g.blocks.values() for s in b.stmts}
    uses = use_counts(g)
    stored: dict[str, list[Operand]] = {}  # (the pullback reads the forward's values from cells)
    for s in defs.values():
        if isinstance(s.callee, Const) and s.callee.value is ops.store_deref:
            stored.setdefault(s.args[0].value, []).append(s.args[1])

    def real(op: Operand) -> bool:
        if isinstance(op, Const):
            return type(op.value) in (int, float)
        s = defs.get(op)
        if s is not None and isinstance(s.callee, Const) and s.callee.value is ops.load_deref:
            values = stored.get(s.args[0].value, [])
            return bool(values) and all(v in real_arrays for v in values)
        return op in real_arrays

    params = dict(zip(g.signature.names(), g.entry.args))
    floats = set(float_args)

    def is_a_float(x: Operand) -> bool:
        """``is_float``, where a read of a cell the pullback kept a value in
        is that value (a parameter's cell holds the parameter)."""
        s = defs.get(x)
        if s is not None and isinstance(s.callee, Const) and s.callee.value is ops.load_deref:
            name = s.args[0].value
            values = stored.get(name) or ([params[name]] if name in params else [])
            return bool(values) and all(is_float(g, v, floats, facts) for v in values)
        return is_float(g, x, floats, facts)

    def new_quotient(x: Operand) -> bool:
        s = defs.get(x)
        return (
            s is not None and uses.get(x) == 1 and isinstance(s.callee, Const) and s.callee.value is operator.truediv
            and len(s.args) == 2
            and not s.kwargs and all(not isinstance(a, Starred) and real(a) for a in s.args)
            and any(isinstance(a, Var) for a in s.args)
        )

    env: dict[Var, Operand] = {}
    for b in g.blocks.values():
        kept = []
        for s in b.stmts:
            a = [env.get(x, x) if isinstance(x, Var) else x for x in s.args]
            if isinstance(s.callee, Const) and s.callee.value is operator.mul and len(a) == 2 and not s.kwargs:
                for one, x in ((a[0], a[1]), (a[1], a[0])):
                    if isinstance(one, Const) and type(one.value) is float and one.value == 1.0 \
                            and (new_quotient(x) or is_a_float(x)):
                        env[s.var] = x
                        break
            if s.var not in env:
                kept.append(s)
        b.stmts = kept
    substitute(g, env)


class Compiled:
    """One specialisation of a function's gradient (its forward and
    pullback IR, and the guards it rests on), emitted lazily: the forward
    function returning a pullback (for ``pullback`` and ``.source``), and
    the fused gradient function (for ``gradient``)."""

    def __init__(self, fn: types.FunctionType, t: reverse.Transformed, generation: int):
        self.name = fn.__name__
        self.freevars = fn.__code__.co_freevars
        self.filename = fn.__code__.co_filename
        self.forward_ir = t.forward
        self.pullback_ir = t.pullback
        self.signature = t.forward.signature
        self.guards = t.guards
        self.changed_params = t.changed_params
        self.stored_globals = t.stored_globals
        self.raises_out = t.raises_out
        self.float_output = t.float_output
        self.sum_output = t.sum_output
        self.real_arrays = t.real_arrays
        self.float_args = t.float_args
        self.constant_violations = t.constant_violations
        self.generation = generation  # of the rule registry, whose rules it inlined
        self._globals = [(k, v) for kind, k, v in self.guards if kind == "global"]
        self._cells = cell_guards(fn, self.guards)
        self._forward: Optional[tuple[types.CodeType, dict[str, Any], gast.FunctionDef]] = None
        self._fused: Optional[tuple[types.CodeType, dict[str, Any], gast.FunctionDef]] = None
        self._fused_gradients: Optional[tuple[types.CodeType, dict[str, Any], gast.FunctionDef]] = None
        self._vjp: Optional[tuple[types.CodeType, dict[str, Any], gast.FunctionDef]] = None
        self._instances: "weakref.WeakKeyDictionary[types.FunctionType, dict[Any, types.FunctionType]]" = \
            weakref.WeakKeyDictionary()  # the gradient functions made for each function object, by value

    def valid(self, fn: types.FunctionType) -> bool:
        """Whether every global and cell the compilation specialised on
        still holds the same object (a global may also be a builtin)."""
        return _guards_hold(fn, self.generation, self._globals, _cells_of(fn, self._cells))

    def global_checks(self, fn: types.FunctionType) -> Optional[tuple[tuple[str, Any], ...]]:
        """``(name, expected)`` pairs such that the compilation is valid
        while ``fn.__globals__.get(name, GONE) is expected`` for each (a
        builtin is expected to stay unshadowed); None if it also rests on
        closure cells."""
        if self._cells:
            return None
        g = fn.__globals__
        return tuple((k, v if k in g else GONE) for k, v in self._globals)

    def _aliases(self) -> dict[str, Any]:
        return dict(self._globals)

    def _once(self, attr: str, build: Callable[[], tuple]) -> tuple:
        """``self.<attr>``, built by ``build`` under the lock the first time
        it is asked for."""
        if getattr(self, attr) is None:
            with _LOCK:
                if getattr(self, attr) is None:
                    setattr(self, attr, build())
        return getattr(self, attr)

    def _emit_forward(self) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        return self._once("_forward", self._build_forward)

    @_without_gc
    def _build_forward(self) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        aliases = self._aliases()
        pb_def, pb_consts = function_def(self.pullback_ir, f"{self.name}_pullback", aliases)
        f = self.forward_ir.copy()
        ret = next(b for b in f.blocks.values() if isinstance(b.term, Return))
        pb, pair = f.new_var(), f.new_var()
        ret.stmts += [
            Statement(pb, Const(ops.make_function), [Const(pb_def)]),
            Statement(pair, Const(ops.build_tuple), [ret.term.value, pb]),
        ]
        ret.term = Return(pair, ret.term.line)
        optimize(f)
        fwd_def, fwd_consts = function_def(f, f"{self.name}_forward", {**pb_consts, **aliases})
        constants = {**pb_consts, **fwd_consts}
        return compile_def(fwd_def, constants, self.freevars, self.filename), constants, fwd_def

    def _emit_fused(self, value: bool = True) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        if value or not (self.sum_output or self.float_output):
            return self._once("_fused", lambda: self._build_fused(True))
        return self._once("_fused_gradients", lambda: self._build_fused(False))

    @_without_gc
    def _build_fused(self, value: bool) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        ir = fuse(self.forward_ir, self.pullback_ir, self.float_output, self.sum_output, self.real_arrays, value,
                  float_args=self.float_args, known_globals=dict(self._globals))
        fdef, constants = function_def(ir, f"{self.name}_gradient", self._aliases())
        return compile_def(fdef, constants, self.freevars, self.filename), constants, fdef

    @_without_gc
    def _build_vjp(self) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        ir = fuse(self.forward_ir, self.pullback_ir, False, cotangent=True)
        fdef, constants = function_def(ir, f"{self.name}_vjp", self._aliases())
        return compile_def(fdef, constants, self.freevars, self.filename), constants, fdef

    def forward_def(self) -> tuple[gast.FunctionDef, dict[str, Any]]:
        """The emitted forward ``def`` (its pullback nested inside) and the
        constants it reads by name (for ``zpy emit``; do not change it)."""
        _, constants, fdef = self._emit_forward()
        return fdef, constants

    def gradient_def(self, value: bool = True) -> tuple[gast.FunctionDef, dict[str, Any]]:
        """The emitted fused gradient ``def`` and the constants it reads by
        name (for ``zpy emit``; do not change it). ``value=False``: see
        :meth:`gradient_function`."""
        _, constants, fdef = self._emit_fused(value)
        return fdef, constants

    @property
    def source(self) -> str:
        """The emitted forward function, with its pullback inside."""
        return source_of(self._emit_forward()[2])

    @property
    def gradient_source(self) -> str:
        """The emitted fused gradient function."""
        return source_of(self._emit_fused()[2])

    def forward_function(self, fn: types.FunctionType) -> types.FunctionType:
        """``f_forward(*args) -> (y, pullback)`` (made once per function
        object: ``J`` asks for it at every call)."""
        made = self._instances.get(fn)
        g = None if made is None else made.get("forward")
        if g is None:
            code, constants, _ = self._emit_forward()
            g = self._instances.setdefault(fn, {})["forward"] = instantiate(code, constants, fn, keep_identity=False)
        return g

    def vjp_function(self, fn: types.FunctionType) -> types.FunctionType:
        """``f_vjp(dout, *args) -> (y, grads)``: the pullback of ``dout``
        (``grads`` as the pullback returns them), with the forward before it
        in one function whose source zygote_py reads, so that the pullback
        is differentiated again (third derivatives and up: see
        ``rules.nested.call_pullback``)."""
        code, constants, fdef = self._once("_vjp", self._build_vjp)
        made = self._instances.setdefault(fn, {})
        g = made.get("vjp")
        if g is None:
            g = made["vjp"] = instantiate(code, constants, fn, keep_identity=False)
            register_emitted(g.__code__, fdef)
        return g

    def gradient_function(self, fn: types.FunctionType, value: bool = True) -> types.FunctionType:
        """``f_gradient(*args) -> (y, grads)``, one gradient per parameter
        (itself differentiable: its source is the emitted one). ``value=False``:
        ``y`` may be ``None``, not computed (for ``zpy.gradient``; where the
        value cannot be left out, the same function as ``value=True``)."""
        value = value or not (self.sum_output or self.float_output)
        made = self._instances.setdefault(fn, {})
        g = made.get(value)
        if g is None:
            code, constants, fdef = self._emit_fused(value)
            g = made[value] = instantiate(code, constants, fn, keep_identity=False)
            register_emitted(g.__code__, fdef)
        return g

    def bound_gradient_function(self, fn: types.FunctionType, kinds: tuple, picked: int | tuple,
                                value: bool) -> Optional[types.FunctionType]:
        """The fast path of ``zpy.grad``'s functions (see
        :mod:`~zygote_py.backend.bound`): the fused gradient function for
        arguments of ``kinds`` (``api._kind`` of each), returning the
        gradients at ``picked`` (after the value, with ``value``), or
        ``backend.bound.STALE`` when called with arguments of other kinds
        or after a global it read was rebound (a changed rule is the
        caller's to check). ``None`` where cells are among the guards
        (checked only by :meth:`valid`)."""
        if self._cells:
            return None
        made = self._instances.setdefault(fn, {})
        key = ("bound", kinds, picked, value)
        g = made.get(key)
        if g is None:
            _, constants, fdef = self._emit_fused(value)
            arrays = any(isinstance(k, tuple) for k in kinds)  # (what the general path does: api.gradient_call)
            bdef, defaults = bound_def(fdef, constants, kinds, self._globals, picked, value,
                                       runtime.user_gradient if arrays else runtime.checked_gradient)
            g = instantiate(compile_def(bdef, {}, self.freevars, self.filename), {}, fn, keep_identity=False)
            g.__defaults__ = defaults
            runtime.COUNTED_CODE.add(g.__code__)
            made[key] = g
        return g


def cell_guards(fn: types.FunctionType, guards: list[tuple]) -> list[tuple[Optional[str], Any, Any]]:
    """The cells among the guards of a compilation of ``fn``, as ``(name,
    cell, value)``: ``name`` for one of ``fn``'s own cells, which each
    closure made from ``fn``'s code has anew (checked by name: the
    compilation is shared by all of them), ``None`` for another function's
    cell (an inlined function's, checked as it is)."""
    names = {id(c): n for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ())}
    return [(names.get(id(k)), k, v) for kind, k, v in guards if kind == "cell"]


def _cells_of(fn: types.FunctionType, cells: list[tuple[Optional[str], Any, Any]]) -> list[tuple]:
    """:func:`cell_guards`' cells as ``fn`` has them: ``(cell, value)``."""
    if not cells:  # (most compilations: asked at every run-time call)
        return cells
    own = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    return [(cell if name is None else own[name], v) for name, cell, v in cells]


def _guards_hold(fn: types.FunctionType, generation: int, globals_: list[tuple], cells: list[tuple]) -> bool:
    """Whether a compilation of ``fn`` is still valid: no rule registered
    or removed since, and every global and cell it specialised on still
    holding the same object (a global may also be a builtin), or, for a
    cell holding a constant, one of the same :class:`~.analysis.Kind`, for
    one holding a function or an object, one :class:`~.analysis.Like` it."""
    if registry.generation() != generation:
        return False
    g = fn.__globals__
    for k, v in globals_:
        if g.get(k, _GONE) is not v and (k in g or _BUILTINS.get(k, _GONE) is not v):
            return False
    for cell, v in cells:
        try:
            now = cell.cell_contents
        except ValueError:
            return False
        if now is not v and not (type(v) in _EXPECTED and v.holds(now)):
            return False
    return True


_EXPECTED = (Kind, Like)
GONE = _GONE = object()
_BUILTINS = builtins.__dict__
_PRIMALS: "weakref.WeakKeyDictionary[types.CodeType, IR]" = weakref.WeakKeyDictionary()
_FORWARDS: "weakref.WeakKeyDictionary[types.CodeType, dict]" = weakref.WeakKeyDictionary()
_LOCK = threading.RLock()


def primal_ir(fn: types.FunctionType, consumers: frozenset = frozenset()) -> IR:
    """The optimised SSA IR of ``fn`` (cached per code object), or, for the
    reverse transform, with the generator expressions passed to the global
    builtins named in ``consumers`` lowered as list comprehensions (see
    ``consumers`` in :func:`~zygote_py.frontend.lower.lower`; not cached)."""
    ir = None if consumers else _PRIMALS.get(fn.__code__)
    if ir is None:
        with _LOCK:  # (CPython 3.11's AST constructor is not safe in several threads at once)
            return _lowered(fn, consumers)
    return ir


@_without_gc
def _lowered(fn: types.FunctionType, consumers: frozenset) -> IR:
    ir = None if consumers else _PRIMALS.get(fn.__code__)
    if ir is None:
        never_library(fn)
        src = get_source(fn)
        ir = lower(src.node, filename=src.filename, name=fn.__name__, freevars=fn.__code__.co_freevars,
                   consumers=consumers)
        ir = optimize(checked(ir, "lowering"))
        if not consumers:
            _PRIMALS[fn.__code__] = ir
    return ir


def never_library(fn: types.FunctionType, shown: Any = None) -> None:
    """Raise :class:`NoDerivativeRule` if ``fn`` is one of
    :data:`.analysis.LIBRARIES`' (named as the user wrote ``shown``, a bound
    method of ``fn``), unless it is :func:`registry.implemented_by` a
    function of ours (a frozen distribution's ``rv.logpdf``: ``J`` of
    ``fn`` differentiates that)."""
    library = LIBRARIES.get((fn.__module__ or "").partition(".")[0])
    if library is not None and registry.implementation(fn) is None:
        name = registry.display_name(fn if shown is None else shown)
        raise NoDerivativeRule(
            f"no derivative rule for {name!r}, which is called with differentiated arguments "
            f"({library} is differentiated through rules, never through its own source)",
            hint=f"register one with @zpy.adjoint({name}) (see the docs on custom rules), "
            "or keep it out of the differentiated path")


def param_values(sig: Signature, fn: types.FunctionType, args: tuple, kwargs: dict) -> list[Any]:
    """The value each parameter takes in the call ``fn(*args, **kwargs)``
    (a sentinel where the call is wrong; the call itself will say so)."""
    positional = sig.posonly + sig.args
    n = len(positional)
    values: dict[str, Any] = dict(zip(positional, args))
    defaults = fn.__defaults__ or ()
    for name, d in zip(positional[n - len(defaults):], defaults):
        values.setdefault(name, d)
    kwd = dict(fn.__kwdefaults__ or {})
    extra = {}
    for k, v in kwargs.items():
        if k in positional or k in sig.kwonly:
            values[k] = v
        else:
            extra[k] = v
    out = [values.get(p, kwd.get(p, _GONE)) for p in positional]
    if sig.vararg:
        out.append(tuple(args[n:]))
    out += [values.get(p, kwd.get(p, _GONE)) for p in sig.kwonly]
    if sig.kwarg:
        out.append(extra)
    return out


def compiled(fn: types.FunctionType, active: tuple, numeric: tuple, self_active: bool,
             param_out: Optional[int] = None, cells_out: tuple = (), exact: bool = False) -> Compiled:
    """The gradient of ``fn`` specialised on which parameters are
    differentiated and their kinds (compiled once, cached per code
    object, and on disk when that cache is on: see :mod:`.diskcache`).
    ``param_out``: ``fn`` changes that parameter in place for its
    caller, and is differentiated as returning it with its value.
    ``cells_out``: ``fn`` is a nested function that assigns these cells of
    its caller's, differentiated as returning their values too (see
    :mod:`.cells`). ``exact``: ``active`` flags exactly the parameters
    the caller differentiates (the user's, through the API), not every
    parameter given a float (the run-time ``J``), so that a call with no
    derivative in a differentiated argument is refused (see
    ``registry.constant_argument``); one compilation serves both."""
    key = (active, numeric, self_active, param_out, cells_out)
    if callees.IMPLEMENTATIONS.get():  # (zpy emit's compilation, with library implementations inlined)
        key += ("implementations",)
    entry = _valid_entry(_FORWARDS, fn, key)
    if entry is None:
        with _LOCK:
            entry = _valid_entry(_FORWARDS, fn, key)
            if entry is None:
                from . import diskcache  # (it builds on this module)

                entry = diskcache.compiled(fn, key, lambda f: _compile(
                    f, list(active), list(numeric), self_active, param_out, cells_out))
                _keep(_FORWARDS, fn, key, entry)
    if exact and entry.constant_violations:
        raise entry.constant_violations[0]
    return entry


_KEPT = 8
"""Compilations kept per function code and key: one per kind of the
constants its closures capture (a float now, an array later), so that
alternating between them compiles each once."""


def _valid_entry(caches: weakref.WeakKeyDictionary, fn: types.FunctionType, key: tuple) -> Any:
    """The first compilation kept for ``fn``'s code and ``key`` (newest
    first) whose guards hold for ``fn``; None if none."""
    table = caches.get(fn.__code__)
    for entry in table.get(key, ()) if table is not None else ():
        if entry.valid(fn):
            return entry
    return None


def _keep(caches: weakref.WeakKeyDictionary, fn: types.FunctionType, key: tuple, entry: Any) -> None:
    """Keep ``entry`` first among ``fn``'s compilations for ``key``, with at
    most :data:`_KEPT` others that rest on the current rules."""
    table = caches.setdefault(fn.__code__, {})
    others = [e for e in table.get(key, ()) if e.generation == entry.generation]
    table[key] = [entry, *others][:_KEPT]


@_without_gc
def _compile(fn: types.FunctionType, active: list[bool], numeric: list[bool], self_active: bool,
             param_out: Optional[int] = None, cells_out: tuple = ()) -> Compiled:
    generation = registry.generation()
    t = reverse.transform(primal_ir(fn), fn, active, numeric, self_active, param_out, cells_out)
    checked(t.forward, "the reverse transform (forward)")
    checked(t.pullback, "the reverse transform (pullback)")
    return Compiled(fn, t, generation)


@functools.lru_cache(maxsize=4096)
def code_signature(code: types.CodeType) -> Signature:
    """The signature of the function running ``code`` (that of its IR,
    known without lowering its source; cached per code, as it is asked at
    every run-time call: do not change it)."""
    names = code.co_varnames
    p, n, k = code.co_posonlyargcount, code.co_argcount, code.co_kwonlyargcount
    vararg = names[n + k] if code.co_flags & inspect.CO_VARARGS else None
    kwarg = names[n + k + (vararg is not None)] if code.co_flags & inspect.CO_VARKEYWORDS else None
    return Signature(list(names[:p]), list(names[p:n]), vararg, list(names[n:n + k]), kwarg)


def masks(fn: types.FunctionType, args: tuple, kwargs: dict) -> tuple[tuple, tuple]:
    """Which parameters of the call ``fn(*args, **kwargs)`` carry a
    gradient, and their kinds (:func:`.analysis.kind`): what a compilation
    is specialised on. Asked at every run-time call (``J``), so a call
    giving every parameter by position skips :func:`param_values`, and a
    value whose type alone decides both answers is looked up by its type."""
    sig = code_signature(fn.__code__)
    if kwargs or sig.vararg or sig.kwarg or sig.kwonly or len(args) != len(sig.posonly) + len(sig.args):
        args = param_values(sig, fn, args, kwargs)
    active, numeric = [], []
    for v in args:
        t = type(v)
        decided = (False, 0) if v is _GONE else _BY_TYPE.get(t)
        if decided is None:
            decided = (v.dtype.kind in "fc", kind(v)) if t is np.ndarray else \
                (is_differentiable_value(v), 0) if t is dict else _by_type(v)  # (a dict: no kind of number)
        elif decided[1] is None:  # (an object of a plain class: its fields' kinds)
            decided = (True, attrs_kind(v))
        active.append(decided[0])
        numeric.append(decided[1])
    return tuple(active), tuple(numeric)


_BY_TYPE: dict[type, tuple[bool, Optional[int]]] = {}
"""For types whose instances all carry a gradient or all do not, and all
have the same kind: those two answers (see :func:`_by_type`); the kind
``None`` for a plain class, whose objects' kind is their fields' (see
:func:`.analysis.attrs_kind`)."""

_BY_VALUE = (tuple, list, dict, set, frozenset, np.ndarray, types.FunctionType)
"""Types (and their subclasses) whose answers depend on the value: the
items, the dtype, the captured variables."""


def _by_type(v: Any) -> tuple[bool, int]:
    """``v``'s answers for :func:`masks`, kept for its type when the type
    alone decides them (a float, an int, a string, an object of a class)."""
    decided = (is_differentiable_value(v), kind(v))
    t = type(v)
    if not issubclass(t, _BY_VALUE) and not is_foreign(v) and len(_BY_TYPE) < 4096:
        plain = decided == (True, 0) and _plain_class(v)
        _BY_TYPE[t] = (True, None) if plain else decided
        if plain:
            return True, attrs_kind(v)
    return decided


def _plain_class(v: Any) -> bool:
    """Whether ``v``'s attributes are read the plain way (no
    ``__getattr__``, no ``__getattribute__`` of its own) from a
    ``__dict__`` it has: its fields' kinds are known from the object."""
    t = type(v)
    return type(getattr(v, "__dict__", None)) is dict and t.__getattribute__ is object.__getattribute__ \
        and getattr(t, "__getattr__", None) is None


def call_forward(fn: types.FunctionType, args: tuple, kwargs: dict,
                 param_out: Optional[int] = None, cells_out: tuple = ()) -> tuple[Any, Callable]:
    """For the run-time ``J``: ``fn(*args, **kwargs)`` and a pullback in
    ``J``'s convention (callee's gradient, positional, keyword). A function
    that changes a differentiated argument in place is refused, unless it is
    parameter ``param_out``, which it then returns with its value, and whose
    gradient after the call its pullback takes with the value's (see
    :func:`construct` and ``mutation.call_changing``): the caller goes on
    with the changed object."""
    active, numeric = masks(fn, args, kwargs)
    self_active = captures(fn)  # a closure whose captured variables are differentiated
    entry = compiled(fn, active, numeric, self_active, param_out, cells_out)
    changed, watched = [], []
    if entry.changed_params:
        outs = () if param_out is None else param_out if type(param_out) is tuple else (param_out,)
        out = {entry.signature.names()[p] for p in outs}
        changed = [name for name in entry.changed_params if name not in out]
        values = dict(zip(entry.signature.names(), param_values(entry.signature, fn, args, kwargs))) if changed else {}
        watched = [(n, values[n], _differentiable_state(values[n])) for n in changed if _has_fields(values[n])]
    if len(watched) < len(changed):
        raise UnsupportedSyntax(
            f"{fn.__qualname__} changes its differentiated argument {changed[0]!r} in place, "
            "and its caller's later reads of it would not be differentiated",
            function=fn.__qualname__, filename=fn.__code__.co_filename, line=fn.__code__.co_firstlineno,
            hint=f"return the changed value and assign it in the caller, or change a copy inside {fn.__name__}",
        )
    if entry.stored_globals:
        raise UnsupportedSyntax(
            f"{fn.__qualname__} assigns the global {entry.stored_globals[0]!r} a differentiated value, "
            "and its caller's later reads of it would not be differentiated",
            function=fn.__qualname__, filename=fn.__code__.co_filename, line=fn.__code__.co_firstlineno,
            hint=f"return the value from {fn.__name__} and assign the global in the function you differentiate",
        )
    forward = entry.forward_function(fn)
    if watched:  # (an object whose changes may be to fields that carry no gradient: a counter, a flag)
        forward = _checking_changes(forward, fn, watched)
    if entry.raises_out:
        try:
            y, back = forward(*args, **kwargs)
        except Exception as e:  # it goes on as it is; a differentiated handler refuses it (runtime.caught)
            e._zpy_raised_by = fn.__qualname__
            raise
    else:
        y, back = forward(*args, **kwargs)
    sig = entry.signature

    def pullback(dy):
        return call_cotangent(fn, self_active, sig, len(args), list(kwargs), back(dy))

    return y, pullback


def _has_fields(obj: Any) -> bool:
    """An object whose state is its fields (not a list, dict or array)."""
    return not isinstance(obj, (list, dict, tuple, np.ndarray, types.FunctionType)) and bool(tangent.fields(obj))


def _differentiable_state(obj: Any) -> dict:
    """What a change of ``obj`` would be seen by: for each field holding a
    differentiable value, the value and a copy of its contents."""
    return {name: (v, copy.deepcopy(v)) for name in tangent.fields(obj)
            if is_differentiable_value(v := getattr(obj, name, None))}


def _checking_changes(forward: Callable, fn: types.FunctionType, watched: list) -> Callable:
    """``forward``, which changes the objects of ``watched`` in place, as a
    function that refuses the call when a change reached a field that
    carries a gradient (its caller's later reads would not be
    differentiated); a change of other fields (``self.calls += 1``, a
    flag, a string) is no change to differentiate."""
    def checked(*args, **kwargs):
        result = forward(*args, **kwargs)
        for name, obj, before in watched:
            after = _differentiable_state(obj)
            if before.keys() != after.keys() or any(
                    after[k][0] is not v or not tangent.same(after[k][0], kept) for k, (v, kept) in before.items()):
                raise UnsupportedSyntax(
                    f"{fn.__qualname__} changes its differentiated argument {name!r} in place (a field that "
                    "carries a gradient), and its caller's later reads of it would not be differentiated",
                    function=fn.__qualname__, filename=fn.__code__.co_filename, line=fn.__code__.co_firstlineno,
                    hint=f"return the changed value and assign it in the caller, or change a copy inside "
                    f"{fn.__name__}")
        return result
    return checked


def vjp_plan(f: Any, args: tuple, kwargs: dict, param_out: Optional[int] = None,
             cells_out: tuple = ()) -> Optional[tuple[Callable, Callable, bool]]:
    """How to differentiate the pullback of ``J(f, *args, **kwargs)`` (in
    gradient code differentiated again): ``(V, to_v, from_v, method)``,
    where ``V(dout, *vargs, **kwargs)`` computes that pullback of ``dout``
    by code zygote_py reads (``f``'s rule, or the pullback it emitted for
    ``f``, after ``f``'s forward), ``to_v`` maps a cotangent of the
    pullback's gradients (``J``'s convention) to one of ``V``'s value (in
    reverse mode), and ``from_v``, its adjoint, a tangent of ``V``'s value
    to one of those gradients (in forward mode).
    ``vargs`` are ``args``, or with ``method``, ``runtime.bound_object(f)``
    (whose gradient is ``f``'s own) then ``args``; otherwise ``V``'s own
    gradient is ``f``'s. ``V`` is ``None`` for a call whose pullback reads
    no values (:func:`.rules.nested.reads_no_values`). The answer depends on the kinds of
    ``args``, not on their values: it has no derivative.
    ``None``: the pullback gives no gradients. Keyword arguments are
    ``V``'s too, and their gradients follow the positional ones, as in
    ``J``'s convention.
    ``param_out``: the call was ``runtime.forward_changing(f, param_out,
    args)``, which also returns the argument ``f`` changes in place;
    ``cells_out``: ``runtime.forward_with_cells``, which also returns the
    values ``f`` leaves in these cells (``V`` runs while the cells hold what
    they held at the call)."""
    name = registry.display_name(f)
    overloaded = runtime.overload(f)
    if overloaded is not None and any(runtime.python_method(type(a), n) is not None
                                      for a in args for n in overloaded.names):
        candidates = list(overloaded(*args))
        if len(candidates) == 1 and not candidates[0][1]:  # obj[k], -obj: the one method Python calls
            return vjp_plan(candidates[0][0], args, kwargs)  # (its gradients are in the operator's order)
        if len(candidates) == 1 and len(args) == 2:  # 2.0 * v: the one method Python calls, v.__rmul__(2.0)
            return _reflected(vjp_plan(candidates[0][0], args[::-1], kwargs))
        raise NoDerivativeRule(
            f"differentiating again the pullback of an operator ({name}) that both operands' classes define, or "
            "a reflected one (b.__radd__(a)), is not supported: a second derivative through gradient code that "
            "calls it at run time, or a third derivative",
            hint="call the class's method by name")
    if nested_rules.reads_no_values(f):
        return None, None, None, False
    if type(f) is functools._lru_cache_wrapper:  # (J calls its function)
        return vjp_plan(f.__wrapped__, args, kwargs, param_out, cells_out)
    if type(f) is np.vectorize:
        f = runtime.vectorized(f)
    reader = runtime.items_first(f, args)
    if reader is not None:  # (J differentiates it, giving f no gradient)
        return vjp_plan(reader, args, kwargs)
    rule = runtime.rule_for(f, args)
    if rule is not None:
        n = len(args) + len(kwargs)
        return runtime.rule_vjp(rule, len(args), tuple(kwargs)), lambda w: w[:1 + n], lambda t: t, False
    if registry.is_nondifferentiable(f):
        return None
    implementation = registry.implementation(f)
    if implementation is not None:  # (J differentiates it, giving f no gradient)
        return vjp_plan(implementation, args, kwargs)
    if runtime.python_bound_method(f):
        return _as_method(vjp_plan(f.__func__, (f.__self__, *args), kwargs))
    if type(f) is runtime.Pullback:  # a pullback called directly: the rule of call_pullback, f its first argument
        return _as_method(vjp_plan(runtime.call_pullback, (f, *args), kwargs))
    method = runtime.builtin_method(f)
    if method is not None:
        if registry.is_nondifferentiable(method):
            return None
        rule, n = registry.lookup(method), len(args) + 1
        if rule is not None:
            return (runtime.rule_vjp(rule, n, tuple(kwargs)), lambda w: (None, *w[:n + len(kwargs)]),
                    lambda t: t[1:], True)
    if isinstance(f, types.FunctionType) and not (_calls_itself(f) and captures(f)):
        # (a recursive nested function capturing nothing differentiated has no gradient of its own)
        active, numeric = masks(f, args, kwargs)
        self_active = captures(f)
        entry = compiled(f, active, numeric, self_active, param_out, cells_out)
        sig, keywords = entry.signature, list(kwargs)
        return (entry.vjp_function(f), lambda w: (None, raw_cotangent(f, self_active, sig, len(args), keywords, w)),
                lambda t: call_cotangent(f, self_active, sig, len(args), keywords, t[1]), False)
    call = runtime.python_method(type(f), "__call__")
    if call is not None and not isinstance(f, type):  # a callable object: its class's __call__, itself the first argument
        return _as_method(vjp_plan(call, (f, *args), kwargs))
    if isinstance(f, type) and runtime.python_init(f):
        init, obj = f.__init__, f.__new__(f)  # (a new object, as construct makes; its gradient is the one out)
        active, numeric = masks(init, (obj, *args), kwargs)
        entry = compiled(init, active, numeric, False, 0)
        sig, keywords = entry.signature, list(kwargs)
        v = runtime.construct_vjp(f, entry.vjp_function(init))
        n = 1 + len(args)
        return (v, lambda w: (None, raw_cotangent(init, False, sig, n, keywords, (None, None, *w[1:]))),
                lambda t: (None, *call_cotangent(init, False, sig, n, keywords, t[1])[2:]), False)
    raise NoDerivativeRule(
        f"differentiating the pullback of a call of {name} (a functools.partial, or a function that captures "
        "itself and differentiated values) is not supported: a second derivative through gradient code that "
        "calls it at run time, or a third derivative",
        hint="call a plain function instead")


def _reflected(plan: Optional[tuple]) -> Optional[tuple]:
    """The plan of a binary operator's call ``a op b`` that Python makes
    as ``b.__rop__(a)``, from that of the method's call on ``(b, a)``:
    ``V`` takes the operands in the operator's order, and the gradients
    are swapped back to it."""
    if plan is None or plan[0] is None:
        return plan
    v, to_v, from_v, method = plan
    if method:
        raise NoDerivativeRule("differentiating again the pullback of a reflected operator whose method is not a "
                               "function of the class", hint="call the class's method by name")

    def reflected_v(dout, a, b, **kwargs):
        return v(dout, b, a, **kwargs)
    return reflected_v, lambda w: to_v(_swapped(w)), lambda t: _swapped(from_v(t)), False


def _swapped(grads: tuple) -> tuple:
    """Gradients in ``J``'s convention (the function's, the operands',
    the keyword arguments') with the two operands' swapped."""
    return (grads[0], grads[2], grads[1], *grads[3:])


def _as_method(plan: Optional[tuple]) -> Optional[tuple]:
    """The plan of a call of a method (or a callable object, a pullback)
    from that of its function, whose first argument the object is: ``V``
    takes the object as its first argument too, and its gradients start
    with the object's, which is the method's own."""
    if plan is None:
        return None
    v, to_v, from_v, _ = plan
    return v, lambda w: to_v((None, *w)), lambda t: from_v(t)[1:], True


def _calls_itself(fn: types.FunctionType) -> bool:
    """Whether the nested function ``fn`` captures itself (see
    :func:`closure_gradient`)."""
    return any(cell_value(c) is fn for c in fn.__closure__ or ())


def construct(cls: type, args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """For the run-time ``J``: ``cls(*args, **kwargs)`` for a class whose
    ``__init__`` is Python code, and its pullback in ``J``'s convention. The
    ``__init__`` is differentiated as a function from its arguments to the
    object it fills in (its fields' assignments are changes made in place:
    see :mod:`.mutation`), so the object's gradient (a ``Tangent``) goes
    back to the arguments stored in, or computed into, its fields."""
    obj = cls.__new__(cls)
    y, back = call_forward(cls.__init__, (obj, *args), kwargs, param_out=0)

    def pullback(dy):
        return (None, *back((None, dy))[2:])  # no gradient for the class, nor for the empty object
    return y[1], pullback


# --------------------------------------------------------------------------
# Forward mode
# --------------------------------------------------------------------------

class CompiledJvp:
    """One specialisation of a function's pushforward: ``f_jvp(*params,
    *tangents of the active ones) -> (y, dy)``, and the globals, cells and
    rules it rests on. For a nested function called by
    ``runtime.call_with_cells`` (``cells``: see :func:`call_jvp_with_cells`),
    the tangents of the cells handed to it follow the parameters', and it
    returns the values it leaves in the cells it assigns with ``y``."""

    def __init__(self, fn: types.FunctionType, active: tuple, numeric: tuple, cells: tuple = ((), (), ())):
        from . import forward

        self.generation = registry.generation()
        t, guards = forward.transform(primal_ir(fn), fn, list(active), list(numeric), *cells)
        ir = optimize(checked(t, "the forward transform"))
        self.ir = ir
        self._globals = [(k, v) for kind, k, v in guards if kind == "global"]
        self._cells = cell_guards(fn, guards)
        aliases = dict(self._globals)
        self.fdef, self._constants = function_def(ir, f"{fn.__name__}_jvp", aliases)
        self._code = compile_def(self.fdef, self._constants, fn.__code__.co_freevars, fn.__code__.co_filename)
        register_emitted(self._code, self.fdef)
        self._instances: "weakref.WeakKeyDictionary[types.FunctionType, types.FunctionType]" = \
            weakref.WeakKeyDictionary()

    def valid(self, fn: types.FunctionType) -> bool:
        return _guards_hold(fn, self.generation, self._globals, _cells_of(fn, self._cells))

    def function(self, fn: types.FunctionType) -> types.FunctionType:
        """``f_jvp`` for the function object ``fn``: a closure's reads its
        own cells."""
        g = self._instances.get(fn)
        if g is None:
            g = self._instances[fn] = instantiate(self._code, self._constants, fn, keep_identity=False)
        return g

    @property
    def source(self) -> str:
        return source_of(self.fdef)


def _tangent_values(sig: Signature, dargs: tuple, dkwargs: dict, kwargs: dict) -> list[Any]:
    """The tangent each parameter gets (``None`` where no argument gives
    one: a default value has none); a ``**kwargs`` parameter's has every
    key of the call's (``None`` for one given no tangent: ``opts["bound"]``
    reads it)."""
    positional = sig.posonly + sig.args
    by_name = dict(zip(positional, dargs))
    by_name.update((k, v) for k, v in dkwargs.items() if k in positional or k in sig.kwonly)
    out = [by_name.get(p) for p in positional]
    if sig.vararg:
        out.append(tuple(dargs[len(positional):]))
    out += [by_name.get(p) for p in sig.kwonly]
    if sig.kwarg:
        out.append({k: dkwargs.get(k) for k in kwargs if k not in positional and k not in sig.kwonly})
    return out


_JVPS: "weakref.WeakKeyDictionary[types.CodeType, dict]" = weakref.WeakKeyDictionary()


def compiled_jvp(fn: types.FunctionType, active: tuple, numeric: tuple, cells: tuple = ((), (), ())) -> CompiledJvp:
    """The pushforward of ``fn`` with respect to the parameters flagged in
    ``active``, for parameters of the kinds ``numeric`` (and ``cells``, see
    :class:`CompiledJvp`; compiled once, cached per code object)."""
    key = (active, numeric, cells)
    entry = _valid_entry(_JVPS, fn, key)
    if entry is not None:
        return entry
    with _LOCK:
        entry = CompiledJvp(fn, active, numeric, cells)
        _keep(_JVPS, fn, key, entry)
    return entry


def captures(fn: types.FunctionType) -> bool:
    """Whether ``fn`` is a closure whose captured variables hold
    differentiated values (an emitted function's constants, bound in cells
    of their own, aside: the gradient code's ``inf``; and the machinery's
    ``vjp`` and ``gradient`` of a rule, which capture the rule and counts:
    a rule's default values, ``math.log``'s ``base``, are no values the
    caller differentiates)."""
    return fn.__closure__ is not None and fn.__code__ not in runtime.forward.READABLE \
        and captures_differentiable(fn, constant_cells(fn.__code__))  # (no closure: asked at every run-time call)


def call_jvp(fn: types.FunctionType, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict,
             entry: bool = False) -> tuple[Any, Any]:
    """``(fn(*args, **kwargs), its tangent)`` for the arguments' tangents
    (``None``: zero). The function ``zpy.jvp`` is given (``entry``) holds
    its captured variables fixed, as ``zpy.gradient`` does; a closure
    called inside one may have captured differentiated values, whose
    tangents it cannot see: refused."""
    if not entry and captures(fn):
        raise UnsupportedSyntax(
            f"forward mode: {fn.__qualname__} captures differentiable values (a closure), whose tangents "
            "it cannot see", function=fn.__qualname__, filename=fn.__code__.co_filename,
            line=fn.__code__.co_firstlineno,
            hint="pass the captured values to it as arguments, or use reverse mode (zpy.gradient, zpy.jacobian)")
    entry, values, tangents = jvp_entry(fn, args, kwargs, dargs, dkwargs)
    if any(v is _GONE for v in values):
        return fn(*args, **kwargs), None  # the call is wrong: Python says how
    y, dy = entry.function(fn)(*values, *tangents)
    return y, runtime.zero_tangent(y) if dy is None else dy


def call_jvp_with_cells(fn: types.FunctionType, shared: tuple, dvalues: tuple, written: tuple, args: tuple,
                        kwargs: dict, dargs: tuple, dkwargs: dict) -> tuple[tuple, tuple]:
    """For ``runtime.push_with_cells``: ``((y, values left in written),
    their tangents)`` for a call of the nested function ``fn`` that shares
    the cells ``shared`` with its caller, whose values' tangents at the call
    are ``dvalues``, and assigns those of ``written``. Its other captured
    variables hold no differentiated value (its caller refuses it
    otherwise)."""
    given = tuple(name for name, d in zip(shared, dvalues) if not runtime.is_zero_tangent(d))
    entry, values, tangents = jvp_entry(fn, args, kwargs, dargs, dkwargs, (shared, given, written))
    if any(v is _GONE for v in values):
        fn(*args, **kwargs)  # the call is wrong: Python raises its TypeError
    y, dy = entry.function(fn)(*values, *tangents, *(d for d in dvalues if not runtime.is_zero_tangent(d)))
    return (y, dy) if written else ((y, ()), (dy, ()))


def call_jvp_closure(fn: types.FunctionType, dfn: Tangent, args: tuple, kwargs: dict, dargs: tuple,
                     dkwargs: dict) -> tuple[Any, Any]:
    """For ``runtime.push``: ``(fn(*args, **kwargs), its tangent)`` for a
    function whose captured variables and default values have the tangents
    ``dfn`` (a ``Tangent`` by name, as its gradient is): the cells with a
    tangent are handed to its pushforward as :func:`call_jvp_with_cells`
    hands a nested function its caller's, the defaults' tangents are those
    of the parameters the call leaves to them. A closure that assigns one
    (``nonlocal``) is refused: the cell's tangent after the call would be
    lost."""
    ir = primal_ir(fn)
    shared = tuple(n for n in fn.__code__.co_freevars if not runtime.is_zero_tangent(tangent.get(dfn, n)))
    assigned = [n for b in ir.blocks.values() for s in b.stmts
                if isinstance(s.callee, Const) and s.callee.value is ops.store_deref for n in [s.args[0].value]
                if n in shared]
    if assigned:
        raise UnsupportedSyntax(
            f"forward mode: {fn.__qualname__} assigns its captured variable {assigned[0]!r} (nonlocal), "
            "which has a tangent", function=fn.__qualname__, filename=fn.__code__.co_filename,
            line=fn.__code__.co_firstlineno,
            hint="return the new value from it instead, or use reverse mode (zpy.gradient, zpy.jacobian)")
    left = {p: tangent.get(dfn, p) for p in defaulted(fn, ir.signature, len(args), list(kwargs))}
    dkwargs = {**{p: d for p, d in left.items() if not runtime.is_zero_tangent(d)}, **dkwargs}
    (y, _), (dy, _) = call_jvp_with_cells(fn, shared, tuple(tangent.get(dfn, n) for n in shared), (), args,
                                          kwargs, dargs, dkwargs)
    return y, runtime.zero_tangent(y) if dy is None else dy


def jvp_entry(fn: types.FunctionType, args: tuple, kwargs: dict, dargs: tuple,
              dkwargs: dict, cells: tuple = ((), (), ())) -> tuple[CompiledJvp, list, list]:
    """The compiled pushforward for this call, the parameters' values, and
    the tangents it takes (those of the differentiated parameters: with a
    value that can carry one, or a list or dict with its tangent, which
    the call may fill with differentiated values)."""
    sig = primal_ir(fn).signature
    values = param_values(sig, fn, args, kwargs)
    tangents = _tangent_values(sig, dargs, dkwargs, kwargs)
    active = tuple(t is not _GONE and not runtime.is_zero_tangent(t) and v is not _GONE
                   and (is_differentiable_value(v) or any(isinstance(v, c) and isinstance(t, c) for c in (list, dict)))
                   for v, t in zip(values, tangents))
    entry = compiled_jvp(fn, active, tuple(0 if v is _GONE else kind(v) for v in values), cells)
    return entry, values, [t for t, on in zip(tangents, active) if on]


runtime.seam.install(types.SimpleNamespace(
    call_forward=call_forward, call_jvp=call_jvp, call_jvp_closure=call_jvp_closure,
    call_jvp_with_cells=call_jvp_with_cells, construct=construct, vjp_plan=vjp_plan, masks=masks,
    compiled=compiled, never_library=never_library, changed_positions=mutation_pass.changed_positions,
    self_calls=mutation_pass.self_calls,
    push_rule=pushrules.call,
))
"""The compiler that the runtime calls (see :mod:`zygote_py.runtime.seam`)."""
