"""Where a one-process check spends its time: the spec's successor function against the engine around it.

``.venv/bin/python bench/decompose.py [--spec kip320] [--const Replicas=3] [--rounds 2]``

The machine this project is measured on changes speed by up to 60 % within an
hour, so comparing a profile taken now with a run timed later says little.
This script measures the parts in one process, alternating, on the same
reachable states:

* **expand**: the compiled successor function (``expand_into``) on every
  reachable state, in BFS order, nothing else;
* **hash**: the fingerprint of every generated successor;
* **invariants**: the default invariants on every reachable state;
* **engine only**: the real one-process search (the level driver over :class:`LocalBackend`) with the
  successor function replaced by a lookup of the successors computed
  beforehand, i.e. everything a check does except running spec actions;
* **full**: the real engine, as ``modelcheck check`` runs it.

It prints each in seconds and whether the specs ran compiled.  Use it on a
model whose invariants hold: the engines stop at the first violation, while
the other parts cover every reachable state.  Counts are
checked against each other (the lookup engine must find what the full one
finds), so a broken measurement does not pass silently.

``--by-action`` splits the successor function by action instead: it times the
compiled successor function on every reachable state with each action left
out in turn, so an action's cost is what leaving it out saves (its guards on
every binding and state, and the successors it builds), measured where it
runs, state after state, as in a check.  The costs add up to the whole within
the noise, and the line for each action gives its bindings and how many of
its calls returned successors.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modelcheck.build.compiled import spec_mode  # noqa: E402
from modelcheck.spec.constants import build_constants  # noqa: E402
from modelcheck.search.driver import LevelDriver  # noqa: E402
from modelcheck.search.local import LocalBackend  # noqa: E402
from modelcheck.errors import ModelCheckError  # noqa: E402
from modelcheck.model.expander import compile_expander  # noqa: E402
from modelcheck.spec.loader import load_spec  # noqa: E402
from modelcheck.model.bound import BoundModel  # noqa: E402
from modelcheck.options import CheckOptions  # noqa: E402


def reachable(model: BoundModel) -> tuple[list, dict, dict]:
    """Every reachable state in BFS order, with each one's successors (by identity and, for initial states, by hash)."""
    frontier = list(model.init_states())
    seen = {model.fingerprint(s) for s in frontier}
    states = list(frontier)
    n_initial = len(states)
    by_id: dict[int, tuple[list, list]] = {}
    while frontier:
        nxt = []
        for s in frontier:
            ais: list = []
            ts: list = []
            model.expand_into(s, ais, ts)
            by_id[id(s)] = (ais, ts)
            for t in ts:
                fp = model.fingerprint(t)
                if fp not in seen:
                    seen.add(fp)
                    nxt.append(t)
        states += nxt
        frontier = nxt
    # The engine builds its initial states anew (other objects); every later state is one of ours.
    initial = {hash(s): by_id[id(s)] for s in states[:n_initial]}
    return states, by_id, initial


def by_action(model: BoundModel, states: list, rounds: int) -> None:
    """Each action's cost: the compiled successor function's time without it, against with all (best of rounds)."""
    acts, binds, c = model.actions, model.bindings, model.c

    def timed(expand) -> float:  # noqa: ANN001 - an expand_into
        t0 = time.perf_counter()
        for s in states:
            expand(s, [], [])
        return time.perf_counter() - t0

    st = model.state_type
    variants = [("all", compile_expander(model.spec.name, acts, binds, c, state_type=st))]
    variants += [(a.name, compile_expander(model.spec.name, acts[:i] + acts[i + 1:], binds[:i] + binds[i + 1:], c,
                                           state_type=st))
                 for i, a in enumerate(acts)]
    variants.append(("none", compile_expander(model.spec.name, (), (), c, state_type=st)))
    best = {name: float("inf") for name, _ in variants}
    for _ in range(rounds):  # interleaved, so a change of the machine's speed hits every variant alike
        for name, expand in variants:
            best[name] = min(best[name], timed(expand))
    enabled = [0] * len(acts)
    for s in states:
        for ai, (a, bs) in enumerate(zip(acts, binds)):
            enabled[ai] += sum(a.fn(c, s, *b) is not None for b in bs)
    whole = best["all"]
    print(f"successor function: {whole:.2f} s with every action, {best['none']:.2f} s with none (best of {rounds})")
    costs = [(whole - best[a.name], a.name, len(bs), enabled[ai]) for ai, (a, bs) in enumerate(zip(acts, binds))]
    for cost, name, nb, en in sorted(costs, reverse=True):
        print(f"  {name}: {cost:.2f} s ({nb} bindings; {en:,} of {nb * len(states):,} calls returned successors)")
    print(f"sum of the actions' costs: {sum(c[0] for c in costs):.2f} s, against {whole - best['none']:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="kip320")
    ap.add_argument("--const", action="append", default=[], help="NAME=VALUE (repeatable); default Replicas=3")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--by-action", action="store_true", help="the successor function's time per action (ablation)")
    args = ap.parse_args()
    spec = load_spec(args.spec)
    if spec.state_constraint or spec.action_constraint:
        # Constrained specs take the engine's filtering path, which calls ``expand``, not ``expand_into``.
        raise ModelCheckError(f"spec {spec.name} has a state or action constraint; only unconstrained specs are split")
    pairs = [tuple(x.split("=", 1)) for x in (args.const or ["Replicas=3"])]
    if any(len(p) != 2 for p in pairs):
        raise ModelCheckError(f"--const expects NAME=VALUE, got {args.const}")
    consts = build_constants(spec, tuple(pairs))
    model = BoundModel(spec, consts, CheckOptions())
    mode = spec_mode(spec.reference.partition(":")[0]) if spec.reference else None
    print(f"{spec.name} {' '.join(args.const or ['Replicas=3'])}; specs {mode or 'loaded from a file'}")
    gc.disable()  # as the engine does during a search
    states, by_id, by_hash = reachable(model)
    generated = [t for s in states for t in by_id[id(s)][1]]
    print(f"{len(states):,} reachable states, {len(generated):,} successors")

    if args.by_action:
        by_action(model, states, args.rounds)
        return

    def lookup(s, ais, ts):  # noqa: ANN001 - the expand_into signature
        a, t = by_id.get(id(s)) or by_hash[hash(s)]
        ais.extend(a)
        ts.extend(t)

    for r in range(args.rounds):
        t0 = time.perf_counter()
        for s in states:
            model.expand_into(s, [], [])
        t1 = time.perf_counter()
        for t in generated:
            model.fingerprint(t)
        t2 = time.perf_counter()
        for s in states:
            model.failed_invariants(s)
        t3 = time.perf_counter()
        fake = BoundModel(spec, consts, CheckOptions())
        fake.expand_into = lookup
        res_fake = LevelDriver(fake, LocalBackend(fake)).run()
        t4 = time.perf_counter()
        real = BoundModel(spec, consts, CheckOptions())
        res = LevelDriver(real, LocalBackend(real)).run()
        t5 = time.perf_counter()
        if (res_fake.distinct_states, res_fake.states_generated) != (res.distinct_states, res.states_generated):
            sys.exit("error: the engine with looked-up successors found other counts than the real one")
        print(f"round {r + 1}: expand {t1 - t0:.2f} s, hash {t2 - t1:.2f} s, invariants {t3 - t2:.2f} s, "
              f"engine only {t4 - t3:.2f} s, full {t5 - t4:.2f} s "
              f"({res.distinct_states:,} distinct, {res.states_generated:,} generated)")
        gc.collect()


if __name__ == "__main__":
    try:
        main()
    except ModelCheckError as exc:
        sys.exit(f"error: {exc}")
