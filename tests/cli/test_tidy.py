"""writer/tidy.py: each rewrite keeps what the code computes, and is not
made where it would change it (the order of calls, a record read before
it is set)."""
import ast
import textwrap

from zygote_py.writer import tidy


def tidied(source: str) -> str:
    fdef = ast.parse(textwrap.dedent(source)).body[0]
    tidy.tidy(fdef)
    return ast.unparse(fdef)


def test_a_temporary_read_once_by_the_next_statement_is_folded_there():
    assert tidied("""
        def f(x, w, b):
            t = x @ w
            y = np.tanh(t + b)
            return y
    """) == "def f(x, w, b):\n    return np.tanh(x @ w + b)"


def test_no_fold_past_an_operation_evaluated_first_nor_of_a_value_read_twice():
    assert tidied("""
        def f(x):
            v = g(x)
            w = h(x) * v
            u = x + 1
            z = u * u
            return (w, z)
    """) == "def f(x):\n    v = g(x)\n    w = h(x) * v\n    u = x + 1\n    return (w, u * u)"


def test_a_branch_record_is_set_before_its_if_unless_the_branch_reads_it():
    assert tidied("""
        def f(c, x):
            if c:
                x = x + 1
                path = 0
            else:
                path = 1
            return (x, path)
    """) == "def f(c, x):\n    path = 1\n    if c:\n        x = x + 1\n        path = 0\n    return (x, path)"
    kept = """
        def f(c, path):
            if c:
                y = path
                path = 0
            else:
                path = 1
            return (y, path)
    """
    assert tidied(kept) == ast.unparse(ast.parse(textwrap.dedent(kept)))


def test_an_alias_of_a_module_value_reads_the_value():
    assert tidied("""
        def f(x):
            t = RATE
            y = x * t
            return (y, t)
    """) == "def f(x):\n    return (x * RATE, RATE)"
