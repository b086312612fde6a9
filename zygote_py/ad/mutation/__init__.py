"""In-place changes, in one place: the pass that gives each change a new
value so that the reverse transform can differentiate it, and the
operations it rewrites changes to, with their rules.

- :mod:`.operations`: ``store_item``, ``append``, ``update_in_place``...,
  the changes as operations that return the changed object, and their
  derivative rules (what emitted code calls, as ``mutation.store_item``:
  this package re-exports them);
- :mod:`.effects`: what each call does to the objects it is given;
- :mod:`.versions`: the pass (``version_mutation``), changes made plain
  stores (``in_place_as_stores``), snapshots of values read before a
  change, which parameters a function changes (``changed_positions``);
- :mod:`.sharing`: what else may hold a changed object, and the refusals;
- :mod:`.loops`: loops over an object the loop changes;
- :mod:`.fills`: arrays the function makes and fills item by item with
  numbers, whose stores need less.

One vocabulary throughout: a *change* is a statement that changes an
object in place; its *version* is the new value the pass gives it; the
*root* is the object a change reaches; its *holders* are the values that
may hold it (items, fields, views).

May import: the compiler's analysis and cells, the IR, the rules, the
runtime; the operations' rules register in the built-in layer when the
compiler loads this package.
"""
from ... import registry

with registry.builtin_layer():
    from . import operations  # noqa: F401  (registers the changes' rules)
from .operations import (  # noqa: F401
    add_at, adopt, apart, append, attribute_changed, attribute_reached, call_changing, call_changing_method,
    call_method, CHANGE_THEIR_FIRST, changed_cotangent, changed_value, check_unique, clear, delete_item,
    dense_or_none, extend, first_position, handed_back, init_object, insert, keys_of, made_new, METHODS, no_out,
    not_a_view, number_at, other_method, part_changed, PLAIN, pop, reached, reverse, setdefault, snapshot,
    snapshot_holder, sort, sort_order, store_attr, store_item, store_item_array, store_number, take_item,
    take_item_owned, update, update_in_place, update_maybe_array, with_item, without_number, without_number_owned,
    write_back, write_back_attribute, write_into,
)
