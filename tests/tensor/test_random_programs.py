"""Random programs of the language, as an oracle-checked specification of
the whole pipeline: every pass keeps the value without raising the cost,
the adjoint agrees with finite differences and stays within the bound, and
the generated NumPy agrees with the reference evaluator."""
import random

import numpy as np
import pytest

from zygote_py.tensor import syntax as S
from zygote_py.tensor.compiled import compile
from zygote_py.tensor.cost import cost, size
from zygote_py.tensor.derive import unpack
from zygote_py.tensor.normalise import normal_form, to_ssa
from zygote_py.tensor.syntax import Index, evaluate, gen, iverson, tsum, var

from .helpers import numeric_gradient, random_inputs, seeds_for

SHAPES = {"x": (7,), "A": (4, 5)}


class Programs:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.names = 0

    def index(self, size: int) -> Index:
        self.names += 1
        return Index(f"i{self.names}", size)

    def read(self, scope: list) -> S.Expr:
        r = self.rng
        if r.random() < 0.5 or not scope:
            small = [i for i in scope if i.size <= 4]
            if small and r.random() < 0.8:
                i = r.choice(small)
                if r.random() < 0.3 and len(small) > 1:
                    j = r.choice([k for k in small if k != i])
                    if i.size + j.size - 1 <= 7:
                        return var("x")[i + j]
                return var("x")[i + r.randint(0, 7 - i.size)]
            return var("x")[r.randint(0, 6)]
        rows = [i for i in scope if i.size <= 4]
        cols = [i for i in scope if i.size <= 5]
        a = r.choice(rows) if rows and r.random() < 0.8 else r.randint(0, 3)
        b = r.choice(cols) if cols and r.random() < 0.8 else r.randint(0, 4)
        a = a + r.randint(0, 4 - a.size) if isinstance(a, Index) else a
        b = b + r.randint(0, 5 - b.size) if isinstance(b, Index) else b
        return var("A")[a, b]

    def bracket(self, scope: list) -> S.Expr:
        r = self.rng
        i = r.choice(scope)
        other = r.choice(scope + [r.randint(0, 3)])
        kind = r.choice([S.eq, S.ne, S.lt, S.le])
        return iverson(kind(i, other))

    def scalar(self, scope: list, depth: int) -> S.Expr:
        r = self.rng
        roll = r.random()
        if depth == 0 or roll < 0.25:
            return self.read(scope)
        if roll < 0.45:
            return self.scalar(scope, depth - 1) * self.scalar(scope, depth - 1)
        if roll < 0.6:
            return self.scalar(scope, depth - 1) + self.scalar(scope, depth - 1)
        if roll < 0.72:
            k = self.index(r.choice([2, 3, 4]))
            return tsum(k, self.scalar(scope + [k], depth - 1))
        if roll < 0.82 and scope:
            return self.bracket(scope) * self.scalar(scope, depth - 1)
        if roll < 0.9:
            return S.call(r.choice(["tanh", "sin"]), self.scalar(scope, depth - 1))
        j = self.index(r.choice([2, 3, 4]))
        name = f"v{self.names}"
        inner = gen(j, self.scalar(scope + [j], depth - 1))
        use = self.index(j.size)
        return S.let(name, inner, tsum(use, var(name)[use] * self.scalar(scope + [use], depth - 1)))

    def program(self) -> S.Expr:
        i = self.index(self.rng.choice([2, 3, 4]))
        return gen(i, self.scalar([i], 3))


PROGRAMS = [Programs(seed).program() for seed in range(200)]


@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_random_program(k):
    e = PROGRAMS[k]
    env = random_inputs(SHAPES, seed=k)
    want = evaluate(e, env)

    nf = normal_form(e, SHAPES)
    ssa = to_ssa(nf, SHAPES)
    for stage in (nf, ssa):
        assert np.allclose(evaluate(stage, env), want)
        assert cost(stage, SHAPES).total <= cost(e, SHAPES).total

    f = compile(e, SHAPES, name=f"p{k}")
    assert np.allclose(f(env["x"], env["A"]), want)
    (seed,) = seeds_for(f.out_shape, seed=k)
    gx, gA = f.vjp([env["x"], env["A"]], seed)
    ref = unpack(evaluate(f.program.expr, {**env, f.program.seeds[0]: seed}), 2)
    assert np.allclose(gx, ref[0]) and np.allclose(gA, ref[1])
    assert np.allclose(gx, numeric_gradient(e, env, seed, "x"), atol=1e-5)
    assert np.allclose(gA, numeric_gradient(e, env, seed, "A"), atol=1e-5)

    c0, c1 = f.costs()
    io = sum(size(s) for s in SHAPES.values()) + size(f.out_shape)
    assert c1.total <= 4 * c0.total + io
