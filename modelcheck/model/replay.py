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
from modelcheck.model.trace import TraceStep
from modelcheck.spec.declare import State


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
        step = step_to(model, current, target)
        if step is not None:
            steps.append(step)
            current = step.state
        else:
            raise SpecRuntimeError(
                f"spec {model.spec.name}: replay could not regenerate step {len(steps)} of the "
                "trace; the spec's actions are not deterministic (same state, different successors)",
                spec=model.spec.name,
                where="replay",
                trace=steps,
            )
    return steps


def step_to(model: BoundModel, s: State, target_fp: int) -> TraceStep | None:
    """The step from ``s`` to its first successor (in the spec's order) with fingerprint ``target_fp``, or None."""
    fp = model.fingerprint
    for ai, b, t in model.successors(s):
        if fp(t) == target_fp:
            return model.step(ai, b, t)
    return None


def violating_step(model: BoundModel, s: State, name: str) -> TraceStep | None:
    """The first step of ``s`` inside the model (not stuttering) that violates the step property ``name``.

    The backends report the first such step of a parent in successor order,
    which is the one found here again (the spec is deterministic).
    """
    prop = model.spec.property(name)
    s_fp = model.fingerprint(s)
    for ai, b, t in model.successors(s):
        if not model.in_model(t) or not model.action_allowed(s, t) or model.fingerprint(t) == s_fp:
            continue
        if not model._holds(f"property {name}", prop.fn, model.c, s, t):
            return model.step(ai, b, t)
    return None


STATE_CHECKS = ("invariant ", "property ", "state_constraint", "action_constraint")
"""How a :class:`SpecRuntimeError`'s ``where`` starts when it failed on a state rather than in an action."""


def failing_successor(model: BoundModel, parent: State, where: str) -> TraceStep | None:
    """The step to the first successor of ``parent`` on which the check ``where`` fails, or None.

    Engines report a spec failure at the parent whose expansion or whose
    successors' checks failed; the trace of a failing invariant, property or
    constraint should end with the state it failed on.  The checks are
    evaluated as the engines do (constraints first, then the named check),
    so, the spec being deterministic, this is the successor that failed.
    """
    if not where.startswith(STATE_CHECKS):
        return None
    name = where.partition(" ")[2]
    predicates = {p.name: p for p in (*model.invariants, *model.sometimes)}
    try:
        for ai, b, t in model.successors(parent):
            try:
                if where == "state_constraint":
                    model.in_model(t)
                    continue
                if not model.in_model(t):
                    continue
                if where == "action_constraint":
                    model.action_allowed(parent, t)
                    continue
                if not model.action_allowed(parent, t) or name not in predicates:
                    continue
                model._holds(where, predicates[name].fn, model.c, t)
            except SpecRuntimeError as err:
                if err.where == where:
                    return model.step(ai, b, t)
    except SpecRuntimeError:
        return None
    return None
