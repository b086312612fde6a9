def branchy_forward(x, y):
    if x > y:
        z = x * y
        path = 0
    elif x > 0.0:
        z = math.sin(x) + y
        path = 1
    else:
        t = math.exp(x)
        z = t * y
        path = 2
    if z < 1.0:
        z_1 = z * z
        path_1 = 0
    else:
        path_1 = 1
        z_1 = z

    def branchy_pullback(dz):
        if path_1 == 0:
            dz = 2 * (dz * z)
        if path == 0:
            dx = dz * y
            dy = dz * x
        elif path == 1:
            dx = dz * math.cos(x)
            dy = dz
        else:
            dy = dz * t
            dx = dz * y * t
        return (dx, dy)
    return (z_1, branchy_pullback)
