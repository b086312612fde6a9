"""What the reverse transform needs to know about a primal IR before it
starts: compile-time values of callees, activity, and which values are
numbers.

- **Static values.** A callee read from a global (``math``, ``np``, a user
  function), from a closure cell, or as an attribute of a module or class
  found that way, is known at compile time; the transform specialises on
  it (inlines its rule) and records a *guard* so the compiled result is
  dropped when the global is rebound.
- **Activity** (forward data flow to a fixed point): a value is active when
  it depends on a differentiated input through something other than a
  non-differentiable function. Inactive code runs unchanged and records
  nothing.
- **Numbers.** A value known to be a number or an array (an input of such a
  type, an arithmetic result, a numeric constant) has a gradient that is
  either statically absent or a number: gradients of such values are
  added with ``+`` and default to ``0`` where paths merge.
"""
from __future__ import annotations

import builtins
import functools
import importlib
import math
import numbers
import operator
import statistics
import sys
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

import numpy as np

from .. import runtime
from ..runtime import arrays
from ..runtime.values import is_number
from ..frontend.consumption import MAPPED
from ..ir import ops
from ..ir.core import IR, Const, Operand, Starred, Statement, Var
from ..ir.passes import member
from .. import registry
from . import mutation

_MISSING = object()

NUMERIC_CALLEES = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
    operator.neg, operator.pos, operator.abs, operator.mod, operator.iadd,
    operator.isub, operator.imul, operator.itruediv, operator.ipow, operator.imod,
    abs, float, pow, ops.check_bound,
}


NUMBER, SEQUENCE, FLOAT, ARRAY, VECTOR, COMPLEX_ARRAY = 1, 2, 3, 4, 5, 6
"""Kinds of argument in a numeric mask (0: none of these): a number (a
Python float is one whose gradients' zero is ``0.0``), a tuple or list of
numbers, a real array, a one-dimensional real array (whose items are
numbers), a complex array. An object whose fields' kinds are known (a
dataclass parameter of an emitted gradient, see :func:`fields_kind`) has
the kind ``("fields", ((name, kind), ...))``; a dict whose values' kinds
are known (see :func:`items_kind`), ``("items", ((key, kind), ...))`` or
``("items", kind)`` (every value of that kind)."""


def fields_kind(kinds: dict[str, int]) -> tuple:
    """The kind of an object whose field ``name`` holds a value of kind
    ``kinds[name]``: ``zpy emit`` knows it from a dataclass annotation
    (``p: Params``), and each ``p.name`` is then differentiated as an
    argument of that kind would be (never at run time)."""
    return ("fields", tuple(sorted(kinds.items())))


def items_kind(kinds: "dict[str, int] | int") -> tuple:
    """The kind of a dict whose item ``key`` holds a value of kind
    ``kinds[key]`` (or of kind ``kinds`` whatever the key): ``zpy emit``
    knows it from an annotation (``params: dict[str, np.ndarray]``, a
    ``TypedDict``), and each ``params["w"]`` is then differentiated as an
    argument of that kind would be, the dict's gradient a dict of its
    items' (``runtime.key_gradient``)."""
    return ("items", kinds if isinstance(kinds, int) else tuple(sorted(kinds.items())))


LIBRARIES = {"numpy": "NumPy", "scipy": "SciPy"}
"""Libraries differentiated through rules only, never through their own
Python source: it is written for speed and generality on top of compiled
code (array-API dispatch, ``try`` blocks, in-place buffers), not for
differentiation, so failing there would only confuse. Their objects'
methods are their rules (``st.vonmises.logpdf``), which change nothing."""


def attrs_kind(obj: Any) -> Any:
    """The kind of an object given to a call at run time (see
    ``pipeline.masks``; its class reads attributes the plain way): its
    attributes that hold a float or a real float array, by name, and its
    class, as ``("attrs", ((name, kind), ...), class)``, for which each
    ``obj.name`` of a function that only reads ``obj`` is differentiated as
    an argument of that kind would be (inlined rules, not the run-time
    ``J``), and ``isinstance(obj, C)`` is known (:mod:`.classes`). A field
    rebound to a value of another kind, or gone, or an object of another
    class, is another kind: a compilation for it is made."""
    kinds = []
    for name, v in obj.__dict__.items():
        t = type(v)
        if t is float:
            kinds.append((name, FLOAT))
        elif t is np.ndarray and v.dtype.kind == "f":
            kinds.append((name, VECTOR if v.ndim == 1 else ARRAY))
    if kinds:  # (asked at every call: the class's descriptors only when there are such fields)
        shadowed = runtime.plain_attributes(type(obj)) or frozenset()
        kinds = [(name, k) for name, k in kinds if name not in shadowed]
    return ("attrs", tuple(kinds), type(obj))


_READS = (getattr, isinstance, type)
"""What a function may do with an object of an ``"attrs"`` kind for its
field reads to be known: read attributes, ask its class."""


def _only_read(ir: IR, obj: Var, facts: Optional["Facts"]) -> bool:
    """Whether ``obj`` (an argument) is only ever the object of an attribute
    read with a constant name or of ``isinstance``/``type``: nothing can
    have changed its fields when one is read (a call of a method, which
    may assign a field, passes it on: that is another use)."""
    for b in ir.blocks.values():
        if obj in b.term_operands() or any(obj in j.args for j in b.jumps()) or \
                b.handler is not None and obj in b.handler.args:
            return False
        for s in b.stmts:
            if obj not in s.operands():
                continue
            fn = facts.callee(s) if facts is not None else _callee_fn(s)
            if not (any(fn is r for r in _READS) and s.args and s.args[0] == obj and obj not in s.args[1:]
                    and s.callee != obj and not s.kwargs and (fn is not getattr or (
                        len(s.args) == 2 and isinstance(s.args[1], Const)))):
                return False
    return True


def field_reads(ir: IR, numeric_args: list, facts: Optional["Facts"] = None) -> dict[Var, int]:
    """``obj.name`` of an argument of a :func:`fields_kind` (or of an
    :func:`attrs_kind`, when the function only reads the object and runs
    no code of the user's), and ``obj[key]`` (a constant key) of one of an
    :func:`items_kind` → the kind of that field or item."""
    objects = {a: (operator.getitem if k[0] == "items" else getattr, k[1])
               for a, k in zip(ir.entry.args, numeric_args)
               if isinstance(k, tuple) and (k[0] != "attrs" or _only_read(ir, a, facts))}
    if not objects:
        return {}

    def known(s: Statement) -> Optional[int]:
        read, kinds = objects[s.args[0]]
        key = s.args[1].value
        if isinstance(kinds, int):
            return kinds if type(key) is str else None
        return dict(kinds).get(key)

    out, objs = {}, {}
    for b in ir.blocks.values():
        for s in b.stmts:
            if len(s.args) == 2 and s.args[0] in objects and not s.kwargs and isinstance(s.args[1], Const) \
                    and _callee_fn(s) is objects[s.args[0]][0] and known(s) is not None:
                out[s.var] = known(s)
                objs[s.var] = s.args[0]
    observed = {a for a, k in zip(ir.entry.args, numeric_args) if a in objects and k[0] == "attrs"}
    arrays_ = {v for v, k in [*zip(ir.entry.args, numeric_args), *out.items()] if k in (ARRAY, VECTOR, COMPLEX_ARRAY)}
    if observed and not _runs_no_user_code(ir, facts, arrays_):
        out = {v: k for v, k in out.items() if objs[v] not in observed}
    return out


_WRITES = (setattr, delattr, object.__setattr__, object.__delattr__, vars)
"""Callees that may change an object's fields."""


def _stmts(ir: IR) -> Iterator[Statement]:
    return (s for b in ir.blocks.values() for s in b.stmts)


def _runs_no_user_code(ir: IR, facts: Optional["Facts"], arrays_: set[Var]) -> bool:
    """Whether every call of ``ir`` is of a callee known at compile time
    that runs no Python code of the user's (a function with a rule, a
    NumPy or built-in function, an array's method): the kinds an
    :func:`attrs_kind` saw when the call began hold for all its field reads
    (user code might rebind a field through another reference to the
    object)."""
    if facts is None:
        return False
    defs = {s.var: s for s in _stmts(ir)}
    for s in _stmts(ir):
        fn = facts.callee(s)
        if any(fn is w for w in _WRITES) or fn is getattr and len(s.args) > 1 and s.args[1] == Const("__dict__"):
            return False  # (an inlined function's obj.w = ..., which may be the object's)
        if fn is _MISSING:
            d = defs.get(s.callee)
            if d is None or _callee_fn(d) is not getattr or d.args[0] not in arrays_:
                return False
        elif isinstance(fn, (types.FunctionType, types.MethodType)):
            if not (getattr(fn, "__module__", None) or "").startswith(("zygote_py.", "numpy")) and \
                    registry.lookup(fn) is None and not registry.is_nondifferentiable(fn):
                return False
        elif isinstance(fn, type) and isinstance(getattr(fn, "__init__", None), types.FunctionType):
            return False
    return True


def kind(x: Any) -> int:
    """A run-time value's kind for the numeric mask."""
    if type(x) is float:
        return FLOAT
    if isinstance(x, (complex, np.complexfloating)):
        return 0  # not a number for the rules of numbers, which do not conjugate
    if type(x) is np.ndarray or arrays.is_foreign(x):  # (not a subclass, whose methods may differ)
        if x.dtype.kind == "c":
            return COMPLEX_ARRAY
        if x.dtype.kind in "biuf":
            return VECTOR if x.ndim == 1 else ARRAY
    if isinstance(x, np.ndarray):
        return 0  # an object array, a subclass: nothing assumed
    if is_number(x):
        return NUMBER
    if isinstance(x, (tuple, list)) and x and all(is_number(v) and not isinstance(v, np.ndarray) for v in x) \
            and not any(runtime.python_method(type(x), m) for m in ("__getitem__", "__iter__")):
        return SEQUENCE  # (not a subclass that reads its items in Python)
    return 0


def _type_name(t: type) -> str:
    return f"{t.__module__}.{t.__qualname__}"


def value_kind(x: Any) -> tuple:
    """What a compilation may depend on in a captured constant (a number,
    an array, a tuple of numbers: ``Facts.constants``), as plain strings
    and numbers (a disk-cache fingerprint too): its exact type; an array's
    dtype and number of dimensions as well (as for arguments: see
    ``api._kind``); a tuple's items' types."""
    t = type(x)
    if t is np.ndarray:
        return ("ndarray", x.dtype.str, x.ndim)
    if t is tuple:
        return ("tuple", *(_type_name(type(v)) for v in x))
    return (_type_name(t),)


@dataclass(frozen=True)
class Kind:
    """A guard's expected value for a closure cell holding a constant: the
    compiled code reads the cell when it runs and rests only on the kind
    of what it holds (:func:`value_kind`), so that a new array of the same
    kind (a model factory's closure rebuilt with new weights) reuses it."""

    key: tuple

    def holds(self, value: Any) -> bool:
        return value_kind(value) == self.key


class Like:
    """A guard's expected value for a closure cell holding a Python
    function, an object of a class of the user's or a string: the compiled
    code reads the cell when it runs, and the compiler asked of the value
    only what this compares, so that a closure made anew at each call (a
    rule's pullback capturing another's, ``update_in_place``'s
    ``plain_back``; the object a method's pullback captures) reuses the
    compilation:

    - of a function: its code, globals, module and name, and its default
      values (the same objects), which is what the inliner and the
      analyses of its code read (its own captured values are read by its
      own compilation, guarded in turn, when it is called);
    - of an object: its class (its methods, its ``__call__``);
    - of a string: its text;
    - of a function or an object, that the registry has no entry for it
      (a rule found for it would have been inlined).
    """

    __slots__ = ("value", "cls", "code", "globals", "names", "defaults", "kwdefaults")

    def __init__(self, value: Any):
        self.value, self.cls = value, type(value)
        self.code = getattr(value, "__code__", None) if self.cls is types.FunctionType else None
        if self.code is not None:
            self.globals, self.names = value.__globals__, (value.__module__, value.__qualname__)
            self.defaults, self.kwdefaults = value.__defaults__ or (), dict(value.__kwdefaults__ or {})

    @classmethod
    def of(cls, value: Any) -> Optional["Like"]:
        """The :class:`Like` of ``value``, or None where the compilation is
        held to the same object (a container, an array, a module, a class,
        a library's object...)."""
        t = type(value)
        if t in (str, bytes):
            return cls(value)
        if t is not types.FunctionType and (isinstance(value, _HELD_AS_IS) or _library_class(t)):
            return None
        return None if registry.registered(value) else cls(value)

    def holds(self, now: Any) -> bool:
        if now is self.value:
            return True
        if type(now) is not self.cls:
            return False
        if self.cls in (str, bytes):
            return now == self.value
        if registry.registered(now):
            return False
        if self.code is None:
            return True
        kw = now.__kwdefaults__ or {}
        return now.__code__ is self.code and now.__globals__ is self.globals \
            and (now.__module__, now.__qualname__) == self.names and _same(now.__defaults__ or (), self.defaults) \
            and kw.keys() == self.kwdefaults.keys() and _same(tuple(kw.values()), tuple(self.kwdefaults.values()))


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


_HELD_AS_IS = (types.ModuleType, types.BuiltinFunctionType, type, types.MethodType, np.ndarray, np.generic,
               tuple, list, dict, set, frozenset, range, slice, numbers.Number)
"""Captured values a compilation is held to as they are (for numbers and
arrays, their :class:`Kind` where the compiler takes them as constants)."""


def _library_class(t: type) -> bool:
    """A class of Python's own or of :data:`LIBRARIES` (its objects may be
    read by the compiler in ways of their own: a SciPy distribution's
    methods are rules)."""
    module = (t.__module__ or "").partition(".")[0]
    return module in LIBRARIES or module in sys.stdlib_module_names


def guard(facts: "Facts", v: Var) -> Optional[tuple]:
    """The guard a compilation reading ``v`` rests on: ``v``'s origin
    (``("global", name, value)`` or ``("cell", cell, value)``, held to the
    same object), but for a cell holding a constant, held to its
    :class:`Kind`, and for one holding a function or an object, to its
    :class:`Like`; None if ``v`` is no global or cell read."""
    origin = facts.origin.get(v)
    if origin is not None and origin[0] == "cell":
        if v in facts.constants:
            return ("cell", origin[1], Kind(value_kind(origin[2])))
        like = Like.of(origin[2])
        if like is not None:
            return ("cell", origin[1], like)
    return origin


ARRAY_VALUED = {
    np.sum, np.mean, np.prod, np.max, np.amax, np.min, np.amin, np.var, np.std,
    np.cumsum, np.cumprod, np.nansum, np.nanmean, np.linalg.norm,
    np.dot, np.matmul, np.linalg.matmul, operator.matmul, np.inner, np.outer, np.vdot, np.tensordot, np.einsum, np.trace,
    np.diag, np.diagonal, np.kron, np.linalg.solve, np.linalg.inv, np.linalg.det,
    np.linalg.cholesky, np.linalg.pinv, np.linalg.eigvals, np.linalg.multi_dot, np.linalg.cond,
    np.linalg.matrix_norm, np.linalg.vector_norm, np.linalg.matrix_transpose, np.matrix_transpose,
    np.linalg.tensorsolve, np.linalg.tensorinv, np.reshape, np.ravel, np.transpose,
    np.swapaxes, np.moveaxis, np.expand_dims, np.squeeze, np.broadcast_to,
    np.concatenate, np.stack, np.hstack, np.vstack, np.tile, np.repeat, np.flip,
    np.roll, np.pad, np.sort, np.take, np.take_along_axis, np.triu, np.tril,
    np.array, np.asarray, np.copy, np.where, np.clip, np.real, np.imag,
    *(getattr(np.fft, f) for f in np.fft.__all__ if not f.endswith("freq")),
    np.flipud, np.fliplr, np.rot90, np.rollaxis, np.append, np.delete, np.partition, np.select, np.real_if_close,
    np.diff, np.ediff1d, np.trapezoid, np.interp, np.polyval, np.convolve, np.correlate, np.bincount, np.quantile,
    np.percentile,
    *(getattr(u, m) for u in (np.add, np.multiply, np.maximum, np.minimum) for m in ("reduce", "accumulate")),
    np.add.reduceat, *(getattr(np, n) for n in ("cumulative_sum", "cumulative_prod") if hasattr(np, n)),
    *(getattr(np.ndarray, m) for m in (
        "sum", "mean", "prod", "max", "min", "var", "std", "cumsum", "cumprod", "dot", "reshape", "ravel",
        "flatten", "transpose", "squeeze", "swapaxes", "clip", "copy", "trace", "diagonal", "repeat", "take",
        "conj", "conjugate",
    )),
}
"""NumPy functions whose value is one array (or NumPy scalar), so that
their gradient is one too; every ufunc is another."""

MAKES_COMPLEX = {
    np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.ihfft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn,
    np.fft.rfft2, np.fft.rfftn, np.linalg.eigvals,
}
"""Functions of :data:`ARRAY_VALUED` whose value may be complex when their
operands are real."""

MAKES_REAL = {np.real, np.imag, np.fft.irfft, np.fft.irfft2, np.fft.irfftn, np.fft.hfft}
"""Functions of :data:`ARRAY_VALUED` whose value is real whatever their
operands."""


HOLDING_METHODS = {"append", "extend", "insert", "update", "setdefault", "__setitem__"}
"""Methods of lists and dicts after which their object holds their
arguments (or their items)."""

_LINEAR_VIEWS = runtime.LINEAR_ATTRIBUTES - {"flat"}  # (an iterator over the items, not an array)
"""Attributes of an array that are arrays, linear in it."""


def _array_valued(fn: Any, s: Statement) -> bool:
    """Whether ``fn``, called as ``s``, gives one array or NumPy scalar."""
    return isinstance(fn, np.ufunc) and fn.nout == 1 or member(fn, ARRAY_VALUED) or registry.is_array_valued(
        fn, len(s.args), tuple(k for k, _ in s.kwargs))


_NEW_ARRAYS = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like, np.full_like,
               np.arange, np.linspace, np.eye, np.identity}
"""Array constructors (not differentiable, but their values are arrays)."""

KEEPS_KIND = {mutation.store_item, mutation.store_number, mutation.delete_item, mutation.update_in_place, mutation.update_maybe_array,
              mutation.add_at, mutation.snapshot, mutation.snapshot_holder, mutation.adopt}
"""Changes made in place (see :mod:`zygote_py.ad.mutation`), whose value is
their first argument changed, and copies: of an array, an array."""


def _arrays(ir: IR, facts: Facts, incoming: dict[Var, list], stmts: list[Statement], rows: set[Var],
            valued: dict[int, bool]) -> None:
    """Add to ``facts.arrays`` a NumPy function's value, an array's view,
    an array changed in place (by a function it was passed to, too) or
    copied (``x.copy()``), the ``rows``
    (``x[i]`` of an array of two or more dimensions), and a block argument
    that only arrays reach (the greatest fixed point: a loop-carried array
    stays one). ``valued``: whether each statement's callee gives an
    array (:func:`_array_valued`), by ``id``."""
    given = set(facts.arrays) | rows
    methods = {s.var: s.args[0] for s in stmts if facts.callee(s) is getattr and len(s.args) == 2
               and isinstance(s.args[1], Const) and type(s.args[1].value) is str and s.args[1].value == "copy"}
    copies = {s.var: methods[s.callee] for s in stmts
              if isinstance(s.callee, Var) and s.callee in methods and not s.args and not s.kwargs}
    params = {p for p in incoming if p not in ir.entry.args}
    changing = {s.var: s.args[0] for s in stmts if facts.callee(s) in (mutation.call_changing, mutation.call_method)}
    changed = {s.var: changing[s.args[0]] for s in stmts if facts.callee(s) is operator.getitem and len(s.args) == 2
               and s.args[0] in changing and isinstance(s.args[1], Const) and s.args[1].value == 0}
    slices = {s.var for s in stmts if facts.callee(s) is slice}
    slices |= {s.var for s in stmts if facts.callee(s) is ops.build_tuple and any(_slice(a, slices) for a in s.args)}
    # (what each statement's callee says, the same in every round of the fixed point: asked once)
    known = [(s, valued[id(s)], member(fn, _NEW_ARRAYS), _is_view(s, facts) or member(fn, KEEPS_KIND)
              or fn is operator.getitem and len(s.args) == 2 and _slice(s.args[1], slices), member(fn, _ARITHMETIC))
             for s in stmts for fn in (facts.callee(s),)]
    while True:
        arrays = facts.arrays
        arrays.clear()
        arrays |= given | params
        for s, gives_array, new, keeps, arithmetic in known:
            if (gives_array and not may_overload(s, facts, lambda v: v in arrays or v in facts.numeric)
                    or new or copies.get(s.var) in arrays or changed.get(s.var) in arrays
                    or s.args and s.args[0] in arrays and keeps
                    or arithmetic and any(a in arrays for a in s.args if isinstance(a, Var))
                    and all(a in arrays or a in facts.numeric if isinstance(a, Var)
                            else isinstance(a.value, (int, float)) for a in s.args)):
                arrays.add(s.var)
        wrong = {p for p in params if not all(v in arrays or v == p for v in incoming[p])}
        if not wrong:
            return
        params -= wrong


def _vector_candidates(ir: IR, facts: Facts, incoming: dict[Var, list], stmts: list[Statement],
                       defs: dict[Var, Statement]) -> dict[Var, Optional[tuple[list[Operand], list[Operand]]]]:
    """The arrays that may be one-dimensional real arrays the function
    makes (see :func:`_drop_vectors`), each with the operands that must
    be vectors or numbers (at least one a vector) and those that must be
    numbers; ``None`` for a block argument (what reaches it must be a
    vector)."""
    made: dict[Var, Optional[tuple[list[Operand], list[Operand]]]] = {}
    for s in stmts:
        if s.var in facts.vectors or s.var not in facts.arrays or s.kwargs \
                or any(isinstance(a, Starred) for a in s.args):
            continue
        fn = facts.callee(s)
        built = defs.get(s.args[0]) if len(s.args) == 1 and isinstance(s.args[0], Var) else None
        if member(fn, _VECTOR_BUILDERS) and built is not None and facts.callee(built) in (ops.build_list, ops.build_tuple) \
                and built.args and not built.kwargs and not any(isinstance(a, Starred) for a in built.args):
            made[s.var] = ([], list(built.args))
        elif (member(fn, _ARITHMETIC) or isinstance(fn, np.ufunc) and fn.nout == 1 and fn.nin == len(s.args)) \
                and 1 <= len(s.args) <= 2:
            made[s.var] = (list(s.args), [])
        elif fn is operator.getitem and len(s.args) == 2 and isinstance(s.args[1], Const) \
                and type(s.args[1].value) is slice:
            made[s.var] = ([s.args[0]], [])
    made.update((p, None) for p in incoming if p not in ir.entry.args and p in facts.arrays and p not in facts.vectors)
    return made


def _drop_vectors(made: dict, facts: Facts, incoming: dict[Var, list]) -> bool:
    """Drop from ``made`` (see :func:`_vector_candidates`) what is not a
    one-dimensional real array given ``facts.vectors`` and
    ``facts.scalars``: ``np.array([a, b])`` of real numbers that are not
    arrays, arithmetic and ufuncs of such arrays and numbers, slices
    ``x[i:j]`` of them, block arguments only they reach (the greatest
    fixed point: a loop-carried state vector stays one). Whether any was
    dropped."""
    def vector(op: Operand) -> bool:
        return isinstance(op, Var) and (op in facts.vectors or op in made)

    def number(op: Operand) -> bool:
        return type(op.value) in (int, float) if isinstance(op, Const) else op in facts.scalars

    dropped, changed = False, True
    while changed:
        changed = False
        for v, need in list(made.items()):
            if need is None:
                ok = all(vector(x) or x == v for x in incoming[v])
            else:
                operands, numbers = need
                ok = all(number(x) for x in numbers) and (not operands or any(vector(x) for x in operands)) \
                    and all(vector(x) or number(x) for x in operands)
            if not ok:
                del made[v]
                dropped = changed = True
    return dropped


_VECTOR_BUILDERS = {np.array, np.asarray}
"""NumPy functions that make a one-dimensional array of a list of numbers."""


_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg, operator.pos,
               operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow}
"""Operators whose value is an array when an operand is one and the others
are numbers or arrays (``u *= 0.5`` of an array ``u``: ``u`` itself)."""


def _slice(key: Operand, slices: set) -> bool:
    """A key that keeps an axis: a slice, ``None`` or ``...``, alone or in a
    tuple (``x[1:]``, ``x[:, :3]`` and ``x[..., 0]`` of an array are
    arrays)."""
    if isinstance(key, Var):
        return key in slices
    if isinstance(key, Const) and type(key.value) is tuple:
        return any(_slice(Const(k), slices) for k in key.value)
    return isinstance(key, Const) and (isinstance(key.value, slice) or key.value is None or key.value is Ellipsis)


def may_overload(s: Statement, facts: Facts, known: Callable[[Var], bool]) -> bool:
    """An operator (``v * 2.0``, ``a @ b``), or a function of :mod:`math`
    (``math.atan2(v, x)``, which reads ``float(v)``), with an operand not
    ``known`` to be a number or an array: that operand may be an object
    whose class defines the operator or ``__float__`` in Python, and the
    value anything."""
    fn = facts.callee(s)
    return (member(fn, runtime.OVERLOADS) or is_math_function(fn)) and not all(
        known(v) if isinstance(v, Var) else isinstance(v.value, (int, float, complex)) for v in _operands(s)
    )


def _is_view(s: Statement, facts: Facts) -> bool:
    """``x.T``, ``x.real`` and the like: a linear view of a value."""
    return (
        facts.callee(s) is getattr and len(s.args) == 2
        and isinstance(s.args[1], Const) and s.args[1].value in _LINEAR_VIEWS
    )


def is_math_function(fn: Any) -> bool:
    """A function of :mod:`math` (pure: it changes nothing)."""
    return isinstance(fn, types.BuiltinFunctionType) and getattr(fn, "__module__", None) == "math"


_FLOAT_MATH = {getattr(math, n) for n in (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "pow", "fabs", "hypot", "erf",
    "erfc", "gamma", "lgamma", "fsum", "copysign", "fmod", "degrees", "radians", "dist") if hasattr(math, n)}
"""Functions of :mod:`math` whose value is always a float."""


_FLOAT_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv,
                     operator.iadd, operator.isub, operator.imul, operator.itruediv}
"""Operators whose value is a float when their operands are floats (or
some are integers): ``x += 1`` on a float makes a new float."""


def is_float(ir: IR, v: Operand, float_args: set[Var], facts: Facts) -> bool:
    """Whether ``v`` is always a Python float: a float argument or literal,
    a value of one of :data:`_FLOAT_MATH`, ``+ - * /`` (or ``+=``...) of
    floats and integer literals, or a block argument only floats reach (assumed of the
    loop-carried ones while their loop is followed)."""
    defs = {s.var: s for b in ir.blocks.values() for s in b.stmts}
    incoming: dict[Var, list[Operand]] = {}
    for p, x in edge_values(ir):
        incoming.setdefault(p, []).append(x)
    assumed: set[Var] = set()

    def floating(op: Operand, depth: int) -> bool:
        if isinstance(op, Const):
            return type(op.value) is float
        if op in incoming and op not in ir.entry.args and depth <= 64:
            if op in assumed:
                return True
            assumed.add(op)
            found = all(floating(x, depth + 1) for x in incoming[op])
            assumed.discard(op)
            return found
        s = defs.get(op)
        if op in float_args or s is None or depth > 64:
            return op in float_args
        fn = facts.callee(s)
        if member(fn, _FLOAT_MATH):
            return True
        if s.kwargs or any(isinstance(a, Starred) for a in s.args):
            return False
        if fn in (operator.neg, operator.pos) and len(s.args) == 1:
            return floating(s.args[0], depth + 1)
        if fn in _FLOAT_ARITHMETIC and len(s.args) == 2:
            ints = [isinstance(a, Const) and type(a.value) is int for a in s.args]
            return not all(ints) and all(i or floating(a, depth + 1) for a, i in zip(s.args, ints))
        return False

    return floating(v, 0)


_SUMS = (np.sum, np.ndarray.sum, np.mean, np.ndarray.mean)


def is_real_sum(ir: IR, v: Operand, facts: Facts) -> bool:
    """Whether ``v`` is ``np.sum(x)``, ``x.sum()``, ``np.mean(x)`` or
    ``x.mean()`` of an array ``x`` known real: a real NumPy scalar, for
    which the seed 1.0 is exact and, a Python float being weakly typed,
    keeps every gradient's dtype."""
    s = next((s for b in ir.blocks.values() for s in b.stmts if s.var == v), None)
    return (
        s is not None and member(facts.callee(s), _SUMS) and len(s.args) == 1 and not s.kwargs
        and isinstance(s.args[0], Var) and s.args[0] in facts.arrays and s.args[0] in facts.real
    )


def _is_math_number(fn: Any) -> bool:
    """A function of :mod:`math` whose value is a number."""
    return (
        isinstance(fn, types.BuiltinFunctionType)
        and getattr(fn, "__module__", None) == "math"
        and fn not in (math.frexp, math.modf)
    )


@dataclass
class Facts:
    static: dict[Var, Any] = field(default_factory=dict)
    origin: dict[Var, tuple] = field(default_factory=dict)  # guard a static value rests on
    active: set[Var] = field(default_factory=set)
    numeric: set[Var] = field(default_factory=set)
    scalars: set[Var] = field(default_factory=set)  # real numbers known not to be arrays
    arrays: set[Var] = field(default_factory=set)  # known to be arrays (or NumPy scalars)
    real: set[Var] = field(default_factory=set)  # numbers and arrays known not to be complex
    sequences: set[Var] = field(default_factory=set)  # tuples and lists of numbers
    indices: set[Var] = field(default_factory=set)  # loop indices from range()
    vector_items: set[Var] = field(default_factory=set)  # x[i]: a 1-d real array argument's item at an integer
    vectors: set[Var] = field(default_factory=set)  # 1-d real arrays: arguments and constants (guarded)
    constants: set[Var] = field(default_factory=set)  # globals and free variables holding numbers, arrays or tuples of numbers
    python_numbers: set[Var] = field(default_factory=set)  # Python ints and floats: such constants, items of such tuples
    metadata: set[Var] = field(default_factory=set)  # x.shape, x.dtype... of a known array: never active
    fields: dict[Var, int] = field(default_factory=dict)  # obj.name, obj[key] of one whose fields' kinds are known
    objects: set[Var] = field(default_factory=set)  # arguments: objects of plain classes (not a LIBRARY's) with float fields
    classes: dict[Var, type] = field(default_factory=dict)  # the classes of those objects

    def callee(self, s: Statement) -> Any:
        """The statement's callee if known at compile time, else _MISSING."""
        if isinstance(s.callee, Const):
            return s.callee.value
        return self.static.get(s.callee, _MISSING)


def _callee_fn(s: Statement) -> Any:
    return s.callee.value if isinstance(s.callee, Const) else None


def static_values(ir: IR, globals_: dict, cells: dict[str, Any], facts: Facts) -> None:
    """Fill ``facts.static``/``facts.origin`` for loads of globals and free
    variables and attribute reads of modules and classes. A global the
    function assigns itself is read at call time: no static value."""
    assigned = {s.args[0].value for b in ir.blocks.values() for s in b.stmts
                if _callee_fn(s) in (ops.store_global, ops.delete_global)}
    for b in ir.blocks.values():
        for s in b.stmts:
            fn = _callee_fn(s)
            if fn is ops.load_global and s.args[0].value in assigned:
                continue
            if fn is ops.load_global:
                n = s.args[0].value
                v = globals_.get(n, _MISSING)
                if v is _MISSING:
                    v = getattr(builtins, n, _MISSING)
                if v is not _MISSING:
                    facts.static[s.var] = v
                    facts.origin[s.var] = ("global", n, v)
            elif fn is ops.load_deref and s.args[0].value in cells:
                cell = cells[s.args[0].value]
                try:
                    v = cell.cell_contents
                except ValueError:
                    continue
                facts.static[s.var] = v
                facts.origin[s.var] = ("cell", cell, v)
            elif fn in (importlib.import_module, ops.import_from) and all(isinstance(a, Const) for a in s.args):
                facts.static[s.var] = fn(*(a.value for a in s.args))  # (a module, or what it holds: imported once)
            elif fn is getattr and len(s.args) == 2 and isinstance(s.args[1], Const):
                base = s.args[0]
                value = base.value if isinstance(base, Const) else facts.static.get(base, _MISSING)
                if isinstance(value, (types.ModuleType, type)):
                    v = getattr(value, s.args[1].value, _MISSING)
                    if v is not _MISSING:
                        facts.static[s.var] = v
                        if isinstance(base, Var) and base in facts.origin:
                            facts.origin[s.var] = facts.origin[base]


_CONSTANT_MODULES = ("math", "cmath", "numpy")


def _library_constant(s: Statement, facts: Facts) -> bool:
    """``math.pi``, ``np.e``: a number a library module defines, which no
    one changes (the modules' other attributes are functions)."""
    if facts.callee(s) is not getattr or len(s.args) != 2:
        return False
    base = s.args[0].value if isinstance(s.args[0], Const) else facts.static.get(s.args[0], _MISSING)
    return isinstance(base, types.ModuleType) and base.__name__ in _CONSTANT_MODULES and \
        type(facts.static[s.var]) is float


def _operands(s: Statement) -> list:
    out = [a.value if isinstance(a, Starred) else a for a in s.args]
    return out + [v for _, v in s.kwargs]


def free_names(node: Any) -> set[str]:
    """The names a nested function or scope reads from outside."""
    import gast

    bound, used = set(), set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            (bound if isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)) else used).add(n.id)
    return used - bound


HELD_WITHOUT_GRADIENT = (types.ModuleType, types.BuiltinFunctionType, type)
"""What a differentiated closure's cell may hold and still give no
gradient (the compilation is guarded on it)."""


def activity(
    ir: IR, active_args: list[bool], self_active: bool, facts: Facts, cells: Optional[dict] = None
) -> None:
    """Fill ``facts.active`` (see the module docstring). ``cells`` maps the
    cell variables known to hold one value to it: a nested function that
    captures an active one is active."""
    cells = cells or {}
    active = facts.active
    active.update(a for a, on in zip(ir.entry.args, active_args) if on)
    params = dict(zip(ir.signature.names(), ir.entry.args))
    stored: dict[str, list[Operand]] = {}
    captures: dict[Var, list[Operand]] = {}  # (a nested function's values of its cells where it is made)
    for b in ir.blocks.values():
        for s in b.stmts:
            if _callee_fn(s) is ops.store_deref:
                stored.setdefault(s.args[0].value, []).append(s.args[1])
            elif _callee_fn(s) is ops.captured_value:
                captures.setdefault(s.args[0], []).append(s.args[2])

    def may_be_active(name: str) -> bool:
        """Whether a variable a generator expression reads (a cell or free
        variable) may hold a differentiated value: as a parameter, as the
        one value of a cell, as any value stored in it, as a free variable
        of a differentiated closure."""
        held = [params.get(name), cells.get(name), *stored.get(name, ())]
        return any(isinstance(v, Var) and v in active for v in held) or self_active and name in ir.freevars

    changed = True
    while changed:
        changed = False
        for b in ir.blocks.values():
            for s in b.stmts:
                if s.var in active or s.var in facts.metadata:
                    continue
                fn = facts.callee(s)
                if fn is ops.load_deref and self_active and s.args[0].value in ir.freevars:
                    # (a module, a built-in function or a class a closure holds, as emitted code holds runtime,
                    # math and iter, has no gradient: guarded)
                    on = not isinstance(facts.static.get(s.var), HELD_WITHOUT_GRADIENT)
                elif fn is ops.make_scope:  # a generator expression reads the enclosing variables
                    on = s.args[1] in active or any(may_be_active(n) for n in free_names(s.args[0].value))
                elif fn is ops.make_function:
                    on = any(
                        isinstance(cells.get(n), Var) and cells[n] in active
                        for n in free_names(s.args[0].value)
                    ) or any(isinstance(v, Var) and v in active for v in captures.get(s.var, ())) \
                        or self_active and bool(free_names(s.args[0].value) & set(ir.freevars)) \
                        or any(isinstance(v, Var) and v in active for v in _operands(s))  # (default values)
                elif fn is not _MISSING and (
                    registry.is_nondifferentiable(fn) and not member(fn, runtime.OVERLOADS)  # (~v: v.__invert__)
                    or fn in (ops.load_global, ops.load_deref)
                ):
                    on = False
                else:
                    on = any(isinstance(v, Var) and v in active for v in _operands(s)) or (
                        isinstance(s.callee, Var) and s.callee in active
                    )
                if on:
                    active.add(s.var)
                    changed = True
        for p, v in edge_values(ir):
            if p not in active and isinstance(v, Var) and v in active:
                active.add(p)
                changed = True


def metadata_reads(ir: IR, numeric_args: list[int], facts: Facts) -> set[Var]:
    """The reads of a known array's metadata (``x.shape``, ``x.dtype``:
    :data:`runtime.METADATA_ATTRIBUTES`), which are constants to
    differentiation, so that what is computed from them (``n, d =
    x.shape``, ``np.zeros(x.shape)``, ``np.finfo(x.dtype)``) is never
    active. Which values are arrays is found by :func:`numeric` on a scratch
    copy of ``facts``' static values; the same attribute of a value that may
    be another object (a dataclass's ``shape`` field) stays active, and its
    gradient is then dropped at run time if it is an array's."""
    reads = [s for b in ir.blocks.values() for s in b.stmts
             if _callee_fn(s) is getattr and len(s.args) == 2 and isinstance(s.args[1], Const)
             and s.args[1].value in runtime.METADATA_ATTRIBUTES]
    if not reads:
        return set()
    scratch = Facts(static=facts.static, origin=facts.origin, indices=set(facts.indices))
    numeric(ir, numeric_args, scratch)
    return {s.var for s in reads if s.args[0] in scratch.arrays}


CONSUMERS = {
    sum: 0, min: 0, max: 0, list: 0, tuple: 0, sorted: 0, set: 0, frozenset: 0, dict: 0,
    math.fsum: 0, math.prod: 0, np.fromiter: 0, functools.reduce: 1, statistics.fmean: 0, statistics.mean: 0,
}
"""Functions that read every item of one positional argument (at the
position given) before they return: a generator expression passed there
gives the same result as the list comprehension with the same items
(``any`` and ``all`` are not here: they stop at the first item that
decides, where a list would compute the rest, which may raise)."""


def consumed_generators(ir: IR, facts: Facts) -> dict[tuple[str, int], Var]:
    """The calls of :data:`CONSUMERS` that read an active generator
    expression to its end (``sum(w * w for w in ps)``, ``math.fsum(...)``,
    ``sum(gen, 0.0)``, ``min(gen, key=abs)``), as ``(dotted name of the
    callee as written, position of the generator) -> the callee's
    variable`` (whose global the compilation is guarded on)."""
    stmts = [s for b in ir.blocks.values() for s in b.stmts]
    defs = {s.var: s for s in stmts}
    generators = {s.var for s in stmts if facts.callee(s) is ops.make_scope and s.var in facts.active
                  and type(s.args[0].value).__name__ == "GeneratorExp"}
    mapped = {s.var: s for s in stmts if facts.callee(s) is map and s.var in facts.active and len(s.args) >= 2
              and not s.kwargs and not any(isinstance(a, Starred) for a in s.args)}
    found: dict[tuple[str, int], Var] = {}
    for c in stmts:
        fn = facts.callee(c)
        position = next((p for f, p in CONSUMERS.items() if f is fn), None)
        if position is not None and len(c.args) > position and c.args[position] in mapped:
            found[("map", MAPPED)] = mapped[c.args[position]].callee  # (map(f, xs): [f(x) for x in xs])
            generators = generators | {c.args[position]}
        if position is None or len(c.args) <= position or c.args[position] not in generators:
            continue
        if any(isinstance(a, Starred) for a in c.args) or fn in (min, max) and len(c.args) != 1:
            continue  # (max(a, b) compares its arguments: a generator is one of them)
        name = _dotted(c.callee, defs)
        if name is not None:
            found[(name, position)] = c.callee
    return found


class MoreConsumers(Exception):
    """A generator expression read to its end by a call of
    :data:`analysis.CONSUMERS` turned out active only after the analyses
    that lower such generators as lists (``sum(v * v for v in vs)``, ``vs``
    a list the function fills): the transform starts again with them (``consumers``)."""

    def __init__(self, consumers: frozenset):
        self.consumers = consumers


def _dotted(op: Operand, defs: dict[Var, Statement]) -> Optional[str]:
    """``math.fsum`` for a read of the global ``math``'s attribute ``fsum``;
    None for a callee read any other way."""
    s = defs.get(op) if isinstance(op, Var) else None
    if s is None or not isinstance(s.callee, Const):
        return None
    if s.callee.value is ops.load_global:
        return s.args[0].value
    if s.callee.value is getattr and len(s.args) == 2 and isinstance(s.args[1], Const):
        base = _dotted(s.args[0], defs)
        return None if base is None else f"{base}.{s.args[1].value}"
    return None


def read_without_gradient(ir: IR, v: Var, facts: Facts) -> bool:
    """Whether every read of ``v`` is an argument of a function whose output
    carries no gradient (``any(x > 0 for x in xs)``): no gradient reaches
    ``v``, nor what it is made of."""
    reads = [s for b in ir.blocks.values() for s in b.stmts if v in s.operands()]
    held = any(v in b.term_operands() or any(v in j.args for j in b.jumps()) for b in ir.blocks.values())
    return not held and all(
        s.callee != v and facts.callee(s) is not _MISSING and registry.is_nondifferentiable(facts.callee(s))
        for s in reads)


def edge_values(ir: IR) -> Iterator[tuple[Var, Operand]]:
    """``(parameter, value)`` for every edge of ``ir``, exception edges
    included (whose first parameter, the exception, has no value here)."""
    for b in ir.blocks.values():
        for j in b.jumps():
            yield from zip(ir.blocks[j.target].args, j.args)
        if b.handler is not None:
            yield from zip(ir.blocks[b.handler.target].args[1:], b.handler.args)


def numeric(ir: IR, numeric_args: list[int], facts: Facts) -> None:
    """Fill ``facts.numeric`` (see the module docstring) and
    ``facts.sequences`` (tuples and lists of numbers): the greatest fixed
    point, so that a loop-carried accumulator that starts as a number and
    is only ever added to stays one."""
    num = facts.numeric
    seqs = facts.sequences
    entry = ir.entry
    facts.fields = field_reads(ir, numeric_args, facts)
    facts.classes = {a: k[2] for a, k in zip(entry.args, numeric_args) if isinstance(k, tuple) and k[0] == "attrs"
                     and (k[2].__module__ or "").partition(".")[0] not in LIBRARIES}
    facts.objects = set(facts.classes)
    given = [*zip(entry.args, numeric_args), *facts.fields.items()]  # (a known field is read as an argument)
    num.update(a for a, k in given if k in (NUMBER, FLOAT, ARRAY, VECTOR, COMPLEX_ARRAY))
    facts.arrays.update(a for a, k in given if k in (ARRAY, VECTOR, COMPLEX_ARRAY))
    vectors = {a for a, k in given if k == VECTOR}
    facts.vectors.update(vectors)
    seqs.update(a for a, k in given if k == SEQUENCE)
    incoming: dict[Var, list] = {}
    for p, v in edge_values(ir):  # (an unassigned variable is read only through check_bound, which raises)
        incoming.setdefault(p, []).extend([] if isinstance(v, Const) and v.value is ops.UNBOUND else [v])
    stmts = [s for b in ir.blocks.values() for s in b.stmts]
    tuples: set[Var] = set()  # globals and free variables holding tuples of real numbers (immutable)
    for s in stmts:  # a global or free variable holding a number or an array now (guarded)
        if s.var in facts.static and (facts.callee(s) in (ops.load_global, ops.load_deref) or _library_constant(s, facts)):
            value = facts.static[s.var]
            k = kind(value)
            if k in (NUMBER, FLOAT, ARRAY, VECTOR):
                facts.constants.add(s.var)
                num.add(s.var)
                if k in (ARRAY, VECTOR):
                    facts.arrays.add(s.var)
                if k == VECTOR:
                    facts.vectors.add(s.var)
                if type(value) in (int, float):
                    facts.python_numbers.add(s.var)
            elif type(value) is tuple and value and all(type(v) in (int, float) for v in value):
                facts.constants.add(s.var)
                tuples.add(s.var)
    seqs |= tuples

    def is_num(op) -> bool:
        if isinstance(op, Const):
            return isinstance(op.value, (int, float, complex)) and not isinstance(op.value, bool)
        return op in num

    defs = {s.var: s for s in stmts}
    counters = {s.var for s in stmts if facts.callee(s) is ops.iternext and is_integer(s.var, facts, defs)}
    matrices = {a for a, k in given if k == ARRAY}
    matrices |= {v for v in facts.constants if kind(facts.static[v]) == ARRAY}
    rows = {s.var for s in stmts if s.args and s.args[0] in matrices and (
        facts.callee(s) is operator.getitem and len(s.args) == 2 and is_integer(s.args[1], facts, defs))}
    valued = {id(s): _array_valued(facts.callee(s), s) for s in stmts}  # (asked in every round below: once)
    _arrays(ir, facts, incoming, stmts, rows, valued)
    shapes = {s.var for s in stmts if facts.callee(s) is getattr and len(s.args) == 2 and s.args[0] in facts.arrays
              and isinstance(s.args[1], Const) and s.args[1].value == "shape"}
    tuples |= shapes  # (x.shape of an array: a tuple of ints, as immutable as a constant's)
    seqs |= shapes

    def item_of_array(s: Statement) -> bool:
        """An item, slice or linear view (``x.T``) of an array."""
        return len(s.args) == 2 and s.args[0] in facts.arrays and (
            facts.callee(s) is operator.getitem or _is_view(s, facts)
        )

    facts.indices.update(counters)  # (the variable of a for loop over a range: an int)
    loop_items = counters | {s.var for s in stmts if facts.callee(s) is ops.iternext and s.args[0] in defs
                             and facts.callee(defs[s.args[0]]) is iter and defs[s.args[0]].args[0] in tuples}
    facts.python_numbers.update(loop_items)

    def item_of_sequence(s: Statement) -> bool:
        """An item of a sequence of numbers, the variable of a loop over a
        range or over a constant tuple of numbers."""
        return s.var in loop_items or (
            facts.callee(s) is operator.getitem and len(s.args) == 2 and s.args[0] in seqs
            and (isinstance(s.args[1], Const) and type(s.args[1].value) is int or s.args[1] in facts.indices)
        )

    def least_or_greatest(s: Statement) -> bool:
        """``min(a, b, ...)`` or ``max(...)`` of numbers: one of them (an
        adaptive step ``dt = min(dt, T - t)`` stays a number)."""
        return (facts.callee(s) is min or facts.callee(s) is max) and len(s.args) >= 2 and not s.kwargs and all(
            is_num(v) for v in s.args)

    for s in stmts:  # optimistic start
        fn = facts.callee(s)
        if (
            member(fn, NUMERIC_CALLEES) or _is_math_number(fn) or item_of_sequence(s) or valued[id(s)]
            or fn is min or fn is max
            or item_of_array(s) or s.var in facts.arrays or fn is len
        ):
            num.add(s.var)
        elif fn in (ops.build_tuple, ops.build_list) and s.args and not any(isinstance(a, Starred) for a in s.args):
            seqs.add(s.var)
        elif fn is ops.unpack and s.args[0] in seqs:  # a, b = p: the same items
            seqs.add(s.var)
    candidates = {p for p in incoming if p not in entry.args}
    num |= candidates

    def overloadable(s: Statement) -> bool:
        return not item_of_sequence(s) and not item_of_array(s) and may_overload(s, facts, num.__contains__)

    changed = True
    while changed:
        changed = False
        for s in stmts:
            if s.var in num and s.var not in facts.arrays and s.var not in facts.constants and s.var not in facts.fields and (
                facts.callee(s) is not len  # (an int, whatever it measures)
            ) and (
                not item_of_sequence(s) and not valued[id(s)] and not item_of_array(s)
                and not any(is_num(v) for v in _operands(s))
                or not item_of_sequence(s) and any(v in seqs for v in _operands(s))  # (x, 1.0) * 2 repeats a tuple
                or overloadable(s)
                or (facts.callee(s) is min or facts.callee(s) is max) and not least_or_greatest(s)
            ):
                num.discard(s.var)
                changed = True
            if s.var in seqs and s.var not in tuples and not (
                    all(is_num(v) for v in s.args) if facts.callee(s) is not ops.unpack else s.args[0] in seqs):
                seqs.discard(s.var)
                changed = True
        for p in candidates & num:
            if not all(is_num(v) or v == p for v in incoming[p]):
                num.discard(p)
                changed = True
    _arrays(ir, facts, incoming, stmts, rows, valued)  # again, now that more operands are known numbers (u *= math.cos(x))
    items = facts.vector_items
    number_constants = [v for v in facts.constants if kind(facts.static[v]) in (NUMBER, FLOAT)]
    made = _vector_candidates(ir, facts, incoming, stmts, defs)
    while True:  # (items of vectors are numbers, and arrays built of numbers are vectors: one greatest fixed point)
        items.clear()
        items.update(s.var for s in stmts if s.args and (s.args[0] in facts.vectors or s.args[0] in made)
                     and item_of_array(s) and is_integer(s.args[1], facts, defs))
        _scalars(ir, [a for a, k in given if k in (NUMBER, FLOAT, SEQUENCE)]
                 + number_constants + sorted(tuples, key=lambda v: v.id), items | loop_items, facts, incoming, stmts)
        if not _drop_vectors(made, facts, incoming):
            break
    facts.vectors.update(made)
    real_constants = [v for v in facts.constants if kind(facts.static[v]) in (NUMBER, FLOAT, ARRAY, VECTOR)]
    _real(ir, [a for a, k in given if k in (NUMBER, FLOAT, SEQUENCE, ARRAY, VECTOR)]
          + real_constants + sorted(tuples | loop_items, key=lambda v: v.id), facts, incoming, stmts)


_REAL_PRESERVING = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg,
    operator.pos, operator.mod, operator.matmul, operator.getitem,
}


def _complex_power(s: Statement, facts: Facts) -> bool:
    """``a ** b`` of a number ``a`` that may be negative and an exponent not
    known to be an integer: Python gives a complex number (NumPy arrays
    give NaN, and stay real)."""
    if facts.callee(s) not in (operator.pow, operator.ipow, pow) or len(s.args) != 2:
        return False
    a, b = s.args
    if isinstance(a, Var) and a in facts.arrays or isinstance(a, Const) and isinstance(a.value, (int, float)) and a.value >= 0:
        return False
    if isinstance(b, Const):
        return not isinstance(b.value, int)
    return b not in facts.indices


def preserves_real(fn: Any) -> bool:
    """Whether ``fn``'s value is real when its operands are: arithmetic,
    ufuncs, :mod:`math`, NumPy's array-valued functions (called without a
    ``dtype`` keyword: a complex ``dtype`` is an operand that is not real)
    but Fourier transforms and eigenvalues."""
    return (
        member(fn, _REAL_PRESERVING) or isinstance(fn, np.ufunc) and fn.nout == 1 or _is_math_number(fn)
        or member(fn, ARRAY_VALUED) and fn not in (np.array, np.asarray) and not member(fn, MAKES_COMPLEX)
    )


def real_constant(value: Any) -> bool:
    """Whether a constant operand is no complex number, nor names a complex
    dtype (``"complex128"``, ``np.complex64``)."""
    if isinstance(value, (bool, int, float, slice, type(None), type(Ellipsis))):
        return True
    if isinstance(value, str):
        with warnings.catch_warnings():  # ("a" is a deprecated dtype name)
            warnings.simplefilter("ignore")
            try:
                return np.dtype(value).kind != "c"
            except (TypeError, ValueError):  # not a dtype's name
                return True
    if isinstance(value, tuple):
        return all(real_constant(v) for v in value)
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def is_real(op: Operand, facts: Facts) -> bool:
    """Whether an operand is known not to be complex."""
    return real_constant(op.value) if isinstance(op, Const) else op in facts.real


def _real(ir: IR, real_args: list[Var], facts: Facts, incoming: dict, stmts: list[Statement]) -> None:
    """Fill ``facts.real``: float numbers and float arrays, and what real
    operations make of them (a greatest fixed point). A conjugate of a real
    value is the value itself, so rules need not take it."""
    real = facts.real
    real.update(real_args)

    def preserving(s: Statement) -> bool:
        return not any(k == "dtype" for k, _ in s.kwargs) and (
            preserves_real(facts.callee(s)) and not _complex_power(s, facts) or _is_view(s, facts))

    real.update(s.var for s in stmts if s.var in facts.numeric and (preserving(s) or _made_real(s, facts)))
    real.update(p for p in incoming if p in facts.numeric and p not in ir.entry.args)
    _shrink(real, stmts, incoming, lambda op: is_real(op, facts),
            lambda s: s.var in real_args or preserving(s) and all(
                is_real(v, facts) for v in (s.args[:1] if facts.callee(s) is operator.getitem else _operands(s)))
            or _made_real(s, facts))


_FLOAT_ARRAYS = {np.zeros: 1, np.ones: 1, np.empty: 1, np.identity: 1, np.eye: 3}
"""Constructors of float arrays, and how many positional arguments come
before their ``dtype``."""

_SAME_DTYPE = {np.zeros_like: 1, np.ones_like: 1, np.empty_like: 1, np.full_like: 2, np.full: 2}
"""Constructors whose dtype is their operands' (the shape aside), and how
many positional arguments come before their ``dtype``."""


def _made_real(s: Statement, facts: Facts) -> bool:
    """A new array of real numbers: ``np.zeros(shape)``, ``np.ones_like(x)``
    of a real ``x``, ``np.full(shape, v)`` of a real ``v`` (no ``dtype``),
    a real part (:data:`MAKES_REAL`); or a length."""
    fn = facts.callee(s)
    if fn is len or member(fn, MAKES_REAL):
        return True
    if any(k == "dtype" or k is None for k, _ in s.kwargs) or any(isinstance(a, Starred) for a in s.args):
        return False
    if member(fn, _FLOAT_ARRAYS):
        return len(s.args) <= _FLOAT_ARRAYS[fn]
    if member(fn, _SAME_DTYPE) and len(s.args) <= _SAME_DTYPE[fn]:
        values = s.args[1:] if fn is np.full else s.args
        return all(is_real(v, facts) for v in values)
    return False


def _shrink(facts: set, stmts: list[Statement], incoming: dict, holds: Callable[[Operand], bool],
            keeps: Callable[[Statement], bool]) -> None:
    """Remove from an optimistic set of values, to a fixed point, the
    statements' values that ``keeps`` no longer vouches for and the block
    arguments some jump passes a value outside it (``holds``)."""
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if s.var in facts and not keeps(s):
                facts.discard(s.var)
                changed = True
        for p in [p for p in incoming if p in facts]:
            if not all(holds(v) or v == p for v in incoming[p]):
                facts.discard(p)
                changed = True


def is_integer(op: Any, facts: Facts, defs: dict[Var, Statement]) -> bool:
    """Whether an operand is a Python integer: a constant, the variable of
    a ``for`` loop over a ``range``, or the sum, difference or product of
    such integers (``x[i - 1]``)."""
    if isinstance(op, Const):
        return type(op.value) is int
    if op in facts.indices:
        return True
    s = defs.get(op)
    if s is not None and facts.callee(s) in (operator.add, operator.sub, operator.mul) and len(s.args) == 2 \
            and not s.kwargs:
        return all(is_integer(a, facts, defs) for a in s.args)
    if s is None or facts.callee(s) is not ops.iternext:
        return False
    it = defs.get(s.args[0])
    if it is None or facts.callee(it) is not iter:
        return False
    made = defs.get(it.args[0])
    return made is not None and facts.callee(made) is range


def _scalars(ir: IR, scalar_args: list[Var], items: set[Var], facts: Facts, incoming: dict,
             stmts: list[Statement]) -> None:
    """Fill ``facts.scalars``: the real numbers that are not arrays (arithmetic
    on such numbers, :mod:`math`, items of sequences of them, ``items``: the
    items of one-dimensional arrays), a greatest fixed point like
    :func:`numeric`'s. (Sequence arguments are in it, so that their items
    are.)"""
    sc = facts.scalars
    sc.update(scalar_args, items, facts.sequences)  # (sequences: so that their items are)
    sc.update(s.var for s in stmts if s.var in facts.numeric and s.var not in facts.arrays)
    sc.update(p for p in incoming if p in facts.numeric and p not in ir.entry.args)

    def is_scalar(op) -> bool:
        if isinstance(op, Const):  # (not a complex one: the rules of numbers do not conjugate)
            return isinstance(op.value, (int, float))
        return op in sc

    given = set(scalar_args)  # (arguments: numbers, sequences of numbers; a built sequence is one if its items are)
    _shrink(sc, stmts, incoming, is_scalar,
            lambda s: s.var in items or s.var in given or _is_math_number(facts.callee(s))
            or all(is_scalar(v) for v in _operands(s)) and not _complex_power(s, facts))
