"""Golden files of the emitted gradient source.

For each key example, ``zpy.differentiable(f).source`` after a
``.gradient(*args)`` call must equal ``tests/ad/golden/<name>.py`` byte for
byte, so that any change to what users read shows up in review. Run with
``ZPY_UPDATE_GOLDEN=1`` to rewrite the files after an intended change (and
read the diff).

The emitted source must also be deterministic: the same bytes from fresh
interpreters with different hash seeds.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import zygote_py as zpy

from . import golden_programs

GOLDEN = pathlib.Path(__file__).parent / "golden"
ROOT = pathlib.Path(__file__).parents[2]

# name -> arguments of the .gradient call that fixes the activity pattern
EXAMPLES = {
    "foo": (1.0,),
    "pow_while": (2.0, 3),
    "pow_for": (2.0, 3),
    "pow_rec": (2.0, 3),
    "branchy": (0.5, 0.25),
    "logsumexp": (np.linspace(-1.0, 1.0, 5),),
    "sum_of_squares": (np.linspace(-1.0, 1.0, 5),),
    "dense_layer": (np.ones((2, 3)), np.ones(3), np.ones(2)),
}


def emitted(name: str) -> str:
    d = zpy.differentiable(getattr(golden_programs, name))
    d.gradient(*EXAMPLES[name])
    return d.source


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_emitted_source_matches_golden(name):
    source = emitted(name)
    path = GOLDEN / f"{name}.py"
    if os.environ.get("ZPY_UPDATE_GOLDEN") == "1":
        path.write_bytes(source.encode())
    assert path.exists(), f"no golden file {path}: run with ZPY_UPDATE_GOLDEN=1"
    assert source.encode() == path.read_bytes(), (
        f"emitted source of {name} changed; if intended, rerun with ZPY_UPDATE_GOLDEN=1 and review the diff"
    )


# name -> (primals, tangents) of the .jvp call: the emitted pushforward
JVP_EXAMPLES = {
    "foo": ((1.0,), (1.0,)),
    "pow_while": ((2.0, 3), (1.0, None)),
    "branchy": ((0.5, 0.25), (1.0, 0.0)),
    "logsumexp": ((np.linspace(-1.0, 1.0, 5),), (np.ones(5),)),
    "dense_layer": ((np.ones((2, 3)), np.ones(3), np.ones(2)), (np.ones((2, 3)), None, np.ones(2))),
}


def emitted_jvp(name: str) -> str:
    d = zpy.differentiable(getattr(golden_programs, name))
    d.jvp(*JVP_EXAMPLES[name])
    return d.jvp_source


@pytest.mark.parametrize("name", sorted(JVP_EXAMPLES))
def test_emitted_pushforward_matches_golden(name):
    source = emitted_jvp(name)
    path = GOLDEN / f"{name}_jvp.py"
    if os.environ.get("ZPY_UPDATE_GOLDEN") == "1":
        path.write_bytes(source.encode())
    assert path.exists(), f"no golden file {path}: run with ZPY_UPDATE_GOLDEN=1"
    assert source.encode() == path.read_bytes(), (
        f"emitted pushforward of {name} changed; if intended, rerun with ZPY_UPDATE_GOLDEN=1 and review the diff"
    )


def test_every_golden_file_has_an_example():
    assert {p.stem for p in GOLDEN.glob("*.py")} == set(EXAMPLES) | {f"{n}_jvp" for n in JVP_EXAMPLES}


SCRIPT = """
import json
from tests.ad import test_golden
print(json.dumps({name: test_golden.emitted(name) for name in sorted(test_golden.EXAMPLES)}
                 | {name + "_jvp": test_golden.emitted_jvp(name) for name in sorted(test_golden.JVP_EXAMPLES)}))
"""


def sources_in_fresh_interpreter(hash_seed: str, before: str = "") -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run(
        [sys.executable, "-c", before + SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        check=True,
    )
    return json.loads(out.stdout)


def test_emitted_source_does_not_depend_on_what_ran_before():
    """A rule that serves several functions (``operator.pow``, ``np.power``)
    is inlined for the one called, whichever was lowered first (reading
    the rules table lowers them all)."""
    first = sources_in_fresh_interpreter("0", "from zygote_py.ad import catalog; catalog.markdown()\n")
    assert first == sources_in_fresh_interpreter("0")


def test_emitted_source_is_deterministic():
    first = sources_in_fresh_interpreter("0")
    second = sources_in_fresh_interpreter("12345")
    assert first == second
    assert first == ({name: emitted(name) for name in sorted(EXAMPLES)}
                     | {name + "_jvp": emitted_jvp(name) for name in sorted(JVP_EXAMPLES)})
