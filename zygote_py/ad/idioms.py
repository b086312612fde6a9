"""NumPy idioms the reverse transform treats as a careful person would.

- **Shift invariance.** ``m + log(sum(exp(x - m)))`` (the log-sum-exp) and
  ``(x - m) - log(sum(exp(x - m)))`` (the log-softmax) do not depend on
  ``m`` when ``m`` is constant along the summed axes, as the max that
  keeps the exponentials from overflowing is (``np.max(x)``, or
  ``np.max(x, axis=k, keepdims=True)`` with the sum over the same ``k``,
  ``keepdims=True``). Their derivative with respect to ``m`` is exactly 0,
  so its contributions are left out of the pullback (in floating point
  they are rounding errors that cancel), and the max's own pullback, a
  search for the maximum's positions, runs only when ``m`` is used
  elsewhere. JAX's ``logsumexp`` stops the max's gradient for the same
  reason.
- **Reductions as methods.** ``np.sum(a, axis=1)`` on an array is
  ``a.sum(axis=1)``, which skips NumPy's function dispatch (about 1 µs a
  call). The emitted forward calls reductions of known arrays, and the
  array methods that the transform read as functions, as methods.
- **Unpacking an array.** ``a, b, c = p`` of an array reads ``p[0]``,
  ``p[1]``, ``p[2]`` (after checking ``len(p)``): for a one-dimensional
  real array, numbers, whose rules are inlined and whose gradients go back
  into ``p``'s item by item, instead of a tuple that only the run-time
  ``J`` differentiates.
- **A log.** ``HISTORY.append(float(loss))`` (or ``append(loss)``,
  ``extend``, ``insert``, ``add``, ``appendleft``) of a global that the
  function reads nowhere else (but for its ``len`` and ``clear()``, which
  read no value back), its result unused, keeps a record of values
  that nothing in the function reads back: it is a side effect with no
  gradient, like ``print``, and the container receives the plain value
  (:func:`log_appends`). A function that also reads the global (``return
  loss + HISTORY[0]``) is left to the mutation pass, which refuses to
  change a global in place with a differentiated value: whether the values
  read back should carry gradients is ambiguous.
- **Grouping into lists.** ``d.setdefault(k, []).append(v)`` changes the
  item ``d[k]`` that ``setdefault`` returns: it is read as
  ``d.setdefault(k, []); d[k].append(v)``, the change of an item the
  mutation pass follows (as for a ``defaultdict``'s ``d[k].append(v)``):
  :func:`setdefault_items`.
- **Keywords into a dict.** ``d.update(b=v)`` on a dict the function made
  (a display ``{...}`` or ``dict(...)``) is ``d.update({"b": v})``: the
  change of a dict by a dict, whose rules give ``v`` its gradient and
  tangent (a rule's keyword arguments get none): :func:`keyword_updates`.
- **Sorting a list in place.** ``xs.sort(key=k, reverse=r)`` on a list the
  function made (a display, a comprehension, ``list(...)``) is ``xs[:] =
  sorted(xs, key=k, reverse=r)``: the same items in the same order (both
  are stable), through ``sorted``'s rules, in both modes
  (:func:`sorts_in_place`).
- **A namedtuple's copy.** ``s._replace(b=v)`` is
  ``ops.replace_fields(s, ("b",), v)``, whose rules pass the fields' gradients
  on (the method's own code reads them with ``dict.pop`` through ``map``):
  :func:`replaced_fields`.
"""
from __future__ import annotations

import builtins
import operator
import types
from typing import Any, Callable, Optional

import numpy as np

from .. import runtime
from ..ir import ops, passes
from ..ir.core import IR, Const, Operand, Starred, Statement, Var
from . import analysis
from .analysis import Facts

_SUBTRACT = (operator.sub, np.subtract)
_ADD = (operator.add, np.add)
_SUMS = (np.sum, np.ndarray.sum)
_MAXES = (np.max, np.amax, np.ndarray.max)

_PARAMS = {
    np.sum: ("a", "axis", "dtype", "out", "keepdims"),
    np.ndarray.sum: ("a", "axis", "dtype", "out", "keepdims"),
    np.max: ("a", "axis", "out", "keepdims"),
    np.amax: ("a", "axis", "out", "keepdims"),
    np.ndarray.max: ("a", "axis", "out", "keepdims"),
}
"""The parameters of the reductions the shift-invariant idioms use, in
order (only ``a``, ``axis`` and ``keepdims`` may be passed)."""


def _reduction(s: Statement, fn: Any) -> Optional[tuple[Operand, Any, bool]]:
    """``(a, axis, keepdims)`` of a sum or max called with constants for
    ``axis`` and ``keepdims`` and nothing else."""
    if any(isinstance(a, Starred) for a in s.args) or len(s.args) > 4:
        return None
    bound = dict(zip(_PARAMS[fn], s.args))
    for k, v in s.kwargs:
        if k is None or k in bound or k not in ("a", "axis", "keepdims"):
            return None
        bound[k] = v
    if set(bound) - {"a", "axis", "keepdims"} or "a" not in bound:
        return None
    axis, keepdims = bound.get("axis", Const(None)), bound.get("keepdims", Const(False))
    if not (isinstance(axis, Const) and isinstance(keepdims, Const) and type(keepdims.value) is bool):
        return None
    return bound["a"], axis.value, keepdims.value


def shift_free(ir: IR, facts: Facts) -> set[tuple[Var, int]]:
    """The operands whose gradient is exactly 0 by shift invariance, as
    ``(statement's variable, argument position)``: the max ``m`` where the
    log-sum-exp or log-softmax subtracts it and (in the log-sum-exp) adds
    it back."""
    defs = {s.var: s for b in ir.blocks.values() for s in b.stmts}
    uses = passes.use_counts(ir)

    def defined(v: Operand, fns: tuple, once: bool = True) -> Optional[Statement]:
        s = defs.get(v) if isinstance(v, Var) else None
        if s is None or facts.callee(s) not in fns or once and uses.get(v) != 1:
            return None
        return s

    def shifted(d: Optional[Statement]) -> Optional[tuple[Operand, Operand]]:
        """``(x, m)`` of ``d = x - m``, an array of real numbers minus a
        max of it that is constant along the axes the idiom sums."""
        if d is None or len(d.args) != 2 or d.kwargs or d.var not in facts.arrays:
            return None
        x, m = d.args
        return (x, m) if x != m and x in facts.arrays and analysis.is_real(x, facts) else None

    def log_sum_exp(l: Operand) -> Optional[tuple[Statement, Any, bool]]:
        """``(d, axis, keepdims)`` of ``l = log(sum(exp(d), axis,
        keepdims))``, each value read once."""
        log = defined(l, (np.log,))
        total = log and len(log.args) == 1 and not log.kwargs and defined(log.args[0], _SUMS)
        summed = total and _reduction(total, facts.callee(total))
        exp = summed and defined(summed[0], (np.exp,))
        if not exp or len(exp.args) != 1 or exp.kwargs or not isinstance(exp.args[0], Var):
            return None
        d = defs.get(exp.args[0])
        return (d, summed[1], summed[2]) if d is not None and facts.callee(d) in _SUBTRACT else None

    def is_max(m: Operand, x: Operand, axis: Any, keepdims: bool) -> bool:
        s = defined(m, _MAXES, once=False)
        found = s and _reduction(s, facts.callee(s))
        if not found or found[0] != x or found[1] != axis:
            return False
        return axis is None or keepdims and found[2]

    out: set[tuple[Var, int]] = set()
    for s in defs.values():
        fn = facts.callee(s)
        if len(s.args) != 2 or s.kwargs or fn not in _ADD + _SUBTRACT:
            continue
        for k in ((0, 1) if fn in _ADD else (0,)):
            lse = log_sum_exp(s.args[1 - k])
            xm = lse and shifted(lse[0])
            if not xm or not is_max(xm[1], xm[0], lse[1], lse[2]):
                continue
            d = lse[0]
            if fn in _ADD and s.args[k] == xm[1] and uses.get(d.var) == 1:  # m + log(sum(exp(x - m)))
                found = {(s.var, k), (d.var, 1)}
            elif fn in _SUBTRACT:  # (x - m) - log(sum(exp(x - m)))
                a = defs.get(s.args[0]) if isinstance(s.args[0], Var) else None
                once = uses.get(d.var) == (2 if a is d else 1) and (a is d or uses.get(a.var if a else None) == 1)
                found = {(a.var, 1), (d.var, 1)} if (
                    a is not None and facts.callee(a) in _SUBTRACT and shifted(a) == xm and once) else set()
            else:
                found = set()
            # both parts or neither: each is left out where its rule is inlined, which needs a number
            if found and all(v in facts.numeric for v, _ in found):
                out |= found
    return out


_METHODS = {
    np.sum: "sum", np.prod: "prod", np.mean: "mean", np.max: "max", np.amax: "max", np.min: "min",
    np.amin: "min", np.var: "var", np.std: "std", np.cumsum: "cumsum", np.cumprod: "cumprod",
    np.all: "all", np.any: "any", np.argmax: "argmax", np.argmin: "argmin",
}
"""NumPy reductions whose parameters after the array are their method's,
in the same order."""


def as_methods(ir: IR, arrays: set[Var], callee: Callable[[Statement], Any]) -> None:
    """Call reductions of known arrays, and array methods the transform read
    off ``np.ndarray``, as methods of their first argument (which also
    works on a NumPy scalar, where ``np.ndarray.clip(s)`` raises; a rule's
    ``np.ndarray.clip(a, ...)`` is a read of ``clip`` off the class).
    ``arrays``: values known to be arrays; ``callee``: a statement's callee
    when known at compile time.)"""
    read = {s.var: getattr(s.args[0].value, s.args[1].value, None) for b in ir.blocks.values() for s in b.stmts
            if isinstance(s.callee, Const) and s.callee.value is getattr and len(s.args) == 2 and all(isinstance(a, Const) for a in s.args)
            and isinstance(s.args[0].value, (type, types.ModuleType)) and isinstance(s.args[1].value, str)}
    for b in ir.blocks.values():
        out: list[Statement] = []
        for s in b.stmts:
            fn = read.get(s.callee) if isinstance(s.callee, Var) and s.callee in read else callee(s)
            name = None
            if s.args and isinstance(s.args[0], Var) and s.args[0] in arrays and passes.member(fn, _METHODS):
                name = _METHODS[fn]
            elif getattr(fn, "__objclass__", None) is np.ndarray and isinstance(fn, types.MethodDescriptorType):
                name = fn.__name__
            if name is None or not s.args or isinstance(s.args[0], Starred):
                out.append(s)
                continue
            method = ir.new_var()
            out.append(Statement(method, Const(getattr), [s.args[0], Const(name)], [], s.line, pure=True))
            s.callee, s.args = method, s.args[1:]
            out.append(s)
        b.stmts = out



def index_unpacked_vectors(ir: IR, facts: Facts) -> bool:
    """``t = unpack(p, n)`` of an array ``p`` read only as ``t[i]`` (with
    constant ``i``) becomes ``check_count(p, n)``, and each ``t[i]``
    becomes ``p[i]`` (see the module docstring). Whether anything
    changed."""
    defs = {s.var: s for b in ir.blocks.values() for s in b.stmts}
    unpacked = {v for v, s in defs.items() if facts.callee(s) is ops.unpack and len(s.args) == 2 and not s.kwargs
                and s.args[0] in facts.arrays}
    if not unpacked:
        return False
    for b in ir.blocks.values():  # (read any other way: kept)
        for x in [*(x for s in b.stmts if not _item_read(s, facts, unpacked) for x in s.operands()), *b.term_operands()]:
            unpacked.discard(x)
        if b.handler is not None:
            unpacked.difference_update(b.handler.args)
    for b in ir.blocks.values():
        for s in b.stmts:
            if s.var in unpacked:
                s.callee = Const(ops.check_count)
            elif _item_read(s, facts, unpacked):
                s.args = [defs[s.args[0]].args[0], s.args[1]]
    return bool(unpacked)


def _item_read(s: Statement, facts: Facts, unpacked: set[Var]) -> bool:
    return (facts.callee(s) is operator.getitem and len(s.args) == 2 and not s.kwargs and s.args[0] in unpacked
            and isinstance(s.args[1], Const) and type(s.args[1].value) is int)


_LOGS = ("append", "extend", "insert", "add", "appendleft")
"""The methods of :data:`runtime.LOG_CONTAINERS` that :func:`log_appends`
reads as logging."""


def log_appends(f: IR) -> None:
    """Each call ``G.append(v)`` (a method of :data:`_LOGS`) of a global
    ``G`` that ``f`` reads only to call such methods, never assigns, and
    whose result is unused, becomes ``runtime.logged(G.append, v)``, a
    side effect with no gradient (see the module's docstring)."""
    stmts = [s for b in f.blocks.values() for s in b.stmts]
    counts = passes.use_counts(f)
    loads: dict[str, list[Var]] = {}
    for s in stmts:
        if isinstance(s.callee, Const) and s.callee.value in (ops.load_global, ops.store_global):
            loads.setdefault(s.args[0].value, []).append(s.var if s.callee.value is ops.load_global else None)
    methods = {s.var: s for s in stmts if isinstance(s.callee, Const) and s.callee.value is getattr
               and len(s.args) == 2 and isinstance(s.args[1], Const) and s.args[1].value in (*_LOGS, "clear")}
    calls = {s.callee: s for s in stmts if isinstance(s.callee, Var) and s.callee in methods
             and counts.get(s.var, 0) == 0 and not s.kwargs and not any(isinstance(a, Starred) for a in s.args)}
    builtin_len = set(loads.get("len", ()))  # (the loads of the global len)
    lengths = [s.args[0] for s in stmts if len(s.args) == 1 and not s.kwargs and (
        s.callee in builtin_len or isinstance(s.callee, Const) and s.callee.value is len)]
    for name, vs in loads.items():
        if name in vars(builtins) or None in vs or not all(
                counts.get(v, 0) == sum(1 for m in methods.values() if m.args[0] == v) + lengths.count(v)
                for v in vs):
            continue  # (list.append(self, v) of a class's own; assigned; read for anything but a log's method)
        logs = [m for m in methods.values() if m.args[0] in vs]
        if logs and all(counts.get(m.var, 0) == 1 and m.var in calls for m in logs):
            for m in logs:
                call = calls[m.var]
                call.args = [m.var, *call.args]
                call.callee = Const(runtime.logged)


def setdefault_items(f: IR) -> None:
    """Each ``y = d.setdefault(k, v)`` whose ``y`` is read only for its
    methods (``y.append(x)``) has those reads take ``d[k]``, read right
    after it (the same object: see the module's docstring)."""
    stmts = {s.var: s for b in f.blocks.values() for s in b.stmts}
    reads: dict[Var, list[Statement]] = {}
    for b in f.blocks.values():
        for s in b.stmts:
            for o in s.operands():
                if isinstance(o, Var):
                    reads.setdefault(o, []).append(s)
    held = {o for b in f.blocks.values() for o in b.term_operands()} \
        | {a for b in f.blocks.values() for j in b.jumps() for a in j.args}
    for b in f.blocks.values():
        for i, s in enumerate(list(b.stmts)):
            m = stmts.get(s.callee) if isinstance(s.callee, Var) else None
            if m is None or not _is_method(m, "setdefault") or len(s.args) != 2 or s.kwargs \
                    or any(isinstance(a, Starred) for a in s.args) or s.var in held:
                continue
            uses = reads.get(s.var, [])
            if not uses or not all(_is_method(u, None) and u.args[0] == s.var and s.var not in u.args[1:]
                                   for u in uses):
                continue
            item = f.new_var()
            b.stmts.insert(b.stmts.index(s) + 1, Statement(item, Const(operator.getitem), [m.args[0], s.args[0]],
                                                           [], s.line))
            for u in uses:
                u.args = [item, *u.args[1:]]


def _is_method(s: Statement, name: Optional[str]) -> bool:
    """Whether ``s`` is ``getattr(obj, name)`` (any name for ``None``)."""
    return isinstance(s.callee, Const) and s.callee.value is getattr and len(s.args) == 2 \
        and isinstance(s.args[0], Var) and isinstance(s.args[1], Const) and isinstance(s.args[1].value, str) \
        and (name is None or s.args[1].value == name)


def keyword_updates(f: IR) -> None:
    """Each ``d.update(k=v, ...)``, with keywords only, of a ``d`` made in
    ``f`` as a dict passes them as a dict made just before it (see the
    module's docstring); a ``d`` of another kind (a user's class with an
    ``update(**kw)``) is left alone."""
    stmts = {s.var: s for b in f.blocks.values() for s in b.stmts}
    dicts = {v for v, s in stmts.items()
             if isinstance(s.callee, Const) and (s.callee.value is ops.build_dict or s.callee.value is dict)}
    for b in f.blocks.values():
        for s in list(b.stmts):
            m = stmts.get(s.callee) if isinstance(s.callee, Var) else None
            if m is None or not _is_method(m, "update") or m.args[0] not in dicts or s.args or not s.kwargs \
                    or any(k is None for k, _ in s.kwargs):
                continue
            items = f.new_var()
            b.stmts.insert(b.stmts.index(s), Statement(
                items, Const(ops.build_dict), [a for k, v in s.kwargs for a in (Const(k), v)], [], s.line))
            s.args, s.kwargs = [items], []


def sorts_in_place(f: IR) -> None:
    """Each ``xs.sort(...)`` of an ``xs`` made in ``f`` as a list stores
    ``sorted(xs, ...)`` into all of it (see the module's docstring)."""
    stmts = {s.var: s for b in f.blocks.values() for s in b.stmts}

    def made_by(s: Statement, name: str, op: Any) -> bool:
        if isinstance(s.callee, Const):
            return s.callee.value is op
        made = stmts.get(s.callee) if isinstance(s.callee, Var) else None
        return made is not None and isinstance(made.callee, Const) and made.callee.value is ops.load_global \
            and len(made.args) == 1 and isinstance(made.args[0], Const) and made.args[0].value == name

    lists = {v for v, s in stmts.items() if made_by(s, "list", ops.build_list) or made_by(s, "sorted", sorted)}
    for b in f.blocks.values():
        for s in list(b.stmts):
            m = stmts.get(s.callee) if isinstance(s.callee, Var) else None
            if m is None or not _is_method(m, "sort") or m.args[0] not in lists or s.args \
                    or any(k not in ("key", "reverse") for k, _ in s.kwargs):
                continue
            items = f.new_var()
            b.stmts.insert(b.stmts.index(s), Statement(items, Const(sorted), [m.args[0]], list(s.kwargs), s.line))
            s.callee, s.args, s.kwargs = Const(operator.setitem), [m.args[0], Const(slice(None)), items], []
            _drop_if_unused(f, m)


def replaced_fields(f: IR) -> None:
    """Each ``s._replace(k=v, ...)``, with keywords only, is a call of
    ``ops.replace_fields`` (see the module's docstring)."""
    stmts = {s.var: s for b in f.blocks.values() for s in b.stmts}
    for b in f.blocks.values():
        for s in list(b.stmts):
            m = stmts.get(s.callee) if isinstance(s.callee, Var) else None
            if m is None or not _is_method(m, "_replace") or s.args or any(k is None for k, _ in s.kwargs):
                continue
            s.callee, s.args = Const(ops.replace_fields), [m.args[0], Const(tuple(k for k, _ in s.kwargs)),
                                                           *(v for _, v in s.kwargs)]
            s.kwargs = []
            _drop_if_unused(f, m)


def _drop_if_unused(f: IR, s: Statement) -> None:
    """Remove ``s``, a method read for a call that no longer reads it
    (forward mode would look for the method's tangent)."""
    if not passes.use_counts(f).get(s.var):
        next(b for b in f.blocks.values() if s in b.stmts).stmts.remove(s)
