"""The properties of ``kraft-elr``: a port of ``kip_966_properties.tla`` (Jack Vanlightly, MIT licence).

From ``Vanlightly/kafka-tlaplus``, ``kafka_data_replication/kraft/kip-966``.
Every invariant the TLA+ module defines is here under its TLA+ name; the
default ones are the eight the published .cfg checks (``CFG_INVARIANTS``).
Those the proposal leaves as they were in v3.5 are
:mod:`modelcheck.invariants.kraft_replication`'s; those it changes or adds:

* ``LeaderCandidateCompletenessProperty``: every running member of the ISR
  *or the ELR* holds the committed log (the ELR members are leader
  candidates too);
* ``ReplicationQuorumSupersetProperty``: a non-stale leader's maximal ISR
  is its ISR when no AlterPartition is pending, and, while its ISR has at
  least MinISR members, contains the controller's ISR and ELR;
* ``MinIsrRecoveryQuorum`` (new): when the ISR and the ELR are both empty,
  the last known ELR has exactly MinISR members (so an operator knows
  which MinISR replicas to wait for);
* ``ValidControllerState``: no fenced replica is in the ISR (the ISR may
  now be empty); ``ValidControllerIsrAndElr`` (new): the ISR and the ELR
  are disjoint sets of replicas, and the ELR is empty while the ISR has at
  least MinISR members (spec-bug checks, not in the .cfg);
* ``TypeOK`` also types the ELR and the last known ELR.

The liveness properties and the fairness are v3.5's, word for word (check
them with ``View=false``, as the .cfg's comment asks).
"""

from __future__ import annotations

from modelcheck import invariant
from modelcheck.invariants import kraft_replication as v35
from modelcheck.specs.kraft_elr_state import ElrConstants
from modelcheck.specs.kraft_state import FENCED, RUNNING, UNFENCED, KraftState, brokers, pending_alter_partition_response


@invariant("TypeOK", "Every variable the TLA+ TypeOK names has its declared type (with the ELR and the last "
                     "known ELR as sets of brokers).")
def type_ok(c: ElrConstants, s: KraftState) -> bool:
    md = s.con_partition_metadata
    return (v35.brokers_set(c, md.elr) and v35.brokers_set(c, md.last_known_elr) and v35.type_ok(c, s))


@invariant("ValidControllerState", "The controller's fenced set matches its registrations and no fenced replica is "
                                   "in the ISR (a check on the spec itself).")
def valid_controller_state(c: ElrConstants, s: KraftState) -> bool:
    for b in brokers(c):
        st = s.con_broker_reg[b - 1].status
        if (st == FENCED and b in s.con_unfenced) or (st == UNFENCED and b not in s.con_unfenced):
            return False
    md = s.con_partition_metadata
    return not any(s.con_broker_reg[b - 1].status == FENCED and b in md.isr for b in md.replicas)


@invariant("ValidControllerIsrAndElr", "The ISR and the ELR are disjoint sets of replicas, and the ELR is empty "
                                       "while the ISR has MinISR members (a check on the spec itself).")
def valid_controller_isr_and_elr(c: ElrConstants, s: KraftState) -> bool:
    md = s.con_partition_metadata
    return (md.isr <= md.replicas and md.elr <= md.replicas and not (md.elr & md.isr)
            and (len(md.isr) < c.MinISR or not md.elr))


@invariant("ReplicationQuorumSupersetProperty",
           "A non-stale leader's maximal ISR is its ISR when no AlterPartition is pending and, while its ISR has "
           "MinISR members, contains the controller's ISR and ELR.")
def replication_quorum_superset(c: ElrConstants, s: KraftState) -> bool:
    md = s.con_partition_metadata
    for b in brokers(c):
        if not v35.is_non_stale_leader(s, b):
            continue
        pm = s.partition_metadata[b - 1]
        if not pending_alter_partition_response(s, b) and pm.maximal_isr != pm.isr:
            return False
        if len(pm.isr) >= c.MinISR and not (md.isr <= pm.maximal_isr and md.elr <= pm.maximal_isr):
            return False
    return True


@invariant("LeaderCandidateCompletenessProperty",
           "Every running member of the controller's ISR or ELR holds the committed log (LEO >= the true high "
           "watermark).")
def leader_candidate_completeness(c: ElrConstants, s: KraftState) -> bool:
    if s.inv_true_hwm <= 1:
        return True
    md = s.con_partition_metadata
    return not any(s.partition_data[b - 1].leo < s.inv_true_hwm and s.broker_state[b - 1].status == RUNNING
                   for b in md.isr | md.elr)


@invariant("MinIsrRecoveryQuorum", "When the ISR and the ELR are both empty, the last known ELR has exactly MinISR "
                                   "members.")
def min_isr_recovery_quorum(c: ElrConstants, s: KraftState) -> bool:
    md = s.con_partition_metadata
    if md.isr or md.elr:
        return True
    return len(md.last_known_elr) == c.MinISR


INVARIANTS = [type_ok, v35.valid_broker_state, v35.valid_replica_state, v35.valid_fetcher_state,
              valid_controller_state, valid_controller_isr_and_elr, replication_quorum_superset,
              leader_candidate_completeness, v35.leader_completeness, v35.log_matching, v35.metadata_log_matching,
              v35.no_committed_record_lost_globally, v35.consistent_read, min_isr_recovery_quorum, v35.test_inv]

CFG_INVARIANTS = ["LeaderCompletenessProperty", "LeaderCandidateCompletenessProperty",
                  "ReplicationQuorumSupersetProperty", "LogMatchingProperty", "MetadataLogMatchingProperty",
                  "ConsistentReadProperty", "MinIsrRecoveryQuorum", "NoCommittedRecordLostGlobally"]
"""What kafka_replication_kip_966.cfg checks, in its order."""

PROPERTIES = v35.PROPERTIES
"""The seven liveness properties of the module, the same as v3.5's."""

view = v35.view


def lanes(c: ElrConstants, s: KraftState) -> dict:
    """v3.5's rows per broker, and whether the broker is in the controller's ELR and last known ELR."""
    rows = v35.lanes(c, s)
    md = s.con_partition_metadata
    for b in brokers(c):
        rows[f"b{b}"]["in controller ELR"] = b in md.elr
        rows[f"b{b}"]["in last known ELR"] = b in md.last_known_elr
    return rows


__all__ = ["INVARIANTS", "CFG_INVARIANTS", "PROPERTIES", "view", "lanes"]
