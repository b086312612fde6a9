"""get_source: every supported form of function, and every form whose source
cannot be found. The oracle for line numbers is the text of source_cases.py;
the oracle for "the right node" is the original function, compared with the
node recompiled from its unparsed source."""
import functools
import json
import linecache
import math
import subprocess
import sys
import textwrap

import gast
import pytest

from zygote_py.errors import SourceNotFound, UnsupportedSyntax
from zygote_py.frontend.source import FunctionSource, get_source

from . import source_cases as cases

with open(cases.__file__) as _file:
    CASE_LINES = _file.read().splitlines()


def line_of(fragment):
    """The 1-based line of source_cases.py holding ``fragment`` (once)."""
    found = [i + 1 for i, text in enumerate(CASE_LINES) if fragment in text]
    assert len(found) == 1, (fragment, found)
    return found[0]


def params(node):
    args = node.args
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs + extra]


def rebuild(src: FunctionSource):
    """Compile the unparsed node in the function's globals and closure."""
    env = dict(src.function.__globals__)
    cells = src.function.__closure__ or ()
    env.update(zip(src.function.__code__.co_freevars, (c.cell_contents for c in cells)))
    text = gast.unparse(src.node)
    if isinstance(src.node, gast.Lambda):
        return eval(text, env)
    exec(text, env)
    return env[src.node.name]


def lines_between(node, first, last):
    return all(
        first <= n.lineno <= last for n in gast.walk(node) if hasattr(n, "lineno")
    )


def check_def(fn, names, return_fragment, last_fragment=None):
    """Check the node of a def whose (only) statement is ``return ...``."""
    src = get_source(fn)
    assert isinstance(src.node, gast.FunctionDef)
    assert params(src.node) == names
    assert src.node.decorator_list == []
    def_line = line_of(f"def {src.function.__name__}(")
    assert src.node.lineno == src.firstline == def_line
    assert src.node.body[-1].lineno == line_of(return_fragment)
    last = line_of(last_fragment or return_fragment)
    assert lines_between(src.node, src.firstline, last)
    assert src.filename == cases.__file__
    assert src.name == src.function.__qualname__
    return src


def check_lambda(fn, names, fragment, inputs):
    src = get_source(fn)
    assert isinstance(src.node, gast.Lambda)
    assert params(src.node) == names
    assert src.node.lineno == src.firstline == line_of(fragment)
    assert src.function is fn
    assert src.bound_self is None
    rebuilt = rebuild(src)
    for args in inputs:
        assert rebuilt(*args) == fn(*args)
    return src


def test_module_function():
    src = check_def(cases.plain, ["x", "y"], "return x * y + 1")
    assert src.function is cases.plain and src.bound_self is None
    assert rebuild(src)(3, 4) == cases.plain(3, 4)


def test_closure():
    scaled = cases.make_closure(3)
    src = check_def(scaled, ["x"], "return x * k + k")
    assert rebuild(src)(5) == scaled(5)


def test_lambda_closure():
    closure = cases.make_lambda_closure(7)
    check_lambda(closure, ["x"], "return lambda x: x - k", [(1,), (9,)])


def test_lambda_inline_in_call():
    check_lambda(cases.INLINE, ["x"], "INLINE = capture(", [(1,), (-4,)])


@pytest.mark.parametrize(
    "left, right, fragment, names",
    [
        (cases.ADD_ONE, cases.TIMES_THREE, "ADD_ONE, TIMES_THREE =", (["x"], ["x"])),
        (cases.PLUS_TWO, cases.PLUS_FIVE, "PLUS_TWO, PLUS_FIVE =", (["x"], ["x"])),
        (cases.BY_A, cases.BY_B, "BY_A, BY_B =", (["a", "b"], ["b", "a"])),
    ],
)
def test_lambdas_sharing_a_line(left, right, fragment, names):
    inputs = [(0, 2), (5, 3)] if len(names[0]) == 2 else [(0,), (5,)]
    left_src = check_lambda(left, names[0], fragment, inputs)
    right_src = check_lambda(right, names[1], fragment, inputs)
    assert left_src.node.col_offset < right_src.node.col_offset


def test_nested_lambdas_on_one_line():
    outer = check_lambda(cases.CURRIED, ["x"], "CURRIED = lambda", [])
    inner = check_lambda(cases.CURRIED(10), ["y"], "CURRIED = lambda", [(3,), (-1,)])
    assert rebuild(outer)(10)(3) == cases.CURRIED(10)(3)
    assert inner.node.col_offset > outer.node.col_offset


def test_lambda_spanning_lines():
    inputs = [(2, 3), (-1, 4)]
    src = check_lambda(cases.SPANNING, ["x", "y"], "SPANNING = (lambda", inputs)
    assert src.node.body.lineno == line_of("x * (y + 1)")
    assert src.node.body.end_lineno == line_of("- 1)")


def test_lambda_in_multiline_call():
    check_lambda(cases.IN_CALL, ["x"], "lambda x: x ** 2 + 1", [(2,), (3,)])


def test_lambdas_in_multiline_list():
    check_lambda(cases.TABLE[0], ["x"], "lambda x: x + 10", [(1,)])
    check_lambda(cases.TABLE[1], ["x"], "lambda x: x - 10", [(1,)])


AREA = "return self.size * k * self.scale"


def test_unbound_method():
    src = check_def(cases.Shape.area, ["self", "k"], AREA)
    assert src.bound_self is None and src.function is cases.Shape.area
    shape = cases.Shape(3.0)
    assert rebuild(src)(shape, 5) == shape.area(5)


def test_bound_method():
    shape = cases.Shape(3.0)
    src = check_def(shape.area, ["self", "k"], AREA)
    assert src.bound_self is shape and src.function is cases.Shape.area
    assert rebuild(src)(src.bound_self, 5) == shape.area(5)


@pytest.mark.parametrize("fn", [cases.Shape.__dict__["unit"], cases.Shape.unit])
def test_staticmethod(fn):
    src = check_def(fn, ["x"], "return x + 1")
    assert src.bound_self is None
    assert rebuild(src)(4) == cases.Shape.unit(4)


def test_classmethod_descriptor():
    descriptor = cases.Shape.__dict__["scaled"]
    src = check_def(descriptor, ["cls", "x"], "return cls.scale * x")
    assert src.bound_self is None
    assert rebuild(src)(cases.Shape, 3) == cases.Shape.scaled(3)


@pytest.mark.parametrize("fn", [cases.Shape.scaled, cases.Shape(1.0).scaled])
def test_classmethod_attribute(fn):
    src = check_def(fn, ["cls", "x"], "return cls.scale * x")
    assert src.bound_self is cases.Shape
    assert rebuild(src)(src.bound_self, 3) == fn(3)


def check_wrapper(fn):
    """A ``functools.wraps`` wrapper's source is its own (``traced``'s
    ``wrapper``), not the wrapped function's: the wrapper is what runs."""
    src = get_source(fn)
    assert params(src.node) == ["args", "kwargs"]
    assert src.node.lineno == src.firstline == line_of("def wrapper(*args, **kwargs):")
    assert src.node.body[-1].lineno == line_of("return g(*args, **kwargs)")
    return src


def test_wrapped_function():
    src = check_wrapper(cases.doubly_wrapped)
    assert src.function is cases.doubly_wrapped
    assert src.bound_self is None
    assert rebuild(src)(3) == cases.doubly_wrapped(3)


def test_wrapped_bound_method():
    shape = cases.Shape(2.0)
    src = check_wrapper(shape.wrapped_area)
    assert src.bound_self is shape
    assert src.function is cases.Shape.wrapped_area
    assert rebuild(src)(shape, 7) == shape.wrapped_area(7)


def test_decorator_spanning_lines():
    src = check_def(cases.tagged, ["x"], "return x - 4")
    assert cases.tagged.__code__.co_firstlineno == line_of("@with_tag(")
    assert rebuild(src)(10) == cases.tagged(10)


@pytest.mark.parametrize("fn", [cases.Shape.Inner.twice, cases.Shape.Inner().twice])
def test_nested_class_method(fn):
    src = check_def(fn, ["self", "x"], "return 2 * x")
    assert src.name == "Shape.Inner.twice"
    assert rebuild(src)(cases.Shape.Inner(), 4) == 8


def test_mangled_parameter():
    src = check_def(cases.Shape.private, ["self", "__k"], "return self.size + __k")
    assert rebuild(src)(cases.Shape(1.0), 2) == 3.0


def test_multiline_string_kept_exact():
    # Dedenting would strip or reject the unindented continuation line.
    banner = cases.Shape.banner
    src = check_def(banner, ["self", "n"], 'return """head', 'tail""" * n')
    assert rebuild(src)(None, 2) == cases.Shape(0).banner(2) == "head\ntail" * 2


def test_async_function_is_unsupported():
    with pytest.raises(UnsupportedSyntax) as info:
        get_source(cases.asynchronous)
    assert "asynchronous" in str(info.value)
    assert info.value.line == line_of("async def asynchronous(")


@pytest.mark.parametrize(
    "filename", ["<string>", "<stdin>", "<ipython-input-7-0123abcd>"]
)
def test_function_without_file(filename):
    namespace = {}
    exec(compile("def made(x):\n    return x\n", filename, "exec"), namespace)
    with pytest.raises(SourceNotFound) as info:
        get_source(namespace["made"])
    error = info.value
    assert (error.function, error.filename, error.line) == ("made", filename, 1)
    assert "'made'" in str(error) and "define it in a .py file" in str(error)


@pytest.fixture
def notebook_cell():
    """Code registered in linecache the way IPython registers a cell."""
    filename = "<ipython-input-3-feedface>"
    text = "def cell_def(x):\n    return x + 3\n\ncell_lambda = lambda y: y * 4\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), namespace)
    yield namespace
    del linecache.cache[filename]


def test_notebook_cell_in_linecache(notebook_cell):
    defined = get_source(notebook_cell["cell_def"])
    assert isinstance(defined.node, gast.FunctionDef) and defined.firstline == 1
    assert rebuild(defined)(2) == 5
    lam = get_source(notebook_cell["cell_lambda"])
    assert isinstance(lam.node, gast.Lambda) and lam.firstline == 4
    assert rebuild(lam)(2) == 8


def test_exec_lambda_without_file():
    with pytest.raises(SourceNotFound, match="define it in a .py file"):
        get_source(eval(compile("lambda x: x", "<string>", "eval")))


@pytest.mark.parametrize(
    "obj, name", [(len, "len"), (math.sin, "math.sin"), ([].append, "list.append")]
)
def test_builtin(obj, name):
    with pytest.raises(SourceNotFound) as info:
        get_source(obj)
    assert info.value.function == name
    assert name in str(info.value) and "register a derivative rule" in str(info.value)


class Callable:
    def __call__(self, x):
        return x


@pytest.mark.parametrize(
    "obj, name",
    [
        (42, "int object"),
        (Callable(), "Callable object"),
        (cases.Shape, "Shape"),
        (functools.partial(cases.plain, 1), "partial object"),
    ],
)
def test_not_a_function(obj, name):
    with pytest.raises(SourceNotFound) as info:
        get_source(obj)
    assert name in str(info.value) and "pass a Python function" in str(info.value)


def load_module(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "before, after",
    [
        ("def f(x):\n    return x\n", "def f(renamed):\n    return renamed\n"),
        ("def f(x):\n    return x\n", "def g(x):\n    return x\n"),
        ("f = lambda x: x\n", "f = lambda renamed: renamed\n"),
        ("f = lambda x: x\n", "f = 'no lambda here any more'\n"),
    ],
)
def test_file_edited_since_definition(tmp_path, before, after):
    path = tmp_path / "edited.py"
    path.write_text(before)
    module = load_module(path)
    path.write_text(after)
    with pytest.raises(SourceNotFound, match="does not match") as info:
        get_source(module.f)
    assert info.value.filename == str(path) and info.value.line == 1


def test_lambdas_without_column_positions(tmp_path):
    """Under -X no_debug_ranges only parameters can tell lambdas apart."""
    (tmp_path / "nocolumns.py").write_text(
        "a, b = lambda x: x + 1, lambda x: x * 3\n"
        "c, d = lambda x: x, lambda x: x\n"
        "e, f = lambda x: x, lambda y: -y\n"
    )
    script = textwrap.dedent(
        """
        import json, sys
        import gast, nocolumns
        from zygote_py.errors import SourceNotFound
        from zygote_py.frontend.source import get_source
        out = {}
        for name in "acef":
            try:
                node = get_source(getattr(nocolumns, name)).node
                out[name] = gast.unparse(node).strip()
            except SourceNotFound as error:
                out[name] = str(error)
        print(json.dumps(out))
        """
    )
    result = subprocess.run(
        [sys.executable, "-X", "no_debug_ranges", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(result.stdout)
    assert "look alike" in out["a"] and "on a line of its own" in out["a"]
    assert out["c"] == "lambda x: x"
    assert out["e"] == "lambda x: x" and out["f"] == "lambda y: -y"


def test_emitted_source_outlives_an_equal_code_object():
    """Code compiled twice from one tree gives two code objects that compare
    equal; when one was collected, a registry keyed by value forgot the
    other's source (a third derivative through a ``nonlocal`` closure then
    looked for an emitted function's source in the user's file)."""
    import gc

    from zygote_py.frontend.source import register_emitted

    text = "def emitted_twice(x):\n    return x * 3.0\n"
    node = gast.parse(text).body[0]

    def make():
        namespace = {}
        exec(compile(text, "<emitted-twice>", "exec"), namespace)
        return namespace["emitted_twice"]
    first, second = make(), make()
    assert first.__code__ == second.__code__ and first.__code__ is not second.__code__
    register_emitted(first.__code__, node)
    register_emitted(second.__code__, node)
    del first
    gc.collect()
    assert gast.dump(get_source(second).node) == gast.dump(node)
