def sum_of_squares_forward(x):
    trip = 0
    saved_i = []
    saved_t = []
    saved_t_1 = []
    s = 0.0
    for i in range(len(x)):
        saved_i.append(i)
        t = x[i]
        saved_t.append(t)
        t_2 = x[i]
        saved_t_1.append(t_2)
        s += t * t_2
        trip += 1

    def sum_of_squares_pullback(ds):
        dx = 0
        for _ in range(trip):
            t_1 = saved_t_1.pop()
            t_2 = saved_t.pop()
            i = saved_i.pop()
            dx = runtime.add_at(dx, x, i, ds * t_2)
            dx = runtime.add_at(dx, x, i, ds * t_1)
        return (dx,)
    return (s, sum_of_squares_pullback)
