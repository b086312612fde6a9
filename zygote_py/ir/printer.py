"""IR as text, in the notation of IRTools and the Zygote papers::

    1: (%1, %2)
      %3 = operator.gt(%2, 0)
      br 3 unless %3
      br 2 (%1)
"""
from __future__ import annotations

from .core import IR, Block, Branch, Jump, Raise, Return, Statement


def print_ir(ir: IR) -> str:
    """The IR's text, after a comment line naming the function."""
    head = f"# {ir.name} ({ir.filename}:{ir.firstline})" if ir.firstline else f"# {ir.name}"
    return head + "\n" + "\n".join(_block(ir, b) for b in ir.blocks.values()) + "\n"


def _block(ir: IR, b: Block) -> str:
    head = f"{b.id}:"
    if b.args:
        head += " (" + ", ".join(_var(ir, a) for a in b.args) + ")"
    lines = [head]
    if b.handler is not None:
        lines.append(f"  catch {_jump(b.handler)}")
    lines += ["  " + _stmt(ir, s) for s in b.stmts]
    t = b.term
    if isinstance(t, Jump):
        lines.append(f"  br {_jump(t)}")
    elif isinstance(t, Branch):
        lines.append(f"  br {_jump(t.orelse)} unless {t.cond!r}")
        lines.append(f"  br {_jump(t.then)}")
    elif isinstance(t, Return):
        lines.append(f"  return {t.value!r}")
    elif isinstance(t, Raise):
        cause = "" if t.cause is None else f" from {t.cause!r}"
        lines.append(f"  raise {t.exc!r}{cause}")
    else:
        lines.append("  <no terminator>")
    return "\n".join(lines)


def _var(ir: IR, v) -> str:
    name = ir.names.get(v)
    return f"{v!r}" if name is None else f"{v!r}:{name}"


def _jump(j: Jump) -> str:
    if not j.args:
        return str(j.target)
    return f"{j.target} (" + ", ".join(map(repr, j.args)) + ")"


def _stmt(ir: IR, s: Statement) -> str:
    args = [repr(a) for a in s.args]
    args += [f"**{v!r}" if k is None else f"{k}={v!r}" for k, v in s.kwargs]
    line = f"{_var(ir, s.var)} = {s.callee!r}({', '.join(args)})"
    return line
