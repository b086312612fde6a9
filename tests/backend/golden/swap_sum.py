def swap_sum(pair):
    a, b = pair
    a, b = (b, a + b)
    return (a, b)
