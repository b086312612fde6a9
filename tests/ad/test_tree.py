"""``zpy.tree`` (issue 32, part 2): pytrees over tuples, lists, dicts,
namedtuples, dataclasses, objects, ``Tangent`` and ``None``; and the
arithmetic of ``Tangent`` (``g1 + g2``, ``g1 - g2``, ``-g``, ``c * g``,
``g / c``).

Trees are compared with :func:`assert_same_tree`, which walks them by
hand (class, fields, items), not through ``zpy.tree``. The steps of
gradient descent take their gradients from ``zpy.gradient`` and are
checked against central finite differences of the loss, one element of
one float leaf at a time.
"""
from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import math
import pathlib
from collections import OrderedDict, defaultdict, namedtuple
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import Tangent, tangent
from tests.rules.npcheck import check_program

Point = namedtuple("Point", "x y")
Layer = namedtuple("Layer", "w b")


@dataclasses.dataclass
class Linear:
    w: Any
    b: Any
    name: str = "linear"
    width: int = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: Any
    b: Any


class Plain:
    made = 0

    def __init__(self, w, b, steps):
        Plain.made += 1  # (a rebuilt object is a copy: __init__ is not called again)
        self.w = w
        self.b = b
        self.steps = steps


class Slotted:
    __slots__ = ("u", "v")

    def __init__(self, u, v):
        self.u = u
        self.v = v


class Colour(enum.Enum):
    RED = 1


class Counts(dict):
    """A dict subclass: a leaf (it may not be rebuilt from its items)."""


def assert_same_tree(got, want):
    """``got`` is ``want``'s tree: the same classes, keys and fields, equal
    leaves (arrays of the same dtype and values)."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert_same_tree(a, b)
    elif isinstance(want, dict) and type(want) in (dict, OrderedDict, defaultdict):
        assert list(got) == list(want)  # (the keys in their order)
        for k in want:
            assert_same_tree(got[k], want[k])
    elif isinstance(want, Tangent):
        assert list(tangent.values(got)) == list(tangent.values(want))
        for k, v in tangent.values(want).items():
            assert_same_tree(tangent.values(got)[k], v)
    elif isinstance(want, (Linear, Frozen, Plain, Slotted)):
        names = [f.name for f in dataclasses.fields(want)] if dataclasses.is_dataclass(want) else \
            list(getattr(want, "__slots__", None) or vars(want))
        if not dataclasses.is_dataclass(want) and not hasattr(want, "__slots__"):
            assert vars(got).keys() == vars(want).keys()
        for n in names:
            assert_same_tree(getattr(got, n), getattr(want, n))
    else:
        assert got == want or got is want


def add_one(x):
    return x + 1


PARTIAL = functools.partial(max, 1)  # (made by its own __new__, its state not in its __dict__: a leaf)

# (tree, its leaves in order, its structure's repr)
W = np.array([1.0, 2.0])
CASES = {
    "leaf": (3.0, [3.0], "TreeDef(*)"),
    "array": (W, [W], "TreeDef(*)"),
    "none": (None, [], "TreeDef(None)"),
    "tuple": ((1.0, 2.0), [1.0, 2.0], "TreeDef((*, *))"),
    "one-tuple": ((1.0,), [1.0], "TreeDef((*,))"),
    "empty tuple": ((), [], "TreeDef(())"),
    "list": ([1.0, None, W], [1.0, W], "TreeDef([*, None, *])"),
    "dict": ({"w": W, "b": 0.5}, [0.5, W], "TreeDef({'b': *, 'w': *})"),
    "OrderedDict": (OrderedDict(w=1.0, b=2.0), [2.0, 1.0], "TreeDef(OrderedDict({'b': *, 'w': *}))"),
    "defaultdict": (defaultdict(list, {"w": 1.0}), [1.0], "TreeDef(defaultdict({'w': *}))"),
    "namedtuple": (Point(1.0, W), [1.0, W], "TreeDef(Point(x=*, y=*))"),
    "dataclass": (Linear(W, 0.5), [W, 0.5, "linear", 2], "TreeDef(Linear(w=*, b=*, name=*, width=*))"),
    "frozen dataclass": (Frozen(1.0, [2.0]), [1.0, 2.0], "TreeDef(Frozen(a=*, b=[*]))"),
    "object": (Plain(W, 0.5, 3), [W, 0.5, 3], "TreeDef(Plain(w=*, b=*, steps=*))"),
    "slots": (Slotted(1.0, 2.0), [1.0, 2.0], "TreeDef(Slotted(u=*, v=*))"),
    "Tangent": (Tangent(("a", "b"), a=1.0), [1.0], "TreeDef(Tangent(a=*, b=None))"),
    "atoms": ((np.float32(1.0), "s", add_one, Colour.RED, Counts(a=1), Fraction(1, 3), np.sin, max, PARTIAL, int),
              [np.float32(1.0), "s", add_one, Colour.RED, Counts(a=1), Fraction(1, 3), np.sin, max, PARTIAL, int],
              "TreeDef((*, *, *, *, *, *, *, *, *, *))"),
    "nested": ({"layers": [Linear(W, 0.5), Layer(W, None)], "scale": (2.0, {"k": 3.0})},
               [W, 0.5, "linear", 2, W, 2.0, 3.0],
               "TreeDef({'layers': [Linear(w=*, b=*, name=*, width=*), Layer(w=*, b=None)], "
               "'scale': (*, {'k': *})})"),
}


def assert_same_leaves(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert_same_tree(a, b)


@pytest.mark.parametrize("case", CASES)
def test_leaves_flatten_and_structure(case):
    tree, leaves, shown = CASES[case]
    assert_same_leaves(zpy.tree.leaves(tree), leaves)
    flat, treedef = zpy.tree.flatten(tree)
    assert_same_leaves(flat, leaves)
    assert treedef == zpy.tree.structure(tree) and hash(treedef) == hash(zpy.tree.structure(tree))
    assert repr(treedef) == shown
    assert treedef.num_leaves == len(leaves)


@pytest.mark.parametrize("case", CASES)
def test_unflatten_makes_the_tree_again(case):
    tree, _, _ = CASES[case]
    flat, treedef = zpy.tree.flatten(tree)
    assert_same_tree(zpy.tree.unflatten(treedef, flat), tree)
    again = zpy.tree.unflatten(treedef, [f"new {i}" for i in range(len(flat))])
    assert zpy.tree.leaves(again) == [f"new {i}" for i in range(len(flat))]
    assert zpy.tree.structure(again) == treedef


@pytest.mark.parametrize("case", CASES)
def test_map_applies_f_to_every_leaf_and_keeps_the_structure(case):
    tree, leaves, _ = CASES[case]
    seen = []
    mapped = zpy.tree.map(lambda x: seen.append(x) or f"mapped {len(seen) - 1}", tree)
    assert_same_leaves(seen, leaves)
    assert zpy.tree.leaves(mapped) == [f"mapped {i}" for i in range(len(leaves))]
    assert zpy.tree.structure(mapped) == zpy.tree.structure(tree)
    assert_same_tree(zpy.tree.map(lambda x: x, tree), tree)


def test_a_dict_is_flattened_in_key_order_and_rebuilt_in_its_own():
    d = {"w": 1.0, "b": 2.0, "a": 3.0}
    assert zpy.tree.leaves(d) == [3.0, 2.0, 1.0]
    assert list(zpy.tree.map(lambda x: -x, d).items()) == [("w", -1.0), ("b", -2.0), ("a", -3.0)]
    assert zpy.tree.structure(d) == zpy.tree.structure({"a": 0, "b": 0, "w": 0})  # (insertion order aside)
    mixed = {1: "one", "a": "a"}  # keys that do not compare: their own order
    assert zpy.tree.leaves(mixed) == ["one", "a"]
    assert zpy.tree.map(str.upper, mixed) == {1: "ONE", "a": "A"}


def test_rebuilt_containers_are_new_and_of_their_class():
    d = defaultdict(list, {"w": 1.0})
    mapped = zpy.tree.map(lambda x: 2 * x, d)
    assert type(mapped) is defaultdict and mapped.default_factory is list and mapped is not d
    assert d == {"w": 1.0}  # the original untouched
    frozen = zpy.tree.map(lambda x: 2 * x, Frozen(1.0, 2.0))
    assert frozen == Frozen(2.0, 4.0)
    made = Plain.made
    p = Plain(1.0, 2.0, 3)
    q = zpy.tree.map(lambda x: 10 * x, p)
    assert type(q) is Plain and q is not p and vars(q) == {"w": 10.0, "b": 20.0, "steps": 30}
    assert vars(p) == {"w": 1.0, "b": 2.0, "steps": 3}
    assert Plain.made == made + 1  # (q is a copy: Plain.__init__ not called for it)


def test_an_object_with_fields_added_after_init_keeps_them():
    p = Plain(1.0, 2.0, 3)
    p.extra = 4.0
    assert zpy.tree.leaves(p) == [1.0, 2.0, 3, 4.0]
    assert zpy.tree.map(lambda x: x, p).extra == 4.0


def test_treedefs_differ_where_their_trees_do():
    s = zpy.tree.structure
    assert s((1.0, 2.0)) != s([1.0, 2.0])
    assert s({"a": 1.0}) != s({"b": 1.0})
    assert s({"a": 1.0}) != s(OrderedDict(a=1.0))
    assert s(Point(1.0, 2.0)) != s(Layer(1.0, 2.0))
    assert s(Point(1.0, 2.0)) != s((1.0, 2.0))
    assert s([1.0, None]) != s([1.0, 2.0])
    assert s([1.0, [2.0]]) != s([1.0, 2.0])
    assert s(Linear(1.0, 2.0)) != s(Tangent(w=1.0, b=2.0, name=3.0, width=4.0))
    assert s(Plain(1.0, 2.0, 3)) == s(Plain(W, "b", 4)) != s(Slotted(1.0, 2.0))
    assert len({s([1.0, {"a": 2.0}]), s([3.0, {"a": W}]), s([3.0, {"b": W}])}) == 2
    assert s(1.0) == s(W) == s("leaf") and s(1.0) != s(None) and s(1.0) != 1.0


def test_a_treedef_is_immutable():
    t = zpy.tree.structure([1.0])
    with pytest.raises(AttributeError):
        t.num_leaves = 3


def test_unflatten_wants_as_many_leaves_as_the_structure_has():
    treedef = zpy.tree.structure({"a": 1.0, "b": (2.0, 3.0)})
    with pytest.raises(ValueError, match="has 3 leaves, not 2"):
        zpy.tree.unflatten(treedef, [1.0, 2.0])
    with pytest.raises(ValueError, match="has 3 leaves, not 4"):
        zpy.tree.unflatten(treedef, [1.0, 2.0, 3.0, 4.0])


def test_a_tree_that_holds_itself_is_refused():
    loop = [1.0]
    loop.append(loop)
    with pytest.raises(ValueError, match=r"the list at \[1\] holds itself"):
        zpy.tree.leaves(loop)
    with pytest.raises(ValueError, match=r"the list at \[1\] holds itself"):
        zpy.tree.map(lambda x, y: x, loop, loop)
    p = Plain(1.0, 2.0, 3)
    p.parent = p
    with pytest.raises(ValueError, match=r"the Plain at \.parent holds itself"):
        zpy.tree.flatten(p)


# map over several trees


def test_map_pairs_leaves_of_several_trees():
    a = {"w": np.array([1.0, 2.0]), "b": [3.0, (4.0,)]}
    b = {"b": [30.0, (40.0,)], "w": np.array([10.0, 20.0])}  # (another key order)
    c = {"w": 100.0, "b": [300.0, (400.0,)]}
    got = zpy.tree.map(lambda x, y, z: x + y + z, a, b, c)
    assert_same_tree(got, {"w": np.array([111.0, 122.0]), "b": [333.0, (444.0,)]})


def test_map_gives_f_the_subtree_where_the_first_tree_has_a_leaf():
    got = zpy.tree.map(lambda x, y: (x, y), [1.0, 2.0], [[3.0, 4.0], {"a": 5.0}])
    assert got == [(1.0, [3.0, 4.0]), (2.0, {"a": 5.0})]


def test_map_keeps_the_first_trees_subtree_where_another_has_none():
    calls = []

    def step(p, g):
        calls.append(p)
        return p - g

    params = {"w": 1.0, "n": 3, "name": "x", "sub": [2.0, 3.0], "layer": Linear(4.0, 5.0)}
    grads = {"w": 0.5, "n": None, "name": None, "sub": None, "layer": Tangent(("w", "b", "name", "width"), b=1.0)}
    got = zpy.tree.map(step, params, grads)
    assert got["n"] is params["n"] and got["name"] is params["name"] and got["sub"] is params["sub"]
    assert got["w"] == 0.5 and got["layer"] == Linear(4.0, 4.0)
    assert calls == [5.0, 1.0]  # f only where both have a leaf
    assert zpy.tree.map(step, [None, 1.0], [None, 1.0]) == [None, 0.0]  # (None in both: an empty tree)


def test_map_pairs_an_object_with_its_tangent_field_by_field():
    lin = Linear(np.array([1.0, 2.0]), 0.5)
    got = zpy.tree.map(lambda p, g: p - g, lin, Tangent(w=np.array([0.5, 0.5])))  # (b: no gradient)
    assert type(got) is Linear and got.b is lin.b and got.name == "linear"
    assert_same_tree(got.w, np.array([0.5, 1.5]))
    assert zpy.tree.map(lambda p, g: p - g, Slotted(1.0, 2.0), Tangent(v=1.0)).v == 1.0
    assert zpy.tree.map(lambda p, g: p * g, Frozen(1.0, 2.0), Tangent(a=3.0, b=4.0)) == Frozen(3.0, 8.0)
    assert zpy.tree.map(lambda p, q: p + q, Frozen(1.0, 2.0), Frozen(3.0, 4.0)) == Frozen(4.0, 6.0)
    g1, g2 = Tangent(a=1.0), Tangent(("a", "b"), a=2.0)
    assert zpy.tree.map(lambda x, y: x * y, g1, g2) == Tangent(a=2.0)


def test_map_pairs_a_dict_with_a_dict_of_another_dict_class():
    params = OrderedDict(w=1.0, b=2.0)
    got = zpy.tree.map(lambda p, g: p - g, params, {"b": 1.0, "w": 1.0})
    assert type(got) is OrderedDict and list(got.items()) == [("w", 0.0), ("b", 1.0)]


@pytest.mark.parametrize("first, other, message", [
    ({"w": 1.0, "b": 2.0}, {"w": 1.0}, r"tree 2 differs from the first at \['b'\]: tree 2 has no key 'b'"),
    ({"w": 1.0}, {"w": 1.0, "v": 2.0}, r"at \['v'\]: the first tree has no key 'v'"),
    ([1.0, 2.0], [1.0], r"at the root: a list of 2 items in the first, a list of 1 item in tree 2"),
    ({"w": [1.0, 2.0]}, {"w": (1.0, 2.0)}, r"at \['w'\]: a list of 2 items in the first, a tuple of 2 items"),
    ([{"a": [1.0]}], [{"a": 1.0}], r"at \[0\]\['a'\]: a list of 1 item in the first, a leaf \(float\) in tree 2"),
    (Point(1.0, 2.0), Layer(1.0, 2.0), r"at the root: a Point with fields \['x', 'y'\] in the first, a Layer"),
    ({"l": Linear(1.0, 2.0)}, {"l": Tangent(w=1.0, v=2.0)}, r"at \['l'\]\.v: the first tree has no field 'v'"),
    (Linear(1.0, 2.0), Frozen(1.0, 2.0), r"at the root: a Linear with fields .* a Frozen with fields"),
    (Plain(1.0, 2.0, 3), {"w": 1.0}, r"a Plain with fields \['w', 'b', 'steps'\] in the first, a dict"),
    ([None], [1.0], r"at \[0\]: None in the first, a leaf \(float\) in tree 2"),
])
def test_map_names_the_path_where_the_trees_differ(first, other, message):
    with pytest.raises(ValueError, match=message):
        zpy.tree.map(lambda x, y: x, first, other)


def test_map_names_which_tree_differs():
    with pytest.raises(ValueError, match=r"tree 3 differs from the first at \[1\]"):
        zpy.tree.map(lambda x, y, z: x, [1.0, [2.0]], [1.0, [2.0]], [1.0, (2.0,)])


def test_tree_imports_nothing_of_the_compiler():
    # (zpy.tree is cheap to import: the standard library, NumPy and tangent.py)
    source = (pathlib.Path(zpy.__file__).parent / "tree.py").read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert imported == {"__future__", "collections", "dataclasses", "typing", "numpy", ".", ".tangent"}


# steps of gradient descent with gradients from zpy.gradient


LR = 0.05


def finite_difference_step(loss, params):
    """``params`` after one step of gradient descent with the gradient of
    ``loss`` by central differences, perturbing one element of one float
    leaf at a time (other leaves kept)."""
    flat, treedef = zpy.tree.flatten(params)
    stepped = []
    for i, leaf in enumerate(flat):
        if not isinstance(leaf, (float, np.ndarray)):
            stepped.append(leaf)
            continue
        x = np.array(leaf, dtype=float)
        grad = np.zeros_like(x)
        for j in np.ndindex(x.shape):
            h = 1e-6 * max(1.0, abs(x[j]))
            hi, lo = x.copy(), x.copy()
            hi[j] += h
            lo[j] -= h
            at = lambda v: loss(zpy.tree.unflatten(treedef, [*flat[:i], v if v.shape else float(v), *flat[i + 1:]]))
            grad[j] = (at(hi) - at(lo)) / (2 * h)
        new = x - LR * grad
        stepped.append(new if isinstance(leaf, np.ndarray) else float(new))
    return stepped


def assert_sgd_step(loss, params, grads_class):
    """One step ``zpy.tree.map(lambda p, g: p - LR * g, params, grads)``
    with ``zpy.gradient``'s ``grads``: the same class as ``params``, its
    float leaves as the finite differences step them, the others (ints,
    strings) the very same objects; ``params`` untouched; a lower loss."""
    before = zpy.tree.leaves(params)
    (grads,) = zpy.gradient(loss, params)
    assert type(grads) is grads_class
    new = zpy.tree.map(lambda p, g: p - LR * g, params, grads)
    assert type(new) is type(params) and zpy.tree.structure(new) == zpy.tree.structure(params)
    for got, want, old in zip(zpy.tree.leaves(new), finite_difference_step(loss, params), before):
        if isinstance(old, (float, np.ndarray)):
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
            assert not np.array_equal(got, old)
        else:
            assert got is old
    assert_same_leaves(zpy.tree.leaves(params), before)
    assert loss(new) < loss(params)
    return new


X = np.array([[0.5, -1.0], [1.5, 0.3], [-0.7, 0.8]])
Y = np.array([1.0, -0.5, 0.2])


def dict_loss(p):
    r = np.tanh(X @ p["w"] + p["b"]) * p["scale"] - Y
    return np.sum(r * r) + 0.1 * len(p["name"])


def test_sgd_step_on_a_dict():
    params = {"w": np.array([0.3, -0.2]), "b": 0.1, "scale": 1.5, "name": "net", "steps": 3}
    new = assert_sgd_step(dict_loss, params, dict)
    assert list(new) == list(params)


def list_loss(p):
    r = X @ p[0] + p[1] * p[2][0] - Y
    return np.sum(r ** 2)


def test_sgd_step_on_a_list_of_arrays():
    assert_sgd_step(list_loss, [np.array([0.3, -0.2]), np.array([0.1, 0.2, 0.3]), np.array([2.0])], list)


def linear_loss(p):
    r = X @ p.w + p.b - Y
    return np.sum(r * r) * p.width


def test_sgd_step_on_a_dataclass():
    new = assert_sgd_step(linear_loss, Linear(np.array([0.3, -0.2]), 0.1, "first", 2), Tangent)
    assert new.name == "first" and new.width == 2


def plain_loss(p):
    r = np.sin(X @ p.w) * p.b - Y
    return np.sum(r * r) + p.steps


def test_sgd_step_on_a_plain_object():
    made = Plain.made
    new = assert_sgd_step(plain_loss, Plain(np.array([0.3, -0.2]), 0.7, 4), Tangent)
    assert new.steps == 4 and Plain.made == made + 1


def layer_loss(p):
    return np.sum((X @ p.w + p.b - Y) ** 2)


def test_sgd_step_on_a_namedtuple():
    assert_sgd_step(layer_loss, Layer(np.array([0.3, -0.2]), 0.1), Layer)


def network_loss(p):
    h = np.tanh(X @ p["layers"][0].w + p["layers"][0].b)
    out = h @ p["layers"][1].w + p["layers"][1].b
    r = out * p["scale"][0] - Y
    return np.sum(r * r) + p["decay"] * np.sum(p["layers"][0].w ** 2)


def test_sgd_step_on_nested_structures():
    params = {
        "layers": [Linear(np.array([[0.3, -0.2], [0.1, 0.4]]), np.array([0.0, 0.1]), "hidden"),
                   Linear(np.array([0.5, -0.5]), 0.2, "out", 1)],
        "scale": (1.2, "unused"),
        "decay": 0.01,
    }
    new = assert_sgd_step(network_loss, params, dict)
    assert [layer.name for layer in new["layers"]] == ["hidden", "out"] and new["scale"][1] == "unused"


def test_an_sgd_step_with_a_gradient_that_reached_no_field():
    p = Linear(np.array([1.0, 2.0]), 0.5)
    (g,) = zpy.gradient(lambda p: p.b * 2.0, p)
    new = zpy.tree.map(lambda x, d: x - LR * d, p, g)
    assert new.w is p.w and new.b == 0.5 - LR * 2.0


def least_squares(p):
    return np.sum((X @ p["w"] + p["b"] - Y) ** 2)


def test_steps_with_momentum_over_three_trees():
    params = {"w": np.array([0.3, -0.2]), "b": 0.1}
    velocity = zpy.tree.map(np.zeros_like, params)
    w, b, vw, vb = params["w"], params["b"], np.zeros(2), 0.0  # (the same steps by hand)
    for _ in range(3):
        (grads,) = zpy.gradient(least_squares, params)
        velocity = zpy.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        params = zpy.tree.map(lambda p, v: p - LR * v, params, velocity)
        r = X @ w + b - Y
        vw, vb = 0.9 * vw + 2 * X.T @ r, 0.9 * vb + 2 * np.sum(r)
        w, b = w - LR * vw, b - LR * vb
    np.testing.assert_allclose(params["w"], w, rtol=1e-12)
    assert params["b"] == pytest.approx(b, rel=1e-12)


# Tangent arithmetic


def test_tangents_add_field_by_field():
    a = np.array([1.0, 2.0])
    g1 = Tangent(("w", "b", "n"), w=a, b=1.0)
    g2 = Tangent(w=np.array([0.5, 0.5]), items=[Tangent(x=1.0), None], d={"k": 2.0})
    total = g1 + g2
    assert_same_tree(total, Tangent(("w", "b", "n", "items", "d"), w=np.array([1.5, 2.5]), b=1.0,
                                    items=[Tangent(x=1.0), None], d={"k": 2.0}))
    assert np.array_equal(a, [1.0, 2.0]) and total.w is not a  # (a new array: a is not changed)
    g3 = Tangent(items=[Tangent(x=2.0, y=1.0), 3.0], d={"k": 1.0, "j": 4.0}, p=Point(1.0, None))
    assert_same_tree(g2 + g3, Tangent(w=np.array([0.5, 0.5]), items=[Tangent(x=3.0, y=1.0), 3.0],
                                      d={"k": 3.0, "j": 4.0}, p=Point(1.0, None)))
    assert g1 + Tangent() == g1


def test_tangents_subtract_and_negate_field_by_field():
    g1 = Tangent(a=3.0, items=[1.0, Tangent(x=2.0)])
    g2 = Tangent(b=1.0, items=[0.5, None], p=Point(None, 2.0))
    assert_same_tree(g1 - g2, Tangent(a=3.0, items=[0.5, Tangent(x=2.0)], b=-1.0, p=Point(None, -2.0)))
    assert_same_tree(-g1, Tangent(a=-3.0, items=[-1.0, Tangent(x=-2.0)]))
    assert g1 - g1 == Tangent(a=0.0, items=[0.0, Tangent(x=0.0)])
    assert -Tangent(("a",)) == Tangent(("a",))  # (no gradient stays none)


def test_tangents_scale_by_a_number():
    g = Tangent(("a", "w", "c"), a=3.0, w={"k": np.array([1.0, -2.0])}, c=Tangent(x=-1.0))
    want = Tangent(("a", "w", "c"), a=1.5, w={"k": np.array([0.5, -1.0])}, c=Tangent(x=-0.5))
    for scaled in (0.5 * g, g * 0.5, g / 2, 1 / 2 * g):
        assert_same_tree(scaled, want)
    for scaled in (np.float64(0.5) * g, g * np.float64(0.5)):  # (NumPy numbers: NumPy's own results)
        assert scaled == want and type(scaled.a) is np.float64
    assert_same_tree((g * np.float32(2)).w, {"k": np.array([2.0, -4.0])})
    exact = Tangent(x=Fraction(1, 3), y=[Fraction(2)])
    assert_same_tree(exact / 3, Tangent(x=Fraction(1, 9), y=[Fraction(2, 3)]))  # (x / c leaf by leaf: exact)
    assert_same_tree(Fraction(3) * exact, Tangent(x=Fraction(1), y=[Fraction(6)]))
    assert (1j * Tangent(a=2.0)).a == 2j
    assert_same_tree(2 * Tangent(("a",)), Tangent(("a",)))


@pytest.mark.parametrize("operation", [
    lambda g: g + 1.0, lambda g: 1.0 + g, lambda g: g - 1.0, lambda g: g * np.ones(2), lambda g: np.ones(2) * g,
    lambda g: g * "a", lambda g: g * g, lambda g: g / g, lambda g: 2.0 / g, lambda g: g + {"a": 1.0},
    lambda g: g * [2.0],
])
def test_tangent_arithmetic_is_with_tangents_and_numbers_only(operation):
    with pytest.raises(TypeError):
        operation(Tangent(a=1.0))


def test_tangents_that_do_not_add_up_are_refused():
    with pytest.raises(ValueError, match="gradients of lengths 2 and 1"):
        Tangent(a=[1.0, 2.0]) + Tangent(a=[1.0])
    with pytest.raises(TypeError, match=r"the gradient of an object \(a Tangent\) and a float"):
        Tangent(a=Tangent(x=1.0)) + Tangent(a=1.0)


def test_tangent_equality_and_hash_are_unchanged_by_arithmetic():
    assert Tangent(a=1.0) + Tangent(b=2.0) == Tangent(b=2.0, a=1.0)
    assert Tangent(a=1.0) != Tangent(a=1.0) * 2
    with pytest.raises(TypeError):
        hash(Tangent(a=1.0))


def pair_loss(p, x):
    return (p.w * x + p.b) ** 2 + math.sin(p.w * x)


def test_the_mean_of_tangents_is_the_gradient_of_the_mean_loss():
    p = Linear(0.7, -0.3)
    (g1, _), (g2, _) = zpy.gradient(pair_loss, p, 1.5), zpy.gradient(pair_loss, p, -0.4)
    (mean,) = zpy.gradient(lambda q: 0.5 * (pair_loss(q, 1.5) + pair_loss(q, -0.4)), p)
    for got in ((g1 + g2) * 0.5, 0.5 * (g1 + g2), (g1 + g2) / 2, g1 - 0.5 * (g1 - g2)):
        assert got.w == pytest.approx(mean.w, rel=1e-12) and got.b == pytest.approx(mean.b, rel=1e-12)
    assert (g1 - g2).w == pytest.approx(g1.w - g2.w) and (-g1).b == -g1.b


def scaled_field(c, g):
    return (g * c).a


def added_field(c, g):
    return (Tangent(a=c) + g).a


def mapped_leaves(c, params):
    return zpy.tree.leaves(zpy.tree.map(lambda p: p * c, params))[0]


@pytest.mark.parametrize("f, args", [
    (scaled_field, (2.0, Tangent(a=3.0))),
    (added_field, (2.0, Tangent(a=3.0))),
])
def test_differentiating_through_tangent_arithmetic_or_trees_is_refused(f, args):
    # (not differentiated yet: refused, never a wrong gradient)
    with pytest.raises(zpy.ZygoteError):
        zpy.gradient(f, *args)
    with pytest.raises(zpy.ZygoteError):
        zpy.jvp(f, args, (1.0, None))


# -- zpy.tree in differentiated code ----------------------------------------------------


def l2_of_the_leaves(w, b):
    params = {"w": w, "layers": [b, (w * b[0], None)], "name": "mlp"}
    return sum(np.sum(p ** 2) for p in zpy.tree.leaves(params) if not isinstance(p, str))


def sgd_step_by_tree_map(w, b):
    params = {"w": w, "b": b}
    grads = zpy.grad(lambda q: np.sum(q["w"] ** 2 * q["b"]))(params)
    params = zpy.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return np.sum(params["w"] ** 3) + np.sum(np.sin(params["b"]))


def rebuilt(w, b):
    leaves, treedef = zpy.tree.flatten({"a": w, "b": (b, 2.0)})
    t = zpy.tree.unflatten(treedef, [x * 2.0 for x in leaves])
    return np.sum(t["a"] * t["b"][0] * t["b"][1])


@pytest.mark.parametrize("f", [l2_of_the_leaves, sgd_step_by_tree_map, rebuilt])
def test_tree_functions_in_differentiated_code(f):
    """``zpy.tree.leaves``/``flatten``/``unflatten``/``map`` inside a
    loss, as JAX users write them: their rules move gradients between a
    tree and its leaves (they were refused, blaming zygote_py's own
    ``_flatten``)."""
    check_program(f, np.array([0.3, -1.2]), np.array([0.7]))


def test_a_tree_mapped_in_differentiated_code_of_a_number_and_a_dict():
    assert zpy.gradient(mapped_leaves, 2.0, {"a": 3.0}) == (3.0, {"a": 2.0})
    assert zpy.jvp(mapped_leaves, (2.0, {"a": 3.0}), (1.0, None)) == (6.0, 3.0)


def test_tree_map_over_trees_of_other_structures_is_refused_in_differentiated_code():
    def paired(w):
        return zpy.tree.map(lambda p, g: p - g, {"w": w, "s": w}, {"w": w, "s": None})["w"].sum()

    with pytest.raises(zpy.NoDerivativeRule, match="trees of other structures"):
        zpy.gradient(paired, np.ones(2))
