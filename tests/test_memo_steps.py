"""Step properties on the memo tables: the same verdicts, counts and traces as the spec's own code.

A step property is learnt as a decision tree over a parent's row and a
successor's side by side (modelcheck.memo.steps).  The Kafka specs' two step
properties are checked here on the tables and with ``memo=False`` (TLC's
verdicts on the same configurations are in tests/test_liveness_tlc.py), with
and without liveness recorded beside them, on one thread and two.  Then the
step trees are broken on purpose, as a bug would break them: a violation the
trees make up is caught by the spec's own code before it is reported, and
one they hide is caught where parents are compared with the spec's own code
(every parent with ``memo_verify``); with no comparison the broken trees
answer wrongly, so these tests can fail.
"""

from __future__ import annotations

import pytest

import modelcheck
from modelcheck.memo import steps as steps_mod
from modelcheck.memo import tries as tries_mod
from conftest import needs_memo_tables

pytestmark = needs_memo_tables

A = {"Replicas": 2, "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 2}
B = {"Replicas": 3, "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 1}


def _on_tables(r) -> bool:
    return (r.engine_report or {}).get("successors") == "memo tables"


def _summary(r) -> dict:
    return {"result": r.result, "distinct": r.distinct_states, "generated": r.states_generated, "depth": r.depth,
            "violations": [(v.kind, v.name, [step.state for step in v.trace]) for v in r.violations]}


CASES = [
    ("kip320", A, ["HwMonotonicWithinEpoch"], {}),
    ("kip320", A, ["LeaderHwMonotonic"], {}),
    ("kip320", B, ["HwMonotonicWithinEpoch", "LeaderHwMonotonic"], {}),
    ("kip101", A, ["HwMonotonicWithinEpoch"], {"continue_after_violation": True}),
    ("kip320", A, ["LeaderHwMonotonic", "DesignatedLeaderTakesOver"], {}),
    ("kip320", A, ["HwMonotonicWithinEpoch", "DesignatedLeaderTakesOver"], {"continue_after_violation": True}),
    ("kip320", A, ["HwMonotonicWithinEpoch"], {"workers": 2}),
    ("kip320", B, ["LeaderHwMonotonic"], {"workers": 2}),
]


@pytest.mark.parametrize("spec, consts, props, options", CASES,
                         ids=[f"{s}-{'A' if c is A else 'B'}-{'+'.join(p)}-{'-'.join(o) or 'plain'}"
                              for s, c, p, o in CASES])
def test_step_properties_on_the_tables_answer_as_the_spec_s_own_code(spec, consts, props, options):
    default = modelcheck.check(spec, consts, properties=props, **options)
    own = modelcheck.check(spec, consts, properties=props, memo=False, **options)
    assert _on_tables(default), default.warnings
    assert not _on_tables(own)
    assert _summary(default) == _summary(own)


class Flipping(tries_mod.Learner):
    """Every third step property result learnt is stored negated (a tree bug: both ways)."""

    calls = 0

    def learn(self, f, row, at=None):
        code = super().learn(f, row, at)
        Flipping.calls += 1
        if Flipping.calls % 3 == 0 and self.tries._new_counts:
            self.tries._new_counts[-1] ^= 1
        return code


class Hiding(tries_mod.Learner):
    """Every violation learnt is stored as holding (a tree bug that hides what a step breaks)."""

    def learn(self, f, row, at=None):
        code = super().learn(f, row, at)
        if self.tries._new_counts and self.tries._new_counts[-1] == 0:
            self.tries._new_counts[-1] = 1
        return code


def test_a_made_up_violation_is_the_tables_fault_and_the_check_finishes_right(monkeypatch):
    monkeypatch.setattr(steps_mod, "Learner", Flipping)
    want = _summary(modelcheck.check("kip320", A, properties=["LeaderHwMonotonic"], memo=False))
    r = modelcheck.check("kip320", A, properties=["LeaderHwMonotonic"])
    assert _summary(r) == want and want["result"] == "holds"
    stopped = [w for w in r.warnings if "the memo tables stopped (the tables differ from the spec's own code" in w]
    assert len(stopped) == 1 and "step" in stopped[0], r.warnings


def test_a_hidden_violation_is_caught_by_comparing_parents(monkeypatch):
    monkeypatch.setattr(steps_mod, "Learner", Hiding)
    want = _summary(modelcheck.check("kip320", A, properties=["HwMonotonicWithinEpoch"], memo=False))
    assert want["result"] == "violated"
    r = modelcheck.check("kip320", A, properties=["HwMonotonicWithinEpoch"], memo_verify=True)
    assert _summary(r) == want
    assert any("the tables differ from the spec's own code: the step from" in w for w in r.warnings), r.warnings


def test_the_same_breakage_unchecked_answers_wrongly(monkeypatch):
    """Without the comparison the hiding trees say "holds" of a violated property: the test above can fail."""
    from modelcheck.memo.backend import MemoBackend
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spec.constants import build_constants
    from modelcheck.spec.loader import load_spec

    monkeypatch.setattr(steps_mod, "Learner", Hiding)
    spec = load_spec("kip320")
    model = BoundModel(spec, build_constants(spec, A), CheckOptions(properties=("HwMonotonicWithinEpoch",),
                                                                      invariants=()))
    assert LevelDriver(model, MemoBackend(model, verify="off")).run().result == "holds"
