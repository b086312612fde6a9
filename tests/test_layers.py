"""The package's layers (README, "Architecture"): every import between its
top-level parts, inside functions too, goes down the list below, so the
parts form no cycle; the runtime never imports the compiler; and a plain
``import zygote_py`` loads neither the compiler nor the rules."""
import ast
import pathlib
import subprocess
import sys

import zygote_py

ROOT = pathlib.Path(zygote_py.__file__).parent

LAYERS = [
    {"errors", "_version"},
    {"tangent"},
    {"tree", "registry"},
    {"ir"},
    {"runtime"},
    {"hooks"},
    {"rules"},
    {"frontend", "tensor"},
    {"backend"},
    {"ad"},
    {"writer"},
    {"api"},
    {"derivatives"},
    {"transforms"},
    {"own_rules"},
    {"cli", "__init__"},
    {"__main__"},
]
"""The top-level parts, from the bottom up: a part imports only parts below it."""

LEVEL = {part: i for i, parts in enumerate(LAYERS) for part in parts}


def _part(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "zygote_py":
        return None
    return "__init__" if len(parts) == 1 else parts[1]


def _imports() -> list[tuple[str, str, str, int]]:
    """``(importing part, imported part, file, line)`` for every import of
    one part by another, inside functions too."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        module = ".".join(rel.parts)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        if path.name == "__init__.py":
            module = package = module.rpartition(".")[0] if module.endswith(".__init__") else module
        source = _part(module)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                prefix = ".".join(base)
                targets = [f"{prefix}.{node.module}"] if node.module else [f"{prefix}.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = ([f"zygote_py.{a.name}" for a in node.names] if node.module == "zygote_py"
                           else [node.module])
            else:
                continue
            for target in targets:
                part = _part(target)
                if part is not None and part != source:
                    found.append((source, part, str(path.relative_to(ROOT.parent)), node.lineno))
    return found


IMPORTS = _imports()


def test_every_part_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in ROOT.iterdir()
             if p.suffix == ".py" or p.is_dir() and (p / "__init__.py").exists()}
    assert parts == set(LEVEL)


def test_imports_go_down_the_layers():
    upward = [f"{file}:{line}: {source} imports {target}" for source, target, file, line in IMPORTS
              if LEVEL[target] >= LEVEL[source]]
    assert not upward, "\n".join(upward)


def test_the_runtime_never_imports_the_compiler_or_the_rules():
    found = [f"{file}:{line}: runtime imports {target}" for source, target, file, line in IMPORTS
             if source == "runtime" and target in {"ad", "rules", "frontend", "backend", "api", "writer"}]
    assert not found, "\n".join(found)
    assert {t for s, t, _, _ in IMPORTS if s == "runtime"} <= {"errors", "tangent", "registry", "ir"}


def test_a_plain_import_loads_neither_the_compiler_nor_the_rules():
    code = ("import sys, zygote_py\n"
            "print(sorted(m for m in sys.modules if m.startswith(('zygote_py.ad', 'zygote_py.rules', "
            "'zygote_py.backend', 'zygote_py.frontend', 'zygote_py.writer', 'gast', 'scipy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_module_says_what_it_owns_and_each_part_what_it_may_import():
    missing = [str(p.relative_to(ROOT.parent)) for p in sorted(ROOT.rglob("*.py"))
               if not ast.get_docstring(ast.parse(p.read_text()))]
    assert not missing, f"modules without a docstring: {missing}"
    tops = [ROOT / f"{part}.py" if (ROOT / f"{part}.py").exists() else ROOT / part / "__init__.py" for part in LEVEL]
    silent = [str(p.relative_to(ROOT.parent)) for p in tops if "May import:" not in ast.get_docstring(ast.parse(p.read_text()))]
    assert not silent, f"parts that do not say what they may import: {silent}"
