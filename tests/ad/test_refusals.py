"""What is not differentiated yet says so (an error at the user's line)
instead of returning a wrong gradient: sequences joined by operators,
generator expressions that are not consumed at once. Each of these once
gave a wrong gradient in silence; so did values a nested function
reassigns, which are now differentiated."""
import pytest

import zygote_py as zpy


def join_lists(x, y):
    items = [x] + [y]
    return items[0] * items[1]


def repeat_a_tuple(x):
    t = (x, 2.0) * 2
    return t[0] * t[3]


@pytest.mark.parametrize("f, args", [(join_lists, (2.0, 3.0)), (repeat_a_tuple, (1.5,))])
def test_joining_sequences_is_refused_not_wrong(f, args):
    """Earlier, [x] + [y] gave y the gradient of x: now it is an error."""
    with pytest.raises(zpy.NoDerivativeRule, match="joining or repeating sequences"):
        zpy.gradient(f, *args)


def generator_of_differentiated_values(x, y):
    items = (x * k + y for k in range(3))
    return sum(items)


def generator_of_constants(x):
    return sum(k * k for k in range(4)) * x


def test_a_generator_expression_over_differentiated_values_is_refused_not_dropped():
    """Its items are computed inside sum(), out of the gradient's reach:
    this used to give (None, None) in silence. (Passed straight to sum(),
    it is differentiated: see test_generators.py.)"""
    with pytest.raises(zpy.UnsupportedSyntax, match="generator expression") as info:
        zpy.gradient(generator_of_differentiated_values, 1.5, 2.0)
    assert info.value.function == "generator_of_differentiated_values" and info.value.line is not None


def test_a_generator_expression_of_constants_is_fine():
    assert zpy.gradient(generator_of_constants, 2.0) == (14.0,)


def doubled_by_a_nested_function(x):
    def inner():
        nonlocal x
        x = x * 2
    inner()
    return x


def local_doubled_by_a_nested_function(a):
    x = a * 1.0

    def inner():
        nonlocal x
        x = x * 2
    inner()
    return x


@pytest.mark.parametrize("f", [doubled_by_a_nested_function, local_doubled_by_a_nested_function])
def test_a_value_a_nested_function_reassigns_is_differentiated(f):
    """The gradient used to be 1.0 (the value before inner() doubled it),
    in silence; then it was refused; now it is the right one, 2.0 (see
    test_cells.py)."""
    assert zpy.gradient(f, 1.5) == (2.0,)
