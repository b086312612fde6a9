"""Derivative rules: Python's operators, builtins and :mod:`math`, and the
registry that holds them (see :mod:`.registry` for the rule contract).

Importing this package registers the built-in rules; rules registered
afterwards, through :func:`adjoint` and :func:`nondifferentiable`, are the
user's and override the built-in ones until :func:`remove`\\ d.
"""
from .registry import (
    adjoint,
    builtin_layer,
    is_nondifferentiable,
    lookup,
    nondifferentiable,
    remove,
)

with builtin_layer():
    from . import builtins, higher_order, operators, pymath
    from . import numpy_elementwise, numpy_linalg, numpy_reductions, numpy_shapes
    from . import mutation

__all__ = [
    "adjoint",
    "builtins",
    "higher_order",
    "is_nondifferentiable",
    "lookup",
    "mutation",
    "nondifferentiable",
    "numpy_elementwise",
    "numpy_linalg",
    "numpy_reductions",
    "numpy_shapes",
    "operators",
    "pymath",
    "remove",
]
