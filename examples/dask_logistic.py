"""Logistic regression on more data than a worker may hold: gradient descent
with zygote_py's gradients of a plain NumPy loss, on a Dask cluster.

    pip install -e '.[examples]' 'dask[array,distributed]'
    python examples/dask_logistic.py      # 8,000,000 x 8 (512 MB), 2 workers of 400 MB; writes dask_logistic.png

The features and labels are Dask arrays made chunk by chunk on the workers
(nothing here holds them). `loss` is written for NumPy; called on Dask
arrays, NumPy hands each operation to Dask, and `zpy.value_and_gradient`
returns the loss and the gradient as lazy Dask arrays: a task graph. Each
step computes both in one pass over the data on the cluster, then updates
the two parameters, which are small NumPy arrays here.
"""
import argparse
import time

import numpy as np

import zygote_py as zpy


def loss(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray):
    """The mean logistic loss of labels ``y`` (0 or 1) for the scores ``X w + b``."""
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def data(rows, columns=8, chunk=500_000, seed=0):
    """Features and labels of a noisy linear model, lazily, in chunks of
    ``chunk`` rows; and the model's weights and intercept."""
    import dask.array as da

    state = da.random.RandomState(seed)
    w_true, b_true = np.linspace(-2.0, 2.0, columns), 0.5
    X = state.normal(size=(rows, columns), chunks=(chunk, columns))
    y = (X @ w_true + b_true + state.logistic(size=rows, chunks=chunk) > 0).astype(float)
    return X, y, w_true, b_true


def train(X, y, steps, rate, verbose=True):
    """Gradient descent from zeros; the loss before each step."""
    import dask

    w, b = np.zeros(X.shape[1]), 0.0
    history = []
    for step in range(steps):
        start = time.perf_counter()
        value, (dw, db) = zpy.value_and_gradient(loss, w, b, X=X, y=y)  # (lazy: a task graph)
        value, dw, db = dask.compute(value, dw, db)  # (one pass over the data, on the workers)
        w, b = w - rate * dw, b - rate * float(db)
        history.append(float(value))
        if verbose:
            print(f"step {step + 1:3d}/{steps}  loss {value:.5f}  |grad| {np.hypot(np.linalg.norm(dw), db):.2e}"
                  f"  {time.perf_counter() - start:5.2f}s", flush=True)
    return w, b, history


def main(rows=8_000_000, chunk=500_000, steps=20, rate=2.0, workers=2, memory_limit="400MB",
         plot="dask_logistic.png", verbose=True):
    from dask.distributed import Client, LocalCluster

    X, y, w_true, b_true = data(rows, chunk=chunk)
    if verbose:
        print(f"{rows:,} x {X.shape[1]} float64 ({X.nbytes / 1e6:,.0f} MB) in {X.npartitions} chunks, "
              f"{workers} workers of {memory_limit}")
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                      dashboard_address=None) as cluster, Client(cluster):
        w, b, history = train(X, y, steps, rate, verbose)
    if verbose:
        print(f"weights {np.round(w, 2)} (true {np.round(w_true, 2)}), intercept {b:.2f} (true {b_true})")
    if plot and _has_matplotlib():
        save_plot(plot, history)
        if verbose:
            print(f"wrote {plot}")
    return {"w": w, "b": b, "history": history, "w_true": w_true, "b_true": b_true}


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def save_plot(path, history):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(np.arange(1, len(history) + 1), history)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title("logistic regression on a Dask cluster")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--chunk", type=int, default=500_000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="400MB")
    parser.add_argument("--plot", default="dask_logistic.png", help="PNG to write ('' for none)")
    args = parser.parse_args()
    main(args.rows, args.chunk, args.steps, args.rate, args.workers, args.memory_limit, args.plot)
