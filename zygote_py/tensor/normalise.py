"""Normalisation passes (paper §5), each a function from expressions to
expressions with the same value and no greater cost:

- :func:`uniquify` — every let-bound name distinct (the passes assume it);
- :func:`let_lift` (§5.1) — all lets at the top; a let under ``gen i`` or
  ``sum i`` is generalised over ``i`` (loop fission / lambda lifting);
- :func:`eliminate_pairs` (§5.2) — no pair-valued intermediates: pair lets
  split in two, projections pushed through gen, sum, access and let;
- :func:`push_out_gens` (§5.3) — gens outermost in every right-hand side:
  ``(gen i. b)[a] -> b[i := a]``, ``sum k. gen j. b -> gen j. sum k. b``;
- :func:`to_ssa` (§5.4) — Tensor SSA: one let per tensor operation, each
  right-hand side a gen-nest over one binary contraction, addition or map,
  guarded by the brackets around it, with CSE by structural equality up to
  canonical index names;
- :func:`verify_normal_form` — the invariants, checked after both.

:func:`normal_form` runs the first four; the derivative passes use it.
"""
from __future__ import annotations

from typing import Mapping

from zygote_py.tensor import syntax as S
from zygote_py.tensor.syntax import Expr, Fresh, Shape

Binding = tuple[str, Expr]


def uniquify(e: Expr, taken: tuple[str, ...] = ()) -> Expr:
    """Rename let-bound variables and gen/sum indices so that no name is
    bound twice or shadows a free name."""
    fresh = Fresh(taken=tuple(S.free_vars(e)) + tuple(taken))
    return _uniq(e, fresh, {})


def _uniq(e: Expr, fresh: Fresh, ren: dict) -> Expr:
    if isinstance(e, S.Var):
        return S.Var(ren.get(e.name, e.name))
    if isinstance(e, S.Let):
        rhs = _uniq(e.rhs, fresh, ren)
        new = fresh.name(e.name)
        return S.Let(new, rhs, _uniq(e.body, fresh, {**ren, e.name: new}))
    if isinstance(e, (S.Gen, S.Sum)):
        new = S.Index(fresh.name(e.idx.name), e.idx.size)
        body = S.subst_index(e.body, e.idx, new.aff()) if new != e.idx else e.body
        return type(e)(new, _uniq(body, fresh, ren))
    kids = S.children(e)
    return S.rebuild(e, tuple(_uniq(c, fresh, ren) for c in kids)) if kids else e


def bindings_of(e: Expr) -> tuple[list[Binding], Expr]:
    """A let-chain's bindings and its result."""
    out = []
    while isinstance(e, S.Let):
        out.append((e.name, e.rhs))
        e = e.body
    return out, e


def let_chain(bindings: list[Binding], result: Expr) -> Expr:
    for name, rhs in reversed(bindings):
        result = S.Let(name, rhs, result)
    return result


def let_lift(e: Expr, tenv: Mapping[str, Shape]) -> Expr:
    """§5.1: move every let to the top of ``e`` (names must be unique; see
    :func:`uniquify`). Right-hand sides of the result contain no lets."""
    tenv = dict(tenv)
    bindings, core = _lift(e, tenv)
    return let_chain(bindings, core)


def _lift(e: Expr, tenv: dict) -> tuple[list[Binding], Expr]:
    if isinstance(e, S.Let):
        b1, rhs = _lift(e.rhs, tenv)
        tenv[e.name] = S.shape_of(rhs, tenv)
        b2, body = _lift(e.body, tenv)
        return b1 + [(e.name, rhs)] + b2, body
    if isinstance(e, (S.Gen, S.Sum)):
        inner, body = _lift(e.body, tenv)
        out: list[Binding] = []
        widened: set[str] = set()
        for name, rhs in inner:
            for w in widened:
                rhs = _widen(rhs, w, e.idx, tenv)
            if e.idx in S.free_indices(rhs) or S.free_vars(rhs) & widened:
                rhs = S.Gen(e.idx, rhs)
                widened.add(name)
            tenv[name] = S.shape_of(rhs, tenv)
            out.append((name, rhs))
        for w in widened:
            body = _widen(body, w, e.idx, tenv)
        return out, type(e)(e.idx, body)
    if isinstance(e, S.Mul):
        return _lift_product(e, tenv)
    kids = S.children(e)
    if not kids:
        return [], e
    bs: list[Binding] = []
    new = []
    for c in kids:
        b, c2 = _lift(c, tenv)
        bs += b
        new.append(c2)
    return bs, S.rebuild(e, tuple(new))


def _lift_product(e: S.Mul, tenv: dict) -> tuple[list[Binding], Expr]:
    """Lift out of a product, guarding each lifted right-hand side with the
    product's brackets (rule 5.9): a value computed only where the product
    needs it keeps the lifting cost-neutral."""
    from zygote_py.tensor.simplify import factors

    fs = factors(e)
    atoms = tuple(a for f in fs if isinstance(f, S.Iverson) for a in f.atoms)
    bs: list[Binding] = []
    new = []
    for f in fs:
        b, f2 = _lift(f, tenv)
        if atoms:
            b = [(name, _guard(rhs, atoms)) for name, rhs in b]
            for name, rhs in b:
                tenv[name] = S.shape_of(rhs, tenv)
        bs += b
        new.append(f2)
    out = new[0]
    for f in new[1:]:
        out = S.Mul(out, f)
    return bs, out


def _guard(rhs: Expr, atoms: tuple) -> Expr:
    """``rhs`` computed only where ``atoms`` hold (zero elsewhere)."""
    if isinstance(rhs, S.Gen):
        return S.Gen(rhs.idx, _guard(rhs.body, atoms))
    if isinstance(rhs, S.Pair):
        return S.Pair(_guard(rhs.a, atoms), _guard(rhs.b, atoms))
    return S.Mul(S.Iverson(atoms), rhs)


def _widen(e: Expr, name: str, idx: S.Index, tenv: dict) -> Expr:
    """Uses of ``name`` now bound to ``gen idx. <old rhs>``: read at ``idx``."""
    if isinstance(e, S.Access) and isinstance(e.e, S.Var) and e.e.name == name:
        return S.Access(e.e, (idx.aff(),) + e.index)
    if isinstance(e, S.Var) and e.name == name:
        shape = tenv[name][1:]
        if shape == ():
            return S.Access(e, (idx.aff(),))
        fresh = Fresh(e, taken=(idx.name,))
        js = tuple(fresh.index("j", n) for n in shape)
        return S.gen(js, S.Access(e, (idx.aff(),) + tuple(j.aff() for j in js)))
    kids = S.children(e)
    return S.rebuild(e, tuple(_widen(c, name, idx, tenv) for c in kids)) if kids else e


def eliminate_pairs(e: Expr, tenv: Mapping[str, Shape]) -> Expr:
    """§5.2 on a let-lifted expression whose inputs are not pairs: no
    intermediate has a pair type; only the result may be a (nested) pair."""
    tenv = dict(tenv)
    bindings, result = bindings_of(e)
    out: list[Binding] = []
    parts: dict[str, Expr] = {}
    for name, rhs in bindings:
        rhs = _push_proj(_replace_parts(rhs, parts))
        out += _split(name, rhs, tenv, parts)
    return let_chain(out, _push_proj(_replace_parts(result, parts)))


def _split(name: str, rhs: Expr, tenv: dict, parts: dict) -> list[Binding]:
    t = S.shape_of(rhs, tenv)
    if not S.is_pair(t):
        tenv[name] = t
        return [(name, rhs)]
    out = []
    names = []
    for k in (0, 1):
        sub = f"{name}_{k + 1}"
        names.append(sub)
        out += _split(sub, _push_proj(S.Proj(k, rhs)), tenv, parts)
    parts[name] = S.Pair(_replace_parts(S.Var(names[0]), parts), _replace_parts(S.Var(names[1]), parts))
    return out


def _replace_parts(e: Expr, parts: dict) -> Expr:
    if isinstance(e, S.Var):
        return parts.get(e.name, e)
    kids = S.children(e)
    return S.rebuild(e, tuple(_replace_parts(c, parts) for c in kids)) if kids else e


def _push_proj(e: Expr) -> Expr:
    """Push projections inwards until they meet a pair constructor."""
    kids = S.children(e)
    if kids:
        e = S.rebuild(e, tuple(_push_proj(c) for c in kids))
    if isinstance(e, S.Proj):
        inner = e.e
        if isinstance(inner, S.Pair):
            return (inner.a, inner.b)[e.k]
        if isinstance(inner, (S.Gen, S.Sum)):
            return type(inner)(inner.idx, _push_proj(S.Proj(e.k, inner.body)))
        if isinstance(inner, S.Access):
            return _push_proj(S.Access(_push_proj(S.Proj(e.k, inner.e)), inner.index))
        if isinstance(inner, S.Let):
            return S.Let(inner.name, inner.rhs, _push_proj(S.Proj(e.k, inner.body)))
    return e


def push_out_gens(e: Expr) -> Expr:
    """§5.3: reads of generated tensors become substitutions, and sums of
    tensors become tensors of sums, so gens sit outermost."""
    kids = S.children(e)
    if kids:
        e = S.rebuild(e, tuple(push_out_gens(c) for c in kids))
    if isinstance(e, S.Access) and isinstance(e.e, S.Gen):
        g = e.e
        body = S.subst_index(g.body, g.idx, e.index[0])
        rest = e.index[1:]
        return push_out_gens(S.Access(body, rest)) if rest else body
    if isinstance(e, S.Sum) and isinstance(e.body, S.Gen):
        g = e.body
        return S.Gen(g.idx, push_out_gens(S.Sum(e.idx, g.body)))
    if isinstance(e, S.Sum) and isinstance(e.body, S.Pair):
        return S.Pair(push_out_gens(S.Sum(e.idx, e.body.a)), push_out_gens(S.Sum(e.idx, e.body.b)))
    return e


def eta_expand(e: Expr, shape: tuple[int, ...], fresh: Fresh) -> Expr:
    """A tensor-valued ``e`` that is not a gen as ``gen j.. e[j..]``."""
    if isinstance(e, S.Gen) or shape == ():
        return e
    js = tuple(fresh.index("j", n) for n in shape)
    return push_out_gens(S.gen(js, S.Access(e, tuple(j.aff() for j in js))))


def normal_form(e: Expr, tenv: Mapping[str, Shape]) -> Expr:
    """Let-lifted, pair-free, gens pushed out, every tensor right-hand side
    a gen-nest over a scalar body that reads only variables."""
    e = uniquify(e)
    e = let_lift(e, tenv)
    e = eliminate_pairs(e, tenv)
    bindings, result = bindings_of(e)
    fresh = Fresh(e, taken=tuple(tenv))
    env = dict(tenv)
    out = []
    for name, rhs in bindings:
        rhs = push_out_gens(rhs)
        shape = S.shape_of(rhs, env)
        rhs = eta_expand(rhs, shape, fresh)
        env[name] = shape
        out.append((name, rhs))
    nf = let_chain(out, push_out_gens(result))
    verify_normal_form(nf, tenv)
    return nf


def verify_normal_form(e: Expr, tenv: Mapping[str, Shape]) -> None:
    """Check the invariants of :func:`normal_form` (run after it, and after
    :func:`to_ssa`): top-level lets only, each right-hand side a gen-nest over
    a body without lets, gens or pairs, reading only variables."""
    bindings, result = bindings_of(e)
    env = dict(tenv)
    for name, rhs in bindings:
        while isinstance(rhs, S.Gen):
            rhs = rhs.body
        _check_body(name, rhs)
        env[name] = S.shape_of(dict(bindings)[name], env)
    S.shape_of(result, env)


def _check_body(name: str, e: Expr) -> None:
    if isinstance(e, (S.Let, S.Gen, S.Pair, S.Proj)):
        raise S.TensorLanguageError(f"normal form violated in the binding of {name}: {e!r}")
    if isinstance(e, S.Access) and not isinstance(e.e, S.Var):
        raise S.TensorLanguageError(f"normal form violated in the binding of {name}: read of {e.e!r}")
    for c in S.children(e):
        _check_body(name, c)


def dead_code(e: Expr) -> Expr:
    """Drop let-bindings whose variable is never read."""
    bindings, result = bindings_of(e)
    live = S.free_vars(result)
    kept: list[Binding] = []
    for name, rhs in reversed(bindings):
        if name in live:
            kept.append((name, rhs))
            live = (live - {name}) | S.free_vars(rhs)
    return let_chain(list(reversed(kept)), result)


def to_ssa(e: Expr, tenv: Mapping[str, Shape]) -> Expr:
    """§5.4, on :func:`normal_form` output: every black-box call, every
    summation that is not the whole of a right-hand side and every factor
    of a product that is not a read gets its own binding ``t = gen <its
    free indices>. [guard] * <it>``, and products are made binary, so that
    a right-hand side is one contraction (a sum of a bracketed product of
    two reads), an addition, or a map. Each named value carries the
    brackets of the products around it (the paper's computation mask), and
    its readers repeat its own brackets. Bindings are shared by structural
    equality after canonical renaming of their indices (CSE).

    This is what keeps adjoints cheap: the coefficients the adjoint
    multiplies by are then reads of named values, never recomputations."""
    bindings, result = bindings_of(e)
    fresh = Fresh(e, taken=tuple(tenv))
    ssa = _SSA(fresh)
    for name, rhs in bindings:
        ssa.binding(name, rhs)
    def name_leaves(r: Expr) -> Expr:
        if isinstance(r, S.Pair):
            return S.Pair(name_leaves(r.a), name_leaves(r.b))
        if isinstance(r, S.Var):
            return r
        name = fresh.name("out")
        ssa.binding(name, r)
        return S.Var(ssa.alias.get(name, name))

    out = let_chain(ssa.out, name_leaves(_rename_vars(result, ssa.alias)))
    verify_normal_form(out, tenv)
    return out



class _SSA:
    def __init__(self, fresh: Fresh):
        self.fresh = fresh
        self.out: list[Binding] = []
        self.memo: dict[Expr, str] = {}
        self.alias: dict[str, str] = {}

    def binding(self, name: str, rhs: Expr) -> None:
        from zygote_py.tensor.simplify import simplify

        rhs = simplify(rhs)  # brackets hoisted out of the sums they do not depend on
        idx = []
        while isinstance(rhs, S.Gen):
            idx.append(rhs.idx)
            rhs = rhs.body
        self.emit(name, S.gen(tuple(idx), self.top(rhs, tuple(idx), ())))

    def emit(self, name: str, rhs: Expr) -> None:
        rhs = _rename_vars(rhs, self.alias)
        key = canonical(rhs)
        if key in self.memo:
            self.alias[name] = self.memo[key]
            return
        self.memo[key] = name
        self.out.append((name, rhs))

    def top(self, e: Expr, ctx: tuple, atoms: tuple) -> Expr:
        """A right-hand side's body: its outer sums stay; inside them,
        calls and nested sums are named. ``atoms`` are the brackets of the
        enclosing products, carried into every named value so that it is
        computed only where it is used (the paper's computation mask)."""
        if isinstance(e, S.Sum):
            return S.Sum(e.idx, self.top(e.body, ctx + (e.idx,), atoms))
        if isinstance(e, S.Call):
            return S.Call(e.fn, self.operand(e.arg, ctx, atoms))
        return self.inner(e, ctx, atoms)

    def inner(self, e: Expr, ctx: tuple, atoms: tuple) -> Expr:
        if isinstance(e, (S.Sum, S.Call)):
            return self.operand(e, ctx, atoms)
        if isinstance(e, S.Mul):
            from zygote_py.tensor.simplify import factors

            fs = factors(e)
            brackets = [f for f in fs if isinstance(f, S.Iverson)]
            atoms = atoms + tuple(a for f in brackets for a in f.atoms)
            # Products are binary, of reads: each multiplication is its own
            # binding, so the Leibniz rule adds a constant per multiplication.
            rest = [self.operand(f, ctx, atoms) for f in fs if not isinstance(f, S.Iverson)]
            while len(rest) > 2:
                rest = [self.operand(S.Mul(rest[0], rest[1]), ctx, atoms)] + rest[2:]
            out = brackets + rest
            prod = out[0]
            for f in out[1:]:
                prod = S.Mul(prod, f)
            return prod
        kids = S.children(e)
        return S.rebuild(e, tuple(self.inner(c, ctx, atoms) for c in kids)) if kids else e

    def operand(self, e: Expr, ctx: tuple, atoms: tuple) -> Expr:
        """``e`` as a read of a binding (or as itself if it is a read)."""
        if isinstance(e, (S.Var, S.Const, S.Access, S.Iverson)):
            return e
        if isinstance(e, S.Mul) and _is_scaling(e):
            return S.Mul(e.a, self.operand(e.b, ctx, atoms))
        free = S.free_indices(e)
        atoms = tuple(a for a in atoms if a.aff.indices() <= set(ctx))
        guard = set().union(*(a.aff.indices() for a in atoms)) if atoms else set()
        idx = tuple(i for i in ctx if i in free or i in guard)
        body = self.top(e, ctx, atoms)
        from zygote_py.tensor.simplify import factors

        # Brackets on the named value guard its readers too (the reader
        # knows where the value is zero, as the paper's SSA propagates
        # predicates).
        extra = tuple(a for f in factors(body) if isinstance(f, S.Iverson) for a in f.atoms)
        if atoms:
            body = S.Mul(S.Iverson(atoms), body)
        name = self.fresh.name("t")
        # Indices of the new binding are renamed apart from its readers'.
        new_idx = tuple(self.fresh.index(i.name, i.size) for i in idx)
        for old, new in zip(idx, new_idx):
            body = S.subst_index(body, old, new.aff())
        self.emit(name, S.gen(new_idx, body))
        name = self.alias.get(name, name)
        read = S.Access(S.Var(name), tuple(i.aff() for i in idx)) if idx else S.Var(name)
        return S.Mul(S.Iverson(extra), read) if extra else read


def _is_scaling(e: S.Mul) -> bool:
    """``c * e``, a negation or scaling by a constant."""
    return isinstance(e.a, S.Const)


def _rename_vars(e: Expr, alias: Mapping[str, str]) -> Expr:
    if not alias:
        return e
    if isinstance(e, S.Var):
        return S.Var(alias.get(e.name, e.name))
    kids = S.children(e)
    return S.rebuild(e, tuple(_rename_vars(c, alias) for c in kids)) if kids else e


def canonical(e: Expr) -> Expr:
    """``e`` with its bound indices renamed ``_0, _1, ...`` in order of
    binding: structurally equal up to index names iff equal after."""
    counter = [0]

    def go(x: Expr) -> Expr:
        if isinstance(x, S.Mul):
            from zygote_py.tensor.simplify import factors

            fs = sorted((go(f) for f in factors(x)), key=repr)
            out = fs[0]
            for f in fs[1:]:
                out = S.Mul(out, f)
            return out
        if isinstance(x, (S.Gen, S.Sum)):
            new = S.Index(f"_{counter[0]}", x.idx.size)
            counter[0] += 1
            return type(x)(new, go(S.subst_index(x.body, x.idx, new.aff())))
        kids = S.children(x)
        return S.rebuild(x, tuple(go(c) for c in kids)) if kids else x

    return go(e)
