def matmul(a, b):
    n = len(a)
    m = len(b[0])
    out = []
    for i in range(n):
        row = []
        for j in range(m):
            s = 0.0
            for k in range(len(b)):
                s += a[i][k] * b[k][j]
            row.append(s)
        out.append(row)
    return out
