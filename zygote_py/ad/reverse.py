"""The reverse-mode transform: primal IR → forward IR + pullback IR.

After Innes, "Don't Unroll Adjoint" (2018) §3 and "Sense & Sensitivities"
(2019) §2–3. The forward IR is the primal with every active call replaced
by its rule's forward part (inlined) or by a run-time ``J`` that returns the
value and a pullback; it records what the pullback needs and returns
``(y, pullback)``. The pullback IR runs on the transposed control-flow
graph, each block's statements reversed:

- **Records.** A value the adjoint of block ``U`` needs is kept in a closure
  cell when ``U`` runs at most once per loop iteration of the value's own
  definition (in particular outside loops), else pushed on a per-variable
  stack just before its use and popped at the start of ``U``'s adjoint.
- **Control flow.** Loops are first put in a canonical form (one preheader,
  one latch, a block on every exit edge). A loop header records its *trip
  count* (a counter in a cell, pushed on exit when the loop is itself inside
  a loop), and its adjoint is ``for _ in range(trip)``. Any other block with
  several predecessors records which one branched to it (a cell, or a
  stack inside loops); its adjoint branches back on that record. An
  exception handler is such a merge block, whose protected predecessors
  pass their numbers on the exception edge; a block that raised is undone
  from its entry, as if it had not run (:meth:`_Reverse._exception_edges`).
- **Gradients.** The gradients of the active values live across a block
  travel as the adjoint block's arguments; a value used several times sums
  its contributions; ``None`` is the gradient that never arrived. Values
  known to be numbers (see :mod:`.analysis`) have gradients that are either
  statically ``None`` or numbers: they are added with ``+`` and start from
  ``0`` where some paths bring a gradient and others do not.

"""
from __future__ import annotations

import builtins
import itertools
import operator
import types
from dataclasses import dataclass, field
from typing import Any, Optional

from .. import runtime
from ..backend.naming import clean
from ..errors import NoDerivativeRule, UnsupportedSyntax
from ..ir import ops
from ..ir import passes
from ..ir.core import IR, Block, Branch, Const, Jump, Operand, Return, Signature, Starred, Statement, Var
from .. import registry
from . import analysis, callees, cells, classes, idioms
from .nones import propagate_none
from .inline import Inliner, bind_arguments, rule_ir
from . import prepare, reverse_passes


NONE = Const(None)


def _none(op: Operand) -> bool:
    return isinstance(op, Const) and op.value is None


@dataclass
class Transformed:
    forward: IR
    pullback: IR
    guards: list[tuple] = field(default_factory=list)
    changed_params: list[str] = field(default_factory=list)
    """Differentiated parameters the function changes in place."""
    stored_globals: list[str] = field(default_factory=list)
    """Globals the function assigns differentiated values."""
    raises_out: bool = False
    """Whether the function may raise, to its caller, an exception carrying a
    differentiated value."""
    float_output: bool = False
    """Whether the value returned is always a Python float (whose seed is
    1.0, no run-time check needed)."""
    sum_output: bool = False
    """Whether the value returned is a sum or mean of an array known real
    (whose seed is 1.0 too: see :func:`analysis.is_real_sum`)."""
    real_arrays: frozenset = frozenset()
    """The forward's values known to be arrays of real numbers."""
    float_args: frozenset = frozenset()
    """The parameters that are Python floats where the code was compiled."""
    constant_violations: list = field(default_factory=list)
    """A :class:`NoDerivativeRule` for each call that passes a
    differentiated value where its function has no derivative
    (``registry.constant_argument``), which a caller that differentiates
    exactly the parameters flagged raises (see ``pipeline.compiled``)."""


def transform(
    primal: IR, fn: Any, active: list[bool], numeric: list[bool], self_active: bool = False,
    param_out: Optional[int] = None, cells_out: tuple = (),
) -> Transformed:
    """Differentiate ``primal`` (the IR of ``fn``) with respect to the
    parameters flagged in ``active``. ``param_out``: differentiate it as if
    each ``return v`` returned ``(v, the parameter param_out)`` (``(v,
    *those parameters)`` for a tuple of positions), which the
    function changes in place (for its caller, which goes on with the
    changed object: an ``__init__`` filling in ``self``, a function changing
    its argument). ``cells_out``: as if each
    ``return v`` returned ``v`` and the values of these cells, which ``fn``
    assigns (``nonlocal``) for its caller (see :mod:`.cells`)."""
    if not any(isinstance(b.term, Return) for b in primal.blocks.values()):
        return _never_returns(primal, fn, self_active)
    try:
        return _Reverse(primal, fn, active, numeric, self_active, param_out, cells_out).run()
    except analysis.MoreConsumers as more:
        return _Reverse(primal, fn, active, numeric, self_active, param_out, cells_out, more.consumers).run()


def _never_returns(primal: IR, fn: Any, self_active: bool) -> Transformed:
    """A function with no ``return`` only ever raises: its forward calls it
    as it is, so that what it raises leaves ``gradient`` unchanged; its
    pullback (never called) gives no gradients."""
    sig = primal.signature
    f = IR(f"{primal.name}_forward", primal.filename, primal.firstline, sig)
    entry = f.new_block()
    entry.args = [f.new_var(n) for n in sig.names()]
    params = dict(zip(sig.names(), entry.args))
    args: list = [params[n] for n in sig.posonly + sig.args]
    args += [Starred(params[sig.vararg])] if sig.vararg else []
    kwargs = [(n, params[n]) for n in sig.kwonly] + ([(None, params[sig.kwarg])] if sig.kwarg else [])
    y = f.new_var("y")
    entry.stmts.append(Statement(y, Const(fn), args, kwargs, primal.firstline))
    entry.term = Return(y, primal.firstline)
    a = IR(f"{primal.name}_pullback", primal.filename, primal.firstline, Signature(args=["dy"]))
    back = a.new_block()
    back.args = [a.new_var("dy")]
    back.term = Return(_call(a, back, ops.build_tuple, *[NONE] * (len(entry.args) + self_active)))
    return Transformed(f, a)


def _call(ir: IR, block: Block, callee: Any, *args, name: Optional[str] = None, pure: bool = False,
          line: Optional[int] = None) -> Var:
    v = ir.new_var(name)
    block.stmts.append(Statement(v, Const(callee), list(args), [], line, pure))
    return v


class _Reverse(prepare.Preparation):
    def __init__(self, primal: IR, fn: Any, active: list[bool], numeric: list[bool], self_active: bool,
                 param_out: Optional[int], cells_out: tuple = (), consumers: frozenset = frozenset()):
        self.fn = fn
        self.consumers = set(consumers)
        self.numeric = numeric
        self.param_out = param_out
        self.cells_out = cells_out
        self.f = self._working_copy(primal)
        self.self_active = self_active
        self.constant_violations: list[NoDerivativeRule] = []
        self.guards: dict[Any, tuple] = {}
        # the zero a gradient starts from: 0.0 when every differentiated
        # argument is a float (so gradients stay floats), else the exact 0
        floats = [k == analysis.FLOAT for k, on in zip(numeric, active) if on and k]
        self.zero = Const(0.0 if floats and all(floats) else 0)
        self.indices: set[Var] = set()
        self.cell_values = self._promote_cells()
        self._analyse(active)
        self._fold_class_tests(active)
        eager = self._consume_generators()
        if eager is not None:
            primal = eager
            self.f = self._working_copy(primal)
            self.cell_values = self._promote_cells()
            self._analyse(active)
        for g in callees.inline_calls(self.f, fn):
            self.guards[(g[0], g[1] if g[0] == "global" else id(g[1]))] = g
            self._analyse(active)
        self.shared = self._share_cells(active)
        self._mark_captured_values()
        self.changed_params = self._version_mutations(active, numeric)
        if self._spread_calls():
            self._analyse(active)
        if self._index_active_loops(numeric) | self._promote_globals():
            self._analyse(active)
        self._canonicalise()
        self._analyse(active)
        self._check_cells()
        self._check_globals()
        self._check_exceptions()
        analysis.numeric(self.f, numeric, self.facts)
        while reverse_passes.call_array_methods(self.f, self.facts) | idioms.index_unpacked_vectors(self.f, self.facts):
            # (x.sum(0).mean(): one link at a time)
            self._analyse(active)
            analysis.numeric(self.f, numeric, self.facts)
        reverse_passes.share_array_reads(self.f, self.facts)
        self._hoist_invariants()
        self.shift_free = idioms.shift_free(self.f, self.facts)
        floats = self.float_args = frozenset(a for a, k in zip(self.f.entry.args, numeric) if k == analysis.FLOAT)
        self.float_output = param_out is None and not cells_out and analysis.is_float(
            self.f, self.ret.term.value, floats, self.facts)
        self.sum_output = param_out is None and not cells_out and analysis.is_real_sum(
            self.f, self.ret.term.value, self.facts)
        for v in self.facts.constants:  # the code is specialised on their kinds
            self._guard(v)
        for b in self.f.blocks.values():  # and on its callees: one without a gradient makes its call inactive
            for s in b.stmts:
                self._guard(s.callee)
        if self.self_active:  # (where a module, built-in function or class the closure holds is taken to be inactive)
            for v, value in self.facts.static.items():
                if isinstance(value, analysis.HELD_WITHOUT_GRADIENT) and self.facts.origin.get(v, ("",))[0] == "cell":
                    self._guard(v)
        rv = self.ret.term.value
        seed = "d" + clean(self.f.names.get(rv), "y") if isinstance(rv, Var) and rv in self.f.names else "dy"
        taken = set(primal.names.values()) | set(primal.signature.names()) | set(primal.freevars)
        if seed == "dy" and "y" in taken or seed in taken:  # (the pullback must not hide a forward name)
            names = itertools.chain(("dout", "dout_"), (f"dout_{k}" for k in itertools.count(2)))
            seed = next(n for n in names if n not in taken)
        self.a = IR(f"{primal.name}_pullback", primal.filename, primal.firstline, Signature(args=[seed]))
        self.cell_names: set[str] = set(primal.signature.names())
        self.cell_names |= {s.args[0].value for b in primal.blocks.values() for s in b.stmts
                            if isinstance(s.callee, Const) and s.callee.value in (ops.load_global, ops.store_global)}
        self.cell_names |= set(primal.cellvars) | set(primal.freevars)
        self.forward_cells: list[str] = []


    # -- forward -------------------------------------------------------------------

    def run(self) -> Transformed:
        self.adj: dict[Var, tuple] = {}
        self.needs: dict[int, list[Var]] = {bid: [] for bid in self.f.blocks}
        self.captured_values = self._captured_values()
        for bid in self.order:
            self._forward_block(self.f.blocks[bid])
        self._liveness()
        self._record_alphas()
        self._record_control()
        self._adjoint()
        self._drop_unread_stacks()
        idioms.as_methods(self.f, self.facts.arrays, self.facts.callee)
        reverse_passes.numbers_stored_in_place(self.f)
        self.f.cellvars = sorted(set(self.f.cellvars) | set(self.forward_cells))
        self.a.freevars = sorted(self.forward_cells_used)
        return Transformed(self.f, self.a, list(self.guards.values()), self.changed_params, self.stored_globals,
                           self.raises_out, self.float_output, self.sum_output,
                           frozenset(self.facts.arrays & self.facts.real), self.float_args, self.constant_violations)

    def _forward_block(self, b: Block) -> None:
        if b.id in self.inert:
            return
        out: list[Statement] = []
        for s in b.stmts:
            if self._is_module_read(s):
                s.pure = True  # guarded: the compiled code assumes this value
            if s.var not in self.facts.active:
                out.append(s)
                continue
            fn = self.facts.callee(s)
            if fn is ops.make_scope and analysis.read_without_gradient(self.f, s.var, self.facts):  # any(...)
                out.append(s)
                continue
            if fn is ops.make_scope or fn is map:  # one that _consume_generators could not make a list
                found = analysis.consumed_generators(self.f, self.facts)
                if not found.keys() <= self.consumers:  # (active only once the mutation pass ran)
                    raise analysis.MoreConsumers(frozenset(self.consumers | found.keys()))
            if fn is ops.make_scope:
                raise UnsupportedSyntax(
                    "differentiating through a generator expression is not supported yet: its items are "
                    "computed where it is consumed, out of the gradient's reach",
                    function=self.f.name, filename=self.f.filename, line=s.line,
                    hint="pass it straight to sum(), min(), max(), sorted(), list(), tuple(), set() or dict(), "
                         "or build a list with [... for ...] instead",
                )
            if fn is not analysis._MISSING:
                self._guard(s.callee)
                if fn is ops.load_deref:
                    self.adj[s.var] = ("self", s.args[0].value)
                    out.append(s)
                    continue
                if fn in (ops.store_deref, ops.store_global):  # the gradient flows through the promoted reads
                    out.append(s)
                    continue
                if s.var in self.facts.fields:  # obj.name (obj[key]) of a known field: obj's gradient, that field's
                    self.adj[s.var] = ("field", s.args[0], s.args[1].value,
                                       runtime.field_gradient if fn is getattr else runtime.key_gradient)
                    self.f.names.setdefault(s.var, s.args[1].value)  # (w = p.w, not t = p.w)
                    self.needs[b.id].append(s.args[0])
                    out.append(s)
                    continue
                if fn is ops.make_function:
                    free = analysis.free_names(s.args[0].value)
                    captured = {c: v for c, v in {**self.captured_values.get(s.var, {}),
                                                  **cells.default_values(s)}.items()
                                if isinstance(v, Var) and v in self.facts.active}
                    # the cells it shares with this function's own closure: their gradients are this one's
                    shared = sorted(free & set(self.f.freevars)) if self.self_active else []
                    self.adj[s.var] = ("closure", captured, shared)
                    out.append(s)
                    continue
            self._check_constant_argument(s, fn)
            rule = self._rule(s, fn)
            r = rule_ir(rule, fn) if rule is not None else None
            bound = bind_arguments(r, s) if r is not None and s.var in self.facts.numeric else None
            if bound is not None:
                inl = Inliner(self.f, s.line)
                _, captured = inl.forward(r, bound, s, out)
                self.adj[s.var] = ("inline", r, captured, bound)
                self.needs[b.id] += [captured[n] for n in r.captured if isinstance(captured[n], Var)]
                continue
            self._check_callable(s, fn)
            if s.kwargs and isinstance(fn, types.FunctionType):
                s = reverse_passes.keywords_by_position(s, fn)
            pair = self.f.new_var()
            out.append(Statement(pair, Const(runtime.J), [s.callee, *s.args], list(s.kwargs), s.line))
            t = self.f.new_var()
            back = self.f.new_var(clean(self.f.names.get(s.var), "y") + "_back")
            out.append(Statement(t, Const(ops.unpack), [pair, Const(2)], [], s.line))
            out.append(Statement(s.var, Const(operator.getitem), [t, Const(0)], [], s.line))
            out.append(Statement(back, Const(operator.getitem), [t, Const(1)], [], s.line))
            self.adj[s.var] = ("call", back, s)
            self.needs[b.id].append(back)
        b.stmts = out

    def _rule(self, s: Statement, fn: Any) -> Any:
        """The rule for the call ``s`` of ``fn``: the one for numbers when
        every operand is known to be a real number, not an array."""
        if fn is analysis._MISSING:
            return None
        if s.args and s.args[0] in self.facts.arrays:
            return registry.lookup_specialised(registry.ARRAY, fn)
        scalars = self.facts.scalars
        if s.args and not s.kwargs and all(
                not isinstance(a.value, complex) if isinstance(a, Const) else a in scalars for a in s.args):
            return registry.lookup_specialised(registry.SCALAR, fn)
        return registry.lookup(fn)

    def _is_module_read(self, s: Statement) -> bool:
        """A read of a module (a global), of a module's attribute, or of a
        builtin (``float``, ``abs``) that no global hides."""
        fn = s.callee.value if isinstance(s.callee, Const) else None
        if fn not in (ops.load_global, getattr) or s.var not in self.facts.static:
            return False
        base = self.facts.static[s.var] if fn is ops.load_global else self.facts.static.get(s.args[0])
        if fn is ops.load_global and isinstance(base, (types.BuiltinFunctionType, type)):
            return getattr(builtins, s.args[0].value, None) is base
        return isinstance(base, types.ModuleType)

    def _fold_class_tests(self, active: list[bool]) -> None:
        """``isinstance`` of an object argument whose class the compilation
        is specialised on, folded with the branches it guards
        (:mod:`.classes`), guarded on the globals its classes were read
        from."""
        read = classes.fold_class_tests(self.f, self.numeric, self.facts)
        if read:
            for v in read:
                self._guard(v)
            passes.optimize(self.f)
            self._analyse(active)

    def _guard(self, callee: Operand) -> None:
        origin = analysis.guard(self.facts, callee) if isinstance(callee, Var) else None
        if origin is not None:
            self.guards[(origin[0], origin[1] if origin[0] == "global" else id(origin[1]))] = origin

    def _check_constant_argument(self, s: Statement, fn: Any) -> None:
        """A differentiated value passed where ``fn`` has no derivative
        (``registry.constant_argument``: a Bessel function's order) is
        recorded, at the user's line: an error where the active parameters
        are those the caller differentiates (``pipeline.compiled``'s
        ``exact``), while a function the run-time ``J`` compiles takes every
        float it is given as differentiated, constants too, and there the
        rule's gradient in that argument (a ``runtime.Refused``) raises only
        in a caller that differentiates it."""
        for declared in registry.constant_arguments_of(fn) if fn is not analysis._MISSING else ():
            self._check_constant(s, fn, *declared)

    def _check_constant(self, s: Statement, fn: Any, position: int, name: str, what: str) -> None:
        """:meth:`_check_constant_argument` for one parameter declared."""
        given = [a for k, a in s.kwargs if k == name] or s.args[position:position + 1]
        if any(isinstance(a, Starred) for a in s.args[:position + 1]):
            return  # (where the argument is is known when it runs: the rule's gradient there is refused)
        if any(isinstance(a, Var) and a in self.facts.active for a in given):
            shown = registry.display_name(fn)
            self.constant_violations.append(NoDerivativeRule(
                f"{shown} has no derivative with respect to {what} {name!r}, and {name!r} is differentiated here",
                function=self.f.name, filename=self.f.filename, line=s.line,
                hint=f"keep {name!r} constant (a number, or an array that does not depend on the differentiated "
                f"inputs): the derivative in the other arguments is computed; for the derivative in {name!r}, take "
                f"finite differences of {shown} or register a rule with @zpy.adjoint({shown})"))

    def _check_callable(self, s: Statement, fn: Any) -> None:
        """A callee known now that cannot be differentiated at run time is an
        error now, at the user's line."""
        if fn is analysis._MISSING or fn is None or registry.lookup(fn) is not None \
                or registry.implementation(fn) is not None \
                or passes.member(fn, runtime.OVERLOADS) and registry.is_nondifferentiable(fn):  # (~v: v.__invert__)
            return  # (a call of None, in a branch its test leaves: Python says how it fails, if it runs)
        if runtime.differentiable_callable(fn):
            return
        if getattr(fn, "__module__", None) == ops.__name__:  # Python's syntax, as the compiler lowers it
            raise NoDerivativeRule(
                f"no derivative rule for {(fn.__doc__ or fn.__name__).splitlines()[0].rstrip('.').replace('``', '`')} "
                "with differentiated values", function=self.f.name, filename=self.f.filename, line=s.line,
                hint="hold differentiated values in a list, a tuple or a dict instead")
        name = registry.display_name(fn)
        raise NoDerivativeRule(
            f"no derivative rule for {name!r}, which is called with differentiated arguments",
            function=self.f.name, filename=self.f.filename, line=s.line,
            hint=f"register one with @zpy.adjoint({name}) (see the docs on custom rules), or keep it out of the differentiated path",
        )

    # -- records --------------------------------------------------------------------

    def _liveness(self) -> None:
        # a closure reads the values of the variables it captures where it is made (its gradient is theirs)
        captures = {v: reverse_passes.vars_in(info[1].values()) for v, info in self.adj.items() if info[0] == "closure"}
        live_in, live_out = reverse_passes.adjoint_live_sets(self.f, self.order, captures)
        act = self.facts.active
        key = lambda v: v.id  # noqa: E731
        self.live_in = live_in
        self.gout = {bid: sorted((v for v in live_out[bid] if v in act), key=key) for bid in self.order}
        self.gin = {
            bid: sorted((v for v in live_in[bid] | set(self.params[bid]) if v in act), key=key)
            for bid in self.order
        }

    def _cell(self, hint: str) -> str:
        base = clean(hint, "t")
        name, k = base, 0
        while name in self.cell_names:
            k += 1
            name = f"{base}_{k}"
        self.cell_names.add(name)
        self.forward_cells.append(name)
        return name

    def _record_alphas(self) -> None:
        """Decide how each value the adjoint needs is kept, and emit the
        forward side of it."""
        f = self.f
        home = {}
        for bid, b in f.blocks.items():
            for a in b.args:
                home[a] = bid
            for s in b.stmts:
                home[s.var] = bid
        self.cell_of: dict[Var, str] = {}
        self.stack_of: dict[tuple[Var, int], str] = {}
        params = dict(zip(f.entry.args, f.signature.names()))
        defs = {s.var: s for b in f.blocks.values() for s in b.stmts}
        for bid in self.order:
            seen = []
            for v in self.needs[bid]:
                if v in seen:
                    continue
                seen.append(v)
                loops = self.nest[bid]
                if loops and home[v] in self.loops[loops[0]] and not self._same_each_iteration(v, home, defs):
                    self.stack_of[(v, bid)] = self._cell("saved_" + clean(f.names.get(v), "t"))
                elif v not in self.cell_of:
                    if v in params:
                        self.cell_of[v] = params[v]
                        self.forward_cells.append(params[v])
                    else:
                        self.cell_of[v] = self._cell(clean(f.names.get(v), "t"))
            self.needs[bid] = seen
        entry = f.entry
        inits = []
        for v, name in self.cell_of.items():
            if v in params:
                continue
            h = home[v]
            # A loop-carried value is read after the loop: kept once, where
            # the loop is left, so the header stays a plain loop header.
            at = [e for e, left in self.exits.items() if h in left] if v in f.blocks[h].args and h in self.loops else []
            if self.nest[h] and not at:  # a value made in a loop, the same in every iteration: none if it runs 0 times
                inits.append(Statement(f.new_var(), Const(ops.store_deref), [Const(name), NONE]))
            for bid in at or [h]:
                b = f.blocks[bid]
                store = Statement(f.new_var(), Const(ops.store_deref), [Const(name), v])
                idx = self._record_at(b, next((i + 1 for i, s in enumerate(b.stmts) if s.var == v), 0))
                b.stmts.insert(idx, store)
        for (v, bid), name in self.stack_of.items():
            inits += self._new_stack(name)
            b = f.blocks[bid]
            # just after the value is made, or just before its first use
            at = next((i + 1 for i, s in enumerate(b.stmts) if s.var == v), None)
            if at is None:
                at = next((i for i, s in enumerate(b.stmts) if v in s.operands()), len(b.stmts))
            at = self._record_at(b, at)
            b.stmts[at:at] = self._push(name, v)
        entry.stmts[0:0] = inits

    def _same_each_iteration(self, v: Var, home: dict[Var, int], defs: dict[Var, Statement]) -> bool:
        """Whether ``v``, made in a loop, is the same number in every
        iteration of every loop around it: a :mod:`math` function or
        arithmetic (see :meth:`_invariant`) of real numbers made before the
        outermost one, or of such values. Then one cell keeps it for the
        pullback, as for a value made before the loop (a math function that
        may raise is not hoisted: the loop may run zero times)."""
        s = defs.get(v)
        loops = self.nest[home[v]] if v in home else []
        if s is None or not loops or s.kwargs or any(isinstance(a, Starred) for a in s.args):
            return False
        fn = self.facts.callee(s)
        number = all(isinstance(a, Const) and type(a.value) in (int, float) or a in self.facts.scalars
                     and a in self.facts.real for a in s.args)
        if not (self._invariant(s) or analysis.is_math_function(fn) and number and v in self.facts.scalars):
            return False
        body = self.loops[loops[0]]
        return all(isinstance(a, Const) or home.get(a) not in body or self._same_each_iteration(a, home, defs)
                   for a in s.args)

    @staticmethod
    def _record_at(b: Block, at: int) -> int:
        """Where in ``b`` a record goes that would go at ``at``: at the end
        of a protected block, so that it is made only if no statement of
        the block raised (see :meth:`_exception_edges`)."""
        return len(b.stmts) if b.handler is not None else at

    def _new_stack(self, name: str) -> list[Statement]:
        f = self.f
        lst = f.new_var()
        return [Statement(lst, Const(ops.build_list)),
                Statement(f.new_var(), Const(ops.store_deref), [Const(name), lst])]

    def _push(self, name: str, v: Operand) -> list[Statement]:
        f = self.f
        s, m = f.new_var(), f.new_var()
        return [Statement(s, Const(ops.load_deref), [Const(name)]),
                Statement(m, Const(getattr), [s, Const("append")]),
                Statement(f.new_var(), m, [v])]

    def _drop_unread_stacks(self) -> None:
        """A stack whose values the simplified pullback never reads is not
        kept: its list, pushes and pops go. (Its values were needed for a
        gradient that proved absent, or for the shape of an operand that
        proved the output's: ``t + a``, ``a`` a number.)"""
        a, f = self.a, self.f
        pops, _ = reverse_passes.stack_calls(a)
        uses = passes.use_counts(a)
        dead = {name for name in set(self.stack_of.values())
                if all(uses.get(s.var, 0) == 0 for s in pops.get(name, []))}
        if not dead:
            return
        for ir in (a, f):
            calls, reads = reverse_passes.stack_calls(ir)
            gone = {id(s) for name in dead for s in calls.get(name, [])}
            made = set()  # (the forward's lists, stored in their cells)
            for b in ir.blocks.values():
                for s in b.stmts:
                    if reads.get(s.var) in dead:
                        gone.add(id(s))
                    elif isinstance(s.callee, Const) and s.callee.value is ops.store_deref and s.args[0].value in dead:
                        gone.add(id(s))
                        made.add(s.args[1])
            for b in ir.blocks.values():
                b.stmts = [s for s in b.stmts if id(s) not in gone and s.var not in made]
        for name in dead:
            self._load_stmts.pop(name, None)
            self.forward_cells_used.discard(name)
            self.forward_cells.remove(name)

    def _record_control(self) -> None:
        """Trip counts for loop headers; for other merge blocks, which
        predecessor branched."""
        f = self.f
        self.trip: dict[int, str] = {}
        self.trip_stack: dict[int, str] = {}
        for h in self.loops:
            name = self._cell("trip")
            self.trip[h] = name
            pre = f.blocks[self.preheader[h]]
            pre.stmts.insert(0, Statement(f.new_var(), Const(ops.store_deref), [Const(name), Const(0)]))
            lt = f.blocks[self.latch[h]]
            t, u = f.new_var(), f.new_var()
            lt.stmts += [Statement(t, Const(ops.load_deref), [Const(name)]),
                         Statement(u, Const(operator.iadd), [t, Const(1)]),
                         Statement(f.new_var(), Const(ops.store_deref), [Const(name), u])]
            if len(self.nest[h]) > 1:
                self.trip_stack[h] = self._cell("saved_trip")
                f.entry.stmts[0:0] = self._new_stack(self.trip_stack[h])
        for s_id, left in self.exits.items():
            for h in left:
                if h in self.trip_stack:
                    k = f.new_var()
                    b = f.blocks[s_id]
                    b.stmts.append(Statement(k, Const(ops.load_deref), [Const(self.trip[h])]))
                    b.stmts += self._push(self.trip_stack[h], k)
        self.came: dict[int, tuple[str, bool]] = {}
        for bid in self.order:
            ps = self.sources[bid]
            if len(ps) < 2 or bid in self.loops:
                continue
            stacked = bool(self.nest[bid])
            name = self._cell("saved_path" if stacked else "path")
            if stacked:
                f.entry.stmts[0:0] = self._new_stack(name)
            self.came[bid] = (name, stacked)
            record = lambda v: self._push(name, v) if stacked else [  # noqa: E731
                Statement(f.new_var(), Const(ops.store_deref), [Const(name), v])]
            if bid in self.handlers:  # see _exception_edges
                b = f.blocks[bid]
                came = f.new_var("raised_in")
                b.args.append(came)
                for p in self.preds[bid]:
                    f.blocks[p].handler.args.append(Const(ps.index(p) if p in ps else 0))
                b.stmts[0:0] = record(came)
                continue
            for i, p in enumerate(ps):
                f.blocks[p].stmts += record(Const(i))

    # -- adjoint -------------------------------------------------------------------------

    def _adjoint(self) -> None:
        a = self.a
        self.forward_cells_used: set[str] = set()
        self.loads: dict[str, Var] = {}
        self.bar: dict[int, Block] = {}
        self.slots: dict[int, list[Var]] = {}
        self.iters_of: dict[int, list[int]] = {}
        self.maybe_adj: set[Var] = set()  # gradients that may be None at run time
        self.structured_adj: set[Var] = set()  # sums of gradients of values not known to be numbers or arrays
        self.zero_ok: set[Var] = set()  # block arguments that may start from 0 where no gradient arrives
        self.zero_made: set[Var] = set()  # gradients that may be that 0 at run time (see _may_be_zero)
        self.seeded: list[tuple[list[tuple[Statement, int]], list[Statement]]] = []  # see _drop_unseeded_rules
        self.linear: set[int] = set()
        self.item_scatters: set[int] = set()  # pullbacks' statements of items x[i] (see _item_buffers)
        self.invoked: set[int] = set()  # pullbacks called directly (see _invoke)
        self.rule_constants: set[int] = set()  # ids of the constants of inlined pullbacks' code
        self.array_sums: set[Var] = set()  # adjoint blocks' gradients of arrays (see _add_in_place)
        entry = a.new_block()
        dy = a.new_var(a.signature.args[0])
        entry.args = [dy]
        self.bar[self.ret.id] = entry
        self.dself = None
        for bid in reversed(self.order):
            if bid == self.ret.id:
                continue
            b = a.new_block()
            self.bar[bid] = b
            self.slots[bid] = [a.new_var(self._dname(v)) for v in self.gout[bid]]
            b.args = list(self.slots[bid]) + [a.new_var("it") for _ in self.nest[bid]]
        self.xbar: dict[int, Block] = {}  # the adjoint of a raising block's entry, see _exception_edges
        for bid in reversed(self.order):
            if bid in self.raising:
                x = self.xbar[bid] = a.new_block()
                x.args = [a.new_var(self._dname(v)) for v in self.gin[bid]] + [a.new_var("it") for _ in self.nest[bid]]
        if self.self_active:
            self.dself = _call(a, entry, ops.build_dict)
        for bid in reversed(self.order):
            self._adjoint_block(bid)
        entry.stmts[0:0] = [self._load_stmts[n] for n in sorted(self._load_stmts)]
        self._simplify_adjoint()

    def _drop_unseeded_rules(self) -> bool:
        """An inlined pullback whose incoming gradient turned out to be
        ``None`` gives no gradients: rules are linear in it, so every
        statement of theirs that reads ``None`` is ``None`` too, even a
        call the simplifier cannot see through (``dot_grad(None, a, b,
        0)``). Returns whether it found one."""
        present = {id(st) for b in self.a.blocks.values() for st in b.stmts}
        found = False
        for k in range(len(self.seeded) - 1, -1, -1):
            uses, region = self.seeded[k]
            if any(id(st) in present and isinstance(st.args[i], Const) and st.args[i].value is None
                   for st, i in uses):
                self.linear.update(id(st) for st in region)
                del self.seeded[k]
                found = True
        return found

    def _simplify_adjoint(self) -> None:
        """Settle which gradients are statically absent, start the numeric
        ones that some paths leave out from 0, and add the gradients of
        numbers and arrays with ``+`` (a list's, a dict's or an object's
        with ``runtime.accum``, item by item)."""
        a = self.a
        passes.prune_unreachable(a)
        self._pass_zero_back()
        while True:
            before = passes.size(a)
            passes.remove_trivial_args(a)
            propagate_none(a, self.linear)
            if passes.size(a) == before and not self._drop_unseeded_rules():
                break
        for b in a.blocks.values():
            for j in b.jumps():
                params = a.blocks[j.target].args
                if any(p in self.zero_ok for p in params):
                    j.args = [
                        self.zero if p in self.zero_ok and isinstance(v, Const) and v.value is None else v
                        for p, v in zip(params, j.args)
                    ]
        maybe = set(self.maybe_adj)
        for b in a.blocks.values():
            for s in b.stmts:
                if isinstance(s.callee, Const) and s.callee.value is runtime.accum:
                    if any(isinstance(x, Const) and x.value is None or x in maybe for x in s.args) \
                            or s.var in self.structured_adj:
                        maybe.add(s.var)
                    else:
                        s.callee = Const(operator.add)
        reverse_passes.doubled(a)
        item_adds = reverse_passes.fuse_scatter_adds(a, self.item_scatters)
        passes.optimize(a)
        if reverse_passes.drop_needless_zero_guards(a, self.rule_constants, self.invoked):
            passes.optimize(a)
        reverse_passes.join_scatters(a)
        reverse_passes.call_pullbacks_that_may_get_none(a, self.invoked)
        if reverse_passes.item_buffers(a, item_adds):
            passes.optimize(a)
        reverse_passes.add_in_place(a, self.array_sums)
        passes.hoist_invariants(a)

    def _pass_zero_back(self) -> None:
        """A block argument that is only passed on to arguments that start
        from 0 (a rule's gradient of a number, joined inside the rule
        before it reaches the caller's) starts from 0 too."""
        a = self.a
        read = {x for b in a.blocks.values() for s in b.stmts for x in s.operands()}
        read |= {x for b in a.blocks.values() for x in b.term_operands()}
        read |= {x for b in a.blocks.values() if b.handler is not None for x in b.handler.args}
        passed: dict[Var, list[Var]] = {}
        for b in a.blocks.values():
            for j in b.jumps():
                for p, v in zip(a.blocks[j.target].args, j.args):
                    passed.setdefault(v, []).append(p)
        params = {v for b in a.blocks.values() for v in b.args} - read
        found = True
        while found:
            more = {v for v in params - self.zero_ok if all(p in self.zero_ok for p in passed.get(v, [None]))}
            self.zero_ok |= more
            found = bool(more)

    @property
    def _load_stmts(self) -> dict[str, Statement]:
        if not hasattr(self, "_loads_cache"):
            self._loads_cache = {}
        return self._loads_cache

    def _dname(self, v: Var) -> Optional[str]:
        n = self.f.names.get(v)
        return None if n is None else "d" + clean(n, "t")

    def _load(self, name: str) -> Var:
        """A forward cell's value, read once at the pullback's start."""
        if name not in self._load_stmts:
            v = self.a.new_var()
            self._load_stmts[name] = Statement(v, Const(ops.load_deref), [Const(name)], pure=True)
            self.forward_cells_used.add(name)
        return self._load_stmts[name].var

    def _named(self, g: Operand, v: Var) -> Operand:
        """A gradient of a named value takes its name (``dx``)."""
        if isinstance(g, Var) and g not in self.a.names and self._dname(v):
            self.a.names[g] = self._dname(v)
        return g

    def _accum(self, block: Block, v: Var, g: Operand, h: Operand) -> Operand:
        """The sum of two gradients of ``v``. The gradient of a number is
        never ``None`` at run time once anything arrived: a gradient that
        may be ``None`` (from a pullback called at run time) is added to
        ``0`` first."""
        if v in self.facts.numeric:
            # each operand on its own: the other may yet turn out None
            g, h = (self._from_zero(block, v, x) if self._maybe(x) else x for x in (g, h))
        if _none(g):
            g, h = h, g
        if _none(g):
            return NONE
        if _none(h):
            return self._named(g, v)
        out = _call(self.a, block, runtime.accum, g, h, name=self._dname(v), pure=True)
        if self._maybe(g) and self._maybe(h):
            self.maybe_adj.add(out)
        if v not in self.facts.numeric:  # (a list's gradient is a list: + would join the two)
            self.structured_adj.add(out)
        if self._may_be_zero(g) and self._may_be_zero(h):
            self.zero_made.add(out)
        return out

    def _from_zero(self, block: Block, v: Var, g: Var) -> Var:
        """``accum(0, g)``: the gradient ``g`` of the number ``v``, or 0."""
        out = _call(self.a, block, runtime.accum, self.zero, g, name=self._dname(v), pure=True)
        self.zero_made.add(out)
        return out

    def _maybe(self, op: Operand) -> bool:
        return isinstance(op, Var) and op in self.maybe_adj

    def _slot(self, v: Var, slot: Var) -> None:
        """``slot``, an adjoint block's argument, is the gradient of ``v``:
        of a number or an array, 0 where no path gives one; else ``None``."""
        if v in self.facts.arrays:
            self.array_sums.add(slot)
        if v in self.facts.numeric:
            self.zero_ok.add(slot)
            self.zero_made.add(slot)
        else:
            self.maybe_adj.add(slot)

    def _may_be_zero(self, op: Operand) -> bool:
        """Whether the gradient ``op`` may be, at run time, the number 0 that
        a path giving none starts it from (:meth:`_slot`), or a sum or an
        elementwise rule's gradient of such zeros."""
        return isinstance(op, Var) and op in self.zero_made

    def _adjoint_block(self, bid: int) -> None:
        f, a = self.f, self.a
        B = f.blocks[bid]
        cur = self.bar[bid]
        grads: dict[Var, Operand] = {}
        if bid == self.ret.id:
            rv = B.term.value
            if isinstance(rv, Var) and rv in self.facts.active:
                grads[rv] = cur.args[0]
                if rv not in self.facts.numeric:
                    self.maybe_adj.add(cur.args[0])
            iters: dict[int, Operand] = {}
        else:
            for v, slot in zip(self.gout[bid], self.slots[bid]):
                grads[v] = slot
                self._slot(v, slot)
            iters = dict(zip(self.nest[bid], cur.args[len(self.slots[bid]):]))
        # the values recorded on stacks, popped in reverse order of pushing
        popped: dict[Var, Operand] = {}
        for h in self.exits.get(bid, []):
            if h in self.trip_stack:
                count = self._pop(cur, self.trip_stack[h], "trip")
            else:
                count = self._load(self.trip[h])
            r = _call(a, cur, range, count)
            iters[h] = _call(a, cur, iter, r)
        for v in reversed(self.needs[bid]):
            if (v, bid) in self.stack_of:
                popped[v] = self._pop(cur, self.stack_of[(v, bid)], f.names.get(v))
        flag = self._came(cur, bid) if bid not in self.xbar else None
        for s in reversed(B.stmts):
            info = self.adj.get(s.var)
            if info is None:
                continue
            dy = grads.pop(s.var, NONE)
            if isinstance(dy, Const) and dy.value is None:
                continue
            cur = self._adjoint_stmt(cur, bid, s, info, dy, grads, popped)
        if bid in self.xbar:
            x = self.xbar[bid]
            gin = self.gin[bid]
            cur.term = Jump(x.id, [grads.get(v, NONE) for v in gin] + [iters[h] for h in self.nest[bid]])
            cur, grads, iters = x, dict(zip(gin, x.args)), dict(zip(self.nest[bid], x.args[len(gin):]))
            for v, slot in grads.items():
                self._slot(v, slot)
            flag = self._came(cur, bid)
        if bid == f.entry.id:
            out = [grads.get(p, NONE) if p in self.facts.active else NONE for p in f.entry.args]
            if self.dself is not None:
                out.insert(0, self.dself)
            t = _call(a, cur, ops.build_tuple, *out)
            cur.term = Return(t)
            return
        if bid in self.loops:
            self._adjoint_header(cur, bid, grads, iters)
            return
        preds = self.sources[bid]
        if len(preds) == 1:
            cur.term = self._edge(cur, bid, preds[0], grads, iters)
            return
        targets = list(enumerate(preds))
        while len(targets) > 1:
            i, p = targets.pop(0)
            c = _call(a, cur, operator.eq, flag, Const(i), pure=True)
            rest = a.new_block()
            cur.term = Branch(c, self._edge_block(bid, p, grads, iters), Jump(rest.id))
            cur = rest
        cur.term = self._edge(cur, bid, targets[0][1], grads, iters)

    def _came(self, block: Block, bid: int) -> Optional[Var]:
        """Which predecessor branched to ``bid``, as recorded (``None`` if
        nothing is)."""
        if bid not in self.came:
            return None
        name, stacked = self.came[bid]
        return self._pop(block, name, "path") if stacked else self._load(name)

    def _pop(self, block: Block, stack: str, hint: Optional[str]) -> Var:
        s = self._load(stack)
        m = _call(self.a, block, getattr, s, Const("pop"))
        v = self.a.new_var(clean(hint, "t") if hint else None)
        block.stmts.append(Statement(v, m, []))
        return v

    def _alpha(self, v: Operand, popped: dict[Var, Operand]) -> Operand:
        if isinstance(v, Const):
            return v
        if v in popped:
            return popped[v]
        return self._load(self.cell_of[v])

    def _adjoint_stmt(self, cur: Block, bid: int, s: Statement, info: tuple, dy: Operand,
                      grads: dict[Var, Operand], popped: dict[Var, Operand]) -> Block:
        a = self.a
        kind = info[0]
        if kind == "self":
            _call(a, cur, runtime.accum_item, self.dself, Const(info[1]), dy)
            return cur
        if kind == "field":
            obj = info[1]
            g = _call(a, cur, info[3], self._alpha(obj, popped), Const(info[2]), dy, pure=True)
            self.maybe_adj.add(g)  # (added by accum, not +: a gradient module's stands in for Tangent without its +)
            grads[obj] = self._accum(cur, obj, grads.get(obj, NONE), g)
            return cur
        if kind == "closure":  # a closure's gradient: its captured variables' and default values'
            for name, v in info[1].items():
                g = _call(a, cur, runtime.field, dy, Const(name), pure=True)
                self.maybe_adj.add(g)
                grads[v] = self._accum(cur, v, grads.get(v, NONE), g)
            for name in info[2]:
                g = _call(a, cur, runtime.field, dy, Const(name), pure=True)
                _call(a, cur, runtime.accum_item, self.dself, Const(name), g)
            return cur
        if kind == "inline":
            _, r, captured, args = info
            env = {n: self._alpha(v, popped) for n, v in captured.items() if n in r.captured}
            start = cur
            real = frozenset(n for n, v in captured.items() if analysis.is_real(v, self.facts))
            known, first = set(a.blocks), len(cur.stmts)
            # an array's gradient that may be the 0 no path gave (see _simplify_adjoint): a rule that
            # reshapes it (concatenate's, cumsum's) would fail on it; it gives no gradients
            guard = self._may_be_zero(dy) and s.var in self.facts.arrays and not reverse_passes.takes_zero(r)
            if guard:
                body, skip, join = a.new_block(), a.new_block(), a.new_block()
                cond = _call(a, cur, runtime.is_number_zero, dy, pure=True, line=s.line)
                cur.term, cur = Branch(cond, Jump(skip.id, []), Jump(body.id, []), s.line), body
            vectors = frozenset(n for n, v in captured.items() if isinstance(v, Var) and v in self.facts.vectors)
            same = reverse_passes.same_shape(r, args, self.facts.python_numbers | self.float_args)
            cur, outs = Inliner(a, s.line).back(r, dy, env, cur, same, real, s.var in self.facts.real, vectors)
            if guard:
                join.args = [a.new_var() for _ in outs]
                cur.term, skip.term = Jump(join.id, list(outs)), Jump(join.id, [NONE] * len(outs))
                cur, outs = join, join.args
                self.zero_made.update(outs)
            elif self._may_be_zero(dy):
                self.zero_made.update(g for g in outs if isinstance(g, Var))
            added = start.stmts[first:] + [st for bid, blk in a.blocks.items() if bid not in known for st in blk.stmts]
            self.seeded.append(([(st, i) for st in added for i, x in enumerate(st.args) if x == dy], added))
            self.rule_constants.update(id(x) for st in added for x in st.operands() if isinstance(x, Const) and x is not dy)
            if s.var in self.facts.vector_items:
                self.item_scatters.update(id(st) for st in added)  # (its scatter, once its callee is known)
            for i, (arg, g) in enumerate(zip(args, outs)):
                if isinstance(arg, Var) and arg in self.facts.active and (s.var, i) not in self.shift_free:
                    if cur is not start and g in cur.args:  # a gradient some paths of the rule leave out
                        (self.zero_ok if arg in self.facts.numeric else self.maybe_adj).add(g)
                    grads[arg] = self._accum(cur, arg, grads.get(arg, NONE), g)
            return cur
        _, back, call = info
        pb = self._alpha(back, popped)
        fn = runtime.call_pullback if self._maybe(dy) else None
        gs = _call(a, cur, fn, pb, dy, line=s.line, pure=True) if fn else self._invoke(cur, pb, dy, s.line)
        operands = [call.callee] + list(call.args) + [v for _, v in call.kwargs]
        for i, op in enumerate(operands):
            if isinstance(op, Var) and op in self.facts.active:
                g = _call(a, cur, operator.getitem, gs, Const(i), pure=True)
                self.maybe_adj.add(g)
                grads[op] = self._accum(cur, op, grads.get(op, NONE), g)
        return cur

    def _invoke(self, block: Block, pb: Operand, dy: Operand, line: Optional[int]) -> Var:
        """``pb(dy)``: pure, so that a ``dy`` later found to be ``None``
        makes it ``None`` (see :func:`nones.propagate_none`)."""
        v = self.a.new_var()
        block.stmts.append(Statement(v, pb, [dy], [], line, pure=True))
        self.invoked.add(id(block.stmts[-1]))
        return v

    def _edge_values(self, block: Block, bid: int, p: int, grads: dict[Var, Operand],
                     iters: dict[int, Operand]) -> list[Operand]:
        f = self.f
        jumps = [j for j in f.blocks[p].jumps() if j.target == bid]
        live = self.live_in[bid]
        own = set(self.params[bid])
        out = []
        for v in self.gout[p]:
            # (a parameter of the target passed to it again, as in a swap
            # y, z = z, y on a loop's back edge, has the gradient of what it
            # becomes there, not of itself)
            g = grads.get(v, NONE) if v in live and v not in own else NONE
            for j in jumps:
                for param, arg in zip(self.params[bid], j.args):
                    if arg == v and param in self.facts.active:
                        g = self._accum(block, v, g, grads.get(param, NONE))
            out.append(g)
        return out + [iters[h] for h in self.nest[p]]

    def _edge(self, block: Block, bid: int, p: int, grads, iters) -> Jump:
        if bid in self.handlers:
            return Jump(self.xbar[p].id, self._raise_edge_values(block, bid, p, grads, iters))
        return Jump(self.bar[p].id, self._edge_values(block, bid, p, grads, iters))

    def _raise_edge_values(self, block: Block, h: int, p: int, grads: dict[Var, Operand],
                           iters: dict[int, Operand]) -> list[Operand]:
        """The gradients of the values live at the entry of ``p``, which
        raised into its handler ``h``, and the iterators of the loops it
        was in (those the exception left replay their completed
        iterations)."""
        live = self.live_in[h]
        own = set(self.params[h])
        out = []
        for v in self.gin[p]:
            g = grads.get(v, NONE) if v in live and v not in own else NONE
            for param, arg in zip(self.params[h][1:], self.f.blocks[p].handler.args):
                if arg == v and param in self.facts.active:
                    g = self._accum(block, v, g, grads.get(param, NONE))
            out.append(g)
        for lp in self.nest[p]:
            if lp not in iters:
                iters = {**iters, lp: _call(self.a, block, iter, _call(self.a, block, range, self._load(self.trip[lp])))}
        return out + [iters[lp] for lp in self.nest[p]]

    def _edge_block(self, bid: int, p: int, grads, iters) -> Jump:
        e = self.a.new_block()
        e.term = self._edge(e, bid, p, grads, iters)
        return Jump(e.id)

    def _adjoint_header(self, cur: Block, h: int, grads: dict[Var, Operand], iters: dict[int, Operand]) -> None:
        """``for _ in range(trip)``: each iteration goes back to the latch's
        adjoint; when done, to the preheader's."""
        a = self.a
        slots = self.gin[h]
        d = a.new_block()
        d.args = [a.new_var(self._dname(v)) for v in slots]
        own = [a.new_var("it") for _ in self.nest[h]]
        d.args += own
        cur.term = Jump(d.id, [grads.get(v, NONE) for v in slots] + [iters[x] for x in self.nest[h]])
        inner = dict(zip(slots, d.args))
        for v in slots:
            self._slot(v, inner[v])
        inner_iters = dict(zip(self.nest[h], own))
        item = _call(a, d, ops.iternext, inner_iters[h], name="_")
        done = _call(a, d, ops.exhausted, item)
        d.term = Branch(
            done,
            self._edge_block(h, self.preheader[h], inner, inner_iters),
            self._edge_block(h, self.latch[h], inner, inner_iters),
        )
