"""A module beside test_inlining.py whose functions it calls, as a user's
model calls its own helpers module (``from helpers import drag``)."""
import numpy as np

SCALE = 3.0


def drag(v, c):
    return c * np.sum(v * v) * SCALE
