"""Discrete Fourier transforms, as other AD projects test them (autograd's
``test_fft.py``: every transform, ``n=`` / ``s=`` shorter and longer than
the input, ``axis`` / ``axes``, ``norm``, the shifts), on real and complex
inputs; complex outputs reach the loss through their real and imaginary
parts and modulus (see :mod:`.oracle`)."""
import numpy as np
import pytest

from .oracle import check, rand

fft = np.fft
R = rand((4, 6), 1)
Z = rand((4, 6), 2, complex)

ONE_D = {
    "fft": lambda x: fft.fft(x),
    "fft-n-short": lambda x: fft.fft(x, n=4),
    "fft-n-long": lambda x: fft.fft(x, n=8, axis=0),
    "ifft": lambda x: fft.ifft(x, axis=0),
    "ifft-n": lambda x: fft.ifft(x, n=5),
    "fft-ortho": lambda x: fft.fft(x, norm="ortho"),
    "ifft-forward": lambda x: fft.ifft(x, norm="forward"),
    "hfft": lambda x: fft.hfft(x),
    "hfft-n": lambda x: fft.hfft(x, n=7, axis=0),
    "ihfft": lambda x: fft.ihfft(np.real(x)),
}


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("x", [R, Z], ids=["real", "complex"])
def test_one_dimensional(name, x):
    check(ONE_D[name], x)


REAL = {
    "rfft": lambda x: fft.rfft(x),
    "rfft-n-short": lambda x: fft.rfft(x, n=4),
    "rfft-n-long": lambda x: fft.rfft(x, n=9, axis=0),
    "rfft-ortho": lambda x: fft.rfft(x, norm="ortho"),
    "rfft2": lambda x: fft.rfft2(x),
    "rfftn-axes": lambda x: fft.rfftn(x, axes=(1, 0)),
    "rfftn-s": lambda x: fft.rfftn(x, s=(3, 8), axes=(0, 1)),
}


@pytest.mark.parametrize("name", REAL)
def test_real_input(name):
    check(REAL[name], R)


INVERSE_REAL = {
    "irfft": lambda z: fft.irfft(z),
    "irfft-n": lambda z: fft.irfft(z, n=7),
    "irfft-n-short": lambda z: fft.irfft(z, n=4, axis=0),
    "irfft-ortho": lambda z: fft.irfft(z, norm="ortho"),
    "irfft2": lambda z: fft.irfft2(z),
    "irfftn-s": lambda z: fft.irfftn(z, s=(4, 6), axes=(0, 1)),
}


@pytest.mark.parametrize("name", INVERSE_REAL)
def test_inverse_real(name):
    check(INVERSE_REAL[name], Z)


N_D = {
    "fft2": lambda x: fft.fft2(x),
    "ifft2-s": lambda x: fft.ifft2(x, s=(3, 8), axes=(-2, -1)),
    "fftn-axes": lambda x: fft.fftn(x, axes=(0, 2)),
    "ifftn-s": lambda x: fft.ifftn(x, s=(2, 3), axes=(1, 2)),
    "fftn-backward": lambda x: fft.fftn(x, norm="backward"),
    "fftshift": lambda x: fft.fftshift(x),
    "ifftshift-axes": lambda x: fft.ifftshift(x, axes=1),
}


@pytest.mark.parametrize("name", N_D)
def test_multi_dimensional(name):
    check(N_D[name], rand((2, 3, 4), 3, complex))


def test_round_trip_and_convolution():
    # the circular convolution theorem, differentiated in both signals
    check(lambda a, b: fft.irfft(fft.rfft(a) * fft.rfft(b), n=6), rand((6,), 4), rand((6,), 5))
