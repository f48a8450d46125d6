"""``--workers N`` on the memo tables: helper threads beside the C loop (modelcheck.memo.kernel's crew).

A helper runs the first two passes of parents ahead of the loop (walks,
candidates, their checks); the loop takes those candidates and decides
everything itself, in the parents' order.  So a run with helpers must give
exactly what one thread gives: the same counts, per-action coverage, depth,
stops and the same shortest counterexample.  Expected values come from the
spec's own code (``memo=False``) and TLC's reference counts.

Which parents a helper reaches first depends on timing, so besides runs as
users make them, every spec also runs with ``only_helpers``: the loop waits
for a helper to take each parent, and every parent is prepared by a helper
or given back by one (a branch not learnt, too many successors), whatever
the machine's load; and with ``own_ring``: every parent passes through
the ring the loop otherwise fills only with parents it prepares ahead
while it waits for a helper.
"""

from __future__ import annotations

import json

import pytest

import modelcheck
from modelcheck.memo import kernel as kn
from modelcheck.memo.backend import MemoBackend
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions
from modelcheck.search.driver import LevelDriver
from modelcheck.spec.constants import build_constants
from modelcheck.spec.loader import load_spec

from conftest import run_cli
from test_memo import SPECS, _summary

pytestmark = pytest.mark.skipif(not kn.COMPILED, reason="the memo tables run compiled only")


def _consts(name: str) -> dict:
    return {"Replicas": 2} if name.startswith(("kip", "truncate")) else {}


def _model(name: str, consts: dict, **options) -> BoundModel:
    spec = load_spec(name)
    return BoundModel(spec, build_constants(spec, consts), CheckOptions(**options))


@pytest.mark.slow
@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("options", [{}, {"continue_after_violation": True}, {"max_states": 700},
                                     {"max_depth": 6}])
def test_workers_on_the_tables_give_the_spec_engines_result(name, options):
    consts = _consts(name)
    threaded = modelcheck.check(name, consts, workers=2, **options)
    plain = modelcheck.check(name, consts, memo=False, **options)
    assert threaded.engine_report is not None and threaded.engine_report["successors"] == "memo tables"
    assert threaded.engine_report["threads"] == 2
    assert _summary(threaded) == _summary(plain)


@pytest.mark.slow
@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("options", [{}, {"continue_after_violation": True}, {"max_states": 700}])
def test_every_parent_through_a_helper_gives_the_same_result(name, options):
    """Every parent prepared (or given back) by a helper: violations and deadlocks found on a helper's
    candidates, growth of the arrays in the middle of a helper's parent, stops inside a level."""
    consts = _consts(name)
    plain = modelcheck.check(name, consts, memo=False, **options)
    model = _model(name, consts, **options)
    backend = MemoBackend(model, threads=2, only_helpers=True)
    result = LevelDriver(model, backend).run()
    prepared, given_back = backend.engine_report()["helper_parents"].values()
    assert prepared > 0
    assert _summary(result) == _summary(plain)


@pytest.mark.slow
@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("options", [{}, {"continue_after_violation": True}, {"max_states": 700}])
def test_every_parent_the_loop_takes_through_its_own_ring_gives_the_same_result(name, options):
    """The ring the loop fills while it waits for a helper (parents prepared ahead), used for every parent
    (the helper takes none): its candidates, given-back parents, violations and stops found there."""
    consts = _consts(name)
    plain = modelcheck.check(name, consts, memo=False, **options)
    model = _model(name, consts, **options)
    backend = MemoBackend(model, threads=2, own_ring=True)
    result = LevelDriver(model, backend).run()
    assert sum(backend.engine_report()["committer_ahead"].values()) > 0
    assert sum(backend.engine_report()["helper_parents"].values()) == 0
    assert _summary(result) == _summary(plain)


def test_helpers_give_back_parents_with_branches_not_learnt():
    """Early levels meet branches not learnt: the helper gives those parents back, the loop learns them."""
    model = _model("kip320", {"Replicas": 2})
    backend = MemoBackend(model, threads=2, only_helpers=True)
    result = LevelDriver(model, backend).run()
    prepared, given_back = backend.engine_report()["helper_parents"].values()
    assert given_back > 0 and prepared > given_back
    assert prepared + given_back >= result.distinct_states - result.queue_left


@pytest.mark.slow
def test_three_threads_and_the_reference_counts():
    """Two helpers on Kip320 with three replicas: TLC's counts (737,794 distinct, 1,967,560 generated)."""
    r = modelcheck.check("kip320", workers=3)
    assert (r.distinct_states, r.states_generated, r.depth) == (737_794, 1_967_560, 26)
    assert r.engine_report["threads"] == 3
    assert r.engine_report["helper_parents"]["prepared"] > 0


def test_hw_data_loss_trace_with_workers():
    """The 9-state counterexample of KafkaTruncateToHighWatermark, found with helpers as without."""
    one = modelcheck.check("truncate-to-hw")
    two = modelcheck.check("truncate-to-hw", workers=2)
    assert two.result == "violated" and len(two.violations[0].trace) == 9
    assert _summary(two) == _summary(one)


def test_two_threaded_checks_in_one_process():
    """Each check has its own helpers (no state shared between runs)."""
    a = modelcheck.check("kip320", {"Replicas": 2}, workers=2)
    b = modelcheck.check("kip101", {"Replicas": 2}, workers=2)
    c = modelcheck.check("kip320", {"Replicas": 2})
    assert _summary(a) == _summary(c)
    assert b.distinct_states == modelcheck.check("kip101", {"Replicas": 2}, memo=False).distinct_states


@pytest.mark.slow
def test_cli_workers_run_on_the_tables_and_no_memo_on_processes():
    on = run_cli("check", "kip320", "--const", "Replicas=2", "--workers", "2", "--json", "-q")
    off = run_cli("check", "kip320", "--const", "Replicas=2", "--workers", "2", "--no-memo", "--json", "-q")
    assert on.returncode == off.returncode == 0
    a, b = json.loads(on.stdout), json.loads(off.stdout)
    assert a["memo"]["successors"] == "memo tables" and a["memo"]["threads"] == 2
    assert b["memo"] is None
    assert (a["distinct_states"], a["states_generated"]) == (b["distinct_states"], b["states_generated"])
    assert "spec's own code" not in on.stderr


@pytest.mark.slow
def test_memo_with_workers_asks_for_the_tables():
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--memo", "--workers", "2", "--json", "-q")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["memo"]["threads"] == 2
