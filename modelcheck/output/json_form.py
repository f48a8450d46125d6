"""A :class:`CheckResult` as the stable JSON object that ``check --json`` prints.

The JSON object is a documented interface (README, "JSON output"): other tools
and CI parse it, so fields are only ever added, never renamed.
"""

from __future__ import annotations

from typing import Any

from modelcheck.output.results import CheckResult, TraceStep, Violation
from modelcheck.spec.declare import Spec

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
