"""Behavioural equivalence of two callables on one input.

:func:`check_same` runs an original function ``f`` and a candidate ``g`` on
independent deep copies of the same arguments and requires everything a
caller can observe to agree:

- the returned value, compared structurally and strictly: same types, floats
  equal bit for bit up to NaN (``nan == nan``, ``0.0 != -0.0``), NumPy
  arrays with the same dtype, shape and elements, dicts with the same key
  order, objects with the same attributes;
- which objects are shared: if ``f`` returns one of its arguments (or puts
  one list in two places), ``g`` must do the same;
- a raised exception: same class, same ``str``, same ``args``, and the same
  ``__cause__``/``__context__`` chain (``raise ... from``, implicit chaining);
- the arguments after the call (mutation of lists, dicts, arrays, objects);
- what was printed to stdout;
- the module globals the function's code names (``global`` writes, in-place
  updates of module-level containers). Both sides start from the same
  values, and the module is restored afterwards.
"""
from __future__ import annotations

import contextlib
import copy
import io
import math
import signal
import threading
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np


@dataclass(frozen=True)
class Args:
    """The arguments of one call: ``f(*args, **kwargs)``."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


def call(*args: Any, **kwargs: Any) -> Args:
    """The arguments ``(*args, **kwargs)`` as one value, for a call that
    needs keywords."""
    return Args(args, kwargs)


def as_args(args: Union[tuple, Args]) -> Args:
    """A plain tuple stands for positional arguments."""
    return args if isinstance(args, Args) else Args(tuple(args))


_MISSING = object()


@dataclass
class Outcome:
    """Everything observable about one call: the returned value or the
    exception, the arguments after the call, the printed text, and the
    values of the globals the function's code names."""

    value: Any
    error: Optional[BaseException]
    args: Args
    stdout: str
    globals_after: dict


def check_same(f: Callable, g: Callable, args: Union[tuple, Args]) -> None:
    """Raise ``AssertionError`` naming the first observable difference
    between ``f(*args)`` and ``g(*args)``; return ``None`` if there is none.

    Each side gets its own deep copy of ``args``. Globals named by ``f``'s
    code are reset to their values before the call for each side and
    restored at the end.
    """
    args = as_args(args)
    module = _Globals(f)
    try:
        expected = _call(f, args, module)
        actual = _call(g, args, module)
    finally:
        module.reset()
    problem = _compare_outcomes(expected, actual)
    if problem is not None:
        message = f"{f.__qualname__}{args!r}: {problem}"
        raise AssertionError(message) from actual.error


def run(func: Callable, args: Union[tuple, Args]) -> Outcome:
    """Call ``func`` on a deep copy of ``args`` as :func:`check_same`
    does, and leave the module globals as they were."""
    module = _Globals(func)
    try:
        return _call(func, as_args(args), module)
    finally:
        module.reset()


def first_difference(a: Any, b: Any, path: str = "value") -> Optional[str]:
    """The first difference between ``a`` and ``b`` under the strict
    structural comparison :func:`check_same` uses, or ``None``."""
    return _Comparison().diff(a, b, path)


class _Globals:
    """The module globals a function's code names (and so may read, write
    or delete), with their values when this object was made."""

    def __init__(self, func: Callable):
        self.namespace = func.__globals__
        self.names = sorted(_global_names(func.__code__))
        self.initial = _snapshot(self.namespace, self.names)

    def reset(self) -> None:
        _restore(self.namespace, self.initial)

    def current(self) -> dict:
        return {name: self.namespace.get(name, _MISSING)
                for name in self.names}


# Every function under test returns in milliseconds; a call still running
# after this long is a miscompiled loop, reported instead of hanging the run.
TIME_LIMIT = 10.0


class _TimedOut(BaseException):
    """Raised into a call that ran past :data:`TIME_LIMIT`; a
    ``BaseException`` so that ``except Exception`` in the code under test
    does not swallow it."""


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Interrupt the body after ``seconds`` (where POSIX timers can: in the
    main thread)."""
    usable = (hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def interrupt(signum, frame):
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(func: Callable, args: Args, module: _Globals) -> Outcome:
    """Call ``func`` on a fresh copy of ``args`` with globals reset."""
    module.reset()
    call_args = copy.deepcopy(args)
    out = io.StringIO()
    value, error = None, None
    try:
        with _time_limit(TIME_LIMIT), contextlib.redirect_stdout(out):
            try:
                value = func(*call_args.args, **call_args.kwargs)
            except Exception as exc:  # the exception is the behaviour
                error = exc
    except _TimedOut:
        raise AssertionError(
            f"{func.__qualname__}{args!r} still running after "
            f"{TIME_LIMIT} s") from None
    return Outcome(value, error, call_args, out.getvalue(), module.current())


def _compare_outcomes(expected: Outcome, actual: Outcome) -> Optional[str]:
    """The first difference between two outcomes, described, or ``None``."""
    if (expected.error is None) != (actual.error is None):
        return (
            f"original {_describe(expected)}, "
            f"round-tripped {_describe(actual)}"
        )
    if expected.error is not None:
        problem = _exception_diff(expected.error, actual.error, "exception")
        if problem is not None:
            return problem
    # One comparison for all roots, so that sharing between the result,
    # the arguments and the globals is compared too.
    comparison = _Comparison()
    for a, b, path in (
        (expected.value, actual.value, "result"),
        (expected.args.args, actual.args.args, "args"),
        (expected.args.kwargs, actual.args.kwargs, "kwargs"),
        (expected.globals_after, actual.globals_after, "globals"),
    ):
        problem = comparison.diff(a, b, path)
        if problem is not None:
            return problem
    if expected.stdout != actual.stdout:
        return (
            f"printed output differs:\n  original:      {expected.stdout!r}\n"
            f"  round-tripped: {actual.stdout!r}"
        )
    return None


def _describe(outcome: Outcome) -> str:
    if outcome.error is None:
        return f"returned {outcome.value!r}"
    return f"raised {type(outcome.error).__name__}: {outcome.error}"


def _exception_diff(
    a: BaseException, b: BaseException, path: str, depth: int = 0
) -> Optional[str]:
    """Compare class, message, args, and the cause/context chain."""
    if type(a) is not type(b):
        return (f"{path}: {type(a).__name__}({a}) "
                f"!= {type(b).__name__}({b})")
    if str(a) != str(b):
        return f"{path}: message {str(a)!r} != {str(b)!r}"
    problem = _Comparison().diff(a.args, b.args, f"{path}.args")
    if problem is not None:
        return problem
    if a.__suppress_context__ != b.__suppress_context__:
        return f"{path}.__suppress_context__ differs"
    if depth >= 8:
        return None
    for link in ("__cause__", "__context__"):
        x, y = getattr(a, link), getattr(b, link)
        if (x is None) != (y is None):
            return f"{path}.{link}: {x!r} != {y!r}"
        if x is not None:
            problem = _exception_diff(x, y, f"{path}.{link}", depth + 1)
            if problem is not None:
                return problem
    return None


# Objects whose identity is meaningful: sharing one of them in two places is
# observable through mutation.
_MUTABLE = (list, dict, set, bytearray, np.ndarray)
_ATOMS = (int, str, bytes, bool, type(None), type(Ellipsis), range, slice,
          type, types.ModuleType, types.BuiltinFunctionType)


class _Comparison:
    """A simultaneous walk of two object graphs.

    Mutable objects are paired on first visit; a later visit must find the
    same pairing on both sides, so aliasing (and cycles) must agree.
    """

    def __init__(self) -> None:
        self.forward: dict[int, int] = {}
        self.backward: dict[int, int] = {}
        # Paired objects are kept alive so that their ids are not reused.
        self.paired: list = []

    def diff(self, a: Any, b: Any, path: str) -> Optional[str]:
        if type(a) is not type(b):
            return f"{path}: {a!r} ({type(a).__name__}) != " \
                   f"{b!r} ({type(b).__name__})"
        if _has_identity(a):
            seen_a, seen_b = self.forward.get(id(a)), self.backward.get(id(b))
            if seen_a is not None or seen_b is not None:
                if seen_a == id(b) and seen_b == id(a):
                    return None
                return f"{path}: objects are shared differently"
            self.forward[id(a)] = id(b)
            self.backward[id(b)] = id(a)
            self.paired.append((a, b))
        return self._diff_same_type(a, b, path)

    def _diff_same_type(self, a: Any, b: Any, path: str) -> Optional[str]:
        if isinstance(a, (float, complex, np.floating, np.complexfloating)):
            return None if _same_number(a, b) else f"{path}: {a!r} != {b!r}"
        if isinstance(a, np.ndarray):
            return self._diff_arrays(a, b, path)
        if isinstance(a, (list, tuple)):
            return self._diff_sequences(a, b, path)
        if isinstance(a, dict):
            return self._diff_dicts(a, b, path)
        if isinstance(a, BaseException):
            return _exception_diff(a, b, path)
        if isinstance(a, (types.FunctionType, types.MethodType)):
            if a.__qualname__ != b.__qualname__:
                return f"{path}: {a!r} != {b!r}"
            return None
        if isinstance(a, (set, frozenset, np.generic) + _ATOMS):
            return None if a == b else f"{path}: {a!r} != {b!r}"
        return self._diff_objects(a, b, path)

    def _diff_sequences(self, a, b, path: str) -> Optional[str]:
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            problem = self.diff(x, y, f"{path}[{i}]")
            if problem is not None:
                return problem
        return None

    def _diff_dicts(self, a: dict, b: dict, path: str) -> Optional[str]:
        problem = self.diff(tuple(a), tuple(b), f"{path}.keys()")
        if problem is not None:
            return problem
        for key in a:
            problem = self.diff(a[key], b[key], f"{path}[{key!r}]")
            if problem is not None:
                return problem
        return None

    def _diff_arrays(self, a: np.ndarray, b: np.ndarray, path: str):
        if a.dtype != b.dtype or a.shape != b.shape:
            return (f"{path}: array {a.dtype}{a.shape} != "
                    f"{b.dtype}{b.shape}")
        if a.dtype == object:
            return self._diff_sequences(tuple(a.flat), tuple(b.flat), path)
        inexact = np.issubdtype(a.dtype, np.inexact)
        same = np.array_equal(a, b, equal_nan=inexact)
        if same and np.issubdtype(a.dtype, np.floating):
            same = np.array_equal(np.signbit(a), np.signbit(b))
        return None if same else f"{path}: {a!r} != {b!r}"

    def _diff_objects(self, a: Any, b: Any, path: str) -> Optional[str]:
        state_a, state_b = _object_state(a), _object_state(b)
        if state_a is None:
            # Without state or an __eq__ of its own, an object of the right
            # type is all a caller can tell.
            if type(a).__eq__ is object.__eq__ or a == b:
                return None
            return f"{path}: {a!r} != {b!r}"
        return self.diff(state_a, state_b, f"{path}.__dict__")


def _has_identity(value: Any) -> bool:
    """Whether two references to ``value`` can be told apart from two equal
    copies (by mutating one)."""
    if isinstance(value, _MUTABLE):
        return True
    return _object_state(value) is not None


def _object_state(value: Any) -> Optional[dict]:
    """The attributes of a plain object (``__dict__`` and slots), or
    ``None`` for objects without any."""
    if isinstance(value, (BaseException, type, types.FunctionType,
                          types.MethodType, types.ModuleType)):
        return None
    state = dict(getattr(value, "__dict__", {}))
    for klass in type(value).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            state[slot] = getattr(value, slot, _MISSING)
    if not state and not hasattr(value, "__dict__"):
        return None
    return state


def _same_number(a: Any, b: Any) -> bool:
    """Equality of floats and complex numbers that also tells ``nan`` (equal
    to itself here) and the sign of zero."""
    if isinstance(a, (complex, np.complexfloating)):
        return _same_number(a.real, b.real) and _same_number(a.imag, b.imag)
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _global_names(code: types.CodeType) -> set[str]:
    """Every name ``code`` or a code object nested in it (lambdas, nested
    defs, comprehensions) may look up as a global."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _is_data(value: Any) -> bool:
    """Module globals whose value a function can change: not functions,
    classes or modules, which the functions under test only read."""
    return not (callable(value) or isinstance(value, types.ModuleType))


def _snapshot(module_globals: dict, names: list) -> dict:
    """Deep copies of the data globals among ``names``; ``_MISSING`` for
    names that are not (yet) globals."""
    state = {}
    for name in names:
        value = module_globals.get(name, _MISSING)
        if value is _MISSING:
            state[name] = _MISSING
        elif _is_data(value):
            state[name] = copy.deepcopy(value)
    return state


def _restore(module_globals: dict, state: dict) -> None:
    """Put back the globals recorded by :func:`_snapshot`, as fresh copies
    so that objects a previous call kept a reference to stay as it left
    them."""
    for name, value in state.items():
        if value is _MISSING:
            module_globals.pop(name, None)
        else:
            module_globals[name] = copy.deepcopy(value)
