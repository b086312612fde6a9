"""What each call does to the objects it is given, as the mutation pass sees
it: the operations a change in place is rewritten to (:data:`ITEM_CHANGES`,
:data:`METHODS`), the calls that make a new object (:data:`FRESH`), that may
return a view or a scalar (:data:`VIEWS`, :data:`MAY_BE_SCALARS`), that hold
their arguments' items or keep none of their values.

May import: the IR's ops, the runtime, the rules, :mod:`.operations`.
"""
from __future__ import annotations

import copy
import operator

import numpy as np

from ... import hooks, runtime
from ...ir import ops
from ...rules import numpy_arrays
from . import operations as mut


ITEM_CHANGES = {operator.setitem: mut.store_item, operator.delitem: mut.delete_item, setattr: mut.store_attr,
                 ops.merge_dict: mut.update, mut.part_changed: mut.write_back,
                 mut.attribute_changed: mut.write_back_attribute, mut.handed_back: mut.adopt}


METHODS = mut.METHODS


PAIRS = {mut.pop, mut.setdefault, mut.call_changing, mut.call_method}  # they return the object and a value


IN_PLACE = set(mut.PLAIN)


IN_PLACE_CHANGES = (mut.update_maybe_array, mut.update_in_place)


NUMBER_LISTS = {runtime.item_buffer, runtime.number_buffer}
"""Callees whose result is a new list of numbers: a gradient's items (in
gradient code differentiated again)."""


FRESH = {
    np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like, np.full_like,
    np.array, np.copy, np.ndarray.copy, np.arange, np.linspace, np.eye, np.identity,
    ops.build_list, ops.build_dict, ops.build_set, list, dict, copy.copy, copy.deepcopy, list.copy, dict.copy,
    mut.snapshot, mut.snapshot_holder, hooks.stop_gradient, *NUMBER_LISTS,
}
"""Callees whose result is a new object that nothing else refers to
(:data:`NUMBER_LISTS`' too)."""


NEW_RESULTS = {
    np.cumsum, np.cumprod, np.ndarray.cumsum, np.ndarray.cumprod, np.outer, np.where, np.concatenate, np.stack,
    np.hstack, np.vstack, np.sort, np.tile,
}
"""NumPy functions whose result is a new array (never a NumPy scalar),
unless an ``out`` argument (by keyword, or a third positional one; never
for ``np.where``) receives it."""


MAY_BE_SCALARS = {
    np.sum, np.mean, np.prod, np.max, np.amax, np.min, np.amin, np.var, np.std, np.nansum, np.nanmean,
    np.linalg.norm, np.linalg.det, np.trace, np.dot, np.matmul, operator.matmul, np.inner, np.vdot, np.tensordot,
    np.einsum, np.take, np.clip,
    *(getattr(np.ndarray, m) for m in ("sum", "mean", "prod", "max", "min", "var", "std", "dot", "trace", "take",
                                       "clip", "item")),
}
"""NumPy functions whose value may be a NumPy scalar (a reduction over
every axis, a product of vectors): immutable, so ``y += v`` rebinds ``y``
rather than changing the object another name may hold."""


FRESH_ARRAYS = FRESH - {ops.build_list, ops.build_dict, ops.build_set, list, dict, copy.copy, copy.deepcopy,
                          list.copy, dict.copy, *NUMBER_LISTS}
"""…and is an array (so ``a += b`` changes it in place)."""


ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg, operator.matmul}


VERSIONED = {*ITEM_CHANGES.values(), *METHODS.values(), mut.update_in_place, mut.update_maybe_array, mut.add_at,
              mut.init_object, mut.call_changing, mut.call_method, mut.store_number}


BUILDS = {ops.build_list, ops.build_tuple, ops.build_dict, ops.build_set}


SHALLOW_COPIES = {list, tuple, dict, copy.copy, list.copy, dict.copy, mut.snapshot, mut.snapshot_holder}


HOLDS_THE_ITEMS = {getattr, operator.getitem, *SHALLOW_COPIES}


METHOD_VALUES = {"sort": np.sort, "partition": np.partition, "fill": None}
"""Array methods that change their array in place, and the function whose
value they leave in it (``None``: ``a.fill(v)`` leaves ``v``)."""


FUNCTION_VALUES = {np.copyto: numpy_arrays.copied_into, np.fill_diagonal: numpy_arrays.filled_diagonal,
                    np.put: numpy_arrays.put_into}
"""NumPy functions that change their first argument in place, and the
function that returns the value they leave in it."""


AT_UFUNCS = (np.multiply, np.maximum, np.minimum)
"""The ufuncs whose ``at`` is made a store (``np.add.at`` is a change of
its own, :func:`mut.add_at`)."""


VIEWS = {np.reshape, np.ndarray.reshape, np.ravel, np.ndarray.ravel, np.transpose, np.ndarray.transpose,
          np.squeeze, np.expand_dims}


NEW_VALUES = {
    *ARITHMETIC, sum, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, operator.not_,
    operator.truth, operator.contains, operator.is_, operator.is_not, operator.floordiv, operator.mod, operator.pos,
    operator.abs, len, float, int, bool, complex, isinstance, abs, ops.exhausted, mut.keys_of, mut.sort_order,
}
"""Callees whose result holds no reference to their arguments (a number,
or a new array or container of new values). The iterators of
``_ITERATORS`` are left to their rules, which read the items in advance
and check at run time that no change reaches those not yet yielded
(``runtime.EagerIterator``); not ``iter``, whose loop reads the items by
their index as it goes (see ``ad.prepare.Preparation._index_active_loops``)."""


ITERATORS = {enumerate, zip, map, filter, reversed}


KEY_LISTS = {sorted, list, tuple, set, frozenset}
"""Calls that make a new container of what iterating over their argument
yields: of a dict, its keys."""


CONTAINERS = {ops.build_list, ops.build_dict, ops.build_set, list, dict, set}


KEEP_NO_VALUES = ITERATORS | CONTAINERS | {iter, ops.iternext, ops.build_tuple, getattr}
"""Calls whose pullbacks keep no values of their arguments: they hold
them, iterate over them, or name a method of them."""
