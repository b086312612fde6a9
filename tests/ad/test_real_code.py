"""What scientists write first, differentiated rather than refused: an
array's metadata (``x.shape``) as a constant, conversions (``x.item()``,
``np.float32(x)``, ``int(x)``), generator expressions read to their end
(``math.fsum``, ``sum(gen, 0.0)``, ``min(gen, key=...)``, ``np.fromiter``),
logging and warnings inside differentiated code, and changes in place that
are safe (a copy kept in a history, a loop over a dict's keys that
replaces its values).

Each program is checked in reverse mode against central differences of
every float in its arguments (arrays, dicts and lists of them; with
``test_mutation.check``, which also compares the arguments' final state
with plain Python's), in forward
mode along a random direction, and at second order (``zpy.hvp`` against
central differences of the gradient).
"""
from __future__ import annotations

import collections
import copy
import dataclasses
import functools
import io
import json
import logging
import math
import warnings

import numpy as np
import pytest

import zygote_py as zpy

from .test_mutation import check as mutation_check

LOG = logging.getLogger(__name__)
RNG = np.random.RandomState(7)
X = RNG.randn(4, 3)
V = RNG.randn(5)
W = RNG.randn(2, 4)


def _random_like(x):
    if isinstance(x, np.ndarray):
        return RNG.randn(*x.shape)
    if isinstance(x, float):
        return RNG.randn()
    if isinstance(x, (list, tuple)):
        return type(x)(_random_like(v) for v in x)
    return {k: _random_like(v) for k, v in x.items()}


def _step(x, d, h):
    """``x + h * d`` leaf by leaf, a new structure."""
    if isinstance(x, (np.ndarray, float)):
        return x + h * d
    if isinstance(x, (list, tuple)):
        return type(x)(_step(a, b, h) for a, b in zip(x, d))
    return {k: _step(x[k], d[k], h) for k in x}


def check(f, *args, forward=True, second=True):
    """Reverse mode, forward mode and second order against central
    differences."""
    mutation_check(f, *args, rtol=1e-5)  # (the value, the arguments' final state, the gradient)
    plain = all(isinstance(a, (float, np.ndarray)) for a in args)
    if forward:
        direction = tuple(_random_like(a) for a in args)
        y, dy = zpy.jvp(f, copy.deepcopy(args), direction)
        assert y == pytest.approx(f(*copy.deepcopy(args)), rel=1e-12), f.__name__
        h = 1e-6
        slope = f(*_step(args, direction, h)) - f(*_step(args, direction, -h))
        assert dy == pytest.approx(slope / (2 * h), rel=1e-5, abs=1e-7), f.__name__
    if second and plain:
        direction = tuple(np.asarray(RNG.randn(*np.shape(a))) if isinstance(a, np.ndarray) else RNG.randn()
                          for a in args)
        hv = zpy.hvp(f, copy.deepcopy(args), direction)
        h = 1e-5
        up = zpy.gradient(f, *[a + h * d for a, d in zip(args, direction)])
        down = zpy.gradient(f, *[a - h * d for a, d in zip(args, direction)])
        for got, u, d in zip(hv, up, down):
            want = (np.asarray(0.0 if u is None else u) - np.asarray(0.0 if d is None else d)) / (2 * h)
            np.testing.assert_allclose(0.0 if got is None else got, want, rtol=1e-4, atol=1e-6, err_msg=f.__name__)


# -- an array's metadata is a constant --------------------------------------------


def mean_of_product(W, x):
    return np.sum(W @ x) / x.shape[1]


def unpacked_shape(x):
    n, d = x.shape
    return np.sum(x ** 2) / n + d * np.sum(x)


def sized(x):
    return np.sum(x * np.ones(x.shape)) / x.size + x.ndim * np.sum(x ** 3) + float(x.shape[0]) * x[0, 0]


def loop_over_rows(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sum(x[i] ** 2) * (i + 1)
    return s / len(x)


def noise_of_its_shape(x):
    noise = np.random.RandomState(3).normal(size=x.shape)
    return np.sum(x * noise) + np.sum(x * RNG.randn(*x.shape) * 0.0)


def of_its_dtype(x):
    eps = np.finfo(x.dtype).eps
    big = np.promote_types(x.dtype, np.float32).itemsize
    return np.sum(x.astype(x.dtype) ** 2) + eps + big + x.nbytes * 0.0 + len(x.strides)


def reshaped_by_shape(x):
    return np.sum(np.tanh(x.reshape(x.shape[0] * x.shape[1])) * np.arange(x.size))


def masked_half(v):
    m = np.zeros_like(v)
    m[: v.shape[0] // 2] = 1.0
    return np.sum(m * v ** 2) / v.size


@pytest.mark.parametrize("f, args", [
    (mean_of_product, (W, X)), (unpacked_shape, (X,)), (sized, (X,)), (loop_over_rows, (X,)),
    (noise_of_its_shape, (X,)), (of_its_dtype, (X,)), (masked_half, (V,)),
])
def test_an_arrays_metadata_is_a_constant(f, args):
    check(f, *args)


def test_reshape_by_its_own_shape():
    check(reshaped_by_shape, X, second=False)


def test_a_fields_named_like_metadata_are_still_differentiated():
    class Gamma:
        def __init__(self, shape, size):
            self.shape, self.size = shape, size

    def logpdf_ish(d, x):
        return d.shape * math.log(x) - x / d.size

    (g, gx) = zpy.gradient(logpdf_ish, Gamma(2.0, 3.0), 1.5)
    assert g.shape == pytest.approx(math.log(1.5)) and g.size == pytest.approx(1.5 / 9.0)
    assert gx == pytest.approx(2.0 / 1.5 - 1.0 / 3.0)


# -- conversions --------------------------------------------------------------


def items(v):
    return v.item(0) * v[1].item() + sum(v.tolist()) + v[2:3].item() ** 2 + X.item(1, 2) * v[4]


def casts(v):
    return float(v[0]) * np.float64(v[1]) + np.float32(v[2]).astype(float) * 0.0 + v[3] ** 2


def truncations(v):
    return round(v[0]) * v[1] + np.round(v[1]) + v.round()[2] * v[3] + int(v[4]) * v[0] + np.int64(v[2]) * v[4]


@pytest.mark.parametrize("f", [items, casts, truncations])
def test_conversions(f):
    check(f, V)


def test_float32_gradient_keeps_its_argument_kind():
    (g,) = zpy.gradient(lambda v: float(np.sum(np.float32(v) * 2.0)), V)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, 2.0)


# -- generator expressions read to their end -----------------------------------


def sum_of_appended(x):
    losses = []
    for i in range(len(x) - 1):
        losses.append(x[i] * x[i + 1])
    return sum(l * l for l in losses)


def fsum_of_squares(x):
    return math.fsum(t * t for t in x)


def sum_with_start(x):
    return sum((t * 2.0 for t in x), 0.5)


def from_iterator(x):
    return np.sum(np.fromiter((t * t for t in x), float) * np.arange(len(x)))


def extremes_by_key(x):
    return max(x, key=lambda t: t * t) + min((t for t in x), key=abs)


def product_of_generator(x):
    return math.prod(1.0 + t for t in x)


class Scaled:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return self.w * x


def objects_in_a_comprehension(x):
    layers = [Scaled(t) for t in x]
    return sum(layer(2.0) ** 2 for layer in layers)


@pytest.mark.parametrize("f", [sum_of_appended, fsum_of_squares, sum_with_start, from_iterator, product_of_generator])
def test_generators_read_to_their_end(f):
    check(f, V)


@pytest.mark.parametrize("f", [extremes_by_key, objects_in_a_comprehension])
def test_generators_read_to_their_end_first_order(f):
    check(f, V, second=False)


def test_dict_of_parameters_through_generators():
    def loss(p):
        return sum(np.sum(w * w) for w in p.values()) + sum(np.sum(p[k] ** 3) for k in sorted(p))

    check(loss, {"w": RNG.randn(3), "b": RNG.randn(2)})


# -- side effects with no gradient -------------------------------------------------


def logged(x):
    y = np.sum(x ** 2)
    LOG.info("loss %f", y)
    LOG.debug("x=%s", x)
    logging.info("y=%s", y)
    warnings.warn(f"y={y:.3f}")
    buf = io.StringIO()
    buf.write(f"{y:.3f}")
    return y * 2.0


def test_logging_and_warnings_do_not_refuse_the_function():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(logged, V)


# -- safe changes in place ---------------------------------------------------------


def history_of_copies(x):
    v = x.copy()
    hist = []
    for _ in range(3):
        hist.append(v.copy())
        v += 0.5 * v * v
    return sum(np.sum(h) for h in hist) + np.sum(v)


def test_a_copy_kept_in_a_history_is_no_alias():
    check(history_of_copies, V)


def sgd_step(p, g):
    for k in p:
        p[k] = p[k] - 0.1 * g[k] * p[k]
    return sum(np.sum(p[k] ** 2) for k in p)


def squares_by_sorted_key(p):
    sq = {}
    for k in sorted(p):
        sq[k] = np.sum(p[k] ** 2)
    for k in sorted(sq):
        sq[k] = sq[k] * sq[k]
    return sum(sq.values())


def test_a_loop_over_a_dicts_sorted_keys_changing_it():
    check(squares_by_sorted_key, {"w": RNG.randn(3), "b": RNG.randn(2)})


def test_a_loop_over_a_dicts_keys_replacing_its_values():
    check(sgd_step, {"w": RNG.randn(3), "b": RNG.randn(2)}, {"w": RNG.randn(3), "b": RNG.randn(2)})


def sgd_in_place(p, g):
    for k in p:
        p[k] -= 0.1 * g[k]
    return sum(np.sum(v ** 2) for v in p.values())


def items_changed_in_place(xs, y):
    for i in range(len(xs)):
        xs[i] *= y[i]
    t = xs[0]
    t += 0.5 * xs[1]
    return np.sum(xs[0] ** 2) + np.sum(np.sin(xs[1]))


class Layer:
    def __init__(self, w):
        self.w = w.copy()
        self.steps = 0

    def step(self, g):
        self.w = self.w - 0.5 * g
        self.steps += 1
        return np.sum(self.w ** 2)


def method_called_twice(w, g):
    layer = Layer(w)
    return layer.step(g) + layer.step(g * g)  # (the first value is a number, no part of layer: checked)


def field_changed_in_place(w, g):
    layer = Layer(w)
    before = np.sum(np.sin(layer.w))
    layer.w *= g
    return before * np.sum(layer.w ** 2)


def number_and_array_items(x):
    p = {"a": 1.0, "b": x.copy()}
    p["a"] += x[0]
    p["b"] *= x
    return p["a"] * np.sum(p["b"])


@pytest.mark.parametrize("f, args", [
    (sgd_in_place, ({"w": RNG.randn(3), "b": RNG.randn(2)}, {"w": RNG.randn(3), "b": RNG.randn(2)})),
    (items_changed_in_place, ([RNG.randn(3), RNG.randn(3)], RNG.randn(2))),
    (field_changed_in_place, (RNG.randn(3), RNG.randn(3))),
    (method_called_twice, (RNG.randn(3), RNG.randn(3))),
    (number_and_array_items, (RNG.randn(3),)),
])
def test_items_and_fields_changed_in_place(f, args):
    """``p[k] -= lr * g[k]`` changes the array the container holds, as
    Python does (the caller's array is changed too: ``check`` compares the
    arguments' final state), and is differentiated as a new value of the
    item."""
    check(f, *args)


def test_an_item_changed_in_place_is_the_callers_array():
    w = np.array([1.0, 2.0])
    p = {"w": w}
    grads = zpy.gradient(sgd_in_place, p, {"w": np.array([1.0, 1.0])})
    assert p["w"] is w
    np.testing.assert_allclose(w, [0.9, 1.9])
    np.testing.assert_allclose(grads[0]["w"], 2 * w)


def test_an_item_changed_in_place_and_held_elsewhere_is_refused():
    """Where the changed array is also read through another name, the
    value is ambiguous for the gradient: refused, saying what to change."""
    def read_before(p, x):
        w = p["w"]
        p["w"] *= x
        return np.sum(w * x)

    def held_twice(p, x):
        for k in p:
            p[k] *= x
        return sum(np.sum(v) for v in p.values())

    def passed_twice(p, w, x):
        p["w"] *= x
        return np.sum(w) + np.sum(p["w"])

    class Model:
        def __init__(self, w):
            self.w = w

        def step(self, g):
            self.w -= g  # (its caller's pullbacks may hold self.w)
            return np.sum(self.w)

    def stepped(w, g):
        return Model(w * 1.0).step(g)

    a = np.array([1.0, 2.0])
    with pytest.raises(zpy.UnsupportedSyntax, match="write x = x [+] y instead"):
        zpy.gradient(stepped, a, a)
    with pytest.raises(zpy.UnsupportedSyntax, match="while `w`"):
        zpy.gradient(read_before, {"w": a.copy()}, 2.0)
    with pytest.raises(zpy.UnsupportedSyntax, match="holds twice"):
        zpy.gradient(held_twice, {"a": a, "b": a}, 3.0)
    with pytest.raises(zpy.UnsupportedSyntax, match="an array it holds is passed as 'w'"):
        zpy.gradient(passed_twice, {"w": a}, a, 3.0)


def project(u, v, sweeps):
    """A fluid solver's pressure projection: changes both velocities in place."""
    div = np.zeros_like(u)
    div[1:-1] = u[2:] - u[:-2] + v[2:] - v[:-2]
    p = np.zeros_like(u)
    for _ in range(sweeps):
        p[1:-1] = (div[1:-1] + p[2:] + p[:-2]) / 2
    u[1:-1] -= 0.5 * (p[2:] - p[:-2])
    v[1:-1] -= 0.5 * (p[2:] - p[:-2])


def fluid_steps(u, v):
    for _ in range(3):
        project(u, v, 3)
        u *= 0.9
        v += 0.1 * np.roll(u, 1)
    return np.sum(u ** 2 + v ** 3)


def test_a_function_changing_two_arguments_in_place_called_in_a_loop():
    """``project(u, v)`` changes both: the call hands back the second as
    a change of its own (``mutation.handed_back``); the caller's arrays
    end as Python leaves them."""
    check(fluid_steps, np.linspace(0.0, 1.0, 6), np.linspace(1.0, 2.0, 6) ** 2)


def running_sums(xs):
    s = [0.0]

    def acc(x):
        s[0] += x
        return s[0]
    return sum(map(acc, xs))


def history_in_a_closure(x):
    hist = []
    state = {"v": x * 1.0}

    def step(dt):
        state["v"] = state["v"] * (1.0 - dt)
        hist.append(np.sum(state["v"] ** 2))
    for dt in (0.1, 0.2, 0.3):
        step(dt)
    return sum(hist) + sum(map(lambda h: h * 0.5, hist))


def test_a_closure_keeping_state_in_a_captured_container():
    """A nested function that changes an object it captures (``s[0] +=
    x``, ``hist.append``) hands it back like a ``nonlocal`` it assigns;
    ``map`` over it, read to its end, calls it where it is defined."""
    assert zpy.gradient(running_sums, [1.0, 2.0, 3.0]) == ([3.0, 2.0, 1.0],)
    check(running_sums, [0.5, -1.5, 2.0, 0.25])
    check(history_in_a_closure, RNG.randn(3))


def test_a_loop_changing_what_it_goes_over_reads_it_as_python_does():
    def doubled_in_turn(xs):
        for k in xs:
            xs[int(k)] = xs[int(k)] * 2.0 + xs[-1]
        return xs[0] + xs[1] * xs[2]

    check(doubled_in_turn, [0.25, 1.5, 2.5])


def test_keys_of_refuses_what_is_no_dict():
    from zygote_py.ad import mutation

    assert mutation.keys_of({"a": 1, "b": 2}) == ["a", "b"]
    with pytest.raises(zpy.errors.UnsupportedSyntax):
        mutation.keys_of([1.0, 2.0])


# -- imports inside a function ------------------------------------------------------


def imports_inside(x):
    import math
    import numpy.linalg as la
    from numpy import tanh

    return math.sin(x[0]) * la.norm(x) + np.sum(tanh(x))


def test_imports_inside_a_function():
    check(imports_inside, V)


# -- errors name the user's line first -----------------------------------------------


def variance_of_three(x):
    import statistics

    return statistics.variance([x[0], x[1], x[2]]) * x[0]


def test_an_error_in_a_library_names_the_users_line_first():
    with pytest.raises(zpy.errors.ZygoteError) as caught:
        zpy.gradient(variance_of_three, np.arange(3.0))
    text = str(caught.value)
    first = text.splitlines()[0]
    assert first.startswith("in function 'variance_of_three'") and __file__ in first, text
    assert "statistics.py" in text.split(first, 1)[1], text  # (then the library's function that failed)


def _cubed(a, x):
    return a * np.sum(x ** 3)


def decayed(k):
    g = functools.partial(_cubed, 2.0)  # (second derivatives through a partial's call at run time are refused)
    return g(k)


def test_an_error_at_second_order_names_the_users_function():
    with pytest.raises(zpy.errors.ZygoteError) as caught:
        zpy.hvp(decayed, (V[:2] ** 2,), (V[:2],))
    first = str(caught.value).splitlines()[0]
    assert first.startswith("in function 'decayed'") and __file__ in first, str(caught.value)


def test_a_numpy_method_is_named_as_a_user_writes_it():
    from zygote_py import registry

    assert registry.display_name(np.ndarray.sum) == "np.ndarray.sum"
    assert registry.display_name(dict.get) == "dict.get"


# -- methods that keep state with no gradient ---------------------------------------


class Counted:
    def __init__(self, w):
        self.w = w
        self.calls = 0
        self.cache = None

    def predict(self, x):
        self.calls += 1
        return np.sum(np.tanh(self.w * x))

    def remember(self, x):
        self.cache = x
        return np.sum(self.w * x)

    def scale(self, k):
        self.w = self.w * k
        return np.sum(self.w)


def counted_twice(x):
    m = Counted(np.linspace(0.5, 1.5, 5))
    return m.predict(x) + m.predict(x * 2.0) * 0.5


def cached_then_read(x):
    m = Counted(np.ones(5))
    return m.remember(x) + np.sum(m.cache ** 2)


def test_a_method_bumping_a_counter_or_caching():
    check(counted_twice, V)
    check(cached_then_read, V)


def test_a_method_on_an_argument_bumping_a_counter():
    def loss(m, x):
        return m.predict(x) + m.predict(x * 2.0) * m.calls

    w = np.linspace(0.5, 1.5, 5)
    g_model, g_x = zpy.gradient(loss, Counted(w), V)
    assert g_model.calls is None
    (want_x,) = mutation_check(lambda x: loss(Counted(w), x), V)
    (want_w,) = mutation_check(lambda w: loss(Counted(w), V), w)
    np.testing.assert_allclose(g_x, want_x)
    np.testing.assert_allclose(g_model.w, want_w)


def test_a_method_changing_a_differentiated_field_of_an_argument_read_again():
    # (refused before: m, an argument, is changed as a new version of it, whose later reads are differentiated)
    def loss(m, x):
        return m.scale(x) + np.sum(m.w)

    w = np.array([1.0, 2.0, 3.0])
    g_model, g_x = zpy.gradient(loss, Counted(w), 2.0)
    np.testing.assert_allclose(g_model.w, [4.0, 4.0, 4.0])  # (loss = 2 x sum(w))
    assert g_x == pytest.approx(12.0)
    (want_w,) = mutation_check(lambda w: loss(Counted(w), 2.0), w)
    np.testing.assert_allclose(g_model.w, want_w)
    assert zpy.jvp(loss, (Counted(w), 2.0), (zpy.Tangent(w=np.ones(3)), 1.0))[1] == pytest.approx(24.0)
    h_model, h_x = zpy.hvp(loss, (Counted(w), 2.0), (zpy.Tangent(w=np.ones(3)), 1.0))
    np.testing.assert_allclose(h_model.w, [2.0, 2.0, 2.0])
    assert h_x == pytest.approx(6.0)


# -- found by a red team ------------------------------------------------------------------


def dropout_then_noise(W, x):
    rng = np.random.RandomState(42)
    h = np.tanh(x @ W)
    mask = (rng.rand(*h.shape) > 0.3) / 0.7  # (h's kind is not known where this is compiled)
    h = h * mask
    noise = rng.normal(size=h.shape) * 0.01
    return np.sum((h + noise) ** 2) + np.sum(h.mean(axis=0, keepdims=True) ** 2)


def filled_by_its_own_length(x):
    out = np.zeros(len(x) - 1)
    for i in range(out.shape[0]):
        out[i] = x[i] * x[i + 1]
    return np.sum(out)


def grouped_by_parity(x):
    from collections import defaultdict

    groups = defaultdict(list)
    for i, v in enumerate(x):
        groups[i % 2].append(v * v)
    return sum(sum(vs) for vs in groups.values())


@pytest.mark.parametrize("f, args", [(dropout_then_noise, (RNG.randn(3, 4), RNG.randn(2, 3))),
                                     (filled_by_its_own_length, (V,)), (grouped_by_parity, (V,))])
def test_red_team_programs(f, args):
    check(f, *args)


def test_a_closure_given_to_jvp_holds_what_it_captured_fixed():
    B = RNG.randn(3, 5)
    check(lambda x: np.sum(np.tanh(B @ x)), V)


def test_hvp_of_structured_arguments():
    @dataclasses.dataclass
    class Params:
        w: np.ndarray
        s: float

    def of_dict(p):
        return np.sum(p["w"] ** 3) * p["s"]

    def of_list(ps):
        return np.sum(ps[0] ** 3) + ps[1] * np.sum(ps[0])

    def of_object(q):
        return np.sum(q.w ** 2) * q.s

    w, dw = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    got = zpy.hvp(of_dict, ({"w": w, "s": 0.3},), ({"w": dw, "s": 1.0},))[0]
    np.testing.assert_allclose(got["w"], 6 * w * dw * 0.3 + 3 * w ** 2 * 1.0)
    assert got["s"] == pytest.approx(np.sum(3 * w ** 2 * dw))
    got = zpy.hvp(of_list, ([w, 0.5],), ([dw, 1.0],))[0]
    np.testing.assert_allclose(got[0], 6 * w * dw + 1.0)
    assert got[1] == pytest.approx(np.sum(dw))
    got = zpy.hvp(of_object, (Params(w, 0.3),), (zpy.Tangent(w=dw, s=1.0),))[0]
    np.testing.assert_allclose(got.w, 2 * dw * 0.3 + 2 * w)
    assert got.s == pytest.approx(np.sum(2 * w * dw))


def reported(a, b):
    msg = "a={:.3f}, b={}".format(a, b)
    note = "%s %d" % (a, len(msg))
    record = json.dumps({"a": a, "b": b, "note": note})
    return a * b + 0.0 * len(record) + len(" ".join([msg, note])) * 0.0


def reversed_list(a, b):
    items = [a, b]
    items[0] = items[0] * 2
    items.insert(1, a + b)
    last = items.pop()
    items += [last * 3]
    items.reverse()
    return items[0] * items[1] + items[2]


class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.items = []


def sorted_in_place(x):
    acc = Accumulator()
    for v in x:
        acc.total += v ** 2
        acc.items.append(v * v * v)
    acc.items.sort()
    return acc.total + acc.items[0] * 2.0 + acc.items[-1]


def test_text_made_of_values_has_no_gradient():
    check(reported, 0.25, 3.0)


def test_a_list_reversed_or_sorted_in_place():
    check(reversed_list, 1.5, 0.5, second=False)  # (second order: refused, reverse_ changes its argument)
    check(sorted_in_place, V, forward=False, second=False)  # (second order: refused, as reverse)
    with pytest.raises(zpy.errors.ZygoteError):  # (forward mode: list.sort has no pushforward)
        zpy.jvp(sorted_in_place, (V,), (V,))


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float
    c: float


def replaced(p):
    q = dataclasses.replace(p, a=p.a * 2.0, c=p.c + p.b)
    return q.a * q.b + q.c ** 2 * p.a


def test_dataclasses_replace():
    from .test_structures import assert_jvp_structural

    assert_jvp_structural(replaced, Frozen(1.5, 0.7, -0.4))


def reordered(a):
    od = collections.OrderedDict()
    od["first"] = a ** 2
    od["second"] = np.exp(a)
    od.move_to_end("first")
    values = list(od.values())
    return np.sum(values[0]) - np.sum(values[-1])


def test_an_ordered_dict_reordered():
    check(reordered, V)


# -- a method's value read after another call of a method of its object ------------


class Autoencoder:
    def __init__(self, w):
        self.w = w

    def encode(self, x):
        return np.tanh(self.w @ x)

    def decode(self, z):
        return self.w.T @ z

    def loss(self, x):
        z = self.encode(x)
        rebuilt = self.decode(z)  # (a call that may change self, for all the compiler knows)
        return np.sum((rebuilt - x) ** 2) + 0.1 * np.sum(z ** 2)


class Cell:
    def __init__(self, w):
        self.w = w
        self.steps = 0

    def step(self, x, h):
        self.steps += 1  # (a change of self: h and out are made apart from it)
        h = np.tanh(self.w * h + x)
        return h, 2.0 * h

    def run(self, xs):
        h, outs = np.zeros_like(xs[0]), []
        for x in xs:
            h, out = self.step(x, h)
            outs.append(out)
        return sum(np.sum(o ** 2) for o in outs) + np.sum(h)


def autoencoder_loss(w, x):
    return Autoencoder(w).loss(x)


def cell_run(w, xs):
    return Cell(w).run(xs)


def model_argument_loss(m, x):
    return m.loss(x)


def test_a_methods_value_made_apart_from_its_object_is_read_after_another_call():
    """``z = self.encode(x); self.decode(z)``, then ``z`` read again: the
    second call may change ``self`` for all the compiler knows, and ``z``,
    made apart from ``self`` (it shares no memory with ``self.w``), is
    the same after it, as for a tuple of such values."""
    check(autoencoder_loss, RNG.randn(2, 3), RNG.randn(3))
    check(cell_run, RNG.randn(3), RNG.randn(4, 3))
    check(model_argument_loss, Autoencoder(RNG.randn(2, 3)), RNG.randn(3), forward=False)


def test_a_methods_value_that_is_part_of_its_object_is_refused_after_a_change():
    """``w = m.weights()`` is ``m.w`` itself, which ``m.grow()`` changes in
    place: ``w`` would see the change, which the gradient would not."""
    class Grown:
        def __init__(self, w):
            self.w = w

        def weights(self):
            return self.w

        def grow(self):
            self.w += 1.0

    def grown(w, x):
        m = Grown(w)
        before = m.weights()
        m.grow()
        return np.sum(before * x)

    with pytest.raises(zpy.UnsupportedSyntax, match="may be part of it"):
        zpy.gradient(grown, RNG.randn(3), RNG.randn(3))


def sgd_on_its_own_gradient(w, b):
    p = {"w": w.copy(), "b": b.copy()}
    for _ in range(3):
        g = {k: 2 * v + 0.1 * np.sin(v) for k, v in p.items()}
        for k in p:
            p[k] -= 0.1 * g[k]  # (g is read after each change of p: it holds new arrays, not p's)
    return np.sum(p["w"] ** 3) + np.sum(p["b"] ** 2)


def test_a_dict_changed_in_a_loop_over_it_by_a_gradient_made_from_it():
    """``g = {k: 2 * v ... for k, v in p.items()}`` then ``for k in p: p[k]
    -= lr * g[k]``: ``g`` is made from ``p`` and read after each change of
    ``p``, and holds nothing of it (arithmetic makes new arrays, checked
    where it runs; its keys are strings)."""
    check(sgd_on_its_own_gradient, RNG.randn(2), RNG.randn(1))
