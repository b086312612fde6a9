"""The rules of :mod:`.numpy_linalg_general` (``eig``, ``eigvals``,
``lstsq``, ``tensorsolve``, ``tensorinv``, ``multi_dot``, ``cond``) and
the other ``np.linalg`` functions added beside the older ones
(``matrix_norm`` and ``vector_norm`` in :mod:`.numpy_reductions`,
``matrix_transpose`` in :mod:`.numpy_shapes`), against central finite
differences, as in ``test_numpy_linalg.py``: the rule's gradient for a
loss of the outputs (for eigenvectors, a loss blind to their phases),
then the pushforward against the pullback; then programs using each
function, to second order (:func:`npcheck.check_program`).
"""
import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import pushrules
from zygote_py.ad.inline import rule_ir
from zygote_py import registry
from zygote_py.rules import lookup, numpy_linalg_general

from .npcheck import check_program, check_rule
from .pushcheck import rules_of
from .test_numpy_linalg import check_loss, linear, numeric_gradient, rand, well_conditioned

COVERED = [np.linalg.eig, np.linalg.eigvals, np.linalg.lstsq, np.linalg.tensorsolve, np.linalg.tensorinv,
           np.linalg.multi_dot, np.linalg.cond]


def weights(y, seed=3):
    """A random cotangent of ``y`` (complex where ``y`` is)."""
    return rand(np.shape(y), seed, np.asarray(y).dtype)


def check_linear(fn, *args, argnums=(0,), **kwargs):
    """``fn``'s rule for a random cotangent of its (one) output."""
    loss, cotangent = linear(weights(fn(*args, **kwargs)))
    return check_loss(fn, *args, kwargs=kwargs, loss=loss, cotangent=cotangent, argnums=argnums)


@pytest.mark.parametrize("fn", COVERED, ids=lambda fn: fn.__name__)
def test_rules_are_inlinable(fn):
    rule = lookup(fn)
    assert rule is not None and rule.__module__ == numpy_linalg_general.__name__
    assert rule_ir(rule, fn) is not None


@pytest.mark.parametrize("fn", rules_of(numpy_linalg_general), ids=registry.display_name)
def test_pushforwards(fn):
    """Straight-line, each a call of a helper or a few products."""
    push = registry.lookup_pushforward(fn)
    assert push.__name__ == lookup(fn).__name__ + "_push"
    assert pushrules.push_ir(push) is not None


def test_every_np_linalg_function_has_a_rule():
    missing = [n for n in np.linalg.__all__ if n != "LinAlgError" and lookup(getattr(np.linalg, n)) is None
               and not registry.is_nondifferentiable(getattr(np.linalg, n))]
    assert missing == []


# ---------------------------------------------------------------------------
# eig and eigvals

# complex eigenvalues (a real matrix's come in conjugate pairs), real ones,
# a complex matrix, a stack
EIG_INPUTS = {
    "complex pairs": rand((3, 3), 7),
    "real": np.array([[3.0, 1.0, 0.5], [0.2, 1.0, 0.3], [0.1, 0.4, -2.0]]),
    "complex": rand((3, 3), 8, complex),
    "stack": rand((2, 3, 3), 9),
}


@pytest.mark.parametrize("name", EIG_INPUTS)
def test_eigvals(name):
    a = EIG_INPUTS[name]
    g = check_linear(np.linalg.eigvals, a)[0]
    assert g.dtype == a.dtype


def phase_blind(weight_w, weight_v):
    """The loss ``Re <weight_w, w> + sum(weight_v * |v|^2)``, blind to the
    eigenvectors' phases, and its cotangent."""
    def loss(y):
        return np.real(np.sum(np.conj(weight_w) * y[0])) + np.sum(weight_v * np.abs(y[1]) ** 2)

    def cotangent(y):
        return (weight_w, 2 * weight_v * y[1])
    return loss, cotangent


def ratios(y):
    """The eigenvectors' second components over their first: blind to
    phase and scale."""
    v = y[1]
    return v[..., 1, :] / v[..., 0, :]


@pytest.mark.parametrize("name", EIG_INPUTS)
def test_eig(name):
    a = EIG_INPUTS[name]
    w, v = np.linalg.eig(a)
    loss, cotangent = phase_blind(weights(w, 4), rand(v.shape, 5))
    check_loss(np.linalg.eig, a, loss=loss, cotangent=cotangent)
    # a loss of the ratios of components: r = v1 / v0, with dL/dr = c
    c = weights(ratios((w, v)), 6)

    def ratio_loss(y):
        return np.real(np.sum(np.conj(c) * ratios(y)))

    def ratio_cotangent(y):
        v = y[1]
        g = np.zeros(v.shape, v.dtype)
        g[..., 1, :] = c / np.conj(v[..., 0, :])
        g[..., 0, :] = -c * np.conj(v[..., 1, :] / v[..., 0, :] ** 2)
        return (None, g)
    check_loss(np.linalg.eig, a, loss=ratio_loss, cotangent=ratio_cotangent)


def test_eig_without_cotangents():
    y, back = lookup(np.linalg.eig)(EIG_INPUTS["real"])
    assert back((None, None)) == (None,)


def test_eigvals_matches_eigenvectors_to_its_order():
    """Eigenvalues in another order than ``eig``'s: each is paired with its
    own eigenvector."""
    a = EIG_INPUTS["real"]
    w, v = np.linalg.eig(a)
    v2 = numpy_linalg_general.matched_eig(a, w[::-1])
    np.testing.assert_allclose(np.abs(v2), np.abs(v[:, ::-1]))


# ---------------------------------------------------------------------------
# lstsq


LSTSQ_INPUTS = {
    "tall, vector": (rand((4, 3), 1), rand((4,), 2)),
    "tall, matrix": (rand((4, 3), 1), rand((4, 2), 3)),
    "square": (well_conditioned((3, 3), 1), rand((3,), 2)),
    "wide": (rand((2, 4), 4), rand((2, 3), 5)),
    "complex": (rand((4, 3), 1, complex), rand((4,), 2, complex)),
}


@pytest.mark.parametrize("name", LSTSQ_INPUTS)
def test_lstsq_solution(name):
    a, b = LSTSQ_INPUTS[name]
    y = np.linalg.lstsq(a, b, rcond=None)
    loss, cotangent = linear(weights(y[0]), None, None, None)
    check_loss(np.linalg.lstsq, a, b, None, loss=loss, cotangent=cotangent, argnums=(0, 1))


@pytest.mark.parametrize("name", ["tall, vector", "tall, matrix", "complex"])
def test_lstsq_residuals_and_singular_values(name):
    a, b = LSTSQ_INPUTS[name]
    y = np.linalg.lstsq(a, b)
    loss, cotangent = linear(weights(y[0], 7), rand(y[1].shape, 8), None, rand(y[3].shape, 9))
    check_loss(np.linalg.lstsq, a, b, loss=loss, cotangent=cotangent, argnums=(0, 1))


def test_lstsq_rank_has_no_gradient():
    a, b = LSTSQ_INPUTS["tall, vector"]
    y, back = lookup(np.linalg.lstsq)(a, b)
    assert back((None, None, 1, None)) == (None, None, None)


# ---------------------------------------------------------------------------
# tensorsolve, tensorinv, multi_dot


def test_tensorsolve():
    a = well_conditioned((6, 6), 3).reshape(2, 3, 6)
    check_linear(np.linalg.tensorsolve, a, rand((2, 3), 4), argnums=(0, 1))
    check_linear(np.linalg.tensorsolve, a.reshape(6, 2, 3), rand((6,), 4), argnums=(0, 1))
    moved = np.moveaxis(a, 2, 0)  # (6, 2, 3), solved with its first axis moved last
    check_linear(np.linalg.tensorsolve, moved, rand((2, 3), 4), axes=(0,), argnums=(0, 1))
    check_linear(np.linalg.tensorsolve, well_conditioned((4, 4), 5, complex).reshape(2, 2, 4),
                 rand((2, 2), 6, complex), argnums=(0, 1))


@pytest.mark.parametrize("shape, ind", [((2, 3, 6), 2), ((6, 2, 3), 1), ((2, 2, 2, 2), 2)])
def test_tensorinv(shape, ind):
    n = int(np.sqrt(np.prod(shape)))
    check_linear(np.linalg.tensorinv, well_conditioned((n, n), 5).reshape(shape), ind=ind)
    check_linear(np.linalg.tensorinv, well_conditioned((n, n), 6, complex).reshape(shape), ind=ind)


@pytest.mark.parametrize("shapes", [
    [(3,), (3, 4), (4, 2), (2,)], [(2, 3), (3, 4)], [(3,), (3, 2)], [(2, 3), (3, 4), (4, 1), (1, 5)],
])
def test_multi_dot(shapes):
    grads = check_rule(np.linalg.multi_dot, [rand(s, i) for i, s in enumerate(shapes)])
    assert type(grads[0]) is list


def test_multi_dot_tuple_and_complex():
    arrays = (rand((2, 3), 1), rand((3, 4), 2, complex), rand((4,), 3))
    (grads, _) = check_rule(np.linalg.multi_dot, arrays)
    assert type(grads) is tuple and [g.dtype for g in grads] == [float, complex, float]


# ---------------------------------------------------------------------------
# cond and the norms


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf])
def test_cond(p):
    check_linear(np.linalg.cond, well_conditioned((3, 3), 6), p)
    check_linear(np.linalg.cond, well_conditioned((2, 3, 3), 7), p)


def test_cond_of_non_square_and_complex():
    check_linear(np.linalg.cond, rand((4, 3), 6))
    check_linear(np.linalg.cond, well_conditioned((3, 3), 6, complex))
    check_linear(np.linalg.cond, well_conditioned((3, 3), 6, complex), "fro")


@pytest.mark.parametrize("kwargs", [
    {}, dict(ord=1), dict(ord=np.inf), dict(ord=3, axis=(0, 2)), dict(axis=1, keepdims=True),
    dict(ord=-np.inf, axis=(1, 2)), dict(axis=0, ord=0.5), dict(axis=(2, 0), keepdims=True, ord=1),
])
def test_vector_norm(kwargs):
    check_linear(np.linalg.vector_norm, rand((2, 3, 4), 3), **kwargs)


def test_vector_norm_complex_and_of_a_number():
    check_linear(np.linalg.vector_norm, rand((2, 3), 1, complex))
    check_linear(np.linalg.vector_norm, rand((2, 3), 1, complex), ord=3, axis=0)
    (g,) = zpy.gradient(lambda x: np.linalg.vector_norm(x), np.float64(-2.0))
    assert g == -1.0


@pytest.mark.parametrize("kwargs", [{}, dict(ord="nuc"), dict(ord=1), dict(ord=-np.inf, keepdims=True),
                                    dict(ord=2), dict(ord=-2), dict(ord="fro", keepdims=True)])
def test_matrix_norm(kwargs):
    check_linear(np.linalg.matrix_norm, rand((2, 3, 4), 3), **kwargs)
    check_linear(np.linalg.matrix_norm, rand((3, 4), 4, complex), **kwargs)


@pytest.mark.parametrize("fn", [np.linalg.matrix_transpose, np.matrix_transpose], ids=["linalg", "np"])
def test_matrix_transpose(fn):
    check_linear(fn, rand((2, 3, 4), 3))
    check_linear(fn, rand((3, 4), 4, complex))


# ---------------------------------------------------------------------------
# Programs, to second order

NEAR = np.array([[0.5, 2.0], [-1.0, 0.3]])  # complex eigenvalues


PROGRAMS = {
    "lstsq": (lambda a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[0]), (rand((4, 2), 1), rand((4,), 2))),
    "lstsq residuals": (lambda a, b: np.sum(np.linalg.lstsq(a, b)[1]), (rand((3, 2), 1), rand((3,), 2))),
    "eigvals": (lambda a: np.sum(np.real(np.linalg.eigvals(a)) ** 3), (NEAR,)),
    "eig": (lambda a: np.abs(np.linalg.eig(a)[1][1, 0] / np.linalg.eig(a)[1][0, 0]) ** 2
            + np.sum(np.real(np.linalg.eig(a)[0] ** 2)), (NEAR,)),
    "real eig": (lambda a: np.sum(np.linalg.eig(a).eigenvalues ** 3), (np.array([[2.0, 1.0], [0.5, -1.0]]),)),
    "multi_dot": (lambda a, b: np.sum(np.linalg.multi_dot([b, a, a, b]) ** 2), (rand((2, 2), 1), rand((2,), 2))),
    "cond": (lambda a: np.linalg.cond(a), (well_conditioned((2, 2), 3),)),
    "cond fro": (lambda a: np.linalg.cond(a, "fro"), (well_conditioned((2, 2), 3),)),
    "matrix_norm": (lambda a: np.linalg.matrix_norm(a * a, ord="nuc") + np.linalg.matrix_norm(a), (rand((2, 2), 4),)),
    "vector_norm": (lambda a: np.linalg.vector_norm(a, ord=3, axis=(0, 1)) + np.sum(np.linalg.vector_norm(a, axis=0)),
                    (rand((2, 2), 5),)),
    "matrix_transpose": (lambda a: np.sum(np.linalg.matrix_transpose(a) @ a * a), (rand((2, 2), 6),)),
    "tensorsolve": (lambda a, b: np.sum(np.linalg.tensorsolve(a, b) ** 2),
                    (well_conditioned((4, 4), 7).reshape(2, 2, 4), rand((2, 2), 8))),
    "tensorinv": (lambda a: np.sum(np.linalg.tensorinv(a, ind=1) ** 3), (well_conditioned((4, 4), 9).reshape(4, 2, 2),)),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_programs_to_second_order(name):
    f, args = PROGRAMS[name]
    check_program(f, *args)


def test_gradient_of_a_gradient_of_a_complex_eigenproblem():
    a = rand((2, 2), 10, complex)

    def f(a):
        return np.sum(np.abs(np.linalg.eigvals(a)) ** 3)

    def norm_of_gradient(a):
        return np.sum(np.abs(zpy.gradient(f, a)[0]) ** 2)

    np.testing.assert_allclose(zpy.gradient(f, a)[0], numeric_gradient(f, a), rtol=1e-6)
    np.testing.assert_allclose(zpy.gradient(norm_of_gradient, a)[0], numeric_gradient(norm_of_gradient, a), rtol=1e-5)
