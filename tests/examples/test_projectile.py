"""examples/projectile.py: through the time loop, the gradient agrees with
central differences and (without drag) with the closed form up to the
Euler steps' error; the best angle found by gradient ascent is the best of
a scan, and the drag is recovered from a range."""
import math

import pytest

import zygote_py as zpy


@pytest.fixture(scope="module")
def result(example):
    return example("projectile").main(verbose=False)


def test_gradient_through_the_time_loop(result):
    exact = result["exact"]
    assert result["range"] == pytest.approx(exact["range"], rel=0.01)
    assert result["dangle"] == pytest.approx(exact["dangle"], rel=0.01)
    assert result["dspeed"] == pytest.approx(exact["dspeed"], rel=0.01)
    assert result["dangle"] == pytest.approx(result["numeric_dangle"], rel=1e-6)
    assert result["ddrag"] < 0


def test_drag_gradient_agrees_with_central_differences(example):
    flight_range = example("projectile").flight_range
    _, dspeed, ddrag = zpy.gradient(flight_range, 0.6, 25.0, 0.03)
    h = 1e-7
    assert ddrag == pytest.approx((flight_range(0.6, 25.0, 0.03 + h) - flight_range(0.6, 25.0, 0.03 - h)) / (2 * h), rel=1e-5)
    assert dspeed == pytest.approx((flight_range(0.6, 25.0 + h, 0.03) - flight_range(0.6, 25.0 - h, 0.03)) / (2 * h), rel=1e-5)


def test_optimised_parameters(example, result):
    projectile = example("projectile")
    scan = max(range(300, 500), key=lambda tenth: projectile.flight_range(math.radians(tenth / 10), 30.0, 0.02))
    assert math.degrees(result["best_angle"]) == pytest.approx(scan / 10, abs=0.15)
    assert result["best_angle"] < math.radians(45.0)
    # rising, up to the wobble of a range whose number of steps changes with the angle
    assert all(b >= a - 1e-4 for a, b in zip(result["angle_history"], result["angle_history"][1:]))
    assert result["angle_history"][-1] > result["angle_history"][0] + 1.0
    assert result["drag_fit"] == pytest.approx(result["true_drag"], rel=1e-6)
