"""Forward and adjoint derivatives (paper §6), each checked against central
finite differences on the reference evaluator, and the shapes the
simplification promises (§2)."""
import numpy as np
import pytest

from zygote_py.tensor import Index, evaluate, exp, gen, let, pair, tanh, tsum, var
from zygote_py.tensor import examples as X
from zygote_py.tensor.derive import adjoint, forward, unpack
from zygote_py.tensor.printer import show, show_block
from zygote_py.tensor.syntax import shape_of

from .helpers import flat, numeric_gradient, numeric_jvp, random_inputs, seeds_for

EXAMPLES = {
    "convolution": X.convolution(7, 3),
    "deconvolution_loss": X.deconvolution_loss(7, 3),
    "trace": X.trace(4),
    "matvec": X.matvec(3, 4),
    "matmul": X.matmul(2, 3, 4),
    "skip_one": X.skip_one(5, 2),
    "first_col_times_first_row": X.first_col_times_first_row(3),
    "tanh_layer": X.tanh_layer(3, 4),
    "diagonal": X.diagonal(3),
    "prefix_sum": X.prefix_sum(5),
    "strided_reads": X.strided_reads(3),
    "convolution_2d": X.convolution_2d(3, 2),
    "pairwise_tanh": X.pairwise_tanh(4),
}


def _nested():
    i, j = Index("i", 3), Index("j", 2)
    x, v = var("x"), var("v")
    body = let("v", gen(j, exp(x[i] * x[j])), tsum(j, v[j] * x[i]))
    return tsum(i, body * body), {"x": (3,)}


EXAMPLES["lets_under_sums"] = _nested()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_forward_matches_finite_differences(name):
    e, shapes = EXAMPLES[name]
    env = random_inputs(shapes)
    tangents = random_inputs(shapes, seed=7)
    d = forward(e, list(shapes))
    got = flat(evaluate(d, {**env, **{"d" + k: v for k, v in tangents.items()}}))
    assert np.allclose(got, numeric_jvp(e, env, tangents), atol=1e-6)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_adjoint_matches_finite_differences(name):
    e, shapes = EXAMPLES[name]
    env = random_inputs(shapes)
    out_shape = shape_of(e, shapes)
    seeds = seeds_for(out_shape)
    p = adjoint(e, shapes)
    grads = unpack(evaluate(p.expr, {**env, **dict(zip(p.seeds, seeds))}), len(p.inputs))
    seed = np.concatenate([np.ravel(s) for s in seeds])
    for x, g in zip(p.inputs, grads):
        assert np.allclose(g, numeric_gradient(e, env, seed, x), atol=1e-5), x


def test_adjoint_of_convolution_is_a_correlation():
    e, shapes = X.convolution(8, 3)
    p = adjoint(e, shapes, ["x"])
    # No summation over the output index survives: a gather of dout, guarded
    # by its range, summed over the kernel only.
    assert show(p.expr) == "gen m:10. sum k1:3. [k1 < m + 1 and m < k1 + 8] * w[k1] * dout[m - k1]"


def test_adjoint_of_trace_is_an_iverson_diagonal():
    e, shapes = X.trace(5)
    assert show(adjoint(e, shapes).expr) == "gen m:5. gen m1:5. [m == m1] * dout"


def test_adjoint_of_sum_skipping_one_entry_is_a_bracket():
    e, shapes = X.skip_one(6, 2)
    assert show(adjoint(e, shapes).expr) == "gen m:6. [m != 2] * dout"


def test_first_col_times_first_row_adjoint_is_guarded_not_dense():
    e, shapes = X.first_col_times_first_row(4)
    text = show(adjoint(e, shapes).expr)
    # dA[m, n] = [n == 0] * sum_j A[0, j] dout[m, j] + [m == 0] * sum_i A[i, 0] dout[i, n]:
    # each summation sits behind its bracket, so it runs for one row or column only.
    assert text == ("gen m:4. gen m1:4. [m1 == 0] * (sum j:4. A[0, j] * dout[m, j])"
                    " + [m == 0] * (sum i:4. A[i, 0] * dout[i, m1])")


def test_adjoint_names_intermediates_and_drops_dead_code():
    i = Index("i", 4)
    x = var("x")
    e = let("unused", gen(i, exp(x[i])), let("v", gen(i, tanh(x[i])), tsum(i, var("v")[i])))
    text = show_block(adjoint(e, {"x": (4,)}).expr)
    assert "unused" not in text and "exp" not in text


def test_adjoint_with_respect_to_some_inputs():
    e, shapes = X.convolution(5, 2)
    p = adjoint(e, shapes, ["w"])
    assert p.inputs == ("w",)
    assert shape_of(p.expr, {**shapes, "dout": (5,)}) == (2,)


def _pair_output():
    i = Index("i", 4)
    x = var("x")
    return pair(gen(i, x[i] * x[i]), tsum(i, exp(x[i]))), {"x": (4,)}


def _identity_twice():
    x = var("x")
    return pair(x, x), {"x": (3,)}


@pytest.mark.parametrize("example", [_pair_output(), _identity_twice()], ids=["pair", "identity_twice"])
def test_adjoint_of_pair_outputs(example):
    e, shapes = example
    env = random_inputs(shapes)
    seeds = seeds_for(shape_of(e, shapes))
    p = adjoint(e, shapes)
    assert len(p.seeds) == 2
    (g,) = unpack(evaluate(p.expr, {**env, **dict(zip(p.seeds, seeds))}), 1)
    seed = np.concatenate([np.ravel(s) for s in seeds])
    assert np.allclose(g, numeric_gradient(e, env, seed, "x"), atol=1e-5)
