def foo_jvp(x, dx):
    t = math.sin(x)
    t_1 = math.cos(t)
    return (t_1, -(dx * math.cos(x)) * math.sin(t))
