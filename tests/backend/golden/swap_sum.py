def swap_sum(pair):
    a, b = pair
    return (b, a + b)
