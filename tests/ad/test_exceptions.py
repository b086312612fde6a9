"""Exceptions, ``try``/``except``/``else``/``finally`` and ``with`` under
the reverse transform.

The gradient follows the path the forward took: the statements of a
protected block that raised part-way contribute nothing, the handler's code
is differentiated like any other block, and an exception that leaves the
differentiated function propagates out of ``gradient`` unchanged. Every
gradient is checked against central finite differences (or an analytic
value where the function is not smooth enough for them)."""
from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest

import zygote_py as zpy

from .fdcheck import assert_gradient


# -- functions that never return ---------------------------------------------------


def always_raises(x):
    raise KeyError("boom")


def raises_on_every_path(x):
    if x > 0:
        raise ValueError(f"positive: {x}")
    y = x * x
    raise ArithmeticError("non-positive", y)


def raises_when_negative(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


class _Custom(Exception):
    pass


def raises_custom_from(x):
    try:
        return 1.0 / (x - x)
    except ZeroDivisionError as e:
        raise _Custom("wrapped") from e


@pytest.mark.parametrize("f, error, message", [
    (always_raises, KeyError, "boom"),
    (raises_on_every_path, ValueError, "positive: 3.0"),
])
def test_a_function_that_never_returns_propagates_its_exception(f, error, message):
    for entry in (zpy.gradient, zpy.value_and_gradient, zpy.pullback):
        with pytest.raises(error) as info:
            entry(f, 3.0)
        assert type(info.value) is error and message in str(info.value)


def test_an_escaping_exception_keeps_its_type_message_and_cause():
    assert zpy.gradient(raises_when_negative, 4.0) == (0.25,)
    with pytest.raises(ValueError, match="^negative input$"):
        zpy.gradient(raises_when_negative, -1.0)
    with pytest.raises(_Custom, match="wrapped") as info:
        zpy.gradient(raises_custom_from, 2.0)
    assert type(info.value.__cause__) is ZeroDivisionError


# -- try / except / else / finally -------------------------------------------------------


def raise_and_catch(x):
    try:
        y = x * x
        raise ValueError("no")
    except ValueError:
        y = y + x
    return y


def divide_by_zero_caught(x):
    try:
        y = 1 / (x - x)
    except ZeroDivisionError:
        y = x * x
    return y


def caught_or_not(x):
    try:
        y = math.log(x)
    except ValueError:
        y = -x * x
    return y * x


def try_else(x):
    y = x
    try:
        y = math.sqrt(x)
    except ValueError:
        y = x * 3.0
    else:
        y = y * x
    return y


def try_finally(x):
    y = x
    try:
        y = y * x
    finally:
        y = y + math.sin(x)
    return y


def finally_on_the_exceptional_path(x):
    y = x
    try:
        try:
            y = y * x
            if x > 1:
                raise KeyError("k")
            y = y * 2.0
        finally:
            y = y + x
    except KeyError:
        y = y * x
    return y


def return_in_try_finally(x):
    y = x * x
    try:
        return y * x
    finally:
        y = 0.0


def return_in_try_caught(x):
    try:
        if x > 0:
            return x * x
        raise ArithmeticError
    except ArithmeticError:
        return -x


def nested_try(x):
    y = x
    try:
        try:
            y = y * x
            z = 1.0 / (x - 2.0)
        except ZeroDivisionError:
            y = y * 3.0
            z = y / 0.0
        y = y + z
    except ZeroDivisionError:
        y = y - x
    return y


def try_in_loop(x, n):
    s = 0.0
    for k in range(n):
        try:
            s = s + x * k
            if k % 2:
                raise ValueError(k)
            s = s * x
        except ValueError:
            s = s - x
    return s


def try_in_while(x):
    s = 0.0
    k = 0
    while k < 4:
        k += 1
        try:
            s = s + 1.0 / (k - 2) * x
        except ZeroDivisionError:
            s = s * x
    return s


def loop_in_try(x, n):
    s = x
    try:
        for k in range(n):
            s = s * x
            if k == 2:
                raise StopIteration
    except StopIteration:
        s = s + x
    return s


def caught_by_name(x):
    try:
        y = x * x
        raise ValueError("message")
    except (KeyError, ValueError) as e:
        y = y * len(str(e))
    return y


def reraised(x):
    try:
        return math.log(x)
    except ValueError:
        raise RuntimeError(f"log of {x}")


TRY_CASES = [
    (raise_and_catch, 1.5),
    (divide_by_zero_caught, 1.5),
    (caught_or_not, 2.0),
    (caught_or_not, -2.0),
    (try_else, 2.0),
    (try_else, -2.0),
    (try_finally, 0.7),
    (finally_on_the_exceptional_path, 0.5),
    (finally_on_the_exceptional_path, 1.5),
    (return_in_try_finally, 1.3),
    (return_in_try_caught, 1.3),
    (return_in_try_caught, -1.3),
    (nested_try, 1.0),
    (try_in_while, 1.3),
    (caught_by_name, 1.5),
]


@pytest.mark.parametrize("f, x", TRY_CASES)
def test_try_is_differentiated_along_the_path_taken(f, x):
    assert_gradient(f, x)


def test_analytic_values_of_caught_exceptions():
    assert zpy.gradient(raise_and_catch, 1.5) == (2 * 1.5 + 1,)
    assert zpy.gradient(divide_by_zero_caught, 1.5) == (3.0,)
    assert zpy.gradient(nested_try, 2.0) == (2 * 2.0 * 3.0 - 1,)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_try_in_a_loop(n):
    assert_gradient(try_in_loop, 1.3, n)


@pytest.mark.parametrize("n", [0, 2, 3, 6])
def test_an_exception_leaving_a_loop(n):
    assert_gradient(loop_in_try, 1.1, n)


def test_an_exception_raised_by_a_handler_escapes_unchanged():
    assert_gradient(reraised, 2.0)
    with pytest.raises(RuntimeError, match="^log of -2.0$") as info:
        zpy.gradient(reraised, -2.0)
    assert type(info.value.__context__) is ValueError


def test_pullback_after_a_caught_exception():
    y, back = zpy.pullback(try_in_loop, 1.3, 5)
    assert y == try_in_loop(1.3, 5)
    assert back(1.0) == back(1.0) == zpy.gradient(try_in_loop, 1.3, 5)


def test_emitted_source_of_a_try_is_deterministic():
    from zygote_py.ad import pipeline

    def source():
        t = pipeline._compile(nested_try, [True], [pipeline.kind(1.0)], False)
        return t.source, t.gradient_source

    first = source()
    assert "try:" in first[0] and "except BaseException" in first[0]
    assert source() == first


# -- with ------------------------------------------------------------------------------


class Recorder:
    """A context manager that counts its entries and exits and what ended
    its block."""

    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append("exit" if kind is None else kind.__name__)
        return kind is ZeroDivisionError


RECORDER = Recorder()


def with_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x) * x
    return y * 2.0


def with_suppress(x):
    y = x * x
    with contextlib.suppress(ZeroDivisionError):
        y = y * x
        y = y / (x - x)
    return y + x


def with_suppress_nothing_raised(x):
    y = x * x
    with contextlib.suppress(ZeroDivisionError):
        y = y / x
    return y + x


def with_user_manager(x):
    y = x
    with RECORDER as r:
        y = y * math.exp(x)
        if x > 1:
            y = y / (x - x)
        y = y + x
    return y * len(r.log)


def with_in_loop(x, n):
    s = x
    for k in range(n):
        with RECORDER:
            s = s * x
            if k == 1:
                s = s / 0.0
    return s


class Managers:
    def quiet(self):
        return contextlib.nullcontext()


def with_a_list_changed_inside(x, managers):
    # (the manager is known only at run time, so its __enter__ is called through its
    # class, type(manager).__enter__(manager), which is no change of the class)
    with managers.quiet():
        a = [x]
        a.append(x * 2.0)
        if x > 0:
            return a[0] * a[1]
    return x


def test_with_a_manager_known_at_run_time_around_a_change_in_place():
    assert zpy.gradient(with_a_list_changed_inside, 0.7, Managers())[0] == pytest.approx(2.8, rel=1e-14)
    assert zpy.gradient(with_a_list_changed_inside, -0.7, Managers())[0] == 1.0


WITH_CASES = [
    (with_errstate, 1.7),
    (with_suppress, 1.7),
    (with_suppress_nothing_raised, 1.7),
]


@pytest.mark.parametrize("f, x", WITH_CASES)
def test_with_is_differentiated(f, x):
    assert_gradient(f, x)


def test_with_suppress_analytic():
    # the division raised: y = x**3, then y + x
    assert zpy.gradient(with_suppress, 2.0) == (3 * 4.0 + 1,)


@pytest.mark.parametrize("x", [0.5, 1.5])
def test_a_user_context_manager_runs_and_is_differentiated(x):
    RECORDER.log.clear()
    g, = zpy.gradient(with_user_manager, x)
    log = list(RECORDER.log)
    assert log == ["enter", "ZeroDivisionError" if x > 1 else "exit"]
    RECORDER.log.clear()
    value = with_user_manager(x)
    assert RECORDER.log == log
    n = len(log)
    # y = x * exp(x) [+ x when nothing raised], times len(log) == 2
    expected = (math.exp(x) + x * math.exp(x) + (0.0 if x > 1 else 1.0)) * n
    assert math.isclose(g, expected, rel_tol=1e-12), (g, expected, value)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_with_in_a_loop(n):
    RECORDER.log.clear()
    assert_gradient(with_in_loop, 1.2, n)


# -- what is refused, at the user's line ---------------------------------------------------


def exception_carrying_a_gradient(x):
    try:
        raise ValueError(x * x)
    except ValueError as e:
        return e.args[0]


def exception_leaving_an_inner_loop(x, n):
    s = x
    for i in range(n):
        try:
            for k in range(n):
                s = s * x
                if k == 1:
                    raise KeyError(k)
        except KeyError:
            s = s + x
    return s


def global_read_in_a_loop(x):
    global H
    H = x
    for k in range(3):
        H = H * x
    return H


@pytest.mark.parametrize("f, args, what, line", [
    (exception_carrying_a_gradient, (1.5,), "exception that carries a differentiated value", 3),
    (exception_leaving_an_inner_loop, (1.5, 3), "loop that runs inside another loop", 5),
    (global_read_in_a_loop, (1.5,), "global 'H'", 5),
])
def test_what_cannot_be_differentiated_says_where(f, args, what, line):
    with pytest.raises(zpy.UnsupportedSyntax, match=what) as info:
        zpy.gradient(f, *args)
    message = str(info.value)
    first = f.__code__.co_firstlineno
    assert f.__name__ in message and "test_exceptions.py" in message
    assert f"line {first + line - 1}" in message, message


class _Stop(Exception):
    pass


def _always_raises(x):
    raise _Stop()


def catch_in_a_loop_over_a_list(xs):
    s = 0.0
    for x in xs:
        try:
            _always_raises(1.0)
        except _Stop:
            s = s + x * x
    return s


def nested_with_blocks_binding_the_outer(x):
    with contextlib.nullcontext(2.0) as a:
        with contextlib.nullcontext():
            y = x * a
    return y


def two_managers_in_one_with(x):
    with contextlib.nullcontext(2.0) as a, contextlib.nullcontext(3.0) as b:
        y = x * a * b
    return y


def test_a_try_block_at_the_start_of_a_loop_over_a_list():
    """The loop reads its item at the start of the body, which the try
    block protected: the handler skipped the read's pullback (the gradient
    was None for [1.8, 1.2])."""
    (g,) = zpy.gradient(catch_in_a_loop_over_a_list, [0.9, 0.6])
    assert g == [pytest.approx(1.8), pytest.approx(1.2)]


@pytest.mark.parametrize("f", [nested_with_blocks_binding_the_outer, two_managers_in_one_with],
                         ids=lambda f: f.__name__)
def test_nested_with_blocks_that_bind_their_managers_values(f):
    """(They crashed compiling: a version of the outer manager was passed
    to the inner block's handler on one edge only.)"""
    assert_gradient(f, 1.5)


def _with_n(f, n):
    return lambda x: f(x, n)


def filled_on_a_key_error(x):
    # (hvp, forward over reverse: gradient code's cache.values(), a method read off a differentiated dict, had
    # no tangent)
    cache = {}
    out = 0.0
    for i in range(4):
        try:
            out = out + cache[i % 2] * x
        except KeyError:
            cache[i % 2] = x * (i + 1.0)
    return out + sum(cache.values())


FORWARD_CASES = TRY_CASES + WITH_CASES + [(filled_on_a_key_error, 0.7), 
    (_with_n(try_in_loop, 3), 1.3), (_with_n(loop_in_try, 3), 1.1), (_with_n(loop_in_try, 6), 1.1),
    (nested_with_blocks_binding_the_outer, 1.5), (two_managers_in_one_with, 1.5)]


@pytest.mark.parametrize("f, x", FORWARD_CASES)
def test_try_and_with_in_forward_mode_and_at_second_order(f, x, monkeypatch):
    """Forward mode through ``try`` and ``with`` blocks whose handler (or
    manager's exit) a differentiated value reaches: refused before (the
    handler's values got no tangents), and so was ``hvp`` forward over
    reverse. Checked against central differences of ``f`` and of its
    gradient."""
    from zygote_py import derivatives

    monkeypatch.setattr(derivatives, "_hvp_reverse", None)  # forward over reverse, or a TypeError
    h = 1e-6 * max(1.0, abs(x))
    y, dy = zpy.jvp(f, (x,), (1.0,))
    assert y == f(x) and dy == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-6, abs=1e-8)
    (hv,) = zpy.hvp(f, (x,), (1.0,))
    fd = (zpy.gradient(f, x + h)[0] - zpy.gradient(f, x - h)[0]) / (2 * h)
    assert hv == pytest.approx(fd, rel=1e-5, abs=1e-6)
