"""Functions as people write them, not annotated: zpy emit takes their
parameters' kinds from how they are used (writer/usage.py); closure's
nested function is inlined where it is called; history's list
is appended to and summed by the rules; a parameter given only to a library's function
(np.tanh(a), scipy.special.gammaln(p["k"])) takes a number or an array."""
import logging

import numpy as np
import scipy.special

log = logging.getLogger(__name__)


def dict_loss(params, x, y):
    log.debug("batch of %d", x.shape[0])
    W, b = params["W"], params["b"]
    z = np.tanh(x @ W + b)
    return np.mean((z - y) ** 2) + params["decay"] * np.sum(W * W)


def softmax_xent(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(labels * logp) / logits.shape[0]


def generator_sum(x, c):
    return sum(v * v * c for v in x)


def square(v):
    return v * v


def helper_loop(x):
    total = 0.0
    for i in range(len(x)):
        total = total + square(x[i])
    return total


def filled(x):
    out = np.zeros(x.shape)
    for i in range(x.shape[0]):
        out[i] = np.sin(x[i]) * 2.0
    return np.sum(out)


def closure(x, a):
    def f(v):
        return a * v * v
    return np.sum(f(x))


def until(x, a):
    while a < 10.0:
        a = a * 1.5 + np.sum(x * x) * 0.01
    return a


def history(x):
    hs = []
    h = x
    for _ in range(3):
        h = np.tanh(h)
        hs.append(np.sum(h))
    return sum(hs)


def special(params, x):
    return np.sum(scipy.special.gammaln(params["k"]) * x) + np.tanh(params["s"])


def softplus_total(a):
    return np.sum(np.log1p(np.exp(a)))
