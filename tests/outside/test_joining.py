"""Joining, splitting and reshaping, as other AD projects test them
(autograd's ``test_systematic.py`` concatenate, stack, split, tile,
repeat, pad, transpose, moveaxis, swapaxes, diag, triu, tril and trace
checks, and ``test_numpy.py``'s reshape, ravel, roll, squeeze,
expand_dims and flip ones): every axis and offset form on small arrays."""
import numpy as np
import pytest

from .oracle import check, rand

A, B = rand((2, 3), 1), rand((2, 3), 2)
C = rand((2, 3, 4), 3)

JOINS = {
    "concatenate-0": lambda a, b: np.concatenate([a, b]),
    "concatenate-1": lambda a, b: np.concatenate((a, b, a), axis=1),
    "concatenate-None": lambda a, b: np.concatenate([a, b], axis=None),
    "stack-0": lambda a, b: np.stack([a, b]),
    "stack-2": lambda a, b: np.stack([a, b], axis=2),
    "stack--1": lambda a, b: np.stack([a, b], axis=-1),
    "hstack": lambda a, b: np.hstack([a, b]),
    "vstack": lambda a, b: np.vstack([a, b[0]]),
    "dstack": lambda a, b: np.dstack([a, b]),
    "column_stack": lambda a, b: np.column_stack([a[0], b.T]),
    "append": lambda a, b: np.append(a, b, axis=0),
}


@pytest.mark.parametrize("name", JOINS)
def test_join(name):
    check(JOINS[name], A, B)


SPLITS = {
    "split-2": lambda x: np.split(x, 2, axis=0),
    "split-indices": lambda x: np.split(x, [1, 3], axis=2),
    "array_split": lambda x: np.array_split(x, 3, axis=2),
    "hsplit": lambda x: np.hsplit(x, [1]),
    "vsplit": lambda x: np.vsplit(x, 2),
    "dsplit": lambda x: np.dsplit(x, [1, 2]),
}


@pytest.mark.parametrize("name", SPLITS)
def test_split(name):
    check(SPLITS[name], C)


SHAPES = {
    "tile": lambda x: np.tile(x, (2, 1, 2)),
    "tile-int": lambda x: np.tile(x[0], 2),
    "repeat-None": lambda x: np.repeat(x, 2),
    "repeat-axis": lambda x: np.repeat(x, [1, 0, 2], axis=1),
    "pad-constant": lambda x: np.pad(x, ((1, 0), (0, 2), (1, 1))),
    "pad-edge": lambda x: np.pad(x, 1, mode="edge"),
    "pad-reflect": lambda x: np.pad(x, ((0, 0), (1, 1), (2, 0)), mode="reflect"),
    "roll": lambda x: np.roll(x, 2, axis=2),
    "roll-None": lambda x: np.roll(x, -3),
    "roll-axes": lambda x: np.roll(x, (1, 2), axis=(0, 2)),
    "flip": lambda x: np.flip(x, axis=1),
    "flip-None": lambda x: np.flip(x),
    "flipud-fliplr": lambda x: np.fliplr(np.flipud(x)),
    "rot90": lambda x: np.rot90(x, 1, axes=(1, 2)),
    "transpose": lambda x: np.transpose(x),
    "transpose-axes": lambda x: np.transpose(x, (2, 0, 1)),
    "T-method": lambda x: x.transpose(1, 0, 2),
    "reshape": lambda x: np.reshape(x, (4, -1)),
    "reshape-method": lambda x: x.reshape(6, 4, order="F"),
    "ravel": lambda x: np.ravel(x),
    "flatten": lambda x: x.flatten(),
    "expand_dims": lambda x: np.expand_dims(x, (0, 3)),
    "squeeze": lambda x: np.squeeze(x[:, :1], axis=1),
    "swapaxes": lambda x: np.swapaxes(x, 0, 2),
    "moveaxis": lambda x: np.moveaxis(x, 0, -1),
    "moveaxis-many": lambda x: np.moveaxis(x, [0, 1], [2, 0]),
    "rollaxis": lambda x: np.rollaxis(x, 2, 0),
    "atleast_3d": lambda x: np.atleast_3d(x[0, 0]),
    "broadcast_to": lambda x: np.broadcast_to(x[:, :1], (3, 2, 3, 4)),
}


@pytest.mark.parametrize("name", SHAPES)
def test_shape(name):
    check(SHAPES[name], C)


M = rand((4, 4), 4)


@pytest.mark.parametrize("k", [-1, 2])
def test_diagonals_and_triangles(k):
    check(lambda x: (np.diag(x, k), np.triu(x, k), np.tril(x, k), np.trace(x, k)), M)
    check(lambda v: np.diag(v, k), M[0])


def test_on_stacks():
    check(lambda x: (np.triu(x, 1), np.tril(x), np.trace(x, 1, 1, 2), np.diagonal(x, 0, 0, 2)), rand((3, 3, 3), 5))


def test_complex():
    z = rand((2, 3), 6, complex)
    check(lambda x: np.concatenate([x, np.conj(x)], axis=1), z)
    check(lambda x: np.transpose(np.tile(x, 2)), z)
