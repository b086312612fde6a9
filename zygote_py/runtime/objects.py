"""Objects and their attributes: an attribute's gradient in its object's
(:func:`attribute_gradient`), properties and ``cached_property``, setters,
constructors that only store their arguments (namedtuples, plain
dataclasses), snapshots of objects changed in place.

May import: NumPy, :mod:`zygote_py.tangent`, the runtime's lower modules.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import types
import weakref
from typing import Any, Callable, Optional
import numbers
import numpy as np

from .. import tangent
from ..errors import NoDerivativeRule
from ..tangent import Tangent
from . import arrays
from .gradients import field
from .operators import python_method


def check_array_attribute(obj: Any, name: str, value: Any) -> None:
    """Refuse ``obj.name`` (``value``) of another library's array when it
    is none of ``np.ndarray``'s methods, linear attributes or metadata and
    may carry a derivative (an array, a number, a method): that array's own
    fields, properties and methods are its library's Python code, which
    zygote_py does not differentiate (the array gets NumPy's rules), and
    would otherwise take for constants (a zero derivative in silence); so
    is ``data`` (pydata ``sparse``'s nonzero values, a buffer in NumPy).
    Its metadata (Dask's ``chunks``, a name) passes."""
    if not arrays.is_foreign(obj) or name in LINEAR_ATTRIBUTES or name in METADATA_ATTRIBUTES \
            or callable(getattr(np.ndarray, name, None)):
        return
    if arrays.is_array(value) or isinstance(value, (numbers.Number, np.generic, types.MethodType)) \
            and not isinstance(value, (bool, int, np.bool_, np.integer)):
        raise array_code(type(obj), name)


def array_code(cls: type, name: str) -> NoDerivativeRule:
    """The refusal of ``cls.name``, Python code of another library's array
    class (see :func:`check_array_attribute`)."""
    return NoDerivativeRule(
        f"no rule for {name!r} of a {cls.__module__.split('.')[0]}.{cls.__name__}, an array of another library: "
        "zygote_py gives such arrays NumPy's rules, and does not differentiate their class's own Python code",
        hint="use NumPy's functions and ndarray's methods and attributes on it, or register a rule for the "
        f"function that reads {name!r} (@zpy.adjoint, @zpy.pushforward)")


def setter(obj: Any, name: str, value: Any) -> Optional[tuple[Callable, tuple]]:
    """The Python function that ``obj.name = value`` calls, and its
    arguments: the class's own ``__setattr__``, or a property's setter;
    ``None`` for a plain attribute (a ``__slots__`` one too). A descriptor
    of another kind whose ``__set__`` is Python code is refused: what it
    stores where is not known."""
    if isinstance(obj, type):
        return None
    custom = python_method(type(obj), "__setattr__")
    if custom is not None:
        return custom, (obj, name, value)
    found = class_attribute(type(obj), name)
    if isinstance(found, property):
        if not isinstance(found.fset, types.FunctionType):
            raise NoDerivativeRule(f"assigning {type(obj).__name__}.{name}, a property whose setter is not Python "
                                   "code", hint="assign the attribute it stores instead")
        return found.fset, (obj, value)
    if isinstance(getattr(type(found), "__set__", None), types.FunctionType):
        raise NoDerivativeRule(
            f"assigning {type(obj).__name__}.{name} through a descriptor ({type(found).__name__}.__set__)",
            hint="assign the attribute it stores instead, or make it a property",
        )
    return None


def construct_vjp(cls: type, init_vjp: Callable) -> Callable:
    """The pullback of ``cls(*args, **kwargs)`` (see
    ``ad.pipeline.construct``) as a function of ``(dout, *args,
    **kwargs)`` whose source zygote_py reads, from ``init_vjp``, the
    emitted vjp of ``cls.__init__`` returning the object it fills in:
    differentiated again for the derivative of that pullback (see
    ``ad.pipeline.vjp_plan``)."""
    def vjp(dout, *args, **kwargs):
        return init_vjp((None, dout), cls.__new__(cls), *args, **kwargs)
    return vjp


def python_init(cls: type) -> bool:
    """Whether calling ``cls`` makes a plain object and runs an ``__init__``
    written in Python (which the compiler can read)."""
    return cls.__new__ is object.__new__ and isinstance(cls.__init__, types.FunctionType) and not generated(cls.__init__)


def owner_of(cls: type, name: str) -> type:
    """The class in ``cls``'s MRO that defines ``name``."""
    return next(c for c in cls.__mro__ if name in c.__dict__)


def generated(fn: Any) -> bool:
    """A function that ``dataclasses`` or ``namedtuple`` wrote (from a
    string), not the user."""
    return isinstance(fn, types.FunctionType) and fn.__code__.co_filename == "<string>"


def construct_fields(cls: type, names: tuple[str, ...], args: tuple, kwargs: dict) -> tuple[Any, Callable]:
    """``cls(*args, **kwargs)`` for a :func:`field_constructor` class, and
    its pullback in ``J``'s convention: each argument gets the gradient of
    the field it was stored in."""
    named = [*names[:len(args)], *kwargs]

    def pullback(dy):
        if isinstance(dy, tuple):  # a namedtuple's gradient
            dy = dict(zip(cls._fields, dy))
        return (None, *(field(dy, n) for n in named))
    return cls(*args, **kwargs), pullback


def number_subclass(f: Any, args: tuple, kwargs: dict) -> bool:
    """Whether ``f(*args, **kwargs)`` makes an instance of a subclass of
    ``float`` or ``complex`` from one number, as the base class does (the
    subclass's ``__new__`` and ``__init__`` are the base's): the number,
    with its derivative."""
    return isinstance(f, type) and issubclass(f, (float, complex)) and f.__new__ in (float.__new__, complex.__new__) \
        and f.__init__ is object.__init__ and len(args) == 1 and not kwargs and isinstance(args[0], numbers.Number)


def builtin_method(f: Any) -> Any:
    """The method of ``ndarray``, ``dict``, ``list``, ``complex``,
    ``float`` or ``str`` that ``f`` is bound to its object, another
    method written in C (a subclass's inherited one is its base's), or for a NumPy
    scalar's, the NumPy function called the same way (``m.clip(0, 1)`` is
    ``np.clip(m, 0, 1)``), whose rule :func:`J` applies; ``None`` for
    anything else. Another library's array's method (a Dask array's
    ``x.sum``, in Python; a CuPy array's, in C) is ``np.ndarray``'s of
    the same name, as their methods follow NumPy's."""
    if isinstance(f, (types.MethodType, types.BuiltinMethodType)) and arrays.is_foreign(f.__self__):
        return getattr(np.ndarray, f.__name__, None)
    if not isinstance(f, types.BuiltinMethodType):
        return None
    if isinstance(f.__self__, np.generic):
        if f.__name__ in ("item", "tolist", "astype"):
            return getattr(np.generic, f.__name__)
        return getattr(np, f.__name__) if f.__name__ in _SCALAR_METHODS else None
    method = getattr(type(f.__self__), f.__name__, None)
    if type(f.__self__) in (np.ndarray, dict, list, complex, float, str):
        return method
    if not isinstance(method, types.MethodDescriptorType):
        return None
    # a method written in C of another type, whose rule if any: one a dict's or list's subclass inherits (a
    # defaultdict's values) is the dict's or list's; one of its own (an OrderedDict's values and
    # move_to_end, which keep its order) is its own
    return method


_SCALAR_METHODS = {"conjugate", "conj", "clip", "sum", "mean", "prod", "max", "min", "round", "std", "var", "all", "any"}
"""A NumPy scalar's methods that take their arguments as the NumPy functions
of the same names do after the array."""


def getter_of(found: Any) -> Optional[Callable]:
    """The function that computes an attribute which a class defines as
    ``found``: a property's getter, a ``functools.cached_property``'s
    function; ``None`` for anything else."""
    if isinstance(found, property):
        return found.fget
    return found.func if isinstance(found, functools.cached_property) else None


def cached_value(obj: Any, name: str, computed: Any) -> Any:
    """``obj.name``, a ``functools.cached_property``, as Python reads it
    (computed and cached at the first read), given the value ``computed``
    by its function now, whose derivative is the attribute's: the value
    cached is taken to be its function of the object's fields, not a field
    of its own. Refused when it is not (a field changed since it was
    cached), as that derivative would be wrong. Read on a snapshot of an
    object (taken before a change in place), it is read, and cached, on
    the object, as Python does."""
    y = getattr(_SNAPSHOT_OF.get(obj, obj), name)
    if y is not computed and not _same_value(y, computed):
        raise NoDerivativeRule(
            f"the functools.cached_property {type(obj).__name__}.{name} holds a value cached before a field "
            "it is computed from changed: its derivative is unknown",
            hint=f"delete the cached value (del obj.{name}) after changing the object, or read the fields "
            "it is computed from",
        )
    return y


_SNAPSHOT_OF: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
"""The object each snapshot (:func:`object_snapshot`) was taken of."""


def object_snapshot(obj: Any) -> Any:
    """``copy.copy(obj)``, the snapshot of an object that code changes in
    place after a differentiated read (see ``mutation.snapshot``), which
    remembers ``obj`` for :func:`cached_value`."""
    snap = copy.copy(obj)
    with contextlib.suppress(TypeError):  # (no weak reference to it: it has no __dict__ to cache in)
        _SNAPSHOT_OF[snap] = obj
    return snap


def _same_value(a: Any, b: Any) -> bool:
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:  # (objects that are no numbers)
        try:
            return bool(a == b)
        except Exception:
            return False


def to_default(dy: Any) -> tuple:
    return (None, dy)


MISSING = object()
"""No value: an attribute no class defines, an argument not given."""


@functools.lru_cache(maxsize=4096)
def plain_attributes(cls: type) -> Optional[frozenset]:
    """For a class whose objects' attributes are read the plain way (no
    ``__getattr__``, no ``__getattribute__`` of its own; not a function, a
    class or a module): the names of its descriptors, whose reads are not
    plain field reads (a property comes before the object's ``__dict__``;
    a ``functools.cached_property`` keeps its value there, but is
    differentiated through its function). ``None`` for any other class,
    and for another library's array class, whose fields are its library's
    (see :func:`check_array_attribute`)."""
    if issubclass(cls, (types.FunctionType, type, types.ModuleType)) or arrays.foreign_type(cls) or \
            cls.__getattribute__ is not object.__getattribute__ or getattr(cls, "__getattr__", None) is not None:
        return None
    return frozenset(name for c in cls.__mro__ for name, v in vars(c).items()
                     if hasattr(type(v), "__get__"))


def class_attribute(cls: type, name: str) -> Any:
    """What ``cls`` or a base class defines under ``name`` (a method, a
    property, a constant), as stored; ``MISSING`` if none does."""
    for c in cls.__mro__:
        if name in c.__dict__:
            return c.__dict__[name]
    return MISSING


def attribute_gradient(obj: Any, name: str, dy: Any) -> Any:
    """The gradient of ``obj`` for a gradient ``dy`` of ``obj.name``. An
    array's ``T``, ``mT``, ``real`` and ``imag`` are linear in it; a bound
    method's gradient is its object's (``x.sum()``, ``p.norm()``: see
    ``J``). A field of a namedtuple gives the same namedtuple; a field of
    another object (a dataclass's, one in ``__dict__`` or ``__slots__``) a
    :class:`Tangent`. A class's constant is no part of the object: no
    gradient. Anything else (an attribute computed by a descriptor or
    ``__getattr__``) is refused. ``obj.__dict__``'s gradient (a dict's,
    by name) is a :class:`Tangent` of the fields it holds."""
    if arrays.is_array(obj):
        if name == "T":
            return dy.T
        if name == "mT":
            return np.swapaxes(dy, -1, -2)
        if name == "real":
            return dy
        if name == "imag":
            return 1j * arrays.asarray(dy)
        if callable(getattr(obj, name)):
            return dy
        if name in METADATA_ATTRIBUTES:
            return None
        raise NoDerivativeRule(f"no rule for the gradient of an array's {name!r} attribute")
    if isinstance(obj, np.generic) and name in METADATA_ATTRIBUTES:  # (a NumPy scalar's, as an array's)
        return None
    if isinstance(obj, (int, float, complex, np.number)) and name in ("real", "imag"):
        if not np.iscomplexobj(obj):
            return dy if name == "real" else None  # a real number's imag is the constant 0
        return dy + 0j if name == "real" else 1j * dy  # z = x + iy gets dL/dx + i dL/dy
    if isinstance(obj, tuple) and name in getattr(obj, "_fields", ()):
        return type(obj)(*(dy if f == name else None for f in obj._fields))
    if isinstance(obj, super) and getattr(getattr(obj, name), "__self__", None) is obj.__self__:
        return dy  # super().method: a method bound to the object itself
    names = [] if isinstance(obj, super) else tangent.fields(obj)
    if name in names:
        return Tangent(names, **{name: dy})
    if name == "__dict__" and type(getattr(obj, "__dict__", None)) is dict:  # the fields by name: a dict's gradient
        return None if dy is None else Tangent(names, **{k: v for k, v in dy.items() if k in names})
    if getattr(getattr(obj, name), "__self__", None) is obj:
        return dy
    found = class_attribute(type(obj), name)
    constant = not hasattr(type(found), "__get__") or isinstance(found, (staticmethod, classmethod))
    if found is not MISSING and constant:
        return None
    raise NoDerivativeRule(
        f"no rule for the gradient of the attribute {name!r} of a {type(obj).__name__}, which is no field of it "
        "(a descriptor or __getattr__ computes it)",
        hint="read the fields it is computed from instead, make it a @property, or register a rule for a "
        "function that reads it with @zpy.adjoint",
    )


METADATA_ATTRIBUTES = frozenset(("shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "flags"))
"""An array's attributes that describe it rather than hold its values:
constants to differentiation (piecewise constant in the array)."""


LINEAR_ATTRIBUTES = {"T", "mT", "real", "imag", "flat"}
"""An array's attributes that are linear in it: their tangent is the same
attribute of its tangent (a view of it, as the attribute is of the array)."""
