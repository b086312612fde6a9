"""NumPy code generation and the connection to zpy.gradient: generated code
agrees with the reference evaluator, uses gathers (windows) and einsum,
never scatters, and zpy.gradient differentiates through a compiled
expression."""
import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.tensor import examples as X
from zygote_py.tensor.compiled import compile
from zygote_py.tensor.derive import unpack
from zygote_py.tensor.numpy_gen import window
from zygote_py.tensor.syntax import evaluate

from .helpers import random_inputs, seeds_for

EXAMPLES = {
    "convolution": X.convolution(9, 4),
    "deconvolution_loss": X.deconvolution_loss(9, 4),
    "trace": X.trace(5),
    "matvec": X.matvec(4, 5),
    "matmul": X.matmul(3, 4, 5),
    "skip_one": X.skip_one(6, 0),
    "first_col_times_first_row": X.first_col_times_first_row(4),
    "tanh_layer": X.tanh_layer(3, 4),
    "diagonal": X.diagonal(4),
    "prefix_sum": X.prefix_sum(6),
    "strided_reads": X.strided_reads(4),
    "convolution_2d": X.convolution_2d(4, 3),
    "pairwise_tanh": X.pairwise_tanh(5),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_generated_forward_and_adjoint_agree_with_the_evaluator(name):
    e, shapes = EXAMPLES[name]
    f = compile(e, shapes, name=name)
    env = random_inputs(shapes)
    args = [env[p] for p in f.params]
    assert np.allclose(f(*args), evaluate(e, env))
    seeds = seeds_for(f.out_shape)
    want = unpack(evaluate(f.program.expr, {**env, **dict(zip(f.program.seeds, seeds))}), len(f.program.inputs))
    got = f.vjp(args, seeds[0])
    for g, w in zip(got, want):
        assert np.allclose(g, w)


def test_convolution_adjoint_is_a_windowed_einsum_without_scatter():
    f = compile(*X.convolution(9, 4), name="conv", wrt=["x"])
    src = f.adjoint_source
    assert "window(dout" in src and "np.einsum" in src
    assert "add.at" not in src and "for " not in src


def test_window_reads_zeros_outside_the_array():
    x = np.arange(5.0)
    w = window(x, (0,), ((1, -1),), (5, 3))  # w[m, k] = x[m - k]
    for m in range(5):
        for k in range(3):
            assert w[m, k] == (x[m - k] if m - k >= 0 else 0.0)


def test_zpy_gradient_through_a_compiled_tensor_function():
    conv = compile(*X.convolution(6, 3), name="conv")

    def loss(x, w, b):
        y = conv(x, w)
        return float(np.sum(np.tanh(y - b) ** 2))

    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(8), rng.standard_normal(3), rng.standard_normal(6)
    gx, gw, gb = zpy.gradient(loss, x, w, b)
    eps = 1e-6
    for val, g, which in ((x, gx, 0), (w, gw, 1)):
        for pos in range(val.size):
            d = np.zeros(val.size)
            d[pos] = eps
            args_p = [x, w, b]
            args_m = [x, w, b]
            args_p[which] = val + d
            args_m[which] = val - d
            assert np.isclose(g[pos], (loss(*args_p) - loss(*args_m)) / (2 * eps), atol=1e-6)


def test_argument_shapes_are_checked():
    f = compile(*X.matvec(2, 3))
    with pytest.raises(Exception, match="shape"):
        f(np.zeros((3, 2)), np.zeros(3))


@pytest.mark.parametrize("name", ["deconvolution_loss", "tanh_layer", "first_col_times_first_row", "matmul"])
def test_generated_forward_mode_agrees_with_the_evaluator(name):
    from zygote_py.tensor.derive import forward

    e, shapes = EXAMPLES[name]
    f = compile(e, shapes, name=name)
    env = random_inputs(shapes)
    tangents = random_inputs(shapes, seed=3)
    got = f.jvp([env[p] for p in f.params], [tangents[p] for p in f.params])
    want = evaluate(forward(e, list(shapes)), {**env, **{"d" + k: v for k, v in tangents.items()}})
    assert np.allclose(got, want)


def test_constant_and_shifted_reads_are_slices():
    f = compile(*X.first_col_times_first_row(4), name="colrow")
    assert "A[:, 0]" in f.source and "A[0, :]" in f.source
    assert "window" not in f.adjoint_source


def test_trace_adjoint_is_a_mask_not_a_product():
    f = compile(*X.trace(4), name="trace")
    assert "einsum" not in f.adjoint_source and "==" in f.adjoint_source
    assert np.array_equal(f.vjp([np.zeros((4, 4))], 2.0)[0], 2.0 * np.eye(4))


def test_pair_output_vjp_and_zpy_gradient():
    from zygote_py.tensor import Index, exp, gen, pair, tsum, var

    i = Index("i", 4)
    x = var("x")
    f = compile(pair(gen(i, x[i] * x[i]), tsum(i, exp(x[i]))), {"x": (4,)}, name="both")
    v = np.array([0.1, -0.2, 0.3, 0.5])
    sq, total = f(v)
    assert np.allclose(sq, v * v) and np.isclose(total, np.exp(v).sum())
    (g,) = f.vjp([v], (np.ones(4), 2.0))
    assert np.allclose(g, 2 * v + 2 * np.exp(v))

    def loss(v):
        a, b = f(v)
        return float(np.sum(a)) + 2.0 * b

    assert np.allclose(zpy.gradient(loss, v)[0], 2 * v + 2 * np.exp(v))


def test_window_of_a_transposed_array():
    v = np.arange(12.0).reshape(4, 3).T  # not C-contiguous
    w = window(v, (-1, 0), ((1, 0), (0, 1)), (4, 4))  # w[m, j] = v[m - 1, j]
    assert np.array_equal(w[0], np.zeros(4)) and np.array_equal(w[1:], v)


def test_zpy_jvp_through_a_compiled_tensor_function():
    conv = compile(*X.convolution(6, 3), name="conv")
    rng = np.random.default_rng(1)
    x, w, dx, dw = rng.standard_normal(8), rng.standard_normal(3), rng.standard_normal(8), rng.standard_normal(3)
    y, dy = zpy.jvp(conv, (x, w), (dx, dw))
    assert np.allclose(y, conv(x, w))
    assert np.allclose(dy, conv.jvp((x, w), (dx, dw)))
