def squares_of_odds(xs):
    t = []
    for x in xs:
        if x % 2:
            t.append(x * x)
    return t
