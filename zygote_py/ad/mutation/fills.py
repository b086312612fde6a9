"""Arrays filled item by item: ``y = np.empty(n)``, then ``y[i] = v`` in a
loop, where the compiler knows ``y`` to be a one-dimensional float array
the function made itself, ``i`` an integer and ``v`` a real number. Such a
store, which the mutation pass made ``mutation.store_item``, becomes
``mutation.store_number``, whose rule needs neither the array's dtype nor
the value's shape: the loop records only its index, the forward pass stores
in place, and the pullback's loop takes each item's gradient out of a
list (see ``reverse_passes.item_buffers``).

May import: the IR, the compiler's analysis, the rest of this package.
"""
from __future__ import annotations

import numpy as np

from ..analysis import Facts, is_integer
from ...ir.core import IR, Const, Operand, Var
from ...ir.passes import member
from . import effects, sharing
from . import operations as mut


MAKERS = {np.empty, np.zeros, np.ones}
"""Constructors of a float array from a length: ``np.empty(n)`` and the
others, without a dtype (``float64``) or with ``dtype=float``."""


def number_stores(f: IR, facts: Facts) -> bool:
    """Make each ``store_item`` of a real number at an integer index into a
    float vector the function made (see the module docstring) a
    ``store_number``. Returns whether it changed any."""
    defs = {s.var: (b, s) for b in f.blocks.values() for s in b.stmts}
    stmts = {v: s for v, (_, s) in defs.items()}
    changed = False
    for _, s in defs.values():
        if facts.callee(s) is not mut.store_item or len(s.args) != 3 or s.kwargs or not isinstance(s.args[0], Var):
            continue
        obj, key, value = s.args
        if is_integer(key, facts, stmts) and _real_number(value, facts) and _float_vector(f, obj, defs, stmts, facts):
            s.callee = Const(mut.store_number)
            changed = True
    return changed


def _real_number(op: Operand, facts: Facts) -> bool:
    if isinstance(op, Const):
        return type(op.value) in (int, float)
    return op in facts.scalars and op in facts.real


def _float_vector(f: IR, obj: Var, defs: dict, stmts: dict, facts: Facts) -> bool:
    """Whether every value the object ``obj`` may be comes, through changes
    of it, from one call of :data:`MAKERS` with an integer length."""
    callee = facts.callee
    same = sharing.same_object(f, obj, defs, callee)
    made = [v for v in same if v in defs and not member(callee(defs[v][1]), effects.VERSIONED)]
    if len(made) != 1 or any(v in f.entry.args for v in same):
        return False
    st = defs[made[0]][1]
    if not member(callee(st), MAKERS) or len(st.args) != 1:
        return False
    for k, v in st.kwargs:
        dtype = v.value if isinstance(v, Const) else facts.static.get(v)
        if k != "dtype" or dtype is not float and dtype is not np.float64:
            return False
    n = st.args[0]
    return is_integer(n, facts, stmts) or n in stmts and callee(stmts[n]) is len
