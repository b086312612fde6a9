"""Forward (total) and adjoint derivatives of tensor expressions (paper §6).

:func:`forward` is the total derivative ``D``: a source-to-source rewrite
that gives, for each differentiated input ``x``, a tangent input ``dx``,
and returns an expression for the output's tangent (linear in the ``dx``).
Its let rule keeps sharing: ``D(let v = r in b) = let v = r in let dv = D r
in D b``. Zeros are symbolic, so nothing is built for a variable that no
tangent reaches.

:func:`adjoint` is the reverse derivative, derived through the universal
property of the adjoint, ``<dy, D e[dx]> = <adj(dy), dx>``. On the Tensor
SSA form of §5.4 (a chain of ``let v = gen i... body``, each body one
binary contraction, addition or map over reads of named values, so that
every coefficient below is a read), it walks the bindings backwards. For a binding ``v`` with seed ``dv`` it expands the inner
product ``sum i... dv[i...] * D body`` into monomials ``[p] * c * du[a]``
(each tangent read once, at an affine index ``a``) and reads off the
contribution to ``du`` at ``m...``::

    du = gen m... sum i... sum (body's sums). [p and a == m] * c * dv[i...]

then eliminates the summations the one-point predicates ``a == m`` pin down
(:mod:`zygote_py.tensor.simplify`). Contributions to one variable are
added under a single gen; an intermediate no contribution reaches is dead
(rule 6.32) and gets no binding. The result is purely functional: gathers,
never scatters.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from zygote_py.tensor import syntax as S
from zygote_py.tensor.normalise import Binding, bindings_of, dead_code, eta_expand, let_chain, normal_form, to_ssa
from zygote_py.tensor.simplify import factors, is_zero, range_atoms, simplify, solve
from zygote_py.tensor.syntax import ZERO, Expr, Fresh, Shape


def tangent_name(name: str) -> str:
    return "d" + name


# ---------------------------------------------------------------- forward


def forward(e: Expr, wrt: Sequence[str]) -> Expr:
    """The tangent of ``e`` given tangents ``d<x>`` of the inputs in
    ``wrt`` (rules 6.1–6.16). Let-bound names must not clash with ``d<x>``
    names; :func:`zygote_py.tensor.normalise.uniquify` ensures it."""
    return simplify(_fwd(e, {x: S.Var(tangent_name(x)) for x in wrt}))


def _mul(a: Expr, b: Expr) -> Expr:
    return ZERO if is_zero(a) or is_zero(b) else S.Mul(a, b)


def _add(a: Expr, b: Expr) -> Expr:
    return b if is_zero(a) else a if is_zero(b) else S.Add(a, b)


def _fwd(e: Expr, tan: Mapping[str, Optional[Expr]]) -> Expr:
    if isinstance(e, S.Var):
        return tan.get(e.name) or ZERO
    if isinstance(e, (S.Const, S.Iverson)):
        return ZERO
    if isinstance(e, S.Add):
        return _add(_fwd(e.a, tan), _fwd(e.b, tan))
    if isinstance(e, S.Mul):  # Leibniz
        return _add(_mul(_fwd(e.a, tan), e.b), _mul(e.a, _fwd(e.b, tan)))
    if isinstance(e, S.Call):
        return _mul(S.FUNCTIONS[e.fn][1](e.arg), _fwd(e.arg, tan))
    if isinstance(e, S.Pair):
        a, b = _fwd(e.a, tan), _fwd(e.b, tan)
        return ZERO if is_zero(a) and is_zero(b) else S.Pair(a, b)
    if isinstance(e, S.Proj):
        d = _fwd(e.e, tan)
        return ZERO if is_zero(d) else S.Proj(e.k, d)
    if isinstance(e, (S.Gen, S.Sum)):
        d = _fwd(e.body, tan)
        return ZERO if is_zero(d) and isinstance(e, S.Sum) else type(e)(e.idx, d)
    if isinstance(e, S.Access):
        d = _fwd(e.e, tan)
        return ZERO if is_zero(d) else S.Access(d, e.index)
    if isinstance(e, S.Let):
        d_rhs = _fwd(e.rhs, tan)
        if is_zero(d_rhs):
            return S.Let(e.name, e.rhs, _fwd(e.body, {**tan, e.name: None}))
        dname = tangent_name(e.name)
        body = _fwd(e.body, {**tan, e.name: S.Var(dname)})
        return S.Let(e.name, e.rhs, S.Let(dname, d_rhs, body))
    raise S.TensorLanguageError(f"cannot differentiate {e!r}")


# ---------------------------------------------------------------- adjoint


@dataclass(frozen=True)
class Monomial:
    """``sum sums. [atoms] * prod(coeff) * d<var>[index]``: one linear
    term of a scalar body's tangent."""

    sums: tuple[S.Index, ...]
    atoms: tuple[S.Atom, ...]
    coeff: tuple[Expr, ...]
    var: str
    index: tuple[S.Affine, ...]


def monomials(d: Expr, tangents: Mapping[str, str], fresh: Fresh) -> list[Monomial]:
    """Expand the linear expression ``d`` (tangent variable -> primal name
    in ``tangents``) into monomials; summation indices are renamed fresh so
    that the monomials share none."""
    if is_zero(d):
        return []
    if isinstance(d, S.Var) and d.name in tangents:
        return [Monomial((), (), (), tangents[d.name], ())]
    if isinstance(d, S.Access) and isinstance(d.e, S.Var) and d.e.name in tangents:
        return [Monomial((), (), (), tangents[d.e.name], d.index)]
    if isinstance(d, S.Add):
        return monomials(d.a, tangents, fresh) + monomials(d.b, tangents, fresh)
    if isinstance(d, S.Mul):
        lin, other = (d.b, d.a) if _mentions(d.b, tangents) else (d.a, d.b)
        if _mentions(other, tangents):
            raise S.TensorLanguageError(f"not linear in the tangents: {d!r}")
        fs = factors(other)
        atoms = tuple(a for f in fs if isinstance(f, S.Iverson) for a in f.atoms)
        coeff = tuple(f for f in fs if not isinstance(f, S.Iverson))
        return [Monomial(m.sums, atoms + m.atoms, coeff + m.coeff, m.var, m.index)
                for m in monomials(lin, tangents, fresh)]
    if isinstance(d, S.Sum):
        k = fresh.index(d.idx.name, d.idx.size)
        body = S.subst_index(d.body, d.idx, k.aff())
        return [Monomial((k,) + m.sums, m.atoms, m.coeff, m.var, m.index) for m in monomials(body, tangents, fresh)]
    raise S.TensorLanguageError(f"unexpected form in a tangent body: {d!r}",
                                hint="adjoint expects the normal form of zygote_py.tensor.normalise")


def _mentions(e: Expr, tangents: Mapping[str, str]) -> bool:
    return bool(S.free_vars(e) & set(tangents))


def transpose(m: Monomial, out_idx: tuple[S.Index, ...], seed: str, target: tuple[S.Index, ...]) -> Expr:
    """The contribution of monomial ``m`` of the body ``gen out_idx. ...``
    to ``d<m.var>[target]``, the seed being ``seed[out_idx]``: the inner
    product's rewriting followed by one-point summation elimination."""
    sums = list(out_idx) + list(m.sums)
    atoms = list(m.atoms) + [S.eq(a, t) for a, t in zip(m.index, target)]
    coeff = list(m.coeff)
    seed_index = [i.aff() for i in out_idx]
    progress = True
    while progress:
        progress = False
        for a in atoms:
            for i in sums:
                value = solve(a, i)
                if value is None:
                    continue
                sums.remove(i)
                atoms = [b.substitute(i, value) for b in atoms if b is not a] + list(range_atoms(i, value))
                coeff = [S.subst_index(c, i, value) for c in coeff]
                seed_index = [s.substitute(i, value) for s in seed_index]
                progress = True
                break
            if progress:
                break
    body: Expr = S.Access(S.Var(seed), tuple(seed_index)) if out_idx else S.Var(seed)
    inner_atoms = tuple(a for a in atoms if a.aff.indices() & set(sums))
    outer_atoms = tuple(a for a in atoms if not a.aff.indices() & set(sums))
    e = S.Iverson(inner_atoms)
    for c in coeff:
        e = S.Mul(e, c)
    e = S.Mul(e, body)
    for i in reversed(sums):
        e = S.Sum(i, e)
    return simplify(S.Mul(S.Iverson(outer_atoms), e))


def _gen_nest(rhs: Expr) -> tuple[tuple[S.Index, ...], Expr]:
    idx = []
    while isinstance(rhs, S.Gen):
        idx.append(rhs.idx)
        rhs = rhs.body
    return tuple(idx), rhs


@dataclass
class AdjointProgram:
    """The adjoint of an expression: ``expr`` evaluates, given the inputs
    and the seeds, to the tuple of input gradients (in ``inputs`` order)."""

    expr: Expr
    inputs: tuple[str, ...]
    seeds: tuple[str, ...]
    normal: Expr


def adjoint(e: Expr, tenv: Mapping[str, Shape], wrt: Optional[Sequence[str]] = None) -> AdjointProgram:
    """The reverse derivative of ``e`` with respect to the inputs ``wrt``
    (default: all of ``tenv``), each of type ``tenv[x]`` (tensors or
    scalars). The output may be a scalar, a tensor, or a (nested) pair of
    them; ``seeds`` names one seed per output leaf, left to right."""
    wrt = tuple(wrt if wrt is not None else tenv)
    nf = to_ssa(normal_form(e, tenv), tenv)
    bindings, result = bindings_of(nf)
    fresh = Fresh(nf, taken=tuple(tenv) + tuple(tangent_name(x) for x in tenv))
    outs: list[str] = []
    bindings = list(bindings)

    env = dict(tenv)
    for name, rhs in bindings:
        env[name] = S.shape_of(rhs, env)

    def name_outputs(r: Expr) -> Expr:
        if isinstance(r, S.Pair):
            return S.Pair(name_outputs(r.a), name_outputs(r.b))
        if isinstance(r, S.Var) and r.name not in tenv and r.name not in outs:
            outs.append(r.name)
            return r
        # An input, or an output returned twice: each output gets its own
        # binding, so that each seed has one variable to flow into.
        v = fresh.name("out")
        shape = S.shape_of(r, env)
        bindings.append((v, eta_expand(r, shape, fresh)))
        env[v] = shape
        outs.append(v)
        return S.Var(v)

    name_outputs(result)
    differentiable = list(wrt) + [n for n, _ in bindings]
    seeds = tuple(fresh.name(tangent_name(v)) for v in outs)
    targets = {v: tuple(fresh.index("m", n) for n in env[v]) for v in differentiable}
    contributions: dict[str, list[Expr]] = {v: [] for v in differentiable}
    seed_of = dict(zip(outs, seeds))
    adj: list[Binding] = []
    for name, rhs in reversed(bindings):
        contribs = contributions[name]
        if name in seed_of:
            dv = seed_of[name]
            if contribs:  # the output is also read later: add its seed in
                t = targets[name]
                contribs.append(S.Access(S.Var(dv), tuple(i.aff() for i in t)) if t else S.Var(dv))
            else:
                adj_name = dv
        if contribs:
            total = simplify(_plus(contribs))
            t = targets[name]
            if isinstance(total, S.Access) and isinstance(total.e, S.Var) and total.index == tuple(i.aff() for i in t):
                adj_name = total.e.name  # a copy: read the adjoint it copies
            elif isinstance(total, S.Var) and not t:
                adj_name = total.name
            else:
                adj_name = fresh.name(tangent_name(name))
                adj.append((adj_name, S.gen(t, total)))
        elif name not in seed_of:
            continue  # dead: no gradient reaches it (rule 6.32)
        out_idx, body = _gen_nest(rhs)
        used = S.free_vars(body)
        dvars = {tangent_name(v) + "__t": v for v in differentiable if v in used}
        tan = {v: S.Var(d) for d, v in dvars.items()}
        for m in monomials(simplify(_fwd_binding(name, out_idx, body, tan)), dvars, fresh):
            contributions[m.var].append(transpose(m, out_idx, adj_name, targets[m.var]))
    grads = []
    for x in wrt:
        t = targets[x]
        grads.append(S.gen(t, simplify(_plus(contributions[x]))) if contributions[x] else S.gen(t, ZERO))
    expr = dead_code(let_chain(bindings + adj, _flat_pair(grads)))
    return AdjointProgram(expr, wrt, seeds, nf)


def _fwd_binding(name: str, out_idx: tuple, body: Expr, tan: Mapping[str, Optional[Expr]]) -> Expr:
    """The tangent of a binding's body; a map ``[p] * f(a)`` whose ``f'`` is
    a function of ``f``'s output reads that output instead of calling ``f``
    again."""
    fs = factors(body)
    calls = [f for f in fs if not isinstance(f, S.Iverson)]
    if len(calls) == 1 and isinstance(calls[0], S.Call) and calls[0].fn in S.OUTPUT_DERIVATIVES:
        y = S.Access(S.Var(name), tuple(i.aff() for i in out_idx)) if out_idx else S.Var(name)
        brackets = [f for f in fs if isinstance(f, S.Iverson)]
        d = _mul(S.OUTPUT_DERIVATIVES[calls[0].fn](y), _fwd(calls[0].arg, tan))
        for b in brackets:
            d = _mul(b, d)
        return d
    return _fwd(body, tan)


def _plus(terms: list[Expr]) -> Expr:
    e = terms[0]
    for t in terms[1:]:
        e = S.Add(e, t)
    return e


def _flat_pair(grads: list[Expr]) -> Expr:
    """Gradients as right-nested pairs: (g1, (g2, g3))."""
    e = grads[-1]
    for g in reversed(grads[:-1]):
        e = S.Pair(g, e)
    return e


def unpack(value: object, n: int) -> tuple:
    """The right-nested pair of :func:`adjoint`'s result as a flat tuple."""
    out = []
    for _ in range(n - 1):
        out.append(value[0])  # type: ignore[index]
        value = value[1]  # type: ignore[index]
    out.append(value)
    return tuple(out)
