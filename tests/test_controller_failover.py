"""``controller-failover``: which of Kafka's checks keep one leader per epoch and acknowledged writes.

Failure detection is imperfect (any live broker's session may expire), so a
deposed leader may serve beside its successor: OneLeaderPerPartition is
violated whatever the checks, and Kafka does not promise it.  One leader per
epoch and acknowledged writes hold with the zkVersion-conditional write of
Kafka before 2.2, with or without the later fixes; only the unconditional
strawman breaks them.  Each fix shows what it does on the fences' own
promises (the last part of this file): without the multi-op a zombie's write
stands in ZooKeeper and, with the brokers' check, ZooKeeper names a leader
that refuses to lead; without the brokers' check (and the multi-op) a broker
acts on a zombie's request.

Verdicts and trace labels are asserted as the story goes; the lengths of the
shortest traces are confirmed by a plain BFS over full states
(``naive_shortest``), and the state counts of the checks that hold by the
naive explorer, both in ``tests/naive.py`` (for a step property, ``naive_shortest`` over pairs of states).
"""

from __future__ import annotations

import pytest

import modelcheck
from conftest import json_report
from naive import naive_shortest
from story_checks import INTERPRETED_ENV, assert_counts_match_naive, constants, labels, load_spec, run_spec

from modelcheck.specs.controller_state import NONE

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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_cli_commands(cli):
    p = cli("check", SPEC, "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "PartitionWrite=unconditional", "-q")
    assert p.returncode == 1 and "(10 states)" in p.stdout and "zombie controller (epoch 1)" in p.stdout


@pytest.mark.slow
def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "PartitionWrite=unconditional", "--continue", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 1
    assert json_report(a) == json_report(b)


# -- each fence against a zombie controller, and the property it keeps -----------------------------------------
#
# OneLeaderPerEpoch and AckedWritesSurvive hold with the zkVersion write alone, so they cannot show that either
# fix matters.  What the fixes promise is about the zombie: ZooKeeper refuses its writes (the multi-op:
# ZombieWritesRefused, a step property), the brokers ignore its requests (StaleControllerEpoch:
# ZombieRequestsRejected, a step property), and the brokers do what the controller's metadata says
# (BrokersFollowZooKeeper, an invariant).  Each fix's mutant is a constant: PartitionWrite=zk-version removes
# the multi-op (Kafka before 2.2), StaleControllerEpochCheck=false the brokers' check.

SMALLEST = dict(Brokers=2, Crashes=0, SessionExpiries=2, Records=0)
"""The smallest configuration in which removing a fix breaks one of them: with one expiry, or with Crashes=0 and
three brokers, everything holds; the next smallest (Brokers=3, Crashes=1, SessionExpiries=1, Records=0) has
2,674 states against 221."""

FENCE_PROPERTIES = ("ZombieWritesRefused", "ZombieRequestsRejected")
FENCE_CHECKS = ("OneLeaderPerEpoch", "AckedWritesSurvive", "BrokersFollowZooKeeper")

ZOMBIE_WRITE_STORY = [
    "expire_session(broker=b2)",  # the leader's session expires: controller b1 takes b2 for dead
    "expire_session(broker=b1)",  # and b1's: /controller is gone, b1 is a zombie
    "elect_controller(broker=b2)",  # b2, registered again, wins /controller in epoch 2 and counts b1 and b2 live
    "read_partition_state(controller=controller b1)",  # the zombie reads: its leader b2 is dead by its view
    "elect_leader(controller=controller b1, leader=leader b1)",  # zkVersion as read: b1, ISR {b1}, e1 is written
]

STALE_REQUEST_STORY = ZOMBIE_WRITE_STORY + [
    "handle_leader_and_isr(broker=b1, sender=from b2)",  # b1 hears from controller epoch 2 (b2 leads e0: stale)
    "handle_leader_and_isr(broker=b1, sender=from b1)",  # then the zombie's request, controller epoch 1: leader e1
]

ZK_LEADER_REFUSES_STORY = STALE_REQUEST_STORY[:-1] + [
    "handle_leader_and_isr(broker=b1, sender=from b1)",  # StaleControllerEpoch: b1 refuses to lead e1
    "handle_leader_and_isr(broker=b2, sender=from b2)",  # b2 still leads e0; ZooKeeper names b1, nobody has work
]


def run_fences(names=FENCE_CHECKS + FENCE_PROPERTIES, **values):
    """Check the invariants and step properties among ``names``; returns (spec, constants, result)."""
    spec = load_spec(SPEC)
    invariants = [n for n in names if n not in FENCE_PROPERTIES]
    properties = [n for n in names if n in FENCE_PROPERTIES]
    r = modelcheck.check(spec, values, invariants=invariants, properties=properties)
    return spec, constants(spec, **values), r


class _Steps:
    """A spec's behaviours as pairs (previous state, state), for ``naive_shortest``: a step property of the
    spec is an invariant of the pairs, and the pair ending a shortest violating step is found at that step's
    length (a pair's BFS depth is its second state's)."""

    class _Step:
        def __init__(self, spec):
            self.spec = spec

        def bindings(self, c):
            return [()]

        def fn(self, c, pair):
            s = pair[1]
            out = []
            for act in self.spec.actions:
                for b in act.bindings(c):
                    r = act.fn(c, s, *b)
                    out.extend([] if r is None else (r if isinstance(r, list) else [r]))
            return [(s, t) for t in out]

    class _Invariant:
        def __init__(self, fn):
            self.fn = fn

    def __init__(self, spec, name):
        self.spec = spec
        self.actions = [self._Step(spec)]
        prop = [p for p in spec.properties if p.name == name][0]
        self._inv = self._Invariant(lambda c, pair: pair[0] is None or prop.fn(c, pair[0], pair[1]))

    def init(self, c):
        return [(None, s) for s in self.spec.init(c)]

    def invariant(self, name):
        return self._inv


def naive_step_shortest(spec, c, name):
    """States on a shortest behaviour whose last step violates step property ``name`` (0 if none), by
    ``naive_shortest`` over pairs of states."""
    return naive_shortest(_Steps(spec, name), c, "pairs")


def reachable(spec, c):
    """Every reachable state, by a plain BFS."""
    seen = set(spec.init(c))
    todo = list(seen)
    while todo:
        s = todo.pop()
        for act in spec.actions:
            for b in act.bindings(c):
                r = act.fn(c, s, *b)
                for t in [] if r is None else (r if isinstance(r, list) else [r]):
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
    return seen


def refused_writes(c, states):
    """How many reachable states have a controller whose write ZooKeeper refuses, by reason."""
    from modelcheck.specs.controller_failover import write_refusal

    out = {"controller-epoch": 0, "zk-version": 0}
    for s in states:
        for b, x in enumerate(s.brokers):
            why = x.alive and x.pending and write_refusal(c, s, b)
            if why:
                out[why] += 1
    return out


def requests_only_the_check_stops(states):
    """Reachable states with a LeaderAndIsr in flight that only StaleControllerEpoch stops: from an older
    controller than its broker has seen, with a newer leader epoch than the broker's."""
    return sum(1 for s in states if any(
        s.brokers[r.dest].alive and r.controller_epoch < s.brokers[r.dest].seen_controller_epoch
        and r.leader_epoch > s.brokers[r.dest].leader_epoch for r in s.requests))


def quiet_after_failover(states):
    """Reachable states where BrokersFollowZooKeeper says something after a failover: no controller work is
    left, a second controller holds /controller, and ZooKeeper names a live leader it elected."""
    from modelcheck.invariants.controller_failover import controller_work_left

    return sum(1 for s in states if s.zk_controller_epoch > 1 and s.zk_partition.leader_epoch > 0
               and s.zk_partition.leader != NONE and s.brokers[s.zk_partition.leader].alive
               and not controller_work_left(s))


@pytest.mark.parametrize("write,check", [("controller-epoch", "true"), ("controller-epoch", "false")],
                         ids=["with-both", "multi-op-alone"])
def test_with_the_multi_op_every_fence_property_holds_at_the_smallest(write, check):
    """Not vacuous: sessions expire, a zombie holds a read that ZooKeeper then refuses on /controller_epoch, and
    the cluster comes to rest after a failover, with ZooKeeper naming a leader it elected.  The brokers' check
    changes nothing here: no request ever reaches a broker that only it would stop."""
    spec, c, r = run_fences(PartitionWrite=write, StaleControllerEpochCheck=check, **SMALLEST)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == (221, 525, 11)
    assert_counts_match_naive(spec, c, r)
    stats = {a.name: a for a in r.action_stats}  # the refused zombie resigns: a state resign_controller reaches too
    assert stats["expire_session"].distinct > 0 and stats["abort_election"].generated > 0
    assert r.sometimes_reached["ZombieHoldsARead"] and r.sometimes_reached["ControllerFailedOver"]
    states = reachable(spec, c)
    assert refused_writes(c, states)["controller-epoch"] > 0
    assert quiet_after_failover(states) > 0
    assert requests_only_the_check_stops(states) == 0


def test_without_the_multi_op_a_zombie_overwrites_the_partition_state():
    """Kafka before 2.2 (the zkVersion write, the brokers' check on): the zombie's write is accepted because
    nobody wrote since its read, although controller epoch 2 exists.  6 states; at the defaults too."""
    spec, c, r = run_fences(("ZombieWritesRefused",), PartitionWrite="zk-version", **SMALLEST)
    v = r.violations[0]
    assert (v.kind, v.name) == ("step", "ZombieWritesRefused")
    assert labels(v) == ZOMBIE_WRITE_STORY
    last = v.trace[-1].state
    assert (last.zk_partition.leader, last.zk_partition.controller_epoch, last.zk_controller_epoch) == (0, 1, 2)
    assert len(v.trace) == naive_step_shortest(spec, c, "ZombieWritesRefused") == 6
    spec, c, r = run_fences(("ZombieWritesRefused",), PartitionWrite="zk-version")
    assert len(r.violations[0].trace) == naive_step_shortest(spec, c, "ZombieWritesRefused") == 6


@pytest.mark.slow
def test_without_the_multi_op_zookeeper_names_a_leader_that_refuses_to_lead():
    """The zombie's write stands in ZooKeeper and the brokers' check makes b1 refuse it: ZooKeeper names b1 for
    leader epoch 1, b1 follows b2 in epoch 0, b2 still leads epoch 0, and the controller in office sees nothing
    to do.  9 states (11 at the defaults)."""
    spec, c, r = run_fences(("BrokersFollowZooKeeper",), PartitionWrite="zk-version", **SMALLEST)
    v = r.violations[0]
    assert labels(v) == ZK_LEADER_REFUSES_STORY
    last = v.trace[-1].state
    assert last.zk_partition.leader == 0 and last.brokers[0].leader == 1 and last.brokers[1].leader == 1
    assert len(v.trace) == naive_shortest(spec, c, "BrokersFollowZooKeeper") == 9
    spec, c, r = run_fences(("BrokersFollowZooKeeper",), PartitionWrite="zk-version")
    assert len(r.violations[0].trace) == naive_shortest(spec, c, "BrokersFollowZooKeeper") == 11


@pytest.mark.slow
def test_without_the_brokers_check_a_zombies_request_is_applied():
    """With the multi-op removed too, StaleControllerEpoch is what keeps a zombie's request from a broker that
    heard from controller epoch 2: without it b1 leads epoch 1 on the zombie's word.  8 states; at the defaults
    too."""
    spec, c, r = run_fences(("ZombieRequestsRejected",), PartitionWrite="zk-version", StaleControllerEpochCheck="false",
                            **SMALLEST)
    v = r.violations[0]
    assert labels(v) == STALE_REQUEST_STORY
    b1 = v.trace[-1].state.brokers[0]
    assert (b1.leader, b1.leader_epoch, b1.seen_controller_epoch) == (0, 1, 2)
    assert len(v.trace) == naive_step_shortest(spec, c, "ZombieRequestsRejected") == 8
    spec, c, r = run_fences(("ZombieRequestsRejected",), PartitionWrite="zk-version", StaleControllerEpochCheck="false")
    assert len(r.violations[0].trace) == naive_step_shortest(spec, c, "ZombieRequestsRejected") == 8


def test_with_the_brokers_check_a_zombies_request_changes_nothing():
    """The brokers' check on, the multi-op off: ZombieRequestsRejected holds (241 states), and not vacuously: a
    request that only StaleControllerEpoch stops does reach a broker."""
    spec, c, r = run_fences(("ZombieRequestsRejected",), PartitionWrite="zk-version", **SMALLEST)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == (241, 561, 11)
    assert_counts_match_naive(spec, c, r)
    states = reachable(spec, c)
    assert requests_only_the_check_stops(states) > 0


def test_without_the_multi_op_the_brokers_check_keeps_one_promise_and_breaks_the_other():
    """Before Kafka 2.2 neither choice of the brokers' check keeps both: with it, b1 refuses the zombie's state
    that ZooKeeper holds (BrokersFollowZooKeeper violated above); without it the brokers follow ZooKeeper,
    zombie's write and all (BrokersFollowZooKeeper holds, 237 states), but act on the zombie's request."""
    spec, c, r = run_fences(("BrokersFollowZooKeeper",), PartitionWrite="zk-version", StaleControllerEpochCheck="false",
                            **SMALLEST)
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == (237, 557, 11)
    assert_counts_match_naive(spec, c, r)
    assert quiet_after_failover(reachable(spec, c)) > 0


@pytest.mark.slow
def test_with_the_multi_op_every_fence_property_holds_at_the_defaults():
    """The defaults (Kafka 2.2): the three invariants and both step properties hold, 14,704 states as before;
    a zombie's read is refused on /controller_epoch and the cluster comes to rest after a failover."""
    spec, c, r = run_fences()
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == COUNTS[("controller-epoch", "true")]
    assert_counts_match_naive(spec, c, r)
    states = reachable(spec, c)
    assert refused_writes(c, states)["controller-epoch"] > 0 and quiet_after_failover(states) > 0
    assert requests_only_the_check_stops(states) == 0


@pytest.mark.slow
def test_without_the_multi_op_the_brokers_check_holds_its_promise_at_the_defaults():
    """Kafka before 2.2 at the defaults: ZombieRequestsRejected holds with the brokers' check, 18,748 states (the
    naive explorer's count is asserted by the zk-version test above); zkVersion writes are refused too."""
    spec, c, r = run_fences(("ZombieRequestsRejected",), PartitionWrite="zk-version")
    assert r.result == "holds"
    assert (r.distinct_states, r.states_generated, r.depth) == COUNTS[("zk-version", "true")]
    states = reachable(spec, c)
    assert requests_only_the_check_stops(states) > 0 and refused_writes(c, states)["zk-version"] > 0


def test_brokers_follow_zookeeper_explains_itself():
    """The witness names the leader ZooKeeper names, what it acts as, and the controller epoch it has seen."""
    spec, c, r = run_fences(("BrokersFollowZooKeeper",), PartitionWrite="zk-version", **SMALLEST)
    last = r.violations[0].trace[-1].state
    w = spec.invariant("BrokersFollowZooKeeper").witness(c, last)
    assert w.sentence == ("ZooKeeper names b1 leader in leader epoch 1 (written under controller epoch 1, by a "
                          "controller older than /controller_epoch 2), but b1 is following b2 in leader epoch 0, "
                          "having seen controller epoch 2; no controller has anything left to do")
