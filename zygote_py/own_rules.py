"""The rules of zygote_py's own public functions called inside a function
being differentiated: ``zpy.gradient``, ``zpy.value_and_gradient``,
``zpy.jvp`` and ``zpy.pullback`` (their rules are in
:mod:`zygote_py.rules.nested`), ``zpy.grad`` and ``zpy.value_and_grad``
and the functions they make (whose code reads as
:data:`zygote_py.transforms.DECLARED`).

Registered in the built-in layer at the first look-up of a rule after the
public API is imported (``registry.when_imported``, as the SciPy rules
are), so that ``import zygote_py`` loads no rules.

May import: the public API and the transforms, the rules, the front end.
"""
import gast

from zygote_py import api, registry, runtime, transforms
from zygote_py.frontend.source import register_emitted
from zygote_py.rules import nested


def grad_rule(f, argnums=0, has_aux=False):
    """The rule of ``grad`` called in a function being differentiated: the
    function it makes, whose gradient (a ``Tangent`` of the variables it
    captures) gives ``f`` its own."""
    def back(dg):
        return (runtime.field(dg, "f"), None, None)
    return transforms.grad(f, argnums, has_aux), back


def value_and_grad_rule(f, argnums=0, has_aux=False):
    """:func:`grad_rule` for ``value_and_grad``."""
    def back(dg):
        return (runtime.field(dg, "f"), None, None)
    return transforms.value_and_grad(f, argnums, has_aux), back


registry.adjoint(api.gradient)(nested.gradient)
registry.adjoint(api.value_and_gradient)(nested.value_and_gradient)
registry.adjoint(api.jvp)(nested.forward_mode)
registry.adjoint(api.pullback)(nested.pullback)
runtime.MACHINERY_PUSHES.update({  # (forward mode: one run gives the value and its tangent, see runtime.push)
    api.gradient: nested.gradient_forward, api.value_and_gradient: nested.value_and_gradient_forward,
    transforms.run_grad: nested.run_grad_forward})

# (transformed's code object, shared by every function grad makes, is read as DECLARED)
register_emitted(next(c for c in transforms._transform.__code__.co_consts if getattr(c, "co_name", None) == "transformed"),
                 gast.parse(transforms.DECLARED).body[0])
registry.adjoint(transforms.run_grad)(nested.run_grad)
registry.adjoint(transforms.grad)(grad_rule)
registry.adjoint(transforms.value_and_grad)(value_and_grad_rule)
