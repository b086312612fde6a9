"""Code generation from the normal form to vectorised NumPy.

Each let-binding ``v = gen i... body`` becomes one or a few NumPy
statements. A body is emitted as a *labelled array*: NumPy code whose axes
are named by index variables. Then

- ``x[i, j]`` with plain indices is ``x`` itself (axes relabelled); reads
  of constants or of one index plus a constant are slices
  (``A[:, 0]``, ``x[2:8]``); any other affine access, such as
  ``x[i + k]``, is a strided *window* onto ``x`` (no copy; zero-padded
  where the access may leave the array): a gather, never a scatter;
- a summation index that walks a window backwards (``dy[m - k]``) is
  renamed ``k = K-1-k'``: NumPy is much faster on positive strides;
- ``sum k... (f1 * f2 * ...)`` is one ``np.einsum`` over the factors;
- ``+``, black-box functions and brackets broadcast elementwise.

An Iverson atom that only restates that some factor's access is in range
(``0 <= m - k``, ``m - k < n`` next to ``dy[m - k]``) is dropped, because
the window reads zeros there; this is what turns a correlation with range
guards into a plain windowed product.

:func:`compile_function` returns a Python function whose source is kept
in ``.source``.
"""
from __future__ import annotations

import itertools
import string
from typing import Mapping, Sequence

import numpy as np

from zygote_py.tensor import syntax as S
from zygote_py.tensor.normalise import bindings_of
from zygote_py.tensor.simplify import factors
from zygote_py.tensor.syntax import Expr

Labelled = tuple[str, tuple[S.Index, ...]]


# ------------------------------------------------------- runtime helpers


def window(x: np.ndarray, const: tuple, coefs: tuple, sizes: tuple) -> np.ndarray:
    """The array ``w[l...] = x[(const[r] + sum(coefs[r][l] * l))...]`` over
    label ranges ``sizes``, as a strided view of ``x`` padded with zeros
    where the affine index leaves ``x``."""
    x = np.asarray(x, dtype=float)
    pads = []
    start = []
    for r, n in enumerate(x.shape):
        lo = const[r] + sum(min(0, c * (s - 1)) for c, s in zip(coefs[r], sizes))
        hi = const[r] + sum(max(0, c * (s - 1)) for c, s in zip(coefs[r], sizes))
        before, after = max(0, -lo), max(0, hi - (n - 1))
        pads.append((before, after))
        start.append(const[r] + before)
    if any(p != (0, 0) for p in pads):
        padded = np.zeros(tuple(n + b + a for n, (b, a) in zip(x.shape, pads)))
        padded[tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, pads))] = x
        x = padded
    else:
        # The offsets below are into a C-order buffer.
        x = np.ascontiguousarray(x)
    strides = tuple(sum(coefs[r][l] * x.strides[r] for r in range(x.ndim)) for l in range(len(sizes)))
    offset = sum(s * st for s, st in zip(start, x.strides))
    view = np.ndarray(sizes, dtype=float, buffer=x, offset=offset, strides=strides)
    if view.size <= 4096 and any(st < 0 for st in strides):
        return view.copy()  # small and backwards: NumPy reads a copy faster
    view.flags.writeable = False
    return view


def arange(n: int, axis: int, ndim: int) -> np.ndarray:
    """``0..n-1`` along ``axis`` of an ``ndim``-dimensional array."""
    shape = [1] * ndim
    shape[axis] = n
    return np.arange(n).reshape(shape)


HELPERS = {"np": np, "window": window, "arange": arange}


# ----------------------------------------------------------- the emitter


class Emitter:
    def __init__(self, shapes: Mapping[str, tuple]):
        self.shapes = dict(shapes)
        self.lines: list[str] = []
        self.tmp = itertools.count()
        self.views: set[str] = set(shapes)

    def letters(self, labels: Sequence[S.Index], universe: Sequence[S.Index]) -> str:
        return "".join(string.ascii_letters[universe.index(l)] for l in labels)

    def align(self, v: Labelled, target: tuple[S.Index, ...]) -> str:
        code, labels = v
        if labels == target or not labels:
            return code
        present = [l for l in target if l in labels]
        if list(labels) != present:
            code = f"{code}.transpose({', '.join(str(labels.index(l)) for l in present)})"
        if len(present) != len(target):
            code = f"{code}[{', '.join(':' if l in labels else 'None' for l in target)}]"
        return code

    def expr(self, e: Expr) -> Labelled:
        if isinstance(e, S.Const):
            return repr(e.value), ()
        if isinstance(e, S.Var):
            return e.name, ()
        if isinstance(e, S.Access):
            return self.access(e)
        if isinstance(e, S.Iverson):
            return self.mask(e.atoms)
        if isinstance(e, S.Call):
            code, labels = self.expr(e.arg)
            if e.fn == "recip":
                return f"(1.0 / {code})", labels
            return f"np.{e.fn}({code})", labels
        if isinstance(e, S.Add):
            minus = isinstance(e.b, S.Mul) and e.b.a == S.Const(-1.0)
            a, b = self.expr(e.a), self.expr(e.b.b if minus else e.b)  # type: ignore[union-attr]
            target = tuple(dict.fromkeys(a[1] + b[1]))
            return f"({self.align(a, target)} {'-' if minus else '+'} {self.align(b, target)})", target
        if isinstance(e, (S.Mul, S.Sum)):
            return self.contraction(e)
        raise S.TensorLanguageError(f"cannot generate NumPy for {e!r}",
                                    hint="compile the normal form (zygote_py.tensor.normalise.normal_form)")

    def access(self, e: S.Access) -> Labelled:
        if not isinstance(e.e, S.Var):
            raise S.TensorLanguageError(f"access of a non-variable {e!r} in code generation")
        name = e.e.name
        shape = self.shapes[name]
        plain = [a.terms[0][0] if a.const == 0 and len(a.terms) == 1 and a.terms[0][1] == 1 else None
                 for a in e.index]
        if all(p is not None for p in plain) and len(set(plain)) == len(plain) and all(
                p.size == n for p, n in zip(plain, shape)):
            return name, tuple(plain)  # type: ignore[arg-type]
        sliced = self.slicing(name, e.index, shape)
        if sliced is not None:
            return sliced
        labels = tuple(dict.fromkeys(i for a in e.index for i, _ in a.terms))
        const = tuple(a.const for a in e.index)
        coefs = tuple(tuple(a.coefs().get(l, 0) for l in labels) for a in e.index)
        sizes = tuple(l.size for l in labels)
        return f"window({name}, {const}, {coefs}, {sizes})", labels

    def slicing(self, name: str, index: tuple, shape: tuple) -> Labelled | None:
        """``x[c]``, ``x[c:c+n]`` per axis, when every axis reads a constant or
        one index plus a constant, in range, each index once."""
        parts, labels = [], []
        for a, n in zip(index, shape):
            if not a.terms and 0 <= a.const < n:
                parts.append(str(a.const))
            elif len(a.terms) == 1 and a.terms[0][1] == 1 and 0 <= a.const and a.const + a.terms[0][0].size <= n:
                i = a.terms[0][0]
                if i in labels:
                    return None
                labels.append(i)
                lo, hi = a.const, a.const + i.size
                parts.append(":" if (lo, hi) == (0, n) else f"{lo or ''}:{hi if hi != n else ''}")
            else:
                return None
        return f"{name}[{', '.join(parts)}]", tuple(labels)

    def mask(self, atoms: Sequence[S.Atom]) -> Labelled:
        if not atoms:
            return "1.0", ()
        labels = tuple(dict.fromkeys(i for a in atoms for i, _ in a.aff.terms))
        parts = []
        for a in atoms:
            def side(sign: int) -> str:
                terms = [f"{abs(c)} * " * (abs(c) != 1) + f"arange({i.size}, {labels.index(i)}, {len(labels)})"
                         for i, c in a.aff.terms if c * sign > 0]
                if a.aff.const * sign > 0:
                    terms.append(str(abs(a.aff.const)))
                return " + ".join(terms) or "0"

            lhs, rhs = side(1), side(-1)
            if lhs == "0" and a.kind != "lt":
                lhs, rhs = rhs, lhs
            parts.append(f"({lhs} {dict(eq='==', ne='!=', lt='<')[a.kind]} {rhs})")
        return " & ".join(parts), labels

    def contraction(self, e: Expr) -> Labelled:
        summed: list[S.Index] = []
        while isinstance(e, S.Sum):
            summed.append(e.idx)
            e = e.body
        fs = factors(e)
        for n, s in enumerate(summed):
            if _reads_backwards(s, fs):
                # sum k. dy[m - k] as sum k'. dy[m + k' - (K-1)]: NumPy walks
                # a window of positive strides several times faster.
                flipped = S.Index(s.name, s.size)
                fs = [S.subst_index(f, s, (s.size - 1) - flipped.aff()) for f in fs]
        atoms = [a for f in fs if isinstance(f, S.Iverson) for a in f.atoms]
        rest = [f for f in fs if not isinstance(f, S.Iverson)]
        atoms = [a for a in atoms if not _implied_by_padding(a, rest, self.shapes)]
        operands = [self.expr(f) for f in rest]
        if atoms:
            code, labels = self.mask(atoms)
            operands.append((f"({code})", labels))
        scalars = [c for c, l in operands if not l]
        arrays = [(c, l) for c, l in operands if l]
        universe = list(dict.fromkeys([l for _, ls in arrays for l in ls] + summed))
        out = tuple(l for l in universe if l not in summed)
        scale = 1
        for s in summed:
            if not any(s in ls for _, ls in arrays):
                scale *= s.size
        if scale != 1:
            scalars.append(str(scale))
        if not arrays:
            code = " * ".join(scalars) if scalars else "1.0"
            return f"({code})", ()
        if len(arrays) == 1 and not summed:
            code = arrays[0][0]
        elif len(arrays) == 2 and not summed:
            target = tuple(dict.fromkeys(arrays[0][1] + arrays[1][1]))
            code = f"({self.align(arrays[0], target)} * {self.align(arrays[1], target)})"
            out = target
        elif len(arrays) == 1 and set(summed) <= set(arrays[0][1]) and len(summed) == 1:
            code = f"{arrays[0][0]}.sum(axis={arrays[0][1].index(summed[0])})"
            out = tuple(l for l in arrays[0][1] if l != summed[0])
        else:
            spec = ",".join(self.letters(ls, universe) for _, ls in arrays) + "->" + self.letters(out, universe)
            opt = ", optimize=True" if len(arrays) > 2 else ""
            code = f"np.einsum('{spec}', {', '.join(c for c, _ in arrays)}{opt})"
        if scalars:
            code = f"{' * '.join(scalars)} * {code}"
        return code, out

    def binding(self, name: str, rhs: Expr) -> None:
        idx = []
        while isinstance(rhs, S.Gen):
            idx.append(rhs.idx)
            rhs = rhs.body
        code, labels = self.expr(rhs)
        target = tuple(idx)
        if set(labels) != set(target):
            code = f"np.broadcast_to({self.align((code, labels), target)}, {tuple(i.size for i in target)})"
        else:
            code = self.align((code, labels), target)
        if not target:
            code = f"float({code})"
        elif code.isidentifier() or code.startswith(("np.broadcast_to", "window(")):
            self.views.add(name)  # shares memory with an input: copy it before returning it
        self.lines.append(f"{name} = {code}")
        self.shapes[name] = tuple(i.size for i in target)


def _reads_backwards(s: S.Index, fs: list[Expr]) -> bool:
    """Whether the summation index ``s`` walks a read of several indices
    backwards (``dy[m - k]``) and none forwards."""
    back = fwd = False
    for f in fs:
        if isinstance(f, S.Access):
            for a in f.index:
                c = a.coefs().get(s, 0)
                if c and len(a.terms) > 1:
                    back, fwd = back or c < 0, fwd or c > 0
    return back and not fwd


def _implied_by_padding(atom: S.Atom, fs: list[Expr], shapes: Mapping[str, tuple]) -> bool:
    """Whether ``atom`` says only that some factor's read is in range (a
    window reads zero there anyway)."""
    if atom.kind != "lt":
        return False
    for f in fs:
        if isinstance(f, S.Access) and isinstance(f.e, S.Var) and f.e.name in shapes:
            for a, n in zip(f.index, shapes[f.e.name]):
                if atom.aff == (-a) - 1 or atom.aff == a - n:
                    return True
    return False


def generate(e: Expr, name: str, params: Sequence[str], shapes: Mapping[str, S.Shape]) -> str:
    """The source of ``def name(*params)`` evaluating the normal-form ``e``
    (a let-chain whose result is a variable or right-nested pair of
    them)."""
    em = Emitter(shapes)
    bindings, result = bindings_of(e)
    for v, rhs in bindings:
        em.binding(v, rhs)
    ret = _result(result, em)
    body = "\n".join("    " + line for line in em.lines + [f"return {ret}"])
    return f"def {name}({', '.join(params)}):\n{body}\n"


def _result(r: Expr, em: Emitter) -> str:
    if isinstance(r, S.Pair):
        return f"({_result(r.a, em)}, {_result(r.b, em)})"
    if isinstance(r, S.Var):
        return f"np.array({r.name})" if r.name in em.views and em.shapes.get(r.name) else r.name
    v = f"result{next(em.tmp)}"
    em.binding(v, r)
    return _result(S.Var(v), em)


def compile_function(e: Expr, name: str, params: Sequence[str], shapes: Mapping[str, S.Shape]):
    """Generate, then ``exec``, the NumPy function for ``e``."""
    src = generate(e, name, params, shapes)
    ns = dict(HELPERS)
    exec(compile(src, f"<zygote_py.tensor {name}>", "exec"), ns)
    fn = ns[name]
    fn.source = src
    return fn
