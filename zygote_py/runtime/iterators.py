"""Iterators computed in advance (:class:`EagerIterator`: what ``map``,
``zip``, ``enumerate``... return under differentiation), checked against
changes to what they iterate over, and the gradients and tangents of
what they yield.

May import: NumPy, the runtime's lower modules.
"""
from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, MappingView
from typing import Any, Iterator, Optional

import numpy as np

from ..errors import NoDerivativeRule, UnsupportedSyntax
from ..ir import ops
from . import arrays
from .gradients import zero_operand, zero_tangent
from .operators import python_method


def indexable(xs: Any) -> Any:
    """``xs``, a differentiated value a loop goes over (see
    ``ad.reverse._index_active_loops``), as something the loop can index:
    itself when it is a sequence (a list, tuple or array, or an object with
    ``__len__`` and ``__getitem__`` that is not a mapping), else the list
    of what it yields (an iterator, a mapping's keys, an object with only
    ``__iter__``)."""
    if isinstance(xs, (list, tuple, np.ndarray)) or (
            hasattr(xs, "__len__") and hasattr(xs, "__getitem__") and not isinstance(xs, Mapping)):
        return xs
    return list(xs)


class EagerIterator:
    """An iterator over items computed in advance: what the rules of
    ``map``, ``filter``, ``zip``, ``enumerate``, ``reversed`` and ``iter``
    return in place of Python's lazy iterators, since each item's pullback
    must be taken when the item is made. Like those it is exhausted once
    iterated over, and has no ``len``. Its gradient is a list with one
    gradient per item (``None`` for an item that gets none).

    Python's iterator reads its lists and arrays (``sources``) as it goes,
    so a loop that changes one in place ahead of it sees the change, which
    the items read in advance lack: :meth:`check` refuses that. Item ``k``
    was read from the positions ``range(*spans[k])`` of each source, the
    end of the iteration from ``range(*spans[-1])``; ``spans=None``: item
    ``k`` from position ``k``, the end from none. A source that is itself
    an :class:`EagerIterator` (``enumerate(zip(u, v))``) is checked through
    its own sources: item ``k`` was read from its items ``starts[i] +
    range(*spans[k])``, ``starts[i]`` being its position when this one was
    made."""

    __slots__ = ("items", "position", "sources", "watched", "spans", "inner", "deep")

    def __init__(self, items: list, sources: tuple = (), spans: list | None = None, starts: list | None = None,
                 deep: bool = False):
        self.items = items
        self.position = 0  # how many items it has yielded
        self.sources = sources
        self.deep = deep
        self.watched = [(i, _items_now(s, deep)) for i, s in enumerate(sources)
                        if type(s) in _WATCHED or type(s) is np.ndarray and s.ndim == 1]
        self.spans = spans
        self.inner = [(i, s, starts[i]) for i, s in enumerate(sources)
                      if type(s) is EagerIterator and (s.watched or s.inner)]

    def __iter__(self) -> "EagerIterator":
        return self

    def __next__(self) -> Any:
        if self.watched or self.inner:
            self.check(self.position)
        if self.position == len(self.items):
            raise StopIteration
        self.position += 1
        return self.items[self.position - 1]

    def __bool__(self) -> bool:
        return True  # as Python's iterators are, not by __len__

    def __len__(self) -> int:
        raise _NotASequence(
            "an iterator (from map, filter, zip, enumerate, reversed or iter) has no len(); a for loop "
            "over one that zygote_py cannot trace to the call that made it also ends up here",
            hint="make it a list first: for v in list(it)",
        )

    def __repr__(self) -> str:
        return f"EagerIterator({self.position} of {len(self.items)} items taken)"

    def check(self, k: int, sources: tuple | None = None) -> None:
        """Raise :class:`UnsupportedSyntax` unless the sources (or their
        versions ``sources``, where reverse mode changed a copy of them;
        for a source that is an iterator, a tuple of its sources' versions)
        still hold, where Python's iterator reads its item ``k`` (``k ==
        len(items)``: its end), what they held when the items were read."""
        lo, hi = (k, k + (k < len(self.items))) if self.spans is None else self.spans[k]
        for i, inner, start in self.inner:  # (the items it reads of an iterator, or at the end the next one)
            versions = sources[i] if sources is not None and type(sources[i]) is tuple else None
            for j in range(start + lo, start + max(hi, lo + 1)):
                inner.check(min(j, len(inner.items)), versions)
        for i, copy in self.watched:
            source = (self.sources if sources is None else sources)[i]
            same = len(source) == len(copy) and (
                all(_same_item(_contents(a, self.deep), b)
                    for a, b in zip((source if type(source) is list else list(source))[lo:hi], copy[lo:hi]))
                if type(copy) is list
                else source.dtype == copy.dtype and source[lo:hi].tobytes() == copy[lo:hi].tobytes())
            if not same:
                raise UnsupportedSyntax(
                    f"a loop changes the {type(source).__name__} that its map, filter, zip, enumerate or "
                    "reversed iterates over, where the iterator has yet to read it: Python's iterator reads "
                    "the change, zygote_py's read all the items when it was made",
                    hint="index the list or array in the loop to read the changed items "
                    "(for i in range(len(u)): e = u[i]), or iterate over a copy to read the items as they "
                    "were (zip(u.copy(), v))",
                )


_WATCHED = (list, type({}.values()), type({}.items()))
"""What an :class:`EagerIterator` watches, with 1-d arrays: what a loop may
change in place while Python's iterator reads it."""


def _items_now(source: Any, deep: bool) -> Any:
    """What :class:`EagerIterator` watches of ``source``: an array's copy;
    a list's or a dict view's items (see :func:`_contents`)."""
    return source.copy() if type(source) is np.ndarray else [_contents(v, deep) for v in source]


def _contents(v: Any, deep: bool) -> Any:
    """``v``, a dict item's parts, and (``deep``: for ``map`` and
    ``filter``, which computed something from it in advance) what a change
    in place would change: an array's bytes, a list's or a dict's items
    (one level). ``zip``, ``enumerate`` and ``reversed`` yield the object
    itself, whose changes the loop sees."""
    if deep and type(v) is np.ndarray:
        return (v, v.tobytes())
    if deep and type(v) in (list, dict):
        return (v, tuple(v.values() if type(v) is dict else v))
    if type(v) is tuple:
        return tuple(_contents(p, deep) for p in v)
    return v


def _same_item(a: Any, b: Any) -> bool:
    """Whether two :func:`_contents` are the same: the same objects, the
    same bytes."""
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(_same_item(x, y) for x, y in zip(a, b))
    return a == b if type(a) is bytes else a is b


class _NotASequence(NoDerivativeRule, TypeError):
    """``len()`` of an :class:`EagerIterator`: a ``TypeError``, as for
    Python's iterators (which ``list()`` and the like rely on), that says
    what to do."""


def position(iterable: Any) -> int:
    """Where the next item of ``iterable`` is among the items of its
    gradient: the items an :class:`EagerIterator` has yielded; 0 for
    anything else (a tuple, list or array is iterated from its start)."""
    return iterable.position if type(iterable) is EagerIterator else 0


def filter_spans(kept: list[int], n: int) -> list[tuple[int, int]]:
    """The :class:`EagerIterator` spans of ``filter``'s items, the items
    ``kept`` of its ``n``: each is read with those rejected before it."""
    ends = [k + 1 for k in kept]
    return list(zip([0, *ends], ends)) + [(ends[-1] if ends else 0, n)]


def reversed_spans(n: int) -> list[tuple[int, int]]:
    """The :class:`EagerIterator` spans of ``reversed``'s ``n`` items."""
    return [(n - 1 - k, n - k) for k in range(n)] + [(0, 0)]


def check_unchanged(iterator: Any, k: int, *sources: Any) -> None:
    """:meth:`EagerIterator.check` of item ``k`` against the versions
    ``sources`` of its sources, in a reverse-mode loop that reads the items
    by their index (see ``ad.reverse``)."""
    if type(iterator) is EagerIterator and (iterator.watched or iterator.inner):
        iterator.check(k, sources)


class TangentView:
    """The tangent of ``d.values()`` (or, ``items``, of ``d.items()``) in
    forward mode: like the view, it reads ``d``'s tangent ``dd`` as it is
    when iterated, which a loop changing ``d`` changes alongside."""

    __slots__ = ("d", "dd", "items")

    def __init__(self, d: dict, dd: Optional[dict], items: bool):
        self.d, self.dd, self.items = d, dd, items

    def __iter__(self) -> Iterator:
        for k in self.d:
            t = None if self.dd is None else self.dd.get(k)
            yield (None, t) if self.items else t

    def __len__(self) -> int:
        return len(self.d)


def source_versions(*sources: Any) -> tuple:
    """The versions of an iterator's sources, for :func:`check_unchanged`
    of an iterator that iterates over it (``enumerate(zip(u, v))``)."""
    return sources


def take(iterable: Any) -> tuple[Any, int]:
    """The items a rule reads from ``iterable``: the tuple or list itself,
    else a list of all the items it yields (which exhausts an iterator),
    and the :func:`position` of the first of them."""
    start = position(iterable)
    return (iterable if isinstance(iterable, (tuple, list)) else list(iterable)), start


def like_iterable(iterable: Any, grads: list, start: int = 0) -> Any:
    """The gradient of ``iterable`` from the gradients of the items it
    yielded, in iteration order, the first being its item ``start`` (see
    :func:`position`): a tuple for a tuple, an array for an array (``None``
    items as zeros), a list for a list or an :class:`EagerIterator`, with
    ``None`` for the items before and after these; ``None`` for a dict,
    whose items are its keys (a dict's gradient is keyed by them, and they
    get none); for anything else, the list ``grads``, but an object whose
    ``__iter__`` is a Python method must get none (which of its fields each
    item came from is not known). Another library's array is an array
    here (its ``__iter__``, Python code in Dask, yields its rows): its
    gradient is the rows' stacked, with zeros of its library."""
    if isinstance(iterable, Mapping):
        return None
    if isinstance(iterable, (tuple, list, np.ndarray, EagerIterator)) or arrays.is_foreign(iterable):
        n = len(iterable.items) if type(iterable) is EagerIterator else len(iterable)
        grads = [None] * start + list(grads) + [None] * (n - start - len(grads))
    elif any(g is not None for g in grads):
        check_iterated(iterable)
    if isinstance(iterable, tuple):
        return tuple(grads)
    if isinstance(iterable, np.ndarray):
        zero = np.zeros(iterable.shape[1:], iterable.dtype)
        return np.array([zero if g is None else g for g in grads], dtype=iterable.dtype).reshape(iterable.shape)
    if arrays.is_foreign(iterable):  # (np.stack keeps the rows' library: np.array would compute Dask's)
        zero = np.zeros_like(iterable, iterable.dtype if iterable.dtype.kind in "fc" else float,
                             shape=iterable.shape[1:])
        return np.stack([zero if g is None else g + zero for g in grads])
    return grads


def own_iter(xs: Any) -> Any:
    """The ``__iter__`` written in Python of ``xs``'s class, which a loop
    over ``xs`` calls (one that :func:`indexable` does not index); None
    for anything else."""
    if type(xs) is EagerIterator or isinstance(xs, (list, tuple, np.ndarray, Mapping)) \
            or hasattr(xs, "__len__") and hasattr(xs, "__getitem__"):
        return None
    return python_method(type(xs), "__iter__")


ITEM_READERS = frozenset({
    iter, sum, list, tuple, sorted, min, max, any, all, enumerate, zip, map, filter, reversed, math.fsum, math.prod,
    functools.reduce, np.fromiter, ops.unpack, ops.unpack_starred,
})
"""The builtins that read the items of an iterable argument (unpacking
``a, b = obj`` too): see :func:`items_first`."""
_ITEMS_FIRST: dict[tuple, Any] = {}


def items_first(f: Any, args: tuple) -> Any:
    """For a call of one of :data:`ITEM_READERS` given objects whose
    class's ``__iter__`` is Python code (``sum(obj)``, ``list(obj)``, ``a,
    b = obj``): ``f`` as a Python function that first reads those objects
    into lists of their items with :func:`indexable` (whose rules
    differentiate the class's ``__iter__``); ``J``, ``push`` and the second
    order differentiate it in place of ``f``. ``None`` for any other
    call."""
    try:
        if f not in ITEM_READERS:
            return None
    except TypeError:  # (an unhashable callable)
        return None
    positions = tuple(i for i, a in enumerate(args) if own_iter(a) is not None)
    if not positions:
        return None
    fn = _ITEMS_FIRST.get((f, positions))
    if fn is None:
        def reads_items_first(*args, **kwargs):
            args = list(args)
            for i in positions:
                args[i] = indexable(args[i])
            return f(*args, **kwargs)
        fn = _ITEMS_FIRST[(f, positions)] = reads_items_first
    return fn


def count_items(xs: Any) -> int:
    """How many items ``xs``, an object whose class's ``__iter__`` returns
    the object itself, yields through its ``__next__`` (which the rule of
    :func:`indexable` then differentiates that many times); an ``__iter__``
    that does not start over is refused."""
    if python_method(type(xs), "__next__") is None:
        return 0  # (a generator, or an iterator over its fields: differentiated as it is)
    n = sum(1 for _ in xs)
    if iter(xs) is xs and n and next(iter(xs), _END) is _END:
        raise not_started_over(xs)
    return n


def next_refused(iterator: Any) -> NoDerivativeRule:
    """The error for ``next(it)`` on an iterator other than an
    :class:`EagerIterator` (whose items, and their positions, are known):
    an object whose class's ``__next__`` is Python code, whose tangent is
    the object's, no iterator over tangents."""
    return NoDerivativeRule(f"no rule for the derivative of next() on a {type(iterator).__name__}",
                            hint="make it a list first (list(it)) and index that")


def not_started_over(xs: Any) -> NoDerivativeRule:
    """The error for an object whose ``__iter__`` returns it without
    starting over, whose items are read twice (once for the value, once
    differentiated)."""
    return NoDerivativeRule(
        f"the items of a {type(xs).__name__} whose __iter__ returns it without starting over: they are read "
        "once to count them, then differentiated",
        hint="start over in __iter__ (self.i = 0; return self)")


_END = object()


def read_ahead(it: Any, xs: Any) -> list:
    """The items of ``it``, what a class's own ``__iter__`` returned for
    ``xs`` (not ``xs`` itself, whose ``__next__`` the caller calls): a
    generator's, read ahead (an :class:`EagerIterator`); a plain iterator
    (in code differentiated again) is refused."""
    if type(it) is not EagerIterator:
        raise NoDerivativeRule(
            f"a second derivative through the items a {type(xs).__name__} yields through its own __iter__ is not "
            "supported",
            hint="iterate over the list, tuple or array that holds them (for v in obj.items)")
    return it.items[it.position:]


def check_iterated(iterable: Any) -> None:
    """Raise :class:`NoDerivativeRule` if ``iterable``'s items, which carry
    derivatives, came from its ``__iter__`` written in Python (which of its
    fields each came from is not known), or from its ``__getitem__`` written
    in Python, read all at once (only a ``for`` loop indexes it, see
    :func:`indexable`)."""
    name = type(iterable).__name__
    if type(iterable) is EagerIterator:
        return
    if python_method(type(iterable), "__iter__") is not None:
        raise NoDerivativeRule(
            f"no rule for the derivatives of the items a {name} yields through its __iter__: which of its "
            "fields each came from is not known",
            hint=f"iterate over the list, tuple or array of {name} that holds them (for v in obj.items), or "
            f"give {name} __len__ and __getitem__")
    if getattr(type(iterable), "__iter__", None) is None and python_method(type(iterable), "__getitem__") is not None:
        raise NoDerivativeRule(
            f"no rule for the derivatives of the items a {name} yields through its __getitem__ to unpacking, "
            "list(), sum() and the like",
            hint=f"loop over the {name} (for v in obj), which indexes it, or index it (obj[0], obj[1])")


def iterator_gradient(dy: Any, iterator: EagerIterator) -> Any:
    """``dy``, the gradient of ``iterator``, checked to have one item per
    item of it: unpacking (``a, b = it``) gives a partly consumed iterator
    a gradient of its last items only. The gradient of the iterator
    itself as an object (its position: a second derivative through a
    ``next`` call, which differentiating again runs anew) is refused."""
    if not isinstance(dy, (list, tuple)):
        raise NoDerivativeRule(
            "a second derivative through next() on an iterator (from a generator, iter, map, zip...) is not "
            "supported: differentiating again would take its items anew",
            hint="make it a list first (xs = list(it)) and index that (xs[0], xs[1:])")
    if len(dy) != len(iterator.items):
        raise NoDerivativeRule(
            f"a gradient of {len(dy)} items for an iterator of {len(iterator.items)}: unpacking an "
            "iterator (from map, filter, zip, enumerate or reversed) after taking some of its items "
            "is not differentiated",
            hint="make it a list first (list(it)) and unpack that",
        )
    return dy


def items_read(iterable: Any, d: Any) -> Any:
    """The items a builtin that reads ``iterable`` to the end (``sorted``,
    ``functools.reduce``) read from it, after it has: the iterable itself
    for a tuple, list, range or array; for an :class:`EagerIterator`, its
    items that its tangent ``d`` (an iterator in step with it, not read
    yet) has left; a list of a dict's keys."""
    if isinstance(iterable, (tuple, list, range, np.ndarray)):
        return iterable
    if isinstance(iterable, (Mapping, MappingView)):
        return list(iterable)  # (a dict's keys: read again as they were)
    if type(iterable) is EagerIterator and type(d) is EagerIterator:
        return iterable.items[len(iterable.items) - (len(d.items) - d.position):]
    if d is None and type(iterable) is EagerIterator:
        return iterable.items[iterable.position:]
    raise NoDerivativeRule(
        f"forward mode: a function reading a {type(iterable).__name__} to the end (sorted, max, math.prod, "
        "functools.reduce...), which cannot be read twice",
        hint="make it a list first (list(it)), or use reverse mode (zpy.gradient)",
    )


ITERATORS = {map, filter, zip, enumerate, reversed}
"""The builtins whose values and tangents :func:`push` computes eagerly."""


def tangent_of_items(iterable: Any, d: Any) -> Any:
    """``d``, the tangent of ``iterable``, or a zero one for each item (a
    float zero for each of an integer array's too: see ``zero_operand``).
    A dict's tangent is its values', not that of the keys it yields."""
    if isinstance(iterable, Mapping):
        return zero_tangent(list(iterable))
    if d is not None and not isinstance(d, Mapping):
        return d
    if isinstance(iterable, (tuple, list, np.ndarray)) or arrays.is_foreign(iterable):
        return zero_operand(iterable)
    if type(iterable) is EagerIterator:
        zeros = EagerIterator(zero_tangent(iterable.items))
        zeros.position = iterable.position
        return zeros
    return itertools.repeat(0)
