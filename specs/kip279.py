"""Kip279.tla: KIP-279 walks back from the follower's tail to the last offset both logs agree on.

This closes KIP-101's hole with consecutive fast leader changes when two
replicas are involved (StrongIsr holds with Replicas=2: 9,027 states), but with
three replicas TLC still finds StrongIsr violated in 11 states, because the
truncation point is computed from a leader in another epoch.
"""

from __future__ import annotations

from modelcheck import Spec, action, strong, weak
from modelcheck.invariants.kafka_isr import KAFKA_INVARIANTS
from modelcheck.specs import kafka_replication as kr
from modelcheck.specs.kafka_replication import REPLICA, KafkaConstants, KafkaState
from modelcheck.specs.message_events import exchange
from modelcheck.specs.replicated_log import first_non_matching_offset_from_tail


def first_non_matching_offset(s: KafkaState, leader: int, follower: int) -> int:
    """FirstNonMatchingOffsetFromTail between the leader's and the follower's logs."""
    return first_non_matching_offset_from_tail(s.replica_log[leader], s.replica_log[follower])


@action("BecomeFollowerTruncateKip279", leader=REPLICA, replica=REPLICA)
def become_follower_truncate_kip279(c: KafkaConstants, s: KafkaState, leader: int, replica: int):
    """On a newer-epoch LeaderAndIsr, truncate to one past the last offset matching the leader's log.

    The TLA+ action has two disjuncts that both apply to an empty log (truncate
    to 0, and truncate to the first non-matching offset, also 0); TLC generates
    the successor once per disjunct, and so do we.
    """
    out = []
    if not s.replica_log[replica]:
        out += kr.become_follower_and_truncate_to(s, leader, replica, 0)
    out += kr.become_follower_and_truncate_to(s, leader, replica, first_non_matching_offset(s, leader, replica))
    return out or None


def truncation_exchange(s: KafkaState, params: dict[str, str], question: str) -> list[dict]:
    """OffsetsForLeaderEpoch rounds, walking back from the follower's tail to the last offset matching the leader.

    The model computes the result in one step (FirstNonMatchingOffsetFromTail);
    the diagram shows it as one question and its final answer.
    """
    leader, replica = kr.replica_index(params["leader"]), kr.replica_index(params["replica"])
    log = s.replica_log[replica]
    if not log or leader == kr.NONE:
        return []
    offset = first_non_matching_offset(s, leader, replica)
    return exchange(f"OffsetsForLeaderEpoch by {params['replica']}", params["replica"], params["leader"],
                    question.format(epoch=log[-1].epoch), f"logs match below offset {offset}",
                    "OffsetsForLeaderEpoch")


def messages(c: KafkaConstants, s: KafkaState, t: KafkaState, action: str, params: dict[str, str]) -> list[dict]:
    """The shared messages, plus the OffsetsForLeaderEpoch walk-back of a new follower with records."""
    out = kr.messages(c, s, t, action, params)
    if action == "BecomeFollowerTruncateKip279":
        out += truncation_exchange(s, params, "OffsetsForLeaderEpoch(epoch {epoch}, walking back)")
    return out


ACTIONS = kr.truncating_variant_actions(become_follower_truncate_kip279)

FAIRNESS = [
    # Kip279.tla declares its Spec LOCAL:  LOCAL Spec == Init /\ [][Next]_vars
    strong(kr.leader_inc_high_watermark),  # /\ SF_vars(LeaderIncHighWatermark)
    strong(kr.leader_expand_isr),  # /\ SF_vars(LeaderExpandIsr)
    strong(kr.leader_write),  # /\ SF_vars(LeaderWrite)
    weak(become_follower_truncate_kip279),  # /\ WF_vars(BecomeFollowerTruncateKip279)
    weak(kr.become_leader),  # /\ WF_vars(BecomeLeader)
]
"""The module's (LOCAL) Spec: each condition over the whole action (``\\E`` over its parameters), as TLA+ reads it."""

SPEC = Spec(
    name="kip279",
    title="Kip279 (KIP-279: truncate to the last offset matching the leader's log)",
    actions=ACTIONS,
    invariants=KAFKA_INVARIANTS,
    description=__doc__,
    reference="modelcheck.specs.kip279:SPEC",
    properties=kr.KAFKA_PROPERTIES,
    fairness=FAIRNESS,
    **dict(kr.BASE_SPEC_OPTIONS, messages=messages),
)
