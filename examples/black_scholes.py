"""Black-Scholes: the price of a European call, and its Greeks by
differentiating the pricing function, checked against the closed forms.

    python examples/black_scholes.py

The price is written once, as a quant writes it; delta (d price / d spot),
vega (d price / d volatility), rho, theta and the dual delta (d price /
d strike) all come from one `zpy.value_and_gradient` call, and gamma
(d² price / d spot²) from `zpy.hessian`. A book of options (NumPy arrays of
strikes and positions) goes through the same formula written with arrays.
"""
import math

import numpy as np

import zygote_py as zpy


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def call_price(spot, strike, rate, vol, maturity):
    """The Black-Scholes price of a European call option."""
    sd = vol * math.sqrt(maturity)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * maturity) / sd
    d2 = d1 - sd
    discount = math.exp(-rate * maturity)
    return spot * norm_cdf(d1) - strike * discount * norm_cdf(d2)


def chain_value(spot: float, strikes: np.ndarray, rate: float, vol: float, maturity: float,
                positions: np.ndarray):
    """The value of a book of calls on one underlying, one per strike."""
    sd = vol * np.sqrt(maturity)
    d1 = (np.log(spot / strikes) + (rate + 0.5 * vol * vol) * maturity) / sd
    d2 = d1 - sd
    cdf1 = 0.5 * (1.0 + erf_array(d1 / np.sqrt(2.0)))
    cdf2 = 0.5 * (1.0 + erf_array(d2 / np.sqrt(2.0)))
    prices = spot * cdf1 - strikes * np.exp(-rate * maturity) * cdf2
    return np.sum(positions * prices)


def erf_array(x: np.ndarray):
    """math.erf of each item: NumPy has no erf, so a plain loop."""
    return np.array([math.erf(v) for v in x])


# The closed forms, written by hand, to check the derivatives against.

def norm_pdf(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def closed_form_greeks(spot, strike, rate, vol, maturity):
    sd = vol * math.sqrt(maturity)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * maturity) / sd
    d2 = d1 - sd
    discount = math.exp(-rate * maturity)
    return {
        "delta": norm_cdf(d1),
        "dual_delta": -discount * norm_cdf(d2),
        "rho": strike * maturity * discount * norm_cdf(d2),
        "vega": spot * norm_pdf(d1) * math.sqrt(maturity),
        "gamma": norm_pdf(d1) / (spot * sd),
        # d price / d maturity; the usual "theta" is its negative
        "dmaturity": spot * norm_pdf(d1) * vol / (2 * math.sqrt(maturity))
        + rate * strike * discount * norm_cdf(d2),
    }


def main(spot=100.0, strike=105.0, rate=0.03, vol=0.2, maturity=0.75, verbose=True):
    price, (delta, dual_delta, rho, vega, dmaturity) = zpy.value_and_gradient(
        call_price, spot, strike, rate, vol, maturity)
    gamma = zpy.hessian(call_price, spot, strike, rate, vol, maturity)[0][0]
    ours = {"delta": delta, "dual_delta": dual_delta, "rho": rho, "vega": vega,
            "dmaturity": dmaturity, "gamma": gamma}
    exact = closed_form_greeks(spot, strike, rate, vol, maturity)
    errors = {k: abs(ours[k] - exact[k]) for k in exact}

    # A chain: five strikes, one position each; the gradient w.r.t. spot is
    # the book's delta, the sum of the positions' deltas.
    strikes = np.linspace(90.0, 110.0, 5)
    positions = np.array([1.0, -2.0, 1.0, 3.0, -1.0])
    dspot, dstrikes, _, dvol, _, _ = zpy.gradient(
        chain_value, spot, strikes, rate, vol, maturity, positions)
    book_delta = sum(p * closed_form_greeks(spot, k, rate, vol, maturity)["delta"]
                     for p, k in zip(positions, strikes))
    book_vega = sum(p * closed_form_greeks(spot, k, rate, vol, maturity)["vega"]
                    for p, k in zip(positions, strikes))
    errors["book_delta"] = abs(dspot - book_delta)
    errors["book_vega"] = abs(dvol - book_vega)

    if verbose:
        print(f"call: S={spot} K={strike} r={rate} sigma={vol} T={maturity}")
        print(f"price {price:.6f}\n")
        print(f"{'greek':<12}{'zygote_py':>16}{'closed form':>16}{'|difference|':>14}")
        for k in exact:
            print(f"{k:<12}{ours[k]:>16.10f}{exact[k]:>16.10f}{errors[k]:>14.2e}")
        print(f"\nbook of {len(strikes)} calls: delta {dspot:.10f} (closed form "
              f"{book_delta:.10f}), vega {dvol:.10f} (closed form {book_vega:.10f})")
        print("\nThe emitted gradient of call_price:\n")
        print(zpy.differentiable(call_price).source)
    return {"price": price, **ours, "book_delta": dspot, "book_vega": dvol,
            "dstrikes": dstrikes, "errors": errors}


if __name__ == "__main__":
    main()
