"""zygote_py.tensor's cost table and convolution-loss timing (issue 11).

1. The cost model (paper §4.3) of each of the paper's examples and of its
   adjoint: additions, multiplications and black-box calls, the ratio, and
   the bound the tests check, cost(adjoint) <= 4 * cost(e) + |X| + |Y|.
2. The deconvolution loss sum_i (sum_k w[k] x[i + k] - b[i])^2 at
   n = 10,000, k = 16: the gradient with respect to x that zygote_py.tensor
   generates, against a hand-written vectorised NumPy gradient (np.correlate
   then np.convolve). The target is a ratio under 2.

Usage: ``python benchmarks/tensor_costs.py [--repeat N]``.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from zygote_py.tensor import examples as X  # noqa: E402
from zygote_py.tensor.compiled import compile  # noqa: E402
from zygote_py.tensor.cost import size  # noqa: E402

TABLE = [
    ("convolution, n=256 k=16 (wrt x, w)", X.convolution(256, 16)),
    ("deconvolution loss, n=256 k=16", X.deconvolution_loss(256, 16)),
    ("trace, 64x64", X.trace(64)),
    ("matrix-vector, 64x64", X.matvec(64, 64)),
    ("matrix-matrix, 16x16x16", X.matmul(16, 16, 16)),
    ("sum skipping one entry, n=64", X.skip_one(64, 5)),
    ("first column x first row, 32x32", X.first_col_times_first_row(32)),
    ("tanh layer, 32x32", X.tanh_layer(32, 32)),
    ("2-D convolution, 32x32 k=3", X.convolution_2d(32, 3)),
    ("pairwise tanh with [i != j], n=32", X.pairwise_tanh(32)),
]


def cost_table() -> list[str]:
    head = f"| {'example':38s} | {'original (+, *, f)':>24s} | {'adjoint (+, *, f)':>24s} | ratio | bound |"
    lines = [head, "|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|"]
    for name, (e, shapes) in TABLE:
        f = compile(e, shapes, name="f")
        c0, c1 = f.costs()
        io = sum(size(s) for s in shapes.values()) + size(f.out_shape)
        bound = 4 * c0.total + io
        ratio = f"{c1.total / c0.total:5.2f}" if c0.total else "    -"
        cells = [f"{c.total} ({c.add}, {c.mul}, {c.call})" for c in (c0, c1)]
        verdict = "ok" if c1.total <= bound else "FAIL"
        lines.append(f"| {name:38s} | {cells[0]:>24s} | {cells[1]:>24s} | {ratio} | {verdict:>5s} |")
    return lines


def hand_gradient(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d/dx sum((correlate(x, w) - b)^2), written by hand."""
    r = np.correlate(x, w, "valid") - b
    return 2.0 * np.convolve(r, w)


def best_of(fns: list, repeat: int, number: int) -> list[float]:
    """Best time per call of each of ``fns``, measured in alternation so that
    a change in the machine's load hits all of them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for j, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[j] = min(best[j], (time.perf_counter() - t0) / number)
    return best


def convolution_timing(repeat: int) -> tuple[list[str], float]:
    n, k = 10_000, 16
    e, shapes = X.deconvolution_loss(n, k)
    f = compile(e, shapes, name="deconvolution_loss", wrt=["x"])
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(n + k - 1), rng.standard_normal(k), rng.standard_normal(n)
    (gx, _, _) = f.vjp((x, w, b), 1.0)
    if not np.allclose(gx, hand_gradient(x, w, b)):
        raise SystemExit("generated gradient disagrees with the hand-written one")
    generated, hand = best_of([lambda: f.adjoint_fn(x, w, b, 1.0), lambda: hand_gradient(x, w, b)], repeat, 50)
    ratio = generated / hand
    lines = [
        f"deconvolution loss gradient, n = {n:,}, k = {k} (best of {repeat} x 50 calls):",
        f"  generated NumPy  {generated * 1e6:8.1f} us",
        f"  hand-written     {hand * 1e6:8.1f} us",
        f"  ratio            {ratio:8.2f}  (target < 2)",
        "",
        "generated gradient:",
        *("  " + line for line in f.adjoint_source.splitlines()),
    ]
    return lines, ratio


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    print("cost model: original vs adjoint (bound: adjoint <= 4 * original + |inputs| + |output|)")
    print("\n".join(cost_table()))
    print()
    lines, ratio = convolution_timing(args.repeat)
    print("\n".join(lines))
    return 0 if ratio < 2 else 1


if __name__ == "__main__":
    sys.exit(main())
