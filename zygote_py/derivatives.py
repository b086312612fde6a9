"""Derivatives built on the reverse mode: Jacobians, Hessian-vector
products and Hessians.

``jacobian`` pulls back one unit cotangent per element of the output.
``hvp`` and ``hessian`` are reverse-over-reverse: the gradient of the
directional derivative ``gradient(f, x) · v``, which differentiates the
gradient code zygote_py emitted for ``f`` (see :mod:`zygote_py.rules.nested`,
and its limits: a second order through ``f``'s own calls of other Python
functions is refused). Forward mode, which would make ``jacobian`` cheaper
for wide outputs and ``hessian`` forward-over-reverse, is not built yet.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .api import gradient, pullback


def jacobian(f: Callable, *args: Any) -> tuple:
    """The Jacobian of ``f`` at ``args``: for each positional argument, an
    array of shape ``np.shape(f(*args)) + np.shape(arg)`` (as JAX and
    autograd lay it out), zeros where no gradient flows."""
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
    ``vectors`` (one per argument, each shaped like it): one gradient per
    argument."""
    def directional(*xs):
        total = 0.0
        for g, v in zip(gradient(f, *xs), vectors):
            total = total + np.sum(g * v)
        return total

    return gradient(directional, *primals)


def hessian(f: Callable, *args: Any) -> Any:
    """The Hessian of a real-scalar-valued ``f`` at ``args``: for one
    argument an array of shape ``shape + shape``; for several, a tuple of
    tuples of blocks, ``H[i][j]`` of shape ``args[i].shape + args[j].shape``."""
    shapes = [np.shape(a) for a in args]
    blocks = [[None] * len(args) for _ in args]
    for j, shape in enumerate(shapes):
        columns = []
        for k in np.ndindex(shape):
            vectors = tuple(np.zeros(s) for s in shapes)
            vectors[j][k] = 1.0
            columns.append(hvp(f, args, vectors))
        for i, s in enumerate(shapes):
            blocks[i][j] = np.stack([np.zeros(s) if c[i] is None else np.asarray(c[i], dtype=float)
                                     for c in columns], axis=-1).reshape(s + shape)
    return blocks[0][0] if len(args) == 1 else tuple(tuple(row) for row in blocks)
