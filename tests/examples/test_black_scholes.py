"""examples/black_scholes.py: the Greeks by differentiation equal the closed
forms, for one option and for a book of them."""
import math

import numpy as np
import pytest


@pytest.mark.parametrize("spot, strike, rate, vol, maturity", [
    (100.0, 105.0, 0.03, 0.2, 0.75),
    (50.0, 40.0, 0.0, 0.5, 2.0),
    (10.0, 10.0, 0.1, 0.05, 0.1),
])
def test_greeks_equal_the_closed_forms(example, spot, strike, rate, vol, maturity):
    bs = example("black_scholes")
    result = bs.main(spot, strike, rate, vol, maturity, verbose=False)
    exact = bs.closed_form_greeks(spot, strike, rate, vol, maturity)
    for name, value in exact.items():
        assert result[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name
    assert max(result["errors"].values()) < 1e-8


def test_the_books_strike_gradient_is_its_dual_deltas(example):
    bs = example("black_scholes")
    result = bs.main(verbose=False)
    strikes = np.linspace(90.0, 110.0, 5)
    positions = np.array([1.0, -2.0, 1.0, 3.0, -1.0])
    dual = [p * bs.closed_form_greeks(100.0, k, 0.03, 0.2, 0.75)["dual_delta"]
            for p, k in zip(positions, strikes)]
    np.testing.assert_allclose(result["dstrikes"], dual, rtol=1e-9)


def test_price_is_the_textbook_value(example):
    # Hull's example 15.6: S=42, K=40, r=0.1, sigma=0.2, T=0.5 gives 4.76
    assert example("black_scholes").call_price(42.0, 40.0, 0.1, 0.2, 0.5) == pytest.approx(4.76, abs=0.005)
    assert math.isfinite(example("black_scholes").call_price(1.0, 1.0, 0.0, 0.3, 1.0))
