"""Print tensor expressions in the paper's notation::

    gen i:8. sum k:3. w[k] * x[i + k]
    [i == j] * dy
    let v = gen i:4. exp(x[i]) in sum i:4. v[i]
"""
from __future__ import annotations

from zygote_py.tensor import syntax as S

_PREC = {"let": 0, "binder": 1, "add": 2, "mul": 3, "atom": 4}


def show(e: S.Expr) -> str:
    """``e`` as one line of text."""
    return _show(e, 0)


def _atom_text(a: S.Atom) -> str:
    pos = S.Affine(tuple((i, c) for i, c in a.aff.terms if c > 0), max(a.aff.const, 0))
    neg = S.Affine(tuple((i, -c) for i, c in a.aff.terms if c < 0), max(-a.aff.const, 0))
    op = {"eq": "==", "ne": "!=", "lt": "<"}[a.kind]
    if a.kind != "lt" and not pos.terms:
        pos, neg = neg, pos
    return f"{pos!r} {op} {neg!r}"


def _show(e: S.Expr, ctx: int) -> str:
    if isinstance(e, S.Var):
        return e.name
    if isinstance(e, S.Const):
        v = e.value
        text = str(int(v)) if float(v).is_integer() else repr(v)
        return f"({text})" if v < 0 and ctx > _PREC["add"] else text
    if isinstance(e, S.Iverson):
        return "[" + " and ".join(_atom_text(a) for a in e.atoms) + "]" if e.atoms else "[true]"
    if isinstance(e, S.Access):
        return f"{_show(e.e, _PREC['atom'])}[{', '.join(repr(a) for a in e.index)}]"
    if isinstance(e, S.Call):
        return f"{e.fn}({_show(e.arg, 0)})"
    if isinstance(e, S.Pair):
        return f"({_show(e.a, 0)}, {_show(e.b, 0)})"
    if isinstance(e, S.Proj):
        return f"{('fst', 'snd')[e.k]}({_show(e.e, 0)})"
    if isinstance(e, S.Add):
        text = f"{_show(e.a, _PREC['add'])} + {_show(e.b, _PREC['add'] + 1)}"
        return f"({text})" if ctx > _PREC["add"] else text
    if isinstance(e, S.Mul):
        text = f"{_show(e.a, _PREC['mul'])} * {_show(e.b, _PREC['mul'] + 1)}"
        return f"({text})" if ctx > _PREC["mul"] else text
    if isinstance(e, (S.Gen, S.Sum)):
        word = "gen" if isinstance(e, S.Gen) else "sum"
        text = f"{word} {e.idx.name}:{e.idx.size}. {_show(e.body, _PREC['binder'])}"
        return f"({text})" if ctx > _PREC["binder"] else text
    if isinstance(e, S.Let):
        text = f"let {e.name} = {_show(e.rhs, 0)} in {_show(e.body, 0)}"
        return f"({text})" if ctx > 0 else text
    return object.__repr__(e)


def show_block(e: S.Expr) -> str:
    """A let-chain as one binding per line, then the result."""
    lines = []
    while isinstance(e, S.Let):
        lines.append(f"let {e.name} = {show(e.rhs)}")
        e = e.body
    lines.append(show(e))
    return "\n".join(lines)
