"""``zpy.stop_gradient``, ``zpy.hook``, ``zpy.checkpoint`` and
``@zpy.non_differentiable`` inside differentiated functions (the compiler
sees the call), through the run-time ``J`` (the callee is known only when
the gradient runs) and at top level, checked against central finite
differences or analytic values.
"""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NoDerivativeRule

from .fdcheck import assert_gradient, close, central_difference

# -- stop_gradient ----------------------------------------------------------------


def stopped_square(x):
    return zpy.stop_gradient(x) * x


def stopped_array(x):
    return np.sum(zpy.stop_gradient(x) ** 2 * x)


def stopped_in_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + zpy.stop_gradient(s) * x + x
    return s


def stopped_structure(x, y):
    pair = zpy.stop_gradient((x, [y, x]))
    return pair[0] * pair[1][0] + y


def stopped_then_changed(x):
    y = zpy.stop_gradient(x)
    y[0] = 5.0
    return np.sum(x * x) + np.sum(y)


def apply(op, x):
    return op(x) * x


def test_stop_gradient_on_a_number():
    assert zpy.gradient(stopped_square, 3.0) == (3.0,)  # not 6: the first factor is a constant
    assert zpy.gradient(lambda x: zpy.stop_gradient(x) * 2.0, 3.0) == (None,)


def test_stop_gradient_on_an_array():
    x = np.array([1.0, 2.0, -3.0])
    (g,) = zpy.gradient(stopped_array, x)
    np.testing.assert_allclose(g, x ** 2)


def test_stop_gradient_inside_a_loop():
    # s_{k+1} = s_k * (x stopped through s_k) + x: ds_{k+1}/dx = s_k + 1
    n, x = 4, 0.5
    s, expected = 0.0, 0.0
    for _ in range(n):
        s, expected = s + s * x + x, expected + s + 1.0
    assert zpy.gradient(stopped_in_loop, x, n)[0] == pytest.approx(expected)


def test_stop_gradient_on_a_structure():
    assert zpy.gradient(stopped_structure, 2.0, 5.0) == (None, 1.0)


def test_stop_gradient_copies_what_may_be_changed():
    x = np.array([1.0, 2.0])
    assert zpy.stop_gradient(x) is not x and zpy.stop_gradient(2.5) == 2.5
    (g,) = zpy.gradient(stopped_then_changed, x)
    np.testing.assert_allclose(g, 2.0 * x)  # x itself is unchanged
    assert x.tolist() == [1.0, 2.0]


def test_stop_gradient_through_the_run_time_J_and_at_top_level():
    assert zpy.gradient(apply, zpy.stop_gradient, 3.0) == (None, 3.0)
    assert zpy.gradient(zpy.stop_gradient, 3.0) == (None,)
    y, back = zpy.pullback(zpy.stop_gradient, np.ones(2))
    assert back(np.ones(2)) == (None,)


# -- hook -------------------------------------------------------------------------


def clip(g):
    return np.clip(g, -1.0, 1.0)


def clipped(x):
    return np.sum(zpy.hook(clip, x * 3.0) * x)


def blocked(x):
    return zpy.hook(lambda g: None, x * x) * x + x


def doubled(x):
    return math.sin(zpy.hook(lambda g: 2.0 * g, x))


def test_hook_clips_the_gradient():
    x = np.array([0.1, 1.0, -2.0])
    (g,) = zpy.gradient(clipped, x)
    # d/dx sum(h(3x) * x): 3 * clip(x) through the hooked factor, plus 3x through the other
    np.testing.assert_allclose(g, 3.0 * np.clip(x, -1.0, 1.0) + 3.0 * x)


def test_hook_sees_the_gradient_of_its_result():
    seen = []
    zpy.gradient(lambda x: zpy.hook(lambda g: seen.append(g) or g, x) * 5.0, 2.0)
    assert seen == [5.0]
    assert zpy.gradient(doubled, 0.3) == (pytest.approx(2.0 * math.cos(0.3)),)


def test_hook_returning_none_blocks_the_gradient():
    # only the last factor and the + x get through: x ** 2 + 1
    assert zpy.gradient(blocked, 3.0) == (10.0,)
    # a gradient could flow to x, but this run's path did not bring one: 0 (see Conventions)
    assert zpy.gradient(lambda x: zpy.hook(lambda g: None, x) * 2.0, 3.0) == (0.0,)


def test_hook_through_the_run_time_J_and_at_top_level():
    assert zpy.gradient(lambda h, x: h(clip, x) * 5.0, zpy.hook, 2.0) == (None, 1.0)
    assert zpy.gradient(zpy.hook, clip, 3.0) == (None, 1.0)
    y, back = zpy.pullback(zpy.hook, clip, np.array([1.0, 2.0]))
    assert y.tolist() == [1.0, 2.0]
    np.testing.assert_allclose(back(np.array([0.5, 7.0]))[1], [0.5, 1.0])


# -- checkpoint -------------------------------------------------------------------

RUNS = {"layer": 0, "block": 0}


def layer(x, w):
    RUNS["layer"] += 1
    return math.tanh(w * x) + x * x


def checkpointed(x, w):
    return zpy.checkpoint(layer, x, w) * x


def block(x, w):
    RUNS["block"] += 1
    h = zpy.checkpoint(layer, x, w)
    return zpy.checkpoint(layer, h, w)


def nested(x, w):
    return zpy.checkpoint(block, x, w) ** 2


def closure_checkpoint(x, w):
    def inner(v):
        RUNS["layer"] += 1
        return math.sin(w * v) * w
    return zpy.checkpoint(inner, x) + w


def counted(f, *args):
    """The value of the fused gradient of ``f`` at ``args``, and how many
    times it ran ``layer`` and ``block``."""
    RUNS.update(layer=0, block=0)
    grads = zpy.gradient(f, *args)
    return grads, dict(RUNS)


def test_checkpoint_runs_f_once_in_the_forward_and_once_in_the_pullback():
    grads, runs = counted(checkpointed, 0.7, 1.3)
    assert runs == {"layer": 2, "block": 0}
    x, w = 0.7, 1.3
    sech2 = 1.0 - math.tanh(w * x) ** 2
    assert grads[0] == pytest.approx(layer(x, w) + x * (w * sech2 + 2.0 * x))
    assert grads[1] == pytest.approx(x * x * sech2)


def test_checkpoint_without_differentiation_is_a_call():
    RUNS.update(layer=0)
    assert zpy.checkpoint(layer, 0.5, 2.0) == layer(0.5, 2.0)
    assert RUNS["layer"] == 2


def test_nested_checkpoints():
    grads, runs = counted(nested, 0.4, 0.9)
    # block: once plainly, once re-run in the pullback; each run of block runs
    # layer twice, and the re-run's two checkpoints re-run layer once more each
    assert runs == {"block": 2, "layer": 6}
    assert_gradient(nested, 0.4, 0.9)


def test_checkpoint_of_a_closure_differentiates_its_captured_variables():
    grads, runs = counted(closure_checkpoint, 0.4, 1.7)
    assert runs["layer"] == 2
    assert_gradient(closure_checkpoint, 0.4, 1.7)


def array_loss(x):
    return zpy.checkpoint(np.sum, np.sin(x) * x)


def test_checkpoint_of_arrays():
    x = np.array([0.3, -1.2, 2.0])
    (g,) = zpy.gradient(array_loss, x)
    np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x))


def test_checkpoint_at_top_level_and_through_the_run_time_J():
    grads, runs = counted(lambda x: zpy.checkpoint(layer, x, 2.0), 0.5)
    assert runs["layer"] == 2
    assert close(grads[0], *central_difference(lambda x: layer(x, 2.0), (0.5,), 0))
    grads = zpy.gradient(zpy.checkpoint, layer, 0.5, 2.0)
    assert grads[0] is None and grads[2] == pytest.approx(0.5 * (1.0 - math.tanh(1.0) ** 2))
    grads = zpy.gradient(lambda c, x: c(layer, x, 2.0), zpy.checkpoint, 0.5)
    assert close(grads[1], *central_difference(lambda x: layer(x, 2.0), (0.5,), 0))


def checkpointed_without_rule(x):
    return zpy.checkpoint(np.spacing, x)


def test_checkpoint_of_a_function_without_a_rule_says_so():
    with pytest.raises(NoDerivativeRule, match="np.spacing"):
        zpy.gradient(checkpointed_without_rule, 2.5)


# -- non_differentiable -------------------------------------------------------------


@zpy.non_differentiable
def scale_of(x):
    return x * x + 1.0


def normalised(x):
    return x / scale_of(x)


def test_non_differentiable_returns_the_function_and_calls_work():
    assert scale_of(2.0) == 5.0
    assert zpy.rules.is_nondifferentiable(scale_of)
    assert scale_of.__name__ == "scale_of"


def test_non_differentiable_output_contributes_no_gradient():
    # d/dx x / c with c = scale_of(x) held constant: 1 / c
    assert zpy.gradient(normalised, 2.0) == (pytest.approx(1.0 / 5.0),)
    assert zpy.gradient(lambda x: scale_of(x) * 3.0, 2.0) == (None,)
    assert zpy.gradient(apply, scale_of, 2.0) == (None, 5.0)
    assert zpy.gradient(scale_of, 2.0) == (None,)
