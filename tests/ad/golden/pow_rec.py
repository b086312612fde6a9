def pow_rec_forward(x, n):
    if n == 0:
        path = 0
        t_1 = 1.0
    else:
        t_1 = ops.unpack(runtime.J(pow_rec, x, n - 1), 2)
        t = t_1[0]
        y_back = t_1[1]
        t_1 = x * t
        path = 1

    def pow_rec_pullback(dy):
        if path == 0:
            dx = 0.0
        else:
            dx = runtime.unbroadcast(dy * t.conjugate(), x)
            dx_1 = runtime.accum(0.0, y_back(runtime.unbroadcast(dy * x, t))[1])
            dx = runtime.accum(dx, dx_1)
        return (dx, None)
    return (t_1, pow_rec_pullback)
