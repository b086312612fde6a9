def sum_of_squares_forward(x):
    trip = 0
    saved_i = []
    saved_t = []
    s = 0.0
    for i in range(len(x)):
        saved_i.append(i)
        t = x[i]
        saved_t.append(t)
        s += t * t
        trip += 1

    def sum_of_squares_pullback(ds):
        dx = 0
        for _ in range(trip):
            t_1 = saved_t.pop()
            i = saved_i.pop()
            dx = runtime.add_to(dx, x, i, ds * t_1 + ds * t_1)
        return (dx,)
    return (s, sum_of_squares_pullback)
