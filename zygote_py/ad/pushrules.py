"""Pushforward rules as IR, inlined with their zero tangents dropped.

A pushforward rule (:func:`zygote_py.registry.pushforward`) is a
plain function of the output ``y``, the call's arguments and, keyword-only,
their tangents ``d<name>``, written as if every tangent were there::

    def mul(y, a, b, *, da, db):
        return da * b + a * db

The forward transform knows at compile time which tangents are zero (an
argument that does not depend on a differentiated input). It inlines the
rule with those tangents as the symbolic :data:`ZERO` and drops what they
reach: a rule is linear in its tangents, so a call whose every
tangent-valued operand is zero is zero (``ZERO * b``), ``a + ZERO`` is
``a``, ``ZERO - b`` is ``-b``, and a tuple item that is zero is ``None``
(no tangent). A call that mixes a zero tangent with another tangent
(``np.where(c, da, db)``) gets a concrete zero: ``runtime.zero_tangent``
of the argument for a parameter's tangent, else ``0.0``, which
broadcasts.
So ``a * b`` with only ``a`` differentiated emits ``da * b``: the term
``a * db`` never exists, and neither does a ``nan`` it could have made.

:func:`call` does the same at run time, for rules the transform could not
inline and for calls resolved only then: the specialised function is
compiled once per rule and pattern of zero tangents.
"""
from __future__ import annotations

import inspect
import operator
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from .. import runtime
from ..errors import ZygoteError
from ..frontend.lower import lower
from ..frontend.source import get_source
from ..ir import ops
from ..ir.core import IR, Const, Operand, Return, Signature, Starred, Statement, Var
from ..ir.passes import member, optimize
from .inline import EFFECTS, resolve_globals


class _Zero:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ZERO"


ZERO = Const(_Zero())
"""The tangent known at compile time to be zero."""


def is_zero(op: Any) -> bool:
    return isinstance(op, Const) and op.value is ZERO.value


@dataclass
class PushIR:
    """A pushforward rule, lowered (straight-line)."""

    rule: Any
    ir: IR
    params: list[str]  # the call's parameters, after ``y``
    vararg: Optional[str]
    tangents: dict[str, str]  # parameter → the name of its tangent parameter
    defaults: dict[str, Any]
    keywords: list[str]  # keyword-only parameters that are no tangents


_CACHE: dict[int, tuple[Any, Optional[PushIR]]] = {}


def push_ir(rule: Any) -> Optional[PushIR]:
    """The lowered rule, or None when it is not straight-line code that
    returns (it is then called at run time with its zeros made concrete)."""
    hit = _CACHE.get(id(rule))
    if hit is None or hit[0] is not rule:
        try:
            p = _prepare(rule)
        except ZygoteError:
            p = None
        hit = _CACHE[id(rule)] = (rule, p)
    return hit[1]


def tangent_name(param: str, params: list[str]) -> str:
    """The name of the tangent of a rule's parameter ``param``: ``d<param>``,
    or ``d_<param>`` where that is the name of another of its ``params``
    (``np.trapezoid(y, x, dx)``: ``x``'s tangent is ``d_x``, ``dx``'s
    ``ddx``)."""
    return "d_" + param if "d" + param in params else "d" + param


def _prepare(rule: Any) -> Optional[PushIR]:
    src = get_source(rule)
    ir = lower(src.node, filename=src.filename, name=src.name)
    resolve_globals(ir, rule.__globals__)
    optimize(ir)
    if len(ir.blocks) != 1 or not isinstance(ir.entry.term, Return) or ir.cellvars:
        return None
    sig = ir.signature
    positional = sig.posonly + sig.args
    names = positional[1:] + ([sig.vararg] if sig.vararg else [])
    tangents = {p: t for p in names if (t := tangent_name(p, names)) in sig.kwonly}
    keywords = [n for n in sig.kwonly if n not in tangents.values()]
    defaults = dict(zip(positional[len(positional) - len(rule.__defaults__ or ()):], rule.__defaults__ or ()))
    defaults.update((k, v) for k, v in (rule.__kwdefaults__ or {}).items() if k in keywords)
    return PushIR(rule, ir, positional[1:], sig.vararg, tangents, defaults, keywords)


def bind(r: PushIR, args: list[Operand], kwargs: list[tuple[Optional[str], Operand]]) -> Optional[dict[str, Any]]:
    """The call's operands by parameter name (``*vararg`` gets the list of
    the extra positional operands), or None when the call does not bind
    statically (starred arguments, unknown keywords)."""
    if any(isinstance(a, Starred) for a in args):
        return None
    bound: dict[str, Any] = dict(zip(r.params, args))
    extra = args[len(r.params):]
    if extra and r.vararg is None:
        return None
    if r.vararg is not None:
        bound[r.vararg] = list(extra)
    for k, v in kwargs:
        if k is None or k not in r.params and k not in r.keywords or k in bound:
            return None
        bound[k] = v
    for p in r.params + r.keywords:
        if p not in bound:
            if p not in r.defaults:
                return None
            bound[p] = Const(r.defaults[p])
    return bound


def inline(
    target: IR, out: list[Statement], r: PushIR, y: Operand, bound: dict[str, Any],
    tangents: dict[str, Any], line: Optional[int], scalar: bool = False,
) -> Operand:
    """Append the rule's statements, for the call whose operands are
    ``bound`` (see :func:`bind`) and output ``y``, to ``out``; return the
    output's tangent. ``tangents`` maps a parameter to its tangent operand
    (:data:`ZERO` or absent where it is zero; for the vararg, a list).
    ``scalar``: ``y`` is known to be a number, whose tangent needs no
    ``runtime.shaped``."""
    entry = r.ir.entry
    sig = r.ir.signature
    env: dict[Var, Operand] = {}
    tangent: set[Var] = set()  # the rule's values that are tangents
    primal_of: dict[Var, Operand] = {}  # a zero tangent parameter's argument
    names = sig.posonly + sig.args + ([sig.vararg] if sig.vararg else []) + sig.kwonly
    of_tangent = {t: p for p, t in r.tangents.items()}
    for v, n in zip(entry.args, names):
        if n == names[0]:
            env[v] = y
        elif n in bound and n not in r.tangents.values():
            env[v] = _pack(target, out, bound[n], line) if n == r.vararg else bound[n]
        else:  # a tangent parameter
            p = of_tangent.get(n, n[1:])
            t = tangents.get(p, ZERO)
            if p == r.vararg:  # a tuple of tangents, zeros made concrete
                items = [ZERO] * len(bound[p]) if is_zero(t) else t
                t = _pack(target, out, [_concrete(target, out, d, a, line) for d, a in zip(items, bound[p])], line)
            env[v] = t
            tangent.add(v)
            if is_zero(t) and p in bound and p != r.vararg:
                primal_of[v] = bound[p]

    def sub(op):
        if isinstance(op, Starred):
            return Starred(sub(op.value))
        return env.get(op, op) if isinstance(op, Var) else op

    for s in entry.stmts:
        callee = sub(s.callee)
        args = [sub(a) for a in s.args]
        kwargs = [(k, sub(v)) for k, v in s.kwargs]
        operands = [callee] + [a.value if isinstance(a, Starred) else a for a in args] + [v for _, v in kwargs]
        raw = [s.callee] + [a.value if isinstance(a, Starred) else a for a in s.args] + [v for _, v in s.kwargs]
        carries = [o for o, r_ in zip(operands, raw) if isinstance(r_, Var) and r_ in tangent]
        if carries:
            tangent.add(s.var)
        zeros = [o for o in carries if is_zero(o)]
        fn = callee.value if isinstance(callee, Const) else None
        if fn is runtime.shaped and scalar:
            env[s.var] = args[0]
            continue
        if zeros:
            if len(zeros) == len(carries):
                if fn in (ops.build_tuple, ops.build_list):
                    args = [Const(None) if is_zero(a) else a for a in args]
                else:
                    env[s.var] = ZERO
                    continue
            elif fn is operator.add and len(args) == 2:
                env[s.var] = args[1] if is_zero(args[0]) else args[0]
                continue
            elif fn is operator.sub and len(args) == 2 and is_zero(args[1]):
                env[s.var] = args[0]
                continue
            elif fn is operator.sub and len(args) == 2:
                callee, args = Const(operator.neg), [args[1]]
            elif fn in (ops.build_tuple, ops.build_list):
                args = [Const(None) if is_zero(a) else a for a in args]
            else:
                def made(o: Operand, raw: Operand) -> Operand:
                    """A zero made concrete: of its argument's kind for a
                    parameter's tangent, else ``0.0``, which broadcasts."""
                    if is_zero(o) and raw in primal_of:
                        return _concrete(target, out, o, primal_of[raw], line)
                    return Const(0.0) if is_zero(o) else o

                args = [made(a, r_) for a, r_ in zip(args, s.args)]
                kwargs = [(k, made(v, r_)) for (k, v), (_, r_) in zip(kwargs, s.kwargs)]
        if isinstance(callee, Const):
            args, kwargs = _without_defaults(callee.value, args, kwargs)
        v = target.new_var(r.ir.names.get(s.var) if s.var in tangent else None)
        env[s.var] = v
        pure = isinstance(callee, Const) and not member(callee.value, EFFECTS)
        out.append(Statement(v, callee, args, kwargs, line, pure=pure))
    return sub(entry.term.value)


_DEFAULTS: dict[int, tuple[Any, Optional[dict]]] = {}


def _without_defaults(fn: Any, args: list, kwargs: list) -> tuple[list, list]:
    """``args`` and ``kwargs`` without the constants equal to ``fn``'s
    defaults: the keywords that are, and then, once no keyword is left,
    the trailing positional ones (``np.sum(d, None, None, keepdims=False)``
    reads as ``np.sum(d)``)."""
    hit = _DEFAULTS.get(id(fn))
    if hit is None or hit[0] is not fn:
        try:
            defaults = {p.name: False if p.name == "keepdims" and p.default is np._NoValue else p.default
                        for p in inspect.signature(fn).parameters.values()
                        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        except (TypeError, ValueError):
            defaults = None
        hit = _DEFAULTS[id(fn)] = (fn, defaults)
    defaults = hit[1]
    if defaults is None:
        return args, kwargs
    kwargs = [(k, v) for k, v in kwargs if not (k in defaults and _is_default(v, defaults[k]))]
    positional = list(defaults.values())
    if kwargs or len(args) > len(positional):
        return args, kwargs
    while args and _is_default(args[-1], positional[len(args) - 1]):
        args = args[:-1]
    return args, kwargs


def _is_default(a: Operand, default: Any) -> bool:
    """Whether ``a`` is a constant number, string or ``None`` equal to ``default``."""
    return isinstance(a, Const) and type(a.value) in (type(None), bool, int, float, str) \
        and type(default) is type(a.value) and default == a.value


def _pack(target: IR, out: list[Statement], items: Any, line: Optional[int]) -> Operand:
    """A list of operands as a tuple display (the vararg and its tangents)."""
    if not isinstance(items, list):
        return items
    v = target.new_var()
    out.append(Statement(v, Const(ops.build_tuple), items, [], line, pure=True))
    return v


def _concrete(target: IR, out: list[Statement], t: Operand, primal: Operand, line: Optional[int]) -> Operand:
    """The tangent ``t`` of ``primal``, a zero of its kind if it is zero."""
    if not is_zero(t):
        return t
    z = target.new_var()
    out.append(Statement(z, Const(runtime.zero_operand), [primal], [], line, pure=True))
    return z


# --------------------------------------------------------------------------
# At run time
# --------------------------------------------------------------------------

_COMPILED: dict[tuple, tuple[Any, Callable]] = {}


def call(rule: Any, y: Any, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict) -> Any:
    """The rule's tangent of ``y = f(*args, **kwargs)`` for the argument
    tangents ``dargs`` (one per positional argument) and ``dkwargs``; a
    tangent that is None, or an integer, is zero and dropped as the
    inlined rule drops it. A zero result is concrete
    (``runtime.zero_tangent(y)``)."""
    zero = tuple(runtime.is_zero_tangent(t) for t in dargs)
    kzero = tuple((k, runtime.is_zero_tangent(dkwargs.get(k))) for k in kwargs)
    key = (id(rule), zero, kzero)
    hit = _COMPILED.get(key)
    if hit is None or hit[0] is not rule:
        from .pipeline import _LOCK  # (the one lock of all compilation: see pipeline.primal_ir)

        with _LOCK:
            hit = _COMPILED[key] = (rule, _specialise(rule, len(args), list(kwargs), zero, kzero))
    fn = hit[1]
    live = [t for t, z in zip(dargs, zero) if not z] + [dkwargs[k] for k, z in kzero if not z]
    t = fn(y, *args, *kwargs.values(), *live)
    return runtime.zero_tangent(y) if t is None else t  # (a tangent read at run time is concrete)


def _specialise(rule: Any, nargs: int, keywords: list[str], zero: tuple, kzero: tuple) -> Callable:
    """A function ``(y, *args, *kwargs' values, *nonzero tangents)`` that
    runs the rule inlined with these zeros (or calls it with concrete
    zeros when it cannot be inlined or the call does not bind)."""
    from ..backend.compile import compile_def, function_def, instantiate

    r = push_ir(rule)
    names = [f"a{i}" for i in range(nargs)] + [f"k_{k}" for k in keywords]
    live = [f"d{n}" for n, z in zip(names, zero + tuple(z for _, z in kzero)) if not z]
    ir = IR(f"{getattr(rule, '__name__', 'rule')}_push", "<pushforward>", 1, Signature(args=["y", *names, *live]))
    entry = ir.new_block()
    entry.args = [ir.new_var(n) for n in ["y", *names, *live]]
    y, ops_ = entry.args[0], entry.args[1:1 + len(names)]
    tans = dict(zip(live, entry.args[1 + len(names):]))
    per_arg = [tans.get(f"d{n}", ZERO) for n in names]
    bound = None if r is None else bind(r, ops_[:nargs], list(zip(keywords, ops_[nargs:])))
    if bound is None:
        return lambda y, *rest: _call_concrete(rule, y, rest, nargs, keywords, zero, kzero)
    tangents: dict[str, Any] = {}
    for p, t in zip(r.params, per_arg[:nargs]):
        tangents[p] = t
    if r.vararg is not None:
        tangents[r.vararg] = per_arg[len(r.params):nargs]
        if all(is_zero(t) for t in tangents[r.vararg]):
            tangents[r.vararg] = ZERO
    for k, t in zip(keywords, per_arg[nargs:]):
        tangents[k] = t
    tangents = {p: t for p, t in tangents.items() if p in r.tangents}
    stmts: list[Statement] = []
    dy = inline(ir, stmts, r, y, bound, tangents, 1)
    entry.stmts = stmts
    if is_zero(dy):
        dy = Const(None)
    entry.term = Return(dy, 1)
    optimize(ir)
    fdef, constants = function_def(ir, ir.name)
    code = compile_def(fdef, constants, (), ir.filename)
    return instantiate(code, constants, rule, keep_identity=False)


def _call_concrete(rule: Any, y: Any, rest: tuple, nargs: int, keywords: list[str], zero: tuple,
                   kzero: tuple) -> Any:
    args, kw = rest[:nargs], dict(zip(keywords, rest[nargs:nargs + len(keywords)]))
    live = iter(rest[nargs + len(keywords):])
    dargs = [runtime.zero_tangent(a) if z else next(live) for a, z in zip(args, zero)]
    dkw = {k: runtime.zero_tangent(kw[k]) if z else next(live) for k, z in kzero}
    params = [p for p in inspect.signature(rule).parameters.values()][1:]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
    accepted = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
    names = positional + ([star] if star else [])

    def d(p: str) -> str:
        return tangent_name(p, names)
    tangents = {d(p.name): runtime.zero_tangent(p.default) for p in params
                if p.kind is p.POSITIONAL_OR_KEYWORD and d(p.name) in accepted and p.default is not p.empty}
    for name, t in zip(positional, dargs):
        if d(name) in accepted:
            tangents[d(name)] = t
    if star is not None and d(star) in accepted:
        tangents[d(star)] = tuple(dargs[len(positional):])
    for k, t in dkw.items():
        if d(k) in accepted:
            tangents[d(k)] = t
    return rule(y, *args, **kw, **tangents)
