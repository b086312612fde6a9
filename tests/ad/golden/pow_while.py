def pow_while_forward(x, n):
    trip = 0
    saved_r = []
    r = 1.0
    while n > 0:
        n -= 1
        saved_r.append(r)
        r *= x
        trip += 1

    def pow_while_pullback(dr):
        dx = 0.0
        for _ in range(trip):
            r = saved_r.pop()
            dr_1 = dr * x
            dx = dx + dr * r
            dr = dr_1
        return (dx, None)
    return (r, pow_while_pullback)
