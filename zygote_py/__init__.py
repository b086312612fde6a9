"""zygote_py: reverse-mode automatic differentiation for Python by source
transformation, after Zygote.

May import: the public API; the compiler and the rules load at the first
gradient, not here (see ``tests/test_layers.py``).
"""
from .api import (
    Differentiable, adjoint, cache_dir, differentiable, gradient, ir, jvp, pullback, pushforward, roundtrip,
    value_and_gradient,
)
from .hooks import checkpoint, hook, non_differentiable, stop_gradient
from .derivatives import hessian, hvp, jacobian
from .transforms import grad, jacfwd, jacrev, value_and_grad, vjp
from .runtime import nestlevel
from .errors import (
    BadTangent, CacheError, NoDerivativeRule, NonScalarOutput, RecursionTooDeep, SourceNotFound, UnsupportedSyntax,
    WrongArguments, ZygoteError,
)
from .tangent import Tangent
from . import tree
from ._version import __version__  # noqa: F401


__all__ = [
    "gradient", "pullback", "value_and_gradient", "jvp", "grad", "value_and_grad", "vjp", "jacfwd", "jacrev", "pushforward", "differentiable", "Differentiable", "adjoint",
    "roundtrip", "ir", "Tangent", "tree", "jacobian", "hvp", "hessian", "nestlevel", "stop_gradient", "hook", "checkpoint", "non_differentiable",
    "cache_dir", "CacheError",
    "ZygoteError", "UnsupportedSyntax", "SourceNotFound", "NoDerivativeRule", "NonScalarOutput", "BadTangent",
    "WrongArguments", "RecursionTooDeep",
]
