"""KafkaTruncateToHighWatermark.tla: before KIP-101, a new follower truncates to its own HW.

A replica can be elected right after truncating away records that the old
leader had already committed: the high-watermark data-loss case.  TLC finds
StrongIsr violated with a shortest trace of 9 states (Replicas=3).
"""

from __future__ import annotations

from modelcheck import Spec, action, strong, weak
from modelcheck.invariants.kafka_isr import KAFKA_INVARIANTS
from modelcheck.specs import kafka_replication as kr
from modelcheck.specs.kafka_replication import REPLICA, KafkaConstants, KafkaState


@action("BecomeFollowerTruncateToHighWatermark", leader=kr.REPLICA, replica=REPLICA)
def become_follower_truncate_to_high_watermark(c: KafkaConstants, s: KafkaState, leader: int, replica: int):
    """On a newer-epoch LeaderAndIsr naming another leader, truncate the log to the local HW."""
    return kr.become_follower_and_truncate_to(s, leader, replica, s.replica_state[replica].hw) or None


ACTIONS = kr.truncating_variant_actions(become_follower_truncate_to_high_watermark)

FAIRNESS = [
    # KafkaTruncateToHighWatermark.tla:  Spec == Init /\ [][Next]_vars
    strong(kr.leader_inc_high_watermark),  # /\ SF_vars(LeaderIncHighWatermark)
    strong(kr.leader_expand_isr),  # /\ SF_vars(LeaderExpandIsr)
    strong(kr.leader_write),  # /\ SF_vars(LeaderWrite)
    weak(become_follower_truncate_to_high_watermark),  # /\ WF_vars(BecomeFollowerTruncateToHighWatermark)
    weak(kr.become_leader),  # /\ WF_vars(BecomeLeader)
]
"""The module's Spec: each condition over the whole action (``\\E`` over its parameters), as TLA+ reads it."""

SPEC = Spec(
    name="truncate-to-hw",
    title="KafkaTruncateToHighWatermark (pre-KIP-101 truncation to the high watermark)",
    actions=ACTIONS,
    invariants=KAFKA_INVARIANTS,
    description=__doc__,
    reference="modelcheck.specs.truncate_to_hw:SPEC",
    properties=kr.KAFKA_PROPERTIES,
    fairness=FAIRNESS,
    **kr.BASE_SPEC_OPTIONS,
)
