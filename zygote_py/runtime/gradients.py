"""Gradients and tangents as values: zeros, the seed, accumulation
(:func:`accum`), a gradient summed down to its operand's shape
(:func:`unbroadcast`), a field's gradient in an object's structural one,
and a gradient as the user gets it (:func:`user_gradient`, and
:func:`checked_gradient` for calls of numbers alone).

May import: NumPy, :mod:`zygote_py.tangent`, :mod:`.sparse`,
:mod:`.operators`, :mod:`.values`.
"""
from __future__ import annotations

import collections
import types
from collections.abc import MappingView
from typing import Any, Optional
import numbers
import numpy as np

from .. import tangent
from ..errors import NoDerivativeRule, NonScalarOutput
from ..tangent import Tangent
from . import arrays
from .operators import number_type
from .sparse import dense, Lazy, picked, Refused
from .values import exact_number, is_differentiable_value


def accum(a: Any, b: Any) -> Any:
    """The sum of two gradients of the same value, ``None`` being zero
    (:func:`tangent.add`, by the name gradient code calls it by)."""
    return tangent.add(a, b)


def seed(y: Any) -> Any:
    """The cotangent 1 for a real scalar output ``y``, of ``y``'s kind (a
    float 1.0 for a float, ``Fraction(1)`` for a fraction, ``Decimal(1)``
    for a decimal, which keeps their gradients exact: ``dy / 2`` stays a
    fraction; the integer 1 for an int); anything else raises
    :class:`NonScalarOutput`."""
    if type(y) is float:
        return 1.0
    if type(y) is np.float64:
        return _ONE64
    if exact_number(y):
        return type(y)(1)
    if isinstance(y, (bool, complex, np.complexfloating)) or not (
        isinstance(y, (numbers.Real, np.generic)) or arrays.is_array(y) or number_type(type(y))
    ):
        if isinstance(y, (complex, np.complexfloating)):
            raise NonScalarOutput(
                "gradient needs a real scalar output, not a complex value",
                hint="use zpy.pullback(f, *args): back(dy) is the gradient of Re(conj(dy) * y), so back(1) "
                "and back(1j) are those of y.real and y.imag, the two columns of the Jacobian; or return "
                "a real loss such as abs(y) ** 2",
            )
        raise NonScalarOutput(
            f"gradient needs a real scalar output, not a {type(y).__name__} value",
            hint="use zpy.pullback(f, *args) and call back(dy) with a cotangent shaped like the output",
        )
    if arrays.is_array(y):
        if y.ndim != 0 or y.dtype.kind not in "fiu":
            raise NonScalarOutput(
                f"gradient needs a real scalar output, not an array of shape {y.shape}",
                hint="use zpy.pullback(f, *args), or reduce the output to a scalar (e.g. .sum())",
            )
        return np.ones_like(y) if y.dtype.kind == "f" else 1
    if isinstance(y, np.floating):
        return y.dtype.type(1)
    return 1


_ONE64 = np.float64(1.0)


def zero_tangent(x: Any) -> Any:
    """The zero tangent of ``x`` in forward mode: a zero of its type for a
    float or complex number or array (NumPy scalars keep their dtype), the
    integer 0 for an integer or a boolean, the same structure for a tuple
    or list (a list for a dict's keys, values or items), and ``None`` (no
    tangent) for anything else: integer arrays, strings, objects."""
    if type(x) is float:
        return 0.0
    if arrays.is_array(x):  # (of its library: a Dask array's zero is lazy)
        return np.zeros_like(x) if x.dtype.kind in "fc" else None
    if isinstance(x, (np.floating, np.complexfloating)):
        return x.dtype.type(0)
    if isinstance(x, (float, complex)):
        return type(x)(0)
    if isinstance(x, (int, np.integer)):
        return 0  # (an integer carries no tangent; 0 keeps arithmetic on it working)
    if x is NO_GRADS:  # (the gradients of a call no gradient reached: their tangents, none either)
        return x
    if isinstance(x, (tuple, list, MappingView)):  # (d.keys(): a list, as list(d.keys()) is)
        items = [zero_tangent(v) for v in x]
        return tuple(items) if isinstance(x, tuple) else items
    if type(x) is collections.defaultdict:
        return changing_zero(x)  # (its missing keys get zero tangents as they are made)
    if isinstance(x, dict):
        return {k: zero_tangent(v) for k, v in x.items()}
    if isinstance(x, Lazy):  # a gradient kept sparse
        return np.zeros(x.shape, x.dtype)
    return None


def shaped(t: Any, y: Any) -> Any:
    """The tangent ``t`` of ``y`` with ``y``'s shape and dtype: a
    pushforward rule of a broadcasting function returns
    ``shaped(da + db, y)``, since ``db`` alone (``da`` dropped as zero)
    may have fewer dimensions than ``y``. ``t`` itself when it already
    fits (always for Python numbers)."""
    if isinstance(y, (tuple, list)) and (not isinstance(t, (tuple, list)) or len(t) != len(y)):
        raise NoDerivativeRule(
            "forward mode: sequences joined with + or * (their tangents' items are not known apart)",
            hint="build the joined sequence with a display or a list comprehension, or use reverse mode",
        )
    if type(y) is not np.ndarray and not isinstance(y, np.generic):
        return t
    if type(t) is np.ndarray and t.shape == y.shape and t.dtype == y.dtype:
        return t if type(y) is np.ndarray else t[()]
    out = np.empty(np.shape(y), np.result_type(y))
    out[...] = t
    return out if type(y) is np.ndarray else out[()]


def is_zero_tangent(t: Any) -> bool:
    """Whether a run-time tangent is known to be zero without looking at
    its values: ``None``, or an integer (integers carry no tangent)."""
    return t is None or isinstance(t, (int, np.integer))


def add_into(g: Any, v: Any) -> Any:
    """``g + v``, where ``g`` is a gradient summed around a loop that an
    earlier ``+`` made (so nothing else holds it): added in place when both
    are arrays of one shape and dtype, which saves an array per
    iteration."""
    if type(g) is np.ndarray and type(v) is np.ndarray and g.shape == v.shape and g.dtype is v.dtype:
        g += v
        return g
    return g + v


def accum_item(grads: dict, key: Any, g: Any) -> None:
    """Add ``g`` into ``grads[key]`` (the gradient of a closure's captured
    variable, or of an object's field)."""
    grads[key] = accum(grads.get(key), g)


def field(grad: Any, name: str) -> Any:
    """The gradient of one field (or captured variable) in an object's or
    closure's structural gradient (a :class:`Tangent`, or the dict a
    pullback builds its closure's gradient in); ``None`` when there is
    none."""
    if grad is None:
        return None
    if isinstance(grad, Tangent):
        return tangent.get(grad, name)
    if isinstance(grad, dict):
        return grad.get(name)
    return getattr(grad, name, None)


def field_gradient(obj: Any, name: str, dy: Any) -> Tangent:
    """The gradient of ``obj`` for a gradient ``dy`` of its field ``name``
    (a read the compiler knows to be one: see ``analysis.fields_kind``)."""
    return Tangent(tangent.fields(obj), **{name: dy})


def key_gradient(obj: dict, key: Any, dy: Any) -> dict:
    """The gradient of the dict ``obj`` for a gradient ``dy`` of its item
    ``key``: a dict with its keys, ``None`` for the others (a read the
    compiler knows to be one: see ``analysis.items_kind``)."""
    return {k: dy if k == key else None for k in obj}


def cells_gradient(dclosure: Any, names: tuple) -> tuple[Any, tuple]:
    """A closure's gradient from a call of it that shares the cells
    ``names`` with its caller (see :func:`call_with_cells`), split in two:
    the closure's own, without those cells' entries, and those entries, the
    gradients of the values the cells held at the call."""
    values = tuple(field(dclosure, name) for name in names)
    for name in names:
        dclosure = without_field(dclosure, name)
    return dclosure, values


def without_field(grad: Any, name: str) -> Any:
    """An object's or closure's structural gradient with ``name``'s entry
    removed (the field was overwritten: its old value has no gradient)."""
    if isinstance(grad, Tangent):
        return Tangent(**{**tangent.values(grad), name: None})
    if isinstance(grad, dict):
        return {k: v for k, v in grad.items() if k != name} or None
    return grad


def call_pullback(back: Any, dy: Any) -> Any:
    """``back(dy)``, or no gradients when ``dy`` is ``None``."""
    if dy is None:
        return NO_GRADS
    return back(dy)


def is_number_zero(dy: Any) -> bool:
    """Whether ``dy``, an array's gradient, is the number 0 that the
    adjoint starts it from on the paths that give it none (or a multiple
    of it): a rule that reshapes the gradient cannot take it, and it
    gives no gradients."""
    return isinstance(dy, (int, float, np.number)) and dy == 0


class _NoGrads(tuple):
    """An endless run of ``None``: the gradients of a call no gradient
    reached, whatever its arity."""

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self if i.stop is None else (None,) * len(range(i.start or 0, i.stop, i.step or 1))
        return None


NO_GRADS = _NoGrads()


def no_pullback(dy: Any) -> tuple:
    return NO_GRADS


def unbroadcast(dy: Any, x: Any) -> Any:
    """``dy`` summed down to the shape of ``x``, an operand that NumPy
    broadcast to the shape of ``dy``, and given ``x``'s floating dtype (a
    float32 input gets a float32 gradient). A Python number ``x`` gets a
    Python number. (``None``, no gradient, stays ``None``.)"""
    if type(x) is np.ndarray and type(dy) is np.ndarray and dy.shape == x.shape and dy.dtype is x.dtype:
        return dy  # the common case: no broadcast, no cast
    if type(dy) is float and type(x) in (float, np.float64) or type(dy) is type(x) is np.float64:
        return dy
    if type(dy) is np.float64 and type(x) is float:  # (a float's gradient from a NumPy function's value)
        return dy.item()
    if dy is None:
        return None
    if isinstance(x, np.generic) and type(dy) is np.ndarray and x.dtype.kind == "f":
        dy = dy.sum()  # a NumPy scalar broadcast to an array
        if dy.dtype.kind == "c":
            dy = dy.real  # (a real scalar's gradient: the real part, as for an array)
        return dy if dy.dtype is x.dtype else x.dtype.type(dy)
    if isinstance(x, (list, tuple)):  # a sequence NumPy read as an array
        if isinstance(dy, (list, tuple)):
            if not is_differentiable_value(x):  # ([None] * n, in a rule's pullback differentiated again)
                return None
            raise NoDerivativeRule(
                "no rule for the gradient of joining or repeating sequences with + or *",
                hint="build the sequence with a display instead, e.g. [*a, *b] or [x, y]",
            )
        g = unbroadcast(dy, np.asarray(x))
        return type(x)(g.tolist()) if np.ndim(g) else g.item()
    shape = getattr(x, "shape", None)
    if shape is None:  # a Python number
        if getattr(dy, "ndim", 0):
            dy = dy.sum()
        if isinstance(dy, (np.generic, np.ndarray)) and isinstance(x, (int, float, complex)):
            dy = dy.item()
        return real_if_real(dy, x)
    dshape = getattr(dy, "shape", ())
    if len(dshape) < len(shape):  # a zero started as 0 (times another operand's array): the output's shape
        out = np.broadcast_shapes(dshape, shape)
        dy = np.broadcast_to(dy, out) if arrays.is_foreign(dy) else np.full(out, dy)  # (np.full computes Dask's)
        dshape = dy.shape
    if dshape != shape:
        extra = len(dshape) - len(shape)
        # (np.sum for another library's array: Dask's has no ufunc's reduce)
        total = np.add.reduce if isinstance(dy, np.ndarray) else np.sum
        if extra:  # the leading axes, summed away (a bias's gradient: one reduction)
            dy = total(dy, axis=0 if extra == 1 else tuple(range(extra)))
            if not shape:
                dy = arrays.asarray(dy)  # (a 0-d array's gradient is one)
        ones = tuple(i for i, n in enumerate(shape) if n == 1 and dshape[i + extra] != 1)
        if ones:
            dy = total(dy, axis=ones, keepdims=True)
        if np.shape(dy) != shape:
            dy = np.broadcast_to(dy, shape)  # a cotangent of size 1 for a broadcast input
    if isinstance(x, np.generic) and isinstance(dy, np.ndarray):
        dy = dy[()]  # a NumPy scalar's gradient is a NumPy scalar
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind in "fc" and (not hasattr(dy, "dtype") or dy.dtype != dtype):  # (complex)
        dy = real_if_real(dy, x)
        dy = arrays.asarray(dy).astype(dtype, copy=False) if x.ndim or arrays.is_array(dy) else dtype.type(dy)
    return dy


def spread(dy: Any, a: Any) -> Any:
    """``dy`` broadcast to the shape of ``a``, with ``a``'s dtype, as a new
    array (the transpose of :func:`unbroadcast`: the gradient of ``a`` for
    a sum of it whose gradient is ``dy``, summed axes kept as 1):
    ``np.full_like`` for NumPy arrays; for another library's (Dask's
    ``full_like`` takes no array to fill with, NumPy's would gather a Dask
    one), a zero of ``a``'s library plus ``dy``, which stays in it."""
    if arrays.is_foreign(a) or arrays.is_foreign(dy):
        zero = np.zeros_like(a)
        return (zero + dy).astype(zero.dtype, copy=False)
    return np.full_like(a, dy)


def real_if_real(g: Any, x: Any) -> Any:
    """``g`` as the gradient of the number or array ``x``: its real part
    when ``x`` is real. (The complex convention: ``z = x + iy`` gets
    ``dL/dx + i dL/dy``, so a real ``x`` gets ``dL/dx`` alone.)"""
    return g.real if np.iscomplexobj(g) and not np.iscomplexobj(x) else g


def repeated(dy: Any, n: int) -> list:
    """``[dy] * n``: the gradients of ``n`` items that each add into a sum."""
    return [dy] * n


def sequence_gradient(n: int, key: Any, dy: Any, is_tuple: bool) -> Any:
    """The gradient of a tuple (``is_tuple``) or list of ``n`` items for the
    gradient ``dy`` of its item or slice ``key``."""
    grads = [None] * n
    grads[key] = dy
    return tuple(grads) if is_tuple else grads


def gather(g: Any, keys: tuple, values: tuple) -> Optional[tuple]:
    """The cotangents of the ``values`` that :func:`scatters` wrote into an
    array, for the array's cotangent ``g``: its parts at ``keys``, each
    summed to its value's shape."""
    if g is None:
        return None
    d = dense(g)
    return tuple(unbroadcast(picked(d, k), v) for k, v in zip(keys, values))


def user_gradient(x: Any, g: Any) -> Any:
    """The gradient ``g`` of an argument ``x`` as the user gets it: made
    dense, and shaped like ``x`` — the same namedtuple for a namedtuple
    (one read by index has a plain tuple), a dict with ``x``'s keys, a
    tangent with every field of ``x``, an array of zeros for an array a
    gradient could reach but this run's path did not (the number 0)."""
    if g is None or isinstance(x, (bool, int, np.integer)):
        return None  # (an integer is not differentiated: a field holding one, a count, gets none either)
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and g == 0:
        return np.zeros_like(x)
    if type(x) is float and type(g) is int:
        return float(g)  # (the exact 0 a gradient starts from where arrays are differentiated too)
    if isinstance(x, (tuple, list)) and isinstance(g, (tuple, list)) and len(x) == len(g):
        items = [user_gradient(a, b) for a, b in zip(x, g)]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    if isinstance(x, dict) and isinstance(g, dict):  # (keys the function removed from x keep theirs)
        return {k: user_gradient(x.get(k), g.get(k)) for k in [*x, *(k for k in g if k not in x)]}
    if isinstance(g, Tangent):
        if isinstance(x, types.MethodType):
            x = x.__self__  # a bound method's gradient is its object's
        names = tangent.fields(x)
        return Tangent(names, **{
            k: user_gradient(tangent.value(x, k) if k in names else None, v) for k, v in tangent.values(g).items()
        })
    return dense(g)


def checked_gradient(x: Any, g: Any) -> Any:
    """The gradient ``g`` of an argument ``x`` of a call whose arguments
    are all numbers, as the user gets it: ``g`` itself (such a call's
    gradients need none of :func:`user_gradient`'s conversions), unless it
    is a :class:`~.sparse.Refused` (an argument with no derivative,
    differentiated through a call dispatched at run time), whose error it
    raises. Every path that returns such gradients (``zpy.gradient``'s,
    ``zpy.grad``'s bound functions) goes through it."""
    if type(g) is Refused:
        raise g.error
    return g


def changing_zero(x: Any, made: Optional[dict] = None) -> Any:
    """The zero tangent of ``x``, an object that changes in place with
    differentiated values: :func:`zero_tangent`, but a ``Tangent`` of its
    fields' zeros for an object with fields, a float zero for an integer
    array, and one zero for each object ``x`` reaches, where it reaches
    it (``[[0.0]] * 2`` gets one zero list twice), so that a change made
    through one place is seen through the others. Another library's array
    is an array here: zeros of its library (``np.zeros_like``: lazy on
    Dask, on the device on CuPy), never a ``Tangent`` of its class's
    fields."""
    made = {} if made is None else made  # id of an object reached → its zero
    if id(x) in made:
        return made[id(x)]
    if isinstance(x, np.ndarray):
        z = made[id(x)] = np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else float)
    elif arrays.is_foreign(x):
        z = made[id(x)] = np.zeros_like(x, x.dtype if x.dtype.kind in "fc" else float)
    elif type(x) is list:  # (made known before its items, which may reach it again)
        z = made[id(x)] = []
        z += [changing_zero(v, made) for v in x]
    elif type(x) is dict:
        z = made[id(x)] = {}
        z.update((k, changing_zero(v, made)) for k, v in x.items())
    elif type(x) is collections.defaultdict:  # (its missing keys' tangents made as its items are)
        factory = x.default_factory
        z = made[id(x)] = collections.defaultdict(None if factory is None else lambda: changing_zero(factory()))
        z.update((k, changing_zero(v, made)) for k, v in x.items())
    elif type(x) is tuple:
        z = tuple(changing_zero(v, made) for v in x)
    elif type(x) is range:  # (its items' zeros, which a tangent iterator run in step with one over it gives)
        z = [0] * len(x)
    elif may_change(x):
        z = made[id(x)] = Tangent()
        tangent.values(z).update((k, changing_zero(getattr(x, k), made)) for k in tangent.fields(x) if hasattr(x, k))
    else:
        z = zero_tangent(x)
    return z


def may_change(x: Any) -> bool:
    """Whether ``x`` is an object that may change in place and hold
    differentiated values: a list, dict or array (another library's too:
    CuPy's and Dask's take item stores), or an object with fields (or a
    ``__dict__`` to add them to)."""
    if isinstance(x, (list, dict, np.ndarray)) or arrays.is_foreign(x):
        return True
    return not isinstance(x, (type, types.FunctionType, types.ModuleType, tuple, str, bytes, numbers.Number,
                              np.generic)) and x is not None and (hasattr(x, "__dict__") or bool(tangent.fields(x)))


def zero_operand(x: Any) -> Any:
    """The zero tangent of a rule's argument ``x``, which the rule computes
    with: :func:`zero_tangent`, but for an integer or boolean array
    (which carries no tangent, ``None``) a float zero of its shape
    (``np.where(c, dx, dy)`` with an integer ``y``), of its library for
    another library's array (CuPy mixes in no NumPy array)."""
    z = zero_tangent(x)
    if z is None and arrays.is_foreign(x):
        return np.zeros_like(x, float)
    return np.zeros(x.shape) if z is None and isinstance(x, np.ndarray) else z
