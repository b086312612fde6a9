"""Random structured programs survive the round trip.

Hypothesis writes a function ``prog(a, b, c)`` as source text: nested
``if``/``elif``/``else``, ``while`` loops bounded by a counter, ``for`` over
``range(k)``, ``break``/``continue``/``return`` inside loops,
``try``/``except``/``else``/``finally`` with raises of a custom exception and
division by zero, plain and augmented assignments over a few int/float
variables, ``and``/``or``/``not`` and chained comparisons, conditional
expressions. The text is written to a ``.py`` file and imported, so that
``inspect`` finds the source like for any user function; the round-tripped
function must then behave like the original on several inputs.

Every program terminates: each ``while`` increments its own counter first
thing in its body, and ``for`` loops run over ``range`` of a small constant.
Products always have a constant factor, so integers grow linearly in bits.
"""
import hashlib
import importlib.util
import re
import sys
from typing import Callable

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from zygote_py import roundtrip

from .harness import check_same

VARIABLES = ("x", "y", "z")
MAX_DEPTH = 3
INDENT = "    "

PRELUDE = '''\
class Boom(Exception):
    pass


def prog(a, b, c):
    x = a
    y = b
    z = c
'''

_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class _Writer:
    """Draws one program, statement by statement.

    ``loop_vars`` are the ``for`` indices in scope, ``in_loop`` allows
    ``break``/``continue``, ``in_handler`` allows a bare ``raise``.
    """

    def __init__(self, draw: Callable):
        self.draw = draw
        self.fresh = 0

    def choose(self, options):
        return self.draw(st.sampled_from(options))

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # expressions --------------------------------------------------------

    def atom(self, loop_vars: tuple) -> str:
        kind = self.draw(st.integers(0, 3))
        if kind == 0:
            return self.choose(VARIABLES + loop_vars)
        if kind == 1:
            return self.choose(("0", "1", "2", "3", "-1"))
        if kind == 2:
            return self.choose(("0.5", "-1.5", "2.0", "0.0"))
        return self.choose(VARIABLES)

    def expr(self, loop_vars: tuple, depth: int = 0) -> str:
        def sub():
            return self.expr(loop_vars, depth + 1)

        kind = self.draw(st.integers(0, 6 if depth < 2 else 0))
        if kind == 0:
            return self.atom(loop_vars)
        if kind == 1:
            return f"({sub()} {self.choose(('+', '-'))} {sub()})"
        if kind == 2:
            factor = self.choose(("2", "-1", "0.5", "3"))
            return f"({sub()} * {factor})"
        if kind == 3:
            op = self.choose(("/", "//", "%"))
            return f"({sub()} {op} {self.divisor(loop_vars, depth)})"
        if kind == 4:
            test = self.cond(loop_vars, depth + 1)
            return f"({sub()} if {test} else {sub()})"
        if kind == 5:
            return f"({sub()} {self.choose(('and', 'or'))} {sub()})"
        return f"(-{sub()})"

    def divisor(self, loop_vars: tuple, depth: int) -> str:
        """Mostly a variable, so that whether a division fails depends on
        the inputs rather than ending most programs at their first
        statement."""
        kind = self.draw(st.integers(0, 2))
        if kind == 0:
            return self.choose(VARIABLES + loop_vars)
        if kind == 1:
            return self.choose(("2", "3", "-1.5", "0.5"))
        return self.expr(loop_vars, depth + 1)

    def cond(self, loop_vars: tuple, depth: int = 0) -> str:
        def sub():
            return self.expr(loop_vars, depth + 1)

        kind = self.draw(st.integers(0, 5 if depth < 2 else 0))
        if kind == 0:
            op = self.choose(("<", "<=", "==", "!=", ">", ">="))
            return f"{sub()} {op} {sub()}"
        if kind == 1:
            return f"{sub()} < {sub()} <= {sub()}"
        if kind == 2:
            return f"not ({self.cond(loop_vars, depth + 1)})"
        if kind in (3, 4):
            op = "and" if kind == 3 else "or"
            left = self.cond(loop_vars, depth + 1)
            right = self.cond(loop_vars, depth + 1)
            return f"({left}) {op} ({right})"
        return sub()

    # statements ---------------------------------------------------------

    def block(self, depth: int, loop_vars: tuple, in_loop: bool,
              in_handler: bool) -> list:
        """One to three statements, as indented lines."""
        count = self.draw(st.integers(1, 3 if depth < MAX_DEPTH else 2))
        lines = []
        for _ in range(count):
            lines += self.statement(depth, loop_vars, in_loop, in_handler)
        return [INDENT + line for line in lines]

    def statement(self, depth, loop_vars, in_loop, in_handler) -> list:
        # Assignments weigh more than exits, so that most statements run.
        simple = [self.assign, self.augassign, self.augassign, self.assign,
                  self.augassign, self.ret, self.raise_]
        if in_loop:
            simple += [self.break_, self.continue_]
        if in_handler:
            simple.append(self.reraise)
        compound = [self.if_, self.while_, self.for_, self.try_]
        options = simple + (compound if depth < MAX_DEPTH else [])
        make = options[self.draw(st.integers(0, len(options) - 1))]
        return make(depth, loop_vars, in_loop, in_handler)

    def assign(self, depth, loop_vars, in_loop, in_handler):
        target = self.choose(VARIABLES + ("t",))
        return [f"{target} = {self.expr(loop_vars)}"]

    def augassign(self, depth, loop_vars, in_loop, in_handler):
        target = self.choose(VARIABLES)
        op = self.choose(("+=", "-=", "*=", "/=", "//=", "%="))
        value = (self.choose(("2", "-1", "0.5")) if op == "*="
                 else self.expr(loop_vars))
        return [f"{target} {op} {value}"]

    def ret(self, depth, loop_vars, in_loop, in_handler):
        return [f"if {self.cond(loop_vars)}:", INDENT + "return x, y, z"]

    def raise_(self, depth, loop_vars, in_loop, in_handler):
        return [f"if {self.cond(loop_vars)}:",
                INDENT + f"raise Boom({self.expr(loop_vars)})"]

    def divide(self, depth, loop_vars, in_loop, in_handler):
        target = self.choose(VARIABLES)
        op = self.choose(("/", "//", "%"))
        return [f"{target} = {self.expr(loop_vars)} {op} "
                f"{self.choose(VARIABLES + loop_vars)}"]

    def reraise(self, depth, loop_vars, in_loop, in_handler):
        return [f"if {self.cond(loop_vars)}:", INDENT + "raise"]

    def break_(self, depth, loop_vars, in_loop, in_handler):
        return [f"if {self.cond(loop_vars)}:", INDENT + "break"]

    def continue_(self, depth, loop_vars, in_loop, in_handler):
        return [f"if {self.cond(loop_vars)}:", INDENT + "continue"]

    def if_(self, depth, loop_vars, in_loop, in_handler):
        def body():
            return self.block(depth + 1, loop_vars, in_loop, in_handler)

        lines = [f"if {self.cond(loop_vars)}:"] + body()
        for _ in range(self.draw(st.integers(0, 2))):
            lines += [f"elif {self.cond(loop_vars)}:"] + body()
        if self.draw(st.booleans()):
            lines += ["else:"] + body()
        return lines

    def while_(self, depth, loop_vars, in_loop, in_handler):
        counter = self.name("w")
        # Hypothesis leans towards the first option; make it a bound that
        # lets the loop body run more than once.
        bound = self.choose((3, 1, 2, 4))
        test = f"{counter} < {bound}"
        if self.draw(st.booleans()):
            test += f" and ({self.cond(loop_vars)})"
        lines = [f"{counter} = 0", f"while {test}:",
                 INDENT + f"{counter} += 1"]
        lines += self.block(depth + 1, loop_vars, True, in_handler)
        if self.draw(st.booleans()):
            lines += ["else:"] + self.block(
                depth + 1, loop_vars, in_loop, in_handler)
        return lines

    def for_(self, depth, loop_vars, in_loop, in_handler):
        index = self.name("i")
        lines = [f"for {index} in range({self.choose((2, 3, 0, 1))}):"]
        lines += self.block(depth + 1, loop_vars + (index,), True, in_handler)
        if self.draw(st.booleans()):
            lines += ["else:"] + self.block(
                depth + 1, loop_vars, in_loop, in_handler)
        return lines

    def try_(self, depth, loop_vars, in_loop, in_handler):
        def body(handler):
            return self.block(depth + 1, loop_vars, in_loop, handler)

        # Start the body with a statement that may raise, so that the
        # handlers run for some inputs.
        risky = self.choose((self.raise_, self.divide))
        lines = ["try:"] + [INDENT + line for line in risky(
            depth + 1, loop_vars, in_loop, in_handler)] + body(in_handler)
        handlers = 0
        if self.draw(st.booleans()):
            lines += [f"except Boom as {self.name('e')}:"] + body(True)
            handlers += 1
        if self.draw(st.booleans()):
            lines += ["except ZeroDivisionError:"] + body(True)
            handlers += 1
        if handlers and self.draw(st.booleans()):
            lines += ["else:"] + body(in_handler)
        if not handlers or self.draw(st.booleans()):
            lines += ["finally:"] + body(in_handler)
        return lines


@st.composite
def programs(draw) -> str:
    """The source text of a module defining ``Boom`` and ``prog``.

    ``t`` is only ever assigned in the body; if it is, the final return
    reads it, so that a path that skips every assignment must raise
    ``UnboundLocalError``."""
    body = _Writer(draw).block(0, (), False, False)
    result = "x, y, z, t" if any(re.search(r"\bt = ", line)
                                 for line in body) else "x, y, z"
    return PRELUDE + "\n".join(body) + f"\n{INDENT}return {result}\n"


# Every program runs on these, so that even the simplest drawn inputs do not
# leave its branches unexplored; hypothesis adds two more.
FIXED_INPUTS = [(1, -2, 3), (0.5, 0, -1.5), (7, 2.0, 0), (-1, 3, 0.5)]
NUMBERS = st.sampled_from((0, 1, -2, 3, 7, 0.5, -1.5, 2.0))
INPUTS = st.lists(st.tuples(NUMBERS, NUMBERS, NUMBERS), min_size=2,
                  max_size=2, unique=True)


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("random_programs")


def _load(directory, source: str):
    """Import ``source`` from a file of its own, as a user module would be
    (unique name, so that ``linecache`` never serves a stale file)."""
    name = "rt_prog_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@_SETTINGS
@given(source=programs(), inputs=INPUTS)
def test_random_program_roundtrips(program_dir, source, inputs):
    note(source)
    module = _load(program_dir, source)
    try:
        f = module.prog
        g = roundtrip(f)
        for args in FIXED_INPUTS + inputs:
            check_same(f, g, args)
    finally:
        del sys.modules[module.__name__]


# The generator must actually produce what the round trip is tested on.
CONSTRUCTS = {
    "elif": r"\belif ",
    "else of if": r"^( *)if .*:\n(\1 .*\n)+\1else:",
    "while": r"\bwhile ",
    "while with else": r"^( *)while .*:\n(\1 .*\n)+\1else:",
    "for": r"\bfor i\d+ in range",
    "for with else": r"^( *)for .*:\n(\1 .*\n)+\1else:",
    "break": r"\bbreak\b",
    "continue": r"\bcontinue\b",
    "return inside a loop": r"^( *)(for|while) .*:\n(\1 .*\n)*\1 +return ",
    "try/except Boom": r"except Boom as",
    "except ZeroDivisionError": r"except ZeroDivisionError",
    "try/else": r"^( *)except .*:\n(\1 .*\n)+\1else:",
    "finally": r"\bfinally:",
    "raise Boom": r"raise Boom\(",
    "bare raise": r"raise\n",
    "augmented assignment": r"[xyz] (\+|-|\*|/|//|%)= ",
    "assignment of t": r"\bt = ",
    "unbound t at the end": r"return x, y, z, t\n$",
    "and": r"\) and \(",
    "or": r"\) or \(",
    "not": r"not \(",
    "chained comparison": r" < .* <= ",
    "conditional expression": r" if .* else ",
    "division": r" (/|//|%) ",
}


def test_generator_produces_every_construct():
    patterns = {name: re.compile(regex, re.MULTILINE)
                for name, regex in CONSTRUCTS.items()}
    seen = set()

    @settings(_SETTINGS, max_examples=300, phases=[Phase.generate])
    @given(programs())
    def collect(source):
        seen.update(name for name, pattern in patterns.items()
                    if pattern.search(source))

    collect()
    assert set(CONSTRUCTS) - seen == set()
