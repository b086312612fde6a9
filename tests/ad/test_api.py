"""The public API of issue 3: gradient, pullback, value_and_gradient,
differentiable, adjoint, and the errors a user can meet.

The seeds' examples are checked exactly; the rest against closed forms.
"""
import ast
import copy
import importlib.util
import math
import pickle
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NoDerivativeRule, NonScalarOutput, SourceNotFound
from zygote_py import registry

from . import api_programs as P
from .fdcheck import assert_gradient


# the seeds' examples ------------------------------------------------------


@pytest.mark.parametrize("f", [P.pow_while, P.pow_for, P.pow_rec], ids=lambda f: f.__name__)
def test_pow_gradient(f):
    assert zpy.gradient(f, 2.0, 3) == (12.0, None)


@pytest.mark.parametrize("f", [P.pow_while, P.pow_for, P.pow_rec], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x, n", [(1.5, 4), (-2.0, 5), (3.0, 1), (3.0, 0)])
def test_pow_gradient_closed_form(f, x, n):
    (dx, dn) = zpy.gradient(f, x, n)
    assert dn is None
    assert (dx or 0.0) == pytest.approx(n * x ** (n - 1) if n else 0.0, rel=1e-12)


def test_fraction_gradient_is_exact():
    g = zpy.gradient(lambda x: x**2 + 3*x + 1, Fraction(1, 3))
    assert g == (Fraction(11, 3),)
    assert type(g[0]) is Fraction


def test_foo():
    (g,) = zpy.gradient(P.foo, 1.0)
    assert g == pytest.approx(-math.sin(math.sin(1.0)) * math.cos(1.0), rel=1e-14)
    assert g == pytest.approx(-0.40286244305285346, rel=1e-12)


def test_ints_are_not_differentiated():
    assert zpy.gradient(P.two_args, 2, 3.0) == (None, 2)
    assert zpy.gradient(P.two_args, 2, 3) == (None, None)


def test_no_gradient_flows_to_a_constant_output():
    assert zpy.gradient(P.constant, 2.0) == (None,)


def test_float_input_gets_a_float_gradient():
    g = zpy.gradient(P.identity, 2.0)
    assert g == (1.0,) and type(g[0]) is float


@pytest.mark.parametrize("f", [P.pow_while, P.pow_for, P.pow_rec], ids=lambda f: f.__name__)
def test_a_float_input_on_a_path_with_no_gradient_gets_none_or_a_float_zero(f):
    dx, dn = zpy.gradient(f, 2.0, 0)
    assert dx is None or (dx == 0.0 and type(dx) is float)


# pullback and value_and_gradient ----------------------------------------------


@pytest.mark.parametrize("f", [P.pow_while, P.pow_for, P.pow_rec], ids=lambda f: f.__name__)
def test_pullback_with_a_non_unit_cotangent(f):
    y, back = zpy.pullback(f, 2.0, 3)
    assert y == 8.0
    assert back(2.5) == (30.0, None)


@pytest.mark.parametrize("f", [P.pow_while, P.pow_for, P.pow_rec], ids=lambda f: f.__name__)
def test_pullback_called_twice_gives_the_same_result(f):
    """The loop's stacks are popped by the first call; the second must not
    see them empty (nor half full)."""
    _, back = zpy.pullback(f, 2.0, 3)
    first = back(1.0)
    assert back(1.0) == first == (12.0, None)
    assert back(-3.0) == (-36.0, None)


def test_pullback_of_two_arguments():
    y, back = zpy.pullback(P.two_args, 2.0, 3.0)
    assert y == P.two_args(2.0, 3.0)
    dx, dy = back(0.5)
    assert dx == pytest.approx(0.5 * (3.0 + math.cos(2.0)))
    assert dy == pytest.approx(0.5 * 2.0)


def test_value_and_gradient():
    assert zpy.value_and_gradient(P.pow_while, 2.0, 3) == (8.0, (12.0, None))
    y, (g,) = zpy.value_and_gradient(P.foo, 1.0)
    assert y == P.foo(1.0)
    assert g == zpy.gradient(P.foo, 1.0)[0]


# @differentiable -----------------------------------------------------------------------


def test_differentiable_keeps_the_function_callable():
    d = zpy.differentiable(P.pow_while)
    assert d(2.0, 3) == 8.0
    assert d.__name__ == "pow_while"
    assert d.__wrapped__ is P.pow_while
    assert d.gradient(2.0, 3) == (12.0, None)
    y, back = d.pullback(2.0, 3)
    assert y == 8.0 and back(1.0) == (12.0, None)


def test_differentiable_as_a_decorator():
    assert P.decorated(2.0, 0.0) == 2.0
    assert P.decorated.gradient(2.0, 1.0) == (pytest.approx(math.e), pytest.approx(2.0 * math.e))
    assert zpy.gradient(P.decorated, 2.0, 1.0) == P.decorated.gradient(2.0, 1.0)


def test_differentiable_source_is_python_naming_the_function():
    d = zpy.differentiable(P.pow_while)
    d.gradient(2.0, 3)
    source = d.source
    assert isinstance(source, str)
    assert "pow_while" in source
    ast.parse(source)


def test_differentiable_ir_text_names_the_function():
    d = zpy.differentiable(P.pow_while)
    d.gradient(2.0, 3)
    assert "pow_while" in str(d.ir)
    assert "pow_while" in d.adjoint_ir


def test_adjoint_ir_text_has_no_object_addresses():
    """The printed IR is for people and diffs: no ``<... at 0x...>``."""
    d = zpy.differentiable(P.foo)
    d.gradient(1.0)
    assert " at 0x" not in d.adjoint_ir


def test_differentiable_ir_is_the_ssa_ir():
    text = str(zpy.differentiable(P.pow_while).ir)
    assert text.startswith("# pow_while") and "\n1: (" in text
    assert "operator.gt" in text and "return" in text


# errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("f", [
    pytest.param(P.returns_list),
    pytest.param(P.returns_tuple),
    P.returns_str,
    P.returns_none,
    P.returns_complex,
    P.returns_bool,
], ids=lambda f: f.__name__)
def test_non_scalar_output(f):
    with pytest.raises(NonScalarOutput, match="scalar") as info:
        zpy.gradient(f, 1.5)
    assert f.__name__ in str(info.value)
    with pytest.raises(NonScalarOutput, match="scalar"):
        zpy.value_and_gradient(f, 1.5)


def test_non_scalar_output_is_fine_for_pullback():
    y, back = zpy.pullback(P.returns_tuple, 1.5)
    assert y == (1.5, 2.25)
    assert back((1.0, 1.0)) == (pytest.approx(1.0 + 3.0),)


def test_no_derivative_rule_names_the_users_function():
    with pytest.raises(NoDerivativeRule) as info:
        zpy.gradient(P.calls_c_function_without_rule, 1.5)
    message = str(info.value)
    assert "calls_c_function_without_rule" in message
    assert "nextafter" in message
    assert "api_programs.py" in message


def test_source_not_found():
    namespace = {}
    exec("def h(x):\n    return x * x\n", namespace)
    with pytest.raises(SourceNotFound, match="'h'"):
        zpy.gradient(namespace["h"], 1.0)


# custom rules ---------------------------------------------------------------------------


@pytest.fixture
def scaled_rule():
    """``P.scaled_myfun_rule`` registered for ``P.myfun`` for one test."""
    zpy.adjoint(P.myfun)(P.scaled_myfun_rule)
    yield
    registry.remove(P.myfun)


def true_gradient(x):
    return 2.0 * x + math.cos(x)


def ruled_gradient(x):
    return 200.0 * x + math.cos(x)


def test_custom_rule_is_used_for_a_call(scaled_rule):
    assert zpy.gradient(P.calls_myfun, 1.5) == (pytest.approx(ruled_gradient(1.5)),)


def test_custom_rule_is_used_for_the_function_itself(scaled_rule):
    assert zpy.gradient(P.myfun, 1.5) == (pytest.approx(300.0),)


def test_custom_rule_registered_after_compiling_and_removed():
    assert zpy.gradient(P.calls_myfun, 1.5) == (pytest.approx(true_gradient(1.5)),)
    zpy.adjoint(P.myfun)(P.scaled_myfun_rule)
    try:
        assert zpy.gradient(P.calls_myfun, 1.5) == (pytest.approx(ruled_gradient(1.5)),)
    finally:
        assert registry.remove(P.myfun)
    assert zpy.gradient(P.calls_myfun, 1.5) == (pytest.approx(true_gradient(1.5)),)
    assert not registry.remove(P.myfun)


def test_custom_rule_for_a_builtin_overrides_and_is_removed():
    def tripled_sin(x):
        return math.sin(x), lambda dy: (3.0 * dy * math.cos(x),)

    assert zpy.gradient(P.foo, 1.0) == (pytest.approx(-math.sin(math.sin(1.0)) * math.cos(1.0)),)
    zpy.adjoint(math.sin)(tripled_sin)
    try:
        assert zpy.gradient(P.foo, 1.0) == (pytest.approx(-3.0 * math.sin(math.sin(1.0)) * math.cos(1.0)),)
    finally:
        registry.remove(math.sin)
    assert zpy.gradient(P.foo, 1.0) == (pytest.approx(-math.sin(math.sin(1.0)) * math.cos(1.0)),)


# calls of user functions, and their redefinition -----------------------------------------


def test_call_of_a_user_function_through_a_module_global():
    assert zpy.gradient(P.calls_global_helper, 1.5) == (pytest.approx(6.0 * 1.5 ** 2),)


def _import_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


MODULE = '''\
import math


def g(t):
    return t * t


def g_other(t):
    return 10.0 * t + math.exp(t)


def f(x):
    return g(x) * 2.0 + x
'''


@pytest.fixture
def temp_module(tmp_path):
    path = tmp_path / "zpy_redefined.py"
    path.write_text(MODULE)
    module = _import_module(path, "zpy_redefined")
    yield module, path
    sys.modules.pop("zpy_redefined", None)


def test_rebinding_a_global_helper_is_picked_up(temp_module):
    m, _ = temp_module
    assert zpy.gradient(m.f, 1.5) == (pytest.approx(4.0 * 1.5 + 1.0),)
    m.g = m.g_other
    assert zpy.gradient(m.f, 1.5) == (pytest.approx(2.0 * (10.0 + math.exp(1.5)) + 1.0),)
    m.g = lambda t: t * t * t
    assert zpy.gradient(m.f, 1.5) == (pytest.approx(6.0 * 1.5 ** 2 + 1.0),)


def test_rebinding_a_module_the_function_reads_is_picked_up(temp_module):
    m, _ = temp_module
    m.g = m.g_other
    assert zpy.gradient(m.f, 0.5) == (pytest.approx(2.0 * (10.0 + math.exp(0.5)) + 1.0),)
    m.math = type("FakeMath", (), {"exp": staticmethod(math.sin)})
    assert zpy.gradient(m.f, 0.5) == (pytest.approx(2.0 * (10.0 + math.cos(0.5)) + 1.0),)


def test_reloading_a_changed_module_is_picked_up(temp_module):
    m, path = temp_module
    assert zpy.gradient(m.f, 1.5) == (pytest.approx(4.0 * 1.5 + 1.0),)
    path.write_text(MODULE.replace("return t * t\n", "return t * t * t * 1.0\n"))
    m2 = _import_module(path, "zpy_redefined")
    assert zpy.gradient(m2.f, 1.5) == (pytest.approx(6.0 * 1.5 ** 2 + 1.0),)
    # the old module's functions still differentiate as they were written
    assert zpy.gradient(m.f, 1.5) == (pytest.approx(4.0 * 1.5 + 1.0),)


def test_redefining_a_function_with_exec_style_rebinding(tmp_path):
    """A second definition of the same name in one module (as a notebook
    cell re-run does) replaces the first for callers."""
    path = tmp_path / "zpy_twice.py"
    path.write_text(textwrap.dedent('''\
        def g(t):
            return t * t


        def f(x):
            return g(x)


        first_f = f


        def g(t):
            return 5.0 * t
    '''))
    m = _import_module(path, "zpy_twice")
    try:
        assert zpy.gradient(m.f, 2.0) == (pytest.approx(5.0),)
    finally:
        sys.modules.pop("zpy_twice", None)


def make_back(x):
    def back(dy):
        return (dy * math.cos(x),)
    return back


def calls_a_function_with_a_parameter_named_dy(x, v):
    return make_back(x)(v)[0]


def calls_one_named_dy_and_dout(x, v):
    def both(dy, dout):
        return (dy * dout * math.cos(x),)
    return both(v, 2.0 * v)[0]


def test_a_parameter_named_like_the_pullbacks_argument_is_not_hidden_by_it():
    """The pullback's argument was once named ``dy`` even when a parameter
    was, and hid it from the pullback, which reads it (here a crash; with a
    number for an output, a wrong gradient)."""
    assert_gradient(calls_a_function_with_a_parameter_named_dy, 0.5, 2.0)
    assert_gradient(calls_one_named_dy_and_dout, 0.5, 2.0)


def pair_of(x):
    return {"a": 2.0 * x, "b": x * x}


def pair_of_rule(x):
    def back(dy):
        return (2.0 * (dy["a"] or 0.0) + 2.0 * x * (dy["b"] or 0.0),)
    return pair_of(x), back


def uses_a_pair(x):
    d = pair_of(x)
    return d["b"] * 3.0 + d["a"]


def test_forward_mode_through_an_adjoint_rule_whose_output_is_a_dict():
    """Forward mode derives a pushforward from an adjoint rule, one pullback
    per component of the output: a dict's once crashed (second-order
    gradient code through a call that returns one did too)."""
    zpy.adjoint(pair_of)(pair_of_rule)
    try:
        y, dy = zpy.jvp(uses_a_pair, (1.5,), (2.0,))
    finally:
        registry.remove(pair_of)
    assert y == uses_a_pair(1.5) and dy == pytest.approx((6.0 * 1.5 + 2.0) * 2.0)


def test_a_tangent_can_be_copied_and_pickled():
    # (copy, deepcopy and pickle once recursed without end in Tangent.__getattr__)
    t = zpy.Tangent(("a", "b", "c"), a=1.0, b=[2.0, zpy.Tangent(x=3.0)])
    for u in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert u == t and list(zpy.tangent.values(u)) == ["a", "b", "c"]
    assert copy.deepcopy(t).b is not t.b and copy.copy(t).b is t.b


class Scale:
    def __init__(self, a):
        self.a = a


def scale_in_place(p, x):
    p.a = p.a * x
    return p.a


def test_jvp_leaves_the_tangents_passed_in_as_they_were():
    # (the tangent of an object changed in place was changed with it: Tangent(a=3.0) after the call)
    t, dx = zpy.Tangent(a=1.0), np.array([1.0, 0.0])
    assert zpy.jvp(scale_in_place, (Scale(2.0), 3.0), (t, 0.0)) == (6.0, 3.0)
    assert t == zpy.Tangent(a=1.0)
    y, dy = zpy.jvp(doubled_in_place, (np.array([1.0, 2.0]),), (dx,))
    assert list(dy) == [2.0, 0.0] and list(dx) == [1.0, 0.0]


def doubled_in_place(v):
    v *= 2.0
    return v
