""":mod:`itertools`, differentiated as Python code that moves the same
values around (:func:`~zygote_py.registry.implemented_by`): each function
below computes what its ``itertools`` namesake yields, with lists,
``zip``, ``append`` and loops, which the compiler differentiates in both
modes and at any order like user code, so an item's gradient flows back
to the item of the iterable it came from.

The combinatoric ones (``combinations``, ``permutations``, ``product``...)
take their index tuples from ``itertools`` itself over ``range``\\ s (no
gradient: :func:`indices`) and gather the items at them.

They read their iterables to the end when called and return an iterator
over a list of their items (their laziness is lost, as ``map``'s and
``zip``'s is: see :mod:`.higher_order`). So the endless ones cannot be
differentiated: ``repeat`` without ``times`` raises ``NoDerivativeRule``,
and ``cycle`` and ``count`` have no rule (also ``NoDerivativeRule``).
"""
import itertools
import operator

from zygote_py import errors

from ..registry import implemented_by, nondifferentiable


def indices(kind, sizes, r):
    """The index tuples ``itertools``'s combinatoric function ``kind``
    yields for pools of ``sizes`` (one for ``product``) and length ``r``."""
    if kind is itertools.product:
        return list(itertools.product(*[range(n) for n in sizes], repeat=r))
    return list(kind(range(sizes[0]), r))


nondifferentiable(indices)


@implemented_by(itertools.combinations)
def combinations(iterable, r):
    pool = list(iterable)
    return iter([tuple([pool[i] for i in at]) for at in indices(itertools.combinations, [len(pool)], r)])


@implemented_by(itertools.combinations_with_replacement)
def combinations_with_replacement(iterable, r):
    pool = list(iterable)
    return iter([tuple([pool[i] for i in at])
                 for at in indices(itertools.combinations_with_replacement, [len(pool)], r)])


@implemented_by(itertools.permutations)
def permutations(iterable, r=None):
    pool = list(iterable)
    return iter([tuple([pool[i] for i in at])
                 for at in indices(itertools.permutations, [len(pool)], len(pool) if r is None else r)])


@implemented_by(itertools.product)
def product(*iterables, repeat=1):
    pools = [list(it) for it in iterables] * repeat
    return iter([tuple([pools[j][i] for j, i in enumerate(at)])
                 for at in indices(itertools.product, [len(p) for p in pools], 1)])


@implemented_by(itertools.pairwise)
def pairwise(iterable):
    items = list(iterable)
    return iter(list(zip(items[:-1], items[1:])))


@implemented_by(itertools.accumulate)
def accumulate(iterable, func=None, *, initial=None):
    out = []
    if initial is not None:
        out.append(initial)
    for v in iterable:
        if not out:
            out.append(v)
        elif func is None:
            out.append(operator.add(out[-1], v))
        else:
            out.append(func(out[-1], v))
    return iter(out)


@implemented_by(itertools.chain)
def chain(*iterables):
    return from_iterable(iterables)


@implemented_by(itertools.chain.from_iterable)
def from_iterable(iterables):
    out = []
    for it in iterables:
        for v in it:
            out.append(v)
    return iter(out)


@implemented_by(itertools.starmap)
def starmap(function, iterable):
    return iter([function(*args) for args in iterable])


@implemented_by(itertools.islice)
def islice(iterable, *args):
    where = slice(*args)
    if where.stop is None:
        return iter(list(iterable)[where])
    # (zip stops at the range's end without taking another item: an endless iterable, a cycle, is fine)
    return iter([v for _, v in zip(range(where.stop), iterable)][where])


@implemented_by(itertools.zip_longest)
def zip_longest(*iterables, fillvalue=None):
    columns = [list(it) for it in iterables]
    n = max([len(c) for c in columns], default=0)
    return iter(list(zip(*[c + [fillvalue for _ in range(n - len(c))] for c in columns])))


@implemented_by(itertools.repeat)
def repeat(value, times=None):
    if times is None:
        raise errors.NoDerivativeRule(
            "itertools.repeat without a count yields its value forever, which cannot be read ahead to differentiate",
            hint="give it a count (itertools.repeat(v, n)), or write the value where it is used")
    return iter([value for _ in range(times)])
