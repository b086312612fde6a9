"""Every built-in rule has the shape the compiler inlines: a module-level
function whose only global names are modules (imported at the top of its
module) and builtins, with a nested pullback."""
import ast
import builtins
import inspect
import symtable
import textwrap
import types

import numpy as np
import pytest

from zygote_py import rules
from zygote_py.errors import UnsupportedSyntax
from zygote_py.rules import operators
from zygote_py import registry
from zygote_py.ad import mutation  # noqa: F401  (the rules of the changes made in place register with the compiler)
from zygote_py.registry import _builtin, _special

registry.load_lazy(everything=True)  # (the optional libraries' rules, where installed, have the same shape)
ALL = sorted(
    {rule for rule in [*_builtin.values(), *(r for table in _special.values() for r in table.values())] if isinstance(rule, types.FunctionType)},
    key=lambda rule: (rule.__module__, rule.__name__),
)
RULES = [rule for rule in ALL if rule not in operators.DISPATCHERS]
"""The rules the compiler may inline (all but the run-time dispatchers)."""


def global_names(table: symtable.SymbolTable) -> set[str]:
    """The global names read in a function's scope and its nested scopes."""
    names = {s.get_name() for s in table.get_symbols() if s.is_global()}
    for child in table.get_children():
        names |= global_names(child)
    return names


def function_table(rule: types.FunctionType) -> symtable.SymbolTable:
    """The symbol table of a rule's own scope, from its source."""
    source = textwrap.dedent(inspect.getsource(rule))
    module_scope = symtable.symtable(source, "<rule>", "exec")
    (table,) = [t for t in module_scope.get_children() if t.get_name() == rule.__name__]
    return table


def test_every_rule_module_contributes():
    modules = {rule.__module__ for rule in RULES} | {  # (and those of the formulas: rules.pyitertools)
        entry.function.__module__ for entry in _builtin.values() if isinstance(entry, registry._Implementation)}
    expected = {f"zygote_py.rules.{m}" for m in rules.__all__ if m not in dir(rules.registry)}
    expected.add("zygote_py.ad.mutation.operations")
    # (the optional modules: SciPy's rules, and zygote_py.own_rules, those of zpy's own functions)
    assert expected <= modules <= expected | set(registry.OPTIONAL_MODULES)


NUMBERS = (2.0, 3.0)
ARRAYS = (np.array([2.0, 3.0]), np.array([[1.5], [2.5]]))


@pytest.mark.parametrize("dispatcher", sorted(operators.DISPATCHERS, key=lambda r: r.__name__),
                         ids=lambda r: r.__name__)
def test_dispatchers_pick_a_rule_for_numbers_and_for_arrays(dispatcher):
    """A dispatcher returns the value of its operator and a pullback with a
    gradient per operand, of each operand's shape; in-place operators
    refuse arrays."""
    arity = 1 if dispatcher is operators.abs_any else 2
    for args in [NUMBERS, ARRAYS]:
        args = args[:arity]
        if dispatcher in operators.IN_PLACE and isinstance(args[0], np.ndarray):
            with pytest.raises(UnsupportedSyntax, match="in-place"):
                dispatcher(*args)
            continue
        y, back = dispatcher(*args)
        grads = back(np.ones_like(y))
        assert [np.shape(g) for g in grads] == [np.shape(a) for a in args]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: f"{rule.__module__}.{rule.__name__}")
def test_rule_refers_only_to_modules_and_builtins(rule):
    for name in global_names(function_table(rule)):
        if name in rule.__globals__:
            assert isinstance(rule.__globals__[name], types.ModuleType), name
        else:
            assert hasattr(builtins, name), name


def rebound_parameters(table: symtable.SymbolTable) -> set[str]:
    """Parameters assigned to in a function's scope or its nested scopes."""
    names = {
        s.get_name() for s in table.get_symbols() if s.is_parameter() and s.is_assigned()
    }
    for child in table.get_children():
        names |= rebound_parameters(child)
    return names


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: f"{rule.__module__}.{rule.__name__}")
def test_rule_never_rebinds_a_parameter(rule):
    # An inliner may substitute the caller's variables for the parameters.
    assert rebound_parameters(function_table(rule)) == set()


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: f"{rule.__module__}.{rule.__name__}")
def test_rule_defines_its_pullback_inside(rule):
    nested = [c for c in rule.__code__.co_consts if isinstance(c, types.CodeType)]
    body = ast.parse(textwrap.dedent(inspect.getsource(rule))).body[0].body
    if [type(st) for st in body] == [ast.Raise]:
        return  # (a refusal: the derivative it would give is not computed)
    assert [c.co_name for c in nested if c.co_name == "back"] == ["back"]
