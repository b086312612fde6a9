def first_multiple(xs, k):
    for i in range(len(xs)):
        if xs[i] % k == 0:
            found = i
            break
    else:
        found = None
    return found
