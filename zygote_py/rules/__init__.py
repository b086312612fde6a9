"""Derivative rules: Python's operators, builtins, :mod:`math`,
:mod:`cmath`, NumPy and (when the user imports it) SciPy, registered in the
rule table :mod:`zygote_py.registry` (see it for the rule contract).

Importing this package registers the built-in rules; rules registered
afterwards, through :func:`adjoint` and :func:`nondifferentiable`, are the
user's and override the built-in ones until :func:`remove`\\ d.

May import: the rule table, the runtime, the IR's ops, the public hooks
(:mod:`zygote_py.hooks`); never the compiler (:mod:`zygote_py.ad`).
"""
from .. import registry
from ..registry import (
    adjoint,
    builtin_layer,
    is_nondifferentiable,
    lookup,
    nondifferentiable,
    remove,
)

with builtin_layer():
    from . import builtins, higher_order, operators, pycmath, pymath, pyitertools
    from . import numpy_conversions, numpy_elementwise, numpy_fft, numpy_linalg, numpy_decompositions, numpy_linalg_general
    from . import numpy_reductions, numpy_shapes
    from . import numpy_arrays, numpy_calculus, numpy_ufuncs
    from . import hooks, nested, trees

registry.when_imported("scipy.special", "zygote_py.rules.scipy_special")
registry.when_imported("scipy.special", "zygote_py.rules.scipy_gamma")
registry.when_imported("scipy.stats", "zygote_py.rules.scipy_stats")
registry.when_imported("scipy.stats", "zygote_py.rules.scipy_stats_more")
registry.when_imported("scipy.stats", "zygote_py.rules.scipy_frozen")
registry.when_imported("scipy.linalg", "zygote_py.rules.scipy_linalg")
registry.when_imported("scipy.integrate", "zygote_py.rules.scipy_integrate")
registry.when_imported("scipy.signal", "zygote_py.rules.scipy_signal")

__all__ = [
    "adjoint",
    "builtins",
    "higher_order",
    "hooks",
    "is_nondifferentiable",
    "lookup",
    "nested",
    "nondifferentiable",
    "numpy_arrays",
    "numpy_calculus",
    "numpy_conversions",
    "numpy_elementwise",
    "numpy_fft",
    "numpy_decompositions",
    "numpy_linalg",
    "numpy_linalg_general",
    "numpy_reductions",
    "numpy_shapes",
    "numpy_ufuncs",
    "operators",
    "pycmath",
    "pyitertools",
    "pymath",
    "trees",
    "remove",
]
