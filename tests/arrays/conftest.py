"""The ``library`` fixture: each array library of :mod:`tests.arrays.libraries` in turn."""
import pytest

from tests.arrays.libraries import LIBRARIES, Library


@pytest.fixture(params=list(LIBRARIES))
def library(request) -> Library:
    return LIBRARIES[request.param]()
