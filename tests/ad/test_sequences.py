"""Gradients through Python sequences built by operators: what is not
differentiated yet says so instead of returning a wrong gradient."""
import pytest

import zygote_py as zpy


def join_lists(x, y):
    items = [x] + [y]
    return items[0] * items[1]


def repeat_a_tuple(x):
    t = (x, 2.0) * 2
    return t[0] * t[3]


@pytest.mark.parametrize("f, args", [(join_lists, (2.0, 3.0)), (repeat_a_tuple, (1.5,))])
def test_joining_sequences_is_refused_not_wrong(f, args):
    """Earlier, [x] + [y] gave y the gradient of x: now it is an error."""
    with pytest.raises(zpy.NoDerivativeRule, match="joining or repeating sequences"):
        zpy.gradient(f, *args)
