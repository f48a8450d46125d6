"""The engine benchmark: one command, ``.venv/bin/python bench/run.py``.

Each workload runs ``modelcheck check ... --json`` in a fresh process (as a
user runs it), while this script samples the resident memory of that process
and its worker children every 50 ms.  It prints, per workload: wall time (the
whole command, interpreter start included), the engine's own time, the CPU
seconds of the process tree and the load average before the run (the machine
may be shared: CPU time is the fairer comparison then), states generated per
second, peak RSS summed over the processes, peak PSS (shared pages counted
once: what the tree really occupies) and peak PSS per distinct state; then the
ratio to the figures stored in ``bench/results.json`` by the previous commit
that ran the benchmark, and stores the new figures there (with date, machine
and commit) for the next comparison.

``--only NAME`` runs some workloads; ``--large`` adds the ten-million-state
MaxLeaderEpoch=3 run (minutes).  Speed is measured here, never in tests.

The ``user-file`` workloads check Kip320 given as a file path
(``specs/kip320.py``), as a user's own spec is: compiled (the build is made
first, with ``modelcheck compile``) and interpreted (``MODELCHECK_USER_BUILD=off``),
to compare with the registered ``kip320-r3`` of the same 737,794 states.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import resource

import psutil

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.json"

USER_FILE = "specs/kip320.py"
"""Kip320 as a user's spec file: the same module the registered ``kip320`` is, loaded by its path."""
USER_OFF = {"MODELCHECK_USER_BUILD": "off"}

WORKLOADS: list[tuple[str, list[str], bool] | tuple[str, list[str], bool, dict[str, str]]] = [
    # (name, modelcheck check arguments, large?[, environment])
    ("counter-grid-4x30", ["tests/models/counter_grid.py", "--const", "Counters=4", "--const", "Max=30"], False),
    ("kip320-r3", ["kip320", "--const", "Replicas=3", "--workers", "1"], False),
    ("kip320-r3-user-file", [USER_FILE, "--const", "Replicas=3", "--workers", "1"], False),
    ("kip320-r3-user-file-interpreted", [USER_FILE, "--const", "Replicas=3", "--workers", "1"], False, USER_OFF),
    ("kip320-r3-workers2", ["kip320", "--const", "Replicas=3", "--workers", "2"], False),
    ("kip320-r3-symmetry", ["kip320", "--const", "Replicas=3", "--symmetry"], False),
    ("kip320-r3-symmetry-workers2", ["kip320", "--const", "Replicas=3", "--symmetry", "--workers", "2"], False),
    ("kip320-r3-epoch3", ["kip320", "--const", "Replicas=3", "--const", "MaxLeaderEpoch=3"], True),
    ("kip320-r3-epoch3-workers2",
     ["kip320", "--const", "Replicas=3", "--const", "MaxLeaderEpoch=3", "--workers", "2"], True),
]


def machine() -> str:
    mem = psutil.virtual_memory().total / 2**30
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python {platform.python_version()}"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def tree_rss(proc: psutil.Process) -> int:
    """RSS of a process and all its descendants (worker processes count)."""
    total = 0
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def tree_pss(proc: psutil.Process) -> int:
    """Proportional set size of a process tree: pages shared after a fork are counted once.

    Summing RSS over forked workers counts the pages they share with the
    coordinator once per process; PSS splits each shared page between its
    sharers, so the sum is what the tree really occupies.
    """
    total = 0
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return 0
    for p in procs:
        try:
            with open(f"/proc/{p.pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            pass
    return total


def compiled_specs(interpreted: bool) -> str:
    """How the specs run in this benchmark (modelcheck.build.compiled): it changes every figure by about a quarter."""
    if interpreted:
        return "interpreted (MODELCHECK_INTERPRETED=1)"
    from modelcheck.build import compiled

    modules = compiled.status()
    return f"compiled ({sum(ok for _, ok in modules)} of {len(modules)} modules built)"


def run_workload(args: list[str], interpreted: bool = False, extra_env: dict[str, str] | None = None) -> dict:
    cmd = [sys.executable, "-m", "modelcheck", "check", *args, "--json", "-q"]
    env = dict(os.environ)
    if interpreted:
        env["MODELCHECK_INTERPRETED"] = "1"
    else:
        env.pop("MODELCHECK_INTERPRETED", None)
    env.update(extra_env or {})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    popen = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    spec_mode = ""
    proc = psutil.Process(popen.pid)
    peak = 0
    peak_pss = 0
    next_pss = 0.0
    while popen.poll() is None:
        peak = max(peak, tree_rss(proc))
        if time.perf_counter() >= next_pss:  # reading smaps costs ~10 ms per GiB: twice a second
            peak_pss = max(peak_pss, tree_pss(proc))
            next_pss = time.perf_counter() + 0.5
        time.sleep(0.05)
    wall = time.perf_counter() - start
    out, err = popen.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if popen.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({popen.returncode}):\n{err}")
    data = json.loads(out)
    distinct = data["distinct_states"]
    for line in err.splitlines():  # the header says how the spec ran: "...; spec compiled"
        if line.startswith("Invariants: ") and "; spec " in line:
            spec_mode = line.split("; spec ", 1)[1]
    return {
        "command": "modelcheck check " + " ".join(args),
        "result": data["result"],
        "distinct": distinct,
        "generated": data["states_generated"],
        "depth": data["depth"],
        "wall_s": round(wall, 2),
        "engine_s": round(data["seconds"], 2),
        "cpu_s": round(cpu, 2),
        "load_before": round(load, 2),
        "states_per_s": round(data["states_generated"] / data["seconds"]) if data["seconds"] else 0,
        "peak_rss_mib": round(peak / 2**20, 1),
        "peak_pss_mib": round(peak_pss / 2**20, 1),
        "bytes_per_state": round(peak_pss / distinct, 1) if distinct else 0.0,
        "spec_mode": spec_mode,
    }


def build_user_spec(args: list[str], extra_env: dict[str, str]) -> None:
    """Compile a workload's spec file first, unless the workload runs it interpreted: the figure is the build's."""
    if not args[0].endswith(".py") or extra_env.get("MODELCHECK_USER_BUILD") == "off":
        return
    p = subprocess.run([sys.executable, "-m", "modelcheck", "compile", args[0]], cwd=ROOT, capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit(f"modelcheck compile {args[0]} failed:\n{p.stderr}")
    print(p.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[], help="run only this workload (repeatable)")
    ap.add_argument("--large", action="store_true", help="include the ten-million-state runs (minutes)")
    ap.add_argument("--no-save", action="store_true", help="do not update bench/results.json")
    ap.add_argument("--interpreted", action="store_true",
                    help="run the specs interpreted, not compiled (implies --no-save)")
    ns = ap.parse_args()
    if ns.interpreted:
        ns.no_save = True
    specs_mode = compiled_specs(ns.interpreted)
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    prev_results = previous.get("results", {})
    results = dict(prev_results)
    print(f"machine: {machine()}")
    print(f"specs: {specs_mode}")
    print(f"{'workload':32} {'wall s':>8} {'engine s':>9} {'cpu s':>7} {'load':>5} {'states/s':>10} {'RSS MiB':>8} "
          f"{'PSS MiB':>8} {'B/state':>8} {'distinct':>11}  vs previous (wall, RSS)")
    for name, args, large, *extra in WORKLOADS:
        if ns.only and name not in ns.only:
            continue
        if large and not ns.large and name not in ns.only:
            continue
        extra_env = extra[0] if extra else {}
        if not ns.interpreted:
            build_user_spec(args, extra_env)
        r = run_workload(args, ns.interpreted, extra_env)
        r["specs"] = specs_mode
        r["date"] = datetime.date.today().isoformat()
        r["commit"] = commit()
        old = prev_results.get(name)
        ratio = ""
        if old and old.get("wall_s"):
            ratio = (f"x{r['wall_s'] / old['wall_s']:.2f} wall, x{r['peak_rss_mib'] / old['peak_rss_mib']:.2f} RSS "
                     f"(was {old['wall_s']} s at {old.get('commit', '?')})")
        print(f"{name:32} {r['wall_s']:8.2f} {r['engine_s']:9.2f} {r['cpu_s']:7.1f} {r['load_before']:5.1f} "
              f"{r['states_per_s']:10,} "
              f"{r['peak_rss_mib']:8.1f} {r['peak_pss_mib']:8.1f} {r['bytes_per_state']:8.1f} {r['distinct']:11,}  "
              f"{ratio}{'  [spec ' + r['spec_mode'] + ']' if r['spec_mode'] else ''}", flush=True)
        results[name] = r
    if not ns.no_save:
        RESULTS.write_text(json.dumps({"machine": machine(), "results": results}, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
