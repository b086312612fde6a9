"""backend.compile: the code object compiled from an emitted ``def``."""
from __future__ import annotations

import gast

from zygote_py.backend.compile import compile_def, _FACTORY


def located(node, line, col=0):
    node.lineno = node.end_lineno = line
    node.col_offset, node.end_col_offset = col, col + 1
    return node


def emitted_def():
    """``def f(x): y = x * 2.0`` (line 7), ``z = -y`` (no location), ``return
    z`` (line 9, columns missing), as the emitter may leave it."""
    body = gast.parse("def f(x):\n    y = x * 2.0\n    z = -y\n    return z\n").body[0]
    for n in gast.walk(body):
        for attr in ("lineno", "end_lineno", "col_offset", "end_col_offset"):
            if attr in n._attributes and hasattr(n, attr):
                delattr(n, attr)
    located(body.body[0], 7, 4)
    body.body[2].lineno = body.body[2].end_lineno = 9
    body.body[2].value.end_col_offset = None  # (an optional attribute given as None is kept, and inherited)
    return body


def reference(fdef, filename):
    """The same compiled as ``gast.fix_missing_locations`` under a factory at
    the smallest line of ``fdef`` would."""
    first = min(n.lineno for n in gast.walk(fdef) if getattr(n, "lineno", None))
    inner = gast.FunctionDef(name="_zpy_function", args=fdef.args, body=fdef.body, decorator_list=[],
                             returns=None, type_comment=None, type_params=[])
    factory = gast.FunctionDef(name=_FACTORY, args=gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                                                                  kw_defaults=[], kwarg=None, defaults=[]),
                               body=[inner, gast.Return(value=gast.Name("_zpy_function", gast.Load(), None, None))],
                               decorator_list=[], returns=None, type_comment=None, type_params=[])
    for node in (factory, inner):
        node.lineno = node.end_lineno = first
        node.col_offset = node.end_col_offset = 0
    module = gast.fix_missing_locations(gast.Module(body=[factory], type_ignores=[]))
    code = compile(gast.gast_to_ast(module), filename, "exec")
    return next(c for c in next(c for c in code.co_consts if hasattr(c, "co_code")).co_consts
                if hasattr(c, "co_code"))


def test_missing_locations_are_inherited_and_the_code_starts_at_the_first_line():
    code = compile_def(emitted_def(), {}, (), "user.py")
    want = reference(emitted_def(), "user.py")
    assert code.co_firstlineno == want.co_firstlineno == 7
    assert list(code.co_positions()) == list(want.co_positions())
    assert {p[0] for p in code.co_positions()} >= {7, 9}  # (z = -y: the function's line, 7; return z: 9)
    assert code.co_code == want.co_code
