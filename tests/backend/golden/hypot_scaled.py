def hypot_scaled(x, y, s):
    r = math.sqrt(x * x + y * y)
    return s * r / (1.0 + r)
