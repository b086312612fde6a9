"""Functions that take functions and iterables — ``map``, ``filter``,
``zip``, ``enumerate``, ``reversed``, ``sorted``, ``list``, ``tuple``,
``functools.reduce`` and ``functools.partial`` — and ``for`` loops over
what they return, checked against central finite differences of the plain
function along every float, inside lists, tuples and arrays too.
"""
import functools
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import runtime
from zygote_py.errors import NoDerivativeRule

from .fdcheck import close


def leaves(args: tuple) -> list[tuple]:
    """The float leaves of ``args``: ``(i,)`` for an argument, ``(i, j)``
    for an item of a list, tuple or array argument."""
    out = []
    for i, a in enumerate(args):
        if isinstance(a, float):
            out.append((i,))
        elif isinstance(a, np.ndarray):
            out += [(i, j) for j in range(a.size)]
        elif isinstance(a, (list, tuple)):
            out += [(i, j) for j, v in enumerate(a) if isinstance(v, float)]
    return out


def moved(args: tuple, leaf: tuple, h: float) -> tuple:
    """``args`` with the leaf moved by ``h`` (containers rebuilt as their
    own kind)."""
    args = list(args)
    i = leaf[0]
    if len(leaf) == 1:
        args[i] = args[i] + h
    elif isinstance(args[i], np.ndarray):
        a = args[i].copy()
        a.flat[leaf[1]] += h
        args[i] = a
    else:
        items = list(args[i])
        items[leaf[1]] += h
        args[i] = type(args[i])(items)
    return tuple(args)


def gradient_at(grads: tuple, leaf: tuple) -> float:
    g = grads[leaf[0]]
    if len(leaf) == 2 and g is not None:
        g = g.flat[leaf[1]] if isinstance(g, np.ndarray) else g[leaf[1]]
    return 0.0 if g is None else g


def check(f, *args) -> tuple:
    """``zpy.value_and_gradient(f, *args)``: the value is ``f(*args)``, a
    list, tuple or array argument gets a gradient of its own kind and
    length (or none), and every float leaf's gradient agrees with the
    central difference of ``f``. Returns the gradients."""
    value, grads = zpy.value_and_gradient(f, *args)
    assert value == f(*args)
    for a, g in zip(args, grads):
        if isinstance(a, (list, tuple, np.ndarray)) and g is not None:
            assert type(g) is type(a) and len(g) == len(a), (a, g)
    for leaf in leaves(args):
        x = args[leaf[0]] if len(leaf) == 1 else np.asarray(args[leaf[0]]).flat[leaf[1]]
        h = 1e-6 * max(1.0, abs(x))
        slope = (f(*moved(args, leaf, h)) - f(*moved(args, leaf, -h))) / (2 * h)
        rounding = 4e-16 * abs(value) / h * 3
        assert close(gradient_at(grads, leaf), slope, rounding), (f.__name__, leaf, grads, slope)
    return grads


XS = [0.5, -1.25, 2.0, 0.75]
YS = [1.5, 0.25, -0.5]


def scaled(w, v):
    return w * math.sin(v)


def sum_map_closure(xs, w):
    return sum(map(lambda v: v * w, xs))


def sum_map_two(xs, ys):
    return sum(map(lambda a, b: a * b + a, xs, ys))


def map_user_function(xs, w):
    s = 0.0
    for v in map(math.sin, xs):
        s += v * w
    return s


def max_of_map(xs, w):
    return max(map(lambda v: (v - w) ** 2, xs))


def sorted_map(xs, w):
    ys = sorted(map(lambda v: v * w, xs))
    return ys[0] + 2.0 * ys[-1]


MAP_CASES = [
    (sum_map_closure, (XS, 1.5)),
    (sum_map_closure, (tuple(XS), -0.5)),
    (sum_map_closure, (np.array(XS), 0.75)),
    (sum_map_two, (XS, YS)),
    (sum_map_two, (YS, tuple(XS))),
    (map_user_function, (XS, 0.5)),
    (max_of_map, (XS, 0.2)),
    (sorted_map, (XS, -1.5)),
]


@pytest.mark.parametrize("f, args", MAP_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_map(f, args):
    check(f, *args)


def test_map_gives_the_closure_its_captured_variables_gradient():
    def total(fn, xs):
        return sum(map(fn, xs))

    w = 1.5
    _, (dfn, dxs) = zpy.value_and_gradient(total, lambda v: w * v * v, XS)
    assert dxs == [2 * w * v for v in XS]
    assert runtime.field(dfn, "w") == pytest.approx(sum(v * v for v in XS))


def sum_filter(xs, w):
    return sum(filter(lambda v: v > 0.0, map(lambda v: v * w, xs)))


def loop_filter_none(xs):
    s = 0.0
    for v in filter(None, xs):
        s += v * v
    return s


FILTER_CASES = [
    (sum_filter, (XS, 1.5)),
    (sum_filter, (XS, -1.5)),
    (loop_filter_none, ([0.5, 0.0, -2.0],)),
]


@pytest.mark.parametrize("f, args", FILTER_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_filter(f, args):
    check(f, *args)


def loop_zip(xs, ys):
    s = 0.0
    for a, b in zip(xs, ys):
        s += a * b * b
    return s


def loop_zip_three(xs, ys, zs):
    s = 0.0
    for a, b, c in zip(xs, ys, zs):
        s += a * b + math.cos(c)
    return s


def zip_then_the_rest(xs, ys):
    # zip takes one item too many from the longer iterator, which is lost:
    # it gets no gradient; sum takes the rest
    rest = map(math.sin, xs)
    s = 0.0
    for a, b in zip(rest, ys):
        s += a * b
    return s + 3.0 * sum(rest)


def iterated_twice(xs, w):
    # a map object is exhausted after one loop: the second one adds nothing
    ys = map(lambda v: v * w, xs)
    s = 0.0
    for v in ys:
        s += v * v
    for v in ys:
        s += 100.0 * v
    return s


ZIP_CASES = [
    (loop_zip, (XS, YS)),
    (loop_zip, (tuple(YS), np.array(XS))),
    (loop_zip_three, (XS, tuple(YS), np.array(XS[:2]))),
    (zip_then_the_rest, (XS, YS[:2])),
    (zip_then_the_rest, (XS, YS)),
    (iterated_twice, (XS, 0.5)),
]


@pytest.mark.parametrize("f, args", ZIP_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_zip(f, args):
    check(f, *args)


def test_zip_then_the_rest_loses_one_item_gradient():
    _, (dxs, _) = zpy.value_and_gradient(zip_then_the_rest, XS, YS[:2])
    assert dxs[2] is None and dxs[3] == pytest.approx(3.0 * math.cos(XS[3]))


def loop_enumerate(xs):
    s = 0.0
    for i, v in enumerate(xs):
        s += i * v * v
    return s


def loop_enumerate_start(xs, w):
    s = 0.0
    for i, v in enumerate(xs, start=2):
        s += (i * w) * v
    return s


def loop_reversed(xs):
    s = 0.0
    for i, v in enumerate(reversed(xs)):
        s += (i + 1) * v * v
    return s


def sum_reversed_list(xs):
    ys = list(reversed(xs))
    return ys[0] * 4.0 + ys[1] * ys[2]


ENUMERATE_CASES = [
    (loop_enumerate, (XS,)),
    (loop_enumerate, (np.array(XS),)),
    (loop_enumerate_start, (tuple(XS), 0.5)),
    (loop_reversed, (XS,)),
    (loop_reversed, (tuple(XS),)),
    (loop_reversed, (np.array(XS),)),
    (sum_reversed_list, (XS,)),
]


@pytest.mark.parametrize("f, args", ENUMERATE_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_enumerate_and_reversed(f, args):
    check(f, *args)


def test_enumerate_weights_each_item_by_its_index():
    _, (dxs,) = zpy.value_and_gradient(loop_enumerate, XS)
    assert dxs == [2.0 * i * v for i, v in enumerate(XS)]


def sorted_key_reverse(xs, w):
    ys = sorted(xs, key=lambda v: abs(v - w), reverse=True)
    return ys[0] * 3.0 + ys[1] * ys[2] + w


def sorted_plain(xs):
    ys = sorted(xs)
    return ys[0] + 10.0 * ys[-1] * ys[1]


SORTED_CASES = [
    (sorted_key_reverse, (XS, 0.3)),
    (sorted_key_reverse, (tuple(XS), 1.0)),
    (sorted_plain, (XS,)),
    (sorted_plain, (np.array(XS),)),
]


@pytest.mark.parametrize("f, args", SORTED_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_sorted(f, args):
    check(f, *args)


def min_or_default(xs, w):
    return min(xs, default=w) * w


def max_or_twice_the_default(xs, w):
    return max([v * w for v in xs], key=abs, default=2.0 * w)


def max_of_nothing(w):
    return max([], default=w * w) + min((), default=w)


MIN_MAX_CASES = [
    (min_or_default, ([], 0.7)),  # (a default returned got no gradient: 0.7, in silence)
    (min_or_default, (XS, 0.7)),
    (max_or_twice_the_default, ([], 0.7)),
    (max_or_twice_the_default, (YS, 0.7)),
    (max_of_nothing, (0.7,)),
]


@pytest.mark.parametrize("f, args", MIN_MAX_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_min_and_max_with_a_default(f, args):
    check(f, *args)


def product(xs):
    return functools.reduce(lambda a, b: a * b, xs)


def horner(xs, w, c):
    return functools.reduce(lambda acc, v: acc * w + v, xs, c)


def reduce_over_zip(xs, ys):
    return functools.reduce(lambda acc, p: acc + p[0] * p[1], zip(xs, ys), 0.0)


REDUCE_CASES = [
    (product, (XS,)),
    (product, ((2.5,),)),
    (product, (np.array(XS),)),
    (horner, (XS, 0.7, 1.5)),
    (horner, ([], 0.7, 1.5)),
    (reduce_over_zip, (XS, YS)),
]


@pytest.mark.parametrize("f, args", REDUCE_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_reduce(f, args):
    check(f, *args)


def test_reduce_of_nothing_is_python_error():
    with pytest.raises(TypeError, match="empty iterable"):
        zpy.gradient(product, [])


def sum_map_partial(xs, w):
    return sum(map(functools.partial(scaled, w), xs))


def call_partial_of_partial(x, w, u):
    p = functools.partial(functools.partial(scaled3, w), u)
    return p(x)


def scaled3(w, u, v):
    return w * math.sin(v) + u * v


def affine(w, v, u):
    return w * math.sin(v) + u * v


def call_partial(p, x):
    return p(x) * x


@pytest.mark.parametrize("f, args", [
    (sum_map_partial, (XS, 1.5)),
    (call_partial_of_partial, (0.5, 1.5, -2.0)),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_partial(f, args):
    check(f, *args)


DOUBLED = functools.partial(scaled, 2.0)


def call_global_partial(x):
    return DOUBLED(x) * x


def test_partial_object_known_when_compiling():
    check(call_global_partial, 0.5)


def test_partial_object_argument_gets_its_bound_arguments_gradient():
    p = functools.partial(scaled, 1.5)
    x = 0.5
    _, (dp, dx) = zpy.value_and_gradient(call_partial, p, x)
    assert dp == {"func": None, "args": (math.sin(x) * x,), "keywords": {}}
    assert dx == pytest.approx(1.5 * math.cos(x) * x + 1.5 * math.sin(x))


def test_partial_object_with_keywords_gradient():
    p = functools.partial(affine, 2.0, u=0.5)
    x = 0.5
    _, (dp, _) = zpy.value_and_gradient(call_partial, p, x)
    assert dp == {"func": None, "args": (math.sin(x) * x,), "keywords": {"u": x * x}}


def partial_with_keyword(x, u):
    return functools.partial(affine, 2.0, u=u)(x)


def test_partial_refuses_a_gradient_for_a_bound_keyword():
    with pytest.raises(NoDerivativeRule, match="keyword argument bound by functools.partial"):
        zpy.gradient(partial_with_keyword, 0.5, 1.5)


def list_of_map(xs):
    ys = list(map(math.sin, xs))
    return ys[0] * ys[-1]


def tuple_of_zip(xs, ys):
    pairs = tuple(zip(xs, ys))
    return pairs[0][0] * pairs[1][1] + pairs[-1][0]


def tuple_of_list(xs):
    t = tuple(xs)
    a, b = t[:2]
    return a * b


def unpack_map(xs, w):
    a, b = map(lambda v: v * w, xs)
    return a * b


def unpack_after_zip(xs, ys):
    rest = map(math.sin, xs)
    n = 0
    for _ in zip(rest, ys):
        n += 1
    b, c = rest
    return n * b * c


def test_unpack_map():
    check(unpack_map, XS[:2], 1.5)


def test_unpacking_a_partly_consumed_iterator():
    # zip takes xs[0] and xs[1] (lost); unpacking gets a gradient for the
    # last two items only, placed after the items the iterator had yielded
    assert check(unpack_after_zip, XS, YS[:1])[0][:2] == [None, None]


LIST_TUPLE_CASES = [
    (list_of_map, (XS,)),
    (list_of_map, (np.array(XS),)),
    (tuple_of_zip, (XS, tuple(YS))),
    (tuple_of_list, (XS,)),
]


@pytest.mark.parametrize("f, args", LIST_TUPLE_CASES, ids=lambda v: v.__name__ if callable(v) else "")
def test_list_and_tuple(f, args):
    check(f, *args)


def pairs(*iterables):
    return zip(*iterables)  # (a *args function: called, not inlined)


def inlined_pairs(xs, ys):
    return zip(xs, ys)


def loop_over_helpers_iterator(xs, ys):
    s = 0.0
    for a, b in pairs(xs, ys):
        s += a * b
    return s


def loop_over_list_of_helpers_iterator(xs, ys):
    s = 0.0
    for a, b in list(pairs(xs, ys)):
        s += a * b
    return s


def loop_over_an_inlined_helpers_iterator(xs, ys):
    s = 0.0
    for a, b in inlined_pairs(xs, ys):
        s += a * b
    return s


def test_loop_over_an_iterator_a_helper_returned():
    # (was refused, "make it a list first: list(it)": the loop indexed it; it is read as list(it) would be)
    check(loop_over_helpers_iterator, XS, YS)
    check(loop_over_list_of_helpers_iterator, XS, YS)
    check(loop_over_an_inlined_helpers_iterator, XS, YS)  # the helper's body is the caller's


def test_iterators_from_rules_behave_as_pythons():
    it = runtime.EagerIterator([1.0, 2.0])
    assert it and list(it) == [1.0, 2.0] and list(it) == []
    with pytest.raises(TypeError):
        len(it)


def cube(x):
    return x * x * x


def bumpy(x):
    return x ** 3 - 2.0 * x * x + math.exp(0.5 * x)


def twice_through(f):
    return lambda z: f(z) * 2.0


def test_closures_of_one_code_each_differentiate_their_own_function():
    # the compilation of the lambda inlines the f it captures, and is shared by every
    # closure of that code: each is checked against its own cell (the second once got
    # the first's gradient, in silence)
    x = 0.8
    for f, derivative in [(cube, 3 * x * x), (bumpy, 3 * x * x - 4.0 * x + 0.5 * math.exp(0.5 * x)),
                          (cube, 3 * x * x)]:
        g = twice_through(f)
        assert zpy.gradient(g, x)[0] == pytest.approx(2.0 * derivative, rel=1e-12)
        assert zpy.jvp(g, (x,), (1.0,))[1] == pytest.approx(2.0 * derivative, rel=1e-12)
        assert zpy.gradient(lambda y: zpy.gradient(g, y)[0], x)[0] == pytest.approx(
            2.0 * (6 * x if f is cube else 6 * x - 4.0 + 0.25 * math.exp(0.5 * x)), rel=1e-12)


# -- decorators: the wrapper is what runs ------------------------------------------


def doubled(f):
    @functools.wraps(f)
    def wrapper(x):
        return 2.0 * f(x)
    return wrapper


def doubled_all(f):
    @functools.wraps(f)
    def wrapper(*args):
        return 2.0 * f(*args)
    return wrapper


def shifted_by(c):
    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            return f(*args, **kwargs) + c * args[0]
        return wrapper
    return decorate


@doubled
def doubled_square(x):
    return x * x


@shifted_by(3.0)
def shifted_product(x, w):
    return x * w


@doubled
@doubled
def quadrupled_sine(x):
    return math.sin(x)


def calls_decorated(x, w):
    return doubled_square(x) + shifted_product(x, w=w) + quadrupled_sine(w)


class Scaler:
    def __init__(self, w):
        self.w = w

    @doubled_all
    def apply(self, x):
        return self.w * x


class Tripled:
    """A class-based decorator: calling the object runs its ``__call__``."""

    def __init__(self, f):
        functools.update_wrapper(self, f)

    def __call__(self, x):
        return 3.0 * self.__wrapped__(x)


@Tripled
def tripled_cube(x):
    return x * x * x


@pytest.mark.parametrize("f, args", [
    (doubled_square, (1.3,)), (shifted_product, (1.3, -0.4)), (quadrupled_sine, (0.6,)),
    (calls_decorated, (1.3, -0.4)), (tripled_cube, (0.7,)), (lambda x: tripled_cube(x) * x, (0.7,)),
], ids=["doubled", "args-kwargs", "stacked", "called", "class-based", "class-based-called"])
def test_a_functools_wraps_decorator_is_differentiated_as_called(f, args):
    # zygote_py once followed __wrapped__ to the undecorated function: 2 * x * x gave 2 * x
    check(f, *args)


def test_a_decorated_method_is_differentiated_as_called():
    assert zpy.gradient(lambda s, x: s.apply(x), Scaler(0.5), 1.3) == (zpy.Tangent(w=2.0 * 1.3), 1.0)
    assert zpy.gradient(Scaler(0.5).apply, 1.3) == (1.0,)


@pytest.mark.parametrize("f", [doubled_square, quadrupled_sine, lambda x: doubled_square(x) * x],
                         ids=["doubled", "stacked", "called"])
def test_forward_mode_differentiates_the_wrapper(f):
    x, h = 0.9, 1e-6
    y, dy = zpy.jvp(f, (x,), (1.0,))
    assert y == f(x)
    assert dy == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-6)
