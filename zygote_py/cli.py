"""``zpy``: the command line.

Exit codes: 0 ok, 1 check failed, 2 usage error, 3 cannot differentiate.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Optional

from . import __version__
from .api import differentiable, ir, roundtrip
from .errors import ZygoteError

EXIT_OK, EXIT_STALE, EXIT_USAGE, EXIT_CANNOT = 0, 1, 2, 3


def _load(target: str):
    """``path/to/module.py:NAME`` → the function (the module is imported)."""
    path, sep, name = target.rpartition(":")
    if not sep or not path.endswith(".py") or not name:
        raise SystemExit(f"zpy: expected FILE.py:FUNCTION, got {target!r}")
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"zpy: no such file: {path}")
    spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module
    spec.loader.exec_module(module)
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise SystemExit(f"zpy: {path} has no function {name!r}")
        obj = getattr(obj, part)
    return obj


def _show(args: argparse.Namespace) -> int:
    f = _load(args.target)
    if args.ir:
        print(ir(f), end="")
    elif args.roundtrip:
        print(roundtrip(f).__zpy_source__, end="")
    elif args.adjoint_ir:
        print(differentiable(f).adjoint_ir, end="")
    else:
        print(differentiable(f).source, end="")
    return EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    from .rules.catalog import markdown

    text = markdown()
    if args.output is None:
        print(text, end="")
        return EXIT_OK
    out = Path(args.output)
    if args.check:
        if not out.is_file() or out.read_text() != text:
            print(f"zpy: {out} is stale or missing: regenerate it with zpy rules -o {out}", file=sys.stderr)
            return EXIT_STALE
        return EXIT_OK
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zpy",
        description="zygote_py: reverse-mode automatic differentiation of Python by source transformation.",
        epilog="Exit codes: 0 ok, 1 check failed, 2 usage error, 3 cannot differentiate.",
    )
    p.add_argument("--version", action="version", version=f"zygote_py {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    show = sub.add_parser(
        "show",
        help="print a function's IR, gradient source or roundtrip source",
        description="Print what zygote_py makes of one function (the module is imported). "
        "By default: the emitted forward function and pullback, with every parameter differentiated.",
    )
    show.add_argument("target", metavar="FILE.py:NAME", help="the function, e.g. model.py:loss")
    what = show.add_mutually_exclusive_group()
    what.add_argument("--ir", action="store_true", help="the SSA IR")
    what.add_argument("--adjoint-ir", action="store_true", help="the forward and pullback IR")
    what.add_argument("--source", action="store_true", help="the emitted gradient source (default)")
    what.add_argument("--roundtrip", action="store_true", help="the source regenerated from the IR, no derivative")
    show.set_defaults(run=_show)
    rules = sub.add_parser(
        "rules",
        help="print the table of derivative rules (docs/rules.md)",
        description="The built-in derivative rules as Markdown: every supported function, which of "
        "its parameters get a gradient, and whether its rule is inlined or called at run time.",
    )
    rules.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of printing")
    rules.add_argument("--check", action="store_true",
                       help="with -o: exit 1 if FILE is missing or differs from what would be written")
    rules.set_defaults(run=_rules)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.command is None:
        p.print_help()
        return EXIT_USAGE
    try:
        return args.run(args)
    except ZygoteError as e:
        print(f"zpy: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_CANNOT
