"""Forward mode (``zpy.jvp``): the pushforward transform on the whole
control-flow corpus, on NumPy code, on changes made in place, on calls
between functions, and its refusals. Every tangent is checked against
central finite differences of the plain function."""
import copy
import functools
import math

import numpy as np
import pytest

import zygote_py as zpy

from . import programs, test_higher_order, test_mutation, test_numpy
from .fdcheck import central_difference, close, float_positions
from .test_control_flow import CASES


def assert_jvp(f, *args, rtol=1e-6):
    """``jvp`` along each float argument in turn: the value is exactly
    ``f(*args)`` and the tangent is the central difference."""
    for i in float_positions(args):
        tangents = tuple(1.0 if j == i else None for j in range(len(args)))
        y, dy = zpy.jvp(f, args, tangents)
        assert y == f(*args), (f.__name__, args, y)
        slope, rounding = central_difference(f, args, i)
        assert close(dy, slope, rounding, rtol), (f.__name__, args, i, dy, slope)


@pytest.mark.parametrize("name,args", [(n, a) for n, pts in CASES.items() for a in pts if hasattr(programs, n)])
def test_control_flow_corpus(name, args):
    assert_jvp(getattr(programs, name), *args)


STEP = 1e-6


def _direction(x, rng):
    """A random tangent of ``x``: same shape and kind for floats and float
    arrays (and tuples, lists and dicts of them), ``None`` for the rest."""
    if isinstance(x, float):
        return float(rng.standard_normal())
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return rng.standard_normal(x.shape).astype(x.dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_direction(v, rng) for v in x)
    if isinstance(x, dict):
        return {k: _direction(v, rng) for k, v in x.items()}
    return None


def _step(x, v, h):
    if v is None:
        return copy.deepcopy(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_step(a, b, h) for a, b in zip(x, v))
    if isinstance(x, dict):
        return {k: _step(x[k], v[k], h) for k in x}
    return x + h * v


def assert_directional(f, *args, rtol=1e-6, seed=0):
    """``jvp`` along a random direction of every float in the arguments
    against the central difference along it; the value and the changes
    made to the arguments are those of the plain call."""
    rng = np.random.default_rng(seed)
    tangents = tuple(_direction(a, rng) for a in args)
    plain = copy.deepcopy(args)
    expected = f(*plain)
    ours = copy.deepcopy(args)
    y, dy = zpy.jvp(f, ours, copy.deepcopy(tangents))
    np.testing.assert_array_equal(y, expected)
    h = STEP
    hi = f(*[_step(a, t, h) for a, t in zip(args, tangents)])
    lo = f(*[_step(a, t, -h) for a, t in zip(args, tangents)])
    slope = (np.asarray(hi) - np.asarray(lo)) / (2 * h)
    np.testing.assert_allclose(dy, slope, rtol=rtol, atol=1e-7 * (1 + np.max(np.abs(slope))))
    return dy


@pytest.mark.parametrize("f, args", test_numpy.PROGRAMS + test_numpy.ITEM_PROGRAMS,
                         ids=lambda v: getattr(v, "__name__", None))
def test_numpy_programs(f, args):
    assert_directional(f, *args)


MUTATION = (test_mutation.ARRAY_CASES + test_mutation.LIST_CASES + test_mutation.DICT_CASES
            + test_mutation.PART_CASES + test_mutation.CALL_CASES + test_mutation.METHOD_CASES)


REFUSED_CHANGES = {"change_then_capture_a_constant"}
"""An array made in the function that a nested function captures, changed
with a differentiated value (its tangent could not follow it into the
nested function), which forward mode refuses."""


@pytest.mark.parametrize("f, args", [c for c in MUTATION if c[0].__name__ not in REFUSED_CHANGES],
                         ids=lambda v: getattr(v, "__name__", None))
def test_changes_in_place(f, args):
    assert_directional(f, *args)


def scales_by_a_closure(xs, w):
    return list(map(lambda v: v * w, xs))


@pytest.mark.parametrize("f, args", [c for c in MUTATION if c[0].__name__ in REFUSED_CHANGES],
                         ids=lambda v: getattr(v, "__name__", None))
def test_refusals_name_the_line(f, args):
    with pytest.raises(zpy.ZygoteError) as e:
        zpy.jvp(f, args, tuple(_direction(a, np.random.default_rng(0)) for a in args))
    assert "forward mode" in str(e.value) and e.value.line is not None and e.value.filename.endswith(".py")


def test_a_map_read_to_its_end_calls_its_lambda_where_it_is_defined():
    # (it was refused: a closure over a differentiated value passed on; list(map(...)) is a list comprehension)
    y, dy = zpy.jvp(scales_by_a_closure, ([0.5, 1.5], 2.0), ([1.0, -1.0], 0.5))
    assert y == [1.0, 3.0] and dy == [1.0 * 2.0 + 0.5 * 0.5, -1.0 * 2.0 + 1.5 * 0.5]


def scaled_by_a_closure(x, n):
    def g(v):
        return v * n
    return g(x)


def test_each_closure_runs_with_its_own_cells():
    """A nested function's pushforward is compiled once for its code: it
    read the cells of the closure it was compiled for, so a second call of
    the outer function computed with the first's ``n`` (value and tangent
    2.0 where they are 3.0)."""
    assert zpy.jvp(scaled_by_a_closure, (1.0, 2), (1.0, None)) == (2.0, 2.0)
    assert zpy.jvp(scaled_by_a_closure, (1.0, 3), (1.0, None)) == (3.0, 3.0)


def make_loss(target):
    def loss(pred):
        return np.sum((pred - target) ** 2)
    return loss


def scaled(factor):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return factor * fn(*args, **kwargs)
        return wrapper
    return deco


@scaled(3.0)
def scaled_energy(x, k=1.0):
    return 0.5 * k * np.sum(x ** 2)


def wrap_twice(fn):
    return lambda v: 2.0 * fn(v)


def calls_a_closure_over_a_constant(x):
    a = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    g = lambda y: a @ y  # noqa: E731
    return np.sum(np.sin(g(x)))


def calls_a_made_loss(x):
    return make_loss(np.array([1.0, 2.0, -0.5]))(x * 2)


def calls_a_decorated_global(x):
    return scaled_energy(x, k=np.sum(x))


def calls_a_loss_made_of_its_argument(x):
    return make_loss(x * x)(np.array([1.0, 2.0, -0.5]))


def wraps_a_closure_given_by_map(x):
    s = x[0]
    return sum(map(lambda fn, v: wrap_twice(fn)(v), [lambda v: s * v * v], [x[1]]))


def calls_a_closure_given_by_reduce(x):
    s = x[0]
    return functools.reduce(lambda a, b: a + s * b * x[1], [1.0, 2.0, 3.0])


CLOSURES_OVER_CONSTANTS = [calls_a_closure_over_a_constant, calls_a_made_loss, calls_a_decorated_global,
                           calls_a_loss_made_of_its_argument]


@pytest.mark.parametrize("f", CLOSURES_OVER_CONSTANTS + [wraps_a_closure_given_by_map])
def test_a_closure_over_constants_made_here_has_a_zero_tangent(f):
    """A closure made in the function of constants alone (autograd's
    ``A = np.ones(...); g = lambda x: A @ x``, a loss from a factory, a
    decorated global) is called: it was refused, as a closure that captured
    differentiable values and got no tangent. One whose captured values are
    differentiated gets their tangents."""
    assert_directional(f, np.array([0.3, -0.7, 1.1]))


@pytest.mark.parametrize("f", CLOSURES_OVER_CONSTANTS)
def test_hvp_through_a_closure_over_constants_is_forward_over_reverse(f, monkeypatch):
    """The same, gradient code pushed forward: ``J``'s callee and the code
    of its pullback hold those constants too."""
    from zygote_py import derivatives

    monkeypatch.setattr(derivatives, "_hvp_reverse", None)  # forward over reverse, or a TypeError
    x, v, h = np.array([0.3, -0.7, 1.1]), np.array([0.5, 0.2, -0.4]), 1e-6
    fd = (zpy.gradient(f, x + h * v)[0] - zpy.gradient(f, x - h * v)[0]) / (2 * h)
    np.testing.assert_allclose(zpy.hvp(f, (x,), (v,))[0], fd, rtol=1e-5, atol=1e-7)


def test_a_closure_a_rule_calls_is_refused_if_it_captured_differentiated_values():
    """``functools.reduce`` pushes its function forward without a tangent
    of its own: a closure it is given that captured a differentiated value
    is refused, never given a zero tangent."""
    with pytest.raises(zpy.ZygoteError, match="captures differentiable values"):
        zpy.jvp(calls_a_closure_given_by_reduce, (np.array([0.3, -0.7]),), (np.array([1.0, 0.5]),))


def helper(a, b=2.0):
    return a * b + math.sin(a)


def calls_a_helper(x, y):
    return helper(x, y) + helper(y) * x


def test_calls_between_functions_and_defaults():
    assert_jvp(calls_a_helper, 0.7, -1.2)


def test_jvp_of_a_function_with_a_rule_and_of_a_method():
    y, dy = zpy.jvp(np.sin, (np.array([0.5, 1.0]),), (np.array([1.0, 2.0]),))
    np.testing.assert_allclose(dy, np.cos([0.5, 1.0]) * [1.0, 2.0])

    class Scaled:
        def __init__(self, k):
            self.k = k

        def apply(self, x):
            return self.k * x * x

    y, dy = zpy.jvp(Scaled(3).apply, (2.0,), (1.0,))
    assert (y, dy) == (12.0, 12.0)


def test_tangents_keep_dtypes_and_zero_tangents_are_concrete():
    x = np.linspace(0.1, 1.0, 4).astype(np.float32)
    y, dy = zpy.jvp(lambda v: np.exp(v) * 2.0, (x,), (np.ones(4, np.float32),))
    assert dy.dtype == np.float32
    np.testing.assert_allclose(dy, np.exp(x) * 2.0, rtol=1e-6)
    y, dy = zpy.jvp(helper, (0.3, 1.5), (None, None))
    assert dy == 0.0
    y, dy = zpy.jvp(lambda v, w: np.sum(v) * 2.0, (x, 1.0), (None, 1.0))
    assert dy == 0.0


def test_complex_tangents_are_not_conjugated():
    z = np.array([1.0 + 2.0j, -0.5 + 0.1j])
    dz = np.array([0.3 - 1.0j, 2.0 + 0.5j])
    y, dy = zpy.jvp(lambda v: np.exp(v) * v, (z,), (dz,))
    np.testing.assert_allclose(dy, (np.exp(z) * z + np.exp(z)) * dz, rtol=1e-12)


def test_shapes_must_match():
    with pytest.raises(ValueError, match="shape"):
        zpy.jvp(np.sin, (np.ones(3),), (np.ones(2),))


def wide(x):
    return np.outer(np.sin(x), np.cos(x)).ravel()


def test_jacobian_of_a_wide_output_takes_forward_mode(monkeypatch):
    from zygote_py import derivatives

    x = np.array([0.3, -1.1])
    expected = derivatives._jacobian_reverse(wide, (x,))[0]
    monkeypatch.setattr(derivatives, "_jacobian_reverse", None)  # forward mode, or a TypeError
    (j,) = zpy.jacobian(wide, x)
    assert j.shape == (4, 2)
    np.testing.assert_allclose(j, expected, rtol=1e-12)
    h = 1e-6
    fd = np.stack([(wide(x + h * e) - wide(x - h * e)) / (2 * h) for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(j, fd, rtol=1e-6, atol=1e-9)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def softmax_loss(w, x):
    z = x @ w
    p = np.exp(z - np.max(z))
    return -np.log(p[1] / np.sum(p)) + 0.1 * np.sum(w * w)


@pytest.mark.parametrize("f, args", [
    (rosenbrock, (np.array([0.3, -0.7, 1.2, 0.5]),)),
    (softmax_loss, (np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]]), np.array([1.0, -2.0]))),
])
def test_hvp_and_hessian_are_forward_over_reverse(monkeypatch, f, args):
    from zygote_py import derivatives

    monkeypatch.setattr(derivatives, "_hvp_reverse", None)  # forward over reverse, or a TypeError
    h = zpy.hessian(f, *args)
    first = h if len(args) == 1 else h[0][0]
    x = args[0]
    step = 1e-6
    columns = []
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = step
        hi = zpy.gradient(f, x + e, *args[1:])[0]
        lo = zpy.gradient(f, x - e, *args[1:])[0]
        columns.append((hi - lo) / (2 * step))
    fd = np.stack(columns, axis=-1).reshape(x.shape + x.shape)
    np.testing.assert_allclose(first, fd, rtol=1e-5, atol=1e-6)


HIGHER_ORDER = (test_higher_order.MAP_CASES + test_higher_order.FILTER_CASES + test_higher_order.ZIP_CASES
                + test_higher_order.ENUMERATE_CASES + test_higher_order.SORTED_CASES + test_higher_order.MIN_MAX_CASES
                + test_higher_order.REDUCE_CASES + test_higher_order.LIST_TUPLE_CASES)


@pytest.mark.parametrize("f, args", HIGHER_ORDER, ids=lambda v: getattr(v, "__name__", None))
def test_higher_order_functions(f, args):
    try:
        assert_directional(f, *args)
    except zpy.ZygoteError as e:  # a closure over a differentiated value: refused, never wrong
        assert "captures differentiable values" in str(e) or "nested function" in str(e), e


def test_checkpoint_hook_and_stop_gradient():
    def f(x, y):
        a = zpy.checkpoint(lambda u, v: u * math.sin(v), x, y)
        b = zpy.hook(lambda g: 2 * g, x * y)
        return a + b + zpy.stop_gradient(x) * y

    assert_jvp(lambda x, y: f(x, y) - zpy.stop_gradient(x) * y, 0.7, 1.3)
    y, dy = zpy.jvp(f, (0.7, 1.3), (1.0, 0.0))
    assert dy == pytest.approx(math.sin(1.3) + 1.3)


def shares_a_tangent_then_changes(a, b):
    y = b + 0.0  # (the zero tangent dropped: y's tangent is b's)
    y += a
    return np.sum(y * b)


def test_a_changed_object_owns_its_tangent():
    assert_directional(shares_a_tangent_then_changes, np.array([0.5, -1.0]), np.array([2.0, 0.3]))
    y, dy = zpy.jvp(shares_a_tangent_then_changes, (np.array([0.5, -1.0]), np.array([2.0, 0.3])),
                    (np.zeros(2), np.array([1.0, 0.0])))
    assert dy == pytest.approx(2 * 2.0 + 0.5)


def outer_product(a, b):
    return np.sum(np.multiply.outer(a, b) ** 2 * a[0])


def test_a_ufunc_method_with_a_pushforward():
    assert_directional(outer_product, np.array([0.5, -1.2]), np.array([2.0, 0.3, 1.1]))


class Point:
    scale = 2.0

    def __init__(self, x, y):
        self.x, self.y = x, y

    @property
    def sq(self):
        return self.x * self.x + self.y


def reads_fields(p, w):
    return p.sq * w + p.x * p.scale


def test_fields_properties_and_class_constants_of_an_argument():
    p = Point(3.0, 0.5)
    y, dy = zpy.jvp(reads_fields, (p, 1.5), (zpy.Tangent(x=1.0, y=0.0), 0.0))
    assert (y, dy) == (reads_fields(p, 1.5), pytest.approx(6.0 * 1.5 + 2.0))
    y, dy = zpy.jvp(reads_fields, (p, 1.5), (zpy.Tangent(x=0.0, y=1.0), 1.0))
    assert dy == pytest.approx(1.5 + 9.5)


def sorted_dot(q):
    return np.sum(np.sort(q) * q)


def test_a_module_function_named_like_a_list_method():
    """``np.sort(q)`` is NumPy's function, not a ``sort`` method changing
    ``np`` in place."""
    assert_directional(sorted_dot, np.array([1.47, 0.2, -0.9]))


class _Scale:
    def __init__(self, w):
        self.w = w

    def apply(self, x):
        return self.w * x


class _Twice(_Scale):
    def apply(self, x):
        return 2.0 * super().apply(x)


def apply_a_subclass(o, x):
    return o.apply(x) * x


def build_and_apply_a_subclass(w):
    return _Twice(w).apply(2.0)


def test_a_method_called_through_super_has_its_objects_tangent():
    """(``super().apply(x)`` was pushed forward with no tangent for the
    object: 0.0 for 2 * 0.8 ** 2 along ``w``.)"""
    y, dy = zpy.jvp(apply_a_subclass, (_Twice(0.5), 0.8), (zpy.Tangent(w=1.0), 0.0))
    assert (y, dy) == (pytest.approx(0.64), pytest.approx(1.28))
    y, dy = zpy.jvp(apply_a_subclass, (_Twice(0.5), 0.8), (zpy.Tangent(w=0.0), 1.0))
    assert dy == pytest.approx(4 * 0.5 * 0.8)
    assert zpy.jvp(build_and_apply_a_subclass, (0.5,), (1.0,)) == (2.0, 4.0)


class _Pairs:
    """An iterator whose ``__iter__`` returns it without starting over."""

    def __init__(self, xs):
        self.xs, self.i = xs, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i + 1 >= len(self.xs):
            raise StopIteration
        self.i += 1
        return self.xs[self.i - 1], self.xs[self.i]


def squared_steps(x):
    return sum((b - a) ** 2 for a, b in _Pairs(x))


def two_pairs_by_next(x):
    pairs = _Pairs(x)
    a, b = next(pairs)
    c, d = next(pairs)
    return a * d - b * c


@pytest.mark.parametrize("f", [squared_steps, two_pairs_by_next])
def test_an_iterators_own_next_is_refused_where_its_items_were_read(f):
    """Forward mode crashed (``StopIteration``; ``'Tangent' object is not
    an iterator``): the items were read for the value, then the tangent
    pushed ``__next__`` again, or took the object's tangent for an
    iterator. Refused as reverse mode refuses them, saying what to
    change."""
    x = np.array([0.1, 0.7, 0.2, 1.5])
    with pytest.raises(zpy.NoDerivativeRule, match="start over in __iter__|make it a list first"):
        zpy.jvp(f, (x,), (np.ones(4),))
    with pytest.raises(zpy.NoDerivativeRule, match="start over in __iter__|make it a list first"):
        zpy.gradient(f, x)
