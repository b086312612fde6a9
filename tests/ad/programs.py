"""Functions differentiated by the control-flow tests.

They live in a real module because zygote_py reads their source with
``inspect``. Each one exercises one control-flow shape; the float arguments
are differentiated, int arguments are loop counts or switches.
"""
import math


# branches --------------------------------------------------------------


def if_elif_else(x):
    if x < -1.0:
        y = x * x * x
    elif x < 1.0:
        y = math.sin(x) * 2.0
    else:
        y = math.exp(x) - x
    return y


def if_without_else(x, y):
    z = x * y
    if x > y:
        z = z + math.cos(x)
    return z


def nested_if(x, y):
    if x > 0.0:
        if y > 0.0:
            r = x * y
        else:
            r = x - y * y
    else:
        if y > x:
            r = math.exp(x + y)
        else:
            r = y / (1.0 + x * x)
    return r


def multiple_returns(x):
    if x > 2.0:
        return x * x
    if x > 0.0:
        return math.sqrt(x) * 3.0
    return -x * math.exp(x)


def conditional_expression(x, y):
    a = x * y if x > y else math.sin(x) + y
    return a * (y * y if a > 0.0 else x)


def short_circuit_and(x, y):
    if x > 0.0 and y > 0.0:
        return x * y
    return x + 2.0 * y


def short_circuit_or(x, y):
    if x > 1.0 or y * x < -1.0:
        r = math.cos(x) * y
    else:
        r = x * x * y
    return r


def short_circuit_mixed(x, y):
    r = x
    if (x > 0.0 and y > 0.0) or not (x < -1.0 or y < -1.0):
        r = r * y + math.sin(x)
    else:
        r = r - y
    return r


def chained_comparison(x, y):
    if -1.0 < x < y < 3.0:
        return x * y * y
    if y <= x <= 2.0 * y:
        return math.exp(x) * y
    return x - y


def abs_min_max(x, y):
    return abs(x - y) * min(x, y) + max(x * x, y) + abs(math.sin(x))


def min_max_many(x, y, z):
    return min(x, y, z) * max(x, y, z) + min(x * y, 1.0)


def sum_of_list(x, y):
    return sum([x, x * y, math.sin(y), 2.0])


def sum_with_start(x, y):
    return sum([x * x, y], 1.0) * y


# loops -----------------------------------------------------------------


def while_loop(x, n):
    r = 1.0
    while n > 0:
        n -= 1
        r = r * x + math.sin(r)
    return r


def for_range(x, n):
    r = x
    for i in range(n):
        r = r * math.cos(r) + i * x
    return r


def for_range_start_stop_step(x, y):
    s = 0.0
    for i in range(2, 11, 3):
        s = s + x ** i * y
    return s


def loop_with_break(x, n):
    r = x
    for i in range(n):
        r = r * 1.5 + math.sin(r)
        if r > 10.0:
            break
    return r


def while_with_break(x):
    r = x
    k = 0
    while True:
        k += 1
        r = r * r + 0.25
        if r > 3.0 or k > 6:
            break
    return r * x


def loop_with_continue(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            continue
        t = x * i
        if math.sin(t) < 0.0:
            continue
        s = s + t * t
    return s


def while_with_continue(x, y):
    s = x
    k = 0
    while k < 6:
        k += 1
        if s > y:
            s = s - y * 0.5
            continue
        s = s * 1.3 + x
    return s


def early_return_in_loop(x, n):
    r = x
    for i in range(n):
        r = r * r - 1.0
        if r > 5.0:
            return r * x
    return r + x


def early_return_in_while(x):
    r = x
    while r < 100.0:
        r = r * 2.0 + math.exp(-r)
        if r * r > 50.0:
            return math.log(r)
    return r


def nested_loops_2(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i + 1):
            s = s + x * math.sin(s + j)
    return s


def nested_loops_3(x, y):
    s = x
    for i in range(3):
        for j in range(2):
            k = 0
            while k < i + j:
                k += 1
                s = s * 0.9 + y * math.cos(s)
    return s


def nested_with_break_continue(x, y):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if j == i:
                continue
            s = s + x * j - y * i
            if s > 3.0:
                break
        s = s * 0.5
    return s


def for_else(x, n):
    r = x
    for i in range(n):
        r = r * 1.2
        if r > 4.0:
            break
    else:
        r = r * math.sin(x)
    return r


def while_else(x, y):
    r = x
    k = 0
    while k < 5:
        k += 1
        r = r + y * r
        if r > 20.0:
            break
    else:
        r = r - math.exp(y)
    return r * x


def newton_sqrt(a):
    """Newton's iteration for sqrt(a): the trip count depends on ``a``."""
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def trip_count_from_x(x):
    """The loop runs ceil-ish(x) times: piecewise smooth in x."""
    s = 0.0
    t = 0.0
    while t < x:
        t = t + 1.0
        s = s + x * t
    return s


def math_in_loop(x, n):
    s = x
    for i in range(n):
        t = math.sin(s) + math.cos(s) * math.tanh(s) + math.exp(-s * s)
        t = t + math.log(1.0 + s * s) + math.sqrt(1.0 + s * s) + math.atan(s)
        t = t + math.sinh(s) + math.cosh(s) + math.pow(s * s + 1.0, 0.5)
        t = t + math.hypot(s, x) + math.log2(2.0 + s * s) + math.log10(3.0 + s * s)
        t = t + math.asin(math.tanh(s) * 0.5) + math.acos(math.tanh(s) * 0.5) + math.atan2(s, 2.0)
        t = t + math.expm1(s) + math.log1p(s * s) + math.erf(s) + math.tan(s * 0.5)
        s = math.tanh(t * 0.1) + x * 0.5
    return s


# calls -----------------------------------------------------------------


def square(t):
    return t * t


def helper_pair(a, b):
    return a * b, a + b


def calls_helpers(x, y):
    p, q = helper_pair(x, y)
    return square(p) + q * square(math.sin(q))


def tuple_unpacking(x, y):
    a, b = x * y, x - y
    b, a = a, b
    (c, d), e = (a * a, b), math.exp(a)
    return c + d * e


def tuple_from_helper_in_loop(x, n):
    a, b = x, 1.0
    for i in range(n):
        a, b = helper_pair(a, b * 0.5)
    return a + b


def rec_pow(x, n):
    if n == 0:
        return 1.0
    return x * rec_pow(x, n - 1)


def rec_float_factorial(x):
    """x * (x-1) * ... down to a value in (0, 1]: recursion on floats."""
    if x <= 1.0:
        return x
    return x * rec_float_factorial(x - 1.0)


def calls_recursive(x, y):
    return rec_pow(x, 3) + rec_float_factorial(y)


def with_default(x, y=2.0, n=3):
    r = 0.0
    for i in range(n):
        r = r + x * y
        y = y * x
    return r


def calls_with_default(x):
    return with_default(x) + with_default(x, 0.5)


def keyword_only(x, y, *, scale=1.5, shift=0.0):
    return (x * y + shift) * scale


def calls_keyword_only(x, y):
    return keyword_only(x, y, scale=x, shift=y * y) + keyword_only(y, x)


def even_odd_a(x, n):
    if n == 0:
        return x
    return math.sin(even_odd_b(x, n - 1))


def even_odd_b(x, n):
    if n == 0:
        return x * x
    return even_odd_a(x * 1.1, n - 1) + x


def nested_closure(x, y):
    def inner(t):
        return t * x + y
    return inner(inner(x))


SCALE = 2.5


def reads_module_constant(x):
    return SCALE * x * x


def while_compound_condition(x, n):
    r = x
    k = 0
    while k < n and r < 10.0:
        k += 1
        r = r * 1.5 + x
    return r


def for_over_tuple(x, y):
    s = 0.0
    for c in (1.0, x, y * y):
        s = s * c + c
    return s


def for_negative_step(x, n):
    s = x
    for i in range(n, 0, -1):
        s = s * 0.5 + i * math.sin(s)
    return s


def augmented_assignments(x, y):
    s = x
    s += y
    s *= x
    s -= y * y
    s /= 1.0 + x * x
    s **= 2
    return s


def data_dependent_trip(x):
    r = x
    while r < 10.0:
        r = r * 1.5 + x
    return r


def int_power_loop(x, n):
    s = 0.0
    for k in range(n):
        s = s + x ** k / (k + 1)
    return s


def tuple_valued_math(x, y):
    m, e = math.frexp(x * y)
    frac, whole = math.modf(x + y)
    q, r = divmod(x, 0.75)
    return m * x + e * y + frac * whole + r * y


def dead_value_in_branch(x, y):
    """``x``'s new value never reaches the output: no gradient flows back
    through the call made in the branch."""
    if y > 0.0:
        x = math.log(1.0 + y ** 2)
    x = math.sin(x)
    return y * 2.0


def for_over_list_literal(x, y):
    s = 1.0
    for c in [x, 2.0, x * y]:
        if c > 1.0:
            s = s * c
        else:
            s = s + math.sin(c)
    return s


def sum_squares_of_list(xs):
    s = 0.0
    for c in xs:
        s = s + c * c * math.cos(c)
    return s


def early_return_after_inner_loop(x, y):
    k = 0
    while k < 2 and y > x:
        k += 1
        for j in range(2):
            pass
        if x < 1.0:
            return y * 3.0
    return y / (1.0 + x * x)


def ignores_first(a, b):
    return b * 2.0


def maybe_none_gradient_at_merge(x):
    """No gradient flows to ``z`` from the helper; the branch that
    overwrites ``z`` calls a function through the run-time J."""
    z = math.sin(x)
    if x > 5.0:
        z = max(x, 1.0)
    return ignores_first(z, x)


def constant_one(b):
    return 1.0


def truthiness_of_call_result(x):
    """The value of a call is only tested for truth; another path returns
    a bool."""
    z = math.sin(x)
    t = constant_one(z)
    return 0.5 if t else z > 0.0


def dead_call_result_compared(x):
    """``min``'s value is only compared and never reaches the output."""
    y = 0.5 * x
    z = 1.0
    if x < z:
        z = min(x, y)
    y = -y
    y = z < 0.0
    return 1.0


def swap_in_a_loop(x, y, n):
    """Loop-carried values exchanged on the back edge (a parallel copy)."""
    for _ in range(n):
        t = x
        x = y
        y = t
    return x * 2.0 + y * 0.5


def tuple_swap_in_a_loop(x, y, n):
    k = 0
    while k < n:
        x, y = y, x * 1.5
        k += 1
    return x - y * y
