"""The public API: gradient, pullback, value_and_gradient, differentiable,
roundtrip, ir."""
from __future__ import annotations

import copy
import functools
import inspect
import numbers
import os
import re
import site
import sys
import sysconfig
from decimal import Decimal
from fractions import Fraction
import types
from typing import Any, Callable, Optional

import numpy as np

from .ad import pipeline
from .ad.analysis import NUMBER
from .ad.pipeline import GONE
from .backend.compile import CodeCache, compile_def, function_def, instantiate, source_of
from . import runtime
from .errors import BadTangent, RecursionTooDeep, UnsupportedSyntax, WrongArguments, ZygoteError
from .frontend.source import get_source
from .ir.core import IR
from .rules import nested as nested_rules, registry
from .rules.registry import adjoint, pushforward  # noqa: F401  (public: @zpy.adjoint, @zpy.pushforward)

_ROUNDTRIPS = CodeCache()


def _target(f: Callable, args: tuple) -> tuple[types.FunctionType, tuple]:
    """The plain function to differentiate and its arguments (a bound
    method's ``self`` first)."""
    if isinstance(f, Differentiable):
        f = f.__wrapped__
    if isinstance(f, types.MethodType):
        return _target(f.__func__, (f.__self__, *args))
    if isinstance(f, (staticmethod, classmethod)):
        return _target(f.__func__, args)
    call = getattr(type(f), "__call__", None)
    if not isinstance(f, (types.FunctionType, type)) and isinstance(call, types.FunctionType):
        return _target(call, (f, *args))  # a callable object (a class-based decorator's): what J runs
    if type(f) is functools.partial:
        return _target(_called, (f, *args))
    if not isinstance(f, types.FunctionType):
        src = get_source(f)  # raises SourceNotFound with advice
        return _target(src.function, args)
    return f, args


def _called(f: Callable, *args: Any) -> Any:
    """``f(*args)``: what is differentiated for a ``functools.partial``
    (``runtime.J`` calls its function with the arguments it binds)."""
    return f(*args)


def ir(f: Callable) -> IR:
    """The SSA IR of ``f`` (print it for the IRTools-style text)."""
    return pipeline.primal_ir(_target(f, ())[0])


def roundtrip(f: Callable) -> Callable:
    """``f`` recompiled through source → IR → source: the same results,
    exceptions and effects. The emitted source is in the result's
    ``__zpy_source__``; the compiled code is cached per code object."""
    if isinstance(f, (staticmethod, classmethod)):
        return type(f)(roundtrip(f.__func__))
    src = get_source(f)
    fn = src.function

    def build():
        fdef, constants = function_def(pipeline.primal_ir(fn), fn.__name__)
        code = compile_def(fdef, constants, fn.__code__.co_freevars, fn.__code__.co_filename)
        return code, constants, source_of(fdef)

    code, constants, source = _ROUNDTRIPS.get(fn.__code__, build)
    g = instantiate(code, constants, fn)
    g.__zpy_source__ = source
    if src.bound_self is not None and isinstance(f, types.MethodType):
        return types.MethodType(g, src.bound_self)
    return g


def _compiled(fn: types.FunctionType, args: tuple) -> pipeline.Compiled:
    active, numeric = pipeline.masks(fn, args, {})
    entry = pipeline.compiled(fn, active, numeric, False)
    if entry.changed_params:
        _check_unshared(fn, entry.signature, entry.changed_params, args)
    return entry


def _check_unshared(fn: types.FunctionType, sig: Any, changed: list[str], args: tuple) -> None:
    """Refuse a call that passes an argument ``fn`` changes in place as
    another argument too (``f(x, x)``, or a view of it): the gradient takes
    them for two objects, as the code reads them."""
    names = sig.posonly + sig.args
    for name in changed:
        if name not in names or names.index(name) >= len(args):
            continue
        i = names.index(name)
        a = args[i]
        held = {id(_base(x)) for x in _arrays_in(a)}  # (a dict's arrays, changed through p[k] -= v)
        for j, b in enumerate(args):
            if j != i and (b is a or any(id(_base(x)) in held for x in _arrays_in(b))):
                what = "the same object is" if b is a or isinstance(a, np.ndarray) else "an array it holds is"
                raise UnsupportedSyntax(
                    f"{fn.__qualname__} changes its argument {name!r} in place, and {what} passed as "
                    f"{names[j] if j < len(names) else 'another argument'!r} too, which the gradient takes for "
                    "another", function=fn.__qualname__, filename=fn.__code__.co_filename,
                    line=fn.__code__.co_firstlineno, hint="pass a copy as one of them (f(x, x.copy()))")


def _arrays_in(v: Any, depth: int = 3) -> list[np.ndarray]:
    """The arrays ``v`` is or holds, in lists, tuples, dicts and objects'
    fields (``depth`` levels down)."""
    if isinstance(v, np.ndarray):
        return [v]
    if depth == 0 or isinstance(v, (str, bytes, numbers.Number, type, types.FunctionType)):
        return []
    items = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else \
        getattr(v, "__dict__", {}).values()
    return [x for item in items for x in _arrays_in(item, depth - 1)]


def _base(x: np.ndarray) -> np.ndarray:
    """The array whose memory ``x`` views (``x`` itself when it owns it)."""
    while isinstance(x.base, np.ndarray):
        x = x.base
    return x


def pullback(f: Callable, *args: Any) -> tuple[Any, Callable]:
    """``(y, back)``: ``y = f(*args)`` and ``back(dy)``, the gradients of
    the positional arguments (``None`` where no gradient flows) for an
    output cotangent ``dy``. ``back`` may be called more than once. A
    function with a registered rule (``@zpy.adjoint``) uses it; one
    registered non-differentiable gives no gradients."""
    plain = f.__wrapped__ if isinstance(f, Differentiable) else f
    rule = registry.lookup(plain)
    if rule is not None:
        return rule(*args)
    if registry.is_nondifferentiable(plain):
        return plain(*args), lambda dy: (None,) * len(args)
    fn, full = _target(f, args)
    _check_arity(fn, full)
    try:
        entry = _compiled(fn, full)
        forward = runtime.nested(entry.forward_function(fn))
        y, back = forward(*full)
    except RecursionError as e:
        raise _too_deep(e, f) from None
    sig = entry.signature
    skip = len(full) - len(args)
    state = {"back": back}

    def back_user(dy):
        _check_cotangent(y, dy, fn)
        try:
            b = state.pop("back", None)
            if b is None:  # stacks were consumed by the first call: record again
                _, b = forward(*full)
            grads = pipeline.call_grads(sig, len(full), [], b(dy))
        except RecursionError as e:
            raise _too_deep(e, f) from None
        return _user_gradients(args, grads[skip:])

    return y, back_user


def jvp(f: Callable, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    """``(f(*primals), J @ tangents)``: the value and its directional
    derivative along ``tangents`` (one per primal, of its shape; ``None``
    for a primal held fixed), by forward mode: ``f``'s IR with every value
    followed by its tangent (see :mod:`zygote_py.ad.forward`). The
    tangents passed in are left as they are: changes made in place to a
    primal are mirrored on copies of its tangent."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals and {len(tangents)} tangents")
    tangents = copy.deepcopy(tuple(None if t is None else _given_tangent(x, t, f) for x, t in zip(primals, tangents)))
    plain = f.__wrapped__ if isinstance(f, Differentiable) else f
    _NEST[0] += 1
    try:
        if isinstance(plain, (types.FunctionType, types.MethodType)) and registry.lookup(plain) is None \
                and registry.lookup_pushforward(plain) is None and not registry.is_nondifferentiable(plain):
            fn, full = _target(plain, primals)
            _check_arity(fn, full)
            skip = len(full) - len(primals)
            return pipeline.call_jvp(fn, full, {}, (None,) * skip + tangents, {}, entry=True)
        return runtime.push(plain, primals, {}, tangents, {})
    except ZygoteError as e:
        raise _located(e, f) from None
    except RecursionError as e:
        raise _too_deep(e, f) from None
    finally:
        _NEST[0] -= 1


def _given_tangent(x: Any, t: Any, f: Callable) -> Any:
    """``t``, a tangent given to :func:`jvp` for the primal ``x``, checked
    to have its structure (the items of a tuple, list, namedtuple or dict
    compared one by one) and the shape of each number or array in it; an
    item without a tangent (``None``) becomes the zero tangent of its
    primal's item, which the code may compute with. The tangent of a list
    or dict is a plain one, whose methods are not a subclass's."""
    if isinstance(x, (tuple, list)) and isinstance(t, (tuple, list)) or isinstance(x, dict) and isinstance(t, dict):
        if len(t) != len(x) or isinstance(x, dict) and t.keys() != x.keys():
            raise BadTangent(f"jvp: a tangent of {len(t)} items for a {type(x).__name__} of {len(x)}",
                             function=getattr(f, "__qualname__", None))
        if isinstance(x, dict):
            return {k: _zero_or(x[k], t[k], f) for k in t}
        items = [_zero_or(v, d, f) for v, d in zip(x, t)]  # (a list subclass's: a plain list, without its methods)
        return type(t)(*items) if hasattr(t, "_fields") else tuple(items) if isinstance(t, tuple) else items
    if isinstance(x, (numbers.Number, np.ndarray, np.generic)) or isinstance(t, (numbers.Number, np.ndarray, np.generic)):
        try:
            same = np.shape(t) == np.shape(x)
        except ValueError:  # (a ragged sequence against an array)
            same = False
        if not same:
            raise BadTangent(f"jvp: a tangent {_shape_of(t)} for a primal {_shape_of(x)}",
                             function=getattr(f, "__qualname__", None))
    return t


def _zero_or(x: Any, t: Any, f: Callable) -> Any:
    """The tangent ``t`` of an item ``x`` of a structure given to
    :func:`jvp` (see :func:`_given_tangent`), a zero for ``None`` (one
    that changes with ``x``: an object's a ``Tangent`` of its fields')."""
    return runtime.changing_zero(x) if t is None else _given_tangent(x, t, f)


def _shape_of(v: Any) -> str:
    try:
        return f"of shape {np.shape(v)}"
    except ValueError:
        return f"of ragged shape (a {type(v).__name__} of {len(v)} items)"


def _located(e: ZygoteError, f: Callable) -> ZygoteError:
    """``e`` with the user's function, file and line when it has none: the
    innermost frame of ``f``'s compiled code in the traceback (emitted code
    runs with the user's line numbers)."""
    fn = _target(f, ())[0]
    if _OWN_FILES.match(fn.__code__.co_filename):
        return e  # (zygote_py's own function: the caller locates it in the user's)
    if e.function is not None and not _elsewhere(e.filename, fn):
        return e
    line = fn.__code__.co_firstlineno
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == fn.__code__.co_filename and code.co_name.startswith(fn.__name__):
            line = tb.tb_lineno
        tb = tb.tb_next
    message = e.message
    if e.function is not None and not _OWN_FILES.match(e.filename or ""):
        # (a library's function the user called: named after the user's line)
        message += f"\n(raised differentiating {e.function!r}, file {e.filename!r}, line {e.line})"
    return type(e)(message, function=fn.__qualname__, filename=fn.__code__.co_filename, line=line, hint=e.hint)


_OWN_FILES = re.compile(re.escape(os.path.dirname(os.path.abspath(__file__)) + os.sep))
"""zygote_py's own files (its gradient code differentiated again, its
helpers): an error located there is the user's, at the user's line."""


def _elsewhere(filename: Optional[str], fn: types.FunctionType) -> bool:
    """Whether an error located in ``filename`` is outside the user's code
    that ``fn`` is the entry of: in zygote_py itself, or in a library under
    site-packages or the standard library."""
    if filename is None or filename == fn.__code__.co_filename:
        return False
    return bool(_OWN_FILES.match(filename)) or any(
        filename.startswith(p) for p in _LIBRARY_PATHS if not fn.__code__.co_filename.startswith(p))


_LIBRARY_PATHS = tuple({p for p in (*site.getsitepackages(), site.getusersitepackages(),
                                    sysconfig.get_paths()["stdlib"]) if p})
"""Where installed libraries and the standard library live."""


def _too_deep(e: RecursionError, f: Callable) -> ZygoteError:
    """A :class:`RecursionTooDeep` at the innermost line of ``f`` in the
    traceback of ``e``, raised where a differentiated recursion reached
    Python's limit (the compiler's frames are no use to the user)."""
    deep = RecursionTooDeep(
        f"the differentiated function recursed past Python's recursion limit ({sys.getrecursionlimit()})",
        hint="a differentiated call uses a few Python frames where the plain call uses one: raise the limit "
        "with sys.setrecursionlimit, or write the recursion as a loop",
    )
    return _located(deep.with_traceback(e.__traceback__), f)


def _check_arity(fn: types.FunctionType, args: tuple) -> None:
    """Raise :class:`WrongArguments` unless ``fn`` takes ``len(args)``
    positional arguments (the emitted code's own TypeError would name the
    emitted function)."""
    code = fn.__code__
    most = code.co_argcount
    least = most - len(fn.__defaults__ or ())
    if least <= len(args) and (len(args) <= most or code.co_flags & inspect.CO_VARARGS):
        return
    takes = f"{least} to {most}" if least != most else f"{most}"
    raise WrongArguments(
        f"{fn.__name__}() takes {takes} positional argument{'s' if most != 1 else ''} but {len(args)} were given",
        function=fn.__qualname__, filename=code.co_filename, line=code.co_firstlineno,
    )


def _check_cotangent(y: Any, dy: Any, fn: types.FunctionType) -> None:
    """Raise :class:`BadTangent` unless ``dy`` can be the cotangent of a
    number or array output ``y``: a number, or an array of ``y``'s shape (a
    cotangent of another shape would give gradients of another shape, in
    silence). Structured outputs are checked by their rules."""
    if not isinstance(y, (numbers.Number, np.ndarray, np.generic)):
        return
    if isinstance(dy, (numbers.Number, np.generic)) or isinstance(dy, np.ndarray) and dy.shape in ((), np.shape(y)):
        return
    what = f"an array of shape {dy.shape}" if isinstance(dy, np.ndarray) else f"a {type(dy).__name__}"
    raise BadTangent(
        f"back(dy) needs a cotangent shaped like the output, an array of shape {np.shape(y)}, not {what}"
        if isinstance(y, np.ndarray) else f"back(dy) needs a number as the cotangent of a number output, not {what}",
        function=fn.__qualname__, filename=fn.__code__.co_filename, line=fn.__code__.co_firstlineno,
    )


_SCALAR_TYPES = (float, int, bool, complex, str, bytes, type(None), Fraction, Decimal, np.float64, np.float32)
"""Argument types whose kind (differentiable or not, a number or not) the
type alone decides: calls with only these and arrays (whose dtype kind and
dimension are checked too) take the fast path."""
_FAST: dict[tuple, tuple] = {}
_FAST_GRADIENTS: dict[tuple, tuple] = {}  # (zpy.gradient's: functions that may not compute the value)
_FAST_LIMIT = 4096


_GENERATION = registry.current_generation
"""The registry's generation, read without a call on the fast path."""
_NEST = runtime.NEST
_ndarray = np.ndarray


def _kind(a: Any) -> Any:
    """What the compiled code may depend on in an argument: its type; for
    an array, its dtype and number of dimensions."""
    return (a.dtype, a.ndim) if type(a) is _ndarray else type(a)


def _fast(f: Callable, args: tuple, cache: dict) -> Optional[tuple]:
    """The cache entry of the compiled gradient function for ``f`` at
    arguments of these kinds (the key ``(f, *map(_kind, args))``), when one
    is cached and still valid: no rule registered or removed since, and
    every global it inlined still bound to the same object."""
    n = len(args)  # (the key spelled out for one or two arguments: half the time of map)
    if n == 1:
        a = args[0]
        hit = cache.get((f, (a.dtype, a.ndim) if type(a) is _ndarray else type(a)))
    elif n == 2:
        a, b = args
        hit = cache.get((f, (a.dtype, a.ndim) if type(a) is _ndarray else type(a),
                         (b.dtype, b.ndim) if type(b) is _ndarray else type(b)))
    else:
        hit = cache.get((f, *map(_kind, args)))
    if hit is None or hit[3] != _GENERATION[0]:
        return None
    globs = hit[1]
    for k, v in hit[2]:
        if globs.get(k, GONE) is not v:
            return None
    return hit


def _dense(args: tuple, grads: tuple) -> tuple:
    """The gradients of a call with array arguments as the user gets them:
    a lazy one (sparse, or the number 0 for an array) made dense."""
    for g in grads:
        if type(g) is not np.ndarray and g is not None:
            return _user_gradients(args, grads)
    return grads


def value_and_gradient(f: Callable, *args: Any) -> tuple[Any, tuple]:
    """``(f(*args), gradient(f, *args))`` from one run of the fused gradient
    function (the forward pass followed by the pullback's body)."""
    hit = _fast(f, args, _FAST)
    _NEST[0] += 1
    try:
        if hit is not None:
            y, grads = hit[0](*args)
            return y, grads if hit[4] is None else _dense(args, grads)
        return _value_and_gradient(f, args, True)
    except ZygoteError as e:
        raise _located(e, f) from None
    except RecursionError as e:
        raise _too_deep(e, f) from None
    finally:
        _NEST[0] -= 1


def gradient(f: Callable, *args: Any) -> tuple:
    """The gradient of a real-scalar-valued ``f`` at ``args``: one entry per
    positional argument, ``None`` where no gradient flows."""
    hit = _fast(f, args, _FAST_GRADIENTS)
    _NEST[0] += 1
    try:
        if hit is not None:
            grads = hit[0](*args)[1]
            return grads if hit[4] is None else _dense(args, grads)
        return _value_and_gradient(f, args, False)[1]
    except ZygoteError as e:
        raise _located(e, f) from None
    except RecursionError as e:
        raise _too_deep(e, f) from None
    finally:
        _NEST[0] -= 1


def _value_and_gradient(f: Callable, args: tuple, value: bool) -> tuple[Any, tuple]:
    """The general path: compile (or find) the gradient function, and
    remember it for calls with arguments of the same types when those types
    alone decide what is differentiated. ``value=False``: the value may be
    ``None``, not computed."""
    plain = f.__wrapped__ if isinstance(f, Differentiable) else f
    if registry.lookup(plain) is not None or registry.is_nondifferentiable(plain):
        y, back = pullback(f, *args)
        return y, back(runtime.seed(y))
    fn, full = _target(f, args)
    _check_arity(fn, full)
    entry = _compiled(fn, full)
    g = entry.gradient_function(fn, value)
    y, grads = g(*full)
    sig = entry.signature
    simple = sig.vararg is None and sig.kwarg is None and not sig.kwonly
    checks = entry.global_checks(fn)
    if (
        simple and checks is not None and full is args and len(args) == len(sig.names()) and not entry.changed_params
        and all(isinstance(a, _SCALAR_TYPES) or type(a) is np.ndarray for a in args)
    ):
        cache = _FAST if value else _FAST_GRADIENTS
        if len(cache) >= _FAST_LIMIT:
            cache.clear()
        arrays = any(type(a) is np.ndarray for a in args) or None
        cache[(f, *map(_kind, args))] = (g, fn.__globals__, checks, entry.generation, arrays)
        return y, (grads if arrays is None else _user_gradients(args, grads))
    skip = len(full) - len(args)
    return y, _user_gradients(args, pipeline.call_grads(sig, len(full), [], grads)[skip:])


def _user_gradients(args: tuple, grads: list) -> tuple:
    """The gradients as the user gets them (see
    :func:`runtime.user_gradient`): dense, shaped like the arguments."""
    return tuple(map(runtime.user_gradient, args, grads))


class Differentiable:
    """What ``@differentiable`` returns: the function, unchanged when
    called, with ``.gradient``, ``.pullback``, ``.jvp``, ``.ir``,
    ``.adjoint_ir``, ``.source`` and ``.jvp_source``."""

    def __init__(self, f: Callable):
        functools.update_wrapper(self, f)
        self._last = None
        self._last_jvp: Optional[tuple] = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __get__(self, obj, owner=None):
        return self if obj is None else types.MethodType(self, obj)

    def gradient(self, *args: Any) -> tuple:
        self._last = args
        return gradient(self.__wrapped__, *args)

    def pullback(self, *args: Any) -> tuple[Any, Callable]:
        self._last = args
        return pullback(self.__wrapped__, *args)

    def jvp(self, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
        self._last_jvp = (tuple(primals), tuple(tangents))
        return jvp(self.__wrapped__, primals, tangents)

    @property
    def jvp_source(self) -> str:
        """The emitted pushforward ``f_jvp(*args, *tangents) -> (y, dy)``,
        for the primals and tangents of the last ``.jvp`` call."""
        if self._last_jvp is None:
            raise ValueError("jvp_source: call .jvp(primals, tangents) first")
        fn, full = _target(self.__wrapped__, self._last_jvp[0])
        skip = len(full) - len(self._last_jvp[0])
        return pipeline.jvp_entry(fn, full, {}, (None,) * skip + self._last_jvp[1], {})[0].source

    @property
    def ir(self) -> IR:
        return ir(self.__wrapped__)

    def _compiled(self) -> pipeline.Compiled:
        fn = self.__wrapped__
        if self._last is not None:
            return _compiled(fn, self._last)
        n = len(pipeline.primal_ir(fn).signature.names())
        return pipeline.compiled(fn, (True,) * n, (NUMBER,) * n, False)

    @property
    def adjoint_ir(self) -> str:
        """The forward IR (primal with its records) and the pullback IR, for
        the arguments of the last ``.gradient``/``.pullback`` call (all
        parameters differentiated before any)."""
        c = self._compiled()
        return f"# forward\n{c.forward_ir}\n# pullback\n{c.pullback_ir}"

    @property
    def source(self) -> str:
        """The emitted forward function and its pullback, as Python."""
        return self._compiled().source


def differentiable(f: Callable) -> Differentiable:
    """Decorator: ``f`` keeps working as before and gains ``.gradient``,
    ``.pullback``, ``.jvp``, ``.ir``, ``.adjoint_ir``, ``.source`` and
    ``.jvp_source``."""
    return Differentiable(f)


with registry.builtin_layer():  # zpy.gradient inside a differentiated function (see rules/nested.py)
    registry.adjoint(gradient)(nested_rules.gradient)
    registry.adjoint(value_and_gradient)(nested_rules.value_and_gradient)
    registry.pushforward(gradient)(nested_rules.gradient_push)
    registry.pushforward(value_and_gradient)(nested_rules.value_and_gradient_push)
    registry.adjoint(jvp)(nested_rules.forward_mode)
    registry.adjoint(pullback)(nested_rules.pullback)
