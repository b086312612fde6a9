"""The first ``zpy.gradient`` call of a fresh process, with and without the
on-disk cache of compiled gradients (``ZPY_CACHE_DIR``; issue 8 item 3,
issue 9 item 5).

For each workload (the MLP loss and logsumexp of ``numpy_workloads.py``),
in fresh processes: the first call with the cache off, with an empty
cache (compiled, then stored), and with the entry an earlier process stored
(loaded); then the second call of the process, which runs the gradient
alone. Each process first runs the hand-written gradient twice, so that
NumPy's and BLAS's own first-call costs are not counted. Wall time,
median of ``--repeat`` processes each. The loaded run's gradient is checked
against the hand-written one (and the process must report a cache hit):
a mismatch exits with status 1.

Usage: ``python benchmarks/disk_cache.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = {
    "MLP loss, 784-100-10, batch 32": ("mlp", "(nw.MLP_W1, nw.MLP_B1, nw.MLP_W2, nw.MLP_B2)"),
    "logsumexp, n=100": ("logsumexp", "(nw.LOGSUMEXP_X,)"),
}

PROCESS = """
import json, sys, time
sys.path.insert(0, {here!r})
import numpy as np
import numpy_workloads as nw
import zygote_py as zpy
from zygote_py.ad import diskcache
args = {args}
nw.{name}_hand(*args); nw.{name}_hand(*args)
t0 = time.perf_counter(); got = zpy.gradient(nw.{name}, *args); t1 = time.perf_counter()
zpy.gradient(nw.{name}, *args); t2 = time.perf_counter()
want = nw.{name}_hand(*args)
want = want if isinstance(want, tuple) else (want,)
ok = all(np.allclose(g, w, rtol=1e-8, atol=1e-12) for g, w in zip(got, want))
print(json.dumps({{"first": t1 - t0, "second": t2 - t1, "ok": ok, "stats": dict(diskcache.stats)}}))
"""


def fresh_process(name: str, args: str, cache: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "ZPY_CACHE_DIR"}
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    if cache is not None:
        env["ZPY_CACHE_DIR"] = cache
    script = PROCESS.format(here=str(HERE), name=name, args=args)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                          cwd=HERE.parent, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per measurement")
    repeat = parser.parse_args().repeat
    failed = False
    print("First zpy.gradient call in a fresh process (median of "
          f"{repeat} processes, ms; NumPy warmed up by the hand-written gradient)")
    print(f"{'workload':34} {'no cache':>9} {'cold':>9} {'warm':>9} {'2nd call':>9}")
    for label, (name, args) in WORKLOADS.items():
        off, cold, warm, second = [], [], [], []
        for _ in range(repeat):
            off.append(fresh_process(name, args, None)["first"])
            with tempfile.TemporaryDirectory() as cache:
                out = fresh_process(name, args, cache)
                cold.append(out["first"])
                out = fresh_process(name, args, cache)
                warm.append(out["first"])
                second.append(out["second"])
                if not out["ok"] or out["stats"].get("hits") != 1:
                    print(f"  {label}: the loaded gradient is wrong or was not loaded: {out}")
                    failed = True
        ms = [1e3 * statistics.median(xs) for xs in (off, cold, warm, second)]
        print(f"{label:34} " + " ".join(f"{m:9.2f}" for m in ms))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
