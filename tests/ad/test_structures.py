"""Structural gradients (issue 5, items 1–3): the gradient of a tuple is a
tuple, of a list a list, of a dict a dict, of a namedtuple the same
namedtuple, and of any other object (a dataclass, a ``__slots__`` class, a
plain object, a closure) a :class:`zpy.Tangent` with one entry per field.

Every gradient is checked against central finite differences of the plain
function, perturbing one float leaf of the structure at a time
(:func:`assert_structural`), or against a closed form. The functions under
test are at module level: the compiler reads their source.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import math
import types
from collections import namedtuple
from typing import Any, Iterator

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NoDerivativeRule, UnsupportedSyntax

from .fdcheck import STEP, assert_gradient, close

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Pair:
    a: float
    b: float
    c: float = 0.0

    def product(self):
        return self.a * self.b

    def scaled(self, k):
        return k * self.product()


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float


class Slotted:
    __slots__ = ("u", "v")

    def __init__(self, u, v):
        self.u = u
        self.v = v


class Plain:
    def __init__(self, w, items):
        self.w = w
        self.items = items


class Vec:
    """A number-like user class: its operators are Python methods."""

    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Pair(self.x + other.x, 0.0)

    def __mul__(self, other):
        if isinstance(other, Vec):
            return self.x * other.x
        return self.x * other

    def __rmul__(self, other):
        return other * self.x * 2.0

    def __sub__(self, other):
        return self.x - other.x

    def __neg__(self):
        return -self.x * self.x

    def __matmul__(self, other):
        return self.x * other.x + 1.0

    def __getitem__(self, k):
        return self.x ** k

    def __call__(self, t):
        return self.x * t

    def __float__(self):
        return float(self.x * self.x)

    @property
    def sq(self):
        return self.x * self.x


class Totals:
    """A running total added to in place (``__iadd__`` changes the object)."""

    def __init__(self, total):
        self.total = total

    def __iadd__(self, v):
        self.total = self.total * v + v
        return self


class Product:
    """Adds by multiplying: a sum of them is a product (``0 + p`` is ``p``)."""

    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Product(self.x * other.x)

    def __radd__(self, other):
        return Product(other + self.x)


class Signed:
    """``abs``, items, calls and powers as Python methods."""

    def __init__(self, x):
        self.x = x

    def __abs__(self):
        return self.x * self.x

    def __getitem__(self, k):
        return self.x ** k

    def __call__(self, t):
        return self.x * t * t

    def __pow__(self, k):
        return self.x ** k * 3.0


class Base:
    def __init__(self, p):
        self.p = p

    def energy(self):
        return self.p * self.p

    @property
    def half(self):
        return self.p / 2.0


class Derived(Base):
    def __init__(self, p, q):
        Base.__init__(self, p)
        self.q = q

    def total(self):
        return self.energy() + self.q * self.half


# the oracle -----------------------------------------------------------------


def leaves(x: Any, path: tuple = ()) -> Iterator[tuple]:
    """The paths to the float leaves of a structure: items of tuples, lists
    and dicts, fields of namedtuples and objects, closures' captured
    variables."""
    if isinstance(x, float):
        yield path
    elif isinstance(x, tuple) and hasattr(x, "_fields"):
        for name, v in zip(x._fields, x):
            yield from leaves(v, path + (("attr", name),))
    elif isinstance(x, (tuple, list)):
        for i, v in enumerate(x):
            yield from leaves(v, path + (("item", i),))
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, path + (("item", k),))
    elif isinstance(x, types.FunctionType):
        for name, cell in zip(x.__code__.co_freevars, x.__closure__ or ()):
            if cell.cell_contents is not x:  # (a recursive function captures itself)
                yield from leaves(cell.cell_contents, path + (("attr", name),))
    elif hasattr(x, "__dict__") or hasattr(x, "__slots__"):
        names = list(getattr(x, "__dict__", {})) + [s for c in type(x).__mro__ for s in getattr(c, "__slots__", ())]
        for name in names:
            yield from leaves(getattr(x, name), path + (("attr", name),))


def get(x: Any, path: tuple) -> Any:
    """The entry of a structure (or of its gradient) at ``path``; ``None``
    once a gradient has no entry there."""
    for how, key in path:
        if x is None:
            return None
        if isinstance(x, types.FunctionType):
            x = x.__closure__[x.__code__.co_freevars.index(key)].cell_contents
        else:
            x = getattr(x, key) if how == "attr" else x[key]
    return x


def replace(x: Any, path: tuple, value: float) -> Any:
    """A copy of ``x`` with the leaf at ``path`` set to ``value`` (the
    original is not changed)."""
    if not path:
        return value
    (how, key), rest = path[0], path[1:]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return x._replace(**{key: replace(getattr(x, key), rest, value)})
    if isinstance(x, (tuple, list)):
        items = list(x)
        items[key] = replace(x[key], rest, value)
        return type(x)(items)
    if isinstance(x, dict):
        return {**x, key: replace(x[key], rest, value)}
    if isinstance(x, types.FunctionType):
        cells = tuple(
            types.CellType(replace(c.cell_contents, rest, value) if n == key else c.cell_contents)
            for n, c in zip(x.__code__.co_freevars, x.__closure__)
        )
        y = types.FunctionType(x.__code__, x.__globals__, x.__name__, x.__defaults__, cells)
        for cell in cells:
            if cell.cell_contents is x:  # a recursive function calls the new one
                cell.cell_contents = y
        return y
    y = copy.copy(x)
    object.__setattr__(y, key, replace(getattr(x, key), rest, value))
    return y


def assert_structural(f, *args, rtol: float = 1e-6) -> tuple:
    """``zpy.value_and_gradient(f, *args)`` against central differences of
    ``f`` along every float leaf of every argument (an absent gradient
    counting as 0); at least one leaf must get a nonzero gradient."""
    value, grads = zpy.value_and_gradient(f, *args)
    assert value == f(*args)
    assert len(grads) == len(args)
    nonzero = False
    for i, arg in enumerate(args):
        for path in leaves(arg):
            x = get(arg, path)
            h = STEP * max(1.0, abs(x))
            hi = f(*args[:i], replace(arg, path, x + h), *args[i + 1:])
            lo = f(*args[:i], replace(arg, path, x - h), *args[i + 1:])
            slope = (hi - lo) / (2 * h)
            rounding = 4e-16 * (abs(hi) + abs(lo) + abs(value)) / h
            got = get(grads[i], path)
            assert close(got, slope, rounding, rtol), (f.__name__, i, path, got, slope)
            nonzero = nonzero or got not in (None, 0)
    assert nonzero, (f.__name__, grads)
    return grads


def unit(x: Any, path: tuple) -> Any:
    """The tangent of ``x`` that is 1.0 at the leaf ``path``, no tangent
    (``None``) elsewhere."""
    if not path:
        return 1.0
    (how, key), rest = path[0], path[1:]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(unit(v, rest) if n == key else None for n, v in zip(x._fields, x)))
    if isinstance(x, (tuple, list)):
        return type(x)(unit(v, rest) if i == key else None for i, v in enumerate(x))
    if isinstance(x, dict):
        return {k: unit(v, rest) if k == key else None for k, v in x.items()}
    return zpy.Tangent(**{key: unit(get(x, path[:1]), rest)})


def assert_jvp_structural(f, *args) -> None:
    """``zpy.jvp(f, args, ...)`` along every float leaf of every argument
    (the tangent :func:`unit`) against that leaf's gradient, which
    :func:`assert_structural` checks against central differences."""
    grads = assert_structural(f, *args)
    for i, arg in enumerate(args):
        for path in leaves(arg):
            tangents = tuple(unit(arg, path) if j == i else None for j in range(len(args)))
            y, dy = zpy.jvp(f, args, tangents)
            assert y == f(*args)
            want = get(grads[i], path)
            assert dy == pytest.approx(0.0 if want is None else want, rel=1e-9, abs=1e-12), (f.__name__, i, path)


# containers --------------------------------------------------------------------


def tuple_product(t):
    return t[0] * t[1] + t[1]


def list_of_pairs(xs):
    return xs[0][0] * xs[1][1] - xs[1][0]


def dict_of_tuples(d):
    return d["a"][0] * d["b"][1] + d["a"][1]


def point_norm(p):
    return math.sqrt(p.x * p.x + p.y * p.y)


def point_first(p):
    return p[0] * 3.0


def test_tuple_gradient_is_a_tuple():
    g = assert_structural(tuple_product, (2.0, 3.0))
    assert g == ((3.0, 3.0),)


def test_list_gradient_is_a_list():
    (g,) = assert_structural(list_of_pairs, [(1.0, 2.0), (3.0, 4.0)])
    assert type(g) is list and g[0] == (4.0, None) and g[1] == (-1.0, 1.0)


def test_dict_of_tuples_gets_a_dict_of_tuples():
    (g,) = assert_structural(dict_of_tuples, {"a": (1.0, 2.0), "b": (3.0, 4.0), "c": 5.0})
    assert g == {"a": (4.0, 1.0), "b": (None, 1.0), "c": None}  # the same keys


def test_namedtuple_gradient_is_the_same_namedtuple():
    (g,) = assert_structural(point_norm, Point(3.0, 4.0))
    assert type(g) is Point and g == pytest.approx(Point(0.6, 0.8), rel=1e-15)


def test_namedtuple_read_by_index_still_gets_a_namedtuple():
    (g,) = assert_structural(point_first, Point(3.0, 4.0))
    assert type(g) is Point and g.x == 3.0 and g.y is None


# objects -----------------------------------------------------------------------


def pair_fields(p):
    return p.a * p.a * p.b


def frozen_fields(p):
    return p.a / p.b


def slotted_fields(s):
    return s.u * math.sin(s.v)


def plain_nested(o):
    return o.w * o.items[0].a + o.items[1].product()


def test_dataclass_gets_a_tangent():
    (g,) = assert_structural(pair_fields, Pair(3.0, 2.0))
    assert isinstance(g, zpy.Tangent)
    assert g == zpy.Tangent(a=12.0, b=9.0)
    assert g.a == g["a"] == 12.0
    assert g.c is None and g["c"] is None  # a field no gradient reached
    with pytest.raises(AttributeError):
        g.d
    with pytest.raises(KeyError):
        g["d"]
    assert repr(g) == "Tangent(a=12.0, b=9.0)"


def test_frozen_dataclass():
    (g,) = assert_structural(frozen_fields, Frozen(3.0, 2.0))
    assert g == zpy.Tangent(a=0.5, b=-0.75)


def test_slots_class():
    (g,) = assert_structural(slotted_fields, Slotted(2.0, 0.5))
    assert g.u == pytest.approx(math.sin(0.5)) and g.v == pytest.approx(2.0 * math.cos(0.5))


def test_object_holding_a_list_of_objects_gets_tangents_in_a_list():
    (g,) = assert_structural(plain_nested, Plain(2.0, [Pair(3.0, 4.0), Pair(5.0, 6.0)]))
    assert g == zpy.Tangent(w=3.0, items=[zpy.Tangent(a=2.0), zpy.Tangent(a=6.0, b=5.0)])


def test_tangent_equality_and_repr():
    assert zpy.Tangent(a=1.0, b=None) == zpy.Tangent(a=1.0)  # None is no gradient
    assert zpy.Tangent(a=1.0) != zpy.Tangent(a=2.0)
    assert zpy.Tangent(a=np.array([1.0, 2.0])) == zpy.Tangent(a=np.array([1.0, 2.0]))
    assert zpy.Tangent(a=np.array([1.0, 2.0])) != zpy.Tangent(a=np.array([1.0, 3.0]))
    assert repr(zpy.Tangent(x=[zpy.Tangent(y=1.5)])) == "Tangent(x=[Tangent(y=1.5)])"


def array_field(p):
    return np.sum(p.a * p.b)


def test_array_fields_get_dense_array_gradients():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    (g,) = zpy.gradient(array_field, Pair(a, b))
    assert type(g.a) is np.ndarray and np.array_equal(g.a, b) and np.array_equal(g.b, a)


# methods, properties, inheritance ------------------------------------------------


def call_method(p):
    return p.product()


def call_method_with_argument(p, k):
    return p.scaled(k)


def read_property(v):
    return v.sq + v.x


def derived_total(d):
    return d.total() + d.half


def test_method_call_gets_the_objects_gradient():
    (g,) = assert_structural(call_method, Pair(3.0, 2.0))
    assert g == zpy.Tangent(a=2.0, b=3.0)


def test_bound_method_differentiated_directly():
    p = Pair(3.0, 2.0)
    assert zpy.gradient(p.scaled, 5.0) == (6.0,)


def test_method_with_argument():
    g = assert_structural(call_method_with_argument, Pair(3.0, 2.0), 5.0)
    assert g == (zpy.Tangent(a=10.0, b=15.0), 6.0)


def test_property_is_differentiated():
    (g,) = assert_structural(read_property, Vec(3.0))
    assert g == zpy.Tangent(x=7.0)


class Cached:
    def __init__(self, x):
        self.x = x

    @functools.cached_property
    def cube(self):
        return self.x * self.x * self.x


def cached_property_read_twice(x):
    c = Cached(x)
    return c.cube + c.cube * x  # (the second read is the value cached by the first)


def read_cached_property(c):
    return c.cube


def cached_property_stale(x):
    c = Cached(x)
    a = c.cube
    c.x = 2.0 * x
    return a + c.cube  # (Python: the cube of x, cached before the change)


def test_a_cached_property_is_differentiated_through_its_function():
    # it was read as a field of its own: gradient 0, in silence
    x, h = 0.4, 1e-6
    assert assert_structural(cached_property_read_twice, x) == pytest.approx((3 * x * x + 4 * x ** 3,))
    y, dy = zpy.jvp(cached_property_read_twice, (x,), (1.0,))
    assert y == cached_property_read_twice(x)
    slope = (cached_property_read_twice(x + h) - cached_property_read_twice(x - h)) / (2 * h)
    assert dy == pytest.approx(slope, rel=1e-6)
    c = Cached(x)
    assert zpy.gradient(read_cached_property, c) == (zpy.Tangent(x=pytest.approx(3 * x * x)),)
    assert c.__dict__["cube"] == x ** 3  # cached, as Python does
    y, dy = zpy.jvp(read_cached_property, (Cached(x),), (zpy.Tangent(x=1.0),))
    assert (y, dy) == (x ** 3, pytest.approx(3 * x * x))


@pytest.mark.parametrize("mode", ["gradient", "jvp"])
def test_a_cached_property_cached_before_a_change_of_its_fields_is_refused(mode):
    with pytest.raises(NoDerivativeRule, match="cached_property Cached.cube holds a value cached before") as e:
        if mode == "gradient":
            zpy.gradient(cached_property_stale, 0.4)
        else:
            zpy.jvp(cached_property_stale, (0.4,), (1.0,))
    assert f"line {cached_property_stale.__code__.co_firstlineno + 4}" in str(e.value)


def attributes_with_defaults(p, v, x):
    return getattr(p, "a", x) * getattr(p, "d", x) + getattr(v, "sq", 1.0) * getattr(v, "w", 2.0 * x)


def test_getattr_with_a_default_differentiates_the_value_it_returns():
    # p.a is a field, p.d is missing (x is the value), v.sq a property, v.w missing
    g = assert_structural(attributes_with_defaults, Pair(3.0, 2.0), Vec(1.5), 0.5)
    assert g == (zpy.Tangent(a=0.5), zpy.Tangent(x=2 * 1.5 * 2 * 0.5), 3.0 + 2 * 1.5 ** 2)
    _, tangent_out = zpy.jvp(lambda x: attributes_with_defaults(Pair(3.0, 2.0), Vec(1.5), x), (0.5,), (1.0,))
    assert tangent_out == pytest.approx(g[2], rel=1e-12)


def test_inherited_fields_methods_and_properties():
    (g,) = assert_structural(derived_total, Derived(3.0, 4.0))
    assert g == zpy.Tangent(p=8.5, q=1.5)  # d/dp (p² + q p/2 + p/2) = 2p + q/2 + 1/2, d/dq = p/2


# operator overloads --------------------------------------------------------------


def overloads(a, b):
    return (a * b) + (a - b) + (-a) + (a @ b) + a[3] + a(2.0) + (2.0 * a) + (a * 3.0)


def overload_returning_object(a, b):
    return (a + b).a


def test_operators_dispatch_to_python_methods():
    g = assert_structural(overloads, Vec(1.5), Vec(0.5))
    x, y = 1.5, 0.5
    assert g[0].x == pytest.approx(y + 1 - 2 * x + y + 3 * x * x + 2.0 + 4.0 + 3.0)
    assert g[1].x == pytest.approx(x - 1 + x)


def sum_of_objects(a, b):
    return sum([Product(a), Product(b)], Product(2.0)).x + sum([Product(a), Product(b)]).x


def objects_added_in_place(a, b):
    v = Vec(a)
    v += Vec(b)  # (no __iadd__: v + Vec(b), a Pair)
    t = a * 2.0
    t += Product(b)  # (a number plus an object: Product.__radd__)
    return v.a * v.b + v.a * a + t.x * a


def a_total_changed_in_place(a, b):
    t = Totals(a)
    t += b
    t += b * a
    return t.total


def object_operators_on_unknown_kinds(p, b):
    v = p.x
    # (p.x, p.y: an object and a float, neither known when compiled)
    return abs(v) + v[2] + v(b) + p.y * b + pow(v, 3) + v ** 2


def test_operators_dispatch_to_python_methods_in_forward_mode():
    # jvp inlined the rules of numbers on the objects' tangents: TypeError (Tangent * float), KeyError for
    # v[3], and a call of an object (v(2.0)) whose own tangent was dropped: 0.0 in silence
    assert_jvp_structural(overloads, Vec(1.5), Vec(0.5))
    assert_jvp_structural(overload_returning_object_sum, Vec(1.5), Vec(0.5))
    assert_jvp_structural(objects_added_in_place, 1.5, 0.5)
    for i in range(2):  # (an __iadd__ that changes its object: reverse mode refuses it)
        y, dy = zpy.jvp(a_total_changed_in_place, (1.5, 0.5), (float(i == 0), float(i == 1)))
        assert y == a_total_changed_in_place(1.5, 0.5)
        assert dy == pytest.approx(fd(lambda h: a_total_changed_in_place(1.5 + h * (i == 0), 0.5 + h * (i == 1)), 0.0),
                                   rel=1e-6)
    assert_jvp_structural(object_operators_on_unknown_kinds, Point(Signed(-1.5), 0.5), 0.7)


def overload_returning_object_sum(a, b):
    p = a + b
    return p.a * p.b + p.a


def test_sum_of_objects_differentiates_their_add_method():
    # sum's rule gave every item the gradient of the sum, right only for an __add__ that adds fields: for
    # a product, 2.0 for 1.5 (no error)
    assert_jvp_structural(sum_of_objects, 1.5, 0.5)
    assert zpy.gradient(sum_of_objects, 1.5, 0.5) == pytest.approx((3 * 0.5, 3 * 1.5))


def test_operator_returning_an_object():
    g = assert_structural(overload_returning_object, Vec(1.5), Vec(0.5))
    assert g == (zpy.Tangent(x=1.0), zpy.Tangent(x=1.0))


def float_of_an_object(x):
    return float(Vec(x)) * x


def float_of_an_argument(v, x):
    return float(v) + float(x)


def test_float_of_an_object_calls_its_float_method():
    # float's rule passed the gradient on to the object, where it was lost (x * x for x ** 3)
    x, h = 0.7, 1e-6
    assert assert_structural(float_of_an_object, x) == pytest.approx((3 * x * x,))
    assert assert_structural(float_of_an_argument, Vec(x), 0.2) == (zpy.Tangent(x=pytest.approx(2 * x)), 1.0)
    y, dy = zpy.jvp(float_of_an_object, (x,), (1.0,))  # (it raised TypeError: float() of a Tangent)
    assert y == float_of_an_object(x)
    assert dy == pytest.approx((float_of_an_object(x + h) - float_of_an_object(x - h)) / (2 * h), rel=1e-6)
    assert zpy.jvp(float_of_an_argument, (Vec(x), 0.2), (zpy.Tangent(x=1.0), 1.0)) == (x * x + 0.2, 2 * x + 1.0)


# closures ------------------------------------------------------------------------


def make_scaler(a):
    return lambda x: a * x


def make_poly(a, b):
    def poly(x):
        return a * x * x + b
    return poly


def call_at_five(f):
    return f(5.0)


def call_twice(f, x):
    return f(x) * f(2.0)


def scaler_applied(a, x):
    f = make_scaler(a)
    return f(x) + f(1.0)


def test_closure_argument_gets_a_tangent_of_its_captures():
    (g,) = assert_structural(call_at_five, make_scaler(4.0))
    assert g == zpy.Tangent(a=5.0)


def test_closure_argument_with_two_captures():
    g = assert_structural(call_twice, make_poly(2.0, 3.0), 1.5)
    assert isinstance(g[0], zpy.Tangent)


def test_closure_returned_from_a_function():
    g = assert_structural(scaler_applied, 4.0, 3.0)
    assert g == (4.0, 4.0)


def apply_twice_over(g, y, n=2):
    return g(y) if n == 0 else apply_twice_over(g, y, n - 1)  # (recursive: a call at run time)


def make_passing_on(a):
    def middle(y):  # its lambda captures middle's own captured a: they share a's cell
        return a * apply_twice_over(lambda z: a * y * z * z, y)
    return middle


def passing_on(a):
    return make_passing_on(a)(3.0)


def test_a_closure_sharing_its_makers_captured_variable():
    # a lambda in a nested function capturing what that function captures: the
    # lambda's gradient for it was lost (0.0 for passing_on, no error)
    assert assert_structural(passing_on, 2.0) == (108.0,)  # 2 a * 27
    g = assert_structural(call_at_five, make_passing_on(2.0))
    assert g == (zpy.Tangent(a=2 * 2.0 * 125.0),)


def test_function_without_differentiated_captures_gets_none():
    assert zpy.gradient(call_at_five, math.sin) == (None,)
    assert zpy.gradient(call_at_five, make_scaler(2)) == (None,)  # an int capture


def default_of_a_lambda(a, b):
    g = lambda t, k=a: t * k  # noqa: E731
    return g(b)


def default_of_a_def(a, b):
    def g(t, *, k=a):
        return t * k
    return g(b)


def constant_default(a, b):
    g = lambda t, k=2.0: t * k  # noqa: E731
    return g(b) * a


def defaults_left_and_given(a):
    def g(t, k=a, *, m=2.0 * a):
        return t * k + m * m
    return g(a) + g(1.0, 3.0) + g(1.0, m=a)


def default_of_a_mapped_lambda(a):
    g = lambda t, k=a: t * k  # noqa: E731
    return sum(map(g, [1.0, 2.0, 3.0]))


def make_defaulted_scaler(a):
    return lambda t, k=a * a: t * k


def default_of_a_returned_lambda(a):
    return make_defaulted_scaler(a)(3.0)


def fd(f, x, h=STEP):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f, want", [
    (default_of_a_lambda, lambda a, b: (b, 0.7)),
    (default_of_a_def, lambda a, b: (b, 0.7)),
], ids=lambda f: getattr(f, "__name__", ""))
def test_a_differentiated_default_argument_value(f, want):
    # the default is read from the function's __defaults__: its gradient was lost (None, in silence), then
    # refused; it is now the function's own, by parameter name, and goes back to the value
    g = zpy.gradient(f, 0.7, 1.1)
    assert g == pytest.approx(want(0.7, 1.1))
    assert g[0] == pytest.approx(fd(lambda a: f(a, 1.1), 0.7), rel=1e-6)


@pytest.mark.parametrize("f", [defaults_left_and_given, default_of_a_mapped_lambda, default_of_a_returned_lambda],
                         ids=lambda f: f.__name__)
def test_default_values_left_given_mapped_and_returned(f):
    (g,) = zpy.gradient(f, 1.3)
    assert g == pytest.approx(fd(f, 1.3), rel=1e-6)


def test_a_functions_gradient_holds_its_default_values():
    f = lambda t, k=3.0: t * k  # noqa: E731
    assert zpy.gradient(call_at_five, f) == (zpy.Tangent(k=5.0),)
    assert zpy.gradient(lambda g: g(2.0, 1.0), f) == (None,)  # (k given: its default is not read)
    assert zpy.gradient(call_at_five, make_defaulted_scaler(2.0)) == (zpy.Tangent(k=5.0),)
    # forward mode: the function's tangent gives its default values' (and its captured variables')
    assert zpy.jvp(call_at_five, (f,), (zpy.Tangent(k=1.0),)) == (15.0, 5.0)
    assert zpy.jvp(call_at_five, (make_poly(2.0, 3.0),), (zpy.Tangent(a=1.0, b=0.5),)) == (53.0, 25.5)


@pytest.mark.parametrize("f", [default_of_a_lambda, default_of_a_def], ids=lambda f: f.__name__)
def test_a_differentiated_default_value_of_a_nested_function_is_refused_in_forward_mode(f):
    with pytest.raises(UnsupportedSyntax, match="nested function") as e:
        zpy.jvp(f, (0.7, 1.1), (1.0, 0.0))
    assert f.__name__ in str(e.value) and f"line {f.__code__.co_firstlineno + 1}" in str(e.value)


def test_a_default_argument_value_not_differentiated():
    assert assert_structural(constant_default, 0.7, 1.1) == (2.2, 1.4)


# pullback with structured cotangents -----------------------------------------------


def swap_scale(p, k):
    return Point(p.y * k, p.x), {"s": p.x + p.y}


def test_pullback_with_a_structured_output_cotangent():
    y, back = zpy.pullback(swap_scale, Point(1.0, 2.0), 3.0)
    assert y == (Point(6.0, 1.0), {"s": 3.0})
    dp, dk = back((Point(1.0, 10.0), {"s": 100.0}))
    # d/dp of <(y k, x), (1, 10)> + 100 (x + y) = (10 + 100, k + 100)
    assert type(dp) is Point and dp == Point(110.0, 103.0)
    assert dk == 2.0


def test_pullback_with_a_tangent_cotangent():
    y, back = zpy.pullback(lambda p: Pair(p.b, p.a, 0.0), Pair(1.0, 2.0))
    assert y == Pair(2.0, 1.0)
    assert back(zpy.Tangent(a=5.0, b=7.0)) == (zpy.Tangent(a=7.0, b=5.0),)


# what is refused -------------------------------------------------------------------


class Described:
    """A custom data descriptor: its value is no field of the object."""

    def __get__(self, obj, owner=None):
        return obj.t * 2.0

    def __set__(self, obj, value):
        raise AttributeError


class WithDescriptor:
    twice = Described()

    def __init__(self, t):
        self.t = t


def read_descriptor(o):
    return o.twice


def test_custom_descriptor_is_refused_not_mistaken_for_a_field():
    with pytest.raises(NoDerivativeRule, match="twice"):
        zpy.gradient(read_descriptor, WithDescriptor(1.0))


def make_power(a):
    def power(n):
        if n == 0:
            return 1.0
        return a * power(n - 1)
    return power


def call_power(f):
    return f(3)


def test_recursive_closure_folds_its_own_gradient_into_one_tangent():
    (g,) = assert_structural(call_power, make_power(1.5))
    assert g.a == pytest.approx(3 * 1.5 ** 2) and g.power is None


def test_pullback_of_a_function_returning_a_closure():
    f, back = zpy.pullback(make_poly, 2.0, 3.0)
    assert f(1.5) == 2.0 * 1.5 * 1.5 + 3.0
    assert back(zpy.Tangent(a=10.0, b=1.0)) == (10.0, 1.0)


def add_in_place(a, b):
    a += b
    return a.a * a.a


def test_augmented_assignment_falls_back_to_the_python_operator():
    g = assert_structural(add_in_place, Vec(1.5), Vec(0.5))
    assert g == (zpy.Tangent(x=4.0), zpy.Tangent(x=4.0))


class Built:
    def __init__(self, x):
        self.x = x

    def __mul__(self, other):
        return Built(self.x * other.x)


def square_built(b):
    return (b * b).x


def test_constructing_a_plain_class_differentiates_its_init():
    g = assert_structural(square_built, Built(3.0))
    assert g == (zpy.Tangent(x=6.0),)


class Scaled(Built):
    def __init__(self, x, k):
        self.k = k
        self.x = x * k  # computed, then overwritten below when k is negative
        if k < 0:
            self.x = -self.x


def build_inside(x, k):
    s = Scaled(x, k)
    return s.x * s.k + s.x


def test_an_init_that_computes_and_overwrites_fields():
    assert_structural(build_inside, 1.5, 0.5)
    assert_structural(build_inside, 1.5, -2.0)


class Child(Built):
    def __init__(self, x):
        super().__init__(x)


def build_through_super(x):
    return Child(x).x


class GrandChild(Child):
    def __init__(self, x, y):
        self.y = y * x
        Child.__init__(self, x + y)


def build_through_bases(x, y):
    g = GrandChild(x, y)
    return g.x * g.y


class Doubled(Built):
    def twice(self):
        return 2.0 * self.x

    def value(self):
        return Built.__mul__(self, self).x


class Tripled(Doubled):
    def twice(self):
        return super().twice() * 1.5 + super().value()


def method_through_super(b):
    return b.twice()


def test_a_method_called_through_super():
    assert assert_structural(method_through_super, Tripled(1.5)) == (zpy.Tangent(x=3.0 + 3.0),)


def test_an_init_that_fills_its_object_through_super_or_a_base():
    assert assert_structural(build_through_super, 1.5) == (1.0,)
    assert_structural(build_through_bases, 1.5, -0.7)


class Resettable(Built):
    def reset(self, x):
        Built.__init__(self, x)
        return self.x


def reset_through_a_method(b, x):
    return b.reset(x) * 2.0


def test_a_method_that_refills_its_object():
    """A plain method that changes its object, an argument: a new version
    of it, whose old fields get no gradient (it was refused)."""
    assert assert_structural(reset_through_a_method, Resettable(1.0), 1.5) == (zpy.Tangent(), 2.0)
    assert zpy.jvp(reset_through_a_method, (Resettable(1.0), 1.5), (zpy.Tangent(x=1.0), 1.0)) == (3.0, 2.0)


def any_over_a_generator(x, xs):
    if any(v * x > 1.0 for v in xs) and not all(v > 0.0 for v in xs):
        return x * 2.0
    return x * x


def dicts_from_the_constructor(x, y):
    d = dict(a=x, b=x * y)
    e = dict([("c", y), ("d", 2.0), ("c", x)])  # the later "c" wins
    f = dict(d)
    return d["a"] * f["b"] + e["c"] * e["d"]


@pytest.mark.parametrize("f, args", [
    (any_over_a_generator, (0.7, [0.5, -2.0])),
    (any_over_a_generator, (0.3, [0.5, 2.0])),
    (dicts_from_the_constructor, (1.5, -0.4)),
], ids=lambda v: getattr(v, "__name__", None))
def test_any_all_and_dict_constructor(f, args):
    from .test_forward import assert_directional
    from .test_mutation import check

    check(f, *args)
    assert_directional(f, *args)


# copies ------------------------------------------------------------------------


def list_copied_then_changed(x):
    a = [x, 2.0 * x]
    b = a.copy()
    b[0] = b[0] * x
    b.append(x)
    return a[0] + b[0] + b[1] + b[2] * len(a)


def dict_copied_then_changed(x):
    d = {"u": x, "v": math.sin(x)}
    e = d.copy()
    e["u"] = e["u"] * 3.0
    return d["u"] * e["u"] + e["v"]


def object_deep_copied_then_changed(x):
    p = Plain(x, None)
    p.items = np.array([x, 1.0])
    q = copy.deepcopy(p)
    q.w = q.w * x
    q.items[1] = x * x
    return p.w + q.w + float(np.sum(p.items * q.items))


def object_copied_then_changed(x):
    p = Pair(x, 2.0 * x)
    q = copy.copy(p)
    q.a = 3.0 * x
    return p.a * q.a + q.b


@pytest.mark.parametrize("f", [list_copied_then_changed, dict_copied_then_changed, object_deep_copied_then_changed,
                               object_copied_then_changed], ids=lambda f: f.__name__)
def test_a_copy_has_the_originals_gradient_and_changes_alone(f):
    x = 0.7
    (g,) = assert_structural(f, x)
    first = lambda y: zpy.gradient(f, y)[0]  # noqa: E731
    h = 1e-5
    assert zpy.gradient(first, x)[0] == pytest.approx((first(x + h) - first(x - h)) / (2 * h), rel=1e-6)


def built_point(x):
    p = Point(x, 2.0 * x)
    return p.x * p.y + math.sin(p[1])


def built_pair(x):
    p = Pair(x, 2.0 * x)
    return p.a * p.b + p.c + math.sin(p.b)


@pytest.mark.parametrize("f", [built_point, built_pair], ids=lambda f: f.__name__)
def test_forward_mode_and_second_derivatives_through_a_namedtuple_or_dataclass_built(f):
    x = 0.7
    want = 4.0 * x + 2.0 * math.cos(2.0 * x)
    assert zpy.jvp(f, (x,), (1.0,))[1] == pytest.approx(want, rel=1e-12)
    assert zpy.gradient(f, x)[0] == pytest.approx(want, rel=1e-12)
    assert zpy.gradient(lambda y: zpy.gradient(f, y)[0], x)[0] == pytest.approx(
        4.0 - 4.0 * math.sin(2.0 * x), rel=1e-12)


class Row:
    """A sequence of its own: ``__len__`` and ``__getitem__``."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, k):
        return self.items[k]


class Twins:
    """Iterable through ``__iter__`` only."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        return iter((self.a, self.b))


def loop_over_a_dicts_keys(x):
    d = {"a": x, "b": 2.0 * x}
    s = 0.0
    for k in d:  # (it indexed the dict: KeyError 0)
        s = s + d[k] * math.sin(d[k])
    return s


def loop_over_a_sequence_object(x):
    s = 0.0
    for c in Row([x, math.sin(x)]):
        s = s + c * c
    return s


def loop_over_a_sequence_object_argument(row):
    s = 0.0
    for c in row:
        s = s + c * math.cos(c)
    return s


@pytest.mark.parametrize("f, args", [
    (loop_over_a_dicts_keys, (0.7,)),
    (loop_over_a_sequence_object, (0.7,)),
    (loop_over_a_sequence_object_argument, (Row([0.3, -1.2]),)),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_a_loop_over_a_mapping_or_a_sequence_object(f, args):
    assert_structural(f, *args)


def loop_over_an_object_with_only_iter(x):
    s = 0.0
    for c in Twins(x, math.sin(x)):  # (it crashed: TypeError, no len())
        s = s + c * c
    return s


def list_of_an_object_with_only_iter(x):
    s = 0.0
    for c in list(Twins(x, math.sin(x))):  # (its gradient was 0.0, in silence)
        s = s + c * c
    return s


def test_the_items_an_objects_own_iter_yields_read_by_list():
    # (refused before: list() read them without differentiating Twins.__iter__)
    assert_jvp_structural(list_of_an_object_with_only_iter, 0.7)


def test_a_loop_over_an_object_differentiates_its_own_iter():
    # (its __iter__ returns iter() of its fields: differentiated, their gradients go back to them)
    assert_gradient(loop_over_an_object_with_only_iter, 0.7)


def counts_positive_items(x):
    s = x
    for c in Twins(x, -x):  # (differentiated, but its items only compared)
        if c > 0:
            s = s * 3.0
    return s


def test_an_object_with_only_iter_whose_items_get_no_gradient_is_fine():
    assert assert_gradient(counts_positive_items, 0.7) == (3.0,)


# the items of an object that iterates itself, in both modes ---------------------------


def unpacks_an_object_with_only_iter(x):
    a, b = Twins(x, 2.0)  # (reverse mode gave 0.0, in silence; forward mode a KeyError)
    return a * b


def starred_unpacking_of_an_object_with_only_iter(x):
    a, *b = Twins(x, 2.0)
    return a * b[0]


def sums_an_object_with_only_iter(x):
    return sum(Twins(x, 2.0))


def unpacks_a_sequence_object(x):
    a, b = Row([x, 2.0])  # (reverse mode gave 0.0, in silence)
    return a * b


def sums_a_sequence_object(x):
    return sum(Row([x, 2.0]))


def list_of_a_sequence_object(x):
    return list(Row([x, 2.0]))[0] * 3.0


ITERATED_OBJECTS = [unpacks_an_object_with_only_iter, starred_unpacking_of_an_object_with_only_iter,
                    sums_an_object_with_only_iter, list_of_an_object_with_only_iter, loop_over_an_object_with_only_iter]
READ_SEQUENCE_OBJECTS = [unpacks_a_sequence_object, sums_a_sequence_object, list_of_a_sequence_object]


@pytest.mark.parametrize("f", READ_SEQUENCE_OBJECTS, ids=lambda f: f.__name__)
def test_the_items_an_object_yields_itself_are_refused_in_forward_mode(f):
    with pytest.raises(NoDerivativeRule, match="items an object yields through its class's own __iter__ or "
                                               "__getitem__") as e:
        zpy.jvp(f, (0.7,), (1.0,))
    assert e.value.function == f.__name__ and f.__code__.co_firstlineno < e.value.line <= f.__code__.co_firstlineno + 2


@pytest.mark.parametrize("f", ITERATED_OBJECTS, ids=lambda f: f.__name__)
def test_unpacking_or_summing_what_an_objects_own_iter_yields_in_both_modes(f):
    # (refused before, in reverse mode but for a for loop, and in forward mode: their __iter__ is differentiated)
    assert_jvp_structural(f, 0.7)
    h = 1e-5
    slope = (zpy.gradient(f, 0.7 + h)[0] - zpy.gradient(f, 0.7 - h)[0]) / (2 * h)
    assert zpy.hvp(f, (0.7,), (1.0,))[0] == pytest.approx(slope, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("f", READ_SEQUENCE_OBJECTS, ids=lambda f: f.__name__)
def test_a_sequence_object_read_all_at_once_is_refused_in_reverse_mode(f):
    # (a for loop over it indexes it, and is differentiated: see above)
    with pytest.raises(NoDerivativeRule, match="items a Row yields through its __getitem__") as e:
        zpy.gradient(f, 0.7)
    assert f"function '{f.__name__}'" in str(e.value)


def unpacks_an_array(x):
    a, *b = x
    return a[0] * b[0][1]


def test_unpacking_an_array_gives_it_an_array_gradient():
    g, = zpy.gradient(unpacks_an_array, np.array([[0.3, -1.2], [0.8, 2.0]]))
    assert isinstance(g, np.ndarray) and g.tolist() == [[2.0, 0.0], [0.0, 0.3]]


# a math function of an object with __float__ ------------------------------------------


class Floating:
    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v * self.v


def sin_of_an_object(x):
    return math.sin(Floating(x))  # (math.sin(float(obj)): forward mode crashed, reverse mode gave 0.0)


def fabs_of_an_object(x):
    return math.fabs(Floating(x)) + math.sqrt(Floating(x)) * math.exp(Floating(x))


def atan2_of_an_object_and_a_number(x):
    return math.atan2(Floating(x), x) + math.pow(Floating(x), 2.5)


@pytest.mark.parametrize("f", [sin_of_an_object, fabs_of_an_object, atan2_of_an_object_and_a_number],
                         ids=lambda f: f.__name__)
def test_a_math_function_of_an_object_reads_it_through_its_float(f):
    assert_jvp_structural(f, 0.7)
    assert assert_structural(f, -0.4)[0] == pytest.approx(fd(f, -0.4), rel=1e-6)


# an array NumPy makes through a class's __array__ -------------------------------------


class ArrayLike:
    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return np.array([self.a, 2.0])


def asarray_of_an_object(x):
    return float(np.sum(np.asarray(ArrayLike(x)) ** 2))


def array_of_an_object(x):
    return float(np.sum(np.array(ArrayLike(x)) * x))


@pytest.mark.parametrize("mode", ["jvp", "gradient"])
@pytest.mark.parametrize("f", [asarray_of_an_object, array_of_an_object], ids=lambda f: f.__name__)
def test_an_array_made_through_a_classs_own_array_method_is_refused(f, mode):
    with pytest.raises(NoDerivativeRule, match="the array NumPy makes of a ArrayLike through its __array__") as e:
        zpy.jvp(f, (0.7,), (1.0,)) if mode == "jvp" else zpy.gradient(f, 0.7)
    assert f"function '{f.__name__}'" in str(e.value) and f"line {f.__code__.co_firstlineno + 1}" in str(e.value)


# list and dict subclasses with methods of their own -----------------------------------


class DoublingDict(dict):
    def __setitem__(self, k, v):
        dict.__setitem__(self, k, 2.0 * v)


class DoublingList(list):
    def __setitem__(self, k, v):
        list.__setitem__(self, k, 2.0 * v)


def stores_into_a_dict_subclass(x):
    d = DoublingDict()
    d["a"] = x  # (forward mode gave 1.0, in silence)
    return d["a"]


def stores_into_a_list_subclass(x):
    t = DoublingList([0.0])
    t[0] = x
    return t[0]


@pytest.mark.parametrize("f", [stores_into_a_dict_subclass, stores_into_a_list_subclass], ids=lambda f: f.__name__)
def test_an_item_stored_by_a_list_or_dict_subclasss_own_setitem_is_refused(f):
    with pytest.raises(NoDerivativeRule, match="whose class defines __setitem__") as e:
        zpy.jvp(f, (0.7,), (1.0,))
    assert f"function '{f.__name__}'" in str(e.value) and f"line {f.__code__.co_firstlineno + 2}" in str(e.value)
    with pytest.raises(NoDerivativeRule):
        zpy.gradient(f, 0.7)


class TriplingList(list):
    def append(self, v):
        list.append(self, v * 3.0)

    def extend(self, vs):
        list.extend(self, [v * 3.0 for v in vs])

    def insert(self, i, v):
        list.insert(self, i, v * 3.0)


class TriplingDict(dict):
    def update(self, other):
        dict.update(self, {k: v * 3.0 for k, v in other.items()})

    def setdefault(self, k, v):
        return dict.setdefault(self, k, v * 3.0)


def appends_to_a_list_subclass(x):
    t = TriplingList()
    t.append(x)  # (forward mode: an IndexError below)
    t.append(2.0)
    return t[0] * sum(t)  # (forward mode gave 0.0 for sum(t), in silence)


def extends_and_inserts_into_a_list_subclass(x):
    t = TriplingList([1.0])
    t.extend([x, 2.0])
    t.insert(0, x * x)
    return t[0] * t[2] + t[3]


def updates_a_dict_subclass(x):
    d = TriplingDict()
    d.update({"a": x})
    return d["a"] * d.setdefault("b", x * x)


def appends_to_an_empty_list_in_a_function(x):
    t = []
    _append_tripled(t, x)  # (the empty list had no tangent in the call)
    d = {}
    _store_tripled(d, t[0])
    return d["a"]


def _append_tripled(t, v):
    t.append(v * 3.0)


def _store_tripled(d, v):
    d["a"] = v * 3.0


def appends_its_item_to_a_list_subclass(t):
    t.append(t[0])
    return t[1] * t[0]


@pytest.mark.parametrize("f", [appends_to_a_list_subclass, extends_and_inserts_into_a_list_subclass,
                               updates_a_dict_subclass, appends_to_an_empty_list_in_a_function],
                         ids=lambda f: f.__name__)
def test_a_list_or_dict_subclasss_own_methods_in_forward_mode(f):
    for x in (0.7, -1.3):
        assert zpy.jvp(f, (x,), (1.0,)) == (f(x), pytest.approx(fd(f, x), rel=1e-6))


def test_a_list_subclass_argument_and_its_tangent_of_that_subclass():
    # the tangent, a TriplingList, is used as a plain list: copying it with
    # its own append tripled its items, and its methods ran on the tangent
    y, dy = zpy.jvp(appends_its_item_to_a_list_subclass, (TriplingList([0.7]),), (TriplingList([1.0]),))
    assert (y, dy) == (pytest.approx(3 * 0.7 * 0.7), pytest.approx(6 * 0.7))


# a None item of a tangent given to jvp; a ragged list of arrays ------------------------


def unpacks_a_pair(p):
    a, b = p
    return a * b


def appends_then_multiplies(t):
    t.append(1.0)
    return t[0] * t[1]


def rewrites_an_item(t):
    t[1] = t[1] * 2.0
    return t[0] * t[1]


def product_of_ragged_arrays(arrs):
    return float(arrs[0][0] * arrs[1][0] + arrs[0][1])


@pytest.mark.parametrize("f, x, dx, want", [
    (unpacks_a_pair, Point(0.7, 1.3), Point(1.0, None), 1.3),
    (unpacks_a_pair, [0.7, 1.3], [1.0, None], 1.3),
    (unpacks_a_pair, (0.7, 1.3), (None, 1.0), 0.7),
    (appends_then_multiplies, [0.7, 1.3], [None, 1.0], 0.7),
    (rewrites_an_item, [0.7, 1.3], [1.0, None], 2.6),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_none_item_of_a_tangent_given_to_jvp_is_no_tangent(f, x, dx, want):
    assert zpy.jvp(f, (copy.deepcopy(x),), (dx,)) == (f(copy.deepcopy(x)), pytest.approx(want))


def test_a_ragged_list_of_arrays_given_to_jvp():
    arrs = [np.array([0.7, 1.3]), np.array([2.0])]
    assert zpy.jvp(product_of_ragged_arrays, (arrs,), ([np.array([1.0, 0.0]), np.array([0.5])],))[1] == \
        pytest.approx(2.0 + 0.35)
    with pytest.raises(zpy.BadTangent, match=r"a tangent of shape \(1,\) for a primal of shape \(2,\)"):
        zpy.jvp(product_of_ragged_arrays, (arrs,), ([np.array([1.0]), np.array([0.5])],))
    with pytest.raises(zpy.BadTangent, match="a tangent of 1 items for a list of 2"):
        zpy.jvp(product_of_ragged_arrays, (arrs,), ([np.array([1.0, 0.0])],))


# a float subclass made in the function ------------------------------------------------


class AddsTwice(float):
    def __add__(self, o):
        return AddsTwice(float(self) + 2.0 * float(o))


def adds_to_a_float_subclass(y):
    return float(AddsTwice(1.0) + y) * y  # (forward mode: no pushforward for AddsTwice)


def makes_a_float_subclass(y):
    return float(AddsTwice(y * y) + 3.0)


@pytest.mark.parametrize("f", [adds_to_a_float_subclass, makes_a_float_subclass], ids=lambda f: f.__name__)
def test_a_float_subclass_made_from_a_differentiated_number(f):
    assert_jvp_structural(f, 0.7)


class _Unhashable:
    """A callable object with ``__eq__`` and so no hash."""

    def __init__(self, a):
        self.a = a

    def __eq__(self, other):
        return isinstance(other, _Unhashable) and other.a == self.a

    def __call__(self, t):
        return self.a * t * t


def call_unhashable_callable_objects(x, y):
    return _Unhashable(y)(x) + {"k": _Unhashable(2.0)}["k"](x)


def test_calling_an_unhashable_callable_object():
    # forward mode looked the callee up in a set: TypeError (unhashable type)
    assert_jvp_structural(call_unhashable_callable_objects, 0.37, 1.3)


def scale_each_object_in_a_list(objs, y):
    for o in objs:
        o.a = o.a * y
    return objs[0].a + objs[1].a * objs[1].b


def test_objects_given_no_tangent_in_a_list_change_in_forward_mode():
    # an object given None in a list's tangent had no tangent to change with it: AttributeError on None
    for tangents, want in [(([zpy.Tangent(a=1.0), None], 0.0), 0.7), (([None, None], 1.0), 0.37 - 0.8 * 0.5)]:
        y, dy = zpy.jvp(scale_each_object_in_a_list, ([Pair(0.37, 1.3), Pair(-0.8, 0.5)], 0.7), tangents)
        assert dy == pytest.approx(want)
