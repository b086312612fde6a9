def dense_layer_jvp(W, x, b, dW, db):
    t = W @ x + b
    t_1 = np.tanh(t)
    t_2 = np.sum(t_1 ** 2)
    return (t_2, np.sum(runtime.shaped(dW @ x + db, t) * (1.0 - t_1 * t_1) * (2 * t_1)))
