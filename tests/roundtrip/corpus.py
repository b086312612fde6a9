"""The round-trip corpus: plain functions exercising Python's constructs.

Every public module-level function (and a few methods) is registered with
:func:`case` together with the argument tuples to call it on, including
inputs that make it raise and inputs it mutates. A recompiled function must
behave exactly like the original on each of them (see ``harness.py``).

Names starting with an underscore are helpers the corpus functions call;
they are not round-tripped themselves.
"""
import io
import math

import numpy as np

from .harness import as_args, call


class Case:
    """A function and the inputs to call it on."""

    def __init__(self, func, inputs):
        self.func = func
        self.inputs = inputs

    def __repr__(self):
        return f"Case({self.func.__qualname__}, {len(self.inputs)} inputs)"


CASES = []


def case(*inputs):
    """Register the decorated function with ``inputs``: tuples of positional
    arguments, or :func:`call` values for keywords. The function is returned
    unchanged. A function whose qualified name is already registered is not
    added again, so re-running a decorator (as a recompiler that keeps it
    might) cannot change the corpus."""
    arg_list = [as_args(a) for a in inputs]

    def register(func):
        if all(c.func.__qualname__ != func.__qualname__ for c in CASES):
            CASES.append(Case(func, arg_list))
        return func

    return register


# ---------------------------------------------------------------------------
# Helpers, exceptions and classes the corpus functions use
# ---------------------------------------------------------------------------


class CornerCase(Exception):
    """A custom exception."""


class LookupFailed(CornerCase):
    """A custom exception derived from another one."""

    def __init__(self, key):
        super().__init__(f"no entry for {key!r}")
        self.key = key


class Box:
    """A mutable record for attribute targets."""

    def __init__(self, value=0):
        self.value = value

    def __repr__(self):
        return f"Box({getattr(self, 'value', '<deleted>')!r})"


class Recorder:
    """A context manager that logs enter and exit, and can suppress."""

    def __init__(self, log, name="cm", suppress=False, fail_enter=False):
        self.log = log
        self.name = name
        self.suppress = suppress
        self.fail_enter = fail_enter

    def __enter__(self):
        self.log.append(("enter", self.name))
        if self.fail_enter:
            raise CornerCase(f"cannot enter {self.name}")
        return self

    def __exit__(self, kind, value, traceback):
        self.log.append(("exit", self.name, kind and kind.__name__))
        return self.suppress


class Counted:
    """A value whose truth tests are counted."""

    def __init__(self, truth):
        self.truth = truth
        self.tests = 0

    def __bool__(self):
        self.tests += 1
        return self.truth


class Grid:
    """Records the keys it is indexed with."""

    def __init__(self):
        self.keys = []

    def __getitem__(self, key):
        self.keys.append(key)
        return repr(key)

    def __setitem__(self, key, value):
        self.keys.append((key, value))

    def __delitem__(self, key):
        self.keys.append(("del", key))


class Fmt:
    """Shows the format spec it is formatted with."""

    def __format__(self, spec):
        return f"<{spec}>"

    def __repr__(self):
        return "Fmt()"

    def __str__(self):
        return "fmt"


class Shape:
    """Base class for the method tests."""

    sides = 0

    def __init__(self, name):
        self.name = name

    @property
    def area(self):
        return 0.0

    def describe(self):
        return f"{self.name} with {self.sides} sides, area {self.area:.3f}"


class Circle(Shape):
    """A shape with a property setter, static and class methods."""

    def __init__(self, radius):
        super().__init__("circle")
        self.radius = radius

    @property
    def area(self):
        return math.pi * self.radius ** 2

    @property
    def diameter(self):
        return 2 * self.radius

    @diameter.setter
    def diameter(self, value):
        if value < 0:
            raise ValueError(f"negative diameter {value}")
        self.radius = value / 2

    def scale(self, factor):
        self.radius *= factor
        return self

    def describe(self):
        return super().describe() + f" (r={self.radius})"

    @staticmethod
    def unit_area():
        return math.pi

    @classmethod
    def from_diameter(cls, d):
        shape = cls(0)
        shape.diameter = d
        return shape


class Square(Shape):
    """A second subclass, using the two-argument form of super()."""

    sides = 4

    def __init__(self, side):
        super(Square, self).__init__("square")
        self.side = side

    @property
    def area(self):
        return self.side * self.side

    def grow(self, by=1, *, times=1):
        for _ in range(times):
            self.side += by
        return self.side


def _note(log, value):
    """Record ``value`` in ``log`` and return it: shows evaluation order."""
    log.append(value)
    return value


def _countdown(n):
    while n > 0:
        yield n
        n -= 1


def _helper(x, y=1, *rest, scale=1, **extra):
    return (x + y + sum(rest)) * scale, sorted(extra.items())


def _make_adder(n):
    return lambda x: x + n


_COUNTER = 0
_TOTAL = 10
_LOG = []
_SCALE = 3


def _read_created():
    return _CREATED


# ---------------------------------------------------------------------------
# Assignment
# ---------------------------------------------------------------------------


@case((1,), (2.5,), ("ab",), ([1],))
def assign_chain(x):
    a = b = c = x * 2
    return a, b, c


@case((1,), (None,), ("s",))
def assign_multi_target_alias(x):
    p = q = [x]
    p.append(1)
    return q, p is q


@case((1, 2), (3.5, -1), ("a", "b"))
def tuple_unpack_swap(a, b):
    a, b = b, a
    return a, b


@case(([1, 2, 3],), ((4, 5, 6),), ((1, 2),), ([1, 2, 3, 4],), ("abc",))
def list_unpack(seq):
    [a, b, c] = seq
    return a * b + c


@case((((1, (2, 3)), 4),), ((("x", "yz"), "w"),), (((1, (2,)), 3),),
      (((1, 2), 3),))
def nested_unpack(data):
    (a, (b, c)), d = data
    return [d, c, b, a]


@case(([1, 2, 3, 4],), ((1, 2),), ([1],), ("hello",), (range(5),))
def starred_unpack_middle(seq):
    first, *middle, last = seq
    return first, middle, last


@case(([1, 2, 3],), ((9,),), ([],))
def starred_unpack_front(seq):
    *init, last = seq
    return init, last


@case(((1, (2, 3, 4), [5, 6]),), ((1, "ab", "cd"),), ((1, (2,), [3]),))
def starred_nested(data):
    a, (b, *rest), [c, d] = data
    return a + b + c + d if isinstance(a, int) and isinstance(b, int) else (
        a, b, rest, c, d)


@case(([("a", (1, 2)), ("b", (3, 4))],), ([],), ([("a", (1,))],))
def unpack_in_for(pairs):
    out = {}
    for key, (left, right) in pairs:
        out[key] = left - right
    return out


@case((1,), (2.5,), ("x",))
def attribute_target(x):
    box = Box()
    box.value = x
    box.extra, box.value = box.value, x * 2
    return box.value, box.extra, sorted(vars(box))


@case(([1, 2, 3], 1, 9), ([5], 0, 1), ([1, 2], 5, 0), ([], 0, 0))
def subscript_target(lst, i, v):
    lst[i] = v
    lst[-1], lst[0] = lst[0], lst[-1]
    return lst


@case(({}, "a"), ({"a": 1}, "a"), ({"n": 5}, 3))
def subscript_target_dict(d, k):
    d[k] = d.get(k, 0) + 1
    d["n"], d[k * 2] = len(d), k
    return d


@case(([1, 2, 3, 4, 5, 6],), ([1, 2, 3],), ([0] * 8,))
def slice_assignment(lst):
    lst[1:3] = ["a", "b", "c"]
    lst[::3] = [None] * len(lst[::3])
    lst[-2:] = []
    lst[4:4] = [True]
    return lst


@case(([1, 2, 3, 4, 5],), ([1, 2],))
def extended_slice_size_mismatch(lst):
    lst[::2] = [0, 0]
    return lst


@case(([1, 2, 3, 4],), ([1, 2],), ([1],))
def unpack_to_attribute_and_subscript(values):
    box = Box()
    out = [None, None]
    box.value, out[1], *rest = values
    return box.value, out, rest


@case((3,), (2,), (4,))
def unpack_from_generator(n):
    a, b, c = (i * i for i in range(n))
    return a + b + c


@case(({"x": 1, "y": 2},), ({"x": 1},), ({},))
def unpack_dict_keys(d):
    a, b = d
    return a + b


@case(([],), (["start"],))
def assignment_evaluation_order(log):
    d = {}
    d[_note(log, "key")] = _note(log, "value")
    box = Box()
    _note(log, box).value = _note(log, "attr")
    a, b = _note(log, "left"), _note(log, "right")
    return d, box.value, a + b, log


# ---------------------------------------------------------------------------
# Augmented and annotated assignment
# ---------------------------------------------------------------------------


@case((7, 3), (-7, 2), (5, 0), (12, -5))
def augmented_int_ops(a, b):
    x = a
    x += b
    x -= 1
    x *= b
    x <<= 2
    x >>= 1
    x &= 0xFF
    x |= 0x100
    x ^= a
    x **= 2
    x %= 1000
    x //= b
    return x


@case((7.5, 2.0), (-1.5, 0.5), (1.0, 0.0), (float("inf"), 2.0))
def augmented_float_ops(x, y):
    r = x
    r += y
    r *= y
    r -= 0.25
    r /= y
    r **= 2
    r //= 3
    r %= 7
    return r


@case(([1, 2], [3]), ([], []), ([1], (2, 3)), ([1], 5))
def augmented_list_inplace(lst, extra):
    alias = lst
    lst += extra
    t = (1,)
    t_alias = t
    t += (2,)
    return alias is lst, lst, t, t_alias


@case((Box(1), 2), (Box(1.5), -1), (Box("ab"), 3), (Box(None), 1))
def augmented_attribute(box, k):
    box.value += k
    box.value *= 2
    return box.value


@case(({"a": 1}, "a"), ({"a": [1]}, "a"), ({}, "a"))
def augmented_subscript(d, key):
    d[key] += d[key]
    d[key] *= 2
    return d


@case(([[1, 2], [3, 4]], 0, 1), ([[1.5]], 0, 0), ([[1]], 1, 0))
def augmented_subscript_nested(m, i, j):
    m[i][j] *= 3
    m[i][j] -= 1
    return m


@case(([], [1, 2, 3]), ([0], [1]))
def augmented_evaluation_order(log, lst):
    lst[_note(log, 0)] += _note(log, 10)
    return lst, log


@case((np.arange(4.0), np.ones(4)), (np.eye(2), np.full((2, 2), 2.0)),
      (np.arange(3), np.ones(3)))
def augmented_numpy_inplace(a, b):
    alias = a
    a += b
    a *= 2
    a -= b
    if a.ndim == 2:
        a @= b
    return a is alias, a


@case((1,), (2.5,), ("s",))
def annotated_assign(x):
    y: int = x + x
    z: float
    z = y * 2
    w: list = [y, z]
    return y, z, w


@case((True,), (False,))
def annotated_without_value_unbound(flag):
    z: int
    if flag:
        z = 1
    return z


@case((Box(1),), (Box(2.5),))
def annotated_attribute_and_subscript(box):
    box.value: int = box.value + 1
    d = {}
    d["k"]: str = "v"
    return box.value, d


# ---------------------------------------------------------------------------
# if / elif / else
# ---------------------------------------------------------------------------


@case((3,), (-2.5,), (0,), (float("nan"),))
def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


@case((0,), (5,), (15,), (150,), (-3,))
def classify(n):
    if n < 0:
        label = "negative"
    elif n == 0:
        label = "zero"
    elif n < 10:
        label = "small"
    elif n < 100:
        label = "medium"
    else:
        label = "large"
    return label


@case((1, 2), (2, 1), (0, 0), (-1, 5))
def nested_if(a, b):
    if a > 0:
        if b > a:
            r = "b above a"
        else:
            r = "a at least b"
    else:
        if b:
            r = "b truthy"
        else:
            r = "neither"
    return r


@case(([],), ([0],), (0,), ("",), (None,), ({},), (np.array([1, 2]),),
      (np.array([0]),))
def if_truthiness(v):
    if v:
        return "truthy"
    return "falsy"


@case((True,), (False,), (1,), ([],))
def unbound_on_one_path(flag):
    if flag:
        y = 1
    return y


@case((3,), (0,), (1,))
def unbound_after_loop(n):
    for i in range(n):
        last = i
    return last


@case((1,), (-1,), (0,))
def implicit_return_none(x):
    if x > 0:
        return "positive"
    if x < 0:
        x = -x


@case((0,), (1,), (2,), (3,), (4,), (5,))
def elif_chain_without_else(k):
    out = []
    if k == 0:
        out.append("zero")
    elif k == 1:
        out.append("one")
    elif k % 2 == 0:
        out.append("even")
    elif k > 4:
        out.append("big odd")
    return out


# ---------------------------------------------------------------------------
# while
# ---------------------------------------------------------------------------


@case((0,), (4,), (-1,))
def while_else_no_break(n):
    i, total = 0, 0
    while i < n:
        total += i
        i += 1
    else:
        total = -total
    return i, total


@case((10, 3), (10, 20), (0, 0))
def while_else_with_break(n, stop):
    i = 0
    found = None
    while i < n:
        if i == stop:
            found = i
            break
        i += 1
    else:
        found = "exhausted"
    return found, i


@case((1.0,), (1000.0,), (0.001,))
def while_true_break(x):
    steps = 0
    while True:
        x = x / 2 if x > 1 else x * 3
        steps += 1
        if 0.5 < x <= 1 or steps > 50:
            break
    return x, steps


@case((1,), (6,), (27,), (97,))
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@case((10,), (0,), (7,))
def while_continue(n):
    i = 0
    odds = []
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        odds.append(i)
    return odds


@case((48, 18), (7, 13), (0, 5), (5, 0), (-12, 8))
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@case(([4, 8, 15, 16], 15), ([1, 2], 3), ([], 0))
def while_return_inside(lst, target):
    i = 0
    while i < len(lst):
        if lst[i] == target:
            return i
        i += 1
    return -1


@case((3,), (5,), (0,))
def while_nested_break(n):
    pairs = []
    i = 0
    while i < n:
        j = 0
        while True:
            if j >= i:
                break
            pairs.append((i, j))
            j += 1
        i += 1
    return pairs


@case(([1, 0, 3, 4],), ([5, 6],), ([0],))
def while_with_walrus(data):
    seen = []
    while (item := data.pop()) != 0:
        seen.append(item)
    return seen, data, item


# ---------------------------------------------------------------------------
# for
# ---------------------------------------------------------------------------


@case(([1, 2, 3],), ([],), ([0.5, 0.25],), (["a", "b"],))
def for_list_sum(xs):
    total = 0
    for x in xs:
        total = total + x
    return total


@case((10,), (1,), (0,), (-3,))
def for_range_step(n):
    seen = []
    for i in range(n, 0, -2):
        seen.append(i)
    for j in range(2, n, 3):
        seen.append(-j)
    return seen


@case(({"a": 1, "b": 2},), ({},), ({3: "c", 1: "a"},))
def for_dict_keys(d):
    keys = []
    for k in d:
        keys.append(k)
    return keys


@case(({"a": 1, "b": 2},), ({},), ({"x": -1.5},))
def for_dict_items(d):
    out = []
    for k, v in d.items():
        out.append(f"{k}={v}")
    for v in d.values():
        out.append(v)
    return out


@case(("hello world",), ("",), ("AEIOU xyz",))
def for_string(s):
    vowels = 0
    for ch in s:
        if ch.lower() in "aeiou":
            vowels += 1
    return vowels


@case((4,), (0,), (1,))
def for_generator_function(n):
    out = []
    for k in _countdown(n):
        out.append(k * k)
    return out


@case((5,), (0,))
def for_generator_expression(n):
    total = 0
    for sq in (i * i for i in range(n) if i % 2):
        total += sq
    return total


@case(([1, 2, 3], "abc"), ([1, 2], "abcd"), ([], "x"))
def for_zip(a, b):
    out = []
    for x, ch in zip(a, b):
        out.append(ch * x)
    return out


@case((["a", "b", "c"],), ([],))
def for_enumerate(xs):
    out = {}
    for i, x in enumerate(xs, start=1):
        out[x] = i
    for i, x in enumerate(reversed(xs)):
        out[x] = out[x] * 10 + i
    return out


@case(([1, 3, 5],), ([1, 2, 3],), ([],))
def for_else_no_break(xs):
    for x in xs:
        if x % 2 == 0:
            result = ("even", x)
            break
    else:
        result = ("all odd", len(xs))
    return result


@case(([3, 1, 4, 1, 5], 4), ([3, 1], 9), ([], 1))
def for_else_break_search(xs, target):
    for index, x in enumerate(xs):
        if x == target:
            break
    else:
        index = None
    return index


@case(([1, -2, 3, -4, 0],), ([],))
def for_continue(xs):
    kept = []
    for x in xs:
        if x < 0:
            continue
        if x == 0:
            continue
        kept.append(x)
    return kept


@case(([[1, 2], [3, 4]], 3), ([[1, 2], [3, 4]], 7), ([], 1))
def for_nested_break(m, target):
    where = None
    for i, row in enumerate(m):
        for j, v in enumerate(row):
            if v == target:
                where = (i, j)
                break
        if where is not None:
            break
    return where


@case(([3, -1, 2],), ([1, 2],), ([],))
def for_return_in_loop(xs):
    for i, x in enumerate(xs):
        if x < 0:
            return i, x
    return None


@case((0,), (1,))
def for_over_literals(k):
    out = []
    for key in {"b": 1, "a": 2}:
        out.append(key)
    for item in (k, k + 1):
        out.append(item)
    for ch in "xy":
        out.append(ch * (k + 1))
    for v in [k, k * 2]:
        out.append(v)
    return out


@case(([1, 2, 3],), ([],))
def loop_variable_after_loop(xs):
    x = "before"
    for x in xs:
        pass
    return x


@case(({"a": 1},), ({},))
def for_mutating_dict(d):
    for k in d:
        d[k + "!"] = 0
    return d


@case((Box(), [1, 2, 3]), (Box("keep"), []))
def for_attribute_and_subscript_targets(box, xs):
    slots = [None]
    seen = []
    for box.value in xs:
        seen.append(box.value)
    for slots[0] in xs:
        seen.append(slots[0] * 2)
    return box.value, slots, seen


@case(([[1, 2, 3], [4], [5, 6]],), ([[]],), ([],))
def for_starred_target(rows):
    out = []
    for first, *rest in rows:
        out.append((first, len(rest)))
    return out


@case((5,), ([1, 2],), (None,))
def for_over_non_iterable(x):
    total = 0
    for i in x:
        total += i
    return total


@case((1,), (0,), ([],))
def pass_statements(x):
    if x:
        pass
    else:
        x = "was falsy"
    for _ in range(2):
        pass
    while False:
        pass
    return x


# ---------------------------------------------------------------------------
# Arithmetic, bitwise and unary operators
# ---------------------------------------------------------------------------


@case((7, 3), (-7, 3), (7, -3), (5, 0), (2 ** 70, 7))
def arith_int(a, b):
    return a + b, a - b, a * b, a // b, a % b, a ** 2, -a, +a


@case((7.5, 2.0), (-1.0, 3.0), (1.0, 0.0), (float("nan"), 1.0),
      (float("inf"), float("inf")), (-0.0, 1.0))
def arith_float(x, y):
    return x + y, x - y, x * y, x / y, x // y, x % y, -x, +x


@case((7, 2), (1, 0), (-9, 4), (2 ** 1100, 3))
def true_division_int(a, b):
    return a / b


@case((12, 10), (-1, 3), (0, 0), (5, -1))
def bitwise_ops(a, b):
    return a & b, a | b, a ^ b, ~a, a << 2, a >> 1, a << b


@case((2, 10), (2, -2), (-8, 0.5), (0, -1), (0.0, -1), (10, 400.0))
def power_ops(a, b):
    return a ** b


@case((np.ones((2, 3)), np.ones((3, 2))), (np.eye(2), np.arange(2.0)),
      (np.ones((2, 3)), np.ones((2, 3))))
def matmul_op(a, b):
    return a @ b


@case((1, 2, 3), (2.5, -1, 4), (0, 0, 1), (1, 1, 0))
def mixed_precedence(a, b, c):
    return a + b * c ** 2 - (a - b) // c % 3, -a ** 2, (-a) ** 2, not a + b


@case((5,), (-3,), (0,))
def unary_ops(x):
    return -x, +x, ~x, not x, - -x, ~~x, not not x


@case((True,), (1.5,), ("",), ([1],))
def unary_not_and_neg(v):
    if isinstance(v, (int, float)):
        return -v, not v
    return not v


@case(("ab", 3), ("", 5), ("x", -1), ("a", "b"))
def string_ops(s, n):
    return s * n + s[::-1], "%s-%d" % (s, n), s + str(n)


@case(([1, 2], [3]), ([], []), ((1,), (2,)), ([1], (2,)))
def sequence_ops(a, b):
    return a + b, a * 2, 2 * b, len(a + b)


@case(({1, 2, 3}, {2, 3, 4}), (set(), {1}), (frozenset({1}), {1, 2}))
def set_ops(a, b):
    return a | b, a & b, a - b, a ^ b, a <= b, a < b


@case((1 + 2j, 3 - 1j), (1j, 0j), (2.0, 1j))
def complex_arith(z, w):
    return z + w, z * w, z / w, z ** 2, abs(z), z.conjugate()


@case((3, 0.5), (2, 2.0), (True, 1.5))
def int_float_mix(a, x):
    return a + x, a * x, a // x, a % x, type(a * x).__name__


@case((17, 5), (-17, 5), (17, 0), (7.5, 2))
def divmod_and_builtins(a, b):
    q, r = divmod(a, b)
    return q, r, abs(a - b), round(a / b, 2), min(a, b), max(a, b, 0)


@case((3, 4, 5), (2, 10, 1000), (2, -1, 5))
def three_argument_pow(base, exp, mod):
    return pow(base, exp, mod)


@case((True, False), (True, True))
def bool_arithmetic(a, b):
    return a + b, a * 3, a & b, a | b, a ^ b, -a, ~b


@case((np.array([1.0, -2.0, 3.0]),), (np.array([[1, 2], [3, 4]]),))
def numpy_operators(a):
    return -a, a * 2 + 1, a ** 2, a / 2, a // 2, a % 2, abs(a)


# ---------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------


@case((1, 2, 3), (1, 3, 2), (2, 2, 2), (3, 2, 1), (1.0, float("nan"), 2))
def chained_compare(a, b, c):
    return (a < b < c, a <= b == c, a < b > c, a != b != c,
            a >= b >= c > 0, 0 < a < b < c < 10)


@case(([],), (["start"],))
def chained_compare_evaluates_once(log):
    first = _note(log, 1) < _note(log, 2) < _note(log, 3)
    second = _note(log, 3) < _note(log, 2) < _note(log, 9)
    return first, second, log


@case((None, None), ([], []), (1, 1), ("a", "b"))
def identity_compare(a, b):
    same = a
    return a is b, a is not b, a is None, b is not None, same is a


@case((1, [1, 2]), ("b", "abc"), (3, {3: 1}), (4, {1, 2}), ("z", ()),
      (1, "abc"))
def membership(x, container):
    return x in container, x not in container


@case((1, "a"), (1, 2.5), ([1], [1, 0]), (None, 0))
def compare_mixed_types(a, b):
    return a < b, a == b, a != b


@case((np.array([1, 5, 3]), 3), (np.array([1.0, np.nan]), 1.0))
def compare_numpy(a, b):
    return a < b, a == b, (a >= b).sum()


@case((np.array([1, 2]), 0), (np.array([5]), 1))
def chained_compare_on_arrays(a, lo):
    return lo < a < 10


# ---------------------------------------------------------------------------
# Boolean operators and truthiness
# ---------------------------------------------------------------------------


@case((0, 5), (3, 0), ("", "x"), ([1], []), (None, 0.0), (2, 3))
def and_or_values(a, b):
    return a and b, a or b, a and b or "fallback", (a or b) and "both"


@case(([], 0), ([], 1), ([], ""), ([], "s"))
def short_circuit_and(log, a):
    result = a and _note(log, "rhs")
    return result, log


@case(([], 0), ([], 1), ([], []), ([], [0]))
def short_circuit_or(log, a):
    result = a or _note(log, "rhs")
    return result, log


@case((0,), (1,), ([],), ("s",), (None,))
def not_values(v):
    return not v, not not v, (not v) == (not bool(v))


@case((1, 0), (10, 4), (0, 0), (3, 2))
def guard_against_zero_division(a, b):
    return b != 0 and a / b > 1, b == 0 or a / b


@case(({"a": 0}, "a"), ({"a": 7}, "a"), ({}, "b"))
def or_default(d, key):
    return d.get(key) or "missing"


@case((0, 0, 0), (1, 0, 1), (0, 2, 3), ("", "b", None), (1, 1, 1))
def mixed_bool_chain(a, b, c):
    return a or b and c, (a or b) and not c, not a and b or c, a and b and c


@case((True, True), (False, True), (True, False), (False, False))
def bool_calls_in_condition(first, second):
    a, b = Counted(first), Counted(second)
    if a and b:
        result = "both"
    elif a or b:
        result = "one"
    else:
        result = "none"
    return result, a.tests, b.tests


@case((Counted(True),), (Counted(False),))
def bool_calls_in_value(c):
    value = c and "rhs"
    return value is c, c.tests


@case(([1, 2, 3, 4],), ([1],), ([],))
def walrus_in_condition(xs):
    if (n := len(xs)) > 3:
        return "long", n
    return "short", n


@case(([1, 2, 3],), ([0, 1],))
def walrus_in_comprehension(xs):
    doubled = [y for x in xs if (y := x * 2) > 1]
    return doubled, y


@case(([],), ([0],))
def walrus_in_comprehension_unbound(xs):
    doubled = [y for x in xs if (y := x + 1) > 5]
    return doubled, y


@case((5,), (0,), (2.5,))
def walrus_in_expression(x):
    total = (a := x + 1) * (b := a * 2)
    return total, a, b


# ---------------------------------------------------------------------------
# Conditional expressions
# ---------------------------------------------------------------------------


@case((3,), (-2,), (0,), (0.0,))
def ternary_nested(x):
    return "pos" if x > 0 else "neg" if x < 0 else "zero"


@case(([], True), ([], False))
def ternary_is_lazy(log, flag):
    value = _note(log, "then") if flag else _note(log, "else")
    return value, log


@case((-3,), (4.5,), (0,))
def abs_via_ternary(x):
    return x if x >= 0 else -x


@case((1, 0), (4, 2))
def ternary_guarding_error(a, b):
    return a / b if b else float("inf")


# ---------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------


@case((1, 2), (1.5, -1), ("a", "b"))
def call_positional_keyword(a, b):
    return _helper(a, b, scale=2), _helper(a, y=b), _helper(x=a, y=b)


@case(([1, 2, 3],), ([5],), ([],))
def call_star_args(xs):
    return _helper(*xs), max(*xs, 0), [*map(abs, xs)]


@case(({"y": 2},), ({"y": 1, "z": 5},), ({"scale": 3, "x": 1},), ({},))
def call_star_kwargs(opts):
    return _helper(1, **opts)


@case((1, [2, 3], {"k": 4}), (1, [], {}), (1, [2], {"scale": 0}))
def call_mixed_arguments(a, xs, opts):
    return _helper(a, *xs, 10, *xs, scale=3, **opts)


@case(([3, 1, 2],), ([],), (["b", "a"],))
def call_builtin_keywords(xs):
    print(*xs, sep=", ", end="!\n")
    return sorted(xs, reverse=True), sorted(xs, key=lambda v: (str(v), v))


@case(call(1, c=3), call(1, 2, 3, 4, c=0, e=5), call(c=1, a=2),
      call(), call(1, 2, c=3, b=4), (1, 2))
def signature_defaults(a, b=2, *rest, c, d=4, **opts):
    return a, b, rest, c, d, opts


@case(call(1, scale=2), call(1, scale=2, offset=5), (1, 2), call(1))
def keyword_only(a, *, scale, offset=0):
    return a * scale + offset


@case((1, 2), (1, 2, 4), call(1, b=2), call(1, 2, c=5))
def positional_only(a, b, /, c=3):
    return a + b + c


@case((), (1, 2), call(1, x=2, y=3))
def var_args_only(*args, **kwargs):
    return args, kwargs


@case(("  Hello World  ",), ("abc",), ("",))
def call_method_chain(s):
    return s.strip().lower().replace("o", "0").split()


@case(([],), (["x"],))
def call_evaluation_order(log):
    return _helper(_note(log, 1), *_note(log, [2]), scale=_note(log, 3),
                   **_note(log, {"k": 4})), log


@case((3,), (-1.5,))
def call_result_of_call(n):
    return _make_adder(n)(10), _make_adder(_make_adder(n)(1))(0)


@case((5,), (None,), (len,))
def call_non_callable(x):
    return x([1, 2])


@case((1, 2), (1, "x"))
def call_wrong_arity(a, b):
    return _helper(a, b, 3, 4, scale=1, scale2=2), _make_adder(a, b)


# ---------------------------------------------------------------------------
# Attributes and subscripts
# ---------------------------------------------------------------------------


@case((Box(1),), (Box([1, 2]),), (object(),))
def attribute_read(obj):
    return obj.value, obj.__class__.__name__


@case((1.0,), (2,))
def attribute_on_module(x):
    return math.pi * x, np.float64(x).dtype.name, io.StringIO.__name__


@case((Box(3), "value"), (Box(3), "missing"), (Box(3), 5))
def getattr_setattr_builtins(box, name):
    before = getattr(box, name, "default")
    setattr(box, name, "set")
    return before, getattr(box, name), hasattr(box, name)


@case(([1, 2, 3], 0), ([1, 2, 3], -1), ([1, 2, 3], 3), ((1,), 0),
      ([1], "0"))
def subscript_basic(seq, i):
    return seq[i]


@case((list(range(10)),), ("abcdefgh",), ((1, 2, 3),))
def subscript_slices(seq):
    return (seq[1:], seq[:-1], seq[::2], seq[::-1], seq[1:7:2],
            seq[slice(1, 3)], seq[-3:], seq[100:], seq[:])


@case((["a", "b", "c", "d"], 1, 3), ("hello", -4, None), ([1, 2], None, None))
def subscript_variable_slices(seq, lo, hi):
    return seq[lo:hi], seq[lo:hi:-1], seq[hi:lo]


@case(({"a": 1}, "a"), ({"a": 1}, "b"), ({(1, 2): 3}, (1, 2)),
      ({}, [1]))
def subscript_dict(d, k):
    return d[k]


@case((np.arange(24.0).reshape(2, 3, 4),), (np.arange(24).reshape(2, 3, 4),),
      (np.ones((2, 2, 2), dtype=int),))
def numpy_basic_indexing(a):
    return (a[0, 1], a[:, 1], a[1:, ::2], a[..., 0], a[None, :, 1],
            a[:, None], a[(0, 1)], a[::-1, ...], a[0][1][2], a[-1, -1, -1],
            a[..., None, 1:3])


@case((np.arange(6.0), np.array([0, 2, -1])), (np.arange(4), np.array([4])))
def numpy_fancy_indexing(a, idx):
    return a[idx], a[a > 2], a[[True] * len(a)], a[np.array([], dtype=int)]


@case((np.zeros((3, 3)), 1.5), (np.arange(9.0).reshape(3, 3), -1.0))
def numpy_slice_assign(a, v):
    a[1:, 0] = v
    a[..., -1] += 1
    a[a > 2] = 0
    a[0] = np.arange(3)
    a[:, 1][0] = 7
    return a


@case(({"a": 1}, {"b": 2}), ({}, {}), ({"a": 1}, [("a", 5)]), ({}, 7))
def dict_update_in_place(d, extra):
    d.update(extra)
    d.update(z=0)
    seen = d.setdefault("a", [])
    return seen, d.pop("z"), d


@case(({(1, 2): "a"},), ({},))
def subscript_tuple_key(d):
    d[3, 4] = "b"
    return d.get((1, 2)), d[3, 4], d


@case((Grid(), 1), (Grid(), "k"))
def custom_getitem_keys(g, k):
    r = (g[k], g[k:], g[1:2], g[::3], g[:, 1], g[1:2, ..., None], g[...],
         g[()], g["a":"b":"c"], g[-1:])
    g[0:1] = "set"
    del g[::2, 0]
    return r, g.keys


@case(([1, 2, 3, 4, 5],), (list("abcdef"),))
def del_slice(lst):
    del lst[::2]
    del lst[-1:]
    return lst


# ---------------------------------------------------------------------------
# Literals and displays
# ---------------------------------------------------------------------------


@case((1, [2, 3]), ("a", "bc"), (None, ()))
def tuple_literals(a, xs):
    return (), (a,), (a, a), (*xs, a), (a, *xs, *xs)


@case((1, [2, 3]), ("a", "bc"), (0, 5))
def list_starred_literal(a, xs):
    return [a, *xs, *range(3), a], [*xs], []


@case((1, [2, 3]), (1, "ab"), (1, [[1]]))
def set_literal(a, xs):
    return {a, *xs}, {a}, set()


@case((1, 2), ("a", "b"), ("a", "a"))
def dict_literal(a, b):
    return {"a": a, "b": b, a: b}, {}, {a: 1, a: 2}


@case(({"x": 0, "z": 9}, {"w": 1}), ({}, {}), ({"y": 5}, {"x": 8}),
      ({"a": 1}, 3), ([("k", "v")], {}))
def dict_double_star(base, extra):
    return {"x": 1, **base, "y": 2, **extra, "x": 3}


@case((3,), (0,))
def dict_key_order(n):
    d = {}
    for i in range(n, 0, -1):
        d[i] = i * i
    d[1.0] = "float one"
    d[True] = "true"
    return d, list(d)


@case((0,), (1,))
def literal_constants(k):
    return (None, True, False, ..., b"by\x00tes", 1j, 1e-3, 0x1F, 0o17,
            0b101, "s\u00e9", 1_000_000, k)


@case((1,), ("x",))
def nested_literals(x):
    return {"list": [x, (x, {x})], "dict": {"inner": [{}, []]}, "t": ((),)}


# ---------------------------------------------------------------------------
# Comprehensions and generator expressions
# ---------------------------------------------------------------------------


@case(([1, 2, 3],), ([],), ([-1.5],))
def list_comprehension(xs):
    return [x * x for x in xs], [x for x in xs if x > 1]


@case(([[1, 0], [2, 3]],), ([],), ([[], [0]],))
def list_comprehension_nested_loops(m):
    return [v for row in m for v in row if v], [(i, v) for i, row in
                                                 enumerate(m) for v in row]


@case((4,), (0,), (1,))
def comprehension_in_comprehension(n):
    return [[i * j for j in range(i)] for i in range(n)]


@case(([1, 2, 2, 3],), ([],), (["a", "A"],))
def set_comprehension(xs):
    return {x * 2 for x in xs}, {str(x).lower() for x in xs}


@case((["a", "b"], [1, 2]), ([], []), (["a", "a"], [1, 2]))
def dict_comprehension(keys, vals):
    return {k: v for k, v in zip(keys, vals)}, {v: k for k, v in
                                                 zip(keys, vals) if v > 1}


@case(([1, 2],), ([],))
def comprehension_shadowing(xs):
    x = "outer"
    ys = [x * 2 for x in xs]
    zs = {x: x for x in "ab"}
    return x, ys, zs


@case(([1, 2, 3], 2), ([], 5), ([1.5], -1))
def comprehension_captures_local(xs, k):
    offset = k * 10
    return [x * k + offset for x in xs]


@case((3,), (0,))
def comprehension_first_iterable_scope(n):
    return [(x, y) for x in range(n) for y in range(x)]


@case((5,), (0,), (100,))
def generator_sum(n):
    return sum(i * i for i in range(n)), max((i % 7 for i in range(n)),
                                             default=None)


@case(([], 3), ([], 0))
def generator_is_lazy(log, n):
    gen = (_note(log, i) for i in range(n))
    first = next(gen)
    return first, log


@case(([1, 2, 3],), ([],), ([0, 5],))
def generator_any_all(xs):
    return any(x > 2 for x in xs), all(x for x in xs), list(x for x in xs)


@case(([1, -2, 3],), ([],))
def comprehension_with_ternary(xs):
    return [x if x > 0 else -x for x in xs if x != 2]


@case(([1, 2, 4],), ([1, 0],))
def comprehension_raises(xs):
    return [1 / x for x in xs]


@case(({"a": 1, "b": -2},), ({},))
def dict_comprehension_filter(d):
    k = "unchanged"
    flipped = {v: k for k, v in d.items() if v > 0}
    return flipped, k


@case((3,), (1,))
def nested_comprehension_shadowing(n):
    i = 100
    grid = [[i + j for j in range(i)] for i in range(n)]
    return grid, i


# ---------------------------------------------------------------------------
# Lambdas and nested functions
# ---------------------------------------------------------------------------


@case((1,), (2.5,), ("s",))
def lambda_basic(x):
    f = lambda a, b=2: a * b + x
    return f(3), f(3, b=x), (lambda: x)()


@case(([(1, "b"), (0, "a"), (1, "a")],), ([],))
def lambda_sort_key(pairs):
    return sorted(pairs, key=lambda p: (p[1], -p[0]))


@case((3,), (0,))
def closure_counter(n):
    count = 0

    def bump(by=1):
        nonlocal count
        count += by
        return count

    for _ in range(n):
        bump()
    bump(10)
    return count


@case((3,), (1,))
def closure_late_binding(n):
    late = [lambda: i for i in range(n)]
    early = [lambda i=i: i for i in range(n)]
    return [f() for f in late], [f() for f in early]


@case((1,), (5,))
def nonlocal_rebinding(x):
    def get():
        return x

    def set_(v):
        nonlocal x
        x = v

    before = get()
    set_(x * 10)
    return before, get(), x


@case((4,), (0,))
def global_counter(n):
    global _COUNTER
    _COUNTER = 0
    for i in range(n):
        _COUNTER += i
    return _COUNTER


@case((1,), (5,))
def global_accumulate(n):
    global _TOTAL
    _TOTAL += n * _SCALE
    _LOG.append(_TOTAL)
    return _TOTAL, list(_LOG)


@case((1,), ("v",))
def global_created_then_deleted(v):
    global _CREATED
    _CREATED = v
    seen = _read_created()
    del _CREATED
    return seen


@case(("x",), ([1],))
def global_created(v):
    global _CREATED
    _CREATED = v
    return _read_created()


@case((1,), (2.5,))
def nested_default_arguments(x):
    def inner(a, b=x * 2, *, c=x + 1):
        return a + b + c

    x = 100
    return inner(1), inner(1, 2), inner(1, c=0), x


@case((1,), (3,))
def nested_decorators(x):
    def twice(fn):
        def wrapper(*args):
            return fn(fn(*args))
        return wrapper

    def tag(label):
        def deco(fn):
            return lambda *args: (label, fn(*args))
        return deco

    @tag("outer")
    @twice
    def inc(v):
        return v + x

    return inc(0)


@case((5,), (0,), (1,))
def nested_recursion(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)

    return fact(n)


@case((4,), (7,))
def nested_mutual_recursion(n):
    def is_even(k):
        return True if k == 0 else is_odd(k - 1)

    def is_odd(k):
        return False if k == 0 else is_even(k - 1)

    return is_even(n), is_odd(n)


@case((3,), (0,))
def closures_over_loop_variable(n):
    fns = []
    for i in range(n):
        def f(scale, i=i):
            return i * scale
        fns.append(f)
    return [f(2) for f in fns]


@case((4,), (0,))
def nested_generator_function(n):
    def evens(limit):
        k = 0
        while k < limit:
            yield k
            k += 2

    return list(evens(n)), sum(evens(n * 2))


@case((1,), (2.5,))
def closure_over_parameter(x):
    def get():
        return x

    x += 1
    return get()


@case((True,), (False,))
def closure_over_deleted_variable(flag):
    v = 1

    def get():
        return v

    if flag:
        del v
    return get()


@case((1,), ("a",))
def lambda_returning_lambda(a):
    adder = lambda x: lambda y: x + y
    return adder(a)(a)


@case((2,), (0,))
def recursive_global_function(n):
    return fib_recursive(n + 3)


@case((0,), (1,), (10,))
def fib_recursive(n):
    return n if n < 2 else fib_recursive(n - 1) + fib_recursive(n - 2)


# ---------------------------------------------------------------------------
# f-strings
# ---------------------------------------------------------------------------


@case(("box", 3), ("", 0), (None, 1.5))
def fstring_basic(name, n):
    return f"{name} has {n} items", f"{n}", f"plain"


@case(("caf\u00e9",), (1.5,), ([1, "a"],))
def fstring_conversions(v):
    return f"{v!s}|{v!r}|{v!a}"


@case((3.14159,), (-2,), ("text",))
def fstring_format_spec(x):
    return f"{x:>10}|{x:.3f}|{x:+e}"


@case((3.14159, 10, 2), (1, 4, 0), (2.5, "x", 1))
def fstring_nested_spec(x, width, prec):
    return f"{x:{width}.{prec}f}|{x!r:>{width}}"


@case((1,), ("s",))
def fstring_debug(x):
    return f"{x=}", f"{x + x = }", f"{x=!s}", f"{x=:>5}"


@case(({"a": 1, "b": [2]},), ({"a": "z"},))
def fstring_expressions(d):
    return f"{d['a']}-{len(d)}-{{literal}}-{'yes' if len(d) > 1 else 'no'}"


@case((Fmt(), 3), (Fmt(), "w"))
def fstring_custom_format(obj, width):
    return f"{obj}|{obj:spec}|{obj:{width}x}|{obj!s:>5}|{obj!r}"


# ---------------------------------------------------------------------------
# assert, raise, del
# ---------------------------------------------------------------------------


@case((1,), (0,), (-2.5,))
def assert_with_message(x):
    assert x > 0, f"expected a positive number, got {x}"
    return x


@case(([1],), ([],))
def assert_without_message(xs):
    assert xs
    return xs[0]


@case((0,), (1,), (2,), (3,))
def raise_custom(code):
    if code == 1:
        raise CornerCase("code one")
    if code == 2:
        raise LookupFailed(code)
    if code == 3:
        raise CornerCase
    return "no error"


@case(({"a": 1}, "a"), ({"a": 1}, "b"), ([], 0))
def raise_from(d, k):
    try:
        return d[k]
    except KeyError as e:
        raise LookupFailed(k) from e


@case((0,), (1,))
def raise_from_none(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        raise ValueError("x must not be zero") from None


@case(([], 1), ([], 0))
def bare_reraise(log, x):
    try:
        return 1 / x
    except ZeroDivisionError:
        log.append("caught")
        raise


@case((1,), (0,), ("s",))
def reraise_from_nested_handler(x):
    try:
        try:
            return 10 / x
        except ZeroDivisionError as inner:
            raise CornerCase(f"inner: {inner}")
    except CornerCase:
        raise


@case((True,), (False,))
def raise_class_not_instance(flag):
    if flag:
        raise ValueError
    raise KeyError


@case((5,), ("s",))
def raise_non_exception(value):
    raise value


@case((1,), ([1],))
def del_local(x):
    y = x
    del y
    return y


@case((1,), (2,))
def del_then_rebind(x):
    y = x
    del y
    y = x * 3
    return y


@case(({"a": 1, "b": 2}, [1, 2, 3]), ({"b": 2}, [1]), ({"a": 1}, []))
def del_items(d, lst):
    del d["a"], lst[0]
    return d, lst


@case((Box(1), False), (Box(), True), (Box([1]), False))
def del_attribute(box, twice):
    del box.value
    has = hasattr(box, "value")
    if twice:
        del box.value
    return has, vars(box)


@case((3,), (0,), (6,))
def del_in_loop(n):
    out = []
    for i in range(n):
        tmp = i * 2
        out.append(tmp)
        del tmp
    if n > 5:
        return tmp
    return out


@case((1,), (0,))
def del_conditionally(flag):
    value = "here"
    if flag:
        del value
    return value


# ---------------------------------------------------------------------------
# with
# ---------------------------------------------------------------------------


@case(([],), (["old"],))
def with_basic(log):
    with Recorder(log, "a") as r:
        log.append(r.name)
    return log


@case(([], 2), ([], 0))
def with_exception_propagates(log, x):
    with Recorder(log):
        value = 1 / x
    log.append("after")
    return value


@case(([], 2), ([], 0))
def with_suppresses(log, x):
    value = "unset"
    with Recorder(log, suppress=True):
        value = 1 / x
        log.append("not reached on error")
    log.append("after")
    return value


@case(([], 3), ([], "s"))
def with_return_inside(log, x):
    with Recorder(log, "r"):
        return x * 2
    log.append("unreachable")


@case(([],), ([1],))
def with_multiple_items(log):
    with Recorder(log, "a") as a, Recorder(log, "b") as b:
        log.append((a.name, b.name))
    return log


@case(([], 5), ([], 0))
def with_in_loop_break_continue(log, n):
    for i in range(n):
        with Recorder(log, i):
            if i == 1:
                continue
            if i == 3:
                break
            log.append(i * 10)
    return log


@case(([], 1), ([], 0), ([], -1))
def with_try_inside(log, x):
    with Recorder(log, "outer"):
        try:
            if x < 0:
                raise CornerCase("negative")
            log.append(1 / x)
        except ZeroDivisionError:
            log.append("zero")
    return log


@case(([], True), ([], False))
def with_enter_raises(log, fail):
    with Recorder(log, "bad", fail_enter=fail):
        log.append("body")
    return log


@case(([], 0), ([], 1))
def with_nested_suppression(log, x):
    with Recorder(log, "outer"):
        with Recorder(log, "inner", suppress=True):
            log.append(1 / x)
        log.append("between")
        raise LookupFailed(x)


@case(("line one\nline two",), ("",))
def with_stringio(text):
    with io.StringIO(text) as stream:
        lines = [line.strip() for line in stream]
    return lines, stream.closed


# ---------------------------------------------------------------------------
# try / except / else / finally
# ---------------------------------------------------------------------------


@case((2,), (0,), ("s",))
def try_except_basic(x):
    try:
        result = 10 / x
    except ZeroDivisionError:
        result = None
    return result


@case((2,), (0,))
def try_except_else(x):
    log = []
    try:
        value = 10 // x
    except ZeroDivisionError as e:
        log.append(str(e))
        value = -1
    else:
        log.append("no error")
        value += 1
    return value, log


@case(([], 1), ([], 0), ([], None))
def try_finally_order(log, x):
    try:
        log.append("try")
        log.append(1 / x)
    finally:
        log.append("finally")
    log.append("after")
    return log


@case(({"a": [1]}, "a", 0), ({"a": [1]}, "b", 0), ({"a": [1]}, "a", 5),
      ({"a": 1}, "a", 0))
def try_except_tuple(d, key, index):
    try:
        return d[key][index]
    except (KeyError, IndexError) as e:
        return type(e).__name__, e.args


@case((2,), (0,), (-1,), ("s",))
def try_nested(x):
    log = []
    try:
        try:
            if x == -1:
                raise CornerCase("minus one")
            log.append(10 / x)
        except ZeroDivisionError:
            log.append("inner zero")
            raise LookupFailed(x)
        finally:
            log.append("inner finally")
    except CornerCase as e:
        log.append(("outer", str(e)))
    finally:
        log.append("outer finally")
    return log


@case((1,), (0,))
def try_return_in_finally(x):
    try:
        return 1 / x
    finally:
        return "finally wins"


@case(([1, 2, -1, 3], []), ([], []), ([5], []))
def try_break_through_finally(xs, log):
    for x in xs:
        try:
            if x < 0:
                break
            log.append(x)
        finally:
            log.append(("finally", x))
    return log


@case(([1, -2, 3], []), ([-1], []))
def try_continue_through_finally(xs, log):
    total = 0
    for x in xs:
        try:
            if x < 0:
                continue
            total += x
        finally:
            log.append(x)
    return total, log


@case((3, []), (0, []))
def try_return_inside_try(x, log):
    try:
        log.append("body")
        return 6 / x
    except ZeroDivisionError:
        log.append("handler")
        return "inf"
    finally:
        log.append("finally")


@case((2, []), (0, []), ("s", []))
def try_all_clauses(x, log):
    try:
        value = 10 / x
    except ZeroDivisionError as e:
        log.append(("except", str(e)))
        value = None
    else:
        log.append("else")
        value += 1
    finally:
        log.append("finally")
    return value


@case((1,), (0,))
def except_name_is_deleted(x):
    e = "before"
    try:
        1 / x
    except ZeroDivisionError as e:
        message = str(e)
    return e


@case((0,), (1,))
def except_name_deleted_even_if_rebound(x):
    try:
        1 / x
    except ZeroDivisionError as err:
        err = "rebound"
        kept = err
    else:
        err = "assigned in else"
        kept = "no error"
    return kept, err


@case((["1", "x", "3"],), ([],), (["7", None],))
def try_except_in_loop(items):
    parsed, errors = [], []
    for item in items:
        try:
            parsed.append(int(item))
        except ValueError as e:
            errors.append(str(e))
    return parsed, errors


@case((0,), (1,))
def raise_inside_handler_chains_context(x):
    try:
        1 / x
    except ZeroDivisionError:
        raise CornerCase("while handling")
    return "fine"


@case((0,), (1,))
def exception_in_finally_replaces(x):
    try:
        1 / x
    finally:
        raise LookupFailed("from finally")


@case((0,), (1,), (2,))
def first_matching_clause_wins(code):
    try:
        if code == 0:
            raise LookupFailed("k")
        if code == 1:
            raise CornerCase("c")
        raise KeyError("plain")
    except LookupFailed:
        return "lookup"
    except CornerCase:
        return "corner"
    except LookupError:
        return "lookup error"


@case((0,), (1,))
def bare_except(x):
    try:
        return 1 / x
    except:
        return "anything"


@case((1,), (0,))
def try_finally_value_captured(x):
    try:
        return x
    finally:
        x += 100


@case((0,), (1,))
def exception_in_else_not_caught(x):
    try:
        value = 10 + x
    except ZeroDivisionError:
        value = "handled"
    else:
        value = 1 / x
    return value


@case((3,), (0,))
def try_in_while_with_continue(n):
    i, log = 0, []
    while i < n:
        i += 1
        try:
            if i == 2:
                continue
            log.append(i)
        finally:
            log.append(-i)
    else:
        log.append("else")
    return log


@case((0,), (1,), (2,))
def return_from_except_and_finally_order(code):
    log = []
    try:
        try:
            if code == 1:
                raise CornerCase("one")
            if code == 2:
                return "returned"
        except CornerCase:
            log.append("handled")
            return "from handler"
        finally:
            log.append("inner finally")
    finally:
        log.append("outer finally")
        print(log)
    return "end"


@case((1,), (0,))
def caught_exception_as_value(x):
    try:
        1 / x
    except ZeroDivisionError as e:
        caught = e
    else:
        caught = None
    return caught


# ---------------------------------------------------------------------------
# Classes and methods
# ---------------------------------------------------------------------------


@case((1.0,), (2,), (-1.5,))
def use_circle(r):
    c = Circle(r)
    before = c.area
    c.scale(2)
    c.diameter = c.diameter + 1
    return before, c.area, c.radius, Circle.unit_area(), c.describe()


@case((4.0,), (-2.0,))
def use_classmethod_and_setter(d):
    c = Circle.from_diameter(d)
    return type(c).__name__, c.radius, c.diameter


@case((3,), (0.5,))
def use_square(side):
    s = Square(side)
    grown = s.grow(2, times=2)
    return grown, s.area, s.describe(), isinstance(s, Shape), Square.sides


@case(([3, 1, 2],), ([],))
def use_builtin_methods(lst):
    lst.sort()
    lst.append(len(lst))
    lst.extend([0] * 2)
    popped = lst.pop(0) if lst else None
    return popped, lst, lst.count(0), "-".join(map(str, lst))


@case((1,), (2,))
def class_and_instance_attributes(k):
    before = Shape.sides
    s = Shape("thing")
    s.sides = k
    return before, s.sides, Shape.sides, s.area, s.describe()


case((Circle(1.0),), (Circle(0.5),))(Circle.area.fget)
case((Circle(1.0), 2), (Circle(3), 0.5), (Circle(1), "x"))(Circle.scale)
case((Circle(1.0),), (Circle(2),))(Circle.describe)
case((Circle(1.0), 4), (Circle(1.0), -1))(Circle.diameter.fset)
case((Circle(1.0), 3.0), (Circle(1.0), "r"))(Circle.__init__)
case((), ())(Circle.unit_area)
case((Circle, 4.0), (Circle, -1))(Circle.from_diameter.__func__)
case((Square(2), "s"), (Square(1), "t"))(Square.__init__)
case(call(Square(2)), call(Square(2), 3, times=2), call(Square(1), times=0),
     call(Square(1), 1, 2))(Square.grow)
case((Shape("blob"),), (Square(3),))(Shape.describe)


# ---------------------------------------------------------------------------
# Numeric code of the kind people differentiate
# ---------------------------------------------------------------------------


@case((2.0,), (-1.5,), (0,), (np.array([1.0, 2.0]),))
def polynomial(x):
    return 3 * x ** 3 - 2 * x ** 2 + x - 7


@case(([1.0, -2.0, 3.0], 2.0), ([], 1.0), ([5], 0.5))
def horner(coeffs, x):
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


@case((2.0,), (0.0,), (1e6,), (-4.0,))
def newton_sqrt(a):
    if a < 0:
        raise CornerCase(f"no real square root of {a}")
    x = a if a > 1 else 1.0
    for _ in range(100):
        nxt = 0.5 * (x + a / x)
        if abs(nxt - x) < 1e-12:
            break
        x = nxt
    return x


@case((27.0,), (-8.0,), (2.0,))
def newton_cube_root(a):
    x = 1.0
    i = 0
    while i < 60 and abs(x ** 3 - a) > 1e-10:
        x -= (x ** 3 - a) / (3 * x ** 2)
        i += 1
    return x, i


@case((10,), (0,))
def sum_of_squares_loop(n):
    total = 0.0
    for i in range(n):
        total += i * i * 0.5
    return total


@case(([1.5, 2.0, -1.0],), ([],))
def running_product(xs):
    out = []
    acc = 1.0
    for x in xs:
        acc *= x
        out.append(acc)
    return out


@case((1.0, 10), (-2.5, 20), (0.0, 0))
def taylor_exp(x, n):
    term, total = 1.0, 1.0
    for k in range(1, n):
        term *= x / k
        total += term
    return total


@case((0.0, 2.0), (1.0, 3.0), (3.0, 4.0))
def bisection(lo, hi):
    f = lambda t: t * t - 2.0
    if f(lo) * f(hi) > 0:
        raise ValueError("no sign change")
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return lo, hi


@case((10, 0.1), (0, 0.5), (100, 0.01))
def euler_ode(steps, h):
    y, t = 1.0, 0.0
    trajectory = [y]
    for _ in range(steps):
        y = y + h * (-2.0 * y + math.sin(t))
        t += h
        trajectory.append(y)
    return trajectory[-1], len(trajectory)


@case((np.array([1.0, 2.0, 3.0]),), (np.array([1000.0, 1000.0]),),
      (np.array([[1.0, 2.0], [0.0, 0.0]]),))
def softmax(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


@case((np.array([1.0, 2.0]),), (np.array([-np.inf, 0.0]),))
def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


@case((np.arange(6.0).reshape(2, 3), np.array([1.0, 0.5, -1.0])),
      (np.eye(2), np.array([1.0, 2.0, 3.0])))
def matvec_loops(A, x):
    rows, cols = A.shape
    out = np.zeros(rows)
    for i in range(rows):
        for j in range(cols):
            out[i] += A[i, j] * x[j]
    return out


@case((np.array([1.0, -2.0]), 0.1), (np.array([0.0]), 1.0))
def gradient_descent_inplace(params, lr):
    for _ in range(5):
        grad = 2 * params
        params -= lr * grad
    return params


@case((np.arange(12.0).reshape(3, 4),), (np.array([[1, 2], [3, 4]]),))
def numpy_reductions(a):
    return (a.sum(), a.mean(axis=0), a.max(axis=1, keepdims=True),
            np.cumsum(a, axis=-1), a.T @ a, np.linalg.norm(a))


@case((np.arange(3.0), np.arange(3.0)[:, None]), (np.ones(2), np.ones(3)))
def numpy_broadcast(a, b):
    return a + b, a * b


@case((np.array([-2.0, 0.5, 3.0]),), (np.array([np.nan, 1.0]),))
def numpy_where_clip(a):
    return np.where(a > 0, a, 0.0), np.clip(a, -1, 1), np.maximum(a, 0.1)


@case((np.array([[2.0, 1.0], [1.0, 3.0]]), 20), (np.eye(3), 2))
def power_iteration(A, n):
    v = np.ones(A.shape[0])
    for _ in range(n):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v, v @ A @ v


@case((1.0, 1.0), (-1.2, 1.0), (0.0, 0.0))
def rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


@case((10,), (1,), (0,))
def trapezoid_integral(n):
    h = math.pi / n
    total = 0.5 * (math.sin(0.0) + math.sin(math.pi))
    for k in range(1, n):
        total += math.sin(k * h)
    return total * h


@case((10,), (1,), (0,), (-1,))
def fib_iterative(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@case((np.array([[1.0, 1.0], [1.0, 0.0]]), 5), (np.eye(2), 0))
def matrix_power_loop(M, k):
    result = np.eye(M.shape[0])
    while k > 0:
        if k & 1:
            result = result @ M
        M = M @ M
        k >>= 1
    return result


@case((1 + 1j,), (2.0,), (-1.0,))
def complex_newton(z):
    for _ in range(30):
        z = z - (z ** 3 - 1) / (3 * z ** 2)
    return complex(round(z.real, 9), round(z.imag, 9))


@case((4.0,), (-1.0,), (0.0,))
def math_domain_errors(x):
    return math.sqrt(x), math.log(x)


@case((np.array([1.0, np.nan, -0.0]),), (np.array([0.0, 0.0]),))
def numpy_nan_and_signed_zero(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / 0.0, np.sqrt(a), -a, np.nan_to_num(a)


@case((np.arange(5.0),), (np.ones((2, 2)),))
def numpy_append_history(x):
    history = []
    for step in range(3):
        x = x * 0.5 + step
        history.append(x.copy())
    return np.stack(history), x


@case(([1.0, 2.0, 3.0], [0.5, 0.5, 0.5]), ([], []), ([1.0], [1.0, 2.0]))
def dot_product_zip(u, v):
    if len(u) != len(v):
        raise ValueError(f"length mismatch: {len(u)} != {len(v)}")
    return sum(a * b for a, b in zip(u, v))


@case(([0.5, 1.5, -2.0],), ([],))
def mean_and_variance(xs):
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / n
    return mean, var


# ---------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------


@case((3,), (0,))
def print_in_loop(n):
    for i in range(n):
        print("step", i, i * i)
    print(f"done after {n}")
    return n


@case((1,), (0,))
def print_in_finally(x):
    try:
        print("trying")
        return 1 / x
    except ZeroDivisionError as e:
        print("error:", e)
        raise
    finally:
        print("finally")


@case((1, 2), ("a", "b"))
def print_sep_end(a, b):
    print(a, b, sep="|", end="")
    print()
    print(a, b, sep="")
    return None
