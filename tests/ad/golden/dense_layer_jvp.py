def dense_layer_jvp(W, x, b, dW, db):
    t = W @ x + b
    t_1 = np.tanh(t)
    t_2 = t_1 ** 2
    t = runtime.shaped(dW @ x + db, t) * (1.0 - t_1 * t_1) * (2 * t_1)
    t_1 = t_2.sum()
    return (t_1, np.sum(t))
