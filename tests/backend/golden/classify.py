def classify(x):
    if x < 0:
        kind = 'negative'
    elif x == 0:
        kind = 'zero'
    else:
        kind = 'positive'
    return kind
