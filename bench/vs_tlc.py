"""modelcheck against TLC on the same models, whole processes: ``.venv/bin/python bench/vs_tlc.py``.

    .venv/bin/python bench/vs_tlc.py [--runs 3] [--large] [--only NAME] [--json OUT] [--no-vectorised] \\
        [--tlc-jar PATH/tla2tools.jar --tla-dir PATH/kafka-specification [--tlc-workers2]]
    .venv/bin/python bench/vs_tlc.py --suite published [--runs 3] [--only NAME] [--json OUT] \\
        [--tlc-jar PATH/tla2tools.jar --examples-dir PATH/tlaplus-Examples]

Per workload it runs, each ``--runs`` times (median reported), as whole processes:

* ``modelcheck check ... -q --json --workers 1`` (one process, on the memo tables);
* the same with ``--no-memo`` (every successor by the spec's own code; ``--no-readable`` skips it);
* the same with ``--workers 2`` (two threads on the memo tables), right after the one-process run of
  each round, so that each round also gives a paired ratio of the two;
* on the Kip320 workloads (not with ``--no-vectorised``): ``bench/packed_kip320.py --json``, the
  hand-written packed, level-vectorised numpy encoding of Kip320 (every state a few bit fields of
  one or two uint64 words, no Python object per state; not derived from the spec, and
  cross-checked against it by tests/test_packed_kip320_reference.py), shown as "vectorised
  (hand-written)": the reference of the goal "modelcheck's CPU time within 3x of a packed,
  vectorised encoding's", with the ratio modelcheck (memo tables, one process) CPU / vectorised CPU,
  both as the ratio of the medians and as the median of each round's ratio (the encoding runs right
  after modelcheck's one process in each round, so a round's two runs see the same machine)
  (on kip320-r3-epoch3 a state takes two words and the encoding's visited set is several times
  slower a state, so there the ratio flatters modelcheck);
* with ``--tlc-jar``: TLC, one worker, breadth-first, on the published TLA+ module
  with the same constants, invariant and bounds; with ``--tlc-workers2`` also TLC with two workers,
  right after it in each round (TLC's own ratio of one worker over two, beside modelcheck's).

``--tlc-jar`` is a ``tla2tools.jar`` (e.g. from the TLA+ tools releases,
github.com/tlaplus/tlaplus; bench/tlc/README.md names the version used for the
liveness table); ``--tla-dir`` is a directory holding the published modules
(github.com/hachikuji/kafka-specification: Kip320.tla, Kip279.tla,
KafkaReplication.tla, FiniteReplicatedLog.tla, IdSequence.tla, Util.tla,
AsyncIsr.tla).  Neither is kept in this repository.  Each TLC run copies the
modules it needs, with this repository's wrapper and configuration
(bench/tlc/AsyncIsrBounded.tla, AsyncIsrBounded_R4.cfg; Kip320's configuration
is written by this script), into a fresh temporary directory and runs there, as
bench/tlc/run_liveness.py does:
``java -XX:+UseParallelGC -cp JAR tlc2.TLC -workers 1 -fp 0 -deadlock -metadir ... -config X.cfg X.tla``.
Java 11 or later must be on PATH (or ``--java``).

Workloads:

* ``kip320-r3``: Kip320, Replicas=3, LogSize=2, MaxRecords=2, MaxLeaderEpoch=2, invariant StrongIsr
  (737,794 distinct states);
* ``async-isr-r4``: AsyncIsr, four replicas, r1 the leader, MaxOffset=2, MaxVersion=3, invariant
  ValidHighWatermark, bounded by the state constraint of bench/tlc/AsyncIsrBounded.tla
  (TLC's CONSTRAINT; modelcheck's ``within_bounds``);
* ``kip320-r3-epoch3`` (``--large``): Kip320 with MaxLeaderEpoch=3 (about ten million states; TLC
  takes more than ten minutes).

``--suite published`` runs instead the ports of published specifications in
bench/published/ (its ``SUITE``: TCommit, TwoPhase, EWD840, PaxosCommit,
MultiPaxos-SMR), each at the model its tlaplus/Examples manifest records, with
modelcheck on its default path and with ``--no-memo`` and, given ``--tlc-jar`` and
``--examples-dir`` (a checkout of github.com/tlaplus/Examples; neither is kept in
this repository), TLC with one worker on the published module and the manifest's
own cfg, run in a fresh temporary copy of the spec's folder, deadlock checked as
the cfg says: ``java -XX:+UseParallelGC -cp JAR tlc2.TLC -workers 1 -fp 0 -metadir ...
-config X.cfg X.tla``.  One more workload, ``multipaxos-nosym``, is MultiPaxos's
model without its SYMMETRY (modelcheck's memo tables do not run under
``--symmetry``); its TLC cfg is the manifest's with the SYMMETRY line left out,
written by this script.  The counts of every run must equal each other and the
manifest's (where the manifest records them; EWD840's recorded depth 10 is
TLC 2.20's 9, see bench/published); per spec it prints each engine's figures and,
from modelcheck's ``--json``, the memo tables' own (``"memo"``: evaluations of
spec code, split actions, tree nodes, leaves, interned values, table bytes), or,
where the tables stopped and the run went on with the spec's own code (they do so
when they learn about as often as they answer), their reason; that is reported,
not a mismatch.  No vectorised or ``--workers 2`` runs in this mode.

The runs are strictly one at a time (the machine this is measured on has two
cores).  For each process it measures the wall time, the CPU seconds (user +
system, the process and the children it waited for) and the peak resident
memory of its process tree, sampled every 50 ms (the helper of bench/run.py).
It prints, per workload, each engine's median figures and the counts, the
ratios TLC / modelcheck, one process / two workers and modelcheck / vectorised
CPU (both whole processes, the interpreter's start included), and modelcheck's
CPU microseconds per generated state; the date and the load average before and
after.  The counts (distinct states, states generated, depth) of every run must
agree between the engines, the vectorised encoding included: a mismatch is
printed on a ``MISMATCH`` line and the script exits with status 1.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
TLC_DIR = ROOT / "bench" / "tlc"


def _load_run_helpers():
    """bench/run.py's tree_rss and machine(), loaded by path (bench is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.tree_rss, mod.machine


tree_rss, machine = _load_run_helpers()

KIP320_MODULES = ("Kip320.tla", "Kip279.tla", "KafkaReplication.tla", "FiniteReplicatedLog.tla",
                  "IdSequence.tla", "Util.tla")


def kip320_cfg(max_leader_epoch: int) -> str:
    return f"""\\* Kip320, three replicas, MaxLeaderEpoch {max_leader_epoch}: the configuration of
\\* `modelcheck check kip320` (with --const MaxLeaderEpoch={max_leader_epoch}); written by bench/vs_tlc.py.
CONSTANTS
    Replicas = {{r1, r2, r3}}
    LogSize = 2
    MaxRecords = 2
    MaxLeaderEpoch = {max_leader_epoch}

SPECIFICATION Spec
INVARIANT StrongIsr
CHECK_DEADLOCK FALSE
"""


WORKLOADS = [
    {
        "name": "kip320-r3",
        "modelcheck": ["kip320", "--const", "Replicas=3"],
        "tlc_module": "Kip320.tla",
        "tlc_modules": KIP320_MODULES,
        "tlc_cfg": ("Kip320_R3.cfg", kip320_cfg(2)),
        "invariants": ["StrongIsr"],
        "packed": [],
        "large": False,
    },
    {
        "name": "async-isr-r4",
        "modelcheck": ["async-isr", "--const", "Replicas=4"],
        "tlc_module": "AsyncIsrBounded.tla",
        "tlc_modules": ("AsyncIsr.tla", "Util.tla"),
        "tlc_wrappers": ("AsyncIsrBounded.tla",),
        "tlc_cfg": "AsyncIsrBounded_R4.cfg",
        "invariants": ["ValidHighWatermark"],
        "large": False,
    },
    {
        "name": "kip320-r3-epoch3",
        "modelcheck": ["kip320", "--const", "Replicas=3", "--const", "MaxLeaderEpoch=3"],
        "tlc_module": "Kip320.tla",
        "tlc_modules": KIP320_MODULES,
        "tlc_cfg": ("Kip320_R3_Epoch3.cfg", kip320_cfg(3)),
        "invariants": ["StrongIsr"],
        "packed": ["--const", "MaxLeaderEpoch=3"],  # two words a state: about 20 s, 600 MiB
        "large": True,
    },
]


# --- measuring one process ---------------------------------------------------

def measure(cmd: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> dict:
    """Run ``cmd`` to its end: wall, CPU seconds and peak RSS of its process tree, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        popen = subprocess.Popen(cmd, cwd=cwd, stdout=out_f, stderr=err_f, env=env)
        proc = psutil.Process(popen.pid)
        peak = 0
        timed_out = False
        while popen.poll() is None:
            peak = max(peak, tree_rss(proc))
            if time.perf_counter() - start > timeout:
                timed_out = True
                for child in proc.children(recursive=True):
                    child.kill()
                popen.kill()
                popen.wait()
                break
            time.sleep(0.05)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out_f.seek(0)
        err_f.seek(0)
        out = out_f.read().decode(errors="replace")
        err = err_f.read().decode(errors="replace")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mib": round(peak / 2**20, 1),
            "returncode": popen.returncode, "timed_out": timed_out, "stdout": out, "stderr": err}


def run_modelcheck(w: dict, workers: int, timeout: float, memo: bool = True) -> dict:
    cmd = [sys.executable, "-m", "modelcheck", "check", *w["modelcheck"], "--workers", str(workers), "-q", "--json"]
    if not memo:
        cmd.append("--no-memo")
    env = dict(os.environ)
    env.pop("MODELCHECK_INTERPRETED", None)
    m = measure(cmd, ROOT, timeout, env)
    if m["timed_out"] or m["returncode"] not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({m['returncode']}):\n{m['stderr'][-2000:]}")
    data = json.loads(m["stdout"])
    spec_mode = ""
    for line in m["stderr"].splitlines():  # "Invariants: ...; engine: local; spec compiled"
        if line.startswith("Invariants: ") and "; spec " in line:
            spec_mode = line.split("; spec ", 1)[1]
    return {
        "command": "modelcheck check " + " ".join(cmd[4:]),
        "result": data["result"], "invariants": data["invariants"],
        "distinct": data["distinct_states"], "generated": data["states_generated"], "depth": data["depth"],
        "engine_s": data["seconds"], "wall_s": m["wall_s"], "cpu_s": m["cpu_s"],
        "peak_rss_mib": m["peak_rss_mib"], "spec_mode": spec_mode,
        "memo_evaluations": (data.get("memo") or {}).get("evaluations"),
    }


def run_packed(w: dict, timeout: float) -> dict:
    """bench/packed_kip320.py on the workload's constants, as a whole process."""
    cmd = [sys.executable, str(ROOT / "bench" / "packed_kip320.py"), "--json", *w["packed"]]
    m = measure(cmd, ROOT, timeout)
    if m["timed_out"] or m["returncode"] not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({m['returncode']}):\n{m['stderr'][-2000:]}")
    data = json.loads(m["stdout"])
    return {
        "command": "bench/packed_kip320.py " + " ".join(cmd[2:]),
        "result": data["result"], "invariants": data["invariants"], "words": data["words"],
        "distinct": data["distinct_states"], "generated": data["generated_states"], "depth": data["depth"],
        "search_wall_s": data["wall_s"], "search_cpu_s": data["cpu_s"],
        "wall_s": m["wall_s"], "cpu_s": m["cpu_s"], "peak_rss_mib": m["peak_rss_mib"],
    }


# --- TLC ---------------------------------------------------------------------

def parse_tlc(text: str) -> dict:
    r: dict = {}
    m = re.search(r"TLC2 Version (\S+) of .*?\(rev: (\w+)\)", text)
    r["tlc"] = f"{m.group(1)} rev {m.group(2)}" if m else None
    if "Model checking completed. No error has been found." in text:
        r["result"] = "holds"
    elif re.search(r"^Error: Invariant (\w+) is violated", text, re.M):
        r["result"] = "violated"
    else:
        r["result"] = "error"
    m = re.findall(r"^([\d,]+) states generated, ([\d,]+) distinct states found, ([\d,]+) states left on queue",
                   text, re.M)
    if m:
        g, d, q = m[-1]
        r["generated"], r["distinct"], r["left_on_queue"] = (int(x.replace(",", "")) for x in (g, d, q))
    else:
        r["generated"] = r["distinct"] = r["left_on_queue"] = None
    m = re.search(r"depth of the complete state graph search is (\d+)", text)
    r["depth"] = int(m.group(1)) if m else None
    m = re.search(r"^Finished in (.+?) at", text, re.M)
    r["tlc_finished_in"] = m.group(1) if m else None
    return r


def run_tlc(w: dict, jar: Path, tla_dir: Path, java: str, timeout: float, keep: Path | None, tag: str,
            workers: int = 1) -> dict:
    with tempfile.TemporaryDirectory(prefix="vs-tlc-") as tmp:
        work = Path(tmp)
        for name in w["tlc_modules"]:
            src = tla_dir / name
            if not src.is_file():
                raise SystemExit(f"--tla-dir {tla_dir} has no {name}")
            shutil.copy(src, work / name)
        for name in w.get("tlc_wrappers", ()):
            shutil.copy(TLC_DIR / name, work / name)
        if isinstance(w["tlc_cfg"], tuple):
            cfg_name, text = w["tlc_cfg"]
            (work / cfg_name).write_text(text)
        else:
            cfg_name = w["tlc_cfg"]
            shutil.copy(TLC_DIR / cfg_name, work / cfg_name)
        cmd = [java, "-XX:+UseParallelGC", f"-Djava.io.tmpdir={work}", "-cp", str(jar), "tlc2.TLC",
               "-workers", str(workers), "-fp", "0", "-deadlock", "-metadir", str(work / "states"),
               "-config", cfg_name, w["tlc_module"]]
        m = measure(cmd, work, timeout)
    text = m["stdout"] + m["stderr"]
    if keep is not None:
        (keep / f"{w['name']}{tag}{'' if workers == 1 else f'-w{workers}'}.tlc.out").write_text(text)
    r = parse_tlc(text)
    if m["timed_out"]:
        r["result"] = "timeout"
    if r["result"] == "error" or r["distinct"] is None:
        tail = "\n".join(line for line in text.splitlines() if line.strip())[-2000:]
        raise SystemExit(f"TLC failed on {w['name']} ({m['returncode']}):\n{tail}")
    r.update(command="java ... tlc2.TLC " + " ".join(cmd[cmd.index("tlc2.TLC") + 1:]),
             wall_s=m["wall_s"], cpu_s=m["cpu_s"], peak_rss_mib=m["peak_rss_mib"])
    return r


# --- the table ---------------------------------------------------------------

def median_of(runs: list[dict]) -> dict:
    """Counts of the first run (all runs must agree); the median of each figure."""
    figures = ("wall_s", "cpu_s", "peak_rss_mib", "engine_s", "search_wall_s", "search_cpu_s")
    out = {k: v for k, v in runs[0].items() if k not in figures}
    for k in figures:
        if k in runs[0]:
            out[k] = round(statistics.median(r[k] for r in runs), 2)
    out["runs"] = len(runs)
    out["wall_s_all"] = [r["wall_s"] for r in runs]
    return out


COUNTS = ("distinct", "generated", "depth")


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def fmt(v, suffix: str = "") -> str:
    if v is None:
        return "–"
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:.2f}{suffix}" if isinstance(v, float) else str(v)


def engine_cell(r: dict | None) -> str:
    if r is None:
        return "–"
    return f"{r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, {r['peak_rss_mib']:.0f} MiB"


# --- the published suite (--suite published) -----------------------------------

PUBLISHED_DIR = ROOT / "bench" / "published"


def published_suite() -> list[dict]:
    """bench/published's SUITE, loaded by path (bench is not a package)."""
    spec = importlib.util.spec_from_file_location("published_suite", PUBLISHED_DIR / "__init__.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.SUITE


def published_workloads() -> list[dict]:
    """One workload per suite spec at its manifest model, and MultiPaxos's model without SYMMETRY."""
    out = []
    for e in published_suite():
        args = [str(PUBLISHED_DIR / f"{e['module']}.py")]
        for k, v in e["constants"].items():
            args += ["--const", f"{k}={v}"]
        for inv in e["invariants"]:
            args += ["--invariant", inv]
        for prop in e["properties"]:
            args += ["--property", prop]
        m = e["manifest"]
        w = {"name": e["name"], "modelcheck": args + (["--symmetry"] if e["symmetry"] else []),
             "folder": m["folder"], "tlc_module": m["tla"], "tlc_cfg": m["cfg"], "drop_symmetry": False,
             "invariants": e["invariants"], "properties": e["properties"],
             "expect": (m["distinct"], m["generated"], e.get("tlc_depth", m["depth"])),
             "recorded": (m["distinct"], m["generated"], m["depth"]), "note": e.get("manifest_note"),
             # The memo tables run neither under --symmetry nor with liveness properties (docs/memo.md).
             "memo_expected": not e["symmetry"] and not e["properties"]}
        out.append(w)
        if e["symmetry"]:
            out.append(dict(w, name=f"{e['name']}-nosym", modelcheck=args, drop_symmetry=True, expect=None,
                            recorded=None, note=None, memo_expected=True))
    return out


def run_modelcheck_published(w: dict, timeout: float, memo: bool) -> dict:
    """modelcheck on a published port, one process, with --json: the figures and the memo tables' own."""
    cmd = [sys.executable, "-m", "modelcheck", "check", *w["modelcheck"], "-q", "--json"]
    if not memo:
        cmd.append("--no-memo")
    env = dict(os.environ)
    env.pop("MODELCHECK_INTERPRETED", None)
    m = measure(cmd, ROOT, timeout, env)
    if m["timed_out"] or m["returncode"] not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({m['returncode']}):\n{m['stderr'][-2000:]}")
    data = json.loads(m["stdout"])
    spec_mode = ""
    for line in m["stderr"].splitlines():
        if line.startswith("Invariants: ") and "; spec " in line:
            spec_mode = line.split("; spec ", 1)[1]
    return {
        "command": "modelcheck check " + " ".join(str(x) for x in cmd[4:]).replace(str(ROOT) + "/", ""),
        "result": data["result"], "invariants": data["invariants"], "properties": data.get("properties", []),
        "distinct": data["distinct_states"], "generated": data["states_generated"], "depth": data["depth"],
        "engine_s": data["seconds"], "wall_s": m["wall_s"], "cpu_s": m["cpu_s"],
        "peak_rss_mib": m["peak_rss_mib"], "spec_mode": spec_mode, "memo": data.get("memo"),
        "warnings": data.get("warnings", []),
    }


def run_tlc_published(w: dict, jar: Path, examples: Path, java: str, timeout: float, keep: Path | None,
                      tag: str) -> dict:
    """TLC, one worker, on the published module and its manifest cfg, in a temporary copy of the folder."""
    folder = examples / w["folder"]
    if not (folder / w["tlc_module"]).is_file() or not (folder / w["tlc_cfg"]).is_file():
        raise SystemExit(f"--examples-dir {examples} has no {w['folder']}/{w['tlc_module']} or {w['tlc_cfg']}")
    with tempfile.TemporaryDirectory(prefix="vs-tlc-published-") as tmp:
        work = Path(tmp)
        for src in folder.glob("*.tla"):
            shutil.copy(src, work / src.name)
        cfg = w["tlc_cfg"]
        text = (folder / cfg).read_text()
        if w["drop_symmetry"]:
            cfg = cfg.replace(".cfg", "_nosym.cfg")
            text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("SYMMETRY")) + "\n"
        (work / cfg).write_text(text)
        cmd = [java, "-XX:+UseParallelGC", f"-Djava.io.tmpdir={work}", "-cp", str(jar), "tlc2.TLC",
               "-workers", "1", "-fp", "0", "-metadir", str(work / "states"), "-config", cfg, w["tlc_module"]]
        m = measure(cmd, work, timeout)
    text = m["stdout"] + m["stderr"]
    if keep is not None:
        (keep / f"{w['name']}{tag}.tlc.out").write_text(text)
    r = parse_tlc(text)
    if m["timed_out"]:
        r["result"] = "timeout"
    if r["result"] == "error" or r["distinct"] is None:
        tail = "\n".join(line for line in text.splitlines() if line.strip())[-2000:]
        raise SystemExit(f"TLC failed on {w['name']} ({m['returncode']}):\n{tail}")
    r.update(command="java ... tlc2.TLC " + " ".join(cmd[cmd.index("tlc2.TLC") + 1:]),
             wall_s=m["wall_s"], cpu_s=m["cpu_s"], peak_rss_mib=m["peak_rss_mib"])
    return r


MEMO_FIGURES = ("evaluations", "components", "split_actions", "tree_nodes", "leaves", "values", "table_bytes",
                "visited_bytes", "threads")


def main_published(args: argparse.Namespace) -> None:
    """--suite published: each suite spec at its manifest model, modelcheck (default, --no-memo) and TLC."""
    workloads = published_workloads()
    known = {w["name"] for w in workloads}
    for n in args.only:
        if n not in known:
            raise SystemExit(f"unknown workload {n}; known: {', '.join(sorted(known))}")
    if args.only:
        workloads = [w for w in workloads if w["name"] in args.only]
    if args.keep_tlc_output:
        args.keep_tlc_output.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now().astimezone()
    load_before = os.getloadavg()
    print(f"# modelcheck vs TLC on published specs (bench/published), {started.isoformat(timespec='seconds')}")
    print(f"machine: {machine()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    print(f"median of {args.runs} run(s) per engine; whole processes, one at a time")
    mismatches: list[str] = []
    results = []
    for w in workloads:
        name = w["name"]
        engines: dict[str, list[dict]] = {"mc1": [], "mc0": [], "tlc": []}
        for k in range(args.runs):
            tag = f"-{k + 1}" if args.runs > 1 else ""
            print(f"[{name}] run {k + 1}/{args.runs}: modelcheck ...", file=sys.stderr, flush=True)
            engines["mc1"].append(run_modelcheck_published(w, args.timeout, memo=True))
            if not args.no_readable:
                print(f"[{name}] run {k + 1}/{args.runs}: modelcheck --no-memo ...", file=sys.stderr, flush=True)
                engines["mc0"].append(run_modelcheck_published(w, args.timeout, memo=False))
            if args.tlc_jar:
                print(f"[{name}] run {k + 1}/{args.runs}: TLC -workers 1 ...", file=sys.stderr, flush=True)
                engines["tlc"].append(run_tlc_published(w, args.tlc_jar.resolve(), args.examples_dir.resolve(),
                                                        args.java, args.timeout, args.keep_tlc_output, tag))
        ref = engines["mc1"][0]
        if ref["invariants"] != w["invariants"] or ref["properties"] != w["properties"]:
            mismatches.append(f"{name}: modelcheck checked {ref['invariants']} {ref['properties']}, "
                              f"the cfg {w['invariants']} {w['properties']}")
        # Not a mismatch: the tables may stop by design (when they learn about as often as they answer)
        # and the run goes on with the spec's code; which path ran is part of what the suite measures.
        fell_back = [r for r in engines["mc1"] if w["memo_expected"] and r["memo"] is None]
        if w["expect"] is not None and tuple(ref[c] for c in COUNTS) != w["expect"]:
            mismatches.append(f"{name}: modelcheck's counts {tuple(ref[c] for c in COUNTS)}, "
                              f"the manifest's {w['expect']}")
        for label, runs in engines.items():
            for r in runs:
                if r["result"] != "holds":
                    mismatches.append(f"{name}: {label} result {r['result']}")
                diff = [f"{c} {fmt(r[c])} vs modelcheck's {fmt(ref[c])}" for c in COUNTS if r[c] != ref[c]]
                if diff:
                    mismatches.append(f"{name}: {label} {', '.join(diff)}")
        med = {label: median_of(runs) if runs else None for label, runs in engines.items()}
        mc1, mc0, tlc = med["mc1"], med["mc0"], med["tlc"]
        gen = ref["generated"]
        memo = ref["memo"]
        row = {
            "workload": name, "distinct": ref["distinct"], "generated": gen, "depth": ref["depth"],
            "manifest": list(w["recorded"]) if w["recorded"] else None, "manifest_note": w["note"],
            "modelcheck_1": mc1, "modelcheck_no_memo": mc0, "tlc_workers1": tlc,
            "memo": {k: memo.get(k) for k in MEMO_FIGURES} if memo else None,
            "memo_expected": w["memo_expected"], "default_warnings": ref["warnings"],
            "mc1_cpu_us_per_generated": round(mc1["cpu_s"] / gen * 1e6, 2),
            "mc0_cpu_us_per_generated": round(mc0["cpu_s"] / gen * 1e6, 2) if mc0 else None,
            "tlc_cpu_us_per_generated": round(tlc["cpu_s"] / gen * 1e6, 2) if tlc else None,
            "tlc_over_mc1_wall": ratio(tlc and tlc["wall_s"], mc1["wall_s"]),
            "tlc_over_mc0_wall": ratio(tlc and tlc["wall_s"], mc0 and mc0["wall_s"]),
            "mc0_over_mc1_wall": ratio(mc0 and mc0["wall_s"], mc1["wall_s"]),
        }
        results.append(row)
        print(f"\n## {name}: {fmt(ref['distinct'])} distinct, {fmt(gen)} generated, depth {ref['depth']} "
              f"(manifest: {', '.join(fmt(x) for x in w['recorded']) if w['recorded'] else 'no such model'}"
              f"{'; ' + w['note'] if w['note'] else ''}; "
              f"modelcheck: {ref['command']}; spec {ref['spec_mode']})")
        for label, title in (("mc1", "modelcheck (default: " + ("memo tables)" if memo else "spec's own code)")),
                             ("mc0", "modelcheck --no-memo"), ("tlc", "TLC -workers 1")):
            r = med[label]
            if r is None:
                continue
            extra = f", engine {r['engine_s']:.1f} s" if "engine_s" in r else f", {r['tlc']}"
            print(f"  {title}: {engine_cell(r)}{extra}; {fmt(r['distinct'])} distinct, {fmt(r['generated'])} "
                  f"generated, depth {r['depth']}; walls {r['wall_s_all']}")
        if memo:
            print("  memo tables: " + ", ".join(f"{k} {fmt(memo.get(k))}" for k in MEMO_FIGURES
                                                 if k != "split_actions")
                  + f"; split actions: {', '.join(memo.get('split_actions') or []) or 'none'}")
        elif fell_back:
            print(f"  NOT on the memo tables ({len(fell_back)} of {len(engines['mc1'])} default runs): "
                  f"{'; '.join(fell_back[0]['warnings']) or 'no warning (is the C loop built? modelcheck compile)'}")
        elif ref["warnings"]:
            print(f"  warnings: {'; '.join(ref['warnings'])}")
        print(f"  CPU per generated state: {row['mc1_cpu_us_per_generated']:.2f} µs (default)"
              + (f", {row['mc0_cpu_us_per_generated']:.2f} µs (--no-memo)" if mc0 else "")
              + (f", TLC {row['tlc_cpu_us_per_generated']:.2f} µs" if tlc else ""))
        print(f"  ratios: TLC/default wall {fmt(row['tlc_over_mc1_wall'])}, TLC/--no-memo wall "
              f"{fmt(row['tlc_over_mc0_wall'])}, --no-memo/default wall {fmt(row['mc0_over_mc1_wall'])}")
    load_after = os.getloadavg()
    print("\n| spec (manifest model) | TLC -workers 1 | modelcheck default | modelcheck --no-memo | memo evaluations |")
    print("|---|---|---|---|---|")
    for row in results:
        print(f"| {row['workload']} ({fmt(row['distinct'])} distinct, {fmt(row['generated'])} generated) "
              f"| {engine_cell(row['tlc_workers1'])} | {engine_cell(row['modelcheck_1'])} "
              f"| {engine_cell(row['modelcheck_no_memo'])} "
              f"| {fmt(row['memo']['evaluations']) if row['memo'] else ('– (the tables stopped)' if row['memo_expected'] else '– (not on the tables)')} |")
    print(f"\nload average before: {' '.join(f'{x:.2f}' for x in load_before)}; "
          f"after: {' '.join(f'{x:.2f}' for x in load_after)}; "
          f"finished {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    for line in mismatches:
        print(f"MISMATCH: {line}")
    if not mismatches:
        print("counts: every engine's distinct states, states generated and depth agree, and equal the "
              "manifest's where it records the model")
    if args.json_out:
        doc = {"date": started.isoformat(timespec="seconds"), "machine": machine(), "runs": args.runs,
               "suite": "published", "load_before": [round(x, 2) for x in load_before],
               "load_after": [round(x, 2) for x in load_after], "workloads": results, "mismatches": mismatches}
        args.json_out.write_text(json.dumps(doc, indent=2) + "\n")
    if mismatches:
        sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each engine per workload; the median is shown")
    ap.add_argument("--large", action="store_true", help="add kip320-r3-epoch3 (about ten million states)")
    ap.add_argument("--only", action="append", default=[], help="run only this workload (repeatable)")
    ap.add_argument("--tlc-jar", type=Path, help="a tla2tools.jar; without it TLC is not run")
    ap.add_argument("--tla-dir", type=Path, help="directory of the published TLA+ modules (with --tlc-jar)")
    ap.add_argument("--java", default="java", help="the java command (default: java on PATH)")
    ap.add_argument("--no-workers2", action="store_true", help="skip the modelcheck --workers 2 runs")
    ap.add_argument("--tlc-workers2", action="store_true",
                    help="also run TLC -workers 2, right after TLC -workers 1 in each round (TLC's own scaling)")
    ap.add_argument("--no-readable", action="store_true",
                    help="skip the one-process runs with --no-memo (every successor by the spec's own code)")
    ap.add_argument("--no-vectorised", action="store_true",
                    help="skip the runs of bench/packed_kip320.py, the hand-written vectorised Kip320")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds one process may take (default 3600)")
    ap.add_argument("--keep-tlc-output", type=Path, help="directory to write TLC's whole output to")
    ap.add_argument("--json", type=Path, dest="json_out", help="write the figures to this file")
    ap.add_argument("--suite", choices=("kafka", "published"), default="kafka",
                    help="kafka: the workloads above (default); published: the ports in bench/published")
    ap.add_argument("--examples-dir", type=Path,
                    help="a checkout of github.com/tlaplus/Examples (with --suite published --tlc-jar)")
    args = ap.parse_args()
    if args.suite == "published":
        if args.runs < 1:
            ap.error("--runs must be at least 1")
        if args.tlc_jar and not args.examples_dir:
            ap.error("--suite published --tlc-jar needs --examples-dir")
        if args.tlc_jar and not args.tlc_jar.is_file():
            ap.error(f"no such jar: {args.tlc_jar}")
        main_published(args)
        return
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.tlc_jar and not args.tla_dir:
        ap.error("--tlc-jar needs --tla-dir")
    if args.tlc_jar and not args.tlc_jar.is_file():
        ap.error(f"no such jar: {args.tlc_jar}")
    known = {w["name"] for w in WORKLOADS}
    for n in args.only:
        if n not in known:
            ap.error(f"unknown workload {n}; known: {', '.join(sorted(known))}")
    if args.only:
        workloads = [w for w in WORKLOADS if w["name"] in args.only]
    else:
        workloads = [w for w in WORKLOADS if args.large or not w["large"]]
    if args.keep_tlc_output:
        args.keep_tlc_output.mkdir(parents=True, exist_ok=True)

    started = datetime.datetime.now().astimezone()
    load_before = os.getloadavg()
    print(f"# modelcheck vs TLC, {started.isoformat(timespec='seconds')}")
    print(f"machine: {machine()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    print(f"median of {args.runs} run(s) per engine; whole processes, one at a time")
    mismatches: list[str] = []
    results = []
    for w in workloads:
        name = w["name"]
        engines: dict[str, list[dict]] = {"mc1": [], "mc0": [], "mc2": [], "vec": [], "tlc": [], "tlc2": []}
        for k in range(args.runs):
            tag = f"-{k + 1}" if args.runs > 1 else ""
            print(f"[{name}] run {k + 1}/{args.runs}: modelcheck, 1 process ...", file=sys.stderr, flush=True)
            engines["mc1"].append(run_modelcheck(w, 1, args.timeout))
            # --workers 2 right after, for a paired ratio of one thread over two (as for the encoding below).
            if not args.no_workers2:
                print(f"[{name}] run {k + 1}/{args.runs}: modelcheck --workers 2 ...", file=sys.stderr, flush=True)
                engines["mc2"].append(run_modelcheck(w, 2, args.timeout))
            # The vectorised encoding right after, so that each round gives a ratio of two runs taken
            # seconds apart (this machine's speed drifts by a third between minutes).
            if "packed" in w and not args.no_vectorised:
                print(f"[{name}] run {k + 1}/{args.runs}: vectorised (bench/packed_kip320.py) ...", file=sys.stderr,
                      flush=True)
                engines["vec"].append(run_packed(w, args.timeout))
            if not args.no_readable:
                print(f"[{name}] run {k + 1}/{args.runs}: modelcheck --no-memo ...", file=sys.stderr, flush=True)
                engines["mc0"].append(run_modelcheck(w, 1, args.timeout, memo=False))
            if args.tlc_jar:
                print(f"[{name}] run {k + 1}/{args.runs}: TLC -workers 1 ...", file=sys.stderr, flush=True)
                engines["tlc"].append(run_tlc(w, args.tlc_jar.resolve(), args.tla_dir.resolve(), args.java,
                                              args.timeout, args.keep_tlc_output, tag))
                if args.tlc_workers2:
                    print(f"[{name}] run {k + 1}/{args.runs}: TLC -workers 2 ...", file=sys.stderr, flush=True)
                    engines["tlc2"].append(run_tlc(w, args.tlc_jar.resolve(), args.tla_dir.resolve(), args.java,
                                                   args.timeout, args.keep_tlc_output, tag, workers=2))
        ref = engines["mc1"][0]
        if ref["invariants"] != w["invariants"]:
            mismatches.append(f"{name}: modelcheck checked invariants {ref['invariants']}, TLC {w['invariants']}")
        for r in engines["vec"]:
            if r["invariants"] != w["invariants"]:
                mismatches.append(f"{name}: vec checked invariants {r['invariants']}, TLC {w['invariants']}")
        for label in ("mc1", "mc2"):
            for r in engines[label]:
                if r.get("memo_evaluations") is None:  # a build out of date runs the spec's own code
                    mismatches.append(f"{name}: {label} ran without the memo tables (modelcheck compile?)")
        for label, runs in engines.items():
            for r in runs:
                if r["result"] != "holds":
                    mismatches.append(f"{name}: {label} result {r['result']}")
                diff = [f"{c} {fmt(r[c])} vs modelcheck's {fmt(ref[c])}" for c in COUNTS if r[c] != ref[c]]
                if diff:
                    mismatches.append(f"{name}: {label} {', '.join(diff)}")
        med = {label: median_of(runs) if runs else None for label, runs in engines.items()}
        mc1, mc0, mc2, vec, tlc, tlc2 = med["mc1"], med["mc0"], med["mc2"], med["vec"], med["tlc"], med["tlc2"]
        gen = ref["generated"]
        row = {
            "workload": name, "distinct": ref["distinct"], "generated": gen, "depth": ref["depth"],
            "modelcheck_1": mc1, "modelcheck_no_memo": mc0, "modelcheck_workers2": mc2, "vectorised": vec,
            "tlc_workers1": tlc, "tlc_workers2": tlc2,
            "tlc1_over_tlc2_wall": ratio(tlc and tlc["wall_s"], tlc2 and tlc2["wall_s"]),
            "tlc1_over_tlc2_wall_paired": (round(statistics.median(
                a["wall_s"] / b["wall_s"] for a, b in zip(engines["tlc"], engines["tlc2"])), 2) if tlc2 else None),
            "memo_evaluations": ref.get("memo_evaluations"),
            "mc0_cpu_us_per_generated": round(mc0["cpu_s"] / gen * 1e6, 2) if mc0 else None,
            "tlc_over_mc0_wall": ratio(tlc and tlc["wall_s"], mc0 and mc0["wall_s"]),
            "mc0_over_mc1_wall": ratio(mc0 and mc0["wall_s"], mc1["wall_s"]),
            "mc1_cpu_us_per_generated": round(mc1["cpu_s"] / gen * 1e6, 2),
            "mc2_cpu_us_per_generated": round(mc2["cpu_s"] / gen * 1e6, 2) if mc2 else None,
            "tlc_cpu_us_per_generated": round(tlc["cpu_s"] / gen * 1e6, 2) if tlc else None,
            "tlc_over_mc1_wall": ratio(tlc and tlc["wall_s"], mc1["wall_s"]),
            "tlc_over_mc1_cpu": ratio(tlc and tlc["cpu_s"], mc1["cpu_s"]),
            "tlc_over_mc1_rss": ratio(tlc and tlc["peak_rss_mib"], mc1["peak_rss_mib"]),
            "tlc_over_mc2_wall": ratio(tlc and tlc["wall_s"], mc2 and mc2["wall_s"]),
            "mc1_over_mc2_wall": ratio(mc1["wall_s"], mc2 and mc2["wall_s"]),
            "mc1_over_mc2_cpu": ratio(mc1["cpu_s"], mc2 and mc2["cpu_s"]),
            "mc1_over_mc2_wall_paired": (round(statistics.median(
                a["wall_s"] / b["wall_s"] for a, b in zip(engines["mc1"], engines["mc2"])), 2) if mc2 else None),
            "mc1_over_vectorised_cpu": ratio(mc1["cpu_s"], vec and vec["cpu_s"]),
            "mc1_over_vectorised_cpu_paired": (round(statistics.median(
                a["cpu_s"] / b["cpu_s"] for a, b in zip(engines["mc1"], engines["vec"])), 2) if vec else None),
            "vectorised_cpu_us_per_generated": round(vec["cpu_s"] / gen * 1e6, 2) if vec else None,
        }
        results.append(row)
        print(f"\n## {name}: {fmt(ref['distinct'])} distinct, {fmt(gen)} generated, depth {ref['depth']} "
              f"(modelcheck: {ref['command']}; spec {ref['spec_mode']})")
        # A build out of date runs the spec's own code without a word but "memo": null: say so here.
        one = ("modelcheck, 1 process (memo tables)" if ref.get("memo_evaluations") is not None else
               "modelcheck, 1 process (NOT on the memo tables: is the C loop built? modelcheck compile)")
        for label, title in (("mc1", one), ("mc0", "modelcheck --no-memo"),
                             ("mc2", "modelcheck --workers 2"), ("vec", "vectorised (hand-written)"),
                             ("tlc", "TLC -workers 1"), ("tlc2", "TLC -workers 2")):
            r = med[label]
            if r is None:
                continue
            if label == "vec":
                extra = (f", its search {r['search_wall_s']:.2f} s wall, {r['search_cpu_s']:.2f} s CPU "
                         f"({r['words']} uint64 word(s) a state; {r['command']})")
            else:
                extra = f", engine {r['engine_s']:.1f} s" if "engine_s" in r else f", {r['tlc']}"
            print(f"  {title}: {engine_cell(r)}{extra}; {fmt(r['distinct'])} distinct, {fmt(r['generated'])} "
                  f"generated, depth {r['depth']}; walls {r['wall_s_all']}")
        if ref.get("memo_evaluations") is not None:
            print(f"  memo tables: {fmt(ref['memo_evaluations'])} evaluations of the spec's functions")
        print(f"  modelcheck CPU per generated state: {row['mc1_cpu_us_per_generated']:.2f} µs (1 process)"
              + (f", {row['mc0_cpu_us_per_generated']:.2f} µs (--no-memo)" if mc0 else "")
              + (f", {row['mc2_cpu_us_per_generated']:.2f} µs (--workers 2, all threads)" if mc2 else "")
              + (f"; vectorised {row['vectorised_cpu_us_per_generated']:.2f} µs" if vec else "")
              + (f"; TLC {row['tlc_cpu_us_per_generated']:.2f} µs" if tlc else ""))
        if vec:
            print(f"  modelcheck tables CPU / vectorised CPU: {fmt(row['mc1_over_vectorised_cpu'])} "
                  f"(whole processes, medians; goal <= 3); "
                  f"{fmt(row['mc1_over_vectorised_cpu_paired'])} (median of each round's two runs, taken in turn)"
                  + ("" if vec["words"] == 1 else
                     f"; here a state takes {vec['words']} words, whose visited set sorts byte strings, several "
                     f"times slower than one word's: the encoding is handicapped and the ratio flatters modelcheck"))
        print(f"  ratios: TLC/modelcheck-1 wall {fmt(row['tlc_over_mc1_wall'])}, CPU {fmt(row['tlc_over_mc1_cpu'])}, "
              f"RSS {fmt(row['tlc_over_mc1_rss'])}; TLC/modelcheck-w2 wall {fmt(row['tlc_over_mc2_wall'])}; "
              f"1-process/workers-2 wall {fmt(row['mc1_over_mc2_wall'])} (paired: "
              f"{fmt(row['mc1_over_mc2_wall_paired'])}), CPU {fmt(row['mc1_over_mc2_cpu'])}"
              + (f"; --no-memo/memo wall {fmt(row['mc0_over_mc1_wall'])}, TLC/--no-memo wall "
                 f"{fmt(row['tlc_over_mc0_wall'])}" if mc0 else "")
              + (f"; TLC -workers 1 / -workers 2 wall {fmt(row['tlc1_over_tlc2_wall'])} (paired: "
                 f"{fmt(row['tlc1_over_tlc2_wall_paired'])})" if tlc2 else ""))

    load_after = os.getloadavg()
    print("\n| workload | modelcheck, 1 process | --no-memo | modelcheck --workers 2 | vectorised (hand-written) "
          "| TLC -workers 1 | ratio |")
    print("|---|---|---|---|---|---|---|")
    for row in results:
        print(f"| {row['workload']} ({fmt(row['distinct'])} distinct, {fmt(row['generated'])} generated) "
              f"| {engine_cell(row['modelcheck_1'])}; {row['mc1_cpu_us_per_generated']:.2f} µs CPU/generated "
              f"| {engine_cell(row['modelcheck_no_memo'])} "
              f"| {engine_cell(row['modelcheck_workers2'])} "
              f"| {engine_cell(row['vectorised'])} "
              f"| {engine_cell(row['tlc_workers1'])} "
              f"| TLC/mc-1 wall {fmt(row['tlc_over_mc1_wall'])}, TLC/mc-w2 wall {fmt(row['tlc_over_mc2_wall'])}, "
              f"mc-1/mc-w2 wall {fmt(row['mc1_over_mc2_wall'])}, "
              f"mc-1/vectorised CPU {fmt(row['mc1_over_vectorised_cpu'])} |")
    print(f"\nload average before: {' '.join(f'{x:.2f}' for x in load_before)}; "
          f"after: {' '.join(f'{x:.2f}' for x in load_after)}; "
          f"finished {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    for line in mismatches:
        print(f"MISMATCH: {line}")
    if not mismatches and any(r["tlc_workers1"] for r in results):
        print("counts: TLC's distinct states, states generated and depth equal modelcheck's on every workload")
    if not mismatches and any(r["vectorised"] for r in results):
        print("counts: the vectorised encoding's distinct states, states generated and depth equal modelcheck's "
              "on every workload it ran")
    if args.json_out:
        doc = {"date": started.isoformat(timespec="seconds"), "machine": machine(), "runs": args.runs,
               "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
               "workloads": results, "mismatches": mismatches}
        args.json_out.write_text(json.dumps(doc, indent=2) + "\n")
    if mismatches:
        sys.exit(1)


if __name__ == "__main__":
    main()
