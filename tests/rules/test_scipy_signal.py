"""The rules of :mod:`scipy.signal` (:mod:`zygote_py.rules.scipy_signal`):
``convolve`` and ``correlate`` in 1-d and n-d, every mode, against central
finite differences in reverse and forward mode (:mod:`.npcheck`) and at
second order through compiled code (:mod:`.ordercheck`)."""
import numpy as np
import pytest

signal = pytest.importorskip("scipy.signal")

import zygote_py as zpy  # noqa: E402
from zygote_py.errors import NoDerivativeRule  # noqa: E402
from zygote_py import registry  # noqa: E402
from zygote_py.ad import catalog  # noqa: E402

from .npcheck import check_rule  # noqa: E402
from .ordercheck import check_orders  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error")

# (in1's shape, in2's shape): in1 the larger, the smaller, and neither (valid mode refuses the last)
SHAPES = [((5,), (3,)), ((3,), (5,)), ((4, 3), (2, 2)), ((2, 3), (4, 5)), ((3, 5), (4, 2)), ((3, 2, 4), (2, 2, 3))]
MODES = ["full", "valid", "same"]


def rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("fn", [signal.convolve, signal.correlate], ids=["convolve", "correlate"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_rule(fn, mode, shapes):
    a, v = rand(shapes[0], 1), rand(shapes[1], 2)
    if mode == "valid" and shapes == ((3, 5), (4, 2)):
        with pytest.raises(ValueError, match="valid"):
            zpy.gradient(lambda a, v: np.sum(fn(a, v, mode)), a, v)
        return
    check_rule(fn, a, v, kwargs=dict(mode=mode))


@pytest.mark.parametrize("fn", [signal.convolve, signal.correlate], ids=["convolve", "correlate"])
def test_complex_inputs(fn):
    a, v = rand((4,), 3) + 1j * rand((4,), 4), rand((2, ), 5) + 1j * rand((2,), 6)
    check_rule(fn, a, v, kwargs=dict(mode="same"))
    check_rule(fn, a[None], v[None], kwargs=dict(mode="full"))


@pytest.mark.parametrize("method", ["direct", "fft"])
def test_method_gets_no_gradient_and_gives_the_same_derivatives(method):
    check_rule(signal.convolve, rand((3, 4), 7), rand((2, 3), 8), kwargs=dict(mode="same", method=method))


def loss(y):
    return np.sum(np.sin(1.3 * y) * np.arange(1.0, 1.0 + np.size(y)).reshape(np.shape(y)))


@pytest.mark.parametrize("mode", MODES)
def test_second_order(mode):
    check_orders(lambda a, v: loss(signal.convolve(a, v, mode)) + loss(signal.correlate(a, v, mode)),
                 rand((3, 3), 9), rand((2, 2), 10))
    check_orders(lambda a, v: loss(signal.correlate(a, v, mode=mode)), rand((3,), 11), rand((4,), 12))


def test_correlate_is_convolve_with_the_flipped_conjugate():
    a, v = rand((3, 4), 13), rand((2, 3), 14)
    for mode in MODES:
        ga = zpy.gradient(lambda a, v: loss(signal.correlate(a, v, mode)), a, v)
        gb = zpy.gradient(lambda a, w: loss(signal.convolve(a, np.flip(w), mode)), a, v)
        np.testing.assert_allclose(ga[0], gb[0], rtol=1e-12)
        np.testing.assert_allclose(ga[1], gb[1], rtol=1e-12)


def test_a_function_without_a_rule_is_named():
    with pytest.raises(NoDerivativeRule, match=r"scipy\.signal\.fftconvolve"):
        zpy.gradient(lambda a: np.sum(signal.fftconvolve(a, np.ones(2))), rand((4,), 15))


def test_rules_table_has_a_scipy_signal_section():
    registry.load_lazy()
    for fn in (signal.convolve, signal.correlate):
        assert registry.display_name(fn) == f"scipy.signal.{fn.__name__}"
        assert catalog._section(fn) == "scipy.signal"
        assert registry.lookup_pushforward(fn) is not None
