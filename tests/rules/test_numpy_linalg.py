"""The rules for NumPy's products and linear algebra, against central finite
differences of the functions themselves.

Plain array outputs go through :func:`npcheck.check_rule`. Structured
outputs (``slogdet``, ``qr``, ``eigh``, ``svd``) and functions that read one
triangle of a symmetric input go through :func:`check_loss` below: the
rule's gradient for the cotangent of a scalar loss of the outputs, against
central differences of that loss — for eigenvectors and singular vectors a
loss blind to their arbitrary signs (phases). Functions that read one
triangle are checked at a NON-symmetric input (:func:`lopsided`), whose
single entries are perturbed: the gradient is on the entries read, zero on
the triangle not read (the triangle convention).
"""
import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import zygote_py as zpy
from zygote_py.ad import pushrules
from zygote_py.ad.inline import rule_ir
from zygote_py.errors import NoDerivativeRule
from zygote_py import registry
from zygote_py.rules import is_nondifferentiable, lookup, numpy_decompositions, numpy_linalg

from .npcheck import check_rule
from .ordercheck import check_orders
from .pushcheck import check_pushforward, check_tangents_one_at_a_time, rules_of

SETTINGS = settings(derandomize=True, max_examples=20, deadline=None)
F32 = dict(rtol=1e-2, atol=1e-3)


def rand(shape, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def well_conditioned(shape, seed=0, dtype=np.float64):
    """Random square matrices (a stack of them) plus 3 I: far from
    singular."""
    return (rand(shape, seed, dtype) + 3 * np.eye(shape[-1])).astype(dtype)


def spd(shape, seed=0, dtype=np.float64):
    """Symmetric (Hermitian) positive definite matrices with eigenvalues
    1, 2, ..., n: well separated."""
    n = shape[-1]
    q, _ = np.linalg.qr(rand(shape, seed, dtype))
    return (q * np.arange(1.0, n + 1)[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))


def sym(a):
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


def lopsided(a, lower=True, seed=3):
    """``a`` with noise on the triangle not read (the upper one when
    ``lower``) and, for complex ``a``, on the imaginary part of its
    diagonal: what LAPACK's symmetric routines ignore."""
    noise = rand(a.shape, seed, a.dtype)
    unread = np.triu(noise, 1) if lower else np.tril(noise, -1)
    if np.iscomplexobj(a):
        unread = unread + 1j * np.imag(noise) * np.eye(a.shape[-1])
    return a + unread


def numeric_gradient(loss, x, h=1e-6):
    """Central differences of a real ``loss`` at ``x``; ``dL/dRe + i dL/dIm``
    for complex ``x``."""
    x = np.asarray(x)
    units = (1, 1j) if np.iscomplexobj(x) else (1,)
    g = np.zeros(x.shape, dtype=x.dtype)
    for idx in np.ndindex(x.shape):
        for unit in units:
            plus, minus = x.copy(), x.copy()
            plus[idx] += h * unit
            minus[idx] -= h * unit
            g[idx] += unit * (loss(plus) - loss(minus)) / (2 * h)
    return g


def parts(y):
    return list(y) if isinstance(y, tuple) else [y]


def linear(*weights):
    """``(loss, cotangent)`` for the loss ``sum(Re(conj(w_k) * y_k))`` over
    the outputs ``y_k`` with a weight (``None`` for none)."""

    def loss(y):
        return sum(np.real(np.sum(np.conj(w) * p)) for w, p in zip(weights, parts(y)) if w is not None)

    def cotangent(y):
        return tuple(weights) if len(weights) > 1 else weights[0]

    return loss, cotangent


def check_loss(fn, *args, kwargs=None, loss, cotangent, pre=None, argnums=(0,), rtol=1e-5, atol=1e-7):
    """The rule's ``back(cotangent(y))`` against central differences of
    ``loss(fn(*args))``, ``args[i]`` replaced by ``pre(args[i])``; then
    the pushforward rule against that pullback."""
    kwargs = kwargs or {}
    rule = lookup(fn)
    y, back = rule(*args, **kwargs)
    expected = fn(*args, **kwargs)
    assert type(y) is type(expected)
    for got, want in zip(parts(y), parts(expected)):
        np.testing.assert_array_equal(got, want)
    grads = back(cotangent(y))
    params = inspect.signature(rule).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        assert isinstance(grads, tuple) and len(grads) == len(args)
    else:
        assert isinstance(grads, tuple) and len(grads) == len(params)
    for i in argnums:

        def f(v):
            a = list(args)
            a[i] = v if pre is None else pre(v)
            return loss(fn(*a, **kwargs))

        want = numeric_gradient(f, args[i])
        got = grads[i]
        assert np.shape(got) == np.shape(args[i]) and got.dtype == np.asarray(args[i]).dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    check_pushforward(fn, args, kwargs, y, list(enumerate(grads[:len(args)])), cotangent(y), seed=100)
    return grads


def check_float32(fn, *args, kwargs=None):
    """float32 inputs: float32 gradients, close to finite differences."""
    args32 = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args)
    grads = check_rule(fn, *args32, kwargs=kwargs, **F32)
    for a, g in zip(args32, grads):
        if isinstance(a, np.ndarray):
            assert g.dtype == np.float32


# ---------------------------------------------------------------------------
# Registration


PRODUCTS = [
    np.dot, np.matmul, np.inner, np.outer, np.vdot, np.vecdot, np.tensordot, np.einsum,
    np.trace, np.diag, np.diagonal, np.kron, np.cross,
    np.ndarray.dot, np.ndarray.trace, np.ndarray.diagonal,
    np.linalg.matmul, np.linalg.vecdot, np.linalg.tensordot, np.linalg.outer, np.linalg.cross,
    np.linalg.trace, np.linalg.diagonal,
]
DECOMPOSITIONS = [
    np.linalg.solve, np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky,
    np.linalg.qr, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svd, np.linalg.svdvals,
    np.linalg.pinv, np.linalg.matrix_power,
]


@pytest.mark.parametrize("fn", PRODUCTS + DECOMPOSITIONS, ids=lambda fn: fn.__qualname__)
def test_covered_functions_have_rules_the_compiler_inlines(fn):
    rule = lookup(fn)
    module = numpy_linalg if fn in PRODUCTS else numpy_decompositions
    assert rule is not None and rule.__module__ == module.__name__
    if fn is np.einsum:  # takes *operands: called at run time
        assert rule_ir(rule, fn) is None
    else:
        assert rule_ir(rule, fn) is not None


def test_matmul_rule_is_public():
    # for operator.matmul too
    assert lookup(np.matmul) is numpy_linalg.matmul


def test_nondifferentiable_functions_are_registered():
    assert is_nondifferentiable(np.linalg.matrix_rank)


@pytest.mark.parametrize("fn", rules_of(numpy_linalg) + rules_of(numpy_decompositions), ids=registry.display_name)
def test_pushforward_inlinable(fn):
    """Straight-line, but for einsum's (a loop over its operands)."""
    push = registry.lookup_pushforward(fn)
    assert push.__name__ == lookup(fn).__name__ + "_push"
    assert (pushrules.push_ir(push) is None) == (fn is np.einsum)


# ---------------------------------------------------------------------------
# Pushforwards with zero tangents


@pytest.mark.parametrize("fn, args", [
    (np.matmul, (rand((3, 4)), rand((4, 2), 1))), (np.matmul, (rand((4,)), rand((2, 4, 3), 1))),
    (np.matmul, (rand((2, 1, 3, 4)), rand((5, 4, 2), 1))), (np.matmul, (rand((3, 4), 0, np.float32), rand((4,), 1))),
    (np.dot, (rand(()), rand((3,), 1))), (np.dot, (rand((2, 3, 4)), rand((5, 4, 2), 1))),
    (np.inner, (rand((2, 4)), rand((4,), 1))),
    (np.outer, (rand((3,)), rand((2, 2), 1))), (np.vdot, (rand((2, 3)), rand((6,), 1))),
    (np.vecdot, (rand((2, 1, 3)), rand((4, 3), 1))), (np.tensordot, (rand((3, 4, 5)), rand((4, 5, 2), 1))),
    (np.kron, (rand((2, 2)), rand((3, 1), 1))), (np.cross, (rand((4, 3)), rand((3,), 1))),
    (np.einsum, ("ij,jk,k->i", rand((2, 3)), rand((3, 4), 1), rand((4,), 2))),
    (np.einsum, ("...ij,...jk", rand((2, 1, 3, 4)), rand((5, 4, 2), 1))),
] + [(np.linalg.solve, (well_conditioned(sa, 1), rand(sb, 2))) for sa, sb in [
    ((3, 3), (3,)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 2)), ((3, 3), (2, 3, 2)), ((2, 1, 3, 3), (4, 3, 1)),
]], ids=lambda v: getattr(v, "__name__", ""))
def test_pushforward_with_zero_tangents(fn, args):
    check_tangents_one_at_a_time(fn, *args)


# ---------------------------------------------------------------------------
# matmul and dot

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4,)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((1, 3, 4), (2, 4, 5)),
]


@pytest.mark.parametrize("fn", [np.matmul, np.linalg.matmul])
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul(fn, sa, sb):
    check_rule(fn, rand(sa, 1), rand(sb, 2))


def test_matmul_of_matrices_is_two_products():
    a, b, dy = rand((3, 4), 1), rand((4, 5), 2), rand((3, 5), 3)
    _, back = numpy_linalg.matmul(a, b)
    da, db = back(dy)
    np.testing.assert_array_equal(da, dy @ b.T)
    np.testing.assert_array_equal(db, a.T @ dy)


def test_matmul_float32_and_mixed_dtypes():
    check_float32(np.matmul, rand((3, 4)), rand((4, 5)))
    check_float32(np.matmul, rand((2, 3, 4)), rand((4,)))
    # a float32 operand of a float64 product keeps its dtype
    check_rule(np.matmul, rand((3, 4)).astype(np.float32), rand((4, 2)), **F32)
    check_rule(np.dot, rand((3, 4)), rand((4, 2)).astype(np.float32), **F32)


def test_matmul_of_lists_and_integers():
    a = [[1.0, 2.0], [3.0, -1.0]]
    grads = check_rule(np.matmul, a, rand((2, 3)))
    assert isinstance(grads[0], np.ndarray) and grads[0].shape == (2, 2)
    grads = check_rule(np.matmul, np.array([[1, 2], [3, 4]]), rand((2, 3)))
    assert grads[0].shape == (2, 2)


@pytest.mark.parametrize("shape", [(6,), (2, 6)])
def test_hessian_of_a_product_with_an_integer_array(shape):
    # (the pushforward of matmul_grad got the integer operand's tangent, None)
    w = np.arange(6)
    x = rand(shape)

    def f(x):
        return np.sum((x ** 2) @ w)
    want = 2 * np.broadcast_to(w, shape)
    assert np.allclose(zpy.hvp(f, (x,), (np.ones(shape),))[0], want)
    assert np.allclose(zpy.hessian(f, x).reshape(x.size, x.size), np.diag(want.ravel()))


def test_matmul_complex():
    a, b = rand((3, 4), 1, complex), rand((4, 2), 2, complex)
    loss, cot = linear(rand((3, 2), 3, complex))
    check_loss(np.matmul, a, b, loss=loss, cotangent=cot, argnums=(0, 1))
    # a real operand of a complex product gets a real gradient
    check_loss(np.matmul, rand((3, 4), 4), b, loss=loss, cotangent=cot, argnums=(0, 1))


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       dims=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)))
def test_matmul_broadcasts_batches(shapes, dims):
    (ba, bb), (n, k, m) = shapes.input_shapes, dims
    check_rule(np.matmul, rand(ba + (n, k), 1), rand(bb + (k, m), 2))


DOT_SHAPES = [
    ((), (3,)),
    ((3, 2), ()),
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 3)),
    ((3, 4), (4, 2)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (5, 4, 2)),
]


@pytest.mark.parametrize("sa,sb", DOT_SHAPES)
def test_dot(sa, sb):
    check_rule(np.dot, rand(sa, 1), rand(sb, 2))


@pytest.mark.parametrize("sa,sb", DOT_SHAPES)
def test_the_product_gradients_emitted_code_calls(sa, sb):
    """``dot_grad`` and ``matmul_grad``, which emitted code calls where the
    operands' kinds are not known when it is compiled: against central
    differences of ``<dy, a @ b>`` (two real matrices took the matrix-vector
    shortcut, a 3-d gradient)."""
    a, b = rand(sa, 1), rand(sb, 2)
    for grad, product in [(numpy_linalg.dot_grad, np.dot), (numpy_linalg.matmul_grad, np.matmul)]:
        try:
            dy = rand(np.shape(product(a, b)), 3)
        except ValueError:  # (matmul does not broadcast these)
            continue
        for wrt, x in enumerate((a, b)):
            g = grad(dy, a, b, wrt)
            assert np.shape(g) == x.shape

            def loss(v):
                return np.sum(dy * (product(v, b) if wrt == 0 else product(a, v)))
            for i in np.ndindex(x.shape):
                e = np.zeros_like(x)
                e[i] = 1e-6
                assert g[i] == pytest.approx((loss(x + e) - loss(x - e)) / 2e-6, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 2)), ((4,), (4,)), ((2, 3, 4), (5, 4, 2))])
def test_ndarray_dot(sa, sb):
    check_rule(np.ndarray.dot, rand(sa, 1), rand(sb, 2))


def test_dot_with_python_numbers():
    grads = check_rule(np.dot, 2.5, rand((3,)))
    assert type(grads[0]) is float
    grads = check_rule(np.dot, 2.5, -1.5)
    assert type(grads[0]) is float and type(grads[1]) is float


@SETTINGS
@given(na=st.integers(0, 3), nb=st.integers(0, 3), sizes=st.lists(st.integers(1, 3), min_size=6, max_size=6))
def test_dot_every_rank(na, nb, sizes):
    k = sizes[0]
    sa = tuple(sizes[1:na]) + (k,) if na else ()
    sb = (tuple(sizes[3:3 + nb - 2]) + (k, sizes[5]) if nb >= 2 else (k,)) if nb else ()
    check_rule(np.dot, rand(sa, 1), rand(sb, 2))


# ---------------------------------------------------------------------------
# Other products


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((4,), (4,)), ((2, 4), (3, 4)), ((2, 3, 4), (4,)), ((3,), (2, 3))])
def test_inner(sa, sb):
    check_rule(np.inner, rand(sa, 1), rand(sb, 2))


@pytest.mark.parametrize("sa,sb", [((3,), (4,)), ((2, 2), (3,)), ((), (3,)), ((2, 1, 2), (2, 3))])
def test_outer(sa, sb):
    check_rule(np.outer, rand(sa, 1), rand(sb, 2))
    if len(sa) == 1 and len(sb) == 1:
        check_rule(np.linalg.outer, rand(sa, 1), rand(sb, 2))


def test_outer_of_a_python_number():
    grads = check_rule(np.outer, 2.0, rand((3,)))
    assert type(grads[0]) is float


@pytest.mark.parametrize("sa,sb", [((4,), (4,)), ((2, 3), (3, 2)), ((2, 3), (6,))])
def test_vdot(sa, sb):
    check_rule(np.vdot, rand(sa, 1), rand(sb, 2))


def test_vdot_conjugates_its_first_argument():
    a, b = rand((2, 3), 1, complex), rand((2, 3), 2, complex)
    w = 0.3 - 1.2j
    check_loss(np.vdot, a, b, loss=lambda y: np.real(np.conj(w) * y), cotangent=lambda y: w, argnums=(0, 1))


@pytest.mark.parametrize("fn", [np.vecdot, np.linalg.vecdot])
@pytest.mark.parametrize("sa,sb,axis", [
    ((3, 4), (4,), -1), ((2, 3), (2, 3), 0), ((2, 1, 3), (4, 3), -1), ((3, 2), (3, 1), -2),
])
def test_vecdot(fn, sa, sb, axis):
    check_rule(fn, rand(sa, 1), rand(sb, 2), kwargs=dict(axis=axis))


def test_vecdot_complex():
    a, b = rand((2, 3), 1, complex), rand((2, 3), 2, complex)
    loss, cot = linear(rand((2,), 3, complex))
    check_loss(np.vecdot, a, b, loss=loss, cotangent=cot, argnums=(0, 1))


@pytest.mark.parametrize("fn", [np.tensordot, np.linalg.tensordot])
@pytest.mark.parametrize("sa,sb,axes", [
    ((3, 4, 5), (4, 5, 2), 2),
    ((3, 4), (4, 2), 1),
    ((2,), (3,), 0),
    ((3, 4), (4, 3), ([1, 0], [0, 1])),
    ((3, 4), (4, 3), ([0, 1], [1, 0])),
    ((2, 3, 4), (4, 5), ((2,), (0,))),
    ((2, 3, 4), (4, 5), (-1, 0)),
    ((3, 4, 2), (2, 5, 3), ([0, 2], [2, 0])),
    ((3, 4, 2), (2, 5, 3), ([2, 0], [0, -1])),
])
def test_tensordot(fn, sa, sb, axes):
    check_rule(fn, rand(sa, 1), rand(sb, 2), kwargs=dict(axes=axes))


@pytest.mark.parametrize("sa,sb", [((2,), (3,)), ((2, 2), (3, 1)), ((2,), (2, 3)), ((), (2, 3)), ((2, 1, 2), (3, 2))])
def test_kron(sa, sb):
    check_rule(np.kron, rand(sa, 1), rand(sb, 2))


@pytest.mark.parametrize("sa,sb,kwargs", [
    ((3,), (3,), {}),
    ((4, 3), (3,), {}),
    ((2, 1, 3), (4, 3), {}),
    ((3, 4), (4, 3), dict(axisa=0, axisc=0)),
    ((3, 2), (2, 3), dict(axisa=0, axisb=1, axisc=1)),
    ((3, 2), (3, 2), dict(axis=0)),
    ((2,), (2,), {}),
    ((2,), (3,), {}),
    ((4, 3), (4, 2), {}),
])
def test_cross(sa, sb, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 2-vectors
        check_rule(np.cross, rand(sa, 1), rand(sb, 2), kwargs=kwargs)


def test_linalg_cross():
    check_rule(np.linalg.cross, rand((2, 3), 1), rand((3,), 2))
    check_rule(np.linalg.cross, rand((3, 2), 1), rand((3, 2), 2), kwargs=dict(axis=0))


# ---------------------------------------------------------------------------
# einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("ba", [(2, 3)]),
    ("Ab,bC", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iji->ij", [(3, 2, 3)]),
    ("ii,ij->j", [(3, 3), (3, 2)]),
    ("i,i", [(4,), (4,)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("ij,k->ik", [(3, 4), (2,)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,...jk", [(2, 3, 4), (4, 2)]),
    ("...ij,...jk->...ik", [(0, 2, 3), (0, 3, 4)]),
    ("...ij,...jk->...ik", [(0, 2, 3), (1, 3, 4)]),
    ("i...->...", [(2, 3, 4)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]),
    (",i->i", [(), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    (" i j , j k -> i k ", [(3, 4), (4, 2)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(spec, shapes):
    arrays = [rand(s, i) for i, s in enumerate(shapes)]
    grads = check_rule(np.einsum, spec, *arrays)
    assert len(grads) == 1 + len(arrays) and grads[0] is None


def test_einsum_optimize():
    arrays = [rand((2, 3), 1), rand((3, 4), 2), rand((4, 2), 3)]
    check_rule(np.einsum, "ij,jk,kl->il", *arrays, kwargs=dict(optimize=True))
    check_rule(np.einsum, "ij,jk,kl->il", *arrays, kwargs=dict(optimize="greedy"))


def test_einsum_interleaved_form():
    a, b = rand((3, 4), 1), rand((4, 2), 2)
    grads = check_rule(np.einsum, a, [0, 1], b, [1, 2], [0, 2])
    assert grads[1] is None and grads[3] is None and grads[4] is None
    check_rule(np.einsum, a, [0, 1], b, [1, 2])
    check_rule(np.einsum, rand((2, 3, 4)), [Ellipsis, 0], [Ellipsis])
    check_rule(np.einsum, rand((3, 3)), [0, 0], [0])


def test_einsum_python_number_and_float32():
    grads = check_rule(np.einsum, ",i->i", 2.0, rand((3,)))
    assert type(grads[1]) is float
    grads = check_rule(np.einsum, "ij,jk->ik", rand((3, 4)).astype(np.float32), rand((4, 2)).astype(np.float32), **F32)
    assert grads[1].dtype == grads[2].dtype == np.float32


def test_einsum_complex():
    a, b = rand((3, 3), 1, complex), rand((3, 2), 2, complex)
    loss, cot = linear(rand((2,), 3, complex))
    check_loss(np.einsum, "ii,ij->j", a, b, loss=loss, cotangent=cot, argnums=(1, 2))


# ---------------------------------------------------------------------------
# Diagonals


@pytest.mark.parametrize("fn", [np.trace, np.ndarray.trace])
@pytest.mark.parametrize("shape,args", [
    ((3, 3), ()), ((3, 4), (1,)), ((4, 3), (-1,)), ((2, 3, 4), (0, 1, 2)), ((2, 3, 4), (1, 2, 0)),
    ((2, 3, 4), (-1, -1, -3)),
])
def test_trace(fn, shape, args):
    check_rule(fn, rand(shape), *args)


def test_trace_details():
    grads = check_rule(np.linalg.trace, rand((2, 3, 4)), kwargs=dict(offset=1))
    assert len(grads) == 3
    check_float32(np.trace, rand((3, 3)))
    check_rule(np.trace, rand((3, 3)), kwargs=dict(dtype=np.float64))
    g = check_rule(np.trace, [[1.0, 2.0], [3.0, 4.0]])[0]
    np.testing.assert_array_equal(g, g[0, 0] * np.eye(2))


@pytest.mark.parametrize("fn", [np.diagonal, np.ndarray.diagonal])
@pytest.mark.parametrize("shape,args", [
    ((3, 3), ()), ((3, 4), (1,)), ((4, 3), (-2,)), ((2, 3, 4), (0, 1, 2)), ((2, 3, 4), (-1, 2, 0)),
])
def test_diagonal(fn, shape, args):
    check_rule(fn, rand(shape), *args)


def test_linalg_diagonal():
    check_rule(np.linalg.diagonal, rand((2, 3, 4)), kwargs=dict(offset=-1))
    check_float32(np.diagonal, rand((3, 3)))


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 1), ((3,), -2), ((3, 3), 0), ((3, 5), 1), ((4, 2), -1)])
def test_diag(shape, k):
    check_rule(np.diag, rand(shape), k)


# ---------------------------------------------------------------------------
# np.linalg: inverses and determinants

SOLVE_SHAPES = [
    ((3, 3), (3,)),
    ((3, 3), (3, 2)),
    ((2, 3, 3), (3,)),
    ((2, 3, 3), (2, 3, 2)),
    ((2, 3, 3), (3, 2)),
    ((3, 3), (2, 3, 2)),
    ((2, 1, 3, 3), (4, 3, 1)),
]


@pytest.mark.parametrize("sa,sb", SOLVE_SHAPES)
def test_solve(sa, sb):
    check_rule(np.linalg.solve, well_conditioned(sa, 1), rand(sb, 2))


def test_solve_float32_and_complex():
    check_float32(np.linalg.solve, well_conditioned((3, 3)), rand((3,)))
    a, b = well_conditioned((3, 3), 1, complex), rand((3, 2), 2, complex)
    loss, cot = linear(rand((3, 2), 3, complex))
    check_loss(np.linalg.solve, a, b, loss=loss, cotangent=cot, argnums=(0, 1))


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3, 3)])
def test_inv(shape):
    check_rule(np.linalg.inv, well_conditioned(shape))


def test_inv_float32_and_complex():
    check_float32(np.linalg.inv, well_conditioned((3, 3)))
    loss, cot = linear(rand((3, 3), 3, complex))
    check_loss(np.linalg.inv, well_conditioned((3, 3), 1, complex), loss=loss, cotangent=cot)


def singular(n, rank, seed=0):
    u, _ = np.linalg.qr(rand((n, n), seed))
    v, _ = np.linalg.qr(rand((n, n), seed + 1))
    s = np.where(np.arange(n) < rank, np.arange(1.0, n + 1), 0.0)
    return (u * s) @ v.T


@pytest.mark.parametrize("a", [
    well_conditioned((1, 1)), well_conditioned((3, 3)), well_conditioned((2, 3, 3)),
    # SVDs of both signs of det(U) det(Vh), which the adjugate carries
    singular(3, 2, 0), singular(3, 2, 3), singular(4, 3, 1), singular(4, 2),
    np.stack([singular(3, 2), well_conditioned((3, 3))]),
    # det exactly 0: the cofactors come from the SVD
    np.array([[1.0, 2, 3], [1, 2, 3], [4, 5, 7]]), np.array([[1.0, 0, 3], [2, 0, 1], [4, 0, 7]]),
    np.array([[[1.0, 2], [2, 4]], [[1.0, 2], [3, 4]]]),
], ids=["1x1", "3x3", "stack", "rank n-1", "rank n-1 reflected", "4x4 rank n-1", "rank n-2",
        "stack with a singular matrix", "equal rows", "zero column", "stack with det 0"])
def test_det(a):
    check_rule(np.linalg.det, a, atol=1e-6)


def test_det_at_rank_n_minus_1_is_the_adjugate():
    a = singular(3, 2)
    g = check_rule(np.linalg.det, a, dy=1.0)[0]
    assert np.abs(g).max() > 0.1  # nonzero: det is a polynomial
    assert check_rule(np.linalg.det, singular(4, 2), dy=1.0)[0] == pytest.approx(np.zeros((4, 4)), abs=1e-12)


def test_det_float32_and_complex():
    check_float32(np.linalg.det, well_conditioned((3, 3)))
    w = 0.7 + 0.4j
    check_loss(np.linalg.det, well_conditioned((3, 3), 1, complex),
               loss=lambda y: np.real(np.conj(w) * y), cotangent=lambda y: w)


@pytest.mark.parametrize("a", [well_conditioned((3, 3)), -well_conditioned((3, 3)), well_conditioned((2, 3, 3))],
                         ids=["positive", "negative", "stack"])
def test_slogdet(a):
    w = rand(np.shape(a)[:-2], 5)
    loss, cot = linear(None, w)
    grads = check_loss(np.linalg.slogdet, a, loss=loss, cotangent=cot)
    _, back = lookup(np.linalg.slogdet)(a)
    dsign = rand(np.shape(a)[:-2], 6)  # ignored: the sign of a real determinant is piecewise constant
    np.testing.assert_array_equal(back((dsign, w))[0], grads[0])
    assert back((dsign, None)) == (None,)


def test_slogdet_complex_sign_and_singular():
    a = well_conditioned((3, 3), 1, complex)
    loss, cot = linear(0.3 - 0.8j, 1.3)
    check_loss(np.linalg.slogdet, a, loss=loss, cotangent=cot)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warnings, no exception
        y, back = lookup(np.linalg.slogdet)(singular(3, 2))
        (g,) = back((None, 1.0))
    assert not np.all(np.isfinite(g))


# ---------------------------------------------------------------------------
# np.linalg: decompositions


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3, 3)])
def test_cholesky(shape, upper):
    loss, cot = linear(rand(shape, 7))  # weights on both triangles: the zero one has no effect
    grads = check_loss(np.linalg.cholesky, lopsided(spd(shape), not upper), kwargs=dict(upper=upper), loss=loss,
                       cotangent=cot)
    unread = np.tril(np.ones(shape), -1) if upper else np.triu(np.ones(shape), 1)
    assert np.all(grads[0][unread == 1] == 0)


def test_cholesky_complex_and_float32():
    loss, cot = linear(rand((3, 3), 7, complex))
    check_loss(np.linalg.cholesky, lopsided(spd((3, 3), 1, complex)), loss=loss, cotangent=cot)
    check_loss(np.linalg.cholesky, lopsided(spd((3, 3), 1, complex), False), kwargs=dict(upper=True), loss=loss,
               cotangent=cot)
    _, back = lookup(np.linalg.cholesky)(spd((3, 3)).astype(np.float32))
    assert back(rand((3, 3)).astype(np.float32))[0].dtype == np.float32


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 4), (4, 1), (1, 4)])
@pytest.mark.parametrize("weights", ["QR", "Q", "R"])
def test_qr(shape, weights):
    q, r = np.linalg.qr(rand(shape))
    loss, cot = linear(rand(q.shape, 3) if "Q" in weights else None, rand(r.shape, 4) if "R" in weights else None)
    check_loss(np.linalg.qr, rand(shape), loss=loss, cotangent=cot)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
def test_qr_mode_r(shape):
    check_rule(np.linalg.qr, rand(shape), kwargs=dict(mode="r"))


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3)])
def test_qr_mode_complete(shape):
    a = rand(shape)
    q, r = np.linalg.qr(a, mode="complete")
    wq = rand(q.shape, 3)
    wq[:, min(shape):] = 0  # the trailing columns of a tall Q are not unique
    loss, cot = linear(wq, rand(r.shape, 4))
    check_loss(np.linalg.qr, a, kwargs=dict(mode="complete"), loss=loss, cotangent=cot)


def test_qr_without_a_gradient():
    a = rand((5, 3))
    y, back = lookup(np.linalg.qr)(a, "complete")
    with pytest.raises(NoDerivativeRule):
        back((rand((5, 5)), None))
    assert back((None, None)) == (None, None)
    y, back = lookup(np.linalg.qr)(a, "raw")
    with pytest.raises(NoDerivativeRule):
        back((rand((3, 5)), rand((3,))))
    with pytest.raises(NoDerivativeRule, match="raw"):
        pushrules.call(registry.lookup_pushforward(np.linalg.qr), y, (a, "raw"), {}, (rand((5, 3), 1), None), {})


def trailing_projector_tangent(fn, a, da, pick, **kwargs):
    """The tangent of ``Q2 Q2^H`` (``Q2``: the trailing, non-unique vectors
    that ``pick`` takes from ``fn(a)``'s outputs), from the pushforward
    rule, and its central difference (the projector is unique)."""
    y = fn(a, **kwargs)
    t = pushrules.call(registry.lookup_pushforward(fn), y, (a,), kwargs, (da,), {})
    q2, dq2 = pick(y), pick(t)
    h = 1e-6
    p = [pick(fn(a + s * h * da, **kwargs)) for s in (1, -1)]
    want = (p[0] @ np.conj(p[0].T) - p[1] @ np.conj(p[1].T)) / (2 * h)
    return dq2 @ np.conj(q2.T) + q2 @ np.conj(dq2.T), want


@pytest.mark.parametrize("dtype", [float, complex])
def test_trailing_vectors_turn_with_the_others(dtype):
    a, da = rand((5, 3), 1, dtype), rand((5, 3), 2, dtype)
    got, want = trailing_projector_tangent(np.linalg.qr, a, da, lambda y: y[0][:, 3:], mode="complete")
    np.testing.assert_allclose(got, want, atol=1e-6)
    got, want = trailing_projector_tangent(np.linalg.svd, a, da, lambda y: y[0][:, 3:])
    np.testing.assert_allclose(got, want, atol=1e-6)
    got, want = trailing_projector_tangent(np.linalg.svd, a.T, da.T, lambda y: np.conj(y[2][3:].T))
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_qr_complex():
    a = rand((4, 3), 1, complex)
    # |Q|^2 and R: the phases numpy picks are fixed by R's real diagonal
    c = rand((4, 3), 2)
    wr = rand((3, 3), 3, complex)
    check_loss(np.linalg.qr, a, loss=lambda y: np.sum(c * np.abs(y[0]) ** 2) + np.real(np.sum(np.conj(wr) * y[1])),
               cotangent=lambda y: (2 * c * y[0], wr))


def sign_blind(cw, cv):
    """``(loss, cotangent)`` for ``<cw, w> + sum(cv * |v|^2)`` of an
    ``eigh`` (``cv`` may be ``None``): blind to the eigenvectors' signs."""

    def loss(y):
        total = 0.0 if cw is None else np.sum(cw * y[0])
        return total + (0.0 if cv is None else np.sum(cv * np.abs(y[1]) ** 2))

    def cotangent(y):
        return (cw, None if cv is None else 2 * cv * y[1])

    return loss, cotangent


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4)])
@pytest.mark.parametrize("which", ["wv", "w", "v"])
def test_eigh(shape, which):
    cw = rand(shape[:-1], 5) if "w" in which else None
    cv = rand(shape, 6) if "v" in which else None
    loss, cot = sign_blind(cw, cv)
    check_loss(np.linalg.eigh, lopsided(spd(shape)), loss=loss, cotangent=cot)


def test_eigh_upper_complex_and_none():
    loss, cot = sign_blind(rand((3,), 5), rand((3, 3), 6))
    check_loss(np.linalg.eigh, lopsided(spd((3, 3)), False), kwargs=dict(UPLO="U"), loss=loss, cotangent=cot)
    check_loss(np.linalg.eigh, lopsided(spd((3, 3)), False), kwargs=dict(UPLO="u"), loss=loss, cotangent=cot)
    check_loss(np.linalg.eigh, lopsided(spd((3, 3), 1, complex)), loss=loss, cotangent=cot)
    assert lookup(np.linalg.eigh)(spd((3, 3)))[1]((None, None)) == (None, None)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eigvalsh(shape):
    loss, cot = linear(rand(shape[:-1], 5))
    check_loss(np.linalg.eigvalsh, lopsided(spd(shape)), loss=loss, cotangent=cot)
    check_loss(np.linalg.eigvalsh, lopsided(spd(shape), False), kwargs=dict(UPLO="U"), loss=loss, cotangent=cot)
    check_loss(np.linalg.eigvalsh, lopsided(spd(shape, 1, complex), False), kwargs=dict(UPLO="U"), loss=loss,
               cotangent=cot)


def svd_blind(cu, cs, cvh):
    """``sum(cu * |U|^2) + <cs, s> + sum(cvh * |Vh|^2)`` (``None`` weights
    left out): blind to the singular vectors' signs (phases)."""
    weights = (cu, cs, cvh)

    def loss(y):
        total = 0.0
        for i, (w, p) in enumerate(zip(weights, y)):
            if w is not None:
                total = total + np.sum(w * (p if i == 1 else np.abs(p) ** 2))
        return total

    def cotangent(y):
        return tuple(None if w is None else (w if i == 1 else 2 * w * p) for i, (w, p) in enumerate(zip(weights, y)))

    return loss, cotangent


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (1, 3), (3, 1)])
@pytest.mark.parametrize("which", ["usv", "u", "s", "v"])
def test_svd(shape, which):
    a = rand(shape)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    loss, cot = svd_blind(rand(u.shape, 4) if "u" in which else None, rand(s.shape, 5) if "s" in which else None,
                          rand(vh.shape, 6) if "v" in which else None)
    check_loss(np.linalg.svd, a, kwargs=dict(full_matrices=False), loss=loss, cotangent=cot)


def test_svd_values_and_full_matrices():
    a = rand((4, 3))
    check_rule(np.linalg.svd, a, kwargs=dict(compute_uv=False))
    check_rule(np.linalg.svdvals, a)
    check_rule(np.linalg.svdvals, rand((2, 3, 5)))
    loss, cot = svd_blind(rand((3, 3), 4), rand((3,), 5), rand((3, 3), 6))
    check_loss(np.linalg.svd, rand((3, 3)), loss=loss, cotangent=cot)  # square: full == reduced
    # non-square, full matrices: fine while the trailing vectors carry no cotangent
    cu = rand((4, 4), 4)
    cu[:, 3:] = 0
    loss, cot = svd_blind(cu, rand((3,), 5), None)
    check_loss(np.linalg.svd, a, loss=loss, cotangent=cot)
    _, back = lookup(np.linalg.svd)(a)
    with pytest.raises(NoDerivativeRule):
        back((rand((4, 4)), None, None))


def test_svd_hermitian_complex_and_float32():
    loss, cot = svd_blind(rand((3, 3), 4), rand((3,), 5), rand((3, 3), 6))
    check_loss(np.linalg.svd, lopsided(spd((3, 3))), kwargs=dict(hermitian=True), loss=loss, cotangent=cot)
    loss, cot = linear(rand((3,), 5))
    check_loss(np.linalg.svd, lopsided(spd((3, 3))), kwargs=dict(hermitian=True, compute_uv=False), loss=loss,
               cotangent=cot)
    loss, cot = svd_blind(rand((4, 3), 4), rand((3,), 5), rand((3, 3), 6))
    check_loss(np.linalg.svd, rand((4, 3), 1, complex), kwargs=dict(full_matrices=False), loss=loss, cotangent=cot)
    check_float32(np.linalg.svd, rand((4, 3)), kwargs=dict(compute_uv=False))
    loss, cot = linear(rand((3,), 5))
    check_loss(np.linalg.svd, rand((4, 3), 1, complex), kwargs=dict(compute_uv=False), loss=loss, cotangent=cot)
    check_loss(np.linalg.svdvals, rand((2, 3, 4), 1, complex), loss=loss, cotangent=cot)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
@pytest.mark.parametrize("dtype", [float, complex])
def test_svd_reconstruction(shape, dtype):
    # U diag(s) Vh is a, whatever the phases: the gradient of <c, a> is c,
    # which needs the terms that tie the phases of U and V together.
    a, c = rand(shape, 1, dtype), rand(shape, 9, dtype)

    def cotangent(y):
        u, s, vh = y
        return ((c @ np.conj(vh.T)) * s, np.real(np.einsum("ji,jk,ik->i", np.conj(u), c, np.conj(vh))),
                np.conj((u * s).T) @ c)

    grads = check_loss(np.linalg.svd, a, kwargs=dict(full_matrices=False),
                       loss=lambda y: np.real(np.sum(np.conj(c) * ((y[0] * y[1]) @ y[2]))), cotangent=cotangent)
    np.testing.assert_allclose(grads[0], c)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_pinv(shape):
    check_rule(np.linalg.pinv, rand(shape))


def test_pinv_hermitian():
    loss, cot = linear(rand((3, 3), 4))
    check_loss(np.linalg.pinv, lopsided(spd((3, 3))), kwargs=dict(hermitian=True), loss=loss, cotangent=cot)


# The functions that read one triangle, through the compiler, with losses
# that are not symmetric in their outputs' entries: each single entry of a
# non-symmetric input perturbed, in reverse mode, forward mode and at second
# order (hvp and the gradient of a gradient).
TRIANGLE_LOSSES = {
    "cholesky": lambda a: np.sum(np.sin(np.linalg.cholesky(a)) * rand((3, 3), 7)),
    "cholesky_upper": lambda a: np.sum(np.sin(np.linalg.cholesky(a, upper=True)) * rand((3, 3), 7)),
    "eigh": lambda a: np.sum(np.linalg.eigh(a)[0] ** 3) + np.sum(np.linalg.eigh(a)[1] ** 2 * rand((3, 3), 6)),
    "eigh_upper": lambda a: np.sum(np.cos(np.linalg.eigh(a, "U")[0])) + np.sum(np.linalg.eigh(a, "U")[1][:, 1] ** 2),
    "eigvalsh": lambda a: np.sum(np.linalg.eigvalsh(a) ** 3 * np.array([1.0, -2.0, 0.5])),
    "svd_hermitian": lambda a: np.sum(np.linalg.svd(a, hermitian=True)[1] ** 2 * np.array([1.0, 0.3, -1.0])),
    "pinv_hermitian": lambda a: np.sum(np.sin(np.linalg.pinv(a, hermitian=True)) * rand((3, 3), 4)),
}
UPPER = {"cholesky_upper", "eigh_upper"}


@pytest.mark.parametrize("name", list(TRIANGLE_LOSSES))
def test_triangle_convention_in_both_modes_and_at_second_order(name):
    a = lopsided(spd((3, 3), 2), name not in UPPER)
    check_orders(TRIANGLE_LOSSES[name], a, rtol=1e-5, atol=1e-6)
    g = zpy.gradient(TRIANGLE_LOSSES[name], a)[0]
    unread = np.tril(np.ones((3, 3)), -1) if name in UPPER else np.triu(np.ones((3, 3)), 1)
    assert np.all(g[unread == 1] == 0) and np.any(g[unread == 0] != 0)


@pytest.mark.parametrize("fn, kwargs, lower, call", [
    (np.linalg.cholesky, {}, True, lambda m: np.linalg.cholesky(m)),
    (np.linalg.cholesky, dict(upper=True), False, lambda m: np.linalg.cholesky(m, upper=True)),
    (np.linalg.eigh, {}, True, lambda m: np.linalg.eigh(m)),
    (np.linalg.eigh, dict(UPLO="U"), False, lambda m: np.linalg.eigh(m, UPLO="U")),
    (np.linalg.eigvalsh, {}, True, lambda m: np.linalg.eigvalsh(m)),
    (np.linalg.eigvalsh, dict(UPLO="U"), False, lambda m: np.linalg.eigvalsh(m, UPLO="U")),
    (np.linalg.svd, dict(hermitian=True), True, lambda m: np.linalg.svd(m, hermitian=True)),
    (np.linalg.pinv, dict(hermitian=True), True, lambda m: np.linalg.pinv(m, hermitian=True)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_a_tangent_on_the_triangle_not_read_has_no_effect(fn, kwargs, lower, call):
    """By the pushforward rule, and through the compiler (``zpy.jvp``)."""
    a = lopsided(spd((3, 3), 1, complex), lower)
    noise = rand((3, 3), 8, complex)
    unread = (np.triu(noise, 1) if lower else np.tril(noise, -1)) + 1j * np.diag(np.imag(np.diag(noise)))
    y = fn(a, **kwargs)
    t = pushrules.call(registry.lookup_pushforward(fn), y, (a,), kwargs, (unread,), {})
    for part in parts(t):
        np.testing.assert_allclose(part, 0, atol=1e-12)
    _, t = zpy.jvp(call, (a,), (unread,))
    for part in parts(t):
        np.testing.assert_allclose(part, 0, atol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_matrix_power(shape, n):
    a = well_conditioned(shape) / 3
    check_rule(np.linalg.matrix_power, a, n, atol=1e-6)


@pytest.mark.parametrize("fn,kwargs", [
    (np.linalg.cholesky, {}), (np.linalg.qr, {}), (np.linalg.eigh, {}), (np.linalg.eigvalsh, {}),
    (np.linalg.svd, dict(full_matrices=False)), (np.linalg.svdvals, {}), (np.linalg.pinv, {}),
    (np.linalg.slogdet, {}), (np.linalg.det, {}), (np.linalg.inv, {}), (np.linalg.matrix_power, dict(n=3)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_float32_decompositions_keep_their_dtype(fn, kwargs):
    a = spd((2, 3, 3)).astype(np.float32)
    y, back = lookup(fn)(a, **kwargs)
    dy = tuple(None if p is None else np.ones_like(p) for p in y) if isinstance(y, tuple) else np.ones_like(y)
    (g, *rest) = back(dy)
    assert g.dtype == np.float32 and g.shape == a.shape
    want = back(tuple(None if p is None else p.astype(np.float64) for p in dy) if isinstance(dy, tuple)
                else dy.astype(np.float64))[0]
    np.testing.assert_allclose(g, want, rtol=1e-3, atol=1e-3)
    check_pushforward(fn, (a,), kwargs, y, [(0, g)], dy, seed=100, rtol=1e-4, atol=1e-4)  # dtypes too


def test_slogdet_pushforward_at_a_singular_matrix():
    a = singular(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf; no exception
        dsign, dlog = pushrules.call(registry.lookup_pushforward(np.linalg.slogdet), np.linalg.slogdet(a), (a,), {},
                                     (rand((3, 3), 1),), {})
    assert not np.isfinite(dlog)


# ---------------------------------------------------------------------------
# Through the compiler


def test_gradients_through_compiled_code():
    a, b = rand((3, 4), 1), rand((4, 3), 2)

    def f(a, b):
        return np.trace(np.dot(a, b))

    da, db = zpy.gradient(f, a, b)
    np.testing.assert_allclose(da, b.T)
    np.testing.assert_allclose(db, a.T)

    def g(a, b):
        return np.linalg.det(np.matmul(a, b)) + np.einsum("ij,ji->", a, b)

    m = a @ b
    da, db = zpy.gradient(g, a, b)
    cof = np.linalg.det(m) * np.linalg.inv(m).T
    np.testing.assert_allclose(da, cof @ b.T + b.T)
    np.testing.assert_allclose(db, a.T @ cof + a.T)


def spectral(s):
    w, v = np.linalg.eigh(s)
    sign, logdet = np.linalg.slogdet(s)
    q, r = np.linalg.qr(s)
    return np.vdot(w, w) + logdet + np.trace(r) + np.linalg.inv(s)[0, 1] + np.dot(v[:, 0], v[:, 0])


def test_structured_outputs_through_compiled_code():
    s = lopsided(spd((3, 3), 4)) / 2  # (eigh reads the lower triangle; the others all of s)
    (g,) = zpy.gradient(spectral, s)
    np.testing.assert_allclose(g, numeric_gradient(spectral, s), rtol=1e-5, atol=1e-6)


def _sin_kron(a, b):
    return np.sum(np.sin(np.kron(a, b)))


def _kron_directional(a, b):
    ga, gb = zpy.gradient(_sin_kron, a, b)
    return np.sum(ga * 0.3) + np.sum(gb * 0.7)


@pytest.mark.parametrize("sa,sb", [((2, 2), ()), ((), (3,)), ((3, 1), ())])
def test_kron_with_a_number_to_second_order(sa, sb):
    # (the gradient of kron's gradient split a number's axes, which it has none of: AxisError)
    a, b = rand(sa, 1), rand(sb, 2)
    check_rule(np.kron, a, b)
    got = zpy.gradient(_kron_directional, a, b)
    h = 1e-6
    for x, g, i in ((a, got[0], 0), (b, got[1], 1)):
        want = np.zeros(np.shape(x))
        for k in np.ndindex(np.shape(x)):
            e = np.zeros(np.shape(x))
            e[k] = h
            up = _kron_directional(*[x + e if j == i else y for j, y in enumerate((a, b))])
            down = _kron_directional(*[x - e if j == i else y for j, y in enumerate((a, b))])
            want[k] = (up - down) / (2 * h)
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7)
