"""The cost model of paper §4.3: the number of scalar additions,
multiplications and black-box calls an expression performs. Reading,
writing, indexing and index arithmetic are free.

Sparsity is accounted for exactly as the paper asks:

- an Iverson bracket short-circuits a product: in ``[p] * e1 * e2`` nothing
  is evaluated where ``p`` is false, and multiplying by a bracket (a 0/1
  value) is not a multiplication: a product of ``k`` non-bracket factors
  costs ``k - 1``;
- an addition counts only when both operands are non-zero, where *zero*
  means structurally zero (a product with a false bracket, the constant 0,
  a sum of zeros), never a value that happens to be 0.0; reads of tensors
  are dense (never zero);
- a summation costs one addition fewer than its number of non-zero terms,
  so a summation over a one-point predicate is free.

Costs are exact counts for the concrete index sizes, found by an
interpreter that tracks, next to each value, whether it is structurally
zero.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from zygote_py.tensor import syntax as S
from zygote_py.tensor.syntax import Expr


@dataclass
class Cost:
    """Operation counts."""

    add: int = 0
    mul: int = 0
    call: int = 0

    @property
    def total(self) -> int:
        return self.add + self.mul + self.call

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.add + other.add, self.mul + other.mul, self.call + other.call)

    def __str__(self) -> str:
        return f"{self.total} ({self.add}+, {self.mul}*, {self.call}f)"


@dataclass
class _V:
    """A value with, per element, a non-zero flag and a bracket flag."""

    val: Any
    nz: Any
    ind: Any
    pair: tuple = field(default=())


def cost(e: Expr, shapes: Mapping[str, S.Shape]) -> Cost:
    """The cost of evaluating ``e`` whose free variables have ``shapes``
    (their values do not matter; every input element counts as non-zero)."""
    c = Cost()
    env = {}
    for name, shape in shapes.items():
        env[name] = _input(shape)
    _run(e, env, {}, c)
    return c


def _input(shape: S.Shape) -> _V:
    if S.is_pair(shape):
        return _V(None, None, None, (_input(shape[1]), _input(shape[2])))
    return _V(np.ones(shape), np.ones(shape, bool), np.zeros(shape, bool))


def _scalar(v: float, nz: bool, ind: bool) -> _V:
    return _V(v, nz, ind)


def _stack(vs: list[_V]) -> _V:
    if vs and vs[0].pair:
        return _V(None, None, None, tuple(_stack([v.pair[k] for v in vs]) for k in range(2)))
    return _V(np.array([v.val for v in vs], float), np.array([v.nz for v in vs], bool),
              np.array([v.ind for v in vs], bool))


def _sum(a: _V, b: _V, c: Cost) -> _V:
    if a.pair:
        return _V(None, None, None, (_sum(a.pair[0], b.pair[0], c), _sum(a.pair[1], b.pair[1], c)))
    both = np.logical_and(a.nz, b.nz)
    c.add += int(np.sum(both))
    return _V(a.val + b.val, np.logical_or(a.nz, b.nz), np.zeros_like(both) if np.ndim(both) else False)


def _run(e: Expr, env: dict, ienv: dict, c: Cost) -> _V:
    if isinstance(e, S.Const):
        return _scalar(e.value, e.value != 0.0, False)
    if isinstance(e, S.Var):
        return env[e.name]
    if isinstance(e, S.Iverson):
        t = all(a.holds(ienv) for a in e.atoms)
        return _scalar(float(t), t, True)
    if isinstance(e, S.Add):
        return _sum(_run(e.a, env, ienv, c), _run(e.b, env, ienv, c), c)
    if isinstance(e, S.Mul):
        # Brackets first: a false one short-circuits the whole product.
        fs = _factors(e)
        if not all(all(a.holds(ienv) for a in f.atoms) for f in fs if isinstance(f, S.Iverson)):
            return _scalar(0.0, False, False)
        vs = [_run(f, env, ienv, c) for f in fs if not isinstance(f, S.Iverson)]
        if not vs:
            return _scalar(1.0, True, True)
        c.mul += len(vs) - 1
        val = 1.0
        for v in vs:
            val *= v.val
        return _scalar(val, all(v.nz for v in vs), False)
    if isinstance(e, S.Call):
        a = _run(e.arg, env, ienv, c)
        c.call += 1
        with np.errstate(all="ignore"):
            return _scalar(float(S.FUNCTIONS[e.fn][0](a.val)), True, False)
    if isinstance(e, S.Pair):
        return _V(None, None, None, (_run(e.a, env, ienv, c), _run(e.b, env, ienv, c)))
    if isinstance(e, S.Proj):
        return _run(e.e, env, ienv, c).pair[e.k]
    if isinstance(e, (S.Gen, S.Sum)):
        saved = ienv.get(e.idx)
        vs = []
        for v in range(e.idx.size):
            ienv[e.idx] = v
            vs.append(_run(e.body, env, ienv, c))
        if saved is None:
            ienv.pop(e.idx, None)
        else:
            ienv[e.idx] = saved
        if isinstance(e, S.Gen):
            return _stack(vs)
        total = vs[0]
        for v in vs[1:]:
            total = _sum(total, v, c)
        return total
    if isinstance(e, S.Access):
        t = _run(e.e, env, ienv, c)
        pos = tuple(a.value(ienv) for a in e.index)
        for p, n in zip(pos, np.shape(t.val)):
            if not 0 <= p < n:
                raise S.TensorLanguageError(f"index {pos} out of range in {e!r}")
        # Tensors are dense: a read is never structurally zero (sparsity is
        # carried by the brackets of the reader, as in the paper's SSA).
        return _scalar(float(t.val[pos]), True, False)
    if isinstance(e, S.Let):
        return _run(e.body, {**env, e.name: _run(e.rhs, env, ienv, c)}, ienv, c)
    raise S.TensorLanguageError(f"not an expression: {e!r}")


def _factors(e: Expr) -> list[Expr]:
    return _factors(e.a) + _factors(e.b) if isinstance(e, S.Mul) else [e]


def size(shape: S.Shape) -> int:
    """The number of scalars in a value of type ``shape``."""
    if S.is_pair(shape):
        return size(shape[1]) + size(shape[2])
    return int(np.prod(shape)) if shape else 1
