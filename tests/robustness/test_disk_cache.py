"""The on-disk cache of compiled gradients (``ZPY_CACHE_DIR``,
``zpy.cache_dir``; :mod:`zygote_py.ad.diskcache`).

Each scenario runs fresh Python processes on one cache directory and a
model module written to a temporary directory, and reads what the cache
did from ``diskcache.stats`` (never from timings): a second process loads
the first one's compilation; a corrupted, truncated, foreign or moved entry
is never run and is compiled again; an edited function, an edited helper it
inlined, a changed global and another zygote_py version are compiled again;
processes and threads writing at once leave a valid cache. Every gradient
is checked against central finite differences of the model.
"""
from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import marshal
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.ad import diskcache

ROOT = Path(__file__).resolve().parents[2]

MODEL = """
import math
import numpy as np

X = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
SCALE = {scale}


def layer(W, b):
    return np.{activation}(X @ W + b)


def sine_layer(W, b):
    return np.sin(X @ W + b)


def loss(W, b):
    h = layer(W, b)
    return np.sum(h * h) * SCALE / {divisor}


def other(x, y):
    return math.sin(x) * y ** 2
"""

V1 = dict(scale="0.5", activation="tanh", divisor="4")

W0 = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.2]])
B0 = np.array([0.05, -0.1])

RUN = """
import json, sys, threading
import numpy as np
import zygote_py as zpy
from zygote_py.ad import diskcache
import model
W = np.array({W})
b = np.array({b})
out = {{}}
{body}
out["stats"] = dict(diskcache.stats)
print(json.dumps(out))
"""

GRADIENT = 'out["loss"] = [g.tolist() for g in zpy.gradient(model.loss, W, b)]'


def write_model(folder: Path, **changes: str) -> Path:
    path = folder / "model.py"
    path.write_text(MODEL.format(**{**V1, **changes}))
    return path


def run(cache: Path, folder: Path, body: str = GRADIENT) -> dict:
    """Run ``body`` in a fresh process with the cache in ``cache`` and
    ``folder``'s model importable; returns what it put in ``out``, and the
    cache's ``stats``."""
    script = RUN.format(W=W0.tolist(), b=B0.tolist(), body=textwrap.dedent(body))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=folder,
        env=environment(cache, folder),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def environment(cache: Path, folder: Path) -> dict[str, str]:
    """A process's environment: the cache in ``cache``, the model in
    ``folder`` importable and read from its source every time."""
    return {**os.environ, "ZPY_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}


def load_model(path: Path):
    """The model as the parent process sees it (for finite differences)."""
    spec = importlib.util.spec_from_file_location(f"model_{hashlib.sha1(path.read_bytes()).hexdigest()}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central_differences(f, args: tuple, h: float = 1e-6) -> list[np.ndarray]:
    """The central difference of ``f`` along every item of every array argument."""
    out = []
    for i, a in enumerate(args):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            hi, lo = a.copy(), a.copy()
            hi[j] += h
            lo[j] -= h
            g[j] = (f(*args[:i], hi, *args[i + 1:]) - f(*args[:i], lo, *args[i + 1:])) / (2 * h)
        out.append(g)
    return out


def assert_loss_gradient(model_path: Path, grads: list) -> None:
    expected = central_differences(load_model(model_path).loss, (W0, B0))
    for got, fd in zip(grads, expected):
        np.testing.assert_allclose(np.array(got), fd, rtol=1e-6, atol=1e-9)


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.zpyc"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    f = tmp_path / "src"
    f.mkdir()
    return f


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_a_second_process_loads_the_first_ones_gradient(folder, cache):
    path = write_model(folder)
    first = run(cache, folder)
    assert first["stats"] == {"misses": 1, "stored": 1}
    assert_loss_gradient(path, first["loss"])
    assert len(entries(cache)) == 1
    assert (cache / "key").stat().st_mode & 0o777 == 0o600
    assert cache.stat().st_mode & 0o777 == 0o700
    second = run(cache, folder, GRADIENT + """
d = zpy.differentiable(model.loss)
y, back = d.pullback(W, b)
out["pullback"] = [g.tolist() for g in back(1.0)]
out["source"] = d.source
out["adjoint_ir"] = d.adjoint_ir  # (compiled again from the source: not stored)
""")
    assert second["stats"] == {"hits": 1}
    assert second["loss"] == first["loss"]  # the same code
    assert_loss_gradient(path, second["pullback"])
    assert "def loss_forward(W, b):" in second["source"]
    assert second["adjoint_ir"].startswith("# forward")


def test_a_loaded_gradient_is_differentiated_again(folder, cache):
    """Nested differentiation reads the emitted definition stored with the
    code: the Hessian of ``other`` from its cached gradient."""
    write_model(folder)
    body = 'out["hessian"] = np.array(zpy.hessian(model.other, 0.3, 1.2), dtype=float).tolist()'
    first = run(cache, folder, body)
    second = run(cache, folder, body)
    assert first["stats"]["stored"] >= 1 and second["stats"]["hits"] >= 1 and "stored" not in second["stats"]
    x, y, h = 0.3, 1.2, 1e-5

    def grad(x, y):
        return np.array([np.cos(x) * y ** 2, 2 * np.sin(x) * y])

    fd = np.array([(grad(x + h, y) - grad(x - h, y)) / (2 * h), (grad(x, y + h) - grad(x, y - h)) / (2 * h)])
    np.testing.assert_allclose(np.array(second["hessian"]), fd, rtol=1e-6)
    assert second["hessian"] == first["hessian"]


def forge(marker: Path) -> bytes:
    """An entry in the cache's own layout whose code, if it ever ran, would
    write ``marker`` and exit, and whose pickles would do the same when
    unpickled; signed with a key that is not the directory's."""
    code = compile(f"open({str(marker)!r}, 'w').write('ran'); raise SystemExit(3)", "forged", "exec")

    class Trap:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').write('unpickled'); raise SystemExit(4)",))

    trap = pickle.dumps(Trap())
    payload = marshal.dumps((((), ("W", "b"), None, (), None), (), (), ((code, (), trap), (code, (), trap))))
    mac = hmac.new(os.urandom(32), payload, hashlib.sha256).digest()
    return diskcache.MAGIC + mac + payload


@pytest.fixture(scope="module")
def two_entries(tmp_path_factory) -> tuple[Path, Path, str, str]:
    """A model folder and a cache holding the entries of ``other`` and of
    ``loss`` (their file names)."""
    folder = tmp_path_factory.mktemp("src")
    cache = tmp_path_factory.mktemp("cache") / "cache"
    write_model(folder)
    run(cache, folder, 'out["other"] = zpy.gradient(model.other, 0.3, 1.2)')
    other_entry, = entries(cache)
    run(cache, folder)
    entry, = [e for e in entries(cache) if e != other_entry]
    return folder, cache, other_entry.name, entry.name


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "foreign", "moved"])
def test_a_damaged_entry_is_never_run_and_is_rebuilt(two_entries, tmp_path, damage):
    folder, populated, other_name, name = two_entries
    cache = tmp_path / "cache"
    shutil.copytree(populated, cache)
    entry = cache / name
    data = entry.read_bytes()
    marker = tmp_path / "marker"
    if damage == "flip":
        middle = len(data) // 2
        entry.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:])
    elif damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "foreign":
        entry.write_bytes(forge(marker))
    else:  # a valid entry of another function, under this one's name
        entry.write_bytes((cache / other_name).read_bytes())
    again = run(cache, folder)
    assert again["stats"] == {"rejected": 1, "stored": 1}
    assert not marker.exists()
    assert_loss_gradient(folder / "model.py", again["loss"])
    assert run(cache, folder)["stats"] == {"hits": 1}


def test_an_edited_function_is_compiled_again(folder, cache):
    write_model(folder)
    run(cache, folder)
    path = write_model(folder, divisor="3")
    edited = run(cache, folder)
    assert edited["stats"] == {"misses": 1, "stored": 1}  # another key
    assert_loss_gradient(path, edited["loss"])
    assert len(entries(cache)) == 2


@pytest.mark.parametrize("change", [dict(activation="sin"), dict(scale="2.0"), dict(scale="np.array(2.0)")])
def test_an_entry_whose_helper_or_global_changed_is_stale(folder, cache, change):
    """``loss`` is the same code, but the helper it inlined, or the value
    of a global it reads, is not what it was compiled with."""
    write_model(folder)
    run(cache, folder)
    path = write_model(folder, **change)
    changed = run(cache, folder)
    assert changed["stats"] == {"stale": 1, "stored": 1}
    assert_loss_gradient(path, changed["loss"])
    assert run(cache, folder)["stats"] == {"hits": 1}


def test_rebinding_a_helper_after_loading_compiles_again(folder, cache):
    """The in-memory guards hold for a loaded compilation: a helper rebound
    after the load is differentiated, not the cached one."""
    write_model(folder)
    run(cache, folder)
    rebound = run(cache, folder, GRADIENT + """
model.layer = model.sine_layer
out["rebound"] = [g.tolist() for g in zpy.gradient(model.loss, W, b)]
""")
    assert rebound["stats"] == {"hits": 1, "stale": 1, "stored": 1}
    assert_loss_gradient(write_model(folder, activation="sin"), rebound["rebound"])


CLOSURE = """
import numpy as np


def make(W, b):
    def loss(x):
        return np.sum(np.tanh(x @ W + b) ** 2)
    return loss
"""

CLOSURE_GRADIENT = """
x = np.array([0.5, -1.0, 2.0])
loss = model.make(W{scale}, b)
out["g"] = zpy.gradient(loss, x)[0].tolist()
"""


@pytest.mark.parametrize("scale, kept", [("", True), (" * 3.0", True), (".astype(np.float32)", False)])
def test_a_closure_capturing_arrays_is_cached_by_their_kind(folder, cache, scale, kept):
    """A closure's compilation rests on the kinds of the arrays it
    captures: another process's closure around other weights of the same
    kind loads it; one around weights of another dtype is compiled again."""
    (folder / "model.py").write_text(CLOSURE)
    first = run(cache, folder, CLOSURE_GRADIENT.format(scale=""))
    assert first["stats"] == {"misses": 1, "stored": 1}
    second = run(cache, folder, CLOSURE_GRADIENT.format(scale=scale))
    assert second["stats"] == ({"hits": 1} if kept else {"stale": 1, "stored": 1})
    x = np.array([0.5, -1.0, 2.0])
    W = eval("W0" + scale)
    loss = load_model(folder / "model.py").make(W, B0)
    fd = [(loss(x + h) - loss(x - h)) / 2e-6 for h in np.eye(3) * 1e-6]
    np.testing.assert_allclose(second["g"], fd, rtol=1e-5, atol=1e-8)


OBJECTS = """
from base import Base


class Leaf(Base):
    def __init__(self, value):
        self.value = value


def scaled(e, x):
    if isinstance(e, Leaf):  # (folded: the compilation is for an object of Leaf)
        return e.value * x * x
    return x
"""

OBJECT_GRADIENT = """
import model
out["g"] = zpy.gradient(model.scaled, model.Leaf(0.5), 1.5)[1]
"""


def test_a_compilation_for_an_object_of_a_class_is_cached_by_its_classes(folder, cache):
    """A function given an object is compiled for its class (its class
    tests folded): another process loads it while the modules of the
    class and its bases are unchanged, and compiles it again once the
    module of a base class is edited."""
    (folder / "model.py").write_text(OBJECTS)
    (folder / "base.py").write_text("class Base:\n    pass\n")
    first = run(cache, folder, OBJECT_GRADIENT)
    assert first["stats"] == {"misses": 1, "stored": 1} and first["g"] == pytest.approx(1.5, rel=1e-12)
    assert run(cache, folder, OBJECT_GRADIENT)["stats"] == {"hits": 1}
    (folder / "base.py").write_text("class Base:\n    unit = 1.0\n")
    edited = run(cache, folder, OBJECT_GRADIENT)
    assert edited["stats"] == {"misses": 1, "stored": 1} and edited["g"] == pytest.approx(1.5, rel=1e-12)


def test_another_zygote_py_version_does_not_read_the_entry(folder, cache):
    path = write_model(folder)
    run(cache, folder)
    other = run(cache, folder, "import zygote_py._version\nzygote_py._version.__version__ = '0.0.0+other'\n" + GRADIENT)
    assert other["stats"] == {"misses": 1, "stored": 1}
    assert_loss_gradient(path, other["loss"])
    assert run(cache, folder)["stats"] == {"hits": 1}


def test_a_compilation_that_cannot_be_rebuilt_is_not_stored(folder, cache):
    """A global holding a ``functools.partial`` has no import name and no
    fingerprint: the gradient is compiled in memory only (``scaled``,
    which the partial calls at run time, is stored)."""
    path = folder / "model.py"
    path.write_text(textwrap.dedent("""
        import functools

        def scaled(k, x):
            return k * x

        DOUBLED = functools.partial(scaled, 2.0)

        def loss(x):
            return DOUBLED(x) * x
    """))
    f, x, h = load_model(path).loss, 1.5, 1e-6
    for _ in range(2):
        out = run(cache, folder, 'out["g"] = zpy.gradient(model.loss, 1.5)')
        assert out["stats"]["uncacheable"] == 1
        np.testing.assert_allclose(out["g"], [(f(x + h) - f(x - h)) / (2 * h)], rtol=1e-6)
    assert [functions_of(e) for e in entries(cache)] == [["scaled_forward", "scaled_gradient"]]


def functions_of(entry: Path) -> list[str]:
    """The names of the functions an entry holds the code of."""
    payload = entry.read_bytes()[len(diskcache.MAGIC) + hashlib.sha256().digest_size:]
    return [code.co_name for code, _, _ in marshal.loads(payload)[-1]]


def test_processes_writing_at_once_leave_a_valid_cache(folder, cache):
    path = write_model(folder)
    script = RUN.format(W=W0.tolist(), b=B0.tolist(), body=GRADIENT)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, cwd=folder, env=environment(cache, folder)) for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        result = json.loads(out.splitlines()[-1])
        assert_loss_gradient(path, result["loss"])
    assert len(entries(cache)) == 1
    assert sorted(p.name for p in cache.iterdir()) == [entries(cache)[0].name, "key"]  # no temporary file left
    assert run(cache, folder)["stats"] == {"hits": 1}


def test_threads_writing_at_once_leave_a_valid_cache(folder, cache):
    path = write_model(folder)
    body = """
    results = {}
    def work(i):
        Wi = W + i
        results[i] = [g.tolist() for g in zpy.gradient(model.loss, Wi, b)]
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    out["loss"] = [results[i] for i in range(4)]
    """
    first = run(cache, folder, body)
    second = run(cache, folder, body)
    assert first["stats"] == {"misses": 1, "stored": 1} and second["stats"] == {"hits": 1}
    f = load_model(path).loss
    for i, grads in enumerate(second["loss"]):
        for got, fd in zip(grads, central_differences(f, (W0 + i, B0))):
            np.testing.assert_allclose(np.array(got), fd, rtol=1e-6, atol=1e-9)


def test_a_directory_others_may_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(zpy.CacheError, match="not yours alone"):
        zpy.cache_dir(shared)
    assert diskcache._STATE["requested"] != str(shared)


def test_a_key_others_may_read_is_refused(tmp_path):
    mine = tmp_path / "mine"
    try:
        assert zpy.cache_dir(mine) == mine.resolve()
    finally:
        zpy.cache_dir(None)
    (mine / "key").chmod(0o644)
    with pytest.raises(zpy.CacheError, match="delete"):
        zpy.cache_dir(mine)
