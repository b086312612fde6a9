"""An audit of every SciPy function with a registered pushforward (forward-
mode) rule: ``zpy.jvp`` of a call, along a random direction of its float
arguments, against central finite differences of SciPy's own function.

The table holds one call per function; :func:`test_the_table_covers_every_pushforward`
keeps it complete, so a pushforward added without a row here fails."""
import numpy as np
import pytest

scipy = pytest.importorskip("scipy")
special = pytest.importorskip("scipy.special")
linalg = pytest.importorskip("scipy.linalg")
integrate = pytest.importorskip("scipy.integrate")
signal = pytest.importorskip("scipy.signal")

import zygote_py as zpy  # noqa: E402
from zygote_py import registry  # noqa: E402

registry.load_lazy()


class Fixed:
    """An argument held constant: a shape parameter whose derivative is
    ``nan`` by convention (``gammainc``'s ``a``), or a structure (a
    function, a tuple of flags)."""

    def __init__(self, value):
        self.value = value


def rand(*shape, seed=0, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def spd(n, seed=0):
    m = rand(n, n, seed=seed)
    return m @ m.T + n * np.eye(n)


def decay(y, t, k):
    return -k * y * y


def decay_t(t, y, k):
    return -k * y * y


X = rand(3, seed=1, lo=0.2, hi=0.8)  # (inside every domain below: probabilities, positive arguments)
TIMES = np.array([0.0, 0.5, 1.0])
ODE = dict(rtol=1e-11, atol=1e-11)

# function, its arguments (Fixed: no tangent), its keyword arguments, and
# the part of its output compared (the differentiable part of a structure)
CASES = [
    # the gamma and error functions
    (special.beta, (1.3, X + 1.0), {}, None),
    (special.betainc, (Fixed(1.5), Fixed(2.5), X), {}, None),
    (special.betaincc, (Fixed(1.5), Fixed(2.5), X), {}, None),
    (special.betaln, (X + 0.5, 2.2), {}, None),
    (special.erf, (X,), {}, None),
    (special.erfc, (X,), {}, None),
    (special.erfinv, (X - 0.4,), {}, None),
    (special.erfcinv, (X + 0.4,), {}, None),
    (special.gamma, (X + 1.0,), {}, None),
    (special.gammainc, (Fixed(1.7), X), {}, None),
    (special.gammaincc, (Fixed(1.7), X), {}, None),
    (special.gammaln, (X + 1.0,), {}, None),
    (special.log_ndtr, (X - 3.0,), {}, None),
    (special.loggamma, (X + 1.0,), {}, None),
    (special.ndtr, (X,), {}, None),
    (special.ndtri, (X,), {}, None),
    (special.poch, (X + 1.0, 1.6), {}, None),
    (special.polygamma, (2, X + 1.0), {}, None),
    (special.psi, (X + 1.0,), {}, None),
    (special.rgamma, (X - 1.5,), {}, None),
    (special.stdtr, (Fixed(3.5), X), {}, None),
    (special.stdtrit, (Fixed(3.5), X), {}, None),
    (special.erf, (X + 0.5j,), {}, None),  # (holomorphic where complex)
    (special.gamma, (X + 1.0 - 0.3j,), {}, None),
    (special.ndtr, (X - 0.2j,), {}, None),
    (special.log_ndtr, (X + 0.4j,), {}, None),
    # the other special functions
    (special.entr, (X,), {}, None),
    (special.exp1, (X,), {}, None),
    (special.expi, (X,), {}, None),
    (special.expit, (X,), {}, None),
    (special.expn, (2, X), {}, None),
    (special.exprel, (X - 0.5,), {}, None),
    (special.fresnel, (X,), {}, None),
    (special.hyp1f1, (0.7, 1.9, X * 4.0 - 2.0), {}, None),
    (special.i0, (X,), {}, None),
    (special.i0e, (X - 0.5,), {}, None),
    (special.i1, (X,), {}, None),
    (special.i1e, (X - 0.5,), {}, None),
    (special.iv, (Fixed(1.5), X), {}, None),
    (special.ive, (1, X - 0.5), {}, None),
    (special.j0, (X,), {}, None),
    (special.j1, (X,), {}, None),
    (special.jv, (Fixed(2.5), X), {}, None),
    (special.kl_div, (X, X[::-1]), {}, None),
    (special.log_softmax, (rand(2, 3),), dict(axis=1), None),
    (special.logit, (X,), {}, None),
    (special.logsumexp, (rand(2, 3),), dict(axis=0, b=rand(2, 3, seed=2, lo=0.5, hi=2.0)), None),
    (special.rel_entr, (X, X[::-1]), {}, None),
    (special.softmax, (rand(2, 3),), dict(axis=None), None),
    (special.spence, (X + 0.5,), {}, None),
    (special.sph_harm_y, (3, 1, X + 0.5, X * 3.0), {}, None),
    (special.xlog1py, (X, X - 0.5), {}, None),
    (special.xlogy, (X - 0.5, X), {}, None),
    (special.y0, (X,), {}, None),
    (special.y1, (X,), {}, None),
    (special.yn, (2, X + 0.5), {}, None),
    (special.yv, (Fixed(1.5), X + 0.5), {}, None),
    (special.zeta, (X + 2.0, X + 0.5), {}, None),
    # linear algebra
    (linalg.cho_factor, (spd(3),), {}, lambda r: np.triu(r[0])),
    (linalg.cho_solve, (Fixed((np.linalg.cholesky(spd(3)), True)), rand(3, 2)), {}, None),
    (linalg.cholesky, (spd(3),), dict(lower=True), None),
    (linalg.det, (rand(3, 3),), {}, None),
    (linalg.eigh, (spd(3),), {}, lambda r: r[0]),
    (linalg.expm, (rand(3, 3),), {}, None),
    (linalg.inv, (spd(3),), {}, None),
    (linalg.lu_factor, (spd(3),), {}, lambda r: r[0]),
    (linalg.lu_solve, (Fixed(linalg.lu_factor(spd(3))), rand(3)), {}, None),
    (linalg.solve, (spd(3), rand(3, 2)), {}, None),
    (linalg.solve_banded, (Fixed((1, 1)), rand(3, 4, seed=3, lo=2.0, hi=3.0), rand(4)), {}, None),
    (linalg.solve_sylvester, (spd(2), spd(2, seed=1), rand(2, 2)), {}, None),
    (linalg.solve_triangular, (spd(3), rand(3)), dict(lower=True), None),
    (linalg.sqrtm, (spd(3),), {}, None),
    # signals, ODEs
    (signal.convolve, (rand(5), rand(3, seed=1)), dict(mode="same"), None),
    (signal.correlate, (rand(4, 3), rand(2, 2, seed=1)), {}, None),
    (signal.convolve, (rand(4) + 1j * rand(4, seed=2), rand(2, seed=3)), dict(mode="full"), None),
    (integrate.odeint, (Fixed(decay), X, TIMES, (0.7,)), ODE, None),
    (integrate.solve_ivp, (Fixed(decay_t), Fixed((0.0, 1.0)), X), dict(ODE, t_eval=TIMES, args=(0.7,)), lambda r: r.y),
]

STEP = 1e-6


def name_of(case):
    return registry.display_name(case[0])


def _direction(value, rng):
    """A random tangent of ``value``'s floats (a number, an array, a tuple of them)."""
    if isinstance(value, tuple):
        return tuple(_direction(v, rng) for v in value)
    if isinstance(value, float):
        return float(rng.standard_normal())
    if np.iscomplexobj(value):
        return rng.standard_normal(np.shape(value)) + 1j * rng.standard_normal(np.shape(value))
    return rng.standard_normal(np.shape(value))


def _moved(value, direction, h):
    if isinstance(value, tuple):
        return tuple(_moved(v, d, h) for v, d in zip(value, direction))
    return value + h * direction


def _flat(out):
    if isinstance(out, (tuple, list)):
        return np.concatenate([_flat(o) for o in out])
    return np.ravel(np.asarray(out))


@pytest.mark.parametrize("case", CASES, ids=name_of)
def test_pushforward_against_finite_differences(case):
    fn, args, kwargs, pick = case
    pick = pick or (lambda r: r)
    moving = [i for i, a in enumerate(args) if not isinstance(a, (Fixed, int))]

    def call(*moved):
        full = [a.value if isinstance(a, Fixed) else a for a in args]
        for i, m in zip(moving, moved):
            full[i] = m
        return pick(fn(*full, **kwargs))

    primals = tuple(args[i] for i in moving)
    rng = np.random.default_rng(11)
    tangents = tuple(_direction(p, rng) for p in primals)
    y, t = zpy.jvp(call, primals, tangents)
    np.testing.assert_allclose(_flat(y), _flat(call(*primals)), rtol=1e-13, atol=1e-14)
    want = (_flat(call(*(_moved(p, d, STEP) for p, d in zip(primals, tangents))))
            - _flat(call(*(_moved(p, d, -STEP) for p, d in zip(primals, tangents))))) / (2 * STEP)
    np.testing.assert_allclose(_flat(t), want, rtol=1e-5, atol=1e-7)


def test_the_table_covers_every_pushforward():
    """Every public SciPy function with a built-in pushforward has a row."""
    registered = {k.obj if isinstance(k, registry._ByIdentity) else k for k in registry._push_builtin}
    public = {registry.display_name(f) for f in registered if registry.display_name(f).startswith("scipy.")}
    assert public == {name_of(c) for c in CASES}
