"""Liveness and step properties of the Kafka specs: TLC's verdicts, one test per row.

The expected verdicts are TLC 2.18's (bench/tlc/: the same properties written in
TLA+ over the published Kip320 and Kip101 modules, `SPECIFICATION Spec` with the
modules' own fairness, deadlock not checked), on configurations A (Replicas =
{r1, r2}, LogSize 2, MaxRecords 2, MaxLeaderEpoch 2) and B (three replicas,
MaxLeaderEpoch 1).  Where TLC explored the whole graph (a property that holds)
its distinct-state count is compared too; a violated step property's trace is
a shortest one in both checkers (breadth-first), so its length is compared;
a liveness lasso's length is not (TLC's vary from run to run), but the lasso
printed here is checked to be a behaviour of the spec that violates the
property (tests/test_liveness.py checks lassos on hand-reasoned specs).
"""

from __future__ import annotations

import pytest

import modelcheck
from modelcheck.spec.loader import load_spec

CONFIGS = {
    "A": {"Replicas": 2, "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 2},
    "B": {"Replicas": 3, "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 1},
}

# (spec, config, property, TLC's verdict, TLC's distinct states when it holds / step trace length when violated)
TLC = [
    ("kip320", "A", "EventuallySomeLeader", "violated", None),
    ("kip320", "A", "DesignatedLeaderTakesOver", "holds", 5_973),
    ("kip320", "A", "LeaderRecordEventuallyCommitted", "violated", None),
    ("kip320", "A", "OutOfIsrRejoins", "violated", None),
    ("kip320", "A", "LeaderHwMonotonic", "holds", 5_973),
    ("kip320", "A", "HwMonotonicWithinEpoch", "violated", 12),
    ("kip320", "B", "EventuallySomeLeader", "violated", None),
    ("kip320", "B", "DesignatedLeaderTakesOver", "holds", 39_619),
    ("kip320", "B", "LeaderRecordEventuallyCommitted", "violated", None),
    ("kip320", "B", "OutOfIsrRejoins", "violated", None),
    ("kip320", "B", "LeaderHwMonotonic", "holds", 39_619),
    ("kip320", "B", "HwMonotonicWithinEpoch", "violated", 13),
    ("kip101", "A", "EventuallySomeLeader", "violated", None),
    ("kip101", "A", "DesignatedLeaderTakesOver", "holds", 9_045),
    ("kip101", "A", "LeaderRecordEventuallyCommitted", "violated", None),
    ("kip101", "A", "OutOfIsrRejoins", "violated", None),
    ("kip101", "A", "LeaderHwMonotonic", "holds", 9_045),
    ("kip101", "A", "HwMonotonicWithinEpoch", "violated", 12),
    ("kip101", "B", "EventuallySomeLeader", "violated", None),
    ("kip101", "B", "DesignatedLeaderTakesOver", "holds", 59_788),
    ("kip101", "B", "LeaderRecordEventuallyCommitted", "violated", None),
    ("kip101", "B", "OutOfIsrRejoins", "violated", None),
    ("kip101", "B", "LeaderHwMonotonic", "holds", 59_788),
    ("kip101", "B", "HwMonotonicWithinEpoch", "violated", 13),
]


def _is_behaviour(model, trace, loop_start, prop) -> bool:
    """The lasso is a path of the spec from an initial state, closed by a real step (or ending in stuttering)."""
    fp = model.fingerprint
    if trace[0].state not in model.init_states():
        return False
    for a, b in zip(trace, trace[1:]):
        if fp(b.state) not in {fp(t) for _ai, _b, t in model.successors(a.state)}:
            return False
    if loop_start is not None:
        return fp(trace[loop_start].state) in {fp(t) for _ai, _b, t in model.successors(trace[-1].state)}
    return True


# Configuration A (up to 9,045 states) runs in the fast tier, B (up to 59,788) in the slow one (docs/testing.md).
# Each on the memo tables (the default) and on the spec's own code (--no-memo).
@pytest.mark.parametrize("memo", [None, False], ids=["tables", "spec-code"])
@pytest.mark.parametrize("spec, config, prop, verdict, figure",
                         [pytest.param(*row, marks=pytest.mark.slow) if row[1] == "B" else row for row in TLC],
                         ids=[f"{s}-{c}-{p}" for s, c, p, _v, _f in TLC])
def test_tlc_verdict(spec, config, prop, verdict, figure, memo):
    r = modelcheck.check(spec, CONFIGS[config], properties=[prop], preflight=False, memo=memo)
    assert (r.engine_report or {}).get("successors") == ("memo tables" if memo is None else None), r.successors_why
    assert r.result == verdict
    kind = load_spec(spec).property(prop).kind
    if verdict == "holds":
        assert r.distinct_states == figure
        return
    v = r.violation
    assert v.kind == kind and v.name == prop
    if kind == "step":
        assert len(v.trace) == figure
    else:
        from modelcheck.model.bound import BoundModel
        from modelcheck.options import CheckOptions

        model = BoundModel(load_spec(spec), r.constants_object, CheckOptions(properties=(prop,)))
        assert _is_behaviour(model, v.trace, v.loop_start, prop)
