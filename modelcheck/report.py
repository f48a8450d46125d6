"""Turning a :class:`CheckResult` into what users read: TLC-shaped text and stable JSON.

The JSON object is a documented interface (README, "JSON output"): other tools
and CI parse it, so fields are only ever added, never renamed.
"""

from __future__ import annotations

from typing import Any

from .result import CheckResult, TraceStep, Violation
from .spec import Spec

JSON_SCHEMA_VERSION = 1


def trace_to_json(spec: Spec, consts: Any, trace: tuple[TraceStep, ...] | list[TraceStep]) -> list[dict]:
    """A trace as ``[{action, action_name, params, state}, ...]`` with readable state variables."""
    steps = []
    for step in trace:
        item = {
            "action": step.action,
            "action_name": step.action_name,
            "params": dict(step.params),
            "state": spec.describe_state(consts, step.state),
        }
        if spec.lanes is not None:
            item["lanes"] = spec.lanes(consts, step.state)
        steps.append(item)
    return steps


def violation_to_json(spec: Spec, consts: Any, v: Violation) -> dict:
    return {
        "kind": v.kind,
        "invariant": v.name,
        "description": v.description,
        "length": len(v.trace),
        "trace": trace_to_json(spec, consts, v.trace),
    }


def result_to_json(spec: Spec, consts: Any, r: CheckResult) -> dict:
    """The machine-readable result printed by ``modelcheck check --json``."""
    out: dict[str, Any] = {
        "schema": JSON_SCHEMA_VERSION,
        "result": r.result,
        "spec": r.spec,
        "constants": r.constants,
        "engine": r.engine,
        "invariants": list(r.invariants),
        "symmetry": r.symmetry,
        "distinct_states": r.distinct_states,
        "states_generated": r.states_generated,
        "depth": r.depth,
        "queue_left": r.queue_left,
        "seconds": round(r.seconds, 3),
        "states_per_second": round(r.states_per_second, 1),
        "collision_probability": r.collision_probability,
        "actions": {a.name: {"generated": a.generated, "distinct": a.distinct} for a in r.action_stats},
        "sometimes": dict(r.sometimes_reached),
        "warnings": list(r.warnings),
        "stopped_by": r.stopped_by,
    }
    if r.violations:
        out["violation"] = violation_to_json(spec, consts, r.violations[0])
        out["violations"] = [violation_to_json(spec, consts, v) for v in r.violations]
    return out


def summary_lines(r: CheckResult) -> list[str]:
    """TLC's closing statistics, so numbers can be compared side by side."""
    if r.stopped_by == "simulation":
        # Random walks: no queue, and the depth is that of the longest walk, not of a complete search.
        return [
            f"{r.states_generated:,} states generated, {r.distinct_states:,} distinct states visited by the walks.",
            f"The longest walk reached depth {r.depth}.",
            f"Finished in {r.seconds:.2f}s ({r.states_per_second:,.0f} states/s).",
        ]
    lines = [
        f"{r.states_generated:,} states generated, {r.distinct_states:,} distinct states found, "
        f"{r.queue_left:,} states left on queue.",
        f"The depth of the complete state graph search is {r.depth}.",
        f"The probability of a fingerprint collision is calculated (optimistic) to be {r.collision_probability:.1E}.",
        f"Finished in {r.seconds:.2f}s ({r.states_per_second:,.0f} states/s).",
    ]
    return lines


def coverage_lines(r: CheckResult) -> list[str]:
    """Per-action coverage as TLC prints it: distinct and generated states per action."""
    width = max((len(a.name) for a in r.action_stats), default=0)
    return [
        f"  {a.name:<{width}}  distinct {a.distinct:>10,}  generated {a.generated:>10,}"
        for a in r.action_stats
    ]
