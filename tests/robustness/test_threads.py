"""Threads: eight threads calling ``gradient`` (and ``pullback`` and
``jvp``) at once, on one function and on different ones, get the right
results; and eight threads compiling the same fresh functions at once (an
intermittent failure, from CPython: see the last test)."""
import importlib.util
import math
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zpy

THREADS = 8
CALLS = 40


def shared(x, n):
    r = 1.0
    for i in range(n):
        r = r * x
    return r


def f0(x, n):
    s = 0.0
    k = 0
    while k < n:
        s += math.sin(x * k)
        k += 1
    return s


def f1(x, n):
    return np.sum(np.tanh(np.arange(n) * x))


def f2(x, n):
    if x > 0:
        return x ** n
    return -x * n


def f3(x, n):
    acc = [x]
    for i in range(n):
        acc.append(acc[-1] * 0.5 + x)
    return acc[-1]


EXPECTED = {
    shared: lambda x, n: n * x ** (n - 1),
    f0: lambda x, n: sum(k * math.cos(x * k) for k in range(n)),
    f1: lambda x, n: float(np.sum(np.arange(n) / np.cosh(np.arange(n) * x) ** 2)),
    f2: lambda x, n: n * x ** (n - 1) if x > 0 else -n,
    f3: lambda x, n: sum(0.5 ** i for i in range(n + 1)),
}


def run_threads(work) -> list:
    """Run ``work(t)`` on THREADS threads released together; the errors."""
    barrier = threading.Barrier(THREADS)
    errors = []

    def main(t):
        try:
            barrier.wait()
            work(t)
        except BaseException as e:  # noqa: BLE001  (reported by the test)
            errors.append((t, repr(e)))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often, inside the compiler too
    try:
        threads = [threading.Thread(target=main, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
    finally:
        sys.setswitchinterval(old)
    return errors


def check_calls(functions, t):
    rng = np.random.default_rng(t)
    for k in range(CALLS):
        f = functions[(t + k) % len(functions)]
        x = float(rng.uniform(-1.2, 1.2))
        n = int(rng.integers(1, 6))
        want = EXPECTED[f](x, n)
        mode = k % 3
        if mode == 0:
            got, none = zpy.gradient(f, x, n)
        elif mode == 1:
            _, back = zpy.pullback(f, x, n)
            got, none = back(1.0)
        else:
            _, got = zpy.jvp(f, (x, n), (1.0, None))
            none = None
        assert none is None
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (f.__name__, x, n, got, want)


def warm(functions) -> None:
    """Compile every mode's code for ``functions`` before the threads
    start (see the last test for compiling in the threads)."""
    for f in functions:
        zpy.gradient(f, 0.5, 2)
        zpy.pullback(f, 0.5, 2)[1](1.0)
        zpy.jvp(f, (0.5, 2), (1.0, None))


def test_eight_threads_on_one_function():
    warm([shared])
    assert run_threads(lambda t: check_calls([shared], t)) == []


def test_eight_threads_on_different_functions():
    functions = [f0, f1, f2, f3]
    warm(functions)
    assert run_threads(lambda t: check_calls(functions, t)) == []


def test_eight_threads_compiling_the_same_fresh_functions_at_once():
    """Functions made for this test, so that every thread finds them
    uncompiled and all compile at once (CPython 3.11's AST constructor is
    not safe in several threads at once, python/cpython#106905: zygote_py
    parses and compiles under one lock)."""
    source = "\n".join(f"def g{i}(x, n):\n    return x ** {i + 2} * n\n" for i in range(THREADS))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "zpy_threads_fresh.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("zpy_threads_fresh", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["zpy_threads_fresh"] = module
        spec.loader.exec_module(module)
        functions = [getattr(module, f"g{i}") for i in range(THREADS)]

        def work(t):
            for k in range(THREADS):
                i = (t + k) % THREADS
                g, none = zpy.gradient(functions[i], 1.5, 3)
                assert none is None and g == pytest.approx((i + 2) * 1.5 ** (i + 1) * 3), (i, g)

        errors = run_threads(work)
        del sys.modules["zpy_threads_fresh"]
        assert errors == []
