"""A module whose top-level code must not run under zpy emit."""
import os

import numpy as np

SCALE = 2.0
MARKER = os.environ.get("ZPY_MARKER", "marker.txt")
with open(MARKER, "w") as f:
    f.write("the module ran")
data = np.random.rand(3)
raise SystemExit("the module ran")


def scaled(x):
    return np.sin(x) * SCALE
