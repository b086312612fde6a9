"""``zygote_py.tensor``: the tensor index language of Bernstein et al.,
"Differentiating a Tensor Language" (arXiv 2008.11256), with its cost model,
normalisation passes, forward and adjoint derivatives, and NumPy code
generation. See docs/tensor.md.

May import: the rule table (a compiled tensor function registers its
rules there); nothing else of zygote_py but its errors.
"""
from zygote_py.tensor.syntax import (  # noqa: F401
    Access, Add, Affine, Atom, Call, Const, Expr, Gen, Index, Iverson, Let, Mul, Pair, Proj, Sum,
    TensorLanguageError, Var, call, eq, evaluate, exp, fst, gen, iverson, le, let, log, lt, ne, pair,
    shape_of, snd, tanh, tsum, var,
)
from zygote_py.tensor.compiled import TensorFunction, compile  # noqa: F401,E402
