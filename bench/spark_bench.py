"""Local engine vs the Spark engine (local[1], local[2], a standalone cluster) on one configuration.

    .venv/bin/python bench/spark_bench.py                      # kip320 Replicas=3 (737,794 states)
    .venv/bin/python bench/spark_bench.py --const Replicas=2   # a quick run
    .venv/bin/python bench/spark_bench.py --runs local,local[2]
    .venv/bin/python bench/spark_bench.py --runs 'local,local[2],local[2]/own'   # /own: with --no-memo

Each run is ``modelcheck check ... --json`` in a fresh process, as a user runs
it.  While it runs, this script samples every 0.25 s the resident memory of
the processes involved, grouped as: the driver (the modelcheck process), JVMs
(the driver's JVM and, on the cluster, the executor JVMs) and Python workers
(pyspark daemons and workers), and reports each group's peak total.  Spark
runs use ``-v`` so the engine prints each level's wall time; "per-level
overhead" is the median time of levels whose frontier was under 100 states,
where expansion costs nothing and what remains is Spark's scheduling.
It prints a markdown table for docs/benchmarks.md.  Wall times on a shared
machine vary: the load average before each run is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

LEVEL = re.compile(r"states left on queue\. \[spark level (\d+): ([0-9.]+)s")
QUEUE = re.compile(r"([0-9,]+) states left on queue\. \[spark level")


def classify(p: psutil.Process) -> str | None:
    try:
        name = p.name()
        cmd = " ".join(p.cmdline())
    except psutil.Error:
        return None
    if "java" in name or "java" in cmd.split(" ")[0]:
        return "jvm"
    if "pyspark.daemon" in cmd or "pyspark.worker" in cmd or "pyspark/daemon" in cmd:
        return "pyworkers"
    if "python" in name:
        return "pyworkers"
    return None


def sample(root_pid: int, extra_roots: list[int], stop: threading.Event, peaks: dict, cpu: dict) -> None:
    """Peak RSS per group (driver, JVMs, Python workers) of the process trees under the roots, and the
    CPU seconds of every process in them (the last reading of each; a process that ends between two
    readings loses at most 0.25 s of its CPU)."""
    while not stop.is_set():
        totals = {"driver": 0, "jvm": 0, "pyworkers": 0}
        try:
            root = psutil.Process(root_pid)
            totals["driver"] = root.memory_info().rss
            procs = [root] + root.children(recursive=True)
            for pid in extra_roots:  # cluster workers: only what they launched for us
                procs += psutil.Process(pid).children(recursive=True)
            for p in procs:
                try:
                    t = p.cpu_times()
                    cpu[(p.pid, p.create_time())] = t.user + t.system
                except psutil.Error:
                    pass
                if p.pid == root_pid:
                    continue
                group = classify(p)
                if group:
                    try:
                        totals[group] += p.memory_info().rss
                    except psutil.Error:
                        pass
        except psutil.Error:
            pass
        for k, v in totals.items():
            peaks[k] = max(peaks.get(k, 0), v)
        stop.wait(0.25)


def run(args: list[str], extra_roots: list[int]) -> dict:
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    cpu: dict = {}
    proc = subprocess.Popen([sys.executable, "-m", "modelcheck", "check", *args, "--json"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peaks: dict = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(proc.pid, extra_roots, stop, peaks, cpu), daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    stop.set()
    sampler.join()
    load_after = os.getloadavg()[0]
    if proc.returncode not in (0, 1):
        raise SystemExit(f"run failed ({proc.returncode}): {' '.join(args)}\n{err[-3000:]}")
    data = json.loads(out)
    levels = [(int(n), float(t)) for n, t in LEVEL.findall(err)]
    queues = [int(q.replace(",", "")) for q in QUEUE.findall(err)]
    # A level's frontier is the queue reported after the level before it.
    small = [t for (n, t), q in zip(levels[1:], queues[:-1]) if q < 100]
    return {
        "wall": wall,
        "engine_seconds": data["seconds"],
        "distinct": data["distinct_states"],
        "generated": data["states_generated"],
        "depth": data["depth"],
        "levels": levels,
        "overhead": statistics.median(small) if small else None,
        "peaks": peaks,
        "load": load,
        "load_after": load_after,
        "cpu": sum(cpu.values()),
        "spark": data.get("spark"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="kip320")
    ap.add_argument("--const", action="append", default=None, help="NAME=VALUE (default Replicas=3)")
    ap.add_argument("--runs", default="local,local[1],local[2],standalone")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--workers", type=int, default=1, help="standalone: workers (cores split among them)")
    a = ap.parse_args()
    consts = a.const or ["Replicas=3"]
    base = [a.spec] + [x for c in consts for x in ("--const", c)] + ["-q"]
    results = {}
    for name in a.runs.split(","):
        own = ["--no-memo"] if name.endswith("/own") else []  # the executors (or the local engine) on the spec's code
        parts = ["--partitions", str(a.partitions)] if a.partitions else []
        parts += own
        if name.split("/")[0] == "local":
            results[name] = run([*base, *own], [])
        elif name.startswith("local["):
            results[name] = run([*base[:-1], "-v", "--engine", "spark", "--master", name.split("/")[0], *parts], [])
        elif name.split("/")[0] == "standalone":
            from spark_support import standalone_cluster

            cores = max(1, 2 // a.workers)
            with tempfile.TemporaryDirectory() as tmp, \
                    standalone_cluster(Path(tmp), workers=a.workers, cores=cores) as (url, procs):
                results[name] = run([*base[:-1], "-v", "--engine", "spark", "--master", url, *parts],
                                    [p.pid for p in procs[1:]])
        else:
            raise SystemExit(f"unknown run {name}")
        r = results[name]
        print(f"# {name}: {r['wall']:.1f}s wall, {r['cpu']:.1f}s CPU, load {r['load']:.1f}->{r['load_after']:.1f}, "
              f"{r['distinct']:,} distinct, overhead {r['overhead']}, "
              f"levels {[round(t, 2) for _, t in r['levels']]}", file=sys.stderr, flush=True)
    mib = 2**20
    print(f"{a.spec} {' '.join(consts)}: machine {os.cpu_count()} cores, "
          f"{psutil.virtual_memory().total / 2**30:.0f} GiB\n")
    print("| run | wall (s) | CPU (s) | engine (s) | distinct | generated | depth | per-level overhead (s) "
          "| peak driver (MiB) | peak JVMs (MiB) | peak Python workers (MiB) | load before → after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        ov = f"{r['overhead']:.2f}" if r["overhead"] is not None else "–"
        pk = r["peaks"]
        print(f"| {name} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['engine_seconds']:.1f} | {r['distinct']:,} "
              f"| {r['generated']:,} | {r['depth']} | {ov} | {pk.get('driver', 0) / mib:.0f} "
              f"| {pk.get('jvm', 0) / mib:.0f} | {pk.get('pyworkers', 0) / mib:.0f} "
              f"| {r['load']:.1f} → {r['load_after']:.1f} |")
    spark = {name: r["spark"] for name, r in results.items() if r.get("spark")}
    if spark:
        # What the engine itself reports (--json "spark"): the shuffle per candidate, and who held the states.
        print("\n| run | candidates shipped | bytes / candidate | packing µs / candidate | unpacking µs / candidate "
              "| executors' Python CPU µs / generated | states held by executors | driver Python peak (MiB) "
              "| driver JVM peak (MiB) | successors |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, s in spark.items():
            sh = s["shuffle"]
            n, got = max(sh["candidates"], 1), max(sh["received"], 1)
            jvm = s.get("driver_jvm_peak_rss_bytes")
            print(f"| {name} | {sh['candidates']:,} | {sh['bytes'] / n:.0f} | {sh['pickle_seconds'] / n * 1e6:.1f} "
                  f"| {sh['unpickle_seconds'] / got * 1e6:.1f} | {s.get('executor_cpu_us_per_generated', '–')} "
                  f"| {sum(s['executor_states'].values()):,} "
                  f"on {len(s['executor_states'])} | {(s.get('driver_peak_rss_bytes') or 0) / mib:.0f} "
                  f"| {jvm / mib if jvm else float('nan'):.0f} "
                  f"| {', '.join(sorted(set(s.get('executor_successors', {}).values()))) or '–'} |")


if __name__ == "__main__":
    main()
