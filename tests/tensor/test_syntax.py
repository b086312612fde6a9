"""The language and its reference evaluator (paper §4)."""
import numpy as np
import pytest

from zygote_py.tensor import (
    Index, TensorLanguageError, eq, evaluate, exp, fst, gen, iverson, le, let, lt, ne, pair, shape_of, snd, tsum,
    var,
)
from zygote_py.tensor.printer import show


def test_gen_sum_access_evaluate_like_numpy():
    i, j = Index("i", 3), Index("j", 4)
    A, x = var("A"), var("x")
    a, v = np.arange(12.0).reshape(3, 4), np.arange(4.0)
    assert np.allclose(evaluate(gen(i, tsum(j, A[i, j] * x[j])), {"A": a, "x": v}), a @ v)
    assert np.allclose(evaluate(gen((j, i), A[i, j]), {"A": a}), a.T)


def test_affine_access_is_a_correlation():
    i, k = Index("i", 5), Index("k", 3)
    x, w = np.arange(7.0), np.array([1.0, -2.0, 0.5])
    y = evaluate(gen(i, tsum(k, var("w")[k] * var("x")[i + k])), {"x": x, "w": w})
    assert np.allclose(y, np.correlate(x, w, "valid"))


def test_iverson_brackets_of_affine_predicates():
    i, j = Index("i", 4), Index("j", 4)
    assert np.array_equal(evaluate(gen((i, j), iverson(eq(i, j))), {}), np.eye(4))
    assert np.array_equal(evaluate(gen((i, j), iverson(lt(i, j))), {}), np.triu(np.ones((4, 4)), 1))
    both = evaluate(gen((i, j), iverson(le(i, j), ne(i + 1, j))), {})
    assert both[0, 1] == 0 and both[0, 2] == 1 and both[1, 0] == 0


def test_bracket_short_circuits_out_of_range_reads():
    i = Index("i", 4)
    x = var("x")
    guarded = gen(i, iverson(lt(i, 3)) * x[i + 1])
    assert np.allclose(evaluate(guarded, {"x": np.arange(4.0)}), [1, 2, 3, 0])
    with pytest.raises(TensorLanguageError, match="out of range"):
        evaluate(gen(i, x[i + 1]), {"x": np.arange(4.0)})


def test_let_pairs_and_black_box_functions():
    i = Index("i", 3)
    x = var("x")
    e = let("p", pair(gen(i, exp(x[i])), tsum(i, x[i])), gen(i, fst(var("p"))[i] * snd(var("p"))))
    v = np.array([0.1, 0.2, 0.3])
    assert np.allclose(evaluate(e, {"x": v}), np.exp(v) * v.sum())
    assert shape_of(e, {"x": (3,)}) == (3,)


def test_types_catch_mistakes():
    i = Index("i", 3)
    with pytest.raises(TensorLanguageError, match="scalar operations"):
        shape_of(var("x") + var("x"), {"x": (3,)})
    with pytest.raises(TensorLanguageError, match="name every axis"):
        shape_of(gen(i, var("A")[i]), {"A": (3, 3)})
    with pytest.raises(TensorLanguageError, match="unbound"):
        evaluate(var("y"), {})


def test_printer_uses_the_papers_notation():
    i, k = Index("i", 5), Index("k", 3)
    assert show(gen(i, tsum(k, var("w")[k] * var("x")[i + k]))) == "gen i:5. sum k:3. w[k] * x[i + k]"
    assert show(iverson(eq(i, k))) == "[i == k]"
