"""An action constraint on the memo tables: the same counts, verdicts and traces as the spec's own code.

TLC's ACTION_CONSTRAINT is a predicate of a step: a successor it rejects is
generated but neither kept nor explored.  On the tables it is a tree over
the parent's row and the successor's side by side (modelcheck.memo.steps),
walked by the C loop for every successor inside the state constraint.  The
token ring of tests/models/token_ring.py has both constraints, step
properties and liveness; each run here is compared with ``memo=False``.
The constraint's tree is then broken on purpose: comparing every parent with
the spec's own code (``memo_verify``) catches it, and unchecked it counts
wrongly, so the comparison can fail.
"""

from __future__ import annotations

import sys

import pytest

import modelcheck
from modelcheck.memo import steps as steps_mod
from modelcheck.memo import tries as tries_mod
from conftest import MODELS, needs_memo_tables

sys.path.insert(0, str(MODELS))
import token_ring as tr  # noqa: E402

pytestmark = needs_memo_tables


def _on_tables(r) -> bool:
    return (r.engine_report or {}).get("successors") == "memo tables"


def _summary(r) -> dict:
    return {"result": r.result, "distinct": r.distinct_states, "generated": r.states_generated, "depth": r.depth,
            "violations": [(v.kind, v.name, [step.state for step in v.trace]) for v in r.violations]}


CASES = [
    ({"N": 3, "Max": 2, "Bound": 4}, {}),
    ({"N": 4, "Max": 3, "Bound": 6}, {}),
    ({"N": 3, "Max": 2, "Bound": 4}, {"properties": ["MovesByOne", "LeavesOnlyIdle", "NoSkipping"],
                                      "continue_after_violation": True}),
    ({"N": 3, "Max": 2, "Bound": 4}, {"properties": ["TokenReturns", "NoSkipping"]}),
    ({"N": 4, "Max": 3, "Bound": 6}, {"workers": 2}),
]


@pytest.mark.parametrize("consts, options", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_an_action_constraint_on_the_tables_answers_as_the_spec_s_own_code(consts, options):
    spec = tr.ring()
    default = modelcheck.check(spec, consts, deadlock=False, **options)
    own = modelcheck.check(spec, consts, deadlock=False, memo=False, **options)
    assert _on_tables(default), default.warnings
    assert _summary(default) == _summary(own)
    unconstrained = modelcheck.check(tr.ring(constrained=False), consts, deadlock=False, memo=False,
                                     max_states=own.distinct_states + 1)
    assert unconstrained.distinct_states > own.distinct_states  # the constraints prune something


class Permissive(tries_mod.Learner):
    """Every rejection learnt is stored as allowed (a tree bug that keeps what the constraint rejects)."""

    def learn(self, f, row, at=None):
        code = super().learn(f, row, at)
        if self.tries._new_counts and self.tries._new_counts[-1] == 0:
            self.tries._new_counts[-1] = 1
        return code


def test_a_broken_action_constraint_tree_is_caught_by_comparing_parents(monkeypatch):
    consts = {"N": 3, "Max": 2, "Bound": 4}
    want = _summary(modelcheck.check(tr.ring(), consts, deadlock=False, memo=False))
    monkeypatch.setattr(steps_mod, "Learner", Permissive)
    r = modelcheck.check(tr.ring(), consts, deadlock=False, memo_verify=True)
    assert _summary(r) == want
    assert any("the tables differ from the spec's own code: the action constraint" in w for w in r.warnings), r.warnings


def test_the_same_breakage_unchecked_counts_wrongly(monkeypatch):
    from modelcheck.memo.backend import MemoBackend
    from modelcheck.model.bound import BoundModel
    from modelcheck.options import CheckOptions
    from modelcheck.search.driver import LevelDriver
    from modelcheck.spec.constants import build_constants

    consts = {"N": 3, "Max": 2, "Bound": 4}
    want = modelcheck.check(tr.ring(), consts, deadlock=False, memo=False)
    monkeypatch.setattr(steps_mod, "Learner", Permissive)
    spec = tr.ring()
    model = BoundModel(spec, build_constants(spec, consts), CheckOptions(check_deadlock=False))
    wrong = LevelDriver(model, MemoBackend(model, verify="off")).run()
    assert wrong.distinct_states != want.distinct_states
