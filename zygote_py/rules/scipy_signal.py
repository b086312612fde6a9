"""Rules for :mod:`scipy.signal`, imported (into the built-in layer) once
the user has imported ``scipy.signal`` (see :func:`zygote_py.registry.when_imported`).

Covered: ``convolve`` and ``correlate``, of arrays of any (equal) number of
dimensions, with ``mode`` ``'full'``, ``'valid'`` or ``'same'``; each with
a pushforward. Both inputs get gradients; ``mode`` and ``method`` never do
(``method`` only picks how SciPy computes the same values).

Conventions (the n-d form of :mod:`.numpy_calculus`'s ``np.convolve``):

- The output of ``'same'`` and ``'valid'`` is a window of the full
  convolution (SciPy's offsets: ``'same'`` centred on ``in1``'s shape,
  ``'valid'`` starting at ``min(n, m) - 1`` along each axis, whichever
  input is the larger). The cotangent, padded back to the full shape, is
  correlated with the other input in ``'valid'`` mode:
  ``d in1 = correlate(full(dy), in2, 'valid')``, and likewise ``in2``.
  These are ``scipy.signal.correlate`` calls, which have this module's
  rule, so every order of derivative works.
- ``correlate(in1, in2, mode)`` is ``convolve(in1, conj(flip(in2)),
  mode)`` (SciPy's identity, for every mode): ``in2`` gets the flipped,
  conjugated gradient of that convolution's second input.
- Complex inputs follow :mod:`.numpy_elementwise`'s convention (the
  gradient is ``dy`` times the conjugate of the derivative).
"""
import numpy as np
import scipy.signal

# The rules call this module's helpers by their qualified names, so that
# the compiler can inline them.
from zygote_py.rules import numpy_shapes, scipy_signal

from ..registry import adjoint, array_valued, pushforward

# --------------------------------------------------------------------------
# Helpers


def full_padding(mode, s1, s2):
    """The padding, ``(before, after)`` along each axis, that brings the
    output of ``convolve(in1, in2, mode)`` (of inputs of shapes ``s1`` and
    ``s2``) back to the full convolution's shape."""
    pads = []
    for n, m in zip(s1, s2):
        full = n + m - 1
        if mode == "full":
            start, length = 0, full
        elif mode == "valid":
            start, length = min(n, m) - 1, max(n, m) - min(n, m) + 1
        else:  # 'same': centred on in1
            start, length = (full - n) // 2, n
        pads.append((start, full - start - length))
    return pads


def convolve_grads(dy, in1, in2, mode):
    """The gradients of ``scipy.signal.convolve(in1, in2, mode)``'s inputs
    for the cotangent ``dy``."""
    full = np.pad(dy, scipy_signal.full_padding(mode, np.shape(in1), np.shape(in2)))
    d1 = scipy.signal.correlate(full, in2, "valid")
    d2 = scipy.signal.correlate(full, in1, "valid")
    return numpy_shapes.like(d1, in1), numpy_shapes.like(d2, in2)


def flipped(v):
    """``conj(v)`` reversed along every axis: ``correlate``'s ``in2`` as
    ``convolve`` takes it (and the map back, which is the same)."""
    return np.conj(np.flip(v))


# --------------------------------------------------------------------------
# Rules


@adjoint(scipy.signal.convolve)
def convolve(in1, in2, mode="full", method="auto"):
    def back(dy):
        d1, d2 = scipy_signal.convolve_grads(dy, in1, in2, mode)
        return (d1, d2, None, None)
    return scipy.signal.convolve(in1, in2, mode, method), back


@pushforward(scipy.signal.convolve)
def convolve_push(y, in1, in2, mode="full", method="auto", *, din1, din2):
    return scipy.signal.convolve(din1, in2, mode, method) + scipy.signal.convolve(in1, din2, mode, method)


@adjoint(scipy.signal.correlate)
def correlate(in1, in2, mode="full", method="auto"):
    def back(dy):
        d1, d2 = scipy_signal.convolve_grads(dy, in1, scipy_signal.flipped(in2), mode)
        return (d1, numpy_shapes.like(scipy_signal.flipped(d2), in2), None, None)
    return scipy.signal.correlate(in1, in2, mode, method), back


@pushforward(scipy.signal.correlate)
def correlate_push(y, in1, in2, mode="full", method="auto", *, din1, din2):
    return scipy.signal.correlate(din1, in2, mode, method) + scipy.signal.correlate(in1, din2, mode, method)


array_valued(scipy.signal.convolve, scipy.signal.correlate)
