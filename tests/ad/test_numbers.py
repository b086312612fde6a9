"""Generic numbers: no rule coerces to float. Fractions give exact
gradients, decimals decimal ones, and the ``uncertainties`` package's
numbers carry their uncertainty into the gradient (as Measurements.jl does
in Zygote's paper; tested when that optional package is installed)."""
from decimal import Decimal
from fractions import Fraction

import pytest

import zygote_py as zpy


def quadratic(x):
    return x ** 2 + 3 * x + 1


def halving_loop(x):
    y = x * x
    for _ in range(3):
        y = y / 2 + x
    return y


def rational(x, y):
    if x > y:
        return x / y - y
    return (x - y) * (x + 2 * y)


def test_fractions_stay_exact():
    """(An exact value: the gradients are compared with ==.)"""
    assert zpy.gradient(quadratic, Fraction(1, 3)) == (Fraction(11, 3),)
    (g,) = zpy.gradient(halving_loop, Fraction(1, 3))
    assert type(g) is Fraction and g == Fraction(1, 3) / 4 + Fraction(7, 4)
    gx, gy = zpy.gradient(rational, Fraction(3), Fraction(2))
    assert (gx, gy) == (Fraction(1, 2), Fraction(-3, 4) - 1) and type(gx) is type(gy) is Fraction


def test_decimals_stay_decimal():
    (g,) = zpy.gradient(halving_loop, Decimal("0.5"))
    assert type(g) is Decimal and g == Decimal("0.5") / 4 + Decimal("1.75")
    assert zpy.gradient(quadratic, Decimal("0.25")) == (Decimal("3.5"),)


def test_numbers_with_uncertainty_carry_it_into_the_gradient():
    uncertainties = pytest.importorskip("uncertainties")
    (g,) = zpy.gradient(quadratic, uncertainties.ufloat(1 / 3, 0.01))
    # 2x + 3 at x = 1/3 ± 0.01: 3.667 ± 0.02
    assert g.nominal_value == pytest.approx(2 / 3 + 3) and g.std_dev == pytest.approx(0.02)
