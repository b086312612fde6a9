"""The normalisation passes (paper §5): each keeps the value, reaches its
normal form, and does not increase the cost."""
import numpy as np
import pytest

from zygote_py.tensor import Index, evaluate, exp, fst, gen, let, pair, snd, tsum, var
from zygote_py.tensor import examples as X
from zygote_py.tensor import syntax as S
from zygote_py.tensor.cost import cost
from zygote_py.tensor.normalise import (
    bindings_of, canonical, dead_code, eliminate_pairs, let_lift, normal_form, push_out_gens, to_ssa, uniquify,
)

from .helpers import random_inputs

i, j, k = Index("i", 3), Index("j", 4), Index("k", 2)
x, A, v, p = var("x"), var("A"), var("v"), var("p")
SHAPES = {"x": (4,), "A": (3, 4)}

NESTED = tsum(i, let("v", gen(j, exp(x[j]) * A[i, j]), tsum(j, v[j]) * A[i, 0]))
PAIRED = let("p", pair(gen(j, x[j] * x[j]), tsum(j, x[j])), gen(j, fst(p)[j] * snd(p)))
SHADOWED = let("v", gen(j, x[j]), let("v", gen(j, v[j] * v[j]), tsum(j, v[j])))


def _no_lets_below_top(e):
    bindings, result = bindings_of(e)
    for _, rhs in bindings + [("", result)]:
        assert not _has(rhs, S.Let)


def _has(e, kind):
    return isinstance(e, kind) or any(_has(c, kind) for c in S.children(e))


@pytest.mark.parametrize("e", [NESTED, PAIRED, SHADOWED], ids=["nested", "paired", "shadowed"])
def test_let_lift_keeps_value_and_lifts_every_let(e):
    env = random_inputs(SHAPES)
    lifted = let_lift(uniquify(e), SHAPES)
    _no_lets_below_top(lifted)
    assert np.allclose(evaluate(lifted, env), evaluate(e, env))
    assert cost(lifted, SHAPES).total <= cost(e, SHAPES).total


def test_let_under_a_sum_is_generalised_over_its_index():
    lifted = let_lift(uniquify(NESTED), SHAPES)
    (name, rhs), = bindings_of(lifted)[0]
    assert isinstance(rhs, S.Gen) and rhs.idx == i  # v now holds one row per i


def test_uniquify_renames_shadowing_bindings():
    e = uniquify(SHADOWED)
    names = [n for n, _ in bindings_of(e)[0]]
    assert len(set(names)) == 2
    assert np.isclose(evaluate(e, random_inputs(SHAPES)), evaluate(SHADOWED, random_inputs(SHAPES)))


def test_pair_elimination_leaves_no_pair_intermediates():
    e = eliminate_pairs(let_lift(uniquify(PAIRED), SHAPES), SHAPES)
    env = random_inputs(SHAPES)
    for _, rhs in bindings_of(e)[0]:
        assert not _has(rhs, S.Pair) and not _has(rhs, S.Proj)
    assert np.allclose(evaluate(e, env), evaluate(PAIRED, env))


def test_gen_push_out():
    read = gen(j, x[j] * x[j])[1]
    assert push_out_gens(read) == x[1] * x[1]
    summed = tsum(i, gen(j, A[i, j]))
    pushed = push_out_gens(summed)
    assert isinstance(pushed, S.Gen) and isinstance(pushed.body, S.Sum)
    env = random_inputs(SHAPES)
    assert np.allclose(evaluate(pushed, env), evaluate(summed, env))


@pytest.mark.parametrize("example", [X.deconvolution_loss(5, 2), X.tanh_layer(3, 4), (NESTED, SHAPES)])
def test_tensor_ssa_keeps_value_and_cost(example):
    e, shapes = example
    env = random_inputs(shapes)
    ssa = to_ssa(normal_form(e, shapes), shapes)
    assert np.allclose(evaluate(ssa, env), evaluate(e, env))
    assert cost(ssa, shapes).total <= cost(e, shapes).total
    for _, rhs in bindings_of(ssa)[0]:
        while isinstance(rhs, S.Gen):
            rhs = rhs.body
        while isinstance(rhs, S.Sum):
            rhs = rhs.body
        # Below the outer gens and sums: no further sums, calls only on reads.
        assert not _has(rhs, S.Sum) and not _has(rhs, S.Gen)
        for c in _calls(rhs):
            assert isinstance(c.arg, (S.Access, S.Var))


def _calls(e):
    return ([e] if isinstance(e, S.Call) else []) + [c for ch in S.children(e) for c in _calls(ch)]


def test_ssa_shares_structurally_equal_right_hand_sides():
    j2 = Index("j2", 4)
    e = gen(i, exp(tsum(j, A[i, j] * x[j])) * tsum(j, x[j] * A[i, j]) + exp(tsum(j2, A[i, j2] * x[j2])))
    ssa = to_ssa(normal_form(e, SHAPES), SHAPES)
    rhss = [rhs for _, rhs in bindings_of(ssa)[0]]
    assert sum(1 for r in rhss if _has(r, S.Sum)) == 1  # the three dot products are one binding
    assert sum(1 for r in rhss if _calls(r)) == 1  # and the two exps another
    env = random_inputs(SHAPES)
    assert np.allclose(evaluate(ssa, env), evaluate(e, env))
    assert canonical(gen(j, x[j])) == canonical(gen(j2, x[j2]))


def test_dead_code():
    e = let("a", gen(j, x[j]), let("b", gen(j, exp(x[j])), tsum(j, var("a")[j])))
    assert [n for n, _ in bindings_of(dead_code(e))[0]] == ["a"]


def test_let_lift_carries_brackets_into_lifted_bindings():
    from zygote_py.tensor import iverson, lt

    n = Index("n", 6)
    guarded = gen(n, iverson(lt(n, 2)) * let("u", exp(x[n]), var("u") * var("u")))
    shapes = {"x": (6,)}
    lifted = let_lift(uniquify(guarded), shapes)
    env = random_inputs(shapes)
    assert np.allclose(evaluate(lifted, env), evaluate(guarded, env))
    # exp is computed for the two entries the bracket keeps, as before lifting.
    assert cost(lifted, shapes) == cost(guarded, shapes)
    assert cost(lifted, shapes).call == 2


def test_the_verifier_rejects_a_let_inside_a_right_hand_side():
    from zygote_py.tensor import TensorLanguageError
    from zygote_py.tensor.normalise import verify_normal_form

    bad = let("a", gen(j, let("b", x[j], var("b"))), tsum(j, var("a")[j]))
    with pytest.raises(TensorLanguageError, match="normal form violated"):
        verify_normal_form(bad, SHAPES)
    verify_normal_form(normal_form(bad, SHAPES), SHAPES)
