"""``zpy``: the command line.

Exit codes: 0 ok, 1 check failed, 2 usage error, 3 cannot differentiate.

May import: everything (it is the top of the package).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from ._version import __version__
from .api import ir, roundtrip
from .errors import ZygoteError

EXIT_OK, EXIT_STALE, EXIT_USAGE, EXIT_CANNOT = 0, 1, 2, 3


def _source_file(path: str) -> Path:
    file = Path(path)
    if not path.endswith(".py") or not file.is_file():
        raise _Usage(f"no such Python file: {path}")
    return file


class _Usage(Exception):
    """A command line that cannot be carried out as written (exit 2)."""


def _show(args: argparse.Namespace) -> int:
    from .frontend import static

    path, sep, name = args.target.rpartition(":")
    if not sep or not name:
        raise _Usage(f"expected FILE.py:FUNCTION, got {args.target!r}")
    with static.search_path(_source_file(path)):
        return _show_in(args, static.load(Path(path)), path, name)


def _show_in(args: argparse.Namespace, module, path: str, name: str) -> int:
    from .ad import pipeline
    from .writer import module as emitter

    owner = name.rpartition(".")[0]
    b = module.bindings.get(owner or name)
    if b is None or b.kind != ("class" if owner else "function") or owner and name not in module.methods(owner):
        raise _Usage(f"{path} has no top-level function or method {name!r}")
    module.check_names(name)
    fn = module.function(name)
    if args.ir:
        print(ir(fn), end="")
        return EXIT_OK
    if args.roundtrip:
        print(roundtrip(fn).__zpy_source__, end="")
        return EXIT_OK
    params = emitter.plan(module, name)
    entry = pipeline.compiled(fn, tuple(p.active for p in params), tuple(p.kind for p in params), False, exact=True)
    if args.adjoint_ir:
        print(f"# forward\n{entry.forward_ir}\n# pullback\n{entry.pullback_ir}", end="")
    else:
        print(entry.source, end="")
    return EXIT_OK


def _emit(args: argparse.Namespace) -> int:
    import os

    from .writer import module as emitter

    path, target = args.module, ""
    if not path.endswith(".py") and ":" in path:
        path, _, target = path.rpartition(":")
    source = _source_file(path)
    functions = ([target] if target else []) + list(args.function or ())
    if args.check and args.output is None:
        raise _Usage("--check needs -o FILE: the gradient module to check")
    out = None if args.output is None else Path(args.output)
    base = Path.cwd() if out is None else out.resolve().parent
    shown = Path(os.path.relpath(source.resolve(), base)).as_posix()
    command = f"zpy emit {shown}" + (f":{target}" if target else "") + ("" if out is None else f" -o {out.name}")
    command += "".join(f" --function {f}" for f in args.function or ())
    command += " --skip-failing" if args.skip_failing else ""
    try:
        emitted = emitter.emit_module(source, functions or None, shown, command)
    except emitter.NoSuchFunction as e:
        raise _Usage(e.message) from None
    for name, why in emitted.not_differentiable.items():
        print(f"zpy: not differentiable: {name}: {why}", file=sys.stderr)
    for name, (line, why) in emitted.skipped.items():
        print(f"zpy: {path}:{line}: cannot emit {name}: {why}", file=sys.stderr)  # (as typed: the header's is -o's)
    if emitted.skipped and not args.skip_failing:
        print(f"zpy: {len(emitted.skipped)} function{'s' if len(emitted.skipped) > 1 else ''} cannot be emitted; "
              "--skip-failing writes the module without them (listed in its header)", file=sys.stderr)
        return EXIT_CANNOT
    if out is None:
        print(emitted.text, end="")
        return EXIT_OK
    if args.check:
        if not out.is_file():
            print(f"zpy: {out} is missing: generate it with {command}", file=sys.stderr)
            return EXIT_STALE
        old = out.read_text()
        if old != emitted.text:
            reasons = emitter.stale(emitted, old)
            print(f"zpy: {out} is stale ({'; '.join(reasons)}): regenerate it with {command}", file=sys.stderr)
            return EXIT_STALE
        return EXIT_OK
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(emitted.text)
    return EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    from .ad.catalog import markdown

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
    emit = sub.add_parser(
        "emit",
        help="write the gradient module of a Python file, to check in",
        description="Write a gradient module for FILE.py, which runs without zygote_py: for each function "
        "f, f_forward(*args) -> (y, pullback) and f_gradient(*args) -> gradients, with the conventions of "
        "zpy.pullback and zpy.gradient; for a method C.m of a top-level class, C_m_forward(self, ...) and "
        "C_m_gradient(self, ...). FILE.py is not run: its imports are imported (its own directory first on "
        "sys.path), its def statements built, and only the assignments and classes the functions read are "
        "run (the gradient module imports those from FILE.py). Parameters annotated int, bool, str or bytes, "
        "or with such a default, are not differentiated; float or no annotation means a real number; "
        "np.ndarray a real array; anything else is differentiated with nothing assumed. Helpers the "
        "gradients need are copied into the module. A function that would need zygote_py when it runs, "
        "or cannot be differentiated, fails the command (exit 3) with the reason at its line, unless "
        "--skip-failing; functions that are plainly not differentiable (no differentiated parameter, a "
        "main, I/O) are listed and left out.",
        epilog="Exit codes: 0 ok (with --check: the file is current), 1 with --check: the file is stale or "
        "missing, 2 usage error, 3 a function cannot be emitted (without --skip-failing).",
    )
    emit.add_argument("module", metavar="FILE.py[:NAME]",
                      help="the source module, or one function or method of it (model.py:Class.method)")
    emit.add_argument("-o", "--output", metavar="OUT.py", help="write to OUT.py instead of printing")
    emit.add_argument("--function", metavar="NAME", action="append",
                      help="emit only this function or method Class.name (repeat for more); default: every "
                      "top-level function and every method of a top-level class")
    emit.add_argument("--skip-failing", action="store_true",
                      help="write the module without the functions that cannot be emitted (listed in its "
                      "header and on stderr) instead of failing with exit code 3")
    emit.add_argument("--check", action="store_true",
                      help="with -o: exit 0 if OUT.py is what zpy emit would write, 1 if it is stale or "
                      "missing, naming the changed source definitions (for CI and pre-commit)")
    emit.set_defaults(run=_emit)
    show = sub.add_parser(
        "show",
        help="print a function's IR, gradient source or roundtrip source",
        description="Print what zygote_py makes of one function of FILE.py (which is not run, as for zpy "
        "emit). By default: the emitted forward function and pullback, parameters differentiated as "
        "zpy emit decides from their annotations.",
        epilog="Exit codes: 0 ok, 2 usage error, 3 the function cannot be differentiated.",
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
        epilog="Exit codes: 0 ok, 1 with --check: FILE is stale or missing, 2 usage error.",
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
    except _Usage as e:
        print(f"zpy: {e}", file=sys.stderr)
        return EXIT_USAGE
    except SyntaxError as e:
        print(f"zpy: {e.filename}:{e.lineno}: {e.msg}", file=sys.stderr)
        return EXIT_CANNOT
    except ZygoteError as e:
        print(f"zpy: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_CANNOT
