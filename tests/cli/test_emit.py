"""``zpy emit``: emit → import → compare with ``zpy.gradient``,
``zpy.pullback`` and central finite differences; standalone modules;
determinism and hygiene; no execution of the source module."""
import ast
import importlib
import math
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.cli import main

CORPUS = Path(__file__).parent / "corpus"
EXAMPLES = Path(__file__).parents[2] / "examples"
rng = np.random.default_rng(7)
W, X, Y = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=4)

CASES = {
    "calls": [
        ("softplus", (0.3,)), ("power", (1.7, 3)), ("iterate", (0.3, 0.7, 4)), ("iterate", (-1.2, 0.4, 3)),
        ("piecewise", (1.0, 0.5)), ("piecewise", (-2.0, 0.5)), ("piecewise", (0.1, 0.5)),
        ("early", (0.4, 2.0)), ("early", (0.01, 100.0)),
    ],
    "arrays": [
        ("mse", (W, X, Y)), ("logsumexp", (rng.normal(size=5),)), ("broadcast", (rng.normal(size=(3, 3)), 0.7)),
        ("broadcast", (rng.normal(size=(3, 3)) - 3.0, 0.7)), ("norms", (rng.normal(size=(2, 3)), 3)),
        ("picks", (rng.normal(size=4),)),
    ],
    "module_values": [("scaled", (0.4,)), ("shifted", (rng.normal(size=3),)), ("near", (0.3, 3)), ("near", (-0.5, 2))],
}


def emit(source: Path, out: Path, *extra: str) -> Path:
    assert main(["emit", str(source), "-o", str(out), *extra]) == 0
    return out


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"emitted_{path.stem}_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def finite_differences(f, args, h=1e-6):
    out = []
    for i, a in enumerate(args):
        if isinstance(a, int):
            out.append(None)
            continue
        x = np.array(a, dtype=float)
        g = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[k] += h
            down[k] -= h
            plus = [*args[:i], up if x.ndim else float(up), *args[i + 1:]]
            minus = [*args[:i], down if x.ndim else float(down), *args[i + 1:]]
            g[k] = (f(*plus) - f(*minus)) / (2 * h)
        out.append(g if x.ndim else float(g))
    return out


def same(a, b, **tol):
    if a is None or b is None:
        assert a is None and b is None
    else:
        np.testing.assert_allclose(a, b, **tol)


@pytest.fixture(scope="module")
def emitted(tmp_path_factory):
    out = tmp_path_factory.mktemp("emitted")
    sys.path.insert(0, str(CORPUS))  # (module_values_grad reads values from module_values, as beside it)
    try:
        yield {name: load(emit(CORPUS / f"{name}.py", out / f"{name}_grad.py")) for name in CASES}
    finally:
        sys.path.remove(str(CORPUS))


@pytest.mark.parametrize("module,function,args", [(m, f, a) for m, cases in CASES.items() for f, a in cases])
def test_emitted_gradient_matches_the_api_and_finite_differences(emitted, module, function, args):
    source = importlib.import_module(f"tests.cli.corpus.{module}")
    fn = getattr(source, function)
    grads = getattr(emitted[module], f"{function}_gradient")(*args)
    expected = zpy.gradient(fn, *args)
    assert len(grads) == len(expected) == len(args)
    for g, e in zip(grads, expected):
        same(g, e, rtol=1e-12, atol=1e-12)
    for g, e in zip(grads, finite_differences(fn, args)):  # (None for a float: no gradient flows, a zero one)
        same(0.0 if g is None and e is not None else g, e, rtol=1e-5, atol=1e-6)
    for g, a in zip(grads, args):
        if isinstance(a, np.ndarray):
            assert type(g) is np.ndarray and g.shape == a.shape


@pytest.mark.parametrize("module,function,args", [(m, f, a) for m, cases in CASES.items() for f, a in cases])
def test_emitted_forward_matches_pullback(emitted, module, function, args):
    source = importlib.import_module(f"tests.cli.corpus.{module}")
    fn = getattr(source, function)
    y, back = getattr(emitted[module], f"{function}_forward")(*args)
    y_api, back_api = zpy.pullback(fn, *args)
    same(y, fn(*args), rtol=1e-14)
    for g, e in zip(back(0.5), back_api(0.5)):
        same(g, e, rtol=1e-12, atol=1e-12)
    for g, e in zip(back(-2.0), back_api(-2.0)):  # called again, as zpy.pullback's may be
        same(g, e, rtol=1e-12, atol=1e-12)


def test_non_scalar_output_has_a_pullback(emitted):
    y, back = emitted["arrays"].predict_forward(W, X)
    dy = rng.normal(size=y.shape)
    dw, dx = back(dy)
    ew, ex = zpy.pullback(zpy_fn("arrays", "predict"), W, X)[1](dy)
    same(dw, ew, rtol=1e-12)
    same(dx, ex, rtol=1e-12)
    with pytest.raises(TypeError, match="real scalar output"):
        emitted["arrays"].predict_gradient(W, X)


def zpy_fn(module, name):
    return getattr(importlib.import_module(f"tests.cli.corpus.{module}"), name)


def test_a_function_needing_zygote_py_at_run_time_fails_at_its_line(tmp_path, capsys):
    # (a nested function assigning a variable of this one (nonlocal): differentiated at run time. math.hypot, and a product with what fact,
    # recursive, called rather than inlined, returns, of a kind known only at run time: by their rules, which
    # check their operands are numbers)
    out = tmp_path / "g.py"
    assert main(["emit", str(CORPUS / "dynamic.py"), "-o", str(out)]) == 3
    err = capsys.readouterr().err
    assert "dynamic.py:25: cannot emit nested: its gradient would call zygote_py.runtime.J" in err
    assert "not differentiable: fact: fact has no differentiated parameter" in err
    assert "--skip-failing" in err and not out.exists() and "chain" not in err and "hyp" not in err
    # --skip-failing: the module without it, listed with its line; fact as not differentiable
    text = emit(CORPUS / "dynamic.py", out, "--skip-failing").read_text()
    assert "#   nested (line 25): its gradient would call zygote_py.runtime.J" in text
    assert "# Not differentiable:\n#   fact: fact has no differentiated parameter" in text
    assert "zygote_py import" not in text and "import zygote_py" not in text
    assert "by_rule(operator.mul, mul_any, t_1, fact(3))" in text and "by_rule(math.hypot, hypot, x, y)" in text
    module = load(out)
    assert module.chain_gradient(0.7)[0] == pytest.approx(12 * 0.7 / (1 + 0.7 ** 2), rel=1e-14)
    dx, dy = module.hyp_gradient(0.7, -0.4)
    r = math.hypot(0.7, -0.4)
    assert (dx, dy) == (pytest.approx(r + 0.7 * 0.7 / r, rel=1e-14), pytest.approx(0.7 * -0.4 / r, rel=1e-14))


@pytest.mark.parametrize("name", ["calls", "arrays", "module_values"])
def test_static_modules_import_nothing_from_zygote_py(tmp_path, name):
    text = emit(CORPUS / f"{name}.py", tmp_path / "g.py").read_text()
    assert "zygote_py import" not in text and "import zygote_py" not in text


def numpy_only_path(tmp_path: Path) -> Path:
    """A directory holding NumPy (symlinked) and nothing else: with
    ``python -S -E`` and only this on sys.path, zygote_py cannot be imported."""
    site = tmp_path / "site"
    site.mkdir()
    root = Path(np.__file__).parent
    for name in (root.name, root.name + ".libs"):
        if (root.parent / name).exists():
            (site / name).symlink_to(root.parent / name)
    return site


RUN = """
import sys
sys.path[:0] = [{site!r}, {here!r}]
try:
    import zygote_py
except ImportError:
    pass
else:
    raise SystemExit("zygote_py is importable")
import numpy as np
import {module} as g
{body}
print("ok")
"""


@pytest.mark.parametrize("source,body", [
    (CORPUS / "calls.py", "assert abs(g.power_gradient(2.0, 3)[0] - 12.0) < 1e-12\n"
                          "print(g.iterate_gradient(0.3, 0.7, 4), g.early_gradient(0.4, 2.0))"),
    (CORPUS / "arrays.py", "v = np.arange(4.0)\nassert g.picks_gradient(v)[0].tolist() == [1.0, 2.0, 4.0, 6.0]\n"
                           "print(g.mse_gradient(np.ones(3), np.ones((4, 3)), np.zeros(4)))"),
    (EXAMPLES / "regression.py", "print(g.loss_gradient(np.ones(3), 0.5, np.ones((4, 3)), np.zeros(4)))"),
    # (nested functions called where they are defined: inlined; checked against central differences of the source)
    (CORPUS / "nested.py", "import nested as m\nh = 1e-6\n"
                           "for f, args in [('closure', [1.3, 0.7]), ('scaled_norm', [np.array([0.3, -1.2, 0.8]), 0.7])]:\n"
                           "    got = getattr(g, f + '_gradient')(*args)\n"
                           "    for i, a in enumerate(args):\n"
                           "        for k in np.ndindex(np.shape(a)):\n"
                           "            up, down = np.array(a, dtype=float), np.array(a, dtype=float)\n"
                           "            up[k] += h\n            down[k] -= h\n"
                           "            pick = lambda v: v if np.ndim(a) else float(v)\n"
                           "            fd = (getattr(m, f)(*args[:i], pick(up), *args[i + 1:])\n"
                           "                  - getattr(m, f)(*args[:i], pick(down), *args[i + 1:])) / (2 * h)\n"
                           "            assert abs(np.asarray(got[i])[k] - fd) < 1e-6 * max(1.0, abs(fd)), (f, i, k)\n"),
])
def test_emitted_module_runs_with_numpy_but_without_zygote_py(tmp_path, source, body):
    site = numpy_only_path(tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    (here / source.name).write_text(source.read_text())  # (the source module beside it, as users keep it)
    emit(source, here / "gradmod.py")
    script = RUN.format(site=str(site), here=str(here), module="gradmod", body=body)
    run = subprocess.run([sys.executable, "-S", "-E", "-c", script], cwd=here, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("ok")


def test_output_is_deterministic(tmp_path):
    """Byte-identical output from fresh processes with different hash seeds."""
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / seed / "g.py"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-m", "zygote_py", "emit", str(CORPUS / "arrays.py"), "-o", str(out)],
                             capture_output=True, text=True, env=env, timeout=120)
        assert run.returncode == 0, run.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def module_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
            names.add(st.name)
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name.partition(".")[0] for a in st.names}
        elif isinstance(st, ast.Assign):
            names |= {t.id for t in st.targets if isinstance(t, ast.Name)}
    return names


@pytest.mark.parametrize("name", ["calls", "arrays", "module_values"])
def test_emitted_modules_compile_and_define_no_unused_names(tmp_path, name):
    text = emit(CORPUS / f"{name}.py", tmp_path / "g.py").read_text()
    tree = ast.parse(text)
    compile(tree, "g.py", "exec")
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    unused = {n for n in module_level_names(tree) - read if not n.endswith(("_forward", "_gradient"))}
    assert not unused
    shown = os.path.relpath(CORPUS / f"{name}.py", tmp_path)
    assert text.startswith(f"# Gradients of {shown}, written by zygote_py {zpy.__version__}.\n"
                           f"# generated — regenerate with zpy emit: zpy emit {shown} -o g.py\n")


def test_selected_functions_only(tmp_path):
    text = emit(CORPUS / "calls.py", tmp_path / "g.py", "--function", "iterate").read_text()
    tree = ast.parse(text)
    defs = {st.name for st in tree.body if isinstance(st, ast.FunctionDef)}
    assert {"iterate_forward", "iterate_gradient"} <= defs
    assert not any(d.startswith(("power_", "piecewise_", "early_")) for d in defs)
    # its callees are inlined, and are part of what the header tracks
    assert "#   softplus" in text and "#   power" in text and "#   early" not in text


def test_stdout_without_output_file(capsys):
    assert main(["emit", str(CORPUS / "calls.py"), "--function", "power"]) == 0
    out = capsys.readouterr().out
    assert "def power_gradient(x, n):" in out and out.startswith("# Gradients of ")


def test_top_level_code_does_not_run(tmp_path, monkeypatch):
    marker = tmp_path / "marker.txt"
    monkeypatch.setenv("ZPY_MARKER", str(marker))
    g = load(emit(CORPUS / "toplevel.py", tmp_path / "g.py"))
    assert not marker.exists()
    (dx,) = g.scaled_gradient(0.3)
    assert dx == pytest.approx(2.0 * np.cos(0.3))


def test_unresolved_name_is_an_error_with_file_and_line(tmp_path, capsys):
    out = tmp_path / "g.py"
    assert main(["emit", str(CORPUS / "unresolved.py"), "-o", str(out), "--function", "uses_last"]) == 3
    err = capsys.readouterr().err
    assert "'LAST'" in err and "unresolved.py:20: cannot emit uses_last" in err and "line 15" in err
    assert "a statement zpy emit does not run" in err
    assert not out.exists()
    # without --function too; --skip-failing leaves it out and names it in the header
    assert main(["emit", str(CORPUS / "unresolved.py"), "-o", str(out)]) == 3 and not out.exists()
    text = emit(CORPUS / "unresolved.py", out, "--skip-failing").read_text()
    assert "def fine_gradient" in text and "#   uses_last (line 20): uses_last reads 'LAST'" in text
    # FACTOR = math.pi / 2, not a literal, is read from the source module by name
    assert "def uses_factor_gradient" in text and "from unresolved import FACTOR" in text


DATACLASS_MODULE = '''import dataclasses

import numpy as np


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: {b}


def loss(p: Params, x: np.ndarray):
    r = x @ p.w + p.b
    return np.sum(r * r) / x.shape[0]
'''


def test_a_dataclass_parameter_is_differentiated_by_its_fields_annotations(tmp_path, capsys):
    """Its gradient is a namespace of the fields', equal to zpy.gradient's
    Tangent; the class is a dependency (--check names it when a field's
    annotation changes); a field of another kind leaves the parameter to
    run time, which a gradient module cannot do: refused, at its line."""
    source = tmp_path / "params.py"
    source.write_text(DATACLASS_MODULE.format(b="float"))
    out = emit(source, tmp_path / "params_grad.py")
    text = out.read_text()
    assert "import zygote_py" not in text and "#   Params " in text
    assert "real_parameters(numbers=dict(p_b=p.b), arrays=dict(p_w=p.w, x=x))" in text
    sys.path.insert(0, str(tmp_path))
    try:
        model, grad = importlib.import_module("params"), importlib.import_module("params_grad")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("params", None), sys.modules.pop("params_grad", None)
    p, x = model.Params(rng.normal(size=3), 0.4), rng.normal(size=(5, 3))
    got, want = grad.loss_gradient(p, x), zpy.gradient(model.loss, p, x)
    np.testing.assert_allclose(got[0].w, want[0].w, rtol=1e-12)
    assert got[0].b == pytest.approx(want[0].b, rel=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    h = 1e-6
    fd = (model.loss(model.Params(p.w, p.b + h), x) - model.loss(model.Params(p.w, p.b - h), x)) / (2 * h)
    assert got[0].b == pytest.approx(fd, rel=1e-6)
    source.write_text(DATACLASS_MODULE.format(b="np.ndarray"))
    assert main(["emit", "--check", str(source), "-o", str(out)]) == 1
    assert "Params changed" in capsys.readouterr().err
    source.write_text(DATACLASS_MODULE.format(b="int"))
    assert main(["emit", str(source), "-o", str(tmp_path / "other.py")]) == 3
    assert "params.py:13: cannot emit loss: its gradient would call zygote_py.runtime.J" in capsys.readouterr().err


DICT_MODULE = '''import typing
from typing import TypedDict

import numpy as np


class Layer(TypedDict):
    W: np.ndarray
    b: np.ndarray
    scale: {scale}


def mlp(params: dict[str, np.ndarray], x: np.ndarray):
    W1, W2 = params["W1"], params["W2"]
    h = np.tanh(x @ W1 + params["b1"])
    return np.sum((h @ W2) ** 2)


def rates(p: typing.Dict[str, float], x: np.ndarray):
    return np.sum(np.exp(p["a"]) * x) + p["b"] * p["b"]


def layer(p: Layer, x: np.ndarray):
    return p["scale"] * np.sum(np.tanh(x @ p["W"] + p["b"]))
'''


def dict_finite_differences(f, d, x, h=1e-6):
    out = {}
    for k, v in d.items():
        v = np.asarray(v, dtype=float)
        g = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            up, down = v.copy(), v.copy()
            up[i] += h
            down[i] -= h
            g[i] = (f({**d, k: up if v.ndim else float(up)}, x) - f({**d, k: down if v.ndim else float(down)}, x)) \
                / (2 * h)
        out[k] = g
    return out


def test_dict_parameters_are_differentiated_by_their_annotations(tmp_path, capsys):
    """``dict[str, np.ndarray]``, ``typing.Dict[str, float]`` and a
    TypedDict: each item read by key is differentiated as a parameter of its
    kind, the gradient a dict with the same keys (None for one not read),
    equal to zpy.gradient's and to finite differences; each item read is
    checked to be of its kind when the gradient runs; the TypedDict is a
    dependency; a key it does not declare is refused at its line."""
    source = tmp_path / "dicts.py"
    source.write_text(DICT_MODULE.format(scale="float"))
    out = emit(source, tmp_path / "dicts_grad.py")
    text = out.read_text()
    assert "import zygote_py" not in text and "#   Layer " in text
    assert "real_parameters(numbers=dict(p_scale=p['scale']), arrays=dict(p_W=p['W'], p_b=p['b'], x=x))" in text
    sys.path.insert(0, str(tmp_path))
    try:
        model, grad = importlib.import_module("dicts"), importlib.import_module("dicts_grad")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("dicts", None), sys.modules.pop("dicts_grad", None)
    x = rng.normal(size=(5, 3))
    cases = [
        ("mlp", {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4), "W2": rng.normal(size=(4, 2)),
                 "unread": rng.normal(size=2)}),
        ("rates", {"a": 0.3, "b": -0.7, "unread": 2.0}),
        ("layer", {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "scale": 1.3}),
    ]
    for name, d in cases:
        f = getattr(model, name)
        got, want = getattr(grad, f"{name}_gradient")(d, x), zpy.gradient(f, d, x)
        y, back = getattr(grad, f"{name}_forward")(d, x)
        assert y == pytest.approx(f(d, x), rel=1e-13)
        fd = dict_finite_differences(f, d, x)
        for g in (got[0], back(1.0)[0]):
            assert set(g) == set(d), name
            for k in d:
                if want[0][k] is None:
                    assert g[k] is None and np.all(fd[k] == 0), (name, k)
                    continue
                np.testing.assert_allclose(g[k], want[0][k], rtol=1e-12, err_msg=f"{name}[{k}]")
                np.testing.assert_allclose(g[k], fd[k], rtol=1e-5, atol=1e-7, err_msg=f"{name}[{k}]")
                assert np.shape(g[k]) == np.shape(d[k])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    with pytest.raises(TypeError, match="params_b1 is a float, but this gradient was emitted for an array"):
        grad.mlp_gradient({**cases[0][1], "b1": 0.5}, x)
    with pytest.raises(TypeError, match="p_a is a ndarray, but this gradient was emitted for a real number"):
        grad.rates_gradient({"a": np.ones(3), "b": 1.0}, x)
    source.write_text(DICT_MODULE.format(scale="np.ndarray"))
    assert main(["emit", "--check", str(source), "-o", str(out)]) == 1
    assert "Layer changed" in capsys.readouterr().err
    # (an item the TypedDict does not declare: read, and multiplied, by the rules, which check it is a number)
    source.write_text(DICT_MODULE.format(scale="float").replace('p["scale"]', 'p["other"]'))
    assert main(["emit", str(source), "-o", str(tmp_path / "other.py")]) == 0
    assert "by_rule(operator.getitem, getitem, p, 'other')" in (tmp_path / "other.py").read_text()
    p = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "scale": 1.0, "other": 0.7}
    sys.path.insert(0, str(tmp_path))
    try:
        got = load(tmp_path / "other.py").layer_gradient(p, x)
        want = zpy.gradient(importlib.import_module("dicts").layer, p, x)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("dicts", None)
    assert got[0]["scale"] is None and want[0]["scale"] is None
    for k in ("W", "b", "other"):
        np.testing.assert_allclose(got[0][k], want[0][k], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


def numeric_gradient(f, args, i, h=1e-6):
    """Central differences of ``f`` in argument ``i`` (each item of a dict)."""
    a = args[i]
    if isinstance(a, dict):
        return {k: numeric_gradient(lambda v: f(*args[:i], {**a, k: v}, *args[i + 1:]), (a[k],), 0, h) for k in a}
    x = np.array(a, dtype=float)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        g[k] = (f(*args[:i], up if x.ndim else float(up), *args[i + 1:])
                - f(*args[:i], down if x.ndim else float(down), *args[i + 1:])) / (2 * h)
    return g if x.ndim else float(g)


def test_unannotated_parameters_take_their_kinds_from_their_use(tmp_path, capsys):
    """A parameter used as an array (x.shape, x @ W, x[i], len(x), a loop
    over it, what a NumPy reduction or an array's arithmetic is given) is
    emitted for an array; one read by string keys for a dict of such items;
    the rest for numbers. Each gradient matches zpy.gradient and finite
    differences; another kind is refused where it runs, naming the
    parameter."""
    source = Path(__file__).parent / "unannotated" / "unannotated.py"
    out = emit(source, tmp_path / "unannotated_grad.py")  # (every function, closure's nested call inlined)
    assert "cannot emit" not in capsys.readouterr().err
    assert "params: a dict (read by key) of W (a real array), b (a real array), decay (a real number)" in \
        out.read_text()
    sys.path.insert(0, str(source.parent))  # (the gradient module reads log from it)
    try:
        model, grad = importlib.import_module("unannotated"), load(out)
    finally:
        sys.path.remove(str(source.parent))
        sys.modules.pop("unannotated", None)
    x = rng.normal(size=(5, 3))
    cases = {
        "dict_loss": ({"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "decay": 0.1}, x,
                      rng.normal(size=(5, 2))),
        "softmax_xent": (rng.normal(size=(4, 3)), np.eye(3)[[0, 1, 2, 0]]),
        "generator_sum": (rng.normal(size=4), 0.7),
        "helper_loop": (rng.normal(size=4),),
        "filled": (rng.normal(size=4),),
        "closure": (1.3, 0.7),  # (x is given to the nested function only: a number)
        "until": (rng.normal(size=3), 0.5),
        "history": (rng.normal(size=3),),
        "special": ({"k": rng.uniform(1.0, 2.0, size=5), "s": 0.3}, rng.normal(size=5)),
        "softplus_total": (rng.normal(size=4),),
    }
    either = [("special", ({"k": 1.7, "s": -0.2}, rng.normal(size=5))),
              ("softplus_total", (0.4,))]  # (given to a library's function: numbers too)
    for name, args in [*cases.items(), *either]:
        f = getattr(model, name)
        got, want = getattr(grad, f"{name}_gradient")(*args), zpy.gradient(f, *args)
        for i, (g, w) in enumerate(zip(got, want)):
            fd = numeric_gradient(f, args, i)
            for k in (g if isinstance(g, dict) else [None]):
                gk, wk, fk = (g[k], w[k], fd[k]) if k is not None else (g, w, fd)
                np.testing.assert_allclose(gk, wk, rtol=1e-12, atol=1e-14, err_msg=f"{name} {i} {k}")
                np.testing.assert_allclose(gk, fk, rtol=1e-5, atol=1e-7, err_msg=f"{name} {i} {k}")
    with pytest.raises(TypeError, match="^x is a float, but this gradient was emitted for an array"):
        grad.filled_gradient(0.5)
    with pytest.raises(TypeError, match="^params_decay is a ndarray"):
        grad.dict_loss_gradient({**cases["dict_loss"][0], "decay": np.ones(2)}, *cases["dict_loss"][1:])
    with pytest.raises(TypeError, match="^a is a list, but this gradient was emitted for a real number or array"):
        grad.softplus_total_gradient([0.5])
    assert "params: a dict (read by key) of s (a real number or array), k (a real number or array); x: a real " \
        "array (used as one)" in out.read_text()
    assert "a: a real number or array (given to a library's function)" in out.read_text()
