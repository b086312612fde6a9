def logsumexp_jvp(x, dx):
    m = np.max(x)
    dm = np.sum(numpy_reductions.extremum_grad(np.ones_like(m), x, m, None, False) * dx, None, keepdims=False)
    t = x - m
    t_1 = np.exp(t)
    t_2 = np.sum(t_1)
    t_3 = m + np.log(t_2)
    return (t_3, runtime.shaped(dm + np.sum(runtime.shaped(dx - dm, t) * t_1) / t_2, t_3))
