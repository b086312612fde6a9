"""ir.verify: every invariant of zygote_py.ir.core, broken once by a
hand-built IR that must be rejected, next to valid IRs that must pass."""
from __future__ import annotations

import operator

import pytest

from zygote_py.ir import verify as verify_mod
from zygote_py.ir.core import IR, Raise, Return, Starred
from zygote_py.ir.verify import IRError, checked, verify

from .build import block, branch, c, call, jump, make_ir, pow_ir, v


def diamond(left=(), right=(), join_args=(), left_jump=(), right_jump=(), join_stmts=()):
    """``1 → 2 | 3 → 4``: the entry branches on %1, both arms join."""
    return make_ir(
        block(1, [1], term=branch(v(1), jump(2), jump(3))),
        block(2, [], left, jump(4, *left_jump)),
        block(3, [], right, jump(4, *right_jump)),
        block(4, join_args, join_stmts, Return(c(None))),
    )


def protected(handler_args=(), handler_params=(10,), stmts=(), entry_stmts=()):
    """Entry → block 2 (protected by handler 3) → return; 3 returns its
    first argument."""
    return make_ir(
        block(1, [1], entry_stmts, jump(2, v(1))),
        block(2, [2], stmts, Return(v(2)), handler=jump(3, *handler_args)),
        block(3, handler_params, term=Return(c(None))),
    )


# -- valid IRs ---------------------------------------------------------------------


def test_pow_loop_is_valid():
    verify(pow_ir())
    verify(pow_ir(names=True))


def test_diamond_with_join_argument_is_valid():
    ir = diamond(
        left=[call(5, operator.neg, v(1))],
        right=[call(6, operator.pos, v(1))],
        join_args=[7],
        left_jump=[v(5)],
        right_jump=[v(6)],
        join_stmts=[call(8, operator.add, v(7), v(1))],
    )
    verify(ir)


def test_value_from_a_dominating_block_is_valid_everywhere_below():
    ir = make_ir(
        block(1, [1], [call(2, operator.neg, v(1))], branch(v(1), jump(2), jump(3))),
        block(2, [], [call(3, operator.add, v(2), v(1))], jump(4)),
        block(3, [], [], jump(4)),
        block(4, [], [], Return(v(2))),
    )
    verify(ir)


def test_exception_edge_passing_entry_values_is_valid():
    ir = protected(
        handler_args=[v(1), v(2), v(9)],
        handler_params=(10, 11, 12, 13),
        stmts=[call(5, operator.neg, v(2))],
        entry_stmts=[call(9, abs, v(1))],
    )
    verify(ir)


def test_statement_operands_of_every_kind_are_checked_and_may_be_valid():
    ir = make_ir(
        block(1, [1, 2], [
            call(3, max, v(1), Starred(v(2)), kwargs=[("key", v(1)), (None, v(2))]),
        ], Raise(v(3), v(1))),
    )
    verify(ir)


def test_unreachable_block_is_not_checked_for_dominance():
    ir = make_ir(
        block(1, [1], term=Return(v(1))),
        block(2, [], [call(3, operator.neg, v(4))], Return(v(3))),
        block(5, [], [call(4, operator.neg, c(1))], Return(v(4))),
    )
    verify(ir)


# -- definitions --------------------------------------------------------------------


def test_no_blocks():
    with pytest.raises(IRError, match="no blocks"):
        verify(IR("empty"))


def test_variable_defined_twice_in_one_block():
    ir = make_ir(block(1, [1], [call(2, operator.neg, v(1)), call(2, operator.pos, v(1))], Return(v(2))))
    with pytest.raises(IRError, match="%2 defined twice"):
        verify(ir)


def test_variable_defined_by_an_argument_and_a_statement():
    ir = make_ir(
        block(1, [1], term=jump(2, v(1))),
        block(2, [3], [call(1, operator.neg, v(3))], Return(v(1))),
    )
    with pytest.raises(IRError, match=r"%1 defined twice \(blocks 1 and 2\)"):
        verify(ir)


def test_variable_defined_in_two_sibling_blocks():
    ir = diamond(left=[call(5, operator.neg, v(1))], right=[call(5, operator.pos, v(1))])
    with pytest.raises(IRError, match="%5 defined twice"):
        verify(ir)


def test_block_argument_listed_twice():
    ir = make_ir(block(1, [1, 1], term=Return(v(1))))
    with pytest.raises(IRError, match="%1 defined twice"):
        verify(ir)


def test_use_of_a_variable_never_defined():
    ir = make_ir(block(1, [1], term=Return(v(9))))
    with pytest.raises(IRError, match="%9 used in return but never defined"):
        verify(ir)


# -- dominance --------------------------------------------------------------------


def test_use_in_a_sibling_branch():
    ir = diamond(left=[call(5, operator.neg, v(1))], right=[call(6, operator.pos, v(5))])
    with pytest.raises(IRError, match="block 3: %5 used in statement %6 before its definition dominates it"):
        verify(ir)


def test_use_after_the_join_of_a_value_from_one_branch():
    ir = diamond(left=[call(5, operator.neg, v(1))], join_stmts=[call(6, operator.pos, v(5))])
    with pytest.raises(IRError, match="block 4: %5 used"):
        verify(ir)


def test_use_earlier_in_the_same_block():
    ir = make_ir(
        block(1, [1], [call(2, operator.neg, v(3)), call(3, operator.pos, v(1))], Return(v(2))),
    )
    with pytest.raises(IRError, match="block 1: %3 used in statement %2"):
        verify(ir)


def test_statement_using_its_own_result():
    ir = make_ir(block(1, [1], [call(2, operator.add, v(1), v(2))], Return(v(2))))
    with pytest.raises(IRError, match="%2 used in statement %2"):
        verify(ir)


def test_loop_header_using_a_value_of_the_loop_body():
    ir = pow_ir()
    ir.blocks[2].stmts[0].args[0] = v(6)
    with pytest.raises(IRError, match="block 2: %6 used"):
        verify(ir)


@pytest.mark.parametrize("where", ["callee", "starred", "keyword", "double star"])
def test_every_operand_position_is_checked(where):
    s = call(3, max, v(1))
    if where == "callee":
        s.callee = v(4)
    elif where == "starred":
        s.args.append(Starred(v(4)))
    elif where == "keyword":
        s.kwargs.append(("key", v(4)))
    else:
        s.kwargs.append((None, v(4)))
    ir = diamond(left=[call(4, operator.neg, v(1))], right=[s])
    with pytest.raises(IRError, match="%4 used in statement %3"):
        verify(ir)


@pytest.mark.parametrize("term", ["return", "raise", "cause", "cond", "jump value"])
def test_every_terminator_operand_is_checked(term):
    ir = diamond(left=[call(5, operator.neg, v(1))], join_args=[8], left_jump=[v(5)], right_jump=[c(0)])
    right = ir.blocks[3]
    if term == "return":
        right.term = Return(v(5))
    elif term == "raise":
        right.term = Raise(v(5))
    elif term == "cause":
        right.term = Raise(v(1), v(5))
    elif term == "cond":
        right.term = branch(v(5), jump(4, c(0)), jump(4, c(1)))
    else:
        right.term = jump(4, v(5))
    with pytest.raises(IRError, match="block 3: %5 used"):
        verify(ir)


# -- edges ---------------------------------------------------------------------------


@pytest.mark.parametrize("values", [(), (c(1.0), v(2), v(2))])
def test_jump_with_the_wrong_number_of_values(values):
    ir = pow_ir()
    ir.blocks[1].term = jump(2, *values)
    with pytest.raises(IRError, match=f"block 1 passes {len(values)} values to block 2, which takes 2"):
        verify(ir)


def test_branch_arm_with_the_wrong_number_of_values():
    ir = pow_ir()
    ir.blocks[2].term.orelse.args.append(v(3))
    with pytest.raises(IRError, match="block 2 passes 1 values to block 4, which takes 0"):
        verify(ir)


@pytest.mark.parametrize("arm", ["jump", "then", "orelse"])
def test_jump_to_a_missing_block(arm):
    ir = pow_ir()
    if arm == "jump":
        ir.blocks[3].term.target = 9
    else:
        getattr(ir.blocks[2].term, arm).target = 9
    with pytest.raises(IRError, match="jumps to missing block 9"):
        verify(ir)


def test_exception_edge_to_a_missing_block():
    ir = protected()
    del ir.blocks[3]
    with pytest.raises(IRError, match="block 2 jumps to missing block 3"):
        verify(ir)


def test_block_without_terminator():
    ir = pow_ir()
    ir.blocks[3].term = None
    with pytest.raises(IRError, match="block 3 has no terminator"):
        verify(ir)


# -- exception edges --------------------------------------------------------------


def test_exception_edge_passing_a_value_defined_inside_the_protected_block():
    ir = protected(handler_args=[v(5)], handler_params=(10, 11), stmts=[call(5, operator.neg, v(2))])
    with pytest.raises(IRError, match="block 2: %5 used in exception edge"):
        verify(ir)


def test_exception_edge_passing_a_value_defined_in_a_sibling():
    ir = diamond(left=[call(5, operator.neg, v(1))])
    ir.blocks[3].handler = jump(6, v(5))
    ir.blocks[6] = block(6, [10, 11], term=Return(c(None)))
    with pytest.raises(IRError, match="block 3: %5 used in exception edge"):
        verify(ir)


@pytest.mark.parametrize(
    "handler_args, handler_params",
    [
        ((v(1),), (10,)),  # a value for a handler that takes only the exception
        ((), ()),  # a handler that takes no exception argument
        ((), (10, 11)),  # one value missing
        ((v(1), v(2)), (10, 11)),  # one value too many
    ],
)
def test_handler_with_the_wrong_arity(handler_args, handler_params):
    ir = protected(handler_args=handler_args, handler_params=handler_params)
    passed = len(handler_args) + 1
    with pytest.raises(
        IRError, match=f"block 2 passes {passed} values to block 3, which takes {len(handler_params)}",
    ):
        verify(ir)


def test_handler_reading_the_protected_blocks_definition_directly():
    """The handler's only predecessor is the protected block, so the
    protected block dominates it; but when the exception edge is taken, the
    protected block has not run (core.py), so ``%5`` has no value there."""
    ir = protected(handler_params=(10,), stmts=[call(5, operator.neg, v(2))])
    ir.blocks[3].term = Return(v(5))
    with pytest.raises(IRError, match="%5"):
        verify(ir)


def test_join_of_normal_and_exception_paths_reading_the_protected_blocks_definition():
    """``try: y = -x except: pass; return y``, without the block argument
    that should carry ``y``: the join (4) is reached from the protected
    block (2) and from its handler (3), both dominated by 2, yet on the
    handler's path ``%5`` was never computed."""
    ir = make_ir(
        block(1, [1], term=jump(2, v(1))),
        block(2, [2], [call(5, operator.neg, v(2))], jump(4), handler=jump(3)),
        block(3, [10], term=jump(4)),
        block(4, [], term=Return(v(5))),
    )
    with pytest.raises(IRError, match="%5"):
        verify(ir)


# -- checked ----------------------------------------------------------------------


def test_checked_reports_the_pass_and_the_ir(monkeypatch):
    monkeypatch.setattr(verify_mod, "CHECK", True)
    ir = pow_ir()
    assert checked(ir, "nothing") is ir
    ir.blocks[3].term = None
    with pytest.raises(IRError, match="after my_pass: block 3 has no terminator") as info:
        checked(ir, "my_pass")
    assert "%7 = operator.mul(%3, %1)" in str(info.value)


def test_checked_does_nothing_when_off(monkeypatch):
    monkeypatch.setattr(verify_mod, "CHECK", False)
    ir = pow_ir()
    ir.blocks[3].term = None
    assert checked(ir, "my_pass") is ir
