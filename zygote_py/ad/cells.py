"""Variables shared with nested functions, as SSA values: the pass that
lets both transforms differentiate ``nonlocal`` and cells assigned more
than once.

A local that a nested function captures lives in a cell: the function
reads it with ``load_deref`` and assigns it with ``store_deref``, and so
may a nested function that declares it ``nonlocal``. The cell keeps those
operations (the nested functions need them at run time); this pass gives
the gradient what they mean, in SSA form (reads take the value of the
assignment that reaches them, as in Braun et al. 2013):

- In the function that owns the cell, a call of a nested function that
  captures it becomes ``runtime.call_with_cells(g, names, values, ...)``:
  it passes the cells' values at the call (so that the closure's gradient
  for them reaches those values) and returns, with the call's value, the
  values the call left in the cells (a new assignment of each, for the
  reads after it). A nested function that escapes (returned, stored,
  passed on) while capturing such a cell is refused.
- In the nested function, compiled for such a call (``cells_out``), the
  cells it assigns are read once at its entry (the closure's own
  gradient, or the tangents the call passes in forward mode), assigned as
  locals, and returned with its value.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

import gast

from ..errors import UnsupportedSyntax
from ..frontend.cleanup import drop_needless_checks
from ..ir import ops
from ..ir.cfg import dominates, dominators, natural_loops, predecessors
from ..ir.core import IR, Const, Operand, Return, Statement, Var
from ..ir.passes import remove_trivial_args, substitute
from .. import runtime


def captured_names(node: Any) -> set[str]:
    """The names a nested function or lambda reads or assigns from outside
    (``nonlocal`` ones included)."""
    bound, used, nonlocal_ = set(), set(), set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            (bound if isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)) else used).add(n.id)
        elif isinstance(n, gast.Nonlocal):
            nonlocal_.update(n.names)
    return (used - bound) | nonlocal_


def assigned_names(node: Any) -> set[str]:
    """The names a nested function declares ``nonlocal`` (and may assign),
    and the captured names whose objects it changes in place (``s[0] +=
    x``, ``hist.append(v)``, ``state.t = t``): a new value of the cell, as
    far as the gradient goes, which the call hands back like an assigned
    one."""
    names = {name for n in gast.walk(node) if isinstance(n, gast.Nonlocal) for name in n.names}
    return names | (_changed_in_place(node) & captured_names(node))


_CHANGING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
                     "sort", "reverse", "fill", "__setitem__"}


def _changed_in_place(node: Any) -> set[str]:
    """The names whose objects ``node``'s code changes: item and attribute
    stores (``s[0] = v``, ``s[0] += v``), and calls of methods that change
    lists, dicts and arrays (``s.append(v)``)."""
    out = set()
    for n in gast.walk(node):
        targets = n.targets if isinstance(n, gast.Assign) else [n.target] if isinstance(n, gast.AugAssign) else []
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _CHANGING_METHODS:
            targets = [n.func]
        for t in targets:
            while isinstance(t, (gast.Subscript, gast.Attribute)):
                t = t.value
                if isinstance(t, gast.Name):
                    out.add(t.id)
    return out


def default_values(s: Statement) -> dict[str, Operand]:
    """The default values of the nested function that ``s``
    (``make_function(node, *defaults, **kwdefaults)``) makes, by parameter
    name."""
    args = s.args[0].value.args
    positional = [a.id for a in (*args.posonlyargs, *args.args)]
    defaults = s.args[1:]
    return {**dict(zip(positional[len(positional) - len(defaults):], defaults)), **dict(s.kwargs)}


def rebound_names(f: IR) -> set[str]:
    """The names that a nested function, lambda or scope of ``f`` declares
    ``nonlocal`` (and so may assign)."""
    return {name for b in f.blocks.values() for s in b.stmts
            if isinstance(s.callee, Const) and s.callee.value in (ops.make_function, ops.make_scope)
            for name in assigned_names(s.args[0].value)}


def one_value_cells(f: IR, cells: set[str], facts: Any) -> set[str]:
    """Of ``cells``, those that hold one value for every nested function
    capturing them, from where it is made on: a parameter's that nothing
    assigns, or one assigned once, outside any loop, before each nested
    function capturing it is made (the assignment dominates it), and that
    no nested function assigns or changes in place. A nested function
    capturing only such cells may escape (be returned, stored or passed
    on, as a rule's pullback is): its tangent is that of the values it
    captured (see :func:`share_cells`)."""
    params = set(f.signature.names())
    rebound = rebound_names(f)
    stores: dict[str, list[tuple[int, int]]] = {}
    makers: list[tuple[int, int, set[str]]] = []
    for b in f.blocks.values():
        for i, s in enumerate(b.stmts):
            fn = facts.callee(s)
            if fn is ops.store_deref:
                stores.setdefault(s.args[0].value, []).append((b.id, i))
            elif fn is ops.make_function:
                makers.append((b.id, i, captured_names(s.args[0].value)))
    looped = set().union(*natural_loops(f).values())
    idom = dominators(f)
    found = set()
    for c in cells - rebound:
        at = stores.get(c, [])
        if not at:
            if c in params:
                found.add(c)
            continue
        if len(at) > 1 or at[0][0] in looped or at[0][0] not in idom:
            continue
        (sb, si), = at
        if all(c not in names or mb in idom and (mi > si if mb == sb else dominates(idom, sb, mb))
               for mb, mi, names in makers):
            found.add(c)
    return found


def share_cells(f: IR, cells: set[str], facts: Any,
                refuse: Callable[[str, Optional[int]], UnsupportedSyntax],
                escaping: Optional[dict[Var, tuple[tuple[str, ...], Var]]] = None) -> bool:
    """In the function that owns ``cells`` (cell variables that are not one
    value, or in forward mode that may hold a differentiated value), rewrite
    the calls of nested functions that capture them, then make every read
    of them in ``f`` an SSA value. Gradient code's own such calls
    (``runtime.J(runtime.call_with_cells, g, ...)``, differentiated again)
    already hand the cells their values: the values they leave are read
    from their results. ``facts``: the function's, for static callees.
    Returns whether it changed anything.

    ``escaping`` (forward mode): a dict to fill with the nested functions
    that capture, of ``cells``, only :func:`one_value_cells` (each may
    escape): for each, the names of those cells and a tuple of the values
    they hold where it is made, whose tangents make its own."""
    if not cells:
        return False
    callee = facts.callee
    defs = {s.var: s for b in f.blocks.values() for s in b.stmts}
    makers = {v: s for v, s in defs.items() if callee(s) is ops.make_function
              and captured_names(s.args[0].value) & cells}
    if escaping is not None:
        one = one_value_cells(f, cells, facts)
        for b in f.blocks.values():
            out = []
            for s in b.stmts:
                names = tuple(sorted(captured_names(s.args[0].value) & cells)) if s.var in makers else ()
                if names and set(names) <= one:
                    loads = [f.new_var(n) for n in names]
                    out += [Statement(v, Const(ops.load_deref), [Const(n)], [], s.line) for v, n in zip(loads, names)]
                    held = f.new_var()
                    out.append(Statement(held, Const(ops.build_tuple), loads, [], s.line))
                    escaping[s.var] = (names, held)
                    del makers[s.var]
                out.append(s)
            b.stmts = out
    params = {c: a for c, a in zip(f.signature.names(), f.entry.args) if c in cells}  # a parameter's cell starts with it
    if not makers:
        return _ssa(f, cells, {}, params)
    calls = {}
    lent = {}  # id -> (maker, depth): gradient code's calls of runtime.J(runtime.call_with_cells, maker, ...)
    for b in f.blocks.values():
        for s in b.stmts:
            depth = _lends_cells(s, facts)
            if depth and s.args[depth] in makers:
                lent[id(s)] = (makers[s.args[depth]], depth)
                continue
            for o in s.operands():
                if o in makers and not (o is s.callee and s.callee in makers):
                    raise refuse(f"a nested function that shares variables with this function "
                                 f"({', '.join(sorted(captured_names(makers[o].args[0].value) & cells))}) "
                                 "and is passed on, returned or stored", s.line)
            if s.callee in makers:
                calls[id(s)] = makers[s.callee]
        for v in b.term_operands() + [a for j in b.jumps() for a in j.args]:
            if v in makers:
                raise refuse("a nested function that shares variables with this function and is "
                             "returned or passed on", None)
    new_defs: dict[int, dict[str, Var]] = {}
    handed: set[Var] = set()
    for b in f.blocks.values():
        out = []
        for s in b.stmts:
            if id(s) in lent:  # the values the cells get are the call's: ((value, cells' values), pullback)
                out.append(s)
                maker, depth = lent[id(s)]
                written = sorted(assigned_names(maker.args[0].value) & cells)
                if written:
                    pair = s.var
                    for _ in range(depth):  # (J of J of call_with_cells: (((value, cells'), pullback), pullback))
                        pair, outer = f.new_var(), pair
                        out.append(Statement(pair, Const(operator.getitem), [outer, Const(0)], [], s.line))
                    after = f.new_var()
                    out.append(Statement(after, Const(operator.getitem), [pair, Const(1)], [], s.line))
                    _left_in_cells(f, out, after, written, s.line, new_defs)
                continue
            maker = calls.get(id(s))
            if maker is None:
                out.append(s)
                continue
            node = maker.args[0].value
            shared = sorted(captured_names(node) & cells)
            written = sorted(assigned_names(node) & cells)
            now = []
            for name in shared:
                v = f.new_var(name)
                out.append(Statement(v, Const(ops.load_deref), [Const(name)], [], s.line))
                now.append(v)
                handed.add(v)
            values = f.new_var()
            out.append(Statement(values, Const(ops.build_tuple), now, [], s.line))
            pair, after = f.new_var(), f.new_var()
            out.append(Statement(pair, Const(runtime.call_with_cells),
                                 [s.callee, Const(tuple(shared)), Const(tuple(written)), values, *s.args],
                                 list(s.kwargs), s.line))
            out.append(Statement(s.var, Const(operator.getitem), [pair, Const(0)], [], s.line))
            out.append(Statement(after, Const(operator.getitem), [pair, Const(1)], [], s.line))
            _left_in_cells(f, out, after, written, s.line, new_defs)
        b.stmts = out
    return _ssa(f, cells, new_defs, params, frozenset(handed))


def _left_in_cells(f: IR, out: list[Statement], after: Var, written: list[str], line: Optional[int],
                   new_defs: dict[int, dict[str, Var]]) -> None:
    """Read the values a call left in the cells ``written`` from their
    tuple ``after``: the cells' values from there on (``new_defs``, by the
    last statement read)."""
    made = {}
    for k, name in enumerate(written):
        v = f.new_var(name)
        out.append(Statement(v, Const(operator.getitem), [after, Const(k)], [], line))
        made[name] = v
    if made:
        new_defs[id(out[-1])] = made


def _lends_cells(s: Statement, facts: Any) -> int:
    """Whether ``s`` is ``runtime.J(runtime.call_with_cells, g, shared,
    written, values, *args)``: gradient code's call of a nested function
    ``g`` that shares cells with it, handing it their values (this pass's
    ``call_with_cells``, differentiated again); or ``runtime.J(runtime.J,
    runtime.call_with_cells, g, ...)``, and so on, in gradient code
    differentiated again in turn. The number of ``J``s, ``g``'s position
    among the arguments; 0 for any other statement."""
    def static(o: Any) -> Any:
        return o.value if isinstance(o, Const) else facts.static.get(o)

    if facts.callee(s) not in (runtime.J, runtime.J_nested):
        return 0
    depth = 1
    while depth <= len(s.args) and static(s.args[depth - 1]) in (runtime.J, runtime.J_nested):
        depth += 1
    if len(s.args) < depth + 4 or static(s.args[depth - 1]) is not runtime.call_with_cells:
        return 0
    return depth


def _ssa(f: IR, cells: set[str], call_defs: dict[int, dict[str, Var]],
         entry: Optional[dict[str, Var]] = None, unchecked: frozenset = frozenset()) -> bool:
    """Replace each ``load_deref`` of a name in ``cells`` by the value of
    the assignment that reaches it: a ``store_deref``, an entry of
    ``call_defs`` (the statement after which names have new values) or of
    ``entry`` (values at the function's start). On a path no assignment
    reaches, the value is ``UNBOUND``: a read that may meet it checks it
    (as Python does), unless it is one of ``unchecked``, the values handed
    to a nested function's call for its gradient."""
    preds = predecessors(f)
    unbound = Const(ops.UNBOUND)

    def assigns(s: Statement) -> dict[str, Any]:
        fn = s.callee.value if isinstance(s.callee, Const) else None
        if fn is ops.store_deref and s.args[0].value in cells:
            return {s.args[0].value: s.args[1]}
        return call_defs.get(id(s), {})

    last: dict[tuple[int, str], Any] = {}
    for b in f.blocks.values():
        for s in b.stmts:
            for name, v in assigns(s).items():
                last[(b.id, name)] = v
    at_entry: dict[tuple[int, str], Any] = {}

    def read_end(bid: int, name: str) -> Any:
        return last[(bid, name)] if (bid, name) in last else read_entry(bid, name)

    def read_entry(bid: int, name: str) -> Any:
        if bid == f.entry.id:
            return (entry or {}).get(name, unbound)
        key = (bid, name)
        if key not in at_entry:
            ps = preds[bid]
            if len(ps) == 1:
                at_entry[key] = read_end(ps[0], name)
            else:
                phi = at_entry[key] = f.new_var(name)
                f.blocks[bid].args.append(phi)
                for p in ps:
                    v = read_end(p, name)
                    for j in f.blocks[p].jumps():
                        if j.target == bid:
                            j.args.append(v)
                    handler = f.blocks[p].handler
                    if handler is not None and handler.target == bid:  # (raised in p: as p had it at its start)
                        if (p, name) in last:
                            raise UnsupportedSyntax(
                                f"assigning `{name}`, a variable shared with a nested function, in a try block whose "
                                "handler reads it", function=f.name, filename=f.filename,
                                line=next((st.line for st in f.blocks[p].stmts if st.line), None),
                                hint=f"assign {name} before or after the try block")
                        handler.args.append(v)
        return at_entry[key]

    env: dict[Var, Any] = {}
    changed = False
    for b in f.blocks.values():
        cur: dict[str, Any] = {}
        out = []
        for s in b.stmts:
            fn = s.callee.value if isinstance(s.callee, Const) else None
            if fn is ops.load_deref and s.args[0].value in cells:
                name = s.args[0].value
                v = cur[name] if name in cur else read_entry(b.id, name)
                if v is s.var:
                    out.append(s)
                    continue
                changed = True
                if s.var in unchecked:
                    env[s.var] = v
                    continue
                s = Statement(s.var, Const(ops.check_bound), [v, Const(name)], [], s.line)
            out.append(s)
            cur.update(assigns(s))
        b.stmts = out
    substitute(f, env)
    drop_needless_checks(f)
    remove_trivial_args(f)
    return changed


def cells_out(f: IR, names: tuple[str, ...]) -> dict[str, Var]:
    """The nested function ``f``, for a call that wants back the values it
    leaves in the cells ``names`` (which it assigns, ``nonlocal``): each is
    read once at its start (the gradient of that read is the closure's
    own), its other reads become SSA values, and each ``return v`` returns
    ``(v, (values of names...))``. Returns the values read at the start."""
    first = _read_at_entry(f, names)
    handed: set[Var] = set()
    for b in f.blocks.values():
        if isinstance(b.term, Return):
            values = []
            for name in names:
                v = f.new_var(name)
                b.stmts.append(Statement(v, Const(ops.load_deref), [Const(name)]))
                values.append(v)
                handed.add(v)
            inner, outer = f.new_var(), f.new_var()
            b.stmts.append(Statement(inner, Const(ops.build_tuple), values))
            b.stmts.append(Statement(outer, Const(ops.build_tuple), [b.term.value, inner]))
            b.term.value = outer
    _ssa(f, set(names), {}, first, frozenset(handed))
    return first


def cells_in(f: IR, names: tuple[str, ...]) -> dict[str, Var]:
    """The nested function ``f``, for a call that hands it the cells
    ``names``, which it reads and does not assign (no other function can
    while it runs: see :func:`share_cells`): each is read once at its
    start, and its reads are that value. Returns the values read."""
    first = _read_at_entry(f, names)
    _ssa(f, set(names), {}, first)
    return first


def _read_at_entry(f: IR, names: tuple[str, ...]) -> dict[str, Var]:
    first: dict[str, Var] = {}
    for name in reversed(names):
        v = f.new_var(name)
        f.entry.stmts.insert(0, Statement(v, Const(ops.load_deref), [Const(name)]))
        first[name] = v
    return first
