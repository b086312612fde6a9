"""Random NumPy programs, differentiated and checked against central finite
differences element by element.

Hypothesis writes ``prog(a, b, c)`` over a (3, 1) array ``a``, a (4,) array
``b`` and a float ``c``: a chain of assignments mixing arrays that broadcast
against each other ((3, 1) with (4,) makes (3, 4)), arrays with numbers and
constants, ufuncs, powers, reductions with ``axis``/``keepdims``, ``.T``,
indexing (items in a loop over ``range``, slices, rows), ``np.maximum``
with a constant, and data-dependent branches; the result is a sum of
squares. These are the shapes of code where the compiler specialises rules
(numbers against arrays, operands known real, an array with a constant,
items of one-dimensional arrays accumulated in place), so a wrong
specialisation shows up here as a wrong gradient.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, note, reject, settings
from hypothesis import strategies as st

import zygote_py as zpy

from .test_random_programs import load

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# expression templates over two operands p, q (any shapes that broadcast)
BINARY = ["{p} + {q}", "{p} - {q}", "{p} * {q}", "{p} / (1.0 + {q} * {q})", "np.maximum({p}, {q})",
          "np.hypot({p}, {q})", "np.arctan2({p}, 1.5 + np.tanh({q}))"]
UNARY = ["np.sin({p})", "np.tanh({p})", "np.exp(np.sin({p}))", "{p} ** 2", "2.0 * {p}", "{p} * 0.5 + 1.0",
         "np.log(1.0 + {p} * {p})", "-{p}", "np.sqrt(1.0 + {p} * {p})", "abs({p})", "np.maximum({p}, 0.1)"]
REDUCE = ["np.sum({p}, axis=0, keepdims=True)", "np.mean({p}, axis=-1, keepdims=True)", "np.max({p})",
          "np.sum({p})", "{p}.T.T", "np.cumsum({p}, axis=-1)"]


@st.composite
def programs(draw) -> str:
    names = ["a", "b", "c"]  # (3, 1), (4,), float
    lines = []
    for k in range(draw(st.integers(2, 6))):
        kind = draw(st.sampled_from(["binary", "binary", "unary", "reduce", "loop", "branch", "index"]))
        p = draw(st.sampled_from(names))
        q = draw(st.sampled_from(names))
        out = f"v{k}"
        if kind == "binary":
            lines.append(f"{out} = " + draw(st.sampled_from(BINARY)).format(p=p, q=q))
        elif kind == "unary":
            lines.append(f"{out} = " + draw(st.sampled_from(UNARY)).format(p=p))
        elif kind == "reduce":
            lines.append(f"{out} = " + draw(st.sampled_from(REDUCE)).format(p=f"np.asarray({p}) + b"))
        elif kind == "loop":  # items of the 1-d b, accumulated
            lines += [f"{out} = 0.0", "for i in range(len(b)):",
                      f"    {out} += b[i] * " + draw(st.sampled_from(["b[i]", "c", "np.sum(a)", "b[len(b) - 1 - i]"]))]
        elif kind == "branch":
            lines += [f"if np.sum({p}) > 0:", f"    {out} = {p} * {q}", "else:", f"    {out} = {q} - {p}"]
        else:
            lines.append(f"{out} = " + draw(st.sampled_from(
                ["a[0] * b", "a[1:, 0] * {q}", "b[::2] + b[0]", "(a * b)[1]", "(a + b)[:, 1:3].sum()"]
            )).format(q=q))
        names.append(out)
    body = "\n    ".join(lines)
    result = " + ".join(f"np.sum({n} * {n})" for n in names[3:])
    return f"import numpy as np\n\n\ndef prog(a, b, c):\n    {body}\n    return {result}\n"


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ad_random_numpy")


def slopes(f, args, i, h):
    """Central differences of ``f`` along every element of argument ``i``."""
    x = args[i]
    if isinstance(x, float):
        return (f(*args[:i], x + h, *args[i + 1:]) - f(*args[:i], x - h, *args[i + 1:])) / (2 * h)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += h
        lo[idx] -= h
        g[idx] = (f(*args[:i], hi, *args[i + 1:]) - f(*args[:i], lo, *args[i + 1:])) / (2 * h)
    return g


POINTS = [
    (np.array([[0.3], [-0.7], [1.1]]), np.array([0.5, -0.25, 0.8, -1.3]), 0.45),
    (np.array([[-0.2], [0.9], [-1.4]]), np.array([-0.6, 1.2, 0.15, 0.7]), -0.8),
]


@SETTINGS
@given(programs())
def test_random_numpy_programs(program_dir, source):
    note(source)
    prog = load(program_dir, source)
    with np.errstate(all="ignore"):
        for args in POINTS:
            try:
                y = prog(*args)
            except ValueError:  # operands that do not broadcast: not a program
                reject()
            if not np.isfinite(y) or abs(y) > 1e6:
                continue
            value, grads = zpy.value_and_gradient(prog, *args)
            assert value == y
            for i in range(3):
                fine, coarse = slopes(prog, args, i, 1e-6), slopes(prog, args, i, 1e-5)
                # where the two steps disagree a kink (max, abs, a branch) is within reach: skip
                smooth = np.abs(fine - coarse) <= 1e-4 * np.maximum(1.0, np.abs(fine))
                g = np.zeros_like(args[i]) if grads[i] is None else np.asarray(grads[i])
                assert np.shape(g) == np.shape(args[i]), (i, np.shape(g))
                err = np.abs(g - fine) - (2e-5 * np.maximum(1.0, np.abs(fine)) + 1e-6)
                assert np.all((err <= 0) | ~smooth), (i, g, fine)
