def drain(items):
    out = []
    for x in items:
        try:
            if x < 0:
                label = 2
            else:
                out.append(x)
                label = 1
        except BaseException as exc:
            out.append(0)
            raise exc
        if label == 1:
            out.append(0)
            continue
        out.append(0)
        break
    return out
