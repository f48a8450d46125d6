#!/usr/bin/env python3
"""What each feature costs on the memo tables, against the plain run, in one sitting.

    python bench/features.py [--rounds 3] [--large] [--kraft] [--only NAME ...]

Rows are whole ``modelcheck check`` processes on Kip320 with three replicas
(737,794 states), interleaved round by round so that load drifts hit every
row alike:

* the plain safety check (the default invariant), on the tables;
* ``--checkpoint DIR`` with ``--checkpoint-every 120`` (what a long run would
  use: on a run this short no checkpoint falls due) and with
  ``--checkpoint-every 0`` (one at every level boundary, 26 of them);
* ``--property DesignatedLeaderTakesOver`` (liveness);
* ``--property LeaderHwMonotonic`` (a step property, which holds: every
  transition is checked);
* ``--symmetry`` (123,311 orbits; its counts are compared with the spec's
  own code's symmetric run, and its ratio is to the plain run);
* the same checkpointing, liveness and step property runs with
  ``--no-memo``, the spec's own code, for the comparison.

``--large`` adds Kip320 with ``MaxLeaderEpoch=3`` (about ten million states),
plain, with ``--checkpoint-every 10`` and with ``--symmetry`` (its counts
compared only across rounds: the spec's own code's symmetric run of it
would take minutes).  ``--workers N`` adds the plain, checkpointing, liveness,
step property and symmetric runs on the tables with ``--workers N`` (the C
loop's thread and N - 1 helper threads), their ratios still to the plain
run with one thread.  ``--kraft`` adds kraft-replication
(its published constants, to depth 14: 298,000 states, frontiers of up to
about 120,000), plain and with a checkpoint a level: deep states, where a
checkpoint's frontier costs the most to write.  Each run's counts are read from
``--json`` and must equal the plain run's; the table gives the median wall
time, CPU time and peak RSS of each row, its ratio to the plain run, the
path that computed the successors.  ``--only NAME`` (repeatable) runs those
rows, with the plain run and the rows whose counts they must find.  Only the
standard library and the project's own command line are used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MODELCHECK = [sys.executable, "-m", "modelcheck", "check", "-q", "--json"]
KIP320 = ["kip320"]
LARGE = ["kip320", "--const", "MaxLeaderEpoch=3"]
KRAFT = ["kraft-replication", "--max-depth", "14"]


def rows(large: bool, kraft: bool = False, workers: int = 1) -> dict[str, tuple[list[str], str]]:
    """Name -> (arguments, the row whose counts it must find).  ``{ck}`` is a fresh checkpoint directory."""
    out = {
        "plain": (KIP320, "plain"),
        "checkpoint every 120 s": (KIP320 + ["--checkpoint", "{ck}", "--checkpoint-every", "120"], "plain"),
        "checkpoint every level": (KIP320 + ["--checkpoint", "{ck}", "--checkpoint-every", "0"], "plain"),
        "liveness": (KIP320 + ["--property", "DesignatedLeaderTakesOver"], "plain"),
        "step property": (KIP320 + ["--property", "LeaderHwMonotonic"], "plain"),
        "symmetry": (KIP320 + ["--symmetry"], "spec's code: symmetry"),
        "spec's code: plain": (KIP320 + ["--no-memo"], "plain"),
        "spec's code: checkpoint every level": (KIP320 + ["--no-memo", "--checkpoint", "{ck}",
                                                          "--checkpoint-every", "0"], "plain"),
        "spec's code: liveness": (KIP320 + ["--no-memo", "--property", "DesignatedLeaderTakesOver"], "plain"),
        "spec's code: step property": (KIP320 + ["--no-memo", "--property", "LeaderHwMonotonic"], "plain"),
        "spec's code: symmetry": (KIP320 + ["--no-memo", "--symmetry"], "symmetry"),
    }
    if workers > 1:
        for name in ("plain", "checkpoint every level", "liveness", "step property", "symmetry"):
            argv, same = out[name]
            out[f"{name}, {workers} workers"] = (argv + ["--workers", str(workers)], same)
    if large:
        out["large plain"] = (LARGE, "large plain")
        out["large, checkpoint every 10 s"] = (LARGE + ["--checkpoint", "{ck}", "--checkpoint-every", "10"],
                                               "large plain")
        out["large symmetry"] = (LARGE + ["--symmetry"], "large symmetry")
    if kraft:
        out["kraft plain"] = (KRAFT, "kraft plain")
        out["kraft, checkpoint every level"] = (KRAFT + ["--checkpoint", "{ck}", "--checkpoint-every", "0"],
                                                "kraft plain")
        out["kraft, spec's code: checkpoint every level"] = (KRAFT + ["--no-memo", "--checkpoint", "{ck}",
                                                                      "--checkpoint-every", "0"], "kraft plain")
    return out


def run(argv: list[str]) -> dict:
    """One process: wall and CPU seconds, peak RSS, and its --json report."""
    ck = tempfile.mkdtemp(prefix="features-ck-")
    argv = [a.replace("{ck}", os.path.join(ck, "ck")) for a in argv]
    start = time.perf_counter()
    p = subprocess.Popen(MODELCHECK + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _pid, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    shutil.rmtree(ck, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) not in (0, 1, 4):  # 4: stopped by --max-depth
        raise SystemExit(f"modelcheck check {' '.join(argv)} failed")
    report = json.loads(out)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "counts": (report["distinct_states"], report["states_generated"], report["depth"]),
            "path": report["successors"]["path"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--large", action="store_true", help="add Kip320 MaxLeaderEpoch=3 (about ten million states)")
    ap.add_argument("--kraft", action="store_true", help="add kraft-replication to depth 14, checkpointed a level")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="add the feature rows on the tables with --workers N")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="run only this row (repeatable), with the plain run and its reference rows")
    args = ap.parse_args()
    table = rows(args.large, args.kraft, args.workers)
    if args.only:
        unknown = [name for name in args.only if name not in table]
        if unknown:
            raise SystemExit(f"no such row: {', '.join(unknown)}; the rows are: {', '.join(table)}")
        keep = set(args.only) | {table[name][1] for name in args.only}
        keep |= {"large plain" if n.startswith("large") else "kraft plain" if "kraft" in n else "plain" for n in keep}
        table = {name: row for name, row in table.items() if name in keep}
    results: dict[str, list[dict]] = {name: [] for name in table}
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    for r in range(args.rounds):
        for name, (argv, _plain) in table.items():
            results[name].append(run(argv))
            print(f"round {r + 1}: {name}: {results[name][-1]['wall']:.2f} s", file=sys.stderr, flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("| run | successors | wall (median) | CPU | peak RSS | / plain (wall) | / plain (CPU) |")
    print("|---|---|---|---|---|---|---|")
    for name, (argv, same) in table.items():
        runs = results[name]
        counts = {x["counts"] for x in runs} | {x["counts"] for x in results[same]}
        if len(counts) != 1:
            raise SystemExit(f"{name}: counts differ from the {same} run's: {sorted(counts)}")
        plain = "large plain" if name.startswith("large") else "kraft plain" if "kraft" in name else "plain"
        wall = statistics.median(x["wall"] for x in runs)
        base = statistics.median(x["wall"] for x in results[plain])
        cpu = statistics.median(x["cpu"] for x in runs)
        base_cpu = statistics.median(x["cpu"] for x in results[plain])
        rss = max(x["rss"] for x in runs)
        each = ", ".join(f"{x['wall']:.2f}" for x in runs)
        print(f"| {name} | {runs[0]['path']} | {wall:.2f} s ({each}) | {cpu:.2f} s | {rss:.0f} MiB "
              f"| {wall / base:.2f} | {cpu / base_cpu:.2f} |")


if __name__ == "__main__":
    main()
