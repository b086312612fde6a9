"""Calls the compiler keeps for run time: by their rules (math.hypot, a
product with what the recursive fact returns), or needing zygote_py (a
nested function assigning a variable of the enclosing one)."""
import math


def fact(n: int):
    return 1 if n <= 1 else n * fact(n - 1)


def chain(x):
    return math.log(1.0 + x * x) * fact(3)


def hyp(x, y):
    return math.hypot(x, y) * x


def nested(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
    add(x * x)
    return total + 1.0
