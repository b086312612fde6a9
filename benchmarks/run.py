"""make bench: zygote_py's gradients against forward time, hand-written
gradients, hand-written taped reverse loops and (when installed) autograd,
JAX and PyTorch; and the time to compile a fresh 30-line function.

Every gradient column is checked against the hand-written gradient before it
is timed, and every hand-written gradient against central differences, so a
fast wrong answer cannot pass unnoticed: a mismatch is flagged in the table
and makes the run exit with status 1.

A workload is a :class:`Workload`: the plain function as a user writes it,
its argument values (the first is the one differentiated, the rest are
integers), the hand-written gradient, optionally the hand-written taped
reverse loop, the same function written against a NumPy-like module for the
peer libraries, and the target ratio. Add one to ``WORKLOADS`` and every
column, ratio and JSON field follows.

Usage: ``python benchmarks/run.py [--json PATH] [--repeat N]``.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import importlib.metadata
import importlib.util
import itertools
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
import timeit
from dataclasses import dataclass
from typing import Any, Callable, Optional

import zygote_py as zpy

# --------------------------------------------------------------------------
# Workloads: the user's function, a careful person's gradient, a careful
# person's taped reverse loop, and the function for the peer libraries.
# --------------------------------------------------------------------------


def sincos(x):
    return math.sin(math.cos(x))


def sincos_hand(x):
    return -math.cos(math.cos(x)) * math.sin(x)


def sincos_in(m):
    def sincos(x):
        return m.sin(m.cos(x))
    return sincos


def loop(x, n):
    r = 1.0
    while n > 0:
        r *= math.sin(x)
        n -= 1
    return r


def loop_hand(x, n):
    # Forward accumulation of d/dx alongside the loop: O(n) like the
    # function itself (the closed form n sin(x)^(n-1) cos(x) would measure
    # algebra, not differentiation).
    c = math.cos(x)
    r, dr = 1.0, 0.0
    while n > 0:
        s = math.sin(x)
        dr = dr * s + r * c
        r *= s
        n -= 1
    return dr


def loop_taped(x, n):
    # What a source transform can aim for: the primal loop recording the one
    # value that changes per iteration, then a reverse loop replaying it.
    tape = []
    r = 1.0
    s = 0.0
    while n > 0:
        s = math.sin(x)
        tape.append(r)
        r *= s
        n -= 1
    c = math.cos(x)
    dr, dx = 1.0, 0.0
    for _ in range(len(tape)):
        r = tape.pop()
        dx += dr * r * c
        dr *= s
    return dx


def loop_in(m):
    def loop(x, n):
        r = 1.0
        while n > 0:
            r *= m.sin(x)
            n -= 1
        return r
    return loop


def power(x, n):
    r = 1.0
    while n > 0:
        n -= 1
        r *= x
    return r


def power_hand(x, n):
    r, dr = 1.0, 0.0
    while n > 0:
        n -= 1
        dr = dr * x + r
        r *= x
    return dr


def power_taped(x, n):
    tape = []
    r = 1.0
    while n > 0:
        n -= 1
        tape.append(r)
        r *= x
    dr, dx = 1.0, 0.0
    for _ in range(len(tape)):
        r = tape.pop()
        dx += dr * r
        dr *= x
    return dx


def power_in(m):
    def power(x, n):
        r = 1.0
        while n > 0:
            n -= 1
            r *= x
        return r
    return power


@dataclass(frozen=True)
class Workload:
    """One benchmark. ``target`` is ``(column, limit)``: ours should take at
    most ``limit`` times that column's time."""

    name: str
    summary: str
    forward: Callable
    args: tuple
    hand: Callable
    taped: Optional[Callable]
    library_form: Callable[[Any], Callable]  # NumPy-like module → function
    target: tuple[str, float]


WORKLOADS = [
    Workload("sincos", "math.sin(math.cos(x))", sincos, (1.0,), sincos_hand, None,
             sincos_in, ("hand", 3.0)),
    Workload("loop", "r *= math.sin(x), n = 500 times", loop, (1.5, 500), loop_hand, loop_taped,
             loop_in, ("taped", 1.5)),
    Workload("pow", "r *= x, n = 30 times", power, (1.1, 30), power_hand, power_taped,
             power_in, ("taped", 1.5)),
]

# The first-compile benchmark: 30 lines with arithmetic, math calls, an
# if/else, a while loop holding an if, and a for loop. Each sample imports
# it from a new file under a new function name: code objects with equal
# contents compare (and hash) equal, so a new name is what makes the
# compilation caches, keyed by code object, miss.
COMPILE_SOURCE = '''\
import math


def model_NUMBER(x, n):
    a = math.sin(x) * x
    b = math.cos(a) + x * x
    c = a * b - math.exp(-x)
    if c > 0:
        d = c * 2.0
    else:
        d = -c
    r = 0.0
    i = 0
    while i < n:
        r = r + d * math.sin(r + x)
        if r > 10.0:
            r = r / 2.0
        i += 1
    e = math.tanh(r) + a
    f = e * e + b
    g = math.log(1.0 + f * f)
    h = g * math.sqrt(1.0 + x * x)
    for k in range(3):
        h = h + math.cos(h) * k
    s = h + e
    t = s * a - b
    u = t / (1.0 + s * s)
    v = u + math.atan(u)
    w = v * v + x
    p = math.exp(-w * w)
    q = p * w + v
    z = q * math.cos(q)
    return z + a * p
'''
COMPILE_ARGS = (0.7, 5)
COMPILE_TARGET_MS = 30.0
_fresh_names = itertools.count()

# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """``fn(*args)`` followed by the expression suffix ``then``, timed as a
    ``timeit`` statement so that no wrapper function adds to the time."""

    fn: Callable
    args: tuple
    then: str = ""

    def statement(self) -> str:
        return "fn(" + ", ".join(f"a{i}" for i in range(len(self.args))) + ")" + self.then

    def namespace(self) -> dict[str, Any]:
        return {"fn": self.fn, **{f"a{i}": a for i, a in enumerate(self.args)}}

    def run(self) -> Any:
        return eval(self.statement(), self.namespace())

    def timer(self) -> timeit.Timer:
        # CPU time of this process, not wall time: on a shared machine the
        # time other processes hold the CPU is not ours to count.
        return timeit.Timer(self.statement(), timer=time.process_time, globals=self.namespace())


def calls_per_run(timer: timeit.Timer, run_s: float) -> int:
    """How many calls take about ``run_s`` seconds."""
    timer.timeit(1)  # warm up
    number = 1
    while (elapsed := timer.timeit(number)) < run_s / 10:
        number *= 10
    return max(1, round(number * run_s / elapsed))


def best_times(
    calls: dict[str, Call], rounds: int, run_s: float = 0.005, budget_s: float = 0.4
) -> dict[str, float]:
    """CPU microseconds per call of each column: the best of up to
    ``rounds`` timed loops of about ``run_s`` seconds each (at least 3, and
    no more than ``budget_s`` seconds per column). Many short loops give
    many chances of one undisturbed by other processes' use of the shared
    caches; the columns take turns, one loop each per round, so that lasting
    load falls on all of them alike."""
    timers = {c: call.timer() for c, call in calls.items()}
    numbers = {c: calls_per_run(t, run_s) for c, t in timers.items()}
    best = dict.fromkeys(calls, math.inf)
    spent = dict.fromkeys(calls, 0.0)
    for i in range(rounds):
        for c, t in timers.items():
            if i >= 3 and spent[c] > budget_s:
                continue
            elapsed = t.timeit(numbers[c])
            spent[c] += elapsed
            best[c] = min(best[c], elapsed / numbers[c])
    return {c: v * 1e6 for c, v in best.items()}


def gradient_value(result: Any) -> float:
    """The gradient with respect to the first argument, from any column's
    result (a tuple of gradients, a float, a 0-d array or tensor)."""
    if isinstance(result, (tuple, list)):
        result = result[0]
    return float(result)


def central_difference(w: Workload, h: float = 1e-6) -> float:
    x, rest = w.args[0], w.args[1:]
    return (w.forward(x + h, *rest) - w.forward(x - h, *rest)) / (2 * h)


# --------------------------------------------------------------------------
# zygote_py's own columns
# --------------------------------------------------------------------------


def emitted_call(w: Workload) -> Optional[Call]:
    """The compiled gradient function that ``zpy.gradient`` runs (the
    forward pass fused with the pullback's body), called directly: the
    emitted code's cost without the API's per-call work. Reached through
    the pipeline's internal functions; ``None`` if they have moved."""
    try:
        from zygote_py.ad import pipeline

        active, numeric = pipeline.masks(w.forward, w.args, {})
        entry = pipeline.compiled(w.forward, active, numeric, False)
        fused = entry.gradient_function(w.forward)
    except (ImportError, AttributeError, TypeError):
        return None
    return Call(fused, w.args, "[1]")  # (y, gradients) → gradients


# --------------------------------------------------------------------------
# Peers: other AD libraries, each optional
# --------------------------------------------------------------------------


@dataclass
class Prepared:
    call: Call
    compile_ms: Optional[float] = None


class Peer:
    """An AD library measured when importable. ``module`` is what must
    import; ``prepare`` builds the gradient call for a workload."""

    name = ""
    module = ""

    def __init__(self) -> None:
        self.lib: Any = None

    def load(self) -> bool:
        try:
            self.lib = importlib.import_module(self.module)
        except ImportError:
            return False
        self.setup()
        return True

    def setup(self) -> None:
        """One-time configuration after import."""

    def version(self) -> str:
        return importlib.metadata.version(self.module)

    def prepare(self, w: Workload) -> Prepared:
        raise NotImplementedError


class Autograd(Peer):
    name, module = "autograd", "autograd"

    def prepare(self, w: Workload) -> Prepared:
        anp = importlib.import_module("autograd.numpy")
        return Prepared(Call(self.lib.grad(w.library_form(anp)), w.args))


class Jax(Peer):
    """``jax.grad`` run eagerly, op by op, as a user without ``jit`` gets."""

    name, module = "jax", "jax"

    def setup(self) -> None:
        self.lib.config.update("jax_enable_x64", True)  # same precision as the others

    def prepare(self, w: Workload) -> Prepared:
        grad = self.lib.grad(w.library_form(self.lib.numpy))
        return Prepared(Call(grad, w.args, ".block_until_ready()"))


class JaxJit(Jax):
    """``jax.jit(jax.grad(f))`` with the integer arguments static (so loops
    unroll at trace time); the first call's trace and compile is reported
    separately and excluded from the timed calls."""

    name = "jax.jit"

    def prepare(self, w: Workload) -> Prepared:
        static = tuple(range(1, len(w.args)))
        grad = self.lib.jit(self.lib.grad(w.library_form(self.lib.numpy)), static_argnums=static)
        call = Call(grad, w.args, ".block_until_ready()")
        start = time.process_time()
        call.run()
        return Prepared(call, (time.process_time() - start) * 1e3)


class Torch(Peer):
    """``torch.autograd.grad`` on a float64 scalar tensor that requires
    grad (created once, as a user's parameter would be)."""

    name, module = "torch", "torch"

    def prepare(self, w: Workload) -> Prepared:
        torch = self.lib
        f = w.library_form(torch)
        x = torch.tensor(w.args[0], dtype=torch.float64, requires_grad=True)

        def grad(x, *rest):
            return torch.autograd.grad(f(x, *rest), x)

        return Prepared(Call(grad, (x, *w.args[1:])))


PEERS: list[Peer] = [Autograd(), Jax(), JaxJit(), Torch()]

# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


RATIOS = [("ours", "forward"), ("ours", "hand"), ("ours", "taped"), ("emitted", "hand"), ("emitted", "taped")]


@dataclass
class Result:
    workload: Workload
    times: dict[str, float]  # column → µs per call
    compile_ms: dict[str, float]  # peer column → first call, ms
    wrong: dict[str, float]  # column → gradient that disagreed with hand
    notes: list[str]

    def ratio(self, num: str, den: str) -> Optional[float]:
        if num in self.times and den in self.times:
            return self.times[num] / self.times[den]
        return None

    def target_ratio(self) -> Optional[float]:
        return self.ratio("ours", self.workload.target[0])

    def target_met(self) -> Optional[bool]:
        got = self.target_ratio()
        return None if got is None else got <= self.workload.target[1]


def gradient_calls(w: Workload, peers: list[Peer]) -> tuple[dict[str, Call], dict[str, float], list[str]]:
    """Every gradient column's call for ``w`` (peers that fail to build or
    run it are left out with a note), the peers' compile times, and the
    notes."""
    calls = {"ours": Call(zpy.gradient, (w.forward, *w.args))}
    compile_ms: dict[str, float] = {}
    notes: list[str] = []
    emitted = emitted_call(w)
    if emitted is not None:
        calls["emitted"] = emitted
    else:
        notes.append("no emitted column: zygote_py's pipeline internals have changed")
    calls["hand"] = Call(w.hand, w.args)
    if w.taped is not None:
        calls["taped"] = Call(w.taped, w.args)
    for peer in peers:
        try:
            prepared = peer.prepare(w)
            prepared.call.run()
        except Exception as e:  # a peer that cannot run a workload costs one column, not the run
            notes.append(f"{peer.name} failed on {w.name}: {type(e).__name__}: {e}")
            continue
        calls[peer.name] = prepared.call
        if prepared.compile_ms is not None:
            compile_ms[peer.name] = prepared.compile_ms
    return calls, compile_ms, notes


def run_workload(w: Workload, peers: list[Peer], repeat: int) -> Result:
    """Check every gradient column against the hand-written gradient (and
    that against central differences), then time every column."""
    zpy.gradient(w.forward, *w.args)  # compile before anything is timed
    calls, compile_ms, notes = gradient_calls(w, peers)
    expected = gradient_value(w.hand(*w.args))
    fd = central_difference(w)
    if not math.isclose(expected, fd, rel_tol=1e-5, abs_tol=1e-8):
        notes.append(f"hand-written gradient {expected!r} disagrees with central difference {fd!r}")
    wrong = {}
    for column, call in calls.items():
        got = gradient_value(call.run())
        if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
            wrong[column] = got
    times = best_times({"forward": Call(w.forward, w.args), **calls}, repeat)
    return Result(w, times, compile_ms, wrong, notes)


def compile_times(samples: int) -> dict[str, Any]:
    """CPU milliseconds for a fresh function's first ``zpy.ir`` (source →
    optimised IR) and then its first ``zpy.gradient`` (reverse transform,
    emission, compilation, one call); min and median over ``samples``
    freshly imported modules. The target is judged on the minimum, the
    time with the least interference. The last gradient is checked
    against central differences."""
    phases: dict[str, list[float]] = {"ir": [], "gradient": [], "total": []}
    with tempfile.TemporaryDirectory(prefix="zpy_bench_") as tmp:
        for _ in range(samples):
            i = next(_fresh_names)
            name = f"zpy_bench_model_{i}"
            path = os.path.join(tmp, name + ".py")
            with open(path, "w") as fh:
                fh.write(COMPILE_SOURCE.replace("NUMBER", str(i)))
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            model = getattr(module, f"model_{i}")
            gc.collect()
            start = time.process_time()
            zpy.ir(model)
            middle = time.process_time()
            got = gradient_value(zpy.gradient(model, *COMPILE_ARGS))
            end = time.process_time()
            phases["ir"].append((middle - start) * 1e3)
            phases["gradient"].append((end - middle) * 1e3)
            phases["total"].append((end - start) * 1e3)
    body = COMPILE_SOURCE[COMPILE_SOURCE.index("def "):]
    x, rest, h = COMPILE_ARGS[0], COMPILE_ARGS[1:], 1e-6
    fd = (model(x + h, *rest) - model(x - h, *rest)) / (2 * h)
    return {
        "lines": len(body.strip().splitlines()),
        "samples": samples,
        **{f"{k}_ms": {"min": min(v), "median": statistics.median(v)} for k, v in phases.items()},
        "target_ms": COMPILE_TARGET_MS,
        "met": min(phases["total"]) <= COMPILE_TARGET_MS,
        "gradient": got,
        "central_difference": fd,
        "gradient_ok": math.isclose(got, fd, rel_tol=1e-5, abs_tol=1e-8),
    }


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


def fmt_us(v: Optional[float]) -> str:
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(v: Optional[float]) -> str:
    return "-" if v is None else (f"{v:.0f}x" if v >= 100 else f"{v:.2f}x")


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [header, ["-" * w for w in widths], *rows]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in lines
    )


def time_table(results: list[Result], columns: list[str]) -> str:
    rows = []
    for r in results:
        row = [r.workload.name]
        for c in columns:
            cell = fmt_us(r.times.get(c))
            row.append(cell + " WRONG" if c in r.wrong else cell)
        rows.append(row)
    return table(["workload", *columns], rows)


def ratio_table(results: list[Result]) -> str:
    rows = []
    for r in results:
        against, limit = r.workload.target
        met = r.target_met()
        verdict = "-" if met is None else ("met" if met else "MISSED")
        api = r.times["ours"] - r.times["emitted"] if "emitted" in r.times else None
        rows.append([
            r.workload.name,
            *(fmt_ratio(r.ratio(a, b)) for a, b in RATIOS),
            fmt_us(api),
            f"ours/{against} <= {limit:g}: {verdict}",
        ])
    header = ["workload", *(f"{a}/{b}" for a, b in RATIOS), "API us", "target"]
    return table(header, rows)


def environment(peers: list[Peer], loaded: list[Peer], repeat: int) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "repeat": repeat,
        "zygote_py": zpy.__version__,
        "peers": {p.name: (p.version() if p in loaded else None) for p in peers},
    }


def report(env: dict[str, Any], results: list[Result], comp: dict[str, Any]) -> str:
    peers = [name for name, v in env["peers"].items() if v is not None]
    missing = [name for name, v in env["peers"].items() if v is None]
    columns = ["forward", "ours", "emitted", "hand", "taped", *peers]
    columns = [c for c in columns if any(c in r.times for r in results)]
    out = [
        f"zygote_py {env['zygote_py']} benchmarks: Python {env['python']}, {env['machine']}, "
        f"{env['cpus']} CPUs, load average {env['load_average'][0]}",
        "peers: " + (", ".join(f"{n} {env['peers'][n]}" for n in peers) or "none")
        + (f"; not installed: {', '.join(missing)} (pip install -e '.[bench]')" if missing else ""),
        "",
        f"CPU time per gradient in microseconds (forward: the plain function), best of up to "
        f"{env['repeat']} rounds:",
        "",
        time_table(results, columns),
        "",
        "Ratios (ours: zpy.gradient(f, *args); emitted: the compiled gradient function",
        "it runs, called directly; API us: what zpy.gradient adds on top of it):",
        "",
        ratio_table(results),
    ]
    jit = [(r.workload.name, r.compile_ms["jax.jit"]) for r in results if "jax.jit" in r.compile_ms]
    if jit:
        out += ["", "jax.jit first call (trace + compile), CPU ms: "
                + ", ".join(f"{name} {ms:,.0f}" for name, ms in jit)]
    out += [
        "",
        f"First compile of a fresh {comp['lines']}-line function, CPU ms over {comp['samples']} samples "
        f"(min / median):",
        f"  zpy.ir (parse, lower, optimise):           "
        f"{comp['ir_ms']['min']:6.1f} / {comp['ir_ms']['median']:6.1f}",
        f"  zpy.gradient (transform, emit, compile):   "
        f"{comp['gradient_ms']['min']:6.1f} / {comp['gradient_ms']['median']:6.1f}",
        f"  total:                                     "
        f"{comp['total_ms']['min']:6.1f} / {comp['total_ms']['median']:6.1f}"
        f"   target <= {comp['target_ms']:g}: {'met' if comp['met'] else 'MISSED'}",
    ]
    if not comp["gradient_ok"]:
        out.append(f"WRONG GRADIENT: compile benchmark gave {comp['gradient']!r}, "
                   f"central difference {comp['central_difference']!r}")
    out.append(f"\nThis run: {env['duration_s']['wall']:.0f} s wall, {env['duration_s']['cpu']:.0f} s CPU.")
    for r in results:
        out += [f"note: {n}" for n in r.notes]
        out += [f"WRONG GRADIENT: {r.workload.name} {c} gave {v!r}, hand-written "
                f"{gradient_value(r.workload.hand(*r.workload.args))!r}" for c, v in r.wrong.items()]
    return "\n".join(out)


def to_json(env: dict[str, Any], results: list[Result], comp: dict[str, Any]) -> dict[str, Any]:
    workloads = {}
    for r in results:
        against, limit = r.workload.target
        workloads[r.workload.name] = {
            "summary": r.workload.summary,
            "args": list(r.workload.args),
            "times_us": r.times,
            "ratios": {f"{a}/{b}": r.ratio(a, b) for a, b in RATIOS if r.ratio(a, b) is not None},
            "target": {"against": against, "limit": limit, "ratio": r.target_ratio(), "met": r.target_met()},
            "compile_ms": r.compile_ms,
            "wrong_gradients": r.wrong,
            "notes": r.notes,
        }
    return {"environment": env, "workloads": workloads, "compile": comp}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--repeat", type=int, default=100, help="timing rounds at most; the best is kept")
    parser.add_argument("--compile-samples", type=int, default=9, help="fresh functions to compile")
    opts = parser.parse_args(argv)
    wall, cpu = time.perf_counter(), time.process_time()
    loaded = [p for p in PEERS if p.load()]
    results = [run_workload(w, loaded, opts.repeat) for w in WORKLOADS]
    comp = compile_times(opts.compile_samples)
    env = environment(PEERS, loaded, opts.repeat)
    env["duration_s"] = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    print(report(env, results, comp))
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(to_json(env, results, comp), fh, indent=2)
            fh.write("\n")
    return 1 if any(r.wrong for r in results) or not comp["gradient_ok"] else 0


if __name__ == "__main__":
    sys.exit(main())
