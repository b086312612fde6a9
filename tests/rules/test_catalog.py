"""The rules table (docs/rules.md) is generated from the registry and kept
current."""
from pathlib import Path

from zygote_py import cli
from zygote_py.ad.catalog import markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_docs_rules_md_is_current():
    assert cli.main(["rules", "-o", str(DOCS), "--check"]) == 0, "regenerate with: zpy rules -o docs/rules.md"


def test_check_fails_on_a_stale_file(tmp_path):
    out = tmp_path / "rules.md"
    assert cli.main(["rules", "-o", str(out), "--check"]) == 1
    out.write_text("old\n")
    assert cli.main(["rules", "-o", str(out), "--check"]) == 1
    assert cli.main(["rules", "-o", str(out)]) == 0
    assert cli.main(["rules", "-o", str(out), "--check"]) == 0


def test_table_says_which_parameters_get_a_gradient():
    table = markdown()
    assert "| `math.sin` | **x** | inlined |" in table
    assert "| `math.floor` | — | no gradient |" in table
    assert "| `getattr` | **obj**, name, **default** | inlined |" in table
    assert markdown() == table  # deterministic


def test_table_says_whether_autograd_and_jax_differentiate_a_function():
    table = markdown()
    assert "| `np.sin` | **x** | inlined | inlined | autograd, JAX |" in table
    assert "| `np.partition` | **a**, kth, axis, kind, order | inlined | inlined | autograd, JAX |" in table
    assert "| `np.argsort` | — | no gradient | no tangent | — |" in table
    assert "| `math.sin` | **x** | inlined | inlined | — |" in table
