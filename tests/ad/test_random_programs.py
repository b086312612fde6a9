"""Random programs with branches and loops, differentiated and checked
against central finite differences.

Hypothesis writes a module with a function ``prog(p0, ..., n)`` over one to
three float parameters and, in the loop test, an int loop count ``n``, and
a function ``helper(a, b)`` that ``prog`` may call (positionally or by
keyword). Their bodies assign to the float variables ``x``, ``y``, ``z``
with ``+ - * /``, small integer powers, ``math.sin/cos/exp/tanh/log/sqrt``,
``abs``/``min``/``max``, conditional expressions and tuple assignments,
branch on comparisons of those variables (so which branch runs depends on
the inputs), and in the loop test also run ``while`` loops bounded by a
counter (optionally with a data-dependent second condition), ``for`` loops
over ``range`` and over tuples or lists of the variables, with
``break``/``continue``/``return`` under data-dependent conditions and
loop ``else`` clauses. The text is written to a ``.py`` file and imported,
so that zygote_py reads its source like any user function's.

Values stay bounded by construction (divisions by ``1 + e*e``, logs of
``1 + e*e``, ``exp`` of a sine, loop updates that damp), and a program
that still overflows at a test point is not checked there. A point is
skipped where the function is not smooth around it — two finite
differences with steps 1e-6 and 1e-5 disagree — since a branch boundary is
then within reach of the step. Everywhere else the gradient must agree
with the finite difference, the forward value must be exactly the plain
function's value, and ``n`` must get no gradient.
"""
import hashlib
import importlib.util
import math
import sys
from typing import Callable

import pytest
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

import zygote_py as zpy

from .fdcheck import central_difference, time_limit

VARIABLES = ("x", "y", "z")
INDENT = "    "
MAX_DEPTH = 2

# No shrinking: with several distinct failures it runs for minutes, and the
# failing program is printed as drawn (``note``), ready to cut down by hand.
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


class Writer:
    """Draws one program's body, statement by statement.

    ``loops`` allows ``while``/``for``/``break``/``continue``; ``calls``
    allows calls of the module's ``helper``; ``in_loop`` says whether
    ``break``/``continue`` are legal here; ``counters`` names the loop
    counters in scope (ints, readable in expressions).
    """

    def __init__(self, draw: Callable, loops: bool, calls: bool):
        self.draw = draw
        self.loops = loops
        self.calls = calls
        self.fresh = 0

    def choose(self, options):
        return self.draw(st.sampled_from(options))

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # expressions --------------------------------------------------------------------

    def atom(self, counters: tuple) -> str:
        kind = self.draw(st.integers(0, 4))
        if kind <= 2:
            return self.choose(VARIABLES)
        if kind == 3 or not counters:
            return self.choose(("0.5", "1.5", "2.0", "-0.75", "3"))
        return f"({self.choose(counters)} * 0.25)"

    def expr(self, counters: tuple, depth: int = 0) -> str:
        def sub():
            return self.expr(counters, depth + 1)

        kind = self.draw(st.integers(0, 13 if depth < 2 else 0))
        if kind == 0:
            return self.atom(counters)
        if kind in (1, 2):
            return f"({sub()} {self.choose(('+', '-'))} {sub()})"
        if kind == 3:
            return f"({sub()} * {sub()})"
        if kind == 4:
            return f"({sub()} / (1.0 + {sub()} ** 2))"
        if kind == 5:
            return f"({sub()} ** {self.choose(('2', '3'))})"
        if kind == 6:
            fn = self.choose(("sin", "cos", "tanh"))
            return f"math.{fn}({sub()})"
        if kind == 7:
            return f"math.exp(math.sin({sub()}))"
        if kind == 8:
            fn = self.choose(("log", "sqrt"))
            return f"math.{fn}(1.0 + {sub()} ** 2)"
        if kind == 9:
            return f"({sub()} if {self.cond_simple()} else {sub()})"
        if kind == 10:
            return f"{self.choose(('abs', 'math.fabs'))}({sub()})"
        if kind == 11:
            return f"{self.choose(('min', 'max'))}({sub()}, {sub()})"
        if kind == 12 and self.calls:
            if self.draw(st.booleans()):
                return f"helper({sub()}, {sub()})"
            return f"helper(b={sub()}, a={sub()})"
        return f"(-{sub()})"

    def cond(self, counters: tuple) -> str:
        kind = self.draw(st.integers(0, 3))
        left = self.choose(VARIABLES)
        op = self.choose(("<", ">", "<=", ">="))
        if kind == 0:
            return f"{left} {op} {self.choose(VARIABLES)}"
        if kind == 1:
            return f"{left} {op} {self.choose(('0.0', '0.5', '-0.5', '1.0'))}"
        if kind == 2:
            return f"{self.expr(counters, 1)} {op} {self.expr(counters, 1)}"
        joiner = self.choose(("and", "or"))
        return f"{self.cond_simple()} {joiner} {self.cond_simple()}"

    def cond_simple(self) -> str:
        return f"{self.choose(VARIABLES)} {self.choose(('<', '>'))} {self.choose(VARIABLES + ('0.0', '1.0'))}"

    # statements ---------------------------------------------------------------------

    def block(self, depth: int, counters: tuple, in_loop: bool) -> list[str]:
        lines = []
        for _ in range(self.draw(st.integers(1, 2))):
            lines += self.statement(depth, counters, in_loop)
        return [INDENT + line for line in lines]

    def statement(self, depth: int, counters: tuple, in_loop: bool) -> list[str]:
        # assignments weigh most, so that most programs compute something
        options = [self.assign, self.assign, self.assign, self.augassign, self.swap, self.early_return]
        if in_loop:
            options += [self.break_, self.continue_]
        if depth < MAX_DEPTH:
            options += [self.if_, self.if_]
            if self.loops:
                options += [self.while_, self.for_, self.for_items]
        make = options[self.draw(st.integers(0, len(options) - 1))]
        return make(depth, counters, in_loop)

    def assign(self, depth, counters, in_loop):
        target = self.choose(VARIABLES)
        value = self.expr(counters)
        if in_loop:  # keep loop-carried values bounded
            return [f"{target} = {self.choose(('math.tanh', '0.5 * ', 'math.sin'))}({value})"]
        return [f"{target} = {value}"]

    def augassign(self, depth, counters, in_loop):
        target = self.choose(VARIABLES)
        op = self.choose(("+=", "-=", "*="))
        if op == "*=":
            return [f"{target} *= {self.choose(('0.5', '-0.9', 'math.cos(' + self.choose(VARIABLES) + ')'))}"]
        return [f"{target} {op} {self.expr(counters)}"]

    def swap(self, depth, counters, in_loop):
        a, b = self.draw(st.permutations(VARIABLES))[:2]
        if self.draw(st.booleans()):
            return [f"{a}, {b} = {b}, {a}"]
        return [f"{a}, {b} = {b} * 0.5, math.sin({a})"]

    def early_return(self, depth, counters, in_loop):
        return [f"if {self.cond(counters)}:", INDENT + f"return {self.expr(counters)}"]

    def break_(self, depth, counters, in_loop):
        return [f"if {self.cond(counters)}:", INDENT + "break"]

    def continue_(self, depth, counters, in_loop):
        return [f"if {self.cond(counters)}:", INDENT + "continue"]

    def if_(self, depth, counters, in_loop):
        lines = [f"if {self.cond(counters)}:"] + self.block(depth + 1, counters, in_loop)
        for _ in range(self.draw(st.integers(0, 1))):
            lines += [f"elif {self.cond(counters)}:"] + self.block(depth + 1, counters, in_loop)
        if self.draw(st.booleans()):
            lines += ["else:"] + self.block(depth + 1, counters, in_loop)
        return lines

    def while_(self, depth, counters, in_loop):
        k = self.name("k")
        bound = self.choose(("n", "2", "3", "4"))
        test = f"{k} < {bound}"
        if self.draw(st.booleans()):
            test += f" and {self.cond_simple()}"
        body = self.block(depth + 1, counters + (k,), True)
        lines = [f"{k} = 0", f"while {test}:", INDENT + f"{k} += 1"] + body
        if self.draw(st.integers(0, 3)) == 0:
            lines += ["else:"] + self.block(depth + 1, counters, in_loop)
        return lines

    def for_items(self, depth, counters, in_loop):
        """A loop over a tuple or list of the variables (their gradients
        flow through the container)."""
        c = self.name("c")
        items = ", ".join(self.draw(st.lists(st.sampled_from(VARIABLES + ("1.5",)), min_size=1, max_size=3)))
        container = f"({items},)" if self.draw(st.booleans()) else f"[{items}]"
        return [f"for {c} in {container}:"] + self.block(depth + 1, counters + (c,), True)

    def for_(self, depth, counters, in_loop):
        i = self.name("i")
        count = self.choose(("range(n)", "range(3)", "range(1, n + 1)", "range(2)"))
        body = self.block(depth + 1, counters + (i,), True)
        lines = [f"for {i} in {count}:"] + body
        if self.draw(st.integers(0, 3)) == 0:
            lines += ["else:"] + self.block(depth + 1, counters, in_loop)
        return lines


def function(draw, name: str, params: list[str], init: dict, loops: bool, calls: bool) -> str:
    writer = Writer(draw, loops, calls)
    body = [f"{v} = {init[v]}" for v in VARIABLES]
    for _ in range(draw(st.integers(1, 3))):
        body += writer.statement(0, (), False)
    body.append(f"return {writer.expr(())}")
    return "def {}({}):\n{}\n".format(name, ", ".join(params), "\n".join(INDENT + line for line in body))


@st.composite
def programs(draw, loops: bool):
    """``(source, float parameter count)`` of a module with a function
    ``prog`` and a function ``helper(a, b)`` that ``prog`` may call."""
    k = draw(st.integers(1, 3))
    params = [f"p{i}" for i in range(k)] + (["n"] if loops else [])
    init = {
        "x": "p0",
        "y": "p1" if k > 1 else "0.5 * p0 + 1.0",
        "z": "p2" if k > 2 else ("p0 * p1" if k > 1 else "math.sin(p0)"),
    }
    helper_init = {"x": "a", "y": "b", "z": "a * b"}
    helper_params = ["a", "b"] + (["n"] if loops else [])
    helper = function(draw, "helper", helper_params, helper_init, loops, calls=False)
    if loops:  # the helper's loops run as many times as the caller's
        helper = helper.replace("def helper(a, b, n):", "def helper(a, b, n=2):")
    prog = function(draw, "prog", params, init, loops, calls=True)
    return f"import math\n\n\n{helper}\n\n{prog}", k


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ad_random_programs")


def load(directory, source: str) -> Callable:
    """Write ``source`` to a module file and import its ``prog``."""
    name = "zpy_random_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.prog


def plain_value(f: Callable, args: tuple):
    """``f(*args)``, or ``None`` where it fails or leaves the range the
    finite differences can be trusted in."""
    try:
        y = f(*args)
    except (OverflowError, ZeroDivisionError, ValueError):
        return None
    if not isinstance(y, float) or not math.isfinite(y) or abs(y) > 1e6:
        return None
    return y


def smooth_slope(f: Callable, args: tuple, i: int):
    """The central difference along argument ``i`` and its error bound, or
    ``None`` where ``f`` is not smooth around ``args``."""
    try:
        a, ra = central_difference(f, args, i, 1e-6)
        b, rb = central_difference(f, args, i, 1e-5)
    except (OverflowError, ZeroDivisionError, ValueError):
        return None
    # b's truncation error is ~100 times a's: their gap bounds a's error
    gap = abs(a - b)
    if gap > 1e-4 * max(abs(a), abs(b), 1.0) + ra + rb:
        return None
    return a, gap + ra + rb


def check_program(directory, source: str, k: int, points: list[tuple]) -> int:
    """Check ``prog`` at each point it is smooth at; the number checked."""
    note(source)
    prog = load(directory, source)
    checked = 0
    for args in points:
        y = plain_value(prog, args)
        if y is None:
            continue
        slopes = [smooth_slope(prog, args, i) for i in range(k)]
        if any(s is None for s in slopes):
            continue
        note(f"at {args}")
        with time_limit(20):
            value, grads = zpy.value_and_gradient(prog, *args)
        assert value == y
        assert len(grads) == len(args)
        if len(args) > k:
            assert grads[k] is None
        for i, (slope, error) in enumerate(slopes):
            g = 0.0 if grads[i] is None else grads[i]
            assert abs(g - slope) <= 1e-6 * max(abs(slope), abs(g)) + 10 * error + 1e-9, (i, g, slope)
        checked += 1
    return checked


POINTS = [(0.37, -1.21, 0.83), (-0.64, 0.52, 1.47)]


@SETTINGS
@given(programs(loops=False))
def test_random_branching_programs(program_dir, program):
    source, k = program
    points = [p[:k] for p in POINTS]
    assume(check_program(program_dir, source, k, points) > 0)


@SETTINGS
@given(programs(loops=True), st.integers(0, 4))
def test_random_loop_programs(program_dir, program, n):
    source, k = program
    points = [p[:k] + (n,) for p in POINTS]
    assume(check_program(program_dir, source, k, points) > 0)
