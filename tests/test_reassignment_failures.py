"""``partition-reassignment`` under failures: broker crashes, lagging replicas, requests in flight.

Each failure is a constant whose default (0 or false) keeps the failure-free
model's counts; ``Form`` picks the controller: ``seeds`` (the steps as the
seeds list them), ``kip455`` (KIP-455's persisted adding/removing replicas
and phase B only while RAR is in the ISR, with Kafka's epoch fence on the
leader's ISR writes and stray-replica deletion at restart) and one mutant
per fix, ``kip455-no-X``.  Trace lengths are confirmed by ``naive_shortest``,
state counts by ``naive_explore`` (``tests/naive.py``).
"""

from __future__ import annotations

import pytest

from naive import naive_shortest
from story_checks import assert_counts_match_naive, labels, run_spec

SPEC = "partition-reassignment"

VIOLATIONS = [
    # (constants, invariant, trace length, the controller form that breaks it)
    ({"BrokerCrashes": 1}, "LeaderInIsr", 7),
    ({"BrokerCrashes": 1}, "CompletedAtTarget", 10),
    ({"BrokerCrashes": 1}, "CompletedInSync", 10),
    ({"BrokerCrashes": 1, "Form": "kip455-no-recheck"}, "LeaderInIsr", 7),
    ({"BrokerCrashes": 1, "Form": "kip455-no-stray-deletion"}, "CompletedAtTarget", 10),
    ({"IsrShrinks": 1}, "CompletedInSync", 11),
    ({"IsrShrinks": 1, "Form": "kip455-no-recheck"}, "CompletedInSync", 11),
    ({"DelayedRequests": True}, "CompletedAtTarget", 10),
    ({"DelayedRequests": True, "Form": "kip455-no-fence"}, "CompletedAtTarget", 10),
    ({"Order": "persist-ar-early", "Form": "kip455-no-persist-oar"}, "CompletedAtTarget", 13),
]


def _id(case):
    return "-".join(f"{k}={v}" for k, v in case[0].items()) + "-" + case[1]


@pytest.mark.parametrize("consts,invariant,length", VIOLATIONS, ids=[_id(c) for c in VIOLATIONS])
def test_failure_breaks_the_invariant_in_the_shortest_trace(consts, invariant, length):
    spec, c, r = run_spec(SPEC, (invariant,), **consts)
    assert r.result == "violated" and r.violations[0].name == invariant
    assert len(r.violations[0].trace) == length == naive_shortest(spec, c, invariant)


HOLDS = [
    # (constants, distinct states, states generated, depth, the new actions that must fire)
    pytest.param({"BrokerCrashes": 1}, 4890, 12886, 20, ("broker_crash", "broker_restart"),
                 id="BrokerCrashes=1"),
    pytest.param({"IsrShrinks": 1}, 1219, 2543, 18, ("leader_shrinks_isr",), id="IsrShrinks=1"),
    pytest.param({"DelayedRequests": True}, 2244, 6750, 20, ("deliver_leader_and_isr", "deliver_stop_replica"),
                 id="DelayedRequests=true"),
    pytest.param({"Order": "persist-ar-early"}, 620, 1278, 17, (), id="Order=persist-ar-early"),
]


@pytest.mark.parametrize("consts,distinct,generated,depth,fired", HOLDS)
def test_kip455_keeps_every_invariant_and_no_run_stuck(consts, distinct, generated, depth, fired):
    """Form=kip455: all four invariants hold and --deadlock finds no run stuck short of the target."""
    spec, c, r = run_spec(SPEC, ("LeaderInIsr", "AckedRecordsSurvive", "CompletedAtTarget", "CompletedInSync"),
                          deadlock=True, Form="kip455", **consts)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == (distinct, generated, depth)
    assert_counts_match_naive(spec, c, r)
    stats = {a.name: a.generated for a in r.action_stats}
    assert all(stats[name] > 0 for name in fired), stats


def test_a_crashed_new_leader_hands_leadership_back_to_an_old_replica_that_the_shrink_then_removes():
    """Seeds: b2 leads from RAR, crashes, b1 (outside RAR) is elected, and step 4 takes it out of the ISR."""
    _, _, r = run_spec(SPEC, ("LeaderInIsr",), BrokerCrashes=1)
    assert labels(r.violations[0]) == [
        "add_reassigned_replicas", "follower_fetch(broker=b3)", "reassigned_replicas_in_sync",
        "elect_leader_from_reassigned(broker=b2)", "broker_crash(broker=b2)", "remove_old_replicas_from_isr"]


def test_a_delayed_leader_and_isr_lets_the_leader_readmit_the_removed_replica():
    """Seeds: step 4's LeaderAndIsr is in flight, b2 still lists b1 in AR and readmits it, b1 is deleted."""
    _, _, r = run_spec(SPEC, ("CompletedAtTarget",), DelayedRequests=True)
    assert labels(r.violations[0])[4:6] == ["remove_old_replicas_from_isr", "follower_fetch(broker=b1)"]
    assert 0 in r.violations[0].trace[-1].state.isr


def test_the_stray_replica_comes_back_with_its_broker():
    _, _, r = run_spec(SPEC, ("CompletedAtTarget",), BrokerCrashes=1, Form="kip455-no-stray-deletion")
    assert labels(r.violations[0])[-1] == "broker_restart(broker=b1)"


def test_defaults_of_the_new_constants_keep_the_failure_free_counts():
    """Seeds: today's 660 states; kip455 keeps OAR in ZooKeeper until the end, which merges some states."""
    for form, counts in (("seeds", (660, 18)), ("kip455", (588, 16))):
        spec, c, r = run_spec(SPEC, (), deadlock=True, Form=form)
        assert (r.result, r.distinct_states, r.depth) == ("holds", *counts)
        assert_counts_match_naive(spec, c, r)
        stats = {a.name: a.generated for a in r.action_stats}
        assert all(stats[n] == 0 for n in ("broker_crash", "broker_restart", "leader_shrinks_isr",
                                           "deliver_leader_and_isr", "deliver_stop_replica"))


def test_bad_form_is_one_line_and_exit_2(cli):
    p = cli("check", SPEC, "--const", "Form=kip500", "-q")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


CANCEL_INVARIANTS = ("LeaderInIsr", "AckedRecordsSurvive", "CompletedAtTarget", "CompletedInSync",
                     "CancelledAtOriginal")

CANCEL_VIOLATIONS = [
    # (constants, invariant, trace length): each mutant of the cancellation gets one step wrong; the last is
    # Cancel=kip455 itself, a StopReplica from before the cancel deleting a replica the revert needs (KIP-570)
    ({"Cancel": "revert-first", "BrokerCrashes": 1}, "LeaderInIsr", 5),
    ({"Cancel": "revert-first"}, "LeaderInIsr", 9),
    ({"Cancel": "keep-persisted"}, "CancelledAtOriginal", 13),
    ({"DelayedRequests": True}, "AckedRecordsSurvive", 18),
]


@pytest.mark.parametrize("consts,invariant,length", CANCEL_VIOLATIONS, ids=[_id(c) for c in CANCEL_VIOLATIONS])
def test_a_wrong_cancellation_breaks_an_invariant_in_the_shortest_trace(consts, invariant, length):
    spec, c, r = run_spec(SPEC, (invariant,), Form="kip455", Cancellations=1, **consts)
    assert r.result == "violated" and r.violations[0].name == invariant
    assert "cancel_reassignment" in labels(r.violations[0])
    assert len(r.violations[0].trace) == length == naive_shortest(spec, c, invariant)


CANCEL_HOLDS = [
    # (constants, distinct states, states generated, depth)
    pytest.param({}, 1127, 2324, 20, id="Cancellations=1"),
    pytest.param({"IsrShrinks": 1}, 2339, 5069, 22, id="Cancellations=1-IsrShrinks=1"),
    pytest.param({"Order": "persist-ar-early"}, 1220, 2606, 22, id="Cancellations=1-Order=persist-ar-early"),
    pytest.param({"Replicas": "1,2:3,4"}, 2058, 5438, 21, id="Cancellations=1-Replicas=1,2:3,4"),
    pytest.param({"BrokerCrashes": 1}, 9854, 26278, 23, id="Cancellations=1-BrokerCrashes=1",
                 marks=pytest.mark.slow),
]


@pytest.mark.parametrize("consts,distinct,generated,depth", CANCEL_HOLDS)
def test_kip455_cancellation_reverts_to_the_original_replicas_and_no_run_stuck(consts, distinct, generated, depth):
    """Form=kip455, Cancel=kip455: every invariant holds, CancelledAtOriginal included, and --deadlock finds
    no run stuck; the cancellation fires and some cancelled move ends back at OAR."""
    spec, c, r = run_spec(SPEC, CANCEL_INVARIANTS, deadlock=True, Form="kip455", Cancellations=1, **consts)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == (distinct, generated, depth)
    assert_counts_match_naive(spec, c, r)
    stats = {a.name: a.generated for a in r.action_stats}
    assert stats["cancel_reassignment"] > 0, stats


def test_a_cancelled_move_ends_at_the_original_replicas():
    """Some run of the correct cancellation completes with AR, ISR and leader back in OAR {b1, b2} (so
    CancelledAtOriginal does not hold vacuously)."""
    from collections import deque

    spec, c, _ = run_spec(SPEC, (), Form="kip455", Cancellations=1)
    seen, queue = set(spec.init(c)), deque(spec.init(c))
    while queue:
        s = queue.popleft()
        for act in spec.actions:
            for binding in act.bindings(c):
                r = act.fn(c, s, *binding)
                for t in [] if r is None else (r if isinstance(r, list) else [r]):
                    if t not in seen:
                        seen.add(t)
                        queue.append(t)
    ends = [s for s in seen if s.cancels and not s.reassigning]
    assert ends and all(s.zk_assignment == {0, 1} and s.leader in {0, 1} and s.isr <= {0, 1} for s in ends)


def test_reverting_before_moving_the_leader_back_takes_the_partition_offline():
    """Cancel=revert-first: b1 crashes, b3 (an adding replica) leads, the cancel stops and deletes b3 at once."""
    _, _, r = run_spec(SPEC, ("LeaderInIsr",), Form="kip455", Cancellations=1, Cancel="revert-first", BrokerCrashes=1)
    assert labels(r.violations[0]) == ["add_reassigned_replicas", "follower_fetch(broker=b3)",
                                       "broker_crash(broker=b1)", "cancel_reassignment"]
    assert r.violations[0].trace[-1].state.leader == -1


def test_a_cancellation_kept_only_in_memory_is_undone_by_a_controller_crash():
    """Cancel=keep-persisted: the new controller reads the persisted sets of the move and finishes it at RAR."""
    _, _, r = run_spec(SPEC, ("CancelledAtOriginal",), Form="kip455", Cancellations=1, Cancel="keep-persisted")
    names = labels(r.violations[0])
    assert names[2:5] == ["cancel_reassignment", "controller_crash", "elect_controller"]
    assert r.violations[0].trace[-1].state.zk_assignment == {1, 2}

