"""Variables shared with nested functions: assigned more than once, and
assigned by the nested functions themselves (``nonlocal``). Every gradient
and every tangent is checked against central finite differences of the
plain function, and each tangent against the gradient too."""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import UnsupportedSyntax

from tests.rules.npcheck import check_program

from .fdcheck import assert_gradient
from .test_forward import _direction, assert_directional


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


CASES = [
    (nonlocal_twice, (1.5,)),
    (nonlocal_parameter, (1.5, -0.7)),
    (accumulate_in_a_loop, (0.8, 3)),
    (read_after_reassignment, (1.5,)),
    (nonlocal_in_a_branch, (1.5, 1)),
    (nonlocal_in_a_branch, (1.5, -1)),
    (nested_read_and_write, (1.5,)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", None))
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


# -- forward mode ------------------------------------------------------------


def accumulate_a_sine(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        acc = acc + v * x

    for i in range(3):
        add(math.sin(x) * i)
    return acc


def two_cells(x, y):
    s, p = 0.0, 1.0

    def step(v):
        nonlocal s, p
        s = s + v * y
        p = p * (1.0 + v)
        return s * p

    r = 0.0
    for k in range(3):
        r = r + step(x * k)
    return r + s - p


def called_in_branches(x, c):
    s = x

    def mul(k):
        nonlocal s
        s = s * k + x

    if c > 0:
        mul(2.0)
    else:
        mul(x)
        mul(3.0)
    return s * s


def accumulate_an_array(q, x):
    total = np.zeros(3)

    def add(w):
        nonlocal total
        total = total + w * np.sin(q)

    for k in range(3):
        add(x * (k + 1))
    add(q * q)
    return np.sum(total * q)


def a_reader_and_a_writer(x):
    s = x

    def get():
        return s * s

    def put(v):
        nonlocal s
        s = v

    a = get()
    put(a * x)
    return a + get()


def a_lambda_reads_at_call_time(x, y):
    z = x * y
    lam = lambda r: r * z + y  # noqa: E731
    a = lam(x)
    z = math.sin(z)
    return a + lam(2.0)


def halves_until_small(x):
    s = x * x + 4.0
    steps = 0

    def halve():
        nonlocal s, steps
        steps += 1
        if s < 1.0:
            return False
        s = s * 0.5 + math.sin(x)
        return True

    while halve() and steps < 20:
        pass
    return s * steps


def with_a_nested_function_of_its_own(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        s = v

        def double():
            nonlocal s
            s = s * 2.0

        double()
        acc = acc + s * v

    add(x)
    add(x * x)
    return acc


FORWARD_CASES = [
    *CASES,
    (accumulate_a_sine, (0.7,)),
    (two_cells, (0.3, -1.2)),
    (called_in_branches, (0.6, 1)),
    (called_in_branches, (0.6, -1)),
    (accumulate_an_array, (np.array([0.3, -0.8, 1.1]), 0.7)),
    (a_reader_and_a_writer, (1.3,)),
    (a_lambda_reads_at_call_time, (0.4, 1.7)),
    (halves_until_small, (1.9,)),
    (with_a_nested_function_of_its_own, (0.7,)),
]


@pytest.mark.parametrize("f, args", FORWARD_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_shared_variables_in_forward_mode(f, args):
    """The tangent along a random direction is the central difference and
    the gradient's component along it."""
    dy = assert_directional(f, *args)
    rng = np.random.default_rng(0)  # (the direction assert_directional took)
    direction = [_direction(a, rng) for a in args]
    grads = zpy.gradient(f, *args)
    along = sum(np.sum(g * t) for g, t in zip(grads, direction) if g is not None and t is not None)
    np.testing.assert_allclose(dy, along, rtol=1e-9, atol=1e-12)


def test_nonlocal_analytic_in_forward_mode():
    assert zpy.jvp(nonlocal_twice, (1.5,), (1.0,)) == (4.5, 6.0)  # s = 2 x^2


def test_each_call_hands_the_nested_function_its_own_cells():
    """``add`` is a new closure at each call of ``accumulate_a_sine``, its
    pushforward compiled once."""
    for x in (0.7, 0.2):
        y, dy = zpy.jvp(accumulate_a_sine, (x,), (1.0,))
        assert y == accumulate_a_sine(x) and dy == pytest.approx(zpy.gradient(accumulate_a_sine, x)[0], rel=1e-12)


@pytest.mark.parametrize("f", [hands_on_the_closure])
def test_a_closure_that_shares_assigned_variables_and_is_passed_on_is_refused_in_forward_mode(f):
    with pytest.raises(UnsupportedSyntax, match="forward mode: a nested function that shares variables with this "
                       "function \\(s\\) and is passed on") as info:
        zpy.jvp(f, (1.5,), (1.0,))
    assert info.value.line is not None


def test_a_nested_function_assigning_a_cell_still_unassigned_is_refused_in_forward_mode():
    with pytest.raises(zpy.UnsupportedSyntax, match="calling g, which assigns `y` \\(nonlocal\\), before `y` is"):
        zpy.jvp(assigned_first_by_a_nested_function, (1.5,), (1.0,))


def a_lambda_in_the_nested_function(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        scale = lambda u: u * x  # noqa: E731  (x: add's free variable, a differentiated value)
        acc = acc + scale(v)

    add(x)
    return acc


def test_a_lambda_in_the_nested_function_gets_the_gradient_of_what_it_reads_in_reverse_mode():
    # (x is add's free variable, the lambda shares its cell: that gradient was lost, 0.7 for 1.4 at 0.7)
    assert_gradient(a_lambda_in_the_nested_function, 0.7)
    assert zpy.gradient(a_lambda_in_the_nested_function, 0.7) == (pytest.approx(1.4),)


def test_a_scope_in_a_nested_function_reading_its_handed_cells_is_refused_in_forward_mode():
    """The lambda reads ``x`` from ``add``'s caller, whose tangent ``add``
    receives but cannot hand on."""
    with pytest.raises(UnsupportedSyntax, match="forward mode: a nested function or generator expression that "
                       "reads a variable of the function enclosing this one") as info:
        zpy.jvp(a_lambda_in_the_nested_function, (1.5,), (1.0,))
    assert info.value.line == a_lambda_in_the_nested_function.__code__.co_firstlineno + 5


def calls_a_nested_function_from_another(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        acc = acc + v

    def twice(v):
        add(v)
        add(v * x)

    twice(x)
    return acc


def test_a_nested_function_calling_one_that_assigns_a_cell_is_refused_in_both_modes():
    with pytest.raises(UnsupportedSyntax, match="passed on, returned or stored"):
        zpy.gradient(calls_a_nested_function_from_another, 1.5)
    with pytest.raises(UnsupportedSyntax, match="forward mode: .*add captures differentiable values"):
        zpy.jvp(calls_a_nested_function_from_another, (1.5,), (1.0,))


def scaled_after_the_closure_is_made(x, a):
    def g(v):
        return a * v
    a = a * 3.0  # (g reads the new value: Python's closures read the cell when called)
    return np.sum(g(x) * x + a)


def rebound_parameter_of_a_closure_never_called(x, a):
    def g(v):
        return a * v
    a = a * 3.0
    return np.sum(a * x)


@pytest.mark.parametrize("f", [scaled_after_the_closure_is_made, rebound_parameter_of_a_closure_never_called])
def test_a_parameter_a_closure_captures_and_the_function_assigns(f):
    """A parameter captured by a nested function made before the parameter
    is assigned again: its cell holds the parameter until then, which the
    gradient missed (``None`` for ``a``, in silence)."""
    check_program(f, np.array([0.7, -0.3]), np.array([0.5]))
