"""NumPy code differentiated end to end: user functions that call NumPy
functions and array methods, index arrays, broadcast, and loop over items,
each gradient checked against central finite differences of the plain
function, element by element."""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import pipeline
from zygote_py.errors import UnsupportedSyntax

RNG = np.random.default_rng(7)
STEP = 1e-6


def numeric_gradient(f, args, i):
    """Central differences of ``f`` along every element of argument ``i``."""
    x = args[i]
    if isinstance(x, float):
        h = STEP * max(1.0, abs(x))
        return (f(*args[:i], x + h, *args[i + 1:]) - f(*args[:i], x - h, *args[i + 1:])) / (2 * h)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        h = STEP * max(1.0, abs(x[idx]))
        hi, lo = x.copy(), x.copy()
        hi[idx] += h
        lo[idx] -= h
        g[idx] = (f(*args[:i], hi, *args[i + 1:]) - f(*args[:i], lo, *args[i + 1:])) / (2 * h)
    return g


def check(f, *args, rtol=1e-5, atol=1e-7):
    value, grads = zpy.value_and_gradient(f, *args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13)
    assert len(grads) == len(args)
    for i, a in enumerate(args):
        if isinstance(a, (float, np.ndarray)) and not isinstance(a, bool):
            expected = numeric_gradient(f, args, i)
            got = grads[i]
            assert got is not None, (f.__name__, i)
            if isinstance(a, np.ndarray):
                assert isinstance(got, np.ndarray) and got.shape == a.shape and got.dtype == a.dtype, (
                    f.__name__, i, type(got), np.shape(got),
                )
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=f"{f.__name__} argument {i}")
    return grads


# -- programs ---------------------------------------------------------------------


def broadcast_mul(x, b):
    return np.sum(x * b)


def broadcast_add_column(x, c):
    return np.sum(np.sin(x + c) * x)


def divide_both_ways(x, y):
    return np.sum(x / y + y / x)


def power_of_array(x):
    return np.sum(x ** 2 + 2.0 ** x)


def scalar_times_vector(a, x):
    return np.sum(a * x + a)


def methods(x):
    return x.sum(axis=0).mean() + x.T.max()


def matmul_operator(W, x, b):
    return np.sum(np.tanh(W @ x + b))


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def sum_axis_keepdims(x):
    s = np.sum(x, axis=1, keepdims=True)
    return np.sum(x / s)


def index_loop(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def index_loop_unrolled_mix(x, w):
    s = 0.0
    for i in range(len(x)):
        s = s + w * x[i] ** 3
    return s + np.sum(x)


def items_of_a_matrix(A):
    return A[0, 1] * A[1, 0] + np.sum(A[:, 0]) + A[-1][-1]


def slices_and_masks(x):
    return np.sum(x[::2]) * np.sum(x[x > 0.0]) + np.sum(x[[0, 0, 2]])


def iterate_rows(A):
    total = 0.0
    for row in A:
        total = total + np.sum(row * row)
    return total


def branch_on_array(x):
    if np.sum(x) > 0:
        return np.sum(np.exp(x))
    return np.sum(x * x)


def while_loop_on_array(x, n):
    while n > 0:
        x = np.sin(x) * 1.5
        n -= 1
    return np.sum(x)


def helper(v):
    return np.sum(v * v)


def calls_a_helper(x):
    return helper(x) + helper(2.0 * x)


def float32_function(x):
    return np.sum(np.exp(x) * x)


PROGRAMS = [
    (broadcast_mul, (RNG.standard_normal((3, 1)), RNG.standard_normal(4))),
    (broadcast_mul, (RNG.standard_normal(4), 2.5)),
    (broadcast_mul, (RNG.standard_normal(()), RNG.standard_normal((2, 3)))),
    (broadcast_add_column, (RNG.standard_normal((3, 4)), RNG.standard_normal((3, 1)))),
    (divide_both_ways, (RNG.uniform(1, 2, (2, 3)), RNG.uniform(1, 2, 3))),
    (power_of_array, (RNG.uniform(0.5, 1.5, 5),)),
    (scalar_times_vector, (1.5, RNG.standard_normal(4))),
    (methods, (RNG.standard_normal((3, 4)),)),
    (matmul_operator, (RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal(3))),
    (logsumexp, (RNG.standard_normal(6),)),
    (sum_axis_keepdims, (RNG.uniform(1, 2, (2, 3)),)),
    (index_loop, (RNG.standard_normal(7),)),
    (index_loop_unrolled_mix, (RNG.standard_normal(5), 0.7)),
    (items_of_a_matrix, (RNG.standard_normal((3, 3)),)),
    (slices_and_masks, (RNG.standard_normal(6),)),
    (iterate_rows, (RNG.standard_normal((3, 2)),)),
    (branch_on_array, (RNG.uniform(0.1, 1, 3),)),
    (branch_on_array, (RNG.uniform(-1, -0.1, 3),)),
    (while_loop_on_array, (RNG.standard_normal(3), 3)),
    (calls_a_helper, (RNG.standard_normal((2, 2)),)),
]


@pytest.mark.parametrize("f, args", PROGRAMS, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(PROGRAMS)])
def test_numpy_program(f, args):
    check(f, *args)


def test_float32_arguments_get_float32_gradients():
    x = RNG.standard_normal(5).astype(np.float32)
    (g,) = zpy.gradient(float32_function, x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.exp(x) * (1 + x), rtol=1e-5)


def test_index_loop_gradient_is_dense_and_exact():
    x = np.linspace(-1, 1, 50)
    (g,) = zpy.gradient(index_loop, x)
    assert type(g) is np.ndarray
    np.testing.assert_allclose(g, 2 * x, rtol=1e-14)


def test_pullback_of_an_array_output():
    x = RNG.standard_normal(4)
    y, back = zpy.pullback(lambda v: np.sin(v) * 2.0, x)
    dy = RNG.standard_normal(4)
    (g,) = back(dy)
    np.testing.assert_allclose(g, dy * 2.0 * np.cos(x))


def test_gradient_needs_a_scalar_output():
    with pytest.raises(zpy.NonScalarOutput, match="scalar"):
        zpy.gradient(lambda x: x * 2.0, np.ones(3))


def test_math_function_of_an_array_item():
    def f(x):
        return math.sin(x[0]) + math.exp(x[1])
    x = np.array([0.3, -0.2])
    (g,) = zpy.gradient(f, x)
    np.testing.assert_allclose(g, [math.cos(0.3), math.exp(-0.2)])


def real_part_of_a_product(z, w):
    return np.real(np.sum(np.exp(z) * w))


def test_complex_arrays_get_the_conjugate_convention():
    """For a real loss of z = x + iy the gradient is dL/dx + i dL/dy: here
    conj(exp(z) * w) for z and conj(exp(z)) for w, checked against finite
    differences along the real and the imaginary parts."""
    z = np.array([1 + 2j, -0.5 + 0.25j])
    w = np.array([0.3 - 1j, 2 + 0.5j])
    gz, gw = zpy.gradient(real_part_of_a_product, z, w)
    np.testing.assert_allclose(gz, np.conj(np.exp(z) * w))
    np.testing.assert_allclose(gw, np.conj(np.exp(z)))
    h = 1e-6
    for k in range(2):
        e = np.zeros(2, complex)
        e[k] = h
        dx = (real_part_of_a_product(z + e, w) - real_part_of_a_product(z - e, w)) / (2 * h)
        dy = (real_part_of_a_product(z + 1j * e, w) - real_part_of_a_product(z - 1j * e, w)) / (2 * h)
        assert abs(gz[k] - (dx + 1j * dy)) < 1e-6


def test_squared_modulus():
    z = np.array([1 + 2j, -0.5 + 0.25j])
    (g,) = zpy.gradient(lambda v: np.sum(np.abs(v) ** 2), z)
    np.testing.assert_allclose(g, 2 * z)


def real_of_a_complex_square(z):
    return (z * z).real


def test_real_part_of_a_python_complex():
    (g,) = zpy.gradient(real_of_a_complex_square, 1 + 2j)
    assert g == 2 - 4j  # d(x² - y²)/dx + i d(x² - y²)/dy at (1, 2)


def trace_in_a_loop(A, n):
    s = 0.0
    for _ in range(n):
        s = s + np.trace(A) + np.sum(np.diagonal(A, 1))
    return s


def test_trace_and_diagonal_gradients_stay_sparse_until_returned():
    """Each use of trace or diagonal adds an O(n) sparse cotangent, made
    dense once; the result is the dense sum."""
    A = RNG.standard_normal((4, 4))
    (g,) = zpy.gradient(trace_in_a_loop, A, 3)[:1]
    assert type(g) is np.ndarray
    np.testing.assert_allclose(g, 3 * (np.eye(4) + np.eye(4, k=1)))
    check(trace_in_a_loop, A, 2)


def items_and_whole_array(x):
    y = x * 2.0
    s = 0.0
    for i in range(len(y)):
        s = s + y[i] * x[i]
    return s + np.sum(y * y)


def items_in_branches_and_nested_loops(x, w):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + x[i] * w[i]
        else:
            for j in range(i):
                s = s + x[j] * x[i]
    return s


def items_with_early_exit(x):
    s = 1.0
    for i in range(len(x)):
        s = s * x[i]
        if s > 10.0:
            break
    return s + x[0]


def items_and_a_whole_array_read_each_iteration(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * np.sum(x)
    return s


def items_of_a_matrix_in_nested_loops(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * A[j, i]
    return s


def items_of_an_intermediate_array(x):
    y = np.tanh(x)
    s = 0.0
    for i in range(len(y)):
        s += y[i] ** 2
    return s + np.sum(y)


ITEM_PROGRAMS = [
    (items_and_a_whole_array_read_each_iteration, (RNG.standard_normal(5),)),
    (items_of_a_matrix_in_nested_loops, (RNG.standard_normal((3, 3)),)),
    (items_of_an_intermediate_array, (RNG.standard_normal(5),)),
    (items_and_whole_array, (RNG.standard_normal(5),)),
    (items_in_branches_and_nested_loops, (RNG.standard_normal(6), RNG.standard_normal(6))),
    (items_with_early_exit, (RNG.uniform(1.5, 3.0, 6),)),
    (items_with_early_exit, (RNG.uniform(0.1, 0.9, 6),)),
]


@pytest.mark.parametrize("f, args", ITEM_PROGRAMS, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(ITEM_PROGRAMS)])
def test_item_gradients_updated_in_place(f, args):
    check(f, *args)


def test_pullback_called_twice_gives_the_same_item_gradients():
    x = RNG.standard_normal(5)
    _, back = zpy.pullback(index_loop, x)
    first = back(1.0)[0].copy()
    np.testing.assert_array_equal(back(1.0)[0], first)
    np.testing.assert_allclose(first, 2 * x)


def test_an_accumulator_another_name_holds_is_not_updated_in_place():
    from zygote_py import runtime

    x = np.zeros(4)
    g = runtime.add_to(0, x, 1, 2.0)
    h = g  # a second reference: add_to must not change what h sees
    g2 = runtime.add_to(g, x, 2, 3.0)
    np.testing.assert_array_equal(np.asarray(h), [0.0, 2.0, 0.0, 0.0])
    np.testing.assert_array_equal(np.asarray(g2), [0.0, 2.0, 3.0, 0.0])
    del h
    g3 = runtime.add_to(g2, x, 0, 1.0)  # g2 is a scatter over g: still not changed in place
    np.testing.assert_array_equal(np.asarray(g2), [0.0, 2.0, 3.0, 0.0])
    np.testing.assert_array_equal(np.asarray(g3), [1.0, 2.0, 3.0, 0.0])


def chained_methods(x, w):
    return x.sum(axis=0).mean() + x.reshape(6, 2).dot(w).sum() + x.T.clip(-0.5, 0.5).var(ddof=1)


def test_chained_array_methods():
    x = RNG.standard_normal((3, 4))
    check(chained_methods, x, RNG.standard_normal(2))


def test_array_methods_are_inlined_not_called_at_run_time():
    d = zpy.differentiable(methods)
    d.gradient(RNG.standard_normal((3, 4)))
    assert "runtime.J" not in d.source


def unwrapped(x):
    return np.sum(np.unwrap(x))


@pytest.mark.parametrize("f, message", [
    (unwrapped, "no derivative rule for 'np.unwrap'"),
])
def test_what_cannot_be_differentiated_yet_says_so(f, message):
    with pytest.raises(zpy.NoDerivativeRule, match=message) as info:
        zpy.gradient(f, np.array([1.0, 2.0, 3.0]))
    assert info.value.function == f.__name__ and info.value.line is not None


def test_numpy_scalars_get_numpy_scalar_gradients():
    def f(a, b):
        return np.sin(a) * b
    ga, gb = zpy.gradient(f, np.float64(0.5), np.float32(2.0))
    assert type(ga) is np.float64 and type(gb) is np.float32
    np.testing.assert_allclose([ga, gb], [np.cos(0.5) * 2.0, np.sin(0.5)], rtol=1e-6)


def two_outputs(x):
    m, e = np.frexp(x)
    q, r = np.divmod(x, 0.7)
    return np.sum(m * r) + np.median(x) + np.average(x, weights=x * x)


def test_functions_with_two_outputs_unpack():
    check(two_outputs, np.array([0.3, 1.9, 2.6, 5.2, 0.45]))




@pytest.mark.parametrize("value, real", [
    ("complex128", False), ("c16", False), (np.complex64, False), (1j, False),
    ("float32", True), ("conjugate", True), ("ij,jk->ik", True), (1.5, True), ((0, slice(1, 2)), True),
])
def test_constants_that_name_a_complex_dtype_are_not_real(value, real):
    """Analysis drops conjugates only for values it knows are real; a
    complex dtype given by name is an operand that makes them complex."""
    from zygote_py.ad.analysis import real_constant

    assert real_constant(value) is real


def clip_sum(a):
    return np.sum(np.clip(a, -1.0, 1.0))


def test_compiled_clip_shares_the_gradient_at_ties():
    """The compiled rule keeps ``1 * mask`` a number: ``a`` equal to a bound
    shares its gradient with the bound (the simplifier once made the
    boolean mask's ``1 * x`` the mask itself)."""
    a = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    (g,) = zpy.gradient(clip_sum, a)
    np.testing.assert_array_equal(g, [0.0, 0.5, 1.0, 0.5, 0.0])


def slice_bound_from_a_shape(W):
    n = W.shape[0] - 1
    return np.sum(W[:n] ** 2)


def test_a_slice_whose_bound_comes_from_a_shape():
    check(slice_bound_from_a_shape, RNG.standard_normal((3, 2)))


def array_unused_on_the_path_taken(a):
    u = np.array([a, 1.0])
    if a > 5.0:
        return np.sum(u)
    return a * 2.0


def test_an_array_built_but_unused_on_the_path_taken():
    """Its gradient is the number 0 there, which np.array's rule spreads
    over the items (it once indexed it)."""
    assert zpy.gradient(array_unused_on_the_path_taken, 0.5) == (2.0,)
    check(array_unused_on_the_path_taken, 6.0)


def scalar_method_at_run_time(x, name):
    m = np.sum(x * x)  # a NumPy scalar
    return getattr(m, name)(*(() if name != "clip" else (0.0, 10.0)))  # its method, known only at run time


@pytest.mark.parametrize("name", ["conjugate", "sum", "clip"])
def test_a_numpy_scalars_method_called_at_run_time(name):
    x = np.array([0.3, -0.4, 0.5])
    g = zpy.gradient(scalar_method_at_run_time, x, name)[0]
    h = 1e-6
    slopes = [(scalar_method_at_run_time(x + h * e, name) - scalar_method_at_run_time(x - h * e, name)) / (2 * h)
              for e in np.eye(3)]
    np.testing.assert_allclose(g, slopes, rtol=1e-6)


def summed_exponentials(x):
    rows = np.sum(np.exp(x), axis=1, keepdims=True)
    return np.sum(np.exp(x)) + np.sum(rows * rows) + np.sum(np.sqrt(x * x + 1.0))


def summed_product_of_a_row(x, r):
    return np.sum(x * r)  # (the sum's gradient times r, of another shape than x * r: not fused)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_sums_gradient_is_fused_into_the_product_that_scales_it(dtype):
    # (the gradient of sum(exp(x)) is dy * exp(x), one array, not a filled array times exp(x); that of
    # sum(sqrt(v)) dy / (2 * sqrt(v)); that of a row sum kept as a column, the column times exp(x))
    x = RNG.standard_normal((3, 4)).astype(dtype)
    (g,) = zpy.gradient(summed_exponentials, x)
    source = pipeline.compiled(summed_exponentials, *pipeline.masks(summed_exponentials, (x,), {}), False) \
        .gradient_source
    assert "spread" not in source and "full_like" not in source
    assert g.dtype == dtype
    e = np.exp(x.astype(np.float64))
    x64 = x.astype(np.float64)
    expected = e + 2 * e.sum(axis=1, keepdims=True) * e + x64 / np.sqrt(x64 * x64 + 1.0)
    np.testing.assert_allclose(g, expected, rtol=1e-5 if dtype == np.float32 else 1e-13)
    if dtype == np.float64:
        check(summed_exponentials, x)


def test_a_sums_gradient_times_a_smaller_operand_is_not_fused():
    x, r = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    check(summed_product_of_a_row, x, r)
    source = pipeline.compiled(summed_product_of_a_row, *pipeline.masks(summed_product_of_a_row, (x, r), {}),
                               False).gradient_source
    assert "spread" in source
    _, (gx, gr) = zpy.value_and_gradient(summed_product_of_a_row, x, r)
    np.testing.assert_allclose(gr, x.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(gx, np.broadcast_to(r, x.shape), rtol=1e-13)


def square_after_another_use(x):
    z = np.sin(x)
    q = z * z
    return np.sum(q + 3.0 * z)  # (z's gradient: 3 dy, then dy * z twice, in a running sum)


def test_a_square_adds_its_two_equal_gradients_as_one():
    x = RNG.standard_normal(5)
    check(square_after_another_use, x)
    (g,) = zpy.gradient(square_after_another_use, x)
    np.testing.assert_allclose(g, (3.0 + 2 * np.sin(x)) * np.cos(x), rtol=1e-14)
    source = pipeline.compiled(square_after_another_use, *pipeline.masks(square_after_another_use, (x,), {}),
                               False).gradient_source
    assert source.count("* z, z)") == 1 and "dz = dz + 2 * " in source, source
    h = zpy.hessian(square_after_another_use, x)  # (the gradient code, differentiated again)
    expected = np.diag(2 * np.cos(x) ** 2 - (3.0 + 2 * np.sin(x)) * np.sin(x))
    np.testing.assert_allclose(h, expected, rtol=1e-12, atol=1e-12)
