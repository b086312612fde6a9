"""Pytrees (``zpy.tree``): nested parameters and their gradients, and
functions over their leaves, as ``jax.tree`` has them.

A tree is a tuple, list, namedtuple, dict (``OrderedDict``,
``defaultdict``), :class:`~zygote_py.Tangent`, or an object through its
fields (a dataclass instance, an object of a class of yours with a
``__dict__`` or ``__slots__``), of trees; ``None`` is a tree with no
leaves; anything else is a leaf (an array, a number, a string, a
function, an object that ``object.__new__`` does not make). A dict's
leaves come in the order of its sorted keys, a rebuilt dict has its keys
in the original order. An object is rebuilt as a copy of its class
(``__init__`` is not called) with the new values in its fields.

:func:`map` pairs a tree of parameters with its gradient, whose shapes
follow each other (see ``zpy.gradient``): an object with its
``Tangent``, field by field, and ``None`` (no gradient) with anything,
which is then kept as it is. So one line is a step of gradient descent::

    params = zpy.tree.map(lambda p, g: p - lr * g, params, grads)

This module imports nothing of the compiler: only :mod:`.tangent`.

May import: :mod:`.tangent`.
"""
from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, Hashable, Optional

import numpy as np

from . import tangent
from .tangent import Tangent

__all__ = ["map", "leaves", "flatten", "unflatten", "structure", "TreeDef"]

_DICTS = (dict, collections.OrderedDict, collections.defaultdict)
"""The dict types that are trees (another subclass of dict is a leaf, as
it may not be rebuilt from its items)."""


@dataclasses.dataclass(frozen=True)
class _Node:
    """One node of a tree as :func:`_node` reads it: its ``kind``
    (``"none"``, ``"tuple"``, ``"list"``, ``"namedtuple"``, ``"dict"``,
    ``"tangent"``, ``"object"``), its class, the keys of its children in
    leaf order (positions, dict keys, field names) and the children;
    ``extra`` is what rebuilding needs beyond those (a dict's key order,
    a defaultdict's factory), not part of the structure."""

    kind: str
    cls: Any
    keys: tuple
    children: tuple
    extra: Any = None


def _is_object(x: Any) -> bool:
    """Whether ``x`` is an object whose fields are its children: one with
    fields (or a ``__dict__``) that its class makes with
    ``object.__new__``, as it is rebuilt (a function, a class, a number, an
    enum member, an ``int`` or ``dict`` subclass's are made otherwise, and
    are leaves; so is a NumPy ufunc, whose ``__dict__`` holds its names)."""
    if type(x).__new__ is not object.__new__ or isinstance(x, np.ufunc):
        return False
    return hasattr(x, "__dict__") or bool(tangent.fields(x))


def _node(x: Any) -> Optional[_Node]:
    """The node ``x`` is, or ``None`` for a leaf."""
    if x is None:
        return _Node("none", None, (), ())
    cls = type(x)
    if cls is tuple or cls is list:
        return _Node(cls.__name__, cls, tuple(range(len(x))), tuple(x))
    if isinstance(x, tuple) and hasattr(cls, "_fields"):
        return _Node("namedtuple", cls, tuple(cls._fields), tuple(x))
    if cls in _DICTS:
        try:
            keys = tuple(sorted(x))
        except TypeError:  # (keys that do not compare, 1 and "a": their own order)
            keys = tuple(x)
        factory = x.default_factory if cls is collections.defaultdict else None
        return _Node("dict", cls, keys, tuple(x[k] for k in keys), (tuple(x), factory))
    if cls is Tangent:
        values = tangent.values(x)
        return _Node("tangent", cls, tuple(values), tuple(values.values()))
    if _is_object(x):
        names = tuple(n for n in tangent.fields(x) if hasattr(x, n))
        return _Node("object", cls, names, tuple(getattr(x, n) for n in names))
    return None


def _build(node: _Node, children: list) -> Any:
    """The value of ``node`` with ``children`` in place of its own."""
    kind, cls = node.kind, node.cls
    if kind == "none":
        return None
    if kind in ("tuple", "list"):
        return cls(children)
    if kind == "namedtuple":
        return cls(*children)
    if kind == "dict":
        order, factory = node.extra
        by_key = dict(zip(node.keys, children))
        items = [(k, by_key[k]) for k in order]
        return collections.defaultdict(factory, items) if cls is collections.defaultdict else cls(items)
    if kind == "tangent":
        return Tangent(node.keys, **dict(zip(node.keys, children)))
    obj = cls.__new__(cls)
    for name, value in zip(node.keys, children):
        object.__setattr__(obj, name, value)  # (a frozen dataclass's fields too)
    return obj


def _entry(node: _Node, key: Any) -> str:
    """The path step to the child ``key`` of ``node``: ``[0]``,
    ``['w']``, ``.w``."""
    return f"[{key!r}]" if node.kind in ("tuple", "list", "dict") else f".{key}"


def _where(path: str) -> str:
    return f"at {path}" if path else "at the root"


class TreeDef:
    """The structure of a tree: its nodes without its leaves
    (:func:`structure`, :func:`flatten`). Immutable and hashable; two
    are equal when their trees have the same nodes (the same classes, dict
    keys and fields) in the same places. ``repr`` shows it with ``*`` for
    each leaf: ``TreeDef({'b': *, 'w': [*, *]})``."""

    __slots__ = ("_node", "_children", "num_leaves")

    def __init__(self, node: Optional[_Node], children: tuple[TreeDef, ...]):
        object.__setattr__(self, "_node", node)  # (None: a leaf)
        object.__setattr__(self, "_children", children)
        num = 1 if node is None else sum(c.num_leaves for c in children)
        object.__setattr__(self, "num_leaves", num)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a TreeDef is immutable")

    def _key(self) -> Hashable:
        n = self._node
        return None if n is None else (n.kind, n.cls, n.keys, self._children)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeDef):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TreeDef({self._show()})"

    def _show(self) -> str:
        n = self._node
        if n is None:
            return "*"
        parts = [c._show() for c in self._children]
        if n.kind == "none":
            return "None"
        if n.kind == "tuple":
            return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")
        if n.kind == "list":
            return "[" + ", ".join(parts) + "]"
        if n.kind == "dict":
            shown = "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(n.keys, parts)) + "}"
            return shown if n.cls is dict else f"{n.cls.__name__}({shown})"
        return f"{n.cls.__name__}(" + ", ".join(f"{k}={p}" for k, p in zip(n.keys, parts)) + ")"


def _flatten(x: Any, out: list, path: str, open_: set) -> TreeDef:
    """``x``'s structure; its leaves appended to ``out``. (``open_``: the
    ids of the containers being flattened, to refuse one that holds
    itself.)"""
    node = _node(x)
    if node is None:
        out.append(x)
        return TreeDef(None, ())
    if id(x) in open_:
        raise ValueError(f"zpy.tree: the {type(x).__name__} {_where(path)} holds itself; a tree cannot")
    open_.add(id(x))
    try:
        children = tuple(_flatten(c, out, path + _entry(node, k), open_) for k, c in zip(node.keys, node.children))
    finally:
        open_.discard(id(x))
    return TreeDef(node, children)


def flatten(tree: Any) -> tuple[list, TreeDef]:
    """``(leaves, treedef)``: the leaves of ``tree`` in order, and its
    structure; :func:`unflatten` makes the tree again."""
    out: list = []
    return out, _flatten(tree, out, "", set())


def leaves(tree: Any) -> list:
    """The leaves of ``tree``, in order (``None`` has none)."""
    return flatten(tree)[0]


def structure(tree: Any) -> TreeDef:
    """The structure of ``tree``, without its leaves."""
    return flatten(tree)[1]


def unflatten(treedef: TreeDef, leaves: list) -> Any:
    """The tree of structure ``treedef`` with ``leaves`` (in the order
    :func:`flatten` gives) as its leaves."""
    items = list(leaves)
    if len(items) != treedef.num_leaves:
        raise ValueError(f"zpy.tree.unflatten: {treedef} has {treedef.num_leaves} leaves, not {len(items)}")
    it = iter(items)

    def build(t: TreeDef) -> Any:
        if t._node is None:
            return next(it)
        return _build(t._node, [build(c) for c in t._children])
    return build(treedef)


def gradient_tree(treedef: TreeDef, grads: list) -> Any:
    """The gradient of a tree of structure ``treedef`` whose leaves have
    the gradients ``grads`` (``None``: none), shaped as zygote_py shapes
    an argument's gradient: a tuple, list, namedtuple or dict of its
    children's, a :class:`~zygote_py.Tangent` of an object's fields.
    (:func:`leaves`'s derivative rule; :func:`gradient_leaves` is its
    transpose.)"""
    it = iter(grads)

    def build(t: TreeDef) -> Any:
        if t._node is None:
            return next(it)
        node, children = t._node, [build(c) for c in t._children]
        if node.kind == "object":
            return Tangent(node.keys, **dict(zip(node.keys, children)))
        if node.kind == "dict":
            by_key = dict(zip(node.keys, children))
            return {k: by_key[k] for k in node.extra[0]}
        return _build(node, children)
    return build(treedef)


def gradient_leaves(treedef: TreeDef, grad: Any) -> list:
    """The gradients of the leaves of a tree of structure ``treedef``,
    read from the tree's gradient ``grad`` (as :func:`gradient_tree` makes
    it; ``None`` where none flows), in leaf order."""
    out: list = []

    def walk(t: TreeDef, g: Any) -> None:
        if t._node is None:
            out.append(g)
            return
        node = t._node
        for k, c in zip(node.keys, t._children):
            if g is None:
                walk(c, None)
            elif node.kind == "dict":
                walk(c, g.get(k))
            elif node.kind in ("tuple", "list") or node.kind == "namedtuple" and isinstance(g, tuple):
                walk(c, g[k] if isinstance(k, int) else g[node.keys.index(k)])
            else:
                walk(c, tangent.get(g, k) if isinstance(g, Tangent) else getattr(g, k, None))
    walk(treedef, grad)
    return out


def map(f: Callable, tree: Any, *rest: Any) -> Any:
    """The tree of ``f(leaf, *others)`` for each leaf of ``tree`` and the
    leaves (or subtrees) in the same place in the trees ``rest``, of the
    same structure as ``tree``.

    As a gradient is shaped like its argument, ``map(f, params, grads)``
    pairs them: an object of ``params`` with its ``Tangent`` in
    ``grads``, field by field, and a dict with a dict of the same keys
    whatever their dict classes. Where a tree of ``rest`` has ``None`` (no
    gradient: an ``int``, a string, a field the loss does not read) the
    subtree of ``tree`` is kept as it is and ``f`` not called for it. Where
    ``tree`` has a leaf, ``f`` gets what the others have there, a subtree
    too. Trees that differ otherwise raise ``ValueError`` naming the path
    where they do (``['w']``, ``[0]``, ``.w``). The result has ``tree``'s
    classes: a dataclass or object comes back as a copy of its class with
    the new fields."""
    return _map(f, tree, rest, "", set())


def _map(f: Callable, x: Any, others: tuple, path: str, open_: set) -> Any:
    """:func:`map` at the subtree ``x`` of the first tree, ``others``
    those in its place in the others, ``path`` the way to them."""
    if x is not None and any(o is None for o in others):
        return x  # (no gradient: kept)
    node = _node(x)
    if node is None:
        return f(x, *others)
    if id(x) in open_:
        raise ValueError(f"zpy.tree.map: the {type(x).__name__} {_where(path)} holds itself; a tree cannot")
    columns = [_children_like(node, o, i + 2, path) for i, o in enumerate(others)]
    open_.add(id(x))
    try:
        children = [_map(f, c, tuple(col[j] for col in columns), path + _entry(node, k), open_)
                    for j, (k, c) in enumerate(zip(node.keys, node.children))]
    finally:
        open_.discard(id(x))
    return _build(node, children)


_SAME_KIND = {"tuple": "tuple", "list": "list", "namedtuple": "namedtuple", "dict": "dict", "none": "none",
              "tangent": "fields", "object": "fields"}
"""The kinds of node that pair with each other in :func:`map` (an
object's fields with its ``Tangent``'s)."""


def _children_like(node: _Node, other: Any, which: int, path: str) -> tuple:
    """The children of ``other`` (the tree number ``which`` of a
    :func:`map`) that pair with those of ``node``, in its order; a
    ``ValueError`` naming the path where they differ."""
    theirs = _node(other)

    def differ(why: str, at: str = path) -> ValueError:
        return ValueError(f"zpy.tree.map: tree {which} differs from the first {_where(at)}: {why}")

    if theirs is None or _SAME_KIND[theirs.kind] != _SAME_KIND[node.kind]:
        found = f"a leaf ({type(other).__name__})" if theirs is None else _describe(theirs)
        raise differ(f"{_describe(node)} in the first, {found} in tree {which}")
    if node.kind == "none":
        return ()
    if node.kind in ("tuple", "list", "namedtuple"):
        if node.cls is not theirs.cls or len(node.keys) != len(theirs.keys):
            raise differ(f"{_describe(node)} in the first, {_describe(theirs)} in tree {which}")
        return theirs.children
    given, ours = dict(zip(theirs.keys, theirs.children)), set(node.keys)
    if node.kind == "dict":
        missing = [k for k in node.keys if k not in given]
        extra = [k for k in theirs.keys if k not in ours]
        if missing:
            raise differ(f"tree {which} has no key {missing[0]!r}", path + _entry(node, missing[0]))
        if extra:
            raise differ(f"the first tree has no key {extra[0]!r}", path + _entry(node, extra[0]))
        return tuple(given[k] for k in node.keys)
    if theirs.kind == "object" and node.kind == "object" and node.cls is not theirs.cls:
        raise differ(f"{_describe(node)} in the first, {_describe(theirs)} in tree {which}")
    # fields: a Tangent has None for the fields it has no gradient for, and
    # may leave them out
    extra = [k for k in theirs.keys if k not in ours and (theirs.kind == "object" or given[k] is not None)]
    if extra:
        raise differ(f"the first tree has no field {extra[0]!r}", path + f".{extra[0]}")
    if theirs.kind == "object":
        missing = [k for k in node.keys if k not in given]
        if missing:
            raise differ(f"tree {which} has no field {missing[0]!r}", path + f".{missing[0]}")
    return tuple(given.get(k) for k in node.keys)


def _describe(node: _Node) -> str:
    """``node`` in words, for an error."""
    n = len(node.keys)
    if node.kind == "none":
        return "None"
    if node.kind in ("tuple", "list"):
        return f"a {node.kind} of {n} item" + ("" if n == 1 else "s")
    if node.kind == "dict":
        return f"a {node.cls.__name__} with keys {list(node.keys)}"
    if node.kind == "tangent":
        return f"a Tangent with fields {list(node.keys)}"
    return f"a {node.cls.__name__} with fields {list(node.keys)}"
