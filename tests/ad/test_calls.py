"""Calls that spread their arguments (``f(*xs)``, ``f(**kw)``, displays
with ``*`` and ``**``) and the dict methods that read items, each checked
against central finite differences."""
import pytest

import zygote_py as zpy
from .test_mutation import check


def product(a, b, c=1.0, **extra):
    return a * b * c + extra.get("d", 0.0)


def spread_a_list(xs):
    return product(*xs)


def spread_and_name(x, y):
    args = (x, y)
    return product(*args, c=x)


def spread_a_dict(x):
    kw = {"c": x, "d": x * x}
    return product(x, 2.0, **kw)


def spread_in_the_middle(xs, y):
    return product(y, *xs)


SHAPES = (2, 3)


def constants_spread_before_it(x, c):
    # (x's place in the call is known only when it runs: it was taken for the second, gradient 0)
    return product(*SHAPES[:1], x, c=c) + product(*SHAPES, d=x * c)


def tuple_display_with_a_star(xs, y):
    t = (y, *xs)
    return t[0] * t[1] * t[2]


def dict_display_with_two_stars(x):
    d = {"a": x, **{"b": x * x}}
    return d["a"] * d["b"]


def dict_reads(x, y):
    d = {"a": x, "b": y}
    total = sum(d.values())
    for k, v in d.items():
        total = total + v * v
    return total * d.get("a") + d.get("c", y)


@pytest.mark.parametrize("f, args", [
    (spread_a_list, ([1.5, 2.0],)),
    (spread_a_list, ((1.5, 2.0, -0.5),)),
    (spread_and_name, (1.5, 2.0)),
    (spread_a_dict, (1.5,)),
    (spread_in_the_middle, ([1.5], 2.0)),
    (constants_spread_before_it, (1.5, -0.5)),
    (tuple_display_with_a_star, ([1.5, 2.0], 3.0)),
    (dict_display_with_two_stars, (1.5,)),
    (dict_reads, (1.5, -0.7)),
], ids=lambda v: getattr(v, "__name__", None))
def test_spread_calls_and_dict_reads(f, args):
    check(f, *args)


def test_a_spread_list_gets_a_list_and_a_tuple_a_tuple():
    assert zpy.gradient(spread_a_list, [1.5, 2.0]) == ([2.0, 1.5],)
    assert zpy.gradient(spread_a_list, (1.5, 2.0, -0.5)) == ((-1.0, -0.75, 3.0),)


def spread_an_iterator(x):
    return product(*map(abs, [x, 2.0]))


def test_a_spread_iterator_is_read_once():
    check(spread_an_iterator, 1.5)
    check(spread_an_iterator, -1.5)


# -- functions held by objects, and closures made in loops ---------------------------

class _Holds:
    def __init__(self, g):
        self.g = g


def call_a_closure_held_by_a_field(x, y):
    o = _Holds(lambda t: t * y)
    return o.g(x)


def call_a_closure_assigned_to_a_field(x, y):
    o = _Holds(None)
    o.go = lambda: x * y
    return o.go()


def call_a_closure_in_a_namedtuple(x, y):
    op = _Op(lambda t: t * y, x)
    return op.fn(op.w)


_Op = __import__("collections").namedtuple("_Op", "fn w")


@pytest.mark.parametrize("f", [call_a_closure_held_by_a_field, call_a_closure_assigned_to_a_field,
                               call_a_closure_in_a_namedtuple], ids=lambda f: f.__name__)
def test_a_function_held_by_an_object_and_called_through_it(f):
    """The closure's gradient went to the object as its own ((1.3, 0.0) for
    (1.3, 0.7); TypeError in accum for the namedtuple): it is the field's."""
    check(f, 0.7, 1.3)


def closures_made_in_a_loop_and_kept(x, y):
    fs = []
    for v in [x, y]:
        fs.append(lambda: v)  # (each reads v when called: the last value)
    return fs[0]() * 2.0


def closures_made_in_a_loop_and_called_there(x, y):
    out = 0.0
    for k in [x, y]:
        out = out + sum(map(lambda v: v * k, [1.0, 2.0, x]))
    return out


def test_a_closure_kept_past_the_loop_pass_that_made_it_is_refused():
    # its gradient went to the value of the pass that made it ((2.0, 0.0) for (0.0, 2.0)), in silence
    with pytest.raises(zpy.UnsupportedSyntax, match="passed on, returned or stored") as info:
        zpy.gradient(closures_made_in_a_loop_and_kept, 0.7, 1.3)
    assert "closures_made_in_a_loop_and_kept" in str(info.value)
    check(closures_made_in_a_loop_and_called_there, 0.7, 1.3)


class _Doubles:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 2.0)


def assign_through_setattr(x):
    p = _Doubles()
    p.a = x
    return p.a


def test_a_classs_own_setattr_is_not_taken_for_a_plain_field():
    # the store was differentiated as a plain field's (1.0 for 2.0, in silence)
    with pytest.raises(zpy.NoDerivativeRule, match="object.__setattr__"):
        zpy.gradient(assign_through_setattr, 0.7)
