# Gradients of ../../../examples/black_scholes.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/black_scholes.py -o black_scholes_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   norm_cdf    8f0ab8c7ce9d3687
#   call_price  337cc83ccf14c593
#   norm_pdf    a6ffda7419da1696
#
# NAME_forward(*args) returns (y, pullback) and pullback(dy) the gradients
# (it may be called again); NAME_gradient(*args) returns the gradients;
# a method Class.name gives Class_name_forward(self, ...) and
# Class_name_gradient(self, ...).
# Parameters annotated int, bool, str or bytes, or with such a default,
# are not differentiated; float means a real number, np.ndarray a real
# array, and no annotation what the function's use of the parameter
# says (each function's kinds are listed above it, and checked when it
# runs); a dataclass whose fields are annotated so (or a method's self
# of one) gets a types.SimpleNamespace of its fields' gradients (the
# attributes of zpy.gradient's Tangent); a dict[str, float],
# dict[str, np.ndarray] or TypedDict so, a dict of its items' gradients
# (None for an item not read).
#
# Not differentiable:
#   main: main is a main function
#
# Not emitted (zpy emit --skip-failing):
#   chain_value (line 46): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   erf_array (line 46): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)
#   closed_form_greeks (line 60): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import math
import numbers

inf = float('inf')


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# norm_cdf (../../../examples/black_scholes.py, line 19): x: a real number
def norm_cdf_forward(x):
    real_numbers(x=x)
    t = math.sqrt(2.0)
    t_1 = x / t
    t_2 = 1.0 + math.erf(t_1)

    def norm_cdf_pullback(dy):
        return (dy * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_1 * t_1) / t,)
    return (0.5 * t_2, norm_cdf_pullback)


def norm_cdf_gradient(x):
    real_numbers(x=x)
    t = math.sqrt(2.0)
    t_1 = x / t
    return (0.5641895835477563 * math.exp(-t_1 * t_1) / t,)


# call_price (../../../examples/black_scholes.py, line 23): spot: a real number; strike: a real number; rate: a real number; vol: a real number; maturity: a real number
def call_price_forward(spot, strike, rate, vol, maturity):
    real_numbers(spot=spot, strike=strike, rate=rate, vol=vol, maturity=maturity)
    t = math.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strike
    t_2 = math.log(t_1)
    t_3 = 0.5 * vol
    t_4 = rate + t_3 * vol
    d1 = (t_2 + t_4 * maturity) / sd
    d2 = d1 - sd
    t_5 = -rate
    discount = math.exp(t_5 * maturity)
    t_6 = math.sqrt(2.0)
    t_7 = d1 / t_6
    t_9 = 0.5 * (1.0 + math.erf(t_7))
    t_15 = spot * t_9
    t_13 = strike * discount
    t_10 = math.sqrt(2.0)
    t_11 = d2 / t_10
    t_14 = 0.5 * (1.0 + math.erf(t_11))

    def call_price_pullback(dy):
        t_15 = -dy
        t_16 = t_15 * t_14
        dd2 = t_15 * t_13 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_11 * t_11) / t_10
        dstrike = t_16 * discount
        ddiscount = t_16 * strike
        dspot = dy * t_9
        dd1 = dy * spot * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_7 * t_7) / t_6
        t_15 = ddiscount * discount
        dmaturity = t_15 * t_5
        drate = -(t_15 * maturity)
        dsd = -dd2
        dd1 = dd1 + dd2
        t_15 = dd1 / sd
        dsd = dsd + -dd1 * d1 / sd
        t_16 = t_15 * maturity
        dmaturity = dmaturity + t_15 * t_4
        drate = drate + t_16
        dvol = t_16 * t_3
        dvol = dvol + t_16 * vol * 0.5
        t_15 = t_15 / (t_1 * 1.0)
        dspot = dspot + t_15 / strike
        dstrike = dstrike + -t_15 * t_1 / strike
        t_15 = dsd * vol
        dvol = dvol + dsd * t
        if t:
            t_15 = t_15 / (2 * t)
        else:
            t_15 = t_15 * inf
        dmaturity = dmaturity + t_15
        return (dspot, dstrike, drate, dvol, dmaturity)
    return (t_15 - t_13 * t_14, call_price_pullback)


def call_price_gradient(spot, strike, rate, vol, maturity):
    real_numbers(spot=spot, strike=strike, rate=rate, vol=vol, maturity=maturity)
    t = math.sqrt(maturity)
    sd = vol * t
    t_1 = spot / strike
    t_2 = math.log(t_1)
    t_3 = 0.5 * vol
    t_4 = rate + t_3 * vol
    d1 = (t_2 + t_4 * maturity) / sd
    d2 = d1 - sd
    t_5 = -rate
    discount = math.exp(t_5 * maturity)
    t_6 = math.sqrt(2.0)
    t_7 = d1 / t_6
    t_9 = 0.5 * (1.0 + math.erf(t_7))
    t_15 = spot * t_9
    t_13 = strike * discount
    t_10 = math.sqrt(2.0)
    t_11 = d2 / t_10
    t_14 = 0.5 * (1.0 + math.erf(t_11))
    t_15 = -1.0 * t_14
    dd2 = -1.0 * t_13 * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_11 * t_11) / t_10
    dstrike = t_15 * discount
    ddiscount = t_15 * strike
    dd1 = spot * 0.5 * 2 / 1.7724538509055159 * math.exp(-t_7 * t_7) / t_6
    t_15 = ddiscount * discount
    dmaturity = t_15 * t_5
    drate = -(t_15 * maturity)
    dsd = -dd2
    dd1 = dd1 + dd2
    t_15 = dd1 / sd
    dsd = dsd + -dd1 * d1 / sd
    t_17 = t_15 * maturity
    dmaturity = dmaturity + t_15 * t_4
    drate = drate + t_17
    dvol = t_17 * t_3
    dvol = dvol + t_17 * vol * 0.5
    t_15 = t_15 / t_1
    dspot = t_9 + t_15 / strike
    dstrike = dstrike + -t_15 * t_1 / strike
    t_15 = dsd * vol
    dvol = dvol + dsd * t
    if t:
        t_15 = t_15 / (2 * t)
    else:
        t_15 = t_15 * inf
    dmaturity = dmaturity + t_15
    return (dspot, dstrike, drate, dvol, dmaturity)


# norm_pdf (../../../examples/black_scholes.py, line 51): x: a real number
def norm_pdf_forward(x):
    real_numbers(x=x)
    t = -0.5 * x
    t_1 = math.exp(t * x)
    t_2 = math.sqrt(2.0 * math.pi)
    t_3 = t_1 / t_2

    def norm_pdf_pullback(dy):
        t_4 = dy / t_2 * t_1
        dx = t_4 * t
        dx = dx + t_4 * x * -0.5
        return (dx,)
    return (t_3, norm_pdf_pullback)


def norm_pdf_gradient(x):
    real_numbers(x=x)
    t = -0.5 * x
    t_1 = math.exp(t * x)
    t_4 = 1.0 / math.sqrt(2.0 * math.pi) * t_1
    dx = t_4 * t
    dx = dx + t_4 * x * -0.5
    return (dx,)
