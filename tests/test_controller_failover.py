"""``controller-failover``: the controller epoch fences a zombie controller, and without it two brokers lead.

Verdicts and trace labels are asserted as the story goes; the lengths of the
shortest traces are confirmed by a plain BFS over full states
(``naive_shortest``), and the state counts of the checks that hold by the
naive explorer, both in ``tests/naive.py``.
"""

from __future__ import annotations

from conftest import json_report
from naive import naive_shortest
from story_checks import INTERPRETED_ENV, assert_counts_match_naive, constants, labels, load_spec, run_spec

SPEC = "controller-failover"
INVARIANTS = ("OneLeaderPerPartition", "AckedWritesSurvive")


def run(invariants=INVARIANTS, **values):
    return run_spec(SPEC, invariants, **values)


def replay(spec, c, steps):
    """Run the labelled steps from the initial state; returns the states (None where a step is disabled)."""
    s = next(iter(spec.init(c)))
    states = [s]
    for label in steps:
        act = spec.action_named(label.split("(")[0])
        binding = [b for b in act.bindings(c) if act.label(b) == label][0]
        s = act.fn(c, s, *binding)
        if isinstance(s, list):  # one successor per satisfied disjunct (TLC's count): they are the same state
            s = s[0]
        states.append(s)
        if s is None:
            break
    return states


ZOMBIE_STORY = [
    "crash(broker=b2)",  # the leader dies; controller b1's watch fires
    "expire_controller_session(broker=b1)",  # /controller is gone, b1 has not noticed: a zombie
    "elect_controller(broker=b3)",  # controller epoch 2; it reads the partition state: leader b2 is dead
    "read_partition_state(controller=controller b1)",  # the zombie reads it too (step 3.1)
    "elect_leader(controller=controller b1, leader=leader b1)",  # the zombie writes b1, leader epoch 1, and sends LeaderAndIsr
    "elect_leader(controller=controller b3, leader=leader b3)",  # the new controller writes b3, leader epoch 1 as well
    "handle_leader_and_isr(broker=b1, sender=from b1)",  # b1 takes the zombie's request: leader in epoch 1
    "handle_leader_and_isr(broker=b3, sender=from b3)",  # b3 takes the new controller's failover LeaderAndIsr (stale epoch 0)
    "handle_leader_and_isr(broker=b3, sender=from b3)",  # and its election: leader in epoch 1
]


def test_with_fencing_one_leader_and_acked_writes_survive():
    spec, c, r = run(ControllerEpochFencing="true")
    assert r.result == "holds"
    assert r.sometimes_reached == {"ControllerFailedOver": True, "NewLeaderServes": True, "SomethingAcked": True}
    assert_counts_match_naive(spec, c, r)


def test_without_fencing_the_zombie_installs_a_second_leader():
    spec, c, r = run(("OneLeaderPerPartition",), ControllerEpochFencing="false")
    v = r.violations[0]
    assert labels(v) == ZOMBIE_STORY
    last = v.trace[-1].state
    leaders = [b for b, broker in enumerate(last.brokers) if broker.alive and broker.leader == b]
    assert leaders == [0, 2] and last.brokers[0].leader_epoch == last.brokers[2].leader_epoch == 1
    assert len(v.trace) == naive_shortest(spec, c, "OneLeaderPerPartition")


def test_the_same_schedule_with_fencing_stops_the_zombie_at_its_write():
    """Replayed with fencing: /controller_epoch is 2 when the zombie (epoch 1) comes to write, so it
    cannot elect; it aborts and resigns, and only the new controller's leader is ever installed."""
    spec = load_spec(SPEC)
    c = constants(spec, ControllerEpochFencing="true")
    states = replay(spec, c, ZOMBIE_STORY[:4])
    before = states[-1]
    assert before.brokers[0].pending and before.zk_controller_epoch == 2
    assert replay(spec, c, ZOMBIE_STORY[:5])[-1] is None  # the zombie's elect_leader is disabled
    after = spec.action_named("abort_election").fn(c, before, 0)
    assert after.brokers[0].controller_epoch == 0 and after.zk_partition == before.zk_partition


def test_brokers_reject_a_stale_controller_epoch_only_with_fencing():
    """StaleControllerEpoch: a broker that accepted controller epoch 2 ignores a request of epoch 1."""
    from modelcheck.specs import controller_failover as cf
    from modelcheck.specs.controller_state import LeaderAndIsr

    spec = load_spec(SPEC)
    for fencing, becomes_leader in (("true", False), ("false", True)):
        c = constants(spec, ControllerEpochFencing=fencing)
        s = next(iter(spec.init(c)))
        b3 = s.brokers[2]._replace(seen_controller_epoch=2)
        s = cf.set_broker(s, 2, b3)._replace(requests=frozenset({LeaderAndIsr(0, 2, 1, 2, 1, frozenset({2}))}))
        t = cf.handle_leader_and_isr(c, s, 2, 0)
        assert not t.requests
        assert (t.brokers[2].leader == 2) is becomes_leader


def test_more_failures_still_hold_with_fencing():
    """Two crashes: a controller crash and a leader crash, or both followers (then no ISR member is left)."""
    _, _, r = run(Crashes=2)
    assert r.result == "holds"


def test_no_failures_state_count_by_hand():
    """Crashes=0, SessionExpiries=0, Records=1, counted by hand: nothing needs an election, so only the
    data path moves: the initial state, b2's append, then b1 and b3 fetch in either order (b1 only,
    b3 only, both: the record is acknowledged).  5 distinct states; generated: the initial one, the
    append, two fetches from the append, one more from each single fetch = 6; depth 4."""
    _, _, r = run(Crashes=0, SessionExpiries=0, Records=1)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 5, 6, 4)


def test_cli_commands(cli):
    p = cli("check", SPEC, "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "ControllerEpochFencing=false", "-q")
    assert p.returncode == 1 and "(10 states)" in p.stdout and "zombie controller (epoch 1)" in p.stdout


def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "ControllerEpochFencing=false", "--continue", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 1
    assert json_report(a) == json_report(b)
