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
