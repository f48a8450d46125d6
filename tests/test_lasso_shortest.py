"""Liveness lassos are real, fair behaviours of the spec, and their loops are as short as the spec allows.

The search (modelcheck/search/liveness.py) picks the loop as the shortest
fair cycle through the states the property's negation needs, inside the
violating component; these tests check what it returns against the spec
itself, not against the search's own graph: each step is a transition the
spec makes, the loop closes with one, and every fairness condition is met in
the loop (taken there, or disabled where its kind allows).
"""

from __future__ import annotations

import os
import sys

import pytest

import modelcheck
from modelcheck import strong, weak
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
sys.path.insert(0, MODELS)
import fair_toys as ft  # noqa: E402
import token_ring as tr  # noqa: E402

KIP320_ISR = os.path.join(MODELS, "kip320_isr.py")


def _model(spec, result) -> BoundModel:
    return BoundModel(spec, result.constants_object, CheckOptions(invariants=()))


def _steps(model: BoundModel, s) -> dict:
    """Every real step out of ``s``: target fingerprint -> the (action index, binding) instances that make it."""
    out: dict = {}
    fp = model.fingerprint
    for ai, b, t in model.successors(s):
        if t == s or not model.in_model(t) or not model.action_allowed(s, t):
            continue
        out.setdefault(fp(t), set()).add((ai, tuple(b)))
    return out


def _conditions(spec, model: BoundModel) -> list[tuple[str, set]]:
    """Each fairness condition as (kind, the set of (action index, binding) instances it is about)."""
    out = []
    for f, ais in spec.fairness_actions:
        instances = [(ai, tuple(b)) for ai in ais for b in model.actions[ai].bindings(model.c)]
        if f.each:
            out += [(f.kind, {x}) for x in instances]
        else:
            out.append((f.kind, set(instances)))
    return out


def assert_valid_lasso(spec, result) -> None:
    """The violation's lasso is a behaviour of the spec that every fairness condition allows."""
    v = result.violation
    assert v is not None and v.kind == "liveness"
    model = _model(spec, result)
    fp = model.fingerprint
    states = [step.state for step in v.trace]
    assert fp(states[0]) in {fp(s) for s in model.init_states()}
    outs = [_steps(model, s) for s in states]
    for k in range(len(states) - 1):
        assert fp(states[k + 1]) in outs[k], f"step {k + 1} -> {k + 2} is not a transition of the spec"
    conditions = _conditions(spec, model)
    if v.loop_start is None:  # stuttering forever in the last state: no fair instance may be enabled there
        enabled = set().union(*outs[-1].values()) if outs[-1] else set()
        for kind, instances in conditions:
            assert not (instances & enabled), f"{kind} fairness of {sorted(instances)} is enabled where it stutters"
        return
    loop = list(range(v.loop_start, len(states)))
    back = fp(states[v.loop_start])
    assert back in outs[-1], "the loop does not close: no step from the last state back to its first"
    assert len(loop) >= 1
    taken: set = set()
    for k in loop:
        nxt = fp(states[k + 1]) if k + 1 < len(states) else back
        taken |= outs[k][nxt]
    enabled_in = [set().union(*outs[k].values()) if outs[k] else set() for k in loop]
    for kind, instances in conditions:
        if instances & taken:
            continue
        enabled_count = sum(1 for e in enabled_in if e & instances)
        if kind == "weak":
            assert enabled_count < len(loop), f"weakly fair {sorted(instances)} is enabled all along the loop, never taken"
        else:
            assert enabled_count == 0, f"strongly fair {sorted(instances)} is enabled in the loop and never taken"


def loop_steps(result) -> int:
    """How many steps the loop takes before it repeats (the one back to its first state included)."""
    v = result.violation
    return len(v.trace) - v.loop_start


def test_isr_membership_loop_has_two_steps():
    """Kip320 with three replicas (MaxLeaderEpoch 1: the same loop, a smaller graph): the loop is 2 steps.

    Why 2 is the least: the negation of ``<>[](r in ISR) \\/ <>[](r notin ISR)``
    needs a state with r in the quorum ISR and one with r out of it in the
    loop, two different states, so at least two steps (a step that changes
    nothing is stuttering, never part of a loop).  Why 2 is reached: once the
    leader r2 has written both records (MaxRecords 2) and neither follower has
    fetched, FencedLeaderShrinkIsr(r2, r1) is enabled (r1 lags r2's end
    offset) and, from there, FencedLeaderExpandIsr(r2, r1) (r1 follows r2's
    epoch and the HW is 0, so r1 needs no record to rejoin) leads back to the
    same state.  That loop is fair: the expansion is strongly fair and taken;
    LeaderWrite has nothing left to write; the HW cannot advance (neither
    follower holds record 0, and fetching has no fairness); BecomeLeader and
    FencedBecomeFollowerAndTruncate are disabled once both followers are in
    r2's epoch; the shrink has no fairness.  The search's first walk went
    round this loop twice (4 steps).
    """
    from modelcheck.spec.loader import load_spec

    r = modelcheck.check(KIP320_ISR, {"MaxLeaderEpoch": 1}, properties=["IsrMembershipStabilizes"], preflight=False)
    assert r.result == "violated"
    v = r.violation
    assert loop_steps(r) == 2
    names = {v.trace[-1].action_name, v.loop_action.split("(")[0]}
    assert names == {"FencedLeaderShrinkIsr", "FencedLeaderExpandIsr"}
    assert_valid_lasso(load_spec(KIP320_ISR), r)


@pytest.mark.slow
def test_isr_membership_loop_has_two_steps_with_the_default_constants():
    """The same with MaxLeaderEpoch 2 (737,794 states): the shortest loop is still 2 steps, the stem 7 states."""
    from modelcheck.spec.loader import load_spec

    r = modelcheck.check(KIP320_ISR, {}, properties=["IsrMembershipStabilizes"], preflight=False)
    assert loop_steps(r) == 2 and r.violation.loop_start == 6
    assert_valid_lasso(load_spec(KIP320_ISR), r)


FAIRNESS = {
    "none": [],
    "WF(Pass)": [(weak, tr.pass_)],
    "SF(Pass), WF(Drop)": [(strong, tr.pass_), (weak, tr.drop)],
    "WF(each Pass), SF(each Drop)": [(lambda a: weak(a, each=True), tr.pass_),
                                     (lambda a: strong(a, each=True), tr.drop)],
}
RING = ["TokenReturns", "WorkDrains", "EveryNodePasses", "ZeroHoldsOften", "QuietForever"]


@pytest.mark.parametrize("fairness", list(FAIRNESS))
@pytest.mark.parametrize("prop", RING)
def test_every_token_ring_lasso_is_a_fair_behaviour(fairness, prop):
    """Parameters, a stuttering action, constraints and per-binding fairness: every lasso is still valid."""
    spec = tr.ring(FAIRNESS[fairness], True)
    r = modelcheck.check(spec, {}, properties=[prop], preflight=False)
    if r.result == "violated":
        assert_valid_lasso(spec, r)


@pytest.mark.parametrize("fairness", [[], [(weak, ft.inc)], [(weak, ft.inc), (weak, ft.reset)],
                                      [(strong, ft.inc)]])
@pytest.mark.parametrize("prop", ["ReachesTop", "ZeroLeadsToOne", "ZeroInfinitelyOften",
                                  "EventuallyPositiveForever", "EveryValueLeadsToZero"])
def test_every_counter_lasso_is_a_fair_behaviour(fairness, prop):
    spec = ft.counter(fairness)
    r = modelcheck.check(spec, {}, properties=[prop], preflight=False)
    if r.result == "violated":
        assert_valid_lasso(spec, r)


TWO = {"Replicas": 2}
THREE = {"Replicas": 3, "MaxLeaderEpoch": 1}


@pytest.mark.parametrize("spec, consts, prop", [
    ("kip320", TWO, "EventuallySomeLeader"), ("kip320", TWO, "OutOfIsrRejoins"),
    ("kip320", TWO, "LeaderRecordEventuallyCommitted"), ("kip101", TWO, "LeaderRecordEventuallyCommitted"),
    ("kip320", THREE, "LeaderRecordEventuallyCommitted"), (KIP320_ISR, THREE, "IsrMembershipStabilizes")])
def test_every_kafka_lasso_is_a_fair_behaviour(spec, consts, prop):
    from modelcheck.spec.loader import load_spec

    r = modelcheck.check(spec, consts, properties=[prop], preflight=False)
    assert r.result == "violated"
    assert_valid_lasso(load_spec(spec), r)


@pytest.mark.parametrize("budget", [0, 5, 40])
@pytest.mark.parametrize("prop", ["WorkDrains", "EveryNodePasses", "QuietForever"])
def test_a_loop_search_cut_short_keeps_a_fair_loop(budget, prop, monkeypatch):
    """Past its budget the search keeps the best loop found so far, at worst its first walk: never a shorter,
    unfair one, and never a longer one than a bigger budget finds."""
    import modelcheck.search.liveness as lv

    spec = tr.ring(FAIRNESS["WF(each Pass), SF(each Drop)"], True)
    full = modelcheck.check(spec, {}, properties=[prop], preflight=False)
    monkeypatch.setattr(lv, "LOOP_SEARCH_EDGES", budget)
    cut = modelcheck.check(spec, {}, properties=[prop], preflight=False)
    assert cut.result == full.result == "violated"
    assert_valid_lasso(spec, cut)
    if full.violation.loop_start is not None:
        assert loop_steps(cut) >= loop_steps(full)
