"""The public API: gradient, pullback, value_and_gradient, differentiable,
roundtrip, ir.

May import: the compiler, the back end, the front end, the rules, the
runtime and below. The compiler, the back end and the front end are read
through :func:`LazyModule`, which imports them at their first use (the
first gradient), so that ``import zygote_py`` loads none of them (see
``tests/test_layers.py``).
"""
from __future__ import annotations

import copy
import functools
import importlib
import inspect
import numbers
import sys
import types
from typing import Any, Callable, Optional

import numpy as np

from typing import TYPE_CHECKING

from . import registry, runtime
from .errors import BadTangent, RecursionTooDeep, UnsupportedSyntax, WrongArguments, ZygoteError, in_zygote_py
from .registry import adjoint, pushforward  # noqa: F401  (public: @zpy.adjoint, @zpy.pushforward)

if TYPE_CHECKING:
    from .ir.core import IR


class LazyModule:
    """The module ``name``, imported at the first use of one of its
    attributes, when it takes this stand-in's place as ``alias`` in
    ``namespace`` (a module's globals): the compiler and what it rests on,
    which ``import zygote_py`` does not load (see
    :mod:`zygote_py.runtime.seam` for the way the runtime reaches it).
    Thread-safe: the import system's lock makes every thread that gets
    there first wait for the whole module."""

    __slots__ = ("_name", "_namespace", "_alias")

    def __init__(self, name: str, namespace: dict, alias: str):
        self._name, self._namespace, self._alias = name, namespace, alias

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module
        return getattr(module, attr)


pipeline = LazyModule("zygote_py.ad.pipeline", globals(), "pipeline")
analysis = LazyModule("zygote_py.ad.analysis", globals(), "analysis")
compilation = LazyModule("zygote_py.backend.compile", globals(), "compilation")
sources = LazyModule("zygote_py.frontend.source", globals(), "sources")
diskcache = LazyModule("zygote_py.ad.diskcache", globals(), "diskcache")
runtime.seam.set_loader(lambda: pipeline.compiled)  # (reading any of its attributes imports the compiler)
registry.when_imported("zygote_py.api", "zygote_py.own_rules")  # (zpy.gradient inside differentiated code)


def cache_dir(path: Any) -> Any:
    """Keep compiled gradients in the directory ``path`` (created ``0700``
    if needed, ``~`` expanded), shared with other processes that use it;
    ``None`` turns the cache off. Returns the directory (a ``Path``).
    Raises :class:`CacheError` when the directory or its key file is not
    the user's alone (see :mod:`zygote_py.ad.diskcache`)."""
    return diskcache.cache_dir(path)


@functools.cache
def _roundtrips() -> Any:
    """The cache of :func:`roundtrip`'s compilations (made at its first use)."""
    return compilation.CodeCache()


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
        src = sources.get_source(f)  # raises SourceNotFound with advice
        return _target(src.function, args)
    return f, args


def _called(f: Callable, *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)``: what is differentiated for a
    ``functools.partial`` (``runtime.J`` calls its function with the
    arguments it binds, which are constants: the partial is not
    differentiated)."""
    return f(*args, **kwargs)


def ir(f: Callable) -> IR:
    """The SSA IR of ``f`` (print it for the IRTools-style text)."""
    return pipeline.primal_ir(_target(f, ())[0])


def roundtrip(f: Callable) -> Callable:
    """``f`` recompiled through source → IR → source: the same results,
    exceptions and effects. The emitted source is in the result's
    ``__zpy_source__``; the compiled code is cached per code object."""
    if isinstance(f, (staticmethod, classmethod)):
        return type(f)(roundtrip(f.__func__))
    src = sources.get_source(f)
    fn = src.function

    def build():
        fdef, constants = compilation.function_def(pipeline.primal_ir(fn), fn.__name__)
        code = compilation.compile_def(fdef, constants, fn.__code__.co_freevars, fn.__code__.co_filename)
        return code, constants, compilation.source_of(fdef)

    code, constants, text = _roundtrips().get(fn.__code__, build)
    g = compilation.instantiate(code, constants, fn)
    g.__zpy_source__ = text
    if src.bound_self is not None and isinstance(f, types.MethodType):
        return types.MethodType(g, src.bound_self)
    return g


def _compiled(fn: types.FunctionType, args: tuple, kwargs: Optional[dict] = None,
              positions: Optional[Any] = None) -> pipeline.Compiled:
    """The compiled gradient of ``fn`` for the call ``fn(*args,
    **kwargs)``. Keyword arguments are constants, and so are the positional
    arguments not in ``positions`` (every one when it is ``None``): their
    parameters are not differentiated, so code that is fine on constants
    (``x.shape`` of data, an index array, a string) is compiled as such."""
    kwargs = kwargs or {}
    active, numeric = pipeline.masks(fn, args, kwargs)
    if kwargs or positions is not None:
        active = runtime.restricted(fn, active, range(len(args)) if positions is None else positions)
    entry = pipeline.compiled(fn, active, numeric, False, exact=True)
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


def pullback(f: Callable, /, *args: Any, **kwargs: Any) -> tuple[Any, Callable]:
    """``(y, back)``: ``y = f(*args, **kwargs)`` and ``back(dy)``, the
    gradients of the positional arguments (``None`` where no gradient
    flows) for an output cotangent ``dy``; keyword arguments are constants.
    ``back`` may be called more than once. A function with a registered
    rule (``@zpy.adjoint``) uses it; one registered non-differentiable
    gives no gradients."""
    return _pullback(f, args, kwargs, None)


def _pullback(f: Callable, args: tuple, kwargs: dict, wanted: Optional[tuple]) -> tuple[Any, Callable]:
    """:func:`pullback`, differentiating only the positional arguments at
    ``wanted`` (every one for ``None``): the others get ``None``."""
    plain = f.__wrapped__ if isinstance(f, Differentiable) else f
    if registry.lookup(plain) is not None or registry.is_nondifferentiable(plain):
        y, back_rule = runtime.J(plain, *args, **kwargs)  # (J applies the rule with keyword arguments too)

        def back_by_rule(dy):
            grads = back_rule(dy)  # (indexed, not sliced: it may be the endless run of None)
            return _only(wanted, tuple(grads[1 + i] for i in range(len(args))))
        return y, back_by_rule
    fn, full = _target(f, args)
    _check_arity(fn, full, kwargs)
    skip = len(full) - len(args)
    try:
        entry = _compiled(fn, full, kwargs, _positions(skip, len(args), wanted))
        forward = runtime.nested(entry.forward_function(fn))
        names = entry.signature.posonly + entry.signature.args
        changed = tuple(i for i, name in enumerate(names[:len(full)]) if name in entry.changed_params)
        given = runtime.copied(full, changed) if changed else full  # (as they were, for a second run)
        y, back = forward(*full, **kwargs)
    except RecursionError as e:
        raise _too_deep(e, f) from None
    sig = entry.signature
    state = {"back": back}

    def back_user(dy):
        _check_cotangent(y, dy, fn)
        try:
            b = state.pop("back", None)
            if b is None:  # stacks were consumed by the first call: record again, on the arguments as given
                _, b = forward(*(runtime.copied(given, changed) if changed else full), **kwargs)
            grads = runtime.call_grads(sig, len(full), list(kwargs), b(dy))
        except RecursionError as e:
            raise _too_deep(e, f) from None
        return _user_gradients(args, grads[skip:len(full)])

    return y, back_user


def _positions(skip: int, n: int, wanted: Optional[tuple]) -> range | list[int]:
    """The positions in the full call (a bound method's ``self``, a
    partial's function first: ``skip`` of them, constants) of the ``n``
    arguments given, or of those at ``wanted``."""
    return range(skip, skip + n) if wanted is None else [skip + i for i in wanted]


def _only(wanted: Optional[tuple], grads: tuple) -> tuple:
    """``grads`` with ``None`` for the arguments not at ``wanted``."""
    return grads if wanted is None else tuple(g if i in wanted else None for i, g in enumerate(grads))


def jvp(f: Callable, primals: tuple, tangents: tuple, **kwargs: Any) -> tuple[Any, Any]:
    """``(f(*primals, **kwargs), J @ tangents)``: the value and its
    directional derivative along ``tangents`` (one per primal, of its
    shape; ``None`` for a primal held fixed), by forward mode: ``f``'s IR
    with every value followed by its tangent (see
    :mod:`zygote_py.ad.forward`). Keyword arguments are constants. The
    tangents passed in are left as they are: changes made in place to a
    primal are mirrored on copies of its tangent."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        bad = primals if not isinstance(primals, (tuple, list)) else tangents
        raise WrongArguments(
            f"jvp: primals must be a tuple (or list) of the arguments, and tangents one of their tangents, "
            f"not a {type(bad).__name__}", function=getattr(f, "__qualname__", None),
            hint="write zpy.jvp(f, (x,), (v,)) for one argument")
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals and {len(tangents)} tangents")
    tangents = copy.deepcopy(tuple(None if t is None else _given_tangent(x, t, f) for x, t in zip(primals, tangents)))
    plain = f.__wrapped__ if isinstance(f, Differentiable) else f
    _NEST[0] += 1
    try:
        if isinstance(plain, (types.FunctionType, types.MethodType)) \
                and registry.lookup(plain) is None and registry.lookup_pushforward(plain) is None \
                and not registry.is_nondifferentiable(plain):
            fn, full = _target(plain, primals)
            _check_arity(fn, full, kwargs)
            skip = len(full) - len(primals)  # (a bound method's object, a partial: constants)
            return pipeline.call_jvp(fn, full, kwargs, (None,) * skip + tangents, {}, entry=True)
        return runtime.push(plain, primals, kwargs, tangents, {})
    except ZygoteError as e:
        raise _located(e, f) from None
    except RecursionError as e:
        raise _too_deep(e, f) from None
    finally:
        _NEST[0] -= 1


def _given_tangent(x: Any, t: Any, f: Callable, name: str = "jvp") -> Any:
    """``t``, a tangent given to :func:`jvp` for the primal ``x``, checked
    to have its structure (the items of a tuple, list, namedtuple or dict
    compared one by one) and the shape of each number or array in it; an
    item without a tangent (``None``) becomes the zero tangent of its
    primal's item, which the code may compute with. The tangent of a list
    or dict is a plain one, whose methods are not a subclass's."""
    if isinstance(x, (tuple, list)) and isinstance(t, (tuple, list)) or isinstance(x, dict) and isinstance(t, dict):
        if len(t) != len(x) or isinstance(x, dict) and t.keys() != x.keys():
            raise BadTangent(f"{name}: a tangent of {len(t)} items for a {type(x).__name__} of {len(x)}",
                             function=getattr(f, "__qualname__", None))
        if isinstance(x, dict):
            return {k: _zero_or(x[k], t[k], f, name) for k in t}
        items = [_zero_or(v, d, f, name) for v, d in zip(x, t)]  # (a list subclass's: a plain list, without its methods)
        return type(t)(*items) if hasattr(t, "_fields") else tuple(items) if isinstance(t, tuple) else items
    if isinstance(x, (numbers.Number, np.ndarray, np.generic)) or isinstance(t, (numbers.Number, np.ndarray, np.generic)):
        try:
            same = np.shape(t) == np.shape(x)
        except ValueError:  # (a ragged sequence against an array)
            same = False
        if not same:
            raise BadTangent(f"{name}: a tangent {_shape_of(t)} for a primal {_shape_of(x)}",
                             function=getattr(f, "__qualname__", None))
    return t


def _zero_or(x: Any, t: Any, f: Callable, name: str) -> Any:
    """The tangent ``t`` of an item ``x`` of a structure given to
    :func:`jvp` (see :func:`_given_tangent`), a zero for ``None`` (one
    that changes with ``x``: an object's a ``Tangent`` of its fields')."""
    return runtime.changing_zero(x) if t is None else _given_tangent(x, t, f, name)


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
    if in_zygote_py(fn.__code__.co_filename):
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
    if e.function is not None and not in_zygote_py(e.filename):
        # (a library's function the user called: named after the user's line)
        message += f"\n(raised differentiating {e.function!r}, file {e.filename!r}, line {e.line})"
    return type(e)(message, function=fn.__qualname__, filename=fn.__code__.co_filename, line=line, hint=e.hint)


def _elsewhere(filename: Optional[str], fn: types.FunctionType) -> bool:
    """Whether an error located in ``filename`` is outside the user's code
    that ``fn`` is the entry of: in zygote_py itself, or in a library under
    site-packages or the standard library."""
    if filename is None or filename == fn.__code__.co_filename:
        return False
    return in_zygote_py(filename) or any(
        filename.startswith(p) for p in _library_paths() if not fn.__code__.co_filename.startswith(p))


@functools.cache
def _library_paths() -> tuple:
    """Where installed libraries and the standard library live."""
    import site
    import sysconfig

    return tuple({p for p in (*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["stdlib"]) if p})


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


def _check_arity(fn: types.FunctionType, args: tuple, kwargs: Optional[dict] = None) -> None:
    """Raise :class:`WrongArguments` unless ``fn`` takes ``len(args)``
    positional arguments and the keyword arguments ``kwargs`` (the emitted
    code's own TypeError would name the emitted function)."""
    code = fn.__code__
    if kwargs:
        try:
            inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise WrongArguments(f"{fn.__name__}(): {e}", function=fn.__qualname__, filename=code.co_filename,
                                 line=code.co_firstlineno) from None
        return
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
    """Raise :class:`BadTangent` unless ``dy`` can be the cotangent of the
    output ``y``: for a number, a number; for an array, an array of its
    shape (a cotangent of another shape would give gradients of another
    shape, in silence); for a tuple, list or dict of them, one of the same
    structure, item by item (``None`` for an item with no cotangent).
    Objects' cotangents are checked by their rules."""
    problem = _cotangent_problem(y, dy, "")
    if problem is not None:
        raise BadTangent(problem, function=fn.__qualname__, filename=fn.__code__.co_filename,
                         line=fn.__code__.co_firstlineno)


def _cotangent_problem(y: Any, dy: Any, path: str) -> Optional[str]:
    """What is wrong with ``dy`` as the cotangent of ``y`` (see
    :func:`_check_cotangent`), the item at ``path`` of the output; ``None``
    when nothing is."""
    if dy is None and path:
        return None
    if isinstance(y, (tuple, list, dict)):
        if isinstance(y, dict) and (not isinstance(dy, dict) or not dy.keys() <= y.keys()):
            return f"back(dy) needs a dict with the output{path}'s keys {list(y)} as its cotangent, not {_what(dy)}" + (
                f" with keys {list(dy)}" if isinstance(dy, dict) else "")
        if not isinstance(y, dict) and (not isinstance(dy, (tuple, list)) or len(dy) != len(y)):
            return f"back(dy) needs a tuple of {len(y)} items as the cotangent of the output{path}, not {_what(dy)}" + (
                f" of {len(dy)}" if isinstance(dy, (tuple, list)) else "")
        keys = dy.keys() if isinstance(y, dict) else range(len(y))
        return next((p for k in keys if (p := _cotangent_problem(y[k], dy[k], f"{path}[{k!r}]")) is not None), None)
    if not isinstance(y, (numbers.Number, np.ndarray, np.generic)):
        return None
    if isinstance(dy, (numbers.Number, np.generic)) or isinstance(dy, np.ndarray) and dy.shape in ((), np.shape(y)):
        return None
    if isinstance(y, np.ndarray):
        return f"back(dy) needs a cotangent shaped like the output{path}, an array of shape {np.shape(y)}, not {_what(dy)}"
    return f"back(dy) needs a number as the cotangent of a number output{path}, not {_what(dy)}"


def _what(dy: Any) -> str:
    """``dy`` in an error's words (made only when there is an error: the
    check runs on every call of a pullback)."""
    return f"an array of shape {dy.shape}" if isinstance(dy, np.ndarray) else f"a {type(dy).__name__}"


_SCALAR_TYPES = (float, int, bool, complex, str, bytes, type(None), np.float64, np.float32)
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
        if globs.get(k, pipeline.GONE) is not v:
            return None
    return hit


def _dense(args: tuple, grads: tuple) -> tuple:
    """The gradients of a call with array arguments as the user gets them:
    a lazy one (sparse, or the number 0 for an array) made dense."""
    for g in grads:
        if type(g) is not np.ndarray and g is not None:
            return _user_gradients(args, grads)
    return grads


def _checked(args: tuple, grads: tuple) -> tuple:
    """The gradients of a call with number arguments, which the user gets
    as they are, but for one that is refused (``runtime.checked_gradient``)."""
    return tuple(map(runtime.checked_gradient, args, grads))


def value_and_gradient(f: Callable, /, *args: Any, **kwargs: Any) -> tuple[Any, tuple]:
    """``(f(*args, **kwargs), gradient(f, *args, **kwargs))`` from one run
    of the fused gradient function (the forward pass followed by the
    pullback's body)."""
    hit = None if kwargs else _fast(f, args, _FAST)
    _NEST[0] += 1
    try:
        if hit is not None:
            y, grads = hit[0](*args)
            return y, _checked(args, grads) if hit[4] is None else _dense(args, grads)
        return _value_and_gradient(f, args, kwargs, True)
    except ZygoteError as e:
        raise _located(e, f) from None
    except RecursionError as e:
        raise _too_deep(e, f) from None
    finally:
        _NEST[0] -= 1


def gradient(f: Callable, /, *args: Any, **kwargs: Any) -> tuple:
    """The gradient of a real-scalar-valued ``f`` at ``args``: one entry per
    positional argument, ``None`` where no gradient flows. Keyword
    arguments are constants."""
    hit = None if kwargs else _fast(f, args, _FAST_GRADIENTS)
    _NEST[0] += 1
    try:
        if hit is not None:
            grads = hit[0](*args)[1]
            return _checked(args, grads) if hit[4] is None else _dense(args, grads)
        return _value_and_gradient(f, args, kwargs, False)[1]
    except ZygoteError as e:
        raise _located(e, f) from None
    except RecursionError as e:
        raise _too_deep(e, f) from None
    finally:
        _NEST[0] -= 1


def _value_and_gradient(f: Callable, args: tuple, kwargs: dict, value: bool) -> tuple[Any, tuple]:
    """The general path: compile (or find) the gradient function, and
    remember it for calls with arguments of the same types when those types
    alone decide what is differentiated. ``value=False``: the value may be
    ``None``, not computed."""
    y, grads, binding = gradient_call(f, args, kwargs, None, value)
    if binding is not None:
        cache = _FAST if value else _FAST_GRADIENTS
        if len(cache) >= _FAST_LIMIT:
            cache.clear()
        cache[(f, *map(_kind, args))] = binding
    return y, grads


def gradient_call(f: Callable, args: tuple, kwargs: dict, wanted: Optional[tuple],
                  value: bool) -> tuple[Any, tuple, Optional[tuple]]:
    """``(y, gradients, binding)`` of the call ``f(*args, **kwargs)``: one
    gradient per positional argument, differentiating only those at
    ``wanted`` (every one for ``None``; the others, and the keyword
    arguments, are constants with no gradient). ``binding`` is what the
    fast paths keep (:func:`_fast`; ``zpy.grad``'s functions, which bind
    its last two items, the compilation and the function) to call the
    compiled gradient function directly for arguments of the same kinds
    (without keyword arguments), or ``None`` where the kinds alone do not
    decide what is compiled. ``value=False``: ``y`` may be ``None``, not
    computed. Runs outside the differentiation count (the caller's
    ``NEST``)."""
    plain = f.__wrapped__ if isinstance(f, Differentiable) else f
    if registry.lookup(plain) is not None or registry.is_nondifferentiable(plain):
        y, back = _pullback(f, args, kwargs, wanted)
        return y, back(runtime.seed(y)), None
    fn, full = _target(f, args)
    _check_arity(fn, full, kwargs)
    skip = len(full) - len(args)
    entry = _compiled(fn, full, kwargs, None if wanted is None and not skip else _positions(skip, len(args), wanted))
    g = entry.gradient_function(fn, value)
    y, grads = g(*full, **kwargs)
    sig = entry.signature
    simple = sig.vararg is None and sig.kwarg is None and not sig.kwonly
    checks = entry.global_checks(fn)
    if (
        simple and checks is not None and full is args and not kwargs and len(args) == len(sig.names())
        and not entry.changed_params and all(isinstance(a, _SCALAR_TYPES) or type(a) is np.ndarray for a in args)
    ):
        arrays = any(type(a) is np.ndarray for a in args) or None
        return y, (_checked(args, grads) if arrays is None else _user_gradients(args, grads)), \
            (g, fn.__globals__, checks, entry.generation, arrays, entry, fn)
    return y, _user_gradients(args, runtime.call_grads(sig, len(full), list(kwargs), grads)[skip:len(full)]), None


def _user_gradients(args: tuple, grads: list) -> tuple:
    """The gradients as the user gets them (see
    :func:`runtime.user_gradient`): dense, shaped like the arguments."""
    return tuple(map(runtime.user_gradient, args, grads))


class Differentiable:
    """What ``@differentiable`` returns: the function, unchanged when
    called, with ``.gradient``, ``.pullback``, ``.jvp``, ``.ir``,
    ``.adjoint_ir``, ``.source`` and ``.jvp_source``."""

    calls_wrapped = True
    """Calling it only calls the function it wraps (see
    :func:`zygote_py.runtime.calls_wrapped`)."""

    def __init__(self, f: Callable):
        functools.update_wrapper(self, f)
        self._last = None
        self._last_jvp: Optional[tuple] = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __get__(self, obj, owner=None):
        # (on an object: the bound method, differentiable like a function;
        # model.loss.gradient(x) differentiates x, the object a constant)
        return self if obj is None else Differentiable(types.MethodType(self.__wrapped__, obj))

    def gradient(self, *args: Any, **kwargs: Any) -> tuple:
        self._last = args
        return gradient(self.__wrapped__, *args, **kwargs)

    def pullback(self, *args: Any, **kwargs: Any) -> tuple[Any, Callable]:
        self._last = args
        return pullback(self.__wrapped__, *args, **kwargs)

    def jvp(self, primals: tuple, tangents: tuple, **kwargs: Any) -> tuple[Any, Any]:
        self._last_jvp = (tuple(primals), tuple(tangents))
        return jvp(self.__wrapped__, primals, tangents, **kwargs)

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
        fn, full = _target(self.__wrapped__, self._last or ())
        if self._last is not None:
            return _compiled(fn, full)
        n = len(pipeline.primal_ir(fn).signature.names())
        return pipeline.compiled(fn, (True,) * n, (analysis.NUMBER,) * n, False, exact=True)

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
