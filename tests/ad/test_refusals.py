"""What is not differentiated yet says so (an error at the user's line)
instead of returning a wrong gradient: generator expressions that are not
consumed at once. Each of these once gave a wrong gradient in silence; so
did values a nested function reassigns and sequences joined by operators,
which are now differentiated."""
import pytest

import zygote_py as zpy


def join_lists(x, y):
    items = [x] + [y]
    return items[0] * items[1]


def repeat_a_tuple(x):
    t = (x, 2.0) * 2
    return t[0] * t[3]


@pytest.mark.parametrize("f, args, grads", [(join_lists, (2.0, 3.0), (3.0, 2.0)), (repeat_a_tuple, (1.5,), (2.0,))])
def test_joining_sequences_gives_each_part_its_own_gradient(f, args, grads):
    """Earlier, [x] + [y] gave y the gradient of x, then was an error (see
    tests/ad/test_language.py)."""
    assert zpy.gradient(f, *args) == grads


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


def set_of_differentiated_values(x):
    s = {x, 2.0 * x}
    return sum(s)


def test_a_set_of_differentiated_values_is_refused_at_the_users_line():
    """A set display went to the source transform of zygote_py's own
    ``build_set``, and the error named that function in zygote_py's file."""
    with pytest.raises(zpy.NoDerivativeRule, match="no derivative rule for `{a, b, \\*c}` with differentiated") as e:
        zpy.gradient(set_of_differentiated_values, 1.5)
    assert e.value.function == "set_of_differentiated_values" and e.value.filename == __file__
    assert e.value.line == set_of_differentiated_values.__code__.co_firstlineno + 1


STORED = 0.0


def _store_twice(x):
    global STORED
    STORED = x * 2.0


def reads_a_global_a_callee_assigned(x):
    _store_twice(x)
    return STORED * x


def test_a_callee_assigning_a_global_a_differentiated_value_is_refused():
    """The caller read ``STORED`` after the call as a constant: the gradient
    was 3.0 where it is 6.0, silently."""
    assert reads_a_global_a_callee_assigned(1.5) == 4.5
    with pytest.raises(zpy.UnsupportedSyntax, match="_store_twice assigns the global 'STORED' a differentiated") as e:
        zpy.gradient(reads_a_global_a_callee_assigned, 1.5)
    assert e.value.function == "_store_twice"
    y, back = zpy.pullback(_store_twice, 1.5)  # differentiated itself: nothing differentiated reads it after
    assert y is None and STORED == 3.0


def _raise_double(x):
    if x > 0.0:
        raise ValueError(x * 2.0)
    return x


def catches_what_a_callee_raised(x):
    try:
        return _raise_double(x)
    except ValueError as e:
        return e.args[0] * x


def test_an_exception_carrying_a_differentiated_value_out_of_a_callee_is_refused():
    """The caller caught ``ValueError(2 x)`` and used its value: the gradient
    was 3.0 where it is 6.0, silently. Catching it in a differentiated
    function is refused when it happens; where it does not, the gradient is
    as usual, and uncaught it leaves ``gradient`` unchanged."""
    assert catches_what_a_callee_raised(1.5) == 4.5
    with pytest.raises(zpy.UnsupportedSyntax, match="catching the ValueError that _raise_double raised carrying") as e:
        zpy.gradient(catches_what_a_callee_raised, 1.5)
    assert e.value.function == "catches_what_a_callee_raised"
    assert zpy.gradient(catches_what_a_callee_raised, -1.5) == (1.0,)
    with pytest.raises(ValueError) as e:
        zpy.gradient(lets_a_callee_raise, 1.5)
    assert e.value.args == (3.0,)


def lets_a_callee_raise(x):
    return _raise_double(x) * x


def catches_another_kind(x):
    try:
        return _raise_double(x)
    except KeyError:
        return x


def catches_without_reading(x):
    try:
        return _raise_double(x)
    except ValueError:
        return x * x


def test_a_callees_exception_not_read_by_the_handler_is_fine():
    """Only reading the exception is refused: a handler for another kind
    lets it go on unchanged, and one that does not read it is
    differentiated along the path taken."""
    with pytest.raises(ValueError):
        zpy.gradient(catches_another_kind, 1.5)
    assert zpy.gradient(catches_without_reading, 1.5) == (3.0,)
