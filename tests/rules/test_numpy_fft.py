"""The rules of :mod:`numpy.fft`, against central finite differences of the
transforms themselves.

Each transform is checked for a random cotangent with
:func:`test_numpy_linalg.check_loss` (complex inputs along their real and
imaginary parts, the convention ``dL/dx + i dL/dy``; then the pushforward
against that pullback), over its keyword variants: every ``norm``, ``n=`` /
``s=`` padding and truncating, ``axis`` / ``axes``. Then small programs
using them are differentiated end to end: ``zpy.gradient`` and
``zpy.jvp`` against finite differences of the program, and ``zpy.hessian``
against finite differences of ``zpy.gradient``.
"""
import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import pushrules
from zygote_py.ad.inline import rule_ir
from zygote_py.errors import NoDerivativeRule
from zygote_py import registry
from zygote_py.rules import is_nondifferentiable, lookup, numpy_fft

from .npcheck import check_program
from .pushcheck import rules_of
from .test_numpy_linalg import check_loss, linear, numeric_gradient, rand

fft = np.fft
NORMS = [None, "backward", "ortho", "forward"]


def check(fn, a, **kwargs):
    """``fn``'s rule at ``a`` for a random cotangent (complex where the
    output is), against finite differences; then its pushforward."""
    y = fn(a, **kwargs)
    w = rand(y.shape, 11, y.dtype)
    loss, cotangent = linear(w)
    (g, *rest) = check_loss(fn, a, kwargs=kwargs, loss=loss, cotangent=cotangent)
    assert all(r is None for r in rest)
    return g


# ---------------------------------------------------------------------------
# Registration


TRANSFORMS = [fft.fft, fft.ifft, fft.rfft, fft.irfft, fft.hfft, fft.ihfft, fft.fft2, fft.ifft2, fft.fftn,
              fft.ifftn, fft.rfft2, fft.irfft2, fft.rfftn, fft.irfftn, fft.fftshift, fft.ifftshift]


@pytest.mark.parametrize("fn", TRANSFORMS, ids=lambda fn: fn.__name__)
def test_rules_are_inlined(fn):
    rule = lookup(fn)
    assert rule is not None and rule.__module__ == numpy_fft.__name__
    assert rule_ir(rule, fn) is not None


@pytest.mark.parametrize("fn", rules_of(numpy_fft), ids=registry.display_name)
def test_pushforwards_are_inlined(fn):
    push = registry.lookup_pushforward(fn)
    assert push.__name__ == lookup(fn).__name__ + "_push"
    assert pushrules.push_ir(push) is not None


def test_every_transform_is_covered():
    assert set(rules_of(numpy_fft)) == set(TRANSFORMS)
    assert {f.__name__ for f in TRANSFORMS} | {"fftfreq", "rfftfreq"} == set(np.fft.__all__)


def test_sample_frequencies_have_no_gradient():
    assert is_nondifferentiable(fft.fftfreq) and is_nondifferentiable(fft.rfftfreq)


def test_dual_norms():
    assert [numpy_fft.dual(n) for n in NORMS] == ["forward", "forward", "ortho", "backward"]


# ---------------------------------------------------------------------------
# One axis

ONE_AXIS = [{}, dict(n=3), dict(n=6), dict(n=7), dict(axis=0), dict(n=2, axis=0), dict(n=5, axis=-2)]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("kwargs", ONE_AXIS)
@pytest.mark.parametrize("fn", [fft.fft, fft.ifft, fft.irfft, fft.hfft], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("dtype", [float, complex])
def test_complex_input_transforms(fn, kwargs, norm, dtype):
    g = check(fn, rand((3, 4), 1, dtype), norm=norm, **kwargs)
    assert g.dtype == dtype  # a real input gets a real gradient


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("kwargs", ONE_AXIS)
@pytest.mark.parametrize("fn", [fft.rfft, fft.ihfft], ids=lambda fn: fn.__name__)
def test_real_input_transforms(fn, kwargs, norm):
    check(fn, rand((3, 4), 2), norm=norm, **kwargs)


@pytest.mark.parametrize("n", [4, 5])
def test_irfft_ignores_the_imaginary_parts_of_the_end_bins(n):
    """Bin 0, and bin n/2 for even n, are read as real numbers: their
    imaginary parts get gradient 0, the bins that stand for two twice the
    weight of a complex bin."""
    a = rand((n // 2 + 1,), 3, complex)
    g = check(fft.irfft, a, n=n)
    assert g[0].imag == 0 and (g[-1].imag == 0) == (n % 2 == 0)
    (ones,) = zpy.gradient(lambda z: np.sum(fft.irfft(z, n=n)), a)
    np.testing.assert_allclose(ones, [1] + [0] * (n // 2))  # only bin 0 sets the mean


def test_fft_gradient_is_the_scaled_inverse():
    """For ``sum(|fft(x)|^2) = n sum(|x|^2)`` (Parseval): ``2 n x``."""
    x = rand((6,), 4, complex)
    (g,) = zpy.gradient(lambda z: np.sum(np.abs(fft.fft(z)) ** 2), x)
    np.testing.assert_allclose(g, 2 * 6 * x)


def test_float32_keeps_its_dtype():
    x = rand((5,), 5, np.float32)
    y, back = lookup(fft.rfft)(x)
    assert y.dtype == np.complex64
    assert back(np.ones_like(y))[0].dtype == np.float32


def test_list_input():
    (g,) = zpy.gradient(lambda x: np.sum(np.abs(fft.fft(x, n=4))), [1.0, 2.0, 0.5])
    want = numeric_gradient(lambda v: np.sum(np.abs(fft.fft(v, n=4))), np.array([1.0, 2.0, 0.5]))
    np.testing.assert_allclose(g, want, rtol=1e-6)


# ---------------------------------------------------------------------------
# Several axes

SEVERAL_AXES = [{}, dict(s=(2, 5), axes=(0, 2)), dict(axes=(2, 0)), dict(s=(3, 3), axes=(-1, 1)),
                dict(axes=(1,)), dict(s=(4,), axes=(2,))]
TWO_AXES = [{}, dict(s=(2, 5)), dict(axes=(0, 2)), dict(s=(4, 3), axes=(2, 1))]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("kwargs", SEVERAL_AXES)
@pytest.mark.parametrize("fn", [fft.fftn, fft.ifftn, fft.irfftn], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("dtype", [float, complex])
def test_n_dimensional_transforms(fn, kwargs, norm, dtype):
    check(fn, rand((2, 3, 4), 6, dtype), norm=norm, **kwargs)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("kwargs", SEVERAL_AXES)
def test_rfftn(kwargs, norm):
    check(fft.rfftn, rand((2, 3, 4), 7), norm=norm, **kwargs)


@pytest.mark.parametrize("norm", ["ortho", "forward"])
@pytest.mark.parametrize("kwargs", TWO_AXES)
@pytest.mark.parametrize("fn", [fft.fft2, fft.ifft2, fft.irfft2], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("dtype", [float, complex])
def test_two_dimensional_transforms(fn, kwargs, norm, dtype):
    check(fn, rand((2, 3, 4), 8, dtype), norm=norm, **kwargs)
    check(fn, rand((3, 4), 9, dtype), **{k: v for k, v in kwargs.items() if k != "axes"})


@pytest.mark.parametrize("kwargs", TWO_AXES)
def test_rfft2(kwargs):
    check(fft.rfft2, rand((2, 3, 4), 10), **kwargs)
    check(fft.rfft2, rand((2, 3, 4), 10), norm="ortho", **kwargs)


def test_s_without_axes_takes_the_last_axes():
    """NumPy deprecates it, but still transforms the last ``len(s)`` axes."""
    with pytest.warns(DeprecationWarning):
        check(fft.fftn, rand((2, 3, 4), 11), s=(2, 5))


@pytest.mark.parametrize("fn", [fft.fftn, fft.ifftn, fft.rfftn, fft.irfftn], ids=lambda fn: fn.__name__)
def test_an_axis_named_twice_is_refused(fn):
    y, back = lookup(fn)(rand((2, 4), 12), axes=(1, -1))
    with pytest.raises(NoDerivativeRule, match="twice"):
        back(np.ones_like(y))


@pytest.mark.parametrize("kwargs", [{}, dict(axes=1), dict(axes=(0, 2))])
@pytest.mark.parametrize("fn", [fft.fftshift, fft.ifftshift], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("dtype", [float, complex])
def test_shifts(fn, kwargs, dtype):
    check(fn, rand((2, 3, 5), 12, dtype), **kwargs)


# ---------------------------------------------------------------------------
# Programs, to second order


PROGRAMS = {
    "power": (lambda x: np.sum(np.abs(fft.fft(x)) ** 2), (5,)),
    "rfft": (lambda x: np.sum(np.abs(fft.rfft(x, n=7, norm="ortho")) ** 3), (5,)),
    "filter": (lambda x: np.sum(fft.irfft(fft.rfft(x) * np.arange(1.0, 4.0), n=5) ** 3), (5,)),
    "ifft": (lambda x: np.sum(np.real(fft.ifft(x * x, norm="forward")) ** 2), (4,)),
    "fft2": (lambda x: np.sum(np.abs(fft.fft2(x, s=(3, 4))) ** 3), (2, 3)),
    "ifftn": (lambda x: np.sum(np.imag(fft.ifftn(x * x, axes=(0,))) ** 2), (2, 3)),
    "rfftn": (lambda x: np.sum(np.abs(fft.rfftn(x, axes=(0, 1))) ** 3), (2, 3)),
    "irfftn": (lambda x: np.sum(fft.irfftn(x * (1 + 1j), s=(2, 4), axes=(0, 1)) ** 3), (2, 3)),
    "rfft2": (lambda x: np.sum(np.abs(fft.rfft2(x)) ** 3), (2, 3)),
    "irfft2": (lambda x: np.sum(fft.irfft2(x * (1 - 1j)) ** 3), (2, 3)),
    "hfft": (lambda x: np.sum(fft.hfft(x * (1 - 2j), n=4) ** 3), (3,)),
    "ihfft": (lambda x: np.sum(np.abs(fft.ihfft(x)) ** 3), (5,)),
    "shifts": (lambda x: np.sum(fft.ifftshift(x) * np.arange(5.0) * fft.fftshift(x)), (5,)),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_programs_to_second_order(name):
    f, shape = PROGRAMS[name]
    check_program(f, rand(shape, 13))


def test_program_of_a_complex_input_to_second_order():
    """The gradient of a gradient of a complex input: a real loss of the
    gradient, its gradient against central differences in the real and
    imaginary parts."""
    z = rand((4,), 14, complex)

    def f(z):
        return np.sum(np.abs(fft.fft(z * z, norm="ortho")) ** 3)

    def norm_of_gradient(z):
        return np.sum(np.abs(zpy.gradient(f, z)[0]) ** 2)

    (g,) = zpy.gradient(f, z)
    np.testing.assert_allclose(g, numeric_gradient(f, z), rtol=1e-6)
    (gg,) = zpy.gradient(norm_of_gradient, z)
    np.testing.assert_allclose(gg, numeric_gradient(norm_of_gradient, z), rtol=1e-5)
