"""The tensor index language of Bernstein et al., "Differentiating a Tensor
Language" (arXiv 2008.11256, §4), embedded in Python, and its reference
evaluator.

Expressions are immutable dataclasses, compared and hashed structurally (the
Tensor SSA pass relies on that for CSE). Index variables carry their range
(``Index("i", 5)`` ranges over ``0..4``); index arithmetic is affine
(:class:`Affine`), and Iverson brackets hold conjunctions of affine atoms
(``aff == 0``, ``aff != 0``, ``aff < 0``). ``+`` and ``*`` are scalar
operations; tensors are built with :func:`gen` and read with ``x[i, j]``
(every access names all of a tensor's axes).

:func:`evaluate` is the reference semantics: a direct interpreter, slow and
obviously right, against which every pass and the generated NumPy are
tested. An Iverson bracket short-circuits a product: in ``[p] * e`` with
``p`` false, ``e`` is not evaluated, so ``e`` may read out of range there.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

import numpy as np

from zygote_py.errors import ZygoteError


class TensorLanguageError(ZygoteError):
    """An ill-formed tensor expression (unbound name, out-of-range access,
    wrong arity)."""


# ---------------------------------------------------------------- indices


@dataclass(frozen=True, order=True)
class Index:
    """An index variable ranging over ``0 .. size-1``."""

    name: str
    size: int

    def __repr__(self) -> str:
        return self.name

    def aff(self) -> "Affine":
        return Affine(((self, 1),), 0)

    def __add__(self, other: "AffLike") -> "Affine":
        return self.aff() + other

    __radd__ = __add__

    def __sub__(self, other: "AffLike") -> "Affine":
        return self.aff() - other

    def __rsub__(self, other: "AffLike") -> "Affine":
        return as_affine(other) - self.aff()

    def __mul__(self, k: int) -> "Affine":
        return self.aff() * k

    __rmul__ = __mul__

    def __neg__(self) -> "Affine":
        return self.aff() * -1


@dataclass(frozen=True)
class Affine:
    """``sum(c * i for i, c in terms) + const``; terms sorted, no zero
    coefficients, so equal affine forms are equal objects."""

    terms: tuple[tuple[Index, int], ...]
    const: int

    @staticmethod
    def make(coefs: Mapping[Index, int], const: int) -> "Affine":
        return Affine(tuple(sorted((i, c) for i, c in coefs.items() if c)), const)

    def coefs(self) -> dict[Index, int]:
        return dict(self.terms)

    def indices(self) -> set[Index]:
        return {i for i, _ in self.terms}

    def __add__(self, other: "AffLike") -> "Affine":
        o = as_affine(other)
        c = self.coefs()
        for i, k in o.terms:
            c[i] = c.get(i, 0) + k
        return Affine.make(c, self.const + o.const)

    __radd__ = __add__

    def __sub__(self, other: "AffLike") -> "Affine":
        return self + as_affine(other) * -1

    def __rsub__(self, other: "AffLike") -> "Affine":
        return as_affine(other) - self

    def __mul__(self, k: int) -> "Affine":
        return Affine.make({i: c * k for i, c in self.terms}, self.const * k)

    __rmul__ = __mul__

    def __neg__(self) -> "Affine":
        return self * -1

    def value(self, ienv: Mapping[Index, int]) -> int:
        return self.const + sum(c * ienv[i] for i, c in self.terms)

    def substitute(self, i: Index, by: "Affine") -> "Affine":
        c = self.coefs()
        k = c.pop(i, 0)
        return Affine.make(c, self.const) + by * k if k else self

    def bounds(self) -> tuple[int, int]:
        """Least and greatest value over the full ranges of its indices."""
        lo = hi = self.const
        for i, c in self.terms:
            lo += min(0, c * (i.size - 1))
            hi += max(0, c * (i.size - 1))
        return lo, hi

    def __repr__(self) -> str:
        parts = []
        for i, c in sorted(self.terms, key=lambda t: t[1] < 0):
            s = i.name if abs(c) == 1 else f"{abs(c)}*{i.name}"
            parts.append(("- " if c < 0 else "+ ") + s)
        if self.const or not parts:
            parts.append(("- " if self.const < 0 else "+ ") + str(abs(self.const)))
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else "-" + text[2:]


AffLike = Union[Index, Affine, int]


def as_affine(x: AffLike) -> Affine:
    if isinstance(x, Affine):
        return x
    if isinstance(x, Index):
        return x.aff()
    if isinstance(x, (int, np.integer)):
        return Affine((), int(x))
    raise TensorLanguageError(f"not an index expression: {x!r}", hint="use Index variables, ints, + - and int *")


@dataclass(frozen=True)
class Atom:
    """An affine predicate: ``aff == 0`` (``eq``), ``aff != 0`` (``ne``) or
    ``aff < 0`` (``lt``)."""

    kind: str
    aff: Affine

    def holds(self, ienv: Mapping[Index, int]) -> bool:
        v = self.aff.value(ienv)
        return v == 0 if self.kind == "eq" else v != 0 if self.kind == "ne" else v < 0

    def truth(self) -> Optional[bool]:
        """True or False when decided by the ranges of its indices alone."""
        lo, hi = self.aff.bounds()
        if self.kind == "lt":
            return True if hi < 0 else False if lo >= 0 else None
        if lo == hi == 0:
            return self.kind == "eq"
        if lo > 0 or hi < 0:
            return self.kind == "ne"
        return None

    def substitute(self, i: Index, by: Affine) -> "Atom":
        return Atom(self.kind, self.aff.substitute(i, by))

    def __repr__(self) -> str:
        return f"{self.aff!r} {dict(eq='==', ne='!=', lt='<')[self.kind]} 0"


def eq(a: AffLike, b: AffLike) -> Atom:
    """The predicate ``a == b``."""
    return Atom("eq", as_affine(a) - b)


def ne(a: AffLike, b: AffLike) -> Atom:
    """The predicate ``a != b``."""
    return Atom("ne", as_affine(a) - b)


def lt(a: AffLike, b: AffLike) -> Atom:
    """The predicate ``a < b``."""
    return Atom("lt", as_affine(a) - b)


def le(a: AffLike, b: AffLike) -> Atom:
    """The predicate ``a <= b``."""
    return lt(a, as_affine(b) + 1)


# ------------------------------------------------------------ expressions


class Expr:
    """Base of expressions. ``+`` and ``*`` build scalar operations,
    ``e[i, j]`` builds an access."""

    def __add__(self, other: Any) -> "Expr":
        return Add(self, as_expr(other))

    def __radd__(self, other: Any) -> "Expr":
        return Add(as_expr(other), self)

    def __mul__(self, other: Any) -> "Expr":
        return Mul(self, as_expr(other))

    def __rmul__(self, other: Any) -> "Expr":
        return Mul(as_expr(other), self)

    def __sub__(self, other: Any) -> "Expr":
        return Add(self, Mul(Const(-1.0), as_expr(other)))

    def __neg__(self) -> "Expr":
        return Mul(Const(-1.0), self)

    def __getitem__(self, idx: Any) -> "Expr":
        if not isinstance(idx, tuple):
            idx = (idx,)
        return Access(self, tuple(as_affine(a) for a in idx))

    def __repr__(self) -> str:
        from zygote_py.tensor.printer import show

        return show(self)


@dataclass(frozen=True, repr=False)
class Var(Expr):
    """An input or let-bound variable."""

    name: str


@dataclass(frozen=True, repr=False)
class Const(Expr):
    value: float


@dataclass(frozen=True, repr=False)
class Add(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True, repr=False)
class Mul(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True, repr=False)
class Call(Expr):
    """A black-box scalar function from :data:`FUNCTIONS`."""

    fn: str
    arg: Expr


@dataclass(frozen=True, repr=False)
class Pair(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True, repr=False)
class Proj(Expr):
    """``fst`` (k = 0) or ``snd`` (k = 1) of a pair."""

    k: int
    e: Expr


@dataclass(frozen=True, repr=False)
class Gen(Expr):
    """Tensor generation: the vector ``[body(i) for i in range(idx.size)]``."""

    idx: Index
    body: Expr


@dataclass(frozen=True, repr=False)
class Sum(Expr):
    """Big summation of ``body`` over ``idx``'s range."""

    idx: Index
    body: Expr


@dataclass(frozen=True, repr=False)
class Access(Expr):
    e: Expr
    index: tuple[Affine, ...]


@dataclass(frozen=True, repr=False)
class Iverson(Expr):
    """1.0 when every atom holds, else 0.0."""

    atoms: tuple[Atom, ...]


@dataclass(frozen=True, repr=False)
class Let(Expr):
    name: str
    rhs: Expr
    body: Expr


ZERO = Const(0.0)
ONE = Const(1.0)

FUNCTIONS = {
    "exp": (np.exp, lambda a: Call("exp", a)),
    "log": (np.log, lambda a: Call("recip", a)),
    "tanh": (np.tanh, lambda a: Add(ONE, Mul(Const(-1.0), Mul(Call("tanh", a), Call("tanh", a))))),
    "sin": (np.sin, lambda a: Call("cos", a)),
    "cos": (np.cos, lambda a: Mul(Const(-1.0), Call("sin", a))),
    "recip": (lambda v: 1.0 / v, lambda a: Mul(Const(-1.0), Mul(Call("recip", a), Call("recip", a)))),
    "sqrt": (np.sqrt, lambda a: Mul(Const(0.5), Call("recip", Call("sqrt", a)))),
}
"""Black-box scalar functions: name -> (NumPy implementation, derivative as
an expression of the argument)."""


OUTPUT_DERIVATIVES = {
    "exp": lambda y: y,
    "tanh": lambda y: Add(ONE, Mul(Const(-1.0), Mul(y, y))),
    "recip": lambda y: Mul(Const(-1.0), Mul(y, y)),
    "sqrt": lambda y: Mul(Const(0.5), Call("recip", y)),
}
"""Derivatives written in terms of the function's output ``y`` (exp' = exp),
used when the output is already a named value: no second call."""


def as_expr(x: Any) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, (int, float, np.integer, np.floating)):
        return Const(float(x))
    raise TensorLanguageError(f"not a tensor expression: {x!r}")


# ---------------------------------------------------------------- builders


def var(name: str) -> Var:
    return Var(name)


def gen(idx: Union[Index, tuple[Index, ...]], body: Any) -> Expr:
    """``gen i. body``; a tuple of indices nests, outermost first."""
    idxs = idx if isinstance(idx, tuple) else (idx,)
    e = as_expr(body)
    for i in reversed(idxs):
        e = Gen(i, e)
    return e


def tsum(idx: Union[Index, tuple[Index, ...]], body: Any) -> Expr:
    """``sum i. body``; a tuple of indices nests, outermost first."""
    idxs = idx if isinstance(idx, tuple) else (idx,)
    e = as_expr(body)
    for i in reversed(idxs):
        e = Sum(i, e)
    return e


def iverson(*atoms: Atom) -> Iverson:
    return Iverson(tuple(atoms))


def let(name: str, rhs: Any, body: Any) -> Let:
    return Let(name, as_expr(rhs), as_expr(body))


def pair(a: Any, b: Any) -> Pair:
    return Pair(as_expr(a), as_expr(b))


def fst(e: Expr) -> Proj:
    return Proj(0, e)


def snd(e: Expr) -> Proj:
    return Proj(1, e)


def call(fn: str, arg: Any) -> Call:
    if fn not in FUNCTIONS:
        raise TensorLanguageError(f"unknown scalar function {fn!r}", hint=f"known: {', '.join(sorted(FUNCTIONS))}")
    return Call(fn, as_expr(arg))


def exp(a: Any) -> Call:
    return call("exp", a)


def log(a: Any) -> Call:
    return call("log", a)


def tanh(a: Any) -> Call:
    return call("tanh", a)


# ------------------------------------------------------------ traversals


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Add, Mul, Pair)):
        return (e.a, e.b)
    if isinstance(e, (Gen, Sum)):
        return (e.body,)
    if isinstance(e, Call):
        return (e.arg,)
    if isinstance(e, (Proj, Access)):
        return (e.e,)
    if isinstance(e, Let):
        return (e.rhs, e.body)
    return ()


def rebuild(e: Expr, kids: tuple[Expr, ...]) -> Expr:
    """``e`` with its children replaced (same order as :func:`children`)."""
    if isinstance(e, (Add, Mul, Pair)):
        return type(e)(*kids)
    if isinstance(e, (Gen, Sum)):
        return type(e)(e.idx, kids[0])
    if isinstance(e, Call):
        return Call(e.fn, kids[0])
    if isinstance(e, Proj):
        return Proj(e.k, kids[0])
    if isinstance(e, Access):
        return Access(kids[0], e.index)
    if isinstance(e, Let):
        return Let(e.name, kids[0], kids[1])
    return e


def free_vars(e: Expr) -> set[str]:
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, Let):
        return free_vars(e.rhs) | (free_vars(e.body) - {e.name})
    out: set[str] = set()
    for c in children(e):
        out |= free_vars(c)
    return out


def free_indices(e: Expr) -> set[Index]:
    if isinstance(e, (Gen, Sum)):
        return free_indices(e.body) - {e.idx}
    if isinstance(e, Access):
        out = free_indices(e.e)
        for a in e.index:
            out |= a.indices()
        return out
    if isinstance(e, Iverson):
        return set().union(*(a.aff.indices() for a in e.atoms)) if e.atoms else set()
    out: set[Index] = set()
    for c in children(e):
        out |= free_indices(c)
    return out


def subst_index(e: Expr, i: Index, by: Affine) -> Expr:
    """``e`` with the free index ``i`` replaced by the affine form ``by``."""
    if isinstance(e, (Gen, Sum)) and e.idx == i:
        return e
    if isinstance(e, Access):
        return Access(subst_index(e.e, i, by), tuple(a.substitute(i, by) for a in e.index))
    if isinstance(e, Iverson):
        return Iverson(tuple(a.substitute(i, by) for a in e.atoms))
    kids = children(e)
    return rebuild(e, tuple(subst_index(c, i, by) for c in kids)) if kids else e


def subst_var(e: Expr, name: str, by: Expr) -> Expr:
    """``e`` with the free variable ``name`` replaced by ``by`` (whose free
    variables must not be rebound in ``e``: passes keep names unique)."""
    if isinstance(e, Var):
        return by if e.name == name else e
    if isinstance(e, Let):
        rhs = subst_var(e.rhs, name, by)
        return Let(e.name, rhs, e.body if e.name == name else subst_var(e.body, name, by))
    kids = children(e)
    return rebuild(e, tuple(subst_var(c, name, by) for c in kids)) if kids else e


class Fresh:
    """A supply of names not used in a given expression."""

    def __init__(self, *exprs: Expr, taken: tuple[str, ...] = ()):
        self.used = set(taken)
        for e in exprs:
            self._collect(e)

    def _collect(self, e: Expr) -> None:
        if isinstance(e, (Var, Let)):
            self.used.add(e.name)
        if isinstance(e, (Gen, Sum)):
            self.used.add(e.idx.name)
        for c in children(e):
            self._collect(c)

    def name(self, base: str) -> str:
        if base not in self.used:
            self.used.add(base)
            return base
        for n in itertools.count(1):
            cand = f"{base}{n}"
            if cand not in self.used:
                self.used.add(cand)
                return cand
        raise AssertionError

    def index(self, base: str, size: int) -> Index:
        return Index(self.name(base), size)


# ------------------------------------------------------------------ types


Shape = Any
"""A type: a tuple of ints (``()`` for a scalar), or ``("pair", t1, t2)``."""


def is_pair(t: Shape) -> bool:
    return isinstance(t, tuple) and len(t) == 3 and t[0] == "pair"


def shape_of(e: Expr, tenv: Mapping[str, Shape]) -> Shape:
    """The type of ``e`` given the types of its free variables."""
    if isinstance(e, Var):
        if e.name not in tenv:
            raise TensorLanguageError(f"unbound variable {e.name!r}")
        return tenv[e.name]
    if isinstance(e, (Const, Iverson)):
        return ()
    if isinstance(e, (Add, Mul)):
        ta, tb = shape_of(e.a, tenv), shape_of(e.b, tenv)
        if ta != () or tb != ():
            raise TensorLanguageError(f"+ and * are scalar operations; got operands of shapes {ta} and {tb}",
                                      hint="write gen i. a[i] + b[i] for an elementwise sum")
        return ()
    if isinstance(e, Call):
        if shape_of(e.arg, tenv) != ():
            raise TensorLanguageError(f"{e.fn} takes a scalar")
        return ()
    if isinstance(e, Pair):
        return ("pair", shape_of(e.a, tenv), shape_of(e.b, tenv))
    if isinstance(e, Proj):
        t = shape_of(e.e, tenv)
        if not is_pair(t):
            raise TensorLanguageError("projection of a non-pair")
        return t[1 + e.k]
    if isinstance(e, Gen):
        t = shape_of(e.body, tenv)
        if is_pair(t):
            return ("pair", _lift_shape(e.idx.size, t[1]), _lift_shape(e.idx.size, t[2]))
        return (e.idx.size,) + t
    if isinstance(e, Sum):
        return shape_of(e.body, tenv)
    if isinstance(e, Access):
        t = shape_of(e.e, tenv)
        if is_pair(t) or len(t) != len(e.index):
            raise TensorLanguageError(f"access with {len(e.index)} indices into a value of type {t}",
                                      hint="name every axis: x[i, j] for a matrix")
        return ()
    if isinstance(e, Let):
        return shape_of(e.body, {**tenv, e.name: shape_of(e.rhs, tenv)})
    raise TensorLanguageError(f"not an expression: {e!r}")


def _lift_shape(n: int, t: Shape) -> Shape:
    if is_pair(t):
        return ("pair", _lift_shape(n, t[1]), _lift_shape(n, t[2]))
    return (n,) + t


# -------------------------------------------------------------- evaluator


def evaluate(e: Expr, env: Mapping[str, Any], ienv: Optional[Mapping[Index, int]] = None) -> Any:
    """The value of ``e``: a float, an ndarray, or a tuple for a pair.

    ``env`` maps free variables to values (arrays or numbers)."""
    return _eval(e, dict(env), dict(ienv or {}))


def _stack(vals: list) -> Any:
    if vals and isinstance(vals[0], tuple):
        return tuple(_stack([v[k] for v in vals]) for k in range(2))
    return np.array(vals, dtype=float)


def _eval(e: Expr, env: dict, ienv: dict) -> Any:
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Var):
        if e.name not in env:
            raise TensorLanguageError(f"unbound variable {e.name!r}")
        return env[e.name]
    if isinstance(e, Iverson):
        return 1.0 if all(a.holds(ienv) for a in e.atoms) else 0.0
    if isinstance(e, Add):
        return _eval(e.a, env, ienv) + _eval(e.b, env, ienv)
    if isinstance(e, Mul):
        # The brackets of a product are evaluated first and short-circuit it.
        fs = _factors(e)
        if not all(all(a.holds(ienv) for a in f.atoms) for f in fs if isinstance(f, Iverson)):
            return 0.0
        out = 1.0
        for f in fs:
            if not isinstance(f, Iverson):
                out = out * _eval(f, env, ienv)
        return out
    if isinstance(e, Call):
        return float(FUNCTIONS[e.fn][0](_eval(e.arg, env, ienv)))
    if isinstance(e, Pair):
        return (_eval(e.a, env, ienv), _eval(e.b, env, ienv))
    if isinstance(e, Proj):
        return _eval(e.e, env, ienv)[e.k]
    if isinstance(e, Gen):
        saved = ienv.get(e.idx, _MISSING)
        out = []
        for v in range(e.idx.size):
            ienv[e.idx] = v
            out.append(_eval(e.body, env, ienv))
        _restore(ienv, e.idx, saved)
        return _stack(out)
    if isinstance(e, Sum):
        saved = ienv.get(e.idx, _MISSING)
        total: Any = None
        for v in range(e.idx.size):
            ienv[e.idx] = v
            t = _eval(e.body, env, ienv)
            total = t if total is None else _plus(total, t)
        _restore(ienv, e.idx, saved)
        return 0.0 if total is None else total
    if isinstance(e, Access):
        arr = np.asarray(_eval(e.e, env, ienv))
        pos = tuple(a.value(ienv) for a in e.index)
        if arr.ndim != len(pos):
            raise TensorLanguageError(f"access with {len(pos)} indices into an array of rank {arr.ndim}")
        for p, n in zip(pos, arr.shape):
            if not 0 <= p < n:
                raise TensorLanguageError(f"index {pos} out of range for shape {arr.shape} in {e!r}",
                                          hint="guard the access with an Iverson bracket")
        return float(arr[pos])
    if isinstance(e, Let):
        rhs = _eval(e.rhs, env, ienv)
        saved = env.get(e.name, _MISSING)
        env[e.name] = rhs
        try:
            return _eval(e.body, env, ienv)
        finally:
            _restore(env, e.name, saved)
    raise TensorLanguageError(f"not an expression: {e!r}")


_MISSING = object()


def _factors(e: Expr) -> list[Expr]:
    return _factors(e.a) + _factors(e.b) if isinstance(e, Mul) else [e]


def _restore(d: dict, k: Any, saved: Any) -> None:
    if saved is _MISSING:
        d.pop(k, None)
    else:
        d[k] = saved


def _plus(a: Any, b: Any) -> Any:
    if isinstance(a, tuple):
        return (_plus(a[0], b[0]), _plus(a[1], b[1]))
    return a + b
