#!/usr/bin/env python3
"""Liveness against safety, and against TLC: whole-process wall times, interleaved, in one sitting.

    python bench/liveness.py [--rounds 3] [--jar PATH/tla2tools.jar --specs PATH/kafka-specification]

Rows (each run is a fresh ``modelcheck check`` process, the runs of a round
interleaved so that load drifts hit every row alike):

* Kip320, three replicas, MaxLeaderEpoch 1 (39,619 states):
  ``--property DesignatedLeaderTakesOver``, and TLC on the same property
  (bench/tlc/, one worker) when ``--jar`` and ``--specs`` are given;
* Kip320, three replicas, default constants (737,794 states): the same
  property, and the safety-only check (the default invariant) for the ratio.

Prints the median wall seconds and peak RSS of each row, the liveness line
(transitions, bytes a transition, seconds deciding) and the ratios.  Only the
standard library and the project's own command line are used.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELCHECK = [sys.executable, "-m", "modelcheck"]

ROWS = {
    "B liveness": MODELCHECK + ["check", "kip320", "--const", "MaxLeaderEpoch=1",
                                "--property", "DesignatedLeaderTakesOver", "-q"],
    "R3 liveness": MODELCHECK + ["check", "kip320", "--property", "DesignatedLeaderTakesOver", "-q"],
    "R3 safety": MODELCHECK + ["check", "kip320", "-q"],
}


def timed(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB of the process, stdout)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _pid, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({p.returncode})")
    return wall, usage.ru_maxrss / 1024, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jar", type=Path, help="tla2tools.jar, to time TLC on the B row")
    ap.add_argument("--specs", type=Path, help="checkout of the published TLA+ specs (with --jar)")
    args = ap.parse_args()
    rows = dict(ROWS)
    if args.jar and args.specs:
        rows["B TLC"] = [sys.executable, str(HERE / "tlc" / "run_liveness.py"), "--jar", str(args.jar),
                         "--specs", str(args.specs), "--only", "Kip320_B_DesignatedLeaderTakesOver"]
    times: dict[str, list[float]] = {name: [] for name in rows}
    peaks: dict[str, float] = {name: 0.0 for name in rows}
    notes: dict[str, str] = {}
    print(f"load before: {os.getloadavg()}", flush=True)
    for round_ in range(args.rounds):
        for name, argv in rows.items():
            wall, peak, out = timed(argv)
            times[name].append(wall)
            peaks[name] = max(peaks[name], peak)
            m = re.search(r"^Liveness: .*$", out, re.M)
            if m:
                notes[name] = m.group(0)
            print(f"round {round_ + 1} {name}: {wall:.2f} s", flush=True)
    print(f"load after: {os.getloadavg()}")
    med = {name: statistics.median(v) for name, v in times.items()}
    for name, v in times.items():
        print(f"{name:12s} median {med[name]:7.2f} s  peak {peaks[name]:6.0f} MiB  "
              f"runs {', '.join(f'{x:.2f}' for x in v)}  {notes.get(name, '')}")
    print(f"R3: liveness / safety = {med['R3 liveness'] / med['R3 safety']:.2f}")
    if "B TLC" in med:
        print(f"B: TLC / modelcheck = {med['B TLC'] / med['B liveness']:.1f}")


if __name__ == "__main__":
    main()
