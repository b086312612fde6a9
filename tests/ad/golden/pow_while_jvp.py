def pow_while_jvp(x, n, dx):
    r, dr = (1.0, 0.0)
    while n > 0:
        n -= 1
        dr = dr * x + r * dx
        r *= x
    return (r, dr)
