"""The examples under examples/ are scripts, not a package: each test loads
its script as a module and calls its ``main`` with a small setting."""
import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="session")
def example():
    def load(name):
        module_name = f"zygote_py_example_{name}"
        if module_name not in sys.modules:
            spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        return sys.modules[module_name]
    return load
