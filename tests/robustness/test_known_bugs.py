"""Bugs the fuzzer found, each cut down to a minimal program. The fixed
ones are regression tests saying what they were; the open ones (the
programs in ``found/``) are expected to fail, strictly: a fix makes the
test pass, and the program must then become a regression test."""
import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import runtime

from . import fuzz_programs as fp

X = np.array([0.37, 0.5])


def assert_gradient(f, p, *rest):
    """The gradient of ``f`` along its first argument, a float, against
    the central difference; returns the gradient."""
    y, grads = zpy.value_and_gradient(f, p, *rest)
    assert y == f(p, *rest)
    h = 1e-6
    slope = (f(p + h, *rest) - f(p - h, *rest)) / (2 * h)
    assert grads[0] == pytest.approx(slope, rel=1e-6, abs=1e-9), (grads, slope)
    return grads


def tanh_then_subtract_in_place(x):
    v = np.tanh(x)
    v -= 1.0
    return np.sum(v)


def exp_then_scale_in_place(x):
    v = np.exp(x)
    v *= 2.0
    return np.sum(v)


@pytest.mark.parametrize("f, derivative", [
    (tanh_then_subtract_in_place, lambda x: 1 - np.tanh(x) ** 2),  # was 1 - (tanh(x) - 1) ** 2
    (exp_then_scale_in_place, lambda x: 2 * np.exp(x)),  # was 4 * exp(x)
])
def test_in_place_change_of_an_output_its_rule_reads(f, derivative):
    """Found by the fuzzer, fixed in 905240a: the rule read its output
    after the change."""
    np.testing.assert_allclose(zpy.gradient(f, X)[0], derivative(X))


def tanh_in_a_loop_then_subtract_in_place(p, q):
    v = np.array([p, p, p])
    for k in range(2):
        v = np.tanh(v)
    v -= q
    return np.sum(v)


def test_in_place_change_of_an_output_a_loop_recorded():
    """Found by the fuzzer (it gave 1.4298 for 2.3209), fixed: the change of
    the loop's last value goes to a copy made just before it."""
    p, q = 0.37, np.array([0.83, -0.4, 1.1])
    want = 3 * (1 - np.tanh(np.tanh(p)) ** 2) * (1 - np.tanh(p) ** 2)
    assert zpy.gradient(tanh_in_a_loop_then_subtract_in_place, p, q)[0] == pytest.approx(want)


def test_the_same_in_forward_mode_is_right():
    _, dy = zpy.jvp(tanh_then_subtract_in_place, (X,), (np.array([1.0, 0.0]),))
    assert dy == pytest.approx(1 - np.tanh(0.37) ** 2)


def copied_twice_then_item_assigned(p):
    v = np.array([p, p])
    v = v.copy()
    v = v.copy()
    v[0] = 1.0
    return np.sum(v)


def test_an_item_assigned_after_two_copies():
    """Found by the fuzzer (the commonest crash, "'tuple' object does not
    support item assignment"): the second ``v.copy()``, on a value not
    known to be an array, became ``mutation.call_method``'s (object, value)
    pair, and the change of the copy was taken for a change of an item of
    that pair, stored back into it with ``write_back``."""
    assert assert_gradient(copied_twice_then_item_assigned, 0.37) == (1.0,)


def sorted_sum(q):
    return np.sum(np.sort(q) * q)


def test_jvp_through_np_sort():
    """Found by the fuzzer (np.sort's pushforward crashed: 'load_global is
    rendered by the backend'); fixed since."""
    q = np.array([1.47, 0.2, -0.9])
    dq = np.array([1.0, 0.0, 0.0])
    (g,) = zpy.gradient(sorted_sum, q)  # reverse mode is right
    assert zpy.jvp(sorted_sum, (q,), (dq,))[1] == pytest.approx(g @ dq)


def unused_array_on_the_path_taken(a):
    u = np.array([a, 1.0])
    if a > 5.0:
        return np.sum(u)
    return a * 2.0


def test_an_array_built_but_unused_on_the_path_taken():
    """Found by the fuzzer (its gradient, a number, was indexed by
    np.array's rule: IndexError); fixed since."""
    assert zpy.gradient(unused_array_on_the_path_taken, 0.5) == (2.0,)


def test_the_same_on_the_other_path_and_in_forward_mode_is_right():
    assert zpy.gradient(unused_array_on_the_path_taken, 6.0) == (1.0,)
    assert zpy.jvp(unused_array_on_the_path_taken, (0.5,), (1.0,)) == (1.0, 2.0)


def sum_compared_in_a_branch(p, q):
    z = np.sum(q)
    if p < 0.0:
        return p if z < 0.0 else 2.0
    return 3.0


@pytest.mark.parametrize("p", [0.5, -0.5])
def test_a_sum_only_compared_gets_no_nan(p):
    """Found by the fuzzer (NaN for q, whose only use is a comparison: the
    sum's gradient broadcast a None), fixed."""
    q = np.array([0.83, -0.4, 1.1])
    dp, dq = zpy.gradient(sum_compared_in_a_branch, p, q)
    assert dq is None or not np.isnan(dq).any()
    assert dp is None or isinstance(dp, float)


FOUND = Path(__file__).parent / "found"


@pytest.mark.xfail(strict=True, reason="fuzzer findings not fixed yet (each file's first lines say what "
                   "happens)")
@pytest.mark.parametrize("name", sorted(p.stem for p in FOUND.glob("*.py")))
def test_programs_the_fuzzer_found(name):
    spec = importlib.util.spec_from_file_location(f"zpy_found_{name}", FOUND / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcome = fp.check_program(module)
    assert not outcome.disagreements, outcome.disagreements


def closure_reads_an_array_changed_later(a):
    u = np.array([a, 0.5])

    def inner(r):
        return r + np.sum(u)
    u[-1] = 2.0
    return inner(1.0)


def lambda_reads_an_array_changed_later(a):
    u = np.array([a, 0.5])
    lam = lambda r: r + np.sum(u)  # noqa: E731
    u[-1] = 2.0
    return lam(1.0)




def closure_reads_a_dict_changed_later(x):
    d = {"b": 1.0}

    def inner(r):
        return r * d["b"]
    d["b"] = x
    return inner(2.0)


def test_a_nested_function_reads_an_object_changed_after_its_definition():
    """Found by the fuzzer (a silent wrong value, 1.8 for 3.3, and a silent
    None gradient): a lambda's later reads are out of the gradient's reach,
    refused at the change's line; a nested function called where it is made
    is inlined there (``callees``), and reads the object as it is then."""
    f = lambda_reads_an_array_changed_later
    with pytest.raises(zpy.UnsupportedSyntax, match="after a nested function captured it") as e:
        zpy.value_and_gradient(f, 0.3)
    assert e.value.line is not None and e.value.function == f.__name__
    assert zpy.value_and_gradient(closure_reads_an_array_changed_later, 0.3) == (pytest.approx(3.3), (1.0,))
    assert zpy.jvp(closure_reads_an_array_changed_later, (0.3,), (1.0,)) == (pytest.approx(3.3), 1.0)
    assert zpy.value_and_gradient(closure_reads_a_dict_changed_later, 0.3) == (pytest.approx(0.6), (2.0,))


def closure_made_before_its_variable(p):
    lam = lambda r: r * y  # noqa: E731
    y = math.sin(p)
    return lam(2.0)


def closure_made_before_a_loop_assigns_its_variable(p):
    lam = lambda r: r * y  # noqa: E731
    for _ in range(2):
        y = math.sin(p)
    return lam(2.0)


def closure_that_may_read_an_unassigned_variable(p):
    lam = lambda r: r if r > 0 else y  # noqa: E731
    s = lam(p)
    for _ in range(2):
        y = math.sin(p)
    return s * lam(-1.0)


@pytest.mark.parametrize("f", [closure_made_before_its_variable, closure_made_before_a_loop_assigns_its_variable,
                               closure_that_may_read_an_unassigned_variable], ids=lambda f: f.__name__)
def test_a_closure_made_before_the_variable_it_reads_is_assigned(f):
    """Found by the fuzzer (a silent 0.0 for 0.93: the closure's gradient
    for the variable went to the value it had where the closure was made,
    before it had one)."""
    (g,) = assert_gradient(f, 0.37)
    assert g != 0.0


def closure_reads_a_variable_never_assigned(p):
    lam = lambda r: r * y  # noqa: E731
    if p > 10.0:
        y = p
    return lam(2.0)


def test_a_closure_reading_a_variable_never_assigned_raises_like_python():
    with pytest.raises(NameError, match="'y'"):
        closure_reads_a_variable_never_assigned(0.37)
    with pytest.raises(NameError, match="'y'"):
        zpy.gradient(closure_reads_a_variable_never_assigned, 0.37)


def last_item_read_then_list_grown(p, n):
    items = [3.0, p]
    for _ in range(n):
        y = math.sin(items[-1])
        for _ in range(2):
            items.append(0.5 * y)
    return y


@pytest.mark.parametrize("n", [1, 2, 3])
def test_an_item_read_by_a_negative_index_before_the_list_grows(n):
    """Found by the fuzzer (a silent wrong gradient, or 'accum: gradients
    of lengths 4 and 6': the read's pullback took the list's length, and
    so the item ``[-1]`` named, when it ran, after the appends)."""
    (g, _) = assert_gradient(last_item_read_then_list_grown, 0.37, n)
    assert g != 0.0


def zip_over_an_array_changed_in_the_loop(p0, p1, q, n):
    u = q * 1.0
    v = q * p0
    x = p1
    for e, f in zip(u, v):
        u += 0.25 * v
        x = x + e * f
    return x


def zip_over_an_array_an_item_ahead_changed(p0, p1, q, n):
    u = q * 1.0
    x = p1
    for e, f in zip(u, q * p0):
        u[2] = u[2] + 0.25 * f
        x = x + e * f
    return x


def filter_over_a_list_an_item_ahead_changed(p0, p1, q, n):
    xs = [p0, p1, p0 * p1]
    x = 0.0
    for e in filter(lambda t: t != 0.0, xs):
        xs[-1] = 2.0 * e
        x = x + e
    return x


@pytest.mark.parametrize("f", [zip_over_an_array_changed_in_the_loop, zip_over_an_array_an_item_ahead_changed],
                         ids=lambda f: f.__name__)
def test_a_loop_changing_what_its_zip_reads_ahead_reads_it_by_index(f):
    """Found by the fuzzer (was found/jvp_zip_over_a_changing_array.py: a
    silent wrong value, in forward and in reverse mode, then refused): a
    loop over ``zip`` of arrays it changes in place now reads them by
    index, as Python's iterator does."""
    assert_gradient(f, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)
    assert_jvp(f, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)


@pytest.mark.parametrize("f, mode", [
    (filter_over_a_list_an_item_ahead_changed, "jvp"),
    (filter_over_a_list_an_item_ahead_changed, "gradient"),
], ids=lambda v: getattr(v, "__name__", v))
def test_a_loop_changing_what_its_filter_reads_ahead_is_refused(f, mode):
    """Found by the fuzzer (see above): zip, enumerate, map, filter and
    reversed read all their items when called, Python's as the loop goes,
    so a change in place that the loop makes ahead of the iterator reached
    the plain program's items only. (Loops over zip and enumerate of lists
    and arrays are read by index instead.)"""
    args = (0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)
    with pytest.raises(zpy.UnsupportedSyntax, match="iterates over") as e:
        if mode == "gradient":
            zpy.gradient(f, *args)
        else:
            zpy.jvp(f, args, (1.0, 0.0, np.zeros(3), None))
    assert e.value.function == f.__name__ and e.value.line is not None


def enumerate_over_arrays_changed_behind(p0, p1, q, n):
    u = q * p0
    xs = [p0, p1]
    x = p1
    for i, e in enumerate(u):
        u[i] = e * e
        x = x + e * u[i]
    for i, e in enumerate(xs):
        xs[i] = e * p1
    for a, b in zip(reversed(xs), map(np.sin, u)):
        x = x + a * b
    return x


def assert_jvp(f, p, *rest):
    """The tangent of ``f`` along its first argument, a float, against the
    central difference, and its value against the plain call's."""
    zeros = tuple(np.zeros_like(r) if isinstance(r, np.ndarray) else 0.0 if isinstance(r, float) else None
                  for r in rest)
    y, dy = zpy.jvp(f, (p, *rest), (1.0, *zeros))
    h = 1e-6
    assert y == f(p, *rest)
    assert dy == pytest.approx((f(p + h, *rest) - f(p - h, *rest)) / (2 * h), rel=1e-6, abs=1e-9)


def test_a_loop_changing_what_its_enumerate_has_read_is_right():
    """The items before the iterator's position may change: no refusal."""
    assert_gradient(enumerate_over_arrays_changed_behind, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)
    assert_jvp(enumerate_over_arrays_changed_behind, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)


def _doubles_in_place(w):
    w *= 2.0
    return 1.0


def norm_then_a_call_changes_the_array(p0, p1, q, n):
    v = q * p0
    return np.linalg.norm(v) + _doubles_in_place(v)


def test_jvp_reads_a_tangent_before_a_call_changes_it():
    """Found by the fuzzer (program_701385: a silent wrong tangent, twice
    the right one): the emitter wrote the norm's tangent, compiler-made
    arithmetic reading ``dv``, into the return, after the call that
    doubled ``dv`` in place. Compiler-made values are now moved past
    calls that may change an object only in Python's order."""
    assert_jvp(norm_then_a_call_changes_the_array, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)


def item_stored_then_a_shared_maximum(q1, p0, p1, q):
    x, y = p0, p1
    z = p0 * p1
    u = np.array([q[0], q1, q[2]])
    v = np.array([p0, p1, p0 * p1])
    y, u = u[1] * 0.5, np.sin(u)
    v[0] = np.sum(u)
    u = np.exp(np.sin(np.maximum(v, y)))
    return abs(y if z <= x else -0.75) + np.sum(np.where(v > y, u, u) * u)


def test_a_gradient_read_after_the_rule_that_zeroes_it_in_place():
    """Found by the fuzzer (program_501982: a silent wrong gradient, 6.94
    for 4.79): the emitter moved compiler-made arithmetic reading an
    array's gradient past ``mutation.take_item_owned``, which zeroes an
    item of that array in place when nothing is to read it again."""
    assert_gradient(item_stored_then_a_shared_maximum, -0.4, 0.37, -1.21, np.array([0.83, -0.4, 1.1]))


def item_assigned_through_a_method_result(p):
    v = np.array([p, 2.0])
    v = v.copy()
    w = v.reshape(2)
    w[0] = 1.0
    return np.sum(v)


def test_an_item_assigned_through_a_method_result_is_refused():
    """The same crash for a method other than ``copy``, whose result may
    be a view of its object: now refused at the user's line."""
    with pytest.raises(zpy.UnsupportedSyntax, match="in place") as e:
        zpy.gradient(item_assigned_through_a_method_result, 0.37)
    assert e.value.function == "item_assigned_through_a_method_result" and e.value.line is not None


def cumsum_only_compared_on_one_path(p0, p1, q, n):
    v = np.array([p0, p1, p0 * p1])
    u = q
    if p1 < 0.0:
        u = np.cumsum(-v) * 0.3
    y = 0.5 if u[2] > p1 else p1
    return y + np.sum(v * v)


def test_a_rule_whose_gradient_is_none_calls_a_method_of_it():
    """Found by the fuzzer (program_502374, 700043: "'NoneType' object is
    not callable"): the inlined pullback of np.cumsum, whose gradient is
    None on the path taken, computes ``g.reshape(...)`` of it; the
    simplifier made ``g.reshape`` None but kept its call, ``None(...)``."""
    assert_gradient(cumsum_only_compared_on_one_path, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)


def concatenated_then_read_on_one_path(p, q):
    v = np.cos(q) * p
    u = np.concatenate([v[1:], v[:1]])
    x = p
    if p > 0.0:
        x = u[1] * 0.5
    return x + np.sum(v)


def stacked_then_read_on_one_path(p, q):
    v = np.cos(q) * p
    u = np.stack([v, v])
    x = p
    if p > 0.0:
        x = u[1, 1] * 0.5
    return x + np.sum(v)


def reshaped_then_read_on_one_path(p, q):
    v = np.cos(q) * p
    u = np.reshape(np.outer(v, v), 4)
    x = p
    if p > 0.0:
        x = u[1] * 0.5
    return x + np.sum(v)


def cumsum_negated_then_read_on_one_path(p, q):
    v = np.sin(q) * p
    w = -(np.cumsum(v) * 0.3)
    x = p
    if p > 0.0:
        x = w[1]
    return x + np.sum(v)


@pytest.mark.parametrize("f", [concatenated_then_read_on_one_path, stacked_then_read_on_one_path,
                               reshaped_then_read_on_one_path, cumsum_negated_then_read_on_one_path],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("p", [0.3, -0.3])
def test_an_array_no_path_gives_a_gradient_through_a_rule_that_reshapes_it(f, p):
    """Found by the fuzzer (program_500069, 500238, 700034: "object of type
    'int' has no len()", "cannot reshape array of size 1 into shape (3,)"):
    where no path gives an array a gradient, the adjoint starts it from
    the number 0, which concatenate's, stack's, reshape's and cumsum's
    rules (directly or through elementwise ones) cannot cut or reshape.
    Such a rule is now skipped, giving no gradients, when its gradient is
    that 0."""
    assert_gradient(f, p, np.array([1.0, 2.0]))


def integer_fill_on_the_first_trip(p0, p1, q, n):
    y = 3
    u = q * 1.0
    for i1 in range(2):
        u = u * np.full(3, y)
        y = p0
    return np.sum(u)


def zip_over_an_integer_array(p0, p1, q, n):
    u = q * p0
    v = np.full(3, 3)
    x = p1
    for e, f in zip(u, v):
        x = x + e * f
    return x


@pytest.mark.parametrize("f", [integer_fill_on_the_first_trip, zip_over_an_integer_array], ids=lambda f: f.__name__)
def test_jvp_computes_with_an_integer_arrays_tangent(f):
    """Found by the fuzzer (were found/jvp_int_array_fill.py, "unsupported
    operand type(s) for *: 'float' and 'NoneType'", and
    found/jvp_none_not_iterable.py, "'NoneType' object is not iterable"):
    an integer array's tangent was ``None`` at run time, which the
    product's pushforward and zip's computed with. It is now a float zero
    of its shape (``numpy_shapes.tangent_as``, ``runtime.tangent_of_items``),
    as ``runtime.zero_operand`` makes a rule's static zero."""
    assert_jvp(f, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)


def _scales_in_place(w, s):
    u = w
    u *= -0.9
    return s


def a_loop_passes_its_array_to_a_function_changing_it(p0, p1, q, n):
    v = np.cos(q) * p1
    for i1 in range(1, n + 1):
        v = np.tanh((q / (1.0 + q * v)) + _scales_in_place(v, p0))
    return np.sum(v)


def test_a_loop_value_changed_by_a_callee_after_a_rule_read_it():
    """Found by the fuzzer (program_900918: a silent wrong gradient, 5.08
    for -1.14): the mutation pass kept tanh's output for its pullback and
    made the change to a copy, but put the copy only in
    ``call_changing``'s object slot, not in the callee's arguments: the
    callee changed the kept original (which ``q * v``'s pullback read)."""
    assert_gradient(a_loop_passes_its_array_to_a_function_changing_it, 0.37, -1.21,
                    np.array([0.83, -0.4, 1.1]), 2)
    assert_gradient(a_loop_passes_its_array_to_a_function_changing_it, -0.64, 0.52,
                    np.array([1.47, 0.2, -0.9]), 3)


def closure_made_after_a_branch_reads_a_parameter(p0, p1, q, n):
    x = p0
    u = q
    xs = [(x if u[0] < 0.0 else p1), p1]
    lam = lambda r: r * x + np.sum(u)  # noqa: E731
    for e in xs:
        if np.sum(u) >= p1:
            u = np.tanh(-u)
        else:
            return lam(e)
    return np.sum(u)


def test_a_closure_made_after_a_branch_passes_its_gradient_back():
    """Found by the fuzzer (program_1100390: a silent 0.0 for 0.52): the
    gradient a closure gives the variable it captures (``x``) was made in
    the block that makes the closure, after a branch; liveness saw no read
    of ``x`` there (the closure reads its cell), so the gradient was not
    passed back to the blocks before."""
    (g, *_) = assert_gradient(closure_made_after_a_branch_reads_a_parameter, -0.64, 0.52,
                              np.array([1.47, 0.2, -0.9]), 3)
    assert g != 0.0


def zip_over_an_array_the_loop_rebinds(p0, p1, q, n):
    u = q * 1.0
    x = p1
    for e, f in zip(u, q * p0):
        u = u * 2.0
        x = x + e * f + np.sum(u)
    return x


def test_a_loop_rebinding_what_its_zip_reads_is_right():
    """Binding another value to the name of what the iterator reads leaves
    the iterator's items as they were: no refusal (the check follows the
    versions the mutation pass makes of it, not the name)."""
    assert_gradient(zip_over_an_array_the_loop_rebinds, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)
    assert_jvp(zip_over_an_array_the_loop_rebinds, 0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2)


def _scaled_by_a_fill(a, b):
    v = np.ones(3) * b
    return np.sum(np.full(3, b) * v) + a * a


def fill_with_a_list_item(p, q):
    items = [0, q]
    return _scaled_by_a_fill(b=items[0], a=p)


def test_a_number_filling_an_integer_array_and_scaling_another():
    """Found by the fuzzer (program_1302709: TypeError None + float in the
    emitted gradient): ``np.full(3, b)`` with ``b`` the int 0 gives no
    gradient at run time, joined inside the inlined rule before it reached
    ``b``'s other gradient, which was added to it with ``+``; fixed."""
    dp, dq = assert_gradient(fill_with_a_list_item, 0.7, -1.2)
    assert dq == 0.0


def _shrink_in_place(w):
    v = np.sin(w)
    w -= 0.25 * (w + 0.75)
    return np.cumsum(w * v)


def changed_twice_by_a_callee(p):
    v = np.array([p, 2.0 * p, p * p])
    u = -v / (1.0 + _shrink_in_place(v))
    return np.sum(_shrink_in_place(u) * v)


def scaled_in_place_after_a_callee(p):
    v = np.array([p, 2.0 * p, p * p])
    u = v / (1.0 + _shrink_in_place(v.copy()))
    u *= 3.0
    return np.sum(u * u)


def test_a_value_of_unknown_type_changed_in_place_keeps_what_its_pullback_read():
    """Found by the fuzzer (program_538, silently wrong gradient): ``u = a /
    b`` with ``b`` returned by a Python function (its type unknown when
    compiling), then changed in place (``u *= 3.0`` or by a function
    changing its argument): the division's pullback read ``u`` after the
    change. Such a value, an operator's, is now copied like a known array;
    fixed."""
    assert_gradient(changed_twice_by_a_callee, -0.64)
    assert_gradient(changed_twice_by_a_callee, 0.37)
    assert_gradient(scaled_in_place_after_a_callee, 0.37)


def item_of_a_list_of_arrays_scaled_in_place(p):
    v = np.array([p, 2.0 * p, p * p])
    w = [np.exp(v)][0]
    w *= 3.0
    return np.sum(w * w)


def item_of_a_dict_scaled_in_place(p):
    v = np.array([p, 2.0 * p, p * p])
    w = np.exp(v)
    d = {"a": w}
    d["a"] *= 3.0
    return np.sum(w * w)


def test_an_array_held_by_a_container_changed_in_place():
    """Found while cutting down program_538 (silently wrong gradients): an
    item of a list of arrays was taken for a number, so ``w *= 3.0`` went
    through the rule of numbers while changing the array that ``np.exp``'s
    pullback reads; and ``d["a"] *= 3.0`` was differentiated as ``d["a"] =
    d["a"] * 3.0``, which leaves ``w``, the same array, unchanged. The
    first is differentiated now (the change goes to a copy of ``np.exp``'s
    output, which its pullback keeps, as for any call's output; nothing
    else holds it); the second, where ``w`` is read after the change
    through the dict, is refused with an error naming the line."""
    h = 1e-6
    f = item_of_a_list_of_arrays_scaled_in_place
    assert zpy.gradient(f, 0.37)[0] == pytest.approx((f(0.37 + h) - f(0.37 - h)) / (2 * h), rel=1e-6)
    with pytest.raises(zpy.ZygoteError) as e:
        zpy.gradient(item_of_a_dict_scaled_in_place, 0.37)
    assert "item_of_a_dict_scaled_in_place" in str(e.value) and "in-place" in str(e.value)


def numpy_scalar_cubed(p):
    s = np.sum(np.cos(np.array([p, 0.2, -0.9])) * 0.52)
    return s ** 3 + p


def test_a_numpy_scalar_power_has_the_value_of_the_plain_program():
    """Found by the fuzzer (program_4734: the gradient's value differed from
    the plain program's in the last bit): ``s ** 3`` on a NumPy scalar ran
    as ``np.power(s, 3)``, which rounds differently from the scalar's
    ``**``; the user's own operation now computes it."""
    for p in np.linspace(-2.0, 2.0, 41):
        y, (g,) = zpy.value_and_gradient(numpy_scalar_cubed, float(p))
        assert y == numpy_scalar_cubed(float(p))
    assert_gradient(numpy_scalar_cubed, -0.64)


def loop_value_nothing_reads(p, q):
    u = q
    for _ in range(3):
        u = np.tanh(np.sin(u) / (1.0 + u * (u * u)))
    return p * p + np.sum(q) * 0.0


def test_a_loop_carried_value_nothing_reads_gets_no_gradient():
    """Found by the fuzzer (program_5689: a NaN gradient where the finite
    difference is 0): a value carried around a loop and never read after
    it had its gradient started from 0 and carried back through the loop,
    where 0 times an infinite slope is NaN. A gradient that only ever
    receives none, around a loop too, is now none at compile time."""
    q = np.array([1.47, 0.2, -0.9])
    with np.errstate(divide="ignore", invalid="ignore"):  # (1 + u**3 reaches 0: the forward pass warns)
        dp, dq = zpy.gradient(loop_value_nothing_reads, -0.64, q)
    assert dp == pytest.approx(-1.28)
    assert np.array_equal(dq, np.zeros(3))


def lambda_reads_a_copy_changed_later(p):
    u = np.array([p, 0.5]) * 1.0
    lam = lambda r: r + np.sum(u)  # noqa: E731
    u[1] = 0.75
    return lam(p)


def test_a_lambda_reading_an_operators_value_changed_later_is_refused():
    """Found by the fuzzer (program_7735: the gradient's value differed from
    the plain program's): a lambda captures ``u = x * 1.0``, and ``u`` is
    then changed in place; the copy made for the multiplication's pullback
    was not known to be differentiated, so the refusal of a change to a
    captured value missed it and the lambda read the old value."""
    with pytest.raises(zpy.UnsupportedSyntax, match="changing `u` in place after a nested function captured it"):
        zpy.gradient(lambda_reads_a_copy_changed_later, 0.3)


def max_of_an_array_of_ints_or_floats(p, q):
    v = np.cos(q) * p
    if p < 0.0:
        v = np.full(3, 3)
    return np.sum(v * q) - np.max(v)


def test_the_tangent_of_the_max_of_an_integer_array():
    """Found by the fuzzer (program_7347: jvp raised UFuncTypeError): the max
    of an array that is an integer one on some paths; its tangent, float
    zeros, was cast to the integers."""
    q = np.array([0.83, -0.4, 1.1])
    assert_jvp(max_of_an_array_of_ints_or_floats, -1.21, q)
    assert_jvp(max_of_an_array_of_ints_or_floats, 0.37, q)
    assert_gradient(max_of_an_array_of_ints_or_floats, 0.37, q)


def loop_reassigning_a_product_of_an_item(p0, p1, q, n):
    x, y = p0, p1
    for i1 in range(n):
        y = 0.5 * (-(i1 * 0.25) * q[-1])
        x += 0.5 * math.log(1.0 + np.hypot(y, x) ** 2)
    return y * y + p1


def test_a_pullback_whose_gradient_is_none_on_later_iterations():
    """Found by the fuzzer (program_6389: TypeError None * float in the
    emitted gradient): ``y``'s gradient, carried around the loop, is none
    after the first iteration once ``x``'s (read by nothing after the loop)
    is found to be none; the pullback it was passed to was called directly."""
    q = np.array([0.83, -0.4, 1.1])
    dp0, dp1, dq, dn = zpy.gradient(loop_reassigning_a_product_of_an_item, 0.37, -1.21, q, 2)
    assert dp0 is None and dp1 == 1.0 and dn is None
    assert np.allclose(dq, [0.0, 0.0, 2 * 0.125 * 0.125 * 1.1])


def closure_over_a_dict_changed_in_a_loop(p0, p1):
    d = {"b": p1}

    def inner(r):
        return r * d["b"]
    k = 0
    while k < 2:
        d["b"] = 0.5
        k += 1
    return inner(p0)


def test_an_object_a_closure_holds_changed_in_a_loop():
    """Found by the fuzzer (program_2004307, silently wrong: the gradient of
    p1 was p0 where it is 0): the dict the closure reads was changed inside
    a loop, through the loop's version of it. Refused while the closure was
    kept; now the call is inlined where the closure is made, and reads the
    dict as the loop left it."""
    assert zpy.value_and_gradient(closure_over_a_dict_changed_in_a_loop, 0.37, -1.21) == \
        (pytest.approx(0.185), (0.5, 0.0))
    assert zpy.jvp(closure_over_a_dict_changed_in_a_loop, (0.37, -1.21), (1.0, 1.0)) == (pytest.approx(0.185), 0.5)


def constant_in_w(w, s):
    lam = lambda r: r * s  # noqa: E731  (a nested function: the callee stays a call, differentiated at run time)
    return np.full(3, s) * 1.0


def concatenate_into_callee(p, q):
    v = q * p
    u = constant_in_w(np.concatenate([v[1:], v[:1]]), p)
    return np.sum(u * v)


def roll_into_callee(p, q):
    u = constant_in_w(np.roll(q, 1), p)
    return np.sum(u * p)


@pytest.mark.parametrize("f", [concatenate_into_callee, roll_into_callee], ids=lambda f: f.__name__)
def test_a_callees_zero_gradient_for_an_array_is_guarded(f):
    # program_4569 (a crash) and program_8976 (q's gradient was a 0-d array): the callee's pullback
    # gives the number 0 for w, whose rule (concatenate's, roll's) cannot take it; 0 plus that 0 is
    # still 0, so the guard before the rule must stay
    q = np.array([0.5, -1.0, 2.0])
    grads = assert_gradient(f, 0.7, q)
    h = 1e-6
    slopes = [(f(0.7, q + h * e) - f(0.7, q - h * e)) / (2 * h) for e in np.eye(3)]
    assert grads[1].shape == (3,)
    np.testing.assert_allclose(grads[1], slopes, rtol=1e-6, atol=1e-9)


def test_a_pullbacks_kept_iterator_argument_stays_at_its_position():
    """A :class:`runtime.Pullback` keeps its call's arguments to run the call
    again; an iterator among them is kept where it was, not consumed by
    what ran after the call (found by a second-order check through
    ``list(zip(...))``)."""
    it = runtime.EagerIterator([1.0, 2.0, 3.0], (np.array([1.0, 2.0, 3.0]),))
    next(it)
    (kept,) = runtime.copied((it,))
    assert list(it) == [2.0, 3.0]
    assert list(kept) == [2.0, 3.0] and kept is not it


@pytest.mark.parametrize("seed", [0, 19, 22, 54, 60, 119, 189])
def test_second_derivatives_of_programs_the_fuzzer_wrote(seed, tmp_path):
    # Each once crashed or was refused at second order: 0, a helper that changes its
    # argument (and the refusal then came back for other programs); 19, an iterator's
    # gradient of two kinds; 22, the number 0 as a reshape's cotangent; 54, a built-in
    # function held by the emitted code's closure taken for a differentiated value;
    # 60, a nested function that assigns none of the variables it shares. 119 took
    # 105 s (its pullback's control flow structured in 1,200 rounds), now 4 s. 189: the
    # gradient code kept `range`, hoisted out of a loop, in a variable that the emitted
    # code reused for a differentiated number on a path that returns; differentiated
    # again, the loop's call of it took `iter` of a differentiated value.
    from .fuzz import program

    module = fp.load(tmp_path, program(seed).source)
    p0, p1, q, n = fp.POINTS[0]

    def first(p):
        return zpy.gradient(lambda a: module.prog(a, p1, q.copy(), n), p)[0]
    h = 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = (first(p0 + h) - first(p0 - h)) / (2 * h)
        assert zpy.gradient(first, p0)[0] == pytest.approx(want, rel=1e-5, abs=1e-7)


def cos_of_minus_tanh_of_cos(q):
    return float(np.sum(np.cos(-np.tanh(np.cos(q)))))


def test_two_negations_in_a_chain_of_products_cancel_once():
    # Fuzz seed 7053: the gradient code's -(-dy * sin(t) * ...) cancelled, and the
    # negation of the product it left, further down, cancelled against it again.
    q = np.array([0.3, 0.7])
    u = -np.tanh(np.cos(q))
    want = -np.sin(u) * (1 - u * u) * np.sin(q)  # -sin(u) du/dq, du/dq = (1 - tanh(cos q)^2) sin q
    assert zpy.gradient(cos_of_minus_tanh_of_cos, q)[0] == pytest.approx(want, rel=1e-13)
    assert zpy.jvp(cos_of_minus_tanh_of_cos, (q,), (np.ones(2),))[1] == pytest.approx(np.sum(want), rel=1e-13)


def store_into_an_integer_array(p):
    u = np.full(3, 3)
    u[1] = -0.9 * p  # (truncated to 0: no gradient flows through it)
    return float(np.sum(np.minimum(u, p) * u)) + p * u[1]


def fill_an_integer_array_in_a_loop(p):
    u = np.zeros(4, dtype=int)
    v = np.zeros(4)
    for i in range(4):
        u[i] = 3.7 * p * i  # (truncated)
        v[i] = p * i
    return float(np.sum(u * v))


@pytest.mark.parametrize("f, want", [
    (store_into_an_integer_array, 6.0),  # d/dp of sum(minimum(u, p) * u), u = [3, 0, 3]: 3 (u[0] term) + 3 (u[2])
    (fill_an_integer_array_in_a_loop, 1.0 * 1 + 2.0 * 2 + 4.0 * 3),  # u = [0, 1, 2, 4] at p = 0.37
])
def test_a_value_stored_into_an_integer_array_gets_no_gradient(f, want):
    """Found by the fuzzer (was found/integer_array_store.py, seed 11731):
    the gradient and the tangent of a value stored into an array of
    integers, which truncates it, went on through the array as though it
    had kept its fraction."""
    assert assert_gradient(f, 0.37)[0] == pytest.approx(want, rel=1e-12)
    assert_jvp(f, 0.37)


@pytest.mark.parametrize("seed", [32])
def test_third_derivatives_of_programs_the_fuzzer_wrote(seed, tmp_path):
    # 32 (and 19, 50 s) crashed: the second-order code's loop draining an iterator of trip counts, of a
    # kind not known when differentiated again, was indexed, and a range_iterator has no
    # len(); such a loop is now over runtime.indexable(it), the list of what it yields.
    from .fuzz import program

    module = fp.load(tmp_path, program(seed).source)
    p0, p1, q, n = fp.POINTS[0]

    def second(p):
        return zpy.gradient(lambda b: zpy.gradient(lambda a: module.prog(a, p1, q.copy(), n), b)[0], p)[0]
    h = 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = (second(p0 + h) - second(p0 - h)) / (2 * h)
        assert zpy.gradient(second, p0)[0] == pytest.approx(want, rel=1e-5, abs=1e-7)
