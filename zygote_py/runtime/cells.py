"""Calls of nested functions that share captured variables (cells) with
their caller: the values they leave in the cells they assign, their
pullbacks and tangents (see :mod:`zygote_py.ad.cells` for the transform).

May import: the runtime's lower modules, :mod:`.seam`, :mod:`zygote_py.ir.ops`.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Optional

from ..errors import UnsupportedSyntax
from ..ir import ops
from . import seam
from .gradients import zero_tangent


def call_with_cells(f: Any, shared: tuple, written: tuple, values: tuple, *args: Any,
                    **kwargs: Any) -> tuple[Any, tuple]:
    """``f(*args, **kwargs)`` for a nested function ``f`` that shares the
    cells ``shared`` with its caller (whose values at the call are
    ``values``), and the values it left in those it assigns, ``written``
    (see :mod:`zygote_py.ad.cells`)."""
    y = f(*args, **kwargs)
    cells = dict(zip(f.__code__.co_freevars, f.__closure__))
    return y, tuple(cells[name].cell_contents for name in written)


def forward_with_cells(f: Any, shared: tuple, written: tuple, values: tuple, args: tuple) -> tuple[Any, Callable]:
    """:func:`call_with_cells`'s call and its pullback in ``J``'s convention,
    from the gradients of its value and of the values it left in the cells
    ``written``. The call reads the values it was handed, which may be
    copies: its pullback must see an object as it was at the call, though
    the caller changes it in place afterwards (a cell it does not assign
    gets its object back after the call)."""
    check_assigned(f, written)
    with lent_cells(f, shared, values, keep=written):  # (a call made again finds its cells as they were)
        return seam.compiler().call_forward(f, args, {}, cells_out=written)


@contextlib.contextmanager
def lent_cells(f: Any, names: tuple, values: tuple, keep: tuple = ()) -> Iterator[None]:
    """The cells ``names`` of the closure ``f`` hold ``values`` (those
    that are not ``ops.UNBOUND``) while the block runs, and their own
    values again after it, but for those in ``keep``, which keep what the
    block left in them."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__))
    own = {}
    for name, value in zip(names, values):
        cell = cells[name]
        if value is ops.UNBOUND:
            continue
        if name not in keep:
            try:
                own[name] = cell.cell_contents
            except ValueError:  # (unbound: unbound again after)
                own[name] = ops.UNBOUND
        cell.cell_contents = value
    try:
        yield
    finally:
        for name, value in own.items():
            if value is ops.UNBOUND:
                del cells[name].cell_contents
            else:
                cells[name].cell_contents = value


def push_with_cells(f: Any, shared: tuple, written: tuple, dvalues: Optional[tuple], args: tuple, kwargs: dict,
                    dargs: tuple, dkwargs: dict) -> tuple[tuple, tuple]:
    """:func:`call_with_cells`'s value ``(y, values left in written)`` and
    its tangent, given ``dvalues``, the tangents of the values of the cells
    ``shared`` at the call (``None``: all zero), and the arguments'. Every
    tangent is concrete (a zero, not ``None``), as the caller goes on
    computing with the cells' values."""
    check_assigned(f, written)
    dvalues = (None,) * len(shared) if dvalues is None else dvalues
    (y, left), (dy, dleft) = seam.compiler().call_jvp_with_cells(f, shared, dvalues, written, args, kwargs, dargs, dkwargs)
    dleft = (None,) * len(written) if dleft is None else dleft
    return (y, left), (_concrete(y, dy), tuple(_concrete(v, d) for v, d in zip(left, dleft)))


def _concrete(x: Any, dx: Any) -> Any:
    return zero_tangent(x) if dx is None else dx


def check_assigned(f: Any, written: tuple) -> None:
    """Refuse a call of the nested function ``f``, which assigns the cells
    ``written``, while one of them is still unassigned: its compiled code
    reads each such cell once at its start (see :mod:`.ad.cells`)."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__))
    for name in written:
        try:
            cells[name].cell_contents
        except ValueError:
            raise UnsupportedSyntax(
                f"calling {f.__name__}, which assigns `{name}` (nonlocal), before `{name}` is assigned",
                hint=f"assign {name} before the call (for instance {name} = None)",
            ) from None
