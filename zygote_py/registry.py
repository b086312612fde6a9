"""The derivative-rule registry: which functions have an adjoint rule, and
which produce no gradient at all.

A *rule* for a function ``f`` takes the arguments ``f`` takes and returns
``(y, back)``: ``y`` is exactly ``f``'s result, and ``back(dy)`` returns one
gradient per positional argument of the call (``None`` where an argument
gets none). ``dy`` is never ``None``: callers skip a pullback that no
gradient reaches. Rules are plain module-level functions whose only free
names are modules imported at the top of their module (``math.cos``,
``operator.mul``) and builtins, so the compiler can inline them by parsing
their source; they remain callable at run time as they are.

A *non-differentiable* function (``math.floor``, ``operator.lt``, ``len``)
is called plainly; its output carries no gradient, so its inputs get
``None`` from it.

Two layers of plain dicts hold the entries: the built-in layer, filled while
:mod:`zygote_py.rules` imports its rule modules inside
:func:`builtin_layer`, and the user layer, filled by every other call of
:func:`adjoint` or :func:`nondifferentiable` (the public ``@zpy.adjoint``).
A user entry overrides the built-in one for the same function, in either
direction (a user rule for a built-in non-differentiable function, or a
user's ``nondifferentiable`` for a function with a built-in rule), and
:func:`remove` deletes it, bringing the built-in entry back.

Keys: a function is keyed by itself when it is hashable (functions, builtins,
classes, bound methods — ``obj.f == obj.f`` holds and hashes alike, so a rule
registered for one bound method object is found for the next one read off
the same ``obj``). An unhashable callable is keyed by identity; its entry
keeps it alive so that its ``id`` cannot be reused by another object.

May import: nothing of zygote_py (the runtime, the rules and the compiler
all read it).
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import types
from typing import Any, Callable, Iterator, Optional

Rule = Callable[..., tuple[Any, Callable[[Any], tuple]]]


class _NonDifferentiable:
    """The registry entry of a function whose output carries no gradient."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NONDIFFERENTIABLE"


NONDIFFERENTIABLE = _NonDifferentiable()


class _ByIdentity:
    """The key of an unhashable callable: equal only to itself, and holding
    the callable so its ``id`` stays unique while it is registered."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.obj is self.obj


_builtin: dict[Any, Any] = {}
_user: dict[Any, Any] = {}
_target = _user
_generation = [0]
current_generation = _generation
"""A one-item list holding the current generation, for hot paths that
cannot afford the call of :func:`generation`."""


def generation() -> int:
    """A number that changes whenever a rule is registered or removed:
    compiled gradients that inlined rules are valid only for the
    generation they were compiled in."""
    return _generation[0]


_on_change: list[Callable[[], None]] = []


def on_change(callback: Callable[[], None]) -> None:
    """Call ``callback()`` after each change of the generation: for an upper
    layer's bindings that are dropped then rather than compared with the
    generation at each use (``zpy.grad``'s: see ``transforms.py``)."""
    _on_change.append(callback)


def _changed() -> None:
    _generation[0] += 1
    for callback in _on_change:
        callback()


def key(fn: Any) -> Any:
    """The registry's key for ``fn``."""
    try:
        hash(fn)
    except TypeError:
        return _ByIdentity(fn)
    return fn


def _entry(fn: Any) -> Any:
    k = key(fn)
    if k in _user:
        return _user[k]
    entry = _builtin.get(k)
    if entry is None and _lazy and load_lazy():
        entry = _builtin.get(k)
    return entry


_lazy: dict[str, list[str]] = {}
"""Built-in rule modules for optional libraries, by the library module
whose import makes them due (``"scipy.special"``: the rules for it): they
are imported, into the built-in layer, at the first look-up that misses
after the user imported that library, so zygote_py never imports SciPy
itself and costs nothing where it is not used."""


def when_imported(library: str, rules: str) -> None:
    """Register the rule module ``rules`` (a module path) to be imported
    once ``library`` has been imported by someone else."""
    _lazy.setdefault(library, []).append(rules)
    OPTIONAL_MODULES.append(rules)


OPTIONAL_MODULES: list[str] = []
"""Every rule module registered with :func:`when_imported`, loaded or not."""


def load_lazy(everything: bool = False) -> bool:
    """Import the rule modules whose library has been imported (all that
    can be imported, when ``everything``: for the rules table). Returns
    whether any was."""
    if not everything and _lazy.keys().isdisjoint(sys.modules.keys()):  # (asked at each look-up: one test in C)
        return False
    # (taken off the list before any is imported: a rule module's own
    # registrations look entries up, which calls this again)
    due = [_lazy.pop(lib) for lib in list(_lazy) if lib in sys.modules or everything]
    for modules in due:
        for rules in modules:
            with builtin_layer():
                try:
                    importlib.import_module(rules)
                except ImportError:
                    if not everything:
                        raise
    return bool(due)


@contextlib.contextmanager
def builtin_layer() -> Iterator[None]:
    """Registrations made inside this block go to the built-in layer.

    Used once, by :mod:`zygote_py.rules` while it imports its rule modules.
    """
    global _target
    outer, _target = _target, _builtin
    try:
        yield
    finally:
        _target = outer


def adjoint(fn: Any) -> Callable[[Rule], Rule]:
    """Decorator: register the decorated function as the rule for ``fn``.

    The rule is returned unchanged. Registering again for the same ``fn``
    replaces the earlier rule of the same layer. Compiled gradients are
    dropped (the generation changes) unless ``fn`` is a callable object
    registered for the first time, which no compiled code can have
    depended on (it was reached through the run-time ``J``).
    """

    def register(rule: Rule) -> Rule:
        if _entry(fn) is not None or isinstance(fn, (types.FunctionType, types.MethodType)):
            _changed()  # (compiled code may have read the old entry, or the function's source)
        _target[key(fn)] = rule
        return rule

    return register


SCALAR, ARRAY, SEQUENCE = "scalar", "array", "sequence"
"""The specialisations of a built-in rule: for operands the compiler knows
to be numbers, not arrays (the derivative without the reduction of
broadcast gradients), for a first operand it knows to be an array, and
for lists and tuples that an operator joins or repeats (``a + b``, ``a *
3``), which the run-time ``J`` picks by the operands' types."""

_special: dict[str, dict[Any, Any]] = {SCALAR: {}, ARRAY: {}, SEQUENCE: {}}


def specialised(kind: str, fn: Any) -> Callable[[Rule], Rule]:
    """Decorator (built-in rules only): the decorated rule is ``fn``'s rule
    when the operands are of ``kind`` (:data:`SCALAR`, :data:`ARRAY` or
    :data:`SEQUENCE`)."""

    def register(rule: Rule) -> Rule:
        _special[kind][key(fn)] = rule
        return rule

    return register


def lookup_specialised(kind: str, fn: Any) -> Optional[Rule]:
    """The rule for ``fn`` on operands of ``kind``: its specialised rule,
    unless the user registered a rule of their own for ``fn``."""
    k = key(fn)
    if k in _user:
        return lookup(fn)
    return _special[kind].get(k) or lookup(fn)


def scalar(fn: Any) -> Callable[[Rule], Rule]:
    """``@specialised(SCALAR, fn)``."""
    return specialised(SCALAR, fn)


def array(fn: Any) -> Callable[[Rule], Rule]:
    """``@specialised(ARRAY, fn)``."""
    return specialised(ARRAY, fn)


_push_builtin: dict[Any, Any] = {}
_push_user: dict[Any, Any] = {}


def pushforward(fn: Any) -> Callable[[Callable], Callable]:
    """Decorator: register the decorated function as ``fn``'s pushforward
    (forward-mode) rule, returned unchanged.

    A pushforward rule takes ``fn``'s output ``y``, then the parameters of
    ``fn``'s adjoint rule (``fn``'s own), then, keyword-only, the tangent
    ``d<name>`` of each parameter that can carry one (``d_<name>`` where
    ``d<name>`` is another parameter), and returns the
    output's tangent (a tuple of them for a tuple output, ``None`` for an
    output that has none)::

        @pushforward(math.sin)
        def sin(y, x, *, dx):
            return dx * math.cos(x)

    It must be linear in the tangents, which are never ``None``: a tangent
    known to be zero drops, at compile time, every term it multiplies (see
    :mod:`zygote_py.ad.forward`). A straight-line rule is inlined into
    emitted code; any other is called."""

    def register(rule: Callable) -> Callable:
        (_push_builtin if _target is _builtin else _push_user)[key(fn)] = rule
        _changed()
        return rule

    return register


def lookup_pushforward(fn: Any) -> Optional[Callable]:
    """``fn``'s pushforward rule: the user's, else the built-in one unless
    the user gave ``fn`` an adjoint rule or made it non-differentiable of
    their own (then the forward mode derives it from that entry)."""
    k = key(fn)
    if k in _push_user:
        return _push_user[k]
    if k in _user:
        return None
    rule = _push_builtin.get(k)
    if rule is None and _lazy and load_lazy():
        rule = _push_builtin.get(k)
    return rule


def nondifferentiable(*fns: Any) -> None:
    """Register functions whose outputs carry no gradient."""
    for fn in fns:
        _target[key(fn)] = NONDIFFERENTIABLE
    _changed()


_array_valued: dict = {}


def array_valued(*fns: Any, unless: Optional[tuple[str, int]] = None) -> None:
    """Register library functions whose value, given arrays and numbers,
    is one array or NumPy scalar (``scipy.special.softmax``), as the
    compiler knows NumPy's reductions' to be: their results join the
    arithmetic it emits plainly. ``unless=(name, position)``: only where
    the call passes no parameter ``name`` (by keyword, or at that
    position), which makes it return something else
    (``scipy.special.logsumexp``'s ``return_sign``: a pair)."""
    _array_valued.update((key(fn), unless) for fn in fns)


def is_array_valued(fn: Any, given: int = 0, keywords: tuple = ()) -> bool:
    """Whether ``fn`` is registered with :func:`array_valued`, called with
    ``given`` positional arguments and the named ``keywords``."""
    if _lazy:
        load_lazy()
    try:
        k = key(fn)
    except TypeError:
        return False
    if k not in _array_valued:
        return False
    unless = _array_valued[k]
    return unless is None or unless[0] not in keywords and given <= unless[1]


_marks: list["Mark"] = []


class Mark:
    """A property of functions that a rule module records and the compiler
    or the runtime reads: ``MARK(f, g)`` marks ``f`` and ``g``, and ``f in
    MARK`` asks (``False`` for an unhashable callable)."""

    def __init__(self) -> None:
        self._keys: set = set()
        _marks.append(self)

    def __call__(self, *fns: Any) -> None:
        self._keys.update(key(fn) for fn in fns)

    def __contains__(self, fn: Any) -> bool:
        try:
            return key(fn) in self._keys
        except TypeError:
            return False


READS_NO_VALUES = Mark()
"""Functions whose pullbacks read none of their arguments' differentiated
values (they move them about, or are linear in them): the derivative of
such a pullback is the call's pushforward of the cotangent, and gives the
arguments nothing (see ``rules.nested.reads_no_values``)."""

CHANGES_FIRST_ARGUMENT = Mark()
"""Functions that may change their first argument in place, whatever its
kind (the operations the mutation pass makes): a pullback that makes the
call again copies it whole first (``runtime.changed_position``)."""

CHANGES_IN_PLACE = Mark()
"""Functions that change an argument in place (the in-place operators, the
operations the mutation pass makes): forward mode over gradient code
pushes them forward on copies of the tangents given (see
``rules.nested.J_forward``)."""

RUNS_USERS_CODE = Mark()
"""Operations of the mutation pass that call the user's code (a function
changing its argument, a method, a base class's ``__init__``), whose
pullbacks run once (they empty their stacks): forward mode over gradient
code, which pulls back once per component of a tangent, refuses them
before they run."""


_constant: dict[Any, tuple[tuple[int, str, str], ...]] = {}


def constant_argument(fn: Any, position: int, name: str, what: str) -> None:
    """Declare that ``fn`` has no derivative in its parameter ``name`` (at
    ``position``; ``what`` it is, for the message: ``"its order"``): the
    reverse transform refuses a call of ``fn`` whose argument there is a
    differentiated value, at the user's line, and accepts any other (a
    constant, a value captured from outside the differentiated inputs),
    whose gradient there the rule need not give. A function may have
    several (``hyp1f1``'s ``a`` and ``b``)."""
    _constant[key(fn)] = (*_constant.get(key(fn), ()), (position, name, what))


def constant_arguments_of(fn: Any) -> tuple[tuple[int, str, str], ...]:
    """``(position, name, what)`` of each parameter of ``fn`` declared by
    :func:`constant_argument`."""
    if _lazy:
        load_lazy()
    try:
        return _constant.get(key(fn), ())
    except TypeError:
        return ()


class _Implementation:
    """The registry entry of a function differentiated through a Python
    function that computes the same thing (see :func:`implemented_by`)."""

    __slots__ = ("function",)

    def __init__(self, function: Callable):
        self.function = function


def implemented_by(fn: Any) -> Callable[[Callable], Callable]:
    """Decorator: ``fn`` is differentiated, in both modes and at any
    order, as the decorated Python function, which must compute what
    ``fn`` computes, from the same arguments; ``fn`` itself still runs
    where no gradient is wanted. For library functions whose derivatives
    are their formula's (``scipy.stats.norm.logpdf``): the compiler
    differentiates the formula like user code."""

    def register(function: Callable) -> Callable:
        _target[key(fn)] = _Implementation(function)
        _changed()
        return function

    return register


def implementation(fn: Any) -> Optional[Callable]:
    """The Python function ``fn`` is differentiated as, if any."""
    entry = _entry(fn)
    return entry.function if type(entry) is _Implementation else None


def lookup(fn: Any) -> Optional[Rule]:
    """The rule for ``fn`` (the user's if there is one), or ``None`` when it
    has no rule (also when it is registered non-differentiable or
    :func:`implemented_by` a Python function)."""
    entry = _entry(fn)
    return None if entry is None or entry is NONDIFFERENTIABLE or type(entry) is _Implementation else entry


def is_builtin_rule(fn: Any) -> bool:
    """Whether ``fn`` has a built-in rule that no rule of the user's
    replaces (a run-time shortcut may then compute what that rule does)."""
    return key(fn) not in _user and _entry(fn) is not None


def is_nondifferentiable(fn: Any) -> bool:
    """Whether ``fn``'s output carries no gradient, by registration."""
    return _entry(fn) is NONDIFFERENTIABLE


def registered(fn: Any) -> bool:
    """Whether ``fn`` has an entry in any of the registry's tables (a rule,
    a pushforward, a mark...): where it has none, the compiler's decisions
    about a call of it rest on its code alone (see ``ad.analysis.Like``)."""
    k = key(fn)
    return (_entry(fn) is not None or any(k in t for t in (*_special.values(), _push_user, _push_builtin,
                                                            _array_valued, _constant))
            or any(fn in m for m in _marks))


def remove(fn: Any) -> bool:
    """Delete the user's entry for ``fn``, if any, restoring the built-in
    one. Returns whether there was a user entry."""
    _changed()
    k = key(fn)
    pushed = _push_user.pop(k, None) is not None
    return (_user.pop(k, None) is not None) or pushed


def display_name(fn: Any) -> str:
    """How a user writes the function: ``np.linalg.solve``, ``math.sin``,
    ``operator.add``, ``np.ndarray.sum``, ``np.add.reduce``, ``abs``,
    ``zpy.checkpoint``."""
    if type(fn) is functools.partial:
        return f"functools.partial({display_name(fn.func)})"
    module = getattr(fn, "__module__", None) or ""
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    owner = getattr(fn, "__self__", None)
    if type(owner).__name__ == "ufunc" and getattr(owner, "__name__", None):
        return f"np.{owner.__name__}.{fn.__name__}"  # np.add.reduce (a ufunc's method)
    if isinstance(fn, (types.MethodDescriptorType, types.GetSetDescriptorType)):
        owner = fn.__objclass__
        numpy = (getattr(owner, "__module__", "") or "").startswith("numpy")
        return f"{'np.' if numpy else ''}{owner.__name__}.{fn.__name__}"  # np.ndarray.sum, dict.get
    if "ndarray." in qual:
        return f"np.ndarray.{fn.__name__}"
    if module.startswith("numpy"):
        import numpy as np

        for prefix, mod in (("np.linalg.", np.linalg), ("np.fft.", np.fft), ("np.random.", np.random), ("np.", np)):
            if getattr(mod, fn.__name__, None) is fn:
                return prefix + fn.__name__
        public = ".".join(p for p in module.split(".")[1:] if not p.startswith("_"))
        return f"np.{public + '.' if public else ''}{qual}"
    if module in ("builtins", None, ""):
        special = sys.modules.get("scipy.special")  # (its ufuncs have no module)
        return f"scipy.special.{qual}" if getattr(special, qual, None) is fn else qual
    if module.startswith("zygote_py"):
        public = getattr(sys.modules.get("zygote_py"), getattr(fn, "__name__", ""), None) is fn
        return f"zpy.{qual}" if public else f"(internal) {qual}"
    if module == "__main__":
        return qual
    if owner is not None and not isinstance(owner, (type, types.ModuleType)):
        held = _public_name(type(owner).__module__ or "", owner)  # scipy.stats.norm.logpdf: norm's method
        if held is not None:
            return f"{held}.{fn.__name__}"
    return _public_name(module, fn) or f"{module.lstrip('_')}.{qual}"


def home_module(obj: Any) -> Optional[types.ModuleType]:
    """The module that code reads ``obj`` from by its name: the outermost
    package along ``obj.__module__`` that holds it under that name
    (``zygote_py.runtime`` for ``zygote_py.runtime.dispatch.J``, which the
    package re-exports; ``math`` for ``math.sin``, which says it lives in
    ``math``; ``operator`` for ``operator.add``, which says ``_operator``).
    ``None`` for builtins and for what no module holds by its name."""
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or module == "builtins" or not name or "." in name or not callable(obj):
        return None
    if module.startswith("_"):
        module = module[1:]
    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        candidate = sys.modules.get(".".join(parts[:i]))
        if candidate is not None and getattr(candidate, name, None) is obj:
            return candidate
    return None


def _public_name(module: str, obj: Any) -> Optional[str]:
    """Where a library's user imports ``obj`` from: its module's path
    without the private parts (``scipy.special._logsumexp`` gives
    ``scipy.special.logsumexp``), or the nearest package above it, if
    that module holds ``obj``."""
    public = [p for p in module.split(".") if not p.startswith("_")]
    while public:  # (scipy.integrate._ivp.ivp's solve_ivp: scipy.integrate.solve_ivp)
        path = ".".join(public)
        namespace = getattr(sys.modules.get(path), "__dict__", {})
        name = getattr(obj, "__name__", None)
        if name is None or namespace.get(name) is not obj:
            name = next((n for n, v in namespace.items() if v is obj and not n.startswith("_")), None)
        if name is not None:
            return f"{path}.{name}"
        public.pop()
    return None
