"""ir.printer: the IRTools notation of DESIGN.md, text compared exactly."""
from __future__ import annotations

import math
import operator
import textwrap

import gast

from zygote_py.ir import ops
from zygote_py.ir.core import Raise, Return, Starred
from zygote_py.ir.printer import print_ir

from .build import block, branch, c, call, jump, make_ir, pow_ir, v


def text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def test_pow_prints_as_in_the_design():
    """DESIGN.md's blocks, after a heading comment naming the function."""
    assert print_ir(pow_ir()) == text("""
        # pow
        1: (%1, %2)
          br 2 (1.0, %2)
        2: (%3, %4)
          %5 = operator.gt(%4, 0)
          br 4 unless %5
          br 3
        3:
          %6 = operator.sub(%4, 1)
          %7 = operator.mul(%3, %1)
          br 2 (%7, %6)
        4:
          return %3
        """)


def test_names_follow_definitions_only():
    """A named value prints ``%id:name`` where it is defined (block
    arguments, statement results); uses print the bare ``%id``."""
    assert print_ir(pow_ir(names=True)) == text("""
        # pow
        1: (%1:x, %2:n)
          br 2 (1.0, %2)
        2: (%3:r, %4:n)
          %5 = operator.gt(%4, 0)
          br 4 unless %5
          br 3
        3:
          %6:n = operator.sub(%4, 1)
          %7:r = operator.mul(%3, %1)
          br 2 (%7, %6)
        4:
          return %3
        """)


def test_heading_names_the_function_and_where_it_starts():
    ir = pow_ir()
    ir.filename, ir.firstline = "examples/pow.py", 12
    assert print_ir(ir).splitlines()[:2] == ["# pow (examples/pow.py:12)", "1: (%1, %2)"]


def test_str_of_an_ir_is_its_printed_form():
    ir = pow_ir(names=True)
    assert str(ir) == print_ir(ir)


def test_branch_arms_carry_their_values():
    ir = make_ir(
        block(1, [1, 2], term=branch(v(2), jump(2, v(1), c(0)), jump(3, v(1)))),
        block(2, [3, 4], term=Return(v(3))),
        block(3, [5], term=Return(v(5))),
    )
    assert print_ir(ir) == text("""
        # f
        1: (%1, %2)
          br 3 (%1) unless %2
          br 2 (%1, 0)
        2: (%3, %4)
          return %3
        3: (%5)
          return %5
        """)


def test_exception_edge_prints_first_and_raise_with_cause():
    ir = make_ir(
        block(1, [1], term=jump(2, v(1))),
        block(2, [2], [call(3, operator.truediv, c(1), v(2))], Return(v(3)), handler=jump(3, v(2))),
        block(3, [4, 5], [call(6, ValueError, c("bad"))], Raise(v(6), v(4))),
        block(4, [7], term=Raise(v(7))),
    )
    assert print_ir(ir) == text("""
        # f
        1: (%1)
          br 2 (%1)
        2: (%2)
          catch 3 (%2)
          %3 = operator.truediv(1, %2)
          return %3
        3: (%4, %5)
          %6 = ValueError('bad')
          raise %6 from %4
        4: (%7)
          raise %7
        """)


def test_starred_and_keyword_arguments():
    ir = make_ir(
        block(1, [1, 2, 3], [
            call(4, max, v(1), Starred(v(2)), kwargs=[("key", v(3)), (None, v(2))]),
            call(5, ops.build_tuple, Starred(v(4))),
        ], Return(v(5))),
    )
    assert print_ir(ir) == text("""
        # f
        1: (%1, %2, %3)
          %4 = max(%1, *%2, key=%3, **%2)
          %5 = ops.build_tuple(*%4)
          return %5
        """)


def test_constants_print_as_python_reads_them():
    ir = make_ir(
        block(1, [], [
            call(1, math.sin, c(0.5)),
            call(2, ops.load_global, c("x")),
            call(3, isinstance, v(1), c(float)),
            call(4, ops.build_tuple, c(math.inf), c(-math.inf), c(math.nan), c(None), c("a'b"), c(b"\x00")),
            call(5, getattr, c(math), c("pi")),
            call(6, operator.not_, c(True)),
        ], Return(c(Ellipsis))),
    )
    assert print_ir(ir) == text("""
        # f
        1:
          %1 = math.sin(0.5)
          %2 = ops.load_global('x')
          %3 = isinstance(%1, float)
          %4 = ops.build_tuple(float('inf'), float('-inf'), float('nan'), None, "a'b", b'\\x00')
          %5 = getattr(math, 'pi')
          %6 = operator.not_(True)
          return Ellipsis
        """)


def test_nested_scopes_print_as_their_kind_and_name():
    inner = gast.parse("def inner(y):\n    return y\n").body[0]
    lam = gast.parse("lambda: 0").body[0].value
    ir = make_ir(block(1, [], [
        call(1, ops.make_function, c(inner)),
        call(2, ops.make_function, c(lam)),
    ], Return(v(1))))
    assert print_ir(ir).splitlines()[2:4] == [
        "  %1 = ops.make_function(<def inner>)",
        "  %2 = ops.make_function(<lambda>)",
    ]


def test_missing_terminator_is_shown():
    ir = make_ir(block(1, [1], [call(2, operator.neg, v(1))]))
    assert print_ir(ir) == "# f\n1: (%1)\n  %2 = operator.neg(%1)\n  <no terminator>\n"


def test_blocks_print_in_the_irs_order():
    ir = make_ir(
        block(1, [], term=jump(3)),
        block(3, [], term=jump(2)),
        block(2, [], term=Return(c(1))),
    )
    assert print_ir(ir) == "# f\n1:\n  br 3\n3:\n  br 2\n2:\n  return 1\n"
