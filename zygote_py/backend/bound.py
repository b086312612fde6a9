"""The fused gradient ``def`` made into the fast path of ``zpy.grad``: the
same body behind a guard prologue, returning only the gradients asked for.

``zpy.grad(f)`` returns a function that, once bound, calls this one
directly (see :mod:`zygote_py.transforms`), so that a call costs the
emitted code plus a check, not a look-up. The prologue returns the marker
``STALE`` instead of running the body unless

- each argument is of the kind the gradient was compiled for (its exact
  type; an array's dtype and number of dimensions too), none missing (a
  parameter defaults to ``STALE``, which fails that check);
- every global the compilation specialised on is still bound to the same
  object (read as the body reads it, so Python's own global cache makes
  the check cheap; a global that is gone fails it).

A rule registered or removed since is the caller's to check: it drops its
binding then (``registry.on_change``). Calls with more arguments than
parameters are the caller's to keep away: the parameters are
positional-only (``co_posonlyargcount`` is their number), and after them
come the constants the code reads, as parameters with default values, so
that the function has no closure cells of its own to copy and reads them
as locals (about a tenth of the fast path on ``sin(cos(x))``). Each check
in the prologue costs the fast path time (a ``*rest`` parameter alone, 15%
of it).

The body is unchanged but for its ``return (y, (g0, g1, ...))``, which
returns ``g_i`` (an int ``picked``) or ``(g_i, g_j, ...)`` (a tuple), after
``y`` when ``value``. Each picked gradient goes through what the general
path puts it through (``finish``): ``runtime.user_gradient`` with arrays
among the arguments (a lazy zero or sparse gradient made dense),
``runtime.checked_gradient`` otherwise (a refused gradient raises its
error), skipped only where it is already of its argument's dense type.
"""
from __future__ import annotations

import builtins
import copy
from typing import Any

import gast
import numpy as np

from .. import runtime
from .emit import name

STALE = runtime.STALE
"""What a bound gradient function returns when its guards fail: the
caller takes the general path."""

_PREFIX = "_zpy_bound_"  # (zygote_py's own names, as backend.compile's factory: no user variable is spelled so)


def bound_def(fdef: gast.FunctionDef, constants: dict[str, Any], kinds: tuple, checks: list[tuple[str, Any]],
              picked: int | tuple, value: bool, finish: Any) -> tuple[gast.FunctionDef, tuple]:
    """``(def, defaults)``: ``fdef``, a fused gradient function of plain
    positional parameters reading ``constants`` by name, guarded for
    arguments of ``kinds`` (one per parameter: a type, or ``(dtype, ndim)``
    for an array) and the globals ``checks`` (``(name, value)``: a
    builtin's value for a name expected unbound); returning the gradients
    at ``picked`` (and the value first, with ``value``), each through
    ``finish(argument, gradient)``. Its parameters are positional-only,
    followed by one per constant (its own among them), whose values are
    the last of ``defaults``."""
    params = [a.id for a in (*fdef.args.posonlyargs, *fdef.args.args)]
    constants = {**constants, f"{_PREFIX}stale": STALE, f"{_PREFIX}type": builtins.type}
    tests = []
    for i, (p, kind) in enumerate(zip(params, kinds)):
        if isinstance(kind, tuple):
            constants[f"{_PREFIX}ndarray"] = np.ndarray
            constants[f"{_PREFIX}dtype{i}"] = kind[0]
            tests.append(f"{_PREFIX}type({p}) is not {_PREFIX}ndarray or {p}.dtype != {_PREFIX}dtype{i} "
                         f"or {p}.ndim != {kind[1]}")
        else:
            constants[f"{_PREFIX}kind{i}"] = kind
            tests.append(f"{_PREFIX}type({p}) is not {_PREFIX}kind{i}")
    for i, (g, v) in enumerate(checks):
        constants[f"{_PREFIX}global{i}"] = v
        tests.append(f"{g} is not {_PREFIX}global{i}")
    prologue = gast.parse(
        f"try:\n    if {' or '.join(tests) or 'False'}:\n        return {_PREFIX}stale\n"
        f"except NameError:\n    return {_PREFIX}stale\n").body
    constants[f"{_PREFIX}finish"] = finish
    out = copy.deepcopy(fdef)
    for node in _returns(out.body):
        node.value = _picked_result(node.value, params, kinds, picked, value, constants)
    out.body = prologue + out.body
    out.args.posonlyargs = [*out.args.posonlyargs, *out.args.args]
    out.args.args = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in constants]
    gast.fix_missing_locations(out)
    return out, (STALE,) * len(params) + tuple(constants.values())


def _returns(body: list) -> list[gast.Return]:
    """The ``return`` statements of a function body, not of functions or
    classes defined in it."""
    found, todo = [], list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.Return):
            found.append(node)
        elif not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.expr)):
            todo.extend(gast.iter_child_nodes(node))
    return found


def _picked_result(result: gast.expr, params: list[str], kinds: tuple, picked: int | tuple, value: bool,
                   constants: dict[str, Any]) -> gast.expr:
    """``result``, the fused function's ``(y, gradients)``, as the bound
    function returns it."""
    if not (isinstance(result, gast.Tuple) and len(result.elts) == 2 and isinstance(result.elts[1], gast.Tuple)
            and len(result.elts[1].elts) == len(params)):
        constants[f"{_PREFIX}pick"] = _picker(picked, value, constants[f"{_PREFIX}finish"])
        return gast.Call(func=name(f"{_PREFIX}pick"), args=[result, *map(name, params)], keywords=[])
    y, grads = result.elts

    def gradient(i: int) -> gast.expr:
        g = grads.elts[i]
        made = gast.Call(func=name(f"{_PREFIX}finish"), args=[name(params[i]), g], keywords=[])
        dense = f"{_PREFIX}ndarray" if isinstance(kinds[i], tuple) else f"{_PREFIX}kind{i}" if kinds[i] is float else None
        if dense is None or not isinstance(g, gast.Name):
            return made
        # (a dense array for an array, a float for a float: finish would return it as it is)
        is_dense = gast.Compare(left=gast.Call(func=name(f"{_PREFIX}type"), args=[name(g.id)], keywords=[]),
                                ops=[gast.Is()], comparators=[name(dense)])
        return gast.IfExp(test=is_dense, body=name(g.id), orelse=made)

    out = gradient(picked) if isinstance(picked, int) else \
        gast.Tuple(elts=[gradient(i) for i in picked], ctx=gast.Load())
    return gast.Tuple(elts=[y, out], ctx=gast.Load()) if value else out


def _picker(picked: int | tuple, value: bool, finish: Any) -> Any:
    """What :func:`_picked_result` does, as a function of ``(y, gradients)``
    and the arguments, for a result that is not a tuple spelled out."""
    def pick(result: tuple, *args: Any) -> Any:
        y, grads = result
        grads = tuple(map(finish, args, grads))
        out = grads[picked] if isinstance(picked, int) else tuple(grads[i] for i in picked)
        return (y, out) if value else out
    return pick
