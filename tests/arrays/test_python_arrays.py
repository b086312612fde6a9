"""An array class of another library written in Python (methods that are
plain Python functions, :class:`tests.arrays.boxed.Boxed`; pydata
``sparse`` where installed): NumPy's functions and ``np.ndarray``'s methods
on it get NumPy's rules, checked against central differences; its own
methods, properties, fields and constructor are refused with a message,
in reverse mode, forward mode and ``hvp``, never differentiated by their
source (which took them for constants: a zero derivative in silence)."""
import numpy as np
import pytest

import zygote_py as zpy
from tests.arrays.boxed import Boxed
from tests.arrays.test_other_libraries import central

rng = np.random.default_rng(372)
X, V = rng.uniform(0.5, 1.5, size=(3, 4)), rng.normal(size=(3, 4))


def numpy_code(x):
    return np.sum(np.sin(x) * x) + (x * x).sum() + np.sum(x[1:] ** 3) + np.sum(x.T @ x) + np.sum(x.reshape(12)[::5])


def test_numpy_code_on_a_python_array_class_gets_numpy_rules():
    (g,) = zpy.gradient(numpy_code, X)
    np.testing.assert_allclose(g, central(numpy_code, (X,))[0], rtol=1e-6, atol=1e-8)
    (hv,) = zpy.hvp(numpy_code, (X,), (V,))
    (got,) = zpy.gradient(numpy_code, Boxed(X))
    _, tangent = zpy.jvp(numpy_code, (Boxed(X),), (Boxed(V),))
    (got_hv,) = zpy.hvp(numpy_code, (Boxed(X),), (Boxed(V),))
    for value, expected in ((got, g), (tangent, np.sum(g * V)), (got_hv, hv)):
        assert isinstance(value, Boxed), type(value)
        np.testing.assert_allclose(value.data, expected, rtol=1e-10)


def own_method(x):
    return np.sum(x.squares())


def own_method_by_name(x):
    return np.sum(getattr(x, "squares")())


def own_method_unbound(x):
    return np.sum(Boxed.squares(x))


def own_property(x):
    return np.sum(x.doubled)


def own_field(x):
    return np.sum(x.data ** 2)


@pytest.mark.parametrize("f", [own_method, own_method_by_name, own_method_unbound, own_property, own_field],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["gradient", "jvp", "hvp"])
def test_the_class_own_code_is_refused_not_differentiated(f, mode):
    calls = {"gradient": lambda: zpy.gradient(f, Boxed(X)), "jvp": lambda: zpy.jvp(f, (Boxed(X),), (Boxed(V),)),
             "hvp": lambda: zpy.hvp(f, (Boxed(X),), (Boxed(V),))}
    with pytest.raises(zpy.NoDerivativeRule, match="an array of another library"):
        calls[mode]()


def test_pydata_sparse_arrays_get_numpy_rules():
    sparse = pytest.importorskip("sparse")

    def f(x):
        return np.sum(np.sin(x) * x) + np.sum(x ** 2)
    (g,) = zpy.gradient(f, X)
    (got,) = zpy.gradient(f, sparse.COO.from_numpy(X))
    np.testing.assert_allclose(got.todense() if hasattr(got, "todense") else got, g, rtol=1e-10)
