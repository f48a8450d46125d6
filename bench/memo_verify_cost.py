"""What the memo tables' run-time comparison with the spec's own code costs: ``.venv/bin/python bench/memo_verify_cost.py``.

    .venv/bin/python bench/memo_verify_cost.py [--spec kip320] [--const Replicas=3] [--rounds 5]

Each round runs the same check twice as whole processes, in turn: on the tables with the comparison
off (``MemoBackend(verify="off")``, which only tests use) and with the default sample
(modelcheck.memo.verify).  Each process reports the CPU seconds of its search alone (the
interpreter's start and the spec's import are the same in both), and the script prints, per mode,
the median CPU and wall time, the parents compared, and the ratio sample / off, both as the ratio
of the medians and as the median of the rounds' ratios (the machine's speed drifts between
minutes, a round's two runs see the same machine).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _inner(spec: str, consts: dict, mode: str) -> None:
    from modelcheck.build import compiled

    compiled.activate()
    from modelcheck.memo.backend import MemoBackend
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec

    loaded = load_spec(spec)
    model = BoundModel(loaded, build_constants(loaded, consts), CheckOptions())
    cpu, wall = time.process_time(), time.perf_counter()
    backend = MemoBackend(model, verify=mode)
    result = LevelDriver(model, backend).run()
    print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                      "distinct": result.distinct_states, "parents": backend.sampler.checked}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="kip320")
    ap.add_argument("--const", action="append", default=[], help="NAME=VALUE (ints)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--inner", choices=("off", "sample"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    consts = {k: int(v) for k, v in (c.split("=", 1) for c in args.const)} or ({"Replicas": 3} if args.spec ==
                                                                               "kip320" else {})
    if args.inner:
        _inner(args.spec, consts, args.inner)
        return
    print(f"# the memo tables' comparison with the spec's own code: {args.spec} {consts}")
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%S%z')}, load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs: dict[str, list[dict]] = {"off": [], "sample": []}
    for r in range(args.rounds):
        for mode in ("off", "sample"):
            cmd = [sys.executable, __file__, "--spec", args.spec, "--inner", mode]
            cmd += [a for k, v in consts.items() for a in ("--const", f"{k}={v}")]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            runs[mode].append(json.loads(out.strip().splitlines()[-1]))
        print(f"round {r + 1}: off {runs['off'][-1]['cpu']:.2f} s CPU, sample {runs['sample'][-1]['cpu']:.2f} s CPU")
    if {x["distinct"] for x in runs["off"] + runs["sample"]} != {runs["off"][0]["distinct"]}:
        print("MISMATCH: the two modes found different state counts")
        sys.exit(1)
    med = {m: statistics.median(x["cpu"] for x in v) for m, v in runs.items()}
    wall = {m: statistics.median(x["wall"] for x in v) for m, v in runs.items()}
    paired = statistics.median(s["cpu"] / o["cpu"] for o, s in zip(runs["off"], runs["sample"]))
    print(f"off:    {med['off']:.3f} s CPU, {wall['off']:.3f} s wall (median)")
    print(f"sample: {med['sample']:.3f} s CPU, {wall['sample']:.3f} s wall, {runs['sample'][0]['parents']:,} parents "
          "compared")
    print(f"sample / off CPU: {med['sample'] / med['off']:.3f} (medians), {paired:.3f} (median of rounds)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
