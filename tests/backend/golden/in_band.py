def in_band(x, lo, hi):
    if lo <= x and x <= hi or x == 0:
        return 1.0
    return 0.0
