"""Gradient modules as users get them: the examples' emitted modules (golden
files, kept current by ``zpy emit --check``) and a realistic module's,
run in a process where ``import zygote_py`` fails, against ``zpy.pullback``,
``zpy.gradient`` and central finite differences; pyflakes-clean; fast.

``ZPY_UPDATE_GOLDEN=1`` rewrites the golden files after an intended change
(review the diff)."""
import ast
import dataclasses
import importlib
import importlib.util
import os
import pickle
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pyflakes.api
import pyflakes.reporter
import pytest
import scipy

import zygote_py as zpy
from zygote_py.cli import main

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[1] / "examples"
GOLDEN = HERE / "golden"
REALISTIC = HERE / "realistic"
UPDATE = os.environ.get("ZPY_UPDATE_GOLDEN") == "1"
SOURCES = sorted(p for p in EXAMPLES.glob("*.py") if not p.stem.endswith("_grad"))

# digits' load and save_plot import scikit-learn and matplotlib, which may be absent: their reason would differ
FUNCTIONS = {"digits": ["log_softmax", "cross_entropy", "logistic_loss", "mlp_loss", "logistic_predict", "mlp_predict"],
             "dask_logistic": ["loss"]}

rng = np.random.default_rng(11)


def normal(*shape):
    return rng.normal(size=shape)


ONEHOT = np.eye(4)[[0, 2, 3]]
GP = {"log_length": 0.2, "log_signal": -0.3, "log_noise": -1.0, "mean": 0.1}
CASES = {  # module → (function, arguments): every function in the golden module
    "black_scholes": [("norm_cdf", (0.3,)), ("call_price", (100.0, 105.0, 0.03, 0.2, 0.75)), ("norm_pdf", (0.4,)),
                      ("closed_form_greeks", (100.0, 105.0, 0.03, 0.2, 0.75)),  # (a dict of values)
                      ("erf_array", (normal(4),)),  # (a list appended to)
                      ("chain_value", (100.0, np.array([90.0, 100.0, 110.0]), 0.03, 0.2, 0.75,
                                       np.array([1.0, -2.0, 0.5])))],
    "dask_logistic": [("loss", (normal(8), 0.3, normal(20, 8), (normal(20) > 0).astype(float)))],
    "ciede2000": [("hue_angle", (0.3, -0.5)), ("hue_angle", (-0.2, -0.4)), ("linear", (0.5,)), ("linear", (0.02,)),
                  ("lab_f", (0.5,)), ("lab_f", (0.001,))],
    "demo": [("power", (1.3, 3)), ("foo", (0.7,)), ("layer", (normal(3, 5), normal(3)))],
    "digits": [("log_softmax", (normal(3, 4),)), ("cross_entropy", (normal(3, 4), ONEHOT)),
               ("logistic_loss", ({"W": normal(5, 4), "b": normal(4)}, normal(3, 5), ONEHOT)),
               ("mlp_loss", ({"W1": normal(5, 6), "b1": normal(6), "W2": normal(6, 4), "b2": normal(4),
                              "unused": normal(2)}, normal(3, 5), ONEHOT, 0.01)),
               ("logistic_predict", ({"W": normal(5, 4), "b": normal(4)}, normal(3, 5))),
               ("mlp_predict", ({"W1": normal(5, 6), "b1": normal(6), "W2": normal(6, 4), "b2": normal(4)},
                                normal(3, 5)))],
    "lstm": [("sigmoid", (normal(3, 2),)),
             ("lstm_loss", ({"Wx": normal(2, 12), "Wh": normal(3, 12), "b": normal(12), "Wy": normal(3, 1),
                             "by": normal(1)}, normal(4, 5, 2), normal(4)))],  # (not annotated: kinds from use)
    "ode_net": [("network", (normal(2), 0.5, normal(4, 2), normal(4), normal(2, 4)))],
    "projectile": [("flight_range", (0.7, 20.0, 0.02, 0.01))],
    "regression": [("predict", (normal(3), 0.2, normal(5, 3))), ("loss", (normal(3), 0.2, normal(5, 3), normal(5))),
                   ("growth", (0.3, 12))],
    "model": [("squares", (normal(4),)), ("shifted", (normal(4), 0.7)), ("energy", (normal(4), 0.4)),
              ("weighted", (normal(4),)), ("moment", (normal(4),)),
              ("Params.predict", ("PARAMS", normal(3))), ("loss", ("PARAMS", normal(5, 3), normal(5)))],
    # (multivariate_normal.logpdf's formula: operators on the rank test's basis, whose kind is known only when
    # it runs, by their rules; predict returns a pair)
    "gaussian_process": [("kernel", ({"log_length": 0.2, "log_signal": -0.3, "mean": 0.0}, normal(4, 2),
                                     normal(3, 2))),
                         ("log_marginal_likelihood", (GP, normal(5, 1), normal(5))),
                         ("predict", (GP, normal(5, 1), normal(5), normal(3, 1)))],
    "mixture": [("log_likelihood", ({"logits": normal(3), "means": normal(3, 2), "log_scales": 0.1 * normal(3, 2)},
                                    normal(7, 2)))],
}
def golden(source: Path) -> Path:
    return GOLDEN / f"{source.stem}_grad.py"


def command(source: Path) -> list[str]:
    return ["emit", str(source), "-o", str(golden(source)), "--skip-failing",
            *(f for name in FUNCTIONS.get(source.stem, []) for f in ("--function", name))]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_golden_module_is_current(source):
    """``zpy emit --check`` as in CI (the command the golden file's header names)."""
    if UPDATE:
        assert main(command(source)) == 0
    assert golden(source).is_file(), f"no golden file for {source.name}: run with ZPY_UPDATE_GOLDEN=1"
    assert golden(source).read_text().splitlines()[1].endswith("--skip-failing")
    assert main([*command(source), "--check"]) == 0, "stale: rerun with ZPY_UPDATE_GOLDEN=1 and review the diff"


def test_every_example_has_a_case_for_each_emitted_function():
    for source in SOURCES:
        tree = ast.parse(golden(source).read_text())
        defined = {d.name for d in tree.body if isinstance(d, ast.FunctionDef)}
        emitted = {d[:-len("_gradient")] for d in defined  # (NAME_forward and NAME_gradient: not a helper)
                   if d.endswith("_gradient") and d[:-len("_gradient")] + "_forward" in defined}
        assert emitted == {f.replace(".", "_") for f, _ in CASES.get(source.stem, [])}, source.stem  # (none: nothing emitted)


@pytest.fixture(scope="module")
def realistic(tmp_path_factory):
    """Every function of the realistic module, emitted without --skip-failing:
    its sibling import (helpers.drag) inlined, enumerate over an array, a
    generator passed to sum."""
    out = tmp_path_factory.mktemp("realistic") / "model_grad.py"
    assert main(["emit", str(REALISTIC / "model.py"), "-o", str(out)]) == 0
    return out


def test_every_function_of_the_realistic_module_emits(realistic):
    text = realistic.read_text()
    assert "Not emitted" not in text and "import helpers" not in text
    assert all(f"def {name.replace('.', '_')}_gradient" in text for name, _ in CASES["model"])


def finite_differences(f, args, cot, h=1e-6):
    """Central differences of ``sum(cot * f(*args))`` in each float argument
    (in each field of a dataclass argument: a namespace of them)."""
    out = []
    for i, a in enumerate(args):
        if isinstance(a, int):
            out.append(None)
            continue
        if isinstance(a, dict):  # (a dict of the items' gradients)
            keys = list(a)
            parts = finite_differences(lambda *v: f(*args[:i], dict(zip(keys, v)), *args[i + 1:]),
                                       [a[k] for k in keys], cot, h)
            out.append(dict(zip(keys, parts)))
            continue
        if dataclasses.is_dataclass(a):
            names = [field.name for field in dataclasses.fields(a)]
            parts = [finite_differences(lambda *v: f(*args[:i], dataclasses.replace(a, **dict(zip(names, v))),
                                                     *args[i + 1:]), [getattr(a, n) for n in names], cot, h)]
            out.append(types.SimpleNamespace(**dict(zip(names, parts[0]))))
            continue
        x = np.array(a, dtype=float)
        g = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[k] += h
            down[k] -= h
            shift = [*args[:i], up if x.ndim else float(up), *args[i + 1:]]
            back = [*args[:i], down if x.ndim else float(down), *args[i + 1:]]
            g[k] = change(cot, f(*shift), f(*back)) / (2 * h)
        out.append(g if x.ndim else float(g))
    return out


def change(cot, up, down):
    """``sum(cot * (up - down))``; for dict values (``cot`` a dict too),
    summed over their keys."""
    if isinstance(cot, dict):
        return sum(change(cot[k], up[k], down[k]) for k in cot)
    return np.sum(cot * (np.asarray(up) - np.asarray(down)))


RUN = """
import pickle, sys, types
sys.path[:0] = {path!r}
try:
    import zygote_py
except ImportError:
    pass
else:
    raise SystemExit("zygote_py is importable")
with open({jobs!r}, "rb") as f:
    jobs, stubs = pickle.load(f)
for name, values in stubs.items():  # (what a gradient module reads from its source module, by name)
    sys.modules[name] = types.ModuleType(name)
    vars(sys.modules[name]).update(values)
results = []
for module, function, args, cot, scalar in jobs:
    g = __import__(module)
    function = function.replace(".", "_")  # (a method Class.name: Class_name_forward)
    y, back = getattr(g, function + "_forward")(*args)
    results.append((y, back(cot), back(cot), getattr(g, function + "_gradient")(*args) if scalar else None))
with open({out!r}, "wb") as f:
    pickle.dump(results, f)
"""


def numpy_only_path(tmp_path: Path) -> Path:
    """A directory holding NumPy and SciPy (symlinked: the examples' own
    imports) and nothing else: with ``python -S -E`` and only this on
    sys.path, zygote_py cannot be imported."""
    site = tmp_path / "site"
    site.mkdir()
    for root in (Path(np.__file__).parent, Path(scipy.__file__).parent):
        for name in (root.name, root.name + ".libs"):
            if (root.parent / name).exists():
                (site / name).symlink_to(root.parent / name)
    return site


def source_module(stem: str):
    if stem == "model":  # (by its own name, as the process running its gradient module imports it)
        sys.path.insert(0, str(REALISTIC))
        try:
            return importlib.import_module("model")
        finally:
            sys.path.remove(str(REALISTIC))
    path = EXAMPLES / f"{stem}.py"
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"source_{stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def same(got, want, **tol):
    """Equal gradients; a dataclass's, a namespace (a gradient module's) or
    a Tangent (zygote_py's), field by field; a dict's, item by item (the
    same keys)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (got, want)
        for key, value in got.items():
            same(value, want[key], **tol)
    elif isinstance(want, (types.SimpleNamespace, zpy.Tangent)):
        assert isinstance(got, types.SimpleNamespace), (got, want)
        for name, value in vars(got).items():
            same(value, getattr(want, name), **tol)
    elif want is None or got is None:
        assert got is None and want is None or np.all(np.asarray(got if want is None else want) == 0), (got, want)
    else:
        np.testing.assert_allclose(got, want, **tol)


def test_emitted_modules_run_without_zygote_py(tmp_path, realistic):
    """Every golden module and the realistic one, in one process without
    zygote_py: values, pullbacks (called twice) and gradients against
    ``zpy.pullback`` and central differences."""
    here = tmp_path / "modules"
    here.mkdir()
    modules = {s.stem: golden(s) for s in SOURCES} | {"model": realistic}
    stubs = {}
    for stem, path in modules.items():
        (here / f"{stem}_grad.py").write_text(path.read_text())
        if stem == "model":  # (imported itself: its sibling helpers.py is on the path)
            continue
        for line in path.read_text().splitlines():  # the source module's values, read by name
            m = re.match(rf"from {stem} import (\w+)$", line)
            if m:
                stubs.setdefault(stem, {})[m.group(1)] = getattr(source_module(stem), m.group(1))
    jobs, expected = [], []
    for stem, cases in CASES.items():
        source = source_module(stem)
        for function, args in cases:
            fn = source
            for part in function.split("."):
                fn = getattr(fn, part)
            args = tuple(source.Params(normal(3), 0.3) if isinstance(a, str) else a for a in args)
            y = fn(*args)
            cot = {k: normal(*np.shape(v)) for k, v in y.items()} if isinstance(y, dict) else \
                tuple(normal(*np.shape(v)) for v in y) if isinstance(y, tuple) else \
                1.0 if np.ndim(y) == 0 else normal(*np.shape(y))  # (a pair's: a pair, as zpy.pullback checks)
            jobs.append((f"{stem}_grad", function, args, cot, not isinstance(y, dict) and np.ndim(y) == 0))
            expected.append((fn, args, y, cot))
    (tmp_path / "jobs.pkl").write_bytes(pickle.dumps((jobs, stubs)))
    out = tmp_path / "results.pkl"
    path = [str(numpy_only_path(tmp_path)), str(here), str(REALISTIC)]
    script = RUN.format(path=path, jobs=str(tmp_path / "jobs.pkl"), out=str(out))
    run = subprocess.run([sys.executable, "-S", "-E", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    for (module, function, *_), (fn, args, y, cot), (y_got, grads, again, fused) in zip(
            jobs, expected, pickle.loads(out.read_bytes())):
        where = f"{module}.{function}"
        same(y_got, y, rtol=1e-13, err_msg=where)
        if not isinstance(y, dict) and np.asarray(y).dtype.kind not in "fc":  # (argmax: no gradient to compare)
            continue
        api = zpy.pullback(fn, *args)[1](cot)
        fd = finite_differences(fn, args, cot)
        assert len(grads) == len(args), where
        for g, g2, a, want, approx in zip(grads, again, args, api, fd):
            same(g, want, rtol=1e-10, atol=1e-12, err_msg=where)
            same(g2, g, rtol=0, atol=0, err_msg=where)
            same(0.0 if g is None and approx is not None else g, approx, rtol=1e-5, atol=1e-6, err_msg=where)
            if isinstance(a, np.ndarray):
                assert type(g) is np.ndarray and g.shape == a.shape, where
            if dataclasses.is_dataclass(a):  # (a namespace of its fields' gradients, each of the field's shape)
                assert all(np.shape(getattr(g, n)) == np.shape(getattr(a, n)) for n in vars(g)), where
            if isinstance(a, dict):  # (a dict with its keys: None for an item not read, each read one's shape)
                assert set(g) == set(a) and all(g[k] is None or np.shape(g[k]) == np.shape(a[k]) for k in a), where
        if fused is not None:
            for g, h in zip(fused, grads):
                same(g, h, rtol=1e-12, atol=1e-14, err_msg=where)


def test_golden_modules_pass_pyflakes(realistic):
    for path in [*map(golden, SOURCES), realistic]:
        out, err = [], []

        class Collect:
            def write(self, text):
                out.append(text)

        class Errors:
            def write(self, text):
                err.append(text)

        warnings = pyflakes.api.check(path.read_text(), path.name, pyflakes.reporter.Reporter(Collect(), Errors()))
        assert warnings == 0 and not err, "".join(out + err)


def test_twenty_functions_emit(tmp_path):  # (how long it takes: benchmarks/emit_time.py)
    body = "\n\n".join(
        f"def f{i}(x: np.ndarray, a: float):\n    y = np.tanh(a * x + {i}.0)\n    return np.sum(y * y) + a * {i}.5"
        for i in range(20))
    source = tmp_path / "many.py"
    source.write_text("import numpy as np\n\n\n" + body + "\n")
    assert main(["emit", str(source), "-o", str(tmp_path / "many_grad.py")]) == 0
    assert (tmp_path / "many_grad.py").read_text().count("_gradient(x, a):") == 20


def test_emitting_again_in_one_process_writes_the_same_module(tmp_path):
    # the writer rewrites its own copies of the compiled definitions (gast_to_ast makes new nodes), never the
    # compilation's, which a second emit of the same functions reuses
    from zygote_py.writer import module

    first = module.emit_module(REALISTIC / "model.py").text
    assert module.emit_module(REALISTIC / "model.py").text == first


def test_global_names_of_annotated_and_plain_definitions():
    from zygote_py.frontend import static

    annotated = ast.parse("@deco\ndef f(x: Tau) -> Out:\n    y: Ann = g(x) + K\n    return y").body[0]
    plain = ast.parse("def f(x):\n    y = g(x) + K\n    return y").body[0]
    assert static.global_names(annotated) == static.global_names(plain) and set(static.global_names(plain)) == {"g", "K"}


def test_one_function_or_method_as_a_target(capsys):
    assert main(["emit", f"{REALISTIC / 'model.py'}:squares"]) == 0
    out = capsys.readouterr().out
    assert "def squares_gradient(x):" in out and "shifted" not in out
    assert main(["show", f"{REALISTIC / 'model.py'}:Params.predict"]) == 0
    assert capsys.readouterr().out.startswith("def predict_forward(self, x):")
    assert main(["emit", f"{REALISTIC / 'model.py'}:Params.nothing"]) == 2
