"""Variables shared with nested functions: assigned more than once, and
assigned by the nested functions themselves (``nonlocal``). Every gradient
is checked against central finite differences of the plain function."""
import pytest

import zygote_py as zpy
from zygote_py.errors import UnsupportedSyntax

from .fdcheck import assert_gradient


def nonlocal_twice(x):
    s = x

    def scale(v):
        nonlocal s
        s = s * v

    scale(2.0)
    scale(x)
    return s


def nonlocal_parameter(x, y):
    def bump():
        nonlocal x
        x = x * y + 1.0

    bump()
    bump()
    return x


def accumulate_in_a_loop(x, n):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * x

    for k in range(n):
        add(k + 1.0)
    return total


def read_after_reassignment(x):
    a = x
    get = lambda: a * a  # noqa: E731  (reads a when called)
    first = get()
    a = 3.0 * x
    return first + get()


def nonlocal_in_a_branch(x, c):
    s = x

    def grow():
        nonlocal s
        if c > 0:
            s = s * s
        return s + 1.0

    r = grow()
    return r * s


def nested_read_and_write(x):
    s = x

    def inner(v):
        nonlocal s
        old = s
        s = s + v
        return old * v

    return inner(x) + inner(2.0) * s


@pytest.mark.parametrize("f, args", [
    (nonlocal_twice, (1.5,)),
    (nonlocal_parameter, (1.5, -0.7)),
    (accumulate_in_a_loop, (0.8, 3)),
    (read_after_reassignment, (1.5,)),
    (nonlocal_in_a_branch, (1.5, 1)),
    (nonlocal_in_a_branch, (1.5, -1)),
    (nested_read_and_write, (1.5,)),
], ids=lambda v: getattr(v, "__name__", None))
def test_shared_variables(f, args):
    assert_gradient(f, *args)


def test_nonlocal_analytic():
    assert zpy.gradient(nonlocal_twice, 1.5) == (6.0,)  # s = 2 x^2


def returns_a_counter(x):
    s = x

    def bump():
        nonlocal s
        s = s * 2.0
        return s

    bump()
    return bump


def escaping(x):
    f = returns_a_counter(x)
    return f()


def hands_on_the_closure(x):
    s = x

    def bump():
        nonlocal s
        s = s * 2.0

    run(bump)
    return s


def run(g):
    g()


@pytest.mark.parametrize("f", [hands_on_the_closure])
def test_a_closure_that_shares_assigned_variables_and_is_passed_on_is_refused(f):
    with pytest.raises(UnsupportedSyntax, match="passed on") as info:
        zpy.gradient(f, 1.5)
    assert info.value.line is not None


def assigned_first_by_a_nested_function(x):
    def g():
        nonlocal y
        y = x * 2.0
    g()
    r = y * x
    y = 1.0
    return r


def test_a_nested_function_assigning_a_cell_still_unassigned_is_refused():
    """``g`` assigns ``y`` before its owner does: the compiled ``g`` read
    the empty cell at its start (a NameError from inside zygote_py); now a
    clear refusal at the call's line."""
    assert assigned_first_by_a_nested_function(1.5) == 4.5
    with pytest.raises(zpy.UnsupportedSyntax, match="calling g, which assigns `y` \\(nonlocal\\), before `y` is") as e:
        zpy.gradient(assigned_first_by_a_nested_function, 1.5)
    assert e.value.line == assigned_first_by_a_nested_function.__code__.co_firstlineno + 4
