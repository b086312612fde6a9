"""Golden files of the round-trip emitter: ``zygote_py.roundtrip(f)``'s
source for each function of ``golden_cases.py`` must equal
``golden/<name>.py`` byte for byte, so that any change to the emitted code
shows up in review. Run with ``ZPY_UPDATE_GOLDEN=1`` to rewrite the files
after a deliberate change (and read the diff). Each recompiled function must
also behave like the original on its inputs."""
from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from zygote_py import roundtrip

from .golden_cases import CASES

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ZPY_UPDATE_GOLDEN") == "1"


def golden_path(func: Callable) -> Path:
    return GOLDEN / f"{func.__name__}.py"


@pytest.mark.parametrize("func", list(CASES), ids=lambda f: f.__name__)
def test_emitted_source_matches_golden(func):
    source = roundtrip(func).__zpy_source__.encode()
    path = golden_path(func)
    if UPDATE:
        path.write_bytes(source)
    assert path.exists(), f"no golden file {path.name}: run with ZPY_UPDATE_GOLDEN=1"
    assert source == path.read_bytes(), f"{path.name} differs: run with ZPY_UPDATE_GOLDEN=1 and review the diff"


def test_every_golden_file_has_a_case():
    assert sorted(p.name for p in GOLDEN.glob("*.py")) == sorted(golden_path(f).name for f in CASES)


def outcome(func: Callable, args: tuple) -> tuple:
    try:
        return ("returned", func(*copy.deepcopy(args)))
    except Exception as e:  # the exception is the outcome compared
        return ("raised", type(e), e.args)


@pytest.mark.parametrize(
    "func, args",
    [pytest.param(f, args, id=f"{f.__name__}-{i}") for f, inputs in CASES.items() for i, args in enumerate(inputs)],
)
def test_roundtrip_behaves_like_the_original(func, args: Any):
    assert outcome(roundtrip(func), args) == outcome(func, args)
