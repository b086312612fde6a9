"""NumPy idioms (zygote_py/ad/idioms.py): the max that stabilises a
log-sum-exp or a log-softmax gets no gradient from it (its derivative there
is exactly 0), and reductions of arrays run as methods. Every gradient is
checked against central differences; the tests on the emitted source check
that the idiom was (or was not) recognised."""
import numpy as np
import pytest

import zygote_py as zpy

from .test_numpy import check

RNG = np.random.default_rng(11)


def lse(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def lse_commuted(x):
    m = x.max()
    return np.log(np.exp(x - m).sum()) + m


def lse_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.sum((m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))) ** 2)


def log_softmax(z):
    zmax = np.max(z, axis=1, keepdims=True)
    logp = z - zmax - np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True))
    return np.sum(logp * np.arange(z.size).reshape(z.shape))


def log_softmax_shared(z):
    d = z - np.max(z, axis=-1, keepdims=True)
    return np.sum(np.cos(d - np.log(np.sum(np.exp(d), axis=-1, keepdims=True))))


def log_softmax_flat(x):
    d = x - np.max(x)
    return np.sum((d - np.log(np.sum(np.exp(d)))) * np.linspace(-1.0, 2.0, x.size))


IDIOMS = [lse, lse_commuted, lse_rows, log_softmax, log_softmax_shared, log_softmax_flat]


def _arg(f):
    return RNG.standard_normal(7) if f in (lse, lse_commuted, log_softmax_flat) else RNG.standard_normal((4, 5))


@pytest.mark.parametrize("f", IDIOMS, ids=lambda f: f.__name__)
def test_idiom_gradient_and_no_max_pullback(f):
    x = _arg(f)
    check(f, x)
    d = zpy.differentiable(f)
    d.gradient(x)
    assert "extremum_grad" not in d.source, d.source


@pytest.mark.parametrize("f", IDIOMS, ids=lambda f: f.__name__)
def test_idiom_gradient_at_ties(f):
    # several elements equal to the max: the gradient is still the softmax's
    x = _arg(f)
    x.flat[:3] = 2.5
    x.flat[-1] = 2.5
    check(f, x)


def lse_max_used_again(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m))) + 3.0 * m


def lse_mean_shift(x):
    m = np.mean(x)  # a shift, but not the max: left to the general rules
    return m + np.log(np.sum(np.exp(x - m)))


def lse_other_axis(x):
    m = np.max(x, axis=0, keepdims=True)  # constant along axis 0, summed along axis 1: not invariant
    return np.sum(m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True)))


def lse_dropped_keepdims(x):
    m = np.max(x, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(x - m[:, None]), axis=1)))


def lse_intermediate_reused(x):
    m = np.max(x)
    e = np.exp(x - m)
    return m + np.log(np.sum(e)) + np.sum(e * x)


def log_softmax_other_max(z, w):
    zmax = np.max(w, axis=1, keepdims=True)
    return np.sum(z - zmax - np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True)))


@pytest.mark.parametrize("f", [lse_max_used_again, lse_mean_shift, lse_other_axis, lse_dropped_keepdims,
                               lse_intermediate_reused], ids=lambda f: f.__name__)
def test_near_misses_keep_the_max_gradient(f):
    x = RNG.standard_normal((3, 4))
    x[1, 2] = x.max() + 1.0
    check(f, x)
    if f is not lse_mean_shift:
        d = zpy.differentiable(f)
        d.gradient(x)
        assert "extremum_grad" in d.source, d.source


def test_max_of_another_array_keeps_its_gradient():
    z, w = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    check(log_softmax_other_max, z, w)  # z - max(w) does not cancel: w's gradient is not 0


def test_max_used_again_gets_only_that_gradient():
    x = np.array([0.5, 2.0, -1.0])
    (g,) = zpy.gradient(lse_max_used_again, x)
    e = np.exp(x - 2.0)
    np.testing.assert_allclose(g, e / e.sum() + np.array([0.0, 3.0, 0.0]), rtol=1e-13)


def test_second_order_through_the_idiom():
    # the Hessian of log-sum-exp is diag(p) - p pᵀ
    x = RNG.standard_normal(5)
    p = np.exp(x - x.max())
    p /= p.sum()
    np.testing.assert_allclose(zpy.hessian(lse, x), np.diag(p) - np.outer(p, p), rtol=1e-9, atol=1e-12)


def scalar_methods(x):
    m = np.max(x)
    return m.clip(0.0, 10.0) + x.sum(axis=0).mean() + np.sum(m)


def test_array_methods_on_numpy_scalars():
    # m is a NumPy scalar: ndarray.clip(m) would raise; m.clip() does not
    x = np.array([[1.0, 2.0], [3.5, -1.0]])
    check(scalar_methods, x)


def test_reductions_of_arrays_run_as_methods():
    d = zpy.differentiable(lse_rows)
    x = RNG.standard_normal((3, 4))
    d.gradient(x)
    forward = d.source.split("_pullback(")[0]
    assert "x.max(axis=1, keepdims=True)" in forward and "np.max" not in forward, forward
    assert "np.sum" not in forward, forward


def sum_of_list(v):
    return np.sum([v, 2.0 * v])


def test_reduction_of_a_list_stays_a_function_call():
    check(sum_of_list, 1.5)
    d = zpy.differentiable(sum_of_list)
    d.gradient(1.5)
    assert "np.sum(" in d.source, d.source


# -- unpacking arrays ---------------------------------------------------------------


def rates(y, p):
    a, b, c, d = p
    prey, predator = y
    return np.array([a * prey - b * prey * predator, c * prey * predator - d * predator])


def euler(p):
    y = np.array([1.0, 0.5])
    for _ in range(6):
        y = y + 0.1 * rates(y, p)
    return np.sum(y * y)


def rows(m):
    top, bottom = m
    return np.sum(np.sin(top) * bottom)


def _fd_direction(f, x, v, h=1e-6):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


def test_unpacked_vector_and_built_vector_are_numbers_inlined():
    p = np.array([1.1, 0.4, 0.4, 0.9])
    check(euler, p)
    v = RNG.standard_normal(4)
    y, dy = zpy.jvp(euler, (p,), (v,))
    assert y == euler(p)
    np.testing.assert_allclose(dy, _fd_direction(euler, p, v), rtol=1e-6)
    hv = zpy.hvp(euler, (p,), (v,))[0]  # second order: the gradient's derivative along v
    np.testing.assert_allclose(hv, _fd_direction(lambda x: zpy.gradient(euler, x)[0], p, v), rtol=1e-5, atol=1e-7)
    d = zpy.differentiable(euler)
    d.gradient(p)
    assert "ops.check_count(p, 4)" in d.source and "p[3]" in d.source, d.source
    assert "runtime.J(operator" not in d.source and "runtime.J(ops.unpack" not in d.source, d.source


def test_unpacked_parameters_of_another_kind_compile_again():
    p = np.array([1.1, 0.4, 0.4, 0.9])
    g = zpy.gradient(euler, p)[0]
    f = lambda a: euler(tuple(a))  # noqa: E731  (a tuple of numbers: unpacked as a tuple)
    np.testing.assert_allclose(zpy.gradient(f, p)[0], g, rtol=1e-13)
    np.testing.assert_allclose(zpy.gradient(euler, [1.1, 0.4, 0.4, 0.9])[0], g, rtol=1e-13)


def test_unpacked_matrix_rows():
    m = RNG.standard_normal((2, 3))
    check(rows, m)
    v = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(zpy.jvp(rows, (m,), (v,))[1], _fd_direction(rows, m, v), rtol=1e-6)


@pytest.mark.parametrize("x, error, message", [
    (np.array([1.0, 2.0, 3.0]), ValueError, "too many values to unpack (expected 2)"),
    (np.array([1.0]), ValueError, "not enough values to unpack (expected 2, got 1)"),
    (np.array(1.0), TypeError, ""),
])
def test_unpacking_an_array_of_another_length_raises_as_python(x, error, message):
    def f(v):
        a, b = v
        return a * b

    with pytest.raises(error) as plain:
        f(x)
    with pytest.raises(error) as got:
        zpy.gradient(f, x)
    assert message in str(got.value) and message in str(plain.value)
