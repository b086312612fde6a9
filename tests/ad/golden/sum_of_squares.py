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
        dx = runtime.item_buffer(0, x)
        for _ in range(trip):
            t_1 = saved_t.pop()
            i = saved_i.pop()
            dx[i] += 2 * (ds * t_1)
        dx = runtime.item_gradient(dx, x)
        return (dx,)
    return (s, sum_of_squares_pullback)
