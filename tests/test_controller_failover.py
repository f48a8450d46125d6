"""``controller-failover``: which of Kafka's checks keep one leader per epoch and acknowledged writes.

Failure detection is imperfect (any live broker's session may expire), so a
deposed leader may serve beside its successor: OneLeaderPerPartition is
violated whatever the checks, and Kafka does not promise it.  The promised
properties hold with the zkVersion-conditional write of Kafka before 2.2,
with or without the later fixes; only the unconditional strawman breaks them.

Verdicts and trace labels are asserted as the story goes; the lengths of the
shortest traces are confirmed by a plain BFS over full states
(``naive_shortest``), and the state counts of the checks that hold by the
naive explorer, both in ``tests/naive.py``.
"""

from __future__ import annotations

import pytest

from conftest import json_report
from naive import naive_shortest
from story_checks import INTERPRETED_ENV, assert_counts_match_naive, constants, labels, load_spec, run_spec

SPEC = "controller-failover"
PROMISED = ("OneLeaderPerEpoch", "AckedWritesSurvive")


def run(invariants=PROMISED, **values):
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
    "expire_session(broker=b1)",  # /controller is gone, b1 has not noticed: a zombie
    "elect_controller(broker=b3)",  # controller epoch 2; it reads the partition state: leader b2 is dead
    "read_partition_state(controller=controller b1)",  # the zombie reads it too (step 3.1)
    "elect_leader(controller=controller b1, leader=leader b1)",  # the zombie writes b1, leader epoch 1, and sends LeaderAndIsr
    "elect_leader(controller=controller b3, leader=leader b3)",  # the new controller writes b3, leader epoch 1 as well
    "handle_leader_and_isr(broker=b1, sender=from b1)",  # b1 takes the zombie's request: leader in epoch 1
    "handle_leader_and_isr(broker=b3, sender=from b3)",  # b3 takes the new controller's failover LeaderAndIsr (stale epoch 0)
    "handle_leader_and_isr(broker=b3, sender=from b3)",  # and its election: leader in epoch 1
]

ACK_LOSS_STORY = [
    "crash(broker=b2)",  # the leader dies
    "expire_session(broker=b3)",  # controller b1 takes b3 for dead: its view of the live brokers is {b1}
    "expire_session(broker=b1)",  # and b1 becomes a zombie
    "elect_controller(broker=b3)",  # b3, registered again, wins /controller in epoch 2
    "read_partition_state(controller=controller b1)",
    "elect_leader(controller=controller b1, leader=leader b1)",  # the zombie writes b1, ISR {b1}, leader epoch 1
    "elect_leader(controller=controller b3, leader=leader b3)",  # b3 overwrites it: b3, ISR {b1, b3}, epoch 1
    "handle_leader_and_isr(broker=b1, sender=from b1)",  # b1 leads with ISR {b1}
    "produce(broker=b1)",  # and acknowledges record 0 alone; ZooKeeper names b3, which never had it
]

DEPOSED_LEADER_STORY = [
    "expire_session(broker=b2)",  # the leader's session expires; it has not noticed and goes on leading
    "read_partition_state(controller=controller b1)",  # the controller handles it as failed
    "elect_leader(controller=controller b1, leader=leader b1)",
    "handle_leader_and_isr(broker=b1, sender=from b1)",  # b1 leads epoch 1 while b2 still leads epoch 0
]

PROTOCOLS = [("controller-epoch", "true"), ("controller-epoch", "false"), ("zk-version", "true"),
             ("zk-version", "false")]
"""Kafka 2.2 on (default), without the broker-side check, Kafka before 2.2, and that without the check."""

COUNTS = {("controller-epoch", "true"): (14704, 43897, 17), ("controller-epoch", "false"): (14704, 43897, 17),
          ("zk-version", "true"): (18748, 57383, 17), ("zk-version", "false"): (17648, 54787, 17)}

ACTIONS_THAT_MUST_FIRE = ("crash", "expire_session", "resign_controller", "elect_controller",
                          "read_partition_state", "elect_leader", "handle_leader_and_isr", "produce",
                          "follower_fetch")


@pytest.mark.parametrize("write,check", PROTOCOLS, ids=[f"{w}-{c}" for w, c in PROTOCOLS])
def test_what_kafka_promises_holds_with_the_zk_version_write(write, check):
    """Not vacuous: every action leads somewhere new, a refused write happens, a deposed leader serves beside
    its successor, and a zombie controller holds a read while a newer controller exists."""
    spec, c, r = run(PartitionWrite=write, StaleControllerEpochCheck=check)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == COUNTS[(write, check)]
    assert all(r.sometimes_reached.values()) and set(r.sometimes_reached) == {
        "ControllerFailedOver", "NewLeaderServes", "SomethingAcked", "DeposedLeaderServes", "ZombieHoldsARead"}
    stats = {a.name: a for a in r.action_stats}
    assert all(stats[name].distinct > 0 for name in ACTIONS_THAT_MUST_FIRE)
    assert stats["abort_election"].generated > 0
    if write == "zk-version":  # a write refused on the zkVersion alone sends the controller back to read
        assert stats["abort_election"].distinct > 0
    assert_counts_match_naive(spec, c, r)


def test_the_brokers_check_changes_nothing_once_zookeeper_checks_the_controller_epoch():
    """Every LeaderAndIsr then carries a state ZooKeeper accepted, in increasing leader epochs: the brokers'
    leader-epoch check already drops what StaleControllerEpoch would."""
    assert COUNTS[("controller-epoch", "true")] == COUNTS[("controller-epoch", "false")]


def test_one_leader_per_partition_is_not_promised():
    """A deposed leader serves beside its successor with every check in place: 5 states."""
    spec, c, r = run(("OneLeaderPerPartition",))
    v = r.violations[0]
    assert labels(v) == DEPOSED_LEADER_STORY
    assert len(v.trace) == naive_shortest(spec, c, "OneLeaderPerPartition") == 5


@pytest.mark.parametrize("check", ["true", "false"])
def test_unconditional_writes_install_two_leaders_in_one_epoch(check):
    """The zkVersion guard removed: the zombie's election and the new controller's both install leader epoch 1.
    The brokers' StaleControllerEpoch check does not help: b1 takes the zombie's request before it has seen
    controller epoch 2."""
    spec, c, r = run(("OneLeaderPerEpoch",), PartitionWrite="unconditional", StaleControllerEpochCheck=check)
    v = r.violations[0]
    assert labels(v) == ZOMBIE_STORY
    last = v.trace[-1].state
    leaders = [b for b, broker in enumerate(last.brokers) if broker.alive and broker.leader == b]
    assert leaders == [0, 2] and last.brokers[0].leader_epoch == last.brokers[2].leader_epoch == 1
    assert len(v.trace) == naive_shortest(spec, c, "OneLeaderPerEpoch") == 10


def test_unconditional_writes_lose_an_acknowledged_record():
    """The zkVersion guard removed, two session expiries: the zombie, which took b3 for dead, writes ISR {b1};
    the new controller overwrites the state with b3; b1 still leads with ISR {b1} and acknowledges alone."""
    spec, c, r = run(("AckedWritesSurvive",), PartitionWrite="unconditional", SessionExpiries=2, Records=2)
    v = r.violations[0]
    assert labels(v) == ACK_LOSS_STORY
    assert len(v.trace) == naive_shortest(spec, c, "AckedWritesSurvive") == 10


def test_without_the_zk_version_write_acked_writes_still_survive_at_the_defaults():
    """At the defaults AckedWritesSurvive needs the second expiry above: with one, it holds unguarded."""
    _, _, r = run(("AckedWritesSurvive",), PartitionWrite="unconditional")
    assert r.result == "holds"


@pytest.mark.parametrize("check", ["true", "false"])
def test_the_controller_epoch_fix_removed_still_holds_with_more_failures(check):
    """The mutant without the multi-op's controller-epoch check (Kafka before 2.2): the zkVersion guard and the
    abort on a state written by a newer controller keep both promises with two crashes and two records too."""
    _, _, r = run(PartitionWrite="zk-version", StaleControllerEpochCheck=check, Crashes=2, Records=2)
    assert r.result == "holds"


def test_the_zombie_is_stopped_at_its_write_by_the_controller_epoch():
    """The zombie story under the fix: /controller_epoch is 2 when the zombie (epoch 1) comes to write, so its
    write is refused; it resigns, and only the new controller's leader is ever installed."""
    spec = load_spec(SPEC)
    c = constants(spec)
    before = replay(spec, c, ZOMBIE_STORY[:4])[-1]
    assert before.brokers[0].pending and before.zk_controller_epoch == 2
    assert replay(spec, c, ZOMBIE_STORY[:5])[-1] is None  # the zombie's elect_leader is disabled
    after = spec.action_named("abort_election").fn(c, before, 0)
    assert after.brokers[0].controller_epoch == 0 and after.zk_partition == before.zk_partition


def test_before_the_fix_the_new_controller_reads_again_and_elects_a_newer_epoch():
    """Kafka before 2.2: the zombie's write goes through (the znode is as it read it), the new controller's is
    refused on the zkVersion; it reads b1 leading epoch 1 (written under controller epoch 1, older than its
    own), and as b1 is live, nothing is left to elect."""
    spec = load_spec(SPEC)
    c = constants(spec, PartitionWrite="zk-version")
    s = replay(spec, c, ZOMBIE_STORY[:5])[-1]
    assert (s.zk_partition.leader, s.zk_partition.leader_epoch, s.zk_partition.controller_epoch) == (0, 1, 1)
    assert replay(spec, c, ZOMBIE_STORY[:6])[-1] is None  # the new controller's write is refused
    t = spec.action_named("abort_election").fn(c, s, 2)
    assert t.brokers[2].pending == () and t.brokers[2].controller_epoch == 2


def test_brokers_reject_a_stale_controller_epoch_only_with_the_check():
    """StaleControllerEpoch: a broker that accepted controller epoch 2 ignores a request of epoch 1."""
    from modelcheck.specs import controller_failover as cf
    from modelcheck.specs.controller_state import LeaderAndIsr

    spec = load_spec(SPEC)
    for check, becomes_leader in (("true", False), ("false", True)):
        c = constants(spec, StaleControllerEpochCheck=check)
        s = next(iter(spec.init(c)))
        b3 = s.brokers[2]._replace(seen_controller_epoch=2)
        s = cf.set_broker(s, 2, b3)._replace(requests=frozenset({LeaderAndIsr(0, 2, 1, 2, 1, frozenset({2}))}))
        t = cf.handle_leader_and_isr(c, s, 2, 0)
        assert not t.requests
        assert (t.brokers[2].leader == 2) is becomes_leader


def test_read_partition_state_counts_each_reason_for_an_election():
    """TLC's count: the leader b2 crashed and was in the ISR, so both disjuncts of NeedsElection hold and the
    read is generated twice (the same state)."""
    spec = load_spec(SPEC)
    c = constants(spec)
    s = replay(spec, c, ["crash(broker=b2)"])[-1]
    got = spec.action_named("read_partition_state").fn(c, s, 0)
    assert isinstance(got, list) and len(got) == 2 and got[0] == got[1]


def test_more_failures_still_hold():
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
    p = cli("check", SPEC, "--const", "PartitionWrite=unconditional", "-q")
    assert p.returncode == 1 and "(10 states)" in p.stdout and "zombie controller (epoch 1)" in p.stdout


def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "PartitionWrite=unconditional", "--continue", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 1
    assert json_report(a) == json_report(b)
