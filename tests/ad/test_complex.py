"""Python ``complex`` numbers and :mod:`cmath`: for a real loss ``L`` of
``z = x + iy`` the gradient is ``dL/dx + i dL/dy`` (Zygote's and JAX's
convention), and a real argument gets the real number ``dL/dx``. Every
gradient is checked against central differences along the real and the
imaginary direction separately."""
import cmath
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NonScalarOutput

H = 1e-6
C = 0.3 - 0.7j


def fd(f, args, i):
    """The central-difference gradient of the real ``f`` along argument
    ``i``: ``dL/dx + i dL/dy`` for a complex one, ``dL/dx`` for a real one."""
    def at(v):
        return f(*args[:i], v, *args[i + 1:])
    z = args[i]
    dx = (at(z + H) - at(z - H)) / (2 * H)
    if not isinstance(z, complex):
        return dx
    dy = (at(z + 1j * H) - at(z - 1j * H)) / (2 * H)
    return complex(dx, dy)


def check(f, *args, tol=1e-6):
    """``zpy.gradient(f, *args)`` against :func:`fd` at every complex and
    float argument; a float argument's gradient is a float."""
    grads = zpy.gradient(f, *args)
    assert len(grads) == len(args)
    for i, a in enumerate(args):
        if not isinstance(a, (float, complex)):
            continue
        expected = fd(f, args, i)
        got = 0.0 if grads[i] is None else grads[i]
        if isinstance(a, float):
            assert type(got) is float, (i, got)
        assert abs(got - expected) <= tol * max(1.0, abs(expected)), (i, got, expected)
    return grads


# -- cmath ---------------------------------------------------------------------------

def through(f, z):
    """A real loss that reads both parts of ``f(z)``."""
    y = f(z)
    return (y * C).real + abs(y) ** 2


HOLOMORPHIC = [cmath.exp, cmath.log, cmath.log10, cmath.sqrt, cmath.sin, cmath.cos, cmath.tan, cmath.asin,
               cmath.acos, cmath.atan, cmath.sinh, cmath.cosh, cmath.tanh, cmath.asinh, cmath.acosh, cmath.atanh]
POINTS = [0.3 + 0.4j, -0.7 + 0.5j, 1.2 - 0.8j, -0.4 - 1.1j]


@pytest.mark.parametrize("f", HOLOMORPHIC, ids=lambda f: f.__name__)
@pytest.mark.parametrize("z", POINTS)
def test_cmath_function_of_a_complex(f, z):
    """All four quadrants, off every branch cut (acosh's and acos's
    derivatives differ there from the naive sqrt(z² - 1))."""
    check(through, f, z)


@pytest.mark.parametrize("f", HOLOMORPHIC, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.6, -0.45, 2.5])
def test_cmath_function_of_a_float_gets_a_float_gradient(f, x):
    if f in (cmath.asin, cmath.acos, cmath.atanh) and abs(x) > 1 or f is cmath.acosh and x < 1:
        pytest.skip("on a branch cut, where the imaginary part jumps")
    check(through, f, x)  # (log and sqrt of x < 0: the upper side of the cut, as cmath gives it)


def log_with_base(z, base):
    return (cmath.log(z, base) * C).real


def test_log_with_a_base():
    check(log_with_base, 1.5 - 0.5j, 2.0 + 0.3j)
    check(log_with_base, 1.5 - 0.5j, 3.0)


def exp_times(z, w):
    return abs(cmath.exp(z) * w) ** 2


def log_times_conjugate(z):
    return (cmath.log(z) * z.conjugate()).real


def phase_of(z):
    return cmath.phase(z)


def polar_parts(z):
    r, phi = cmath.polar(z)
    return r * math.cos(phi) + phi ** 2


def radius_only(z):
    return cmath.polar(z)[0] ** 3


def rect_of(r, phi):
    return (cmath.rect(r, phi) * C).real + cmath.rect(r, phi).imag ** 2


@pytest.mark.parametrize("f, args", [
    (exp_times, (0.2 + 0.9j, -1.3 + 0.4j)),
    (log_times_conjugate, (-0.6 + 1.4j,)),
    (phase_of, (-1.0 + 2.0j,)),
    (phase_of, (0.5 - 0.25j,)),
    (polar_parts, (1.5 - 2.0j,)),
    (radius_only, (-0.3 + 0.8j,)),
    (rect_of, (1.7, -0.6)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_losses_of_cmath_functions(f, args):
    check(f, *args)


def test_phase_and_abs_at_zero_have_gradient_zero():
    assert zpy.gradient(phase_of, 0j) == (0j,)
    assert zpy.gradient(abs, 0j) == (0j,)


def test_pole_of_the_derivative_gives_nan():
    (g,) = zpy.gradient(lambda z: abs(cmath.sqrt(z)), 0j)
    assert cmath.isnan(g)


# -- complex arithmetic --------------------------------------------------------------

def squared_modulus(z):
    return abs(z) ** 2


def test_squared_modulus_is_twice_z():
    assert check(squared_modulus, 3 + 4j) == (6 + 8j,)


def quotient(z, w):
    return (z / (1 + w) - w * z + (z - w) ** 2).imag


def powers(z, w):
    return (z ** w).real + (z ** 2.5).imag + abs(z ** 3) + (2 ** w).real


def real_base(x, w):
    return (x ** w).real + abs((-x) ** 0.5j)


def conjugate_product(z, w):
    return (z.conjugate() * w + -z).real


def parts(z):
    return z.real * z.imag ** 2


def constructed(x, y):
    return abs(complex(x, y) * complex(y, -x) + 1j * x) + complex(x).real


def constructed_from_complex(z, w):
    return (complex(z, w) * C).real


@pytest.mark.parametrize("f, args", [
    (quotient, (0.7 - 1.2j, 0.4 + 0.9j)),
    (powers, (1.1 + 0.6j, 0.8 - 0.3j)),
    (powers, (-0.9 - 0.5j, 1.5 + 0.2j)),
    (real_base, (1.3, 0.7 - 0.4j)),
    (conjugate_product, (1.5 + 2j, -0.5 + 1j)),
    (parts, (1.5 - 2j,)),
    (constructed, (0.8, -1.7)),
    (constructed_from_complex, (0.8 - 1.1j, 0.3 + 0.6j)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_complex_arithmetic(f, args):
    check(f, *args)


def test_integer_exponent_gets_no_gradient():
    assert zpy.gradient(lambda z, n: abs(z ** n), 1 + 1j, 3)[1] is None


# -- real and complex mixed ------------------------------------------------------------

def mixed(x, z):
    a = x * z + cmath.exp(x) - complex(x, 2 * x) / z
    return abs(a) ** 2 + (z / x).imag + x * 1j.imag + (x * 1j).imag


def float_times_imaginary(x):
    return abs(x * 1j + 2) + x.imag


def test_float_arguments_get_float_gradients():
    check(mixed, 0.7, -1.2 + 0.5j)
    check(float_times_imaginary, 0.5)


def test_float_method_conjugate():
    assert check(lambda x: x.conjugate() * 3.0, 1.5) == (3.0,)


def horner(coefficients, z):
    p = 0j
    for c in coefficients:
        p = p * z + c
    return abs(p) ** 2


def rotations(z, n):
    total = 0.0
    w = z
    for k in range(n):
        w = w * cmath.exp(1j * k * 0.3) + z.conjugate()
        if abs(w) > 2:
            w = w / abs(w)
        total = total + (w * w).real
    return total


def test_loops_over_complex_values():
    z = 0.6 - 0.8j
    coefficients = [1 + 0.5j, -0.2 + 1j, 0.7 - 0.1j]
    dcoefficients, dz = zpy.gradient(horner, coefficients, z)
    assert abs(dz - fd(horner, (coefficients, z), 1)) < 1e-6
    for k in range(3):
        def along(c, k=k):
            return horner([*coefficients[:k], c, *coefficients[k + 1:]], z)
        assert abs(dcoefficients[k] - fd(along, (coefficients[k],), 0)) < 1e-6
    check(rotations, 0.9 + 0.7j, 6)


# -- NumPy ---------------------------------------------------------------------------

def array_and_scalar(a, z):
    return np.sum(np.abs(a * z + np.conj(a) / z) ** 2) + (np.sum(a) * z).imag


def real_array_and_scalar(x, z):
    return np.sum(np.abs(x * z - 1.0) ** 2) + (np.sum(x) * z).real


@pytest.mark.filterwarnings("error")  # no ComplexWarning: a real array's gradient is made real, not cast
def test_numpy_arrays_with_python_complex_scalars():
    a = np.array([1 + 2j, -0.5 + 0.25j])
    x = np.array([0.3, -1.2, 2.0])
    z = 0.6 - 1.1j
    for f, arr in [(array_and_scalar, a), (real_array_and_scalar, x)]:
        g_arr, g_z = zpy.gradient(f, arr, z)
        assert abs(g_z - fd(lambda v: float(f(arr, v)), (z,), 0)) < 1e-6
        assert g_arr.dtype == arr.dtype
        for k in range(arr.size):
            def along(v, k=k):
                changed = arr.copy()
                changed[k] = v
                return float(f(changed, z))
            expected = fd(along, (complex(arr[k]) if arr.dtype.kind == "c" else float(arr[k]),), 0)
            assert abs(g_arr[k] - expected) < 1e-6


# -- complex outputs -------------------------------------------------------------------

def cubic(z, x):
    return z ** 3 + cmath.exp(z) * x


def test_pullback_of_a_complex_output_follows_the_convention():
    """``back(dy)`` is the gradient of the real loss ``Re(conj(dy) * y)``:
    ``dy * conj(f'(z))`` for a holomorphic ``f``."""
    z, x, dy = 0.4 - 0.9j, 1.3, 0.25 + 2j
    y, back = zpy.pullback(cubic, z, x)
    assert y == cubic(z, x)
    dz, dx = back(dy)
    assert abs(dz - dy * (3 * z * z + cmath.exp(z) * x).conjugate()) < 1e-12
    assert type(dx) is float

    def loss(z, x):
        return (dy.conjugate() * cubic(z, x)).real
    assert abs(dz - fd(loss, (z, x), 0)) < 1e-6
    assert abs(dx - fd(loss, (z, x), 1)) < 1e-6


def test_gradient_of_a_complex_output_points_to_pullback():
    with pytest.raises(NonScalarOutput, match="complex") as info:
        zpy.gradient(cubic, 0.4 - 0.9j, 1.3)
    message = str(info.value)
    assert "zpy.pullback" in message and "Jacobian" in message


def imaginary_part_of_a_root(x):
    return (x ** 0.5).imag


def imaginary_part_of_pow(x):
    return pow(x, 1.5).imag


def size_of_a_power_in_place(x, b):
    y = x
    y **= b
    return abs(y) + (2.0 ** x)


@pytest.mark.parametrize("f, args", [
    (imaginary_part_of_a_root, (-4.0,)),
    (imaginary_part_of_a_root, (4.0,)),
    (imaginary_part_of_pow, (-2.0,)),
    (size_of_a_power_in_place, (-2.0, 1.5)),
    (size_of_a_power_in_place, (2.0, 1.5)),
], ids=lambda v: getattr(v, "__name__", None))
def test_a_negative_number_to_a_fractional_power_is_complex(f, args):
    """Python's ``(-4.0) ** 0.5`` is complex: the rules for real numbers
    must not be used for it (they once gave 0.25 + ...j for -0.25)."""
    check(f, *args)


# -- second order through |z| (np.sign(z) == z / |z| has no derivative; the rules write z / |z|) ------


def _abs_of_a_complex_built_from_reals(x):
    z = x[0] + 1j * x[1]
    return abs(z)


def test_hessian_through_a_complex_built_from_a_real_array():
    x = np.array([0.6, 0.8])
    np.testing.assert_allclose(zpy.hessian(_abs_of_a_complex_built_from_reals, x),
                               [[0.64, -0.48], [-0.48, 0.36]], atol=1e-12)
    np.testing.assert_allclose(zpy.gradient(lambda v: zpy.gradient(_abs_of_a_complex_built_from_reals, v)[0][0], x)[0],
                               [0.64, -0.48], atol=1e-12)


def test_hessian_of_the_squared_modulus_of_a_complex_array():
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(zpy.hessian(lambda v: np.sum(np.abs(v + 1j) ** 2), x), 2.0 * np.eye(3), atol=1e-10)


def _wirtinger_fd(g, z, u, h=1e-6):
    """The gradient of the real function g at the complex array z (dg/dx + i dg/dy), paired with u."""
    out = []
    for e in np.eye(len(z)):
        out.append((g(z + h * e) - g(z - h * e)) / (2 * h) + 1j * (g(z + 1j * h * e) - g(z - 1j * h * e)) / (2 * h))
    return np.array(out)


@pytest.mark.parametrize("inner", [lambda w: np.sum(np.abs(w)), lambda w: np.linalg.norm(w, 3),
                                   lambda w: np.linalg.norm(w, 1), lambda w: np.linalg.norm(w, np.inf)])
def test_the_gradient_of_a_complex_modulus_differentiated_again(inner):
    z = np.array([1.1 + 1.3j, -0.5 + 0.2j])
    u = np.array([0.7 - 0.4j, 0.1 + 0.3j])
    first = lambda w: zpy.gradient(inner, w)[0]  # noqa: E731
    _, back = zpy.pullback(first, z)
    want = _wirtinger_fd(lambda w: np.real(np.vdot(u, first(w))), z, u)
    np.testing.assert_allclose(back(u)[0], want, rtol=1e-5, atol=1e-7)
    _, back = zpy.pullback(lambda w: zpy.gradient(np.abs, w)[0], 1.1 + 1.3j)
    assert back(0.7 - 0.4j)[0] == pytest.approx(0.3553694776 - 0.3006972503j, rel=1e-8)
