"""The transform API (issue 32): ``zpy.grad``, ``value_and_grad``,
``vjp``, ``jacfwd``, ``jacrev``; pytrees through every entry point
(``jacobian``, ``hessian``, ``hvp``, ``jvp`` too); methods, partials and
keyword arguments; and a JAX user's training loop.

Every derivative is checked against central finite differences of the
plain function (:func:`fd_blocks` for Jacobians of trees, one element of
one float leaf at a time), Hessians against central differences of the
gradient.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections import namedtuple

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import Tangent

STEP = 1e-6
RNG = np.random.default_rng(32)
Pair = namedtuple("Pair", "a b")


def is_float(v):
    return isinstance(v, np.ndarray) and v.dtype.kind == "f" or isinstance(v, float)


def bumped(x, k, h):
    if isinstance(x, np.ndarray):
        x = x.copy()
        x[k] += h
        return x
    return x + h


def fd_blocks(f, x):
    """The blocks of the Jacobian of ``f`` (a tree of a tree ``x``) by
    central differences, output leaf by output leaf, then input leaf by
    input leaf (float leaves only): the order of ``zpy.tree.leaves`` of
    the Jacobian JAX's way."""
    xs, xdef = zpy.tree.flatten(x)
    ys = zpy.tree.leaves(f(x))
    blocks = []
    for o, y in enumerate(ys):
        if not is_float(y):
            continue
        for i, leaf in enumerate(xs):
            if not is_float(leaf):
                continue
            columns = []
            for k in np.ndindex(np.shape(leaf)):
                up, down = list(xs), list(xs)
                up[i], down[i] = bumped(leaf, k, STEP), bumped(leaf, k, -STEP)
                hi = np.asarray(zpy.tree.leaves(f(zpy.tree.unflatten(xdef, up)))[o])
                lo = np.asarray(zpy.tree.leaves(f(zpy.tree.unflatten(xdef, down)))[o])
                columns.append((hi - lo) / (2 * STEP))
            blocks.append(np.stack(columns, axis=-1).reshape(np.shape(y) + np.shape(leaf)))
    return blocks


def assert_blocks(jac, expected, rtol=1e-6, atol=1e-8):
    got = zpy.tree.leaves(jac)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


def fd_gradient(f, x):
    """The gradient of a scalar ``f`` of the tree ``x``, leaf by leaf."""
    return fd_blocks(f, x)


# --------------------------------------------------------------------------
# grad, value_and_grad
# --------------------------------------------------------------------------

def sincos(x):
    return math.sin(math.cos(x))


def mse(params, X, y, scale=1.0):
    n = X.shape[0]  # (X is data: its shape is a constant)
    z = X @ params["w"] + params["b"]
    return scale * np.sum((z - y) ** 2) / n


PARAMS = {"w": RNG.standard_normal(3), "b": 0.25}
X = RNG.standard_normal((4, 3))
Y = RNG.standard_normal(4)


def test_grad_of_a_float_function_agrees_with_central_differences():
    g = zpy.grad(sincos)
    for x in (0.3, 1.0, -2.0):
        fd = (sincos(x + STEP) - sincos(x - STEP)) / (2 * STEP)
        assert g(x) == pytest.approx(fd, rel=1e-7)
        assert g(x) == -math.cos(math.cos(x)) * math.sin(x)  # (the fast path, bound by the first call)


def product_of_sines(x, y):
    return math.sin(x) * math.sin(2.0 * y)


def test_the_fast_path_of_several_arguments_agrees_with_central_differences():
    g = zpy.grad(product_of_sines, argnums=(0, 1))
    for x, y in ((0.3, 0.5), (1.0, -2.0), (0.3, 0.5)):  # (the first call binds; the others take the fast path)
        fx = (product_of_sines(x + STEP, y) - product_of_sines(x - STEP, y)) / (2 * STEP)
        fy = (product_of_sines(x, y + STEP) - product_of_sines(x, y - STEP)) / (2 * STEP)
        assert g(x, y) == pytest.approx((fx, fy), rel=1e-7)
    assert g(1, 0.5)[1] == pytest.approx(2.0 * math.sin(1) * math.cos(1.0), rel=1e-12)  # (another kind: general path)
    with pytest.raises(zpy.WrongArguments):
        g(0.3)  # (too few arguments for argnums: the bound function's check sends it to the general path)
    with pytest.raises(zpy.WrongArguments, match="2 positional arguments but 3"):
        g(0.3, 0.5, 1.0)  # (never to the bound function, whose constants are parameters after x and y)
    assert g(0.3, 0.5) == pytest.approx((math.cos(0.3) * math.sin(1.0), 2.0 * math.sin(0.3) * math.cos(1.0)))

def test_grad_differentiates_argnums_only():
    g = zpy.grad(mse)(PARAMS, X, Y)
    assert set(g) == {"w", "b"}
    assert_blocks(g, fd_gradient(lambda p: mse(p, X, Y), PARAMS))
    gx = zpy.grad(mse, argnums=1)(PARAMS, X, Y)
    assert gx.shape == X.shape
    assert_blocks(gx, fd_gradient(lambda x: mse(PARAMS, x, Y), X))
    gp, gy = zpy.grad(mse, argnums=(0, 2))(PARAMS, X, Y)
    assert_blocks(gp, fd_gradient(lambda p: mse(p, X, Y), PARAMS))
    assert_blocks(gy, fd_gradient(lambda y: mse(PARAMS, X, y), Y))


def test_value_and_grad_and_keyword_arguments():
    value, g = zpy.value_and_grad(mse)(PARAMS, X, Y, scale=3.0)
    assert value == pytest.approx(mse(PARAMS, X, Y, scale=3.0), rel=1e-14)
    assert_blocks(g, fd_gradient(lambda p: mse(p, X, Y, scale=3.0), PARAMS))
    assert_blocks(zpy.grad(mse)(PARAMS, X, Y, scale=3.0), [3 * b for b in fd_gradient(lambda p: mse(p, X, Y), PARAMS)])


def with_aux(w, x, labels, mask, tag):
    logits = x * w
    loss = np.sum(np.where(mask, (logits - labels) ** 2, 0.0))
    return loss, {"logits": logits, "tag": tag}


def test_has_aux_returns_the_aux_unchanged():
    w, x = 0.7, RNG.standard_normal(5)
    labels, mask = np.array([0, 1, 2, 1, 0]), np.array([True, False, True, True, False])
    g, aux = zpy.grad(with_aux, has_aux=True)(w, x, labels, mask, "run")
    fd = (with_aux(w + STEP, x, labels, mask, "run")[0] - with_aux(w - STEP, x, labels, mask, "run")[0]) / (2 * STEP)
    assert g == pytest.approx(fd, rel=1e-7)
    assert aux["tag"] == "run"
    np.testing.assert_array_equal(aux["logits"], x * w)
    (value, aux2), g2 = zpy.value_and_grad(with_aux, has_aux=True)(w, x, labels, mask, "run")
    assert value == with_aux(w, x, labels, mask, "run")[0] and g2 == g and aux2["tag"] == "run"


def test_the_bound_gradient_follows_the_argument_kinds():
    g = zpy.grad(lambda x: np.sum(x * x) if isinstance(x, np.ndarray) else x * x * x)
    assert g(2.0) == 12.0
    np.testing.assert_array_equal(g(np.array([1.0, 2.0])), [2.0, 4.0])
    assert g(2.0) == 12.0
    np.testing.assert_array_equal(g(np.array([[3.0]])), [[6.0]])


SCALE = 2.0


def scaled(x):
    return SCALE * x * x


def test_the_bound_gradient_sees_a_global_rebound():
    global SCALE
    g = zpy.grad(scaled)
    assert g(1.0) == 4.0 and g(1.0) == 4.0
    SCALE = 5.0
    try:
        assert g(1.0) == 10.0
    finally:
        SCALE = 2.0


def test_a_bound_call_runs_the_bound_gradient_alone(monkeypatch):
    from zygote_py import transforms

    g, vg, g2 = zpy.grad(sincos), zpy.value_and_grad(sincos), zpy.grad(scaled_sum, argnums=(0, 1))
    x, y = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    first = g(0.3), vg(0.3), g2(x, y)
    general = []
    monkeypatch.setattr(transforms, "run_grad", lambda *a: general.append(a))
    again = g(0.3), vg(0.3), g2(x, y)
    assert general == []  # (the bound functions answered: no general path)
    assert again[0] == first[0] == -math.cos(math.cos(0.3)) * math.sin(0.3)
    assert again[1] == first[1] == (sincos(0.3), first[0])
    for a, b, want in zip(again[2], first[2], (SCALE * y, SCALE * x)):
        assert type(a) is np.ndarray
        np.testing.assert_array_equal(a, want)
        np.testing.assert_array_equal(b, want)


def scaled_sum(x, y):
    return SCALE * np.sum(x * y)


def either(x, y):
    return np.sum(x * x) if x[0] > 0 else np.sum(y * y)


def test_a_bound_gradient_follows_dtypes_and_makes_lazy_zeros_dense():
    g = zpy.grad(either, argnums=(0, 1))
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    for _ in range(2):  # (the general path, then the bound one)
        gx, gy = g(x, y)
        np.testing.assert_array_equal(gx, 2 * x)
        assert type(gy) is np.ndarray and gy.dtype == y.dtype
        np.testing.assert_array_equal(gy, [0.0, 0.0])
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    for _ in range(2):
        gx, gy = g(x32, y32)
        assert gx.dtype == np.float32 and gy.dtype == np.float32
        np.testing.assert_array_equal(gx, 2 * x32)
    gx, gy = g(-x, y)
    np.testing.assert_array_equal(gx, [0.0, 0.0])
    np.testing.assert_array_equal(gy, 2 * y)
    total = zpy.grad(lambda v: np.sum(v * 3))
    for _ in range(2):
        assert total(np.array([1, 2])) is None  # (an int array: not differentiated)
        np.testing.assert_array_equal(total(np.array([1.0, 2.0])), [3.0, 3.0])
    for _ in range(2):
        np.testing.assert_array_equal(total(np.array([[1.0], [2.0]])), [[3.0], [3.0]])


def helper(x):
    return x * x


def through_helper(x):
    return helper(x) + x


def test_the_bound_gradient_sees_a_rule_registered_after_it():
    g = zpy.grad(through_helper)
    assert g(3.0) == 7.0 and g(3.0) == 7.0

    @zpy.adjoint(helper)
    def helper_rule(x):
        return helper(x), lambda dy: (dy * 10.0,)  # (not the derivative: shows which one ran)
    try:
        assert g(3.0) == 11.0 and g(3.0) == 11.0
    finally:
        zpy.rules.remove(helper)
    assert g(3.0) == 7.0 and g(3.0) == 7.0


def square(v):
    return v * v


def cube(v):
    return v * v * v


HELPER = square


def calls_a_global_helper(x):
    return HELPER(x) + x


def test_the_bound_gradient_sees_a_global_function_rebound():
    global HELPER
    g = zpy.grad(calls_a_global_helper)
    assert g(2.0) == 5.0 and g(2.0) == 5.0
    HELPER = cube  # (the compiled gradient inlined square)
    try:
        assert g(2.0) == 13.0 and g(2.0) == 13.0
    finally:
        HELPER = square
    assert g(2.0) == 5.0


def test_the_bound_gradient_sees_a_global_deleted():
    g = zpy.grad(scaled)
    assert g(1.0) == 4.0 and g(1.0) == 4.0
    del globals()["SCALE"]
    try:
        with pytest.raises(NameError, match="SCALE"):
            g(1.0)
    finally:
        globals()["SCALE"] = 2.0
    assert g(1.0) == 4.0


def test_nestlevel_in_a_bound_gradient():
    g = zpy.grad(lambda x: zpy.nestlevel() * x)
    assert g(2.0) == 1.0 and g(2.0) == 1.0
    inner = zpy.grad(lambda t: zpy.nestlevel() * t)
    assert zpy.gradient(lambda a: a * inner(1.0), 3.0) == (2.0,)  # (the inner gradient runs at level 2)
    assert zpy.nestlevel() == 0


def test_grad_errors_name_what_to_do():
    with pytest.raises(zpy.WrongArguments, match="argnums=2"):
        zpy.grad(sincos, argnums=2)(1.0)
    with pytest.raises(zpy.WrongArguments, match="argnums"):
        zpy.grad(sincos, argnums=[0])
    with pytest.raises(zpy.NonScalarOutput, match="pair"):
        zpy.grad(sincos, has_aux=True)(1.0)
    with pytest.raises(zpy.NonScalarOutput):
        zpy.grad(lambda x: np.array([x, x]))(1.0)
    with pytest.raises(zpy.WrongArguments, match="primals must be a tuple"):
        zpy.jvp(np.sin, np.ones(2), np.ones(2))


# --------------------------------------------------------------------------
# vjp, jacfwd, jacrev
# --------------------------------------------------------------------------

def bilinear(a, b):
    return np.tanh(a @ b)


def test_vjp_returns_one_cotangent_per_primal():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    y, vjp_fn = zpy.vjp(bilinear, a, b)
    np.testing.assert_array_equal(y, bilinear(a, b))
    dy = np.array([0.3, -1.2])
    da, db = vjp_fn(dy)
    ja, jb = fd_blocks(lambda t: bilinear(*t), (a, b))
    np.testing.assert_allclose(da, np.tensordot(dy, ja, 1), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(db, dy @ jb, rtol=1e-6, atol=1e-9)
    y2, vjp2, aux = zpy.vjp(lambda a, b: (bilinear(a, b), "aux"), a, b, has_aux=True)
    assert aux == "aux"
    np.testing.assert_allclose(vjp2(dy)[1], db, rtol=1e-12)


@pytest.mark.parametrize("jac", [zpy.jacfwd, zpy.jacrev])
def test_jacobians_of_arrays_and_of_a_dict(jac):
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    ja = jac(bilinear)(a, b)
    assert ja.shape == (2, 2, 3)
    assert_blocks(ja, fd_blocks(lambda x: bilinear(x, b), a))
    ja, jb = jac(bilinear, argnums=(0, 1))(a, b)
    assert jb.shape == (2, 3)
    assert_blocks((ja, jb), fd_blocks(lambda t: bilinear(*t), (a, b)))
    params = {"w": RNG.standard_normal(3), "s": 0.4, "n": 3}
    f = lambda p: np.sin(p["w"] * p["s"]) * p["n"]  # noqa: E731
    j = jac(f)(params)
    assert set(j) == {"w", "s", "n"} and j["w"].shape == (3, 3) and j["s"].shape == (3,) and j["n"] is None
    assert_blocks(j, fd_blocks(f, params))


@pytest.mark.parametrize("jac", [zpy.jacfwd, zpy.jacrev])
def test_jacobian_of_a_tree_output_is_nested_jax_s_way(jac):
    point = Pair(np.array([0.5, -0.2]), 1.5)
    f = lambda p: {"u": p.a * p.b, "v": [np.sum(p.a ** 2), p.b]}  # noqa: E731
    j = jac(f)(point)
    assert isinstance(j["u"], Pair) and j["u"].a.shape == (2, 2) and j["v"][0].b.shape == ()
    assert_blocks(j, fd_blocks(f, point))


def quartic(x):
    return np.sum(x ** 4) * x[0] + np.sin(x[1])


def test_jacfwd_of_grad_is_the_hessian():
    x = np.array([0.3, -0.8, 1.1])
    expected = fd_blocks(lambda v: zpy.gradient(quartic, v)[0], x)
    for h in (zpy.jacfwd(zpy.grad(quartic))(x), zpy.jacrev(zpy.grad(quartic))(x), zpy.hessian(quartic, x)):
        assert h.shape == (3, 3)
        assert_blocks(h, expected, rtol=1e-5, atol=1e-6)


def test_grad_of_a_function_calling_grad():
    def outer(a):
        return zpy.grad(lambda t: a * t ** 3 + np.sin(a * t))(0.7)
    a = 1.3
    fd = (outer(a + STEP) - outer(a - STEP)) / (2 * STEP)
    assert zpy.grad(outer)(a) == pytest.approx(fd, rel=1e-6)
    second = zpy.grad(zpy.grad(lambda t: t ** 3 * math.sin(t)))
    t = 0.9
    d1 = zpy.grad(lambda s: s ** 3 * math.sin(s))
    assert second(t) == pytest.approx((d1(t + STEP) - d1(t - STEP)) / (2 * STEP), rel=1e-6)


# --------------------------------------------------------------------------
# pytrees through jacobian, hessian, hvp, jvp
# --------------------------------------------------------------------------

@dataclasses.dataclass
class Layer:
    w: np.ndarray
    s: float
    name: str


def energy(p):
    return np.sum(np.sin(p["w"]) * p["s"] ** 2) + p["s"] ** 3


def test_hessian_of_a_dict_is_nested_jax_s_way():
    params = {"w": np.array([0.4, -1.0]), "s": 0.6}
    h = zpy.hessian(energy, params)
    assert h["w"]["w"].shape == (2, 2) and h["w"]["s"].shape == (2,) and h["s"]["w"].shape == (2,)
    assert h["s"]["s"].shape == ()
    assert_blocks(h, fd_blocks(lambda p: zpy.gradient(energy, p)[0], params), rtol=1e-5, atol=1e-6)


def picked(x, index, mask):
    return np.sum(np.where(mask, x, 0.0) ** 3) + np.sum(x[index] ** 2)


def test_hessian_and_hvp_skip_arguments_with_no_gradient():
    x = np.array([0.5, -1.5, 2.0])
    index, mask = np.array([0, 2]), np.array([True, False, True])
    (hxx, hxi, hxm), (hix, hii, him), (hmx, hmi, hmm) = zpy.hessian(picked, x, index, mask)
    assert hxi is hxm is hix is hii is him is hmx is hmi is hmm is None
    assert_blocks(hxx, fd_blocks(lambda v: zpy.gradient(picked, v, index, mask)[0], x), rtol=1e-5, atol=1e-6)
    v = np.array([1.0, 2.0, -1.0])
    hv, di, dm = zpy.hvp(picked, (x, index, mask), (v, None, None))
    assert di is None and dm is None
    np.testing.assert_allclose(hv, hxx @ v, rtol=1e-10)


def layer_loss(layer, x):
    return np.sum(np.tanh(layer.w * x) * layer.s)


def test_jacobian_and_hessian_of_a_dataclass():
    layer = Layer(np.array([0.3, 0.8]), 1.4, "hidden")
    x = np.array([1.0, -0.5])
    (jl, jx) = zpy.jacobian(lambda m, v: np.tanh(m.w * v) * m.s, layer, x)
    assert isinstance(jl, Tangent) and jl.w.shape == (2, 2) and jl.name is None
    assert_blocks((jl, jx), fd_blocks(lambda t: np.tanh(t[0].w * t[1]) * t[0].s, (layer, x)))
    h = zpy.hessian(layer_loss, layer, x)
    assert h[0].w[0].s.shape == (2,) and h[0].w[1].shape == (2, 2) and h[1][0].w.shape == (2, 2)
    assert_blocks(h, fd_blocks(lambda t: zpy.gradient(layer_loss, *t), (layer, x)), rtol=1e-5, atol=1e-6)


def test_jvp_of_a_dict():
    params = {"w": np.array([0.4, -1.0]), "s": 0.6}
    t = {"w": np.array([1.0, 0.5]), "s": -2.0}
    y, dy = zpy.jvp(energy, (params,), (t,))
    gs, gw = fd_blocks(energy, params)  # (the leaves in the order of the keys)
    assert y == energy(params)
    assert dy == pytest.approx(gw @ t["w"] + gs * t["s"], rel=1e-6)


# --------------------------------------------------------------------------
# Methods, partials, keyword arguments
# --------------------------------------------------------------------------

class Model:
    def __init__(self, w):
        self.w = w

    @zpy.differentiable
    def loss(self, x):
        return self.w * x ** 2

    def plain_loss(self, x):
        return self.w ** 2 * x


def test_methods_bind_like_functions():
    model = Model(1.5)
    assert model.loss(2.0) == 6.0
    assert model.loss.gradient(2.0) == (6.0,)
    assert zpy.grad(model.loss)(2.0) == 6.0
    assert zpy.grad(Model.loss)(model, 2.0) == Tangent(w=4.0)
    assert zpy.grad(Model.plain_loss)(model, 2.0) == Tangent(w=6.0)
    assert zpy.grad(lambda m, x: m.plain_loss(x))(model, 2.0) == Tangent(w=6.0)
    assert "def loss_forward" in model.loss.source


def test_a_library_function_gives_one_gradient_per_argument_passed():
    x = np.array([1.0, -2.0])
    g = zpy.gradient(np.sum, x)
    assert len(g) == 1
    np.testing.assert_array_equal(g[0], [1.0, 1.0])
    np.testing.assert_array_equal(zpy.gradient(np.sum, x, axis=0)[0], [1.0, 1.0])


def weighted(x, w, *, power=2):
    return np.sum(w * x ** power)


def test_partials_and_keywords_through_every_entry_point():
    x, w = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    f = functools.partial(weighted, w=w, power=3)
    expected = 3 * w * x ** 2
    np.testing.assert_allclose(zpy.gradient(f, x)[0], expected)
    np.testing.assert_allclose(zpy.gradient(weighted, x, w, power=3)[0], expected)
    np.testing.assert_allclose(zpy.value_and_gradient(weighted, x, w, power=3)[1][0], expected)
    np.testing.assert_allclose(zpy.pullback(weighted, x, w, power=3)[1](1.0)[0], expected)
    np.testing.assert_allclose(zpy.grad(f)(x), expected)
    np.testing.assert_allclose(zpy.grad(weighted)(x, w, power=3), expected)
    np.testing.assert_allclose(zpy.value_and_grad(weighted)(x, w, power=3)[1], expected)
    np.testing.assert_allclose(zpy.vjp(f, x)[1](1.0)[0], expected)
    v = np.array([1.0, 1.0])
    assert zpy.jvp(f, (x,), (v,))[1] == pytest.approx(expected @ v)
    assert zpy.jvp(weighted, (x, w), (v, None), power=3)[1] == pytest.approx(expected @ v)
    hessian = np.diag(6 * w * x)
    for h in (zpy.hessian(f, x), zpy.hessian(weighted, x, w, power=3)[0][0], zpy.jacfwd(zpy.grad(f))(x),
              zpy.jacfwd(zpy.grad(weighted))(x, w, power=3), zpy.jacrev(zpy.grad(lambda v: weighted(v, w, power=3)))(x)):
        np.testing.assert_allclose(h, hessian, rtol=1e-10)
    np.testing.assert_allclose(zpy.hvp(f, (x,), (v,))[0], hessian @ v)
    np.testing.assert_allclose(zpy.hvp(weighted, (x, w), (v, None), power=3)[0], hessian @ v)
    vector = functools.partial(np.multiply, w)
    for j in (zpy.jacobian(vector, x)[0], zpy.jacfwd(vector)(x), zpy.jacrev(vector)(x)):
        np.testing.assert_allclose(j, np.diag(w))
    np.testing.assert_allclose(zpy.jacobian(lambda v, k: v * k, x, k=2.0)[0], 2 * np.eye(2))


def a_partial_with_array_bound(shift, x):
    return np.sum((x - shift) ** 2)


def test_bound_arguments_of_a_partial_are_constants():
    shift = np.array([1.0, 2.0])
    f = functools.partial(a_partial_with_array_bound, shift)
    x = np.array([0.0, 0.0])
    assert zpy.gradient(f, x)[0].tolist() == [-2.0, -4.0]
    assert zpy.grad(f)(x).tolist() == [-2.0, -4.0]


# --------------------------------------------------------------------------
# A JAX user's training loop, unchanged apart from the import
# --------------------------------------------------------------------------

def log_softmax(z):
    z = z - np.max(z, axis=1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))


def loss_fn(params, batch, labels, mask):
    hidden = np.tanh(batch @ params["w1"] + params["b1"])
    logits = hidden @ params["w2"] + params["b2"]
    logp = log_softmax(logits)
    picked_logp = logp[np.arange(labels.shape[0]), labels]
    loss = -np.sum(np.where(mask, picked_logp, 0.0)) / np.sum(mask)
    accuracy = np.mean(np.argmax(logits, axis=1) == labels)
    return loss, {"accuracy": accuracy}


def test_a_jax_training_loop_runs_as_written():
    import zygote_py as jax  # the only change: `import jax` (and jax.numpy as np)

    rng = np.random.default_rng(0)
    batch = rng.standard_normal((40, 5))
    labels = (batch[:, 0] + batch[:, 1] > 0).astype(int) + (batch[:, 2] > 1).astype(int)
    mask = rng.random(40) < 0.9
    params = {"w1": rng.standard_normal((5, 8)) * 0.5, "b1": np.zeros(8),
              "w2": rng.standard_normal((8, 3)) * 0.5, "b2": np.zeros(3)}
    step = jax.value_and_grad(loss_fn, has_aux=True)
    (loss0, aux0), grads = step(params, batch, labels, mask)
    assert set(grads) == set(params)
    for name in ("w2", "b1"):
        fd = fd_gradient(lambda p: loss_fn({**params, name: p}, batch, labels, mask)[0], params[name])
        np.testing.assert_allclose(grads[name], fd[0], rtol=1e-6, atol=1e-9)
    losses = []
    for _ in range(60):
        (loss, aux), grads = step(params, batch, labels, mask)
        params = jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)
        losses.append(loss)
    assert losses[0] == loss0 and losses[-1] < 0.5 * loss0
    assert aux["accuracy"] > aux0["accuracy"]


def test_jacobian_and_hessian_without_arguments_are_jax_transforms():
    """``zpy.hessian(f)(x)``, as JAX spells it, returned the Hessian of a
    function of no arguments (``()``), which the call then failed on."""
    def cubes(x):
        return np.sum(x ** 3) + x[0] * x[1]

    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(zpy.hessian(cubes)(x), [[6.0, 1.0], [1.0, 12.0]])
    np.testing.assert_allclose(zpy.jacobian(np.sin)(x)[0], np.diag(np.cos(x)))
    with pytest.raises(zpy.WrongArguments, match="no keyword arguments of its own"):
        zpy.hessian(cubes, argnums=1)
    with pytest.raises(zpy.WrongArguments, match="needs the arguments"):
        zpy.hessian(cubes)()


def test_jacobians_of_jacobians_are_second_derivatives():
    """``jax.jacfwd(jax.jacrev(f))`` is JAX's Hessian; every pair of modes
    gives it, for a vector-valued ``f`` the array ``out + a + b`` of each
    output's second derivatives (against central differences of the
    Jacobian), with a second argument held constant."""
    def cubes(x):
        return np.sum(x ** 3)

    def field(x, s):
        return np.array([np.sin(x[0]) * x[1], x[0] * x[1] ** 2, s * x[0] ** 3])

    x = np.array([0.7, -1.2])
    for outer in (zpy.jacfwd, zpy.jacrev):
        for inner in (zpy.jacfwd, zpy.jacrev):
            np.testing.assert_allclose(outer(inner(cubes))(x), np.diag(6.0 * x))
            h = 1e-6
            want = np.stack([(zpy.jacobian(field, x + h * e, 2.0)[0] - zpy.jacobian(field, x - h * e, 2.0)[0]) / (2 * h)
                             for e in np.eye(2)], axis=-1)
            np.testing.assert_allclose(outer(inner(field))(x, 2.0), want, rtol=1e-6, atol=1e-8)
    with pytest.raises(zpy.NoDerivativeRule, match="argnums an int") as info:
        zpy.jacfwd(zpy.jacrev(field, (0, 1)))
    assert "field" in str(info.value)
