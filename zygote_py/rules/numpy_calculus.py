"""Rules for NumPy's numerical calculus and signal functions: ``diff
ediff1d gradient trapezoid interp polyval convolve correlate bincount``.

Conventions:

- ``diff(a, n, axis, prepend, append)`` is linear in ``a``, ``prepend``
  and ``append`` together: each of the ``n`` differences is undone by its
  transpose, ``-diff`` of the cotangent padded with a zero at both ends.
  A number ``prepend`` (broadcast along ``axis`` by NumPy) gets its
  cotangent summed.
- ``ediff1d(ary, to_end, to_begin)``: the same on the flattened ``ary``;
  ``to_end`` and ``to_begin`` get their pieces of ``dy``.
- ``gradient(f, *varargs, axis, edge_order)``: differentiated through a
  re-statement of NumPy's finite-difference formulas
  (:func:`gradients`), made of calls that have rules, so that every input
  gets its gradient, a spacing or a coordinate array too, at any order. The
  value is NumPy's; a uniform coordinate array, which NumPy treats as a
  spacing, gets the slopes of the general formulas (their values agree).
- ``trapezoid(y, x, dx, axis)``: bilinear in ``y`` and the spacings; ``x``
  (a 1-d array along ``axis``, or of ``y``'s shape) and a number ``dx``
  get their gradients.
- ``interp(x, xp, fp, left, right, period)``: piecewise linear. ``x`` gets
  the slope of its segment (the one to its right at a knot, that of the
  last segment at ``xp[-1]``), 0 outside ``[xp[0], xp[-1]]`` where the
  value is constant; ``fp`` gets ``(1 - t)`` and ``t`` of ``dy`` at the
  segment's ends, or all of it at ``fp[0]`` (``fp[-1]``) to the left
  (right) unless ``left`` (``right``) is given, which then gets it; ``xp``
  gets its slope too, ``-s (1 - t)`` and ``-s t`` (``s`` the segment's
  slope). With ``period``, ``x`` and ``xp`` are taken modulo it (slope 1)
  and ``xp`` sorted, as NumPy does; ``period`` gets its slope through
  those remainders. Complex ``fp`` follows the convention
  of :mod:`.numpy_elementwise`.
- ``polyval(p, x)``: ``p[k]`` gets ``dy * x ** (N - 1 - k)`` summed; ``x``
  gets ``dy`` times the derivative polynomial's value.
- ``convolve(a, v, mode)`` and ``correlate(a, v, mode)`` (1-d): the output
  of ``'same'`` and ``'valid'`` is a window of the full one (NumPy's
  offsets); the cotangent, padded back to full length, is correlated with
  the other operand. ``correlate`` conjugates ``v``, and is
  ``convolve(a, conj(v[::-1]))`` in full.
- ``bincount(x, weights, minlength)``: each weight gets ``dy`` at its bin;
  ``x`` (integers) and ``minlength`` get ``None``.
"""
import numpy as np

from zygote_py import errors, runtime
from zygote_py.rules import numpy_calculus, numpy_shapes

from ..registry import adjoint, implemented_by, pushforward

# -- helpers ------------------------------------------------------------------


def undiff(dy, a, n, axis, prepend, append):
    """The gradients of ``np.diff(a, n, axis, prepend, append)``'s
    ``a``, ``prepend`` and ``append`` (``None`` for one not given)."""
    if n == 0:
        return dy, None, None
    ndim = np.ndim(a)
    axis = axis % ndim
    widths = [(0, 0)] * ndim
    widths[axis] = (1, 1)
    g = dy
    for _ in range(n):
        g = -np.diff(np.pad(g, widths), axis=axis)
    before = 0 if prepend is np._NoValue else (np.shape(prepend)[axis] if np.ndim(prepend) else 1)
    m = np.shape(a)[axis]
    head, body, tail = np.split(g, [before, before + m], axis)
    da = numpy_shapes.like(body, a)
    dprepend = None if prepend is np._NoValue else runtime.unbroadcast(head, prepend)
    dappend = None if append is np._NoValue else runtime.unbroadcast(tail, append)
    return da, dprepend, dappend


def diff_tangent(da, n, axis, prepend, append, dprepend, dappend):
    """The tangent of ``np.diff``: the differences of the tangents, a
    ``prepend`` or ``append`` without one counting as zeros."""
    if prepend is not np._NoValue:
        prepend = np.zeros(np.shape(prepend)) if dprepend is None else dprepend
    if append is not np._NoValue:
        append = np.zeros(np.shape(append)) if dappend is None else dappend
    return np.diff(da, n, axis, prepend, append)


def unediff1d(dy, ary, to_end, to_begin):
    """The gradients of ``np.ediff1d(ary, to_end, to_begin)``'s
    arguments."""
    b = 0 if to_begin is None else np.size(to_begin)
    e = 0 if to_end is None else np.size(to_end)
    head, body, tail = np.split(dy, [b, np.size(dy) - e])
    dary = numpy_shapes.like(np.reshape(-np.diff(np.pad(body, 1)), np.shape(ary)), ary)
    dbegin = None if to_begin is None else numpy_shapes.like(np.reshape(head, np.shape(to_begin)), to_begin)
    dend = None if to_end is None else numpy_shapes.like(np.reshape(tail, np.shape(to_end)), to_end)
    return dary, dend, dbegin


def ediff1d_tangent(dary, to_end, to_begin, dto_end, dto_begin):
    if to_end is not None:
        to_end = np.zeros(np.shape(to_end)) if dto_end is None else dto_end
    if to_begin is not None:
        to_begin = np.zeros(np.shape(to_begin)) if dto_begin is None else dto_begin
    return np.ediff1d(dary, to_end, to_begin)


def _along(axis, ndim, part):
    """The index of ``part`` (a slice) along ``axis``."""
    return (slice(None),) * axis + (part,) + (slice(None),) * (ndim - axis - 1)


def _column(w, axis, ndim):
    """A 1-d ``w`` laid along ``axis`` of an array of ``ndim`` dimensions."""
    return np.reshape(w, (-1,) + (1,) * (ndim - axis - 1))


def derivative_along(f, h, axis, edge_order):
    """NumPy's second-order finite differences of ``f`` along ``axis`` for
    the spacing ``h``: a number, or the coordinates (1-d) of the samples."""
    ndim = np.ndim(f)

    def part(s):
        return f[_along(axis, ndim, s)]

    if np.ndim(h) == 0:
        inner = (part(slice(2, None)) - part(slice(None, -2))) / (2.0 * h)
        if edge_order == 1:
            first = (part(slice(1, 2)) - part(slice(0, 1))) / h
            last = (part(slice(-1, None)) - part(slice(-2, -1))) / h
        else:
            first = (-1.5 * part(slice(0, 1)) + 2.0 * part(slice(1, 2)) - 0.5 * part(slice(2, 3))) / h
            last = (0.5 * part(slice(-3, -2)) - 2.0 * part(slice(-2, -1)) + 1.5 * part(slice(-1, None))) / h
        return np.concatenate([first, inner, last], axis)
    dx = np.diff(h)
    dx1, dx2 = dx[:-1], dx[1:]
    a = _column(-dx2 / (dx1 * (dx1 + dx2)), axis, ndim)
    b = _column((dx2 - dx1) / (dx1 * dx2), axis, ndim)
    c = _column(dx1 / (dx2 * (dx1 + dx2)), axis, ndim)
    inner = a * part(slice(None, -2)) + b * part(slice(1, -1)) + c * part(slice(2, None))
    if edge_order == 1:
        first = (part(slice(1, 2)) - part(slice(0, 1))) / dx[0]
        last = (part(slice(-1, None)) - part(slice(-2, -1))) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * part(slice(0, 1)) + (d1 + d2) / (d1 * d2) * part(slice(1, 2))
                 - d1 / (d2 * (d1 + d2)) * part(slice(2, 3)))
        d1, d2 = dx[-2], dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * part(slice(-3, -2)) - (d2 + d1) / (d1 * d2) * part(slice(-2, -1))
                + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * part(slice(-1, None)))
    return np.concatenate([first, inner, last], axis)


def gradients(f, varargs, axis, edge_order):
    """``np.gradient(f, *varargs, axis=axis, edge_order=edge_order)``
    computed with :func:`derivative_along` (differentiable again)."""
    f = np.asarray(f)
    if f.dtype.kind not in "fc":
        f = f.astype(np.float64)
    ndim = f.ndim
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(i % ndim for i in axis)
    else:
        axes = (axis % ndim,)
    if not varargs:
        spacings = [1.0 for _ in axes]
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacings = [varargs[0] for _ in axes]  # (one spacing for every axis)
    else:
        spacings = list(varargs)
    outs = [numpy_calculus.derivative_along(f, h, ax, edge_order) for h, ax in zip(spacings, axes)]
    return outs[0] if len(outs) == 1 else tuple(outs)


def trapezoid_parts(y, x, dx, axis):
    """``np.trapezoid``'s spacings ``d`` (laid along ``axis``) and the
    means ``m`` of neighbouring samples: the value is ``sum(m * d, axis)``."""
    y = runtime.arrays.asarray(y)
    axis = axis % y.ndim
    m = (y[_along(axis, y.ndim, slice(1, None))] + y[_along(axis, y.ndim, slice(None, -1))]) / 2.0
    if x is None:
        return m, dx
    if np.ndim(x) == 1:
        return m, _column(np.diff(x), axis, y.ndim)
    return m, np.diff(x, axis=axis)


def trapezoid_grads(dout, y, x, dx, axis):
    """The gradients of ``np.trapezoid(y, x, dx, axis)``'s ``y``, ``x`` and
    ``dx``."""
    yy = runtime.arrays.asarray(y)
    ax = axis % yy.ndim
    m, d = numpy_calculus.trapezoid_parts(y, x, dx, axis)
    g = np.expand_dims(dout, ax)
    widths = [(0, 0)] * yy.ndim
    widths[ax] = (1, 0)
    dd = np.broadcast_to(d * g, m.shape)
    dy_ = (np.pad(dd, widths) + np.pad(dd, widths[:ax] + [(0, 1)] + widths[ax + 1:])) / 2.0
    dy_ = numpy_shapes.like(dy_, y)
    if x is None:
        return dy_, None, runtime.unbroadcast(np.sum(m * g), dx)
    dm = m * g  # the gradient of the spacings
    if np.ndim(x) == 1:
        dm = np.sum(dm, axis=tuple(i for i in range(yy.ndim) if i != ax))
        return dy_, numpy_shapes.like(-np.diff(np.pad(dm, 1)), x), None
    return dy_, numpy_shapes.like(-np.diff(np.pad(dm, widths[:ax] + [(1, 1)] + widths[ax + 1:]), axis=ax), x), None


def trapezoid_tangent(dy, d_x, ddx, y, x, dx, axis):
    """The tangent of ``np.trapezoid`` (bilinear in ``y`` and the
    spacings); a tangent that is ``None`` (an integer argument's) is zero."""
    m, d = numpy_calculus.trapezoid_parts(y, x, dx, axis)
    dm, _ = numpy_calculus.trapezoid_parts(numpy_shapes.dense(dy, y), x, dx, axis)
    t = dm * d
    if x is None:
        return np.sum(t + m * numpy_shapes.dense(ddx, dx), axis)
    _, dd = numpy_calculus.trapezoid_parts(y, numpy_shapes.dense(d_x, x), dx, axis)
    return np.sum(t + m * dd, axis)


def interp_parts(x, xp, fp, period):
    """Where ``np.interp`` reads each ``x``: the indices ``lo``, ``hi`` into
    ``fp`` (and ``xp``) of its segment's ends, the fraction ``t`` of the way
    along it, the slope ``s``, whether ``x`` is inside ``[xp[0], xp[-1]]``
    (always with ``period``); and the slope in ``period`` of ``x`` less the
    segment's knot positions, taken modulo it (zeros without ``period``)."""
    x = np.asarray(x)
    xp = np.asarray(xp)
    fp = np.asarray(fp)
    index = np.arange(np.size(xp))
    kx, kxp = np.zeros(np.shape(x)), np.zeros(np.size(xp))
    if period is not None:
        kx = -np.floor(x / period)
        kxp = -np.floor(xp / period)
        x = np.mod(x, period)
        xp = np.mod(xp, period)
        order = np.argsort(xp, kind="stable")
        xp = np.concatenate([xp[order][-1:] - period, xp[order], xp[order][:1] + period])
        fp = np.concatenate([fp[order][-1:], fp[order], fp[order][:1]])
        kxp = np.concatenate([kxp[order][-1:] - 1, kxp[order], kxp[order][:1] + 1])
        index = np.concatenate([order[-1:], order, order[:1]])
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, np.size(xp) - 2)
    width = xp[j + 1] - xp[j]
    t = (x - xp[j]) / width
    s = (fp[j + 1] - fp[j]) / width
    inside = (x >= xp[0]) & (x <= xp[-1])
    return index[j], index[j + 1], t, s, inside, kx + (t - 1) * kxp[j] - t * kxp[j + 1]


def interp_grads(dy, x, xp, fp, left, right, period):
    """The gradients of ``np.interp``'s ``x``, ``xp``, ``fp``, ``left``,
    ``right`` and ``period``."""
    lo, hi, t, s, inside, in_period = numpy_calculus.interp_parts(x, xp, fp, period)
    dy = np.asarray(dy)
    n = np.size(xp)
    g = np.where(inside, dy, 0)
    dx = np.real(np.conj(s) * g)
    dxp = np.bincount(np.ravel(lo), np.ravel(dx * (t - 1)), n) - np.bincount(np.ravel(hi), np.ravel(dx * t), n)
    if np.iscomplexobj(dy):
        weights_lo, weights_hi = np.ravel(g * (1 - t)), np.ravel(g * t)
        dfp = (np.bincount(np.ravel(lo), np.real(weights_lo), n) + np.bincount(np.ravel(hi), np.real(weights_hi), n)
               + 1j * (np.bincount(np.ravel(lo), np.imag(weights_lo), n)
                       + np.bincount(np.ravel(hi), np.imag(weights_hi), n)))
    else:
        dfp = np.bincount(np.ravel(lo), np.ravel(g * (1 - t)), n) + np.bincount(np.ravel(hi), np.ravel(g * t), n)
    dleft = dright = dperiod = None
    if period is None:
        below = np.where(np.asarray(x) < np.asarray(xp)[0], dy, 0)
        above = np.where(np.asarray(x) > np.asarray(xp)[-1], dy, 0)
        if left is None:
            dfp = dfp + np.sum(below) * (np.arange(n) == 0)
        else:
            dleft = runtime.unbroadcast(np.sum(below), left)
        if right is None:
            dfp = dfp + np.sum(above) * (np.arange(n) == n - 1)
        else:
            dright = runtime.unbroadcast(np.sum(above), right)
    else:
        dperiod = runtime.unbroadcast(np.sum(dx * in_period), period)
    dx = runtime.unbroadcast(dx, x) if np.ndim(x) == 0 else numpy_shapes.like(dx, x)
    return dx, numpy_shapes.like(dxp, xp), numpy_shapes.like(dfp, fp), dleft, dright, dperiod


def interp_tangent(dx, dxp, dfp, dleft, dright, dperiod, x, xp, fp, left, right, period):
    """The tangent of ``np.interp`` (the transpose of
    :func:`interp_grads`)."""
    lo, hi, t, s, inside, in_period = numpy_calculus.interp_parts(x, xp, fp, period)
    dx = numpy_shapes.dense(dx, x)
    dfp = np.asarray(numpy_shapes.dense(dfp, fp))
    dxp = np.asarray(numpy_shapes.dense(dxp, xp))
    along = s * (dx + dxp[lo] * (t - 1) - dxp[hi] * t) + dfp[lo] * (1 - t) + dfp[hi] * t
    if period is not None:
        along = along + s * in_period * numpy_shapes.dense(dperiod, period)
    out = np.where(inside, along, 0)
    if period is None:
        xs = np.asarray(x)
        out = out + np.where(xs < np.asarray(xp)[0], dfp[0] if left is None else numpy_shapes.dense(dleft, left), 0)
        out = out + np.where(xs > np.asarray(xp)[-1], dfp[-1] if right is None else numpy_shapes.dense(dright, right),
                             0)
    return out


def polyder_values(p, x):
    """The value at ``x`` of the derivative of the polynomial ``p``."""
    p = np.asarray(p)
    n = np.size(p)
    if n < 2:
        return np.zeros(np.shape(x))
    return np.polyval(p[:-1] * np.arange(n - 1, 0, -1), x)


def polyval_grads(dy, p, x):
    """The gradients of ``np.polyval(p, x)``'s ``p`` and ``x``."""
    n = np.size(p)
    powers = np.power(np.expand_dims(np.asarray(x), -1), np.arange(n - 1, -1, -1))
    dp = np.tensordot(dy, np.conj(powers), np.ndim(dy))
    dx = runtime.unbroadcast(dy * np.conj(numpy_calculus.polyder_values(p, x)), x)
    return numpy_shapes.like(np.reshape(dp, np.shape(p)), p), dx


def window(mode, n, m, correlate):
    """Where the output of ``np.convolve`` (or ``np.correlate``) of arrays of
    lengths ``n`` and ``m`` starts in the full one, and its length."""
    k = min(n, m)
    if mode == "full":
        return 0, n + m - 1
    if mode == "valid":
        return k - 1, max(n, m) - k + 1
    if correlate and n < m:
        return k // 2, max(n, m)
    return (k - 1) // 2, max(n, m)


def convolve_grads(dy, a, v, mode, correlate):
    """The gradients of ``np.convolve(a, v, mode)``'s ``a`` and ``v`` (of
    ``np.correlate``'s, ``correlate``: ``v`` is then reversed and
    conjugated)."""
    n, m = np.size(a), np.size(v)
    start, length = numpy_calculus.window(mode, n, m, correlate)
    full = np.pad(dy, (start, n + m - 1 - start - length))
    w = np.conj(np.asarray(v)[::-1]) if correlate else v
    da = np.correlate(full, w, "valid")
    dw = np.correlate(full, a, "valid")
    dv = np.conj(dw)[::-1] if correlate else dw
    return numpy_shapes.like(da, a), numpy_shapes.like(dv, v)


# -- differences and derivatives ------------------------------------------------


@adjoint(np.diff)
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    def back(dy):
        da, dprepend, dappend = numpy_calculus.undiff(dy, a, n, axis, prepend, append)
        return (da, None, None, dprepend, dappend)
    return np.diff(a, n, axis, prepend, append), back


@pushforward(np.diff)
def diff_push(y, a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue, *, da, dprepend, dappend):
    return numpy_shapes.tangent_as(numpy_calculus.diff_tangent(da, n, axis, prepend, append, dprepend, dappend), y)


@adjoint(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    def back(dy):
        dary, dto_end, dto_begin = numpy_calculus.unediff1d(dy, ary, to_end, to_begin)
        return (dary, dto_end, dto_begin)
    return np.ediff1d(ary, to_end, to_begin), back


@pushforward(np.ediff1d)
def ediff1d_push(y, ary, to_end=None, to_begin=None, *, dary, dto_end, dto_begin):
    return numpy_shapes.tangent_as(numpy_calculus.ediff1d_tangent(dary, to_end, to_begin, dto_end, dto_begin), y)


@adjoint(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """Differentiated through :func:`gradients` (see the module's
    docstring)."""
    y = np.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    _, pullback = runtime.J(numpy_calculus.gradients, f, varargs, axis, edge_order)

    def back(dy):
        g = runtime.call_pullback(pullback, dy)
        dvarargs = (None,) * len(varargs) if g[2] is None else tuple(g[2])
        return (g[1], *dvarargs)
    return y, back


@pushforward(np.gradient)
def gradient_push(y, f, *varargs, axis=None, edge_order=1, df, dvarargs):
    return runtime.push(numpy_calculus.gradients, (f, varargs, axis, edge_order), {}, (df, dvarargs, None, None),
                        {})[1]


@adjoint(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    def back(dout):
        dy, dx_, ddx = numpy_calculus.trapezoid_grads(dout, y, x, dx, axis)
        return (dy, dx_, ddx, None)
    return np.trapezoid(y, x, dx, axis), back


@pushforward(np.trapezoid)
def trapezoid_push(out, y, x=None, dx=1.0, axis=-1, *, dy, d_x, ddx):
    """``x``'s tangent is ``d_x`` (``dx`` is a parameter)."""
    return numpy_calculus.trapezoid_tangent(dy, d_x, ddx, y, x, dx, axis)


# -- interpolation and polynomials ----------------------------------------------


@adjoint(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    def back(dy):
        dx, dxp, dfp, dleft, dright, dperiod = numpy_calculus.interp_grads(dy, x, xp, fp, left, right, period)
        return (dx, dxp, dfp, dleft, dright, dperiod)
    return np.interp(x, xp, fp, left, right, period), back


@pushforward(np.interp)
def interp_push(y, x, xp, fp, left=None, right=None, period=None, *, dx, dxp, dfp, dleft, dright, dperiod):
    t = numpy_calculus.interp_tangent(dx, dxp, dfp, dleft, dright, dperiod, x, xp, fp, left, right, period)
    return numpy_shapes.tangent_as(t, np.asarray(y))


@adjoint(np.polyval)
def polyval(p, x):
    def back(dy):
        dp, dx = numpy_calculus.polyval_grads(dy, p, x)
        return (dp, dx)
    return np.polyval(p, x), back


@pushforward(np.polyval)
def polyval_push(y, p, x, *, dp, dx):
    return np.polyval(dp, x) + dx * numpy_calculus.polyder_values(p, x)


@implemented_by(np.vander)
def vander(x, N=None, increasing=False):
    """``np.vander``: the powers of ``x`` as columns, differentiated as that
    formula: running products ``1, x, x * x, ...`` (exact at ``x == 0`` at
    every order, where ``x ** (k - 1)`` is not)."""
    x = np.asarray(x)
    n = len(x) if N is None else N
    factors = np.concatenate([np.ones((len(x), 1), dtype=x.dtype), np.repeat(x[:, None], n - 1, axis=1)], axis=1)
    powers = np.cumprod(factors[:, :n], axis=1)
    return powers if increasing else powers[:, ::-1]


@implemented_by(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """``np.cov`` of real variables, differentiated as its formula (the
    centred rows' products over ``n - ddof``)."""
    if fweights is not None or aweights is not None or dtype is not None:
        raise errors.NoDerivativeRule("np.cov with fweights, aweights or dtype",
                                      hint="weight the observations yourself: ((x - mean) * w) @ (x - mean).T / ...")
    x = np.atleast_2d(np.asarray(m))
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        other = np.atleast_2d(np.asarray(y))
        x = np.concatenate((x, other.T if not rowvar and other.shape[0] != 1 else other), axis=0)
    count = x.shape[1] - ((0 if bias else 1) if ddof is None else ddof)
    centred = x - np.mean(x, axis=1, keepdims=True)
    return np.squeeze(centred @ centred.T / count)


@implemented_by(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """``np.corrcoef`` of real variables: :func:`cov` over the products of
    the standard deviations, clipped to [-1, 1] as NumPy does."""
    c = np.cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return c / c
    deviations = np.sqrt(np.diag(c))
    return np.clip(c / deviations[:, None] / deviations[None, :], -1.0, 1.0)


# -- convolution and counting ---------------------------------------------------


@adjoint(np.convolve)
def convolve(a, v, mode="full"):
    def back(dy):
        da, dv = numpy_calculus.convolve_grads(dy, a, v, mode, False)
        return (da, dv, None)
    return np.convolve(a, v, mode), back


@pushforward(np.convolve)
def convolve_push(y, a, v, mode="full", *, da, dv):
    return np.convolve(da, v, mode) + np.convolve(a, dv, mode)


@adjoint(np.correlate)
def correlate(a, v, mode="valid"):
    def back(dy):
        da, dv = numpy_calculus.convolve_grads(dy, a, v, mode, True)
        return (da, dv, None)
    return np.correlate(a, v, mode), back


@pushforward(np.correlate)
def correlate_push(y, a, v, mode="valid", *, da, dv):
    return np.correlate(da, v, mode) + np.correlate(a, dv, mode)


@adjoint(np.bincount)
def bincount(x, weights=None, minlength=0):
    def back(dy):
        if weights is None:
            return (None, None, None)
        return (None, numpy_shapes.like(np.asarray(dy)[x], weights), None)
    return np.bincount(x, weights, minlength), back


@pushforward(np.bincount)
def bincount_push(y, x, weights=None, minlength=0, *, dweights):
    return np.bincount(x, dweights, minlength)
