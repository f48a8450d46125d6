"""Where a one-process check spends its time: the spec's successor function against the engine around it.

``.venv/bin/python bench/decompose.py [--spec kip320] [--const Replicas=3] [--rounds 2]``

The machine this project is measured on changes speed by up to 60 % within an
hour, so comparing a profile taken now with a run timed later says little.
This script measures the parts in one process, alternating, on the same
reachable states:

* **expand**: the successor function the engine calls on every reachable
  state, in BFS order, nothing else: the compiled ``expand_into``, or for a
  spec with a state or action constraint ``expand`` (the engine's filtering
  path, which needs each successor's binding);
* **constraint** (constrained specs only): the state and action constraint on
  every generated successor;
* **hash**: the fingerprint of every generated successor the engine
  fingerprints (for a constrained spec, those inside the constraint);
* **invariants**: the default invariants on every reachable state;
* **engine only**: the real one-process search (the level driver over :class:`LocalBackend`) with the
  successor function replaced by a lookup of the successors computed
  beforehand, i.e. everything a check does except running spec actions (for
  a constrained spec the lookup replaces ``expand``, and the engine still
  evaluates the constraints: they are in this figure too);
* **full**: the real engine, as ``modelcheck check`` runs it.

It prints each in seconds and in microseconds per generated successor (the
seconds divided by the successors the reachable states generate, initial
states not counted), with the counts, and whether the specs ran compiled.
A spec with a state constraint is explored as the engine does (TLC's
CONSTRAINT): a successor outside it is generated and counted but neither
stored nor explored, nor its invariants checked; so is an initial state
outside it (counted as generated, as the engine counts initial states).

Use it on a model whose invariants hold: the engines stop at the first
violation, while the other parts cover every reachable state.  Counts are
checked against each other (the lookup engine, and this script's own
exploration, must find what the full one finds), so a broken measurement does
not pass silently.

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

from modelcheck.build import compiled  # noqa: E402

# As the entry points do (modelcheck.cli, modelcheck.api): the compiled specs and engine modules are found only
# through the finder, installed before any of them is imported.  Without it everything ran interpreted.
compiled.activate()

from modelcheck.build.compiled import is_compiled, spec_mode  # noqa: E402
from modelcheck.spec.constants import build_constants  # noqa: E402
from modelcheck.search.driver import LevelDriver  # noqa: E402
from modelcheck.search.local import LocalBackend  # noqa: E402
from modelcheck.errors import ModelCheckError  # noqa: E402
from modelcheck.model.expander import compile_expander  # noqa: E402
from modelcheck.spec.loader import load_spec  # noqa: E402
from modelcheck.model.bound import BoundModel  # noqa: E402
from modelcheck.options import CheckOptions  # noqa: E402


def constrained(model: BoundModel) -> bool:
    """Whether the engine takes its filtering path (``expand``, then the constraints on each successor)."""
    return model.spec.state_constraint is not None or model.spec.action_constraint is not None


def successors_of_entry(entry: tuple | list, filtering: bool) -> list:
    """The successors in an expansion :func:`successors_of` returned (its first item)."""
    if filtering:
        return [t for _ai, _b, r in entry for t in (r if type(r) is list else (r,))]
    return entry[1]


def successors_of(model: BoundModel, filtering: bool, s) -> tuple:  # noqa: ANN001 - a state
    """``s``'s expansion as the engine gets it, and its successors: (ais, ts) or (expand's list, ts)."""
    if filtering:
        found = model.expand(s)
        return found, successors_of_entry(found, True)
    ais: list = []
    ts: list = []
    model.expand_into(s, ais, ts)
    return (ais, ts), ts


def reachable(model: BoundModel) -> tuple[list, dict, dict, list, int, list]:
    """Every reachable state in BFS order, as the engine explores them.

    Returns the states, each one's expansion (by identity and by hash),
    every generated successor, the count of initial states
    generated, and for a constrained spec which successors lie inside the
    constraints (those the engine fingerprints; None without constraints).
    """
    filtering = constrained(model)
    has_sc = model.spec.state_constraint is not None
    has_ac = model.spec.action_constraint is not None
    generated_initial = 0
    frontier = []
    seen: set = set()
    for s in model.init_states():
        generated_initial += 1
        if has_sc and not model.in_model(s):
            continue
        fp = model.fingerprint(s)
        if fp not in seen:
            seen.add(fp)
            frontier.append(s)
    states = list(frontier)
    by_id: dict[int, tuple] = {}
    generated: list = []
    inside: list | None = [] if filtering else None
    while frontier:
        nxt = []
        for s in frontier:
            by_id[id(s)], ts = successors_of(model, filtering, s)
            generated += ts
            for t in ts:
                if filtering:
                    ok = (not has_sc or model.in_model(t)) and (not has_ac or model.action_allowed(s, t))
                    inside.append(ok)
                    if not ok:
                        continue  # generated, but outside the model: neither stored nor explored
                fp = model.fingerprint(t)
                if fp not in seen:
                    seen.add(fp)
                    nxt.append(t)
        states += nxt
        frontier = nxt
    # The engine builds its initial states anew (other objects), and a level of more than the frontier's
    # memory_states (400,000) is pickled to disk and read back as new objects: those are found by hash.
    by_hash = {hash(s): by_id[id(s)] for s in states}
    return states, by_id, by_hash, generated, generated_initial, inside


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
    pairs = [tuple(x.split("=", 1)) for x in (args.const or ["Replicas=3"])]
    if any(len(p) != 2 for p in pairs):
        raise ModelCheckError(f"--const expects NAME=VALUE, got {args.const}")
    consts = build_constants(spec, tuple(pairs))
    model = BoundModel(spec, consts, CheckOptions())
    mode = spec_mode(spec.reference.partition(":")[0]) if spec.reference else None
    engine_mode = "compiled" if is_compiled(sys.modules[LocalBackend.__module__]) else "interpreted"
    print(f"{spec.name} {' '.join(args.const or ['Replicas=3'])}; specs {mode or 'loaded from a file'}, "
          f"engine {engine_mode}")
    gc.disable()  # as the engine does during a search
    filtering = constrained(model)
    states, by_id, by_hash, generated, generated_initial, inside = reachable(model)
    n_gen = len(generated)
    if filtering:
        hashed = [t for t, ok in zip(generated, inside) if ok]
        n_out = n_gen - len(hashed)
        print(f"{len(states):,} reachable states, {n_gen:,} successors generated ({n_out:,} outside the "
              f"constraint, not stored), {generated_initial:,} initial states generated; the engine calls expand")
    else:
        hashed = generated
        print(f"{len(states):,} reachable states, {n_gen:,} successors generated, "
              f"{generated_initial:,} initial states generated; the engine calls expand_into")
    has_sc = spec.state_constraint is not None
    has_ac = spec.action_constraint is not None
    # Each generated successor's parent, for the action constraint (a spec rarely has one).
    parent_of = [s for s in states for _ in successors_of_entry(by_id[id(s)], filtering)] if has_ac else []

    if args.by_action:
        by_action(model, states, args.rounds)
        return

    def entry(s):  # noqa: ANN001, ANN202 - a state; its expansion (an empty list for a state without successors)
        e = by_id.get(id(s))
        return by_hash[hash(s)] if e is None else e

    if filtering:
        lookup = entry  # the expand signature
    else:
        def lookup(s, ais, ts):  # noqa: ANN001 - the expand_into signature
            a, t = entry(s)
            ais.extend(a)
            ts.extend(t)

    def us(seconds: float) -> str:
        return f"{seconds:.2f} s ({seconds / n_gen * 1e6:.2f} µs/gen)" if n_gen else f"{seconds:.2f} s"

    expand_name = "expand" if filtering else "expand_into"
    in_model = model.in_model
    action_allowed = model.action_allowed
    for r in range(args.rounds):
        t0 = time.perf_counter()
        if filtering:
            expand = model.expand
            for s in states:
                expand(s)
        else:
            expand_into = model.expand_into
            for s in states:
                expand_into(s, [], [])
        t1 = time.perf_counter()
        if has_sc:
            for t in generated:
                in_model(t)
        if has_ac:
            for s, t in zip(parent_of, generated):
                action_allowed(s, t)
        tc = time.perf_counter()
        for t in hashed:
            model.fingerprint(t)
        t2 = time.perf_counter()
        for s in states:
            model.failed_invariants(s)
        t3 = time.perf_counter()
        fake = BoundModel(spec, consts, CheckOptions())
        if filtering:
            fake.expand = lookup
        else:
            fake.expand_into = lookup
        res_fake = LevelDriver(fake, LocalBackend(fake)).run()
        t4 = time.perf_counter()
        real = BoundModel(spec, consts, CheckOptions())
        res = LevelDriver(real, LocalBackend(real)).run()
        t5 = time.perf_counter()
        if (res_fake.distinct_states, res_fake.states_generated) != (res.distinct_states, res.states_generated):
            sys.exit("error: the engine with looked-up successors found other counts than the real one "
                     f"({res_fake.distinct_states:,} distinct, {res_fake.states_generated:,} generated, against "
                     f"{res.distinct_states:,} and {res.states_generated:,})")
        if (len(states), n_gen + generated_initial) != (res.distinct_states, res.states_generated):
            sys.exit(f"error: this script explored {len(states):,} states and generated {n_gen + generated_initial:,} "
                     f"(initial states included), the engine {res.distinct_states:,} and {res.states_generated:,}")
        constraint = f", constraint {us(tc - t1)}" if filtering else ""
        print(f"round {r + 1}: {expand_name} {us(t1 - t0)}{constraint}, hash {us(t2 - tc)}, "
              f"invariants {us(t3 - t2)}, engine only {us(t4 - t3)}, full {us(t5 - t4)} "
              f"({res.distinct_states:,} distinct, {res.states_generated:,} generated)")
        gc.collect()

if __name__ == "__main__":
    try:
        main()
    except ModelCheckError as exc:
        sys.exit(f"error: {exc}")
