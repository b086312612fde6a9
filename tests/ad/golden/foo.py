def foo_forward(x):
    t = math.sin(x)

    def foo_pullback(dy):
        dx = -dy * math.sin(t) * math.cos(x)
        return (dx,)
    return (math.cos(t), foo_pullback)
