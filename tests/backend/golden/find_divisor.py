def find_divisor(n):
    d = 2
    while True:
        if not d * d <= n:
            d = n
            break
        if n % d == 0:
            break
        d += 1
    return d
