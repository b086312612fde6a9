"""Reductions and scans over axes, as other AD projects test them
(autograd's ``stat_check`` in ``test_systematic.py``, and the sum, mean,
prod, max, min, cumsum, var and std tests of ``test_numpy.py``): every
``axis`` form (``None``, an int, a negative int, a tuple), ``keepdims``,
``ddof``, complex inputs, and compositions such as a stable log-sum-exp."""
import numpy as np
import pytest

from .oracle import check, rand

X = rand((2, 3, 2), 1)
AXES = [None, -1, (0, 2)]
REDUCTIONS = [np.sum, np.mean, np.prod, np.var, np.std, np.max, np.min]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_axes(fn, axis, keepdims):
    check(lambda x: fn(x, axis=axis, keepdims=keepdims), X)


@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_scalar_and_single_row(fn):
    # a Python float, and an axis of length one
    check(lambda x: fn(x), 0.7)
    check(lambda x: fn(x, axis=0), rand((1, 3), 2))


@pytest.mark.parametrize("axis", [None, 1], ids=str)
@pytest.mark.parametrize("fn", [np.sum, np.mean, np.prod, np.var, np.std], ids=lambda f: f.__name__)
def test_complex(fn, axis):
    check(lambda z: fn(z, axis=axis), rand((2, 3), 3, complex))


@pytest.mark.parametrize("fn", [np.var, np.std])
@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_ddof(fn, ddof):
    check(lambda x: fn(x, axis=1, ddof=ddof), rand((2, 4), 4))


@pytest.mark.parametrize("method", ["sum", "mean", "prod", "var", "std", "max", "min"])
def test_methods(method):
    check(lambda x: getattr(x, method)(axis=1), rand((3, 2), 5))


@pytest.mark.parametrize("fn", [np.cumsum, np.cumprod])
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
def test_scans(fn, axis):
    check(lambda x: fn(x, axis=axis), rand((3, 4), 6) * 0.5 + 1)


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True), ((0, 1), True)], ids=str)
def test_logsumexp(axis, keepdims):
    # the stable form: the max is held out (no gradient of its own needed)
    def lse(x):
        m = np.max(x, axis=axis, keepdims=True)
        s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
        return s if keepdims else np.squeeze(s, axis=axis)

    check(lse, rand((3, 4), 7) * 3)


def test_softmax_and_normalisation():
    check(lambda x: np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True), rand((2, 4), 8))
    check(lambda x: (x - np.mean(x, axis=0)) / np.std(x, axis=0), rand((4, 3), 9))


def test_ties_of_max_and_min():
    # the same value twice: every maximiser shares the gradient (or one
    # takes it); either way the derivative along a direction that keeps
    # the tie is what the oracle sees, so only ties kept by the loss
    check(lambda a: np.max(np.stack([a, a]), axis=0) + np.min(np.stack([a, a + 1]), axis=0), rand((3,), 10))


@pytest.mark.parametrize("fn", [np.average, np.ptp, np.amax, np.nansum, np.nanmean])
def test_other_reductions(fn):
    check(lambda x: fn(x, axis=0), rand((3, 2), 11))


def test_weighted_average():
    # (weights by position: a second derivative through a call made at run
    # time takes no differentiated keyword arguments)
    check(lambda x, w: np.average(x, 1, w), rand((2, 3), 12), rand((3,), 13) ** 2 + 0.5)
