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
            assert tracefile._is_message(ev), ev
            if "send" in ev:
                assert ev["from"] != ev["to"] and (ev["from"] in lanes or ev["to"] in lanes), ev
            checked += 1
    assert checked > 0


@pytest.fixture(scope="module")
def documents():
    return {entry.name: known_document(entry) for entry in KNOWN}


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


def test_seed_story_1_shows_the_fetch_response_carrying_the_leaders_hw(documents):
    """The leader's HW 1 leaves in a fetch response at step 5 and is lost when r2 crashes at step 6."""
    doc = documents["seeds-1-hw-data-loss"]
    assert doc["steps"][4]["lanes"]["r2"]["in flight"] == "from 1: [], leader HW 1"
    assert ("r1", "r2", "FetchResponse(records [], HW 1)", 5, 6, "dropped", "r2 crashed") in _arrow_summary(doc)
    svg = render_sequence_svg(doc)
    assert "FetchResponse(records [], HW 1)" in svg and "dropped: r2 crashed" in svg


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
