"""``make fuzz``: differential fuzzing of zygote_py at scale.

Writes ``--programs`` random programs (see :mod:`fuzz_programs`), program
``i`` from ``random.Random(seed + i)`` so that any one can be written again
by its number, checks each in both modes against central finite
differences on ``--jobs`` processes, and, when autograd is installed and
can run a program (no assignment into arrays), its gradient against
autograd's too; prints a summary: points checked and skipped, refusals
(clear zygote_py errors, by message), disagreements (wrong gradients or
tangents, crashes), differences from autograd, and the generator's
coverage of constructs. Each disagreeing program is written to ``--out``
with its findings (``program_SEED.py``; ``autograd_SEED.py`` for a
difference from autograd alone, which finite differences arbitrate and
which does not fail the run). With ``--second N`` the first N programs
get their second derivatives checked too (``zpy.hvp``, reverse over
reverse and ``jvp`` of ``gradient``, see :mod:`orders`), with ``--third
N`` their third (reverse over reverse over reverse), each program within
``--limit`` seconds per order; the counts (ok, wrong, crash, refused,
slow) are printed every ``--every`` programs and at the end, and each
disagreeing program is written to ``--out`` as soon as it is found.
Exits 1 when any program disagrees with finite differences at any order.

    python -m tests.robustness.fuzz --programs 10000 --jobs 2
    python -m tests.robustness.fuzz --programs 200 --second 200 --third 100
    python -m tests.robustness.fuzz --show 1234      # print program 1234
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.ad.fdcheck import TookTooLong, time_limit

from . import fuzz_programs as fp
from . import orders

W = (-0.4, 0.9, fp.np.array([0.3, 0.2, -0.7]), None)
U = (0.5, 0.1, fp.np.array([-0.6, 0.4, 0.9]), None)


def program(seed: int, exclude: frozenset = frozenset()) -> fp.Program:
    return fp.write_program(fp.Chooser(random.Random(seed).randint), exclude)


def run_one(job: tuple) -> tuple[int, Counter, fp.Outcome, str, orders.Orders]:
    seed, directory, exclude, order, limit = job
    p = program(seed, exclude)
    higher = orders.Orders()
    try:
        outcome = fp.check_source(Path(directory), p.source)
    except Exception as e:  # noqa: BLE001  (a failure to even load is a finding of the generator)
        outcome = fp.Outcome(disagreements=[f"the program did not load: {type(e).__name__}: {e}"])
    else:
        if order >= 2 and outcome.checked:
            higher = check_orders(fp.load(Path(directory), p.source).prog, order, limit)
    fp.compare_with_autograd(p.source, outcome)
    outcome.gradients = []
    return seed, p.tags, outcome, p.source, higher


def check_orders(prog, order: int, limit: int) -> orders.Orders:
    """Second (and with ``order`` 3, third) derivatives of ``prog`` at the
    first point, each order within ``limit`` seconds (past it: counted
    ``slow`` for that order)."""
    out = orders.Orders()
    for n, compositions in ((2, orders.SECOND), (3, ()))[:order - 1]:
        try:
            with time_limit(limit):
                out.add(orders.check_orders(prog, fp.POINTS[0], (*fp.DIRECTION, None), W, U, n, compositions))
        except TookTooLong:
            out.counts[(ORDER_NAMES[n], "slow")] += 1
    return out


ORDER_NAMES = {2: "second", 3: "third"}


def print_orders(higher: orders.Orders, limit: int) -> None:
    """The higher orders' counts so far: per composition, and the programs
    past ``limit`` seconds at each order."""
    print(f"  higher orders (points; {higher.skipped} skipped: not smooth there; programs past {limit} s: "
          f"{higher.counts[('second', 'slow')]} at second order, {higher.counts[('third', 'slow')]} at third):",
          flush=True)
    for composition in (*orders.SECOND, *orders.THIRD):
        print(f"    {composition:12s} " + ", ".join(f"{k} {n}" for k, n in higher.kinds(composition).items()),
              flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "zygote_py-fuzz-failures"),
                        help="where to write the programs that disagree")
    parser.add_argument("--exclude", default="", help="constructs not to generate, comma-separated "
                        f"(of: {', '.join(sorted(fp.EXCLUDABLE))})")
    parser.add_argument("--show", type=int, help="print program SEED and exit")
    parser.add_argument("--second", type=int, default=0, help="check second derivatives of the first N programs")
    parser.add_argument("--third", type=int, default=0, help="and third derivatives of the first N")
    parser.add_argument("--limit", type=int, default=120, help="seconds per program for each higher order")
    parser.add_argument("--every", type=int, default=1000,
                        help="print the running counts every N programs (with the higher orders' counts)")
    args = parser.parse_args(argv)
    exclude = frozenset(filter(None, args.exclude.split(",")))
    if args.show is not None:
        print(program(args.show, exclude).source)
        return 0

    start = time.time()
    tags: Counter = Counter()
    refusals: Counter = Counter()
    refusing: Counter = Counter()
    checked = checked_jvp = skipped = checked_autograd = by_autograd = 0
    failing, autograd_differs = [], []
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as directory:
        jobs = [(args.seed + i, directory, exclude, 3 if i < args.third else 2 if i < args.second else 1, args.limit)
                for i in range(args.programs)]
        higher = orders.Orders()
        chunk = 1 if args.second or args.third else 8  # (slow programs one at a time: running counts stay current)
        with multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=200) as pool:
            for n, (seed, used, outcome, source, more) in enumerate(pool.imap_unordered(run_one, jobs, chunk), 1):
                higher.add(more)
                outcome.disagreements += more.findings
                tags.update(used.keys())
                checked += outcome.checked
                checked_jvp += outcome.checked_jvp
                skipped += outcome.skipped
                checked_autograd += outcome.checked_autograd
                by_autograd += outcome.checked_autograd > 0
                if outcome.autograd_disagreements:
                    autograd_differs.append(seed)
                    out.mkdir(exist_ok=True)
                    findings = "\n".join("# " + line for line in outcome.autograd_disagreements)
                    (out / f"autograd_{seed}.py").write_text(f"# fuzz program {seed}\n{findings}\n\n{source}")
                for mode in {mode for mode, _, _ in outcome.refused}:
                    refusing[mode] += 1
                refusals.update({(mode, kind, message) for mode, kind, message in outcome.refused})
                if outcome.disagreements:
                    failing.append(seed)
                    out.mkdir(exist_ok=True)
                    findings = "\n".join("# " + line for line in outcome.disagreements)
                    (out / f"program_{seed}.py").write_text(f"# fuzz program {seed}\n{findings}\n\n{source}")
                if n % args.every == 0:
                    print(f"  {n} programs, {len(failing)} disagreeing, {time.time() - start:.0f} s", flush=True)
                    if args.second or args.third:
                        print_orders(higher, args.limit)

    total = args.programs
    print(f"\nzygote_py fuzz: {total} programs (seeds {args.seed}..{args.seed + total - 1}), "
          f"{time.time() - start:.0f} s on {args.jobs} processes")
    if exclude:
        print(f"  constructs excluded: {', '.join(sorted(exclude))}")
    print(f"  points checked: {checked} by gradient, {checked_jvp} by jvp; {skipped} skipped "
          "(the plain program fails or is not smooth there)")
    print(f"  programs refused (a clear zygote_py error): {refusing['gradient']} by gradient, "
          f"{refusing['jvp']} by jvp")
    for (mode, kind, message), count in refusals.most_common(8):
        print(f"    {count:6d} {mode}: {kind}: {message[:100]}")
    if checked_autograd:
        print(f"  compared with autograd: {checked_autograd} points of {by_autograd} programs (the others assign "
              f"into arrays or use what autograd lacks); disagreeing with it: {len(autograd_differs)}"
              + (f" (seeds {' '.join(map(str, sorted(autograd_differs)[:20]))}, written to {out}/)"
                 if autograd_differs else ""))
    else:
        print("  compared with autograd: not installed, or it could run none of the programs")
    if args.second or args.third:
        print_orders(higher, args.limit)
        for (composition, kind, message), count in Counter(higher.refusals).most_common(6):
            print(f"    {count:6d} {composition}: {kind}: {message[:100]}")
    print(f"  programs disagreeing with finite differences or crashing: {len(failing)}"
          + (f" (written to {out}/)" if failing else ""))
    if failing:
        print(f"    seeds: {' '.join(map(str, sorted(failing)[:40]))}{' ...' if len(failing) > 40 else ''}")
    print("  coverage: programs using each construct")
    for tag in sorted(fp.ALL_TAGS, key=lambda t: -tags[t]):
        print(f"    {tags[tag]:6d} {100 * tags[tag] / total:5.1f}%  {tag}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
