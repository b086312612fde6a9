"""How long ``import zygote_py`` takes, against ``import numpy`` (which it
needs), in fresh processes that alternate between the two so that both
see the same machine. Prints the median of each and their ratio (target:
at most 1.5; issue 33), and which of zygote_py's modules the import ran.

    python benchmarks/import_time.py [--runs N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""(Bytecode written and read, as for an installed package: this machine's
shells set PYTHONDONTWRITEBYTECODE, which would time compiling zygote_py's
source, not importing it.)"""

TIMED = ("import time; t = time.perf_counter(); import {module}; "
         "print(time.perf_counter() - t)")


def timed(module: str) -> float:
    """Seconds to import ``module`` in a fresh interpreter (its start-up
    excluded)."""
    out = subprocess.run([sys.executable, "-c", TIMED.format(module=module)], capture_output=True, text=True,
                         check=True, env=ENV).stdout
    return float(out)


def loaded() -> list[str]:
    """The modules of zygote_py that ``import zygote_py`` runs (those the
    compiler needs are left to their first use)."""
    code = "import sys, zygote_py; print(' '.join(sorted(m for m in sys.modules if m.startswith('zygote_py'))))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=ENV).stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    timed("numpy"), timed("zygote_py")  # (warm the file cache and the bytecode)
    numpy, ours = [], []
    for _ in range(runs):
        numpy.append(timed("numpy"))
        ours.append(timed("zygote_py"))
    n, z = statistics.median(numpy), statistics.median(ours)
    print(f"import numpy      {n * 1e3:7.1f} ms  (median of {runs})")
    print(f"import zygote_py  {z * 1e3:7.1f} ms  (numpy included)")
    print(f"ratio             {z / n:7.2f}x  (target <= 1.5x)")
    modules = loaded()
    compiler = [m for m in modules if m.startswith(("zygote_py.ad.", "zygote_py.rules", "zygote_py.backend.",
                                                   "zygote_py.frontend.", "zygote_py.writer"))]
    print(f"modules run       {len(modules)} of zygote_py's; of the compiler and the rules: {compiler or 'none'}")


if __name__ == "__main__":
    main()
