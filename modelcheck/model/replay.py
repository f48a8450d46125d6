"""Rebuild a trace from a path of fingerprints by re-running the spec.

Engines store only (fingerprint, parent fingerprint) per state, as TLC does.
The states and action labels of a counterexample are regenerated here by
replaying the spec along the path: at each step, the first successor (in the
spec's deterministic action order) whose fingerprint is the next one on the
path.  If none matches, the spec is not deterministic, which is reported as
such rather than as a wrong trace.
"""

from __future__ import annotations

from typing import Sequence

from modelcheck.errors import SpecRuntimeError
from modelcheck.model.bound import BoundModel
from modelcheck.output.results import TraceStep


def replay(model: BoundModel, path: Sequence[int]) -> list[TraceStep]:
    """States and actions along ``path`` (fingerprints from an initial state onward)."""
    if not path:
        return []
    fp = model.fingerprint
    current = None
    for s in model.init_states():
        if fp(s) == path[0]:
            current = s
            break
    if current is None:
        raise SpecRuntimeError(
            f"spec {model.spec.name}: replay found no initial state with the recorded "
            "fingerprint; init is not deterministic",
            spec=model.spec.name,
            where="init",
        )
    steps = [TraceStep(None, None, {}, current)]
    for target in path[1:]:
        for ai, b, t in model.successors(current):
            if fp(t) == target:
                steps.append(model.step(ai, b, t))
                current = t
                break
        else:
            raise SpecRuntimeError(
                f"spec {model.spec.name}: replay could not regenerate step {len(steps)} of the "
                "trace; the spec's actions are not deterministic (same state, different successors)",
                spec=model.spec.name,
                where="replay",
                trace=steps,
            )
    return steps
