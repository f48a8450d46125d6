"""Kip101.tla: KIP-101 (Kafka 0.11) truncates using the leader epochs stored in records.

A new follower asks the leader where its latest epoch ends
(OffsetsForLeaderEpoch) instead of trusting its own HW.  Consecutive fast
leader changes still lose committed data: TLC finds StrongIsr violated with a
shortest trace of 11 states (Replicas=3).
"""

from __future__ import annotations

from modelcheck import Spec, action, strong, weak
from modelcheck.invariants.kafka_isr import KAFKA_INVARIANTS
from modelcheck.specs import kafka_replication as kr
from modelcheck.specs.kafka_replication import REPLICA, KafkaConstants, KafkaState
from modelcheck.specs.message_events import exchange


def lookup_offset_for_epoch(s: KafkaState, leader: int, follower: int, epoch: int) -> int:
    """LookupOffsetForEpoch: the leader's end offset for ``epoch`` (the follower's HW when unknown)."""
    log = s.replica_log[leader]
    if not log:
        return s.replica_state[follower].hw
    if log[-1].epoch == epoch:
        return len(log)
    larger = [offset for offset, rec in enumerate(log) if rec.epoch > epoch]
    return min(larger) if larger else s.replica_state[follower].hw


@action("BecomeFollowerTruncateKip101", leader=REPLICA, replica=REPLICA)
def become_follower_truncate_kip101(c: KafkaConstants, s: KafkaState, leader: int, replica: int):
    """On a newer-epoch LeaderAndIsr, truncate to the leader's end offset for the epoch of the latest local record."""
    log = s.replica_log[replica]
    if not log:
        offset = 0
    else:
        offset = lookup_offset_for_epoch(s, leader, replica, log[-1].epoch)
    return kr.become_follower_and_truncate_to(s, leader, replica, offset) or None


def messages(c: KafkaConstants, s: KafkaState, t: KafkaState, action: str, params: dict[str, str]) -> list[dict]:
    """The shared messages, plus the OffsetsForLeaderEpoch question a new follower with records asks its leader."""
    out = kr.messages(c, s, t, action, params)
    if action == "BecomeFollowerTruncateKip101":
        leader, replica = kr.replica_index(params["leader"]), kr.replica_index(params["replica"])
        log = s.replica_log[replica]
        if log and leader != kr.NONE:
            epoch = log[-1].epoch
            answer = lookup_offset_for_epoch(s, leader, replica, epoch)
            l_log = s.replica_log[leader]
            known = bool(l_log) and (l_log[-1].epoch == epoch or any(rec.epoch > epoch for rec in l_log))
            text = f"end offset {answer}" if known else f"no end offset for epoch {epoch}: truncate to own HW {answer}"
            out += exchange(f"OffsetsForLeaderEpoch by {params['replica']}", params["replica"], params["leader"],
                            f"OffsetsForLeaderEpoch(epoch {epoch})", text, "OffsetsForLeaderEpoch")
    return out


ACTIONS = kr.truncating_variant_actions(become_follower_truncate_kip101)

FAIRNESS = [
    # Kip101.tla declares its Spec LOCAL:  LOCAL Spec == Init /\ [][Next]_vars
    strong(kr.leader_inc_high_watermark),  # /\ SF_vars(LeaderIncHighWatermark)
    strong(kr.leader_expand_isr),  # /\ SF_vars(LeaderExpandIsr)
    strong(kr.leader_write),  # /\ SF_vars(LeaderWrite)
    weak(become_follower_truncate_kip101),  # /\ WF_vars(BecomeFollowerTruncateKip101)
    weak(kr.become_leader),  # /\ WF_vars(BecomeLeader)
]
"""The module's (LOCAL) Spec: each condition over the whole action (``\\E`` over its parameters), as TLA+ reads it."""

SPEC = Spec(
    name="kip101",
    title="Kip101 (KIP-101: truncation by leader epoch, OffsetsForLeaderEpoch)",
    actions=ACTIONS,
    invariants=KAFKA_INVARIANTS,
    description=__doc__,
    reference="modelcheck.specs.kip101:SPEC",
    properties=kr.KAFKA_PROPERTIES,
    fairness=FAIRNESS,
    **dict(kr.BASE_SPEC_OPTIONS, messages=messages),
)
