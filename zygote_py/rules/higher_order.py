"""Rules for the builtins that take functions or iterables: ``map``,
``filter``, ``zip``, ``enumerate``, ``reversed``, ``iter``, ``next``, ``sorted``, ``list``,
``tuple``, and :func:`functools.reduce` and :func:`functools.partial`;
and :func:`vectorized`, the code a call of an ``np.vectorize`` object is
differentiated as.

Iterators are computed eagerly. ``map``, ``filter``, ``zip``, ``enumerate``
and ``reversed`` compute all their items when called and return a
:class:`zygote_py.runtime.EagerIterator` over them: each item's pullback
(for ``map``, that of the function's call on it) has to be taken where the
item is made, and a lazy iterator would make its items where it is
consumed, out of the gradient's reach. The iterator behaves as Python's
does (it is exhausted once iterated over and has no ``len``), but the
laziness is lost: functions run when ``map`` or ``filter`` is called, on
every item, including those that nothing ever reads, so their side
effects and errors happen then, and an infinite iterable (``map(f,
itertools.count())``) never returns (``zip`` or ``map`` with a finite
iterable among several stops where Python's would). A loop that changes
in place a list or array such an iterator reads, where it has yet to read
it (or its length), is refused with ``UnsupportedSyntax`` when the
iterator gets there: Python's iterator would read the change (see
:meth:`zygote_py.runtime.EagerIterator.check`).

Gradients:

- An iterator's gradient is a list with one gradient per item, ``None`` for
  an item that gets none. ``iter(xs)`` is such an iterator over ``xs``'s
  items (an iterator's is itself); ``next(it)`` gives ``it`` a gradient at
  the position of the item it took (a second derivative through it is
  refused: differentiating again would take the item anew).
- An iterable argument gets a gradient of its own kind (a tuple for a
  tuple, a list for a list, an array for an array, a list for an iterator),
  one per item, ``None`` (zeros in an array) for the items the call did
  not read: see :func:`zygote_py.runtime.like_iterable`.
- A function argument of ``map`` and ``reduce`` is called through
  :func:`zygote_py.runtime.J`; it gets the sum over its calls of its own
  gradient (a closure's captured variables; ``None`` for a plain
  function). ``filter``'s predicate and ``sorted``'s ``key`` only choose
  and order items: they are called plainly and get no gradient, nor do
  ``enumerate``'s ``start``, ``sorted``'s ``reverse`` and ``zip``'s
  ``strict``.
- ``functools.partial(func, *args, **keywords)``: calling the partial
  object calls ``func`` with the bound arguments (see ``runtime.J``), and
  the object's gradient is a dict of its fields: ``func``, ``args`` (a
  tuple) and ``keywords`` (a dict). Building it passes those on to
  ``func`` and ``args``; a gradient that reaches a bound keyword argument
  raises ``NoDerivativeRule``, as the rule contract gives keyword
  arguments none.
"""
import functools

import numpy as np

from zygote_py import errors, runtime

from ..registry import adjoint, implemented_by, nondifferentiable, pushforward

ITERATORS = (map, filter, zip, enumerate, reversed)
"""The functions whose rules return an iterator (see above)."""

nondifferentiable(runtime.check_unchanged)  # (a check reverse mode adds to a loop over one of them)
nondifferentiable(runtime.source_versions)  # (what it checks of an iterator over one of them)
nondifferentiable(runtime.caught)  # (a check reverse mode adds at the start of an exception handler)


@adjoint(map)
def map_(function, *iterables):
    if not iterables:
        raise TypeError("map() must have at least two arguments.")
    starts = [runtime.position(it) for it in iterables]
    calls = [runtime.J(function, *row) for row in zip(*iterables)]
    y = runtime.EagerIterator([value for value, _ in calls], iterables, None, starts, deep=True)

    def back(dy):
        dfunction = None
        rows = []  # (per call, the items' gradients: a list of its own, which differentiating this again can follow)
        for (_, pullback), d in zip(calls, runtime.iterator_gradient(dy, y)):
            grads = runtime.call_pullback(pullback, d)
            dfunction = runtime.accum(dfunction, grads[0])
            rows.append(grads[1:])
        return (dfunction, *[runtime.like_iterable(it, [row[j] for row in rows], start)
                             for j, (it, start) in enumerate(zip(iterables, starts))])
    return y, back


@adjoint(filter)
def filter_(function, iterable):
    items, start = runtime.take(iterable)
    test = bool if function is None else function
    kept = [i for i, v in enumerate(items) if test(v)]
    y = runtime.EagerIterator([items[i] for i in kept], (iterable,), runtime.filter_spans(kept, len(items)), [start],
                              deep=True)

    def back(dy):
        grads = [None] * len(items)
        for i, d in zip(kept, runtime.iterator_gradient(dy, y)):
            grads[i] = d
        return (None, runtime.like_iterable(iterable, grads, start))
    return y, back


@adjoint(zip)
def zip_(*iterables, strict=False):
    starts = [runtime.position(it) for it in iterables]
    y = runtime.EagerIterator(list(zip(*iterables, strict=strict)), iterables, None, starts)

    def back(dy):
        rows = runtime.iterator_gradient(dy, y)
        columns = [[None if d is None else d[j] for d in rows] for j in range(len(iterables))]
        return tuple(runtime.like_iterable(it, column, start)
                     for it, column, start in zip(iterables, columns, starts))
    return y, back


@adjoint(enumerate)
def enumerate_(iterable, start=0):
    items, first = runtime.take(iterable)
    y = runtime.EagerIterator(list(enumerate(items, start)), (iterable,), None, [first])

    def back(dy):
        grads = [None if d is None else d[1] for d in runtime.iterator_gradient(dy, y)]
        return (runtime.like_iterable(iterable, grads, first), None)
    return y, back


@adjoint(reversed)
def reversed_(sequence):
    items = list(reversed(sequence))
    y = runtime.EagerIterator(items, (sequence,), runtime.reversed_spans(len(items)))

    def back(dy):
        return (runtime.like_iterable(sequence, list(runtime.iterator_gradient(dy, y))[::-1]),)
    return y, back


@adjoint(iter)
def iter_(iterable):
    """``iter(xs)``: an iterator over ``xs``'s items (itself for an
    iterator), each item's gradient going back to its position."""
    if type(iterable) is runtime.EagerIterator:
        return iterable, lambda dy: (dy,)
    items, start = runtime.take(iterable)
    y = runtime.EagerIterator(list(items), (iterable,), None, [start])

    def back(dy):
        return (runtime.like_iterable(iterable, list(runtime.iterator_gradient(dy, y)), start),)
    return y, back


@adjoint(next)
def next_(iterator, *default):
    """``next(it)``: the iterator's gradient has the item's at the
    item's position (the default's when it was exhausted)."""
    if type(iterator) is not runtime.EagerIterator:
        raise runtime.next_refused(iterator)
    k, n = iterator.position, len(iterator.items)
    y = next(iterator, *default)

    def back(dy):
        if k >= n:
            return (None, dy)
        return ([None] * k + [dy] + [None] * (n - k - 1), *([None] * len(default)))
    return y, back


@pushforward(next)
def next_push(y, iterator, *default, diterator, ddefault):
    if diterator is None:
        return runtime.zero_tangent(y)
    if type(iterator) is not runtime.EagerIterator and runtime.python_method(type(iterator), "__next__") is not None:
        raise runtime.next_refused(iterator)  # (its tangent is the object's, no iterator: the item was read already)
    sentinel = object()
    d = next(diterator, sentinel)
    return runtime.tangent_of_items(default, ddefault)[0] if d is sentinel else d


@adjoint(sorted)
def sorted_(iterable, /, *, key=None, reverse=False):
    items, start = runtime.take(iterable)
    # the permutation Python's sort makes (stable, also when reversed)
    order = sorted(range(len(items)), key=lambda i: items[i] if key is None else key(items[i]), reverse=reverse)

    def back(dy):
        grads = [None] * len(items)
        for j, i in enumerate(order):
            grads[i] = dy[j]
        return (runtime.like_iterable(iterable, grads, start), None, None)
    return [items[i] for i in order], back


@adjoint(list)
def list_(iterable=(), /):
    items, start = runtime.take(iterable)

    def back(dy):
        return (runtime.like_iterable(iterable, list(dy), start),)
    return list(items), back


@adjoint(tuple)
def tuple_(iterable=(), /):
    items, start = runtime.take(iterable)

    def back(dy):
        return (runtime.like_iterable(iterable, list(dy), start),)
    return tuple(items), back


@adjoint(functools.reduce)
def reduce_(function, iterable, *initial):
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    items, start = runtime.take(iterable)
    if not items and not initial:
        raise TypeError("reduce() of empty iterable with no initial value")
    first = 0 if initial else 1  # the first item to be combined with the running value
    value = initial[0] if initial else items[0]
    calls = []
    for v in items[first:]:
        value, pullback = runtime.J(function, value, v)
        calls.append(pullback)

    def back(dy):
        dfunction = None
        grads = [None] * len(items)
        dvalue = dy
        for i in range(len(calls) - 1, -1, -1):
            g = runtime.call_pullback(calls[i], dvalue)
            dfunction = runtime.accum(dfunction, g[0])
            dvalue = g[1]
            grads[first + i] = g[2]
        if initial:
            return (dfunction, runtime.like_iterable(iterable, grads, start), dvalue)
        grads[0] = dvalue
        return (dfunction, runtime.like_iterable(iterable, grads, start))
    return value, back


@adjoint(functools.partial)
def partial_(func, /, *args, **keywords):
    y = functools.partial(func, *args, **keywords)
    # partial(partial(f, a), b) is partial(f, a, b): the first arguments
    # are then the inner partial's
    inner = len(y.args) - len(args)

    def back(dy):
        dargs = runtime.field(dy, "args") or (None,) * len(y.args)
        dkeywords = runtime.field(dy, "keywords") or {}
        if any(dkeywords.get(k) is not None for k in keywords):
            raise errors.NoDerivativeRule(
                "no gradient for a keyword argument bound by functools.partial",
                hint="bind that argument positionally, or capture it in a lambda or nested function",
            )
        dfunc = runtime.field(dy, "func")
        if y.func is not func:
            dfunc = {"func": dfunc, "args": tuple(dargs[:inner]),
                     "keywords": {k: v for k, v in dkeywords.items() if k not in keywords}}
        return (dfunc, *dargs[inner:])
    return y, back


@implemented_by(np.vectorize.__call__)
def vectorized(vf, *args):
    """``vf(*args)`` for an ``np.vectorize`` object ``vf``, as plain code
    that zygote_py differentiates (``runtime.J`` and ``runtime.push`` call
    it for ``vf``): its Python function on each element of the arguments
    broadcast together (those whose positions ``vf.excluded`` holds passed
    whole), the results in an array of ``vf.otypes`` or of their own
    type. Refused: a ``signature`` (generalised ufuncs), excluded
    keywords."""
    if vf.signature is not None or any(not isinstance(k, int) for k in vf.excluded):
        raise errors.NoDerivativeRule(
            "np.vectorize with a signature= or an excluded keyword argument is not differentiated",
            hint="loop over the elements yourself, or pass the excluded argument by position")
    whole = [i in vf.excluded for i in range(len(args))]
    shape = np.broadcast_shapes(*[np.shape(a) for a, w in zip(args, whole) if not w])
    columns = [a if w else np.ravel(np.broadcast_to(a, shape)) for a, w in zip(args, whole)]
    values = []
    for i in range(int(np.prod(shape))):
        values.append(vf.pyfunc(*[c if w else c[i] for c, w in zip(columns, whole)]))
    out = np.array(values, dtype=vf.otypes[0]) if vf.otypes else np.array(values)
    return np.reshape(out, shape)


@pushforward(sorted)
def sorted_push(y, iterable, /, *, key=None, reverse=False, diterable):
    items = list(runtime.items_read(iterable, diterable))
    order = sorted(range(len(items)), key=lambda i: items[i] if key is None else key(items[i]), reverse=reverse)
    ds = list(runtime.tangent_of_items(items, diterable))
    return [ds[i] for i in order]


@adjoint(runtime.indexable)
def indexable(xs):
    """A sequence a loop indexes passes its gradient through; anything
    else, read into a list, gets the gradient ``list`` would give it."""
    start = runtime.position(xs)
    method = runtime.own_iter(xs)
    if method is not None:  # (the items the class's __iter__ yields, differentiated through it)
        n = runtime.count_items(xs)
        it, pullback = runtime.J(method, xs)
        if it is xs:  # __iter__ returning the object: the values of its own __next__
            items, backs = [], []
            for _ in range(n):
                item, item_back = runtime.J(runtime.python_method(type(xs), "__next__"), xs)
                items.append(item)
                backs.append(item_back)

            def back_next(dy):
                d = None
                for item_back, g in zip(backs, dy):
                    d = runtime.accum(d, runtime.call_pullback(item_back, g)[1])
                return (runtime.call_pullback(pullback, d)[1],)
            return items, back_next
        items = runtime.read_ahead(it, xs)

        def back_through(dy):
            return (runtime.call_pullback(pullback, list(dy))[1],)
        return items, back_through
    y = runtime.indexable(xs)

    def back(dy):
        return (dy if y is xs else runtime.like_iterable(xs, list(dy), start),)
    return y, back


nondifferentiable(runtime.count_items)


@pushforward(runtime.indexable)
def indexable_push(y, xs, *, dxs):
    if y is xs or dxs is None:
        return dxs
    method = runtime.own_iter(xs)
    if method is not None:  # (pushed through the class's __iter__ again, and its __next__ where it returns xs)
        it, dit = runtime.push(method, (xs,), {}, (dxs,), {})
        if it is not xs:
            return list(dit)
        step, out = runtime.python_method(type(xs), "__next__"), []
        for _ in y:
            try:
                out.append(runtime.push(step, (xs,), {}, (dit,), {})[1])
            except StopIteration:  # (the items were read for the value: an __iter__ not starting over)
                raise runtime.not_started_over(xs) from None
        return out
    runtime.check_iterated(xs)
    return list(dxs)


@pushforward(list)
def list_push(y, iterable=(), /, *, diterable):
    return list(diterable)


@pushforward(tuple)
def tuple_push(y, iterable=(), /, *, diterable):
    return tuple(diterable)


@pushforward(functools.reduce)
def reduce_push(y, function, iterable, *initial, diterable, dinitial):
    items = runtime.items_read(iterable, diterable)
    ds = list(runtime.tangent_of_items(items, diterable))
    if initial:
        value, dvalue, rest = initial[0], runtime.tangent_of_items(initial, dinitial)[0], zip(items, ds)
    else:
        value, dvalue, rest = items[0], ds[0], zip(items[1:], ds[1:])
    for v, d in rest:
        value, dvalue = runtime.push(function, (value, v), {}, (dvalue, d), {})
    return dvalue
