"""The seeds' failure stories (docs/stories.md) checked as the seed notes on Kafka internals tell them.

Every expected result is asserted by behaviour: which invariant
fails, the labels of the shortest trace, and what the last state holds.  The
trace lengths are confirmed by a naive breadth-first search written here (no
fingerprints, no parent table), and state counts of the checks that hold by
the naive explorer in ``tests/naive.py``.
"""

from __future__ import annotations

from collections import deque

import pytest

from modelcheck.spec.constants import build_constants
from conftest import check
from modelcheck.spec.loader import load_spec
from modelcheck.options import CheckOptions
from naive import naive_explore

ALL_INVARIANTS = ("AckedRecordsSurvive", "NoDivergenceBelowHw", "ConsumerVisibleStable", "HwNotAboveLeo",
                  "OneLeaderPerEpoch")
FIXED = dict(IsrJoin="epoch-start")
"""The KAFKA-7128 ISR-join rule, without which even KIP-279 loses acknowledged data (see test_kafka_7128)."""


def run(invariants=ALL_INVARIANTS, **values):
    spec = load_spec("broker-failures")
    consts = build_constants(spec, tuple((k, str(v)) for k, v in values.items()))
    return spec, consts, check(spec, consts, CheckOptions(invariants=tuple(invariants)))


def labels(violation) -> list[str]:
    return [step.action for step in violation.trace[1:]]


def naive_shortest(spec, consts, invariant: str) -> int:
    """Number of states on a shortest path to a state violating ``invariant``, by a plain BFS over full states."""
    pred = spec.invariant(invariant).fn
    depth = {}
    queue = deque()
    for s in spec.init(consts):
        depth[s] = 1
        queue.append(s)
    while queue:
        s = queue.popleft()
        if not pred(consts, s):
            return depth[s]
        for act in spec.actions:
            for binding in act.bindings(consts):
                r = act.fn(consts, s, *binding)
                for t in [] if r is None else (r if isinstance(r, list) else [r]):
                    if t not in depth:
                        depth[t] = depth[s] + 1
                        queue.append(t)
    return 0


def test_the_hw_needs_a_second_fetch_round():
    """The seeds' worked example (leo-hw-update-example), table by table, by calling the actions directly."""
    from modelcheck.specs import broker_failures as bf

    spec = load_spec("broker-failures")
    c = build_constants(spec, ())
    s = next(iter(spec.init(c)))
    s = bf.produce(c, s, 2)
    leader, follower = s.replicas
    assert (len(leader.log), s.remote_leo[1], leader.hw, len(follower.log), follower.hw) == (1, 0, 0, 0, 0)
    s = bf.follower_append(c, bf.follower_fetch(c, s, 1), 1)  # first round: the record moves, no HW does
    leader, follower = s.replicas
    assert (len(leader.log), s.remote_leo[1], leader.hw, len(follower.log), follower.hw) == (1, 0, 0, 1, 0)
    s = bf.follower_fetch(c, s, 1)  # second round, leader side: remote LEO 1, HW 1
    assert (s.remote_leo[1], s.replicas[0].hw, s.replicas[1].hw) == (1, 1, 0)
    s = bf.follower_append(c, s, 1)  # ... and the follower takes min(LEO 1, leader HW 1)
    assert (s.replicas[0].hw, s.replicas[1].hw) == (1, 1)
    assert bf.follower_fetch(c, s, 1) is None  # nothing left to learn: no third round


def test_1_hw_data_loss():
    """Truncation to HW, min.insync.replicas=1, acks=all: the leader's HW passed the record but the
    follower's did not yet; the follower restarts and truncates to its HW, the leader crashes, the
    follower is elected, and the acknowledged record is gone."""
    spec, c, r = run(("AckedRecordsSurvive",), Truncation="hw", Acks="all", MinInsyncReplicas=1)
    v = r.violations[0]
    assert v.name == "AckedRecordsSurvive"
    assert labels(v) == [
        "produce(acks=all)",
        "follower_fetch(follower=r2)",
        "follower_append(follower=r2)",  # the follower has the record, its HW stays 0
        "follower_fetch(follower=r2)",  # the leader's HW reaches 1: the record is acknowledged
        "crash(replica=r2)",  # before the response (carrying HW 1) arrives
        "restart_truncate_to_hw(replica=r2)",  # the checkpointed HW is 0: the record is truncated away
        "crash(replica=r1)",
        "elect_leader(replica=r2)",  # clean: r2 never left the ISR
    ]
    last = v.trace[-1].state
    assert last.replicas[1].log == () and last.acked == {0}
    assert len(v.trace) == naive_shortest(spec, c, "AckedRecordsSurvive")


def test_2_log_divergence():
    """Truncation to HW: the old leader comes back with HW = LEO and keeps a record that differs from
    the new leader's at the same offset."""
    spec, c, r = run(("NoDivergenceBelowHw",), Truncation="hw")
    v = r.violations[0]
    names = labels(v)
    assert names[:8] == labels(run(("AckedRecordsSurvive",), Truncation="hw")[2].violations[0])[:4] + [
        "checkpoint_hw(replica=r1)", "crash(replica=r2)", "restart_truncate_to_hw(replica=r2)", "crash(replica=r1)"]
    assert names[-1] == "produce(acks=all)" and "elect_leader(replica=r2)" in names
    old, new = v.trace[-1].state.replicas
    assert old.alive and old.hw == old.checkpoint_hw == len(old.log) == 1  # HW = LEO: nothing to truncate
    assert old.log[0] != new.log[0] and new.hw >= 1
    assert len(v.trace) == naive_shortest(spec, c, "NoDivergenceBelowHw")
    # When the old leader now follows the new one, truncating to its HW removes nothing.
    from modelcheck.specs.broker_failures import become_follower_truncate_to_hw

    after = become_follower_truncate_to_hw(c, v.trace[-1].state, 0)
    assert after.replicas[0].log == old.log
    assert not spec.invariant("NoDivergenceBelowHw").fn(c, after)


def test_3_kip101_holds_with_two_replicas():
    _, c, r = run(Truncation="leader-epoch", **FIXED)
    assert r.result == "holds"
    assert r.sometimes_reached == {"SomethingCommitted": True, "LeaderChanged": True}
    naive = naive_explore(load_spec("broker-failures"), c)
    assert (r.distinct_states, r.states_generated, r.depth) == (naive["distinct"], naive["generated"], naive["depth"])


def test_3_kip101_diverges_after_fast_leader_changes_with_three_replicas():
    """r2 is elected after r3 led the short epoch 1 but before r2 followed it; r3 restarts, asks r2 where
    epoch 1 ends, is told where r2's epoch 2 starts, keeps its epoch-1 record and fetches over it."""
    _, c, r = run(("NoDivergenceBelowHw",), Truncation="leader-epoch", Replicas=3, Records=3, **FIXED)
    v = r.violations[0]
    assert labels(v) == [
        "produce(acks=all)",
        "follower_fetch(follower=r2)",
        "follower_append(follower=r2)",
        "crash(replica=r1)",
        "elect_leader(replica=r3)",
        "produce(acks=all)",  # epoch 1: a record only r3 holds
        "crash(replica=r3)",
        "elect_leader(replica=r2)",  # fast: r2 never followed epoch 1
        "produce(acks=all)",  # epoch 2 starts at offset 1
        "restart_truncate_by_epoch(replica=r3)",  # end of epoch 1 "is" offset 1: no truncation
        "follower_fetch(follower=r3)",
        "follower_append(follower=r3)",
    ]
    last = v.trace[-1].state
    assert last.replicas[1].log[0] != last.replicas[2].log[0]


def test_3_the_same_schedule_does_not_diverge_under_kip279():
    """Replaying the KIP-101 trace's schedule with KIP-279 truncation: r3 walks back and drops its record."""
    spec, c101, r = run(("NoDivergenceBelowHw",), Truncation="leader-epoch", Replicas=3, Records=3, **FIXED)
    c279 = build_constants(spec, (("Truncation", "kip279"), ("Replicas", "3"), ("Records", "3"),
                                  ("IsrJoin", "epoch-start")))
    s = next(iter(spec.init(c279)))
    for step in r.violations[0].trace[1:]:
        act = spec.action_named(step.action_name)
        binding = [v for v in act.bindings(c279) if act.label(v) == step.action][0]
        s = act.fn(c279, s, *binding)
        assert spec.invariant("NoDivergenceBelowHw").fn(c279, s)
    assert s.replicas[2].log == s.replicas[1].log


@pytest.mark.slow
def test_3_kip279_holds_with_three_replicas():
    _, _, r = run(Truncation="kip279", Replicas=3, **FIXED)
    assert r.result == "holds"


def test_4_unclean_election_loses_acked_data_and_clean_election_does_not():
    spec, c, r = run(("AckedRecordsSurvive",), Truncation="kip279", UncleanElection="true", **FIXED)
    v = r.violations[0]
    assert labels(v) == ["produce(acks=all)", "shrink_isr(follower=r2)", "crash(replica=r1)", "elect_leader_unclean(replica=r2)"]
    assert len(v.trace) == naive_shortest(spec, c, "AckedRecordsSurvive")
    _, _, r = run(Truncation="kip279", UncleanElection="false", **FIXED)
    assert r.result == "holds"


def test_5_acks_1_loses_a_record_the_leader_acknowledged():
    spec, c, r = run(("AckedRecordsSurvive",), Truncation="kip279", Acks="1", **FIXED)
    v = r.violations[0]
    assert labels(v) == ["produce(acks=1)", "crash(replica=r1)", "elect_leader(replica=r2)"]
    assert len(v.trace) == naive_shortest(spec, c, "AckedRecordsSurvive")
    _, _, r = run(("AckedRecordsSurvive",), Truncation="kip279", Acks="all", **FIXED)
    assert r.result == "holds"


def test_kafka_7128_stale_hw_lets_an_empty_follower_rejoin_the_isr():
    """With the seeds' ISR-join rule (LEO >= leader HW), a leader restarted with a stale checkpointed HW
    readmits an empty follower; the follower is then elected and the acknowledged record is lost,
    whatever the truncation rule.  Kafka 2.1 (KAFKA-7128) also requires the leader's epoch start offset."""
    for mode in ("leader-epoch", "kip279"):
        _, _, r = run(("AckedRecordsSurvive",), Truncation=mode, IsrJoin="hw")
        assert labels(r.violations[0]) == [
            "produce(acks=all)", "shrink_isr(follower=r2)", "crash(replica=r1)", "restart_without_leader(replica=r1)", "elect_leader(replica=r1)",
            "become_follower_truncate_by_epoch(replica=r2)", "follower_fetch(follower=r2)", "crash(replica=r1)", "elect_leader(replica=r2)"]


def test_min_insync_replicas_2_prevents_the_unclean_loss():
    """acks=all writes are refused, or not acknowledged, while the ISR is a lone leader."""
    _, _, r = run(("AckedRecordsSurvive",), Truncation="kip279", UncleanElection="true", MinInsyncReplicas=2,
                  **FIXED)
    assert r.result == "holds"


def test_acks_0_promises_nothing():
    _, _, r = run(("AckedRecordsSurvive",), Truncation="hw", Acks="0")
    assert r.result == "holds"


@pytest.mark.parametrize("values", [dict(Truncation="hw", Records=1), dict(Truncation="leader-epoch", Crashes=1),
                                    dict(Truncation="kip279", UncleanElection="true", Records=1, Acks="1")])
def test_counts_agree_with_a_naive_explorer(values):
    spec, c, r = run((), **values)
    naive = naive_explore(spec, c)
    assert (r.distinct_states, r.states_generated, r.depth) == (naive["distinct"], naive["generated"], naive["depth"])


def test_symmetry_keeps_the_verdicts():
    """Brokers are interchangeable: --symmetry finds the same shortest story and the same verdict."""
    spec = load_spec("broker-failures")
    c = build_constants(spec, (("Truncation", "hw"),))
    plain = check(spec, c, CheckOptions(invariants=("AckedRecordsSurvive",)))
    sym = check(spec, c, CheckOptions(invariants=("AckedRecordsSurvive",), symmetry=True))
    assert len(sym.violations[0].trace) == len(plain.violations[0].trace)
    c = build_constants(spec, (("Truncation", "kip279"), ("IsrJoin", "epoch-start")))
    full = check(spec, c, CheckOptions())
    reduced = check(spec, c, CheckOptions(symmetry=True))
    assert full.result == reduced.result == "holds" and reduced.distinct_states <= full.distinct_states


@pytest.mark.slow
def test_cli_story_commands(cli):
    p = cli("check", "broker-failures", "--invariant", "AckedRecordsSurvive", "-q")
    assert p.returncode == 1
    assert "State 7: <restart_truncate_to_hw(replica=r2)>" in p.stdout and "State 9: <elect_leader(replica=r2)>" in p.stdout
    p = cli("check", "broker-failures", "--const", "Truncation=kip279", "--const", "IsrJoin=epoch-start", "-q")
    assert p.returncode == 0
