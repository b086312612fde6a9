"""Arrays of other libraries (Dask, CuPy) are arrays to zygote_py: plain
NumPy code differentiated on them in reverse mode, forward mode, at second
order and through an emitted module gives the gradients NumPy arrays get
(themselves checked against central differences here), as arrays of the
same library, computed by nothing but the user (Dask: a scheduler that
refuses to run is in force throughout)."""
import numpy as np
import pytest

import zygote_py as zpy
from tests.arrays import programs
from zygote_py.cli import main

pytestmark = pytest.mark.filterwarnings("error::FutureWarning")  # (Dask: a NumPy function it lacks, done in NumPy)

rng = np.random.default_rng(37)
X, Y = rng.uniform(0.1, 1.0, size=(6, 4)), (rng.uniform(size=6) > 0.5).astype(float)

CASES = [
    (programs.logistic, (rng.normal(size=4), X, Y)),
    (programs.broadcast, (X, rng.normal(size=4))),
    (programs.columns, (X,)),
    (programs.gram, (X, rng.normal(size=(4, 4)))),
    (programs.piecewise, (X - 0.4,)),
    (programs.sliced, (X,)),
    (programs.extremes, (X,)),
    (programs.spreads, (X,)),
    (programs.magnitudes, (X, rng.normal(size=4))),
    (programs.rows, (X,)),
    (programs.picks, (X,)),
]
IDS = [f.__name__ for f, _ in CASES]


def central(f, args, h=1e-6):
    """The gradient of ``f`` at NumPy ``args`` by central differences."""
    out = []
    for i, a in enumerate(args):
        g = np.zeros_like(a)
        for k in np.ndindex(a.shape):
            up, down = a.copy(), a.copy()
            up[k] += h
            down[k] -= h
            g[k] = (f(*args[:i], up, *args[i + 1:]) - f(*args[:i], down, *args[i + 1:])) / (2 * h)
        out.append(g)
    return out


def check(got, expected, library, rtol=1e-10):
    """``got`` is an array of ``library`` with the value ``expected``."""
    assert isinstance(got, library.array_type), type(got)
    np.testing.assert_allclose(library.to_numpy(got), expected, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("f,args", CASES, ids=IDS)
def test_gradient_is_an_array_of_the_library_and_matches_finite_differences(library, f, args):
    expected = central(f, args)
    for g, e in zip(zpy.gradient(f, *args), expected):  # (NumPy's, checked first)
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
    with library.untouched():
        y, back = zpy.pullback(f, *map(library.make, args))
        grads = back(1.0)
        again = zpy.gradient(f, *map(library.make, args))
    np.testing.assert_allclose(library.to_numpy(y), f(*args), rtol=1e-12)
    for g, h, e in zip(grads, again, expected):
        check(g, e, library, rtol=1e-6)
        check(h, e, library, rtol=1e-6)


@pytest.mark.parametrize("f,args", CASES, ids=IDS)
def test_a_numpy_argument_of_a_function_of_library_arrays_gets_a_lazy_gradient(library, f, args):
    if not library.takes_numpy:
        pytest.skip(f"{library.name} refuses NumPy operands in the function itself")
    # the first argument stays NumPy, the others are the library's: the first's gradient is reached by them
    expected = zpy.gradient(f, *args)
    with library.untouched():
        grads = zpy.gradient(f, args[0], *map(library.make, args[1:]))
    for g, e in zip(grads, expected):
        if len(args) == 1:
            np.testing.assert_allclose(g, e, rtol=1e-10)
        else:
            check(g, e, library)


@pytest.mark.parametrize("f,args", CASES, ids=IDS)
def test_jvp_on_library_arrays(library, f, args):
    tangents = tuple(rng.normal(size=a.shape) for a in args)
    y, dy = zpy.jvp(f, args, tangents)
    expected = sum(np.sum(g * t) for g, t in zip(zpy.gradient(f, *args), tangents))
    np.testing.assert_allclose(dy, expected, rtol=1e-10)
    with library.untouched():
        got_y, got_dy = zpy.jvp(f, tuple(map(library.make, args)), tuple(map(library.make, tangents)))
    check(got_y, y, library)
    check(got_dy, dy, library)


@pytest.mark.parametrize("f,args", CASES, ids=IDS)
def test_hessian_vector_product_on_library_arrays(library, f, args):
    vectors = tuple(rng.normal(size=a.shape) for a in args)
    expected = zpy.hvp(f, args, vectors)
    h = 1e-5  # (the gradient's central difference along the vectors)
    up = zpy.gradient(f, *(a + h * v for a, v in zip(args, vectors)))
    down = zpy.gradient(f, *(a - h * v for a, v in zip(args, vectors)))
    for e, u, d in zip(expected, up, down):
        np.testing.assert_allclose(e, (u - d) / (2 * h), rtol=1e-5, atol=1e-7)
    with library.untouched():
        got = zpy.hvp(f, tuple(map(library.make, args)), tuple(map(library.make, vectors)))
    for g, e in zip(got, expected):
        check(g, e, library)


@pytest.fixture(scope="module")
def emitted(tmp_path_factory):
    import importlib.util

    out = tmp_path_factory.mktemp("emitted") / "programs_grad.py"
    assert main(["emit", programs.__file__, "-o", str(out), "--skip-failing"]) == 0
    spec = importlib.util.spec_from_file_location("programs_grad", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EMITTED = CASES
"""The programs a standalone module holds, as for NumPy arrays (``abs``,
``reshape`` or a method of an array the compiler does not know to be one
is called by its rule)."""

def test_the_emitted_module_holds_those_programs(emitted):
    held = {name[:-len("_gradient")] for name in vars(emitted) if name.endswith("_gradient")
            and name[:-len("_gradient")] + "_forward" in vars(emitted)}
    assert held == {f.__name__ for f, _ in EMITTED} | {"products", "pairs", "algebra", "gathers"}


@pytest.mark.parametrize("f,args", EMITTED, ids=lambda v: getattr(v, "__name__", ""))
def test_an_emitted_module_runs_on_numpy_arrays(emitted, f, args):
    grads = getattr(emitted, f"{f.__name__}_gradient")(*args)
    for g, e, c in zip(grads, zpy.gradient(f, *args), central(f, args)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f,args", EMITTED, ids=lambda v: getattr(v, "__name__", ""))
def test_an_emitted_module_runs_on_library_arrays(emitted, library, f, args):
    # (rows and picks: repeated indices, added without np.add.at, which only NumPy has, in layers)
    expected = zpy.gradient(f, *args)
    with library.untouched():
        grads = getattr(emitted, f"{f.__name__}_gradient")(*map(library.make, args))
    for g, e in zip(grads, expected):
        check(g, e, library)


def test_products_with_zeros_have_lazy_derivatives(library):
    # (no count of each slice's zeros: cumprod's gradient, and so prod's second derivative, is a scan)
    X0 = X.copy()
    X0[2, 1] = X0[4, 1] = X0[0, 3] = X0[3, 2] = 0.0  # (two zeros in a column, one in the first row: no y / x)
    V = rng.normal(size=X0.shape)
    expected = central(programs.products, (X0,))[0]
    (g,) = zpy.gradient(programs.products, X0)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    h = 1e-5  # (the gradient's central difference along V)
    (up,), (down,) = zpy.gradient(programs.products, X0 + h * V), zpy.gradient(programs.products, X0 - h * V)
    (hessian_v,) = zpy.hvp(programs.products, (X0,), (V,))
    np.testing.assert_allclose(hessian_v, (up - down) / (2 * h), rtol=1e-5, atol=1e-7)
    with library.untouched():
        (lazy_g,) = zpy.gradient(programs.products, library.make(X0))
        y, dy = zpy.jvp(programs.products, (library.make(X0),), (library.make(V),))
        (lazy_hv,) = zpy.hvp(programs.products, (library.make(X0),), (library.make(V),))
    check(lazy_g, g, library)
    check(dy, np.sum(g * V), library)
    check(lazy_hv, hessian_v, library)


def test_two_index_arrays_give_a_lazy_gradient_to_a_numpy_array(library):
    # (Dask takes no x[rows, cols]: X stays NumPy, and its gradient, scattered without np.add.at, is lazy through w)
    if not library.takes_numpy:
        pytest.skip(f"{library.name} refuses NumPy operands in the function itself")
    w, V, u = rng.normal(size=4), rng.normal(size=X.shape), rng.normal(size=4)
    expected = central(programs.pairs, (X, w))
    grads = zpy.gradient(programs.pairs, X, w)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
    _, tangent = zpy.jvp(programs.pairs, (X, w), (V, u))
    hessian_v = zpy.hvp(programs.pairs, (X, w), (V, u))
    h = 1e-5  # (the gradient's central difference along (V, u))
    up, down = zpy.gradient(programs.pairs, X + h * V, w + h * u), zpy.gradient(programs.pairs, X - h * V, w - h * u)
    for e, a, b in zip(hessian_v, up, down):
        np.testing.assert_allclose(e, (a - b) / (2 * h), rtol=1e-5, atol=1e-7)

    def along(X, w):  # (a gradient of a gradient: reverse mode over reverse mode)
        gX, gw = zpy.gradient(programs.pairs, X, w)
        return np.sum(gX * V) + np.sum(gw * library.make(u))
    with library.untouched():
        lazy = zpy.gradient(programs.pairs, X, library.make(w))
        _, lazy_tangent = zpy.jvp(programs.pairs, (X, library.make(w)), (V, library.make(u)))
        lazy_hessian_v = zpy.hvp(programs.pairs, (X, library.make(w)), (V, library.make(u)))
        nested = zpy.gradient(along, X, library.make(w))
    check(lazy_tangent, tangent, library)
    for got, e in zip((*lazy, *lazy_hessian_v, *nested), (*grads, *hessian_v, *hessian_v)):
        check(got, e, library)


def test_forward_mode_over_a_gradient_reads_an_attribute_of_a_library_array(library):
    # (X.T in the gradient code, read at run time: a Dask array's T is a property in Python, CuPy's one in C)
    W, V = rng.normal(size=(4, 4)), rng.normal(size=X.shape)

    def gram_gradient(X, W):
        return zpy.gradient(programs.gram, X, W)[0]
    _, expected = zpy.jvp(gram_gradient, (X, W), (V, np.zeros_like(W)))
    h = 1e-6
    np.testing.assert_allclose(expected, (gram_gradient(X + h * V, W) - gram_gradient(X - h * V, W)) / (2 * h),
                               rtol=1e-6, atol=1e-8)
    with library.untouched():
        _, got = zpy.jvp(gram_gradient, (library.make(X), library.make(W)),
                         (library.make(V), library.make(np.zeros_like(W))))
    check(got, expected, library)


@pytest.mark.parametrize("f", [programs.statistics, programs.algebra, programs.gathers], ids=lambda f: f.__name__)
def test_rules_keep_a_device_array_on_the_device(library, f):
    # (rules that read their arguments with np.asarray, or mixed NumPy zeros and identities in, moved them to the host)
    if library.takes_numpy:
        pytest.skip("the audit of host copies: CuPy and its stand-in")
    V = rng.normal(size=X.shape)
    expected = zpy.gradient(f, X)[0]
    np.testing.assert_allclose(expected, central(f, (X,))[0], rtol=1e-5, atol=1e-7)
    _, tangent = zpy.jvp(f, (X,), (V,))
    (got,) = zpy.gradient(f, library.make(X))
    _, got_tangent = zpy.jvp(f, (library.make(X),), (library.make(V),))
    check(got, expected, library)
    check(got_tangent, tangent, library)


def doubled(x):
    return 2.0 * x


def test_forward_mode_through_a_reverse_rule_alone_is_refused_on_dask(library):
    # (a rule without a forward one is pushed forward element by element, which would compute a Dask array)
    if library.name != "dask":
        pytest.skip("Dask's arrays are lazy")

    @zpy.adjoint(doubled)
    def doubled_rule(x):
        return 2.0 * x, lambda dy: (2.0 * dy,)
    try:
        with library.untouched(), pytest.raises(zpy.errors.NoDerivativeRule, match="element by element"):
            zpy.jvp(doubled, (library.make(X),), (library.make(X),))
        np.testing.assert_allclose(zpy.jvp(doubled, (X,), (X,))[1], 2 * X)
    finally:
        zpy.rules.remove(doubled)
