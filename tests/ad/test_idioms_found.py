"""Idioms a red team found refused (issue 30, progs4 findings R3-R15):
each checked against central finite differences in reverse mode, forward
mode (``zpy.jvp``) and at second order (``zpy.hvp``) where the program
allows."""
import itertools
import operator
from collections import namedtuple

import numpy as np
import pytest

import zygote_py as zpy

STEP = 1e-6
RNG = np.random.default_rng(30)


def fd_gradient(f, x, *rest):
    """Central differences of ``f(x, *rest)`` along each item of ``x``."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = STEP
        g.flat[i] = (f(x + e, *rest) - f(x - e, *rest)) / (2 * STEP)
    return g


def check_modes(f, x, *rest, second=True):
    """``f(x, *rest)``'s gradient in ``x`` against finite differences, its
    jvp against the gradient's, and (``second``) its hvp against finite
    differences of the gradient."""
    g = zpy.gradient(f, x, *rest)[0]
    np.testing.assert_allclose(g, fd_gradient(f, x, *rest), rtol=1e-5, atol=1e-7)
    v = RNG.standard_normal(x.shape)
    y, dy = zpy.jvp(f, (x, *rest), (v, *[None] * len(rest)))
    np.testing.assert_allclose(y, f(x, *rest), rtol=1e-13)
    np.testing.assert_allclose(dy, np.sum(g * v), rtol=1e-9, atol=1e-12)
    if second:
        hv = zpy.hvp(f, (x, *rest), (v, *[None] * len(rest)))[0]
        grad = lambda z: zpy.gradient(f, z, *rest)[0]
        expected = (grad(x + STEP * v) - grad(x - STEP * v)) / (2 * STEP)
        np.testing.assert_allclose(hv, expected, rtol=1e-5, atol=1e-7)
    return g


# -- 1. a method that caches a value on its object (R9) -----------------------------


class Cached:
    def __init__(self):
        self.W = np.array([1.0, 2.0])
        self.cache = None
        self.calls = 0

    def __call__(self, x):
        h = x * self.W
        self.cache = h
        self.calls += 1
        return np.tanh(h)

    def loss(self, x):
        return np.sum(self(x) ** 2) + np.sum(self.cache ** 3)


def call_cached(x, m):
    return np.sum(m(x) ** 2)


def cache_read_back(x, m):
    return m.loss(x)


def test_a_call_that_caches_on_a_constant_model():
    x = np.array([0.5, -0.3])
    m = Cached()
    g = zpy.gradient(call_cached, x, m)[0]
    np.testing.assert_allclose(g, fd_gradient(call_cached, x, m), rtol=1e-5)
    assert m.calls >= 1 and m.cache is not None  # (the change happened, as in a plain call)


def test_a_cache_read_back_by_the_caller():
    x = np.array([0.5, -0.3])
    g = zpy.gradient(cache_read_back, x, Cached())[0]
    np.testing.assert_allclose(g, fd_gradient(cache_read_back, x, Cached()), rtol=1e-5)
    h = zpy.hvp(cache_read_back, (x, Cached()), (np.array([1.0, -2.0]), None))[0]
    grad = lambda z: zpy.gradient(cache_read_back, z, Cached())[0]
    np.testing.assert_allclose(h, (grad(x + STEP * np.array([1.0, -2.0])) - grad(x - STEP * np.array([1.0, -2.0])))
                               / (2 * STEP), rtol=1e-5)


def test_a_cache_read_back_of_a_differentiated_model():
    x = np.array([0.5, -0.3])
    w = np.array([1.0, 2.0])

    def by_weights(w):
        m = Cached()
        m.W = w
        return m.loss(x)

    g = zpy.grad(lambda m: m.loss(x))(Cached())
    np.testing.assert_allclose(g.W, fd_gradient(by_weights, w), rtol=1e-5)


# -- 2. itertools (R6) ----------------------------------------------------------------


def combinations_spread(x):
    return sum((a - b) ** 2 for a, b in itertools.combinations(x, 2))


def combinations_with_replacement_products(x):
    return sum(a * b for a, b in itertools.combinations_with_replacement(x[:3], 2))


def permutations_weighted(x):
    return sum(a * b ** 2 for a, b in itertools.permutations(x[:3], 2))


def pairwise_steps(x):
    return sum((b - a) ** 2 for a, b in itertools.pairwise(x))


def accumulate_sums(x):
    return list(itertools.accumulate(x))[-1] ** 2 + sum(v * v for v in itertools.accumulate(x))


def accumulate_products(x):
    return sum(itertools.accumulate(x, operator.mul, initial=1.5))


def product_pairs(x):
    return sum(a * np.sin(b) for a, b in itertools.product(x[:2], x[2:]))


def product_repeat(x):
    return sum(a * b * c for a, b, c in itertools.product(x[:2], repeat=3))


def chain_parts(x):
    return sum(v ** 3 for v in itertools.chain(x[:2], [x[3] * 2.0]))


def chain_from_iterable(x):
    return sum(v ** 3 for v in itertools.chain.from_iterable([x[:2], x[1:]]))


def starmap_products(x):
    return sum(itertools.starmap(lambda a, b: a * b ** 2, zip(x, x[::-1])))


def islice_every_other(x):
    return sum(v ** 2 for v in itertools.islice(x, 1, 4, 2)) + sum(itertools.islice(iter(x), 2)) ** 2


def zip_longest_filled(x):
    return sum(a * b for a, b in itertools.zip_longest(x, x[:2] ** 2, fillvalue=0.5))


def repeat_counted(x):
    return sum(a * b for a, b in zip(x, itertools.repeat(x[0] ** 2, 3)))


ITERTOOLS = [combinations_spread, combinations_with_replacement_products, permutations_weighted, pairwise_steps,
             accumulate_sums, accumulate_products, product_pairs, product_repeat, chain_parts, chain_from_iterable,
             starmap_products, islice_every_other, zip_longest_filled, repeat_counted]


@pytest.mark.parametrize("f", ITERTOOLS, ids=lambda f: f.__name__)
def test_itertools(f):
    # (second order for one of them: each compiles its implementation like user code)
    check_modes(f, np.array([0.3, 1.2, -0.7, 0.9]), second=f is accumulate_products)


def test_an_endless_repeat_is_refused_naming_a_count():
    with pytest.raises(zpy.NoDerivativeRule, match="count"):
        zpy.gradient(lambda x: sum(a * b for a, b in zip(x, itertools.repeat(x[0]))), np.ones(3))


# -- 3. vars(obj) (R3) ----------------------------------------------------------------


class Layer:
    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.name = "layer"

    def parameters(self):
        return [v for v in vars(self).values() if not isinstance(v, str)]


def vars_penalty(x):
    layer = Layer(x[:2] * 2.0, x[2])
    return sum(np.sum(p ** 2) for p in layer.parameters()) * np.sum(vars(layer)["w"])


def vars_cubed(x):
    return np.sum(vars(Layer(x, 1.0))["w"] ** 3)


def test_vars_of_a_new_object():
    check_modes(vars_penalty, np.array([0.3, 1.2, -0.7]), second=False)
    check_modes(vars_cubed, np.array([0.3, 1.2, -0.7]))


def test_vars_of_a_differentiated_object():
    w, b = np.array([0.3, 1.2]), -0.7
    loss = lambda m: np.sum(m.parameters()[0] ** 3) * m.parameters()[1]
    g = zpy.grad(loss)(Layer(w, b))
    np.testing.assert_allclose(g.w, fd_gradient(lambda w: loss(Layer(w, b)), w), rtol=1e-5)
    np.testing.assert_allclose(g.b, np.sum(w ** 3), rtol=1e-12)
    _, dy = zpy.jvp(loss, (Layer(w, b),), (zpy.Tangent(w=np.ones(2), b=1.0),))
    np.testing.assert_allclose(dy, np.sum(g.w) + g.b, rtol=1e-12)


# -- 4. smaller refusals and crashes (C2, R15, R11, R12) ------------------------------


def update_by_keywords(x):
    d = {"a": x[0]}
    d.update(b=x[1] ** 2, a=x[0] * 3.0)
    return d["b"] * d["a"]


def test_dict_update_by_keywords():
    check_modes(update_by_keywords, np.array([0.5, -1.2]))


class Settings:
    def __init__(self):
        self.seen = {}

    def update(self, **items):
        self.seen.update(items)


def test_a_user_update_by_keywords_is_left_to_its_class():
    def f(x):
        s = Settings()
        s.update(b=2.0)
        return x * s.seen["b"]
    assert zpy.gradient(f, 1.5) == (2.0,)


def count_weight_layers(x):
    p = {"W0": x[:2], "b0": x[2], "W1": x[1:]}
    n = len([k for k in p if k.startswith("W") and k.upper().lower() != "b"])
    return n * np.sum(p["W0"] ** 2) + p["b0"]


def test_string_methods_on_keys():
    check_modes(count_weight_layers, np.array([0.5, -1.2, 0.7]))


def sort_by_key(x):
    ranked = [(v * v, i) for i, v in enumerate(x)]
    ranked.sort(key=lambda t: t[0], reverse=True)
    return ranked[0][0] * 2.0 + ranked[1][0] * x[ranked[2][1]]


def sort_plain(x):
    xs = list(x)
    xs.sort()
    return xs[0] * 2.0 + xs[1] ** 3


def test_list_sort_with_a_key():
    check_modes(sort_by_key, np.array([0.5, -1.2, 2.0]))
    check_modes(sort_plain, np.array([0.5, -1.2, 2.0]), second=False)


State = namedtuple("State", "a b c")


def replaced_state(x):
    s = State(x[0], 0.0, x[2])._replace(b=x[1] * x[0], c=np.sin(x[2]))
    return s.a * s.b + s.c ** 2


def test_namedtuple_replace():
    check_modes(replaced_state, np.array([0.5, -1.2, 0.7]))


# -- 5. forward mode through a model's call (R4) --------------------------------------


class Forwarding:
    def __init__(self, w):
        self.w = w

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, x, scale=1.0):
        return self.w * np.sin(x) * scale


def forwarded(x):
    m = Forwarding(np.array([1.0, -2.0, 0.5]))
    return np.sum(m(x) ** 2) + np.sum(m(x, scale=x[0]))


def test_a_call_forwarding_its_arguments():
    check_modes(forwarded, np.array([0.5, -1.2, 0.7]), second=False)  # (its hvp: a slow compile, no new path)
    w, x = np.array([1.0, -2.0]), np.array([0.3, 0.9])
    _, dy = zpy.jvp(lambda m: np.sum(m(x) ** 2), (Forwarding(w),), (zpy.Tangent(w=np.ones(2)),))
    np.testing.assert_allclose(dy, np.sum(2 * w * np.sin(x) ** 2), rtol=1e-12)


# -- 5. forward mode over a container's own __iter__ (R5) -----------------------------


class Sequential:
    def __init__(self, *layers):
        self.layers = list(layers)

    def __len__(self):
        return len(self.layers)

    def __getitem__(self, i):
        return self.layers[i]

    def __iter__(self):
        return iter(self.layers)

    def __call__(self, x):
        for layer in self:
            x = layer(x)
        return x


def sequential_loss(net, x):
    return np.sum(net(x) ** 2)


def test_forward_mode_over_a_container_iterating_its_layers():
    w1, w2, x = np.array([1.0, -2.0]), np.array([0.5, 0.3]), np.array([0.3, 0.9])
    v1, v2 = np.array([0.2, -1.0]), np.array([1.5, 0.4])
    _, dy = zpy.jvp(sequential_loss, (Sequential(Forwarding(w1), Forwarding(w2)), x),
                    (zpy.Tangent(layers=[zpy.Tangent(w=v1), zpy.Tangent(w=v2)]), None))
    at = lambda s: sequential_loss(Sequential(Forwarding(w1 + s * v1), Forwarding(w2 + s * v2)), x)
    np.testing.assert_allclose(dy, (at(STEP) - at(-STEP)) / (2 * STEP), rtol=1e-6)
