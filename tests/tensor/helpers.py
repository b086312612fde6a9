"""Shared oracles for the tensor-language tests: random inputs and central
finite differences on the reference evaluator."""
from __future__ import annotations

import numpy as np

from zygote_py.tensor.syntax import Expr, evaluate, is_pair


def random_inputs(shapes: dict, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {k: (rng.standard_normal(s) if s else float(rng.standard_normal())) for k, s in shapes.items()}


def flat(v) -> np.ndarray:
    if isinstance(v, tuple):
        return np.concatenate([flat(x) for x in v])
    return np.ravel(np.asarray(v, dtype=float))


def numeric_jvp(e: Expr, env: dict, tangents: dict, eps: float = 1e-6) -> np.ndarray:
    """Central difference of ``e`` along ``tangents``."""
    plus = {k: v + eps * tangents[k] if k in tangents else v for k, v in env.items()}
    minus = {k: v - eps * tangents[k] if k in tangents else v for k, v in env.items()}
    return (flat(evaluate(e, plus)) - flat(evaluate(e, minus))) / (2 * eps)


def numeric_gradient(e: Expr, env: dict, seed: np.ndarray, wrt: str, eps: float = 1e-6) -> np.ndarray:
    """``d <seed, e> / d env[wrt]`` by central differences."""
    x = np.asarray(env[wrt], dtype=float)
    g = np.zeros(x.shape)
    for pos in np.ndindex(*x.shape):
        d = np.zeros(x.shape)
        d[pos] = 1.0
        t = d if x.shape else 1.0
        g[pos] = float(seed @ numeric_jvp(e, env, {wrt: t}, eps))
    return g if x.shape else float(g)


def seeds_for(shape, seed: int = 1) -> list:
    """Random output seeds, one per leaf of the output type."""
    rng = np.random.default_rng(seed)
    if is_pair(shape):
        return seeds_for(shape[1], seed) + seeds_for(shape[2], seed + 1)
    return [rng.standard_normal(shape) if shape else float(rng.standard_normal())]
