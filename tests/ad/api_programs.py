"""Functions the API tests differentiate (zygote_py reads their source)."""
import math

import numpy as np

import zygote_py as zpy


def pow_while(x, n):
    r = 1.0
    while n > 0:
        n -= 1
        r *= x
    return r


def pow_for(x, n):
    r = 1.0
    for _ in range(n):
        r *= x
    return r


def pow_rec(x, n):
    if n == 0:
        return 1.0
    return x * pow_rec(x, n - 1)


def foo(x):
    return math.cos(math.sin(x))


def two_args(x, y):
    return x * y + math.sin(x)


def identity(x):
    return x


def constant(x):
    return 3.0


def myfun(x):
    return x * x


def calls_myfun(x):
    return myfun(x) + math.sin(x)


def scaled_myfun_rule(x):
    """A deliberately wrong rule for ``myfun``: 100 times the true gradient,
    so that its use is observable."""
    y = myfun(x)

    def back(dy):
        return (dy * 200.0 * x,)
    return y, back


def global_helper(t):
    return t * t * t


def calls_global_helper(x):
    return global_helper(x) * 2.0


def returns_list(x):
    return [x, x * x]


def returns_tuple(x):
    return x, x * x


def returns_str(x):
    return str(x)


def returns_none(x):
    x * x


def returns_complex(x):
    return x * 1j + x


def returns_bool(x):
    return x > 0.0


def calls_c_function_without_rule(x):
    return float(np.nextafter(x, 2.0)) * x


@zpy.differentiable
def decorated(x, y):
    return x * math.exp(y)
