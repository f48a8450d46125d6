"""``--simulate``: random walks for models too large to exhaust.

Each walk starts from a random initial state and takes a uniformly random
successor (among every action, binding and disjunct the spec returns) until
it reaches ``max_depth`` states, hits a deadlock, or leaves the state
constraint.  Invariants are checked on every state visited.  A violation is
reported with the walk that led to it, as a trace of the same shape the BFS
engine prints (it is replayable, but not necessarily the shortest).

Runs are reproducible: one ``random.Random(seed)`` drives every choice, and
the successors of a state come in the spec's fixed order.
"""

from __future__ import annotations

import random
import time

from modelcheck.spec.constants import constants_to_dict
from modelcheck.model.bound import BoundModel
from modelcheck.search.progress import Progress, ProgressSink, Ticker
from modelcheck.search.verdict import verdict
from modelcheck.output.results import ActionStats, CheckResult, TraceStep, Violation


def simulate(
    model: BoundModel,
    *,
    seed: int = 0,
    walks: int | None = None,
    seconds: float | None = None,
    max_depth: int = 100,
    progress: ProgressSink | None = None,
) -> CheckResult:
    """Random walks until ``walks`` are done, ``seconds`` have passed, or a violation is found.

    With neither limit, 1,000 walks are taken.  ``distinct_states`` counts the
    distinct fingerprints visited (a coverage hint, not a completeness claim);
    ``depth`` is the longest walk in states.
    """
    if walks is None and seconds is None:
        walks = 1000
    rng = random.Random(seed)
    opts = model.options
    nact = len(model.actions)
    act_generated = [0] * nact
    act_distinct = [0] * nact
    seen: set[int] = set()
    generated = 0
    longest = 0
    violations: list[Violation] = []
    violated: set[str] = set()
    sometimes_reached = {p.name: False for p in model.sometimes}
    ticker = Ticker(opts.progress_seconds)
    start = time.monotonic()
    inits = [s for s in model.init_states() if model.in_model(s)]
    done = 0
    stopped_by = None
    try:
        while inits and (walks is None or done < walks) and (seconds is None or time.monotonic() - start < seconds):
            s = rng.choice(inits)
            trace = [TraceStep(None, None, {}, s)]
            last_ai = -1  # the action of the last step (none yet)
            generated += 1
            while True:
                fp = model.fingerprint(s)
                if fp not in seen:
                    seen.add(fp)
                    if last_ai >= 0:
                        act_distinct[last_ai] += 1
                for p in model.sometimes:
                    if not sometimes_reached[p.name] and model.property_holds(p, s):
                        sometimes_reached[p.name] = True
                failed = [inv for inv in model.failed_invariants(s) if inv.name not in violated]
                for inv in failed:
                    violations.append(Violation("invariant", inv.name, inv.description, tuple(trace)))
                    violated.add(inv.name)
                if failed and not opts.continue_after_violation:
                    break
                if len(trace) >= max_depth:
                    break
                succ = []
                raw = 0
                for ai, b, t in model.successors(s):
                    raw += 1
                    generated += 1
                    act_generated[ai] += 1
                    if model.in_model(t) and model.action_allowed(s, t):
                        succ.append((ai, b, t))
                if not succ:
                    if model.check_deadlock and "Deadlock" not in violated and raw == 0:
                        violations.append(Violation("deadlock", "Deadlock", "a reachable state has no successor",
                                                    tuple(trace)))
                        violated.add("Deadlock")
                    break
                last_ai, b, s = succ[rng.randrange(len(succ))]
                trace.append(model.step(last_ai, b, s))
            longest = max(longest, len(trace))
            done += 1
            if violations and not opts.continue_after_violation:
                break
            if progress is not None and ticker.due():
                progress(Progress(longest, generated, len(seen), 0, ticker.elapsed()))
    except KeyboardInterrupt:
        stopped_by = "interrupt"
    if not violations and not stopped_by:
        stopped_by = "simulation"  # random walks never prove that an invariant holds: incomplete
    result = verdict(violations, stopped_by)
    return CheckResult(
        spec=model.spec.name,
        constants=constants_to_dict(model.c),
        engine="simulate",
        result=result,
        distinct_states=len(seen),
        states_generated=generated,
        depth=longest,
        seconds=ticker.elapsed(),
        invariants=tuple(i.name for i in model.invariants),
        violations=tuple(violations),
        action_stats=tuple(ActionStats(a.name, g, d) for a, g, d in zip(model.actions, act_generated, act_distinct)),
        queue_left=0,
        symmetry=model.permutations is not None,
        sometimes_reached=sometimes_reached,
        warnings=(f"simulation: {done} random walks (seed {seed}), not an exhaustive check",),
        stopped_by=stopped_by,
    )
