"""Turning what an engine counted into a :class:`CheckResult`, the same way for every engine.

The local, multi-process and Spark engines count the same things; how those
counts become a verdict (``holds``, ``violated``...) and which vacuity warnings
go with it is decided here once, so the engines cannot drift apart.
"""

from __future__ import annotations

from typing import Sequence

from modelcheck.spec.constants import constants_to_dict
from modelcheck.model.bound import BoundModel
from modelcheck.output.results import ActionStats, CheckResult, Violation


def verdict(violations: Sequence[Violation], stopped_by: str | None) -> str:
    """``violated``, ``deadlock``, ``interrupted``, ``incomplete`` or ``holds``."""
    if any(v.kind in ("invariant", "step", "liveness", "initial") for v in violations):
        return "violated"
    if violations:
        return "deadlock"
    if stopped_by in ("interrupt", "max-memory", "out-of-memory"):
        return "interrupted"
    if stopped_by:
        return "incomplete"
    return "holds"


def summarize(
    model: BoundModel,
    *,
    engine: str,
    seconds: float,
    violations: Sequence[Violation],
    stopped_by: str | None,
    distinct: int,
    generated: int,
    depth: int,
    queue_left: int,
    act_generated: Sequence[int],
    act_distinct: Sequence[int],
    sometimes_reached: dict[str, bool],
) -> CheckResult:
    """The result of a run, with warnings for actions never enabled and sometimes-properties never reached."""
    result = verdict(violations, stopped_by)
    warnings = []
    for a, g, bindings in zip(model.actions, act_generated, model.bindings):
        # An action whose parameters have no value for these constants (kraft-replication's actions of
        # brokers beyond BrokerCount) cannot be enabled: no warning for it.
        if g == 0 and bindings and result in ("holds", "incomplete"):
            warnings.append(f"action {a.name} was never enabled")
    for name, reached in sometimes_reached.items():
        if not reached and result == "holds":
            warnings.append(f"sometimes-property {name} was never reached: the check may be vacuous")
    return CheckResult(
        spec=model.spec.name,
        constants=constants_to_dict(model.c),
        engine=engine,
        result=result,
        distinct_states=distinct,
        states_generated=generated,
        depth=depth,
        seconds=seconds,
        invariants=tuple(i.name for i in model.invariants),
        violations=tuple(violations),
        action_stats=tuple(ActionStats(a.name, g, d) for a, g, d in zip(model.actions, act_generated, act_distinct)),
        queue_left=queue_left if result != "holds" else 0,
        symmetry=model.permutations is not None,
        fairness=model.options.fairness,
        sometimes_reached=dict(sometimes_reached),
        warnings=tuple(warnings),
        stopped_by=stopped_by,
        properties=tuple(model.options.properties),
    )
