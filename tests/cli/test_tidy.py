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


def test_a_value_set_on_one_path_and_copied_to_the_shared_name_is_set_there():
    assert tidied("""
        def f(x):
            penalty_1 = x * x
            if penalty_1 > 1.0:
                penalty = np.sqrt(penalty_1)
                path = 0
                penalty_1 = penalty
            else:
                path = 1
            return (penalty_1, penalty if path == 0 else 0.0)
    """) == ("def f(x):\n    penalty = x * x\n    path = penalty > 1.0\n    if path:\n        penalty = "
             "np.sqrt(penalty)\n    return (penalty, penalty if path else 0.0)")
    kept = """
        def f(x):
            v_1 = x * x
            if v_1 > 1.0:
                a = np.sqrt(v_1)
                y = v_1 + 1
                v_1 = a
            return (v_1, y)
    """  # (v_1 read between: it would read the new value)
    assert tidied(kept) == ast.unparse(ast.parse(textwrap.dedent(kept)))
    kept = """
        def f(x, c):
            if c:
                a = np.sqrt(x)
                v_1 = a
            v_1 = x * x
            return (v_1, a)
    """  # (v_1 set again after the if: a is not its value there)
    assert "a = np.sqrt(x)\n        v_1 = a\n" in tidied(kept)


def test_a_record_compared_with_its_constants_only_is_the_test_itself():
    assert tidied("""
        def f(c, x):
            if c:
                x = x + 1
                path = 0
            else:
                path = 1
            return (1.0 if path == 0 else 2.0, 3.0 if path == 1 else 4.0)
    """) == "def f(c, x):\n    path = c\n    if path:\n        x = x + 1\n    return (1.0 if path else 2.0, 3.0 if not " \
            "path else 4.0)"
    kept = """
        def f(c, x):
            path = 1
            for i in x:
                if c:
                    path = 0
            return path == 0
    """  # (in a loop; and read as a value)
    assert tidied(kept) == ast.unparse(ast.parse(textwrap.dedent(kept)))


def test_a_pair_whose_second_item_is_read_once_by_the_next_statement_is_split():
    assert tidied("""
        def f(g, x, w, dw):
            dx, t = (h(g, x, 0), h(g, w, 1))
            dw = dw + t
            return (dx, dw)
    """) == "def f(g, x, w, dw):\n    dx = h(g, x, 0)\n    dw = dw + h(g, w, 1)\n    return (dx, dw)"
    kept = """
        def f(g, x, w):
            dx, t = (h(g, x, 0), h(dx, w, 1))
            dw = t + 1
            return (dx, dw, t)
    """  # (the second reads the first's old value, and is read twice)
    assert "dx, t = (h(g, x, 0), h(dx, w, 1))" in tidied(kept)
