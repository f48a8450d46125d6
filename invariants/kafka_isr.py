"""The invariants of KafkaReplication.tla, as pure predicates over a KafkaState.

* ``StrongIsr``: data below any presumed leader's HW is on every member of the
  *quorum* ISR (so any electable replica has everything consumers saw);
* ``WeakIsr``: the same for the leader's *own* view of the ISR;
* ``LeaderInIsr``: exactly as published, which the initial state violates
  (the quorum leader starts as None, not in the ISR); kept as a finding;
* ``LeaderInIsrWhenElected``: the corrected form, which exempts "no leader";
* ``TypeOk``: the intended types (the published TypeOk compares Nil padding
  with records and cannot be evaluated by TLC).
"""

from __future__ import annotations

from modelcheck import invariant
from modelcheck.specs.kafka_replication import NIL, NONE, KafkaConstants, KafkaState


def _agree_below(s: KafkaState, r1: int, r2: int, hw: int) -> bool:
    """Both replicas hold the same record at every offset below ``hw``."""
    log1 = s.replica_log[r1]
    log2 = s.replica_log[r2]
    if len(log1) < hw or len(log2) < hw:
        return False
    return log1[:hw] == log2[:hw]


@invariant("StrongIsr")
def strong_isr(c: KafkaConstants, s: KafkaState) -> bool:
    """Data below a presumed leader's high watermark is on every member of the quorum ISR."""
    isr = s.quorum_state.isr
    for r1, rs in enumerate(s.replica_state):
        if rs.leader != r1 or rs.hw == 0:
            continue
        for r2 in isr:
            if not _agree_below(s, r1, r2, rs.hw):
                return False
    return True


@invariant("WeakIsr")
def weak_isr(c: KafkaConstants, s: KafkaState) -> bool:
    """Data below a presumed leader's high watermark is on every member of the ISR it believes in."""
    for r1, rs in enumerate(s.replica_state):
        if rs.leader != r1 or rs.hw == 0:
            continue
        for r2 in rs.isr:
            if not _agree_below(s, r1, r2, rs.hw):
                return False
    return True


@invariant("LeaderInIsr")
def leader_in_isr(c: KafkaConstants, s: KafkaState) -> bool:
    """As published: the quorum leader is in the quorum ISR (violated by Init, whose leader is None)."""
    return s.quorum_state.leader in s.quorum_state.isr


@invariant("LeaderInIsrWhenElected")
def leader_in_isr_when_elected(c: KafkaConstants, s: KafkaState) -> bool:
    """Corrected LeaderInIsr: whenever the quorum names a leader, that leader is in the quorum ISR."""
    q = s.quorum_state
    return q.leader == NONE or q.leader in q.isr


def _replica_ok(c: KafkaConstants, r: int) -> bool:
    return r == NONE or 0 <= r < c.Replicas


def _epoch_ok(c: KafkaConstants, e: int) -> bool:
    return e == NIL or 0 <= e <= c.MaxLeaderEpoch


def _isr_ok(c: KafkaConstants, isr: frozenset) -> bool:
    return isinstance(isr, frozenset) and all(0 <= r < c.Replicas for r in isr)


@invariant("TypeOk")
def type_ok(c: KafkaConstants, s: KafkaState) -> bool:
    """Every variable has its intended type: bounded ids, epochs, offsets, replicas and ISRs."""
    n = c.Replicas
    if not (0 <= s.next_record_id <= c.MaxRecords and 0 <= s.next_leader_epoch <= c.MaxLeaderEpoch + 1):
        return False
    if len(s.replica_log) != n or len(s.replica_state) != n:
        return False
    for log in s.replica_log:
        if len(log) > c.LogSize:
            return False
        for rec in log:
            if not (0 <= rec.id < c.MaxRecords and 0 <= rec.epoch <= c.MaxLeaderEpoch):
                return False
    for rs in s.replica_state:
        if not (0 <= rs.hw <= c.LogSize and _epoch_ok(c, rs.leader_epoch)
                and _replica_ok(c, rs.leader) and _isr_ok(c, rs.isr)):
            return False
    for q in s.leader_and_isr_requests + (s.quorum_state,):
        if not (_epoch_ok(c, q.leader_epoch) and _replica_ok(c, q.leader) and _isr_ok(c, q.isr)):
            return False
    return True


KAFKA_INVARIANTS = [type_ok, weak_isr, strong_isr, leader_in_isr, leader_in_isr_when_elected]
"""Every KafkaReplication variant declares these, in this order."""
