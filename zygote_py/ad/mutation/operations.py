"""Changes made in place, as operations that return the changed object.

The mutation pass (:mod:`.versions`) rewrites ``y[k] = v`` into
``y_1 = mutation.store_item(y, k, v)``: the same change, made in place on
the same object, which the reverse transform can then treat as a function
from the old value to the new one. Each operation's rule says how the
gradient of the new value splits into the gradient of the old value and of
what was written:

- ``store_item(obj, key, value)`` (``obj[key] = value`` on an array, a list
  or a dict): ``value`` gets the gradient at ``key``; the old value gets the
  rest (its items at ``key`` were overwritten, so their gradient is zero).
  An integer-array key that repeats an index is refused (which write wins is
  NumPy's business, not a derivative).
- ``store_number(obj, key, value)``: ``store_item`` of a real number at an
  integer into a one-dimensional float array the function made (see
  :mod:`.fills`), whose rule needs nothing but the key: the forward pass
  stores in place, and a loop's pullback takes the items' gradients out of
  a list.
- ``add_at(obj, key, value)`` (``np.add.at``): the array's gradient passes
  through; each of ``value``'s items gets the gradient at its index.
- A NumPy call's ``out=y`` (a ufunc's, ``np.sum``'s, by keyword or by
  position): the call's value, then ``store_item(y, ..., it)``; where ``y``
  is not known to be an array (a parameter ``out=None``), the call's value,
  after ``no_out(y)`` checks that it is ``None``.
- ``init_object(obj, init, *args)`` (``super().__init__(...)`` or
  ``Base.__init__(self, ...)`` in an ``__init__``): the base's ``__init__``
  differentiated as the function that fills in ``obj`` (see
  :func:`zygote_py.ad.pipeline.construct`).
- ``call_changing(obj, position, f, *args)``: a call of a Python function
  that changes its argument in place (``normalise(y)`` doing ``y /= ...``):
  ``f`` is differentiated as returning the changed object with its value
  (see ``param_out`` in :func:`zygote_py.ad.reverse.transform`).
- ``call_method(obj, name, *args)``: ``obj.name(*args)`` on an object that
  is not a number or an array: a Python method that changes its object is
  differentiated as returning it too; any other method as it is, its
  object's gradient passing through.
- ``write_back(obj, key, part)``: ``obj[key] = part`` after ``part =
  obj[key]`` was changed in place (``rows[i].append(v)``): the gradient of
  ``store_item``.
- ``delete_item(obj, key)`` (``del l[k]``, ``del d[k]``): the deleted item's
  gradient is zero.
- ``store_attr(obj, name, value)`` (``obj.name = value``): the same for a
  field.
- ``append extend insert pop clear`` on lists, ``update pop setdefault`` on
  dicts (``pop`` and ``setdefault`` return the object and the value they
  read, as a pair). Other types' methods of these names are refused.
- ``snapshot(obj)``: a copy, whose gradient is the original's; and
  ``snapshot_holder(obj)``, the same for a value that may hold an array
  (a view, a list of views), whose arrays it copies.
- ``update_in_place(a, b, op)`` (``a += b`` and the other in-place operators on an
  array): the rule of the plain operator at the old value of ``a``; the
  result is written back into ``a``. ``update_maybe_array(a, b, op)``: the
  same where ``a`` may also be a number (a NumPy function's result of a
  kind not known when compiled), which the operator replaces.

An operation whose object's gradient is a lazy cotangent (a scatter of
items) makes it dense first.

Forward mode changes an object's tangent in place alongside the object
(see :mod:`zygote_py.ad.forward`), so the pushforwards at the end of this
module are those of the methods themselves (``list.append``...): each
makes the same change to the tangent, after the object's.

May import: the runtime, the rule table, the rules; nothing of the compiler
(emitted code calls these operations, and their rules are inlined like any
other).
"""
from __future__ import annotations

import copy
import inspect
import numbers
import operator
import sys
import types
from typing import Any

import numpy as np

from zygote_py import errors, runtime, tangent

from ...registry import adjoint, array, pushforward
from ... import registry


def dense_or_none(d: Any) -> Any:
    """``d`` as a value that can be indexed, or ``None`` for no gradient."""
    if d is None or isinstance(d, (int, float)) and not isinstance(d, bool) and d == 0:
        return None
    return runtime.dense(d)


def check_unique(obj: Any, key: Any) -> None:
    """An integer-array index that assigns a position twice is refused."""
    if type(key) is not int and runtime.arrays.is_array(obj) and not runtime.basic_index(key):
        index = runtime.arrays.asarray(key) if not isinstance(key, tuple) else None
        if runtime.arrays.is_foreign(index) and index.dtype.kind in "iu":  # (its repeats: known once computed)
            raise errors.NoDerivativeRule(
                "no rule for the gradient of an assignment at an integer index array of another library",
                hint="index with a NumPy integer array, or a boolean mask")
        if index is not None and index.dtype.kind in "iu" and np.unique(index).size != index.size:
            raise errors.NoDerivativeRule(
                "no rule for the gradient of an assignment whose integer index repeats a position",
                hint="assign each position once (which repeated write wins is not a derivative)",
            )


def snapshot(obj: Any) -> Any:
    """A copy of ``obj`` as it is now, for the pullbacks that read it
    before it is changed in place: an array's copy, a list's or dict's
    shallow copy, an object's ``copy.copy`` (:func:`runtime.object_snapshot`)."""
    if runtime.arrays.is_array(obj):  # (another library's too: by its own copy, which stays lazy or on the device)
        return obj.copy()
    if isinstance(obj, (list, dict)):
        return type(obj)(obj) if type(obj) in (list, dict) else copy.copy(obj)
    return runtime.object_snapshot(obj)


def snapshot_holder(obj: Any) -> Any:
    """A copy of ``obj``, a value that may hold an array that the code
    changes in place afterwards (a view of it, a list holding it), for a
    pullback that reads ``obj`` before the change: arrays are copied, and
    lists, tuples and dicts item by item. Another object that may hold the
    array is refused."""
    if runtime.arrays.is_array(obj):
        return obj.copy()
    if type(obj) in (list, tuple):
        return type(obj)(map(snapshot_holder, obj))
    if type(obj) is dict:
        return {k: snapshot_holder(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (numbers.Number, np.generic, str, bytes)):
        return obj
    raise errors.UnsupportedSyntax(
        f"a differentiated operation reads a {type(obj).__name__} that may hold an array the code changes in "
        "place afterwards (its gradient would see the change)",
        hint="change a copy of the array (y = y.copy()), or make the value after the change")


def not_a_view(item: Any) -> None:
    """Raise when an item read from an array at integers, which the code
    then changes in place, is an array: a view, which the change changes
    too (the compiled code took it for a number)."""
    if runtime.arrays.is_array(item):  # (CuPy's items are views too)
        raise errors.UnsupportedSyntax(
            "an item read from an array that is then changed in place is itself an array (a view, "
            "which sees the change), and is used after the change",
            hint="copy the item (a = y[i].copy()), or read it after the change")


def apart(value: Any, obj: Any) -> None:
    """Raise unless ``value``, the value of a call that may change ``obj``
    (a method of it, ``d.pop(k)``), which the code reads after a later
    change of ``obj``, holds no part of ``obj``: a number, or an array or
    a tuple of them sharing no memory with an array ``obj`` holds
    (``x * self.w`` is apart, ``self.w`` and its views are not). The
    compiled code took it for a value that the change leaves as it is;
    one made apart from ``obj`` stays so (a later in-place change of an
    array it may share memory with is refused where it runs)."""
    if not _apart(value, obj):
        raise errors.UnsupportedSyntax(
            f"a method's value (a {type(value).__name__}) is used after a later change of the method's object, "
            "and may be part of it (self.w), which the change would change too",
            hint="copy the value (v = obj.f().copy()), or read it after the change")


def _apart(value: Any, obj: Any) -> bool:
    if isinstance(value, (numbers.Number, np.generic, str, type(None))):
        return True
    if type(value) is tuple:
        return all(_apart(v, obj) for v in value)
    return type(value) is np.ndarray and not any(np.may_share_memory(value, a) for a in _arrays_held(obj))


def _arrays_held(obj: Any):
    """The NumPy arrays ``obj`` holds: itself, the items of its
    containers, its fields, and theirs."""
    seen, stack = set(), [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, (numbers.Number, np.generic, str, bytes, type(None), type,
                                           types.ModuleType, types.FunctionType, types.BuiltinFunctionType)):
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):
            yield o
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
        else:
            stack.extend(getattr(o, name, None) for name in tangent.fields(o))


def made_new(value: Any) -> None:
    """Raise unless ``value``, made by arithmetic from a value that is
    changed in place afterwards (or a key read from it, stored under),
    where what holds ``value`` is read after the change, is a number, a
    string or a NumPy array: one that holds nothing of the changed value
    (the compiled code took it for one; ``2 * [a]`` is a list holding
    ``a``)."""
    if not isinstance(value, (numbers.Number, np.generic, np.ndarray, str, bytes)):
        raise errors.UnsupportedSyntax(
            f"a {type(value).__name__}, made by arithmetic or read as a key from a value changed in place "
            "afterwards, may hold items of it, and is read after the change",
            hint="make it after the change, or from a copy (list(v), v.copy())")


def no_out(out: Any) -> None:
    """Raise unless ``out``, given as a NumPy call's ``out=`` where the
    compiled code took the call's value as it is (``out`` was not known to
    be an array), is ``None``."""
    if out is not None:
        raise errors.UnsupportedSyntax(
            f"a NumPy call writes into out= (a {type(out).__name__}) that was not known to be an array where "
            "the function was compiled",
            hint="assign the call's value instead (y = np.sum(x, 0)), or write into an array made in the "
            "function (np.zeros)")


registry.nondifferentiable(not_a_view, apart, made_new, no_out)


def keys_of(obj: Any) -> list:
    """The keys of the dict ``obj`` that a ``for`` loop over it goes
    through, read when the loop starts: ``for k in p: p[k] = ...`` changes
    only values, which its keys do not see (a change of a dict's size
    during the loop makes Python raise, and the code is wrong anyway).
    Anything else a loop goes over while changing it is refused."""
    if type(obj) is not dict:
        raise errors.UnsupportedSyntax(
            f"changing a {type(obj).__name__} in place in a for loop over it, which reads the change as it goes",
            hint="loop over a copy (for e in y.copy()), or index it (for i in range(len(y)): e = y[i])")
    return list(obj)


registry.nondifferentiable(keys_of)


from zygote_py.ad.mutation import operations as mutation  # noqa: E402  (the rules below name their helpers through it)


@adjoint(snapshot)
def snapshot_(obj):
    def back(dy):
        return (dy,)
    return mutation.snapshot(obj), back


@adjoint(snapshot_holder)
def snapshot_holder_(obj):
    def back(dy):
        return (dy,)
    return mutation.snapshot_holder(obj), back


def take_item(d: Any, key: Any, value: Any, dtype: np.dtype) -> tuple[Any, Any]:
    """For the gradient ``d`` of an array of ``dtype`` after ``obj[key] =
    value``: the gradient of ``value`` (``d[key]``, summed down to
    ``value``'s shape) and of the array before (``d`` with zeros at ``key``,
    a new array). A zero ``d`` gives zeros, and so does an array of
    integers or booleans, which truncates ``value``."""
    d = runtime.dense(d)
    if d is None or isinstance(d, (int, float)) and d == 0:
        return runtime.unbroadcast(np.zeros(np.shape(value)), value), d
    part = runtime.arrays.asarray(d)[key] if dtype.kind in "fc" else np.zeros(np.shape(value))  # (0-d: a number)
    # (another library's array: a new one of its library, exact for floats; np.array would compute a Dask array
    # or refuse CuPy's, and Dask's copy method takes no order, which ndarray.copy's rule passes at second order)
    d = d * 1 if runtime.arrays.is_foreign(d) else np.array(d, copy=True)
    d[key] = 0
    return runtime.unbroadcast(part, value), d


def take_item_owned(d: Any, key: Any, value: Any, dtype: np.dtype) -> tuple[Any, Any]:
    """:func:`take_item` where the compiler knows that the variable holding
    ``d`` is not read again: an array nothing else refers to (its reference
    count says so) gets its zeros in place, so that filling an array item
    by item in a loop has a gradient that costs O(1) per item."""
    if type(d) is np.ndarray and dtype.kind in "fc" and d.base is None and sys.getrefcount(d) <= runtime.UNSHARED:
        part = d[key]
        if isinstance(part, np.ndarray):
            part = part.copy()
        d[key] = 0
        return runtime.unbroadcast(part, value), d
    return take_item(d, key, value, dtype)


def store_item(obj: Any, key: Any, value: Any) -> Any:
    """``obj[key] = value``, then ``obj``."""
    if type(key) is not int:
        check_unique(obj, key)
    obj[key] = value
    return obj


@adjoint(store_item)
def store_item_(obj, key, value):
    method = runtime.python_method(type(obj), "__setitem__")
    if method is not None:  # a user class's: differentiated as a function changing obj
        y, pullback = runtime.forward_changing(method, 0, (obj, key, value))

        def method_back(dy):
            grads = runtime.call_pullback(pullback, (None, dy))  # (the method's, obj's before, key's, value's)
            return (grads[1], None, grads[3])
        return obj, method_back
    n = len(obj) if isinstance(obj, list) else None
    mutation.store_item(obj, key, value)
    if n is not None and len(obj) != n:
        raise errors.NoDerivativeRule(
            "no rule for the gradient of a slice assignment that changes a list's length",
            hint="assign as many items as the slice holds, or build a new list",
        )

    def back(dy):
        d = mutation.dense_or_none(dy)
        if d is None:
            return (None, None, None)
        if runtime.arrays.is_array(obj):  # (another library's too, which list(d) would take apart)
            dvalue, dobj = mutation.take_item(d, key, value, obj.dtype)
            return (dobj, None, dvalue)
        if isinstance(obj, dict):
            return ({k: v for k, v in d.items() if k != key}, None, d.get(key))
        dobj = list(d)
        dvalue = dobj[key]
        if isinstance(key, slice):
            dobj[key] = [None] * len(dvalue)
            dvalue = type(value)(dvalue) if isinstance(value, (tuple, list)) else dvalue
        else:
            dobj[key] = None
        return (dobj, None, dvalue)
    return obj, back


@array(store_item)
def store_item_array(obj, key, value):
    dtype = obj.dtype  # (an array of integers truncates the value: no gradient flows through it)

    def back(dy):
        dvalue, dobj = mutation.take_item(dy, key, value, dtype)
        return (dobj, None, dvalue)
    return mutation.store_item(obj, key, value), back


def store_number(obj: np.ndarray, key: int, value: Any) -> np.ndarray:
    """``obj[key] = value``, then ``obj``, where the compiler knows that
    ``obj`` is a one-dimensional float array the function made itself, the
    key an integer and the value a real number (see
    :func:`.versions.number_stores`): its gradient needs neither the
    array's dtype nor the value's shape, so a loop filling the array
    records nothing but the index."""
    obj[key] = value
    return obj


@adjoint(store_number)
def store_number_(obj, key, value):
    def back(dy):
        dvalue = mutation.number_at(dy, key)
        return (mutation.without_number(dy, key), None, dvalue)
    return mutation.store_number(obj, key, value), back


def number_at(d: Any, key: int) -> Any:
    """The item ``key`` of the gradient ``d`` of a float vector (0 for a
    zero gradient)."""
    d = runtime.dense(d)
    if d is None or isinstance(d, (int, float)) and d == 0:
        return 0.0
    return d[key]


def without_number(d: Any, key: int) -> Any:
    """The gradient ``d`` of a float vector with a zero at ``key`` (a new
    array; a zero gradient as it is)."""
    d = runtime.dense(d)
    if d is None or isinstance(d, (int, float)) and d == 0:
        return d
    d = np.array(d, copy=True)
    d[key] = 0.0
    return d


def without_number_owned(d: Any, key: int) -> Any:
    """:func:`without_number` where the compiler knows that the variable
    holding ``d`` is not read again: an array nothing else refers to gets
    its zero in place."""
    if type(d) is np.ndarray and d.base is None and sys.getrefcount(d) <= runtime.UNSHARED:
        d[key] = 0.0
        return d
    return without_number(d, key)


def add_at(obj: np.ndarray, key: Any, value: Any) -> np.ndarray:
    """``np.add.at(obj, key, value)``, then ``obj``."""
    np.add.at(obj, key, value)
    return obj


@adjoint(add_at)
def add_at_(obj, key, value):
    def back(dy):
        d = runtime.dense(dy)
        if d is None:
            return (None, None, None)
        # each occurrence of an index adds its value: each gets that item's gradient
        return (d, None, runtime.unbroadcast(np.asarray(d)[key], value))
    return mutation.add_at(obj, key, value), back


def init_object(obj: Any, init: Any, *args: Any) -> Any:
    """``init(obj, *args)`` — ``Base.__init__(self, ...)`` or, with ``init``
    the bound ``super().__init__``, ``super().__init__(...)`` — then
    ``obj``."""
    getattr(init, "__func__", init)(obj, *args)
    return obj


@adjoint(init_object)
def init_object_(obj, init, *args):
    y, pullback = runtime.forward_changing(getattr(init, "__func__", init), 0, (obj, *args))

    def back(dy):
        grads = runtime.call_pullback(pullback, (None, dy))  # (the function's, obj's before, the arguments')
        return (grads[1], None, *grads[2:])
    return y[1], back


@adjoint(runtime.call_with_cells)
def call_with_cells_(f, shared, written, values, *args):
    y, pullback = runtime.forward_with_cells(f, shared, written, values, args)

    def back(dy):
        dvalue, dcells = (None, None) if dy is None else dy
        if written:  # the call's cotangent: its value's, and the cells' it left
            dvalue = (dvalue, (None,) * len(written) if dcells is None else dcells)
        grads = runtime.call_pullback(pullback, dvalue)
        dclosure, dvalues = runtime.cells_gradient(grads[0], shared)
        return (dclosure, None, None, dvalues, *grads[1:1 + len(args)])
    return (y if written else (y, ())), back


def call_changing(obj: Any, position: Any, f: Any, *args: Any) -> tuple[Any, Any]:
    """``f(*args)``, a Python function that changes its argument
    ``args[position]`` (``obj``) in place: the object and the value. For
    a tuple of positions (``project(u, v)`` changing both), ``obj`` is the
    first's, and the value is ``(f's value, *the others)``, which
    :func:`handed_back` then reads."""
    y = f(*args)
    return obj, (y, *(args[p] for p in position[1:])) if type(position) is tuple else y


@adjoint(call_changing)
def call_changing_(obj, position, f, *args):
    y, pullback = runtime.forward_changing(f, position, args)
    first = mutation.first_position(position)

    def back(dy):
        dobj, dvalue = (None, None) if dy is None else dy
        # (f's, the arguments' before the call)
        grads = runtime.call_pullback(pullback, mutation.changed_cotangent(position, dobj, dvalue))
        dargs = grads[1:1 + len(args)]
        return (dargs[first], None, grads[0], *[None if i == first else g for i, g in enumerate(dargs)])
    return (obj, mutation.changed_value(position, y)), back


def first_position(position: Any) -> int:
    """The position of :func:`call_changing`'s object."""
    return position[0] if type(position) is tuple else position


def changed_value(position: Any, y: tuple) -> Any:
    """:func:`call_changing`'s value, from ``forward_changing``'s
    ``(value, *the changed objects)``."""
    return (y[0], *y[2:]) if type(position) is tuple else y[0]


def changed_cotangent(position: Any, dobj: Any, dvalue: Any) -> tuple:
    """The cotangent of ``forward_changing``'s ``(value, *the changed
    objects)``, from those of :func:`call_changing`'s object and value."""
    if type(position) is not tuple:
        return (dvalue, dobj)
    rest = (None,) * len(position) if dvalue is None else dvalue
    return (rest[0], dobj, *rest[1:])


def handed_back(obj: Any, values: tuple, k: int) -> None:
    """What the mutation pass writes after a call that changed ``obj`` in
    place besides its first changed argument (:func:`call_changing` with a
    tuple of positions); it versions it as :func:`adopt`."""


def adopt(obj: Any, values: tuple, k: int) -> Any:
    """``obj`` after the call whose ``values`` (see :func:`call_changing`)
    hold it changed at ``k``: that value, the same object."""
    return values[k]


@adjoint(adopt)
def adopt_(obj, values, k):
    def back(dy):  # (the object before the call gets its gradient from the call, as one of its arguments)
        return (None, (None,) * k + (dy,) + (None,) * (len(values) - k - 1), None)
    return values[k], back


registry.nondifferentiable(first_position)


def call_method(obj: Any, name: str, *args: Any) -> tuple[Any, Any]:
    """``obj.name(*args)``, which may change ``obj``: the object and the
    value."""
    return obj, getattr(obj, name)(*args)


@adjoint(call_method)
def call_method_(obj, name, *args):
    if type(obj) in (list, dict) and name in mutation.METHODS:  # (not known to be one where it was compiled)
        op = mutation.METHODS[name]
        y, op_back = runtime.J(op, obj, *args)
        pair = op in (mutation.pop, mutation.setdefault)

        def container_back(dy):
            dobj, dvalue = (None, None) if dy is None else dy
            grads = runtime.call_pullback(op_back, (dobj, dvalue) if pair else dobj)  # (op's, obj's, args')
            return (grads[1], None, *grads[2:])
        return (y if pair else (y, None)), container_back
    method = runtime.changing_method(obj, name)
    if method is not None:  # it changes its object: differentiated as returning it too
        return mutation.call_changing_method(obj, method, args)
    value, pullback = runtime.J(getattr(obj, name), *args)

    def back(dy):
        dobj, dvalue = (None, None) if dy is None else dy
        # (the bound method's, its object's; or a field's, a function or a callable object; the arguments')
        grads = runtime.call_pullback(pullback, dvalue)
        dfield = None if grads[0] is None else runtime.attribute_gradient(obj, name, grads[0])
        return (runtime.accum(dobj, dfield), None, *grads[1:1 + len(args)])
    return (obj, value), back


def call_changing_method(obj: Any, method: Any, args: tuple) -> tuple[Any, Any]:
    """:func:`call_method_` for a method that changes its object."""
    y, pullback = runtime.forward_changing(method, 0, (obj, *args))

    def back(dy):
        dobj, dvalue = (None, None) if dy is None else dy
        grads = runtime.call_pullback(pullback, (dvalue, dobj))  # (the method's, the object's before, the arguments')
        return (grads[1], None, *grads[2:2 + len(args)])
    return (obj, y[0]), back


def part_changed(obj: Any, key: Any, part: Any) -> None:
    """``obj[key] = part``: what the mutation pass inserts after ``part``,
    read as ``obj[key]``, was changed in place; it versions it as
    :func:`write_back`."""
    obj[key] = part


def write_back(obj: Any, key: Any, part: Any) -> Any:
    """``obj``, where ``part`` was read as ``obj[key]`` and then changed in
    place, if the change reached it (see :func:`reached`): ``part`` is its
    item or a view of it, or a copy the compiler made of one for a
    pullback, which is stored back."""
    if reached(obj, key, part) and not (part is obj[key] or isinstance(part, np.ndarray)
                                        and np.shares_memory(obj, part)):
        obj[key] = part
    return obj


def reached(obj: Any, key: Any, part: Any) -> bool:
    """Whether the change of ``part``, read as ``obj[key]``, is a change of
    ``obj``: not for a copy that Python makes (a slice of a list, an index
    of an array by integer arrays or masks, a new object from a class's
    ``__getitem__``). A list, tuple or dict that holds ``part`` twice is
    refused: the change of the one is the other's too. So is a part of
    another library's array read at a basic index: a view in CuPy, a copy
    in Dask, whose change reaches the array or not by the library."""
    if isinstance(obj, np.ndarray):
        return runtime.basic_index(key)
    if runtime.arrays.is_foreign(obj) and runtime.basic_index(key):
        raise errors.UnsupportedSyntax(
            f"changing in place a part of a {type(obj).__name__} read at {key!r}: whether that changes the array "
            "too (a view, as CuPy's) or not (a copy, as Dask's) depends on its library",
            hint=f"change a copy (part = y[{key!r}].copy()) and store it back (y[{key!r}] = part)")
    if isinstance(obj, list) and isinstance(key, slice) or not isinstance(obj, (list, dict)) \
            and obj[key] is not part:
        return False
    if not isinstance(obj, (list, tuple, dict)):
        raise errors.NoDerivativeRule(
            f"changing in place an item of a {type(obj).__name__}, read through its class's __getitem__",
            hint="change it through a name of its own (item = obj.items[k]), or store a new one: obj[k] = ...",
        )
    item = obj.get(key) if isinstance(obj, dict) else obj[key]  # (a defaultdict's missing key: not made here)
    if not isinstance(item, (numbers.Number, np.generic, str, type(None))) \
            and sum(v is item for v in (obj.values() if isinstance(obj, dict) else obj)) > 1:  # (a number: replaced)
        raise errors.UnsupportedSyntax(
            f"changing in place an object that a {type(obj).__name__} holds twice ([a, a], [a] * 2), "
            "which changes both",
            hint="put copies into the container ([a, a.copy()], [[0.0] for _ in range(2)])",
        )
    return True


registry.nondifferentiable(reached)  # (whether the gradient goes to obj: see write_back_)


@adjoint(write_back)
def write_back_(obj, key, part):
    reaches = mutation.reached(obj, key, part)
    y = mutation.write_back(obj, key, part)
    # (the store's pullback, taken now: obj[key] is part, so storing it again changes nothing, which it might
    # when the gradient is taken, after the program put another object there; a tuple's item is part itself)
    stored = mutation.store_item_(obj, key, part)[1] if reaches and not isinstance(obj, tuple) else None

    def back(dy):
        if not reaches:
            return (dy, None, None)
        if isinstance(obj, tuple):
            items = [None] * len(obj) if dy is None else list(dy)
            dpart = items[key]
            items[key] = None
            return (type(obj)(*items) if hasattr(obj, "_fields") else tuple(items), None, dpart)
        return stored(dy)
    return y, back


def delete_item(obj: Any, key: Any) -> Any:
    """``del obj[key]``, then ``obj``."""
    del obj[key]
    return obj


@adjoint(delete_item)
def delete_item_(obj, key):
    if runtime.python_method(type(obj), "__delitem__") is not None:
        raise errors.NoDerivativeRule(f"no rule for del of an item of a {type(obj).__name__}, whose class defines "
                                      "__delitem__", hint="call a method that removes it (obj.remove(k))")
    if isinstance(obj, list):
        positions = list(range(len(obj)))
        del positions[key]
        n = len(obj)
    del obj[key]

    def back(dy):
        d = mutation.dense_or_none(dy)
        if d is None or isinstance(obj, dict):
            return (d, None)
        dobj = [None] * n
        for i, g in zip(positions, d):
            dobj[i] = g
        return (dobj, None)
    return obj, back


def attribute_changed(obj: Any, name: str, part: Any) -> None:
    """``obj.name = part``: what the mutation pass inserts after ``part``,
    read as ``obj.name``, was changed in place; it versions it as
    :func:`write_back_attribute`."""
    setattr(obj, name, part)


def write_back_attribute(obj: Any, name: str, part: Any) -> Any:
    """:func:`write_back` of an attribute (see :func:`attribute_reached`)."""
    if attribute_reached(obj, name, part) and getattr(obj, name) is not part:
        setattr(obj, name, part)
    return obj


def attribute_reached(obj: Any, name: str, part: Any) -> bool:
    """:func:`reached` of an attribute: not a property's (a new object);
    an array's own attributes (``m.T``), and an object that holds it in
    another attribute as well, are refused."""
    if isinstance(obj, np.ndarray):
        raise errors.UnsupportedSyntax(
            f"changing an array's {name!r} in place (a view of it)",
            hint="assign to the array itself: y[index] = new values",
        )
    found = inspect.getattr_static(obj, name, reached)  # (reached: a mark for none: __getattr__ computes it)
    if isinstance(found, property) or found is reached:
        return found is reached and getattr(obj, name) is part
    fields = vars(obj) if hasattr(obj, "__dict__") else {}
    if any(v is getattr(obj, name) for k, v in fields.items() if k != name):
        raise errors.UnsupportedSyntax(
            f"changing in place the {name!r} of a {type(obj).__name__}, which another of its attributes holds "
            "as well, which changes both",
            hint="give each attribute an object of its own (a copy)",
        )
    return True


registry.nondifferentiable(attribute_reached)


@adjoint(write_back_attribute)
def write_back_attribute_(obj, name, part):
    reaches = mutation.attribute_reached(obj, name, part)

    def back(dy):
        if dy is None or not reaches:
            return (dy, None, None)
        return (runtime.without_field(dy, name), None, runtime.field(dy, name))
    return mutation.write_back_attribute(obj, name, part), back


def store_attr(obj: Any, name: str, value: Any) -> Any:
    """``obj.name = value``, then ``obj``."""
    setattr(obj, name, value)
    return obj


@adjoint(store_attr)
def store_attr_(obj, name, value):
    found = runtime.setter(obj, name, value)
    if found is not None:  # a property's setter or the class's __setattr__, differentiated as changing obj
        y, pullback = runtime.forward_changing(found[0], 0, found[1])

        def setter_back(dy):
            grads = runtime.call_pullback(pullback, (None, dy))  # (the setter's, obj's before, ..., value's)
            return (grads[1], None, grads[-1])
        return obj, setter_back
    setattr(obj, name, value)

    def back(dy):
        if dy is None:
            return (None, None, None)
        return (runtime.without_field(dy, name), None, runtime.field(dy, name))
    return obj, back


def other_method(obj: Any, method: str, args: tuple, pair: bool) -> tuple[Any, Any]:
    """The rule of ``obj.method(*args)`` when ``obj`` is no list or dict
    (a user's class with a method of that name): the method differentiated
    through :func:`zygote_py.runtime.J` (which refuses one that changes its
    object). Returns the operation's value and its pullback."""
    value, pullback = runtime.J(getattr(obj, method), *args)

    def back(dy):
        dobj, dvalue = (None, None) if dy is None else dy if pair else (dy, None)
        grads = runtime.call_pullback(pullback, dvalue)  # (the object's, the arguments')
        return (runtime.accum(dobj, grads[0]), *grads[1:1 + len(args)])
    return ((obj, value) if pair else obj), back


def append(obj: list, value: Any) -> list:
    """``obj.append(value)``, then ``obj``."""
    obj.append(value)
    return obj


@adjoint(append)
def append_(obj, value):
    if type(obj) is not list:
        return mutation.other_method(obj, "append", (value,), False)
    obj.append(value)

    def back(dy):
        d = mutation.dense_or_none(dy)
        return (None, None) if d is None else (list(d[:-1]), d[-1])
    return obj, back


def extend(obj: list, items: Any) -> list:
    """``obj.extend(items)`` (and ``obj += items``), then ``obj``."""
    obj.extend(items)
    return obj


@adjoint(extend)
def extend_(obj, items):
    if type(obj) is not list:
        return mutation.other_method(obj, "extend", (items,), False)
    n = len(obj)
    given = list(items) if items is obj else items  # (l.extend(l): l as it was)
    obj.extend(given)

    def back(dy):
        d = mutation.dense_or_none(dy)
        if d is None:
            return (None, None)
        return (list(d[:n]), runtime.like_iterable(given, list(d[n:])))
    return obj, back


def insert(obj: list, index: int, value: Any) -> list:
    """``obj.insert(index, value)``, then ``obj``."""
    obj.insert(index, value)
    return obj


@adjoint(insert)
def insert_(obj, index, value):
    if type(obj) is not list:
        return mutation.other_method(obj, "insert", (index, value), False)
    n = len(obj)
    at = max(0, min(n, index + n if index < 0 else index))  # where list.insert puts it
    obj.insert(index, value)

    def back(dy):
        d = mutation.dense_or_none(dy)
        if d is None:
            return (None, None, None)
        d = list(d)
        dvalue = d.pop(at)
        return (d, None, dvalue)
    return obj, back


def reverse(obj: list) -> list:
    """``obj.reverse()``, then ``obj``."""
    obj.reverse()
    return obj


@adjoint(reverse)
def reverse_(obj):
    if type(obj) is not list:
        return mutation.other_method(obj, "reverse", (), False)
    obj.reverse()

    def back(dy):
        d = mutation.dense_or_none(dy)
        return (None if d is None else list(reversed(d)),)
    return obj, back


def sort_order(items: list) -> list:
    """Where each item of ``sorted(items)`` comes from: item ``k`` of the
    sorted list is ``items[order[k]]`` (stable, as ``list.sort``)."""
    return sorted(range(len(items)), key=items.__getitem__)


registry.nondifferentiable(sort_order)


def sort(obj: list) -> list:
    """``obj.sort()``, then ``obj``."""
    obj.sort()
    return obj


@adjoint(sort)
def sort_(obj):
    if type(obj) is not list:
        return mutation.other_method(obj, "sort", (), False)
    order = mutation.sort_order(obj)
    obj.sort()

    def back(dy):
        d = mutation.dense_or_none(dy)
        if d is None:
            return (None,)
        g = [None] * len(order)
        for k, i in enumerate(order):
            g[i] = d[k]
        return (g,)
    return obj, back


def pop(obj: Any, *key: Any) -> tuple[Any, Any]:
    """``obj.pop(*key)``: the object and the value removed."""
    return obj, obj.pop(*key)


@adjoint(pop)
def pop_(obj, *key):
    if type(obj) not in (list, dict):
        return mutation.other_method(obj, "pop", key, True)
    in_dict = type(obj) is dict
    n = len(obj)
    found = in_dict and bool(key) and key[0] in obj
    at = None if in_dict else (key[0] + n if key[0] < 0 else key[0]) if key else n - 1
    value = obj.pop(*key)

    def back(dy):
        dobj, dvalue = (None, None) if dy is None else dy
        dobj = mutation.dense_or_none(dobj)
        if in_dict:  # the popped value's gradient goes back to its key, or to the default
            ddefault = (None,) if len(key) == 2 else ()
            if found:
                return (mutation.with_item(dobj, key[0], dvalue), None, *ddefault)
            return (dobj, None, *(dvalue,)[:len(ddefault)])
        if dobj is None and dvalue is None:
            return (None, *(None,) * len(key))
        grads = [None] * (n - 1) if dobj is None else list(dobj)
        grads.insert(at, dvalue)
        return (grads, *(None,) * len(key))
    return (obj, value), back


def with_item(grads: Any, key: Any, g: Any) -> Any:
    """A dict's gradient with ``g`` at ``key`` (nothing changes for ``None``)."""
    if g is None:
        return grads
    out = dict(grads or {})
    out[key] = g
    return out


def clear(obj: Any) -> Any:
    """``obj.clear()``, then ``obj``."""
    obj.clear()
    return obj


@adjoint(clear)
def clear_(obj):
    if type(obj) not in (list, dict):
        return mutation.other_method(obj, "clear", (), False)
    obj.clear()

    def back(dy):
        return (None,)  # every item was removed: none has a gradient
    return obj, back


def update(obj: dict, *others: Any, **items: Any) -> dict:
    """``obj.update(...)``, then ``obj``."""
    obj.update(*others, **items)
    return obj


@adjoint(update)
def update_(obj, *others):
    if type(obj) is not dict:
        return mutation.other_method(obj, "update", others, False)
    written = [dict(o) for o in others]
    obj.update(*others)

    def back(dy):
        d = mutation.dense_or_none(dy)
        if d is None:
            return (None, *(None,) * len(others))
        keys = set().union(*written)
        dobj = {k: v for k, v in d.items() if k not in keys}
        # a key written twice: the last write is the one that stays
        dothers = []
        for i, w in enumerate(written):
            later = set().union(*written[i + 1:])
            dothers.append({k: d.get(k) for k in w if k not in later})
        return (dobj, *dothers)
    return obj, back


def setdefault(obj: dict, key: Any, default: Any = None) -> tuple[dict, Any]:
    """``obj.setdefault(key, default)``: the object and the value it returns."""
    return obj, obj.setdefault(key, default)


@adjoint(setdefault)
def setdefault_(obj, key, default=None):
    if type(obj) is not dict:
        return mutation.other_method(obj, "setdefault", (key, default), True)
    found = key in obj
    value = obj.setdefault(key, default)

    def back(dy):
        dobj, dvalue = (None, None) if dy is None else dy
        dobj = mutation.dense_or_none(dobj)
        if found:  # a read: the item's gradient gains the value's
            return (runtime.accum(dobj, None if dvalue is None else {key: dvalue}), None, None)
        return (None if dobj is None else {k: v for k, v in dobj.items() if k != key}, None,
                runtime.accum(dvalue, None if dobj is None else dobj.get(key)))
    return (obj, value), back


def update_in_place(a: np.ndarray, b: Any, op: Any) -> np.ndarray:
    """``a += b`` (``op`` is ``operator.iadd``; the others alike) on an
    array, then ``a``."""
    return op(a, b)


@adjoint(runtime.unshared)
def unshared_(b, a):
    def back(dy):
        return (dy, None)
    return runtime.unshared(b, a), back


def write_into(a: np.ndarray, y: Any) -> None:
    """``a``'s items set to ``y``'s (``update_in_place``'s change, as its
    rule makes it). Not differentiated: the rule's pullback reads ``y``'s
    pullback, never ``a``, so the rule differentiated again (a second
    derivative) need not see the change."""
    np.copyto(a, y, casting="same_kind")


PLAIN = {
    operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
    operator.itruediv: operator.truediv, operator.ipow: operator.pow, operator.imatmul: operator.matmul,
}


@adjoint(update_in_place)
def update_in_place_(a, b, op):
    if runtime.arrays.is_foreign(a):
        raise errors.UnsupportedSyntax(
            f"in-place arithmetic on a {type(a).__name__} (x += y): whether it changes the array in place (as "
            "CuPy's) or makes a new one (as Dask's) depends on its library, and so do the other names' values",
            hint="write y = y + v instead")
    if not isinstance(a, np.ndarray):  # (the names that hold it were all taken to change with it)
        raise errors.UnsupportedSyntax(
            f"in-place arithmetic on a {type(a).__name__} that was taken for an array where the code was compiled "
            "(arithmetic on a 0-d array gives a NumPy scalar, which += replaces instead of changing)",
            hint="write y = y + v instead, or make the value an array with at least one dimension")
    y, plain_back = registry.lookup(mutation.PLAIN[op])(a.copy(), runtime.unshared(b, a))  # the old values, kept
    mutation.write_into(a, y)

    def back(dy):
        return (*plain_back(dy), None)
    return a, back


def update_maybe_array(a: Any, b: Any, op: Any) -> Any:
    """``a += b`` (``op`` is ``operator.iadd``; the others alike) on an
    array, changed in place, or on a number, replaced; then the result.
    The mutation pass makes it where it knows that no other name for ``a``
    is read afterwards, so the two agree."""
    return op(a, b)


@adjoint(update_maybe_array)
def update_maybe_array_(a, b, op):
    if isinstance(a, np.ndarray):
        if not isinstance(b, (numbers.Number, np.ndarray, np.generic)):
            op(a.copy(), b)  # (an operand NumPy cannot take in place, an object: its error, as in Python)
        return registry.lookup(mutation.update_in_place)(a, b, op)
    y, plain_back = registry.lookup(op)(a, b)  # (a number: the in-place operator's rule, the plain operator's)

    def back(dy):
        return (*plain_back(dy), None)
    return y, back


METHODS = {"append": append, "extend": extend, "insert": insert, "pop": pop, "clear": clear, "update": update,
           "setdefault": setdefault, "reverse": reverse, "sort": sort}
"""The methods of lists and dicts that change them, and the calls the
mutation pass makes of them."""

CHANGE_THEIR_FIRST = (call_changing, call_method, init_object, store_attr)
"""Of the calls the mutation pass makes, those whose first argument may be
an object of any kind that they change in place."""
registry.CHANGES_FIRST_ARGUMENT(*CHANGE_THEIR_FIRST)

# (the changes' pullbacks move gradients about, as a list's stack does in gradient code)
registry.READS_NO_VALUES(
    append, extend, insert, pop, clear, delete_item, setdefault, store_item, store_number, store_attr, update, add_at,
    snapshot, snapshot_holder,
)
registry.nondifferentiable(write_into)


# --------------------------------------------------------------------------
# Forward mode: the same change to the tangent
# --------------------------------------------------------------------------

@pushforward(snapshot_holder)
def snapshot_holder_push(y, obj, *, dobj):
    """The tangent copied as the value is (gradient code pushed forward,
    ``hvp``; the tangent of an array, or of a list, tuple or dict of them,
    has the value's shape): made element by element, another library's
    array refused it. (``snapshot`` has none: its tangent by its adjoint
    keeps a ``defaultdict``'s.)"""
    return mutation.snapshot_holder(dobj)


@pushforward(list.append)
def list_append_push(y, obj, value, *, dobj, dvalue):
    dobj.append(dvalue)


@pushforward(list.extend)
def list_extend_push(y, obj, items, *, dobj, ditems):
    dobj.extend(ditems)


@pushforward(list.insert)
def list_insert_push(y, obj, index, value, *, dobj, dvalue):
    dobj.insert(index, dvalue)


@pushforward(list.pop)
def list_pop_push(y, obj, index=-1, *, dobj):
    return dobj.pop(index)


@pushforward(list.clear)
@pushforward(dict.clear)
def clear_push(y, obj, *, dobj):
    dobj.clear()


@pushforward(list.reverse)
def list_reverse_push(y, obj, *, dobj):
    dobj.reverse()


@pushforward(dict.update)
def dict_update_push(y, obj, other, *, dobj, dother):
    dobj.update(dother)


@pushforward(dict.setdefault)
def dict_setdefault_push(y, obj, key, default=None, *, dobj, ddefault):
    return dobj.setdefault(key, ddefault)


@pushforward(dict.pop)
def dict_pop_push(y, obj, key, *default, dobj, ddefault):
    return dobj.pop(key, *ddefault)


@pushforward(np.ndarray.fill)
def fill_push(y, obj, value, *, dobj, dvalue):
    dobj.fill(dvalue)


@pushforward(np.add.at)
def add_at_push(y, a, indices, b, *, da, db):
    np.add.at(da, indices, db)


@pushforward(store_item)
@pushforward(store_number)
def store_item_push(y, obj, key, value, *, dobj, dvalue):
    """``store_item`` in gradient code run in forward mode (``zpy.hvp``):
    the same store into ``obj``'s tangent, which an array of integers gets
    here (a float zero: it had none), and which takes a zero where the
    array truncates the value."""
    if dobj is None:
        dobj = runtime.changing_zero(obj)
    runtime.store_tangent(dobj, operator.setitem, key, dvalue, value, obj)
    return dobj


# --------------------------------------------------------------------------
# Gradient code differentiated again
# --------------------------------------------------------------------------

@adjoint(mutation.take_item_owned)
def take_item_owned_(d, key, value, dtype):
    """``take_item_owned`` (which may zero ``d``'s items in place) in
    gradient code being differentiated: differentiated as ``take_item``,
    which copies."""
    y, pullback = runtime.J(mutation.take_item, d, key, value, dtype)

    def back(dy):
        return runtime.call_pullback(pullback, dy)[1:]
    return y, back


@adjoint(mutation.without_number_owned)
def without_number_owned_(d, key):
    """``without_number_owned`` in gradient code being differentiated:
    differentiated as ``without_number``, which copies."""
    y, pullback = runtime.J(mutation.without_number, d, key)

    def back(dy):
        return runtime.call_pullback(pullback, dy)[1:]
    return y, back


@pushforward(mutation.without_number_owned)
def without_number_owned_push(y, d, key, *, dd):
    return mutation.without_number(dd, key)


@pushforward(mutation.take_item_owned)
def take_item_owned_push(y, d, key, value, dtype, *, dd):
    return mutation.take_item(dd, key, value, dtype)


# (every function of this module but the snapshots, and the in-place operators, change an argument in place:
# forward mode over gradient code pushes them on copies of their tangents; those that run the user's code it
# refuses before they run)
registry.CHANGES_IN_PLACE(*PLAIN, *(v for v in list(globals().values()) if isinstance(v, types.FunctionType)
                                    and v.__module__ == __name__ and v not in (snapshot, snapshot_holder)))
registry.RUNS_USERS_CODE(init_object, call_changing, call_method, call_changing_method)


# Forward mode over gradient code (zpy.hvp): the calls that run the user's code pushed forward in one run, the
# object's tangent changing as the object does (the tangents given are copies, see rules.nested.J_forward; a
# zero one becomes a zero of its own where the call may change its object).

def _own_tangent(d: Any, x: Any) -> Any:
    return runtime.owned(d, x) if d is None and runtime.may_change(x) else d


def call_method_forward(args, kwargs, dargs, dkwargs):
    (obj, name, *rest), (dobj, _, *drest) = args, dargs
    if runtime.changing_method(obj, name) is not None or type(obj) in (list, dict) and name in METHODS:
        dobj = _own_tangent(dobj, obj)
    value, dvalue = runtime.push_method(getattr(obj, name), obj, name, dobj, tuple(rest), tuple(drest))
    return (obj, value), (dobj, dvalue)


def call_changing_forward(args, kwargs, dargs, dkwargs):
    (obj, position, f, *rest), (_, _, df, *drest) = args, dargs
    positions = position if type(position) is tuple else (position,)
    drest = [_own_tangent(d, a) if i in positions else d for i, (a, d) in enumerate(zip(rest, drest))]
    y, dy = runtime.push(f, tuple(rest), {}, tuple(drest), {}, df)
    if type(position) is tuple:
        y, dy = (y, *(rest[p] for p in positions[1:])), (dy, *(drest[p] for p in positions[1:]))
    return (obj, y), (drest[positions[0]], dy)


def init_object_forward(args, kwargs, dargs, dkwargs):
    (obj, init, *rest), (dobj, _, *drest) = args, dargs
    dobj = _own_tangent(dobj, obj)
    runtime.push(getattr(init, "__func__", init), (obj, *rest), {}, (dobj, *drest), {})
    return obj, dobj


runtime.MACHINERY_PUSHES.update({call_method: call_method_forward, call_changing: call_changing_forward,
                                 init_object: init_object_forward})
