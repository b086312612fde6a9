"""Representative functions whose round-tripped source is kept as golden
files in ``golden/<name>.py`` (see ``test_golden_roundtrip.py``).

``CASES`` maps each function to the inputs it is run on, so the test can
also check that the recompiled function behaves like the original. The
functions are written the way a person would write them: the golden output
should read no worse.
"""
import math


# straight-line arithmetic and a library call
def hypot_scaled(x, y, s):
    r = math.sqrt(x * x + y * y)
    return s * r / (1.0 + r)


# if / elif / else
def classify(x):
    if x < 0:
        kind = "negative"
    elif x == 0:
        kind = "zero"
    else:
        kind = "positive"
    return kind


# while with break and else
def find_divisor(n):
    d = 2
    while d * d <= n:
        if n % d == 0:
            break
        d += 1
    else:
        d = n
    return d


# for over range with break
def first_multiple(xs, k):
    found = None
    for i in range(len(xs)):
        if xs[i] % k == 0:
            found = i
            break
    return found


# break out of try / finally
def drain(items):
    out = []
    for x in items:
        try:
            if x < 0:
                break
            out.append(x)
        finally:
            out.append(0)
    return out


# nested loops
def matmul(a, b):
    n = len(a)
    m = len(b[0])
    out = []
    for i in range(n):
        row = []
        for j in range(m):
            s = 0.0
            for k in range(len(b)):
                s += a[i][k] * b[k][j]
            row.append(s)
        out.append(row)
    return out


# and / or in a condition
def in_band(x, lo, hi):
    if lo <= x and x <= hi or x == 0:
        return 1.0
    return 0.0


# and in a loop condition
def bisect(f, lo, hi, tol):
    while hi - lo > tol and f(lo) * f(hi) < 0:
        mid = (lo + hi) / 2
        if f(mid) * f(lo) <= 0:
            hi = mid
        else:
            lo = mid
    return lo, hi


# tuple unpacking
def swap_sum(pair):
    a, b = pair
    a, b = b, a + b
    return a, b


# comprehension with a filter
def squares_of_odds(xs):
    return [x * x for x in xs if x % 2]


# closure with nonlocal
def counter(start):
    count = start

    def step(by):
        nonlocal count
        count += by
        return count

    step(1)
    step(2)
    return count


# try / except / finally
def safe_ratio(a, b):
    log = []
    try:
        r = a / b
    except ZeroDivisionError:
        r = math.inf
        log.append("div0")
    finally:
        log.append("done")
    return r, log


class Recorder:
    """A context manager that records entering and leaving."""

    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.events.append("exit")
        return False


# with statement
def with_recorder(x):
    rec = Recorder()
    with rec as r:
        r.events.append(x * 2)
    return rec.events


# f-string with a format spec and a conversion
def describe(name, value):
    return f"{name}={value:.3f} ({value!r})"


CASES = {
    hypot_scaled: [(3.0, 4.0, 2.0), (0.0, 0.0, 1.0), (-1.5, 2.0, -3.0)],
    classify: [(-2,), (0,), (5.5,)],
    find_divisor: [(1,), (9,), (13,), (91,)],
    first_multiple: [([1, 3, 4, 8], 2), ([1, 3], 2), ([], 5)],
    drain: [([1, 2, -1, 3],), ([],), ([4],)],
    matmul: [([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]]), ([[1.0]], [[2.0, 3.0]])],
    in_band: [(0.5, 0.0, 1.0), (2.0, 0.0, 1.0), (0, 1, 2), (-1.0, 0.0, 1.0)],
    bisect: [(math.cos, 0.0, 3.0, 1e-3), (math.sin, 1.0, 2.0, 1e-3), (abs, -1.0, 1.0, 10.0)],
    swap_sum: [((1, 2),), ((0.5, -1.5),)],
    squares_of_odds: [([1, 2, 3, 4, 5],), ([],)],
    counter: [(0,), (10,)],
    safe_ratio: [(1.0, 2.0), (1.0, 0.0)],
    with_recorder: [(3,), ("ab",)],
    describe: [("pi", math.pi), ("neg", -0.5)],
}
