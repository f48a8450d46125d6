"""Messages and lanes: what the specs declare for the sequence diagram, and that no state change goes undrawn."""

from __future__ import annotations

import itertools
from collections import deque

import pytest

from modelcheck.spec.constants import build_constants
from modelcheck.counterexamples import tracefile
from modelcheck.counterexamples.known import KNOWN
from modelcheck.counterexamples.lanes import lane_of
from modelcheck.counterexamples.messages import actors, arrows
from modelcheck.counterexamples.regenerate import known_document
from modelcheck.counterexamples.seqdiagram import render_sequence_svg
from modelcheck.counterexamples.text import flatten
from modelcheck.spec.loader import load_spec
from modelcheck.model.bound import BoundModel
from modelcheck.options import CheckOptions

SPECS = [("truncate-to-hw", ()), ("kip101", ()), ("kip279", ()), ("kip320-first-try", ()), ("kip320", ()),
         ("async-isr", ()), ("broker-failures", ()),
         ("broker-failures", (("Truncation", "leader-epoch"), ("Replicas", "3"))),
         ("broker-failures", (("Truncation", "kip279"), ("UncleanElection", "true"), ("Acks", "1")))]


def transitions(name: str, consts: tuple, limit: int = 2500):
    """Up to ``limit`` states breadth-first, with every transition out of them: (c, s, t, action, params)."""
    spec = load_spec(name)
    c = build_constants(spec, consts)
    model = BoundModel(spec, c, CheckOptions())
    seen = set(model.init_states())
    queue = deque(seen)
    out = []
    while queue and len(seen) < limit:
        s = queue.popleft()
        for ai, b, t in model.successors(s):
            if not model.in_model(t):
                continue
            act = model.actions[ai]
            out.append((spec, c, s, t, act.name, act.label_params(b)))
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name,consts", SPECS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SPECS)])
def test_every_replica_variable_has_a_lane_field_that_shows_its_changes(name, consts):
    """No per-replica variable changes unseen in the lanes: for each, one lane field changes whenever it does."""
    candidates: dict[tuple[str, str], set[str] | None] = {}
    for spec, c, s, t, _, _ in transitions(name, consts):
        before, after = flatten(spec.describe_state(c, s)), flatten(spec.describe_state(c, t))
        lanes_s, lanes_t = spec.lanes(c, s), spec.lanes(c, t)
        for var in set(before) | set(after):
            lane = lane_of(var, lanes_t)
            if lane is None or before.get(var) == after.get(var):
                continue
            moved = {f for f, v in lanes_t[lane].items() if lanes_s[lane].get(f) != v}
            key = (lane, var.replace(lane, "*"))
            candidates[key] = moved if candidates.get(key) is None else candidates[key] & moved
    assert candidates, "the sample changed no replica variable"
    unshown = {var for (lane, var), fields in candidates.items() if not fields}
    assert not unshown, f"no lane field changes with {sorted(unshown)}"


@pytest.mark.parametrize("name,consts", SPECS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SPECS)])
def test_message_events_are_well_formed(name, consts):
    """Every event the hooks write passes the trace file's validation, and names actors that exist."""
    checked = 0
    for spec, c, s, t, action, params in transitions(name, consts, limit=1500):
        events = spec.messages(c, s, t, action, params)
        lanes = set(spec.lanes(c, t))
        for ev in events:
            assert tracefile.is_message(ev), ev
            if "send" in ev:
                assert ev["from"] != ev["to"] and (ev["from"] in lanes or ev["to"] in lanes), ev
            checked += 1
    assert checked > 0


@pytest.fixture(scope="module")
def documents():
    return {entry.name: known_document(entry) for entry in KNOWN}


@pytest.mark.slow
def test_known_traces_receive_only_what_was_sent(documents):
    """In the known traces every receive or drop matches a message in flight (no stray ids)."""
    for name, doc in documents.items():
        flying: set[str] = set()
        for step in doc["steps"]:
            for ev in step.get("messages", []):
                if "send" in ev and not ev.get("delivered"):
                    flying.add(ev["send"])
                for key in ("receive", "drop"):
                    if key in ev:
                        assert ev[key] in flying, (name, step["index"], ev)
                        flying.discard(ev[key])


def _arrow_summary(doc, **match):
    return [(a.sender, a.receiver, a.label, a.sent + 1, None if a.ended is None else a.ended + 1, a.outcome, a.why)
            for a in arrows(doc["steps"]) if all(getattr(a, k) == v for k, v in match.items())]


@pytest.mark.slow
def test_hw_data_loss_leader_and_isr_requests(documents):
    """The controller's requests: which replica applied which, which were superseded, which are still on their way."""
    doc = documents["hw-data-loss"]
    assert actors(doc["steps"], arrows(doc["steps"])) == ["controller", "r1", "r2", "r3"]
    lai = _arrow_summary(doc, kind="LeaderAndIsr")
    assert ("controller", "r1", "LeaderAndIsr(epoch 0, leader r1, isr {r1, r2, r3})", 2, 4, "dropped",
            "superseded by epoch 1") in lai
    assert ("controller", "r1", "LeaderAndIsr(epoch 1, leader r1, isr {r1, r3})", 3, 4, "delivered", "") in lai
    assert ("controller", "r3", "LeaderAndIsr(epoch 0, leader r1, isr {r1, r2, r3})", 2, 6, "delivered", "") in lai
    assert ("controller", "r3", "LeaderAndIsr(epoch 1, leader r1, isr {r1, r3})", 3, 9, "delivered", "") in lai
    assert [x[5] for x in lai if x[1] == "r2"] == ["in flight", "in flight"]  # r2 never applies one
    assert _arrow_summary(doc, kind="Fetch") == [
        ("r3", "r1", "Fetch(offset 0)", 7, 7, "delivered", ""),
        ("r1", "r3", "records [0@e1], HW 0", 7, 7, "delivered", "")]


@pytest.mark.slow
def test_seed_story_1_shows_the_fetch_response_carrying_the_leaders_hw(documents):
    """The leader's HW 1 leaves in a fetch response at step 5 and is lost when r2 crashes at step 6."""
    doc = documents["seeds-1-hw-data-loss"]
    assert doc["steps"][4]["lanes"]["r2"]["in flight"] == "from 1: [], leader HW 1"
    assert ("r1", "r2", "FetchResponse(records [], HW 1)", 5, 6, "dropped", "r2 crashed") in _arrow_summary(doc)
    svg = render_sequence_svg(doc)
    assert "FetchResponse(records [], HW 1)" in svg and "dropped: r2 crashed" in svg


@pytest.mark.slow
def test_kip101_story_shows_the_offsets_for_leader_epoch_exchange(documents):
    """The restarted follower asks where its epoch 1 ends and is told offset 1, where the leader's epoch 2 starts."""
    doc = documents["seeds-3-kip101-fast-leader-changes"]
    assert _arrow_summary(doc, kind="OffsetsForLeaderEpoch") == [
        ("r3", "r2", "OffsetsForLeaderEpoch(epoch 1)", 11, 11, "delivered", ""),
        ("r2", "r3", "end offset 1", 11, 11, "delivered", "")]
    svg = render_sequence_svg(doc)
    assert "OffsetsForLeaderEpoch(epoch 1)" in svg and ">end offset 1<" in svg
    kip101 = documents["kip101-fast-leader-changes"]  # the published model's variant asks too
    assert _arrow_summary(kip101, kind="OffsetsForLeaderEpoch")[1][2] == "no end offset for epoch 2: truncate to own HW 0"


def test_pairing_of_events():
    """Sends pair with later receives and drops by id; unknown ids are ignored; an id can be reused."""
    steps = [{"index": 1}, {"index": 2, "messages": [{"send": "a", "from": "x", "to": "y", "label": "A"},
                                                     {"send": "b", "from": "y", "to": "x", "label": "B",
                                                      "delivered": True}]},
             {"index": 3, "messages": [{"receive": "a"}, {"drop": "zzz", "why": "?"},
                                       {"send": "a", "from": "x", "to": "y", "label": "A2"}]},
             {"index": 4, "messages": [{"drop": "a", "why": "y crashed"}, {"send": "c", "from": "y", "to": "x",
                                                                            "label": "C", "response": True}]}]
    got = [(a.label, a.sent, a.ended, a.outcome, a.why, a.response) for a in arrows(steps)]
    assert got == [("A", 1, 2, "delivered", "", False), ("B", 1, 1, "delivered", "", False),
                   ("A2", 2, 3, "dropped", "y crashed", False), ("C", 3, None, "in flight", "", True)]


def test_epoch_rounds_follow_the_truncation_rule():
    """The OffsetsForLeaderEpoch rounds drawn for broker-failures are the questions truncation_point asks."""
    from modelcheck.specs.broker_truncation import (end_offset_kip101, epoch_rounds, latest_epoch,
                                                    truncation_point)
    from modelcheck.specs.replicated_log import Record

    def log_of(*epochs):
        return tuple(Record(i, e) for i, e in enumerate(epochs))

    def cache(log):
        out = ()
        for o, rec in enumerate(log):
            if not out or rec.epoch > out[-1][0]:
                out += ((rec.epoch, o),)
        return out

    logs = [log_of(*es) for n in range(4) for es in itertools.product((0, 1, 2, 3), repeat=n)
            if list(es) == sorted(es)]
    checked = 0
    for follower, leader in itertools.product(logs, logs):
        fe, le = cache(follower), cache(leader)
        for mode in ("leader-epoch", "kip279"):
            rounds = epoch_rounds(mode, follower, fe, 0, leader, le)
            cut = truncation_point(mode, follower, fe, 0, leader, le)
            if not fe:
                assert rounds == [] and cut == 0
                continue
            assert rounds[0][0] == latest_epoch(fe)
            assert [r[0] for r in rounds] == sorted({r[0] for r in rounds}, reverse=True)  # walking back
            if mode == "leader-epoch":
                end = end_offset_kip101(le, len(leader), latest_epoch(fe))
                assert rounds == [(latest_epoch(fe), end)]
                assert cut == (0 if end is None else min(end, len(follower)))
            elif rounds[-1][1] is not None:  # KIP-279 stops at the end of the epoch both logs know
                assert cut <= rounds[-1][1][1]
            checked += 1
    assert checked > 100


# -- the producer, controller, reassignment and consumer specs ------------------------------------------

SEED_SPECS = [("producer-ordering", (("MaxInFlight", "2"),)), ("producer-ordering", (("Idempotent", "true"),)),
              ("controller-failover", ()), ("controller-failover", (("PartitionWrite", "unconditional"),)),
              ("controller-failover", (("PartitionWrite", "zk-version"), ("StaleControllerEpochCheck", "false"))),
              ("controller-failover", (("Crashes", "2"), ("Records", "2"))),
              ("partition-reassignment", ()), ("partition-reassignment", (("Order", "stop-old-early"),)),
              ("partition-reassignment", (("Order", "persist-ar-early"), ("Replicas", "1,2:3,4"))),
              ("consumer-offsets", ()), ("consumer-offsets", (("Consumers", "3"), ("Crashes", "2"))),
              ("consumer-offsets", (("Commit", "before-processing"),))]
SEED_IDS = [f"{n}-{i}" for i, (n, _) in enumerate(SEED_SPECS)]


def _other_actors(name: str, c) -> set[str]:
    """The actors each spec draws besides its lanes (batches, brokers, records)."""
    if name == "producer-ordering":
        return {"producer", "leader"}
    if name == "controller-failover":
        return {"zookeeper", "producer"} | {f"controller b{b + 1}" for b in range(c.Brokers)}
    if name == "partition-reassignment":
        return {"controller", "zookeeper", "producer"}
    return {"broker", "coordinator"} | {f"c{i + 1}" for i in range(c.Consumers)}


@pytest.mark.parametrize("name,consts", SEED_SPECS, ids=SEED_IDS)
def test_seed_spec_message_events_are_well_formed(name, consts):
    """Every event passes the trace file's validation, and every message goes between two known actors."""
    checked = 0
    for spec, c, s, t, action, params in transitions(name, consts, limit=1500):
        known = set(spec.lanes(c, t)) | _other_actors(name, c)
        for ev in spec.messages(c, s, t, action, params):
            assert tracefile.is_message(ev), ev
            if "send" in ev:
                assert ev["from"] != ev["to"] and {ev["from"], ev["to"]} <= known, (action, ev)
                checked += 1
    assert checked > 0


IN_FLIGHT_SPECS = [(n, k) for n, k in SEED_SPECS if n != "partition-reassignment"]
"""The specs whose messages can stay in flight across steps (partition-reassignment delivers each one at once)."""


@pytest.mark.parametrize("name,consts", IN_FLIGHT_SPECS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(IN_FLIGHT_SPECS)])
def test_seed_spec_message_ids_pair_up_along_random_runs(name, consts):
    """Along any run, a message is received or dropped only while in flight, and an id in flight is not
    sent again: the hooks' ids follow the state (attempts, requests, notices) without a history."""
    import random

    spec = load_spec(name)
    c = build_constants(spec, consts)
    model = BoundModel(spec, c, CheckOptions())
    rng = random.Random(7)
    ended = 0
    for _ in range(150):
        s = rng.choice(model.init_states())
        flying: set[str] = set()
        for _ in range(40):
            moves = [(ai, b, t) for ai, b, t in model.successors(s) if model.in_model(t) and t != s]
            if not moves:
                break
            ai, b, t = rng.choice(moves)
            act = model.actions[ai]
            for ev in spec.messages(c, s, t, act.name, act.label_params(b)):
                if "send" in ev and not ev.get("delivered"):
                    assert ev["send"] not in flying, (act.name, ev)
                    flying.add(ev["send"])
                for key in ("receive", "drop"):
                    if key in ev:
                        assert ev[key] in flying, (act.name, ev, sorted(flying))
                        flying.discard(ev[key])
                        ended += 1
            s = t
    assert ended > 0


@pytest.mark.slow
def test_producer_story_the_retry_lands_after_the_later_batch(documents):
    """Reordering: batch0's first attempt is refused at step 4 while batch1's request is already on the
    connection; batch1 is written at offset 0 at step 5; batch0's retry, sent at step 7, at offset 1."""
    doc = documents["producer-reordering"]
    assert actors(doc["steps"], arrows(doc["steps"])) == ["producer", "leader", "batch0", "batch1", "batch2"]
    assert _arrow_summary(doc) == [
        ("producer", "leader", "Produce(batch0, attempt 1)", 2, 4, "delivered", ""),
        ("producer", "leader", "Produce(batch1, attempt 1)", 3, 5, "delivered", ""),
        ("leader", "producer", "batch0: NOT_LEADER_FOR_PARTITION", 4, 6, "delivered", ""),
        ("leader", "producer", "batch1: written at offset 0", 5, None, "in flight", ""),
        ("producer", "leader", "Produce(batch0, attempt 2)", 7, 8, "delivered", ""),
        ("leader", "producer", "batch0: written at offset 1", 8, None, "in flight", "")]
    dup = documents["producer-duplicate"]  # the first success response is lost: the retry writes batch0 again
    assert ("leader", "producer", "batch0: written at offset 0", 3, 4, "dropped",
            "lost: the request times out") in _arrow_summary(dup)
    assert "dropped: lost: the request times out" in render_sequence_svg(dup)


@pytest.mark.slow
def test_controller_story_the_zombies_leader_and_isr_reaches_a_broker(documents):
    """Without a guard on the write: the zombie b1 (controller epoch 1, its session expired at step 3, a notice
    it never reads) writes b1 for leader epoch 1 and sends LeaderAndIsr with controller epoch 1 at step 6; b1 applies
    it at step 8, after b3 became controller in epoch 2 at step 4. b3 ignores its own failover request
    (leader epoch 0) at step 9 and applies its election at step 10."""
    doc = documents["controller-zombie-second-leader"]
    assert actors(doc["steps"], arrows(doc["steps"])) == ["zookeeper", "controller b1", "controller b3",
                                                          "b1", "b2", "b3"]
    got = _arrow_summary(doc)
    zombie = "LeaderAndIsr(controller epoch 1: b1 leads e1, ISR {b1, b3})"
    assert ("controller b1", "b1", zombie, 6, 8, "delivered", "") in got
    assert ("controller b1", "b3", zombie, 6, None, "in flight", "") in got
    assert ("zookeeper", "controller b1", "session expired: /controller deleted", 3, None, "in flight", "") in got
    assert ("controller b1", "zookeeper", "write: b1 leads e1, ISR {b1, b3} (controller epoch 1)", 6, 6,
            "delivered", "") in got
    assert ("controller b3", "zookeeper", "create /controller, /controller_epoch := 2", 4, 4, "delivered", "") in got
    assert ("b3", "controller b3", "StaleLeaderEpoch (b3 is in leader epoch 0)", 9, 9, "delivered", "") in got
    assert ("controller b3", "b3", "LeaderAndIsr(controller epoch 2: b3 leads e1, ISR {b1, b3})", 7, 10,
            "delivered", "") in got


def test_controller_with_fencing_the_zombies_write_is_refused():
    """The same schedule with fencing: the zombie's conditional write is refused at step 3.3, it resigns,
    and the session-expiry notice it never read is dropped with it."""
    spec = load_spec("controller-failover")
    c = build_constants(spec, (("PartitionWrite", "controller-epoch"),))
    s = next(iter(spec.init(c)))
    for label in ("crash(broker=b2)", "expire_session(broker=b1)", "elect_controller(broker=b3)",
                  "read_partition_state(controller=controller b1)"):
        act = spec.action_named(label.split("(")[0])
        s = act.fn(c, s, *[b for b in act.bindings(c) if act.label(b) == label][0])
        s = s[0] if isinstance(s, list) else s  # one successor per satisfied disjunct, all the same state
    t = spec.action_named("abort_election").fn(c, s, 0)
    assert spec.messages(c, s, t, "abort_election", {"controller": "controller b1"}) == [
        {"send": "b1 writes", "from": "controller b1", "to": "zookeeper",
         "label": "write if its zkVersion is as read and /controller_epoch = 1",
         "kind": "ZooKeeper", "delivered": True},
        {"send": "b1 writes response", "from": "zookeeper", "to": "controller b1",
         "label": "refused: /controller_epoch is 2", "kind": "ZooKeeper", "delivered": True, "response": True},
        {"drop": "session expired for b1", "why": "b1 resigned at the refused write"}]


@pytest.mark.slow
def test_reassignment_story_the_new_controller_reads_the_target_as_ar(documents):
    """persist-ar-early: AR := {b2, b3} is written at step 4, before anything moved; the controller elected
    at step 6 reads it back as AR, so OAR - RAR is empty: no StopReplica is ever sent, and after step 2 b1
    is sent no LeaderAndIsr at all."""
    doc = documents["reassignment-persist-ar-early"]
    got = _arrow_summary(doc)
    assert ("controller", "zookeeper", "AR := {b2, b3}", 4, 4, "delivered", "") in got
    assert ("zookeeper", "controller", "AR {b2, b3}, target {b2, b3}", 6, 6, "delivered", "") in got
    assert _arrow_summary(doc, kind="StopReplica") == []
    assert [a[3] for a in _arrow_summary(doc, kind="LeaderAndIsr", receiver="b1")] == [2]
    stop = documents["reassignment-stop-old-early"]  # b1, the only copy, is stopped before b2 fetched
    assert _arrow_summary(stop, kind="StopReplica") == [
        ("controller", "b1", "StopReplica(delete)", 4, 4, "delivered", "")]
    assert _arrow_summary(stop, kind="Fetch") == []
    assert ("b1", "producer", "ack(record 0)", 2, 2, "delivered", "") in _arrow_summary(stop)


@pytest.mark.slow
def test_consumer_story_the_new_owner_starts_at_the_committed_offset(documents):
    """after-processing: c1 fetches offset 0 and crashes before committing; at the rebalance c2 is told
    the committed offset is 0 and fetches offset 0 again. before-processing: c1 commits offset 1 before
    processing offset 0, then crashes; the rebalance notice to c2 is still on its way."""
    doc = documents["consumer-commit-after-processing-duplicate"]
    got = _arrow_summary(doc)
    assert ("c1", "broker", "Fetch(offset 0)", 2, 2, "delivered", "") in got
    assert ("coordinator", "c2", "REBALANCE_IN_PROGRESS (c1 left): rejoin", 4, 5, "delivered", "") in got
    assert ("coordinator", "c2", "committed offset 0", 5, 5, "delivered", "") in got
    assert ("c2", "broker", "Fetch(offset 0)", 6, 6, "delivered", "") in got
    assert _arrow_summary(doc, kind="OffsetCommit", label="OffsetCommit(offset 1)") == []  # nobody committed
    loss = documents["consumer-commit-before-processing-loss"]
    assert _arrow_summary(loss, kind="OffsetCommit") == [
        ("c1", "coordinator", "OffsetCommit(offset 1)", 3, 3, "delivered", ""),
        ("coordinator", "c1", "committed", 3, 3, "delivered", "")]
    assert ("coordinator", "c2", "REBALANCE_IN_PROGRESS (c1 left): rejoin", 4, None, "in flight", "") in \
        _arrow_summary(loss)
