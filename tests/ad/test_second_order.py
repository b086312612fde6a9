"""Second (and third) derivatives of programs whose gradient works (issue
36): each was wrong in silence, crashed or was refused once. Every check
is against central finite differences of the first-order gradient:

- ``zpy.hessian`` (forward over reverse, the pushforward of the emitted
  gradient code);
- the gradient of ``<zpy.gradient(f), v>`` (reverse over reverse);
- at third order, the gradient of ``<grad <grad f, v>, w>``.
"""
import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.rules import numpy_reductions

H = 1e-5


def fd_jacobian(g, x: np.ndarray) -> np.ndarray:
    """Central differences of the array-valued ``g`` at ``x``: shape
    ``g(x).shape + x.shape``."""
    columns = []
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = H
        columns.append((np.asarray(g(x + e), dtype=float) - np.asarray(g(x - e), dtype=float)) / (2 * H))
    return np.stack(columns, axis=-1).reshape(np.shape(g(x)) + x.shape)


def gradient_of(f):
    return lambda y: np.asarray(zpy.gradient(f, y)[0], dtype=float)


def directional_gradient(f, v):
    """``x -> <gradient of f at x, v>``, differentiated by zygote_py."""
    return lambda y: np.sum(zpy.gradient(f, y)[0] * v)


def assert_second_order(f, x, rtol=1e-5, atol=1e-6):
    """``f``'s Hessian at ``x`` in both compositions against central
    differences of its gradient."""
    want = fd_jacobian(gradient_of(f), x)
    np.testing.assert_allclose(zpy.hessian(f, x), want, rtol=rtol, atol=atol, err_msg="forward over reverse")
    v = np.linspace(0.3, -0.8, x.size).reshape(x.shape)
    got = zpy.gradient(directional_gradient(f, v), x)[0]
    np.testing.assert_allclose(got, np.tensordot(want, v, x.ndim), rtol=rtol, atol=atol,
                               err_msg="reverse over reverse")


def assert_third_order(f, x, rtol=1e-5, atol=1e-6):
    """The gradient of ``<grad <grad f, v>, w>`` (a third derivative of
    ``f`` along ``v`` and ``w``) along a third direction ``u``, against the
    central difference of that inner product along ``u``."""
    v, w, u = (np.linspace(a, b, x.size).reshape(x.shape) for a, b in ((0.3, -0.8), (-0.5, 0.9), (0.7, 0.2)))
    second = directional_gradient(directional_gradient(f, v), w)
    want = (second(x + H * u) - second(x - H * u)) / (2 * H)
    np.testing.assert_allclose(np.sum(zpy.gradient(second, x)[0] * u), want, rtol=rtol, atol=atol)


# -- wrong in silence -----------------------------------------------------------------------------

def test_cumprod_with_zeros_at_second_order():
    """Was: Hessian row 2 of sum(cumprod(x)) at [2, 0, 3] was [0, 0, 0]
    (not [0, 2, 0]), and not symmetric: the gradient of an element after
    the first zero was a constant 0, whose derivative in that zero is not."""
    f = lambda x: np.sum(np.cumprod(x))  # noqa: E731
    x = np.array([2.0, 0.0, 3.0])
    np.testing.assert_allclose(zpy.hessian(f, x), [[0, 4, 0], [4, 0, 2], [0, 2, 0]], atol=1e-12)
    assert_second_order(f, x)


@pytest.mark.parametrize("x", [
    [0.0, 2.0, 0.0, 3.0], [1.5, 0.0, 0.0, -2.0], [0.0, 0.0, 0.0, 0.5], [0.7, -1.3, 2.0, 0.0],
], ids=["two zeros apart", "two zeros together", "three zeros", "last zero"])
def test_cumprod_with_zeros_weighted(x):
    weights = np.array([1.0, -2.0, 0.5, 3.0])
    assert_second_order(lambda x: np.sum(np.cumprod(x) * weights), np.array(x))


def test_cumprod_with_zeros_along_an_axis_and_nancumprod():
    x = np.array([[2.0, 0.0, 3.0], [0.0, 1.5, 0.0], [0.5, -1.0, 2.0]])
    weights = np.arange(1.0, 10.0).reshape(3, 3)
    assert_second_order(lambda x: np.sum(np.cumprod(x, axis=1) * weights), x)
    assert_second_order(lambda x: np.sum(np.cumprod(x, axis=0) ** 2), x)
    assert_second_order(lambda x: np.sum(np.nancumprod(x, axis=1) * weights), x)


def test_cumprod_with_zeros_at_third_order():
    weights = np.array([1.0, -2.0, 0.5, 3.0])
    assert_third_order(lambda x: np.sum(np.cumprod(x) * weights), np.array([0.0, 2.0, 0.0, 3.0]))


def test_cumprod_tangent_with_zeros_differentiates_again():
    """Forward mode's tangent of cumprod is differentiable the same way
    (reverse over its pushforward)."""
    x = np.array([2.0, 0.0, 1.5, 0.0, -1.0])
    v = np.array([0.3, -0.5, 0.7, 0.2, 0.4])
    w = np.array([1.0, 2.0, -1.0, 0.5, 1.5])

    def directional(x):
        return np.sum(numpy_reductions.cumprod_tangent(v, x, None, np.cumprod(x)) * w)
    h = 1e-6
    want = [(directional(x + h * e) - directional(x - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(zpy.gradient(directional, x)[0], want, rtol=1e-6, atol=1e-8)


# -- crashes --------------------------------------------------------------------------------------

def value_stored_into_integers(x):
    u = np.full(3, 3)
    u[1] = -x  # (truncated: no derivative flows through it)
    return np.sum(u * x)


def test_a_value_stored_into_an_integer_array_has_no_derivative_in_both_modes():
    """Was: zpy.hessian crashed ('NoneType' * float): forward mode over the
    gradient code's store gave the integer array no tangent."""
    x = 0.7  # u == [3, 0, 3]
    assert zpy.gradient(value_stored_into_integers, x) == (6.0,)
    assert zpy.jvp(value_stored_into_integers, (x,), (1.0,)) == pytest.approx((4.2, 6.0))
    assert zpy.hessian(value_stored_into_integers, x) == 0.0
    assert zpy.gradient(lambda y: zpy.gradient(value_stored_into_integers, y)[0], x) == (0.0,)


def test_values_stored_into_arrays_at_second_order():
    def f(x):
        u = np.full(3, 3)
        u[1] = -x[0]
        v = np.ones(3)
        v[0] = x[1] * x[2]
        v[1:] = x[:2] ** 2
        return np.sum(u * x * v)
    assert_second_order(f, np.array([0.5, -1.2, 2.0]))


def filled(x):
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] * np.sin(x[i])
    return np.sum(y * x)


def filled_from_one(x):
    y = np.ones(len(x))
    for i in range(1, len(x)):  # (y[0] is never taken: its item of the gradient's list gets none)
        y[i] = x[i] * x[i - 1]
    return np.sum(y ** 2)


def filled_at_one_index(x):
    y = np.zeros(3, dtype=float)
    for i in range(len(x)):
        y[0] = x[i] * x[0]
    return np.sum(y * y) + y[0]


def filled_maybe_unused(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[0]
    if x[1] > 0:  # (else y gets no gradient: the pullback's list of numbers is made of none)
        return np.sum(y * x)
    return np.sum(x ** 3)


@pytest.mark.parametrize("f, x", [
    (filled, [0.5, -1.2, 2.0, 0.3]),
    (filled_from_one, [0.5, -1.2, 2.0, 0.3]),
    (filled_at_one_index, [0.5, -1.2, 2.0, 0.3]),
    (filled_maybe_unused, [0.5, 1.2, 2.0, 0.3]),
    (filled_maybe_unused, [0.5, -1.2, 2.0, 0.3]),
], ids=lambda v: getattr(v, "__name__", None))
def test_arrays_filled_with_numbers_at_second_and_third_order(f, x):
    """Gradient code whose forward pass stores numbers in place and whose
    pullback takes them out of a list (``runtime.number_buffer``), in both
    compositions, and differentiated once more. Was: the list's gradient
    held None for an item the loop never took (a crash)."""
    x = np.array(x)
    assert_second_order(f, x)
    assert_third_order(f, x)


# -- refusals at second order of code whose gradient works ---------------------------------------

class Cubic:
    def __init__(self, c):
        self.c = c

    def __call__(self, x):
        return self.c * x ** 3


class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)


def layers_of(x):
    h = x
    for layer in [Layer(0.5), Layer(x[0])]:
        h = layer(h)
    return np.sum(h ** 2)


def test_callable_objects_at_second_order():
    """Were refused: differentiating the pullback of a call of a callable
    object (through its class's __call__, known only at run time)."""
    x = np.array([0.5, -1.2, 2.0])
    assert_second_order(lambda x: np.sum(Cubic(2.0)(x)), x)
    assert_second_order(lambda x: np.sum(Cubic(x[0])(x) ** 2), x)  # (the object holds a differentiated value)
    assert_second_order(layers_of, x)


class Vec:
    """A 2-vector with operators, scaled from the left by a number
    (2.0 * v: Python calls v.__rmul__(2.0))."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return Vec(self.x * s, self.y * s)

    __rmul__ = __mul__

    def __rsub__(self, s):
        return Vec(s - self.x, s - self.y)

    def __abs__(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5


def vec_norm(x):
    v = Vec(x[0], x[1])
    w = 2.0 * v + Vec(x[1], x[0]) * 0.5 + (1.5 - v) * x[0]
    return abs(w)


def test_reflected_operators_of_a_class_at_second_order():
    """Were refused at second order: the pullback of 2.0 * v, which
    Python makes as v.__rmul__(2.0), known only at run time."""
    assert_second_order(vec_norm, np.array([1.2, -0.4]))


def scaled_tanh(x, beta=1.0, *, gamma=0.5):
    return np.sum(np.tanh(beta * x) ** 2) * gamma + beta ** 2 * np.sum(x)


def with_keywords(h, x):
    return h(x, beta=x[2], gamma=x[0])  # (h known only at run time)


def test_differentiated_keyword_arguments_of_a_call_known_at_run_time():
    """Were refused at second order: 'differentiating again a call of f
    with differentiated keyword arguments ... pass those arguments by
    position'."""
    x = np.array([0.5, -1.2, 2.0])
    assert_second_order(lambda x: with_keywords(scaled_tanh, x), x)
    assert_second_order(lambda x: with_keywords(lambda y, beta, gamma: np.sum(np.sin(y * beta)) * gamma, x), x)
    assert_third_order(lambda x: with_keywords(scaled_tanh, x), x)


def test_differentiated_keyword_arguments_of_a_rule_at_third_order():
    """Every call in second-order code is made through ``J`` at run time:
    a rule's keyword arguments (``weights=``) are differentiated again."""
    x = np.array([0.5, -1.2, 2.0])
    assert_third_order(lambda x: np.average(x ** 2, weights=np.exp(x)), x)


class Pair:
    """A sequence whose items a loop reads through ``__getitem__``."""

    def __init__(self, xs):
        self.xs = xs

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i]


def sum_of_fourth_powers(x):
    t = 0.0
    for a in Pair([x, 2 * x]):
        t = t + a ** 4
    return t


def test_a_loop_over_an_object_with_getitem_to_third_order():
    """Were refused: differentiating again the pullback of an operator a
    class defines (``operator.getitem``, the one method Python calls)."""
    x = 0.7  # 17 x ** 4
    assert zpy.hessian(sum_of_fourth_powers, x) == pytest.approx(12 * 17 * x ** 2)
    second = lambda y: zpy.gradient(lambda z: zpy.gradient(sum_of_fourth_powers, z)[0], y)[0]  # noqa: E731
    assert second(x) == pytest.approx(12 * 17 * x ** 2)
    assert zpy.gradient(second, x)[0] == pytest.approx(24 * 17 * x)


def test_a_numpy_scalar_indexed_by_an_empty_tuple_in_gradient_code():
    # (the gradient code of np.median indexes a float64 with (), which had no
    # gradient: the Hessian of var + median was refused)
    x = np.array([0.1, 0.9, 2.3, -0.4, 1.7, 3.2, 0.55])
    v = np.arange(7.0)

    def f(x):
        return np.var(x, ddof=1) + np.median(x)
    n = len(x)
    want = 2 / (n - 1) * (v - v.mean())  # (the median's Hessian is zero)
    assert np.allclose(zpy.hvp(f, (x,), (v,))[0], want)
    assert np.allclose(zpy.gradient(lambda x: np.sum(zpy.gradient(f, x)[0] * v), x)[0], want)

    def g(x):
        return np.sum(x)[()] ** 2
    assert np.allclose(zpy.gradient(g, x)[0], 2 * np.sum(x))
    assert np.allclose(zpy.hvp(g, (x,), (v,))[0], 2 * np.sum(v))


def test_map_of_a_builtin_function_at_second_order():
    """Was refused at second order: map's pullback filled its columns of
    gradients in place, items of a list, which cannot be differentiated."""
    import math
    import operator

    def f(xs, ys):
        return sum(map(math.exp, xs)) + sum(map(operator.mul, xs, ys)) * sum(ys)

    xs, ys = [0.1, 0.2, -0.5], [1.5, -0.3, 0.7]
    v, w = [1.0, 2.0, 3.0], [0.5, -1.0, 0.25]
    got = zpy.hvp(f, (xs, ys), (v, w))
    sy = sum(ys)
    # d/dx_i = exp(x_i) + y_i * S_y; d/dy_i = x_i * S_y + S_xy
    want_x = [math.exp(x) * a + wi * sy + y * sum(w) for x, y, a, wi in zip(xs, ys, v, w)]
    want_y = [a * sy + x * sum(w) + sum(ai * yj for ai, yj in zip(v, ys)) + sum(xj * wj for xj, wj in zip(xs, w))
              for x, a in zip(xs, v)]
    assert np.allclose(got[0], want_x) and np.allclose(got[1], want_y)

    def d(xs, ys):  # (reverse over reverse)
        return sum(g * t for g, t in zip(zpy.gradient(f, xs, ys)[0], v))
    dx, dy = zpy.gradient(d, xs, ys)
    assert np.allclose(dx, [math.exp(x) * a for x, a in zip(xs, v)])
    assert np.allclose(dy, [a * sy + np.dot(v, ys) for a in v])


def powered_by_a_recursive_nested_function(x):
    def power(v, n):
        if n == 0:
            return 1.0
        return v * power(v, n - 1)
    return np.sum(power(x, 3)) + power(x[0], 2) * x[1]


def test_a_recursive_nested_function_at_second_order(monkeypatch):
    """A nested function calling itself (it captures itself, and nothing
    differentiated) was refused at second order: its pullback's plan
    refused every function capturing itself."""
    from zygote_py import derivatives

    x = np.array([0.5, -1.2])
    assert_second_order(powered_by_a_recursive_nested_function, x)
    monkeypatch.setattr(derivatives, "_hvp_reverse", None)  # forward over reverse, or a TypeError
    v = np.array([0.3, 0.7])
    want = fd_jacobian(gradient_of(powered_by_a_recursive_nested_function), x) @ v
    np.testing.assert_allclose(zpy.hvp(powered_by_a_recursive_nested_function, (x,), (v,))[0], want, rtol=1e-5)


# -- cost ------------------------------------------------------------------------------------------

def accumulated(x):
    a = np.zeros(3)
    a += x * x  # (update_in_place: its pullback captures the plain operator's, made anew at each call)
    a *= np.sin(x)
    return np.sum(a)


@pytest.fixture
def compilations(monkeypatch):
    """The functions compiled in the test, in reverse mode and forward mode."""
    from zygote_py.ad import pipeline

    made = []
    compile_, jvp = pipeline._compile, pipeline.CompiledJvp.__init__

    def counting(fn, *args, **kwargs):
        made.append(fn.__qualname__)
        return compile_(fn, *args, **kwargs)

    def counting_jvp(self, fn, *args, **kwargs):
        made.append(fn.__qualname__)
        jvp(self, fn, *args, **kwargs)

    monkeypatch.setattr(pipeline, "_compile", counting)
    monkeypatch.setattr(pipeline.CompiledJvp, "__init__", counting_jvp)
    return made


def test_rules_pullbacks_made_anew_are_compiled_once_at_second_and_third_order(compilations):
    """A rule's pullback closure captures values made at each call (another
    rule's pullback, an array): differentiated again, it is compiled once,
    not at each call (``analysis.Like``). Checked against central
    differences at second and third order; then every derivative again
    compiles nothing."""
    x = np.array([0.3, -0.7, 1.1])
    assert_second_order(accumulated, x)
    assert_third_order(accumulated, x)
    assert compilations
    compilations.clear()
    assert_second_order(accumulated, x)
    assert_third_order(accumulated, x)
    assert compilations == []
