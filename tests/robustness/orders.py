"""Second and third derivatives of any program whose gradient works,
checked against central finite differences of zygote_py's own lower
derivatives (issue 36: the gradient code zygote_py emits must itself be
differentiable by zygote_py, in both modes).

:func:`check_orders` takes a function ``f`` of numbers, arrays and
integers, a point and directions ``v, w, u`` (one entry per argument,
``None`` for an integer), and checks at second order

- ``hvp``: ``zpy.hvp(f, args, v)`` (forward over reverse: the
  pushforward of the emitted gradient code);
- ``reverse``: the gradient of ``<gradient of f, v>`` (reverse over
  reverse);
- ``jvp of grad``: ``zpy.jvp`` of ``x -> gradient of f at x`` along ``v``
  (forward mode over the nested-gradient rule);

each against ``(g(x + h v) - g(x - h v)) / 2h`` with ``g`` zygote_py's
gradient (checked at first order by the suites that call this); and, at
``order=3``, the gradient of ``<grad <grad f, v>, w>`` along ``u``
against the central difference of that inner product along ``u``. A point
where the two steps ``h = 1e-5`` and ``1e-4`` disagree (a branch or a
kink within reach) is skipped. Each composition ends as ``ok``, ``wrong``
(a number off), ``crash`` (an exception that is no zygote_py error) or
``refused`` (a clear zygote_py error): :class:`Orders` counts them.
"""
from __future__ import annotations

import dataclasses
import warnings
from collections import Counter
from typing import Callable, Optional

import numpy as np

import zygote_py as zpy
from tests.ad.fdcheck import TookTooLong

STEPS = (1e-5, 1e-4)
SECOND = ("hvp", "reverse", "jvp of grad")
THIRD = ("third",)


@dataclasses.dataclass
class Orders:
    """What checking one program found: per composition, how many points
    ended ``ok``, ``wrong``, ``crash`` or ``refused`` (:attr:`counts`,
    keyed ``(composition, kind)``), the points skipped (the function is not
    smooth there, or its gradient fails), each wrong or crashing point's
    message (:attr:`findings`) and each refusal's (:attr:`refusals`)."""

    counts: Counter = dataclasses.field(default_factory=Counter)
    skipped: int = 0
    findings: list = dataclasses.field(default_factory=list)
    refusals: list = dataclasses.field(default_factory=list)

    def add(self, other: "Orders") -> None:
        self.counts.update(other.counts)
        self.skipped += other.skipped
        self.findings += other.findings
        self.refusals += other.refusals

    def kinds(self, composition: str) -> dict:
        return {k: self.counts[(composition, k)] for k in ("ok", "wrong", "crash", "refused")}


def is_float(a) -> bool:
    return isinstance(a, (float, np.floating)) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")


def fresh(args: tuple) -> tuple:
    """Copies of the arguments: programs may change arrays in place."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def moved(args: tuple, direction: tuple, h: float) -> tuple:
    return tuple(a + h * d if d is not None else a for a, d in zip(fresh(args), direction))


def flat(values, args: tuple) -> np.ndarray:
    """The float arguments' entries of ``values`` (one per argument, ``None``
    a zero) as one vector."""
    return np.concatenate([np.ravel(np.broadcast_to(np.real(np.asarray(0.0 if v is None else v, dtype=complex)),
                                                    np.shape(a)))  # (a zero tangent may be the number 0)
                           for v, a in zip(values, args) if is_float(a)] or [np.zeros(0)])


def inner(values, direction) -> float:
    """``<values, direction>`` over the arguments, written so that
    zygote_py differentiates it in ``values``."""
    total = 0.0
    for g, d in zip(values, direction):
        if g is not None and d is not None:
            total = total + np.sum(g * d)
    return total


def difference(g: Callable, args: tuple, direction: tuple) -> Optional[tuple[np.ndarray, float]]:
    """The central difference of the vector-valued ``g`` along
    ``direction`` and its error bound, or ``None`` where ``g`` is not
    smooth there (the two steps disagree) or fails."""
    found = []
    for h in STEPS:
        try:
            hi, lo = g(moved(args, direction, h)), g(moved(args, direction, -h))
        except (ArithmeticError, ValueError, IndexError, KeyError, zpy.ZygoteError):
            return None
        if not (np.all(np.isfinite(hi)) and np.all(np.isfinite(lo))):
            return None
        found.append(((hi - lo) / (2 * h), 4e-16 * (np.max(np.abs(hi), initial=0) + np.max(np.abs(lo), initial=0)) / h))
    (a, ra), (b, rb) = found
    gap = float(np.max(np.abs(a - b), initial=0.0))  # b's truncation error is ~100 times a's
    if gap > 1e-3 * max(float(np.max(np.abs(a), initial=0.0)), 1.0) + ra + rb:
        return None
    return a, gap + ra + rb


def agrees(got: np.ndarray, want: np.ndarray, error: float) -> bool:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return bool(np.all(np.abs(got - want) <= 1e-5 * np.maximum(np.abs(got), np.abs(want)) + 10 * error + 1e-8))


def _attempt(out: Orders, composition: str, where: str, compute: Callable, want, error) -> None:
    """Run ``compute`` (the derivative by ``composition``) and count how it
    ends against ``want``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = compute()
    except zpy.ZygoteError as e:
        out.counts[(composition, "refused")] += 1
        out.refusals.append((composition, type(e).__name__, e.message))
        return
    except TookTooLong:  # (the caller's time limit: it counts the program slow)
        raise
    except Exception as e:  # noqa: BLE001  (a crash is a finding)
        out.counts[(composition, "crash")] += 1
        out.findings.append(f"{composition} raised {type(e).__name__}: {e} at {where}")
        return
    if got is None or np.shape(got) != np.shape(want) or not agrees(got, want, error):
        out.counts[(composition, "wrong")] += 1
        out.findings.append(f"{composition}: {got!r}, finite difference {want!r} at {where}")
    else:
        out.counts[(composition, "ok")] += 1


def check_orders(f: Callable, args: tuple, v: tuple, w: tuple = None, u: tuple = None, order: int = 2,
                 compositions: tuple = SECOND) -> Orders:
    """Check ``f``'s second derivatives at ``args`` along ``v`` by each of
    ``compositions`` and, at ``order=3``, its third along ``v, w, u``."""
    out = Orders()
    where = f"{args!r} along {v!r}"

    def gradient(a):
        return flat(zpy.gradient(f, *fresh(a)), args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        found = difference(gradient, args, v)
    if found is None:
        out.skipped += 1
        return out
    want, error = found
    if "hvp" in compositions:
        _attempt(out, "hvp", where, lambda: flat(zpy.hvp(f, fresh(args), v), args), want, error)
    if "reverse" in compositions:
        _attempt(out, "reverse", where,
                 lambda: flat(zpy.gradient(lambda *a: inner(zpy.gradient(f, *a), v), *fresh(args)), args),
                 want, error)
    if "jvp of grad" in compositions:
        _attempt(out, "jvp of grad", where,
                 lambda: flat(zpy.jvp(lambda *a: zpy.gradient(f, *a), fresh(args), v)[1], args), want, error)
    if order >= 3:
        _check_third(out, f, args, v, w, u, where)
    return out


def _check_third(out: Orders, f: Callable, args: tuple, v: tuple, w: tuple, u: tuple, where: str) -> None:
    def second(*a):
        return inner(zpy.gradient(lambda *b: inner(zpy.gradient(f, *b), v), *a), w)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        found = difference(lambda a: np.array([second(*fresh(a))]), args, u)
    if found is None:
        out.skipped += 1
        return
    want, error = found
    _attempt(out, "third", where + f", {w!r}, {u!r}",
             lambda: np.array([inner(zpy.gradient(second, *fresh(args)), u)]), want, error)
