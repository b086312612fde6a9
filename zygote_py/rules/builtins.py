"""Rules for Python's builtin functions.

- ``abs`` shares the rule of ``operator.abs`` (gradient 0 at 0).
- ``min``/``max`` (several arguments, or one iterable; ``key=`` and
  ``default=`` allowed): the whole of ``dy`` goes to the element the function
  returns, which for equal candidates is the first of them, as Python picks
  it; the key function is not differentiated. (Argmax-style selection, as
  ``torch.max(x, dim)``'s gradient; ``jax.numpy.maximum`` splits ties
  evenly instead.) A ``default=``, returned for no items, gets ``dy``.
- ``sum(iterable[, start])``: every item and ``start`` get ``dy``. Only the
  positional ``start`` is accepted (``sum(xs, start=s)`` is a ``TypeError``
  from the rule, which could not return its gradient), and only sums of
  numbers (or same-shape arrays) are covered, not concatenation of
  sequences. Objects whose class adds them in Python (``__add__``,
  ``__radd__``) are summed as ``functools.reduce(operator.add, items,
  start)``, whose rule differentiates those methods.
- ``pow(base, exp)`` as ``base ** exp`` (see :mod:`.operators`); the
  three-argument form is modular integer arithmetic: no gradient. ``mod``
  must be positional.
- ``float(x)`` passes ``dy`` on (for an object whose class defines
  ``__float__`` in Python, ``J`` and ``runtime.float_tangent`` differentiate
  that method instead); ``divmod(a, b)``'s quotient is piecewise constant,
  its remainder has the gradient of ``a % b``.
- Iterable arguments get a gradient of their type when they are a tuple, a
  list or an array, else a list in iteration order (see
  :func:`zygote_py.runtime.like_iterable`).

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``
(``abs``'s is ``operators.abs_any_push``; ``min`` shares ``max_push``),
except none. ``float_push`` and ``super_push`` name their parameters
rather than take ``*args``, so that their inlined tangents read plainly.

Non-differentiable: ``int round len range isinstance issubclass print bool
str repr type id hash callable hasattr chr ord format``, ``str``'s methods, and what logs,
warns or writes text (``logging``'s functions and ``Logger`` methods,
``warnings.warn``, ``io.StringIO.write``, a text file's ``write``).

``getattr(obj, name[, default])``: a property is differentiated through
its getter; a field's gradient is the object's structural gradient (a
``Tangent``, the same namedtuple), a bound method's its object's: see
:func:`zygote_py.runtime.attribute` and
:func:`zygote_py.runtime.attribute_gradient`; a default the value is
gets ``dy``. A namedtuple's ``_replace(**changes)`` (read as
``ops.replace_fields``) gives the kept fields' gradients to the object and
the others' to ``changes``. ``vars(obj)`` is ``obj.__dict__``, whose gradient is a
``Tangent`` of the fields it holds.

``copy.copy``, ``copy.deepcopy``, ``list.copy`` and ``dict.copy`` are the
identity on values: the copy's gradient is the original's (and its
tangent a copy of the original's).

``map``, ``filter``, ``zip``, ``enumerate``, ``reversed``, ``iter``,
``next``, ``sorted``, ``list`` and ``tuple``: see :mod:`.higher_order` (a
``for`` loop needs neither ``iter`` nor ``next``: see the reverse
transform). Left out: the other containers' constructors.
"""
import collections
import copy
import dataclasses
import importlib
import io
import json
import logging
import math
import operator
import warnings

import numpy as np

from zygote_py import runtime, tangent
from zygote_py.errors import NoDerivativeRule
from zygote_py.ir import ops

from . import higher_order, operators
from ..registry import adjoint, array, implemented_by, nondifferentiable, pushforward, scalar

nondifferentiable(
    int, round, len, range, isinstance, issubclass, print, bool, str, repr,
    type, id, hash, callable, hasattr, chr, ord, format, any, all, slice,
)

# Side effects that report values and return nothing differentiable: a
# function that logs, warns or writes text is differentiated as if they
# were not there (the text reads the values; no gradient flows back).
nondifferentiable(
    logging.debug, logging.info, logging.warning, logging.error, logging.exception, logging.critical, logging.log,
    logging.Logger.debug, logging.Logger.info, logging.Logger.warning, logging.Logger.error,
    logging.Logger.exception, logging.Logger.critical, logging.Logger.log,
    logging.LoggerAdapter.debug, logging.LoggerAdapter.info, logging.LoggerAdapter.warning,
    logging.LoggerAdapter.error, logging.LoggerAdapter.exception, logging.LoggerAdapter.critical,
    logging.LoggerAdapter.log,
    warnings.warn, warnings.warn_explicit, io.StringIO.write, io.TextIOWrapper.write, io.TextIOBase.write,
    runtime.logged,  # (HISTORY.append(loss) of a global list the function reads nowhere else)
)
nondifferentiable(importlib.import_module, ops.import_from)  # (import inside a function)
nondifferentiable(str.format, str.format_map, str.join, str.__mod__, json.dumps, json.dump)  # (text)
# (a string's methods make strings, numbers of characters and truth values, in forward mode too: k.startswith("W")
# of a dict's key)
nondifferentiable(*(getattr(str, name) for name in vars(str) if not name.startswith("_")))
nondifferentiable(collections.OrderedDict.move_to_end)  # (the order of its keys: the values pass as they are)

adjoint(abs)(operators.abs_any)
scalar(abs)(operators.abs_)
pushforward(abs)(operators.abs_any_push)


@adjoint(max)
def max_(*args, **kwargs):
    # (several arguments, or none: the function's TypeError; each name assigned once, for the
    # rule's own derivative)
    items, start = (args, 0) if len(args) != 1 else runtime.take(args[0])
    y = max(*(args if len(args) != 1 else (items,)), **kwargs)

    def back(dy):
        # The selected item is the first one that *is* the result: an
        # earlier identical object would have been selected instead.
        grads = [None] * len(items)
        for i, v in enumerate(items):
            if v is y:
                grads[i] = dy
                break
        if len(args) != 1:
            return tuple(grads)
        if not items:  # the default was returned: the keyword arguments' gradients follow
            return (runtime.like_iterable(args[0], grads, start), *[dy if k == "default" else None for k in kwargs])
        return (runtime.like_iterable(args[0], grads, start),)
    return y, back


@pushforward(max)
def max_push(y, *args, dargs, ddefault=None, **kwargs):
    """(Also ``min``'s.) The tangent of the item returned, or of the
    ``default=`` returned for no items."""
    # The item returned is the first that *is* the result, or else (an
    # array's items are made as they are read) the first equal to it.
    items, ditems = (args, dargs) if len(args) != 1 else (args[0], dargs[0])
    if ditems is None:
        return ddefault if y is kwargs.get("default", runtime.MISSING) else None
    items = runtime.items_read(items, ditems)  # (an iterator: the primal call has read it)
    if len(items) == 0:
        return ddefault
    for v, d in zip(items, ditems):
        if v is y:
            return d
    for v, d in zip(items, ditems):
        if v == y:
            return d
    return None


@adjoint(min)
def min_(*args, **kwargs):
    # (several arguments, or none: the function's TypeError; each name assigned once, for the
    # rule's own derivative)
    items, start = (args, 0) if len(args) != 1 else runtime.take(args[0])
    y = min(*(args if len(args) != 1 else (items,)), **kwargs)

    def back(dy):
        # The selected item is the first one that *is* the result: an
        # earlier identical object would have been selected instead.
        grads = [None] * len(items)
        for i, v in enumerate(items):
            if v is y:
                grads[i] = dy
                break
        if len(args) != 1:
            return tuple(grads)
        if not items:  # the default was returned: the keyword arguments' gradients follow
            return (runtime.like_iterable(args[0], grads, start), *[dy if k == "default" else None for k in kwargs])
        return (runtime.like_iterable(args[0], grads, start),)
    return y, back


pushforward(min)(max_push)


@adjoint(sum)
def sum_(iterable, *start):
    items, first = runtime.take(iterable)
    # objects adding by their own Python methods: those are differentiated (each name assigned once, for
    # the rule's own derivative)
    by_parts = higher_order.reduce_(operator.add, items, *(start or (0,))) \
        if runtime.adds_in_python(items, start) else None
    y = sum(items, *start) if by_parts is None else by_parts[0]

    def back(dy):
        parts = None if by_parts is None else by_parts[1](dy)
        grads = runtime.like_iterable(iterable, runtime.repeated(dy, len(items)) if parts is None else parts[1],
                                      first)
        dstart = dy if parts is None else parts[2]
        return (grads, dstart) if start else (grads,)
    return y, back


@pushforward(sum)
def sum_push(y, iterable, *start, diterable, dstart):
    """The sum of the tangents of the items and ``start`` (``None`` for those without one)."""
    if isinstance(iterable, (tuple, list, runtime.EagerIterator)) \
            and runtime.adds_in_python(runtime.items_read(iterable, diterable), start):
        return higher_order.reduce_push(y, operator.add, iterable, *(start or (0,)), diterable=diterable,
                                        dinitial=dstart if start else (None,))
    dy = None
    for d in [*(() if diterable is None else diterable), *dstart]:
        if d is not None:
            dy = d if dy is None else dy + d
    return None if dy is None else runtime.shaped(dy, y)


@adjoint(pow)
def pow_(base, exp, *mod):
    if not mod and (isinstance(base, np.ndarray) or isinstance(exp, np.ndarray)):
        return operators.pow_any(base, exp)  # pow(a, b) is a ** b
    y = pow(base, exp, *mod)

    def back(dy):
        if mod and mod[0] is not None:
            return (None, None, None)
        if type(y) is complex:  # a negative number to a fractional power: Python's principal branch
            return operators.pow_complex(base, exp)[1](dy) + (None,) * len(mod)
        if exp == 0:
            dbase = dy * exp  # y is the constant 1, even at base == 0
        elif base == 0 and exp < 1:
            dbase = dy * math.inf  # the slope of base ** exp at 0 when 0 < exp < 1
        else:
            dbase = dy * exp * base ** (exp - 1)
        if isinstance(exp, int):
            dexp = None
        elif base > 0:
            dexp = dy * y * math.log(base)
        elif base == 0 and exp > 0:
            dexp = dy * 0
        else:
            dexp = dy * math.nan  # log(base) is undefined
        # pow(base, exp, None) is the two-argument pow; None has no gradient
        return (dbase, dexp) + (None,) * len(mod)
    return y, back


@pushforward(pow)
def pow_push(y, base, exp, *mod, dbase, dexp):
    """``base ** exp``'s tangent; none for the modular three-argument form."""
    if mod and mod[0] is not None:
        return None
    return operators.pow_any_push(y, base, exp, da=dbase, db=dexp)


@adjoint(float)
def float_(x=0.0):  # (x=0.0 rather than *x: inlined, float(np.sum(v)) is no call of runtime.J)
    def back(dy):
        return (dy,)
    return float(x), back


@adjoint(np.float64)
def numpy_float64(x=0.0):  # (how gradient code makes a NumPy scalar's gradient: x.dtype.type(g))
    def back(dy):
        return (dy,)
    return np.float64(x), back


@pushforward(np.float64)
def numpy_float64_push(y, x=0.0, *, dx):
    return np.float64(dx)


@pushforward(float)
def float_push(y, x=0.0, *, dx):
    # (x=0.0 rather than *x, so that the inlined tangent reads as one call)
    return runtime.float_tangent(x, dx)


@adjoint(divmod)
def divmod_(a, b):
    y = divmod(a, b)

    def back(dy):
        dr = dy[1]
        if dr is None:
            return (None, None)
        return (runtime.unbroadcast(dr, a), runtime.unbroadcast(-dr * y[0], b))
    return y, back


@pushforward(divmod)
def divmod_push(y, a, b, *, da, db):
    return (None, runtime.shaped(da - db * y[0], y[1]))


@adjoint(dict)
def dict_(iterable=(), /):
    """``dict(mapping)`` or ``dict(pairs)`` (``dict(a=x)`` is compiled as
    the display ``{"a": x}``): each value gets the gradient of its key, a
    pair ``(None, that)``, and a value a later pair overrides none."""
    items, start = (iterable, 0) if isinstance(iterable, dict) else runtime.take(iterable)
    y = dict(items)

    def back(dy):
        if isinstance(iterable, dict):
            return ({k: dy.get(k) for k in iterable},)
        last = {k: i for i, (k, _) in enumerate(items)}
        grads = [(None, dy.get(k)) if last[k] == i else None for i, (k, _) in enumerate(items)]
        return (runtime.like_iterable(iterable, grads, start),)
    return y, back


@pushforward(dict)
def dict_push(y, iterable=(), /, *, diterable):
    if isinstance(iterable, dict):
        return dict(diterable)
    items = runtime.items_read(iterable, diterable)
    return {k: d[1] for (k, _), d in zip(items, diterable)}


@adjoint(dict.get)
def dict_get(d, key, default=None):
    found = key in d

    def back(dy):
        return ({key: dy} if found else None, None, None if found else dy)
    return d.get(key, default), back


@pushforward(dict.get)
def dict_get_push(y, d, key, default=None, *, dd, ddefault=None):
    if key in d:
        return None if dd is None else dd.get(key)
    return ddefault


@adjoint(dict.values)
def dict_values(d):
    def back(dy):
        return (dict(zip(d, dy)),)
    return list(d.values()), back


@pushforward(dict.values)
def dict_values_push(y, d, *, dd):
    return runtime.TangentView(d, dd, False)


@adjoint(dict.items)
def dict_items(d):
    def back(dy):
        return ({k: None if g is None else g[1] for k, g in zip(d, dy)},)
    return list(d.items()), back


@pushforward(dict.items)
def dict_items_push(y, d, *, dd):
    return runtime.TangentView(d, dd, True)


nondifferentiable(dict.keys)

# An OrderedDict's own views (which keep its order, as dict's methods called on it would not): dict's rules
adjoint(collections.OrderedDict.values)(dict_values)
pushforward(collections.OrderedDict.values)(dict_values_push)
adjoint(collections.OrderedDict.items)(dict_items)
pushforward(collections.OrderedDict.items)(dict_items_push)
nondifferentiable(collections.OrderedDict.keys)


@adjoint(super)
def super_(*args):
    def back(dy):
        return (None, dy)[-len(args):]  # the proxy's gradient is its object's
    return super(*args), back


@pushforward(super)
def super_push(y, cls=None, obj=None, *, dobj):
    # (cls=None, obj=None rather than *args, so that the inlined tangent reads dobj)
    return dobj  # the proxy's tangent is its object's


@adjoint(copy.copy)
def copy_copy(x):
    def back(dy):
        return (dy,)
    return copy.copy(x), back


@pushforward(copy.copy)
def copy_copy_push(y, x, *, dx):
    return copy.copy(dx)


@adjoint(copy.deepcopy)
def copy_deepcopy(x, memo=None):
    def back(dy):
        return (dy, None)
    return copy.deepcopy(x, memo), back


@pushforward(copy.deepcopy)
def copy_deepcopy_push(y, x, memo=None, *, dx):
    return copy.deepcopy(dx)


@adjoint(list.copy)
@adjoint(dict.copy)
def container_copy(obj):
    def back(dy):
        return (dy,)
    return obj.copy(), back


@pushforward(list.copy)
@pushforward(dict.copy)
def container_copy_push(y, obj, *, dobj):
    return dobj.copy()


@adjoint(getattr)
def getattr_(obj, name, default=runtime.MISSING):
    y, back_property = runtime.attribute(obj, name, default)

    def back(dy):
        if back_property is not None:  # a property's, or the default's
            dobj, ddefault = back_property(dy)
            return (dobj, None, ddefault)
        return (runtime.attribute_gradient(obj, name, dy), None, None)
    return y, back


@pushforward(getattr)
def getattr_push(y, obj, name, default=runtime.MISSING, *, dobj, ddefault):
    return runtime.attribute_tangent(obj, name, dobj, default, ddefault)


@pushforward(runtime.attribute)
def attribute_push(out, obj, name, default, *, dobj, ddefault):
    # (forward mode over getattr's rule: a gradient's jvp, a Hessian-vector product)
    if out[1] is not None:
        raise NoDerivativeRule(
            f"forward mode over the gradient of {type(obj).__name__}.{name}, a property or getattr's default read "
            "at run time, is not supported",
            hint="a gradient of a gradient is (zpy.hvp falls back to one); or read the field the property reads")
    return runtime.attribute_tangent(obj, name, dobj, default, ddefault), None


@pushforward(runtime.attribute_gradient)
def attribute_gradient_push(g, obj, name, dy, *, dobj, ddy):
    return runtime.attribute_gradient(obj, name, ddy)  # (linear in dy; obj gives only its structure)


@adjoint(ops.replace_fields)
def replace_fields_(obj, names, *values):
    if not (isinstance(obj, tuple) and hasattr(obj, "_fields")):  # (another class's _replace: its own code)
        y, pullback = runtime.J(obj._replace, **dict(zip(names, values)))
        return y, lambda dy: (lambda g: (g[0], None, *g[1:]))(runtime.call_pullback(pullback, dy))
    y = ops.replace_fields(obj, names, *values)

    def back(dy):
        if dy is None:
            return (None, None, *(None,) * len(values))
        kept = type(obj)(*[None if f in names else runtime.field(dy, f) for f in obj._fields])
        return (kept, None, *[runtime.field(dy, k) for k in names])
    return y, back


@pushforward(ops.replace_fields)
def replace_fields_push(y, obj, names, *values, dobj, dvalues):
    if not (isinstance(obj, tuple) and hasattr(obj, "_fields")):
        raise NoDerivativeRule(f"forward mode: the method _replace of a {type(obj).__name__}, which is no namedtuple",
                               hint="use reverse mode (zpy.gradient), or build the new object by calling its class")
    changed = dict(zip(names, dvalues))
    return type(obj)(*[changed[f] if f in changed else runtime.field(dobj, f) for f in obj._fields])


@implemented_by(vars)
def vars_(obj):
    return obj.__dict__


@array(getattr)
def getattr_array(x, name):
    def back(dy):
        if name == "T":
            return (dy.T, None)
        return (runtime.attribute_gradient(x, name, dy), None)
    return getattr(x, name), back


@adjoint(dataclasses.replace)
def dataclasses_replace(obj, *args, **changes):
    y = dataclasses.replace(obj, *args, **changes)

    def back(dy):
        if dy is None:
            return (None, *(None,) * len(changes))
        kept = {f: runtime.field(dy, f) for f in tangent.fields(obj) if f not in changes}
        return (tangent.Tangent(**kept), *[runtime.field(dy, k) for k in changes])
    return y, back
