"""The examples in docs/api.md and docs/custom_rules.md run as written and
print what the pages say (doctest)."""
import doctest
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zpy

DOCS = Path(__file__).parents[2] / "docs"


@pytest.mark.parametrize("page", ["api.md", "custom_rules.md"])
def test_page_examples_run_as_written(page):
    try:
        result = doctest.testfile(str(DOCS / page), module_relative=False, verbose=False,
                                  optionflags=doctest.NORMALIZE_WHITESPACE)
    finally:
        # custom_rules.md registers a rule for np.interp: leave the registry as the other tests expect it
        zpy.rules.remove(np.interp)
    assert result.attempted > 10
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in docs/{page} failed (see the output above)"
