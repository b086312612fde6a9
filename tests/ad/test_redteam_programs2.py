"""Programs from the red-team corpus (issue 30) and from a second red team
of forty, written the way scientists write them, kept where they found a
bug. Each is checked with ``test_real_code.check``: reverse mode against
central differences, forward mode along a random direction, and
``zpy.hvp`` against central differences of the gradient; a function of
an object with :func:`check_object`, the same along a direction given as
a ``Tangent``.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import zygote_py as zpy

from .test_real_code import check

P = np.array([0.1, 0.5, 0.9, 0.2])


def filtered_and_sorted(x):
    # (hvp: the slice of a list made from an array gave the array's gradient's
    # cotangent as a list, and the division in prod's pullback failed on it)
    big = list(filter(lambda v: v > 0.3, x))
    return sum(big) * len(big) + np.prod(sorted(x)[:2]) + np.prod(list(x)[1:3])


def test_a_slice_of_a_list_made_from_an_array_at_second_order():
    check(filtered_and_sorted, P)


def _model(x, theta, kind="poly", degree=2, **opts):
    if kind == "poly":
        y = sum(theta[i] * x ** i for i in range(degree + 1))
    else:
        y = theta[0] * np.exp(theta[1] * x)
    if opts.get("clip", False):
        y = np.clip(y, -opts["bound"], opts["bound"])
    return y


def configured_by_a_dict(theta):
    # (forward mode: **opts's tangent lacked the keys given no tangent, and
    # opts["bound"] raised KeyError; hvp: f(**cfg) in gradient code was pushed
    # by its adjoint, which ran the user's pullback once per component)
    x = np.linspace(0, 1, 5)
    cfg = {"kind": "poly", "degree": 2, "clip": True, "bound": 1.5}
    return np.sum(_model(x, theta, **cfg) ** 2)


def test_options_passed_as_a_spread_dict():
    check(configured_by_a_dict, np.array([0.2, 1.0, 0.7]))


class _Box:
    def __init__(self, w):
        self._w = w

    @property
    def w(self):
        return self._w

    @w.setter
    def w(self, v):
        self._w = np.clip(v, -1.0, 1.0)

    def energy(self):
        return np.sum(self.w ** 2)


def assigned_through_a_setter(x):
    # (forward mode refused an assignment through a property's setter)
    b = _Box(x)
    b.w = b.w * 1.5
    return b.energy() + np.sum(b.w)


def test_an_assignment_through_a_property_setter():
    check(assigned_through_a_setter, np.array([0.3, -0.9, 0.5]))


def energy_history(params):
    # (a list read by an item, energy[-1], and by np.mean: the item's gradient
    # (a list) and np.mean's (an array) were added with +, which crashed)
    k, c = params
    x, v = 1.0, 0.0
    energy = []
    for i in range(60):
        a = -k * x - c * v
        v += a * 0.01
        x += v * 0.01
        e = 0.5 * v * v + 0.5 * k * x * x
        energy.append(e)
        if e < 1e-3:
            break
    return energy[-1] + np.mean(energy)


def _flatten(xs):
    out = []
    for x in xs:
        if isinstance(x, list):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out


def flattened_product(a, b):
    # (hvp: the cotangent of np.prod's gradient of a list reached it as a list)
    items = _flatten([a, [b, [a * 2.0, [b * b]]], a + b])
    return np.prod(items) + sum(items)


def test_a_list_read_by_an_item_and_by_a_numpy_function():
    check(energy_history, np.array([4.0, 0.3]))
    check(flattened_product, 0.7, 1.3)


def _moved(obj, direction, h):
    """A copy of ``obj`` whose fields moved by ``h`` along the tangent
    ``direction`` (a list field item by item)."""
    out = copy.deepcopy(obj)
    for k, d in zpy.tangent.entries(direction).items():
        v = getattr(obj, k)
        object.__setattr__(out, k, [a + h * b for a, b in zip(v, d)] if isinstance(v, list) else v + h * d)
    return out


def _flat(t, names):
    """The fields ``names`` of a tangent as one vector."""
    return np.concatenate([np.ravel(np.asarray(getattr(t, k) if getattr(t, k) is not None else 0.0, float))
                           for k in names])


def check_object(f, obj, direction):
    """``f(obj)``'s gradient along ``direction``, its ``jvp`` and its
    ``hvp`` against central differences (each on a copy of ``obj``: ``f``
    may change it, a method caching a value on it)."""
    h = 1e-6
    slope = (f(_moved(obj, direction, h)) - f(_moved(obj, direction, -h))) / (2 * h)
    (g,) = zpy.gradient(f, copy.deepcopy(obj))
    names = list(zpy.tangent.entries(direction))
    assert np.dot(_flat(g, names), _flat(direction, names)) == pytest.approx(slope, rel=1e-6), f.__name__
    y, dy = zpy.jvp(f, (copy.deepcopy(obj),), (direction,))
    assert y == pytest.approx(f(copy.deepcopy(obj))) and dy == pytest.approx(slope, rel=1e-6), f.__name__
    (hv,) = zpy.hvp(f, (copy.deepcopy(obj),), (direction,))
    h = 1e-5
    (up,), (down,) = zpy.gradient(f, _moved(obj, direction, h)), zpy.gradient(f, _moved(obj, direction, -h))
    np.testing.assert_allclose(_flat(hv, names), (_flat(up, names) - _flat(down, names)) / (2 * h),
                               rtol=1e-5, atol=1e-7, err_msg=f.__name__)


# -- an object whose class's __iter__ is Python ----------------------------------------


class _Yielding:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        yield self.a
        yield self.b * 2.0


class _Holding:
    def __init__(self, a, b):
        self.items = [a, b]

    def __iter__(self):
        return iter(self.items)


class _Counting:
    def __init__(self, a, b):
        self.items = [a, b]
        self.i = 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= len(self.items):
            raise StopIteration
        self.i += 1
        return self.items[self.i - 1] * 1.5


class _Keyword:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __iter__(self):
        return iter(self.__dict__.values())

    def __len__(self):
        return len(self.__dict__)


def read_whole(p):
    # (sum(p), list(p), unpacking and a generator over p were refused; only a
    # for loop was differentiated, in reverse mode)
    a, b = p
    return np.sum(sum(p)) * np.sum(list(p)[0] * b) + max(p, key=np.sum).sum() + sum(np.sum(v ** 2) for v in p)


def mean_square(p):
    return sum(np.sum(v ** 2) for v in p) / len(p)


A, B = np.array([1.0, 2.0]), np.array([0.5, -0.3])


@pytest.mark.parametrize("obj, direction", [
    (_Yielding(A, B), zpy.Tangent(a=np.array([1.0, 1.0]), b=np.array([1.0, 2.0]))),
    (_Holding(A, B), zpy.Tangent(items=[np.array([1.0, 1.0]), np.array([1.0, 2.0])])),
    (_Counting(A, B), zpy.Tangent(items=[np.array([1.0, -1.0]), np.array([0.5, 2.0])])),
])
def test_an_objects_items_through_its_own_iter(obj, direction):
    check_object(read_whole, obj, direction)


def test_an_iter_over_the_objects_dict():
    # (hvp: obj.__dict__'s gradient at second order was lost, silently 0)
    check_object(mean_square, _Keyword(a=A, b=np.array([[0.5, -0.5]]), c=3.0),
                 zpy.Tangent(a=np.array([1.0, 2.0]), b=np.array([[3.0, 4.0]]), c=5.0))


# -- a method that caches a value on its object ----------------------------------------


class _Fit:
    def __init__(self, t):
        self.t = t
        self._V = None

    def predict(self, coef):
        if self._V is None:
            self._V = np.vander(self.t, 3)
        return self._V @ coef


class _Model:
    def __init__(self, w):
        self.w = w
        self.cache = {}
        self.calls = 0

    def features(self, x):
        key = x.shape
        if key not in self.cache:
            self.cache[key] = np.vander(x, 3)
        self.calls += 1
        return self.cache[key]

    def loss(self, x, y):
        return np.sum((self.features(x) @ self.w - y) ** 2)


def cached_vandermonde(m):
    # (refused: predict changes its argument's field _V, which the second call reads; its
    # gradient must reach t through the first call)
    coef = np.array([0.3, -0.2, 0.5])
    return np.sum(m.predict(coef) ** 2) + np.sum(m.predict(coef * 0.5))


def cached_features(m):
    # (refused: loss changes self only through features, a method it calls on it)
    x = np.array([0.1, 0.5, 0.9, 1.3])
    return m.loss(x, np.sin(x)) + m.loss(x, np.cos(x)) * m.calls


def test_a_method_caching_a_value_on_its_object():
    check_object(cached_vandermonde, _Fit(np.linspace(0.1, 1.0, 5)), zpy.Tangent(t=np.array([1.0, -0.5, 0.3, 2.0, 0.7])))
    check_object(cached_features, _Model(np.array([0.2, 0.4, -0.1])), zpy.Tangent(w=np.array([1.0, 0.5, -2.0])))
