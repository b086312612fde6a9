def pow_rec_forward(x, n):
    if n == 0:
        path = 0
        t = 1.0
    else:
        t, y_back = runtime.J(pow_rec, x, n - 1)
        t, y_back_1 = runtime.J(operator.mul, x, t)
        path = 1

    def pow_rec_pullback(dy):
        if path == 0:
            dx = 0.0
        else:
            t = runtime.call_pullback(y_back_1, dy)
            dx = runtime.accum(0.0, t[1])
            dx_1 = runtime.accum(0.0, runtime.call_pullback(y_back, t[2])[1])
            dx = runtime.accum(dx, dx_1)
        return (dx, None)
    return (t, pow_rec_pullback)
