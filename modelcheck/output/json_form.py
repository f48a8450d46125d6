"""A :class:`CheckResult` as the stable JSON object that ``check --json`` prints.

The JSON object is a documented interface (docs/cli.md, "JSON output"): other tools
and CI parse it, so fields are only ever added, never renamed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from modelcheck.spec.declare import Spec

if TYPE_CHECKING:  # for annotations only: results.py imports this module (CheckResult.to_json)
    from modelcheck.output.results import CheckResult, TraceStep, Violation

JSON_SCHEMA_VERSION = 1


def trace_to_json(spec: Spec, consts: Any, trace: tuple[TraceStep, ...] | list[TraceStep]) -> list[dict]:
    """A trace as ``[{action, action_name, params, state}, ...]`` with readable state variables.

    With the spec's ``lanes``, each step also has its per-replica view; with
    its ``messages``, each step after the first lists what that transition
    sent and delivered (for sequence diagrams).
    """
    steps = []
    prev: TraceStep | None = None
    for step in trace:
        item = {
            "action": step.action,
            "action_name": step.action_name,
            "params": dict(step.params),
            "state": spec.describe_state(consts, step.state),
        }
        if spec.lanes is not None:
            item["lanes"] = spec.lanes(consts, step.state)
        if spec.messages is not None and prev is not None and step.action_name is not None:
            item["messages"] = list(spec.messages(consts, prev.state, step.state, step.action_name, dict(step.params)))
        steps.append(item)
        prev = step
    return steps


def explanation_json(spec: Spec, consts: Any, v: Violation) -> dict:
    """``{"explanation": ..., "culprits": [...]}`` when the violated invariant can say why, else ``{}``.

    The invariant's ``explain`` runs on the violating state only.  If it
    raises, the counterexample is still reported, with the failure as its
    explanation: a trace is worth more than a sentence about it.
    """
    if v.kind in ("liveness", "step", "initial") and v.trace:
        return _property_explanation(spec, consts, v)
    if v.kind != "invariant" or not v.trace:
        return {}
    try:
        pred = spec.invariant(v.name)
    except KeyError:
        return {}
    try:
        w = pred.witness(consts, v.trace[-1].state)
    except Exception as exc:  # noqa: BLE001 - a spec bug must not hide the counterexample
        return {"explanation": f"(explain of {v.name} failed: {type(exc).__name__}: {exc})", "culprits": []}
    return w.to_json() if w is not None else {}


def _property_explanation(spec: Spec, consts: Any, v: Violation) -> dict:
    """A liveness, step or initial-state property's ``explain`` of the counterexample, else ``{}``."""
    try:
        prop = spec.property(v.name)
    except KeyError:
        return {}
    try:
        why = prop.explanation(consts, [step.state for step in v.trace], v.loop_start)
    except Exception as exc:  # noqa: BLE001 - a spec bug must not hide the counterexample
        return {"explanation": f"(explain of {v.name} failed: {type(exc).__name__}: {exc})", "culprits": []}
    return {"explanation": why, "culprits": []} if why else {}


def violation_to_json(spec: Spec, consts: Any, v: Violation) -> dict:
    out = {
        "kind": v.kind,
        "invariant": v.name,
        "property": v.name,
        "description": v.description,
        **explanation_json(spec, consts, v),
        "length": len(v.trace),
        "trace": trace_to_json(spec, consts, v.trace),
    }
    if v.kind == "liveness":
        out["loop_start"] = v.loop_start
        out["loop_action"] = v.loop_action  # the step from the last state back to loop_start; None when stuttering
        out["stuttering"] = v.loop_start is None
    return out


def result_to_json(spec: Spec, consts: Any, r: CheckResult) -> dict:
    """The machine-readable result printed by ``modelcheck check --json``."""
    out: dict[str, Any] = {
        "schema": JSON_SCHEMA_VERSION,
        "result": r.result,
        "spec": r.spec,
        "constants": r.constants,
        "engine": r.engine,
        "invariants": list(r.invariants),
        "properties": list(r.properties),
        "symmetry": r.symmetry,
        "fairness": r.fairness,
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
        "complete": r.result in ("holds", "violated", "deadlock") and not r.stopped_by,
        "liveness": ({"transitions": r.graph_edges, "transition_bytes": r.graph_edge_bytes,
                      "bytes": r.graph_bytes, "seconds": round(r.liveness_seconds, 3)}
                     if r.graph_edges or r.liveness_seconds else None),
        "spark": r.engine_report if r.engine == "spark" else None,
        "memo": r.engine_report if r.engine == "local" else None,
        "successors": {"path": r.successors, "why": r.successors_why},
        "parallelism": {"kind": r.parallelism, "count": r.parallel_count},
        "spec_code": r.spec_code,
        "checkpoint": ({"directory": r.checkpoint, "level": r.checkpoint_level + 1}
                       if r.checkpoint is not None and r.checkpoint_level is not None else None),
    }
    if r.violations:
        out["violation"] = violation_to_json(spec, consts, r.violations[0])
        out["violations"] = [violation_to_json(spec, consts, v) for v in r.violations]
    return out
