def bisect(f, lo, hi, tol):
    while hi - lo > tol and f(lo) * f(hi) < 0:
        mid = (lo + hi) / 2
        if f(mid) * f(lo) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo, hi)
