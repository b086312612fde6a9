"""How code in another process or module finds a value again: a literal
by its ``repr`` (:func:`literal`), anything else by an import
(:func:`importable`). Used by ``zpy emit`` (:mod:`zygote_py.writer`) and by
the disk cache (:mod:`zygote_py.ad.diskcache`).

May import: the standard library.
"""
from __future__ import annotations

import ast
import importlib
from typing import Any, Optional


def literal(value: Any) -> bool:
    """Whether ``value`` is a literal that its ``repr`` writes exactly."""
    try:
        return type(value) in (int, float, complex, str, bytes, bool, tuple, type(None)) and \
            ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):
        return False


def importable(value: Any) -> Optional[tuple[str, str]]:
    """``(module, name)`` such that ``from module import name`` is
    ``value``, if there is one."""
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None) or \
        getattr(value, "__name__", None)
    candidates = [module] if isinstance(module, str) else []
    candidates += ["numpy", "math", "operator", "cmath", "functools", "builtins"]
    for m in candidates:
        try:
            owner = importlib.import_module(m)
        except ImportError:
            continue
        if isinstance(name, str) and "." not in name and getattr(owner, name, None) is value:
            return m, name
    return None
