"""Rules for :mod:`numpy.fft`.

Covered: ``fft ifft rfft irfft hfft ihfft fft2 ifft2 fftn ifftn rfft2
irfft2 rfftn irfftn fftshift ifftshift``, with every ``norm``
(``"backward"``, ``None``, ``"ortho"``, ``"forward"``), ``n=`` / ``s=``
padding and truncation, and ``axis`` / ``axes``. ``fftfreq`` and
``rfftfreq`` (sample frequencies, not functions of an array) are
non-differentiable.

Every transform is linear, so its pushforward is the transform of the
tangent, and its pullback the adjoint transform of the cotangent, under the
complex convention of :mod:`.numpy_linalg` (the gradient of a real loss is
``dL/dx + i dL/dy``, so a complex-linear ``F`` pulls ``dy`` back to
``F^H dy``, and a real input gets the real part):

- ``fft`` scales the DFT matrix ``W`` (``W[k, t] = exp(-2 pi i k t / n)``)
  by 1, ``1/sqrt(n)`` or ``1/n`` for ``norm`` ``"backward"``, ``"ortho"``,
  ``"forward"``; ``W^H = n * inverse``, so the adjoint of ``fft`` with one
  norm is ``ifft`` with the *dual* norm (``"backward"`` and ``"forward"``
  swapped, :func:`dual`), and the other way round. The ``n``-dimensional
  transforms likewise, axis by axis.
- ``n=`` / ``s=`` cut or pad the input with zeros before the transform: the
  gradient is cut or padded back to the input's length (:func:`resize`).
- ``rfft`` keeps the bins ``0 .. n//2`` of a real signal's spectrum. Its
  adjoint is ``Re(W^H dy_padded)``, which is ``irfft`` (dual norm) of
  ``dy`` with the bins that stand for two (``k`` and ``n - k``, all but bin
  0 and, for even ``n``, bin ``n/2``) halved: ``irfft`` counts them twice.
- ``irfft`` reads those bins as a Hermitian spectrum (bin ``k`` and its
  conjugate at ``n - k``; the imaginary parts of bin 0 and, for even
  ``n``, bin ``n/2`` are ignored): its adjoint is ``rfft`` (dual norm) of
  ``dy``, the bins that stand for two doubled. An ignored imaginary part
  gets gradient 0.
- ``rfftn`` / ``irfftn`` are ``rfft`` / ``irfft`` along the last of the
  axes and ``fft`` / ``ifft`` along the others: the same weights, along
  that axis.
- ``hfft(a) = irfft(conj(a))`` and ``ihfft(x) = conj(rfft(x))`` (NumPy's
  own definitions, with the dual norm): the conjugations move to the
  gradient.
- ``fftshift`` and ``ifftshift`` are rolls, each the other's adjoint.
- An ``n``-dimensional transform along an axis named twice in ``axes``
  raises :class:`~zygote_py.errors.NoDerivativeRule` when its gradient is
  asked for.
"""
import numpy as np

from zygote_py import errors

# The rules below call this module's helpers by their qualified names, so
# that the compiler can inline the rules.
from zygote_py.rules import numpy_fft, numpy_linalg

from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(np.fft.fftfreq, np.fft.rfftfreq)

# --------------------------------------------------------------------------
# Helpers


def dual(norm):
    """The norm whose inverse transform is the adjoint of the transform with
    ``norm``: ``"backward"`` (``None``) and ``"forward"`` swapped."""
    if norm == "forward":
        return "backward"
    if norm == "ortho":
        return "ortho"
    return "forward"


def fft_axes(a, s, axes):
    """The axes an ``n``-dimensional transform of ``a`` runs along, as NumPy
    picks them: all of them, or the last ``len(s)``, when ``axes`` is
    ``None``. An axis named twice (transformed twice) is refused."""
    nd = np.ndim(a)
    if axes is None:
        return list(range(nd)) if s is None else list(range(nd - len(s), nd))
    ax = [i % nd for i in axes]
    if len(set(ax)) < len(ax):
        raise errors.NoDerivativeRule(
            f"an n-dimensional FFT along the axes {tuple(axes)}, one of them twice, has no gradient rule",
            hint="name each axis once, and call the transform again for a second pass along an axis",
        )
    return ax


def resize(g, shape, axes):
    """``g`` cut, or padded with zeros at the end, along ``axes`` to the
    lengths ``shape`` has there (the gradient of an input that ``n=`` or
    ``s=`` padded or cut)."""
    if all(g.shape[ax] == shape[ax] for ax in axes):
        return g
    index = [slice(None)] * g.ndim
    widths = [(0, 0)] * g.ndim
    for ax in axes:
        index[ax] = slice(0, shape[ax])
        widths[ax] = (0, max(shape[ax] - g.shape[ax], 0))
    return np.pad(g[tuple(index)], widths)


def bin_weights(n, axis, ndim, double):
    """Weights of the ``n // 2 + 1`` bins of a real signal of length ``n``,
    laid along ``axis`` of ``ndim`` axes: ``double`` for the bins that
    stand for two (``k`` and ``n - k``), 1 for bin 0 and, ``n`` even, bin
    ``n / 2``."""
    k = np.arange(n // 2 + 1)
    w = np.where((k >= 1) & (k <= (n - 1) // 2), double, 1.0)
    return np.reshape(w, [-1 if i == axis % ndim else 1 for i in range(ndim)])


def fftn_grad(dy, a, s, axes, norm, inverse):
    """The gradient of ``fftn`` (``ifftn`` when ``inverse``) of ``a``: the
    other transform of ``dy`` with the dual norm, resized to ``a``."""
    ax = numpy_fft.fft_axes(a, s, axes)
    if inverse:
        g = np.fft.fftn(dy, None, ax, numpy_fft.dual(norm))
    else:
        g = np.fft.ifftn(dy, None, ax, numpy_fft.dual(norm))
    return numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), ax), a)


def rfftn_grad(dy, a, s, axes, norm):
    """The gradient of ``rfftn`` of the real ``a``: ``irfftn`` (dual norm)
    of ``dy`` with the doubled bins of the last axis halved."""
    ax = numpy_fft.fft_axes(a, s, axes)
    last = ax[-1]
    n = np.shape(a)[last] if s is None else s[-1]
    lengths = [np.shape(dy)[i] for i in ax[:-1]] + [n]
    w = numpy_fft.bin_weights(n, last, np.ndim(dy), 0.5)
    g = np.fft.irfftn(dy * w, lengths, ax, numpy_fft.dual(norm))
    return numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), ax), a)


def irfftn_grad(dy, a, s, axes, norm):
    """The gradient of ``irfftn`` of ``a``: ``rfftn`` (dual norm) of ``dy``
    with the doubled bins of the last axis doubled."""
    ax = numpy_fft.fft_axes(a, s, axes)
    last = ax[-1]
    w = numpy_fft.bin_weights(np.shape(dy)[last], last, np.ndim(dy), 2.0)
    g = np.fft.rfftn(dy, None, ax, numpy_fft.dual(norm)) * w
    return numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), ax), a)


def rfft_grad(dy, a, n, axis, norm):
    """The gradient of ``rfft(a, n, axis, norm)`` (see :func:`rfftn_grad`)."""
    length = np.shape(a)[axis] if n is None else n
    w = numpy_fft.bin_weights(length, axis, np.ndim(dy), 0.5)
    g = np.fft.irfft(dy * w, length, axis, numpy_fft.dual(norm))
    return numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), (axis,)), a)


def irfft_grad(dy, a, axis, norm):
    """The gradient of ``irfft(a, n, axis, norm)`` (see :func:`irfftn_grad`)."""
    w = numpy_fft.bin_weights(np.shape(dy)[axis], axis, np.ndim(dy), 2.0)
    g = np.fft.rfft(dy, None, axis, numpy_fft.dual(norm)) * w
    return numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), (axis,)), a)


# --------------------------------------------------------------------------
# One axis


@adjoint(np.fft.fft)
def fft(a, n=None, axis=-1, norm=None, out=None):
    def back(dy):
        g = np.fft.ifft(dy, None, axis, numpy_fft.dual(norm))
        return (numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), (axis,)), a), None, None, None, None)
    return np.fft.fft(a, n, axis, norm, out), back


@pushforward(np.fft.fft)
def fft_push(y, a, n=None, axis=-1, norm=None, out=None, *, da):
    return np.fft.fft(da, n, axis, norm)


@adjoint(np.fft.ifft)
def ifft(a, n=None, axis=-1, norm=None, out=None):
    def back(dy):
        g = np.fft.fft(dy, None, axis, numpy_fft.dual(norm))
        return (numpy_linalg.fit(numpy_fft.resize(g, np.shape(a), (axis,)), a), None, None, None, None)
    return np.fft.ifft(a, n, axis, norm, out), back


@pushforward(np.fft.ifft)
def ifft_push(y, a, n=None, axis=-1, norm=None, out=None, *, da):
    return np.fft.ifft(da, n, axis, norm)


@adjoint(np.fft.rfft)
def rfft(a, n=None, axis=-1, norm=None, out=None):
    def back(dy):
        return (numpy_fft.rfft_grad(dy, a, n, axis, norm), None, None, None, None)
    return np.fft.rfft(a, n, axis, norm, out), back


@pushforward(np.fft.rfft)
def rfft_push(y, a, n=None, axis=-1, norm=None, out=None, *, da):
    return np.fft.rfft(da, n, axis, norm)


@adjoint(np.fft.irfft)
def irfft(a, n=None, axis=-1, norm=None, out=None):
    def back(dy):
        return (numpy_fft.irfft_grad(dy, a, axis, norm), None, None, None, None)
    return np.fft.irfft(a, n, axis, norm, out), back


@pushforward(np.fft.irfft)
def irfft_push(y, a, n=None, axis=-1, norm=None, out=None, *, da):
    return np.fft.irfft(da, n, axis, norm)


@adjoint(np.fft.hfft)
def hfft(a, n=None, axis=-1, norm=None, out=None):
    """``irfft(conj(a), n, axis, dual(norm))``: the gradient of ``irfft``
    with the norm ``dual(dual(norm))``, conjugated."""
    def back(dy):
        g = numpy_fft.irfft_grad(dy, a, axis, numpy_fft.dual(norm))
        return (numpy_linalg.conj(g), None, None, None, None)
    return np.fft.hfft(a, n, axis, norm, out), back


@pushforward(np.fft.hfft)
def hfft_push(y, a, n=None, axis=-1, norm=None, out=None, *, da):
    return np.fft.hfft(da, n, axis, norm)


@adjoint(np.fft.ihfft)
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """``conj(rfft(a, n, axis, dual(norm)))``: ``rfft``'s gradient of
    ``conj(dy)``."""
    def back(dy):
        return (numpy_fft.rfft_grad(np.conj(dy), a, n, axis, numpy_fft.dual(norm)), None, None, None, None)
    return np.fft.ihfft(a, n, axis, norm, out), back


@pushforward(np.fft.ihfft)
def ihfft_push(y, a, n=None, axis=-1, norm=None, out=None, *, da):
    return np.fft.ihfft(da, n, axis, norm)


# --------------------------------------------------------------------------
# Several axes


@adjoint(np.fft.fftn)
def fftn(a, s=None, axes=None, norm=None, out=None):
    def back(dy):
        return (numpy_fft.fftn_grad(dy, a, s, axes, norm, False), None, None, None, None)
    return np.fft.fftn(a, s, axes, norm, out), back


@pushforward(np.fft.fftn)
def fftn_push(y, a, s=None, axes=None, norm=None, out=None, *, da):
    return np.fft.fftn(da, s, axes, norm)


@adjoint(np.fft.ifftn)
def ifftn(a, s=None, axes=None, norm=None, out=None):
    def back(dy):
        return (numpy_fft.fftn_grad(dy, a, s, axes, norm, True), None, None, None, None)
    return np.fft.ifftn(a, s, axes, norm, out), back


@pushforward(np.fft.ifftn)
def ifftn_push(y, a, s=None, axes=None, norm=None, out=None, *, da):
    return np.fft.ifftn(da, s, axes, norm)


@adjoint(np.fft.fft2)
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    def back(dy):
        return (numpy_fft.fftn_grad(dy, a, s, axes, norm, False), None, None, None, None)
    return np.fft.fft2(a, s, axes, norm, out), back


@pushforward(np.fft.fft2)
def fft2_push(y, a, s=None, axes=(-2, -1), norm=None, out=None, *, da):
    return np.fft.fft2(da, s, axes, norm)


@adjoint(np.fft.ifft2)
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    def back(dy):
        return (numpy_fft.fftn_grad(dy, a, s, axes, norm, True), None, None, None, None)
    return np.fft.ifft2(a, s, axes, norm, out), back


@pushforward(np.fft.ifft2)
def ifft2_push(y, a, s=None, axes=(-2, -1), norm=None, out=None, *, da):
    return np.fft.ifft2(da, s, axes, norm)


@adjoint(np.fft.rfftn)
def rfftn(a, s=None, axes=None, norm=None, out=None):
    def back(dy):
        return (numpy_fft.rfftn_grad(dy, a, s, axes, norm), None, None, None, None)
    return np.fft.rfftn(a, s, axes, norm, out), back


@pushforward(np.fft.rfftn)
def rfftn_push(y, a, s=None, axes=None, norm=None, out=None, *, da):
    return np.fft.rfftn(da, s, axes, norm)


@adjoint(np.fft.irfftn)
def irfftn(a, s=None, axes=None, norm=None, out=None):
    def back(dy):
        return (numpy_fft.irfftn_grad(dy, a, s, axes, norm), None, None, None, None)
    return np.fft.irfftn(a, s, axes, norm, out), back


@pushforward(np.fft.irfftn)
def irfftn_push(y, a, s=None, axes=None, norm=None, out=None, *, da):
    return np.fft.irfftn(da, s, axes, norm)


@adjoint(np.fft.rfft2)
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    def back(dy):
        return (numpy_fft.rfftn_grad(dy, a, s, axes, norm), None, None, None, None)
    return np.fft.rfft2(a, s, axes, norm, out), back


@pushforward(np.fft.rfft2)
def rfft2_push(y, a, s=None, axes=(-2, -1), norm=None, out=None, *, da):
    return np.fft.rfft2(da, s, axes, norm)


@adjoint(np.fft.irfft2)
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    def back(dy):
        return (numpy_fft.irfftn_grad(dy, a, s, axes, norm), None, None, None, None)
    return np.fft.irfft2(a, s, axes, norm, out), back


@pushforward(np.fft.irfft2)
def irfft2_push(y, a, s=None, axes=(-2, -1), norm=None, out=None, *, da):
    return np.fft.irfft2(da, s, axes, norm)


# --------------------------------------------------------------------------
# Shifts


@adjoint(np.fft.fftshift)
def fftshift(x, axes=None):
    def back(dy):
        return (np.fft.ifftshift(dy, axes), None)
    return np.fft.fftshift(x, axes), back


@pushforward(np.fft.fftshift)
def fftshift_push(y, x, axes=None, *, dx):
    return np.fft.fftshift(dx, axes)


@adjoint(np.fft.ifftshift)
def ifftshift(x, axes=None):
    def back(dy):
        return (np.fft.fftshift(dy, axes), None)
    return np.fft.ifftshift(x, axes), back


@pushforward(np.fft.ifftshift)
def ifftshift_push(y, x, axes=None, *, dx):
    return np.fft.ifftshift(dx, axes)
