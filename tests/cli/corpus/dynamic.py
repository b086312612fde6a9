"""Calls the compiler keeps for run time: by their rules (math.hypot, a
product with what the recursive fact returns), or needing zygote_py (a
nested function called)."""
import math


def fact(n: int):
    return 1 if n <= 1 else n * fact(n - 1)


def chain(x):
    return math.log(1.0 + x * x) * fact(3)


def hyp(x, y):
    return math.hypot(x, y) * x


def nested(x):
    def f(v):
        return v * x
    return f(x) + 1.0
