"""zygote_py's exceptions. Every message names the user's function, file and
line, and says what to do.

May import: nothing of zygote_py (every other part imports it).
"""
from __future__ import annotations

import os
from typing import Optional


def in_zygote_py(filename: Optional[str]) -> bool:
    """Whether ``filename`` is one of zygote_py's own files (its helpers,
    its rules, its gradient code differentiated again): an error located
    there belongs at the user's line."""
    return bool(filename) and filename.startswith(_OWN)


_OWN = os.path.dirname(os.path.abspath(__file__)) + os.sep


class ZygoteError(Exception):
    """Base class of every error zygote_py raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        function: Optional[str] = None,
        filename: Optional[str] = None,
        line: Optional[int] = None,
        hint: Optional[str] = None,
    ):
        self.message = message
        self.function = function
        self.filename = filename
        self.line = line
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.function is not None:
            where.append(f"in function {self.function!r}")
        if self.filename is not None:
            where.append(f"file {self.filename!r}")
        if self.line is not None:
            where.append(f"line {self.line}")
        text = self.message
        if where:  # (the user's line first, then what failed there)
            text = ", ".join(where) + ":\n  " + text.replace("\n", "\n  ")
        if self.hint:
            text += "\n  " + self.hint
        return text


class UnsupportedSyntax(ZygoteError):
    """The function uses a construct zygote_py cannot transform."""


class SourceNotFound(ZygoteError):
    """The function's source code cannot be retrieved."""


class NoDerivativeRule(ZygoteError):
    """A call reached with gradients flowing into it has no rule and no
    source to differentiate."""


class NonScalarOutput(ZygoteError):
    """``gradient`` needs a real scalar output."""


class BadTangent(ZygoteError, ValueError):
    """A cotangent given to ``back`` (or a tangent given to ``jvp``) that
    does not match its value: another shape, or not a number."""


class WrongArguments(ZygoteError, TypeError):
    """``gradient``, ``pullback`` or ``jvp`` was given a number of
    arguments the function does not take."""


class RecursionTooDeep(ZygoteError, RecursionError):
    """The differentiated function recursed past Python's recursion limit
    (a differentiated call uses a few Python frames where the plain call
    uses one)."""


class CacheError(ZygoteError):
    """The cache directory cannot be used safely."""
