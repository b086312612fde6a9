"""Work-free workloads for the AD overhead table of ``make bench``
(imported by ``benchmarks/run.py``): the LSTM and Black-Scholes workloads of
``numpy_workloads.py`` written on Python floats, so that each operation costs
tens of nanoseconds and a gradient's time over the forward pass is the cost
of differentiation itself, per primitive operation (after "Sense &
Sensitivities", figure 1).

As in ``numpy_workloads.py``: the function as a user writes it, the
gradient a careful person writes by hand, and a ``*_in(m)`` factory for the
peer libraries; the data that is not a parameter is a module-level constant.
"""
from __future__ import annotations

import math

import numpy as np

from numpy_workloads import BS_RATE, norm_cdf

# --------------------------------------------------------------------------
# An LSTM cell with hidden size 1 and input size 1, unrolled over 20 steps:
# twelve weights (input, recurrent and bias weights of the input, forget
# and output gates and the candidate cell), squared error of the last
# hidden state against a target
# --------------------------------------------------------------------------

_rng = np.random.default_rng(13)
LSTM1_X = tuple(float(v) for v in _rng.standard_normal(20))  # the sequence: a constant
LSTM1_Y = 0.25  # the target: a constant
LSTM1_ARGS = tuple(float(v) for v in _rng.standard_normal(12) * 0.5)


def _sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def lstm_scalar(wi, wf, wo, wg, ui, uf, uo, ug, bi, bf, bo, bg):
    h = 0.0
    c = 0.0
    for x in LSTM1_X:
        i = _sigmoid(wi * x + ui * h + bi)
        f = _sigmoid(wf * x + uf * h + bf)
        o = _sigmoid(wo * x + uo * h + bo)
        g = math.tanh(wg * x + ug * h + bg)
        c = f * c + i * g
        h = o * math.tanh(c)
    return 0.5 * (h - LSTM1_Y) ** 2


def lstm_scalar_hand(wi, wf, wo, wg, ui, uf, uo, ug, bi, bf, bo, bg):
    """Backpropagation through time over the states the forward loop
    recorded; the gradients in the order of the arguments."""
    h = c = 0.0
    tape = []
    for x in LSTM1_X:
        i = _sigmoid(wi * x + ui * h + bi)
        f = _sigmoid(wf * x + uf * h + bf)
        o = _sigmoid(wo * x + uo * h + bo)
        g = math.tanh(wg * x + ug * h + bg)
        h_prev, c_prev = h, c
        c = f * c + i * g
        tc = math.tanh(c)
        h = o * tc
        tape.append((x, h_prev, c_prev, i, f, o, g, tc))
    dw = [0.0] * 4  # the gates' input weights, recurrent weights and biases
    du = [0.0] * 4
    db = [0.0] * 4
    dh, dc = h - LSTM1_Y, 0.0
    for x, h_prev, c_prev, i, f, o, g, tc in reversed(tape):
        dc += dh * o * (1.0 - tc * tc)
        dz = (dc * g * i * (1.0 - i), dc * c_prev * f * (1.0 - f), dh * tc * o * (1.0 - o),
              dc * i * (1.0 - g * g))
        for k in range(4):
            dw[k] += dz[k] * x
            du[k] += dz[k] * h_prev
            db[k] += dz[k]
        dh = ui * dz[0] + uf * dz[1] + uo * dz[2] + ug * dz[3]
        dc *= f
    return (*dw, *du, *db)


def lstm_scalar_in(m):
    def sigmoid(z):
        return 1.0 / (1.0 + m.exp(-z))

    def lstm_scalar(wi, wf, wo, wg, ui, uf, uo, ug, bi, bf, bo, bg):
        h = 0.0
        c = 0.0
        for x in LSTM1_X:
            i = sigmoid(wi * x + ui * h + bi)
            f = sigmoid(wf * x + uf * h + bf)
            o = sigmoid(wo * x + uo * h + bo)
            g = m.tanh(wg * x + ug * h + bg)
            c = f * c + i * g
            h = o * m.tanh(c)
        return 0.5 * (h - LSTM1_Y) ** 2
    return lstm_scalar


# --------------------------------------------------------------------------
# Black-Scholes: the price of one European call, its delta and vega
# --------------------------------------------------------------------------

BS1_STRIKE = 105.0
BS1_MATURITY = 0.75
BS1_ARGS = (100.0, 0.2)  # spot, volatility


def black_scholes_scalar(S, sigma):
    sd = sigma * math.sqrt(BS1_MATURITY)
    d1 = (math.log(S / BS1_STRIKE) + (BS_RATE + 0.5 * sigma * sigma) * BS1_MATURITY) / sd
    d2 = d1 - sd
    return S * norm_cdf(d1) - BS1_STRIKE * math.exp(-BS_RATE * BS1_MATURITY) * norm_cdf(d2)


def black_scholes_scalar_hand(S, sigma):
    """delta = N(d1), vega = S phi(d1) sqrt(T)."""
    sqrt_t = math.sqrt(BS1_MATURITY)
    d1 = (math.log(S / BS1_STRIKE) + (BS_RATE + 0.5 * sigma * sigma) * BS1_MATURITY) / (sigma * sqrt_t)
    return norm_cdf(d1), S * math.exp(-0.5 * d1 * d1) * sqrt_t / math.sqrt(2.0 * math.pi)


def black_scholes_scalar_in(m):
    def black_scholes_scalar(S, sigma):
        sd = sigma * math.sqrt(BS1_MATURITY)
        d1 = (m.log(S / BS1_STRIKE) + (BS_RATE + 0.5 * sigma * sigma) * BS1_MATURITY) / sd
        d2 = d1 - sd
        return S * norm_cdf(d1) - BS1_STRIKE * math.exp(-BS_RATE * BS1_MATURITY) * norm_cdf(d2)
    return black_scholes_scalar
