"""An optional on-disk cache of compiled gradients, shared by processes.

Off by default. ``ZPY_CACHE_DIR=path`` in the environment turns it on for
a process (read when :mod:`zygote_py` is imported); :func:`cache_dir`
(``zpy.cache_dir``) turns it on, moves it or turns it off (``None``) at run
time. The directory belongs to one user: it is created ``0700``, and a
directory or key file that another user owns, or that others may write
(the key: read), is refused with :class:`CacheError`.

**What an entry holds.** One compilation of :func:`pipeline.compiled
<zygote_py.ad.pipeline.compiled>` (one function code, activity pattern and
kinds of argument): the forward function and the fused gradient function
as code objects (``marshal``), their emitted definitions (``pickle``, for
``.source`` and nested differentiation), a reference to each constant the
code reads (a module or an object by its import name, a literal, a float),
and a fingerprint of each global and captured value the compilation
specialised on (see :func:`_fingerprint`). A process that loads the entry
checks that every constant still resolves, in the modules it has already
imported, to an object of the same module version or file, and that every
global and captured value still has the fingerprint; then it guards on
their current values as a fresh compilation does (rebinding one, or
registering a rule, compiles again; a captured number, array or tuple of
numbers is held to its kind, as in a fresh compilation). Otherwise the entry is stale: it is
compiled again and overwritten.

**The key** is the sha256 of: this format's version; zygote_py's version
and the size and modification time of each of its source files; Python's
version; NumPy's and gast's; the function's module and the digest of its
code object (its bytecode, constants, names, file, line and column
table: what its source compiles to, so an edited source is another key);
the activity pattern; the user's rules (each rule's and function's
digest; see :func:`_rules_fingerprint`).

**Never running a file it did not write.** The directory's ``key`` file
holds 32 random bytes (``0600``, created once). Each entry is
``MAGIC + HMAC-SHA256(key, entry key + payload) + payload``; the payload
is unmarshalled and unpickled only when the MAC matches, so a truncated,
corrupted or foreign file (or an entry moved to another key's name) is
ignored, counted in ``stats["rejected"]``, and replaced by a new
compilation. Entries are written to a temporary file and renamed over the
old one (``os.replace``): readers in other processes see the old entry or
the new one, whole.

**Not cached** (compiled in memory as without the cache, counted in
``stats["uncacheable"]``): a compilation reading a constant that has no
import name (a closure, a ``functools.partial``, an array), or
specialised on a global or captured value with no fingerprint (an
instance of a user class, a list, a closure, an object of a module with
neither a version nor a file), or on a cell of another function; every compilation while a user rule has no digest (a rule made
by a factory). Forward mode (``jvp``) is not cached.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import hmac
import marshal
import os
import pickle
import secrets
import sys
import tempfile
import threading
import types
import warnings
import weakref
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Optional, Union

import gast
import numpy as np

from .. import registry
from .. import _version
from ..backend.references import importable, literal
from ..errors import CacheError, ZygoteError
from ..ir import ops
from ..ir.core import IR, Signature
from . import analysis, pipeline

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""zygote_py's folder, whose source files every compilation depends on."""

ENV = "ZPY_CACHE_DIR"
FORMAT = 2
MAGIC = b"zygote_py gradient cache 1\n"
_MAC_SIZE = hashlib.sha256().digest_size
_KEY_FILE = "key"
_SUFFIX = ".zpyc"

stats: Counter = Counter()
"""What the cache did in this process: ``hits`` (entries loaded),
``misses`` (no entry), ``rejected`` (a file whose MAC or format is wrong:
never read further), ``stale`` (an entry whose guards or constants no
longer hold), ``stored``, ``uncacheable`` and ``write_errors``."""


_Fingerprint = tuple
"""A description of a value, made of strings, numbers and tuples (see
:func:`_fingerprint`)."""


class _Stale(Exception):
    """A reference that no longer resolves to what was stored."""


# --------------------------------------------------------------------------
# The cache directory
# --------------------------------------------------------------------------

class _Directory:
    """An opened cache directory: its path and its secret key."""

    def __init__(self, path: Path):
        self.path = path
        self.secret = _open(path)

    def entry(self, key: str) -> Path:
        return self.path / (key + _SUFFIX)


_STATE: dict[str, Any] = {"requested": os.environ.get(ENV) or None, "open": None}
_STATE_LOCK = threading.Lock()


def cache_dir(path: Union[str, os.PathLike, None]) -> Optional[Path]:
    """Keep compiled gradients in the directory ``path`` (created ``0700``
    if needed, ``~`` expanded), shared with other processes that use it;
    ``None`` turns the cache off. Returns the directory. Raises
    :class:`CacheError` when the directory or its key file is not the
    user's alone."""
    with _STATE_LOCK:
        if path is None:
            _STATE["requested"] = _STATE["open"] = None
            return None
        opened = _Directory(Path(os.fspath(path)).expanduser().resolve())
        _STATE["requested"], _STATE["open"] = str(opened.path), opened
        return opened.path


def _directory() -> Optional[_Directory]:
    """The open cache directory, opening the one requested by
    ``ZPY_CACHE_DIR`` on first use; None when the cache is off."""
    opened = _STATE["open"]
    if opened is None and _STATE["requested"] is not None:
        with _STATE_LOCK:
            if _STATE["open"] is None and _STATE["requested"] is not None:
                _STATE["open"] = _Directory(Path(_STATE["requested"]).expanduser().resolve())
            opened = _STATE["open"]
    return opened


def _open(path: Path) -> bytes:
    """Create or check the directory and return its secret key."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
        if st.st_uid != os.getuid() or st.st_mode & 0o022:
            raise CacheError(f"the gradient cache directory {str(path)!r} is not yours alone "
                             f"(owner uid {st.st_uid}, mode {st.st_mode & 0o777:o})",
                             hint=f"use a directory of your own, or chmod 700 {path}")
        key_path = path / _KEY_FILE
        if not key_path.exists():
            _make_key(key_path)
        fd = os.open(key_path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            st = os.fstat(fd)
            secret = os.read(fd, 64)
        finally:
            os.close(fd)
    except OSError as e:
        raise CacheError(f"cannot use the gradient cache directory {str(path)!r}: {e}",
                         hint=f"set {ENV} (or zpy.cache_dir) to a directory of your own") from None
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or len(secret) != 32:
        raise CacheError(f"the gradient cache key {str(key_path)!r} is not yours alone, or not a key "
                         f"(owner uid {st.st_uid}, mode {st.st_mode & 0o777:o}, {len(secret)} bytes)",
                         hint=f"delete {key_path}: a new one is made, and the entries signed with the "
                              "old one are compiled again")
    return secret


def _make_key(key_path: Path) -> None:
    """Write 32 random bytes to ``key_path`` (mode 0600) unless it exists:
    linked into place complete, so that processes starting together agree
    on one key."""
    fd, tmp = tempfile.mkstemp(dir=key_path.parent, prefix=".key-")
    try:
        os.write(fd, secrets.token_bytes(32))
        os.close(fd)
        os.link(tmp, key_path)
    except FileExistsError:
        pass  # another process made it first: use theirs
    finally:
        os.unlink(tmp)


# --------------------------------------------------------------------------
# The hook
# --------------------------------------------------------------------------

def compiled(fn: types.FunctionType, spec: tuple,
             build: Callable[[types.FunctionType], pipeline.Compiled]) -> pipeline.Compiled:
    """The compilation of ``fn`` for ``spec`` (the key of
    :func:`pipeline.compiled <zygote_py.ad.pipeline.compiled>`): loaded
    from the cache directory when it holds a valid one, else
    ``build(fn)``, stored there when it can be rebuilt in another process.
    Called with ``pipeline``'s lock held."""
    directory = _directory()
    if directory is None:
        return build(fn)
    key = _key(fn, spec)
    if key is None:
        stats["uncacheable"] += 1
        return build(fn)
    path = directory.entry(key)
    entry = _load(directory, key, path, fn, build)
    if entry is not None:
        stats["hits"] += 1
        return entry
    entry = build(fn)
    _store(directory, key, path, fn, entry)
    return entry


# --------------------------------------------------------------------------
# Keys and fingerprints
# --------------------------------------------------------------------------

_ENVIRONMENT: list[str] = []


def _environment() -> str:
    """What every compilation depends on besides the function (computed
    once per process)."""
    if not _ENVIRONMENT:
        _ENVIRONMENT.append(repr((
            FORMAT, _version.__version__, _source_files(_PACKAGE), sys.version,
            sys.implementation.cache_tag, np.__version__, getattr(gast, "__version__", None),
        )))
    return _ENVIRONMENT[0]


def _source_files(folder: str) -> list[tuple]:
    """``(name, size, modification time)`` of every ``.py`` file in the
    package ``folder``, its subpackages' in their place."""
    out: list[tuple] = []
    with os.scandir(folder) as found:
        for e in sorted(found, key=lambda e: e.name):
            if e.name.endswith(".py") and e.is_file():
                st = e.stat()
                out.append((e.name, st.st_size, st.st_mtime_ns))
            elif e.is_dir() and e.name != "__pycache__":
                out.append((e.name, _source_files(e.path)))
    return out


def _key(fn: types.FunctionType, spec: tuple) -> Optional[str]:
    """The entry's key (hex), or None when the user's rules have no
    fingerprint, or ``spec`` holds an object's class (an ``"attrs"`` kind,
    :func:`.analysis.attrs_kind`) one of whose classes (its bases: the
    compilation folds class tests on them) has no import name."""
    rules = _rules_fingerprint()
    spec = _classes_named(spec)
    if rules is None or spec is _UNNAMED:
        return None
    text = repr((_environment(), rules, fn.__module__, _code_digest(fn.__code__), spec))
    return hashlib.sha256(text.encode()).hexdigest()


_UNNAMED = object()


def _classes_named(spec: Any) -> Any:
    """``spec`` with each class in it replaced by the references
    (:func:`_reference`: import name, and its module's version or file
    stamp) of the classes of its MRO, which another process finds again
    only where none of their modules changed; ``_UNNAMED`` when one has
    none."""
    if isinstance(spec, tuple):
        items = tuple(_classes_named(v) for v in spec)
        return _UNNAMED if any(v is _UNNAMED for v in items) else items
    if isinstance(spec, type):
        refs = tuple(_reference(c) for c in spec.__mro__)
        return _UNNAMED if None in refs else ("class", refs)
    return spec


_RULES: dict[int, Optional[tuple]] = {}


def _rules_fingerprint() -> Optional[tuple]:
    """The user's rules (``@zpy.adjoint``, ``@zpy.pushforward``,
    ``non_differentiable``) as ``(kind, function, rule)`` descriptions, or
    None when one has none (a rule with captured variables, a callable
    object). Computed once per registry generation."""
    generation = registry.generation()
    if generation not in _RULES:
        entries = []
        for kind, table in (("adjoint", registry._user), ("pushforward", registry._push_user)):
            for target, rule in table.items():
                entries.append((kind, _named(target),
                                "nondifferentiable" if rule is registry.NONDIFFERENTIABLE else _named(rule)))
        described = not any(None in e for e in entries)
        _RULES.clear()
        _RULES[generation] = tuple(sorted(entries)) if described else None
    return _RULES[generation]


def _named(fn: Any) -> Optional[tuple]:
    """A function or builtin by its module, name and (a Python function)
    code, defaults and no captured variables; None for anything else."""
    if isinstance(fn, types.FunctionType):
        return _function_fingerprint(fn, fn.__globals__)
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if isinstance(fn, (types.BuiltinFunctionType, types.MethodDescriptorType, type, np.ufunc)) \
            and isinstance(module, str) and isinstance(name, str):
        return ("builtin", module, name)
    return None


def _code_digest(code: types.CodeType) -> str:
    """sha256 of what ``code``'s source compiled to: bytecode, constants
    (nested code objects digested in turn), names, flags, file, line and
    column table."""
    consts = tuple(_code_digest(c) if isinstance(c, types.CodeType) else _constant_text(c) for c in code.co_consts)
    text = repr((
        code.co_code, code.co_linetable, code.co_exceptiontable, consts, code.co_names, code.co_varnames,
        code.co_freevars, code.co_cellvars, code.co_argcount, code.co_posonlyargcount,
        code.co_kwonlyargcount, code.co_flags, code.co_name, code.co_qualname, code.co_filename,
        code.co_firstlineno,
    ))
    return hashlib.sha256(text.encode()).hexdigest()


def _constant_text(c: Any) -> str:
    """A code constant as text that does not depend on the process (a
    frozenset's order depends on string hashing)."""
    if isinstance(c, frozenset):
        return "frozenset" + repr(sorted(map(_constant_text, c)))
    if isinstance(c, tuple):
        return "(" + ", ".join(map(_constant_text, c)) + ",)"
    return type(c).__name__ + ":" + repr(c)


def _function_fingerprint(fn: types.FunctionType, home: dict) -> Optional[_Fingerprint]:
    """A Python function by its module, name, code digest and defaults,
    and whether it shares the globals ``home`` (the inliner looks at all
    of these); None for one with captured variables or defaults with no
    fingerprint."""
    if fn.__closure__:
        return None
    defaults = tuple(_fingerprint(d, home) for d in fn.__defaults__ or ())
    kwdefaults = tuple((k, _fingerprint(d, home)) for k, d in sorted((fn.__kwdefaults__ or {}).items()))
    if None in defaults or any(d is None for _, d in kwdefaults):
        return None
    return ("function", fn.__module__, fn.__qualname__, _code_digest(fn.__code__), defaults, kwdefaults,
            fn.__globals__ is home)


def _fingerprint(value: Any, home: dict) -> Optional[_Fingerprint]:
    """What a compilation may have specialised on in a global or captured
    ``value`` (``home``: the globals of the function compiled): a Python
    function's code (:func:`_function_fingerprint`), the kind a captured
    constant's guard holds it to (an :class:`~.analysis.Kind`), an array's
    dtype and number of dimensions (its *kind*), or else the value itself
    by :func:`_reference`. None: no fingerprint."""
    if type(value) is analysis.Like:  # (held to the very value in another process)
        value = value.value
    if isinstance(value, types.FunctionType):
        return _function_fingerprint(value, home)
    if type(value) is analysis.Kind:
        return ("kind", *value.key)
    if type(value) is np.ndarray:
        return ("array", value.dtype.str, value.ndim)
    return _reference(value)


def _reference(value: Any) -> Optional[_Fingerprint]:
    """``value`` as another process finds it again: a module by name, a
    float by its hex digits, a literal by its ``repr``, a zygote_py IR
    sentinel by name, an object by its import name (as ``zpy emit``
    finds it); the module's version or file in each. None: it has none."""
    if type(value) is float:
        return ("float", value.hex())
    if literal(value):
        return ("literal", repr(value))
    if isinstance(value, types.ModuleType):
        module, ref = value, ("module", value.__name__)
    elif isinstance(value, ops.Sentinel):
        module, ref = ops, ("object", ops.__name__, value.name)
    else:
        where = importable(value)
        if where is None:
            return None
        module, ref = sys.modules[where[0]], ("object", *where)
    stamp = _stamp(module)
    if stamp == (None, None, None) and module.__name__ not in sys.builtin_module_names:
        return None  # (a module with neither version nor file, as __main__ of python -c: nothing to check)
    return (*ref, stamp)


def _stamp(module: types.ModuleType) -> tuple:
    """A module's version, and its file's path, size and modification time
    (a built-in module has neither: Python's version stands for it)."""
    version = getattr(module, "__version__", None)
    file = getattr(module, "__file__", None)
    try:
        st = os.stat(file) if isinstance(file, str) else None
    except OSError:
        st = None
    return (version if isinstance(version, str) else None, file if isinstance(file, str) else None,
            st and (st.st_size, st.st_mtime_ns))


def _resolve(ref: _Fingerprint) -> Any:
    """The value of a :func:`_reference` in this process, from the modules
    already imported (loading an entry imports nothing); raises
    :class:`_Stale`."""
    kind = ref[0]
    if kind == "float":
        return float.fromhex(ref[1])
    if kind == "literal":
        return ast.literal_eval(ref[1])
    module = sys.modules.get(ref[1])
    if module is None or _stamp(module) != ref[-1]:
        raise _Stale(ref)
    if kind == "module":
        return module
    try:
        return getattr(module, ref[2])
    except AttributeError:
        raise _Stale(ref) from None


def _holds(value: Any, fp: _Fingerprint, home: dict) -> bool:
    """Whether ``value`` has the fingerprint ``fp`` (see :func:`_fingerprint`)."""
    kind = fp[0]
    if kind == "function":
        if not isinstance(value, types.FunctionType) or value.__closure__:
            return False
        _, module, qualname, digest, defaults, kwdefaults, shared = fp
        given = value.__defaults__ or ()
        kwgiven = sorted((value.__kwdefaults__ or {}).items())
        return (
            (value.__module__, value.__qualname__, value.__globals__ is home) == (module, qualname, shared)
            and _code_digest(value.__code__) == digest
            and len(given) == len(defaults) and [k for k, _ in kwgiven] == [k for k, _ in kwdefaults]
            and all(_holds(v, f, home) for v, f in zip(given, defaults))
            and all(_holds(v, f, home) for (_, v), (_, f) in zip(kwgiven, kwdefaults))
        )
    if kind == "array":
        return type(value) is np.ndarray and (value.dtype.str, value.ndim) == fp[1:]
    if kind == "kind":
        return analysis.value_kind(value) == fp[1:]
    try:
        expected = _resolve(fp)
    except _Stale:
        return False
    if kind in ("float", "literal"):
        return type(value) is type(expected) and repr(value) == repr(expected)
    return value is expected


# --------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------

_GONE = object()


def _store(directory: _Directory, key: str, path: Path, fn: types.FunctionType, entry: pipeline.Compiled) -> None:
    payload = _describe(fn, entry)
    if payload is None:
        stats["uncacheable"] += 1
        return
    mac = hmac.new(directory.secret, key.encode() + payload, hashlib.sha256).digest()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory.path, prefix=".entry-")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + mac + payload)
        os.replace(tmp, path)
        tmp = None
        stats["stored"] += 1
    except OSError as e:
        stats["write_errors"] += 1
        if stats["write_errors"] == 1:
            warnings.warn(f"zygote_py cannot write its gradient cache in {directory.path}: {e}; "
                          "gradients are compiled in memory only", RuntimeWarning, stacklevel=2)
    finally:
        if tmp is not None:
            os.unlink(tmp)


def _describe(fn: types.FunctionType, entry: pipeline.Compiled) -> Optional[bytes]:
    """The payload of ``entry``'s cache file, or None when another process
    could not rebuild it faithfully."""
    if entry.constant_violations:
        return None  # (rare: errors are not worth a format of their own)
    home = fn.__globals__
    cell_names = {id(c): n for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ())}
    guards = []
    for kind, where, value in entry.guards:
        if kind == "cell" and id(where) not in cell_names:
            return None
        fp = _fingerprint(value, home)
        if fp is None:
            return None
        guards.append((kind, where if kind == "global" else cell_names[id(where)], fp))
    try:
        parts = (entry._emit_forward(), entry._emit_fused())
    except ZygoteError:
        return None  # (raised again where the code is used)
    functions = []
    for code, constants, fdef in parts:
        refs = tuple((name, _reference(value)) for name, value in sorted(constants.items()))
        if any(ref is None for _, ref in refs):
            return None
        functions.append((code, refs, pickle.dumps(fdef, protocol=pickle.HIGHEST_PROTOCOL)))
    sig = entry.signature
    return marshal.dumps((
        (tuple(sig.posonly), tuple(sig.args), sig.vararg, tuple(sig.kwonly), sig.kwarg),
        tuple(entry.changed_params), tuple(entry.stored_globals), entry.raises_out, tuple(guards), tuple(functions),
    ))


def _load(directory: _Directory, key: str, path: Path, fn: types.FunctionType,
          build: Callable[[types.FunctionType], pipeline.Compiled]) -> Optional["Loaded"]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        stats["misses"] += 1
        return None
    except OSError:
        stats["rejected"] += 1
        return None
    head = len(MAGIC) + _MAC_SIZE
    mac = hmac.new(directory.secret, key.encode() + data[head:], hashlib.sha256).digest()
    if not data.startswith(MAGIC) or not hmac.compare_digest(data[len(MAGIC):head], mac):
        stats["rejected"] += 1
        return None
    sig, changed, stored, raises_out, guards, functions = marshal.loads(data[head:])
    home = fn.__globals__
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    held_globals, held_cells = [], []
    for kind, name, fp in guards:
        if kind == "global":
            value = home[name] if name in home else builtins.__dict__.get(name, _GONE)
            held_globals.append((name, value))
        else:
            cell = cells.get(name)
            value = _GONE if cell is None else _cell_value(cell)
            held_cells.append((name, cell, analysis.Kind(fp[1:]) if fp[0] == "kind" else value))
        if value is _GONE or not _holds(value, fp, home):
            stats["stale"] += 1
            return None
    try:
        parts = [(code, {name: _resolve(ref) for name, ref in refs}, fdef) for code, refs, fdef in functions]
    except _Stale:
        stats["stale"] += 1
        return None
    posonly, args, vararg, kwonly, kwarg = sig
    return Loaded(fn, Signature(list(posonly), list(args), vararg, list(kwonly), kwarg), list(changed),
                  list(stored), raises_out, held_globals, held_cells, parts, build)


def _cell_value(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _GONE


class Loaded(pipeline.Compiled):
    """A compilation read from the cache: its emitted functions as stored
    (their definitions unpickled when first asked for), guarded like the
    compilation it stands for; its IR (``forward_ir``, ``pullback_ir``,
    ``guards``) is compiled again when asked for."""

    def __init__(self, fn: types.FunctionType, signature: Signature, changed_params: list[str],
                 stored_globals: list[str], raises_out: bool, globals_: list[tuple], cells: list[tuple], parts: list[tuple],
                 build: Callable[[types.FunctionType], pipeline.Compiled]):
        self.name = fn.__name__
        self.freevars = fn.__code__.co_freevars
        self.filename = fn.__code__.co_filename
        self.signature = signature
        self.changed_params = changed_params
        self.stored_globals = stored_globals
        self.raises_out = raises_out
        self.constant_violations: list = []  # (a compilation with some is not stored: see _describe)
        self.generation = registry.generation()
        self._globals = globals_
        self._cells = cells
        self._parts = parts
        self._forward = self._fused = self._fused_gradients = self._vjp = None
        # (the gradient function that skips the value is not cached: this one computes it)
        self.sum_output = self.float_output = False
        self._instances = weakref.WeakKeyDictionary()
        self._function = weakref.ref(fn)
        self._build = build
        self._rebuilt: Optional[pipeline.Compiled] = None

    def _unpacked(self, i: int) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        code, constants, fdef = self._parts[i]
        return code, constants, pickle.loads(fdef)

    def _build_forward(self) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        return self._unpacked(0)

    def _build_fused(self, value: bool) -> tuple[types.CodeType, dict[str, Any], gast.FunctionDef]:
        return self._unpacked(1)

    def _compilation(self) -> pipeline.Compiled:
        if self._rebuilt is None:
            fn = self._function()
            if fn is None:
                raise CacheError(f"the IR of {self.name}'s cached gradient is gone with the function",
                                 function=self.name, filename=self.filename,
                                 hint="ask the function's own Differentiable (or pipeline.compiled) again")
            with pipeline._LOCK:
                self._rebuilt = self._build(fn)
        return self._rebuilt

    @property
    def forward_ir(self) -> IR:
        return self._compilation().forward_ir

    @property
    def pullback_ir(self) -> IR:
        return self._compilation().pullback_ir

    @property
    def guards(self) -> list[tuple]:
        return self._compilation().guards
