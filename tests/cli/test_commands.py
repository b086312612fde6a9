"""The ``zpy`` command line: ``emit --check``, ``show``, ``--help`` and the
exit codes (0 ok, 1 check failed, 2 usage error, 3 cannot differentiate)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from zygote_py.cli import main

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "calls.py"
    shutil.copy(CORPUS / "calls.py", path)
    return path


def test_check_current(source, tmp_path):
    out = tmp_path / "calls_grad.py"
    assert main(["emit", str(source), "-o", str(out)]) == 0
    assert main(["emit", "--check", str(source), "-o", str(out)]) == 0


def test_check_missing(source, tmp_path, capsys):
    assert main(["emit", "--check", str(source), "-o", str(tmp_path / "nope.py")]) == 1
    assert "nope.py is missing" in capsys.readouterr().err


def test_check_stale_names_the_changed_functions(source, tmp_path, capsys):
    out = tmp_path / "calls_grad.py"
    assert main(["emit", str(source), "-o", str(out)]) == 0
    text = source.read_text()
    source.write_text(text.replace("return math.sqrt(1.0 + x * x) + x", "return math.sqrt(2.0 + x * x) + x")
                      .replace("RATE = 0.5", "RATE = 0.25"))
    assert main(["emit", "--check", str(source), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "stale (RATE changed; softplus changed)" in err
    assert "regenerate it with zpy emit calls.py -o calls_grad.py" in err
    assert main(["emit", str(source), "-o", str(out)]) == 0
    assert main(["emit", "--check", str(source), "-o", str(out)]) == 0


def test_check_hand_edited(source, tmp_path, capsys):
    out = tmp_path / "calls_grad.py"
    assert main(["emit", str(source), "-o", str(out)]) == 0
    out.write_text(out.read_text() + "# an edit\n")
    assert main(["emit", "--check", str(source), "-o", str(out)]) == 1
    assert "edited by hand" in capsys.readouterr().err


def test_check_needs_an_output_file(source, capsys):
    assert main(["emit", "--check", str(source)]) == 2


def test_usage_errors(tmp_path, capsys):
    assert main([]) == 2
    assert main(["emit", str(tmp_path / "missing.py")]) == 2
    assert main(["emit", str(CORPUS / "calls.py"), "--function", "nothing"]) == 2
    assert main(["show", str(CORPUS / "calls.py")]) == 2
    assert main(["show", f"{CORPUS / 'calls.py'}:nothing"]) == 2
    with pytest.raises(SystemExit) as e:
        main(["emit"])
    assert e.value.code == 2


def test_cannot_differentiate(tmp_path, capsys):
    assert main(["emit", str(CORPUS / "dynamic.py"), "--function", "fact"]) == 3
    assert "fact has no differentiated parameter" in capsys.readouterr().err
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    return x +\n")
    assert main(["emit", str(bad)]) == 3
    assert "bad.py:2" in capsys.readouterr().err


@pytest.mark.parametrize("command", [[], ["emit"], ["show"], ["rules"]])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([*command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "Exit codes: 0 ok" in " ".join(out.split())


def test_show(capsys):
    target = f"{CORPUS / 'calls.py'}:power"
    assert main(["show", target]) == 0
    assert capsys.readouterr().out.startswith("def power_forward(x, n):")
    assert main(["show", target, "--source"]) == 0
    assert "def power_pullback(dr):" in capsys.readouterr().out
    assert main(["show", target, "--ir"]) == 0
    assert capsys.readouterr().out.startswith("# power (")
    assert main(["show", target, "--adjoint-ir"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# forward\n") and "# pullback\n" in out
    assert main(["show", target, "--roundtrip"]) == 0
    assert capsys.readouterr().out.startswith("def power(x, n):")


def test_show_does_not_run_the_module(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ZPY_MARKER", str(tmp_path / "marker.txt"))
    assert main(["show", f"{CORPUS / 'toplevel.py'}:scaled"]) == 0
    assert not (tmp_path / "marker.txt").exists()


def test_rules_still_works(capsys):
    assert main(["rules"]) == 0
    assert capsys.readouterr().out.startswith("# Derivative rules")


def test_python_dash_m():
    run = subprocess.run([sys.executable, "-m", "zygote_py", "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "emit" in run.stdout
