"""Nested differentiation: ``zpy.gradient`` called inside a function that
is differentiated. The inner gradient is computed by code zygote_py emitted,
and that code is differentiated in turn: to second order, and to third and
up, where the code's calls known only at run time (``runtime.J``) and their
pullbacks are differentiated through the callees' own gradient code, and
that machinery through its own (see ``rules/nested.py``). Each derivative is
checked against an analytic value or central differences of the derivative
one order below."""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NoDerivativeRule

from .programs import while_loop


def d(f, x):
    return zpy.gradient(f, x)[0]


def dsin(x):
    return d(math.sin, x)


def confusable_sum(x):
    return x * d(lambda y: x + y, 1.0)


def confusable_product(x):
    return x * d(lambda y: x * y, 1.0)


def poly(x):
    return x ** 3 - 2.0 * x * x + math.exp(0.5 * x)


def dpoly(x):
    return d(poly, x)


def mixed(x, y):
    return math.sin(x * y) + x * x * y


def dmixed_dy(x):
    return zpy.gradient(lambda y: math.sin(x * y) + x * x * y, 0.7)[0]


def through_a_call(x):
    return zpy.gradient(lambda y: mixed(x, y), 0.7)[0]


def loop_inside(x):
    def inner(y):
        r = 1.0
        for _ in range(4):
            r = r * y + x
        return r
    return d(inner, 0.3) * x


def value_and_slope(x):
    v, (g,) = zpy.value_and_gradient(lambda y: y * math.cos(y) + x * y, x)
    return v + 2.0 * g


def array_gradient_of(w):
    v = np.array([0.1, 0.2, -0.4])
    g = zpy.gradient(lambda u: np.sum(np.sin(u) * w * u), v)[0]
    return float(np.sum(g * g))


def test_the_papers_examples():
    assert d(dsin, 0.5) == pytest.approx(-math.sin(0.5), rel=1e-14)
    assert d(confusable_sum, 1.0) == 1.0  # no perturbation confusion
    assert d(confusable_product, 4.0) == 8.0


def slope(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f, x", [
    (dpoly, 0.8), (dmixed_dy, 0.4), (loop_inside, 1.3), (value_and_slope, 0.6), (array_gradient_of, 1.5),
    (through_a_call, 2.0),  # mixed, a function of this module, is inlined (see ad/callees.py)
], ids=lambda v: getattr(v, "__name__", None))
def test_second_derivatives(f, x):
    assert d(f, x) == pytest.approx(slope(f, x), rel=1e-6, abs=1e-8)


def test_second_derivative_analytic():
    x = 0.8
    assert d(dpoly, x) == pytest.approx(6 * x - 4.0 + 0.25 * math.exp(0.5 * x), rel=1e-13)


def through_an_opaque_call(x):
    return zpy.gradient(lambda y: math.fsum([mixed(x, y), mixed(y, x)]) * recursive(y, 2), 0.7)[0]


def recursive(y, n):
    return y if n == 0 else y * recursive(y, n - 1)  # (recursive: not inlined)


def test_a_second_derivative_through_calls_known_only_at_run_time():
    assert d(through_an_opaque_call, 2.0) == pytest.approx(slope(through_an_opaque_call, 2.0), rel=1e-6)


def test_third_derivatives_analytic():
    assert d(lambda x: d(lambda y: d(math.sin, y), x), 0.5) == pytest.approx(-math.cos(0.5), rel=1e-14)
    assert d(lambda x: d(lambda y: d(lambda z: z ** 4, y), x), 2.0) == pytest.approx(48.0, rel=1e-14)
    assert d(lambda x: d(dpoly, x), 0.8) == pytest.approx(6.0 + 0.125 * math.exp(0.4), rel=1e-13)


def cubes_as_a_float(p):
    return float(np.sum(np.array([p, p * p, math.sin(p)]) ** 3))


def test_a_second_derivative_through_the_gradient_of_a_list_of_numbers_made_an_array():
    """The gradient of ``np.array([p, p*p, sin p])`` goes back to the list
    through ``numpy_shapes.like`` (``tolist``, and a NumPy scalar made by
    its dtype), which once had no rules: the second derivative refused."""
    second = d(lambda x: d(cubes_as_a_float, x), 0.7)
    p = 0.7
    analytic = 6 * p + 30 * p ** 4 + 6 * math.sin(p) * math.cos(p) ** 2 - 3 * math.sin(p) ** 3
    assert second == pytest.approx(analytic, rel=1e-12)


def sin_times(z):
    return math.sin(z) * z


def second_of_sin_times(y):
    return d(lambda u: d(sin_times, u), y)


def loop_body(z):
    r = 1.0
    for i in range(3):
        r = r * z + math.sin(z)
    return r


def second_of_loop(y):
    return d(lambda u: d(loop_body, u), y)


def closure_at_the_bottom(x):  # the innermost function captures the outermost's variable
    return d(lambda y: d(lambda z: x * z * z * z, y), x)


def closure_twice(x):
    return d(lambda y: x * d(lambda z: x * y * z * z, y), x)


def second_through_value_and_gradient(y):
    return zpy.value_and_gradient(lambda u: d(lambda z: math.exp(z * z), u), y)[1][0]


def second_through_an_opaque_call(y):
    return d(lambda u: d(lambda z: z * recursive(z, 2) + math.fsum([z, u]), u), y)


@pytest.mark.parametrize("f, x", [
    (second_of_sin_times, 0.7), (second_of_loop, 0.3), (closure_at_the_bottom, 2.0), (closure_twice, 2.0),
    (second_through_value_and_gradient, 0.4), (second_through_an_opaque_call, 1.1),
], ids=lambda v: getattr(v, "__name__", None))
def test_third_derivatives(f, x):
    assert d(f, x) == pytest.approx(slope(f, x, 1e-5), rel=1e-6, abs=1e-8)


W3 = np.array([0.3, -0.2, 0.5])


def norm_of_array_gradient(v):
    def f(u):
        return np.sum(np.tanh(u) * W3) ** 2
    return float(np.sum(d(lambda y: float(np.sum(d(f, y) ** 2)), v)))


def test_a_third_derivative_of_an_array_function():
    v = np.array([0.1, 0.2, 0.3])
    h = 1e-5
    want = [(norm_of_array_gradient(v + h * e) - norm_of_array_gradient(v - h * e)) / (2 * h) for e in np.eye(3)]
    assert d(norm_of_array_gradient, v) == pytest.approx(np.array(want), rel=1e-6)


def fourth(f, x):
    return d(lambda a: d(lambda b: d(lambda c: d(f, c), b), a), x)


@pytest.mark.parametrize("f, x, want", [
    (lambda u: u ** 5, 1.5, 120 * 1.5),
    (math.sin, 0.5, math.sin(0.5)),  # (a function with a rule: its gradient is its rule's pullback)
    (math.cos, 0.5, math.cos(0.5)),
    (np.sin, 0.5, math.sin(0.5)),
    (math.log, 0.5, -6 / 0.5 ** 4),
    (lambda u: u * math.sin(u), 0.5, 0.5 * math.sin(0.5) - 4 * math.cos(0.5)),
    (math.tanh, 0.5, None),
], ids=["pow", "sin", "cos", "np.sin", "log", "x sin x", "tanh"])
def test_fourth_derivatives(f, x, want):
    got = fourth(f, x)
    if want is None:
        third = lambda y: d(lambda b: d(lambda c: d(f, c), b), y)  # noqa: E731
        want = slope(third, x, 1e-4)
    assert got == pytest.approx(want, rel=1e-6 if f is math.tanh else 1e-12)


@pytest.mark.slow  # (minutes: make slow)
def test_a_fifth_derivative():
    assert d(lambda x: fourth(lambda u: u ** 6, x), 1.5) == pytest.approx(720 * 1.5, rel=1e-12)


def test_forward_mode_over_a_second_derivative():
    """``jvp`` of a second derivative (forward over reverse over reverse):
    the gradient functions pushed forward, a rule's pullback read as code."""
    assert zpy.jvp(lambda x: d(lambda y: d(lambda z: z ** 4, y), x), (1.5,), (1.0,)) == \
        pytest.approx((12 * 1.5 ** 2, 24 * 1.5), rel=1e-12)
    third = zpy.jvp(lambda x: d(lambda y: d(lambda z: math.sin(z) * z ** 3, y), x), (0.7,), (1.0,))[1]
    assert third == pytest.approx(slope(lambda x: d(lambda y: d(lambda z: math.sin(z) * z ** 3, y), x), 0.7, 1e-4),
                                  rel=1e-6)


def through_a_pullback(x):
    y, back = zpy.pullback(lambda u: x * u * u + math.sin(x * u), 2.0)
    return back(1.0)[0] * x + y  # (4x + x cos 2x) x + 4x + sin 2x


def through_a_pullback_called_twice(x):
    y, back = zpy.pullback(lambda u, v: u * v * x, x, 3.0)
    du, dv = back(x)
    return du * dv + back(1.0)[1] * y


def test_a_gradient_of_a_function_that_calls_pullback():
    x = 0.7
    want = 8 * x + 2 * x * math.cos(2 * x) - 2 * x * x * math.sin(2 * x) + 4 + 2 * math.cos(2 * x)
    assert d(through_a_pullback, x) == pytest.approx(want, rel=1e-13)
    assert d(through_a_pullback_called_twice, x) == pytest.approx(slope(through_a_pullback_called_twice, x), rel=1e-8)
    third = d(lambda z: d(lambda w: d(lambda u: zpy.pullback(math.sin, u)[1](1.0)[0], w), z), 0.5)
    assert third == pytest.approx(math.sin(0.5), rel=1e-13)


def slope_by_jvp(x):
    return zpy.jvp(lambda u: math.sin(u) * u, (x,), (1.0,))[1]


def test_reverse_mode_over_jvp_is_refused_with_a_clear_error():
    assert slope_by_jvp(0.7) == pytest.approx(math.sin(0.7) + 0.7 * math.cos(0.7), rel=1e-14)
    with pytest.raises(NoDerivativeRule, match="reverse mode over forward mode") as e:
        d(slope_by_jvp, 0.7)
    assert "slope_by_jvp" in str(e.value) and "zpy.hessian" in str(e.value)


def spread_product(*xs):
    return xs[0] * xs[1] * xs[0]


def with_a_default(x, y=3.0):
    return x * y * x


def test_a_nested_gradient_has_one_entry_per_argument():
    # (the gradient function's one per parameter: *xs's came back as one tuple)
    assert d(lambda a: zpy.gradient(spread_product, a, 2.0)[0] * a, 0.7) == pytest.approx(8 * 0.7, rel=1e-14)
    assert d(lambda a: zpy.gradient(spread_product, a, a)[1] * a, 0.7) == pytest.approx(3 * 0.49, rel=1e-14)
    assert d(lambda a: zpy.gradient(with_a_default, a)[0] * a, 0.7) == pytest.approx(12 * 0.7, rel=1e-14)


def test_a_gradient_of_a_hessian_vector_product():
    def curvature(a):
        h = zpy.hvp(lambda v: np.sum(np.sin(v) * v), (np.array([a, 0.2]),), (np.array([1.0, 0.0]),))
        return float(h[0][0])
    assert d(curvature, 0.7) == pytest.approx(slope(curvature, 0.7), rel=1e-7)


def test_a_gradient_of_a_hessian():
    # (hessian's forward-over-reverse falls back to reverse over reverse inside reverse mode)
    def curvature(a):
        return float(zpy.hessian(lambda v: np.sum(np.sin(v) * v), np.array([a, 0.2]))[0, 0])
    assert d(curvature, 0.7) == pytest.approx(slope(curvature, 0.7), rel=1e-7)


LEVELS = []


def records_its_level(x):
    LEVELS.append(zpy.nestlevel())
    return x * x


def outer_records(x):
    LEVELS.append(zpy.nestlevel())
    return x * d(records_its_level, x)


def test_nestlevel_counts_the_differentiations_running():
    LEVELS.clear()
    assert zpy.nestlevel() == 0
    d(records_its_level, 1.5)
    assert LEVELS == [1]
    LEVELS.clear()
    assert d(outer_records, 1.5) == pytest.approx(6.0)  # d/dx (x * 2x)
    assert LEVELS == [1, 2] and zpy.nestlevel() == 0


def x_log_x(s):
    return s * math.log(s) + math.log(s, 2.0)


def test_second_derivative_through_math_log():
    """``math.log``'s rule is inlined (its base has a default), so its
    gradient code can be differentiated again."""
    s = 1.5
    assert zpy.hessian(x_log_x, s) == pytest.approx(1 / s - 1 / (s * s * math.log(2.0)), rel=1e-12)
    assert d(lambda v: d(x_log_x, v), s) == pytest.approx(1 / s - 1 / (s * s * math.log(2.0)), rel=1e-12)


def item_sum(v):
    s = 0.0
    for i in range(3):
        s = s + math.sin(v[i]) * v[i]
    return s


def third_of_a_loop_over_items(v):
    return float(np.sum(d(lambda y: float(np.sum(d(item_sum, y) ** 2)), v)))


def test_a_third_derivative_of_a_loop_over_items():
    # (the second-order code calls pullbacks that pop stacks: J's rule pulls back through a pullback of its own)
    v = np.array([0.3, 0.6, 0.9])
    h = 1e-5
    want = [(third_of_a_loop_over_items(v + h * e) - third_of_a_loop_over_items(v - h * e)) / (2 * h)
            for e in np.eye(3)]
    assert d(third_of_a_loop_over_items, v) == pytest.approx(np.array(want), rel=1e-6)


def test_a_pullback_kept_for_a_third_derivative_can_be_called_twice():
    # (the second call pulls back through a new forward: the first one emptied the pullback's stacks)
    from zygote_py import runtime
    args = (np.array([0.3, 0.6, 0.9]),)
    y, back = runtime.J(item_sum, *args)
    pullback = runtime.Pullback(back, item_sum, runtime.copied(args), {})
    first = pullback(1.0)
    second = pullback(1.0)
    np.testing.assert_allclose(first[1], second[1])
    np.testing.assert_allclose(first[1], np.cos(args[0]) * args[0] + np.sin(args[0]))
    with pytest.raises(IndexError):
        back(1.0)  # (the raw pullback, called again, finds its stacks empty)


# Second derivatives through the data model: the first-order gradient code
# calls, at run time, the machinery that constructs objects, runs helpers
# that change their arguments, changes arrays in place and calls nested
# functions that assign their maker's variables (nonlocal); its pullbacks
# are differentiated through the callees' own gradient code.

class Scaled:
    def __init__(self, a, b):
        self.a = a * b
        self.b = math.sin(a)

    def value(self):
        return self.a * self.b

    def grow(self, v):
        self.a = self.a * v


def an_object(x):
    return Scaled(x, 2.0).value()  # 2x sin x


def its_fields(x):
    s = Scaled(x, 2.0)
    return s.a * s.a + s.b  # 4x^2 + sin x: through the object's gradient itself


def a_method_that_changes_it(x):
    s = Scaled(x, 1.5)
    s.grow(x)
    return s.a * s.b


def appends(buf, x):
    buf.append(x * x)
    buf.append(math.sin(x))


def a_helper_that_fills_a_list(x):
    b = []
    appends(b, x)
    return b[0] * b[1]


def set_first(a, x):
    a[0] = x * x


def a_helper_that_sets_an_item(x):
    a = np.ones(3)
    set_first(a, x)
    return float(np.sum(a * a)) * x


def in_place_arithmetic(x):
    a = np.ones(3) * x
    a += x * x
    a *= np.sin(x)
    return float(np.sum(a * a))


def getattr_with_a_default(x):
    s = Scaled(x, 2.0)
    return getattr(s, "a", 1.0) * getattr(s, "c", x)  # 2x * x


def a_closure_that_adds_to_a_variable(x):
    s = 0.0

    def add(v):
        nonlocal s
        s = s + v * x
    add(x)
    add(math.sin(x))
    return s * x


def a_closure_in_a_loop(x):
    total = x

    def step(k):
        nonlocal total
        total = total * math.cos(x / k) + k
    for k in range(1, 4):
        step(k)
    return total


def a_closure_reading_a_variable_assigned_twice(x):
    z = math.sin(x)

    def inner(r):
        return r * z
    a = inner(x)
    z = z * x
    return a + inner(2.0)


def max_and_min(x):
    return max(x * x, math.sin(x)) * min([x, 2.0 * x, 0.5]) + max(np.array([x, 1.0 - x]))


def keywords_to_a_call_that_stays_a_call(x):
    return while_loop(n=3, x=math.sin(x)) + while_loop(x, n=2)  # (another module's function: a call)


SORT_WEIGHTS = np.array([0.3, -1.2, 2.0, 0.7])


def sorted_and_weighted(x):
    v = np.sin(np.array([x, 2.0 * x, x * x, 1.0 - x]))
    return float(np.sum(np.sort(v) * SORT_WEIGHTS))  # (sort's gradient writes into an array it makes)


@pytest.mark.parametrize("f", [
    an_object, its_fields, a_method_that_changes_it, a_helper_that_fills_a_list, a_helper_that_sets_an_item,
    in_place_arithmetic, getattr_with_a_default, sorted_and_weighted, a_closure_that_adds_to_a_variable,
    a_closure_in_a_loop, a_closure_reading_a_variable_assigned_twice, max_and_min,
    keywords_to_a_call_that_stays_a_call,
], ids=lambda f: f.__name__)
def test_second_derivatives_through_objects_and_changes_in_place(f):
    x = 0.7
    first = lambda y: d(f, y)  # noqa: E731
    assert first(x) == pytest.approx(slope(f, x), rel=1e-6)
    assert d(first, x) == pytest.approx(slope(first, x, 1e-5), rel=1e-6, abs=1e-8)


def sine_slope_at(x):
    def back(dy):
        return -dy * math.sin(x)
    return back


def a_returned_closure(x):
    return sine_slope_at(x)(2.0) * x  # -2x sin x: through the closure's captured x


class Box:
    def __init__(self, a):
        self.a = a

    def grow(self, v):
        self.a = self.a * v


def grow(box, v):
    box.a = box.a * v


def a_helper_that_changes_an_object(x):
    b = Box(2.0)
    grow(b, x)  # (the second-order code's call is made again, after code that changes the object)
    return b.a * b.a * x


def a_method_that_changes_an_object(x):
    b = Box(x)
    b.grow(x)
    return b.a * b.a * x


@pytest.mark.parametrize("f", [
    an_object, its_fields, a_method_that_changes_it, a_helper_that_fills_a_list, a_helper_that_sets_an_item,
    in_place_arithmetic, sorted_and_weighted, keywords_to_a_call_that_stays_a_call, a_returned_closure,
    a_helper_that_changes_an_object, a_method_that_changes_an_object, a_closure_that_adds_to_a_variable,
    a_closure_in_a_loop, a_closure_reading_a_variable_assigned_twice, max_and_min,
], ids=lambda f: f.__name__)
def test_third_derivatives_through_objects_and_changes_in_place(f):
    second = lambda y: d(lambda z: d(f, z), y)  # noqa: E731
    assert d(second, 0.7) == pytest.approx(slope(second, 0.7, 1e-4), rel=1e-6, abs=1e-8)


def a_square_appended(x):
    b = []
    b.append(x * x)
    return b[0] * b[0]


@pytest.mark.parametrize("f, want", [
    (a_square_appended, 24.0),  # (a call made again by the third-order machinery once read a list it had grown)
    (an_object, None),
], ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.slow  # (minutes: make slow)
def test_fourth_derivatives_through_the_data_model(f, want):
    third = lambda y: d(lambda a: d(lambda b: d(f, b), a), y)  # noqa: E731
    got = d(third, 0.7)
    if want is None:  # 2x sin x: 2x sin x - 8 cos x
        want = 1.4 * math.sin(0.7) - 8 * math.cos(0.7)
    assert got == pytest.approx(want, rel=1e-12)


def test_a_second_derivative_does_not_depend_on_what_was_differentiated_before():
    # one driver for two functions: the first one's compilation (through a helper
    # that changes its argument) once left the driver refusing the second
    def driver(f, x):
        return d(lambda y: d(lambda z: f(z), y), x)
    assert driver(a_helper_that_fills_a_list, 0.7) == pytest.approx(
        slope(lambda y: d(a_helper_that_fills_a_list, y), 0.7, 1e-5), rel=1e-6)
    assert driver(dpoly_source, 0.8) == pytest.approx(6 * 0.8 - 4.0 + 0.25 * math.exp(0.4), rel=1e-12)


def dpoly_source(x):
    return poly(x)
