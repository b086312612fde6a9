"""Lowering Python to SSA IR: the IR's shape for each construct, and its
behaviour — a small interpreter of the IR (below) runs the lowered function
and must agree with Python running the original."""
from __future__ import annotations

import builtins
import copy
import importlib
import operator
import textwrap
from typing import Any, Optional

import gast
import pytest

from zygote_py.errors import UnsupportedSyntax
from zygote_py.frontend.lower import lower
from zygote_py.ir import ops
from zygote_py.ir.core import IR, Branch, Const, Jump, Raise, Return, Starred, Statement, Var
from zygote_py.ir.verify import verify

FILE = "example.py"


def parse(src: str) -> gast.AST:
    return gast.parse(textwrap.dedent(src)).body[0]


def lower_src(src: str, freevars: tuple[str, ...] = ()) -> IR:
    node = parse(src)
    name = getattr(node, "name", "<lambda>")
    ir = lower(node, filename=FILE, name=name, freevars=freevars)
    verify(ir)
    return ir


def statements(ir: IR) -> list[Statement]:
    return [s for b in ir.blocks.values() for s in b.stmts]


def callees(ir: IR) -> list[Any]:
    return [s.callee.value for s in statements(ir) if isinstance(s.callee, Const)]


def calls_of(ir: IR, fn: Any) -> list[Statement]:
    return [s for s in statements(ir) if isinstance(s.callee, Const) and s.callee.value is fn]


def terms(ir: IR, kind: type) -> list[Any]:
    return [b.term for b in ir.blocks.values() if isinstance(b.term, kind)]


# -- an IR interpreter: the oracle for behaviour ---------------------------------


class _NoClosures(Exception):
    """The interpreter has no cells: tests of closures check the IR's shape."""


def interpret(ir: IR, args: tuple, namespace: dict) -> Any:
    """Run ``ir`` on positional ``args``; globals live in ``namespace``."""
    values: dict[Var, Any] = {}

    def get(op):
        return op.value if isinstance(op, Const) else values[op]

    block, incoming = ir.entry, list(args)
    while True:
        values.update(zip(block.args, incoming))
        try:
            for s in block.stmts:
                values[s.var] = _call(s, get, namespace)
            t = block.term
            if isinstance(t, Branch):
                t = t.then if get(t.cond) else t.orelse
            if isinstance(t, Jump):
                block, incoming = ir.blocks[t.target], [get(a) for a in t.args]
                continue
            if isinstance(t, Return):
                return get(t.value)
            if t.cause is None:
                raise get(t.exc)
            raise get(t.exc) from get(t.cause)
        except _NoClosures:
            raise
        except BaseException as e:  # noqa: B902 - every exception takes the edge
            if block.handler is None:
                raise
            incoming = [e] + [get(a) for a in block.handler.args]
            block = ir.blocks[block.handler.target]


def _call(s: Statement, get, namespace: dict) -> Any:
    fn = get(s.callee)
    if fn is ops.load_global:
        name = get(s.args[0])
        if name in namespace:
            return namespace[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise NameError(f"name {name!r} is not defined")
    if fn is ops.store_global:
        namespace[get(s.args[0])] = get(s.args[1])
        return None
    if fn is ops.delete_global:
        del namespace[get(s.args[0])]
        return None
    if fn in (ops.load_deref, ops.store_deref, ops.delete_deref, ops.make_function, ops.make_scope):
        raise _NoClosures(fn.__name__)
    args: list = []
    for a in s.args:
        if isinstance(a, Starred):
            args.extend(get(a.value))
        else:
            args.append(get(a))
    kwargs: dict = {}
    for k, v in s.kwargs:
        if k is None:
            kwargs.update(get(v))
        else:
            kwargs[k] = get(v)
    return fn(*args, **kwargs)


def outcome(fn, args: tuple) -> tuple:
    try:
        return ("returned", fn(*copy.deepcopy(args)))
    except Exception as e:  # the exception is the outcome under test
        return ("raised", type(e), e.args)


def _data(namespace: dict) -> str:
    """The globals a test can compare: everything but functions."""
    return repr(
        {k: v for k, v in namespace.items() if k != "__builtins__" and not callable(v)}
    )


def check_same(src: str, *inputs: tuple, env: Optional[dict] = None) -> IR:
    """Lower ``src`` and require the IR to behave as Python does on every
    input (return value or exception, and the globals afterwards)."""
    ir = lower_src(src)
    for args in inputs:
        expected_ns = dict(copy.deepcopy(env or {}))
        exec(compile(textwrap.dedent(src), FILE, "exec"), expected_ns)
        fn = expected_ns.pop(ir.name)
        got_ns = dict(copy.deepcopy(env or {}))
        exec(compile(textwrap.dedent(src), FILE, "exec"), got_ns)
        got_ns.pop(ir.name)
        expected = outcome(fn, args)
        got = outcome(lambda *a: interpret(ir, a, got_ns), args)
        assert got == expected, f"{args}: IR gives {got}, Python {expected}\n{ir}"
        assert _data(got_ns) == _data(expected_ns)
    return ir


# -- the key example: DESIGN.md's pow ------------------------------------------------

POW = """
def pow(x, n):
    r = 1.0
    while n > 0:
        n -= 1
        r *= x
    return r
"""


def test_pow_prints_like_the_design():
    assert str(lower_src(POW)) == textwrap.dedent(
        """\
        # pow (example.py:2)
        1: (%1:x, %2:n)
          br 2 (%2, 1.0)
        2: (%3:n, %4:r)
          %5 = operator.gt(%3, 0)
          br 4 unless %5
          br 3
        3:
          %6:n = operator.isub(%3, 1)
          %7:r = operator.imul(%4, %1)
          br 2 (%6, %7)
        4:
          return %4
        """
    )


def test_pow_behaves():
    check_same(POW, (2.0, 3), (1.5, 0), (3, 5))


def test_metadata_and_signature():
    ir = lower_src(
        """
        def f(a, /, b, *c, d, e=1, **g):
            return a
        """
    )
    assert ir.name == "f" and ir.filename == FILE and ir.firstline == 2
    sig = ir.signature
    assert (sig.posonly, sig.args, sig.vararg, sig.kwonly, sig.kwarg) == (
        ["a"], ["b"], "c", ["d", "e"], "g"
    )
    assert [ir.names[v] for v in ir.entry.args] == sig.names()
    assert ir.entry is ir.blocks[1]
    assert list(ir.blocks) == list(range(1, len(ir.blocks) + 1))


def test_every_statement_and_terminator_has_its_line():
    ir = lower_src(
        """
        def f(x):
            y = x + 1
            if y:
                z = g(
                    y)
            else:
                raise ValueError(x)
            return z
        """
    )
    lines = {s.callee.value: s.line for s in statements(ir) if isinstance(s.callee, Const)}
    assert lines[operator.add] == 3
    g_call = [s for s in statements(ir) if isinstance(s.callee, Var)][0]
    assert g_call.line == 5
    assert terms(ir, Branch)[0].line == 4
    assert terms(ir, Raise)[0].line == 8
    assert terms(ir, Return)[0].line == 9
    assert all(s.line is not None for s in statements(ir))


# -- straight-line code ------------------------------------------------------------------


def test_operators_lower_to_the_operator_module():
    ir = check_same(
        """
        def f(a, b):
            return (a + b, a - b, a * b, a / b, a // b, a % b, a ** b,
                    a << b, a >> b, a & b, a | b, a ^ b, -a, +a, ~a, not a,
                    a < b, a <= b, a == b, a != b, a > b, a >= b,
                    a is b, a is not b)
        """,
        (7, 3),
        (-2, 5),
        (1, 0),
    )
    assert callees(ir)[:16] == [
        operator.add, operator.sub, operator.mul, operator.truediv,
        operator.floordiv, operator.mod, operator.pow, operator.lshift,
        operator.rshift, operator.and_, operator.or_, operator.xor,
        operator.neg, operator.pos, operator.invert, operator.not_,
    ]


def test_membership_keeps_source_operand_order():
    ir = check_same(
        """
        def f(a, b):
            return a in b, a not in b
        """,
        (1, [1, 2]),
        (3, [1, 2]),
    )
    (c,) = calls_of(ir, ops.contains)
    (n,) = calls_of(ir, ops.not_contains)
    assert c.args == ir.entry.args and n.args == ir.entry.args


def test_negative_number_is_a_literal():
    ir = lower_src("def f():\n    return -1.5")
    assert not statements(ir)
    assert terms(ir, Return)[0].value.value == -1.5


def test_local_assignment_is_ssa_only_and_named():
    ir = lower_src(
        """
        def f(x):
            y = x * 2
            z = y
            return z
        """
    )
    (s,) = statements(ir)
    assert ir.names[s.var] == "y"  # first name wins
    assert terms(ir, Return)[0].value == s.var


def test_assignment_forms():
    check_same(
        """
        def f(xs, o):
            a = b = xs[0]
            c, (d, *e), f = xs
            *g, h = xs[2]
            o[0] = a
            o[1:2] = [b, b]
            [i, j] = k = (c, d)
            return a, b, c, d, e, f, g, h, i, j, k, o
        """,
        ([1, [2, 3, 4], "xyz"], [0, 0, 0]),
        ([1, [2], "z"], [0, 0]),
        ([1, [], "z"], [0]),
        ([1, 2], [0]),
    )


def test_unpacking_statements():
    ir = lower_src(
        """
        def f(v):
            a, *b, c = v
            return b
        """
    )
    (u,) = calls_of(ir, ops.unpack_starred)
    assert [a.value for a in u.args[1:]] == [1, 1]
    items = calls_of(ir, operator.getitem)
    assert [s.args[1].value for s in items] == [0, 1, 2]
    assert all(s.args[0] == u.var for s in items)
    assert terms(ir, Return)[0].value == items[1].var


def test_augmented_assignment_evaluates_the_target_once():
    ir = check_same(
        """
        def f(a, i, v):
            a[i] += v
            a[i + 1] **= 2
            x = a[0]
            x -= 1
            return a, x
        """,
        ([1, 2, 3], 0, 5),
        ([1, 2, 3], 1, 5),
        ([1.5, 2.0], 0, 1),
    )
    first_get = calls_of(ir, operator.getitem)[0]
    first_set = calls_of(ir, operator.setitem)[0]
    assert first_set.args[:2] == first_get.args
    assert callees(ir).count(operator.iadd) == 1
    assert callees(ir).count(operator.ipow) == 1


def test_augmented_attribute():
    ir = lower_src(
        """
        def f(o, v):
            o.x |= v
        """
    )
    assert callees(ir) == [getattr, operator.ior, setattr]


def test_annotated_assignment():
    check_same(
        """
        def f(x):
            y: int = x + 1
            z: float
            return y
        """,
        (1,),
    )


def test_attributes_and_subscripts():
    ir = check_same(
        """
        def f(s, t):
            return s.upper(), s[1:], s[::-1], s[:2:1], t[1, 2], s.count("a")
        """,
        ("banana", {(1, 2): 3}),
    )
    slices = calls_of(ir, slice)
    assert all(len(s.args) == 3 for s in slices)
    assert [a.value for a in slices[0].args] == [1, None, None]


def test_multidimensional_subscript_key_is_a_tuple_of_slices():
    ir = lower_src(
        """
        def f(a):
            return a[1:2, ::3, ..., None]
        """
    )
    (key,) = calls_of(ir, ops.build_tuple)
    assert len(key.args) == 4
    assert key.args[2].value is Ellipsis and key.args[3].value is None


def test_calls_with_star_and_keywords():
    ir = check_same(
        """
        def f(xs, kw):
            return g(1, *xs, 2, k=3, **kw)

        def g(*args, **kwargs):
            return args, kwargs
        """,
        ([4, 5], {"z": 6}),
    )
    (call,) = [s for s in statements(ir) if isinstance(s.callee, Var)]
    assert isinstance(call.args[1], Starred)
    assert [k for k, _ in call.kwargs] == ["k", None]


def test_displays():
    ir = check_same(
        """
        def f(xs, m):
            return (1, *xs), [*xs, 2], {*xs}, {"a": 1, **m, "b": 2, **m}
        """,
        ([3, 4], {"c": 5}),
        ([], {"a": 0}),
    )
    assert callees(ir).count(ops.build_dict) == 1
    assert callees(ir).count(ops.merge_dict) == 2


def test_fstrings():
    ir = check_same(
        """
        def f(x, w):
            return f"<{x!r:>{w}}|{x:.2f}|{x!s}|{x!a}|{'é'!a}>"
        """,
        (3.14159, 10),
    )
    conversions = [s.args[1].value for s in calls_of(ir, ops.format_value)]
    assert conversions == ["", "r", "", "s", "a", "a"]


def test_globals_read_write_delete():
    ir = check_same(
        """
        def f(x):
            global counter, gone
            counter = counter + x
            del gone
            return len([counter])
        """,
        (2,),
        env={"counter": 1, "gone": 0},
    )
    assert ops.store_global in callees(ir) and ops.delete_global in callees(ir)
    assert ops.load_global in callees(ir)


# -- control flow ----------------------------------------------------------------------


def test_if_elif_else():
    check_same(
        """
        def f(x):
            if x < 0:
                y = -x
            elif x == 0:
                y = 100
            else:
                y = x
                if y > 5:
                    return "big"
            return y
        """,
        (-3,),
        (0,),
        (4,),
        (9,),
    )


def test_variable_assigned_on_one_path_is_checked():
    ir = check_same(
        """
        def f(c):
            if c:
                y = 1
            return y
        """,
        (True,),
        (False,),
    )
    (check,) = calls_of(ir, ops.check_bound)
    assert check.args[1].value == "y"
    assert any(isinstance(a, Const) and a.value is ops.UNBOUND for j in _jumps(ir) for a in j.args)


def test_no_check_where_always_bound():
    ir = lower_src(
        """
        def f(c, x):
            if c:
                y = 1
            else:
                y = x
            while c:
                c = c - y
            return y
        """
    )
    assert not calls_of(ir, ops.check_bound)


def _jumps(ir: IR) -> list[Jump]:
    return [j for b in ir.blocks.values() for j in b.jumps()]


def test_trivial_block_arguments_are_removed():
    ir = lower_src(
        """
        def f(x, n):
            y = x
            for i in range(n):
                if i:
                    n = n + 0
            return y, x
        """
    )
    # x and y never change in the loop: only n needs an argument, in the
    # header and after the if.
    header = [b for b in ir.blocks.values() if calls_of_block(b, ops.iternext)][0]
    assert [ir.names[a] for a in header.args] == ["n"]
    assert terms(ir, Return)
    (tup,) = calls_of(ir, ops.build_tuple)
    assert tup.args == [ir.entry.args[0], ir.entry.args[0]]


def calls_of_block(b, fn) -> list[Statement]:
    return [s for s in b.stmts if isinstance(s.callee, Const) and s.callee.value is fn]


def test_while_else_break_continue():
    check_same(
        """
        def f(n):
            i = 0
            out = []
            while i < n:
                i += 1
                if i == 2:
                    continue
                if i == 7:
                    break
                out.append(i)
            else:
                out.append("done")
            return out
        """,
        (0,),
        (5,),
        (10,),
    )


def test_while_true_has_no_test():
    ir = lower_src(
        """
        def f(n):
            while True:
                n -= 1
                if n < 0:
                    break
            return n
        """
    )
    assert not any(
        isinstance(b.term, Branch) and isinstance(b.term.cond, Const) for b in ir.blocks.values()
    )
    check_same(
        """
        def f(n):
            while True:
                n -= 1
                if n < 0:
                    break
            return n
        """,
        (3,),
    )


def test_for_loop_shape():
    ir = lower_src(
        """
        def f(xs):
            s = 0
            for x in xs:
                s = s + x
            return s
        """
    )
    (it,) = calls_of(ir, iter)
    header = [b for b in ir.blocks.values() if calls_of_block(b, ops.iternext)][0]
    nxt, done = header.stmts
    assert nxt.callee.value is ops.iternext and nxt.args == [it.var]
    assert done.callee.value is ops.exhausted and done.args == [nxt.var]
    branch = header.term
    assert isinstance(branch, Branch) and branch.cond == done.var
    body = ir.blocks[branch.orelse.target]
    assert body.stmts[0].args[1] == nxt.var  # s + x reads the item
    assert ir.names[nxt.var] == "x"


def test_for_else_nested_loops_and_return_in_loop():
    check_same(
        """
        def f(rows, target):
            found = None
            for i, row in enumerate(rows):
                for j, v in enumerate(row):
                    if v == target:
                        found = (i, j)
                        break
                    if v < 0:
                        return "negative"
                else:
                    continue
                break
            else:
                found = "nowhere"
            return found
        """,
        ([[1, 2], [3, 4]], 3),
        ([[1, 2], [3, 4]], 9),
        ([[1, -2], [3, 4]], 9),
        ([], 1),
    )


def test_loop_variable_unbound_after_empty_loop():
    check_same(
        """
        def f(xs):
            for x in xs:
                pass
            return x
        """,
        ([1, 2],),
        ([],),
    )


def test_boolean_operators_short_circuit_and_keep_values():
    ir = check_same(
        """
        def f(a, b, c):
            return (a and b), (a or b), (a and b and c), (a or b or c), not (a and c)
        """,
        (0, 2, 3),
        (1, 0, 3),
        ("", [], None),
        (1, 2, 3),
    )
    assert not calls_of(ir, operator.and_) and not calls_of(ir, operator.or_)
    check_same(
        """
        def f(x):
            return x and 1 / x
        """,
        (0,),
        (4,),
    )


def test_chained_comparison_evaluates_middle_once():
    ir = check_same(
        """
        def f(a, b, c):
            return a < g(b) <= c

        def g(v):
            calls.append(v)
            return v
        """,
        (1, 2, 3),
        (3, 2, 1),
        (1, 5, 3),
        env={"calls": []},
    )
    assert len([s for s in statements(ir) if isinstance(s.callee, Var)]) == 1
    assert callees(ir).count(operator.lt) == 1 and callees(ir).count(operator.le) == 1


def test_conditional_expression_and_walrus():
    check_same(
        """
        def f(x):
            y = "pos" if x > 0 else "neg" if x < 0 else "zero"
            if (n := len(y)) > 3:
                return y, n
            return n
        """,
        (1,),
        (-1,),
        (0,),
    )


def test_assert():
    ir = check_same(
        """
        def f(x):
            assert x > 0, f"bad {x}"
            assert x < 10
            return x
        """,
        (5,),
        (-1,),
        (20,),
    )
    assert len(calls_of(ir, AssertionError)) == 2
    assert len(terms(ir, Raise)) == 2


def test_delete_local_makes_it_unbound():
    ir = check_same(
        """
        def f(x, c):
            y = x
            del x
            if c:
                x = 2
            return x + y
        """,
        (1, True),
        (1, False),
    )
    assert calls_of(ir, ops.check_bound)


def test_delete_attribute_subscript_and_unbound_local():
    check_same(
        """
        def f(d):
            del d["a"], d["b"]
            return d
        """,
        ({"a": 1, "b": 2, "c": 3},),
        ({"a": 1},),
    )
    check_same(
        """
        def f(c):
            if c:
                x = 1
            del x
            return c
        """,
        (True,),
        (False,),
    )


def test_return_anywhere_and_implicit_none():
    check_same(
        """
        def f(x):
            if x:
                return
            x = 3
        """,
        (1,),
        (0,),
    )


# -- comprehensions --------------------------------------------------------------------


def test_comprehensions_are_inline_with_their_own_variables():
    ir = check_same(
        """
        def f(xs):
            x = "outer"
            a = [x * 2 for x in xs if x if x != 3]
            b = {x % 3 for x in xs}
            c = {x: y for x in xs for y in range(x) if y}
            d = [[y + x for y in range(x)] for x in xs]
            return a, b, c, d, x
        """,
        ([1, 2, 3, 4],),
        ([],),
    )
    assert not calls_of(ir, ops.make_scope)
    assert ops.build_list in callees(ir) and ops.build_set in callees(ir)


def test_comprehension_walrus_binds_the_function_variable():
    check_same(
        """
        def f(xs):
            ys = [last := x * 2 for x in xs]
            return ys, last
        """,
        ([1, 2],),
        ([],),
    )


def test_comprehension_variable_unbound_inside_is_an_error():
    check_same(
        """
        def f(xs):
            return [y for x in xs for y in (x, y)]
        """,
        ([1],),
    )


def test_generator_expression_is_its_own_scope():
    ir = lower_src(
        """
        def f(xs, k):
            return sum(x * k for x in range(len(xs)))
        """
    )
    (scope,) = calls_of(ir, ops.make_scope)
    assert isinstance(scope.args[0].value, gast.GeneratorExp)
    (n,) = [s for s in statements(ir) if isinstance(s.callee, Var) and s is not scope][:1]
    assert scope.args[1] != ir.entry.args[0]  # range(len(xs)) evaluated outside
    assert ir.cellvars == ["k"]
    assert calls_of(ir, ops.load_deref) == []  # k is only read inside


def test_comprehension_with_lambda_is_its_own_scope():
    ir = lower_src(
        """
        def f(xs):
            return [lambda: x for x in xs]
        """
    )
    (scope,) = calls_of(ir, ops.make_scope)
    assert isinstance(scope.args[0].value, gast.ListComp)
    assert scope.args[1] == ir.entry.args[0]
    assert ir.cellvars == []


# -- functions and closures ---------------------------------------------------------------


def test_nested_def_with_defaults_decorators_and_cells():
    ir = lower_src(
        """
        def f(x, y):
            @deco1
            @deco2(y)
            def g(a, b=x + 1, *, c=2, d):
                return a + y
            return g
        """
    )
    assert ir.cellvars == ["y"]
    (make,) = calls_of(ir, ops.make_function)
    node = make.args[0].value
    assert isinstance(node, gast.FunctionDef) and node.name == "g" and not node.decorator_list
    assert [k for k, _ in make.kwargs] == ["c"]
    # deco1 and deco2(y) are evaluated first, then the default, then
    # applied innermost first.
    order = [s.callee.value if isinstance(s.callee, Const) else "call" for s in statements(ir)]
    assert order == [
        ops.load_global, ops.load_global, ops.load_deref, "call",
        operator.add, ops.make_function, "call", "call",
    ]
    calls = [s for s in statements(ir) if isinstance(s.callee, Var)]
    assert calls[1].args == [make.var] and calls[2].args == [calls[1].var]
    assert calls_of(ir, ops.load_deref)[0].args[0].value == "y"
    assert ir.names[terms(ir, Return)[0].value] == "g"


def test_nested_def_drops_annotations_without_touching_the_source_tree():
    node = parse(
        """
        def f(T):
            @d
            def g(a: T) -> T:
                return a
            return g
        """
    )
    ir = lower(node, filename=FILE, name="f")
    (make,) = calls_of(ir, ops.make_function)
    bare = make.args[0].value
    assert bare.args.args[0].annotation is None and bare.returns is None
    original = node.body[0]
    assert original.decorator_list and original.returns is not None
    assert original.args.args[0].annotation is not None


def test_cell_parameter_is_read_through_the_cell():
    ir = lower_src(
        """
        def f(x):
            x = x + 1
            return lambda: x
        """
    )
    assert ir.cellvars == ["x"]
    assert callees(ir)[:3] == [ops.load_deref, operator.add, ops.store_deref]
    loads = calls_of(ir, ops.load_deref)
    assert loads[0].args[0].value == "x"


def test_recursive_nested_function_is_a_cell():
    ir = lower_src(
        """
        def f(n):
            def fact(k):
                return 1 if k < 2 else k * fact(k - 1)
            return fact(n)
        """
    )
    assert ir.cellvars == ["fact"]
    assert callees(ir)[:2] == [ops.make_function, ops.store_deref]


def test_nonlocal_and_free_variables():
    ir = lower_src(
        """
        def inc(k):
            nonlocal count
            count += k
            return count * scale
        """,
        freevars=("count", "scale", "unused"),
    )
    assert ir.freevars == ["count", "scale"]
    assert callees(ir) == [
        ops.load_deref, operator.iadd, ops.store_deref, ops.load_deref, ops.load_deref,
        operator.mul,
    ]


def test_free_variable_used_only_by_a_nested_scope_is_kept():
    ir = lower_src(
        """
        def f(x):
            return lambda: x + k
        """,
        freevars=("k",),
    )
    assert ir.freevars == ["k"] and ir.cellvars == ["x"]


def test_lambda_node():
    node = gast.parse("h = lambda a, b=2: a * b").body[0].value
    ir = lower(node, filename=FILE, name="<lambda>")
    verify(ir)
    assert ir.signature.names() == ["a", "b"]
    (mul,) = statements(ir)
    assert terms(ir, Return)[0].value == mul.var


def test_zero_argument_super():
    ir = lower_src(
        """
        def __init__(self, x):
            super().__init__(x)
        """,
        freevars=("__class__",),
    )
    assert ir.freevars == ["__class__"]
    load_super, cls = statements(ir)[:2]
    assert load_super.callee.value is ops.load_global and load_super.args[0].value == "super"
    assert cls.callee.value is ops.load_deref and cls.args[0].value == "__class__"
    call = statements(ir)[2]
    assert call.callee == load_super.var and call.args == [cls.var, ir.entry.args[0]]


def test_super_outside_a_class_stays_a_plain_call():
    ir = lower_src(
        """
        def f(self):
            return super()
        """
    )
    call = [s for s in statements(ir) if isinstance(s.callee, Var)][0]
    assert call.args == []


# -- exceptions ----------------------------------------------------------------------------


def test_try_except_shape():
    ir = lower_src(
        """
        def f(x):
            y = 0
            try:
                y = g(x)
                z = h(y)
            except ValueError as e:
                return e
            return z
        """
    )
    protected = [b for b in ir.blocks.values() if b.handler is not None]
    assert len(protected) >= 2  # each statement starts a block
    handler = ir.blocks[protected[0].handler.target]
    assert all(b.handler.target == handler.id for b in protected)
    (test,) = calls_of(ir, isinstance)
    assert test.args[0] == handler.args[0]
    assert any(isinstance(b.term, Raise) and b.term.exc == handler.args[0] for b in ir.blocks.values())


def test_handler_sees_values_at_entry_of_the_raising_statement():
    check_same(
        """
        def f(xs):
            n = 0
            try:
                n = 1
                n = n + xs[0]
                n = 10
                n = n + xs[1]
            except IndexError:
                return ("caught", n)
            return n
        """,
        ([5, 6],),
        ([5],),
        ([],),
    )


def test_try_except_else_finally():
    check_same(
        """
        def f(x, log):
            try:
                log.append("body")
                y = 10 // x
            except ZeroDivisionError as e:
                log.append("zero")
                y = -1
            except (TypeError, ValueError):
                log.append("type")
                raise
            else:
                log.append("else")
                y += 1
            finally:
                log.append("finally")
            return y, log
        """,
        (2, []),
        (0, []),
        ("a", []),
    )


def test_except_name_is_unbound_after_the_clause():
    check_same(
        """
        def f(x):
            try:
                1 / x
            except ZeroDivisionError as e:
                pass
            return e
        """,
        (0,),
        (1,),
    )


def test_finally_on_every_way_out():
    check_same(
        """
        def f(xs, log):
            for x in xs:
                try:
                    if x == 1:
                        continue
                    if x == 2:
                        break
                    if x == 3:
                        return "three", log
                    if x == 4:
                        raise KeyError(x)
                    log.append(x)
                finally:
                    log.append(("finally", x))
            return log
        """,
        ([0, 1, 5, 2, 6], []),
        ([3, 0], []),
        ([4], []),
        ([], []),
    )


def test_return_value_is_computed_before_finally():
    check_same(
        """
        def f(log):
            x = 1
            try:
                return x, log
            finally:
                x = 2
                log.append(x)
        """,
        ([],),
    )


def test_return_in_finally_swallows_the_exception():
    check_same(
        """
        def f(x):
            try:
                raise ValueError(x)
            finally:
                return "swallowed"
        """,
        (1,),
    )


def test_nested_try_and_reraise():
    check_same(
        """
        def f(x, log):
            try:
                try:
                    log.append(1)
                    if x:
                        raise KeyError(x)
                except KeyError as e:
                    log.append(("inner", e.args))
                    raise ValueError("wrapped") from e
                finally:
                    log.append("inner finally")
            except ValueError as e:
                log.append(("outer", type(e.__cause__)))
            return log
        """,
        (0, []),
        (1, []),
    )


def test_exception_from_handler_clause_goes_to_outer_finally():
    check_same(
        """
        def f(x, log):
            try:
                try:
                    1 / x
                except ZeroDivisionError:
                    log.append("handler")
                    [][0]
            finally:
                log.append("finally")
            return log
        """,
        (1, []),
        (0, []),
    )


class Manager:
    def __init__(self, log, swallow=False):
        self.log, self.swallow = log, swallow

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", kind, str(value) if value else None))
        return self.swallow


WITH_ENV = {"Manager": Manager}


def test_with_statement_semantics():
    check_same(
        """
        def f(x, log):
            with Manager(log) as m, Manager(log, swallow=True):
                log.append(m is not None)
                if x == 1:
                    return "returned", log
                if x == 2:
                    raise KeyError("k")
                log.append("body end")
            with Manager(log):
                if x == 3:
                    raise ValueError("v")
            return log
        """,
        (0, []),
        (1, []),
        (2, []),
        (3, []),
        env=WITH_ENV,
    )


def test_with_break_and_continue_call_exit():
    check_same(
        """
        def f(xs, log):
            for x in xs:
                with Manager(log):
                    if x == 0:
                        continue
                    if x == 1:
                        break
                    log.append(x)
            return log
        """,
        ([2, 0, 3, 1, 4], []),
        env=WITH_ENV,
    )


def test_with_looks_up_enter_and_exit_on_the_type():
    ir = lower_src(
        """
        def f(m):
            with m as v:
                return v
        """
    )
    kind, enter, exit_ = statements(ir)[:3]
    assert kind.callee.value is type and kind.args == [ir.entry.args[0]]
    assert [a.value for a in (enter.args[1], exit_.args[1])] == ["__enter__", "__exit__"]
    assert enter.args[0] == kind.var


def test_raise_from():
    ir = lower_src(
        """
        def f(x):
            raise ValueError(x) from None
        """
    )
    (r,) = terms(ir, Raise)
    assert r.cause.value is None
    check_same(
        """
        def f(x):
            raise ValueError(x) from KeyError(x)
        """,
        (1,),
    )


def test_loop_in_try_body():
    check_same(
        """
        def f(xs):
            total = 0
            try:
                for x in xs:
                    total += 10 // x
            except ZeroDivisionError:
                return "zero", total
            return total
        """,
        ([1, 2, 5],),
        ([1, 0, 5],),
        ([0],),
    )


# -- unreachable code and block order ---------------------------------------------------------


def test_unreachable_code_is_dropped():
    ir = lower_src(
        """
        def f(x):
            return x
            y = g(x)
        """
    )
    assert len(ir.blocks) == 1 and not statements(ir)


def test_blocks_follow_the_source():
    ir = lower_src(
        """
        def f(x):
            if x:
                a = g1()
            else:
                a = g2()
            return a
        """
    )
    loads = [s.args[0].value for s in calls_of(ir, ops.load_global)]
    assert loads == ["g1", "g2"]


# -- match statements ------------------------------------------------------------------------


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


MATCH = """
def classify(v, limit):
    n = -1
    match v:
        case None:
            kind = "none"
        case 0 | 0.5:
            kind = "small"
        case float(x) if x > limit:
            kind = ("large", x)
        case int() | float() as x:
            kind = ("number", x)
        case [a, b]:
            kind = ("pair", a, b)
        case [first, *rest, last] if rest:
            kind = ("long", first, rest, last)
        case (first, *_):
            kind = ("tuple or short", first)
        case {"w": w, "b": [b0, *_] as b}:
            kind = ("layer", w, b0, b)
        case {"w": w}:
            kind = ("weights", w)
        case Point(x=0, y=py):
            kind = ("on the axis", py)
        case Point(px, py) as p:
            kind = ("point", px, py, p is v)
        case str(s):
            kind = ("text", s)
        case _:
            n = 0
            kind = "other"
    return kind, n
"""


def test_match_behaves_as_python():
    check_same(
        MATCH,
        (None, 1.0), (0, 1.0), (0.5, 1.0), (3.0, 1.0), (0.75, 1.0), (7, 1.0), (True, 1.0),
        ([1.0, 2.0], 1.0), ((1.0, 2.0, 3.0, 4.0), 1.0), ([1.0, 2.0, 3.0], 1.0), ((9.0,), 1.0), ([], 1.0),
        ({"w": 1.0, "b": [2.0, 3.0]}, 1.0), ({"w": 1.0, "b": []}, 1.0), ({"w": 1.0, "c": 2}, 1.0), ({}, 1.0),
        (Point(0, 5.0), 1.0), (Point(1.0, 2.0), 1.0), ("ab", 1.0), (b"ab", 1.0), (object, 1.0),
        env={"Point": Point},
    )


def test_match_evaluates_its_subject_once_and_binds_captures_before_the_guard():
    src = """
    def f(xs):
        match xs.pop():
            case [a, b] if a > b:
                return a
            case [a, *_]:
                return (a, len(xs))
        return a
    """
    # (a second xs.pop() would change what len(xs) returns, or raise on [])
    check_same(src, ([[1.0, 2.0]],), ([[3.0, 2.0]],), ([[3.0, 2.0, 1.0], [5.0]],), ([5.0],), ([],))


def test_match_class_pattern_without_match_args_and_missing_attributes():
    src = """
    def f(v):
        match v:
            case Point(x=1, z=z):
                return z
            case Bare(1):
                return "positional"
            case Bare(y=y):
                return y
        return None
    """
    class Bare:
        def __init__(self, y):
            self.y = y
    check_same(src, (Point(1, 2),), (Bare(3),), (5,), env={"Point": Point, "Bare": Bare})
    check_same(src, (Bare(1),), env={"Point": Point, "Bare": Bare})  # (TypeError: no __match_args__)


# -- unsupported syntax ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, what, line",
    [
        ("x = 1\n    y = yield x", "'yield' whose value is used", 4),
        ("yield from x\n    return 2", "'return' with a value", 4),
        ("while True:\n        yield x", "a loop that never ends", 3),
        ("await x", "'await'", 3),
        ("async with x:\n        pass", "'async with'", 3),
        ("async for a in x:\n        pass", "'async for'", 3),
        ("async def g():\n        pass", "'async def'", 3),
        ("class C:\n        pass", "'class' statement", 3),
        ("from . import path", "relative import", 3),
        ("from os import *", "'from ... import *'", 3),
        ("match x:\n        case {'a': 1, **rest}:\n            pass", "'**rest' in a mapping pattern", 4),
        ("try:\n        pass\n    except* ValueError:\n        pass", "'try/except*'", 3),
        ("raise", "bare 'raise'", 3),
        ("return [a async for a in x]", "'async for'", 3),
        ("if x:\n        return (yield)", "'yield'", 4),
    ],
)
def test_unsupported_syntax(body, what, line):
    src = f"\ndef fun(x):\n    {body}\n"
    with pytest.raises(UnsupportedSyntax) as info:
        lower(parse(src), filename=FILE, name="fun")
    message = str(info.value)
    assert what in message and "not supported" in message
    assert "'fun'" in message and FILE in message and f"line {line}" in message
    assert info.value.line == line and info.value.function == "fun"


def test_imports_inside_a_function_bind_modules_and_names():
    ir = lower_src(
        """
        def f(x):
            import math
            import os.path
            import numpy.linalg as la
            from os import path as p
            return math, os, la, p
        """
    )
    modules = [s.args[0].value for s in calls_of(ir, importlib.import_module)]
    assert modules == ["math", "os.path", "os", "numpy.linalg"]
    assert [[a.value for a in s.args] for s in calls_of(ir, ops.import_from)] == [["os", "path"]]
    assert ops.import_from("os", "path") is __import__("os").path


def test_nested_generator_function_is_fine():
    ir = lower_src(
        """
        def f(xs):
            def gen():
                yield from xs
            return list(gen())
        """
    )
    assert calls_of(ir, ops.make_function)


# -- robustness: the standard library lowers to verified IR ------------------------------------


@pytest.mark.parametrize(
    "module", ["textwrap", "json.encoder", "fractions", "difflib", "argparse", "heapq", "string"]
)
def test_standard_library_functions_lower_and_verify(module):
    import importlib
    import inspect

    tree = gast.parse(inspect.getsource(importlib.import_module(module)))
    lowered = 0
    for node in gast.walk(tree):
        if not isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue
        try:
            ir = lower(node, filename=module, name=getattr(node, "name", "<lambda>"))
        except UnsupportedSyntax:
            continue
        verify(ir)
        lowered += 1
    assert lowered >= 5


# -- random programs: control flow, exceptions, unbound locals ----------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VARS = ["a", "b", "c"]


@st.composite
def _expressions(draw, depth: int = 0) -> str:
    kind = draw(st.integers(0, 6 if depth < 2 else 1))
    sub = lambda: draw(_expressions(depth + 1))  # noqa: E731
    if kind == 0:
        return draw(st.sampled_from(_VARS))
    if kind == 1:
        return str(draw(st.integers(-2, 3)))
    if kind == 2:
        op = draw(st.sampled_from(["+", "-", "*", "//", "%"]))
        return f"({sub()} {op} {sub()})"
    if kind == 3:
        return f"({sub()} < {sub()} <= {sub()})"
    if kind == 4:
        return f"({sub()} {draw(st.sampled_from(['and', 'or']))} {sub()})"
    if kind == 5:
        return f"({sub()} if {sub()} else {sub()})"
    return f"({draw(st.sampled_from(_VARS))} := {sub()})"


@st.composite
def _suites(draw, depth: int, loops: int) -> list[str]:
    """A suite (lines, indented by the caller); ``loops`` counts enclosing
    loops, for ``break`` and ``continue`` and fresh counter names."""
    out: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        out += draw(_statements(depth, loops))
    return out


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


@st.composite
def _statements(draw, depth: int, loops: int) -> list[str]:
    simple = [
        lambda: [f"{draw(st.sampled_from(_VARS))} = {draw(_expressions())}"],
        lambda: [f"{draw(st.sampled_from(_VARS))} += {draw(_expressions())}"],
        lambda: [f"log.append(({draw(st.integers(0, 99))}, {draw(_expressions())}))"],
        lambda: [f"del {draw(st.sampled_from(_VARS))}"],
        lambda: [f"return log, {draw(_expressions())}"],
        lambda: ["raise ValueError(len(log))"],
    ]
    if loops:
        simple += [lambda: ["break"], lambda: ["continue"], lambda: ["if a:", "    continue"]]
    if depth >= 2:
        return draw(st.sampled_from(simple))()
    body = lambda: _indent(draw(_suites(depth + 1, loops)))  # noqa: E731
    loop_body = lambda: _indent(draw(_suites(depth + 1, loops + 1)))  # noqa: E731
    counter = f"i{loops}"

    def if_():
        lines = [f"if {draw(_expressions())}:", *body()]
        if draw(st.booleans()):
            lines += ["else:", *body()]
        return lines

    def for_():
        lines = [f"for {counter} in range({draw(st.integers(0, 3))}):", *loop_body()]
        if draw(st.booleans()):
            lines += ["else:", *body()]
        return lines

    def while_():
        return [
            f"{counter} = 0",
            f"while {counter} < {draw(st.integers(0, 3))}:",
            f"    {counter} += 1",
            *loop_body(),
        ]

    def try_():
        lines = ["try:", *body()]
        clauses = draw(st.sampled_from([1, 2, 0]))
        names = ["ZeroDivisionError as e", "UnboundLocalError", "ValueError as e"]
        for name in draw(st.permutations(names))[:clauses]:
            lines += [f"except {name}:", *body()]
        if clauses and draw(st.booleans()):
            lines += ["else:", *body()]
        if not clauses or draw(st.booleans()):
            lines += ["finally:", *body()]
        return lines

    def with_():
        return ["with Manager(log, swallow=%s):" % draw(st.booleans()), *body()]

    compound = [if_, for_, while_, try_, with_]
    return draw(st.sampled_from(simple + compound))()


@st.composite
def _programs(draw) -> str:
    lines = ["def f(a, b, c, log):", *_indent(draw(_suites(0, 0))), "    return log, a, b, c"]
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_programs(), st.lists(st.integers(-2, 3), min_size=3, max_size=3))
def test_random_programs_behave_like_python(src, values):
    check_same(src, (*values, []), (0, 1, 2, []), env=WITH_ENV)


class Truthy:
    """Counts how often Python asks for its truth value."""

    def __init__(self, value):
        self.value, self.tests = value, 0

    def __bool__(self):
        self.tests += 1
        return self.value


@pytest.mark.parametrize(
    "test",
    [
        "a and b",
        "a or b",
        "not (a and b)",
        "(a if b else c) or a",
        "a and (b or c) and not c",
        "a == a < b",
    ],
)
def test_conditions_test_each_value_once(test):
    src = f"""
        def f(p, q, r):
            a, b, c = Truthy(p), Truthy(q), Truthy(r)
            out = []
            if {test}:
                out.append(1)
            while {test}:
                out.append(2)
                break
            out.append(3 if {test} else 4)
            out.append([x for x in [5] if {test}])
            return out, a.tests, b.tests, c.tests
        """
    for values in [(False, True, True), (True, False, True), (True, True, False), (False, False, False)]:
        check_same(src, values, env={"Truthy": Truthy})


def test_condition_shape_has_no_value_join():
    ir = lower_src(
        """
        def f(a, b):
            if not a and b:
                return 1
            return 2
        """
    )
    assert not calls_of(ir, operator.not_)
    assert all(not b.args for b in ir.blocks.values() if b is not ir.entry)
