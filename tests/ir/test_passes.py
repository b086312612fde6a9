"""ir.passes: each pass on hand-built IRs (the resulting text, verified,
and the same behaviour under the interpreter of ``build.py``), and
``optimize`` on random programs lowered by the frontend."""
from __future__ import annotations

import math
import operator
import textwrap
from dataclasses import dataclass

import gast
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zygote_py
from zygote_py.frontend.lower import lower
from zygote_py.frontend.source import get_source
from zygote_py.ir import ops
from zygote_py.ir.core import IR, Const, Return, Starred, Statement, Var
from zygote_py.ad.nones import propagate_none  # (a pass of the compiler's, on the IR)
from zygote_py.ir.passes import (
    eliminate_dead_code, fold_constants, hoist_invariants, merge_blocks, optimize, prune_unreachable,
    remove_trivial_args, size, use_counts,
)
from zygote_py.ir.verify import verify
from zygote_py.runtime import accum

from .build import block, blocks_text, branch, c, call, interpret, jump, make_ir, pow_ir, statements, v


def text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def run_pass(p, ir: IR, *inputs: tuple) -> str:
    """Apply ``p`` to ``ir`` in place, require a valid IR that behaves as
    before on each of ``inputs``, and return its text."""
    verify(ir)
    before = [interpret(ir.copy(), *args) for args in inputs]
    p(ir)
    verify(ir)
    assert [interpret(ir, *args) for args in inputs] == before, blocks_text(ir)
    return blocks_text(ir)


# -- fold_constants ---------------------------------------------------------------------


def test_negative_literal_is_folded():
    ir = make_ir(block(1, [1], [
        call(2, operator.neg, c(1)),
        call(3, operator.mul, v(1), v(2)),
    ], Return(v(3))))
    assert run_pass(fold_constants, ir, (5,), (2.5,)) == text("""
        1: (%1)
          %3 = operator.mul(%1, -1)
          return %3
        """)


def test_folding_follows_a_chain_and_crosses_blocks():
    ir = make_ir(
        block(1, [1], [call(2, operator.add, c(1), c(2)), call(3, operator.mul, v(2), c(4))], jump(2)),
        block(2, [], [call(4, operator.lt, v(1), v(3))], Return(v(4))),
    )
    assert run_pass(fold_constants, ir, (5,), (20,)) == text("""
        1: (%1)
          br 2
        2:
          %4 = operator.lt(%1, 12)
          return %4
        """)


def test_tuples_comparisons_and_isinstance_of_literals_fold():
    ir = make_ir(block(1, [], [
        call(1, ops.build_tuple, c(1), c("a")),
        call(2, operator.eq, v(1), c((1, "a"))),
        call(3, isinstance, c(1.5), c((int, float))),
        call(4, operator.not_, c(0)),
        call(5, ops.build_tuple, v(1), v(2), v(3), v(4)),
    ], Return(v(5))))
    assert run_pass(fold_constants, ir, ()) == text("""
        1:
          return ((1, 'a'), True, True, True)
        """)


def test_branch_on_a_constant_becomes_a_jump():
    ir = make_ir(
        block(1, [1], [call(2, operator.lt, c(1), c(2))], branch(v(2), jump(2, v(1)), jump(3))),
        block(2, [3], term=Return(v(3))),
        block(3, [], term=branch(c(""), jump(2, c(0)), jump(2, c(1)))),
    )
    assert run_pass(fold_constants, ir, (7,)) == text("""
        1: (%1)
          br 2 (%1)
        2: (%3)
          return %3
        3:
          br 2 (1)
        """)


def test_branch_on_a_non_literal_constant_is_kept():
    ir = make_ir(
        block(1, [], term=branch(c(math), jump(2), jump(3))),
        block(2, [], term=Return(c(1))),
        block(3, [], term=Return(c(2))),
    )
    assert run_pass(fold_constants, ir, ()) == text("""
        1:
          br 3 unless math
          br 2
        2:
          return 1
        3:
          return 2
        """)


@pytest.mark.parametrize(
    "fn, args",
    [
        (math.sin, (c(0.5),)),
        (abs, (c(-1),)),
        (operator.getitem, (c((1, 2)), c(0))),
        (operator.concat, (c("a"), c("b"))),
        (operator.is_, (c(1), c(1))),
    ],
    ids=["math.sin", "abs", "getitem", "concat", "is_"],
)
def test_callee_outside_the_foldable_set_is_kept(fn, args):
    ir = make_ir(block(1, [], [call(1, fn, *args)], Return(v(1))))
    assert len(run_pass(fold_constants, ir, ()).splitlines()) == 3
    assert statements(ir)[0].callee.value is fn


@pytest.mark.parametrize(
    "fn, args",
    [
        (operator.truediv, (c(1), c(0))),
        (operator.mod, (c(1.0), c(0.0))),
        (operator.pow, (c(10.0), c(400))),
        (operator.add, (c(1), c("a"))),
        (operator.lshift, (c(1), c(-1))),
    ],
    ids=["1/0", "1.0%0.0", "overflow", "type error", "negative shift"],
)
def test_no_folding_when_evaluation_raises(fn, args):
    ir = make_ir(block(1, [], [call(1, fn, *args)], Return(v(1))))
    run_pass(fold_constants, ir, ())
    assert len(statements(ir)) == 1
    assert interpret(ir)[0] == "raised"


def test_no_folding_of_mutable_or_non_literal_operands():
    shared = [1]
    ir = make_ir(block(1, [1], [
        call(2, operator.add, c(shared), c([2])),
        call(3, operator.add, v(1), c(1)),
        call(4, ops.build_tuple, Starred(c((1, 2)))),
        call(5, operator.add, c(1), c(2), kwargs=[("extra", c(3))]),
        call(6, ops.build_tuple, v(2), v(3), v(4)),
    ], Return(v(6))))
    run_pass(fold_constants, ir, (1,))
    assert [s.var.id for s in statements(ir)] == [2, 3, 4, 5, 6]


def test_non_literal_results_are_not_folded():
    ir = make_ir(block(1, [], [call(1, slice, c(1), c(2), c(None))], Return(v(1))))
    run_pass(fold_constants, ir, ())
    assert len(statements(ir)) == 1


@pytest.mark.parametrize(
    "fn, args",
    [(operator.lshift, (c(1), c(100_000))), (operator.mul, (c("ab"), c(1_000_000)))],
    ids=["1 << 100000", "'ab' * 1000000"],
)
def test_no_folding_into_huge_constants(fn, args):
    ir = make_ir(block(1, [], [call(1, fn, *args)], Return(v(1))))
    fold_constants(ir)
    assert len(statements(ir)) == 1, "folded into a constant too large to print or emit"


@dataclass
class Scale:
    """A callable object that is unhashable (``@dataclass`` with ``eq``)."""

    k: float

    def __call__(self, x):
        return self.k * x


@pytest.mark.parametrize("p", [fold_constants, eliminate_dead_code])
def test_unhashable_callee_constant(p):
    ir = make_ir(block(1, [1], [call(2, Scale(3.0), v(1)), call(3, Scale(2.0), v(1))], Return(v(2))))
    run_pass(p, ir, (2.0,))
    assert len(statements(ir)) == 2


# -- the pure-statement algebra (inside fold_constants) -----------------------------------


@pytest.mark.parametrize(
    "fn, args",
    [
        (operator.mul, (v(1), c(1))),
        (operator.mul, (c(1), v(1))),
        (operator.add, (v(1), c(0))),
        (operator.add, (c(0), v(1))),
        (operator.pow, (v(1), c(1))),
    ],
    ids=["x*1", "1*x", "x+0", "0+x", "x**1"],
)
def test_pure_identity_arithmetic_is_its_operand(fn, args):
    ir = make_ir(block(1, [1], [call(2, fn, *args, pure=True)], Return(v(2))))
    assert run_pass(fold_constants, ir, (2.5,), (3,)) == "1: (%1)\n  return %1\n"


@pytest.mark.parametrize(
    "fn, args, pure",
    [
        (operator.mul, (v(1), c(1)), False),
        (operator.add, (v(1), c(0)), False),
        (operator.mul, (v(1), c(1.0)), True),
        (operator.add, (v(1), c(False)), True),
        (operator.sub, (c(0), v(1)), True),
        (operator.pow, (c(1), v(1)), True),
    ],
    ids=["user x*1", "user x+0", "x*1.0", "x+False", "0-x", "1**x"],
)
def test_other_arithmetic_is_kept(fn, args, pure):
    """User code keeps ``x * 1`` (``x`` may be a list or an object), and a
    float or bool unit changes the result's type."""
    ir = make_ir(block(1, [1], [call(2, fn, *args, pure=pure)], Return(v(2))))
    run_pass(fold_constants, ir, (2,), (2.5,))
    assert len(statements(ir)) == 1


def test_a_negation_cancels_once():
    """``-(-a * b)`` is ``a * b``; a negation of that product, further
    down a chain of products, is a negation still (it once cancelled
    against the first one again: the gradient of ``cos(-tanh(cos q))``
    lost a sign, fuzz seed 7053)."""
    ir = make_ir(block(1, [1, 2], [
        call(3, operator.neg, v(1), pure=True),
        call(4, operator.mul, v(3), v(2), pure=True),
        call(5, operator.neg, v(4), pure=True),  # cancels %3
        call(6, operator.mul, v(5), v(2), pure=True),
        call(7, operator.neg, v(6), pure=True),  # -(%1 * %2 * %2): nothing left to cancel
        call(8, operator.mul, v(7), v(2), pure=True),
    ], Return(v(8))))
    assert "operator.neg(%6)" in run_pass(fold_constants, ir, (2, 3), (-1.5, 0.5))


# -- propagate_none ---------------------------------------------------------------------


def test_accumulating_none_is_the_other_operand():
    ir = make_ir(block(1, [1], [
        call(2, accum, c(None), v(1), pure=True),
        call(3, accum, v(2), c(None), pure=True),
        call(4, accum, c(None), c(None), pure=True),
        call(5, ops.build_tuple, v(3), v(4)),
    ], Return(v(5))))
    assert run_pass(propagate_none, ir, (1.5,)) == text("""
        1: (%1)
          %5 = ops.build_tuple(%1, None)
          return %5
        """)


def test_rule_arithmetic_with_none_is_none_transitively():
    ir = make_ir(block(1, [1], [
        call(2, operator.mul, c(None), v(1), pure=True),
        call(3, operator.neg, v(2), pure=True),
        call(4, math.cos, v(3), pure=True),
        call(5, operator.add, v(4), v(1), pure=True),
    ], Return(v(5))))
    propagate_none(ir)
    verify(ir)
    assert blocks_text(ir) == "1: (%1)\n  return None\n"


def test_user_code_and_other_callees_keep_none():
    ir = make_ir(block(1, [1], [
        call(2, accum, c(None), v(1)),
        call(3, operator.mul, c(None), v(1)),
        call(4, operator.getitem, v(1), c(None), pure=True),
        call(5, operator.is_, c(None), v(1), pure=True),
    ], Return(v(5))))
    propagate_none(ir)
    verify(ir)
    assert [s.var.id for s in statements(ir)] == [2, 3, 4, 5]


def test_items_and_pullbacks_of_no_gradient_are_none():
    """An item of ``None`` (no gradients) and a pullback called on ``None``
    give ``None``; the item is then removed as dead."""
    ir = make_ir(block(1, [1], [
        call(2, operator.getitem, c(None), c(0), pure=True),
        Statement(Var(3), v(1), [c(None)], [], None, True),
        call(4, ops.build_tuple, v(2), v(3)),
    ], Return(v(4))))
    propagate_none(ir)
    verify(ir)
    assert [s.var.id for s in statements(ir)] == [4]
    assert all(isinstance(a, Const) and a.value is None for a in statements(ir)[0].args)


# -- prune_unreachable ------------------------------------------------------------------------


def test_unreachable_blocks_are_dropped():
    ir = pow_ir()
    ir.blocks[5] = block(5, [], [call(8, operator.neg, v(3))], jump(6, v(8)))
    ir.blocks[6] = block(6, [9], term=jump(2, v(9), v(9)))
    expected = blocks_text(pow_ir())
    assert run_pass(prune_unreachable, ir, (2.0, 3)) == expected


def test_prune_keeps_handlers_and_order():
    ir = make_ir(
        block(1, [1], term=jump(3, v(1))),
        block(2, [], term=Return(c(0))),
        block(3, [2], [call(3, operator.truediv, c(1), v(2))], Return(v(3)), handler=jump(4)),
        block(4, [4], term=Return(c(None))),
    )
    assert run_pass(prune_unreachable, ir, (2,), (0,)) == text("""
        1: (%1)
          br 3 (%1)
        3: (%2)
          catch 4
          %3 = operator.truediv(1, %2)
          return %3
        4: (%4)
          return None
        """)


# -- remove_trivial_args ------------------------------------------------------------------


def test_argument_receiving_one_value_on_every_edge():
    ir = make_ir(
        block(1, [1, 2], term=branch(v(2), jump(2, v(1), c(1)), jump(2, v(1), c(2)))),
        block(2, [3, 4], [call(5, operator.add, v(3), v(4))], Return(v(5))),
    )
    assert run_pass(remove_trivial_args, ir, (10, True), (10, False)) == text("""
        1: (%1, %2)
          br 2 (2) unless %2
          br 2 (1)
        2: (%4)
          %5 = operator.add(%1, %4)
          return %5
        """)


def test_same_constant_on_every_edge():
    one = c(1.0)
    ir = make_ir(
        block(1, [1], term=branch(v(1), jump(2, one), jump(2, one))),
        block(2, [2], term=Return(v(2))),
    )
    assert run_pass(remove_trivial_args, ir, (0,)) == text("""
        1: (%1)
          br 2 unless %1
          br 2
        2:
          return 1.0
        """)


def test_loop_carried_value_that_only_passes_itself_around():
    """``x`` enters the loop and the latch passes it back unchanged."""
    ir = make_ir(
        block(1, [1, 2], term=jump(2, v(1), v(2))),
        block(2, [3, 4], [call(5, operator.gt, v(4), c(0))], branch(v(5), jump(3), jump(4))),
        block(3, [], [call(6, operator.sub, v(4), c(1))], jump(2, v(3), v(6))),
        block(4, [], term=Return(v(3))),
    )
    assert run_pass(remove_trivial_args, ir, (2.0, 3)) == text("""
        1: (%1, %2)
          br 2 (%2)
        2: (%4)
          %5 = operator.gt(%4, 0)
          br 4 unless %5
          br 3
        3:
          %6 = operator.sub(%4, 1)
          br 2 (%6)
        4:
          return %1
        """)


def test_self_loop_and_cascade():
    """Block 3's argument is trivial only once block 2's is gone."""
    ir = make_ir(
        block(1, [1, 2], term=jump(2, v(1))),
        block(2, [3], [call(4, operator.gt, v(2), c(0))], branch(v(4), jump(2, v(3)), jump(3, v(3)))),
        block(3, [5], term=branch(v(2), jump(3, v(5)), jump(4, v(5)))),
        block(4, [6], term=Return(v(6))),
    )
    run_pass(remove_trivial_args, ir, (7, 0))
    assert [b.args for b in ir.blocks.values()] == [[v(1), v(2)], [], [], []]
    assert ir.blocks[4].term.value == v(1)


def test_pow_has_no_trivial_arguments():
    ir = pow_ir()
    assert run_pass(remove_trivial_args, ir, (2.0, 3)) == blocks_text(pow_ir())


def test_handler_exception_argument_is_never_removed():
    """The handler's exception argument (first) stays even when the block
    is also jumped to with one value; its second argument receives ``%1``
    on every edge and goes (and so does block 2's, which only the entry
    feeds)."""
    ir = make_ir(
        block(1, [1], term=jump(2, v(1))),
        block(2, [2], [call(3, operator.truediv, c(1), v(2))], jump(3, v(3), v(1)), handler=jump(3, v(1))),
        block(3, [4, 5], [call(6, ops.build_tuple, v(4), v(5))], Return(v(6))),
    )
    assert run_pass(remove_trivial_args, ir, (2,), (4,)) == text("""
        1: (%1)
          br 2
        2:
          catch 3
          %3 = operator.truediv(1, %1)
          br 3 (%3)
        3: (%4)
          %6 = ops.build_tuple(%4, %1)
          return %6
        """)
    kind, (exc, value) = interpret(ir, 0)
    assert isinstance(exc, ZeroDivisionError) and value == 0


def test_entry_arguments_are_kept():
    ir = make_ir(block(1, [1], term=branch(v(1), jump(1, v(1)), jump(2))), block(2, [], term=Return(c(0))))
    remove_trivial_args(ir)
    assert ir.entry.args == [v(1)]


# -- eliminate_dead_code ------------------------------------------------------------------


def test_unused_pure_statements_go_impure_ones_stay():
    ir = make_ir(block(1, [1, 9], [
        call(2, operator.mul, v(1), c(2), pure=True),
        call(3, operator.add, v(2), c(1), pure=True),
        call(4, ops.build_tuple, v(1), c(2)),
        call(5, slice, v(1), c(None), c(None)),
        call(6, ops.build_tuple, Starred(v(9))),
        call(7, operator.mul, v(1), c(2)),
        call(8, print, v(1)),
    ], Return(v(1))))
    assert run_pass(eliminate_dead_code, ir, (1.5, (1, 2))) == text("""
        1: (%1, %9)
          %6 = ops.build_tuple(*%9)
          %7 = operator.mul(%1, 2)
          %8 = print(%1)
          return %1
        """)


def test_dead_join_argument_and_the_values_feeding_it():
    ir = make_ir(
        block(1, [1], term=branch(v(1), jump(2), jump(3))),
        block(2, [], [call(2, operator.neg, v(1), pure=True)], jump(4, v(2), v(1))),
        block(3, [], [call(3, operator.pos, v(1), pure=True)], jump(4, v(3), c(0))),
        block(4, [4, 5], term=Return(v(5))),
    )
    assert run_pass(eliminate_dead_code, ir, (3,), (0,)) == text("""
        1: (%1)
          br 3 unless %1
          br 2
        2:
          br 4 (%1)
        3:
          br 4 (0)
        4: (%5)
          return %5
        """)


def swap_loop(update) -> IR:
    """``a, b = 1, 2; while n > 0: n -= 1; a, b = b, update(a)``, then
    ``return n``: ``a`` and ``b`` only feed each other."""
    return make_ir(
        block(1, [1], term=jump(2, v(1), c(1), c(2))),
        block(2, [2, 3, 4], [call(5, operator.gt, v(2), c(0))], branch(v(5), jump(3), jump(4))),
        block(3, [], [call(6, operator.sub, v(2), c(1)), *update], jump(2, v(6), v(4), v(7) if update else v(3))),
        block(4, [], term=Return(v(2))),
    )


SWAP_LOOP_CLEAN = text("""
    1: (%1)
      br 2 (%1)
    2: (%2)
      %5 = operator.gt(%2, 0)
      br 4 unless %5
      br 3
    3:
      %6 = operator.sub(%2, 1)
      br 2 (%6)
    4:
      return %2
    """)


def test_loop_arguments_that_only_feed_each_other():
    assert run_pass(eliminate_dead_code, swap_loop([]), (3,)) == SWAP_LOOP_CLEAN


def test_loop_arguments_that_feed_each_other_through_a_pure_statement():
    update = [call(7, operator.add, v(3), c(1), pure=True)]
    assert run_pass(eliminate_dead_code, swap_loop(update), (3,)) == SWAP_LOOP_CLEAN


def test_loop_argument_read_by_user_code_stays():
    """An impure statement keeps its operands alive, even unused."""
    ir = pow_ir()
    ir.blocks[4].term = Return(c(None))
    out = run_pass(eliminate_dead_code, ir, (2.0, 3))
    assert out.splitlines()[2] == "2: (%3, %4)"


def test_handler_exception_argument_stays_dead_values_go():
    ir = make_ir(
        block(1, [1], [call(2, operator.neg, v(1), pure=True)], jump(2, v(1))),
        block(2, [3], [call(4, operator.truediv, c(1), v(3))], Return(v(4)), handler=jump(3, v(1), v(2))),
        block(3, [5, 6, 7], term=Return(v(6))),
    )
    assert run_pass(eliminate_dead_code, ir, (2,), (0,)) == text("""
        1: (%1)
          br 2 (%1)
        2: (%3)
          catch 3 (%1)
          %4 = operator.truediv(1, %3)
          return %4
        3: (%5, %6)
          return %6
        """)


# -- merge_blocks -----------------------------------------------------------------------


def test_empty_block_is_threaded():
    """Block 2 only forwards: its predecessor jumps straight to 4."""
    ir = make_ir(
        block(1, [1], term=branch(v(1), jump(2, v(1)), jump(3))),
        block(2, [2], term=jump(4, c(1.0), v(2))),
        block(3, [], [call(3, operator.neg, v(1))], jump(4, v(3), v(3))),
        block(4, [4, 5], [call(6, operator.add, v(4), v(5))], Return(v(6))),
    )
    assert run_pass(merge_blocks, ir, (3,), (0,)) == text("""
        1: (%1)
          br 3 unless %1
          br 4 (1.0, %1)
        3:
          %3 = operator.neg(%1)
          br 4 (%3, %3)
        4: (%4, %5)
          %6 = operator.add(%4, %5)
          return %6
        """)


def test_block_merges_into_its_single_predecessor():
    ir = make_ir(
        block(1, [1], [call(2, operator.neg, v(1))], jump(2, v(2), v(1))),
        block(2, [3, 4], [call(5, operator.add, v(3), v(4))], jump(3, v(5))),
        block(3, [6], term=Return(v(6))),
    )
    assert run_pass(merge_blocks, ir, (3,)) == text("""
        1: (%1)
          %2 = operator.neg(%1)
          %5 = operator.add(%2, %1)
          return %5
        """)


def test_loop_header_is_not_merged():
    ir = pow_ir()
    assert run_pass(merge_blocks, ir, (2.0, 3)) == blocks_text(pow_ir())


def test_no_merging_into_a_protected_block():
    ir = make_ir(
        block(1, [1], term=jump(2, v(1))),
        block(2, [2], [call(3, operator.truediv, c(1), v(2))], jump(3), handler=jump(4)),
        block(3, [], [call(5, operator.neg, v(3))], Return(v(5))),
        block(4, [4], term=Return(c(None))),
    )
    before = blocks_text(ir)
    assert run_pass(merge_blocks, ir, (2,), (0,)) == before


def test_no_merging_of_a_protected_block_into_its_predecessor():
    ir = make_ir(
        block(1, [1], [call(2, operator.neg, v(1))], jump(2)),
        block(2, [], [call(3, operator.truediv, c(1), v(2))], Return(v(3)), handler=jump(3)),
        block(3, [4], term=Return(c(None))),
    )
    before = blocks_text(ir)
    assert run_pass(merge_blocks, ir, (2,), (0,)) == before


def test_handler_block_is_not_threaded():
    ir = make_ir(
        block(1, [1], term=jump(2, v(1))),
        block(2, [2], [call(3, operator.truediv, c(1), v(2))], Return(v(3)), handler=jump(3, v(2))),
        block(3, [4, 5], term=jump(4, v(5))),
        block(4, [6], term=Return(v(6))),
    )
    run_pass(merge_blocks, ir, (2,), (0,))
    assert 3 in ir.blocks and ir.blocks[2].handler.target == 3


def test_empty_block_whose_arguments_are_read_elsewhere_is_kept():
    """Block 2 is empty, but block 3 (which it dominates) reads its
    argument directly, so bypassing it would leave ``%3`` undefined."""
    ir = make_ir(
        block(1, [1, 2], term=branch(v(1), jump(2, v(1)), jump(2, v(2)))),
        block(2, [3], term=branch(v(3), jump(3), jump(4))),
        block(3, [], [call(4, operator.neg, v(3))], jump(5, v(4))),
        block(4, [], term=jump(5, c(0))),
        block(5, [5], term=jump(6)),
        block(6, [], [call(6, operator.pos, v(5))], Return(v(6))),
    )
    out = run_pass(merge_blocks, ir, (1, 0), (0, 2), (0, 0))
    assert "\n2: (%3)\n" in out


def test_empty_block_passing_its_argument_to_a_handler_is_kept():
    """Block 2 is empty, but the exception edge of block 3 reads its
    argument. (Both of 1's arms enter 2, so 2 cannot merge into 1.)"""
    ir = make_ir(
        block(1, [1], term=branch(v(1), jump(2, v(1)), jump(2, c(5)))),
        block(2, [2], term=jump(3)),
        block(3, [], [call(3, operator.truediv, c(1), v(2))], Return(v(3)), handler=jump(4, v(2))),
        block(4, [4, 5], term=Return(v(5))),
    )
    before = blocks_text(ir)
    assert run_pass(merge_blocks, ir, (2,), (0,)) == before


def test_empty_self_loop_is_kept():
    ir = make_ir(
        block(1, [1], term=branch(v(1), jump(2), jump(3))),
        block(2, [], term=jump(2)),
        block(3, [], term=Return(c(0))),
    )
    run_pass(merge_blocks, ir, (0,))
    assert ir.blocks[2].term.target == 2


# -- optimize ----------------------------------------------------------------------------


def test_optimize_leaves_pow_alone():
    ir = pow_ir(names=True)
    assert optimize(ir) is ir
    assert blocks_text(ir) == blocks_text(pow_ir(names=True))


def test_optimize_folds_prunes_and_merges_to_one_block():
    """``if 2 > 1: r = x * 2.0 else: r = -x``, with a dead pure temporary
    and a forwarding block, collapses to straight-line code."""
    ir = make_ir(
        block(1, [1], [call(2, operator.gt, c(2), c(1))], branch(v(2), jump(2), jump(3))),
        block(2, [], [call(3, operator.mul, v(1), c(2.0)), call(4, operator.neg, v(3), pure=True)], jump(5, v(3))),
        block(3, [], [call(5, operator.neg, v(1))], jump(4, v(5))),
        block(4, [6], term=jump(5, v(6))),
        block(5, [7], [call(8, operator.add, v(7), c(0), pure=True)], Return(v(8))),
    )
    assert run_pass(optimize, ir, (1.5,), (-2,)) == text("""
        1: (%1)
          %3 = operator.mul(%1, 2.0)
          return %3
        """)


def test_optimize_reaches_a_fixed_point():
    """The branch folds only once the trivial argument carrying ``True``
    is gone, and the join merges only once the branch has folded."""
    ir = make_ir(
        block(1, [1], term=jump(2, c(True))),
        block(2, [2], term=branch(v(2), jump(3), jump(4))),
        block(3, [], [call(3, operator.pos, v(1))], jump(5, v(3))),
        block(4, [], [call(4, operator.neg, v(1))], jump(5, v(4))),
        block(5, [5], [call(6, operator.mul, v(5), c(1), pure=True)], Return(v(6))),
    )
    out = run_pass(optimize, ir, (2,))
    assert out == text("""
        1: (%1)
          %3 = operator.pos(%1)
          return %3
        """)
    again = ir.copy()
    optimize(again)
    assert blocks_text(again) == out


# -- random programs through the frontend -----------------------------------------------

VARIABLES = ("x", "y", "z")


class _Writer:
    """Draws a small function ``prog(a, b)``: arithmetic on ints (with
    constant subexpressions for the folder), ``if``/``else`` (some on
    constant tests), ``while`` loops bounded by a counter of their own,
    ``for`` over ``range`` of a constant, integer division that may raise,
    and ``try``/``except``/``finally`` around it."""

    def __init__(self, draw):
        self.draw = draw
        self.loops = 0

    def choose(self, options):
        return self.draw(st.sampled_from(options))

    def expr(self, depth: int = 0) -> str:
        kind = self.draw(st.integers(0, 5 if depth < 2 else 1))
        if kind == 0:
            return self.choose(VARIABLES)
        if kind == 1:
            return self.choose(("0", "1", "2", "-3"))
        if kind in (2, 3):
            op = self.choose(("+", "-", "*"))
            right = self.choose(("1", "2", "-1")) if op == "*" else self.expr(depth + 1)
            return f"({self.expr(depth + 1)} {op} {right})"
        if kind == 4:
            return f"({self.expr(depth + 1)} // {self.expr(depth + 1)})"
        return f"(-{self.expr(depth + 1)})"

    def cond(self) -> str:
        kind = self.draw(st.integers(0, 3))
        op = self.choose(("<", "<=", "==", "!=", ">"))
        if kind == 0:
            return f"{self.choose(('1', '2'))} {op} {self.choose(('1', '2'))}"
        if kind == 1:
            return f"{self.expr()} {op} {self.expr()} {self.choose(('and', 'or'))} {self.choose(VARIABLES)}"
        return f"{self.expr()} {op} {self.expr()}"

    def body(self, depth: int) -> list[str]:
        lines = []
        for _ in range(self.draw(st.integers(1, 3))):
            lines += self.statement(depth)
        return ["    " + line for line in lines]

    def statement(self, depth: int) -> list[str]:
        kind = self.draw(st.integers(0, 6 if depth < 2 else 1))
        if kind in (0, 1):
            return [f"{self.choose(VARIABLES)} = {self.expr()}"]
        if kind == 6:
            lines = ["try:"] + self.body(depth + 1)
            lines += [f"except {self.choose(('ZeroDivisionError', 'ArithmeticError', 'KeyError'))}:"]
            lines += self.body(depth + 1)
            if self.draw(st.booleans()):
                lines += ["finally:"] + self.body(depth + 1)
            return lines
        if kind == 2:
            lines = [f"if {self.cond()}:"] + self.body(depth + 1)
            if self.draw(st.booleans()):
                lines += ["else:"] + self.body(depth + 1)
            return lines
        if kind == 3:
            self.loops += 1
            i = f"i{self.loops}"
            head = [f"{i} = 0", f"while {i} < {self.choose(('0', '2', '3'))}:", f"    {i} = {i} + 1"]
            return head + self.body(depth + 1)
        if kind == 4:
            return [f"for {self.choose(VARIABLES)} in range({self.choose(('0', '2'))}):"] + self.body(depth + 1)
        return [f"if {self.cond()}:", f"    return {self.expr()}"]


@st.composite
def programs(draw) -> str:
    w = _Writer(draw)
    lines = ["def prog(a, b):", "    x = a", "    y = b", "    z = 0"]
    lines += w.body(0)
    lines += [f"    return {w.expr()}, x, y, z"]
    return "\n".join(lines) + "\n"


def python_outcome(src: str, args: tuple) -> tuple:
    namespace: dict = {}
    exec(compile(src, "prog.py", "exec"), namespace)
    try:
        return ("returned", namespace["prog"](*args))
    except Exception as e:  # the exception is the outcome compared
        return ("raised", type(e), e.args)


INPUTS = [(0, 0), (3, -2), (-5, 7)]


@settings(
    max_examples=120, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(programs())
def test_optimize_on_random_programs(src):
    raw = lower(gast.parse(src).body[0], filename="prog.py", name="prog")
    verify(raw)
    opt = optimize(raw.copy())
    verify(opt)
    assert len(opt.blocks) <= len(raw.blocks)
    assert len(statements(opt)) <= len(statements(raw))
    assert blocks_text(optimize(opt.copy())) == blocks_text(opt), "not a fixed point"
    for args in INPUTS:
        expected = python_outcome(src, args)
        assert interpret(raw, *args) == expected, f"lowering: {args}\n{raw}"
        assert interpret(opt, *args) == expected, f"optimize: {args}\n{raw}\n{opt}"


def sample(x, n):
    r = 0
    while n > 0:
        n = n - 1
        if 2 > 1:
            r = r + x * (3 - 1)
    return r


def test_api_ir_is_the_optimized_lowering():
    src = get_source(sample)
    raw = lower(src.node, filename=src.filename, name="sample")
    opt = zygote_py.api.ir(sample)
    verify(opt)
    assert blocks_text(opt) == blocks_text(optimize(raw.copy()))
    assert size(opt) < size(raw)
    assert interpret(opt, 1.5, 3) == interpret(raw, 1.5, 3) == ("returned", sample(1.5, 3))


# -- hoist_invariants ------------------------------------------------------------------


def counted_loop(body_stmts, *, preheader_stmts=(), result=v(4)) -> IR:
    """``1: (x, n)`` → ``2: (n, acc)`` loop while ``n > 0`` with
    ``body_stmts`` in block 3 (whose ``%9`` is the new ``acc``), then
    return ``result``."""
    return make_ir(
        block(1, [1, 2], list(preheader_stmts), jump(2, v(2), c(1.0))),
        block(2, [3, 4], [call(5, operator.gt, v(3), c(0))], branch(v(5), jump(3), jump(4))),
        block(3, [], [call(6, operator.sub, v(3), c(1)), *body_stmts], jump(2, v(6), v(9))),
        block(4, [], term=Return(result)),
    )


def test_invariant_pure_statements_move_to_the_preheader():
    """``tanh(x)`` leaves the loop; arithmetic stays (it may make a mutable
    value, or raise)."""
    ir = counted_loop([
        call(7, math.tanh, v(1), pure=True),
        call(8, operator.mul, v(7), c(2.0), pure=True),
        call(9, operator.mul, v(4), v(8), pure=True),
    ])
    assert run_pass(hoist_invariants, ir, (0.5, 3), (0.5, 0)) == text("""
        1: (%1, %2)
          %7 = math.tanh(%1)
          br 2 (%2, 1.0)
        2: (%3, %4)
          %5 = operator.gt(%3, 0)
          br 4 unless %5
          br 3
        3:
          %6 = operator.sub(%3, 1)
          %8 = operator.mul(%7, 2.0)
          %9 = operator.mul(%4, %8)
          br 2 (%6, %9)
        4:
          return %4
        """)


def test_user_statements_and_loop_dependent_ones_stay():
    ir = counted_loop([call(7, math.cos, v(1)), call(9, operator.mul, v(4), v(7), pure=True)])
    before = blocks_text(ir)
    assert run_pass(hoist_invariants, ir, (0.5, 3)) == before


def test_hoisted_statements_go_before_the_for_loops_iterable():
    """A ``for`` preheader ends with ``%s = make(); %it = iter(%s)``."""
    ir = counted_loop(
        [call(7, math.tanh, v(1), pure=True), call(9, operator.mul, v(4), v(7), pure=True)],
        preheader_stmts=[call(10, ops.build_list, v(1)), call(11, iter, v(10))],
    )
    run_pass(hoist_invariants, ir, (0.5, 3))
    assert [s.var for s in ir.blocks[1].stmts] == [v(7), v(10), v(11)]


def test_nested_loops_hoist_each_statement_as_far_as_it_may_go():
    """Block 5 is the inner loop (header 4, body 5) inside the outer loop
    (header 2): ``tanh(x)`` leaves both loops, ``tanh(n)`` (``n`` the outer
    counter) only the inner one."""
    ir = make_ir(
        block(1, [1, 2], term=jump(2, v(2), c(0.0))),
        block(2, [3, 4], [call(5, operator.gt, v(3), c(0))], branch(v(5), jump(3), jump(7))),
        block(3, [], [call(6, operator.sub, v(3), c(1))], jump(4, c(2), v(4))),
        block(4, [7, 8], [call(9, operator.gt, v(7), c(0))], branch(v(9), jump(5), jump(6))),
        block(5, [], [
            call(10, operator.sub, v(7), c(1)),
            call(11, math.tanh, v(1), pure=True),
            call(12, math.tanh, v(3), pure=True),
            call(13, operator.add, v(11), v(12), pure=True),
            call(14, operator.add, v(8), v(13), pure=True),
        ], jump(4, v(10), v(14))),
        block(6, [], term=jump(2, v(6), v(8))),
        block(7, [], term=Return(v(4))),
    )
    run_pass(hoist_invariants, ir, (0.5, 2), (0.5, 0))
    assert [s.var for s in ir.blocks[1].stmts] == [v(11)]
    assert [s.var for s in ir.blocks[3].stmts] == [v(6), v(12)]
    assert [s.var for s in ir.blocks[5].stmts] == [v(10), v(13), v(14)]


def test_no_hoisting_of_a_function_that_may_raise():
    """``log(x)`` under a guard inside the loop must not run before it:
    for ``x = -1`` it would raise."""
    ir = counted_loop([
        call(7, math.log, v(1), pure=True),
        call(9, operator.mul, v(4), v(7), pure=True),
    ])
    before = blocks_text(ir)
    assert run_pass(hoist_invariants, ir, (2.0, 3), (-1.0, 0)) == before


def test_no_hoisting_of_a_statement_that_may_raise_out_of_a_loop_that_may_not_run():
    """``1 / x`` runs only inside the loop: with ``n = 0`` and ``x = 0``
    the loop body never runs and nothing raises."""
    ir = counted_loop([
        call(7, operator.truediv, c(1.0), v(1), pure=True),
        call(9, operator.mul, v(4), v(7), pure=True),
    ])
    run_pass(hoist_invariants, ir, (0.0, 0), (2.0, 3))


@pytest.mark.parametrize("fn", [math.sin, math.cos])
def test_no_hoisting_of_sin_or_cos_that_raise_on_infinity(fn):
    """``math.sin(inf)`` raises ValueError: hoisted out of a loop that runs
    zero times, it raises where the loop would not have."""
    ir = counted_loop([call(7, fn, v(1), pure=True), call(9, operator.mul, v(4), v(7), pure=True)])
    run_pass(hoist_invariants, ir, (math.inf, 0), (0.5, 2))


def test_use_counts_reads_starred_and_keyword_operands_and_chosen_blocks():
    ir = make_ir(
        block(0, [1, 2], [call(3, print, v(1), Starred(v(2)), kwargs=[("sep", v(1))]),
                          call(4, print, Starred(v(3)), v(3))], term=jump(1, v(4)), handler=jump(2, v(2))),
        block(1, [5], [call(6, operator.neg, v(5))], term=Return(v(6))),
        block(2, [7, 8], [], term=Return(v(8))),
    )
    assert use_counts(ir) == {v(1): 2, v(2): 1, v(3): 2, v(4): 1, v(5): 1, v(6): 1, v(8): 1}
    assert use_counts(ir, [0], handlers=True) == {v(1): 2, v(2): 2, v(3): 2, v(4): 1}
    assert list(use_counts(ir, [1])) == [v(5), v(6)]
