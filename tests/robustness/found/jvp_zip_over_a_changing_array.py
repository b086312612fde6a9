# Found by the fuzzer (make fuzz --exclude closure: program_101386, and 101158), cut down by hand. At
# (p0, p1, q, n) = fuzz_programs.POINTS: jvp's VALUE differs from the plain function's (a silent wrong
# result). runtime._push_iterator computes zip's (and enumerate's, map's...) items at once, where Python's
# zip reads u lazily: the loop's change of u in place reaches the later items in the plain program only.
import numpy as np


def prog(p0, p1, q, n):
    u = q * 1.0
    v = q * p0
    x = p1
    for e, f in zip(u, v):
        u += 0.25 * v
        x = x + e * f
    return x
