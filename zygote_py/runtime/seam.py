"""The one way run-time code reaches the compiler.

Emitted gradient code calls the runtime, and the runtime's dispatch of
calls unknown at compile time (``J``, ``push``) sometimes meets a Python
callee that nothing has compiled yet: it must compile it then. The runtime
never imports the compiler for that. The compiler
(:mod:`zygote_py.ad.pipeline`) installs itself here when it is imported
(:func:`install`), and the public API names a loader that imports it
(:func:`set_loader`), so that run-time code running before anything was
compiled (a gradient read from the disk cache) finds it when it first
needs it.

What the runtime calls on the compiler, by name: ``call_forward``,
``call_jvp``, ``call_jvp_closure``, ``call_jvp_with_cells``, ``construct``,
``vjp_plan``, ``masks``, ``compiled``, ``never_library``,
``changed_positions``, ``self_calls`` and ``push_rule`` (see each in
:mod:`zygote_py.ad.pipeline`).

May import: nothing of zygote_py.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

_compiler: Any = None
_loader: Optional[Callable[[], Any]] = None


def install(compiler: Any) -> None:
    """Make ``compiler`` the one the runtime calls (the compiler calls
    this when it is imported)."""
    global _compiler
    _compiler = compiler


def set_loader(loader: Callable[[], Any]) -> None:
    """``loader()`` imports the compiler (which installs itself): called
    the first time the runtime needs a compiler that is not installed."""
    global _loader
    _loader = loader


def compiler() -> Any:
    """The installed compiler, loaded first if it is not yet."""
    if _compiler is None and _loader is not None:
        _loader()
    if _compiler is None:
        raise RuntimeError("zygote_py's compiler is not loaded: import zygote_py")
    return _compiler
