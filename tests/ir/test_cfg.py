"""ir.cfg: orders, dominators and loops on hand-built graphs, and dominators
against a brute-force oracle (``a`` dominates ``b`` when removing ``a``
cuts ``b`` off from the entry) on random graphs."""
from __future__ import annotations

from typing import Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zygote_py.ir.cfg import (
    back_edges, dominates, dominators, natural_loops, predecessors, reverse_postorder, successors,
)
from zygote_py.ir.core import IR, Return

from .build import block, branch, c, jump, make_ir


def graph(edges: dict[int, list[int]], handlers: Optional[dict[int, int]] = None) -> IR:
    """An IR with the given control flow only: no arguments, no statements;
    a block with two successors branches (then first), with none returns.
    ``handlers`` gives blocks an exception edge."""
    blocks = []
    for bid, succ in edges.items():
        if not succ:
            term = Return(c(None))
        elif len(succ) == 1:
            term = jump(succ[0])
        else:
            term = branch(c(True), jump(succ[0]), jump(succ[1]))
        handler = jump(handlers[bid]) if handlers and bid in handlers else None
        blocks.append(block(bid, [], [], term, handler))
    return make_ir(*blocks)


DIAMOND = graph({1: [2, 3], 2: [4], 3: [4], 4: []})

# 2: outer header, 3: outer body, 4: inner header, 5: inner body,
# 6: outer latch, 7: exit
NESTED = graph({1: [2], 2: [3, 7], 3: [4], 4: [5, 6], 5: [4], 6: [2], 7: []})

# 2: header, exits to 5 when the test fails and to 6 on a break from 3
TWO_EXITS = graph({1: [2], 2: [3, 5], 3: [4, 6], 4: [2], 5: [7], 6: [7], 7: []})

# a cycle 2 ⇄ 3 entered at both 2 and 3: neither dominates the other
IRREDUCIBLE = graph({1: [2, 3], 2: [3, 4], 3: [2, 4], 4: []})


def dominator_sets(ir: IR) -> dict[int, set[int]]:
    idom = dominators(ir)
    return {b: {a for a in idom if dominates(idom, a, b)} for b in idom}


# -- successors, predecessors, reverse postorder -------------------------------------


def test_successors_and_predecessors_of_a_diamond():
    assert successors(DIAMOND) == {1: [2, 3], 2: [4], 3: [4], 4: []}
    assert predecessors(DIAMOND) == {1: [], 2: [1], 3: [1], 4: [2, 3]}


def test_predecessor_listed_once_for_two_edges():
    ir = graph({1: [2, 2], 2: []})
    assert successors(ir) == {1: [2, 2], 2: []}
    assert predecessors(ir) == {1: [], 2: [1]}


def test_exception_edge_comes_last_and_counts():
    ir = graph({1: [2], 2: [3], 3: [], 4: []}, handlers={2: 4})
    assert successors(ir)[2] == [3, 4]
    assert predecessors(ir)[4] == [2]
    assert reverse_postorder(ir) == [1, 2, 4, 3]
    assert dominators(ir) == {1: 1, 2: 1, 3: 2, 4: 2}


def test_reverse_postorder_of_a_diamond_visits_the_then_arm_last():
    # depth first: 1, 2, 4 (post 4, 2), then 3 (post 3), post 1
    assert reverse_postorder(DIAMOND) == [1, 3, 2, 4]


def test_reverse_postorder_of_nested_loops():
    assert reverse_postorder(NESTED) == [1, 2, 7, 3, 4, 6, 5]


def test_reverse_postorder_skips_unreachable_blocks():
    ir = graph({1: [3], 2: [3], 3: []})
    assert reverse_postorder(ir) == [1, 3]
    assert dominators(ir) == {1: 1, 3: 1}


# -- dominators ------------------------------------------------------------------------


def test_dominators_of_a_diamond():
    idom = dominators(DIAMOND)
    assert idom == {1: 1, 2: 1, 3: 1, 4: 1}
    assert dominates(idom, 1, 4)
    assert not dominates(idom, 2, 4)
    assert not dominates(idom, 4, 2)


def test_dominates_is_reflexive_and_antisymmetric():
    idom = dominators(NESTED)
    for b in idom:
        assert dominates(idom, b, b)
        for a in idom:
            if a != b and dominates(idom, a, b):
                assert not dominates(idom, b, a)


def test_dominators_of_nested_loops():
    assert dominators(NESTED) == {1: 1, 2: 1, 3: 2, 4: 3, 5: 4, 6: 4, 7: 2}
    assert dominator_sets(NESTED)[5] == {1, 2, 3, 4, 5}


def test_dominators_of_a_loop_with_two_exits():
    # 7 is reached from the header (5) and from the body (6): its idom is 2
    assert dominators(TWO_EXITS) == {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 3, 7: 2}


def test_dominators_of_an_irreducible_cycle():
    assert dominators(IRREDUCIBLE) == {1: 1, 2: 1, 3: 1, 4: 1}


# -- loops -----------------------------------------------------------------------------


def test_diamond_has_no_loops():
    assert back_edges(DIAMOND) == []
    assert natural_loops(DIAMOND) == {}


def test_nested_loops():
    assert sorted(back_edges(NESTED)) == [(5, 4), (6, 2)]
    assert natural_loops(NESTED) == {2: {2, 3, 4, 5, 6}, 4: {4, 5}}


def test_loop_with_two_exits():
    assert back_edges(TWO_EXITS) == [(4, 2)]
    assert natural_loops(TWO_EXITS) == {2: {2, 3, 4}}


def test_loop_with_two_back_edges_is_one_loop():
    # a `continue` (3 → 2) next to the latch (4 → 2)
    ir = graph({1: [2], 2: [3, 5], 3: [2, 4], 4: [2], 5: []})
    assert sorted(back_edges(ir)) == [(3, 2), (4, 2)]
    assert natural_loops(ir) == {2: {2, 3, 4}}


def test_self_loop():
    ir = graph({1: [2], 2: [2, 3], 3: []})
    assert back_edges(ir) == [(2, 2)]
    assert natural_loops(ir) == {2: {2}}


def test_loop_back_to_the_entry():
    ir = graph({1: [2], 2: [1, 3], 3: []})
    assert dominators(ir) == {1: 1, 2: 1, 3: 2}
    assert back_edges(ir) == [(2, 1)]
    assert natural_loops(ir) == {1: {1, 2}}


def test_irreducible_cycle_has_no_back_edges():
    assert back_edges(IRREDUCIBLE) == []
    assert natural_loops(IRREDUCIBLE) == {}


def test_irreducible_cycle_inside_a_natural_loop():
    # the outer loop 2 → {3 ⇄ 4} → 5 → 2 has a back edge; the inner cycle,
    # entered at 3 and at 4, has none
    ir = graph({1: [2], 2: [3, 4], 3: [4, 5], 4: [3, 5], 5: [2, 6], 6: []})
    assert back_edges(ir) == [(5, 2)]
    assert natural_loops(ir) == {2: {2, 3, 4, 5}}


def test_natural_loop_excludes_unreachable_blocks():
    # 4 is unreachable but jumps into the loop body 3
    ir = graph({1: [2], 2: [3, 5], 3: [2], 4: [3], 5: []})
    assert natural_loops(ir) == {2: {2, 3}}


# -- random graphs against brute force ------------------------------------------------


@st.composite
def random_graphs(draw) -> IR:
    n = draw(st.integers(1, 8))
    targets = st.integers(1, n)
    edges = {
        bid: draw(st.lists(targets, max_size=2))
        for bid in range(1, n + 1)
    }
    handlers = draw(st.dictionaries(st.integers(1, n), targets, max_size=2))
    return graph(edges, handlers)


def reachable(ir: IR, removed: int = 0) -> set[int]:
    """Blocks reachable from the entry without passing ``removed``."""
    seen, work = set(), [ir.entry.id]
    while work:
        b = work.pop()
        if b in seen or b == removed:
            continue
        seen.add(b)
        work.extend(ir.blocks[b].successors())
    return seen


def reaches_avoiding(ir: IR, start: int, goal: int, avoid: int) -> bool:
    preds = predecessors(ir)
    seen, work = set(), [goal]
    while work:
        b = work.pop()
        if b == start:
            return True
        if b in seen or b == avoid:
            continue
        seen.add(b)
        work.extend(preds[b])
    return False


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(random_graphs())
def test_cfg_queries_agree_with_brute_force(ir):
    live = reachable(ir)
    order = reverse_postorder(ir)
    assert order[0] == ir.entry.id and set(order) == live and len(order) == len(live)
    index = {b: i for i, b in enumerate(order)}
    for b in order[1:]:
        assert any(index.get(p, len(order)) < index[b] for p in predecessors(ir)[b])

    idom = dominators(ir)
    assert set(idom) == live
    entry = ir.entry.id
    for b in live:
        for a in live:
            cut_off = a == entry or a == b or b not in reachable(ir, removed=a)
            assert dominates(idom, a, b) == cut_off, (a, b)

    expected = [
        (t, h)
        for t in live
        for h in ir.blocks[t].successors()
        if h == entry or h == t or t not in reachable(ir, removed=h)
    ]
    assert sorted(back_edges(ir)) == sorted(expected)

    loops = natural_loops(ir)
    headers = {h for _, h in expected}
    assert set(loops) == headers
    for h, body in loops.items():
        tails = [t for t, hh in expected if hh == h]
        # unreachable members are test_natural_loop_excludes_unreachable_blocks'
        assert body & live == {h} | {b for b in live if any(reaches_avoiding(ir, b, t, h) for t in tails)}
