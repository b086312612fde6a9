"""Class tests decided at compile time: a function given, at run time, an
object of a plain class (its kind, :func:`.analysis.attrs_kind`, holds the
class) is compiled for that class, so that ``isinstance(obj, C)`` is a
constant there and the branches it guards fold away (a recursive
evaluator's ``if isinstance(e, Const): ... elif isinstance(e, Add): ...``
becomes the one branch of ``e``'s class). An object of another class has
another kind, and gets a compilation of its own.

A test is folded only where nothing of the user's can have run yet in the
call (it comes before any statement but loads of globals and class tests),
so that the class the call began with is still the object's; and only for
classes whose ``isinstance`` is their MRO's (a plain metaclass, no
``__instancecheck__`` of an ABC, whose registrations may change).
"""
from __future__ import annotations

from typing import Any, Iterator

from ..ir import ops
from ..ir.cfg import predecessors, reverse_postorder
from ..ir.core import IR, Const, Operand, Statement, Var
from ..ir.passes import substitute, use_counts
from .analysis import Facts, _MISSING

_LOADS = (ops.load_global, ops.load_deref)


def _clean(s: Statement, facts: Facts) -> bool:
    """Whether ``s`` runs nothing of the user's (after it, an object's
    class is the one its call began with): a load of a global or a
    captured variable, ``type(x)``, ``isinstance`` with a class (or
    tuple of classes) known at compile time whose test is its MRO's."""
    fn = facts.callee(s)
    if any(fn is f for f in _LOADS):
        return True
    if fn is type:
        return len(s.args) == 1 and not s.kwargs
    return fn is isinstance and len(s.args) == 2 and not s.kwargs and _class_spec(s.args[1], facts) is not None


def _class_spec(spec: Operand, facts: Facts) -> Any:
    """The class or tuple of classes ``spec`` holds, known at compile time,
    each with a plain test (:func:`_plain_class_test`); None otherwise."""
    value = spec.value if isinstance(spec, Const) else facts.static.get(spec, _MISSING)
    specs = value if type(value) is tuple else (value,)
    if specs and all(isinstance(c, type) and _plain_class_test(c) for c in specs):
        return value
    return None


def object_classes(ir: IR, numeric: list) -> dict[Var, type]:
    """The arguments whose kind is an object's of a known class, and the class."""
    return {a: k[2] for a, k in zip(ir.entry.args, numeric)
            if isinstance(k, tuple) and k[0] == "attrs" and _plain_class_test(k[2])}


def fold_class_tests(ir: IR, numeric: list, facts: Facts) -> list[Var]:
    """Replace each ``isinstance(obj, C)`` of an argument ``obj`` of a known
    class (see :func:`object_classes`) by its value, where it runs before
    anything of the user's (see the module's docstring), and ``C`` is a
    class or a tuple of classes known at compile time. Returns the values
    ``C`` was read from (global or cell loads), whose guards the
    compilation now rests on; the caller folds the branches."""
    classes = object_classes(ir, numeric)
    if not classes:
        return []
    env: dict[Var, Operand] = {}
    read: list[Var] = []
    for s in _before_user_code(ir, facts):
        if facts.callee(s) is not isinstance or len(s.args) != 2 or s.kwargs or s.args[0] not in classes:
            continue
        value = _class_spec(s.args[1], facts)  # (not None: the statement is clean)
        env[s.var] = Const(issubclass(classes[s.args[0]], value))
        read += [v for v in (s.args[1], s.callee) if isinstance(v, Var)]
    for b in ir.blocks.values():
        b.stmts = [s for s in b.stmts if s.var not in env]
    substitute(ir, env)
    # the loads of the classes and of isinstance now read by nothing: the
    # compilation's guards check those globals (cells) when it is called
    unread = {v for v in read if use_counts(ir).get(v, 0) == 0}
    for b in ir.blocks.values():
        b.stmts = [s for s in b.stmts if s.var not in unread]
    return read


def _plain_class_test(cls: Any) -> bool:
    """Whether ``isinstance(x, cls)`` (and ``isinstance(obj, X)`` for an
    object of ``cls``) is decided by ``type(x)``'s MRO alone: ``cls``'s
    metaclass is ``type`` and it defines no ``__class__`` of its own."""
    return type(cls) is type and not any("__class__" in c.__dict__ for c in cls.__mro__[:-1])


def _before_user_code(ir: IR, facts: Facts) -> Iterator[Statement]:
    """The statements that run before anything of the user's can on every
    path: those of blocks all of whose predecessors run only
    :func:`_clean` statements and are such blocks themselves (the entry
    first), each up to its first other statement."""
    preds = predecessors(ir)
    clean: set[int] = set()  # blocks entered before anything of the user's, and running none of it
    for bid in reverse_postorder(ir):
        if bid != ir.entry.id and not all(p in clean for p in preds.get(bid, ())):
            continue
        b = ir.blocks[bid]
        whole = True
        for s in b.stmts:
            if not _clean(s, facts):
                whole = False
                break
            yield s
        if whole and b.handler is None:
            clean.add(bid)
