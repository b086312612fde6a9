"""Derivatives built on the two modes: Jacobians, Hessian-vector products
and Hessians.

- ``jacobian`` takes, per argument, one pushforward per input element
  (forward mode) when the output has more elements than the inputs
  together, else one pullback per output element (reverse mode).
- ``hvp`` and ``hessian`` are forward-over-reverse: the pushforward of the
  gradient code zygote_py emitted for ``f`` (:func:`runtime.gradient_function`,
  whose source the forward transform reads like any function's). Where
  forward mode refuses that code, they fall back to reverse-over-reverse,
  the gradient of the directional derivative ``gradient(f, x) · v`` (see
  :mod:`zygote_py.rules.nested`).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import runtime, tangent
from .api import _located, gradient, jvp, pullback
from .errors import ZygoteError
from .tangent import Tangent


def jacobian(f: Callable, *args: Any) -> tuple:
    """The Jacobian of ``f`` at ``args``: for each positional argument, an
    array of shape ``np.shape(f(*args)) + np.shape(arg)`` (as JAX and
    autograd lay it out), zeros where no derivative flows. Forward mode
    when the output is larger than the inputs, else reverse mode."""
    y = f(*args)
    if np.size(y) > sum(np.size(a) for a in args):
        try:
            return _jacobian_forward(f, args, np.shape(y))
        except ZygoteError:
            pass  # (what forward mode refuses, reverse mode may not)
    return _jacobian_reverse(f, args)


def _jacobian_forward(f: Callable, args: tuple, shape: tuple) -> tuple:
    out = []
    for i, a in enumerate(args):
        columns = []
        for k in np.ndindex(np.shape(a)):
            e = np.zeros(np.shape(a))
            e[k] = 1.0
            tangents = tuple(_unit(e, a) if j == i else None for j in range(len(args)))
            columns.append(np.asarray(jvp(f, args, tangents)[1], dtype=float))
        out.append(np.stack(columns, axis=-1).reshape(shape + np.shape(a)) if columns
                   else np.zeros(shape + np.shape(a)))
    return tuple(out)


def _unit(e: np.ndarray, a: Any) -> Any:
    """The unit tangent ``e`` in ``a``'s kind: a float for a number."""
    return e if isinstance(a, np.ndarray) else float(e)


def _jacobian_reverse(f: Callable, args: tuple) -> tuple:
    y, back = pullback(f, *args)
    shape = np.shape(y)
    rows = []
    for k in np.ndindex(shape):
        e = np.zeros(shape)
        e[k] = 1.0
        rows.append(back(e if shape else 1.0))
    return tuple(
        np.stack([np.zeros(np.shape(a)) if r[i] is None else np.asarray(r[i], dtype=float) for r in rows])
        .reshape(shape + np.shape(a))
        for i, a in enumerate(args)
    )


def hvp(f: Callable, primals: tuple, vectors: tuple) -> tuple:
    """The Hessian of a real-scalar-valued ``f`` at ``primals`` times
    ``vectors`` (one per argument, each shaped like it): one entry per
    argument."""
    primals, vectors = tuple(primals), tuple(vectors)
    runtime.NEST[0] += 1
    try:
        g = runtime.gradient_function(f, primals)
        _, (_, dgrads) = runtime.push(g, primals, {}, vectors, {})
        return tuple(runtime.user_gradient(x, d) for x, d in zip(primals, dgrads))
    except ZygoteError as e:
        if "forward mode" not in e.message:
            raise _located(e, f) from None
    finally:
        runtime.NEST[0] -= 1
    return _hvp_reverse(f, primals, vectors)


def _hvp_reverse(f: Callable, primals: tuple, vectors: tuple) -> tuple:
    def directional(*xs):
        total = 0.0
        for g, v in zip(gradient(f, *xs), vectors):
            total = total + _inner(g, v)
        return total

    try:
        return gradient(directional, *primals)
    except ZygoteError as e:
        raise _located(e, f) from None


def _inner(g: Any, v: Any) -> Any:
    """The sum of ``g * v`` over the leaves of a gradient ``g`` and a
    direction ``v`` of one structure (tuples, lists, dicts, objects'
    fields; ``None``: zero), written so that zygote_py differentiates it in
    ``g``. For complex leaves it is the real inner product
    ``Re(sum(conj(v) * g))``, the derivative of a real loss along ``v`` in
    the convention ``g = dL/dx + i dL/dy``."""
    if g is None or v is None:
        return 0.0
    if isinstance(v, (tuple, list)):
        return sum([_inner(a, b) for a, b in zip(g, v)])
    if isinstance(v, dict):
        return sum([_inner(g.get(k), x) for k, x in v.items()])
    if isinstance(g, Tangent):
        return sum([_inner(runtime.field(g, k), tangent.value(v, k)) for k in tangent.fields(v)])
    return np.real(np.sum(np.conj(v) * g))


def hessian(f: Callable, *args: Any) -> Any:
    """The Hessian of a real-scalar-valued ``f`` at ``args``: for one
    argument an array of shape ``shape + shape``; for several, a tuple of
    tuples of blocks, ``H[i][j]`` of shape ``args[i].shape + args[j].shape``."""
    shapes = [np.shape(a) for a in args]
    blocks = [[None] * len(args) for _ in args]
    for j, shape in enumerate(shapes):
        columns = []
        for k in np.ndindex(shape):
            vectors = [np.zeros(s) for s in shapes]
            vectors[j][k] = 1.0
            columns.append(hvp(f, args, tuple(_unit(v, a) for v, a in zip(vectors, args))))
        for i, s in enumerate(shapes):
            blocks[i][j] = np.stack([np.zeros(s) if c[i] is None else np.asarray(c[i], dtype=float)
                                     for c in columns], axis=-1).reshape(s + shape)
    return blocks[0][0] if len(args) == 1 else tuple(tuple(row) for row in blocks)
