"""NumPy workloads for ``make bench`` (imported by ``benchmarks/run.py``).

For each workload: the function as a user writes it, the gradient a careful
person writes by hand with NumPy, and a ``*_in(m)`` factory returning the same
function written against a NumPy-like module ``m`` (``autograd.numpy``,
``jax.numpy`` or ``torch``) for the peer libraries, plus its argument values.

zygote_py differentiates every positional float argument (a float or a float
array) and none of the globals, so data that is not a parameter (the input
of the logistic regression, the MLP's batch and labels) is a module-level
constant. All data is float64, drawn from generators with fixed seeds, one
per workload, so that adding a workload does not change another's data.

A hand-written gradient returns the gradient of the first argument alone when
the function has one differentiated argument, else a tuple with one gradient
per differentiated argument, in order.
"""
from __future__ import annotations

import math

import numpy as np


def _is_torch(m) -> bool:
    return getattr(m, "__name__", "") == "torch"


def _constant(m, a: np.ndarray):
    """A module-level constant in the peer's array type. torch does not mix
    tensors and ndarrays in ``@``; autograd.numpy and jax.numpy take ndarrays
    as they are."""
    return m.from_numpy(a) if _is_torch(m) else a


def _max_rows(m, a):
    """``max(a, axis=1, keepdims=True)``: torch spells it ``amax(dim=, keepdim=)``."""
    return m.amax(a, dim=1, keepdim=True) if _is_torch(m) else m.max(a, axis=1, keepdims=True)


def _sum_rows(m, a):
    return m.sum(a, dim=1, keepdim=True) if _is_torch(m) else m.sum(a, axis=1, keepdims=True)


def _relu(m, a):
    # torch.maximum needs two tensors; clamp is its maximum with a number.
    return m.clamp(a, min=0.0) if _is_torch(m) else m.maximum(a, 0.0)


# --------------------------------------------------------------------------
# logsumexp over 100 numbers
# --------------------------------------------------------------------------

LOGSUMEXP_X = np.random.default_rng(1).standard_normal(100)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_hand(x):
    # The softmax. The max's own derivative cancels (it is subtracted inside
    # the log and added outside), so a careful person leaves it out.
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def logsumexp_in(m):
    def logsumexp(x):
        mx = m.max(x)
        return mx + m.log(m.sum(m.exp(x - mx)))
    return logsumexp


# --------------------------------------------------------------------------
# Logistic regression, as in the Zygote paper: 10 outputs, 784 inputs
# --------------------------------------------------------------------------

_rng = np.random.default_rng(2)
LOGISTIC_X = _rng.random(784)  # an input, pixel-like in [0, 1): a constant
LOGISTIC_W = _rng.standard_normal((10, 784)) * 0.01
LOGISTIC_B = _rng.standard_normal(10) * 0.01


def logistic(W, b):
    return np.sum(1.0 / (1.0 + np.exp(-(W @ LOGISTIC_X + b))))


def logistic_hand(W, b):
    s = 1.0 / (1.0 + np.exp(-(W @ LOGISTIC_X + b)))
    ds = s * (1.0 - s)
    return np.outer(ds, LOGISTIC_X), ds


def logistic_in(m):
    x = _constant(m, LOGISTIC_X)

    def logistic(W, b):
        return m.sum(1.0 / (1.0 + m.exp(-(W @ x + b))))
    return logistic


# --------------------------------------------------------------------------
# A two-layer MLP, 784 → 100 (ReLU) → 10, softmax cross-entropy averaged
# over a batch of 32
# --------------------------------------------------------------------------

_rng = np.random.default_rng(3)
MLP_X = _rng.random((32, 784))  # the batch: a constant
MLP_Y = np.eye(10)[_rng.integers(0, 10, 32)]  # one-hot labels: a constant
MLP_W1 = _rng.standard_normal((100, 784)) * np.sqrt(2 / 784)
MLP_B1 = _rng.standard_normal(100) * 0.01
MLP_W2 = _rng.standard_normal((10, 100)) * np.sqrt(2 / 100)
MLP_B2 = _rng.standard_normal(10) * 0.01


def mlp(W1, b1, W2, b2):
    h = np.maximum(MLP_X @ W1.T + b1, 0.0)
    z = h @ W2.T + b2
    zmax = np.max(z, axis=1, keepdims=True)
    logp = z - zmax - np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True))
    return -np.sum(MLP_Y * logp) / 32


def mlp_hand(W1, b1, W2, b2):
    a = MLP_X @ W1.T + b1
    h = np.maximum(a, 0.0)
    z = h @ W2.T + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    dz = (p - MLP_Y) / 32  # each row of Y sums to 1
    dh = dz @ W2
    da = dh * (a > 0.0)
    return da.T @ MLP_X, np.sum(da, axis=0), dz.T @ h, np.sum(dz, axis=0)


def mlp_in(m):
    X, Y = _constant(m, MLP_X), _constant(m, MLP_Y)

    def mlp(W1, b1, W2, b2):
        h = _relu(m, X @ W1.T + b1)
        z = h @ W2.T + b2
        zmax = _max_rows(m, z)
        logp = z - zmax - m.log(_sum_rows(m, m.exp(z - zmax)))
        return -m.sum(Y * logp) / 32
    return mlp


# --------------------------------------------------------------------------
# The trace of a 1000 × 1000 matrix
# --------------------------------------------------------------------------

TRACE_A = np.random.default_rng(4).standard_normal((1000, 1000))


def trace(A):
    return np.trace(A)


def trace_hand(A):
    return np.eye(len(A))


def trace_in(m):
    def trace(A):
        return m.trace(A)
    return trace


# --------------------------------------------------------------------------
# A Python loop indexing an array, n = 1,000 and 10,000
# --------------------------------------------------------------------------

INDEX_X_1K = np.random.default_rng(5).standard_normal(1_000)
INDEX_X_10K = np.random.default_rng(6).standard_normal(10_000)


def index_loop(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def index_loop_hand(x):
    return 2.0 * x


def index_loop_in(m):
    def index_loop(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i] * x[i]
        return s
    return index_loop


# --------------------------------------------------------------------------
# An array filled item by item in a Python loop (mutation), n = 1,000 and
# 10,000: the gradient of each y[i] = ... must cost O(1), not a copy of y
# --------------------------------------------------------------------------

FILL_X_1K = np.random.default_rng(7).standard_normal(1_000)
FILL_X_10K = np.random.default_rng(8).standard_normal(10_000)


def fill_loop(x):
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return np.sum(y * x)


def fill_loop_hand(x):
    return 3.0 * x * x


def fill_loop_in(m):
    def fill_loop(x):
        y = m.zeros(len(x), dtype=x.dtype) if _is_torch(m) else m.zeros(len(x))
        for i in range(len(x)):
            y[i] = x[i] * x[i]
        return m.sum(y * x)
    return fill_loop


# --------------------------------------------------------------------------
# A Hessian-vector product of the 100-dimensional Rosenbrock function
# --------------------------------------------------------------------------

HVP_X = np.random.default_rng(9).standard_normal(100)
HVP_V = np.random.default_rng(10).standard_normal(100)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hvp_hand(x, v):
    """H v from the tridiagonal Hessian, vectorised."""
    hv = np.zeros_like(x)
    hv[:-1] += (1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    hv[1:] += 200.0 * v[1:] - 400.0 * x[:-1] * v[:-1]
    return hv


# --------------------------------------------------------------------------
# An LSTM cell unrolled over 20 steps: hidden size 64, input size 32, batch
# of 16, squared error of the last hidden state against a target
# --------------------------------------------------------------------------

LSTM_STEPS, LSTM_BATCH, LSTM_INPUTS, LSTM_HIDDEN = 20, 16, 32, 64
_rng = np.random.default_rng(11)
LSTM_X = _rng.standard_normal((LSTM_STEPS, LSTM_BATCH, LSTM_INPUTS))  # the sequence: a constant
LSTM_Y = _rng.uniform(-0.5, 0.5, (LSTM_BATCH, LSTM_HIDDEN))  # the target: a constant
LSTM_WX = _rng.standard_normal((LSTM_INPUTS, 4 * LSTM_HIDDEN)) / np.sqrt(LSTM_INPUTS)
LSTM_WH = _rng.standard_normal((LSTM_HIDDEN, 4 * LSTM_HIDDEN)) / np.sqrt(LSTM_HIDDEN)
LSTM_B = _rng.standard_normal(4 * LSTM_HIDDEN) * 0.1


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm(Wx, Wh, b):
    H = LSTM_HIDDEN
    h = np.zeros((LSTM_BATCH, H))
    c = np.zeros((LSTM_BATCH, H))
    for t in range(LSTM_STEPS):
        z = LSTM_X[t] @ Wx + h @ Wh + b
        i = sigmoid(z[:, :H])  # input gate
        f = sigmoid(z[:, H:2 * H])  # forget gate
        o = sigmoid(z[:, 2 * H:3 * H])  # output gate
        g = np.tanh(z[:, 3 * H:])  # candidate cell
        c = f * c + i * g
        h = o * np.tanh(c)
    return 0.5 * np.sum((h - LSTM_Y) ** 2)


def lstm_hand(Wx, Wh, b):
    """Backpropagation through time. The input projections of all steps are
    one matrix product, the three sigmoid gates one sigmoid, and the
    weights' gradients one product each over all steps, from the gates'
    gradients gathered in ``dz``."""
    T, B, H = LSTM_STEPS, LSTM_BATCH, LSTM_HIDDEN
    zx = LSTM_X @ Wx + b
    hs = np.zeros((T + 1, B, H))  # hs[t] is the hidden state before step t
    cs = np.zeros((T + 1, B, H))
    gates = np.empty((T, B, 4 * H))  # i, f, o, g after their nonlinearities
    tanh_c = np.empty((T, B, H))
    for t in range(T):
        z = zx[t] + hs[t] @ Wh
        gates[t, :, :3 * H] = 1.0 / (1.0 + np.exp(-z[:, :3 * H]))
        gates[t, :, 3 * H:] = np.tanh(z[:, 3 * H:])
        i, f, o, g = gates[t, :, :H], gates[t, :, H:2 * H], gates[t, :, 2 * H:3 * H], gates[t, :, 3 * H:]
        cs[t + 1] = f * cs[t] + i * g
        tanh_c[t] = np.tanh(cs[t + 1])
        hs[t + 1] = o * tanh_c[t]
    dz = np.empty((T, B, 4 * H))
    dh = hs[T] - LSTM_Y
    dc = np.zeros((B, H))
    for t in reversed(range(T)):
        i, f, o, g = gates[t, :, :H], gates[t, :, H:2 * H], gates[t, :, 2 * H:3 * H], gates[t, :, 3 * H:]
        dc += dh * o * (1.0 - tanh_c[t] ** 2)
        dz[t, :, :H] = dc * g
        dz[t, :, H:2 * H] = dc * cs[t]
        dz[t, :, 2 * H:3 * H] = dh * tanh_c[t]
        dz[t, :, :3 * H] *= gates[t, :, :3 * H] * (1.0 - gates[t, :, :3 * H])
        dz[t, :, 3 * H:] = dc * i * (1.0 - g ** 2)
        dh = dz[t] @ Wh.T
        dc *= f
    dz_rows = dz.reshape(T * B, 4 * H)
    dWx = LSTM_X.reshape(T * B, LSTM_INPUTS).T @ dz_rows
    dWh = hs[:T].reshape(T * B, H).T @ dz_rows
    return dWx, dWh, np.sum(dz_rows, axis=0)


def lstm_in(m):
    X, Y = _constant(m, LSTM_X), _constant(m, LSTM_Y)

    def sigmoid(z):
        return 1.0 / (1.0 + m.exp(-z))

    def lstm(Wx, Wh, b):
        H = LSTM_HIDDEN
        h = m.zeros((LSTM_BATCH, H), dtype=Wx.dtype) if _is_torch(m) else m.zeros((LSTM_BATCH, H))
        c = h
        for t in range(LSTM_STEPS):
            z = X[t] @ Wx + h @ Wh + b
            i = sigmoid(z[:, :H])
            f = sigmoid(z[:, H:2 * H])
            o = sigmoid(z[:, 2 * H:3 * H])
            g = m.tanh(z[:, 3 * H:])
            c = f * c + i * g
            h = o * m.tanh(c)
        return 0.5 * m.sum((h - Y) ** 2)
    return lstm


# --------------------------------------------------------------------------
# Black-Scholes: the prices of 10,000 European calls, summed; the gradient
# with respect to the spots and the volatilities is every option's delta
# and vega
# --------------------------------------------------------------------------

BS_OPTIONS = 10_000
BS_RATE = 0.03
_rng = np.random.default_rng(12)
BS_STRIKE = _rng.uniform(90.0, 110.0, BS_OPTIONS)  # constants
BS_MATURITY = _rng.uniform(0.25, 2.0, BS_OPTIONS)
BS_SPOT = _rng.uniform(80.0, 120.0, BS_OPTIONS)
BS_VOL = _rng.uniform(0.15, 0.5, BS_OPTIONS)

# erf(z) = 2/sqrt(pi) * sum over n of (-1)^n z^(2n+1) / (n! (2n+1)). NumPy has
# no erf, so the normal CDF sums 32 terms of this series (Horner's rule in
# z^2): exact to rounding (3e-16) for |x| <= 3, and so is its derivative
# (the series of the normal density), so the closed-form Greeks below match
# the differentiated price to 1e-9. Every option's |d1| and |d2| is below
# 2.9.
_ERF_SERIES = tuple((-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in reversed(range(32)))
_SQRT2 = math.sqrt(2.0)
_SQRT_PI = math.sqrt(math.pi)


def norm_cdf(x):
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2, for |x| <= 3;
    for floats and for any library's arrays (only arithmetic)."""
    z = x / _SQRT2
    u = z * z
    s = 0.0
    for a in _ERF_SERIES:
        s = s * u + a
    return 0.5 + z * s / _SQRT_PI


def black_scholes(S, sigma):
    sd = sigma * np.sqrt(BS_MATURITY)
    d1 = (np.log(S / BS_STRIKE) + (BS_RATE + 0.5 * sigma * sigma) * BS_MATURITY) / sd
    d2 = d1 - sd
    return np.sum(S * norm_cdf(d1) - BS_STRIKE * np.exp(-BS_RATE * BS_MATURITY) * norm_cdf(d2))


def black_scholes_hand(S, sigma):
    """The closed forms: delta = N(d1), vega = S phi(d1) sqrt(T)."""
    sqrt_t = np.sqrt(BS_MATURITY)
    d1 = (np.log(S / BS_STRIKE) + (BS_RATE + 0.5 * sigma * sigma) * BS_MATURITY) / (sigma * sqrt_t)
    return norm_cdf(d1), S * np.exp(-0.5 * d1 * d1) * (sqrt_t / math.sqrt(2.0 * math.pi))


def _norm_cdf_taped(x):
    """norm_cdf(x) and its pullback, by hand: the series' partial sums kept
    on a tape and read back in reverse."""
    z = x / _SQRT2
    u = z * z
    s = 0.0
    tape = []
    for a in _ERF_SERIES:
        tape.append(s)
        s = s * u + a

    def back(dn):
        dz = dn * s / _SQRT_PI
        ds = dn * z / _SQRT_PI
        du = 0.0
        for previous in reversed(tape):
            du = du + ds * previous
            ds = ds * u
        return (dz + 2.0 * z * du) / _SQRT2
    return 0.5 + z * s / _SQRT_PI, back


def black_scholes_taped(S, sigma):
    """The gradient a person writes by reverse-differentiating the price
    program as it stands, series and all (no closed form)."""
    sqrt_t = np.sqrt(BS_MATURITY)
    sd = sigma * sqrt_t
    d1 = (np.log(S / BS_STRIKE) + (BS_RATE + 0.5 * sigma * sigma) * BS_MATURITY) / sd
    n1, back1 = _norm_cdf_taped(d1)
    _, back2 = _norm_cdf_taped(d1 - sd)
    dd2 = back2(-BS_STRIKE * np.exp(-BS_RATE * BS_MATURITY))
    dd1 = back1(S) + dd2
    dnum = dd1 / sd
    dsd = -dd2 - dd1 * d1 / sd
    return n1 + dnum / S, dnum * BS_MATURITY * sigma + dsd * sqrt_t


def black_scholes_in(m):
    K, T = _constant(m, BS_STRIKE), _constant(m, BS_MATURITY)

    def black_scholes(S, sigma):
        sd = sigma * m.sqrt(T)
        d1 = (m.log(S / K) + (BS_RATE + 0.5 * sigma * sigma) * T) / sd
        d2 = d1 - sd
        return m.sum(S * norm_cdf(d1) - K * m.exp(-BS_RATE * T) * norm_cdf(d2))
    return black_scholes
