"""The state and the formulas of ``kraft-elr`` (KIP-966, Eligible Leader Replicas) that differ from Kafka 3.5's.

A port of the helper modules of Jack Vanlightly's TLA+ specification of the
KIP-966 proposal (``Vanlightly/kafka-tlaplus``,
``kafka_data_replication/kraft/kip-966``, MIT licence): ``kip_966_types.tla``
and ``kip_966_functions.tla``.  They are the v3.5 modules with a few changes,
so only those are here; everything else (the model values, the variables,
most records, the network, the commit offset, LastOffsetForEpoch...) is the
same TLA+ text and is taken from :mod:`modelcheck.specs.kraft_state`,
whose docstring says how TLA+ values are encoded.

What KIP-966 changes in these modules:

* the controller's partition metadata and its PartitionChangeRecords carry
  the ELR (``elr``, the eligible leader replicas: former ISR members that
  may still be elected, because the ISR shrank below MinISR without them
  losing data) and ``last_known_elr`` (ELR members removed while the ISR was
  below MinISR);
* the ISR may shrink to empty (``RemoveBrokerFromISR``); the ELR is
  recomputed on every ISR or replica change (``UpdateElr``), and a leader is
  elected from the ELR when the ISR is empty;
* the high watermark advances only while the leader's ISR has at least
  MinISR members (``CanAdvanceHwm``);
* a broker registers with the broker epoch it saved on a clean shutdown, 0
  otherwise, and the controller removes a broker registering with 0 from the
  ISR, the ELR and leadership (``ProcessUncleanBroker``, in the spec);
* the shutdown counters are renamed (``data_loss_shutdown_ctr``,
  ``no_data_loss_shutdown_ctr``) and ``AvoidLastReplicaStanding`` is gone.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs

from modelcheck import constant
from modelcheck.errors import ConstantError
from modelcheck.specs.kraft_state import (
    InvVars,
    KraftState,
    NoLeader,
    PartitionChangeRecord,
    ReplicaPartitionMetadata,
    at,
    commit_offset_on_update,
    inv_of,
    update_hwm_invariant_vars,
)

# -- constants -----------------------------------------------------------------------------------


@attrs.frozen
class ElrConstants:
    """The published kafka_replication_kip_966.cfg's constants under their TLA+ names, and its VIEW line."""

    BrokerCount: int = constant(3, "the number of brokers (more than InitReplicationFactor lets reassignments add one)",
                                minimum=1, maximum=5)
    InitReplicationFactor: int = constant(3, "the initial replication factor (brokers 1..RF host the partition)",
                                          minimum=1, maximum=5)
    Values: int = constant(1, "the producer values that can be written (the .cfg's set {A} as a count)",
                           minimum=1, maximum=3)
    MinISR: int = constant(2, "min.insync.replicas", minimum=1, maximum=5)
    InitIsrSize: int = constant(2, "the initial ISR size (brokers 1..InitIsrSize; the others start out of sync)",
                                minimum=1, maximum=5)
    NoDataLossShutdownLimit: int = constant(
        0, "how many shutdowns that keep the log may happen (each clean, saving the broker epoch, or not)",
        minimum=0, maximum=3)
    DataLossShutdownLimit: int = constant(1, "how many shutdowns that lose the whole log may happen",
                                          minimum=0, maximum=3)
    FenceBrokerLimit: int = constant(1, "how many times the controller may fence a broker arbitrarily",
                                     minimum=0, maximum=3)
    LeaderShrinkIsrLimit: int = constant(0, "how many AlterPartition requests may shrink the ISR", minimum=0, maximum=3)
    ReassignmentLimit: int = constant(0, "how many partition reassignments may be started", minimum=0, maximum=2)
    View: bool = constant(
        True, "the .cfg's `VIEW view` line: states that differ only in the auxiliary variables and "
              "messages_discard are one state, as TLC counts them (false for liveness, as the .cfg says)")

    def __attrs_post_init__(self) -> None:
        # kip_966_types.tla's ASSUMEs (those of v3_5_types.tla).
        if not (self.InitReplicationFactor <= self.BrokerCount and self.InitIsrSize <= self.InitReplicationFactor
                and self.InitIsrSize >= self.MinISR and self.MinISR <= self.InitReplicationFactor):
            raise ConstantError("the module's ASSUMEs need InitReplicationFactor <= BrokerCount and "
                                f"MinISR <= InitIsrSize <= InitReplicationFactor (got {self.InitReplicationFactor}, "
                                f"{self.BrokerCount}, {self.MinISR}, {self.InitIsrSize})")


# -- the records KIP-966 changes (the others are kraft_state's) ----------------------------------------------


class ControllerPartitionMetadata(NamedTuple):
    replicas: frozenset
    isr: frozenset
    elr: frozenset
    last_known_elr: frozenset
    leader: int
    leader_epoch: int
    partition_epoch: int
    adding: frozenset
    removing: frozenset


class MetadataRecord(NamedTuple):
    """A PartitionChangeRecord of the metadata log (a full snapshot of the partition's metadata, with the ELR)."""

    type: int
    replicas: frozenset
    isr: frozenset
    elr: frozenset
    last_known_elr: frozenset
    leader: int
    leader_epoch: int
    partition_epoch: int
    adding: frozenset
    removing: frozenset


class StateSpaceLimitCtrs(NamedTuple):
    incarn_ctr: int
    data_loss_shutdown_ctr: int
    no_data_loss_shutdown_ctr: int
    fence_broker_ctr: int
    leader_shrink_isr_ctr: int
    reassignment_ctr: int


class RegisterBrokerRequestMsg(NamedTuple):
    """The registration request, now with the broker epoch the broker saved on disk (0 when it has none)."""

    type: int
    broker_id: int
    broker_epoch: int
    incarnation_id: int
    dest: int
    source: int


ControllerChange = tuple[ControllerPartitionMetadata, tuple]
"""(con_partition_metadata', con_metadata_log')."""

# -- the high watermark -----------------------------------------------------------------------------------------


def can_advance_hwm(c: ElrConstants, isr: frozenset, old_hwm: int, new_hwm: int) -> bool:
    """``CanAdvanceHwm``: higher, and the leader's ISR (not its maximal ISR) has at least MinISR members."""
    return new_hwm > old_hwm and len(isr) >= c.MinISR


def maybe_advance_high_watermark(c: ElrConstants, s: KraftState, b: int, isr: frozenset, old_hwm: int,
                                 new_hwm: int, ack_type: bool) -> tuple[tuple, InvVars]:
    """``MaybeAdvanceHighWatermark(b, isr, old_hwm, new_hwm, ack_type)``: (partition_data', inv_vars')."""
    if can_advance_hwm(c, isr, old_hwm, new_hwm):
        pd = s.partition_data[b - 1]
        return (at(s.partition_data, b, pd._replace(hwm=new_hwm)),
                update_hwm_invariant_vars(s, b, old_hwm, new_hwm, ack_type))
    return s.partition_data, inv_of(s)


def maybe_update_hwm_and_ack_on_partition_change(c: ElrConstants, s: KraftState, b: int,
                                                 part_md: ReplicaPartitionMetadata) -> tuple[tuple, InvVars]:
    """``MaybeUpdateHwmAndAckOnPartitionChange``: the commit offset over the maximal ISR, gated by the ISR."""
    old_hwm = s.partition_data[b - 1].hwm
    new_hwm = commit_offset_on_update(s, b, part_md.maximal_isr) + 1
    ack_type = len(part_md.maximal_isr) >= c.MinISR
    return maybe_advance_high_watermark(c, s, b, part_md.isr, old_hwm, new_hwm, ack_type)


# -- partition changes on the controller ----------------------------------------------------------------------


def apply_partition_change(c: ElrConstants, s: KraftState, new_replicas: frozenset, new_leader: int,
                           new_isr: frozenset, new_elr: frozenset, leader_epoch: int, part_epoch: int,
                           adding: frozenset, removing: frozenset) -> ControllerChange:
    """``ApplyPartitionChange``: ``last_known_elr`` is emptied once the ISR reaches MinISR, else it gains the
    replicas that just left the ELR."""
    md = s.con_partition_metadata
    if len(new_isr) >= c.MinISR:
        last_known_elr = frozenset()
    else:
        last_known_elr = md.last_known_elr | (new_replicas & (md.elr - new_elr))
    cpm = ControllerPartitionMetadata(new_replicas, new_isr, new_elr, last_known_elr, new_leader, leader_epoch,
                                      part_epoch, adding, removing)
    rec = MetadataRecord(PartitionChangeRecord, new_replicas, new_isr, new_elr, last_known_elr, new_leader,
                         leader_epoch, part_epoch, adding, removing)
    return cpm, s.con_metadata_log + (rec,)


def no_partition_change(s: KraftState) -> ControllerChange:
    return s.con_partition_metadata, s.con_metadata_log


def update_elr(c: ElrConstants, elr: frozenset, original_isr: frozenset, proposed_isr: frozenset,
               replicas: frozenset) -> frozenset:
    """``UpdateElr``: empty once the proposed ISR reaches MinISR; else the ELR (still replicas) and the replicas
    that leave the ISR."""
    if len(proposed_isr) >= c.MinISR:
        return frozenset()
    return (elr & replicas) | ((original_isr & replicas) - proposed_isr)


def update_elr_on_isr_or_replica_change(c: ElrConstants, s: KraftState, proposed_isr: frozenset,
                                        replicas: frozenset) -> frozenset:
    """``UpdateElrOnIsrOrReplicaChange(proposed_isr, replicas)``."""
    md = s.con_partition_metadata
    return update_elr(c, md.elr, md.isr, proposed_isr, replicas)


def remove_broker_from_isr(isr: frozenset, b: int) -> frozenset:
    """``RemoveBrokerFromISR``: the ISR may become empty."""
    return isr - {b}


def no_leader_change(s: KraftState, new_isr: frozenset, new_elr: frozenset, new_unfenced: frozenset) -> bool:
    """``NoLeaderChange``: leaderless with no candidate in the ISR or the ELR, or the leader stays in the ISR."""
    leader = s.con_partition_metadata.leader
    if leader == NoLeader and not new_isr and not any(cand in new_unfenced for cand in new_elr):
        return True
    return leader in new_isr


def maybe_update_partition_on_broker_change(c: ElrConstants, s: KraftState, new_isr: frozenset, new_elr: frozenset,
                                            new_unfenced: frozenset) -> list[ControllerChange]:
    """``MaybeUpdatePartitionOnBrokerChange``: every (con_partition_metadata', con_metadata_log') it allows.

    A CASE: TLC takes the first arm whose guard holds.  A leader is elected
    from a non-empty ISR (any member), else from the unfenced ELR members
    (the one chosen moves from the ELR to the ISR); each candidate is one
    successor, in ascending broker order.  Its last arm (``OTHER``) cannot
    be reached: the two before it are complementary.
    """
    md = s.con_partition_metadata
    unchanged_leader = no_leader_change(s, new_isr, new_elr, new_unfenced)
    if unchanged_leader and new_isr == md.isr and new_elr == md.elr:
        return [no_partition_change(s)]
    le, pe = md.leader_epoch, md.partition_epoch + 1
    if unchanged_leader:
        return [apply_partition_change(c, s, md.replicas, md.leader, new_isr, new_elr, le, pe, md.adding,
                                       md.removing)]
    if new_isr:
        return [apply_partition_change(c, s, md.replicas, cand, new_isr, new_elr, le + 1, pe, md.adding,
                                       md.removing) for cand in sorted(new_isr)]
    candidates = [cand for cand in sorted(new_elr) if cand in new_unfenced]
    if candidates:
        return [apply_partition_change(c, s, md.replicas, cand, new_isr | {cand}, new_elr - {cand}, le + 1, pe,
                                       md.adding, md.removing) for cand in candidates]
    return [apply_partition_change(c, s, md.replicas, NoLeader, new_isr, new_elr, le + 1, pe, md.adding,
                                   md.removing)]


def handle_broker_fenced(c: ElrConstants, s: KraftState, b: int) -> tuple[list[ControllerChange], frozenset]:
    """``HandleBrokerFenced(b)``: out of the ISR (even the last member) and into the ELR while the ISR is below
    MinISR; the (metadata', log') alternatives and con_unfenced'."""
    md = s.con_partition_metadata
    new_isr = remove_broker_from_isr(md.isr, b)
    new_elr = update_elr_on_isr_or_replica_change(c, s, new_isr, md.replicas)
    new_unfenced = s.con_unfenced - {b}
    return maybe_update_partition_on_broker_change(c, s, new_isr, new_elr, new_unfenced), new_unfenced


def handle_broker_unfenced(c: ElrConstants, s: KraftState, b: int) -> tuple[list[ControllerChange], frozenset]:
    """``HandleBrokerUnfenced(b)``: a leaderless partition may get a leader from its ISR or its ELR."""
    md = s.con_partition_metadata
    new_unfenced = s.con_unfenced | {b}
    if md.leader == NoLeader:
        return maybe_update_partition_on_broker_change(c, s, md.isr, md.elr, new_unfenced), new_unfenced
    return [no_partition_change(s)], new_unfenced


def process_unclean_broker(c: ElrConstants, s: KraftState, b: int) -> tuple[list[ControllerChange], frozenset]:
    """``ProcessUncleanBroker(b)``: a broker that registers without a saved broker epoch may have lost data, so it
    leaves the ISR, the ELR and leadership before it is unfenced."""
    md = s.con_partition_metadata
    new_isr = remove_broker_from_isr(md.isr, b)
    new_elr = md.elr - {b}
    new_unfenced = s.con_unfenced | {b}
    return maybe_update_partition_on_broker_change(c, s, new_isr, new_elr, new_unfenced), new_unfenced
