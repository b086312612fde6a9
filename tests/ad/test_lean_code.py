"""What the emitted gradient of array code leaves out when the compiler
knows enough: run-time dispatch (``runtime.J``) for rows and slices of
arrays, conjugates of real values, guards for a zero gradient that cannot
arrive, and the dense zeros of each slice's gradient when the slices'
gradients fill the whole array. Each gradient is checked against central
differences, and each property against the emitted source (or the
run-time value), so that each test fails when the property is lost."""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import runtime

from .test_numpy import check, numeric_gradient

RNG = np.random.default_rng(5)
X = RNG.standard_normal((4, 3, 5))  # a sequence of 4 batches: a global constant
H = 2


def gates(W, U, b):
    h = np.zeros((3, H))
    c = np.zeros((3, H))
    for t in range(len(X)):
        z = X[t] @ W + h @ U + b
        i = 1.0 / (1.0 + np.exp(-z[:, :H]))
        f = 1.0 / (1.0 + np.exp(-z[:, H:2 * H]))
        o = 1.0 / (1.0 + np.exp(-z[:, 2 * H:3 * H]))
        g = np.tanh(z[:, 3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h ** 2)


ARGS = (RNG.standard_normal((5, 4 * H)) * 0.5, RNG.standard_normal((H, 4 * H)) * 0.5, RNG.standard_normal(4 * H) * 0.1)


def _source(f, *args):
    d = zpy.differentiable(f)
    d.gradient(*args)
    return d.source


def test_gates_gradient():
    check(gates, *ARGS)


def test_rows_and_slices_of_arrays_are_inlined():
    # X[t] of a 3-d constant is an array, z[:, :H] of an array is one: no run-time J
    source = _source(gates, *ARGS)
    assert "runtime.J" not in source, source


def test_loop_carried_zeros_are_real():
    # h and c start as np.zeros(...): real, so no rule conjugates them
    source = _source(gates, *ARGS)
    assert "conjugate" not in source, source


def test_no_guard_for_a_zero_that_cannot_arrive():
    # c's gradient starts as 0 before the loop, but 0 plus a gradient is that
    # gradient; and h @ U's matmul_grad(dy, h, U, 0) passes the rule's wrt, no zero
    source = _source(gates, *ARGS)
    assert "is_number_zero" not in source, source


def complex_zeros(w):
    acc = np.zeros(3, dtype=complex)
    for k in range(3):
        acc = acc + w * (1.0 + 1.0j) ** k
    return np.sum(np.abs(acc) ** 2)


def test_complex_zeros_keep_their_conjugates():
    w = RNG.standard_normal(3)
    check(complex_zeros, w)
    assert "conjugate" in _source(complex_zeros, w)


def test_slices_that_fill_the_array_make_one_dense_gradient():
    x = np.zeros((4, 8))
    parts = [runtime.scatter(x, (slice(None), slice(2 * k, 2 * k + 2)), np.full((4, 2), k + 1.0)) for k in range(4)]
    assert all(type(p) is runtime.Scatter for p in parts)
    total = parts[0] + parts[1]
    assert type(total) is runtime.Scatter  # half the array: still sparse
    total = total + parts[2] + parts[3]
    assert type(total) is np.ndarray
    np.testing.assert_array_equal(total, np.repeat(np.arange(1.0, 5.0), 2)[None, :].repeat(4, axis=0))


def test_an_item_added_twice_stays_sparse_until_the_array_is_covered():
    x = np.zeros(8)
    g = runtime.scatter(x, 3, 1.0) + runtime.scatter(x, 3, 2.0)
    assert type(g) is runtime.Scatter and g.filled == 2
    np.testing.assert_array_equal(runtime.dense(g), [0, 0, 0, 3.0, 0, 0, 0, 0])


def matmul_then_axis_sum(A, B):
    # matmul_grad(dy, A, B, 0) reads the rule's constant 0 (wrt), not a zero gradient
    s = 0.0
    for k in range(3):
        s = s + np.sum(np.tanh(A @ B) * k, axis=0)
    return np.sum(s ** 2)


def test_rule_constants_are_not_zero_gradients():
    A, B = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    check(matmul_then_axis_sum, A, B)


def sincos(x):
    return math.sin(math.cos(x)) / 2 - x


def scaled(x, k):
    return x * k  # k may be an int, an array...: the output's kind is not known


def test_float_output_is_seeded_with_one():
    # a float output needs no run-time check of its kind: dy is 1.0, and 1.0 * v is v
    fused = zpy.api._compiled(sincos, (0.7,)).gradient_source
    assert "seed" not in fused and "1.0 *" not in fused, fused
    (g,) = zpy.gradient(sincos, 0.7)
    assert type(g) is float
    assert abs(g - (-math.cos(math.cos(0.7)) * math.sin(0.7) / 2 - 1)) < 1e-15


def product_of_a_parameter(a, b):
    return a * math.sin(b) + b * b


def calls_a_helper(x):
    return product_of_a_parameter(x, 3.0 * x) + product_of_a_parameter(math.cos(x), x)


def test_a_seed_of_one_times_a_float_the_pullback_kept_is_that_float():
    # (the inlined helper's pullback reads x and sin(3x) from the forward: 1.0 * x is x)
    fused = zpy.api._compiled(calls_a_helper, (0.7,)).gradient_source
    assert "1.0 *" not in fused, fused
    x, h = 0.7, 1e-6
    assert zpy.gradient(calls_a_helper, x)[0] == pytest.approx(
        (calls_a_helper(x + h) - calls_a_helper(x - h)) / (2 * h), rel=1e-8)


def test_output_of_unknown_kind_keeps_the_seed():
    assert "seed(" in zpy.api._compiled(scaled, (0.7, 3)).gradient_source
    assert zpy.gradient(scaled, 0.7, 3) == (3.0, None)
    with pytest.raises(zpy.NonScalarOutput):
        zpy.gradient(scaled, 0.7, np.ones(2))


def power_of_sine(x, n):
    r = 1.0
    while n > 0:
        r *= math.sin(x) * 2.0 + x * x  # the same number in every iteration
        n -= 1
    return r


def nested_invariants(x, n):
    r = 0.0
    for i in range(n):
        for j in range(3):
            r += math.cos(x + i)  # the same in every iteration of the inner loop, not of the outer
    return r


def test_a_value_the_same_in_every_iteration_is_kept_once():
    source = zpy.api._compiled(power_of_sine, (0.3, 5)).gradient_source
    assert [w for w in source.split() if w.startswith("saved_")] == ["saved_r", "saved_r.append(r)", "saved_r.pop()"], source
    for n in (0, 1, 5):
        (g, gn) = zpy.gradient(power_of_sine, 0.3, n)
        a = math.sin(0.3) * 2.0 + 0.09
        expected = n * a ** (n - 1) * (2.0 * math.cos(0.3) + 0.6) if n else 0.0
        assert abs(g - expected) <= 1e-12 * max(1.0, abs(expected)) and gn is None


def test_a_value_that_changes_with_an_outer_loop_is_recorded():
    (g, _) = zpy.gradient(nested_invariants, 0.4, 4)
    expected = -3 * sum(math.sin(0.4 + i) for i in range(4))
    assert abs(g - expected) < 1e-12


def test_float_outputs_of_loops_are_seeded_with_one():
    assert "seed" not in zpy.api._compiled(power_of_sine, (0.3, 5)).gradient_source


def mean_square(W, b):
    h = np.maximum(X[0] @ W + b, 0.0)
    return np.sum(h ** 2) / len(X[0])


def test_a_length_is_a_real_number():
    W, b = RNG.standard_normal((5, 2)), RNG.standard_normal(2)
    check(mean_square, W, b)
    source = _source(mean_square, W, b)
    assert "runtime.J" not in source and "conjugate" not in source, source


def mean_of_list(xs, w):
    return sum(x * w for x in xs) / len(xs)


def test_the_length_of_a_list():
    assert zpy.gradient(mean_of_list, [1.0, 2.0, 4.0], 0.5) == ([0.5 / 3] * 3, 7.0 / 3)


def test_weights_gradients_are_summed_in_place_over_the_steps():
    source = _source(gates, *ARGS)
    assert "W = runtime.add_into(dW, " in source and "dU = runtime.add_into(dU, " in source, source


def test_add_into_adds_in_place_only_arrays_of_one_shape_and_dtype():
    g = np.ones(3)
    assert runtime.add_into(g, np.full(3, 2.0)) is g and list(g) == [3.0, 3.0, 3.0]
    assert runtime.add_into(0, g) is not g
    assert runtime.add_into(g, np.ones((2, 3))).shape == (2, 3) and list(g) == [3.0, 3.0, 3.0]
    assert runtime.add_into(g, np.ones(3, np.float32)) is not g


def steps_then_more(W):
    h = np.ones((2, 3))
    for t in range(3):
        h = np.tanh(h @ W)
    return np.sum(h) + np.sum(W * W)  # W's gradient enters the steps' adjoint as an array, not 0


def steps(W):
    h = np.ones((2, 3))
    for t in range(3):
        h = np.tanh(h @ W) + X[t, :2, :3]
    return np.sum(h ** 2)


def test_a_gradient_that_enters_the_loop_is_not_changed_in_place():
    W = RNG.standard_normal((3, 3)) * 0.5
    check(steps_then_more, W)
    assert "add_into" not in _source(steps_then_more, W)


def test_second_derivatives_through_a_sum_in_place():
    W = RNG.standard_normal((3, 3)) * 0.5
    assert "add_into" in _source(steps, W)
    H = zpy.hessian(steps, W)  # forward over the emitted gradient
    h = 1e-6
    for k in range(9):
        e = np.zeros(9)
        e[k] = h
        column = (zpy.gradient(steps, W + e.reshape(3, 3))[0] - zpy.gradient(steps, W - e.reshape(3, 3))[0]) / (2 * h)
        np.testing.assert_allclose(H.reshape(9, 9)[:, k], column.ravel(), rtol=1e-5, atol=1e-7)
    v = RNG.standard_normal((3, 3))
    hv = zpy.gradient(lambda W: np.sum(zpy.gradient(steps, W)[0] * v), W)[0]  # reverse over reverse
    np.testing.assert_allclose(hv.ravel(), H.reshape(9, 9) @ v.ravel(), rtol=1e-6, atol=1e-9)


def sigmoid_sum(W, b):
    return np.sum(1.0 / (1.0 + np.exp(-(W @ X[0, 0] + b))))


def softplus_mean(x):
    return (np.log(1.0 + np.exp(x)) / (1.0 + x * x)).mean()


def ratio_sum(x, y):
    return np.sum(x / y + 1.0 / (x * x + 1.0))


def _gradient_only_source(f, *args):
    from zygote_py.backend.compile import source_of
    return source_of(zpy.api._compiled(f, args)._emit_fused(False)[2])


def test_a_sum_of_a_real_array_is_seeded_with_one():
    # the output is a NumPy scalar of a real dtype: no run-time seed, and the quotient times 1.0 is the quotient
    W, b = RNG.standard_normal((4, 5)), RNG.standard_normal(4)
    check(sigmoid_sum, W, b)
    source = zpy.api._compiled(sigmoid_sum, (W, b)).gradient_source
    assert "seed" not in source and "1.0 *" not in source and "* 1.0" not in source, source


@pytest.mark.parametrize("f, args", [
    (sigmoid_sum, (RNG.standard_normal((4, 5)), RNG.standard_normal(4))),
    (softplus_mean, (RNG.standard_normal(6),)),
    (ratio_sum, (RNG.standard_normal(5), RNG.uniform(1.0, 2.0, 5))),
], ids=["sum", "mean", "quotients"])
def test_zpy_gradient_does_not_compute_a_sum_it_does_not_return(f, args):
    source = _gradient_only_source(f, *args)
    assert ".sum()" not in source and ".mean()" not in source and "return (None, " in source, source
    grads = zpy.gradient(f, *args)
    value, same = zpy.value_and_gradient(f, *args)
    assert value == f(*args)
    for i, a in enumerate(args):
        np.testing.assert_allclose(grads[i], numeric_gradient(f, args, i), rtol=1e-6, atol=1e-8)
        assert np.array_equal(grads[i], same[i]) and grads[i].dtype == a.dtype


def sin_of_cos(x):
    return math.sin(math.cos(x))


def sin_of_product(x):
    return math.sin(x * 3.0) + math.tanh(x)


def test_zpy_gradient_does_not_compute_a_float_value_it_does_not_return():
    # the sine of a cosine raises for no value: left out; its gradient reads cos(cos(x)), not sin
    source = _gradient_only_source(sin_of_cos, 0.7)
    assert "math.sin(t)" not in source and "return (None, " in source, source
    for x in (0.7, -2.1, 1e10):
        (g,) = zpy.gradient(sin_of_cos, x)
        assert g == -math.cos(math.cos(x)) * math.sin(x)
        assert zpy.grad(sin_of_cos)(x) == g
        assert zpy.value_and_gradient(sin_of_cos, x) == (sin_of_cos(x), (g,))
    with pytest.raises(ValueError):  # (cos(inf) raises, value or not)
        zpy.gradient(sin_of_cos, math.inf)


def test_a_float_value_that_may_raise_is_still_computed():
    # sin(3x) raises for an infinite 3x (which the gradient's cos(3x) would too, but the compiler does not
    # know that): it is kept; the sum, which raises for no floats, is not computed
    source = _gradient_only_source(sin_of_product, 0.3)
    assert "math.sin(t)" in source and " + t_1" not in source and "return (None, " in source, source
    (g,) = zpy.gradient(sin_of_product, 0.3)
    assert g == pytest.approx(3.0 * math.cos(0.9) + 1 - math.tanh(0.3) ** 2, rel=1e-14)


def test_gradients_seeded_with_one_are_new_arrays():
    # dropping `* 1.0` must not hand out an array that something else holds
    x, y = RNG.standard_normal(5), RNG.uniform(1.0, 2.0, 5)
    x0, y0 = x.copy(), y.copy()
    first = zpy.gradient(ratio_sum, x, y)
    assert not any(np.shares_memory(g, a) for g in first for a in (x, y)) and not np.shares_memory(*first)
    kept = [g.copy() for g in first]
    for g in first:
        g += 100.0
    second = zpy.gradient(ratio_sum, x, y)
    assert np.array_equal(x, x0) and np.array_equal(y, y0)
    for g, k in zip(second, kept):
        assert np.array_equal(g, k)


def test_float32_and_float64_calls_in_turn_keep_their_dtypes():
    for dtype in (np.float64, np.float32, np.float64, np.float32):
        x = np.linspace(-1.0, 1.0, 6).astype(dtype)
        (g,) = zpy.gradient(softplus_mean, x)
        assert g.dtype == dtype
        np.testing.assert_allclose(g, numeric_gradient(softplus_mean, (x.astype(np.float64),), 0),
                                   rtol=1e-4 if dtype == np.float32 else 1e-7, atol=1e-6)


def test_a_sum_of_a_complex_array_still_refuses_the_gradient():
    with pytest.raises(zpy.NonScalarOutput):
        zpy.gradient(softplus_mean, np.linspace(-1.0, 1.0, 6) + 0.5j)


def layer(W, x):
    return np.sum(np.tanh(W @ x))


def test_a_product_with_a_vector_takes_the_general_way_without_a_test():
    # x is known one-dimensional: real_matrices(dy, W, x), for two matrices, is false without asking
    W = RNG.standard_normal((3, 4))
    for x in (RNG.standard_normal(4), RNG.standard_normal((4, 2))):
        check(layer, W, x)
        source = zpy.api._compiled(layer, (W, x)).gradient_source
        assert ("real_matrices" in source) == (x.ndim == 2), source


SERIES = (0.5, -0.25, 0.125, 1.0)  # a global tuple of floats: the code is specialised on it (guarded)


def horner_sum(x):
    s = 0.0
    for a in SERIES:
        s = s * x + a
    return np.sum(s)


def test_a_loop_over_a_tuple_of_floats_keeps_only_the_partial_sums():
    # s * x + a with a float a: the gradient of s * x is the output's, with no array kept for its shape
    x = RNG.standard_normal(6)
    check(horner_sum, x)
    source = _source(horner_sum, x)
    assert source.count(".append(") == 1 and "saved_s" in source, source


def sines_of_shifts(x, W):
    total = 0.0
    for a in SERIES:
        total = total + np.sum(np.sin(x @ W + a))
    return total


def test_a_tuple_rebound_to_one_holding_an_array_is_differentiated_again(monkeypatch):
    # specialised on floats, the gradient of x @ W is the sum's; an array item broadcasts it up
    x, W = RNG.standard_normal(3), RNG.standard_normal((3, 4))
    check(sines_of_shifts, x, W)
    monkeypatch.setitem(globals(), "SERIES", (np.array([[1.0], [2.0]]), 2.0, 3.0))
    check(sines_of_shifts, x, W)


def test_the_gradients_of_an_arrays_slices_are_written_into_one_array():
    source = _source(gates, *ARGS)
    assert "runtime.scatters(z, (" in source and "runtime.scatter(" not in source, source


def two_slices(z):
    return np.sum(np.sin(z[:, :2]) * np.cos(z[:, 2:]))


def test_second_derivatives_through_the_gradient_of_slices_written_into_one_array():
    z = RNG.standard_normal((3, 4))
    assert "scatters" in _source(two_slices, z)
    v = RNG.standard_normal((3, 4))
    by_reverse = zpy.gradient(lambda w: np.sum(zpy.gradient(two_slices, w)[0] * v), z)[0]
    np.testing.assert_allclose(by_reverse, numeric_gradient(lambda w: np.sum(zpy.gradient(two_slices, w)[0] * v), (z,), 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(zpy.hvp(two_slices, (z,), (v,))[0], by_reverse, rtol=1e-10, atol=1e-12)


    def curvature(w):  # <v, H(w) v> by reverse over reverse: scatters' adjoint calls gather
        return np.sum(zpy.gradient(lambda u: np.sum(zpy.gradient(two_slices, u)[0] * v), w)[0] * v)
    np.testing.assert_allclose(zpy.gradient(curvature, z)[0], numeric_gradient(curvature, (z,), 0),
                               rtol=1e-6, atol=1e-8)


def adaptive_decay(k, c):
    """Step doubling with an adaptive step: ``dt`` is a ``min`` of numbers
    (and ``max``), so every product with it is arithmetic on numbers."""
    t, y, dt, T = 0.0, 1.0, 0.1, 2.0
    while t < T:
        dt = min(dt, T - t)
        full = y + dt * (-k * y - c * y * y)
        half = y + 0.5 * dt * (-k * y - c * y * y)
        half = half + 0.5 * dt * (-k * half - c * half * half)
        if abs(full - half) > 1e-4:
            dt = max(dt / 2.0, 1e-3)
        else:
            t = t + dt
            y = half
            dt = dt * 1.5
    return y


def least_of(x, xs):
    return min(x, *xs) * x + max(x, 0.5, key=abs)


def test_min_and_max_of_numbers_are_numbers():
    """No run-time dispatch for the arithmetic on an adaptive step; checked
    against central differences in reverse and forward mode and at second
    order (the step sequence is fixed near the point). ``min`` of a spread
    tuple, or with ``key=``, is not assumed a number: still right."""
    source = zpy.api._compiled(adaptive_decay, (0.8, 0.3)).gradient_source
    assert "runtime.J" not in source, source
    args, h = (0.8, 0.3), 1e-6
    for i in range(2):
        up, down = list(args), list(args)
        up[i] += h
        down[i] -= h
        fd = (adaptive_decay(*up) - adaptive_decay(*down)) / (2 * h)
        assert zpy.gradient(adaptive_decay, *args)[i] == pytest.approx(fd, rel=1e-6)
        tangent = [0.0, 0.0]
        tangent[i] = 1.0
        assert zpy.jvp(adaptive_decay, args, tuple(tangent))[1] == pytest.approx(fd, rel=1e-6)
        second = (zpy.gradient(adaptive_decay, *up)[i] - zpy.gradient(adaptive_decay, *down)[i]) / (2 * h)
        assert zpy.hessian(adaptive_decay, *args)[i][i] == pytest.approx(second, rel=1e-5)
    for x in (0.3, -0.7, 2.0):
        fd = (least_of(x + h, (0.1, 1.5)) - least_of(x - h, (0.1, 1.5))) / (2 * h)
        assert zpy.gradient(least_of, x, (0.1, 1.5))[0] == pytest.approx(fd, rel=1e-6)


def mean_squares(w, x, y):
    r = x @ w - y
    return np.mean(r * r) + 0.01 * np.sum(w * w)


def mean_power(w, x, y):
    return np.mean((x @ w - y) ** 2)


def test_a_mean_of_a_square_reads_the_size_of_what_was_squared():
    # the fills of both sums are fused into their products (w, a parameter, too); the mean's count then reads
    # np.shape(r), so the products are read only by their sums
    w, x, y = RNG.standard_normal(3), RNG.standard_normal((5, 3)), RNG.standard_normal(5)
    check(mean_squares, w, x, y)
    source = _gradient_only_source(mean_squares, w, x, y)
    assert "spread" not in source and "np.shape(r)" in source and "np.shape(t" not in source, source
    v = RNG.standard_normal(3)
    h = 1e-6
    by_differences = (zpy.gradient(mean_squares, w + h * v, x, y)[0]
                      - zpy.gradient(mean_squares, w - h * v, x, y)[0]) / (2 * h)
    np.testing.assert_allclose(zpy.hvp(lambda w: mean_squares(w, x, y), (w,), (v,))[0], by_differences,
                               rtol=1e-6, atol=1e-8)
    second = zpy.gradient(lambda w: np.sum(zpy.gradient(mean_squares, w, x, y)[0] * v), w)[0]
    np.testing.assert_allclose(second, by_differences, rtol=1e-6, atol=1e-8)
    # (r ** 2's gradient, 2.0 * r, has r's shape too: the fill is fused into it)
    check(mean_power, w, x, y)
    source = _gradient_only_source(mean_power, w, x, y)
    assert "spread" not in source and "np.shape(t_1)" in source and "t_1 = t - y" in source, source


def solved_squares(pair):
    r = np.linalg.solve(pair[0], pair[1])  # (items of a list: arrays of a kind known only when it runs)
    return np.sum(r * r)


def test_the_two_equal_gradients_of_a_square_with_conjugates_are_one():
    # r's kind is not known: each gradient of r * r is t * np.conjugate(r); the two are one 2 * (...), and the
    # sum's fill is fused into the conjugate, which has r's shape
    a, b = RNG.standard_normal((3, 3)) + 3 * np.eye(3), RNG.standard_normal(3)
    source = _gradient_only_source(solved_squares, [a, b])
    assert "2 * runtime.unbroadcast(np.conjugate(r) * " in source and "spread" not in source, source
    (da, db), = zpy.gradient(solved_squares, [a, b])
    np.testing.assert_allclose(da, numeric_gradient(lambda a: solved_squares([a, b]), (a,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(db, numeric_gradient(lambda b: solved_squares([a, b]), (b,), 0), rtol=1e-6, atol=1e-8)
    v = RNG.standard_normal(3)
    h = 1e-6
    by_differences = (zpy.gradient(solved_squares, [a, b + h * v])[0][1]
                      - zpy.gradient(solved_squares, [a, b - h * v])[0][1]) / (2 * h)
    second = zpy.gradient(lambda b: np.sum(zpy.gradient(solved_squares, [a, b])[0][1] * v), b)[0]
    np.testing.assert_allclose(second, by_differences, rtol=1e-5, atol=1e-7)
