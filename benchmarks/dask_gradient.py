"""make bench, Dask: the gradient of a logistic-regression loss on a local
Dask cluster, against its forward pass on the same cluster (issue 37).

The loss is ``examples/dask_logistic.py``'s, plain NumPy, on 8,000,000 x 8
float64 features and their labels (512 MB), made chunk by chunk on the
workers. For 1 and 2 worker processes (one thread each, 400 MB each) it
reports the wall-clock time of

- ``forward``: the loss computed (``dask.compute(loss(w, b, X, y))``);
- ``gradient``: ``zpy.gradient(loss, w, b, X=X, y=y)`` built (lazily) and
  computed: the weights' and the intercept's;
- ``by hand``: the same gradient written in Dask, ``X.T (p - y) / n`` and
  ``mean(p - y)``;

the ratios ``gradient / forward`` (target: at most 3) and ``gradient / by
hand``, and the most memory a worker process held while they ran (sampled
every 50 ms by Dask's own monitor), against its 400 MB limit. Each is the
best of ``--repeat`` runs. Nothing is checked by assertion, but the gradient
is compared with the one by hand, and a mismatch or a worker over its limit
makes the run exit with status 1.

Usage: ``python benchmarks/dask_gradient.py [--rows N] [--chunk N] [--repeat N] [--workers 1,2]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import dask_logistic  # noqa: E402

import zygote_py as zpy  # noqa: E402

LIMIT = 400e6


def best(run, repeat: int) -> tuple[float, object]:
    """The shortest wall-clock time of ``repeat`` calls of ``run``, and its last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def peak_memory(client, since: float) -> float:
    """The most memory any worker process held since the time ``since``."""
    def peak(dask_worker):
        quantities = dask_worker.monitor.quantities
        return max((m for m, t in zip(quantities["memory"], quantities["time"]) if t >= since), default=0)
    return max(client.run(peak).values())


def measure(workers: int, rows: int, chunk: int, repeat: int) -> dict:
    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    X, y, _, _ = dask_logistic.data(rows, chunk=chunk)
    w, b = np.linspace(0.3, -0.3, X.shape[1]), 0.1

    def forward():
        return dask.compute(dask_logistic.loss(w, b, X, y))[0]

    def gradient():
        return dask.compute(*zpy.gradient(dask_logistic.loss, w, b, X=X, y=y))

    def by_hand():
        residual = 1 / (1 + da.exp(-(X @ w + b))) - y
        return dask.compute(X.T @ residual / rows, residual.mean())

    with dask.config.set({"distributed.admin.system-monitor.interval": "50ms"}), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=LIMIT,
                         dashboard_address=None) as cluster, Client(cluster) as client:
        forward()  # (warm: the workers' imports, zygote_py's compilation of the loss)
        gradient()
        since = time.time()
        t_forward, _ = best(forward, repeat)
        t_gradient, got = best(gradient, repeat)
        t_hand, expected = best(by_hand, repeat)
        memory = peak_memory(client, since)
    right = all(np.allclose(g, e, rtol=1e-9, atol=1e-14) for g, e in zip(got, expected))
    return {"workers": workers, "forward": t_forward, "gradient": t_gradient, "hand": t_hand,
            "memory": memory, "right": right}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--chunk", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args(argv)
    print(f"logistic loss on a local Dask cluster: {args.rows:,} x 8 float64 ({args.rows * 64 / 1e6:,.0f} MB) in "
          f"chunks of {args.chunk:,} rows, workers of one thread and {LIMIT / 1e6:.0f} MB; best of {args.repeat}")
    print(f"{'workers':>7} {'forward s':>10} {'gradient s':>11} {'by hand s':>10} {'grad/fwd':>9} {'grad/hand':>10}"
          f" {'peak MB/worker':>15}")
    failed = False
    for workers in map(int, args.workers.split(",")):
        r = measure(workers, args.rows, args.chunk, args.repeat)
        note = "" if r["right"] else "  WRONG: the gradient differs from the one by hand"
        if r["memory"] >= LIMIT:
            note += "  OVER the limit"
        failed |= bool(note)
        print(f"{r['workers']:>7} {r['forward']:>10.2f} {r['gradient']:>11.2f} {r['hand']:>10.2f}"
              f" {r['gradient'] / r['forward']:>9.2f} {r['gradient'] / r['hand']:>10.2f}"
              f" {r['memory'] / 1e6:>15.0f}{note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
