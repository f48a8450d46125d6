"""``partition-reassignment``: the seeds' order of steps, and what each wrong order breaks.

Verdicts and trace labels are asserted as the story goes; the lengths of the
shortest traces are confirmed by a plain BFS over full states
(``naive_shortest``), the state counts of the checks that hold by the naive
explorer, and "no run gets stuck short of the target" by listing the naive
explorer's states without successors (``naive_terminal_states``), all in
``tests/naive.py``.
"""

from __future__ import annotations

import pytest

from conftest import json_report
from naive import naive_shortest, naive_terminal_states
from story_checks import INTERPRETED_ENV, assert_counts_match_naive, labels, run_spec

SPEC = "partition-reassignment"
INVARIANTS = ("LeaderInIsr", "AckedRecordsSurvive", "CompletedAtTarget")


def run(invariants=INVARIANTS, deadlock=False, **values):
    return run_spec(SPEC, invariants, deadlock=deadlock, **values)


@pytest.mark.parametrize("replicas", ["1,2:2,3", "1:2", "1,2:3,4"])
def test_the_seeds_order_keeps_data_and_leader_and_resumes_after_a_controller_crash(replicas):
    """Order=kafka: every invariant holds, and no run stops before the move is complete, crash or not."""
    spec, c, r = run(deadlock=True, Replicas=replicas, Order="kafka")
    assert r.result == "holds"
    assert r.sometimes_reached == {"MoveCompleted": True, "ResumedAfterControllerCrash": True, "RecordAcked": True}
    assert_counts_match_naive(spec, c, r)
    # Independently of the engine's deadlock check: every state the naive explorer finds without a
    # successor is a completed move (with the stuttering step, there should be none at all).
    assert naive_terminal_states(spec, c) == []
    assert all(not s.reassigning for s in _states_where_only_the_stutter_is_left(spec, c))


def _states_where_only_the_stutter_is_left(spec, c):
    """Reachable states whose only successor is themselves: where runs end."""
    from collections import deque

    seen, queue, ends = set(), deque(spec.init(c)), []
    seen.update(queue)
    while queue:
        s = queue.popleft()
        succs = []
        for act in spec.actions:
            for binding in act.bindings(c):
                t = act.fn(c, s, *binding)
                if t is not None:
                    succs.append(t)
        if all(t == s for t in succs):
            ends.append(s)
        for t in succs:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    assert ends
    return ends


def test_shrinking_the_isr_before_the_new_replicas_joined_takes_the_leader_offline():
    spec, c, r = run(("LeaderInIsr",), Order="shrink-isr-early")
    v = r.violations[0]
    assert labels(v) == ["add_reassigned_replicas", "remove_old_replicas_from_isr"]
    last = v.trace[-1].state
    assert last.leader == -1 and last.isr == {1}  # b1 (the leader) removed; b3 never joined
    assert len(v.trace) == naive_shortest(spec, c, "LeaderInIsr")
    # And the move cannot go on: with no leader nobody fetches, so RAR never joins the ISR.
    _, _, r = run((), deadlock=True, Order="shrink-isr-early")
    assert r.violations[0].kind == "deadlock"
    assert r.violations[0].trace[-1].state.leader == -1


def test_stopping_the_old_replicas_before_the_new_ones_caught_up_loses_acknowledged_records():
    """Moving a single replica b1 -> b2: the record acknowledged by b1 is deleted with it."""
    spec, c, r = run(("AckedRecordsSurvive",), Order="stop-old-early", Replicas="1:2")
    v = r.violations[0]
    assert labels(v) == ["produce", "add_reassigned_replicas", "stop_old_replicas"]
    last = v.trace[-1].state
    assert last.acked == {0} and all(rep.log == () for rep in last.replicas)
    assert len(v.trace) == naive_shortest(spec, c, "AckedRecordsSurvive")
    # With the default 1,2 -> 2,3 the record survives on b2, but the partition is offline.
    spec, c, r = run(("AckedRecordsSurvive", "LeaderInIsr"), Order="stop-old-early")
    assert [x.name for x in r.violations] == ["LeaderInIsr"]
    assert labels(r.violations[0]) == ["add_reassigned_replicas", "stop_old_replicas"]
    assert len(r.violations[0].trace) == naive_shortest(spec, c, "LeaderInIsr")


def test_persisting_the_target_assignment_first_cannot_be_resumed_after_a_controller_crash():
    """The new controller reads AR = RAR, so OAR - RAR is empty: b1 is never removed nor stopped."""
    spec, c, r = run(("CompletedAtTarget",), Order="persist-ar-early")
    v = r.violations[0]
    names = labels(v)
    assert names[:5] == ["add_reassigned_replicas", "follower_fetch(broker=b3)", "update_assigned_replicas",
                         "controller_crash", "elect_controller"]
    assert names[-1] == "complete_reassignment"
    last = v.trace[-1].state
    assert last.replicas[0].hosted and 0 in last.isr and last.zk_assignment == {1, 2}
    assert len(v.trace) == naive_shortest(spec, c, "CompletedAtTarget")
    # Without the crash the controller still knows OAR in memory, and the same order completes.
    _, _, r = run(deadlock=True, Order="persist-ar-early", ControllerCrashes=0)
    assert r.result == "holds"


def test_one_replica_moved_without_records_or_crashes_state_count_by_hand():
    """Replicas=1:2, Records=0, ControllerCrashes=0, Order=kafka, counted by hand: one chain of nine
    states (initial, AR := {b1, b2}, b2 fetches and joins the ISR, the controller sees it, b2 leads,
    b1 leaves the ISR, b1 is stopped, AR := {b2} persisted, the move is complete); b1's fetches
    change nothing once it follows (same empty log, and no longer in AR once removed).  9 distinct
    states, 10 generated (the last one's stuttering step), depth 9."""
    _, _, r = run(deadlock=True, Replicas="1:2", Records=0, ControllerCrashes=0)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 9, 10, 9)


@pytest.mark.slow
def test_cli_commands(cli):
    p = cli("check", SPEC, "--deadlock", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "Order=shrink-isr-early", "-q")
    assert p.returncode == 1 and "Invariant LeaderInIsr is violated" in p.stdout and "(3 states)" in p.stdout
    p = cli("check", SPEC, "--const", "Order=stop-old-early", "--const", "Replicas=1:2",
            "--invariant", "AckedRecordsSurvive", "-q")
    assert p.returncode == 1 and "(4 states)" in p.stdout
    p = cli("check", SPEC, "--const", "Order=persist-ar-early", "-q")
    assert p.returncode == 1 and "Invariant CompletedAtTarget is violated" in p.stdout and "(13 states)" in p.stdout


@pytest.mark.slow
def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "Order=persist-ar-early", "--continue", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 1
    assert json_report(a) == json_report(b)
