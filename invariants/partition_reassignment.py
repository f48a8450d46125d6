"""What a partition reassignment must keep, as named predicates over a ``partition-reassignment`` state.

* ``LeaderInIsr``: the partition always has a leader, and it is in the ISR
  (otherwise it is offline: no reads, no writes);
* ``AckedRecordsSurvive``: every acknowledged record is in the leader's log,
  or, while there is no leader, in some replica still on disk;
* ``CompletedAtTarget``: once /admin/reassign_partitions is deleted, the
  partition is exactly where the target says: AR (in ZooKeeper) and the
  replicas on disk are RAR, the ISR is within RAR and the leader is in RAR.
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.specs.reassignment_state import NONE, ReassignConstants, ReassignState, replica_sets


@invariant("LeaderInIsr")
def leader_in_isr(c: ReassignConstants, s: ReassignState) -> bool:
    """The partition has a leader, and the leader is in the ISR."""
    return s.leader != NONE and s.leader in s.isr


@invariant("AckedRecordsSurvive")
def acked_records_survive(c: ReassignConstants, s: ReassignState) -> bool:
    """Every acknowledged record is in the leader's log (with no leader: in some replica still on disk)."""
    if s.leader != NONE:
        return s.acked <= frozenset(s.replicas[s.leader].log)
    kept = frozenset(x for r in s.replicas if r.hosted for x in r.log)
    return s.acked <= kept


@invariant("CompletedAtTarget")
def completed_at_target(c: ReassignConstants, s: ReassignState) -> bool:
    """A completed move left AR, the hosted replicas, the ISR and the leader within RAR (AR and replicas exactly RAR)."""
    if s.reassigning:
        return True
    _, new = replica_sets(c)
    hosted = frozenset(b for b, r in enumerate(s.replicas) if r.hosted)
    return s.zk_assignment == new and hosted == new and s.isr <= new and s.leader in new


@sometimes("MoveCompleted")
def move_completed(c: ReassignConstants, s: ReassignState) -> bool:
    """The reassignment completes."""
    return not s.reassigning


@sometimes("ResumedAfterControllerCrash")
def resumed_after_controller_crash(c: ReassignConstants, s: ReassignState) -> bool:
    """The reassignment completes after a controller crashed in the middle of it."""
    return s.crashes > 0 and not s.reassigning


@sometimes("RecordAcked")
def record_acked(c: ReassignConstants, s: ReassignState) -> bool:
    """Some record is acknowledged (otherwise AckedRecordsSurvive says nothing)."""
    return bool(s.acked)


ALL = [leader_in_isr, acked_records_survive, completed_at_target]
SOMETIMES = [move_completed, resumed_after_controller_crash, record_acked]
