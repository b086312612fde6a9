"""The roundtrip compile cache: keyed by code, so a redefinition is picked
up; globals and closure cells are read when the function runs."""
import importlib.util
import sys
import textwrap

import zygote_py as zpy


def load(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_compiled_once_per_code(tmp_path):
    m = load(tmp_path, "cache_once", "def f(x):\n    return x + 1\n")
    assert zpy.roundtrip(m.f).__code__ is zpy.roundtrip(m.f).__code__


def test_a_redefined_function_is_recompiled(tmp_path):
    first = load(tmp_path, "cache_v1", "def f(x):\n    return x + 1\n").f
    second = load(tmp_path, "cache_v2", "def f(x):\n    return x * 10\n").f
    assert zpy.roundtrip(first)(2) == 3
    assert zpy.roundtrip(second)(2) == 20
    assert zpy.roundtrip(first)(2) == 3


def test_globals_are_read_at_call_time(tmp_path):
    m = load(tmp_path, "cache_globals", "K = 2\ndef f(x):\n    return x * K\n")
    g = zpy.roundtrip(m.f)
    assert g(3) == 6
    m.K = 5
    assert g(3) == 15


def test_closure_cells_are_shared_with_the_original(tmp_path):
    m = load(tmp_path, "cache_cells", """
        def make():
            k = 1
            def f(x):
                return x + k
            def bump():
                nonlocal k
                k += 100
            return f, bump
    """)
    f, bump = m.make()
    g = zpy.roundtrip(f)
    assert g(1) == 2
    bump()
    assert g(1) == f(1) == 102
