"""Random programs for differential fuzzing, and the check of one program
against central finite differences in both modes.

A program is a module with ``prog(p0, p1, q, n)`` over two floats, an
array ``q`` of shape (3,) and an int ``n``, and two helpers that ``prog``
calls: ``h1(a, b)`` on floats and ``h2(w, s)`` returning an array (which
may call ``h1``). Bodies assign the float variables ``x y z`` and the
array variables ``u v`` with arithmetic, ``math`` and NumPy calls (NumPy
scalars mixed with floats, arrays built from floats, items read and
written), branch on comparisons of them, run ``while`` and ``for`` loops
(over ``range``, a list, an array's items, ``enumerate`` and ``zip``) with
``break``, ``continue`` and ``else``, return early, and build and read
tuples, lists (appended to, items assigned) and dicts (items assigned),
call a closure and a lambda that read the variables at call time, and
call the helpers (positionally and by keyword).

The generator draws through a :class:`Chooser`, so that hypothesis (in the
test suite) and a seeded ``random.Random`` (in ``make fuzz``) write the
same kinds of programs; every program says which constructs it uses
(:attr:`Program.tags`), for the coverage report. A run may leave out
constructs (:data:`EXCLUDABLE`: arrays altogether, or changes in place,
closures, ``np.sort``) to fuzz the rest while a bug in one of them is open.

Values stay bounded by construction (divisions by ``1 + e*e``, logs of
``1 + e*e``, ``exp`` of a sine, loop updates damped by ``tanh``); a point
where the plain program fails, overflows, or is not smooth (two central
differences with steps 1e-6 and 1e-5 disagree: a branch or a kink within
reach of the step) is skipped. Everywhere else the gradient and the
``zpy.jvp`` tangent along a fixed direction must agree with the finite
differences, the values must be exactly the plain program's, and ``n``
must get no gradient.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import math
import sys
import types
import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

import numpy as np

import zygote_py as zpy

INDENT = "    "
SCALARS = ("x", "y", "z")
ARRAYS = ("u", "v")
MAX_DEPTH = 2


class Chooser:
    """The generator's one source of choices: ``integer(lo, hi)``, both
    ends included."""

    def __init__(self, integer: Callable[[int, int], int]):
        self.integer = integer

    def choice(self, options):
        return options[self.integer(0, len(options) - 1)]

    def boolean(self) -> bool:
        return self.integer(0, 1) == 1


@dataclasses.dataclass
class Scope:
    """What a statement may use: loop counters and item variables (floats)
    in scope, whether ``break``/``continue`` are legal, and the containers,
    closures and helpers the function has defined so far."""

    counters: tuple = ()
    items: tuple = ()
    in_loop: bool = False
    lists: tuple = ()
    dicts: tuple = ()
    tuples: tuple = ()
    closures: tuple = ()
    helpers: tuple = ()


class Writer:
    """Writes one function body; ``tags`` collects the constructs used."""

    def __init__(self, c: Chooser, tags: Counter, loops: bool, bound: str, exclude: frozenset = frozenset()):
        self.c = c
        self.tags = tags
        self.exclude = exclude
        self.loops = loops
        self.bound = bound  # what loops run up to: "n" in prog, a constant in helpers
        self.returns_array = False  # h2's returns, early ones too
        self.fresh = 0

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def tag(self, name: str) -> None:
        self.tags[name] += 1

    def ok(self, construct: str) -> bool:
        return construct not in self.exclude

    # scalar expressions -------------------------------------------------------------

    def atom(self, s: Scope) -> str:
        kind = self.c.integer(0, 5)
        if kind <= 2:
            return self.c.choice(SCALARS)
        if kind == 3 and s.items:
            self.tag("loop item")
            return self.c.choice(s.items)
        if kind == 4 and s.counters:
            return f"({self.c.choice(s.counters)} * 0.25)"
        return self.c.choice(("0.5", "1.5", "2.0", "-0.75", "3"))

    def scalar(self, s: Scope, depth: int = 0) -> str:
        def sub():
            return self.scalar(s, depth + 1)

        kind = self.c.integer(0, 17 if depth < 2 else 0)
        if kind == 0:
            return self.atom(s)
        if kind in (1, 2):
            self.tag("arithmetic")
            return f"({sub()} {self.c.choice(('+', '-'))} {sub()})"
        if kind == 3:
            self.tag("arithmetic")
            return f"({sub()} * {sub()})"
        if kind == 4:
            self.tag("division")
            return f"({sub()} / (1.0 + {sub()} ** 2))"
        if kind == 5:
            self.tag("power")
            return f"({sub()} ** {self.c.choice(('2', '3'))})"
        if kind == 6:
            self.tag("math")
            return f"math.{self.c.choice(('sin', 'cos', 'tanh', 'atan'))}({sub()})"
        if kind == 7:
            self.tag("math")
            return f"math.exp(math.sin({sub()}))"
        if kind == 8:
            self.tag("math")
            return f"math.{self.c.choice(('log', 'sqrt'))}(1.0 + {sub()} ** 2)"
        if kind == 9:
            self.tag("conditional expression")
            return f"({sub()} if {self.cond(s, simple=True)} else {sub()})"
        if kind == 10:
            self.tag("abs/min/max")
            if self.c.boolean():
                return f"{self.c.choice(('abs', 'math.fabs'))}({sub()})"
            return f"{self.c.choice(('min', 'max'))}({sub()}, {sub()})"
        if kind == 11 and "h1" in s.helpers:
            if self.c.boolean():
                self.tag("call h1")
                return f"h1({sub()}, {sub()})"
            self.tag("call by keyword")
            return f"h1(b={sub()}, a={sub()})"
        if kind == 12 and self.ok("arrays"):
            return self.reduce(s, depth)
        if kind == 13:
            return self.container_read(s) or f"(-{sub()})"
        if kind == 14 and s.closures:
            name = self.c.choice(s.closures)
            self.tag("closure call" if name.startswith("inner") else "lambda call")
            return f"{name}({sub()})"
        if kind == 15:
            self.tag("numpy on floats")
            if self.c.boolean():
                return f"np.{self.c.choice(('sin', 'tanh', 'cos'))}({sub()})"
            return self.c.choice((f"np.hypot({sub()}, {sub()})", f"np.arctan2({sub()}, 1.5 + np.tanh({sub()}))"))
        if kind == 16 and self.ok("arrays"):
            self.tag("array item")
            return f"{self.c.choice(ARRAYS)}[{self.c.choice(('0', '1', '2', '-1'))}]"
        return f"(-{sub()})"

    def reduce(self, s: Scope, depth: int) -> str:
        """A float from an array."""
        a = self.array(s, depth + 1)
        self.tag("reduction")
        return self.c.choice((
            f"np.sum({a})", f"np.mean({a})", f"np.dot({a}, {self.c.choice(ARRAYS)})", f"np.max({a})",
            f"{a}.sum()", f"float(np.sum({a} * {a}))", f"np.linalg.norm({a})",
        ))

    def container_read(self, s: Scope) -> Optional[str]:
        options = []
        if s.lists:
            options.append(f"{self.c.choice(s.lists)}[{self.c.choice(('0', '1', '-1'))}]")
        if s.dicts:
            options.append(f'{self.c.choice(s.dicts)}["{self.c.choice(("a", "b"))}"]')
        if s.tuples:
            options.append(f"{self.c.choice(s.tuples)}[{self.c.choice(('0', '1'))}]")
        if not options:
            return None
        text = self.c.choice(options)
        self.tag({"L": "list read", "d": "dict read", "t": "tuple read"}[text[0]])
        return text

    # array expressions ---------------------------------------------------------------

    def array(self, s: Scope, depth: int = 0) -> str:
        def sub():
            return self.array(s, depth + 1)

        def num():
            return self.scalar(s, 2)

        kind = self.c.integer(0, 13 if depth < 2 else 0)
        if kind == 0:
            return self.c.choice(ARRAYS)
        if kind == 1:
            self.tag("array arithmetic")
            return self.c.choice((f"({sub()} + {sub()})", f"({sub()} - {num()})", f"({num()} * {sub()})"))
        if kind == 2:
            self.tag("array arithmetic")
            return f"({sub()} * {sub()})"
        if kind == 3:
            self.tag("division")
            return f"({sub()} / (1.0 + {sub()} * {sub()}))"
        if kind == 4:
            self.tag("numpy elementwise")
            return f"np.{self.c.choice(('sin', 'cos', 'tanh', 'arctan'))}({sub()})"
        if kind == 5:
            self.tag("numpy elementwise")
            return f"np.exp(np.sin({sub()}))"
        if kind == 6:
            self.tag("numpy elementwise")
            return f"np.{self.c.choice(('log', 'sqrt'))}(1.0 + {sub()} ** 2)"
        if kind == 7:
            self.tag("maximum/minimum/where")
            other = self.c.choice((num(), sub(), "0.25"))
            return f"np.{self.c.choice(('maximum', 'minimum'))}({sub()}, {other})"
        if kind == 8:
            self.tag("maximum/minimum/where")
            return f"np.where({sub()} > {num()}, {sub()}, {sub()})"
        if kind == 9:
            self.tag("array shapes")
            a = sub()
            options = (f"{a}[::-1]", f"np.roll({a}, 1)", f"(np.cumsum({a}) * 0.3)",
                       f"np.concatenate([{a}[1:], {a}[:1]])") + ((f"np.sort({a})",) if self.ok("np.sort") else ())
            text = self.c.choice(options)
            if text.startswith("np.sort"):
                self.tag("np.sort")
            return text
        if kind == 10 and "h2" in s.helpers:
            self.tag("call h2")
            return f"h2({sub()}, {num()})"
        if kind == 11:
            self.tag("array from floats")
            return self.c.choice((f"np.array([{num()}, {num()}, {num()}])", f"({num()} * np.ones(3))",
                                  f"np.full(3, {num()})"))
        if kind == 12:
            self.tag("array power")
            return f"({sub()} ** 2)"
        self.tag("array arithmetic")
        return f"(-{sub()})"

    # conditions ----------------------------------------------------------------------

    def cond(self, s: Scope, simple: bool = False) -> str:
        op = self.c.choice(("<", ">", "<=", ">="))
        kind = self.c.integer(0, 1 if simple else 4)
        if not self.ok("arrays") and kind in (1, 4):
            kind = 0
        if kind == 0:
            return f"{self.c.choice(SCALARS)} {op} {self.c.choice(SCALARS + ('0.0', '0.5', '-0.5'))}"
        if kind == 1:
            return f"{self.c.choice(ARRAYS)}[{self.c.choice(('0', '1', '2'))}] {op} {self.c.choice(SCALARS + ('0.0',))}"
        if kind == 2:
            return f"{self.scalar(s, 1)} {op} {self.scalar(s, 1)}"
        if kind == 3:
            self.tag("and/or")
            return f"{self.cond(s, True)} {self.c.choice(('and', 'or'))} {self.cond(s, True)}"
        return f"np.sum({self.c.choice(ARRAYS)}) {op} {self.c.choice(SCALARS)}"

    # statements ----------------------------------------------------------------------

    def block(self, depth: int, s: Scope) -> list[str]:
        lines = []
        for _ in range(self.c.integer(1, 2)):
            lines += self.statement(depth, s)
        return [INDENT + line for line in lines]

    def statement(self, depth: int, s: Scope) -> list[str]:
        options = [self.assign, self.assign, self.assign, self.augassign, self.tuple_assign, self.early_return]
        if self.ok("arrays"):
            options += [self.assign_array, self.assign_array]
        if self.ok("array mutation") and self.ok("arrays"):
            options += [self.setitem, self.change_after_a_read]
        if s.lists and self.ok("container mutation"):
            options += [self.list_change]
        if s.dicts and self.ok("container mutation"):
            options += [self.dict_store]
        if s.in_loop:
            options += [self.break_, self.continue_]
        if depth < MAX_DEPTH:
            options += [self.if_, self.if_]
            if self.loops:
                options += [self.while_, self.for_range, self.for_items]
        return self.c.choice(options)(depth, s)

    def damp(self, value: str, s: Scope) -> str:
        if s.in_loop:  # keep loop-carried values bounded
            return f"{self.c.choice(('math.tanh', '0.5 * ', 'math.sin'))}({value})"
        return value

    def assign(self, depth, s):
        return [f"{self.c.choice(SCALARS)} = {self.damp(self.scalar(s), s)}"]

    def assign_array(self, depth, s):
        value = self.array(s)
        if s.in_loop:
            value = f"np.tanh({value})"
        return [f"{self.c.choice(ARRAYS)} = {value}"]

    def augassign(self, depth, s):
        self.tag("augmented assignment")
        if self.c.integer(0, 2) == 0 and self.ok("array mutation") and self.ok("arrays"):
            self.tag("array augmented assignment (in place)")
            target = self.c.choice(ARRAYS)
            op = self.c.choice(("+=", "-=", "*="))
            if op == "*=":
                return [f"{target} *= {self.c.choice(('0.5', '-0.9', 'math.cos(x)', 'np.cos(v)'))}"]
            return [f"{target} {op} {self.c.choice(('0.25 * ', 'np.tanh'))}({self.array(s, 1)})"]
        target = self.c.choice(SCALARS)
        op = self.c.choice(("+=", "-=", "*="))
        if op == "*=":
            return [f"{target} *= {self.c.choice(('0.5', '-0.9', 'math.cos(' + self.c.choice(SCALARS) + ')'))}"]
        return [f"{target} {op} {self.damp(self.scalar(s), s)}"]

    def tuple_assign(self, depth, s):
        self.tag("tuple unpacking")
        a, b = [SCALARS[i] for i in (self.c.integer(0, 2), self.c.integer(0, 2))]
        if a == b and not self.ok("arrays"):
            return [f"{a} = {a} * 0.5"]
        if a == b:
            return [f"{a}, {self.c.choice(ARRAYS)} = {self.c.choice(ARRAYS)}[1] * 0.5, np.sin(u)"]
        if self.c.boolean():
            return [f"{a}, {b} = {b}, {a}"]
        return [f"{a}, {b} = {b} * 0.5, math.sin({a})"]

    def setitem(self, depth, s):
        self.tag("array item assignment")
        target = self.c.choice(ARRAYS)
        return [f"{target} = {target}.copy()" if self.c.boolean() else f"{target} = {target} * 1.0",
                f"{target}[{self.c.choice(('0', '1', '-1'))}] = {self.damp(self.scalar(s, 1), s)}"]

    def change_after_a_read(self, depth, s):
        """A differentiated read of an array (a constant one, a view or a
        list of views of one), whose pullback keeps it, then a change of
        the array in place; or a change, then a nested function that reads
        the array."""
        self.tag("change after a differentiated read")
        a, t = self.c.choice(ARRAYS), self.c.choice(SCALARS)
        change = self.c.choice((f"[{self.c.choice(('0', '1', '-1'))}] = {self.damp(self.scalar(s, 1), s)}",
                                " *= 0.5"))
        kind = self.c.integer(0, 3)
        if kind == 3:  # (a nested function made after the change reads the changed array)
            return [f"{a} = {a} * 1.0", f"{a}{change}", f"gk = lambda r: r * np.sum({a} * {a})",
                    f"{t} = {self.damp(f'{t} + gk(0.5)', s)}"]
        if kind == 0:
            return ["kc = np.linspace(0.5, 1.5, 3)",
                    f"{t} = {self.damp(f'{t} + np.sum(np.sin({a}) * kc)', s)}",
                    f"kc{change}",
                    f"{t} = {self.damp(f'{t} + np.sum({a} * kc)', s)}"]
        read = ("wv = " + a + "[1:]", "np.sum(wv * wv)") if kind == 1 else \
            (f"parts = [{a}[:2], {a}[1:]]", "sum([np.sum(p * p) for p in parts])")
        return [f"{a} = {a} * 1.0", read[0], f"{t} = {self.damp(f'{t} + {read[1]}', s)}", f"{a}{change}"]

    def list_change(self, depth, s):
        name = self.c.choice(s.lists)
        if self.c.boolean():
            self.tag("list append")
            return [f"{name}.append({self.damp(self.scalar(s, 1), s)})"]
        self.tag("list item assignment")
        return [f"{name}[{self.c.choice(('0', '1', '-1'))}] = {self.damp(self.scalar(s, 1), s)}"]

    def dict_store(self, depth, s):
        self.tag("dict item assignment")
        return [f'{self.c.choice(s.dicts)}["{self.c.choice(("a", "b", "c"))}"] = {self.damp(self.scalar(s, 1), s)}']

    def early_return(self, depth, s):
        self.tag("early return")
        return [f"if {self.cond(s)}:", INDENT + f"return {self.result(s)}"]

    def break_(self, depth, s):
        self.tag("break")
        return [f"if {self.cond(s)}:", INDENT + "break"]

    def continue_(self, depth, s):
        self.tag("continue")
        return [f"if {self.cond(s)}:", INDENT + "continue"]

    def if_(self, depth, s):
        self.tag("if")
        lines = [f"if {self.cond(s)}:"] + self.block(depth + 1, s)
        for _ in range(self.c.integer(0, 1)):
            self.tag("elif")
            lines += [f"elif {self.cond(s)}:"] + self.block(depth + 1, s)
        if self.c.boolean():
            self.tag("else")
            lines += ["else:"] + self.block(depth + 1, s)
        return lines

    def loop_else(self, depth, s) -> list[str]:
        if self.c.integer(0, 3) == 0:
            self.tag("loop else")
            return ["else:"] + self.block(depth + 1, s)
        return []

    def while_(self, depth, s):
        self.tag("while")
        k = self.name("k")
        test = f"{k} < {self.c.choice((self.bound, '2', '3'))}"
        if self.c.boolean():
            self.tag("while with a data-dependent condition")
            test += f" and {self.cond(s, simple=True)}"
        inner = dataclasses.replace(s, counters=s.counters + (k,), in_loop=True)
        return [f"{k} = 0", f"while {test}:", INDENT + f"{k} += 1"] + self.block(depth + 1, inner) + \
            self.loop_else(depth, s)

    def for_range(self, depth, s):
        self.tag("for range")
        i = self.name("i")
        count = self.c.choice((f"range({self.bound})", "range(3)", f"range(1, {self.bound} + 1)", "range(2)"))
        inner = dataclasses.replace(s, counters=s.counters + (i,), in_loop=True)
        return [f"for {i} in {count}:"] + self.block(depth + 1, inner) + self.loop_else(depth, s)

    def for_items(self, depth, s):
        e = self.name("e")
        kind = self.c.integer(0, 4)
        if not self.ok("arrays") and kind >= 2 or kind == 0 and not s.lists:
            kind = 1
        if kind == 0:
            self.tag("for over a list")
            header = f"for {e} in {self.c.choice(s.lists)}[:4]:"
            items = (e,)
        elif kind == 1:
            self.tag("for over a display")
            seq = ", ".join(self.c.choice(SCALARS + ("1.5",)) for _ in range(self.c.integer(1, 3)))
            header = f"for {e} in ({seq},):" if self.c.boolean() else f"for {e} in [{seq}]:"
            items = (e,)
        elif kind == 2:
            self.tag("for over an array")
            header = f"for {e} in {self.c.choice(ARRAYS)}:"
            items = (e,)
        elif kind == 3:
            self.tag("enumerate")
            j = self.name("j")
            header = f"for {j}, {e} in enumerate({self.c.choice(ARRAYS)}):"
            items = (e, f"({j} * 0.5)")
        else:
            self.tag("zip")
            f = self.name("f")
            header = f"for {e}, {f} in zip(u, v):"
            items = (e, f)
        inner = dataclasses.replace(s, items=s.items + items, in_loop=True)
        return [header] + self.block(depth + 1, inner) + self.loop_else(depth, s)

    # the function --------------------------------------------------------------------

    def result(self, s: Scope) -> str:
        """A float output mixing the float and the array variables (an
        array, in h2)."""
        if self.returns_array:
            return f"{self.array(s)} * {self.c.choice(('x', 'y', '1.0'))}"
        if not self.ok("arrays"):
            return self.scalar(s)
        return f"{self.scalar(s)} + np.sum({self.array(s, 1)} * {self.c.choice(ARRAYS)})"

    def setup(self, s: Scope) -> tuple[list[str], Scope]:
        """Containers, a closure and a lambda, each defined (or not) at the
        top of the body, so that they exist wherever they are used."""
        lines = []
        if self.c.integer(0, 2) == 0:
            self.tag("list")
            lines.append(f"L = [{self.scalar(s, 1)}, {self.c.choice(SCALARS)}]")
            s = dataclasses.replace(s, lists=("L",))
        if self.c.integer(0, 2) == 0:
            self.tag("dict")
            lines.append(f'd = {{"a": {self.scalar(s, 1)}, "b": {self.c.choice(SCALARS)}}}')
            s = dataclasses.replace(s, dicts=("d",))
        if self.c.integer(0, 3) == 0:
            self.tag("tuple")
            lines.append(f"t = ({self.c.choice(SCALARS)}, {self.scalar(s, 1)})")
            s = dataclasses.replace(s, tuples=("t",))
        if self.c.integer(0, 3) == 0 and self.ok("closure"):
            self.tag("closure")
            body = self.scalar(dataclasses.replace(s, closures=()), 1)
            lines += ["def inner(r):", INDENT + f"return r * {body}"]
            s = dataclasses.replace(s, closures=s.closures + ("inner",))
        if self.c.integer(0, 4) == 0 and self.ok("closure"):
            self.tag("lambda")
            lines.append(f"lam = lambda r: r * {self.c.choice(SCALARS)} + {self.c.choice(('0.5', 'y', 'np.sum(u)') if self.ok('arrays') else ('0.5', 'y'))}")
            s = dataclasses.replace(s, closures=s.closures + ("lam",))
        return lines, s

    def body(self, init: list[str], s: Scope, statements: int) -> list[str]:
        lines, s = self.setup(s)
        lines = init + lines
        for _ in range(statements):
            lines += self.statement(0, s)
        return lines + [f"return {self.result(s)}"]


def indent(lines: list[str]) -> str:
    return "\n".join(INDENT + line for line in lines)


@dataclasses.dataclass
class Program:
    source: str
    tags: Counter


EXCLUDABLE = frozenset({"arrays", "array mutation", "container mutation", "closure", "np.sort"})
"""Constructs a run can leave out (to fuzz the rest while a bug in one of
them is open)."""

ALL_TAGS = (
    "arithmetic", "division", "power", "math", "numpy on floats", "conditional expression", "abs/min/max",
    "and/or", "reduction", "array item", "array arithmetic", "numpy elementwise", "maximum/minimum/where",
    "array shapes", "np.sort", "array from floats", "array power", "augmented assignment",
    "array augmented assignment (in place)", "array item assignment", "tuple unpacking", "tuple", "tuple read",
    "list", "list read", "list append", "list item assignment", "dict", "dict read", "dict item assignment",
    "if", "elif", "else", "while", "while with a data-dependent condition", "for range", "for over a list",
    "for over a display", "for over an array", "enumerate", "zip", "loop item", "break", "continue",
    "loop else", "early return", "closure", "closure call", "lambda", "lambda call", "call h1",
    "call by keyword", "call h2", "h2 calls h1",
)
"""Every construct the generator tags, for the coverage report."""


def write_program(c: Chooser, exclude: frozenset = frozenset()) -> Program:
    tags = Counter()
    arrays = "arrays" not in exclude
    h1 = Writer(c, tags, loops=True, bound="2", exclude=exclude).body(
        ["x, y, z = a, b, a * b"] + (["u = np.array([a, b, 0.5])", "v = np.ones(3) * b"] if arrays else []),
        Scope(), c.integer(1, 2))
    h2_scope = Scope(helpers=("h1",))
    h2_init = ["x, y, z = s, np.sum(w), s * 0.5", "u = w", "v = np.sin(w)"]
    h2 = Writer(c, tags, loops=True, bound="2", exclude=exclude)
    h2.returns_array = True
    h2_lines = h2.body(h2_init, h2_scope, c.integer(1, 2))
    prog = Writer(c, tags, loops=True, bound="n", exclude=exclude).body(
        ["x, y = p0, p1", f"z = {c.choice(('p0 * p1', 'math.sin(p0)') + (('np.sum(q)',) if arrays else ()))}"]
        + (["u = q", f"v = {c.choice(('np.cos(q) * p1', 'q * q', 'np.array([p0, p1, p0 * p1])'))}"] if arrays else []),
        Scope(helpers=("h1", "h2") if arrays else ("h1",)), c.integer(2, 5))
    source = (
        "import math\n\nimport numpy as np\n\n\n"
        f"def h1(a, b):\n{indent(h1)}\n\n\n"
        f"def h2(w, s):\n{indent(h2_lines)}\n\n\n"
        f"def prog(p0, p1, q, n):\n{indent(prog)}\n"
    )
    if "h1(" in h2_lines[-1] or any("h1(" in line for line in h2_lines):
        tags["h2 calls h1"] += 1
    return Program(source, tags)


# -- checking --------------------------------------------------------------------------

POINTS = [
    (0.37, -1.21, np.array([0.83, -0.4, 1.1]), 2),
    (-0.64, 0.52, np.array([1.47, 0.2, -0.9]), 3),
]
DIRECTION = (0.6, -0.3, np.array([0.5, -0.8, 0.25]))
# (a program may fail as plain Python at some points: it divides by zero there,
# or multiplies an integer array in place by a float)
UFUNC_TYPE_ERROR = (getattr(np, "_core", None) or np.core)._exceptions.UFuncTypeError
PLAIN_FAILURES = (OverflowError, ZeroDivisionError, ValueError, FloatingPointError, IndexError, KeyError,
                  UFUNC_TYPE_ERROR)


def load(directory: Path, source: str):
    """Write ``source`` to a module file and import it (zygote_py reads
    the source of its functions like any user's)."""
    name = "zpy_fuzz_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def fresh(args: tuple) -> tuple:
    """Copies of the arguments: programs may change ``q`` in place."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def coordinates(args: tuple) -> list[tuple[int, Optional[int]]]:
    """(argument, element) for every float the gradient must cover."""
    return [(0, None), (1, None)] + [(2, k) for k in range(args[2].size)]


def moved(args: tuple, where: tuple, h: float) -> tuple:
    i, k = where
    out = list(fresh(args))
    if k is None:
        out[i] = out[i] + h
    else:
        out[i][k] += h
    return tuple(out)


def along(args: tuple, direction: tuple, h: float) -> tuple:
    return (args[0] + h * direction[0], args[1] + h * direction[1], args[2] + h * direction[2], args[3])


def plain(f: Callable, args: tuple) -> Optional[float]:
    """``f(*args)`` as a float, or ``None`` where it fails or leaves the
    range finite differences can be trusted in."""
    try:
        y = f(*fresh(args))
    except PLAIN_FAILURES:
        return None
    if not isinstance(y, (float, np.floating)) or not math.isfinite(y) or abs(y) > 1e6:
        return None
    return y


def smooth_difference(f: Callable, shift: Callable[[float], tuple]) -> Optional[tuple[float, float]]:
    """The central difference of ``f`` along ``shift`` (step h gives
    the arguments moved by h) and its error bound, or ``None`` where ``f``
    is not smooth there."""
    found = []
    for h in (1e-6, 1e-5):
        hi, lo = plain(f, shift(h)), plain(f, shift(-h))
        if hi is None or lo is None:
            return None
        found.append(((hi - lo) / (2 * h), 4e-16 * (abs(hi) + abs(lo)) / h))
    (a, ra), (b, rb) = found
    gap = abs(a - b)  # b's truncation error is ~100 times a's
    if gap > 1e-4 * max(abs(a), abs(b), 1.0) + ra + rb:
        return None
    return a, gap + ra + rb


def agrees(got, slope: float, error: float) -> bool:
    got = 0.0 if got is None else float(got)
    return abs(got - slope) <= 1e-6 * max(abs(slope), abs(got)) + 10 * error + 1e-9


@dataclasses.dataclass
class Outcome:
    """What checking one program found: points checked in each mode,
    points skipped (the plain program fails or is not smooth there),
    modes refused (a zygote_py error naming the construct) and
    disagreements (each a message; any one is a bug)."""

    checked: int = 0
    checked_jvp: int = 0
    skipped: int = 0
    refused: list = dataclasses.field(default_factory=list)
    disagreements: list = dataclasses.field(default_factory=list)
    gradients: list = dataclasses.field(default_factory=list)  # (point, zygote_py's gradients) checked
    checked_autograd: int = 0  # points where autograd ran the program too (see compare_with_autograd)
    autograd_disagreements: list = dataclasses.field(default_factory=list)


MODES = ("gradient", "jvp")


def check_program(module, points=POINTS, direction=DIRECTION, modes=MODES) -> Outcome:
    """Check ``module.prog`` at ``points``, by ``gradient`` and by ``jvp``
    along ``direction`` (or the one of ``modes``)."""
    out = Outcome()
    prog = module.prog
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for args in points:
            _check_point(prog, args, direction, out, modes)
    return out


def _check_point(prog, args, direction, out: Outcome, modes) -> None:
    y = plain(prog, args)
    if y is None:
        out.skipped += 1
        return
    slopes = [smooth_difference(prog, lambda h, w=w: moved(args, w, h)) for w in coordinates(args)]
    directional = smooth_difference(prog, lambda h: along(args, direction, h))
    if any(s is None for s in slopes) or directional is None:
        out.skipped += 1
        return
    if "gradient" in modes:
        _check_gradient(prog, args, y, slopes, out)
    if "jvp" in modes:
        _check_jvp(prog, args, y, direction, directional, out)


def _check_gradient(prog, args, y, slopes, out: Outcome) -> None:
    try:
        value, grads = zpy.value_and_gradient(prog, *fresh(args))
    except zpy.ZygoteError as e:
        out.refused.append(("gradient", type(e).__name__, e.message))
        grads = None
    except Exception as e:  # noqa: BLE001  (a crash is a finding)
        out.disagreements.append(f"gradient raised {type(e).__name__}: {e} at {args}")
        grads = None
    if grads is not None:
        out.checked += 1
        out.gradients.append((args, grads))
        if value != y:
            out.disagreements.append(f"gradient's value {value!r} != plain {y!r} at {args}")
        if len(grads) != 4 or grads[3] is not None:
            out.disagreements.append(f"gradients {grads!r}: expected 4 with None for n, at {args}")
        else:
            for (i, k), (slope, error) in zip(coordinates(args), slopes):
                g = grads[i] if k is None or grads[i] is None else grads[i][k]
                if not agrees(g, slope, error):
                    out.disagreements.append(
                        f"gradient of argument {i}{'' if k is None else f'[{k}]'}: {g!r}, finite difference "
                        f"{slope!r} at {args}")


def _check_jvp(prog, args, y, direction, directional, out: Outcome) -> None:
    try:
        value, tangent = zpy.jvp(prog, fresh(args), (*fresh(direction), None))
    except zpy.ZygoteError as e:
        out.refused.append(("jvp", type(e).__name__, e.message))
        return
    except Exception as e:  # noqa: BLE001
        out.disagreements.append(f"jvp raised {type(e).__name__}: {e} at {args}")
        return
    out.checked_jvp += 1
    if value != y:
        out.disagreements.append(f"jvp's value {value!r} != plain {y!r} at {args}")
    slope, error = directional
    if not agrees(tangent, slope, error):
        out.disagreements.append(f"jvp tangent {tangent!r}, finite difference {slope!r} at {args}")


def check_source(directory: Path, source: str, modes=MODES) -> Outcome:
    return check_program(load(directory, source), modes=modes)


def compare_with_autograd(source: str, out: Outcome) -> None:
    """At each point where ``out`` checked zygote_py's gradient against
    finite differences, compare it with autograd's too, when autograd is
    installed and can run the program (it cannot assign into arrays);
    counted in ``out.checked_autograd``, differences in
    ``out.autograd_disagreements``."""
    for args, grads in out.gradients:
        theirs = autograd_gradient(source, args)
        if theirs is None:
            return
        out.checked_autograd += 1
        for (i, k) in coordinates(args):
            ours = grads[i] if k is None or grads[i] is None else grads[i][k]
            ag = theirs[i] if k is None else theirs[i][k]
            ours, ag = 0.0 if ours is None else float(ours), float(ag)
            if abs(ours - ag) > 1e-7 * max(abs(ours), abs(ag), 1.0):
                out.autograd_disagreements.append(
                    f"gradient of argument {i}{'' if k is None else f'[{k}]'}: {ours!r}, autograd {ag!r} at {args}")


def autograd_gradient(source: str, args: tuple) -> Optional[tuple]:
    """autograd's gradient of the program's ``prog`` with respect to ``p0,
    p1, q`` at ``args``, its ``np`` read as ``autograd.numpy`` and its
    ``math`` functions as their ``autograd.numpy`` versions; ``None`` when
    autograd is not installed or cannot run the program, or runs another
    one (its value differs from the plain program's: its arrays are
    immutable, so ``u -= v`` rebinds ``u`` instead of changing the array
    that other names hold)."""
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    namespace: dict = {"__name__": "zpy_fuzz_autograd"}
    try:
        exec(compile(source, "<fuzz program for autograd>", "exec"), namespace)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = namespace["prog"](*fresh(args))
        namespace["np"] = anp
        namespace["math"] = types.SimpleNamespace(
            sin=anp.sin, cos=anp.cos, tanh=anp.tanh, atan=anp.arctan, exp=anp.exp, log=anp.log, sqrt=anp.sqrt,
            fabs=anp.abs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grads = []
            for i in range(3):
                value, g = autograd.value_and_grad(namespace["prog"], i)(*fresh(args))
                if not math.isclose(value, y, rel_tol=1e-12, abs_tol=1e-12):
                    return None
                grads.append(g)
            return tuple(grads)
    except Exception:  # noqa: BLE001  (what autograd cannot differentiate: assignment into arrays...)
        return None
