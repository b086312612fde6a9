"""Rules for the ODE solvers of :mod:`scipy.integrate`: ``odeint`` and
``solve_ivp``, imported once the user has imported ``scipy.integrate``.

Both are differentiated with respect to the initial state ``y0``, the
``args`` passed on to the right-hand side, the parameters the right-hand
side captures (a closure's variables, an object's fields: the function's
own gradient, as :func:`zygote_py.runtime.J` gives it), and the times.

Method. Reverse mode uses the adjoint method (Pontryagin; as in Chen et
al. 2018, "Neural ordinary differential equations"): from the last
output time back to the first, SciPy itself integrates the augmented
system ``y' = f(y, t)``, ``a' = -(df/dy)^T a``, ``g' = -(df/dp)^T a``
backwards, ``a`` taking each output's cotangent as a jump at its time and
``y`` restarting from the stored forward solution there; ``a`` ends as
``y0``'s gradient and ``g`` as the parameters'. The vector-Jacobian
products of ``f`` are zygote_py's own (``runtime.J`` of the right-hand
side), so any function zygote_py differentiates can be the right-hand
side. Forward mode integrates the tangent ``dy' = (df/dy) dy + (df/dp)
dp`` along with ``y``, pushing ``f`` forward with ``runtime.push``. Both
integrate with the same solver, ``method`` and tolerances (``rtol``,
``atol``) as the call: the derivatives are accurate to the solver's
tolerance, not to rounding; ask for tight tolerances (``rtol=1e-10``) when
they matter.

Conventions:

- Time gradients: an output at time ``t_i`` gets ``<ybar_i, f(y_i,
  t_i)>``; the start time ``-<a(t0), f(y0, t0)>``. ``odeint``'s ``t[0]``
  is both (its first output is ``y0`` itself). ``solve_ivp`` without
  ``t_eval`` outputs at the steps it chose: the steps between the ends are
  taken as fixed times (they move with the solution but are no function
  of it that could be differentiated); ``t_span``'s end is the last
  output's time.
- ``solve_ivp`` returns an ``OdeResult``: its differentiable entry is
  ``y`` (read as ``sol.y`` or ``sol["y"]``; the rule stores the entries as
  the object's attributes too, so that ``sol.y`` is a field zygote_py
  sees). ``events`` are refused (the event times' derivatives are not
  computed); ``dense_output``'s interpolant is not differentiated.
- ``odeint(full_output=True)``: the solution is differentiated, the
  information dictionary not. ``Dfun`` (a Jacobian) is used by the
  forward solve only.
- Real states only.

Second order (``zpy.hvp``, a gradient of a gradient, ``zpy.jvp`` of a
gradient), in the initial state, the parameters and the times. Forward
over reverse is the tangent of the adjoint sweep (:func:`sweep_tangent`):
the backward system with its tangent, ``[y, a, dy, da, dg]``, integrated
backwards by the same solver, the tangent's right-hand side being
zygote_py's pushforward of the vector-Jacobian products above (second
derivatives of ``f``, forward over reverse); a time's tangent moves the
ends of the sweep's segments (the backward system's right-hand side times
it, added where a segment ends and taken where it starts). Reverse over
reverse uses that the gradient ``G`` of ``<ybar, y(p)>`` (``p`` the
parameters, the initial state and the times) has the symmetric Hessian of
that function as Jacobian: the cotangent ``w`` of ``G`` gives ``p`` the
same sweep's tangent along ``w``, and ``ybar`` the solution's tangent
along ``w``. The parameters include the floats a right-hand side captures
(a closure over weights or rates, differentiated or not): their tangent is
the closure's ``Tangent``, pushed forward with it. ``solve_ivp`` without
``t_eval`` holds the steps between ``t_span``'s ends fixed at second
order too. Third derivatives are refused, with
:class:`~zygote_py.errors.NoDerivativeRule`.
"""
import types

import numpy as np
import scipy.integrate

from zygote_py import errors, runtime, tangent

# The rules call this module's helpers by their qualified names.
from zygote_py.rules import scipy_integrate

from ..registry import adjoint, pushforward

# --------------------------------------------------------------------------
# Gradients as vectors: the parameters' gradients (a closure's Tangent, the
# args' tuple) ride in the augmented state, flattened.


def flatten(tree, like):
    """The float leaves of the gradient ``tree``, laid out as those of
    ``like`` (a gradient of the same values), in one vector; a leaf
    missing from ``tree`` is zero."""
    parts = []
    scipy_integrate.gather(tree, like, parts)
    return np.concatenate(parts) if parts else np.zeros(0)


def gather(tree, like, parts):
    if like is None or isinstance(like, (bool, int, np.integer)):
        if tree is not None and not isinstance(tree, (bool, int, np.integer)) and np.any(runtime.dense(tree)):
            raise errors.NoDerivativeRule(
                "the right-hand side's gradient reached a parameter that it did not reach at the last output time",
                hint="make every parameter the right-hand side reads reach its value at every time",
            )
        return
    if isinstance(like, tangent.Tangent):
        for name, sub in tangent.values(like).items():
            scipy_integrate.gather(None if tree is None else runtime.field(tree, name), sub, parts)
    elif isinstance(like, dict):
        for name, sub in like.items():
            scipy_integrate.gather(None if tree is None else tree.get(name), sub, parts)
    elif isinstance(like, (tuple, list)):
        for i, sub in enumerate(like):
            scipy_integrate.gather(None if tree is None else tree[i], sub, parts)
    else:
        size = np.size(like)
        if np.iscomplexobj(like) or np.iscomplexobj(tree):
            raise errors.NoDerivativeRule("ODE solvers are differentiated for real states and parameters only")
        parts.append(np.zeros(size) if tree is None else np.ravel(np.asarray(runtime.dense(tree), float)))


def unflatten(vector, like):
    """The gradient laid out as ``like`` with the leaves in ``vector``."""
    return scipy_integrate.build(iter(vector), like)


def build(items, like):
    if like is None or isinstance(like, (bool, int, np.integer)):
        return None
    if isinstance(like, tangent.Tangent):
        values = {name: scipy_integrate.build(items, sub) for name, sub in tangent.values(like).items()}
        return tangent.Tangent(list(values), **{k: v for k, v in values.items() if v is not None})
    if isinstance(like, dict):
        return {name: scipy_integrate.build(items, sub) for name, sub in like.items()}
    if isinstance(like, (tuple, list)):
        return type(like)([scipy_integrate.build(items, sub) for sub in like])
    if isinstance(like, np.ndarray):
        return np.reshape(np.fromiter(items, float, like.size), like.shape).astype(like.dtype)
    if isinstance(like, np.floating):
        return like.dtype.type(next(items))
    return float(next(items))


def as_vector(value, n):
    """The right-hand side's value (or tangent: ``None`` entries are zero)
    as a vector of ``n`` floats."""
    if value is None:
        return np.zeros(n)
    if isinstance(value, (list, tuple)):
        value = [0.0 if v is None else v for v in value]
    return np.reshape(np.asarray(runtime.dense(value), float), n)


def like_value(a, value):
    """The vector ``a`` as a cotangent of the right-hand side's ``value``
    (an array, a list, a tuple or a number)."""
    if isinstance(value, np.ndarray):
        return np.reshape(a, value.shape).astype(value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)([float(v) for v in a])
    return float(a[0])


# --------------------------------------------------------------------------
# The right-hand side: its value, pullback and pushforward, for either
# argument order (odeint's f(y, t, *args) unless tfirst; solve_ivp's
# f(t, y, *args)).


def vjp(func, args, tfirst, y, t, a):
    """``(f(y, t), (df/dy)^T a, (ffunc, fargs))``: the value, and the
    cotangent ``a`` pulled back to the state and to the parameters (the
    function's own gradient and the args')."""
    operands = (t, y) if tfirst else (y, t)
    value, back = runtime.J(func, *operands, *args)
    grads = back(scipy_integrate.like_value(a, value))
    return (scipy_integrate.as_vector(value, len(y)), scipy_integrate.as_vector(grads[2 if tfirst else 1], len(y)),
            (grads[0], tuple(grads[3:])))


def rhs_value(func, args, tfirst, y, t):
    return scipy_integrate.as_vector(func(t, y, *args) if tfirst else func(y, t, *args), len(y))


def layout(func, args, tfirst, y, t):
    """``(like, p)``: the parameters' gradient at ``(y, t)``, whose layout
    the augmented state's parameter part takes, and its number of floats."""
    _, _, like = scipy_integrate.vjp(func, args, tfirst, y, t, np.ones(len(y)))
    return like, len(scipy_integrate.flatten(like, like))


def adjoint_sweep(func, args, tfirst, times, states, cotangents, t0, y0, integrate):
    """The adjoint method (see the module's docstring) over outputs
    ``states[i]`` at ``times[i]`` (the solution started at ``(t0, y0)``)
    with cotangents ``cotangents[i]``; ``integrate(rhs, s, t_from, t_to)``
    solves the augmented system. Returns ``(dy0, (dfunc, dargs), dtimes,
    dt0)``."""
    n = len(y0)
    like, p = scipy_integrate.layout(func, args, tfirst, states[-1], times[-1])

    def rhs(t, s):
        f, dy, dp = scipy_integrate.vjp(func, args, tfirst, s[:n], t, s[n:2 * n])
        return np.concatenate([f, -dy, -scipy_integrate.flatten(dp, like)])

    a, g = np.zeros(n), np.zeros(p)
    dtimes = np.zeros(len(times))
    for i in range(len(times) - 1, -1, -1):
        dtimes[i] = cotangents[i] @ scipy_integrate.rhs_value(func, args, tfirst, states[i], times[i])
        a = a + cotangents[i]
        t_prev, y_prev = (times[i - 1], states[i - 1]) if i > 0 else (t0, y0)
        if t_prev != times[i]:
            s = integrate(rhs, np.concatenate([states[i], a, g]), times[i], t_prev)
            a, g = s[n:2 * n], s[2 * n:]
    dt0 = -(a @ scipy_integrate.rhs_value(func, args, tfirst, y0, t0))
    return a, scipy_integrate.unflatten(g, like), dtimes, dt0


def rhs_tangent(func, args, tfirst, dfunc, dargs, y, dy, t, dt):
    """``(f(y, t), its tangent)``, the tangent along ``dy``, the time's
    ``dt`` (``None``: zero) and the parameters' (``dfunc``, ``dargs``), as
    vectors."""
    operands, tangents = ((t, y), (dt, dy)) if tfirst else ((y, t), (dy, dt))
    value, dvalue = runtime.push(func, (*operands, *args), {}, (*tangents, *dargs), {}, dfunc)
    return scipy_integrate.as_vector(value, len(y)), scipy_integrate.as_vector(dvalue, len(y))


def constant_captures(func, dfunc):
    """``dfunc``, or for a Python function with no tangent of its own
    (``None``: zero) an empty ``Tangent``, saying its captured variables
    are constant here."""
    if dfunc is None and isinstance(func, types.FunctionType):
        return tangent.Tangent()
    return dfunc


def tangent_rhs(func, args, tfirst, dfunc, dargs, n):
    """The right-hand side of ``[y, dy]``: ``f`` and its pushforward."""
    dfunc = scipy_integrate.constant_captures(func, dfunc)

    def rhs(t, s):
        return np.concatenate(scipy_integrate.rhs_tangent(func, args, tfirst, dfunc, dargs, s[:n], s[n:], t, None))
    return rhs


def sweep_tangent(func, args, tfirst, times, states, cotangents, t0, y0, integrate, dfunc, dargs, dstates,
                  dcotangents, dy0, dtimes, dt0):
    """The tangent of :func:`adjoint_sweep`'s result along the tangents of
    the parameters (``dfunc``, ``dargs``), the outputs (``dstates``, which
    must be the solution's tangent along them, ``dy0`` and the times), the
    cotangents, ``y0``, the output times (``dtimes``) and the start time
    (``dt0``): forward over reverse. The backward system ``[y, a, dy, da,
    dg]`` is integrated as :func:`adjoint_sweep`'s, its tangent's
    right-hand side being the pushforward of ``(y, a, p) -> (f, (df/dy)^T a,
    (df/dp)^T a)`` (second derivatives of ``f``, which zygote_py takes
    forward over its own reverse mode). A segment's ends moving by ``dt``
    add the backward system's right-hand side ``F`` times ``dt`` to the
    tangent where it ends, and take it from the tangent where it starts; an
    output's time gradient ``<ybar, f>`` moves with ``f``'s tangent in time
    too."""
    n = len(y0)
    like, p = scipy_integrate.layout(func, args, tfirst, states[-1], times[-1])
    dfunc = scipy_integrate.constant_captures(func, dfunc)

    def rhs(t, s):
        y, a, dy, da = s[:n], s[n:2 * n], s[2 * n:3 * n], s[3 * n:4 * n]
        (f, fy, fp), (df, dfy, dfp) = runtime.push(scipy_integrate.vjp, (func, args, tfirst, y, t, a), {},
                                                   (dfunc, dargs, None, dy, None, da), {})
        return np.concatenate([f, -fy, scipy_integrate.as_vector(df, n), -scipy_integrate.as_vector(dfy, n),
                               -scipy_integrate.flatten(dfp, like)])

    def moved_end(y, a, t, dt):
        """The backward system's right-hand side ``F`` (of ``y``, ``a``
        and ``g``) times ``dt``."""
        if not dt:
            return np.zeros(2 * n + p)
        f, fy, fp = scipy_integrate.vjp(func, args, tfirst, y, t, a)
        return np.concatenate([f, -fy, -scipy_integrate.flatten(fp, like)]) * dt

    a, da, dg = np.zeros(n), np.zeros(n), np.zeros(p)
    ddtimes = np.zeros(len(times))
    for i in range(len(times) - 1, -1, -1):
        f, df = scipy_integrate.rhs_tangent(func, args, tfirst, dfunc, dargs, states[i], dstates[i], times[i],
                                            dtimes[i])
        ddtimes[i] = dcotangents[i] @ f + cotangents[i] @ df
        a, da = a + cotangents[i], da + dcotangents[i]
        t_prev, dt_prev = (times[i - 1], dtimes[i - 1]) if i > 0 else (t0, dt0)
        if t_prev != times[i]:
            start = np.concatenate([dstates[i], da, dg]) - moved_end(states[i], a, times[i], dtimes[i])
            s = integrate(rhs, np.concatenate([states[i], a, start]), times[i], t_prev)
            a = s[n:2 * n]
            end = s[2 * n:] + moved_end(s[:n], a, t_prev, dt_prev)
            da, dg = end[n:2 * n], end[2 * n:]
    f, df = scipy_integrate.rhs_tangent(func, args, tfirst, dfunc, dargs, y0, dy0, t0, dt0)
    ddt0 = -(da @ f + a @ df)
    return da, scipy_integrate.unflatten(dg, like), ddtimes, ddt0


def dense_or_zero(d, like):
    """A tangent as a float array shaped as ``like`` (zero where none)."""
    if runtime.is_zero_tangent(d):
        return np.zeros(np.shape(like))
    return np.reshape(np.asarray(runtime.dense(d), float), np.shape(like))


def arguments(args):
    """``args`` as the tuple the solvers pass on (``None``: none; a single
    value: itself)."""
    if args is None:
        return ()
    return args if isinstance(args, tuple) else (args,)


def arg_tangents(args, dargs):
    if isinstance(args, tuple):
        return (None,) * len(args) if runtime.is_zero_tangent(dargs) else tuple(dargs)
    return () if args is None else (dargs,)


def arg_gradients(args, dargs):
    """The gradient of the ``args`` argument, shaped as it was passed."""
    if args is None:
        return None
    if isinstance(args, tuple):
        return dargs
    return dargs[0]


# --------------------------------------------------------------------------
# odeint


def odeint_grads(dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax, tfirst):
    """``(dfunc, dy0, dt, dargs)`` for ``odeint``'s cotangent ``dy``."""
    g = dy[0] if full_output else dy
    if g is None:
        return None, None, None, None
    ys = np.asarray(y[0] if full_output else y)
    times = np.asarray(t, float)
    cot = np.reshape(np.asarray(runtime.dense(g), float), ys.shape)
    pars = scipy_integrate.arguments(args)
    integrate = scipy_integrate.odeint_backwards(rtol, atol, mxstep, hmax)
    dy0, (dfunc, dargs), dtimes, dt0 = scipy_integrate.adjoint_sweep(
        func, pars, tfirst, times, ys, cot, times[0], ys[0], integrate)
    dtimes[0] = dtimes[0] + dt0
    return (dfunc, np.reshape(dy0, np.shape(y0)) if np.ndim(y0) else float(dy0[0]),
            scipy_integrate.fit_times(dtimes, t), scipy_integrate.arg_gradients(args, dargs))


def odeint_backwards(rtol, atol, mxstep, hmax):
    """The solve of the adjoint sweep's backward system, with ``odeint``'s
    options."""
    def integrate(rhs, s, t_from, t_to):
        return scipy.integrate.odeint(rhs, s, [t_from, t_to], rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax,
                                      tfirst=True)[-1]
    return integrate


def odeint_grads_tangent(dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax, tfirst, ddy, dfunc, dt,
                         dargs, d_y):
    """The tangent of :func:`odeint_grads`'s result along the tangents of
    the cotangent ``dy``, the parameters, the times and the solution ``y``
    (``d_y``, the solution's tangent along them): :func:`sweep_tangent`."""
    g = dy[0] if full_output else dy
    if g is None:
        return None, None, None, None
    ys = np.asarray(y[0] if full_output else y)
    cot = np.reshape(np.asarray(runtime.dense(g), float), ys.shape)
    dcot = scipy_integrate.dense_or_zero(ddy[0] if full_output and not runtime.is_zero_tangent(ddy) else ddy, ys)
    dys = scipy_integrate.dense_or_zero(d_y[0] if full_output and not runtime.is_zero_tangent(d_y) else d_y, ys)
    times = np.asarray(t, float)
    dtimes = scipy_integrate.dense_or_zero(dt, times)
    pars = scipy_integrate.arguments(args)
    da, (ddfunc, ddargs), ddtimes, ddt0 = scipy_integrate.sweep_tangent(
        func, pars, tfirst, times, ys, cot, times[0], ys[0], scipy_integrate.odeint_backwards(rtol, atol, mxstep, hmax),
        dfunc, scipy_integrate.arg_tangents(args, dargs), dys, dcot, dys[0], dtimes, dtimes[0])
    ddtimes[0] = ddtimes[0] + ddt0
    return (ddfunc, np.reshape(da, np.shape(y0)) if np.ndim(y0) else float(da[0]),
            scipy_integrate.fit_times(ddtimes, t), scipy_integrate.arg_gradients(args, ddargs))


def fit_times(dtimes, t):
    """Time gradients shaped as the times were given."""
    if isinstance(t, (list, tuple)):
        return type(t)(float(v) for v in dtimes)
    return np.reshape(dtimes, np.shape(t))


def odeint_tangent(y, func, y0, t, args, full_output, rtol, atol, mxstep, hmax, tfirst, dfunc, dy0, dt, dargs):
    """The tangent of ``odeint``'s solution: ``[y, dy]`` integrated
    together, ``dy`` starting at ``dy0 - f(y0, t0) dt0``; each output
    moves by ``f(y_i, t_i) dt_i`` (the first output is ``y0``)."""
    ys = np.asarray(y[0] if full_output else y)
    n = ys.shape[1]
    pars = scipy_integrate.arguments(args)
    times = np.asarray(t, float)
    dtimes = np.zeros(len(times)) if dt is None else np.asarray(dt, float)
    d0 = np.zeros(n) if dy0 is None else np.ravel(np.asarray(dy0, float))
    rhs = scipy_integrate.tangent_rhs(func, pars, tfirst, dfunc, scipy_integrate.arg_tangents(args, dargs), n)
    f0 = scipy_integrate.rhs_value(func, pars, tfirst, ys[0], times[0])
    s = scipy.integrate.odeint(rhs, np.concatenate([ys[0], d0 - f0 * dtimes[0]]), times, rtol=rtol, atol=atol,
                               mxstep=mxstep, hmax=hmax, tfirst=True)
    moved = np.stack([scipy_integrate.rhs_value(func, pars, tfirst, ys[i], times[i]) * dtimes[i]
                      for i in range(len(times))])
    dys = s[:, n:] + moved  # (the first: d0 - f0 dt0 + f0 dt0, y0's own tangent)
    return (dys, None) if full_output else dys


@adjoint(scipy.integrate.odeint)
def odeint(func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, atol=None,
           tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0,
           tfirst=False):
    y = scipy.integrate.odeint(func, y0, t, args, Dfun, col_deriv, full_output, ml, mu, rtol, atol, tcrit, h0, hmax,
                               hmin, ixpr, mxstep, mxhnil, mxordn, mxords, printmessg, tfirst)

    def back(dy):
        dfunc, dy0, dt, dargs = scipy_integrate.odeint_grads(dy, func, y0, t, args, y, full_output, rtol, atol,
                                                             mxstep, hmax, tfirst)
        return (dfunc, dy0, dt, dargs, None, None, None, None, None, None, None, None, None, None, None, None, None,
                None, None, None, None)
    return y, back


@pushforward(scipy.integrate.odeint)
def odeint_push(y, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None,
                atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, mxords=5,
                printmessg=0, tfirst=False, *, dfunc, dy0, dt, dargs):
    return scipy_integrate.odeint_tangent(y, func, y0, t, args, full_output, rtol, atol, mxstep, hmax, tfirst,
                                          dfunc, dy0, dt, dargs)


@pushforward(odeint_grads)
def odeint_grads_push(out, dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax, tfirst, *, ddy, dfunc,
                      dy0, dt, dargs, d_y):
    return scipy_integrate.odeint_grads_tangent(dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax,
                                                tfirst, ddy, dfunc, dt, dargs, d_y)


@adjoint(odeint_grads)
def odeint_grads_adjoint(dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax, tfirst):
    out = scipy_integrate.odeint_grads(dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax, tfirst)

    def back(w):
        # The gradients are those of the Hessian of <dy, y> (out's Jacobian in the parameters, a symmetric one)
        # times w: out's tangent along w; dy's is the solution's tangent along w. y's is none: out's tangent
        # counts y's change along w (y is the solution at these parameters). The times are among the parameters.
        wfunc, wy0, wt, wargs = (None,) * 4 if w is None else w
        wt = scipy_integrate.dense_or_zero(wt, t)
        moved = scipy_integrate.odeint_tangent(y, func, y0, t, args, full_output, rtol, atol, mxstep, hmax, tfirst,
                                               wfunc, wy0, wt, wargs)
        gfunc, gy0, gt, gargs = scipy_integrate.odeint_grads_tangent(
            dy, func, y0, t, args, y, full_output, rtol, atol, mxstep, hmax, tfirst, None, wfunc, wt, wargs, moved)
        return moved, gfunc, gy0, gt, gargs, None, None, None, None, None, None, None
    return out, back


# --------------------------------------------------------------------------
# solve_ivp

ADJOINT_OPTIONS = ("rtol", "atol", "max_step", "min_step")
"""``solve_ivp``'s options the backward solve shares (not ``jac`` and
the like, which are the forward system's)."""


def solve_ivp_check(events):
    if events is not None:
        raise errors.NoDerivativeRule(
            "scipy.integrate.solve_ivp with events= is not differentiated (the event times' derivatives are not "
            "computed)",
            hint="integrate to fixed times (t_span, t_eval), or locate the event yourself from the solution",
        )


def solve_ivp_grads(dy, fun, t_span, y0, method, t_eval, vectorized, args, options, y):
    """``(dfun, dt_span, dy0, dt_eval, dargs)`` for the cotangent ``dy``
    of ``solve_ivp``'s result (a Tangent or dict with its ``y``)."""
    g = runtime.field(dy, "y")
    if g is None:
        return None, None, None, None, None
    scipy_integrate.solve_ivp_check(options.get("events"))
    ys = np.asarray(y.y).T
    times = np.asarray(y.t, float)
    cot = np.reshape(np.asarray(runtime.dense(g), float).T, ys.shape)
    pars = scipy_integrate.arguments(args)
    func = scipy_integrate.column_function(fun) if vectorized else fun
    t0 = float(t_span[0])
    start = np.ravel(np.asarray(y0, float))
    dy0, (dfun, dargs), dtimes, dt0 = scipy_integrate.adjoint_sweep(
        func, pars, True, times, ys, cot, t0, start, scipy_integrate.solve_ivp_backwards(method, options))
    if t_eval is None:  # (the first and last outputs are at t_span's ends)
        dt_span, dt_eval = scipy_integrate.fit_times([dt0 + dtimes[0], dtimes[-1]], t_span), None
    else:
        dt_span, dt_eval = scipy_integrate.fit_times([dt0, 0.0], t_span), scipy_integrate.fit_times(dtimes, t_eval)
    return (dfun, dt_span, np.reshape(dy0, np.shape(y0)) if np.ndim(y0) else float(dy0[0]), dt_eval,
            scipy_integrate.arg_gradients(args, dargs))


def solve_ivp_backwards(method, options):
    """The solve of the adjoint sweep's backward system, with the call's
    ``method`` and :data:`ADJOINT_OPTIONS`."""
    kept = {k: v for k, v in options.items() if k in scipy_integrate.ADJOINT_OPTIONS}

    def integrate(rhs, s, t_from, t_to):
        return scipy.integrate.solve_ivp(rhs, (t_from, t_to), s, method=method, **kept).y[:, -1]
    return integrate


def solve_ivp_grads_tangent(dy, fun, t_span, y0, method, t_eval, vectorized, args, options, y, ddy, dfun, dt_span,
                            dy0, dt_eval, dargs, d_y):
    """The tangent of :func:`solve_ivp_grads`'s result (see
    :func:`odeint_grads_tangent`)."""
    g = runtime.field(dy, "y")
    if g is None:
        return None, None, None, None, None
    ys = np.asarray(y.y).T
    times = np.asarray(y.t, float)
    cot = np.reshape(np.asarray(runtime.dense(g), float).T, ys.shape)
    dcot = scipy_integrate.dense_or_zero(runtime.field(ddy, "y"), ys.T).T
    dys = scipy_integrate.dense_or_zero(runtime.field(d_y, "y"), ys.T).T
    func = scipy_integrate.column_function(fun) if vectorized else fun
    t0 = float(t_span[0])
    start = np.ravel(np.asarray(y0, float))
    dspan, dtimes = scipy_integrate.ivp_time_tangents(t_eval, times, dt_span, dt_eval)
    da, (ddfun, ddargs), ddtimes, ddt0 = scipy_integrate.sweep_tangent(
        func, scipy_integrate.arguments(args), True, times, ys, cot, t0, start,
        scipy_integrate.solve_ivp_backwards(method, options), dfun, scipy_integrate.arg_tangents(args, dargs), dys,
        dcot, scipy_integrate.dense_or_zero(dy0, start), dtimes, dspan[0])
    if t_eval is None:
        dt_span, dt_eval = scipy_integrate.fit_times([ddt0 + ddtimes[0], ddtimes[-1]], t_span), None
    else:
        dt_span, dt_eval = scipy_integrate.fit_times([ddt0, 0.0], t_span), scipy_integrate.fit_times(ddtimes, t_eval)
    return (ddfun, dt_span, np.reshape(da, np.shape(y0)) if np.ndim(y0) else float(da[0]), dt_eval,
            scipy_integrate.arg_gradients(args, ddargs))


def ivp_time_tangents(t_eval, times, dt_span, dt_eval):
    """``(dspan, dtimes)``: the tangents of ``t_span``'s ends and of the
    output times ``times`` (zero where none is given): ``t_eval``'s, or
    without it ``t_span``'s ends at the first and last outputs, the steps
    between held fixed."""
    dspan = np.zeros(2) if runtime.is_zero_tangent(dt_span) else np.array(
        [0.0 if d is None else d for d in dt_span], float)
    if t_eval is None:
        dtimes = np.zeros(len(times))
        dtimes[0], dtimes[-1] = dspan[0], dspan[1]
    else:
        dtimes = scipy_integrate.dense_or_zero(dt_eval, times)
    return dspan, dtimes


def column_function(fun):
    """A ``vectorized`` right-hand side called on one state, as a column."""
    def one(t, y, *args):
        return fun(t, y[:, None], *args)[:, 0]
    return one


def with_fields(result):
    """``solve_ivp``'s result, with its entries also as attributes (so that
    ``sol.y`` is a field, whose gradient zygote_py tracks)."""
    result.__dict__.update(result)
    return result


@adjoint(with_fields)
def with_fields_adjoint(result):
    def back(dresult):  # (the same object: its entries, as fields too)
        return (dresult,)
    return scipy_integrate.with_fields(result), back


@pushforward(with_fields)
def with_fields_push(y, result, *, dresult):
    return dresult


def solve_ivp_tangent(y, fun, t_span, y0, method, t_eval, vectorized, args, options, dfun, dt_span, dy0, dt_eval,
                      dargs):
    """The tangent of ``solve_ivp``'s result: a Tangent with its ``y``'s,
    ``[y, dy]`` integrated together (see :func:`odeint_tangent`)."""
    scipy_integrate.solve_ivp_check(options.get("events"))
    ys = np.asarray(y.y).T
    times = np.asarray(y.t, float)
    n = ys.shape[1]
    pars = scipy_integrate.arguments(args)
    func = scipy_integrate.column_function(fun) if vectorized else fun
    kept = {k: v for k, v in options.items() if k in scipy_integrate.ADJOINT_OPTIONS}
    t0 = float(t_span[0])
    start = np.ravel(np.asarray(y0, float))
    d0 = np.zeros(n) if dy0 is None else np.ravel(np.asarray(dy0, float))
    dspan, dtimes = scipy_integrate.ivp_time_tangents(t_eval, times, dt_span, dt_eval)
    rhs = scipy_integrate.tangent_rhs(func, pars, True, dfun, scipy_integrate.arg_tangents(args, dargs), n)
    f0 = scipy_integrate.rhs_value(func, pars, True, start, t0)
    s = scipy.integrate.solve_ivp(rhs, (t0, times[-1]), np.concatenate([start, d0 - f0 * dspan[0]]), method=method,
                                  t_eval=times, **kept).y.T
    moved = np.stack([scipy_integrate.rhs_value(func, pars, True, ys[i], times[i]) * dtimes[i]
                      for i in range(len(times))])
    return tangent.Tangent(list(y.__dict__), y=(s[:, n:] + moved).T)


@adjoint(scipy.integrate.solve_ivp)
def solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, dense_output=False, events=None, vectorized=False,
              args=None, **options):
    y = scipy_integrate.with_fields(scipy.integrate.solve_ivp(fun, t_span, y0, method, t_eval, dense_output, events,
                                                              vectorized, args, **options))

    def back(dy):
        dfun, dt_span, dy0, dt_eval, dargs = scipy_integrate.solve_ivp_grads(
            dy, fun, t_span, y0, method, t_eval, vectorized, args, dict(options, events=events), y)
        return (dfun, dt_span, dy0, None, dt_eval, None, None, None, dargs)
    return y, back


@pushforward(scipy.integrate.solve_ivp)
def solve_ivp_push(y, fun, t_span, y0, method="RK45", t_eval=None, dense_output=False, events=None,
                   vectorized=False, args=None, *, dfun, dt_span, dy0, dt_eval, dargs, **options):
    scipy_integrate.with_fields(y)
    return scipy_integrate.solve_ivp_tangent(y, fun, t_span, y0, method, t_eval, vectorized, args,
                                             dict(options, events=events), dfun, dt_span, dy0, dt_eval, dargs)


@pushforward(solve_ivp_grads)
def solve_ivp_grads_push(out, dy, fun, t_span, y0, method, t_eval, vectorized, args, options, y, *, ddy, dfun,
                         dt_span, dy0, dt_eval, dargs, d_y):
    return scipy_integrate.solve_ivp_grads_tangent(dy, fun, t_span, y0, method, t_eval, vectorized, args, options,
                                                   y, ddy, dfun, dt_span, dy0, dt_eval, dargs, d_y)


@adjoint(solve_ivp_grads)
def solve_ivp_grads_adjoint(dy, fun, t_span, y0, method, t_eval, vectorized, args, options, y):
    out = scipy_integrate.solve_ivp_grads(dy, fun, t_span, y0, method, t_eval, vectorized, args, options, y)

    def back(w):  # (see odeint_grads_adjoint)
        wfun, wspan, wy0, weval, wargs = (None,) * 5 if w is None else w
        moved = scipy_integrate.solve_ivp_tangent(y, fun, t_span, y0, method, t_eval, vectorized, args, options,
                                                  wfun, wspan, wy0, weval, wargs)
        gfun, gspan, gy0, geval, gargs = scipy_integrate.solve_ivp_grads_tangent(
            dy, fun, t_span, y0, method, t_eval, vectorized, args, options, y, None, wfun, wspan, wy0, weval, wargs,
            moved)
        return moved, gfun, gspan, gy0, None, geval, None, gargs, None, None
    return out, back


# --------------------------------------------------------------------------
# No third order


def third_order(*values):
    raise errors.NoDerivativeRule(
        "third derivatives through scipy.integrate's ODE solvers (a derivative of a second derivative, or of "
        "forward mode: reverse or forward over a jvp) are not computed",
        hint="second derivatives are: zpy.hvp, a gradient of zpy.gradient, or zpy.jvp of zpy.gradient",
    )


for _helper in (odeint_tangent, odeint_grads_tangent, solve_ivp_tangent, solve_ivp_grads_tangent):
    adjoint(_helper)(third_order)
    pushforward(_helper)(third_order)
