"""make bench: zygote_py's gradients against forward time, hand-written
gradients, hand-written taped reverse loops and (when installed) autograd,
JAX and PyTorch; the cost of differentiation per primitive operation on
work-free (float) workloads; and the time to compile a fresh 30-line
function.

Every gradient column is checked against the hand-written gradient before it
is timed, and every hand-written gradient against central differences, so a
fast wrong answer cannot pass unnoticed: a mismatch is flagged in the table
and makes the run exit with status 1.

A workload is a :class:`Workload`: the plain function as a user writes it,
its argument values (floats and float64 arrays are differentiated, integers
are not), the hand-written gradient, optionally the hand-written taped
reverse loop, the same function written against a NumPy-like module for the
peer libraries, and the target ratio. Add one to ``WORKLOADS`` and every
column, ratio and JSON field follows. The NumPy workloads' functions live in
``numpy_workloads.py``, the work-free float ones in ``scalar_workloads.py``.

Usage: ``python benchmarks/run.py [--json PATH] [--repeat N] [--only NAME,...]``.
"""
from __future__ import annotations

import os

# One BLAS thread (unless the caller says otherwise), set before NumPy loads:
# the columns are measured in CPU time, which counts every thread, and on
# this 2-core machine OpenBLAS's second thread made the MLP's
# (100x32) @ (32x784) product 3.5x slower in wall time and 7x in CPU time.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import ctypes
import dis
import gc
import importlib
import importlib.metadata
import importlib.util
import inspect
import itertools
import json
import math
import platform
import statistics
import sys
import tempfile
import time
import timeit
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

import zygote_py as zpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_workloads as nw  # noqa: E402
import scalar_workloads as sw  # noqa: E402

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
    most ``limit`` times that column's time (any column, ``forward``
    included); ``None`` for the work-free workloads, whose target is the
    overhead per primitive (``OVERHEAD_TARGET_NS``). Every float and float
    array among ``args`` is differentiated; ``hand`` returns the gradient
    of the only one, or a tuple with one gradient per differentiated
    argument. ``skip`` maps a peer's name to
    why that peer is not run on this workload."""

    name: str
    summary: str
    forward: Callable
    args: tuple
    hand: Callable
    taped: Optional[Callable]
    library_form: Callable[[Any], Callable]  # NumPy-like module → function
    target: Optional[tuple[str, float]]
    skip: tuple[tuple[str, str], ...] = ()


_ASSIGN = "its arrays do not support item assignment (y[i] = v)"
_UNROLL = "jit unrolls the Python loop at trace time (20,000 indexing operations to compile)"
_EAGER_INDEX = ("compiles a new XLA executable for each index x[i] (a static argument): "
                "one gradient of index_1k took 73 s on 2026-11-23")

WORKLOADS = [
    Workload("sincos", "math.sin(math.cos(x))", sincos, (1.0,), sincos_hand, None,
             sincos_in, ("hand", 3.0)),
    Workload("loop", "r *= math.sin(x), n = 500 times", loop, (1.5, 500), loop_hand, loop_taped,
             loop_in, ("taped", 1.5)),
    Workload("pow", "r *= x, n = 30 times", power, (1.1, 30), power_hand, power_taped,
             power_in, ("taped", 1.5)),
    Workload("logsumexp", "m = np.max(x); m + np.log(np.sum(np.exp(x - m))), x: 100",
             nw.logsumexp, (nw.LOGSUMEXP_X,), nw.logsumexp_hand, None, nw.logsumexp_in, ("hand", 1.2)),
    Workload("logistic", "np.sum(1 / (1 + np.exp(-(W @ x + b)))), W: 10x784, b: 10",
             nw.logistic, (nw.LOGISTIC_W, nw.LOGISTIC_B), nw.logistic_hand, None, nw.logistic_in,
             ("hand", 1.2)),
    Workload("mlp", "784-100-10 ReLU MLP, softmax cross-entropy, batch of 32",
             nw.mlp, (nw.MLP_W1, nw.MLP_B1, nw.MLP_W2, nw.MLP_B2), nw.mlp_hand, None, nw.mlp_in,
             ("hand", 1.2)),
    Workload("trace", "np.trace(A), A: 1000x1000", nw.trace, (nw.TRACE_A,), nw.trace_hand, None,
             nw.trace_in, ("hand", 1.5)),
    Workload("index_1k", "s += x[i] * x[i] for i in range(len(x)), x: 1,000",
             nw.index_loop, (nw.INDEX_X_1K,), nw.index_loop_hand, None, nw.index_loop_in,
             ("forward", 3.0), skip=(("jax", _EAGER_INDEX),)),
    Workload("index_10k", "s += x[i] * x[i] for i in range(len(x)), x: 10,000",
             nw.index_loop, (nw.INDEX_X_10K,), nw.index_loop_hand, None, nw.index_loop_in,
             ("forward", 3.0), skip=(("jax", _EAGER_INDEX), ("jax.jit", _UNROLL))),
    Workload("fill_1k", "y[i] = x[i] * x[i] for i in range(len(x)); np.sum(y * x), x: 1,000",
             nw.fill_loop, (nw.FILL_X_1K,), nw.fill_loop_hand, None, nw.fill_loop_in,
             ("forward", 3.0), skip=(("autograd", _ASSIGN), ("jax", _ASSIGN), ("jax.jit", _ASSIGN))),
    Workload("fill_10k", "y[i] = x[i] * x[i] for i in range(len(x)); np.sum(y * x), x: 10,000",
             nw.fill_loop, (nw.FILL_X_10K,), nw.fill_loop_hand, None, nw.fill_loop_in,
             ("forward", 3.0), skip=(("autograd", _ASSIGN), ("jax", _ASSIGN), ("jax.jit", _ASSIGN))),
    Workload("lstm", "LSTM cell, 20 steps, hidden 64, input 32, batch 16, squared error of h",
             nw.lstm, (nw.LSTM_WX, nw.LSTM_WH, nw.LSTM_B), nw.lstm_hand, None, nw.lstm_in,
             ("hand", 1.5)),
    Workload("blackscholes", "sum of 10,000 Black-Scholes call prices; d/d spot, d/d volatility",
             nw.black_scholes, (nw.BS_SPOT, nw.BS_VOL), nw.black_scholes_hand, nw.black_scholes_taped,
             nw.black_scholes_in, ("hand", 1.5)),
    Workload("lstm_scalar", "the LSTM on floats: hidden 1, input 1, 20 steps, 12 weights",
             sw.lstm_scalar, sw.LSTM1_ARGS, sw.lstm_scalar_hand, None, sw.lstm_scalar_in, None),
    Workload("blackscholes_scalar", "one Black-Scholes call price on floats; delta, vega",
             sw.black_scholes_scalar, sw.BS1_ARGS, sw.black_scholes_scalar_hand, None,
             sw.black_scholes_scalar_in, None),
]

# The AD overhead table (after "Sense & Sensitivities", figure 1): on
# workloads of float arithmetic, where an operation costs tens of
# nanoseconds, (gradient time - forward time) / primitive operations run by
# the forward pass, in nanoseconds.
OVERHEAD = ("sincos", "loop", "pow", "lstm_scalar", "blackscholes_scalar")
OVERHEAD_TARGET_NS = 300.0

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
MLP_COMPILE_SOURCE = (
    "import numpy as np\n\nfrom numpy_workloads import MLP_X, MLP_Y\n\n\n"
    + inspect.getsource(nw.mlp).replace("def mlp(", "def model_NUMBER(", 1)
)
"""The ``mlp`` workload's loss, the function of the issue's compile target
(``zpy.gradient``'s first call, library warm), in a fresh module each time."""
_fresh_names = itertools.count()

# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """``fn(*args)`` followed by the expression suffix ``then`` (and passed
    to ``around`` if given: ``around(fn(*args))``), timed as a ``timeit``
    statement so that no wrapper function adds to the time."""

    fn: Callable
    args: tuple
    then: str = ""
    around: Optional[Callable] = None

    def statement(self) -> str:
        call = "fn(" + ", ".join(f"a{i}" for i in range(len(self.args))) + ")" + self.then
        return call if self.around is None else f"around({call})"

    def namespace(self) -> dict[str, Any]:
        return {"fn": self.fn, "around": self.around, **{f"a{i}": a for i, a in enumerate(self.args)}}

    def run(self) -> Any:
        return eval(self.statement(), self.namespace())

    def timer(self) -> timeit.Timer:
        # CPU time of this process, not wall time: on a shared machine the
        # time other processes hold the CPU is not ours to count.
        return timeit.Timer(self.statement(), timer=time.process_time, globals=self.namespace())


def steady_allocator() -> str:
    """Keep freed large blocks in the C heap instead of returning them to
    the system, so that a column allocating megabytes per call (the trace
    workload's 1000x1000 gradients) measures its computation rather than the
    page faults of fresh memory, which varied 2-8x from run to run with the
    state other columns left the allocator in. glibc only; elsewhere a
    no-op, reported as "default"."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "default"
    m_trim_threshold, m_mmap_threshold = -1, -3
    if mallopt(m_mmap_threshold, 32 << 20) and mallopt(m_trim_threshold, 1 << 30):
        return "mmap threshold 32 MiB, trim threshold 1 GiB"
    return "default"


def calls_per_run(timer: timeit.Timer, run_s: float) -> tuple[int, float, float]:
    """How many calls take about ``run_s`` seconds; and the seconds per call
    and the seconds in all of the last calibrating loop."""
    timer.timeit(1)  # warm up
    number = 1
    while (elapsed := timer.timeit(number)) < run_s / 10:
        number *= 10
    return max(1, round(number * run_s / elapsed)), elapsed / number, elapsed


def best_times(
    calls: dict[str, Call], rounds: int, run_s: float = 0.005, budget_s: float = 0.4
) -> dict[str, float]:
    """CPU microseconds per call of each column: the best of up to
    ``rounds`` timed loops of about ``run_s`` seconds each (at least 3, and
    no more than ``budget_s`` seconds per column). Many short loops give
    many chances of one undisturbed by other processes' use of the shared
    caches; the columns take turns, one loop each per round, so that lasting
    load falls on all of them alike, starting one column later each round,
    so that no column always follows the same one (what the previous
    column leaves in the caches and the allocator moved the trace
    workload's columns by a third). The calibrating loop counts as one
    more, so that a column whose single call takes longer than three
    budgets (a peer on the 10,000-step index loop) is timed by that call
    alone rather than held to three more."""
    timers = {c: call.timer() for c, call in calls.items()}
    numbers, best, spent = {}, {}, {}
    for c, t in timers.items():
        numbers[c], best[c], spent[c] = calls_per_run(t, run_s)
    order = list(timers)
    for i in range(rounds):
        for c in order[i % len(order):] + order[:i % len(order)]:
            t = timers[c]
            if spent[c] > budget_s and (i >= 3 or spent[c] > 3 * budget_s):
                continue
            elapsed = t.timeit(numbers[c])
            spent[c] += elapsed
            best[c] = min(best[c], elapsed / numbers[c])
    return {c: v * 1e6 for c, v in best.items()}


# --------------------------------------------------------------------------
# Checking gradients
# --------------------------------------------------------------------------

RTOL_EXACT = 1e-9  # columns computing the same mathematics as the hand-written gradient
ATOL_EXACT = 1e-12
RTOL_FD = 1e-5  # the hand-written gradient against central differences
ATOL_FD = 1e-8
FD_STEP = 1e-6


def is_differentiated(value: Any) -> bool:
    """What zygote_py differentiates among positional arguments: floats and
    float arrays (integers are not)."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, float)


def differentiated(w: Workload) -> tuple[int, ...]:
    """The positions of ``w``'s differentiated arguments."""
    return tuple(i for i, a in enumerate(w.args) if is_differentiated(a))


def describe(value: Any) -> Any:
    """An argument for the JSON output and messages: arrays by dtype and shape."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array {'x'.join(map(str, value.shape))}"
    return value


def to_numpy(g: Any) -> Optional[np.ndarray]:
    if g is None:
        return None
    if hasattr(g, "detach"):  # a torch tensor
        g = g.detach().cpu().numpy()
    return np.asarray(g, dtype=np.float64)


def gradients(result: Any, w: Workload) -> list[Optional[np.ndarray]]:
    """The gradients of ``w``'s differentiated arguments, in order, as
    float64 arrays (0-d for numbers), from any column's result: a tuple
    with one gradient per argument (zygote_py), a tuple with one per
    differentiated argument (hand-written, peers), or the gradient alone
    when one argument is differentiated (a number, an array, a tensor)."""
    which = differentiated(w)
    if not isinstance(result, (tuple, list)):
        result = [result]
    elif len(result) == len(w.args):
        result = [result[i] for i in which]
    return [to_numpy(g) for g in result]


def gradient_value(result: Any) -> float:
    """The gradient with respect to the first argument as a float, from a
    scalar function's result (the compile benchmark)."""
    if isinstance(result, (tuple, list)):
        result = result[0]
    return float(result)


def mismatch(w: Workload, got: list, expected: list, rtol: float, atol: float) -> Optional[str]:
    """``None`` if each gradient in ``got`` has the shape of the one in
    ``expected`` and agrees with it elementwise (``np.allclose``), else
    what differs."""
    names = [list(inspect.signature(w.forward).parameters)[i] for i in differentiated(w)]
    if len(got) != len(expected):
        return f"{len(got)} gradients, expected {len(expected)} ({', '.join(names)})"
    for name, g, e in zip(names, got, expected):
        if g is None:
            return f"d{name} is None"
        if g.shape != e.shape:
            return f"d{name} has shape {g.shape}, expected {e.shape}"
        if not np.allclose(g, e, rtol=rtol, atol=atol):
            if g.ndim == 0:
                return f"d{name} = {float(g)!r}, expected {float(e)!r}"
            excess = np.abs(g - e) - rtol * np.abs(e)
            excess[np.isnan(excess)] = np.inf
            at = tuple(int(i) for i in np.unravel_index(np.argmax(excess), e.shape))
            return (f"d{name}{list(at)} = {float(g[at])!r}, expected {float(e[at])!r} "
                    f"(max |difference| {np.nanmax(np.abs(g - e)):.3g} over {e.size} elements)")
    return None


def central_difference(w: Workload, h: float = FD_STEP) -> tuple[float, float]:
    """``(f(a + h v) - f(a - h v)) / 2h`` and the hand-written gradient's
    ``<g, v>``, along a fixed direction ``v``: 1 for a number, a random
    normal array (fixed seed) for an array, for every differentiated
    argument at once."""
    rng = np.random.default_rng(0)
    which = differentiated(w)
    v = {i: (rng.standard_normal(w.args[i].shape) if isinstance(w.args[i], np.ndarray) else 1.0)
         for i in which}
    plus = [a + h * v[i] if i in v else a for i, a in enumerate(w.args)]
    minus = [a - h * v[i] if i in v else a for i, a in enumerate(w.args)]
    fd = (w.forward(*plus) - w.forward(*minus)) / (2 * h)
    hand = gradients(w.hand(*w.args), w)
    return float(fd), float(sum(np.sum(g * v[i]) for g, i in zip(hand, which)))


# --------------------------------------------------------------------------
# zygote_py's own columns
# --------------------------------------------------------------------------


def emitted_call(w: Workload) -> Optional[Call]:
    """The compiled gradient function that ``zpy.gradient`` runs (the
    forward pass fused with the pullback's body), called directly: the
    emitted code's cost without the API's per-call work. Reached through
    the pipeline's internal functions; ``None`` if they have moved.

    A gradient built from indexing (``x[i]`` in a loop) comes out of the
    emitted function as a sparse ``runtime.Scatter``, which the API makes
    dense; then this column includes that (``runtime.dense``), since the
    user's gradient is the dense array, and ``ours - emitted`` stays the
    API's own work."""
    try:
        from zygote_py import runtime
        from zygote_py.ad import pipeline

        active, numeric = pipeline.masks(w.forward, w.args, {})
        entry = pipeline.compiled(w.forward, active, numeric, False)
        fused = entry.gradient_function(w.forward, False)  # (the value is not computed where not needed)
        scatter = getattr(runtime, "Scatter", None)
        sparse = scatter is not None and any(isinstance(g, scatter) for g in fused(*w.args)[1])
        densify = runtime.dense if sparse else None
    except (ImportError, AttributeError, TypeError):
        return None
    return Call(fused, w.args, "[1]", around=densify)  # (y, gradients) → gradients


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


def argnums(w: Workload) -> Any:
    """The differentiated positions as AD libraries take them: an int for
    one (the gradient comes back alone), a tuple for several."""
    which = differentiated(w)
    return which[0] if len(which) == 1 else which


class Autograd(Peer):
    """``autograd.grad(f, argnum)`` over every differentiated argument, on
    the workload's ndarrays."""

    name, module = "autograd", "autograd"

    def prepare(self, w: Workload) -> Prepared:
        anp = importlib.import_module("autograd.numpy")
        return Prepared(Call(self.lib.grad(w.library_form(anp), argnum=argnums(w)), w.args))


class Jax(Peer):
    """``jax.grad`` run eagerly, op by op, as a user without ``jit`` gets;
    arrays are made JAX arrays once, as a user's parameters would be."""

    name, module = "jax", "jax"

    def setup(self) -> None:
        self.lib.config.update("jax_enable_x64", True)  # same precision as the others

    def gradient(self, w: Workload) -> Callable:
        return self.lib.grad(w.library_form(self.lib.numpy), argnums=argnums(w))

    def call(self, w: Workload, grad: Callable) -> Call:
        args = tuple(self.lib.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in w.args)
        if isinstance(argnums(w), int):
            return Call(grad, args, ".block_until_ready()")
        return Call(grad, args, around=self.lib.block_until_ready)  # a tuple of arrays

    def prepare(self, w: Workload) -> Prepared:
        return Prepared(self.call(w, self.gradient(w)))


class JaxJit(Jax):
    """``jax.jit(jax.grad(f))`` with the integer arguments static (so loops
    unroll at trace time); the first call's trace and compile is reported
    separately and excluded from the timed calls."""

    name = "jax.jit"

    def prepare(self, w: Workload) -> Prepared:
        static = tuple(i for i, a in enumerate(w.args) if isinstance(a, int))
        call = self.call(w, self.lib.jit(self.gradient(w), static_argnums=static))
        start = time.process_time()
        call.run()
        return Prepared(call, (time.process_time() - start) * 1e3)


class Torch(Peer):
    """``torch.autograd.grad(f(*args), params)`` where the differentiated
    arguments are float64 tensors that require grad (created once, as a
    user's parameters would be; 0-d for numbers)."""

    name, module = "torch", "torch"

    def setup(self) -> None:
        # One intra-op thread, like NumPy's BLAS here (see the top of the file).
        self.lib.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

    def prepare(self, w: Workload) -> Prepared:
        torch = self.lib
        f = w.library_form(torch)
        which = differentiated(w)
        args = tuple(torch.tensor(a, dtype=torch.float64, requires_grad=True) if i in which else a
                     for i, a in enumerate(w.args))
        params = [args[i] for i in which]

        def grad(*args):
            return torch.autograd.grad(f(*args), params)

        return Prepared(Call(grad, args))


PEERS: list[Peer] = [Autograd(), Jax(), JaxJit(), Torch()]

# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


RATIOS = [("ours", "forward"), ("ours", "hand"), ("ours", "taped"), ("grad", "hand"), ("emitted", "hand"),
          ("emitted", "taped")]


OWN = ("ours", "grad", "emitted", "hand", "taped")  # columns whose failure fails the run


@dataclass
class Result:
    workload: Workload
    times: dict[str, float]  # column → µs per call
    compile_ms: dict[str, float]  # peer column → first call, ms
    wrong: dict[str, str]  # column → how its gradient disagreed with hand
    failed: dict[str, str]  # own column → the exception it raised
    fd: dict[str, Any]  # the hand-written gradient against central differences
    notes: list[str]

    def ratio(self, num: str, den: str) -> Optional[float]:
        if num in self.times and den in self.times:
            return self.times[num] / self.times[den]
        return None

    def target_ratio(self) -> Optional[float]:
        return None if self.workload.target is None else self.ratio("ours", self.workload.target[0])

    def target_met(self) -> Optional[bool]:
        got = self.target_ratio()
        return None if got is None else got <= self.workload.target[1]

    def ok(self) -> bool:
        return not self.wrong and not self.failed and self.fd["ok"]


@dataclass
class Overhead:
    """A work-free workload's cost of differentiation per primitive
    operation: ``(column time - forward time) / primitives``."""

    name: str
    primitives: int
    forward_us: float
    ns: dict[str, float]  # gradient column → nanoseconds per primitive

    @classmethod
    def of(cls, r: Result) -> Overhead:
        n = count_primitives(r.workload)
        forward = r.times["forward"]
        ns = {c: (t - forward) * 1e3 / n for c, t in r.times.items() if c != "forward"}
        return cls(r.workload.name, n, forward, ns)

    def met(self) -> Optional[bool]:
        return None if "ours" not in self.ns else self.ns["ours"] <= OVERHEAD_TARGET_NS


# The operations counted as primitives: operators, comparisons, subscripts
# and calls (names as in CPython 3.11-3.13).
PRIMITIVE_OPCODES = frozenset({
    "BINARY_OP", "UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT", "COMPARE_OP",
    "BINARY_SUBSCR", "BINARY_SLICE", "STORE_SUBSCR", "STORE_SLICE", "CALL", "CALL_FUNCTION_EX",
})


def count_primitives(w: Workload) -> int:
    """The primitive operations ``w``'s forward pass runs: every operator,
    comparison, subscript and call executed in the benchmarks' own code
    (the function and helpers such as ``norm_cdf``, not the inside of
    ``math`` or NumPy), counted opcode by opcode under ``sys.settrace``.
    Loop control and the loads and stores of names are not counted."""
    here = os.path.dirname(os.path.abspath(__file__))
    count = 0

    def per_opcode(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "opcode" and dis.opname[frame.f_code.co_code[frame.f_lasti]] in PRIMITIVE_OPCODES:
            count += 1
        return per_opcode

    def per_call(frame: Any, event: str, arg: Any) -> Any:
        if not frame.f_code.co_filename.startswith(here):
            return None
        frame.f_trace_opcodes = True
        return per_opcode

    sys.settrace(per_call)
    try:
        w.forward(*w.args)
    finally:
        sys.settrace(None)
    return count


def error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def gradient_calls(
    w: Workload, peers: list[Peer], notes: list[str], failed: dict[str, str]
) -> tuple[dict[str, Call], dict[str, float]]:
    """Every gradient column's call for ``w`` (peers that fail to build or
    run it, or that ``w`` skips, are left out with a note in ``notes``; a
    column of zygote_py's that raises is left out and recorded in
    ``failed``), and the peers' compile times."""
    calls: dict[str, Call] = {}
    compile_ms: dict[str, float] = {}
    try:
        zpy.gradient(w.forward, *w.args)  # compile before anything is timed
    except Exception as e:
        failed["ours"] = error_text(e)
    else:
        calls["ours"] = Call(zpy.gradient, (w.forward, *w.args))
        try:
            # zpy.grad's function, made once as a user makes it: bound to the compiled gradient
            # by its first call, later calls cost the emitted code and a check of the argument kinds
            transformed = zpy.grad(w.forward, argnums=argnums(w))
            transformed(*w.args)
        except Exception as e:
            failed["grad"] = error_text(e)
        else:
            calls["grad"] = Call(transformed, w.args)
        try:
            emitted = emitted_call(w)
        except Exception as e:
            failed["emitted"] = error_text(e)
        else:
            if emitted is not None:
                calls["emitted"] = emitted
            else:
                notes.append("no emitted column: zygote_py's pipeline internals have changed")
    calls["hand"] = Call(w.hand, w.args)
    if w.taped is not None:
        calls["taped"] = Call(w.taped, w.args)
    skip = dict(w.skip)
    for peer in peers:
        if peer.name in skip:
            notes.append(f"{peer.name} not run: {skip[peer.name]}")
            continue
        try:
            prepared = peer.prepare(w)
            prepared.call.run()
        except Exception as e:  # a peer that cannot run a workload costs one column, not the run
            notes.append(f"{peer.name} failed: {error_text(e)}")
            continue
        calls[peer.name] = prepared.call
        if prepared.compile_ms is not None:
            compile_ms[peer.name] = prepared.compile_ms
    return calls, compile_ms


def run_workload(w: Workload, peers: list[Peer], repeat: int) -> Result:
    """Check the hand-written gradient against central differences and
    every other gradient column against the hand-written gradient, then
    time every column. A column of zygote_py's that raises (``ours`` while
    a derivative rule is missing, say) is reported, not timed, and fails
    the run; a peer that raises loses its column with a note."""
    notes: list[str] = []
    failed: dict[str, str] = {}
    calls, compile_ms = gradient_calls(w, peers, notes, failed)
    fd, dot = central_difference(w)
    fd_ok = math.isclose(dot, fd, rel_tol=RTOL_FD, abs_tol=ATOL_FD)
    if not fd_ok:
        notes.append(f"hand-written gradient disagrees with central differences: <g, v> = {dot!r}, "
                     f"(f(x + hv) - f(x - hv)) / 2h = {fd!r}")
    expected = gradients(w.hand(*w.args), w)
    wrong: dict[str, str] = {}
    for column, call in list(calls.items()):
        try:
            got = gradients(call.run(), w)
        except Exception as e:
            del calls[column]
            if column in OWN:
                failed[column] = error_text(e)
            else:
                notes.append(f"{column} failed: {error_text(e)}")
            continue
        if column != "hand":
            bad = mismatch(w, got, expected, RTOL_EXACT, ATOL_EXACT)
            if bad is not None:
                wrong[column] = bad
    times = best_times({"forward": Call(w.forward, w.args), **calls}, repeat)
    return Result(w, times, compile_ms, wrong, failed,
                  {"central_difference": fd, "hand_dot_v": dot, "ok": fd_ok}, notes)


def hvp_times(rounds: int) -> dict[str, Any]:
    """CPU microseconds of a Hessian-vector product of the 100-dimensional
    Rosenbrock function: ``zpy.hvp`` (forward over reverse) against the
    product with the hand-written tridiagonal Hessian, and autograd's
    ``hessian_vector_product`` when it is installed; the results must
    agree."""
    x, v = nw.HVP_X, nw.HVP_V
    calls = {"ours": Call(zpy.hvp, (nw.rosenbrock, (x,), (v,)), "[0]"),
             "hand": Call(nw.rosenbrock_hvp_hand, (x, v))}
    try:
        import autograd
        import autograd.numpy as anp

        def rosen(z):
            return anp.sum(100.0 * (z[1:] - z[:-1] ** 2) ** 2 + (1.0 - z[:-1]) ** 2)
        calls["autograd"] = Call(autograd.hessian_vector_product(rosen), (x, v))
    except ImportError:
        pass
    want = calls["hand"].run()
    ok = all(np.allclose(c.run(), want, rtol=1e-9, atol=1e-9) for c in calls.values())
    return {"us": best_times(calls, rounds), "ok": ok}


def compile_times(samples: int) -> dict[str, Any]:
    """CPU milliseconds for a fresh function's first ``zpy.ir`` (source →
    optimised IR) and then its first ``zpy.gradient`` (reverse transform,
    emission, compilation, one call); min and median over ``samples``
    freshly imported modules. The target is judged on the minimum, the
    time with the least interference. The last gradient is checked
    against central differences."""
    phases: dict[str, list[float]] = {"ir": [], "gradient": [], "total": [], "mlp": []}
    mlp_args = (nw.MLP_W1, nw.MLP_B1, nw.MLP_W2, nw.MLP_B2)
    with tempfile.TemporaryDirectory(prefix="zpy_bench_") as tmp:
        for _ in range(samples):
            model = fresh_function(tmp, COMPILE_SOURCE)
            gc.collect()
            start = time.process_time()
            zpy.ir(model)
            middle = time.process_time()
            got = gradient_value(zpy.gradient(model, *COMPILE_ARGS))
            end = time.process_time()
            phases["ir"].append((middle - start) * 1e3)
            phases["gradient"].append((end - middle) * 1e3)
            phases["total"].append((end - start) * 1e3)
            loss = fresh_function(tmp, MLP_COMPILE_SOURCE)
            gc.collect()
            start = time.process_time()
            mlp_grads = zpy.gradient(loss, *mlp_args)
            phases["mlp"].append((time.process_time() - start) * 1e3)
    body = COMPILE_SOURCE[COMPILE_SOURCE.index("def "):]
    x, rest, h = COMPILE_ARGS[0], COMPILE_ARGS[1:], 1e-6
    fd = (model(x + h, *rest) - model(x - h, *rest)) / (2 * h)
    return {
        "lines": len(body.strip().splitlines()),
        "samples": samples,
        **{f"{k}_ms": {"min": min(v), "median": statistics.median(v)} for k, v in phases.items()},
        "target_ms": COMPILE_TARGET_MS,
        "met": min(phases["mlp"]) <= COMPILE_TARGET_MS,
        "gradient": got,
        "central_difference": fd,
        "gradient_ok": math.isclose(got, fd, rel_tol=1e-5, abs_tol=1e-8) and all(
            np.allclose(g, w, rtol=RTOL_EXACT, atol=ATOL_EXACT) for g, w in zip(mlp_grads, nw.mlp_hand(*mlp_args))),
    }


def fresh_function(directory: str, source: str) -> Callable:
    """The function ``model_NUMBER`` of ``source``, written as a new module
    in ``directory`` under a name never used before and imported: code
    zygote_py has not compiled."""
    i = next(_fresh_names)
    name = f"zpy_bench_model_{i}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source.replace("NUMBER", str(i)))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, f"model_{i}")


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
            cell = "FAILED" if c in r.failed else fmt_us(r.times.get(c))
            row.append(cell + " WRONG" if c in r.wrong else cell)
        rows.append(row)
    return table(["workload", *columns], rows)


def ratio_table(results: list[Result]) -> str:
    rows = []
    for r in results:
        met = r.target_met()
        verdict = "ours FAILED" if "ours" in r.failed else "-" if met is None else "met" if met else "MISSED"
        api = r.times["ours"] - r.times["emitted"] if "emitted" in r.times else None
        if r.workload.target is None:
            target = "see overhead table"
        else:
            against, limit = r.workload.target
            target = f"ours/{against} <= {limit:g}: {verdict}"
        rows.append([
            r.workload.name,
            *(fmt_ratio(r.ratio(a, b)) for a, b in RATIOS),
            fmt_us(api),
            target,
        ])
    header = ["workload", *(f"{a}/{b}" for a, b in RATIOS), "API us", "target"]
    return table(header, rows)


def peer_ratio_table(results: list[Result], peers: list[str]) -> str:
    rows = [[r.workload.name, *(fmt_ratio(r.ratio("ours", p)) for p in peers)] for r in results]
    return table(["workload", *(f"ours/{p}" for p in peers)], rows)


def overhead_table(overhead: list[Overhead], columns: list[str]) -> str:
    rows = []
    for o in overhead:
        met = o.met()
        verdict = "ours FAILED" if met is None else "met" if met else "MISSED"
        rows.append([o.name, f"{o.primitives:,}", fmt_us(o.forward_us),
                     *(fmt_ns(o.ns.get(c)) for c in columns),
                     f"ours <= {OVERHEAD_TARGET_NS:g} ns: {verdict}"])
    return table(["workload", "primitives", "forward us", *(f"{c} ns" for c in columns), "target"], rows)


def fmt_ns(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:,.0f}"


def environment(peers: list[Peer], loaded: list[Peer], repeat: int) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "repeat": repeat,
        "numpy": np.__version__,
        "blas_threads": os.environ["OPENBLAS_NUM_THREADS"],
        "zygote_py": zpy.__version__,
        "peers": {p.name: (p.version() if p in loaded else None) for p in peers},
    }


def report(env: dict[str, Any], results: list[Result], overhead: list[Overhead], comp: dict[str, Any]) -> str:
    peers = [name for name, v in env["peers"].items() if v is not None]
    missing = [name for name, v in env["peers"].items() if v is None]
    columns = ["forward", "ours", "grad", "emitted", "hand", "taped", *peers]
    columns = [c for c in columns if any(c in r.times or c in r.failed for r in results)]
    out = [
        f"zygote_py {env['zygote_py']} benchmarks: Python {env['python']}, {env['machine']}, "
        f"{env['cpus']} CPUs, load average {env['load_average'][0]}",
        f"NumPy {env['numpy']}, BLAS threads: {env['blas_threads']}, malloc: {env['malloc']}",
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
    run_peers = [p for p in peers if any(p in r.times for r in results)]
    if run_peers:
        out += ["", "Against the peers (ours / peer, below 1 is faster):", "", peer_ratio_table(results, run_peers)]
    if overhead:
        out += [
            "",
            "AD overhead per primitive on work-free (float) workloads: (gradient - forward) / primitives,",
            "in ns; primitives: operators, comparisons, subscripts and calls the forward pass runs:",
            "",
            overhead_table(overhead, [c for c in columns[1:] if any(c in o.ns for o in overhead)]),
        ]
    jit = [(r.workload.name, r.compile_ms["jax.jit"]) for r in results if "jax.jit" in r.compile_ms]
    if jit:
        out += ["", "jax.jit first call (trace + compile), CPU ms: "
                + ", ".join(f"{name} {ms:,.0f}" for name, ms in jit)]
    out += [
        "",
        f"First zpy.gradient of a fresh function, CPU ms over {comp['samples']} samples (min / median):",
        f"  the MLP loss (784-100-10, batch 32):       "
        f"{comp['mlp_ms']['min']:6.1f} / {comp['mlp_ms']['median']:6.1f}"
        f"   target <= {comp['target_ms']:g}: {'met' if comp['met'] else 'MISSED'}",
        f"  a {comp['lines']}-line function of floats with loops and branches:",
        f"    zpy.ir (parse, lower, optimise):         "
        f"{comp['ir_ms']['min']:6.1f} / {comp['ir_ms']['median']:6.1f}",
        f"    zpy.gradient (transform, emit, compile): "
        f"{comp['gradient_ms']['min']:6.1f} / {comp['gradient_ms']['median']:6.1f}",
        f"    total:                                   "
        f"{comp['total_ms']['min']:6.1f} / {comp['total_ms']['median']:6.1f}",
    ]
    if not comp["gradient_ok"]:
        out.append(f"WRONG GRADIENT: compile benchmark gave {comp['gradient']!r}, "
                   f"central difference {comp['central_difference']!r}")
    out.append(f"\nThis run: {env['duration_s']['wall']:.0f} s wall, {env['duration_s']['cpu']:.0f} s CPU.")
    for r in results:
        out += [f"note: {r.workload.name}: {n}" for n in r.notes]
        out += [f"FAILED: {r.workload.name} {c} raised {one_line(v)}" for c, v in r.failed.items()]
        out += [f"WRONG GRADIENT: {r.workload.name} {c}: {v}" for c, v in r.wrong.items()]
        if not r.fd["ok"]:
            out.append(f"WRONG GRADIENT: {r.workload.name} hand-written, against central differences")
    return "\n".join(out)


def one_line(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def to_json(
    env: dict[str, Any], results: list[Result], overhead: list[Overhead], comp: dict[str, Any]
) -> dict[str, Any]:
    workloads = {}
    for r in results:
        against, limit = r.workload.target or (None, None)
        workloads[r.workload.name] = {
            "summary": r.workload.summary,
            "args": [describe(a) for a in r.workload.args],
            "times_us": r.times,
            "ratios": {f"{a}/{b}": r.ratio(a, b)
                       for a, b in [*RATIOS, *(("ours", p) for p in r.times if p not in OWN + ("forward",))]
                       if r.ratio(a, b) is not None},
            "target": {"against": against, "limit": limit, "ratio": r.target_ratio(), "met": r.target_met()},
            "compile_ms": r.compile_ms,
            "wrong_gradients": r.wrong,
            "failed": r.failed,
            "hand_vs_central_difference": r.fd,
            "notes": r.notes,
        }
    per_primitive = {o.name: {"primitives": o.primitives, "forward_us": o.forward_us, "ns_per_primitive": o.ns,
                              "target_ns": OVERHEAD_TARGET_NS, "met": o.met()} for o in overhead}
    return {"environment": env, "workloads": workloads, "overhead": per_primitive, "compile": comp}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--repeat", type=int, default=100, help="timing rounds at most; the best is kept")
    parser.add_argument("--compile-samples", type=int, default=9, help="fresh functions to compile")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated workloads to run (default: all)")
    opts = parser.parse_args(argv)
    workloads = WORKLOADS
    if opts.only:
        names = opts.only.split(",")
        unknown = set(names) - {w.name for w in WORKLOADS} - {"hvp"}
        if unknown:
            parser.error(f"unknown workloads: {', '.join(sorted(unknown))}")
        workloads = [w for w in WORKLOADS if w.name in names]
    wall, cpu = time.perf_counter(), time.process_time()
    allocator = steady_allocator()
    loaded = [p for p in PEERS if p.load()]
    results = [run_workload(w, loaded, opts.repeat) for w in workloads]
    overhead = [Overhead.of(r) for r in results if r.workload.name in OVERHEAD]
    comp = compile_times(opts.compile_samples)
    hvp = hvp_times(opts.repeat) if opts.only is None or "hvp" in opts.only.split(",") else None
    env = environment(PEERS, loaded, opts.repeat)
    env["malloc"] = allocator
    env["duration_s"] = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    print(report(env, results, overhead, comp))
    if hvp is not None:
        us = hvp["us"]
        print("\nHessian-vector product, 100-dimensional Rosenbrock, CPU µs (ours: zpy.hvp, forward over reverse):")
        print("  " + ", ".join(f"{k} {t:,.1f}" for k, t in us.items())
              + f"; ours/hand {us['ours'] / us['hand']:.1f}x"
              + (f", ours/autograd {us['ours'] / us['autograd']:.2f}x" if "autograd" in us else "")
              + ("" if hvp["ok"] else "; RESULTS DISAGREE"))
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(to_json(env, results, overhead, comp), fh, indent=2)
            fh.write("\n")
    return 0 if all(r.ok() for r in results) and comp["gradient_ok"] and (hvp is None or hvp["ok"]) else 1


if __name__ == "__main__":
    sys.exit(main())
