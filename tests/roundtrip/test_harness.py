"""The harness itself: ``check_same`` accepts functions that behave alike
and rejects every kind of deliberately broken transform.

These tests do not need ``zygote_py.roundtrip``: they validate the oracle
the round-trip tests rely on."""
import contextlib
import copy
import functools
import io
import math
import types

import numpy as np
import pytest

from . import corpus, harness
from .harness import Args, call, check_same, first_difference, run

_ALL = [(c.func, args) for c in corpus.CASES for args in c.inputs]


def _detected(func, broken, args) -> bool:
    try:
        check_same(func, broken(func), args)
    except AssertionError:
        return True
    return False


def _assert_all_detected(broken, selected):
    assert selected, "the corpus has no case this transform should break"
    missed = [f"{f.__qualname__}{a!r}" for f, a in selected
              if not _detected(f, broken, a)]
    assert not missed, f"{broken.__name__} not detected on {missed}"


def _copy_function(f):
    """A distinct function object with the same code: a correct
    'transform' that is not the identity."""
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__,
                           f.__defaults__, f.__closure__)
    g.__kwdefaults__ = f.__kwdefaults__
    g.__qualname__ = f.__qualname__
    return g


# ---------------------------------------------------------------------------
# Correct transforms pass
# ---------------------------------------------------------------------------


def test_identity_passes_on_whole_corpus():
    """Also shows that every corpus function is deterministic."""
    for func, args in _ALL:
        check_same(func, func, args)


def test_function_copy_passes_on_whole_corpus():
    for func, args in _ALL:
        check_same(func, _copy_function(func), args)


def _corpus_globals():
    return (corpus._COUNTER, corpus._TOTAL, list(corpus._LOG),
            getattr(corpus, "_CREATED", "absent"))


def test_check_same_and_run_restore_globals():
    before = _corpus_globals()
    assert run(corpus.global_counter, (4,)).globals_after["_COUNTER"] == 6
    assert run(corpus.global_created, ("v",)).globals_after["_CREATED"] == "v"
    for func, args in [(corpus.global_accumulate, (5,)),
                       (corpus.global_counter, (4,)),
                       (corpus.global_created, (1,))]:
        check_same(func, func, args)
    assert _corpus_globals() == before


# ---------------------------------------------------------------------------
# Broken transforms fail
# ---------------------------------------------------------------------------


def plus_one(f):
    """Adds one to numeric results."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        result = f(*args, **kwargs)
        if isinstance(result, (int, float)) and not isinstance(result, bool):
            return result + 1
        return result
    return g


def test_plus_one_is_detected():
    selected = [
        (f, a) for f, a in _ALL
        if (r := run(f, a).value) is not None
        and type(r) in (int, float) and math.isfinite(r)
        and abs(r) < 2 ** 52
    ]
    _assert_all_detected(plus_one, selected)


def swap_exceptions(f):
    """Raises a different exception class with the same message."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except RuntimeError as exc:
            raise ValueError(*exc.args)
        except Exception as exc:
            raise RuntimeError(*exc.args)
    return g


def reword_exceptions(f):
    """Raises the same exception object with other arguments."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except Exception as exc:
            exc.args = ("reworded",)
            raise
    return g


def _raising():
    return [(f, a) for f, a in _ALL if run(f, a).error is not None]


def test_swapped_exception_class_is_detected():
    _assert_all_detected(swap_exceptions, _raising())


def test_reworded_exception_is_detected():
    _assert_all_detected(reword_exceptions, _raising())


def raise_instead_of_return(f):
    """Turns a normal return into an exception."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        f(*args, **kwargs)
        raise corpus.CornerCase("spurious")
    return g


def test_spurious_exception_is_detected():
    selected = [(f, a) for f, a in _ALL if run(f, a).error is None]
    _assert_all_detected(raise_instead_of_return, selected)


def drop_chaining(f):
    """Loses ``raise ... from`` and implicit exception context."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except Exception as exc:
            exc.__cause__ = exc.__context__ = None
            exc.__suppress_context__ = False
            raise exc
    return g


def test_lost_exception_chain_is_detected():
    selected = [
        (corpus.raise_from, ({"a": 1}, "b")),
        (corpus.raise_from_none, (0,)),
        (corpus.raise_inside_handler_chains_context, (0,)),
        (corpus.reraise_from_nested_handler, (0,)),
    ]
    _assert_all_detected(drop_chaining, [(f, Args(a)) for f, a in selected])


def work_on_copies(f):
    """Leaves the caller's arguments untouched."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        return f(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    return g


def test_lost_mutation_is_detected():
    selected = [
        (f, a) for f, a in _ALL
        if first_difference(a, run(f, a).args) is not None
    ]
    _assert_all_detected(work_on_copies, selected)


def silence(f):
    """Swallows printed output."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        with contextlib.redirect_stdout(io.StringIO()):
            return f(*args, **kwargs)
    return g


def test_lost_output_is_detected():
    selected = [(f, a) for f, a in _ALL if run(f, a).stdout]
    _assert_all_detected(silence, selected)


def copy_result(f):
    """Returns an equal copy instead of the object itself."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        return copy.deepcopy(f(*args, **kwargs))
    return g


def test_lost_aliasing_is_detected():
    selected = [
        (corpus.subscript_target, Args(([1, 2, 3], 1, 9))),
        (corpus.Circle.scale, Args((corpus.Circle(1.0), 2))),
        (corpus.with_basic, Args(([],))),
        (corpus.augmented_numpy_inplace, Args((np.ones(2), np.ones(2)))),
    ]
    _assert_all_detected(copy_result, selected)


def private_globals(f):
    """Runs the code against a copy of the module namespace, so global
    writes never reach the module."""
    namespace = dict(f.__globals__)
    g = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__,
                           f.__closure__)
    g.__qualname__ = f.__qualname__
    return g


def test_lost_global_write_is_detected():
    selected = [
        (corpus.global_counter, Args((4,))),
        (corpus.global_accumulate, Args((1,))),
        (corpus.global_created, Args(("x",))),
    ]
    _assert_all_detected(private_globals, selected)


def to_float(f):
    """Turns integer results into equal floats."""
    @functools.wraps(f)
    def g(*args, **kwargs):
        result = f(*args, **kwargs)
        return float(result) if type(result) is int else result
    return g


def test_changed_result_type_is_detected():
    selected = [(f, a) for f, a in _ALL if type(run(f, a).value) is int]
    _assert_all_detected(to_float, selected)


def test_failure_message_names_the_difference():
    with pytest.raises(AssertionError, match=r"result\[1\]: 2 != 3"):
        check_same(lambda: (1, 2), lambda: (1, 3), ())
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        check_same(lambda x: 1 / x, lambda x: None, (0,))
    with pytest.raises(AssertionError, match=r"args\[0\]"):
        check_same(lambda x: x.append(1), lambda x: None, ([],))
    with pytest.raises(AssertionError, match="printed output"):
        check_same(lambda: print("a"), lambda: print("b"), ())


def test_keyword_arguments_are_passed_and_compared():
    check_same(lambda a, *, b: a - b, lambda a, *, b: a - b, call(3, b=1))
    with pytest.raises(AssertionError, match="kwargs"):
        check_same(lambda d: d.update(x=1), lambda d: None, call(d={}))


# ---------------------------------------------------------------------------
# The structural comparison
# ---------------------------------------------------------------------------

_SAME = [
    (float("nan"), float("nan")),
    (np.array([np.nan, 1.0]), np.array([np.nan, 1.0])),
    ({1, 2}, {2, 1}),
    (complex(0, float("nan")), complex(0, float("nan"))),
    (corpus.Box([1]), corpus.Box([1])),
    (object(), object()),
    (ValueError("a"), ValueError("a")),
]

_DIFFERENT = [
    (0.0, -0.0),
    (1, 1.0),
    (True, 1),
    (np.float64(1.0), 1.0),
    (np.array([1.0]), np.array([1.0], dtype=np.float32)),
    (np.array([0.0]), np.array([-0.0])),
    (np.array([1, 2]), np.array([[1, 2]])),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ([1, 2], (1, 2)),
    (corpus.Box(1), corpus.Box(2)),
    (ValueError("a"), ValueError("b")),
    (ValueError("a"), KeyError("a")),
    (float("nan"), 1.0),
]


def _type_name(value) -> str:
    return type(value).__name__


@pytest.mark.parametrize("a, b", _SAME, ids=_type_name)
def test_equal_values_compare_equal(a, b):
    assert first_difference(a, b) is None


@pytest.mark.parametrize("a, b", _DIFFERENT, ids=_type_name)
def test_different_values_compare_different(a, b):
    assert first_difference(a, b) is not None


def test_sharing_is_compared():
    shared = [1]
    assert first_difference([shared, shared], [[1], [1]]) is not None
    assert first_difference([[1], [1]], [shared, shared]) is not None
    other = [1]
    assert first_difference([shared, shared], [other, other]) is None


def test_cycles_terminate():
    a, b = [], []
    a.append(a)
    b.append(b)
    assert first_difference(a, b) is None


def test_endless_loop_is_reported(monkeypatch):
    def spin():
        while True:
            pass

    monkeypatch.setattr(harness, "TIME_LIMIT", 0.2)
    with pytest.raises(AssertionError, match="still running"):
        check_same(lambda: 1, spin, ())
