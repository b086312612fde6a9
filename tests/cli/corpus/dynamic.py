"""Calls the compiler keeps for run time: the module needs zygote_py."""
import math


def fact(n: int):
    return 1 if n <= 1 else n * fact(n - 1)


def chain(x):
    return math.log(1.0 + x * x) * fact(3)


def hyp(x, y):
    return math.hypot(x, y) * x
