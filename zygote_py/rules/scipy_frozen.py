"""Frozen distributions of :mod:`scipy.stats`: ``norm(loc, scale).logpdf(x)``.

A frozen distribution's method is its distribution's with the frozen
arguments (``rv.logpdf(x)`` is ``norm.logpdf(x, *rv.args, **rv.kwds)``),
so each method below is :func:`registry.implemented_by` that call, and
differentiated through the formulas of :mod:`.scipy_stats` wherever those
have them, in both modes and to any order. Freezing (``norm(mu, s)``,
``norm.freeze``, ``multivariate_normal(mean, cov)``, ``dirichlet(alpha)``)
is differentiated too: the frozen object's gradient is a
:class:`~zygote_py.tangent.Tangent` with the fields ``args`` and ``kwds``
(the gradients of the arguments it was made with, by position and by
name), which the freezing call hands back to those arguments. A frozen
distribution made outside the differentiated function and captured works
alike (its arguments are then constants).

Covered methods: those with formulas in :mod:`.scipy_stats` (``logpdf
pdf cdf logcdf sf logsf ppf isf`` of the continuous distributions,
``logpmf pmf cdf logcdf sf logsf`` of the discrete ones, as far as each
has them; ``logpdf pdf entropy`` of ``multivariate_normal``, ``logpdf
pdf`` of ``dirichlet``). The frozen arguments reach a method by position,
in the order of its parameters (:func:`frozen_names`), defaults filled
in. Another method (``rv.mean()``), or a distribution with no
formulas, raises :class:`~zygote_py.errors.NoDerivativeRule` naming the
function as for the unfrozen distribution.

Imported into the built-in layer with :mod:`.scipy_stats`, once the user
has imported ``scipy.stats``.
"""
import scipy.stats
from scipy.stats import _distn_infrastructure, _multivariate

from zygote_py import errors, runtime, tangent

# The rules call this module's helpers by their qualified names.
from zygote_py.rules import scipy_frozen

from ..registry import adjoint, implemented_by, nondifferentiable, pushforward


def frozen_method(rv, name):
    """The method ``name`` of the module-level distribution of the frozen
    ``rv`` (``scipy.stats.norm.logpdf`` for ``norm(0, 1).logpdf``), which
    has the rule; SciPy's frozen object holds a copy of the distribution."""
    dist = rv._dist if isinstance(rv, _multivariate.multi_rv_frozen) else rv.dist
    shared = getattr(scipy.stats, getattr(dist, "name", None) or type(dist).__name__[:-len("_gen")], None)
    if type(shared) is not type(dist):
        raise errors.NoDerivativeRule(
            f"no derivative rule for the frozen distribution {type(rv).__name__} of {type(dist).__name__}, "
            "which is called with differentiated arguments",
            hint="call a scipy.stats distribution's method with the parameters, or register a rule with "
                 "@zpy.adjoint")
    return getattr(shared, name)


def frozen_with(rv):
    """The positional and keyword arguments ``rv`` was frozen with (those
    SciPy keeps, for a multivariate one frozen before the differentiated
    function ran)."""
    if isinstance(rv, _distn_infrastructure.rv_frozen):
        return rv.args, rv.kwds
    made = getattr(rv, "_zpy_arguments", None)
    if made is not None:
        return made
    if isinstance(rv, _multivariate.multivariate_normal_frozen):
        return (rv.mean, rv.cov, rv.allow_singular), {}
    if isinstance(rv, _multivariate.dirichlet_frozen):
        return (rv.alpha,), {}
    raise errors.NoDerivativeRule(
        f"no derivative rule for the methods of {type(rv).__name__}, which are called with differentiated arguments",
        hint="call the scipy.stats distribution's method with the parameters instead")


def frozen_names(rv):
    """The names of the parameters that ``rv``'s distribution's methods
    take after the point, in order (``loc, scale`` for ``norm``; ``df, loc,
    scale`` for ``t``)."""
    if isinstance(rv, _multivariate.multivariate_normal_frozen):
        return ("mean", "cov", "allow_singular")
    if isinstance(rv, _multivariate.dirichlet_frozen):
        return ("alpha",)
    shapes = tuple(n.strip() for n in (rv.dist.shapes or "").split(",") if n.strip())
    return shapes + (("loc",) if isinstance(rv.dist, _distn_infrastructure.rv_discrete) else ("loc", "scale"))


DEFAULTS = {"loc": 0, "scale": 1}


def frozen_arguments(rv):
    """The parameters of ``rv``'s distribution's methods (see :func:`frozen_names`),
    by position: the frozen arguments, a default where none was given."""
    args, kwds = scipy_frozen.frozen_with(rv)
    return tuple(args[i] if i < len(args) else kwds.get(n, scipy_frozen.DEFAULTS.get(n))
                 for i, n in enumerate(scipy_frozen.frozen_names(rv)))


nondifferentiable(frozen_method, frozen_with, frozen_names)


def frozen_sources(rv):
    """Where each frozen argument of ``rv`` is among
    :func:`frozen_arguments`: its index, in a list for the positional ones
    and by name for the keywords (one past the end for an argument no
    method takes, such as ``seed``)."""
    args, kwds = scipy_frozen.frozen_with(rv)
    order = scipy_frozen.frozen_names(rv)
    missing = len(order)
    return ([i if i < missing else missing for i in range(len(args))],
            {k: order.index(k) if k in order[len(args):] else missing for k in kwds})


nondifferentiable(frozen_sources)


@adjoint(scipy_frozen.frozen_arguments)
def arguments_rule(rv):
    """Each parameter's gradient goes to the field of ``rv``'s that holds
    it (``args`` by position, ``kwds`` by name; none to a default)."""
    def back(d):
        at, by_name = scipy_frozen.frozen_sources(rv)
        padded = tuple(d) + (None,)
        return (tangent.Tangent(args=tuple([padded[i] for i in at]), kwds={k: padded[i] for k, i in by_name.items()}),)
    return scipy_frozen.frozen_arguments(rv), back


@pushforward(scipy_frozen.frozen_arguments)
def arguments_push(y, rv, *, drv):
    args, kwds = scipy_frozen.frozen_with(rv)
    dargs = runtime.field(drv, "args") or (None,) * len(args)
    dkwds = runtime.field(drv, "kwds") or {}
    out = []
    for i, n in enumerate(scipy_frozen.frozen_names(rv)):
        t = dargs[i] if i < len(args) else dkwds.get(n)
        out.append(runtime.zero_tangent(y[i]) if t is None else t)
    return tuple(out)


def freeze(dist, args, kwds):
    """``dist(*args, **kwds)``. A multivariate frozen distribution keeps
    its arguments converted (a number ``cov`` as a matrix): it is given
    them as they were, in ``_zpy_arguments``, so that their gradients
    have their shapes (an attribute, not a table by identity: gradient
    code differentiated again holds a copy of the object)."""
    rv = dist(*args, **kwds)
    if isinstance(rv, _multivariate.multi_rv_frozen):
        rv._zpy_arguments = (args, kwds)
    return rv


@adjoint(scipy_frozen.freeze)
def freeze_rule(dist, args, kwds):
    """The arguments get the fields of the frozen object's gradient."""
    def back(drv):
        dargs = runtime.field(drv, "args")
        dkwds = runtime.field(drv, "kwds")
        return (None, (None,) * len(args) if dargs is None else dargs,
                {k: None for k in kwds} if dkwds is None else dkwds)
    return scipy_frozen.freeze(dist, args, kwds), back


@pushforward(scipy_frozen.freeze)
def freeze_push(y, dist, args, kwds, *, ddist, dargs, dkwds):
    return tangent.Tangent(args=dargs, kwds=dkwds)




# --------------------------------------------------------------------------
# Freezing


@implemented_by(_distn_infrastructure.rv_generic.__call__)
def frozen(dist, *args, **kwds):
    return freeze(dist, args, kwds)


@implemented_by(_distn_infrastructure.rv_generic.freeze)
def frozen_by_name(dist, *args, **kwds):
    return freeze(dist, args, kwds)


@implemented_by(_multivariate.multivariate_normal_gen.__call__)
def multivariate_normal_frozen(dist, mean=None, cov=1, allow_singular=False, seed=None):
    return freeze(dist, (mean, cov, allow_singular, seed), {})


@implemented_by(_multivariate.dirichlet_gen.__call__)
def dirichlet_frozen(dist, alpha, seed=None):
    return freeze(dist, (alpha, seed), {})


# --------------------------------------------------------------------------
# Methods: the distribution's, with the frozen arguments


@implemented_by(_distn_infrastructure.rv_continuous_frozen.logpdf)
@implemented_by(_multivariate.multivariate_normal_frozen.logpdf)
@implemented_by(_multivariate.dirichlet_frozen.logpdf)
def frozen_logpdf(rv, x):
    return frozen_method(rv, "logpdf")(x, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_continuous_frozen.pdf)
@implemented_by(_multivariate.multivariate_normal_frozen.pdf)
@implemented_by(_multivariate.dirichlet_frozen.pdf)
def frozen_pdf(rv, x):
    return frozen_method(rv, "pdf")(x, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_discrete_frozen.logpmf)
def frozen_logpmf(rv, k):
    return frozen_method(rv, "logpmf")(k, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_discrete_frozen.pmf)
def frozen_pmf(rv, k):
    return frozen_method(rv, "pmf")(k, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_frozen.cdf)
def frozen_cdf(rv, x):
    return frozen_method(rv, "cdf")(x, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_frozen.logcdf)
def frozen_logcdf(rv, x):
    return frozen_method(rv, "logcdf")(x, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_frozen.sf)
def frozen_sf(rv, x):
    return frozen_method(rv, "sf")(x, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_frozen.logsf)
def frozen_logsf(rv, x):
    return frozen_method(rv, "logsf")(x, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_frozen.ppf)
def frozen_ppf(rv, q):
    return frozen_method(rv, "ppf")(q, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_distn_infrastructure.rv_frozen.isf)
def frozen_isf(rv, q):
    return frozen_method(rv, "isf")(q, *scipy_frozen.frozen_arguments(rv))


@implemented_by(_multivariate.multivariate_normal_frozen.entropy)
def multivariate_normal_frozen_entropy(rv):
    mean, cov, _ = scipy_frozen.frozen_arguments(rv)
    return frozen_method(rv, "entropy")(mean, cov)

