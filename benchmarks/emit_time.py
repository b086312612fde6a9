"""How long ``zpy emit`` takes on a module of twenty small functions (the
target of issue 35: under 5 s), in a fresh process, as a user runs it.

    python benchmarks/emit_time.py
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(functions: int = 20) -> float:
    body = "\n\n".join(
        f"def f{i}(x: np.ndarray, a: float):\n    y = np.tanh(a * x + {i}.0)\n    return np.sum(y * y) + a * {i}.5"
        for i in range(functions))
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "many.py"
        source.write_text("import numpy as np\n\n\n" + body + "\n")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "zygote_py", "emit", str(source), "-o", str(Path(folder) / "g.py")],
                       check=True)
        elapsed = time.perf_counter() - start
    print(f"zpy emit, {functions} functions: {elapsed:.2f} s (target: under 5 s)")
    return elapsed


if __name__ == "__main__":
    main()
