"""The gradient modules checked in under examples/ are current: this fails
when an example changes without ``zpy emit`` being run again (the message
says how to regenerate)."""
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize("source", sorted(p for p in EXAMPLES.glob("*.py") if (p.parent / f"{p.stem}_grad.py").exists()),
                         ids=lambda p: p.name)
def test_checked_in_gradient_module_is_current(source):
    # a fresh process, as in CI: what the compiler emits must not depend on what ran before
    run = subprocess.run([sys.executable, "-m", "zygote_py", "emit", "--check", str(source), "-o",
                          str(source.parent / f"{source.stem}_grad.py")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_there_is_an_example():
    assert (EXAMPLES / "regression_grad.py").is_file()


def test_example_gradients_match_the_api():
    import importlib.util

    import numpy as np

    import zygote_py as zpy
    from examples import regression

    spec = importlib.util.spec_from_file_location("regression_grad", EXAMPLES / "regression_grad.py")
    g = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(g)
    rng = np.random.default_rng(3)
    args = (rng.normal(size=3) * 4, 0.2, rng.normal(size=(5, 3)), rng.normal(size=5))
    for got, want in zip(g.loss_gradient(*args), zpy.gradient(regression.loss, *args)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert g.growth_gradient(0.3, 12)[0] == pytest.approx(zpy.gradient(regression.growth, 0.3, 12)[0], rel=1e-12)
    assert g.growth_gradient(0.3, 12)[1] is None


def test_the_regression_gradient_is_within_one_and_a_half_times_the_hand_written_one():
    # the README lists the hand-written loss_gradient: 14 lines; 1.5 times that is 21
    import ast

    tree = ast.parse((EXAMPLES / "regression_grad.py").read_text())
    (fdef,) = [d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == "loss_gradient"]
    assert fdef.end_lineno - fdef.lineno + 1 <= 21
