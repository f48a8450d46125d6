"""Kip320.tla: KIP-320 fences fetches, truncation and HW advances by the current leader epoch.

The rules found while verifying it: a follower truncates (OffsetsForLeaderEpoch)
only against a leader in the same epoch before fetching; the HW advances only
when every ISR member follows the leader's epoch; the ISR expands only once the
leader's HW has reached its own epoch.  TLC: StrongIsr holds (Replicas=2: 5,973
states, depth 18; Replicas=3: 737,794 states, depth 26).
"""

from __future__ import annotations

from modelcheck import Spec, action, strong, weak
from modelcheck.invariants.kafka_isr import KAFKA_INVARIANTS
from modelcheck.specs import kafka_replication as kr
from modelcheck.specs.kafka_replication import NONE, REPLICA, KafkaConstants, KafkaState, ReplicaState, replace_at
from modelcheck.specs.kip279 import first_non_matching_offset, truncation_exchange
from modelcheck.specs.replicated_log import has_offset


def is_following_leader_epoch(s: KafkaState, leader: int, follower: int) -> bool:
    """The leader presumes leadership and the follower follows it in the leader's own epoch."""
    lrs = s.replica_state[leader]
    frs = s.replica_state[follower]
    return lrs.leader == leader and frs.leader == leader and frs.leader_epoch == lrs.leader_epoch


def has_high_watermark_reached_current_epoch(s: KafkaState, leader: int) -> bool:
    """The leader's HW is at its end, or the record at the HW was written in the leader's epoch."""
    rs = s.replica_state[leader]
    log = s.replica_log[leader]
    return rs.hw == len(log) or (rs.hw < len(log) and log[rs.hw].epoch == rs.leader_epoch)


@action("FencedFollowerFetch", follower=REPLICA, leader=REPLICA)
def fenced_follower_fetch(c: KafkaConstants, s: KafkaState, follower: int, leader: int):
    """A follower in the leader's epoch copies the next record and takes HW = min(leader HW, new end)."""
    if not is_following_leader_epoch(s, leader, follower):
        return None
    return kr.replicate_next_record(c, s, follower, leader)


@action("FencedLeaderIncHighWatermark", leader=REPLICA)
def fenced_leader_inc_high_watermark(c: KafkaConstants, s: KafkaState, leader: int):
    """Advance the HW when every ISR member follows the leader's epoch and holds the offset."""
    rs = s.replica_state[leader]
    hw = rs.hw
    if not has_offset(s.replica_log[leader], hw):
        return None
    for f in rs.isr:
        if not is_following_leader_epoch(s, leader, f) or not has_offset(s.replica_log[f], hw):
            return None
    return kr.with_replica_state(
        s, replace_at(s.replica_state, leader, ReplicaState(hw + 1, rs.leader_epoch, rs.leader, rs.isr)))


@action("FencedLeaderShrinkIsr", leader=REPLICA, follower=REPLICA)
def fenced_leader_shrink_isr(c: KafkaConstants, s: KafkaState, leader: int, follower: int):
    """Drop a follower that is not in the leader's epoch or lags its end offset.

    The guard is a TLA+ disjunction; when both parts hold TLC generates the
    successor once per disjunct, and so do we.
    """
    lrs = s.replica_state[leader]
    # Cheapest guard first: only a presumed leader can pass QuorumUpdateLeaderAndIsr below.
    if lrs.leader != leader or follower == leader or follower not in lrs.isr:
        return None
    isr = lrs.isr
    wrong_epoch = not is_following_leader_epoch(s, leader, follower)
    lagging = len(s.replica_log[follower]) < len(s.replica_log[leader])
    copies = wrong_epoch + lagging
    if not copies:
        return None
    t = kr.quorum_update_leader_and_isr(s, leader, isr - {follower})
    if t is None:
        return None
    return [t] * copies if copies > 1 else t


@action("FencedLeaderExpandIsr", leader=REPLICA, follower=REPLICA)
def fenced_leader_expand_isr(c: KafkaConstants, s: KafkaState, leader: int, follower: int):
    """Add a follower in the leader's epoch that reached the HW, once the HW reached the leader's epoch."""
    rs = s.replica_state[leader]
    if follower in rs.isr or not is_following_leader_epoch(s, leader, follower):
        return None
    if rs.hw > 0 and not has_offset(s.replica_log[follower], rs.hw - 1):
        return None
    if not has_high_watermark_reached_current_epoch(s, leader):
        return None
    return kr.quorum_update_leader_and_isr(s, leader, rs.isr | {follower})


@action("FencedBecomeFollowerAndTruncate", leader=REPLICA, replica=REPLICA)
def fenced_become_follower_and_truncate(c: KafkaConstants, s: KafkaState, leader: int, replica: int):
    """On a newer-epoch LeaderAndIsr, truncate against the leader only once the leader is in that epoch."""
    if leader == replica:
        return None
    lrs = s.replica_state[leader] if leader != NONE else None
    if lrs is not None and lrs.leader != leader:
        return None  # cheapest guard first: the truncation needs a leader that presumes leadership
    rs = s.replica_state[replica]
    out = []
    for req in s.leader_and_isr_requests:
        if req.leader != leader or req.leader_epoch <= rs.leader_epoch:
            continue
        if leader == NONE:
            new_rs = ReplicaState(rs.hw, req.leader_epoch, req.leader, req.isr)
            out.append(kr.with_replica_state(s, replace_at(s.replica_state, replica, new_rs)))
            continue
        if lrs.leader_epoch != req.leader_epoch:
            continue
        offset = first_non_matching_offset(s, leader, replica)
        log = s.replica_log[replica]
        if offset > len(log):
            continue
        new_rs = ReplicaState(min(offset, rs.hw), req.leader_epoch, req.leader, req.isr)
        out.append(kr.with_logs_and_states(
            s, replace_at(s.replica_log, replica, log[:offset]), replace_at(s.replica_state, replica, new_rs)))
    return out or None


def messages(c: KafkaConstants, s: KafkaState, t: KafkaState, action: str, params: dict[str, str]) -> list[dict]:
    """The shared messages, plus the OffsetsForLeaderEpoch walk-back, fenced by the current leader epoch."""
    out = kr.messages(c, s, t, action, params)
    if action == "FencedBecomeFollowerAndTruncate" and t != s:
        epoch = t.replica_state[kr.replica_index(params["replica"])].leader_epoch
        out += truncation_exchange(s, params, "OffsetsForLeaderEpoch(epoch {epoch}, current epoch %d)" % epoch)
    return out


ACTIONS = [
    kr.controller_elect_leader,
    kr.controller_shrink_isr,
    kr.become_leader,
    fenced_leader_expand_isr,
    fenced_leader_shrink_isr,
    kr.leader_write,
    fenced_leader_inc_high_watermark,
    fenced_become_follower_and_truncate,
    fenced_follower_fetch,
]

FAIRNESS = [
    # Kip320.tla:  Spec == Init /\ [][Next]_vars
    strong(fenced_leader_inc_high_watermark),  # /\ SF_vars(FencedLeaderIncHighWatermark)
    strong(fenced_leader_expand_isr),  # /\ SF_vars(FencedLeaderExpandIsr)
    strong(kr.leader_write),  # /\ SF_vars(LeaderWrite)
    weak(fenced_become_follower_and_truncate),  # /\ WF_vars(FencedBecomeFollowerAndTruncate)
    weak(kr.become_leader),  # /\ WF_vars(BecomeLeader)
]
"""The module's Spec: each condition over the whole action (``\\E`` over its parameters), as TLA+ reads it."""

SPEC = Spec(
    name="kip320",
    title="Kip320 (KIP-320: fencing by the current leader epoch)",
    actions=ACTIONS,
    invariants=KAFKA_INVARIANTS,
    description=__doc__,
    reference="modelcheck.specs.kip320:SPEC",
    properties=kr.KAFKA_PROPERTIES,
    fairness=FAIRNESS,
    **dict(kr.BASE_SPEC_OPTIONS, messages=messages),
)
