"""Algebraic simplification of tensor expressions, chiefly the elimination
of summations over one-point Iverson predicates (paper §2.1–2.2):

    sum i. [i + k == m] * e    ->    [0 <= m - k < n_i] * e[i := m - k]

which is what turns the adjoint of a convolution into a correlation and the
adjoint of ``trace`` into an Iverson diagonal. The range atoms of the
eliminated index are kept unless the ranges of the remaining indices decide
them. Besides that: products are flattened with one merged Iverson bracket
in front, brackets that do not depend on a summation index move out of it,
constants fold, and zeros annihilate.

Every rewrite keeps the value and does not increase the cost (§4.3).
"""
from __future__ import annotations

from zygote_py.tensor import syntax as S
from zygote_py.tensor.syntax import ONE, ZERO, Atom, Expr


def simplify(e: Expr) -> Expr:
    """``e`` simplified bottom-up."""
    kids = S.children(e)
    if kids:
        e = S.rebuild(e, tuple(simplify(c) for c in kids))
    if isinstance(e, S.Iverson):
        return iverson_of(e.atoms)
    if isinstance(e, S.Add):
        if is_zero(e.a):
            return e.b
        if is_zero(e.b):
            return e.a
        if isinstance(e.a, S.Const) and isinstance(e.b, S.Const):
            return S.Const(e.a.value + e.b.value)
        if e.a == e.b:  # one multiplication instead of an addition of two products
            return product([S.Const(2.0)] + factors(e.a))
        return e
    if isinstance(e, S.Mul):
        return product(factors(e))
    if isinstance(e, S.Sum):
        return _sum(e.idx, e.body)
    if isinstance(e, S.Access) and isinstance(e.e, S.Gen):
        from zygote_py.tensor.normalise import push_out_gens

        return simplify(push_out_gens(e))
    if isinstance(e, S.Proj) and isinstance(e.e, S.Pair):
        return (e.e.a, e.e.b)[e.k]
    return e


def is_zero(e: Expr) -> bool:
    return isinstance(e, S.Const) and e.value == 0.0


def iverson_of(atoms: tuple[Atom, ...]) -> Expr:
    """The bracket of ``atoms`` without the atoms the index ranges decide:
    ``0`` if one is false, ``1`` if all are true."""
    kept: list[Atom] = []
    for a in atoms:
        t = a.truth()
        if t is False:
            return ZERO
        if t is None and a not in kept:
            kept.append(a)
    return S.Iverson(tuple(kept)) if kept else ONE


def factors(e: Expr) -> list[Expr]:
    if isinstance(e, S.Mul):
        return factors(e.a) + factors(e.b)
    return [e]


def product(fs: list[Expr]) -> Expr:
    """The product of ``fs``: brackets merged in front, constants folded."""
    atoms: list[Atom] = []
    const = 1.0
    rest: list[Expr] = []
    for f in fs:
        if isinstance(f, S.Iverson):
            atoms += f.atoms
        elif isinstance(f, S.Const):
            const *= f.value
        else:
            rest.append(f)
    bracket = iverson_of(tuple(atoms))
    if const == 0.0 or is_zero(bracket):
        return ZERO
    out: list[Expr] = [] if bracket == ONE else [bracket]
    if const != 1.0 or not rest:
        out.append(S.Const(const))
    out += rest
    e = out[0]
    for f in out[1:]:
        e = S.Mul(e, f)
    if e == ONE and bracket != ONE:
        return bracket
    return e


def solve(atom: Atom, i: S.Index) -> S.Affine | None:
    """``i``'s value when ``atom`` is ``... ± i ... == 0``, else None."""
    c = atom.aff.coefs().get(i)
    if atom.kind != "eq" or c not in (1, -1):
        return None
    rest = S.Affine.make({j: k for j, k in atom.aff.terms if j != i}, atom.aff.const)
    return rest * -c


def range_atoms(i: S.Index, value: S.Affine) -> tuple[Atom, ...]:
    """``0 <= value < i.size``, as atoms."""
    return (S.le(0, value), S.lt(value, i.size))


def _sum(i: S.Index, body: Expr) -> Expr:
    if is_zero(body):
        return ZERO
    fs = factors(body)
    atoms = [a for f in fs if isinstance(f, S.Iverson) for a in f.atoms]
    for a in atoms:
        value = solve(a, i)
        if value is not None:
            new = [S.subst_index(f, i, value) for f in fs] + [S.Iverson(range_atoms(i, value))]
            return simplify(product(new))
    # Brackets that do not depend on i move out, to short-circuit the whole
    # sum. Other factors stay: moving c out of sum i. [p] * c * e saves
    # multiplications only when p holds more than once, and costs one when
    # it holds once, which the cost model must never see.
    outside = [f for f in fs if isinstance(f, S.Iverson) and i not in S.free_indices(f)]
    inside = [f for f in fs if not (isinstance(f, S.Iverson) and i not in S.free_indices(f))]
    if i.size == 1:
        return simplify(product([S.subst_index(f, i, S.Affine((), 0)) for f in fs]))
    if not outside:
        return S.Sum(i, body)
    return product(outside + [S.Sum(i, product(inside))])
