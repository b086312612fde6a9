"""Forward mode (``zpy.jvp``) on objects changed in place where they are
reached through another object: an item of a container, a loop variable,
the result of ``dict.get`` or ``setdefault``, an attribute; objects made
of constants that receive differentiated values; ``+=`` on a list through
a second name. Each object's tangent is one object changed alongside it,
reachable wherever the object is, so the value is the plain call's and
the tangent is the central difference."""
import copy
from dataclasses import dataclass

import numpy as np
import pytest

import zygote_py as zpy

X = 1.3
W = np.zeros(2)  # a global array, which forward mode cannot give a tangent


class Obj:
    def __init__(self, a):
        self.m = a


class Child(Obj):
    def __init__(self, a, b):
        super().__init__(a)
        self.b = b


class Slotted:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


class Empty:
    pass


class Box:
    def __init__(self):
        self.data = {}

    def __setitem__(self, k, v):
        self.data[k] = v


@dataclass
class Pair:
    a: float
    b: list


# -- items reached through a loop variable --------------------------------

def loop_over_a_list_of_lists(x):
    rows = [[x]]
    for r in rows:
        r[0] = 2.0 * x
    return rows[0][0]


def loop_over_a_list_of_arrays(x):
    a = np.array([x])
    for arr in [a]:
        arr[0] = 2.0 * x
    return a[0]


def append_through_a_loop_variable(x):
    rows = [[x]]
    for r in rows:
        r.append(2.0 * x)
    return rows[0][1]


def loop_over_the_rows_of_an_array(x):
    m = np.array([[x]])
    for row in m:
        row[0] = 2.0 * x
    return m[0, 0]


def loop_over_constant_rows(x):
    rows = [[0.0], [1.0]]
    for r in rows:
        r[0] = r[0] + x * x
    return rows[0][0] * rows[1][0]


def loop_over_a_list_holding_a_named_list(x):
    row = [0.0, 1.0]
    rows = [row]
    for r in rows:
        r[1] = x * r[1]
    return row[1]


def loop_over_nested_lists(x):
    grid = [[[0.0]], [[x]]]
    for plane in grid:
        for r in plane:
            r[0] = r[0] + 3.0 * x
    return grid[0][0][0] + grid[1][0][0] ** 2


def enumerate_the_rows(x):
    rows = [np.zeros(2), np.ones(2)]
    for i, r in enumerate(rows):
        r[i] = x * (i + 1)
    return rows[0][0] + rows[1][1]


def zip_rows_and_scales(x):
    rows = [[1.0], [2.0]]
    for r, k in zip(rows, [x, 2.0]):
        r.append(k * x)
    return rows[0][1] + rows[1][1]


def loop_over_the_planes_of_an_array(x):
    m = np.zeros((2, 2, 2))
    for plane in m:
        plane[0, 1] = x * x
    return m[1, 0, 1]


def loop_over_a_dict_of_arrays(x):
    d = {"a": np.zeros(2), "b": np.ones(2)}
    for v in d.values():
        v[0] = v[1] * x
    return d["a"][0] + d["b"][0]


# -- items reached through dict.get, setdefault, pop -----------------------

def setdefault_then_append(x):
    d = {}
    d.setdefault("a", []).append(x)
    return d["a"][0]


def change_what_get_returns(x):
    d = {"a": [0.0]}
    l = d.get("a")
    l[0] = x
    return d["a"][0]


def nested_setdefault(x):
    d = {}
    d.setdefault("a", {}).setdefault("b", []).append(x * x)
    d["a"]["b"].append(x)
    return d["a"]["b"][0] + d["a"]["b"][1]


def change_an_array_get_returns(x):
    d = {"w": np.ones(3)}
    w = d.get("w")
    w *= x
    return d["w"][2]


def change_what_pop_returns(x):
    d = {"a": [0.0, 0.0]}
    l = d.pop("a")
    l[1] = x
    d["b"] = l
    return d["b"][1]


def change_an_item_read_by_index(x):
    rows = [[0.0], [0.0]]
    r = rows[1]
    r[0] = x
    return rows[1][0]


def change_a_named_item_through_its_list(x):
    row = [0.0]
    rows = [row]
    rows[0][0] = x
    return row[0]


def change_an_item_of_a_copy(x):
    rows = [[0.0]]
    other = rows.copy()
    other[0][0] = x
    return rows[0][0]


def change_an_item_of_a_shallow_copy(x):
    rows = [[0.0]]
    other = copy.copy(rows)
    other[0][0] = x
    return rows[0][0]


# -- attributes -------------------------------------------------------------

def change_an_array_attribute(x):
    o = Obj(np.array([1.0, 2.0]))
    o.m[1] = x
    return o.m[1]


def append_to_a_list_attribute(x):
    o = Obj([1.0])
    o.m.append(x)
    return o.m[1]


def set_an_attribute_made_of_a_constant(x):
    o = Obj(1.0)
    o.m = x
    return o.m


def change_an_attribute_of_an_attribute(x):
    o = Obj(Obj(np.array([1.0, 2.0])))
    o.m.m[0] = x * x
    return o.m.m[0] + o.m.m[1]


def change_the_array_an_object_holds(x):
    a = np.zeros(2)
    o = Obj(a)
    o.m[0] = x
    return a[0]


def set_an_attribute_twice(x):
    o = Obj(x)
    o.m = o.m * x
    o.m = o.m + 1.0
    return o.m


def set_a_dataclass_field(x):
    p = Pair(x, [])
    p.a = 3.0 * p.a
    p.b.append(x)
    return p.a + p.b[0]


def change_a_slot(x):
    s = Slotted([0.0])
    s.v[0] = x * x
    return s.v[0]


def change_an_attribute_added_later(x):
    o = Empty()
    o.items = []
    o.items.append(x)
    return o.items[0]


def change_an_array_of_a_subclass(x):
    c = Child(1.0, np.zeros(2))
    c.b[1] = x
    c.m = c.m * x
    return c.b[1] + c.m


def list_attribute_in_a_loop(x):
    o = Obj([])
    for k in range(3):
        o.m.append(k * x)
    return o.m[2]


# -- objects held by other objects -----------------------------------------

def copies_keep_their_own_tangents(x):
    a = np.ones(2) * x
    b = a + 0.0
    rows = [a, b]
    for r in rows:
        r[0] = 5.0
    return a[1] + b[0] + a[0]


def append_to_a_new_list_of_the_same_items(x):
    a = [x]
    b = list(a)
    b.append(x)
    return len(a) + a[0] + b[1]


def change_an_item_collected_in_another_list(x):
    rows = [[x], [2.0]]
    out = []
    for r in rows:
        out.append(r)
    out[1][0] = x * x
    return rows[1][0]


def loop_over_dict_items(x):
    d = {"a": [x]}
    for k, v in d.items():
        v.append(x * 3.0)
    return d["a"][1]


def change_what_list_pop_returns(x):
    l = [np.zeros(2)]
    a = l.pop()
    a[0] = x
    return a[0]


def three_levels_deep(x):
    p = [0.0]
    q = [p]
    r = [q]
    r[0][0][0] = x
    return p[0] + q[0][0]


def list_of_array_rows(x):
    m = np.zeros((2, 2))
    rows = list(m)
    rows[0][1] = x
    return m[0, 1]


# -- keys, and += on a list through a second name --------------------------

def keys_read_before_a_store(x):
    d = {"a": x}
    ks = list(d.keys())
    d["a"] = x * x
    return d["a"]


def scale_each_key(x):
    d = {"a": 1.0, "b": 2.0}
    for k in list(d.keys()):
        d[k] = d[k] * x
    return d["a"] + d["b"]


def extend_a_list_through_an_alias(x):
    l = [x]
    m = l
    l += [2.0 * x]
    return m[1]


def extend_a_list_by_constants(x):
    l = [x]
    m = l
    l += [5.0]
    return m[0] * m[1]


def repeat_a_list_through_an_alias(x):
    l = [x]
    m = l
    l *= 2
    return m[0] + m[1]


def extend_a_list_in_a_loop(x):
    acc = []
    alias = acc
    for k in range(3):
        acc += [k * x]
    return sum(alias)


# -- one object reached twice -----------------------------------------------

def one_list_twice(x):
    rows = [[0.0]] * 2
    rows[0][0] = x
    return rows[1][0]


def repeat_a_differentiated_list(x):
    rows = [[x]] * 2
    rows[0][0] = 2.0 * x
    return rows[1][0]


def one_named_list_twice(x):
    row = [0.0]
    rows = [row, row]
    rows[0][0] = x
    return rows[1][0]


def one_array_in_two_dicts(x):
    a = np.zeros(2)
    d = {"a": a}
    e = {"b": a}
    d["a"][1] = x
    return e["b"][1]


CASES = [
    loop_over_a_list_of_lists, loop_over_a_list_of_arrays, append_through_a_loop_variable,
    loop_over_the_rows_of_an_array, loop_over_constant_rows, loop_over_a_list_holding_a_named_list,
    loop_over_nested_lists, enumerate_the_rows, zip_rows_and_scales, loop_over_the_planes_of_an_array,
    loop_over_a_dict_of_arrays,
    setdefault_then_append, change_what_get_returns, nested_setdefault, change_an_array_get_returns,
    change_what_pop_returns, change_an_item_read_by_index, change_a_named_item_through_its_list,
    change_an_item_of_a_copy, change_an_item_of_a_shallow_copy,
    change_an_array_attribute, append_to_a_list_attribute, set_an_attribute_made_of_a_constant,
    change_an_attribute_of_an_attribute, change_the_array_an_object_holds, set_an_attribute_twice,
    set_a_dataclass_field, list_attribute_in_a_loop, change_a_slot, change_an_attribute_added_later,
    change_an_array_of_a_subclass, copies_keep_their_own_tangents, append_to_a_new_list_of_the_same_items,
    change_an_item_collected_in_another_list, loop_over_dict_items, change_what_list_pop_returns,
    three_levels_deep, list_of_array_rows,
    keys_read_before_a_store, scale_each_key, extend_a_list_through_an_alias, extend_a_list_by_constants,
    repeat_a_list_through_an_alias, extend_a_list_in_a_loop,
    one_list_twice, repeat_a_differentiated_list, one_named_list_twice, one_array_in_two_dicts,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_change_reached_through_another_object(f):
    y, dy = zpy.jvp(f, (X,), (1.0,))
    h = 1e-6
    assert y == f(X)
    assert dy == pytest.approx((f(X + h) - f(X - h)) / (2 * h), rel=1e-6, abs=1e-8)


# -- refused: changes the tangent could not follow --------------------------

def change_a_global_through_a_list(x):
    rows = [W]
    for r in rows:
        r[0] = x
    return rows[0][0]


def change_an_item_of_a_global_list(x):
    r = GLOBAL_ROWS[0]
    r[0] = x
    return r[0]


GLOBAL_ROWS = [[0.0]]


def change_an_item_of_a_parameter(x, rows):
    for r in rows:
        r[0] = x
    return rows[0][0]


def call_super_init(x):
    c = Child(x, [1.0])
    c.b.append(x * c.m)
    return c.b[1]


def test_super_init_hands_on_the_objects_tangent():
    """(It was refused: ``super().__init__(...)`` had no tangent for ``self``.)"""
    y, dy = zpy.jvp(call_super_init, (X,), (1.0,))
    h = 1e-6
    assert y == call_super_init(X)
    assert dy == pytest.approx((call_super_init(X + h) - call_super_init(X - h)) / (2 * h), rel=1e-6)


def store_into_an_object_with_setitem(x):
    b = Box()
    b["k"] = x * 2.0
    return b.data["k"]


@pytest.mark.parametrize("f, args, line", [
    (change_a_global_through_a_list, (X,), "r[0] = x"),
    (change_an_item_of_a_global_list, (X,), "r[0] = x"),
    (change_an_item_of_a_parameter, (X, [[0.0]]), "def change_an_item_of_a_parameter"),
    (store_into_an_object_with_setitem, (X,), 'b["k"] = x * 2.0'),
], ids=lambda v: getattr(v, "__name__", None))
def test_refused_with_the_line(f, args, line):
    with pytest.raises(zpy.ZygoteError) as e:
        zpy.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))
    assert "forward mode" in str(e.value) and e.value.filename == __file__
    with open(__file__) as source:
        assert line in source.read().splitlines()[e.value.line - 1]


def add_at_into_an_array_made_here(x):
    a = np.ones(2)
    np.add.at(a, np.array([0, 0]), x)
    return a[0] * x


def test_add_at_into_an_array_without_a_tangent_of_its_own():
    # the array, made from constants, got no tangent, and np.add.at's rule had none to add into: 0.0 for 2x + 1
    y, dy = zpy.jvp(add_at_into_an_array_made_here, (1.3,), (1.0,))
    h = 1e-6
    assert y == add_at_into_an_array_made_here(1.3)
    assert dy == pytest.approx((add_at_into_an_array_made_here(1.3 + h) - add_at_into_an_array_made_here(1.3 - h))
                               / (2 * h), rel=1e-6)


def a_nested_function_with_try_finally(x):
    def inner(m):
        try:
            m.append(x * 2.0)
            return m[-1]
        finally:
            m.append(x)
    return inner([x])


def test_a_nested_function_reading_a_shared_variable_in_a_handler():
    # forward mode passed the shared variable's value along the normal edges but not the handler's:
    # IndexError; both modes refuse the change in the try block
    for take in (lambda: zpy.jvp(a_nested_function_with_try_finally, (1.3,), (1.0,)),
                 lambda: zpy.gradient(a_nested_function_with_try_finally, 1.3)):
        with pytest.raises(zpy.ZygoteError) as info:
            take()
        assert "inner" in str(info.value)
