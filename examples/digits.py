"""Handwritten digits: logistic regression and a two-layer MLP trained by
gradient descent on scikit-learn's bundled digits (8x8 images, 1,797 of
them; no download), with the gradients from zygote_py.

    pip install -e '.[examples]'      # scikit-learn, tqdm, matplotlib
    python examples/digits.py         # writes digits.png: loss and accuracy

The models are plain NumPy functions of a dict of parameters, trained as in
JAX: `zpy.value_and_grad(loss)` returns the loss and the gradient, a dict
with the same keys and shapes, and `zpy.tree.map` applies the update to
every array at once. Print `zpy.differentiable(mlp_loss).source` to read
the backward pass that runs.
"""
import argparse

import numpy as np

import zygote_py as zpy


def log_softmax(z: np.ndarray):
    z = z - np.max(z, axis=1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))


def cross_entropy(logits: np.ndarray, onehot: np.ndarray):
    return -np.sum(onehot * log_softmax(logits)) / len(logits)


def logistic_loss(params: dict[str, np.ndarray], X: np.ndarray, Y: np.ndarray):
    """Multinomial logistic regression: mean cross-entropy of X @ W + b."""
    return cross_entropy(X @ params["W"] + params["b"], Y)


def mlp_loss(params: dict[str, np.ndarray], X: np.ndarray, Y: np.ndarray, decay: float):
    """A hidden layer of tanh units, then softmax; L2 weight decay."""
    W1, W2 = params["W1"], params["W2"]
    h = np.tanh(X @ W1 + params["b1"])
    logits = h @ W2 + params["b2"]
    return cross_entropy(logits, Y) + decay * (np.sum(W1 * W1) + np.sum(W2 * W2))


def logistic_predict(params: dict[str, np.ndarray], X: np.ndarray):
    return np.argmax(X @ params["W"] + params["b"], axis=1)


def mlp_predict(params: dict[str, np.ndarray], X: np.ndarray):
    return np.argmax(np.tanh(X @ params["W1"] + params["b1"]) @ params["W2"] + params["b2"], axis=1)


def load(test_fraction=0.25, seed=0):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    X = digits.data / 16.0                      # pixels in [0, 1]
    y = digits.target
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_fraction, random_state=seed, stratify=y)
    return X_train, X_test, y_train, y_test


def sgd(loss, params, data, epochs, batch, lr, rng, progress, accuracy):
    """Minibatch gradient descent with momentum 0.9: ``params`` is a dict of
    arrays, ``loss(params, X, Y, *extra)`` a scalar. Returns the trained
    parameters, each epoch's mean training loss and ``accuracy(params)``."""
    X, Y, *extra = data
    step = zpy.value_and_grad(loss)  # differentiates params, the first argument; the data are constants
    velocity = zpy.tree.map(np.zeros_like, params)
    history, accuracies = [], []
    for _ in progress(range(epochs)):
        order = rng.permutation(len(X))
        total = 0.0
        for start in range(0, len(X), batch):
            rows = order[start:start + batch]
            value, grads = step(params, X[rows], Y[rows], *extra)
            velocity = zpy.tree.map(lambda v, g: 0.9 * v - lr * g, velocity, grads)
            params = zpy.tree.map(lambda p, v: p + v, params, velocity)
            total += value * len(rows)
        history.append(total / len(X))
        accuracies.append(accuracy(params))
    return params, history, accuracies


def main(epochs=30, hidden=64, batch=32, plot="digits.png", seed=0, verbose=True):
    from tqdm import tqdm

    X_train, X_test, y_train, y_test = load(seed=seed)
    Y_train = np.eye(10)[y_train]
    rng = np.random.default_rng(seed)
    d = X_train.shape[1]

    def progress(name):
        return lambda it: tqdm(it, desc=name, disable=not verbose, leave=True)

    # logistic regression
    logistic = {"W": np.zeros((d, 10)), "b": np.zeros(10)}
    logistic, logistic_history, logistic_curve = sgd(
        logistic_loss, logistic, (X_train, Y_train), epochs, batch, 0.1, rng,
        progress("logistic"), lambda p: np.mean(logistic_predict(p, X_test) == y_test))
    logistic_accuracy = logistic_curve[-1]

    # two-layer MLP
    mlp = {"W1": rng.normal(0.0, 1.0 / np.sqrt(d), (d, hidden)), "b1": np.zeros(hidden),
           "W2": rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 10)), "b2": np.zeros(10)}
    mlp, mlp_history, mlp_curve = sgd(
        mlp_loss, mlp, (X_train, Y_train, 1e-4), epochs, batch, 0.05, rng,
        progress("MLP"), lambda p: np.mean(mlp_predict(p, X_test) == y_test))
    mlp_train_accuracy = np.mean(mlp_predict(mlp, X_train) == y_train)
    mlp_accuracy = mlp_curve[-1]

    if verbose:
        print(f"{len(X_train)} training and {len(X_test)} test images, {epochs} epochs")
        print(f"logistic regression: loss {logistic_history[0]:.3f} -> {logistic_history[-1]:.3f}, "
              f"test accuracy {logistic_accuracy:.1%}")
        print(f"MLP ({hidden} tanh units): loss {mlp_history[0]:.3f} -> {mlp_history[-1]:.3f}, "
              f"train accuracy {mlp_train_accuracy:.1%}, test accuracy {mlp_accuracy:.1%}")
    if plot:
        save_plot(plot, logistic_history, mlp_history, logistic_curve, mlp_curve)
        if verbose:
            print(f"wrote {plot}")
    return {"logistic_history": logistic_history, "logistic_accuracy": logistic_accuracy,
            "mlp_history": mlp_history, "mlp_accuracy": mlp_accuracy,
            "mlp_train_accuracy": mlp_train_accuracy}


def save_plot(path, logistic_history, mlp_history, logistic_curve, mlp_curve):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    epochs = np.arange(1, len(mlp_history) + 1)
    left.plot(epochs, logistic_history, label="logistic regression")
    left.plot(epochs, mlp_history, label="MLP")
    left.set_yscale("log")
    left.set_xlabel("epoch")
    left.set_ylabel("training loss")
    left.legend()
    right.plot(epochs, logistic_curve, label=f"logistic regression ({logistic_curve[-1]:.1%})")
    right.plot(epochs, mlp_curve, label=f"MLP ({mlp_curve[-1]:.1%})")
    right.set_ylim(0.85, 1.0)
    right.set_xlabel("epoch")
    right.set_ylabel("test accuracy")
    right.legend(loc="lower right")
    fig.suptitle("digits, trained with zygote_py's gradients")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--plot", default="digits.png", help="PNG to write ('' for none)")
    args = parser.parse_args()
    main(epochs=args.epochs, hidden=args.hidden, plot=args.plot)
