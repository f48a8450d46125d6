"""Invariants that explain themselves: the sentence names the record, the offset and the replica at fault.

Every known trace (the published models' failures and the seeds' stories)
is checked against the exact sentence a reader gets, and every culprit must
name a cell that exists in the violating state.  The invariants that the
models never violate are explained on states built by hand.
"""

from __future__ import annotations

import json

import attrs
import pytest

from conftest import run_cli
from modelcheck import Spec, action, constant, invariant
from modelcheck.spec.constants import build_constants
from modelcheck.counterexamples.known import KNOWN
from modelcheck.counterexamples.lanes import max_log_length
from modelcheck.counterexamples.regenerate import known_document
from modelcheck.counterexamples.text import flatten
from conftest import check
from modelcheck.errors import SpecDefinitionError
from modelcheck.spec.loader import load_spec
from modelcheck.options import CheckOptions
from modelcheck.spec import Witness, culprit
from modelcheck.specs.replicated_log import Record

EXPECTED = {
    "hw-data-loss": "record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is in the quorum "
                    "ISR {r1, r3}",
    "kip101-fast-leader-changes": "record 0@e2 at offset 0 is below leader r1's HW 1 but missing on r3, which is "
                                  "in the quorum ISR {r1, r3}",
    "kip279-three-replicas": "record 0@e2 at offset 0 is below leader r1's HW 1 but missing on r3, which is in "
                             "the quorum ISR {r1, r3}",
    "kip320-first-try": "record 0@e2 at offset 0 is below leader r1's HW 1 but missing on r3, which is in the "
                        "quorum ISR {r1, r3}",
    "seeds-1-hw-data-loss": "acknowledged record 0@e0 at offset 0 is missing on leader r2; its log ends at "
                            "offset 0, and only r1 (crashed) still holds it",
    "seeds-2-log-divergence": "record 1@e1 at offset 0 on leader r2 (HW 1) is missing on r1, which holds 0@e0 "
                              "there, below its own HW 1",
    "seeds-3-kip101-fast-leader-changes": "record 0@e0 at offset 0 on leader r2 (HW 2) is missing on r3, which "
                                          "holds 1@e1 there, below its own HW 2",
    "seeds-4-unclean-election": "acknowledged record 0@e0 at offset 0 is missing on leader r2; its log ends at "
                                "offset 0, and only r1 (crashed) still holds it",
    "seeds-5-acks-1": "acknowledged record 0@e0 at offset 0 is missing on leader r2; its log ends at offset 0, "
                      "and only r1 (crashed) still holds it",
    "seeds-kafka-7128-stale-hw-isr-join": "acknowledged record 0@e0 at offset 0 is missing on leader r2; its log "
                                          "ends at offset 0, and only r1 (crashed) still holds it",
    # The last state's log is [batch1, batch0]: batch1 (sent second) at offset 0, batch0 at offset 1, and
    # producer.attempts.batch0 = 2 (its first attempt got NOT_LEADER_FOR_PARTITION at step 4).
    "producer-reordering": "batch1 is at log offset 0 but batch0, sent first, is at offset 1 (written by a retry: "
                           "batch0 was sent twice)",
    # The log is [batch0, batch0] and attempts.batch0 = 2 (step 4 lost the first success response); Idempotent=false.
    "producer-duplicate": "batch0 is in the log twice, at offsets 0 and 1: the producer sent it twice, and without "
                          "idempotence the broker cannot tell a retry from a new batch",
    # Steps 8 and 10 made b1 and b3 leaders in leader epoch 1; the partition state znode says "b3 leads e1 ...
    # (controller epoch 2)", written at step 7; b1's controller role is "zombie controller (epoch 1)" since
    # step 3 expired its session, and /controller_epoch is 2 since step 4.
    "controller-zombie-second-leader": "b1 and b3 both act as leader in leader epoch 1; ZooKeeper names b3 (written "
                                       "under controller epoch 2), and b1 itself is a zombie controller still "
                                       "acting under controller epoch 1 (/controller_epoch is 2)",
    # Order=shrink-isr-early: after AR := OAR + RAR (step 2) the controller's next step was ISR -= OAR - RAR
    # (step 3), with OAR - RAR = {b1}, the leader; ZooKeeper's leader is then none and its ISR {b2}, without b3.
    "reassignment-shrink-isr-early": "the partition has no leader: the controller's step 'ISR -= OAR - RAR' took "
                                     "the leader b1 out of the ISR, and b3 of the target {b2, b3} has not joined "
                                     "the ISR, which is {b2}",
    # Replicas=1:2, Order=stop-old-early: producer.acked = [0] since step 2; step 4 stopped b1 (hosted FALSE,
    # its log gone) and left no leader; b2, hosted since step 3, has log [].
    "reassignment-stop-old-early": "acknowledged record 0 is on no replica left on disk: the controller's step "
                                   "'stop and delete OAR - RAR' deleted b1's replica, the partition has no "
                                   "leader, and b2, the only replica left, lacks it (log [])",
    # Step 13 deleted /admin/reassign_partitions; b1 is still hosted and in the ISR {b1, b2, b3}; the controller
    # elected at step 6 (controller.crashes = 1) read OAR = {b2, b3}, the AR step 4 had persisted.
    "reassignment-persist-ar-early": "the move is complete, but b1, outside the target {b2, b3}, still hosts a "
                                     "replica and is in the ISR {b1, b2, b3}: the controller's OAR is {b2, b3} "
                                     "(read from ZooKeeper's AR after the controller crash), so OAR - RAR is empty "
                                     "and it never removed or stopped b1",
    # processed.offset 0 = 2 (steps 3 and 7); group.committedOffset = 0 throughout; c1 crashed at step 4, c2
    # owns the partition in generation 2 (step 5) and its position is 1 after polling offset 0 at step 6.
    "consumer-commit-after-processing-duplicate": "the record at offset 0 was processed twice: the committed offset "
                                                  "is still 0, so c2, which took the partition over after c1 "
                                                  "crashed (generation 2), fetched it again",
    # Commit=before-processing: c1 committed offset 1 at step 3 and crashed at step 4 with offset 0 in hand;
    # processed.offset 0 = 0 and c2, the only live consumer, holds nothing.
    "consumer-commit-before-processing-loss": "the record at offset 0 is below the committed offset 1 but was never "
                                              "processed, and no live consumer holds it: every later owner starts "
                                              "at offset 1, so it is lost",
}


@pytest.fixture(scope="module")
def documents():
    return {entry.name: known_document(entry) for entry in KNOWN}


def test_every_known_trace_has_a_sentence():
    assert set(EXPECTED) == {entry.name for entry in KNOWN}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_known_trace_explains_its_violation(documents, name):
    v = documents[name]["violation"]
    assert v["explanation"] == EXPECTED[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_culprits_name_cells_of_the_violating_state(documents, name):
    """Each culprit is a lane field or a variable of the last state; a log offset is within the drawn cells."""
    doc = documents[name]
    last = doc["steps"][-1]
    lanes = last["lanes"]
    width = max_log_length(doc["steps"])
    assert doc["violation"]["culprits"]
    for c in doc["violation"]["culprits"]:
        if "variable" in c:
            assert c["variable"] in flatten(last["state"])
        else:
            assert c["field"] in lanes[c["lane"]], c
            if "offset" in c:
                assert c["field"] == "log" and 0 <= c["offset"] <= width


@pytest.mark.slow
def test_the_culprits_are_the_record_the_replica_lacks(documents):
    """HW data loss: r1's record at offset 0 and r3's empty offset 0, r1's HW, r3's quorum ISR membership."""
    assert documents["hw-data-loss"]["violation"]["culprits"] == [
        {"lane": "r1", "field": "log", "offset": 0}, {"lane": "r1", "field": "HW"},
        {"lane": "r3", "field": "log", "offset": 0}, {"lane": "r3", "field": "in quorum ISR"}]
    assert documents["seeds-1-hw-data-loss"]["violation"]["culprits"] == [
        {"lane": "r2", "field": "log", "offset": 0}, {"lane": "r1", "field": "log", "offset": 0},
        {"variable": "producer.acked"}]


@pytest.mark.slow
def test_the_culprits_of_the_other_seeds_stories(documents):
    """The cells each sentence names: the batches' offsets, both leaders and the zombie's role, the step's
    victims, the record's counts."""
    culprits = {name: doc["violation"]["culprits"] for name, doc in documents.items()}
    assert culprits["producer-reordering"] == [
        {"lane": "batch1", "field": "log offsets"}, {"lane": "batch0", "field": "log offsets"},
        {"lane": "batch0", "field": "sent"}, {"variable": "log"}]
    assert culprits["controller-zombie-second-leader"] == [
        {"lane": "b1", "field": "replica"}, {"lane": "b1", "field": "leader epoch"},
        {"lane": "b3", "field": "replica"}, {"lane": "b3", "field": "leader epoch"},
        {"variable": "zookeeper.partitionState"}, {"lane": "b1", "field": "controller"}]
    assert culprits["reassignment-shrink-isr-early"] == [
        {"lane": "b1", "field": "role"}, {"lane": "b1", "field": "in ISR"}, {"lane": "b3", "field": "in ISR"},
        {"variable": "zookeeper.leader"}]
    assert culprits["consumer-commit-after-processing-duplicate"] == [
        {"lane": "offset 0", "field": "processed"}, {"lane": "offset 0", "field": "committed"},
        {"variable": "group.committedOffset"}, {"variable": "consumers.c2.position"},
        {"variable": "consumers.c1.alive"}]


@pytest.mark.slow
def test_check_prints_the_sentence_and_json_carries_it():
    p = run_cli("check", "broker-failures", "--invariant", "AckedRecordsSurvive", "-q")
    assert p.returncode == 1
    assert f"  Why: {EXPECTED['seeds-1-hw-data-loss']}\n" in p.stdout
    p = run_cli("check", "truncate-to-hw", "-q", "--json")
    data = json.loads(p.stdout)
    assert data["violation"]["explanation"] == EXPECTED["hw-data-loss"]
    assert data["violation"]["culprits"][2] == {"lane": "r3", "field": "log", "offset": 0}


@pytest.mark.slow
def test_leader_in_isr_names_the_missing_leader():
    """The published LeaderInIsr fails in the initial state: no leader, and None is in no ISR."""
    p = run_cli("check", "kip320", "--const", "Replicas=2", "--invariant", "LeaderInIsr", "-q", "--json")
    v = json.loads(p.stdout)["violation"]
    assert v["explanation"] == "the quorum names no leader (None), and None is not in the quorum ISR {r1, r2}"
    assert v["culprits"] == [{"variable": "quorumState.leader"}, {"variable": "quorumState.isr"}]


@pytest.mark.slow
def test_invariants_stay_plain_booleans(documents):
    """The explanation is a companion: the invariant itself returns a bool, True or False, nothing else."""
    for entry in KNOWN:
        spec = load_spec(entry.spec)
        c = build_constants(spec, entry.constants)
        r = check(spec, c, CheckOptions(invariants=(entry.invariant,)))
        last = r.violations[0].trace[-1].state
        for inv in spec.invariants:
            assert type(inv.fn(c, last)) is bool, inv.name


# -- the invariants the models never violate, on states built by hand ---------------------------------


def _broker_state(**changes):
    spec = load_spec("broker-failures")
    c = build_constants(spec, ())
    s = next(iter(spec.init(c)))
    return spec, c, s._replace(**changes)


def _witness(spec, c, s, name):
    inv = spec.invariant(name)
    assert inv.fn(c, s) is False
    return inv.witness(c, s)


def test_consumer_visible_stable_names_the_shown_record():
    spec, c, s = _broker_state(visible=(Record(0, 0),))
    w = _witness(spec, c, s, "ConsumerVisibleStable")
    assert w.sentence == ("consumers were shown record 0@e0 at offset 0, but it is missing on leader r1, whose log "
                          "ends at offset 0")
    assert w.culprits == ({"lane": "r1", "field": "log", "offset": 0}, {"variable": "consumerVisible"})


def test_hw_not_above_leo_names_the_broker():
    spec, c, s = _broker_state()
    s = s._replace(replicas=(s.replicas[0], s.replicas[1]._replace(hw=2, log=(Record(0, 0),))))
    w = _witness(spec, c, s, "HwNotAboveLeo")
    assert w.sentence == "r2's HW 2 is above its LEO 1: offset 1 counts as committed but r2 holds no record there"


def test_one_leader_per_epoch_names_both_leaders():
    spec, c, s = _broker_state()
    s = s._replace(replicas=(s.replicas[0], s.replicas[1]._replace(leader=True)))
    assert _witness(spec, c, s, "OneLeaderPerEpoch").sentence == "r1 and r2 both act as leader of epoch 0"
    s = s._replace(replicas=(s.replicas[0]._replace(epoch=3), s.replicas[1]._replace(leader=False)))
    assert _witness(spec, c, s, "OneLeaderPerEpoch").sentence == (
        "r1 acts as leader of epoch 3, which the controller has not issued (its epoch is 0)")


def test_valid_high_watermark_names_the_lagging_isr_member():
    from modelcheck.specs.async_isr import LeaderState

    spec = load_spec("async-isr")
    c = build_constants(spec, ())
    s = next(iter(spec.init(c)))
    s = s._replace(leader_state=LeaderState((0, 1), 1, (), -1, (2, 2, 0)))  # r3 left the leader's ISR only
    w = _witness(spec, c, s, "ValidHighWatermark")
    assert w.sentence == ("r3 is in the controller's ISR {r1, r2, r3} but has reached only offset 0, below leader "
                          "r1's HW 2 (the smallest offset over the ISR and pending ISR {r1, r2}): offset 0 is "
                          "committed but missing on r3")
    assert {"lane": "r3", "field": "LEO"} in w.culprits


def test_type_ok_names_the_variable_out_of_range():
    spec = load_spec("truncate-to-hw")
    c = build_constants(spec, ())
    s = next(iter(spec.init(c)))
    s = s._replace(next_record_id=7)
    assert _witness(spec, c, s, "TypeOk").sentence == "nextRecordId 7 is outside 0..MaxRecords (2)"


def test_weak_isr_names_the_leaders_own_isr():
    spec = load_spec("truncate-to-hw")
    c = build_constants(spec, ())
    r = check(spec, c, CheckOptions(invariants=("WeakIsr",)))
    w = spec.invariant("WeakIsr").witness(c, r.violations[0].trace[-1].state)
    assert w.sentence == ("record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is in the ISR "
                          "its leader believes in {r1, r3}")
    assert w.culprits[-1] == {"lane": "r3", "field": "ISR"}


def _initial(name, consts=()):
    spec = load_spec(name)
    c = build_constants(spec, consts)
    return spec, c, next(iter(spec.init(c)))


def test_producer_witnesses_on_states_built_by_hand():
    spec, c, s = _initial("producer-ordering")
    s1 = s._replace(acked=frozenset({1}), log=(0,))  # batch1 acknowledged, only batch0 written
    w = _witness(spec, c, s1, "AckedBatchesWritten")
    assert w.sentence == "batch1 was acknowledged to the application but is not in the log [batch0]"
    assert w.culprits[0] == {"lane": "batch1", "field": "status"}
    s2 = s._replace(log=(1, 0), attempts=(1, 1, 0))  # out of order, but each batch sent once: no retry to blame
    w = _witness(spec, c, s2, "InOrder")
    assert w.sentence == "batch1 is at log offset 0 but batch0, sent first, is at offset 1"
    spec, c, s = _initial("producer-ordering", (("Idempotent", "true"),))
    s3 = s._replace(log=(0, 0), attempts=(2, 0, 0))  # the idempotent broker never does this; the sentence says so
    assert _witness(spec, c, s3, "NoDuplicates").sentence == (
        "batch0 is in the log twice, at offsets 0 and 1: the producer sent it twice, and the idempotent broker "
        "appended it again all the same")


def test_controller_witnesses_on_states_built_by_hand():
    from modelcheck.specs.controller_state import PartitionState, set_broker

    spec, c, s = _initial("controller-failover")
    # ZooKeeper names b3 (leader epoch 1) while only b1 holds the acknowledged record 0.
    s1 = set_broker(s, 0, s.brokers[0]._replace(log=(0,)))._replace(
        acked=frozenset({0}), zk_partition=PartitionState(2, 1, frozenset({0, 2}), 2))
    w = _witness(spec, c, s1, "AckedWritesSurvive")
    assert w.sentence == ("acknowledged record 0 is missing on b3, the leader ZooKeeper names (leader epoch 1), "
                          "whose log is []; only b1 holds it")
    assert w.culprits[:2] == ({"lane": "b3", "field": "log", "offset": 0}, {"lane": "b1", "field": "log", "offset": 0})
    # b1 believes it leads leader epoch 1, b2 still leads epoch 0; no controller is a zombie.
    s2 = set_broker(s, 0, s.brokers[0]._replace(leader=0, leader_epoch=1))
    assert _witness(spec, c, s2, "OneLeaderPerPartition").sentence == (
        "b1 (leader epoch 1) and b2 (leader epoch 0) both act as leader; ZooKeeper names b2 (written under "
        "controller epoch 1)")


def test_reassignment_witnesses_on_states_built_by_hand():
    spec, c, s = _initial("partition-reassignment")
    w = _witness(spec, c, s._replace(isr=frozenset({1})), "LeaderInIsr")
    assert w.sentence == "the leader b1 is not in the ISR {b2}"
    w = _witness(spec, c, s._replace(acked=frozenset({0})), "AckedRecordsSurvive")
    assert w.sentence == "acknowledged record 0 is missing on the leader b1, whose log is []"
    # Declared complete before anything moved: b1 still there, b3 never created, AR still OAR; the
    # controller's OAR is {b1, b2}, so it would have removed b1: no "never removed" clause.
    w = _witness(spec, c, s._replace(reassigning=False), "CompletedAtTarget")
    assert w.sentence == ("the move is complete, but b1, outside the target {b2, b3}, still hosts a replica, is in "
                          "the ISR {b1, b2} and leads; b3 of the target hosts no replica; ZooKeeper's AR is {b1, b2}")


def test_stopping_the_leader_early_names_the_step_and_the_missing_replica():
    """Order=stop-old-early with the default OAR {b1, b2}: add_reassigned_replicas, then stop_old_replicas
    stops OAR - RAR = {b1}, the leader (no controller crash, so the one stopped was it); b3 never fetched."""
    spec = load_spec("partition-reassignment")
    c = build_constants(spec, (("Order", "stop-old-early"),))
    r = check(spec, c, CheckOptions(invariants=("LeaderInIsr",)))
    w = _witness(spec, c, r.violations[0].trace[-1].state, "LeaderInIsr")
    assert w.sentence == ("the partition has no leader: the controller's step 'stop and delete OAR - RAR' stopped "
                          "and deleted the leader b1, and b3 of the target {b2, b3} has not joined the ISR, which is "
                          "{b1, b2}")
    assert w.culprits[:2] == ({"lane": "b1", "field": "role"}, {"lane": "b1", "field": "log"})


def test_a_duplicate_without_a_takeover_says_only_what_the_state_shows():
    """Processed twice in generation 1 (a state the spec never reaches): no owner to blame."""
    spec, c, s = _initial("consumer-offsets")
    w = _witness(spec, c, s._replace(processed=(2, 0)), "NoDuplicates")
    assert w.sentence == "the record at offset 0 was processed twice: the committed offset is still 0"


# -- the spec API -------------------------------------------------------------------------------------


@attrs.frozen
class _C:
    N: int = constant(2, "bound", minimum=0, maximum=9)


def _init(c):
    yield 0


@action("Inc", label="inc by {by}")
def _inc(c, s):
    return s + 1 if s < c.N else None


def test_a_declared_label_and_named_parameters():
    from modelcheck import Domain

    @action("Add", label="add {n} to the counter", n=Domain("n", lambda c: [1, 2]))
    def add(c, s, n):
        return s + n if s + n <= 3 else None

    @action("Move", a=Domain("a", lambda c: [0]), b=Domain("b", lambda c: [1], lambda v: f"x{v}"))
    def move(c, s, a, b):
        return None

    spec = Spec(name="labels", title="t", constants=_C, init=_init, actions=[add, move])
    assert spec.actions[0].label((2,)) == "add 2 to the counter"
    assert spec.actions[1].label((0, 1)) == "Move(a=0, b=x1)"


def test_malformed_declarations_are_refused_when_the_spec_is_built():
    with pytest.raises(SpecDefinitionError, match="label 'inc by {by}' of action Inc names an unknown parameter"):
        Spec(name="bad", title="t", constants=_C, init=_init, actions=[_inc])

    @action("Inc")
    def inc(c, s):
        return s + 1 if s < c.N else None

    @invariant("Small", explain="not a function")
    def small(c, s):
        return s < 2

    with pytest.raises(SpecDefinitionError, match="explain of Small is not callable"):
        Spec(name="bad", title="t", constants=_C, init=_init, actions=[inc], invariants=[small])
    with pytest.raises(SpecDefinitionError, match="messages is not callable"):
        Spec(name="bad", title="t", constants=_C, init=_init, actions=[inc], messages=3)


def test_an_explain_that_fails_does_not_hide_the_counterexample():
    """A bug in the companion is reported as the explanation; the trace is still written."""

    @action("Inc")
    def inc(c, s):
        return s + 1 if s < c.N else None

    def broken(c, s):
        raise KeyError("oops")

    @invariant("Small", explain=broken)
    def small(c, s):
        return s < 2

    def wrong_type(c, s):
        return 42

    @invariant("Tiny", explain=wrong_type)
    def tiny(c, s):
        return s < 1

    from modelcheck.output.json_form import explanation_json

    spec = Spec(name="ok", title="t", constants=_C, init=_init, actions=[inc], invariants=[small, tiny])
    c = _C()
    r = check(spec, c, CheckOptions(invariants=("Small",)))
    assert explanation_json(spec, c, r.violations[0]) == {
        "explanation": "(explain of Small failed: KeyError: 'oops')", "culprits": []}
    r = check(spec, c, CheckOptions(invariants=("Tiny",)))
    assert "must return a Witness or a string, got int" in explanation_json(spec, c, r.violations[0])["explanation"]


def test_witness_json_shape():
    w = Witness("why", (culprit("r1", "log", 0), culprit(variable="x.y")))
    assert w.to_json() == {"explanation": "why", "culprits": [{"lane": "r1", "field": "log", "offset": 0},
                                                              {"variable": "x.y"}]}
