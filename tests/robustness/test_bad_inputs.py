"""Every bad input gets a clear error: a ``zygote_py`` exception whose
message names the user's function and line (never a traceback from inside
the compiler), or, where plain Python itself fails on the input, exactly
the exception plain Python raises. Inputs that are merely unusual (NaN,
inf, empty arrays, integer arrays, strings and ``None`` on paths that carry
no gradient) are differentiated like NumPy would compute them, without a
crash."""
import hashlib
import inspect
import math
import re
import sys
import traceback
import warnings

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import BadTangent, RecursionTooDeep, WrongArguments

HERE = __file__


def line_of(f, text: str) -> int:
    """The file line of the first line of ``f``'s source containing ``text``."""
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if text in line)


def assert_names_user_code(error: zpy.ZygoteError, f, text: str) -> None:
    """``error`` names ``f``, this file and the line of ``f`` containing
    ``text``, in its fields and in its message."""
    line = line_of(f, text)
    assert error.function == f.__qualname__
    assert error.filename == HERE
    assert error.line == line
    message = str(error)
    assert repr(f.__qualname__) in message and f"line {line}" in message


def raised_at_run_time(error: BaseException) -> bool:
    """The traceback passes through this file (the user's code) and was
    not raised inside zygote_py's compiler (the frontend, IR, AD and
    backend packages) but by the code it runs."""
    frames = traceback.extract_tb(error.__traceback__)
    innermost = frames[-1].filename
    return any(frame.filename == HERE for frame in frames[1:]) and not any(
        f"zygote_py/{part}/" in innermost for part in ("frontend", "ir", "ad", "backend"))


# -- unsupported syntax -------------------------------------------------------------


def endless_generator(x):
    while True:
        yield x * 2.0


def yield_inside(x):
    y = x * 2.0
    z = yield y
    return z


async def coroutine(x):
    return x * 2.0


def class_inside(x):
    class Local:
        scale = 2.0
    return x * Local.scale


def import_inside(x):
    from . import fuzz
    return x * len(fuzz.__name__)


@pytest.mark.parametrize("f, line, words", [
    (endless_generator, "while True", "never ends"),
    (yield_inside, "z = yield y", "a 'yield' whose value"),
    (coroutine, "async def", "async functions cannot be differentiated"),
    (class_inside, "class Local", "'class' statement inside a function"),
    (import_inside, "from . import fuzz", "relative import"),
])
@pytest.mark.parametrize("mode", ["gradient", "pullback", "jvp"])
def test_unsupported_syntax_names_the_line(f, line, words, mode):
    with pytest.raises(zpy.UnsupportedSyntax) as info:
        if mode == "gradient":
            zpy.gradient(f, 1.5)
        elif mode == "pullback":
            zpy.pullback(f, 1.5)
        else:
            zpy.jvp(f, (1.5,), (1.0,))
    assert words in str(info.value)
    assert_names_user_code(info.value, f, line)
    assert info.value.hint  # says what to do instead


# -- calls with no derivative rule --------------------------------------------------


def hashes_a_float(x):
    y = x * 2.0
    digest = hashlib.sha256(y)
    return y


def hashes_an_array(x):
    y = np.sin(x)
    digest = hashlib.sha256(y).hexdigest()
    return np.sum(y) * len(digest)


def unique_values(x):
    return np.sum(np.unique(x * 2.0))


def polynomial_fit(x):
    return np.sum(np.polyfit(np.arange(3.0), x, 1)) * 2.0


def through_histogram(x):
    return np.sum(np.histogram2d(x, x[::-1], bins=2, weights=x)[0])


@pytest.mark.parametrize("f, x, line, name", [
    (hashes_a_float, 1.5, "hashlib.sha256(y)", "sha256"),
    (hashes_an_array, np.array([1.0, 2.0]), "hashlib.sha256(y)", "sha256"),
    (unique_values, np.array([1.0, 2.0]), "np.unique", "np.unique"),
    (polynomial_fit, np.array([1.0, 2.0, 0.5]), "np.polyfit", "np.polyfit"),
    (through_histogram, np.array([1.0, 2.0, 0.5]), "np.histogram2d", "np.histogram2d"),
])
def test_a_call_with_no_rule_names_the_callee_and_the_line(f, x, line, name):
    with pytest.raises(zpy.NoDerivativeRule) as info:
        zpy.gradient(f, x)
    message = str(info.value)
    assert "no derivative rule" in message and name in message and "@zpy.adjoint" in message
    assert_names_user_code(info.value, f, line)


def hashes_a_constant(x):
    digest = hashlib.sha256(b"salt").hexdigest()
    return x * len(digest)


def frexp_parts(x):
    mantissa, exponent = np.frexp(x)
    return np.sum(mantissa * exponent)


def frexp_whole(x):
    return np.frexp(x)


def test_a_c_function_off_the_differentiated_path_is_fine():
    assert zpy.gradient(hashes_a_constant, 1.5) == (64.0,)


def test_frexp_exponent_is_piecewise_constant():
    x = np.array([1.5, 3.0, -5.0])
    (g,) = zpy.gradient(frexp_parts, x)
    _, e = np.frexp(x)
    np.testing.assert_allclose(g, e / 2.0 ** e)


def test_frexp_returning_a_tuple_is_not_a_scalar_output():
    with pytest.raises(zpy.NonScalarOutput) as info:
        zpy.gradient(frexp_whole, np.array([1.5, 3.0]))
    assert_names_user_code(info.value, frexp_whole, "return np.frexp")


# -- outputs gradient cannot take ------------------------------------------------------


def vector_output(x):
    return x * 2.0


def complex_output(x):
    return x * (1.0 + 2.0j)


def string_output(x):
    return f"{x * 2.0}"


def none_output(x):
    y = x * 2.0


def tuple_output(x):
    return x, x * 2.0


@pytest.mark.parametrize("f, x, words", [
    (vector_output, np.ones(3), "not an array of shape (3,)"),
    (complex_output, 1.5, "not a complex value"),
    (string_output, 1.5, "not a str value"),
    (none_output, 1.5, "not a NoneType value"),
    (tuple_output, 1.5, "not a tuple value"),
])
def test_a_non_scalar_output_is_refused_with_advice(f, x, words):
    with pytest.raises(zpy.NonScalarOutput) as info:
        zpy.gradient(f, x)
    message = str(info.value)
    assert "gradient needs a real scalar output" in message and words in message
    assert "zpy.pullback" in message
    assert info.value.function == f.__qualname__ and info.value.filename == HERE
    assert info.value.line is not None


# -- inputs ----------------------------------------------------------------------------


def doubled(x):
    return x * 2.0


class Opaque:
    pass


@pytest.mark.parametrize("x", ["text", None, Opaque(), b"bytes"], ids=["str", "None", "object", "bytes"])
@pytest.mark.parametrize("mode", ["gradient", "value_and_gradient", "pullback", "jvp"])
def test_an_input_plain_python_fails_on_raises_what_plain_python_raises(x, mode):
    """Where ``f(x)`` itself fails, the gradient raises the same exception,
    type and message, and no frame of its traceback is in the compiler."""
    with pytest.raises(Exception) as plain:
        doubled(x)
    with pytest.raises(type(plain.value)) as info:
        if mode == "gradient":
            zpy.gradient(doubled, x)
        elif mode == "value_and_gradient":
            zpy.value_and_gradient(doubled, x)
        elif mode == "pullback":
            zpy.pullback(doubled, x)
        else:
            zpy.jvp(doubled, (x,), (None,))
    assert str(info.value) == str(plain.value)
    assert raised_at_run_time(info.value)


def uses_text_and_options(label, x, options=None):
    scale = len(label) if options is None else options["scale"]
    return x * scale


def test_strings_none_and_objects_on_paths_without_gradient_get_none():
    assert zpy.gradient(uses_text_and_options, "abc", 2.0) == (None, 3.0)
    assert zpy.gradient(uses_text_and_options, "abc", 2.0, None) == (None, 3.0, None)
    assert zpy.gradient(uses_text_and_options, "abc", 2.0, {"scale": 5.0}) == (None, 5.0, {"scale": 2.0})
    assert zpy.jvp(uses_text_and_options, ("abc", 2.0), (None, 1.0)) == (6.0, 3.0)


def sum_of_squares(x):
    return np.sum(x * x)


def test_integer_arrays_are_not_differentiated():
    """Like ints, integer (and boolean) arrays get no gradient, and zero tangents."""
    for x in (np.arange(3), np.array([True, False])):
        assert zpy.gradient(sum_of_squares, x) == (None,)
        y, dy = zpy.jvp(sum_of_squares, (x,), (np.ones(x.shape),))
        assert y == sum_of_squares(x) and dy == 0


def test_wrong_number_of_arguments():
    for call in (lambda: zpy.gradient(doubled), lambda: zpy.gradient(doubled, 1.0, 2.0),
                 lambda: zpy.value_and_gradient(doubled, 1.0, 2.0), lambda: zpy.pullback(doubled, 1.0, 2.0),
                 lambda: zpy.jvp(doubled, (1.0, 2.0), (1.0, 1.0))):
        with pytest.raises(WrongArguments) as info:
            call()
        assert isinstance(info.value, TypeError)  # what plain Python raises
        assert "doubled() takes 1 positional argument but" in str(info.value)
        assert_names_user_code(info.value, doubled, "def doubled")


# -- NaN, inf, empty arrays: like NumPy, no crash -----------------------------------------


def smooth(x):
    return math.sin(x) * x + math.exp(-x * x)


def smooth_np(x):
    return np.sum(np.sin(x) * x + np.exp(-x * x))


def halves_until_small(x):
    while x > 0.1:
        x = x / 2
    return x


def branch(x):
    if x > 0:
        return x * x
    return -x


@pytest.mark.parametrize("x", [math.nan, math.inf, -math.inf])
def test_nan_and_inf_propagate_like_numpy(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (g,) = zpy.gradient(smooth_np, np.array([x, 0.5]))
        expected = np.cos(np.array([x, 0.5])) * np.array([x, 0.5]) + np.sin(np.array([x, 0.5])) \
            - 2 * np.array([x, 0.5]) * np.exp(-np.array([x, 0.5]) ** 2)
        np.testing.assert_allclose(g, expected)  # NaN where NumPy gives NaN, and only there
        y, dy = zpy.jvp(smooth_np, (np.array([x, 0.5]),), (np.array([1.0, 0.0]),))
        assert math.isnan(dy) == math.isnan(expected[0])
    if math.isnan(x):  # math.sin(inf) raises, as it does without zygote_py
        assert math.isnan(zpy.gradient(smooth, x)[0])
        assert math.isnan(zpy.jvp(smooth, (x,), (1.0,))[1])
    else:
        with pytest.raises(ValueError, match="math domain error"):
            zpy.gradient(smooth, x)
    # control flow on NaN and inf takes the branch Python takes (NaN
    # compares false; inf would halve forever, as in plain Python)
    if x != math.inf:
        assert zpy.gradient(halves_until_small, x) == (1.0,)
    value, (g,) = zpy.value_and_gradient(branch, x)
    assert value == branch(x) or math.isnan(value) and math.isnan(branch(x))
    assert g == (-1.0 if x < 0 or math.isnan(x) else 2 * x) or math.isnan(g)


def test_inf_in_a_loop_takes_the_path_python_takes():
    assert zpy.gradient(halves_until_small, 8.0) == (1 / 128,)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_empty_arrays(shape):
    x = np.zeros(shape)
    (g,) = zpy.gradient(smooth_np, x)
    assert g.shape == shape and g.dtype == x.dtype
    y, dy = zpy.jvp(smooth_np, (x,), (np.ones(shape),))
    assert y == 0.0 and dy == 0.0


def max_of(x):
    return np.max(x)


def test_a_reduction_numpy_refuses_on_an_empty_array_raises_numpys_error():
    with pytest.raises(ValueError, match="zero-size array") as info:
        zpy.gradient(max_of, np.zeros(0))
    assert raised_at_run_time(info.value)


# -- cotangents and tangents of the wrong shape ---------------------------------------------


@pytest.mark.parametrize("x, dy, words", [
    (np.ones(3), np.ones(4), "an array of shape (3,), not an array of shape (4,)"),
    (np.ones(3), np.ones((3, 3)), "not an array of shape (3, 3)"),
    (1.5, np.ones(2), "needs a number as the cotangent of a number output, not an array of shape (2,)"),
    (1.5, "one", "not a str"),
    (1.5, None, "not a NoneType"),
    (np.ones(3), [1.0, 1.0, 1.0], "not a list"),
])
def test_a_cotangent_of_the_wrong_shape_is_refused(x, dy, words):
    """It used to broadcast in silence: a shape-(3,) input got a gradient
    of shape (4,) or (3, 3)."""
    _, back = zpy.pullback(doubled, x)
    with pytest.raises(BadTangent) as info:
        back(dy)
    assert isinstance(info.value, ValueError)
    assert words in str(info.value)
    assert_names_user_code(info.value, doubled, "def doubled")
    # the pullback still works with a right cotangent afterwards
    np.testing.assert_array_equal(back(np.ones_like(x))[0], 2.0 * np.ones_like(x))


def doubled_and_itself(x):
    return {"pair": (x * 2.0, x), "sum": np.sum(x)}


@pytest.mark.parametrize("dy, words", [
    ({"pair": np.ones(2), "sum": 1.0}, "a tuple of 2 items as the cotangent of the output['pair'], not an array"),
    ({"pair": (np.ones(3),), "sum": 1.0}, "not a tuple of 1"),
    ({"pair": (np.ones(3), np.ones(2)), "sum": 1.0}, "output['pair'][1], an array of shape (3,), not an array of shape (2,)"),
    ({"pair": (np.ones(3), None), "other": 1.0}, "keys ['pair', 'sum']"),
    (np.ones(3), "needs a dict"),
])
def test_a_cotangent_of_another_structure_is_refused(dy, words):
    """A structured output's cotangent is checked item by item: an array
    given for a tuple of two arrays gave a number as the gradient of an
    array, in silence (the red team's ``vjp`` of ``(x * 2, x)``)."""
    _, back = zpy.vjp(doubled_and_itself, np.ones(3))
    with pytest.raises(BadTangent, match=re.escape(words)):
        back(dy)
    grads = back({"pair": (np.ones(3), None), "sum": 2.0})  # (None: no cotangent for that item; a key left out)
    np.testing.assert_array_equal(grads[0], 4.0 * np.ones(3))
    np.testing.assert_array_equal(back({"pair": (np.ones(3), np.ones(3))})[0], 3.0 * np.ones(3))


def test_a_number_cotangent_of_an_array_output_and_a_0d_array_are_fine():
    _, back = zpy.pullback(doubled, np.ones(3))
    np.testing.assert_array_equal(back(0.5)[0], np.ones(3))
    _, back = zpy.pullback(doubled, 1.5)
    assert back(np.array(2.0))[0] == 4.0


def test_a_tangent_of_the_wrong_shape_is_refused():
    with pytest.raises(BadTangent, match=r"a tangent of shape \(4,\) for a primal of shape \(3,\)") as info:
        zpy.jvp(sum_of_squares, (np.ones(3),), (np.ones(4),))
    assert isinstance(info.value, ValueError) and info.value.function == "sum_of_squares"


# -- recursion deeper than Python's limit ------------------------------------------------


def power(x, n):
    if n == 0:
        return 1.0
    return power(x, n - 1) * x


@pytest.mark.parametrize("mode", ["gradient", "value_and_gradient", "pullback", "jvp"])
def test_recursion_past_the_limit_is_a_clear_error(mode):
    n = sys.getrecursionlimit() + 10  # too deep for plain Python too
    with pytest.raises(RecursionTooDeep) as info:
        if mode == "gradient":
            zpy.gradient(power, 1.01, n)
        elif mode == "value_and_gradient":
            zpy.value_and_gradient(power, 1.01, n)
        elif mode == "pullback":
            zpy.pullback(power, 1.01, n)
        else:
            zpy.jvp(power, (1.01, n), (1.0, None))
    assert isinstance(info.value, RecursionError)
    assert "recursion limit" in str(info.value) and "sys.setrecursionlimit" in str(info.value)
    assert_names_user_code(info.value, power, "return power(x, n - 1) * x")
    # nothing cached half-built: a shallow recursion is right afterwards
    assert zpy.gradient(power, 1.5, 4) == (pytest.approx(4 * 1.5 ** 3), None)
    assert zpy.jvp(power, (1.5, 4), (1.0, None)) == (pytest.approx(1.5 ** 4), pytest.approx(4 * 1.5 ** 3))


def test_a_recursion_plain_python_can_run_is_differentiated_up_to_a_third_of_the_limit():
    """Each differentiated level costs about three frames (measured: 320 of
    1000 work, 400 do not): deeper than that, the clear error above."""
    n = sys.getrecursionlimit() // 4
    assert zpy.gradient(power, 1.0, n) == (pytest.approx(float(n)), None)


def test_hvp_checks_its_vectors_as_jvp_checks_its_tangents():
    """A vector dict missing a key raised a bare KeyError."""
    def loss(p):
        return np.sum(p["w"] ** 2 * p["b"])

    p = {"w": np.ones(2), "b": 2.0}
    with pytest.raises(BadTangent, match="hvp: a tangent of 1 items for a dict of 2"):
        zpy.hvp(loss, (p,), ({"w": np.ones(2)},))
    with pytest.raises(WrongArguments, match="1 vectors for 2 primals"):
        zpy.hvp(lambda a, b: a * b, (1.0, 2.0), (1.0,))
    hv = zpy.hvp(loss, (p,), ({"w": np.ones(2), "b": None},))[0]  # (None: that item held fixed)
    np.testing.assert_allclose(hv["w"], 4.0 * np.ones(2))
    np.testing.assert_allclose(hv["b"], 4.0)  # (d/dw of sum(w ** 2) along ones)
