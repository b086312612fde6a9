def counter(start):
    count = start

    def step(by):
        nonlocal count
        count += by
        return count
    step(1)
    step(2)
    return count
