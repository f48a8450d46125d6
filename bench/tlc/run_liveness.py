#!/usr/bin/env python3
"""Run TLC on the liveness and step properties of bench/tlc and print a table.

    python3 bench/tlc/run_liveness.py --jar PATH/tla2tools.jar --specs PATH/kafka-specification

``--specs`` is a checkout of the published TLA+ modules (hachikuji/kafka-specification:
KafkaReplication.tla, Kip101.tla, Kip320.tla, ...); ``--jar`` is TLC's tla2tools.jar
(TABLE.md and tlc-liveness-2026-11-25.json of this directory were made with TLC 2.18,
rev 3ea3222: the tla2tools.jar of the TLA+ tools release v1.7.3).  Nothing of
either is kept in this repository.

Each case is one ``.cfg`` file of this directory, named SPEC_CONFIG_PROPERTY.cfg
(configurations A and B; D is the default three-replica configuration, run only
with ``--default``).  Every run copies the wrapper modules and its cfg into a
fresh temporary directory and runs TLC there (one worker, breadth-first, fixed
fingerprint polynomial, deadlock not checked), one run at a time, so the
repository is never written to.  TLC's whole output is written to ``--out``
(default: a new temporary directory), one file per run, plus results.json.

Only the standard library is used; Java 11 or later must be on PATH.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WRAPPERS = ("LivenessProperties.tla", "Kip320Liveness.tla", "Kip101Liveness.tla")
STEP_PROPERTIES = ("LeaderHwMonotonic", "HwMonotonicWithinEpoch")
PROPERTIES = (
    "EventuallySomeLeader",
    "DesignatedLeaderTakesOver",
    "LeaderRecordEventuallyCommitted",
    "OutOfIsrRejoins",
    "LeaderHwMonotonic",
    "HwMonotonicWithinEpoch",
)
CONFIGS = {
    "A": "Replicas={r1,r2} LogSize=2 MaxRecords=2 MaxLeaderEpoch=2",
    "B": "Replicas={r1,r2,r3} LogSize=2 MaxRecords=2 MaxLeaderEpoch=1",
    "D": "Replicas={r1,r2,r3} LogSize=2 MaxRecords=2 MaxLeaderEpoch=2",
}


def cases(include_default: bool) -> list[tuple[str, str, str]]:
    out = []
    for spec in ("Kip320", "Kip101"):
        for config in ("A", "B"):
            for prop in PROPERTIES:
                out.append((spec, config, prop))
    if include_default:
        out.append(("Kip320", "D", "DesignatedLeaderTakesOver"))
    return out


def cfg_path(spec: str, config: str, prop: str) -> Path:
    return HERE / f"{spec}_{config}_{prop}.cfg"


# --- the Kip101 restatement --------------------------------------------------

def _definition(text: str, name: str) -> str:
    """The text of `name ==` (LOCAL or not) up to the next blank line, whitespace-normalised."""
    m = re.search(rf"^(?:LOCAL\s+)?{name}\s*==(.*?)(?:\n\s*\n|\n=+)", text, re.S | re.M)
    if not m:
        raise SystemExit(f"no definition of {name} found")
    return " ".join(m.group(1).split())


def check_kip101_restatement(specs: Path) -> None:
    published = (specs / "Kip101.tla").read_text()
    ours = (HERE / "Kip101Liveness.tla").read_text()
    for name in ("Next", "Spec"):
        if _definition(published, name) != _definition(ours, name):
            raise SystemExit(
                f"Kip101Liveness.tla's {name} no longer matches {specs / 'Kip101.tla'}: "
                "restate it from the published module"
            )


# --- reading TLC's output ----------------------------------------------------

def parse(text: str) -> dict:
    r: dict = {}
    m = re.search(r"TLC2 Version (\S+) of .*?\(rev: (\w+)\)", text)
    r["tlc"] = f"{m.group(1)} rev {m.group(2)}" if m else None
    r["tlc_error"] = None
    if re.search(r"Error: Temporal properties were violated", text):
        r["verdict"] = "violated"
        r["tlc_error"] = "Temporal properties were violated."
    elif m := re.search(r"Error: Action property (\w+) is violated", text):
        r["verdict"] = "violated"
        r["tlc_error"] = f"Action property {m.group(1)} is violated."
    elif "Model checking completed. No error has been found." in text:
        r["verdict"] = "holds"
    elif re.search(r"^Error", text, re.M):
        r["verdict"] = "error"
        r["error"] = "\n".join(line for line in text.splitlines() if line.strip())[-800:]
    else:
        r["verdict"] = "unfinished"
    states = [int(n) for n in re.findall(r"^State (\d+):", text, re.M)]
    r["trace_states"] = max(states) if states else None
    if r["verdict"] == "violated" and states:
        n = max(states)
        if m := re.search(r"^Back to state (\d+):", text, re.M):
            j = int(m.group(1))
            r["lasso"] = f"{n} states, back to state {j}"
            r["stem"], r["loop"] = j - 1, n - j + 1
        elif re.search(r"^State \d+: Stuttering", text, re.M):
            # TLC numbers the stuttering step as one more state: the last real state repeats.
            n = max(int(x) for x in re.findall(r"^State (\d+):(?! Stuttering)", text, re.M))
            r["trace_states"] = n
            r["lasso"] = f"{n} states, then stuttering"
            r["stem"], r["loop"] = n - 1, 1
        else:
            r["lasso"] = f"{n} states (finite trace)"
            r["stem"], r["loop"] = n, None
    m = re.findall(r"^([\d,]+) states generated, ([\d,]+) distinct states found, ([\d,]+) states left on queue", text, re.M)
    if m:
        g, d, q = m[-1]
        r["generated"], r["distinct"], r["left_on_queue"] = (int(x.replace(",", "")) for x in (g, d, q))
    else:
        # An unfinished run (timeout): TLC's last progress report.
        m = re.findall(r"^Progress\((\d+)\) at [^:]+:\d\d:\d\d: ([\d,]+) states generated .*?, "
                       r"([\d,]+) distinct states found .*?, ([\d,]+) states left on queue", text, re.M)
        if m:
            dp, g, d, q = m[-1]
            r["last_progress"] = {"depth": int(dp), "generated": int(g.replace(",", "")),
                                  "distinct": int(d.replace(",", "")), "left_on_queue": int(q.replace(",", ""))}
    m = re.search(r"depth of the complete state graph search is (\d+)", text)
    r["depth"] = int(m.group(1)) if m else None
    m = re.search(r"^Finished in (.+?) at", text, re.M)
    r["tlc_finished_in"] = m.group(1) if m else None
    m = re.search(r"Running breadth-first search Model-Checking with fp (\d+) and seed (-?\d+)", text)
    r["fp"] = int(m.group(1)) if m else None
    return r


# --- running -----------------------------------------------------------------

def run_case(jar: Path, specs: Path, out: Path, spec: str, config: str, prop: str,
             fp: int, timeout: float, tag: str = "") -> dict:
    cfg = cfg_path(spec, config, prop)
    with tempfile.TemporaryDirectory(prefix="tlc-liveness-") as tmp:
        work = Path(tmp)
        for name in WRAPPERS:
            shutil.copy(HERE / name, work / name)
        shutil.copy(cfg, work / cfg.name)
        cmd = [
            "java", "-XX:+UseParallelGC", f"-Djava.io.tmpdir={work}", f"-DTLA-Library={specs}",
            "-cp", str(jar), "tlc2.TLC",
            "-workers", "1", "-fp", str(fp), "-deadlock",
            "-metadir", str(work / "states"), "-config", cfg.name, f"{spec}Liveness.tla",
        ]
        load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
        started = datetime.datetime.now().astimezone()
        t0 = time.monotonic()
        timed_out = False
        try:
            p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=timeout)
            text = p.stdout
        except subprocess.TimeoutExpired as e:
            timed_out = True
            text = (e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or ""))
        wall = time.monotonic() - t0
    raw = out / f"{spec}_{config}_{prop}{tag}.out"
    raw.write_text(text)
    r = parse(text)
    if timed_out:
        r["verdict"] = "timeout"
    # The kind of property: a temporal (liveness) formula, or a step property [][A]_vars,
    # which TLC checks as an action property on every transition.
    kind = "step" if prop in STEP_PROPERTIES else "temporal"
    r.update(spec=spec, config=config, property=prop, kind=kind, wall_s=round(wall, 2),
             load_before=load, started=started.isoformat(timespec="seconds"), raw=str(raw))
    return r


def fmt_int(v) -> str:
    return f"{v:,}" if isinstance(v, int) else "–"


def table(rows: list[dict]) -> str:
    lines = [
        "| spec | config | property | verdict | stem | loop | TLC's trace | distinct states | states generated | wall s | load before |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['spec']} | {r['config']} | {r['property']} | {r['verdict']} | "
            f"{r.get('stem') if r.get('stem') is not None else '–'} | "
            f"{r.get('loop') if r.get('loop') is not None else '–'} | {r.get('lasso', '–')} | "
            f"{fmt_int(r.get('distinct'))} | {fmt_int(r.get('generated'))} | {r['wall_s']} | "
            f"{' '.join(r['load_before']) if r.get('load_before') else '–'} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", type=Path, required=True, help="path of tla2tools.jar")
    ap.add_argument("--specs", type=Path, required=True, help="checkout of the published TLA+ specs")
    ap.add_argument("--out", type=Path, help="directory for TLC's raw outputs (default: a new temporary one)")
    ap.add_argument("--only", nargs="*", default=[],
                    help="run only the cases whose SPEC_CONFIG_PROPERTY name contains one of these")
    ap.add_argument("--default", action="store_true",
                    help="also run Kip320 at the default configuration D with DesignatedLeaderTakesOver")
    ap.add_argument("--repeat", type=int, default=1, help="run each case this many times (timings)")
    ap.add_argument("--fp", type=int, default=0, help="TLC's fingerprint polynomial index (default 0)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds a run may take (default 1800)")
    a = ap.parse_args()

    jar, specs = a.jar.resolve(), a.specs.resolve()
    if not jar.is_file():
        ap.error(f"no file {jar}")
    if not (specs / "Kip320.tla").is_file():
        ap.error(f"{specs} holds no Kip320.tla")
    check_kip101_restatement(specs)
    out = (a.out or Path(tempfile.mkdtemp(prefix="tlc-liveness-out-"))).resolve()
    out.mkdir(parents=True, exist_ok=True)

    rows = []
    todo = [c for c in cases(a.default) if not a.only or any(s in "_".join(c) for s in a.only)]
    for spec, config, prop in todo:
        for k in range(a.repeat):
            tag = f".run{k + 1}" if a.repeat > 1 else ""
            r = run_case(jar, specs, out, spec, config, prop, a.fp, a.timeout, tag)
            rows.append(r)
            print(f"{spec} {config} {prop}{tag}: {r['verdict']} {r.get('lasso', '')} "
                  f"distinct={fmt_int(r.get('distinct'))} wall={r['wall_s']}s", file=sys.stderr, flush=True)
            results = out / "results.json"
            old = json.loads(results.read_text()) if results.exists() else []
            results.write_text(json.dumps(old + [r], indent=1))
    print(table(rows))
    print(f"\nTLC's outputs: {out}", file=sys.stderr)
    return 0 if all(r["verdict"] in ("holds", "violated") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
