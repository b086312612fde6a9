"""A sibling module that model.py imports (``from helpers import drag``):
zpy emit finds it as ``python model.py`` would, first on sys.path."""
import numpy as np

OFFSET = np.array([0.1, -0.2, 0.3, 0.0])


def drag(v: np.ndarray, c: float):
    return c * np.sum(v * v)
