"""The cost model (paper §4.3) and the cheap-gradient bounds (Theorems 6.1
and 6.55) on the paper's examples."""
import pytest

from zygote_py.tensor import Index, eq, exp, gen, iverson, lt, tsum, var
from zygote_py.tensor import examples as X
from zygote_py.tensor.cost import Cost, cost, size
from zygote_py.tensor.derive import adjoint, forward
from zygote_py.tensor.syntax import shape_of


def test_counts_of_dense_examples():
    assert cost(*X.trace(6)) == Cost(add=5)
    assert cost(*X.matvec(4, 5)) == Cost(add=4 * 4, mul=4 * 5)
    assert cost(*X.matmul(2, 3, 4)) == Cost(add=2 * 4 * 2, mul=2 * 3 * 4)
    assert cost(*X.convolution(10, 3)) == Cost(add=10 * 2, mul=10 * 3)
    assert cost(*X.first_col_times_first_row(5)) == Cost(mul=25)


def test_brackets_short_circuit_and_cost_no_multiplication():
    i = Index("i", 6)
    x = var("x")
    assert cost(gen(i, iverson(lt(i, 2)) * exp(x[i])), {"x": (6,)}) == Cost(call=2)
    assert cost(*X.skip_one(6, 2)) == Cost(add=4)


def test_one_point_summation_is_free():
    i, j = Index("i", 5), Index("j", 5)
    e = gen(i, tsum(j, iverson(eq(i, j)) * var("x")[j]))
    assert cost(e, {"x": (5,)}) == Cost()


def test_adding_a_structural_zero_is_free():
    i = Index("i", 4)
    x = var("x")
    e = gen(i, iverson(lt(i, 2)) * x[i] + iverson(lt(1, i)) * x[i])
    assert cost(e, {"x": (4,)}) == Cost()


BOUND = 4
"""Adjoint bound checked: cost(adjoint) <= BOUND * cost(e) + |inputs| + |output|.
The paper's Theorem 6.55 bounds the adjoint by a constant times the
input-output-sensitive cost cost(e) + |X| + |Y|; the adjoint program here also
recomputes the intermediates it reads, within the same constant."""

FORWARD_BOUND = 5
"""cost(D e) <= 5 * cost(e): the primal (1) plus Leibniz's 2 multiplications
and 1 addition per multiplication (Theorem 6.1's 3), and up to 4 operations
for the derivative of a black-box call."""

SIZES = {
    "convolution": lambda s: X.convolution(4 * s, 3),
    "deconvolution_loss": lambda s: X.deconvolution_loss(4 * s, 3),
    "trace": lambda s: X.trace(2 * s),
    "matvec": lambda s: X.matvec(s, s + 1),
    "matmul": lambda s: X.matmul(s, s, s),
    "skip_one": lambda s: X.skip_one(3 * s, 1),
    "first_col_times_first_row": lambda s: X.first_col_times_first_row(2 * s),
    "tanh_layer": lambda s: X.tanh_layer(s, s + 2),
    "prefix_sum": lambda s: X.prefix_sum(2 * s),
    "strided_reads": lambda s: X.strided_reads(2 * s),
    "convolution_2d": lambda s: X.convolution_2d(s, 2),
    "pairwise_tanh": lambda s: X.pairwise_tanh(s + 1),
}


@pytest.mark.parametrize("name", sorted(SIZES))
@pytest.mark.parametrize("scale", [2, 5])
def test_adjoint_cost_is_within_the_bound(name, scale):
    e, shapes = SIZES[name](scale)
    out = shape_of(e, shapes)
    p = adjoint(e, shapes)
    c_adj = cost(p.expr, {**shapes, p.seeds[0]: out}).total
    io = sum(size(s) for s in shapes.values()) + size(out)
    assert c_adj <= BOUND * cost(e, shapes).total + io


@pytest.mark.parametrize("name", sorted(SIZES))
def test_forward_cost_is_within_the_bound(name):
    e, shapes = SIZES[name](3)
    d = forward(e, list(shapes))
    c = cost(d, {**shapes, **{"d" + k: s for k, s in shapes.items()}}).total
    assert c <= FORWARD_BOUND * cost(e, shapes).total


def test_first_col_times_first_row_gradient_stays_quadratic():
    # The introduction's example: a dense adjoint would be cubic.
    costs = []
    for n in (4, 8, 16):
        e, shapes = X.first_col_times_first_row(n)
        p = adjoint(e, shapes)
        costs.append(cost(p.expr, {**shapes, "dout": (n, n)}).total / n**2)
    assert max(costs) < 4.0
