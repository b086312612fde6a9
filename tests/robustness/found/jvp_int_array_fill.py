# Found by the fuzzer (make fuzz over floats: program_795), cut down by hand. At (p0, p1, q, n) = fuzz_programs.POINTS:
# jvp raised TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'
# (np.full(3, y) with y the int 3 on the first trip and the float p0 after: y is active, so the product's
# inlined rule computes with the full's tangent, which numpy_shapes.tangent_as makes None for an integer array)
import numpy as np


def prog(p0, p1, q, n):
    y = 3
    u = q * 1.0
    for i1 in range(2):
        u = u * np.full(3, y)
        y = p0
    return np.sum(u)
