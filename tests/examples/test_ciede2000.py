"""examples/ciede2000.py: the colour difference reproduces Sharma, Wu and
Dalal's test data, its gradient agrees with central differences on every
branch of the hue arithmetic, and fitting a colour reaches its target."""
import pytest

import zygote_py as zpy

# From Sharma, Wu and Dalal (2005), table 1: (Lab 1, Lab 2, CIEDE2000).
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
]


@pytest.mark.parametrize("lab1, lab2, expected", SHARMA)
def test_reproduces_the_published_differences(example, lab1, lab2, expected):
    assert example("ciede2000").ciede2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("lab1, lab2", [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)),     # hues close
    ((50.0, -30.0, 5.0), (55.0, 30.0, -4.0)),              # hues more than 180° apart
    ((40.0, 10.0, -1.0), (45.0, 12.0, 2.0)),               # hues either side of 0°/360°
])
def test_gradient_agrees_with_central_differences(example, lab1, lab2):
    ciede2000 = example("ciede2000").ciede2000
    g1, g2 = zpy.gradient(ciede2000, lab1, lab2)
    h = 1e-6
    for i in range(3):
        up = tuple(c + h * (j == i) for j, c in enumerate(lab2))
        down = tuple(c - h * (j == i) for j, c in enumerate(lab2))
        numeric = (ciede2000(lab1, up) - ciede2000(lab1, down)) / (2 * h)
        assert g2[i] == pytest.approx(numeric, rel=1e-5, abs=1e-6)
    for i in range(3):
        up = tuple(c + h * (j == i) for j, c in enumerate(lab1))
        down = tuple(c - h * (j == i) for j, c in enumerate(lab1))
        numeric = (ciede2000(up, lab2) - ciede2000(down, lab2)) / (2 * h)
        assert g1[i] == pytest.approx(numeric, rel=1e-5, abs=1e-6)


def test_fitting_reaches_the_target_colour(example):
    result = example("ciede2000").main(steps=150, verbose=False)
    assert result["history"][-1] < 0.02
    assert result["history"][-1] < 1e-3 * result["history"][0]
    assert result["rgb"] == pytest.approx(result["target_rgb"], abs=2e-3)
    assert result["gradient"] == pytest.approx(result["numeric"], rel=1e-6, abs=1e-8)
