"""Rules for the :mod:`cmath` module and Python's ``complex`` numbers
(Python 3.11): every function with a derivative has a rule, every other
one is registered non-differentiable.

The convention is that of Zygote and JAX ("Sense & Sensitivities" §3.5):
for a real loss ``L`` of ``z = x + iy`` the gradient is ``dL/dx + i
dL/dy``, so that ``z - lr * g`` descends. A holomorphic ``f`` then has the
pullback ``dy * conj(f'(z))``, and a real argument (a ``float`` given to
``cmath.exp``) gets the real part of that: the gradient of a real number
is real (``runtime.real_if_real``). A complex output's cotangent ``dy``
stands for the real loss ``Re(conj(dy) * y)``.

Conventions:

- Derivatives are those of the principal branches, which :mod:`cmath`
  computes; on a branch cut a function is continuous from one side only,
  and its gradient is that side's.
- Where the derivative has a pole but the function is finite (``sqrt`` at
  0, ``asin`` and ``acos`` at ±1, ``acosh`` at ±1, ``asinh`` at ±1j) the
  gradient is ``nan``: in the complex plane the slope has no limit. (A rule
  never raises there, since the program may not want that gradient.)
- ``phase(z)`` and ``abs(z)`` are real: ``dy * 1j / conj(z)`` and
  ``dy * z / |z|``, 0 at ``z == 0``. ``polar(z)`` takes a ``(dr, dphi)``
  cotangent, either part ``None``. ``abs`` is
  :func:`zygote_py.rules.operators.abs_complex`.
- ``rect(r, phi)`` takes real arguments only (as :mod:`cmath` does): their
  gradients are real.
- ``complex(real, imag)`` is ``real + 1j * imag``: ``real`` gets ``dy`` and
  ``imag`` gets ``-1j * dy``, each the real part of it when the argument is
  real. ``z.real`` and ``z.imag`` are in
  :func:`zygote_py.runtime.attribute_gradient`; ``z.conjugate()`` gets
  ``conj(dy)``.

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``
with the same conventions, except none: ``dz * f'(z)`` for a holomorphic
``f`` (not conjugated), a complex tangent for a complex output also from a
real argument. ``log_push`` takes ``base=math.e`` rather than ``*base``, so
that a base without a tangent drops its term.

Non-differentiable: ``isclose isfinite isinf isnan``.

Skipped: none in Python 3.11; :data:`SKIPPED` lists, with the reason, any
public function of :mod:`cmath` deliberately left without an entry, so the
completeness test notices the functions a newer Python adds.
"""
import cmath
import math

from zygote_py import runtime

from ..registry import adjoint, nondifferentiable, pushforward

SKIPPED: dict[str, str] = {}

nondifferentiable(cmath.isclose, cmath.isfinite, cmath.isinf, cmath.isnan)


@adjoint(cmath.exp)
def exp(z):
    y = cmath.exp(z)

    def back(dy):
        return (runtime.real_if_real(dy * y.conjugate(), z),)
    return y, back


@pushforward(cmath.exp)
def exp_push(y, z, *, dz):
    return dz * y


@adjoint(cmath.log)
def log(z, *base):
    y = cmath.log(z, *base)

    def back(dy):
        if not base:
            return (runtime.real_if_real(dy / z.conjugate(), z),)
        log_base = cmath.log(base[0])
        return (runtime.real_if_real(dy / (z * log_base).conjugate(), z),
                runtime.real_if_real(-dy * (y / (base[0] * log_base)).conjugate(), base[0]))
    return y, back


@pushforward(cmath.log)
def log_push(y, z, base=math.e, *, dz, dbase):
    # (base=math.e rather than *base, so that a base without a tangent drops its term)
    return (dz / z - dbase * y / base) / cmath.log(base)


@adjoint(cmath.log10)
def log10(z):
    def back(dy):
        return (runtime.real_if_real(dy / (z * math.log(10)).conjugate(), z),)
    return cmath.log10(z), back


@pushforward(cmath.log10)
def log10_push(y, z, *, dz):
    return dz / (z * cmath.log(10))


@adjoint(cmath.sqrt)
def sqrt(z):
    y = cmath.sqrt(z)

    def back(dy):
        return (runtime.real_if_real(dy / (2 * y).conjugate() if y else dy * math.nan, z),)
    return y, back


@pushforward(cmath.sqrt)
def sqrt_push(y, z, *, dz):
    return dz / (2 * y) if y else dz * complex(math.nan, math.nan)


@adjoint(cmath.sin)
def sin(z):
    def back(dy):
        return (runtime.real_if_real(dy * cmath.cos(z).conjugate(), z),)
    return cmath.sin(z), back


@pushforward(cmath.sin)
def sin_push(y, z, *, dz):
    return dz * cmath.cos(z)


@adjoint(cmath.cos)
def cos(z):
    def back(dy):
        return (runtime.real_if_real(-dy * cmath.sin(z).conjugate(), z),)
    return cmath.cos(z), back


@pushforward(cmath.cos)
def cos_push(y, z, *, dz):
    return -dz * cmath.sin(z)


@adjoint(cmath.tan)
def tan(z):
    y = cmath.tan(z)

    def back(dy):
        return (runtime.real_if_real(dy * (1 + y * y).conjugate(), z),)
    return y, back


@pushforward(cmath.tan)
def tan_push(y, z, *, dz):
    return dz * (1 + y * y)


@adjoint(cmath.asin)
def asin(z):
    def back(dy):
        d = cmath.sqrt((1 - z) * (1 + z))
        return (runtime.real_if_real(dy / d.conjugate() if d else dy * math.nan, z),)
    return cmath.asin(z), back


@pushforward(cmath.asin)
def asin_push(y, z, *, dz):
    d = cmath.sqrt((1 - z) * (1 + z))
    return dz / d if d else dz * complex(math.nan, math.nan)


@adjoint(cmath.acos)
def acos(z):
    def back(dy):
        d = cmath.sqrt((1 - z) * (1 + z))
        return (runtime.real_if_real(-dy / d.conjugate() if d else dy * math.nan, z),)
    return cmath.acos(z), back


@pushforward(cmath.acos)
def acos_push(y, z, *, dz):
    d = cmath.sqrt((1 - z) * (1 + z))
    return -dz / d if d else dz * complex(math.nan, math.nan)


@adjoint(cmath.atan)
def atan(z):
    def back(dy):
        return (runtime.real_if_real(dy / (1 + z * z).conjugate(), z),)
    return cmath.atan(z), back


@pushforward(cmath.atan)
def atan_push(y, z, *, dz):
    return dz / complex(1 + z * z)  # (complex also for a real z, as y is)


@adjoint(cmath.sinh)
def sinh(z):
    def back(dy):
        return (runtime.real_if_real(dy * cmath.cosh(z).conjugate(), z),)
    return cmath.sinh(z), back


@pushforward(cmath.sinh)
def sinh_push(y, z, *, dz):
    return dz * cmath.cosh(z)


@adjoint(cmath.cosh)
def cosh(z):
    def back(dy):
        return (runtime.real_if_real(dy * cmath.sinh(z).conjugate(), z),)
    return cmath.cosh(z), back


@pushforward(cmath.cosh)
def cosh_push(y, z, *, dz):
    return dz * cmath.sinh(z)


@adjoint(cmath.tanh)
def tanh(z):
    y = cmath.tanh(z)

    def back(dy):
        return (runtime.real_if_real(dy * (1 - y * y).conjugate(), z),)
    return y, back


@pushforward(cmath.tanh)
def tanh_push(y, z, *, dz):
    return dz * (1 - y * y)


@adjoint(cmath.asinh)
def asinh(z):
    def back(dy):
        d = cmath.sqrt(1 + z * z)
        return (runtime.real_if_real(dy / d.conjugate() if d else dy * math.nan, z),)
    return cmath.asinh(z), back


@pushforward(cmath.asinh)
def asinh_push(y, z, *, dz):
    d = cmath.sqrt(1 + z * z)
    return dz / d if d else dz * complex(math.nan, math.nan)


@adjoint(cmath.acosh)
def acosh(z):
    def back(dy):
        d = cmath.sqrt(z - 1) * cmath.sqrt(z + 1)  # not sqrt(z² - 1), whose sign differs for Re z < 0
        return (runtime.real_if_real(dy / d.conjugate() if d else dy * math.nan, z),)
    return cmath.acosh(z), back


@pushforward(cmath.acosh)
def acosh_push(y, z, *, dz):
    d = cmath.sqrt(z - 1) * cmath.sqrt(z + 1)
    return dz / d if d else dz * complex(math.nan, math.nan)


@adjoint(cmath.atanh)
def atanh(z):
    def back(dy):
        return (runtime.real_if_real(dy / ((1 - z) * (1 + z)).conjugate(), z),)
    return cmath.atanh(z), back


@pushforward(cmath.atanh)
def atanh_push(y, z, *, dz):
    return dz / complex((1 - z) * (1 + z))  # (complex also for a real z, as y is)


@adjoint(cmath.phase)
def phase(z):
    def back(dy):
        return (runtime.real_if_real(dy * 1j / z.conjugate() if z else dy * 0j, z),)
    return cmath.phase(z), back


@pushforward(cmath.phase)
def phase_push(y, z, *, dz):
    """``Im(dz / z)``, 0 at ``z == 0``."""
    return (dz / z).imag if z else 0.0


@adjoint(cmath.polar)
def polar(z):
    y = cmath.polar(z)

    def back(dy):
        dr, dphi = dy
        g = 0j
        if z and dr is not None:
            g = g + dr * z / y[0]
        if z and dphi is not None:
            g = g + dphi * 1j / z.conjugate()
        return (runtime.real_if_real(g, z),)
    return y, back


@pushforward(cmath.polar)
def polar_push(y, z, *, dz):
    """``(Re(conj(z) dz) / |z|, Im(dz / z))``, 0 at ``z == 0``."""
    return ((z.conjugate() * dz).real / y[0], (dz / z).imag) if z else (0.0, 0.0)


@adjoint(cmath.rect)
def rect(r, phi):
    y = cmath.rect(r, phi)

    def back(dy):
        return ((dy * cmath.rect(1.0, -phi)).real, (dy * -1j * y.conjugate()).real)
    return y, back


@pushforward(cmath.rect)
def rect_push(y, r, phi, *, dr, dphi):
    return dr * cmath.rect(1.0, phi) + dphi * 1j * y


@adjoint(complex)
def complex_(real=0, imag=0):
    def back(dy):
        return (runtime.real_if_real(dy, real), runtime.real_if_real(dy * -1j, imag))
    return complex(real, imag), back


@pushforward(complex)
def complex_push(y, real=0, imag=0, *, dreal, dimag):
    return complex(dreal + 1j * dimag)


@adjoint(complex.conjugate)
def conjugate(z):
    def back(dy):
        return (dy.conjugate(),)
    return z.conjugate(), back


@pushforward(complex.conjugate)
def conjugate_push(y, z, *, dz):
    return dz.conjugate()


adjoint(float.conjugate)(conjugate)
pushforward(float.conjugate)(conjugate_push)
