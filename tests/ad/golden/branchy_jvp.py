def branchy_jvp(x, y, dx, dy):
    if x > y:
        z = x * y
        dz = dx * y + x * dy
    elif x > 0.0:
        z = math.sin(x) + y
        dz = dx * math.cos(x) + dy
    else:
        t = math.exp(x)
        z = t * y
        dz = dx * t * y + t * dy
    if z < 1.0:
        z_1 = z * z
        dz = dz * z + z * dz
        z = z_1
    return (z, dz)
