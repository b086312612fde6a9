"""Rules for :mod:`scipy.special`, part 1: the log-sum-exp family, the
logistic functions, the entropies, the Bessel functions and the zeta
function. (The gamma and error-function family is in
:mod:`.scipy_gamma`.)

Covered: ``logsumexp softmax log_softmax expit logit xlogy xlog1py entr
rel_entr kl_div i0 i1 i0e i1e iv ive jv (jn) yv j0 j1 y0 y1 yn zeta exprel
exp1 expi expn fresnel spence hyp1f1 sph_harm_y``, as ``scipy.special.<name>``;
``bernoulli`` (the Bernoulli numbers up to ``n``) has no gradient.
This module is imported (into the built-in layer) once the user has
imported :mod:`scipy.special` (:func:`zygote_py.registry.when_imported`).

Each rule's pullback and pushforward use only functions that have rules
themselves (the Bessel functions' derivatives are Bessel functions of the
neighbouring orders, ``zeta``'s are ``zeta`` and :func:`zeta_slope`, a
NumPy formula the compiler differentiates), so every order of derivative
works, in both modes. Arguments are real arrays or numbers; a gradient has
its argument's shape and floating dtype (summed over the axes along which
SciPy broadcast it).

Which arguments get a gradient, and conventions:

- ``logsumexp(a, axis, b, keepdims, return_sign)``: ``a`` and ``b``
  (``axis`` an int, a tuple or ``None``). With ``y = log|S|``, ``S =
  sum(b * exp(a))`` and ``s = sign(S)``: ``a`` gets ``dy * s * b *
  exp(a - y)`` (the softmax weights, which never overflow) and ``b`` gets
  ``dy * s * exp(a - y)``. An entry ``a == -inf`` gets 0, and a slice whose
  result is ``-inf`` (every ``a`` there ``-inf``, or ``S == 0``) gives its
  entries 0. With ``return_sign=True`` the output is ``(y, s)``; the sign is
  piecewise constant, its cotangent is ignored. ``b`` may broadcast
  against ``a`` either way.
- ``softmax(x, axis)``, ``log_softmax(x, axis)``: ``x``; ``axis=None``
  normalises over all of ``x``, as SciPy does.
- ``expit``, ``logit``: ``logit``'s slope ``1 / (x (1 - x))`` is ``inf``
  at 0 and 1.
- ``xlogy(x, y) == x log(y)`` and ``xlog1py(x, y) == x log1p(y)``, 0
  where ``x == 0``: both arguments. ``x`` gets ``log(y)`` (``log1p(y)``)
  everywhere, the slope along ``x`` (``-inf`` at ``y == 0``); ``y`` gets
  ``x / y`` (``x / (1 + y)``), which is 0 where ``x == 0``, also at ``y ==
  0`` (``y == -1``), where SciPy's value is 0 along ``y``.
- ``entr(x) == -x log(x)``: slope ``-(1 + log(x))``, ``inf`` at 0 (and
  ``nan`` for ``x < 0``, where the value is the constant ``-inf``).
  ``rel_entr(x, y) == x log(x / y)``: ``x`` gets ``1 + log(x / y)``,
  ``-inf`` at ``x == 0``; ``y`` gets ``-x / y``, 0 where ``x == 0`` (also
  at ``y == 0``).
- ``kl_div(x, y) == x log(x / y) - x + y``: ``x`` gets ``log(x / y)``,
  ``y`` gets ``1 - x / y`` (1 where ``x == 0``), as for ``rel_entr``.
- ``exp1(x)``, ``expi(x)``: slopes ``-exp(-x) / x`` and ``exp(x) / x``.
  ``expn(n, x)``: ``x`` only, slope ``((n - 1) expn(n, x) - exp(-x)) /
  x`` (``-E_{n-1}``, by the recurrence, so ``n == 0`` needs no ``E_{-1}``);
  its integer order ``n`` is treated as the Bessel functions' orders
  below.
- ``i0 i1 i0e i1e iv ive jv yv j0 j1 y0 y1 yn``: ``x`` only. The
  derivative in the order ``v`` of ``iv ive jv yv`` (``n`` of ``yn``;
  ``jn`` is ``jv``) is no special function SciPy has, and never a silent
  zero: in forward mode a nonzero tangent of the order raises
  :class:`~zygote_py.errors.NoDerivativeRule` naming it
  (:func:`order_tangent`); in reverse mode the compiler refuses a call
  whose order is a differentiated value, at the user's line, from the
  declaration :func:`registry.constant_argument` (a constant order, also
  one captured by a closure differentiated again, is fine). Where the
  function is known only at run time (``fn(v, x)`` for a ``fn`` passed
  in, or picked from a dict; an order captured by a closure that an outer
  gradient differentiates) the compiler cannot tell: there a float order's
  gradient is a :class:`runtime.Refused` (:func:`order_gradient`), which
  raises the same error, naming the user's line of the call, where a
  gradient uses it, and is dropped unseen where the order is constant. An integer order gets ``None``. The recurrences
  ``iv' = (iv(v-1) + iv(v+1)) / 2``, ``jv' = (jv(v-1) - jv(v+1)) / 2``
  (the same for ``yv``), ``i0' = i1``, ``i1' = (i0 + iv(2)) / 2``; the
  exponentially scaled ``i0e i1e ive`` (``f(x) exp(-|x|)``) subtract
  ``sign(x) f(x) exp(-|x|)``, 0 at their kink ``x == 0`` (the mean of the
  one-sided slopes).
- ``fresnel(x) == (S, C)``: slopes ``sin(pi x**2 / 2)`` and ``cos(pi
  x**2 / 2)``; either output may go unused. ``spence(z)`` (SciPy's, the
  integral of ``log(t) / (1 - t)`` from 1 to ``z``): slope ``log(z) / (1 -
  z)``, -1 at ``z == 1`` (its limit), ``-inf`` at 0.
- ``hyp1f1(a, b, x)`` (Kummer's function ``M``): ``x`` gets ``a / b *
  hyp1f1(a + 1, b + 1, x)``. ``a`` and ``b``, whose derivatives have no
  closed form, get the derivatives of Kummer's series ``sum (a)_n / (b)_n
  x**n / n!`` term by term (:func:`hyp1f1_parameter_slopes`; for ``x <
  0`` through ``M(a, b, x) = exp(x) M(b - a, b, -x)``, whose terms keep
  one sign where ``b`` and ``b - a`` are positive). The series converges for every ``x`` (``b`` not a
  nonpositive integer); it is summed to double precision within
  :data:`HYP1F1_TERMS` terms where ``|x|`` and the parameters are of
  moderate size (``|x|`` up to about 100 for parameters up to 10, relative
  error about 1e-12). Where it is not (its terms not yet negligible, or
  their sum cancelling beyond :data:`HYP1F1_CANCELLATION`), the
  parameters' gradients are refused (a :class:`runtime.Refused`, which
  raises :class:`~zygote_py.errors.NoDerivativeRule` where a gradient
  uses it and is dropped where ``a`` and ``b`` are constant; in forward
  mode, a nonzero tangent of ``a`` or ``b`` raises it), never a wrong
  value.
- ``sph_harm_y(n, m, theta, phi)``: the angles, through the recurrence
  in :func:`sph_harm_slopes` (so to any order); the integer degree and
  order ``n``, ``m`` get none. A complex output of real angles: each
  angle's gradient is the real part of ``dy`` times the conjugate slope.
  ``diff_n`` (SciPy's own derivatives) is refused. (``sph_harm`` and
  ``lpmn``, which SciPy 1.17 no longer has, are not covered.)
- ``zeta(x, q=None)``, the Hurwitz zeta function ``sum((n + q)**-x)``
  (Riemann's for ``q=None``): ``x`` gets :func:`zeta_slope` (``-sum(log(n +
  q) (n + q)**-x)``, by Euler-Maclaurin summation: relative error below
  1e-10 for ``q > 0`` and ``x >= -3``, 1e-7 down to ``x == -6``, and
  ``nan`` below, where the sum cancels, and for ``q <= 0``), and ``q`` gets
  ``-x zeta(x + 1, q)``. ``out`` gets ``None``.
- ``exprel(x) = (exp(x) - 1) / x`` (1 at 0): slope ``(exp(x) - exprel(x))
  / x``, which cancels near 0, so that for ``|x| <`` :data:`EXPREL_SERIES_BELOW`
  the slope is its Taylor series ``sum k x**(k-1) / (k+1)!``
  (:func:`exprel_slope`).

Each rule has a pushforward (forward-mode) counterpart ``<name>_push``,
the transpose of its pullback with the same conventions.
"""
import numpy as np
import scipy.special

from zygote_py import errors, runtime

# The rules below call this module's helpers by their qualified names, so
# that the compiler can inline the rules.
from zygote_py.rules import scipy_special

from ..registry import adjoint, array_valued, constant_argument, nondifferentiable, pushforward

# -- log-sum-exp and softmax -----------------------------------------------------


@adjoint(scipy.special.logsumexp)
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    out = scipy.special.logsumexp(a, axis, b, keepdims, return_sign)

    def back(dy):
        if return_sign:  # (the sign is piecewise constant: its cotangent dy[1] is ignored)
            g = scipy_special.logsumexp_grads(dy[0], a, axis, b, keepdims, out[0], out[1])
        else:
            g = scipy_special.logsumexp_grads(dy, a, axis, b, keepdims, out, None)
        return (g[0], None, g[1], None, None)
    return out, back


@pushforward(scipy.special.logsumexp)
def logsumexp_push(y, a, axis=None, b=None, keepdims=False, return_sign=False, *, da, db):
    return scipy_special.logsumexp_tangent(da, db, a, axis, b, keepdims, return_sign, y)


def logsumexp_slopes(a, axis, b, keepdims, y, sign):
    """``(dy/da, dy/db)`` of ``y = log|sum(b * exp(a))|`` (the sum's sign
    ``sign``, None where it is positive), broadcast to the shape of ``a``
    and ``b`` together: 0 in the slices whose ``y`` is ``-inf``. ``dy/db``
    is None without ``b``."""
    kept = y if axis is None or keepdims else np.expand_dims(y, axis)
    empty = np.isneginf(kept)
    # the shift is finite, so that the branch np.where drops has finite
    # derivatives too (a nan there would leak into the second order)
    weight = np.where(empty, 0.0, np.exp(a - np.where(empty, 0.0, kept)))
    if sign is not None:
        weight = weight * (sign if axis is None or keepdims else np.expand_dims(sign, axis))
    if b is None:
        return weight, None
    return weight * b, weight


def logsumexp_grads(dy, a, axis, b, keepdims, y, sign):
    """The gradients of ``a`` and ``b`` (None without ``b``) for the
    cotangent ``dy`` (None: no gradient) of ``y = logsumexp(a, axis, b,
    keepdims)``."""
    if dy is None:
        return None, None
    kept = dy if axis is None or keepdims else np.expand_dims(dy, axis)
    slopes = scipy_special.logsumexp_slopes(a, axis, b, keepdims, y, sign)
    da = runtime.unbroadcast(kept * slopes[0], a)
    if b is None:
        return da, None
    return da, runtime.unbroadcast(kept * slopes[1], b)


def logsumexp_tangent(da, db, a, axis, b, keepdims, return_sign, y):
    """The tangent of ``y = logsumexp(a, axis, b, keepdims, return_sign)``
    for the tangents ``da`` and ``db`` (``db`` None without ``b``); with
    ``return_sign`` the pair of it and None (the sign has none)."""
    value = y[0] if return_sign else y
    slopes = scipy_special.logsumexp_slopes(a, axis, b, keepdims, value, y[1] if return_sign else None)
    t = slopes[0] * da if db is None else slopes[0] * da + slopes[1] * db
    t = runtime.shaped(np.sum(t, axis, keepdims=keepdims), value)
    return (t, None) if return_sign else t


@adjoint(scipy.special.softmax)
def softmax(x, axis=None):
    y = scipy.special.softmax(x, axis)

    def back(dy):
        return (y * (dy - np.sum(dy * y, axis, keepdims=True)), None)
    return y, back


@pushforward(scipy.special.softmax)
def softmax_push(y, x, axis=None, *, dx):
    return y * (dx - np.sum(dx * y, axis, keepdims=True))


@adjoint(scipy.special.log_softmax)
def log_softmax(x, axis=None):
    y = scipy.special.log_softmax(x, axis)

    def back(dy):
        return (dy - np.exp(y) * np.sum(dy, axis, keepdims=True), None)
    return y, back


@pushforward(scipy.special.log_softmax)
def log_softmax_push(y, x, axis=None, *, dx):
    return dx - np.sum(np.exp(y) * dx, axis, keepdims=True)


# -- logistic functions and entropies -----------------------------------------


@adjoint(scipy.special.expit)
def expit(x):
    y = scipy.special.expit(x)

    def back(dy):
        return (dy * (y * (1.0 - y)),)
    return y, back


@pushforward(scipy.special.expit)
def expit_push(y, x, *, dx):
    return dx * (y * (1.0 - y))


@adjoint(scipy.special.logit)
def logit(x):
    def back(dy):
        return (dy / (x * (1.0 - x)),)
    return scipy.special.logit(x), back


@pushforward(scipy.special.logit)
def logit_push(y, x, *, dx):
    return dx / (x * (1.0 - x))


def where_x_zero(x, y, at):
    """``y`` except where both ``x == 0`` and ``y == at``: 1 there, so that
    ``x / where_x_zero(x, y, at)`` is ``x / y`` and 0 where ``x == 0`` (a
    ``0 / 0`` otherwise)."""
    return np.where(np.logical_and(np.equal(x, 0), np.equal(y, at)), 1.0, y)


@adjoint(scipy.special.xlogy)
def xlogy(x, y):
    def back(dz):
        return (
            runtime.unbroadcast(dz * np.log(y), x),
            runtime.unbroadcast(dz * (x / scipy_special.where_x_zero(x, y, 0.0)), y),
        )
    return scipy.special.xlogy(x, y), back


@pushforward(scipy.special.xlogy)
def xlogy_push(z, x, y, *, dx, dy):
    return runtime.shaped(dx * np.log(y) + dy * (x / scipy_special.where_x_zero(x, y, 0.0)), z)


@adjoint(scipy.special.xlog1py)
def xlog1py(x, y):
    def back(dz):
        return (
            runtime.unbroadcast(dz * np.log1p(y), x),
            runtime.unbroadcast(dz * (x / (scipy_special.where_x_zero(x, y, -1.0) + 1.0)), y),
        )
    return scipy.special.xlog1py(x, y), back


@pushforward(scipy.special.xlog1py)
def xlog1py_push(z, x, y, *, dx, dy):
    return runtime.shaped(dx * np.log1p(y) + dy * (x / (scipy_special.where_x_zero(x, y, -1.0) + 1.0)), z)


@adjoint(scipy.special.entr)
def entr(x):
    def back(dy):
        return (-dy * (1.0 + np.log(x)),)
    return scipy.special.entr(x), back


@pushforward(scipy.special.entr)
def entr_push(y, x, *, dx):
    return -dx * (1.0 + np.log(x))


@adjoint(scipy.special.rel_entr)
def rel_entr(x, y):
    def back(dz):
        return (
            runtime.unbroadcast(dz * (1.0 + np.log(x / y)), x),
            runtime.unbroadcast(-dz * (x / scipy_special.where_x_zero(x, y, 0.0)), y),
        )
    return scipy.special.rel_entr(x, y), back


@pushforward(scipy.special.rel_entr)
def rel_entr_push(z, x, y, *, dx, dy):
    return runtime.shaped(dx * (1.0 + np.log(x / y)) - dy * (x / scipy_special.where_x_zero(x, y, 0.0)), z)


@adjoint(scipy.special.kl_div)
def kl_div(x, y):
    def back(dz):
        return (
            runtime.unbroadcast(dz * np.log(x / y), x),
            runtime.unbroadcast(dz * (1.0 - x / scipy_special.where_x_zero(x, y, 0.0)), y),
        )
    return scipy.special.kl_div(x, y), back


@pushforward(scipy.special.kl_div)
def kl_div_push(z, x, y, *, dx, dy):
    return runtime.shaped(dx * np.log(x / y) + dy * (1.0 - x / scipy_special.where_x_zero(x, y, 0.0)), z)


# -- exponential integrals ------------------------------------------------------


@adjoint(scipy.special.exp1)
def exp1(x):
    def back(dy):
        return (-dy * (np.exp(-x) / x),)
    return scipy.special.exp1(x), back


@pushforward(scipy.special.exp1)
def exp1_push(y, x, *, dx):
    return -dx * (np.exp(-x) / x)


@adjoint(scipy.special.expi)
def expi(x):
    def back(dy):
        return (dy * (np.exp(x) / x),)
    return scipy.special.expi(x), back


@pushforward(scipy.special.expi)
def expi_push(y, x, *, dx):
    return dx * (np.exp(x) / x)


@adjoint(scipy.special.expn)
def expn(n, x):
    y = scipy.special.expn(n, x)

    def back(dy):
        slope = ((n - 1.0) * y - np.exp(-x)) / x
        return (scipy_special.order_gradient(n, "scipy.special.expn", "n"), runtime.unbroadcast(dy * slope, x))
    return y, back


@pushforward(scipy.special.expn)
def expn_push(y, n, x, *, dn, dx):
    slope = ((n - 1.0) * y - np.exp(-x)) / x
    return runtime.shaped(dx * slope, y) + scipy_special.order_tangent(dn, "scipy.special.expn", "n")


# -- Bessel functions -----------------------------------------------------------


@adjoint(scipy.special.i0)
def i0(x):
    def back(dy):
        return (dy * scipy.special.i1(x),)
    return scipy.special.i0(x), back


@pushforward(scipy.special.i0)
def i0_push(y, x, *, dx):
    return dx * scipy.special.i1(x)


@adjoint(scipy.special.i1)
def i1(x):
    def back(dy):
        return (dy * ((scipy.special.i0(x) + scipy.special.iv(2, x)) / 2),)
    return scipy.special.i1(x), back


@pushforward(scipy.special.i1)
def i1_push(y, x, *, dx):
    return dx * ((scipy.special.i0(x) + scipy.special.iv(2, x)) / 2)


@adjoint(scipy.special.i0e)
def i0e(x):
    y = scipy.special.i0e(x)

    def back(dy):
        return (dy * (scipy.special.i1e(x) - np.sign(x) * y),)
    return y, back


@pushforward(scipy.special.i0e)
def i0e_push(y, x, *, dx):
    return dx * (scipy.special.i1e(x) - np.sign(x) * y)


@adjoint(scipy.special.i1e)
def i1e(x):
    y = scipy.special.i1e(x)

    def back(dy):
        return (dy * ((scipy.special.i0e(x) + scipy.special.ive(2, x)) / 2 - np.sign(x) * y),)
    return y, back


@pushforward(scipy.special.i1e)
def i1e_push(y, x, *, dx):
    return dx * ((scipy.special.i0e(x) + scipy.special.ive(2, x)) / 2 - np.sign(x) * y)


def order_gradient(v, name, order):
    """The gradient of the function ``name`` with respect to its order ``v``
    (the argument named ``order``): ``None``
    for an integer order, which is never differentiated; for a float one,
    which has none to give, a :class:`runtime.Refused` that raises
    :func:`order_error` where a gradient uses it. The compiler refuses a
    differentiated order where it sees the call (see the module); this
    gradient reaches only a call dispatched at run time, where raising at
    once would refuse constant orders too."""
    if scipy_special.integral(v):
        return None
    return runtime.Refused(scipy_special.order_error(name, order), np.shape(v))


def integral(v):
    """Whether ``v`` is an integer or an array of integers (which is never
    differentiated)."""
    return isinstance(v, (bool, int, np.integer)) or np.asarray(v).dtype.kind in "biu"


def order_tangent(dv, name, order):
    """The term of the Bessel function ``name``'s tangent from the tangent
    ``dv`` of its order (the argument named ``order``): 0 where ``dv`` is
    zero; otherwise there is none to give, so this raises. The forward
    transform drops the call where ``dv`` is known to be zero (the order is
    not differentiated), and a zero tangent is checked when it runs."""
    if not np.any(dv):
        return 0.0
    raise scipy_special.order_error(name, order)


def order_error(name, order):
    """The error saying that ``name`` has no derivative in its order, the
    argument named ``order``."""
    return errors.NoDerivativeRule(
        f"{name} has no derivative with respect to its order {order!r}, and {order!r} is differentiated here",
        hint=f"keep {order!r} constant (a number, or an array that does not depend on the differentiated inputs): "
        f"the derivative in x is computed; for the derivative in {order!r}, take finite differences of {name} or "
        f"register a rule with @zpy.adjoint({name})",
    )


nondifferentiable(order_gradient, integral, order_tangent, order_error)
for bessel in (scipy.special.iv, scipy.special.ive, scipy.special.jv, scipy.special.yv):
    constant_argument(bessel, 0, "v", "its order")
constant_argument(scipy.special.yn, 0, "n", "its order")
constant_argument(scipy.special.expn, 0, "n", "its order")


@adjoint(scipy.special.iv)
def iv(v, x):
    def back(dy):
        slope = (scipy.special.iv(v - 1, x) + scipy.special.iv(v + 1, x)) / 2
        return (scipy_special.order_gradient(v, "scipy.special.iv", "v"), runtime.unbroadcast(dy * slope, x))
    return scipy.special.iv(v, x), back


@pushforward(scipy.special.iv)
def iv_push(y, v, x, *, dv, dx):
    slope = (scipy.special.iv(v - 1, x) + scipy.special.iv(v + 1, x)) / 2
    return runtime.shaped(dx * slope, y) + scipy_special.order_tangent(dv, "scipy.special.iv", "v")


@adjoint(scipy.special.ive)
def ive(v, x):
    y = scipy.special.ive(v, x)

    def back(dy):
        slope = (scipy.special.ive(v - 1, x) + scipy.special.ive(v + 1, x)) / 2 - np.sign(x) * y
        return (scipy_special.order_gradient(v, "scipy.special.ive", "v"), runtime.unbroadcast(dy * slope, x))
    return y, back


@pushforward(scipy.special.ive)
def ive_push(y, v, x, *, dv, dx):
    slope = (scipy.special.ive(v - 1, x) + scipy.special.ive(v + 1, x)) / 2 - np.sign(x) * y
    return runtime.shaped(dx * slope, y) + scipy_special.order_tangent(dv, "scipy.special.ive", "v")


@adjoint(scipy.special.jv)
def jv(v, x):
    def back(dy):
        slope = (scipy.special.jv(v - 1, x) - scipy.special.jv(v + 1, x)) / 2
        return (scipy_special.order_gradient(v, "scipy.special.jv", "v"), runtime.unbroadcast(dy * slope, x))
    return scipy.special.jv(v, x), back


@pushforward(scipy.special.jv)
def jv_push(y, v, x, *, dv, dx):
    slope = (scipy.special.jv(v - 1, x) - scipy.special.jv(v + 1, x)) / 2
    return runtime.shaped(dx * slope, y) + scipy_special.order_tangent(dv, "scipy.special.jv", "v")


@adjoint(scipy.special.yv)
def yv(v, x):
    def back(dy):
        slope = (scipy.special.yv(v - 1, x) - scipy.special.yv(v + 1, x)) / 2
        return (scipy_special.order_gradient(v, "scipy.special.yv", "v"), runtime.unbroadcast(dy * slope, x))
    return scipy.special.yv(v, x), back


@pushforward(scipy.special.yv)
def yv_push(y, v, x, *, dv, dx):
    slope = (scipy.special.yv(v - 1, x) - scipy.special.yv(v + 1, x)) / 2
    return runtime.shaped(dx * slope, y) + scipy_special.order_tangent(dv, "scipy.special.yv", "v")


@adjoint(scipy.special.j0)
def j0(x):
    def back(dy):
        return (-dy * scipy.special.j1(x),)
    return scipy.special.j0(x), back


@pushforward(scipy.special.j0)
def j0_push(y, x, *, dx):
    return -dx * scipy.special.j1(x)


@adjoint(scipy.special.j1)
def j1(x):
    def back(dy):
        return (dy * ((scipy.special.j0(x) - scipy.special.jv(2, x)) / 2),)
    return scipy.special.j1(x), back


@pushforward(scipy.special.j1)
def j1_push(y, x, *, dx):
    return dx * ((scipy.special.j0(x) - scipy.special.jv(2, x)) / 2)


@adjoint(scipy.special.y0)
def y0(x):
    def back(dy):
        return (-dy * scipy.special.y1(x),)
    return scipy.special.y0(x), back


@pushforward(scipy.special.y0)
def y0_push(y, x, *, dx):
    return -dx * scipy.special.y1(x)


@adjoint(scipy.special.y1)
def y1(x):
    def back(dy):
        return (dy * ((scipy.special.y0(x) - scipy.special.yv(2, x)) / 2),)
    return scipy.special.y1(x), back


@pushforward(scipy.special.y1)
def y1_push(y, x, *, dx):
    return dx * ((scipy.special.y0(x) - scipy.special.yv(2, x)) / 2)


@adjoint(scipy.special.yn)
def yn(n, x):
    def back(dy):
        slope = (scipy.special.yn(n - 1, x) - scipy.special.yn(n + 1, x)) / 2
        return (scipy_special.order_gradient(n, "scipy.special.yn", "n"), runtime.unbroadcast(dy * slope, x))
    return scipy.special.yn(n, x), back


@pushforward(scipy.special.yn)
def yn_push(y, n, x, *, dn, dx):
    slope = (scipy.special.yn(n - 1, x) - scipy.special.yn(n + 1, x)) / 2
    return runtime.shaped(dx * slope, y) + scipy_special.order_tangent(dn, "scipy.special.yn", "n")


# -- exprel ---------------------------------------------------------------------

EXPREL_SERIES_BELOW = 0.5
"""Where :func:`exprel_slope` sums the Taylor series (``|x|`` below this)
instead of ``(exp(x) - exprel(x)) / x``, which cancels near 0."""

EXPREL_SERIES_TERMS = 18
"""Terms of that series: the first left out is below 1e-17 of the sum."""


def exprel_slope(x):
    """``d/dx exprel(x) = (x exp(x) - exp(x) + 1) / x**2``: the Taylor
    series ``sum over k >= 1 of k x**(k-1) / (k+1)!`` near 0, and
    ``(exp(x) - exprel(x)) / x`` elsewhere. Plain NumPy and ``exprel``,
    which the compiler differentiates for the higher orders."""
    near = np.less(np.abs(x), scipy_special.EXPREL_SERIES_BELOW)
    small = np.where(near, x, 0.0)
    far = np.where(near, 1.0, x)
    series = 0.0
    coefficient = 1.0
    power = 1.0
    for k in range(1, scipy_special.EXPREL_SERIES_TERMS + 1):
        coefficient = coefficient / (k + 1)
        series = series + k * coefficient * power
        power = power * small
    return np.where(near, series, (np.exp(far) - scipy.special.exprel(far)) / far)


@adjoint(scipy.special.exprel)
def exprel(x):
    def back(dy):
        return (dy * scipy_special.exprel_slope(x),)
    return scipy.special.exprel(x), back


@pushforward(scipy.special.exprel)
def exprel_push(y, x, *, dx):
    return dx * scipy_special.exprel_slope(x)


# -- zeta -----------------------------------------------------------------------


@adjoint(scipy.special.zeta)
def zeta(x, q=None, out=None):
    def back(dy):
        if q is None:
            return (runtime.unbroadcast(dy * scipy_special.zeta_slope(x, q), x), None, None)
        return (
            runtime.unbroadcast(dy * scipy_special.zeta_slope(x, q), x),
            runtime.unbroadcast(dy * (-x * scipy.special.zeta(x + 1.0, q)), q),
            None,
        )
    return scipy.special.zeta(x, q, out), back


@pushforward(scipy.special.zeta)
def zeta_push(y, x, q=None, out=None, *, dx, dq):
    """``dq`` is zero (dropped) for ``q=None``."""
    return runtime.shaped(dx * scipy_special.zeta_slope(x, q) - dq * (x * scipy.special.zeta(x + 1.0, q)), y)


EULER_MACLAURIN_TERMS = 12
"""How many terms of the zeta series :func:`zeta_slope` sums directly
before the Euler-Maclaurin tail."""

BERNOULLI_COEFFICIENTS = (
    1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000,
    1 / 74724249600, -3617 / 10670622842880000,
)
"""``B_2k / (2k)!`` for ``k = 1, ..., 8``: the Euler-Maclaurin coefficients."""

ZETA_SLOPE_FROM = -6.0
"""The least ``x`` at which :func:`zeta_slope` is accurate (to about 1e-7;
the terms it sums grow like ``N**-x`` while the sum does not)."""


def zeta_slope(x, q):
    """``d/dx zeta(x, q) = -sum over n >= 0 of log(n + q) (n + q)**-x``
    (``q=None``: 1, Riemann's zeta function), by Euler-Maclaurin
    summation: the first :data:`EULER_MACLAURIN_TERMS` terms summed,
    then the derivative in ``x`` of the tail's expansion at
    ``a = q + N``, ``a**(1-x) / (x-1) + a**-x / 2 + sum_k B_2k / (2k)!
    x (x+1) ... (x+2k-2) a**(-x-2k+1)``, which also continues it
    analytically to ``x < 1``; ``nan`` for ``x <`` :data:`ZETA_SLOPE_FROM`,
    where the terms cancel. Plain NumPy, which the compiler differentiates
    for the higher orders."""
    shift = 1.0 if q is None else q
    xs = np.expand_dims(x, -1)
    points = np.expand_dims(shift, -1) + np.arange(scipy_special.EULER_MACLAURIN_TERMS)
    head = -np.sum(np.log(points) * points ** -xs, -1)
    a = shift + scipy_special.EULER_MACLAURIN_TERMS
    log_a = np.log(a)
    tail = a ** (1.0 - x) * (-log_a / (x - 1.0) - 1.0 / (x - 1.0) ** 2) - log_a * a ** -x / 2
    # the rising factorial x (x+1) ... (x+2k-2) and its derivative, two
    # factors at a time
    rising = x
    rising_slope = 1.0
    power = a ** (-x - 1.0)
    for k, c in enumerate(scipy_special.BERNOULLI_COEFFICIENTS):
        tail = tail + c * (rising_slope - rising * log_a) * power
        f1 = x + (2 * k + 1)
        f2 = x + (2 * k + 2)
        rising_slope = (rising_slope * f1 + rising) * f2 + rising * f1
        rising = rising * f1 * f2
        power = power / (a * a)
    return np.where(x < scipy_special.ZETA_SLOPE_FROM, np.nan, head + tail)


array_valued(scipy.special.softmax, scipy.special.log_softmax, scipy.special.zeta)
array_valued(scipy.special.logsumexp, unless=("return_sign", 4))  # (return_sign=True: a pair)


# -- Fresnel integrals, the dilogarithm, Kummer's function, Bernoulli numbers --


@adjoint(scipy.special.fresnel)
def fresnel(x):
    def back(dy):
        ds, dc = dy
        angle = (np.pi / 2) * x * x
        g = 0.0
        if ds is not None:
            g = g + ds * np.sin(angle)
        if dc is not None:
            g = g + dc * np.cos(angle)
        return (g,)
    return scipy.special.fresnel(x), back


@pushforward(scipy.special.fresnel)
def fresnel_push(y, x, *, dx):
    angle = (np.pi / 2) * x * x
    return dx * np.sin(angle), dx * np.cos(angle)


def spence_slope(z):
    """``spence'(z) = log(z) / (1 - z)`` (SciPy's ``spence(z)`` is the
    integral of ``log(t) / (1 - t)`` from 1 to ``z``): -1 at ``z == 1``, its
    limit; ``-inf`` at 0; ``nan`` for ``z < 0``, where the value is."""
    regular = np.logical_and(np.greater(z, 0), np.not_equal(z, 1))
    w = np.where(regular, z, 2.0)
    edge = np.where(np.equal(z, 1), -1.0, np.where(np.equal(z, 0), -np.inf, np.nan))
    return np.where(regular, np.log(w) / (1.0 - w), edge)


@adjoint(scipy.special.spence)
def spence(z):
    def back(dy):
        return (dy * scipy_special.spence_slope(z),)
    return scipy.special.spence(z), back


@pushforward(scipy.special.spence)
def spence_push(y, z, *, dz):
    return dz * scipy_special.spence_slope(z)


HYP1F1_TERMS = 400
"""The most terms :func:`hyp1f1_parameter_slopes` sums."""

HYP1F1_CANCELLATION = 1e6
"""The most that the sum of the magnitudes of the terms of
:func:`hyp1f1_parameter_slopes`'s series may exceed the magnitude of the
function and its slopes (then rounding costs at most about 1e-10 of
them); beyond, :func:`hyp1f1_converged` refuses."""


def hyp1f1_series(p, b, z):
    """``(A, B, size, tail)`` for ``z >= 0``: with ``T_n = (p)_n / (b)_n
    z**n / n!`` (the terms of ``M(p, b, z)``), ``A = sum dT_n/dp`` and ``B
    = sum dT_n/db``, the derivatives of Kummer's series in its parameters;
    ``size``, the sum of the magnitudes of the three series' terms, and
    ``tail``, the magnitude of the last terms summed (0 once every term
    left is below 1e-17 of ``size``). The derivatives of the terms follow
    the terms' own recurrence ``T_{n+1} = T_n (p + n) z / ((n + 1) (b +
    n))``, which divides by no ``p + n``: a nonpositive integer ``p`` (a
    polynomial) is exact. Plain NumPy, which the compiler differentiates
    for the higher orders."""
    t = np.ones(np.shape(p + b + z))
    tp = 0.0 * t
    tb = 0.0 * t
    a_sum = 0.0 * t
    b_sum = 0.0 * t
    size = 1.0 + 0.0 * t
    tail = 1.0 + 0.0 * t
    reach = np.max(z)
    for n in range(scipy_special.HYP1F1_TERMS):
        r = z / ((n + 1.0) * (b + n))
        tb = (tb - t / (b + n)) * (p + n) * r
        tp = (tp * (p + n) + t) * r
        t = t * (p + n) * r
        a_sum = a_sum + tp
        b_sum = b_sum + tb
        tail = np.abs(t) + np.abs(tp) + np.abs(tb)
        size = size + tail
        if n > reach and np.all(tail <= 1e-17 * size):
            return a_sum, b_sum, size, 0.0 * tail
    return a_sum, b_sum, size, tail


def hyp1f1_parameter_slopes(a, b, x):
    """``(dM/da, dM/db, size, tail)`` of ``M = hyp1f1(a, b, x)``: the
    series of :func:`hyp1f1_series`, summed at ``(a, b, x)`` for ``x >=
    0`` and, for ``x < 0``, at ``(b - a, b, -x)`` through Kummer's
    transformation ``M(a, b, x) = exp(x) M(b - a, b, -x)`` (so that the
    terms do not alternate in sign and cancel): there ``dM/da = -exp(x) A``
    and ``dM/db = exp(x) (A + B)``. ``size`` and ``tail`` are the series',
    scaled as the slopes, for :func:`hyp1f1_converged`."""
    negative = np.less(x, 0)
    p = np.where(negative, b - a, a)
    series = scipy_special.hyp1f1_series(p, b, np.abs(x))
    scale = np.where(negative, np.exp(np.minimum(x, 0.0)), 1.0)
    da = scale * np.where(negative, -series[0], series[0])
    db = scale * np.where(negative, series[0] + series[1], series[1])
    return da, db, scale * series[2], scale * series[3]


def hyp1f1_converged(y, da, db, size, tail):
    """Whether :func:`hyp1f1_parameter_slopes` summed its series to the
    end (``tail`` 0) without losing more than the digits
    :data:`HYP1F1_CANCELLATION` allows of ``y``, ``da`` and ``db``."""
    scale = np.abs(y) + np.abs(da) + np.abs(db)
    return bool(np.all(np.equal(tail, 0)) and np.all(size <= scipy_special.HYP1F1_CANCELLATION * scale))


def hyp1f1_refused(name, shape):
    """The gradient of ``hyp1f1``'s parameter ``name`` where its series did
    not converge: a :class:`runtime.Refused`, raising where it is used."""
    return runtime.Refused(errors.NoDerivativeRule(
        f"scipy.special.hyp1f1's derivative with respect to its parameter {name!r} is computed by a series that "
        "does not converge to double precision here (large |x| or parameters, or b near a nonpositive integer)",
        hint=f"keep {name!r} constant here (the derivative in x is computed everywhere), or take finite "
        f"differences of scipy.special.hyp1f1 in {name!r}"), shape)


def hyp1f1_check(da, db, converged):
    """Raises, as :func:`hyp1f1_refused`'s gradients would, where a
    nonzero tangent of a parameter meets a series that did not converge."""
    for name, d in (("a", da), ("b", db)):
        if not converged and np.any(d):
            raise scipy_special.hyp1f1_refused(name, ()).error


nondifferentiable(hyp1f1_converged, hyp1f1_refused, hyp1f1_check)


@adjoint(scipy.special.hyp1f1)
def hyp1f1(a, b, x):
    y = scipy.special.hyp1f1(a, b, x)

    def back(dy):
        slope = a / b * scipy.special.hyp1f1(a + 1.0, b + 1.0, x)
        if scipy_special.integral(a) and scipy_special.integral(b):  # (no gradient to give them: no series)
            return (None, None, runtime.unbroadcast(dy * slope, x))
        sa, sb, size, tail = scipy_special.hyp1f1_parameter_slopes(a, b, x)
        if scipy_special.hyp1f1_converged(y, sa, sb, size, tail):
            return (runtime.unbroadcast(dy * sa, a), runtime.unbroadcast(dy * sb, b),
                    runtime.unbroadcast(dy * slope, x))
        return (scipy_special.hyp1f1_refused("a", np.shape(a)), scipy_special.hyp1f1_refused("b", np.shape(b)),
                runtime.unbroadcast(dy * slope, x))
    return y, back


@pushforward(scipy.special.hyp1f1)
def hyp1f1_push(y, a, b, x, *, da, db, dx):
    slope = a / b * scipy.special.hyp1f1(a + 1.0, b + 1.0, x)
    if da is None and db is None:  # (integer parameters)
        return runtime.shaped(dx * slope, y)
    sa, sb, size, tail = scipy_special.hyp1f1_parameter_slopes(a, b, x)
    converged = scipy_special.hyp1f1_converged(y, sa, sb, size, tail)
    scipy_special.hyp1f1_check(da, db, converged)
    t = dx * slope
    if converged:  # (else the parameters' tangents are zero, and their slopes, maybe not finite, are not used)
        if da is not None:  # (None: an integer parameter's)
            t = t + da * sa
        if db is not None:
            t = t + db * sb
    return runtime.shaped(t, y)


nondifferentiable(scipy.special.bernoulli)  # (the Bernoulli numbers B_0 ... B_n: n is a count)


# -- spherical harmonics ---------------------------------------------------------


def sph_harm_slopes(n, m, theta, phi, y):
    """``(dY/dtheta, dY/dphi)`` of ``y = sph_harm_y(n, m, theta, phi)``:
    ``m cot(theta) Y_n^m + sqrt((n - m)(n + m + 1)) exp(-i phi) Y_n^{m+1}``
    and ``i m Y_n^m`` (the Condon-Shortley phase included, as SciPy's);
    infinite at the poles ``theta == 0, pi`` where ``m != 0``."""
    up = np.sqrt((n - m) * (n + m + 1.0)) * np.exp(-1j * phi) * scipy.special.sph_harm_y(n, m + 1, theta, phi)
    return m / np.tan(theta) * y + up, 1j * m * y


def sph_harm_check(diff_n):
    if diff_n:
        raise errors.NoDerivativeRule(
            "scipy.special.sph_harm_y(diff_n=...) is not differentiated",
            hint="differentiate sph_harm_y(n, m, theta, phi) itself (diff_n=0): its derivatives in the angles "
            "are computed, to any order")


nondifferentiable(sph_harm_check)


@adjoint(scipy.special.sph_harm_y)
def sph_harm_y(n, m, theta, phi, *, diff_n=0):
    scipy_special.sph_harm_check(diff_n)
    y = scipy.special.sph_harm_y(n, m, theta, phi)

    def back(dy):
        dtheta, dphi = scipy_special.sph_harm_slopes(n, m, theta, phi, y)
        return (None, None, runtime.unbroadcast(np.real(dy * np.conj(dtheta)), theta),
                runtime.unbroadcast(np.real(dy * np.conj(dphi)), phi))
    return y, back


@pushforward(scipy.special.sph_harm_y)
def sph_harm_y_push(y, n, m, theta, phi, *, diff_n=0, dtheta, dphi):
    scipy_special.sph_harm_check(diff_n)
    slope_theta, slope_phi = scipy_special.sph_harm_slopes(n, m, theta, phi, y)
    return runtime.shaped(slope_theta * dtheta + slope_phi * dphi, y)
