"""The rule registry: lookup, user overrides, removal, keys."""
import math
import operator

import pytest

from zygote_py.rules import (
    adjoint,
    is_nondifferentiable,
    lookup,
    nondifferentiable,
    pymath,
    remove,
)


@pytest.fixture
def user_entries():
    """Functions whose user entries the test makes; removed afterwards."""
    fns = []
    yield fns
    for fn in fns:
        remove(fn)


def test_builtin_rules_are_found():
    assert lookup(math.sin) is pymath.sin
    assert lookup(lambda x: x) is None
    assert not is_nondifferentiable(math.sin)
    assert is_nondifferentiable(operator.lt) and lookup(operator.lt) is None


def test_a_user_rule_overrides_the_builtin_one_until_removed(user_entries):
    user_entries.append(math.sin)

    @adjoint(math.sin)
    def my_sin(x):
        def back(dy):
            return (dy,)
        return math.sin(x), back

    assert lookup(math.sin) is my_sin
    assert remove(math.sin) is True
    assert lookup(math.sin) is pymath.sin
    assert remove(math.sin) is False


def test_user_entries_override_in_both_directions(user_entries):
    user_entries += [math.floor, math.cos]

    @adjoint(math.floor)
    def straight_through(x):
        def back(dy):
            return (dy,)
        return math.floor(x), back

    assert lookup(math.floor) is straight_through
    assert not is_nondifferentiable(math.floor)

    nondifferentiable(math.cos)
    assert is_nondifferentiable(math.cos) and lookup(math.cos) is None

    remove(math.floor)
    remove(math.cos)
    assert is_nondifferentiable(math.floor)
    assert lookup(math.cos) is pymath.cos


def test_rules_for_new_functions_are_removable(user_entries):
    def f(x):
        return 2 * x

    user_entries.append(f)

    @adjoint(f)
    def f_rule(x):
        def back(dy):
            return (2 * dy,)
        return f(x), back

    y, back = lookup(f)(3.0)
    assert (y, back(1.0)) == (6.0, (2.0,))
    remove(f)
    assert lookup(f) is None


class Scaler:
    __hash__ = None  # unhashable, as a mutable callable may be

    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * x

    def __eq__(self, other):
        return isinstance(other, Scaler) and other.k == self.k

    def scale(self, x):
        return self.k * x


def test_unhashable_callables_are_keyed_by_identity(user_entries):
    s, twin = Scaler(2), Scaler(2)
    user_entries.append(s)
    nondifferentiable(s)
    assert is_nondifferentiable(s)
    assert not is_nondifferentiable(twin)  # equal, but another object


def test_bound_methods_are_found_again(user_entries):
    s = Scaler(2)
    user_entries.append(s.scale)
    nondifferentiable(s.scale)
    assert is_nondifferentiable(s.scale)  # a new bound method object
    assert not is_nondifferentiable(Scaler(2).scale)


def test_every_adjoint_rule_has_a_pushforward():
    """Forward mode's counterpart of each built-in adjoint rule: a
    pushforward rule, except where forward mode never meets the function or
    handles it itself."""
    from zygote_py import runtime
    from zygote_py import registry

    from zygote_py.runtime.forward import MACHINERY_PUSHES

    handled = runtime.ITERATORS  # evaluated eagerly by runtime.push, values and tangents together
    missing = []
    for key, entry in registry._builtin.items():
        fn = key.obj if isinstance(key, registry._ByIdentity) else key
        if entry is registry.NONDIFFERENTIABLE or registry.lookup_pushforward(fn) is not None or fn in handled:
            continue
        if fn in MACHINERY_PUSHES:
            continue  # (J, call_pullback, zpy.gradient...: pushed forward by runtime.push itself, value and tangent)
        if isinstance(entry, registry._Implementation):
            continue  # differentiated through its formula, in both modes (scipy.stats.norm.logpdf)
        if getattr(entry, "__module__", "") == "zygote_py.ad.mutation.operations" or fn is runtime.call_with_cells:
            continue  # made by the reverse transform's mutation and cell passes only
        missing.append(registry.display_name(fn))
    # call_spread's tangent is its callee's, which a pushforward given the
    # output would have to call again; a partial binding a differentiated
    # value is refused when called; zpy.pullback makes a pullback, a
    # closure forward mode refuses to push through (runtime.push says so:
    # see tests/ad/test_nested.py; forward_changing and forward_with_cells,
    # in gradient code, are pushed as MACHINERY_PUSHES); push's and jvp's are reverse mode over forward mode's own
    # machinery; dataclasses.replace takes its changes as keywords, and forward
    # mode pushes it by its adjoint (runtime.push_by_adjoint, checked in
    # tests/ad/test_real_code.py), as it does iter (an EagerIterator of the
    # items, tests/ad/test_generator_functions.py) and zpy.tree.map (its
    # function's pushes, tests/ad/test_tree.py); zpy.grad and
    # zpy.value_and_grad make a function of the variables f captures, a
    # closure forward mode refuses to pass on (its calls are pushed as
    # run_grad's)
    assert sorted(missing) == ["(internal) call_spread", "(internal) map", "(internal) push", "dataclasses.replace",
                               "functools.partial", "iter", "zpy.grad", "zpy.jvp", "zpy.pullback",
                               "zpy.value_and_grad"]


def test_a_user_adjoint_hides_the_builtin_pushforward(user_entries):
    from zygote_py import registry

    assert registry.lookup_pushforward(math.sin) is not None
    user_entries.append(math.sin)
    adjoint(math.sin)(lambda x: (math.sin(x), lambda dy: (dy,)))
    assert registry.lookup_pushforward(math.sin) is None  # forward mode derives it from the user's rule


def test_a_rule_for_a_new_callable_object_keeps_compiled_gradients(user_entries):
    """Compiled code reached a callable object through the run-time ``J``,
    which reads the registry each call: a first rule for one need not drop
    every compiled gradient (as compiling a tensor expression would)."""
    from zygote_py import registry

    s = Scaler(3)
    user_entries.append(s)
    before = registry.generation()
    adjoint(s)(lambda x: (s(x), lambda dy: (3 * dy,)))
    assert registry.generation() == before

    def python_function(x):
        return x

    user_entries.append(python_function)
    adjoint(python_function)(lambda x: (x, lambda dy: (dy,)))
    assert registry.generation() != before  # (its source may have been compiled into a caller)


def test_rule_modules_of_a_library_load_when_it_is_imported(monkeypatch):
    """``when_imported``: nothing is imported until the library is, then
    the rule module's entries land in the built-in layer (``remove`` keeps
    them)."""
    import sys
    import types

    from zygote_py import registry

    def library_function(x):
        return 2.0 * x

    rules = types.ModuleType("zpy_test_lazy_rules")
    rules.__spec__ = None
    calls = []

    def load(name, *args):
        calls.append(name)
        registry.nondifferentiable(library_function)
        return rules

    monkeypatch.setattr(registry.importlib, "import_module", load)
    registry.when_imported("zpy_test_lazy_library", "zpy_test_lazy_rules")
    try:
        assert not is_nondifferentiable(library_function) and calls == []
        monkeypatch.setitem(sys.modules, "zpy_test_lazy_library", types.ModuleType("zpy_test_lazy_library"))
        assert is_nondifferentiable(library_function) and calls == ["zpy_test_lazy_rules"]
        assert not remove(library_function) and is_nondifferentiable(library_function)
        assert lookup(math.sin) is pymath.sin and calls == ["zpy_test_lazy_rules"]  # (loaded once)
    finally:
        registry._lazy.pop("zpy_test_lazy_library", None)
        registry._builtin.pop(registry.key(library_function), None)


def test_a_function_implemented_by_a_formula_is_differentiated_through_it(user_entries):
    """``implemented_by``: reverse, forward and second order come from the
    formula; the function itself still runs (its value is its own)."""
    import numpy as np

    import zygote_py as zpy
    from zygote_py import registry

    class Library:
        def softplus(self, x, beta=1.0):  # (stands for a library's method: compiled code, say)
            return np.log1p(np.exp(beta * x)) / beta + 0.0

    lib = Library()
    user_entries.append(lib.softplus)

    @registry.implemented_by(lib.softplus)
    def formula(x, beta=1.0):
        return np.logaddexp(0.0, beta * x) / beta

    def f(x, beta):
        return np.sum(lib.softplus(x, beta) * x)

    x, beta = np.array([-1.0, 0.5, 2.0]), 1.5
    s = 1 / (1 + np.exp(-beta * x))
    dx = lib.softplus(x, beta) + x * s
    dbeta = np.sum(x * (x * s / beta - lib.softplus(x, beta) / beta))
    gx, gbeta = zpy.gradient(f, x, beta)
    np.testing.assert_allclose(gx, dx, rtol=1e-12)
    np.testing.assert_allclose(gbeta, dbeta, rtol=1e-12)
    v = np.array([0.3, -1.0, 2.0])
    _, tangent = zpy.jvp(f, (x, beta), (v, 0.0))
    np.testing.assert_allclose(tangent, dx @ v, rtol=1e-12)
    h = zpy.hessian(lambda x: f(x, beta), x)
    np.testing.assert_allclose(np.diag(h), 2 * s + x * beta * s * (1 - s), rtol=1e-10)
    assert np.count_nonzero(h - np.diag(np.diag(h))) == 0


def test_a_library_function_without_a_rule_is_refused_at_the_users_line():
    """SciPy's own Python source is never differentiated: the error names
    the function as the user imports it, at the user's line."""
    import numpy as np

    optimize = pytest.importorskip("scipy.optimize")
    import zygote_py as zpy

    def loss(x):
        return optimize.rosen(x) * 2.0

    with pytest.raises(zpy.NoDerivativeRule) as e:
        zpy.gradient(loss, np.array([1.0, 2.0, 3.0]))
    message = str(e.value)
    assert message.startswith(f"in function '{loss.__qualname__}', file '{__file__}', line {loss.__code__.co_firstlineno + 1}:")
    assert "'scipy.optimize.rosen'" in message and "@zpy.adjoint(scipy.optimize.rosen)" in message
