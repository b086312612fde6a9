"""The rules table: every function the built-in registry covers, written as
Markdown from the registry itself (``zpy rules``, which writes
``docs/rules.md``), so the documentation cannot drift from the code.

For each function: its parameters, which of them get a gradient,
whether the compiler inlines the rule into emitted code or calls it at run
time, the same for its pushforward (forward mode), and whether autograd
and JAX differentiate it too (:data:`AUTOGRAD`, :data:`JAX`). A parameter
"gets a gradient" unless every ``return`` of the rule's pullback gives it
the constant ``None``; that is read from the lowered pullback, the same IR
the compiler inlines.
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Optional

from .. import registry, runtime
from ..ir.core import Const, Return
from .inline import rule_ir
from .pushrules import push_ir


def _names(prefix: str, text: str) -> frozenset[str]:
    return frozenset(prefix + n for n in text.split())


# Which functions autograd and JAX also differentiate, for the table's last
# column: looked up in November 2026 in autograd (HIPS/autograd at bff107b,
# August 2026): autograd/numpy/numpy_vjps.py (the functions given a VJP),
# numpy_wrapper.py (those it builds from them: concatenate, stack, append,
# select...), numpy_boxes.py (an ArrayBox's methods), linalg.py, fft.py; and
# in JAX (jax-ml/jax at cec06d1, August 2026): jax/numpy/__init__.py,
# linalg.py, fft.py, jax/_src/numpy/array_methods.py (an Array's methods),
# ufuncs.py and ufunc_api.py (the binary ufuncs' reduce, accumulate, at,
# reduceat, outer). For JAX, only the functions whose gradient is not zero
# everywhere (not floor, sign, argmax, searchsorted...). Names as the table
# writes them; aliases (np.abs and np.absolute) both listed; np.r_ and np.c_
# (autograd's numpy_wrapper.py r_class, c_class; JAX's index_tricks.py) as
# the method their indexing calls.
AUTOGRAD = _names("np.", """
    abs absolute add amax amin angle append arccos arccosh arcsin arcsinh arctan arctan2 arctanh array
    array_split atleast_1d atleast_2d atleast_3d broadcast_to clip column_stack concatenate conj conjugate cos
    cosh cross cumsum deg2rad degrees diag diagonal diff divide dot dsplit einsum exp exp2 expand_dims expm1 fabs
    fliplr flipud fmax fmin full gradient hsplit hstack hypot imag inner kron linspace log log10 log1p log2
    logaddexp logaddexp2 matmul max maximum mean min minimum mod moveaxis multiply nan_to_num negative outer pad
    partition power prod rad2deg radians ravel real real_if_close reciprocal remainder repeat reshape roll
    rollaxis rot90 row_stack select sin sinc sinh sort split sqrt square squeeze stack std subtract sum swapaxes
    tan tanh tensordot tile trace transpose tril triu true_divide var vsplit vstack where
""") | _names("ndarray.", """
    astype clip cumsum diagonal flatten max mean min prod ravel repeat reshape squeeze std sum swapaxes trace
    transpose var
""") | _names("np.linalg.", "cholesky det eig eigh inv norm pinv slogdet solve svd") | _names("np.lib.", """
    AxisConcatenator.__getitem__
""") | _names("np.fft.", """
    fft fft2 fftn fftshift ifft ifft2 ifftn ifftshift irfft irfft2 irfftn rfft rfft2 rfftn
""")
JAX = _names("np.", """
    abs absolute acos acosh add amax amin angle append arccos arccosh arcsin arcsinh arctan arctan2 arctanh
    array array_split asarray asin asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bincount
    block broadcast_arrays broadcast_to cbrt choose clip column_stack compress concat concatenate conj conjugate
    convolve copy copysign corrcoef correlate cos cosh cov cross cumprod cumsum cumulative_prod cumulative_sum
    deg2rad degrees delete diag diagflat diagonal diff divide divmod dot dsplit dstack ediff1d einsum exp exp2
    expand_dims expm1 extract fabs fill_diagonal flip fliplr flipud float_power fmax fmin fmod frexp full
    full_like geomspace gradient hsplit hstack hypot i0 imag inner insert interp kron ldexp linspace log log10
    log1p log2 logaddexp logaddexp2 logspace matmul matrix_transpose matvec max maximum mean median meshgrid min
    minimum mod modf moveaxis multiply nan_to_num nancumprod nancumsum nanmax nanmean nanmedian nanmin
    nanpercentile nanprod nanquantile nanstd nansum nanvar negative outer pad partition percentile permute_dims
    piecewise place poly polyadd polyder polydiv polyfit polyint polymul polysub polyval positive pow power prod
    ptp put put_along_axis quantile rad2deg radians ravel real reciprocal remainder repeat reshape resize roll
    rollaxis roots rot90 select sin sinc sinh sort sort_complex split sqrt square squeeze stack std subtract sum
    swapaxes take take_along_axis tan tanh tensordot tile trace transpose trapezoid tril triu true_divide unstack
    unwrap vander var vdot vecdot vecmat vsplit vstack where
""") | _names("ndarray.", """
    astype choose clip compress conj conjugate copy cumprod cumsum diagonal dot flatten max mean min prod ptp
    ravel repeat reshape sort squeeze std sum swapaxes take trace transpose var
""") | frozenset(f"np.{u}.{m}" for u in "add subtract multiply maximum minimum logaddexp logaddexp2".split()
                for m in ("reduce", "accumulate", "at", "reduceat", "outer")) | _names("np.linalg.", """
    cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul matrix_norm matrix_power
    matrix_transpose multi_dot norm outer pinv qr slogdet solve svd svdvals tensordot tensorinv tensorsolve trace
    vector_norm vecdot
""") | _names("np.lib.", """
    AxisConcatenator.__getitem__
""") | _names("np.fft.", """
    fft fft2 fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 irfftn rfft rfft2 rfftn
""")


def _peers(name: str, how: str) -> str:
    """Which of autograd and JAX also have a gradient of the function the
    table names ``name``: "—" for a row without one here."""
    if how == "no gradient" or not name.startswith(("np.", "ndarray.")):
        return "—"
    return ", ".join(peer for peer, names in (("autograd", AUTOGRAD), ("JAX", JAX)) if name in names) or "neither"


def _treatment(rule: Any, fn: Any) -> tuple[str, str]:
    """The parameters (those with a gradient in bold) and how the rule is
    used."""
    try:
        params = list(inspect.signature(rule).parameters.values())
    except (TypeError, ValueError):
        return "?", "run time"
    r = rule_ir(rule, fn)
    if r is None:
        return _parameters(rule), "run time"
    returns = [b for b in r.back.blocks.values() if isinstance(b.term, Return)]
    zero: Optional[list[bool]] = None
    for b in returns:
        tup = next(s for s in b.stmts if s.var == b.term.value)
        here = [isinstance(a, Const) and a.value is None for a in tup.args]
        zero = here if zero is None else [x and y for x, y in zip(zero, here)]
    names = ", ".join(p.name if z else f"**{p.name}**" for p, z in zip(params, zero or []))
    return names, "inlined"


def _parameters(fn: Any) -> str:
    """``fn``'s parameters, as the table writes them."""
    return ", ".join(
        "\\*" + p.name if p.kind is p.VAR_POSITIONAL else "keywords" if p.kind is p.VAR_KEYWORD else p.name
        for p in inspect.signature(fn).parameters.values()
    )


def _forward(entry: Any, fn: Any) -> str:
    """How forward mode differentiates ``fn``."""
    if entry is registry.NONDIFFERENTIABLE:
        return "no tangent"
    if getattr(entry, "__module__", "") == "zygote_py.ad.mutation.operations" or fn is runtime.call_with_cells:
        return "—"  # made by the reverse transform's passes only
    rule = registry.lookup_pushforward(fn)
    if rule is None:
        machinery = isinstance(fn, types.FunctionType) and fn in runtime.MACHINERY_PUSHES
        return "run time" if machinery or fn in runtime.ITERATORS else "from the adjoint"
    return "inlined" if push_ir(rule) is not None else "run time"


def _section(fn: Any) -> str:
    module = getattr(fn, "__module__", None) or ""
    name = registry.display_name(fn)
    if name.startswith("ndarray."):
        return "NumPy array methods"
    if name.startswith("np."):
        return "NumPy"
    if name.startswith("scipy."):
        return ".".join(name.split(".")[:2])  # (scipy.special, scipy.stats: the module a user imports)
    if module in ("math", "cmath"):
        return module
    if name.startswith("zpy."):
        return "zygote_py"
    if module in ("_operator", "operator") or name.startswith("(internal)"):
        return "Operators and the IR's intrinsics"
    return "Python builtins"


def markdown() -> str:
    """The rules table as Markdown (deterministic: sorted by section and
    name)."""
    registry.load_lazy(everything=True)  # (the optional libraries' rules, where they are installed)
    rows: dict[str, list[tuple[str, str, str, str]]] = {}
    for key, entry in registry._builtin.items():
        fn = key.obj if isinstance(key, registry._ByIdentity) else key
        if entry is registry.NONDIFFERENTIABLE:
            params, how, forward = "—", "no gradient", "no tangent"
        elif isinstance(entry, registry._Implementation):
            params, how, forward = _parameters(entry.function), "its formula", "its formula"
        else:
            (params, how), forward = _treatment(entry, fn), _forward(entry, fn)
        rows.setdefault(_section(fn), []).append((registry.display_name(fn), params, how, forward))
    for key, rule in registry._push_builtin.items():  # pushforwards of functions without an adjoint rule
        fn = key.obj if isinstance(key, registry._ByIdentity) else key
        if key not in registry._builtin:
            rows.setdefault(_section(fn), []).append((registry.display_name(fn), "—", "—", _forward(None, fn)))
    order = ["Python builtins", "Operators and the IR's intrinsics", "math", "cmath", "NumPy", "NumPy array methods",
             "zygote_py"]
    out = [
        "# Derivative rules",
        "",
        "Generated by `zpy rules -o docs/rules.md` from the rule registry; do not edit.",
        "",
        "For each function, its parameters: those in **bold** get a gradient, the others never do.",
        "\"inlined\": the compiler copies the rule into the emitted gradient, so its arithmetic",
        "is visible there; \"run time\": the rule is called when the gradient runs (it dispatches",
        "on its arguments' types, or takes a variable number of them); \"no gradient\": the",
        "function's value is piecewise constant or not a number, so no gradient flows through it.",
        "The forward column is forward mode's (`zpy.jvp`): the pushforward rule \"inlined\" or",
        "called at \"run time\", or \"from the adjoint\" (one pullback per output element: slow)",
        "where the function has no pushforward rule; \"—\": made by the reverse transform only.",
        "\"also in\": whether autograd and JAX have a gradient of the same NumPy function too (as",
        "their sources read in November 2026; see `AUTOGRAD` and `JAX` in `zygote_py/ad/catalog.py`).",
        "Conventions (kinks, ties, complex numbers) are in each rule module's docstring:",
        "`zygote_py/rules/`.",
        "",
        "The triangle convention: functions that read one triangle of a symmetric (Hermitian)",
        "matrix (`np.linalg.cholesky`, `eigh`, `eigvalsh`, `svd`/`pinv` with `hermitian=True`;",
        "`scipy.linalg`'s `cholesky`, `cho_factor`, `eigh`, `solve`/`inv` with a symmetric",
        "`assume_a`; `scipy.stats.multivariate_normal`'s `cov`) get the gradient with respect to",
        "the entries they read: zeros on the other triangle (and on the imaginary part of a",
        "Hermitian diagonal), `G + G^H` on the strict triangle read, for the gradient `G` with",
        "respect to the symmetric matrix. Exact for any input, as JAX and autograd do it; along a",
        "symmetric perturbation it gives the symmetrized gradient's directional derivative. In",
        "forward mode a tangent on the triangle not read has no effect; likewise at second order.",
        "",
        "SciPy's rules (a section per SciPy module) load when the program imports that module;",
        "SciPy's own source is never differentiated, so a SciPy function missing here raises",
        "`NoDerivativeRule`. \"its formula\": the function is differentiated, at any order, through",
        "a Python formula of NumPy and special functions that have rules (`scipy.stats`).",
        "A frozen distribution's method (`norm(mu, s).logpdf(x)`: the `_frozen` and `__call__`",
        "rows) is its distribution's with the frozen arguments, which get their gradients.",
        "An order with no derivative (`iv`'s `v`, `expn`'s `n`) is refused when differentiated;",
        "`hyp1f1`'s `a` and `b` are differentiated by its series, refused where that does not converge.",
        "`scipy.linalg`: what SciPy reads is differentiated (one triangle, a",
        "band; the triangle convention above for inputs read as symmetric), and",
        "`cho_factor`'s unspecified triangle has no gradient. `scipy.integrate`'s `odeint` and",
        "`solve_ivp` are differentiated by the adjoint method (reverse mode) and the tangent ODE",
        "(forward mode), solved by SciPy with the call's own tolerances: accurate to them, not to",
        "rounding; second derivatives (in the initial state, the `args`, a closure's floats and the",
        "times) by the tangent of the adjoint sweep; no third derivatives.",
    ]
    for section in order + sorted(set(rows) - set(order)):
        if section not in rows:
            continue
        out += ["", f"## {section}", "", "| function | parameters | rule | forward | also in |",
                "| --- | --- | --- | --- | --- |"]
        for name, params, how, forward in sorted(set(rows[section])):
            out.append(f"| `{name}` | {params} | {how} | {forward} | {_peers(name, how)} |")
    return "\n".join(out) + "\n"
