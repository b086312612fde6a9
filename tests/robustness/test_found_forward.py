"""Forward-mode bugs the differential fuzzer found, each cut down to a
minimal program and checked against the plain function's value (exactly)
and central finite differences (the tangent).

The first four were one bug: the forward transform visited the blocks in
the order of their ids, but inlining a helper moves the rest of the
calling block into a new block with a higher id than the blocks after it,
which read the helper's result. Such a block was transformed before the
value's definition, and the primal's name for the value leaked into the
output IR, where it named some other value of the pushforward: with the
IR verifier off, an UnboundLocalError, a comparison of a float with a
builtin (``'<' not supported``) or, silently, a wrong value and tangent.
The transform now visits the blocks in reverse postorder, definitions
first, and an operand the transform has not copied is an error.
"""
from types import SimpleNamespace

import numpy as np
import pytest

import zygote_py as zpy

from . import fuzz_programs as fp

def _doubled_if_negative_squared(a):
    if a < 0.0:  # (a branch: the inlined body keeps its own blocks)
        a = a * 2.0
    return a * a


def reads_a_helper_result_in_a_branch(p0, p1, q, n):
    x = _doubled_if_negative_squared(p0)  # was jvp_unbound_local / jvp_ir_error
    if p1 < 0.0:
        return x * p1
    return x


def reads_it_after_three_statements(p0, p1, q, n):
    p1 = p1 * 0.5
    p1 = p1 * 0.5
    p1 = p1 * 0.5
    x = _doubled_if_negative_squared(p0)  # was jvp_wrong_value: -0.0 for -0.0207
    if p1 < 0.0:
        return x * p1
    return x


def compares_it(p0, p1, q, n):
    p1 = abs(p1) - 1.0
    p1 = abs(p1) - 1.0
    p1 = abs(p1) - 1.0
    p1 = abs(p1) - 1.0
    x = _doubled_if_negative_squared(p0)  # was jvp_compares_a_builtin
    if p0 < 1.0:
        return p1 * (0.5 if p1 < x else 2.0)
    return x


def reads_it_in_a_loop(p0, p1, q, n):
    x = _doubled_if_negative_squared(p0)
    while p1 < 1.0:
        p1 = p1 + x * x + 0.5
    return p1


@pytest.mark.parametrize("f", [reads_a_helper_result_in_a_branch, reads_it_after_three_statements, compares_it,
                               reads_it_in_a_loop], ids=lambda f: f.__name__)
def test_a_helper_result_read_by_a_later_block(f):
    outcome = fp.check_program(SimpleNamespace(prog=f), modes=("jvp",))
    assert not outcome.disagreements and not outcome.refused, (outcome.disagreements, outcome.refused)
    assert outcome.checked_jvp == len(fp.POINTS)  # (no point skipped)


def where_with_an_integer_array(p0, p1, q, n):
    v = np.where(q > 1.0, q * p0, np.full(3, 3))  # was program_752 and 2517: a nan tangent
    return np.sum(v * q) + p1


def an_integer_array_on_one_path(p0, p1, q, n):
    v = np.cos(q) * p1
    if p0 > 0.0:
        v *= p0
    else:
        v = np.full(3, 3)  # was program_2512: 'NoneType' object is not subscriptable
    return v[0] * p0 + v[1] * p1


@pytest.mark.parametrize("f", [where_with_an_integer_array, an_integer_array_on_one_path], ids=lambda f: f.__name__)
def test_an_integer_array_where_a_tangent_is_computed_with(f):
    """Its zero tangent (``None``: an integer array carries none) was
    computed with: a rule's concrete zero, and the zero passed to a block
    argument that carries a tangent, are now a float zero of its shape."""
    outcome = fp.check_program(SimpleNamespace(prog=f), modes=("jvp",))
    assert not outcome.disagreements and not outcome.refused, (outcome.disagreements, outcome.refused)
    assert outcome.checked_jvp == len(fp.POINTS)


def changes_an_array_a_closure_holds(a):
    v = np.ones(3)

    def inner(r):
        return r * float(np.sum(v * v))
    v[1] = a  # (the line refused)
    return inner(-0.75)


def test_an_object_a_closure_holds_changed_with_a_differentiated_value_is_refused():
    """Was program_2494: ``RuntimeError: load_deref is rendered by the
    backend`` (the read of the closure's variable was pushed forward as
    a call). ``inner`` reads ``v`` where its tangent cannot follow."""
    with pytest.raises(zpy.UnsupportedSyntax, match="an object that a nested function or a global variable holds") \
            as e:
        zpy.jvp(changes_an_array_a_closure_holds, (0.5,), (1.0,))
    assert e.value.function == "changes_an_array_a_closure_holds"
    assert e.value.line == changes_an_array_a_closure_holds.__code__.co_firstlineno + 5
