"""Kafka 3.5 data replication with the KRaft controller: a port of Jack Vanlightly's TLA+ specification.

Source: ``Vanlightly/kafka-tlaplus``, ``kafka_data_replication/kraft/v3.5``
(``kafka_replication_v3_5.tla`` and its helper modules, MIT licence, Jack
Vanlightly).  The port keeps the TLA+ names: the 23 variables (fields of
:class:`~modelcheck.specs.kraft_state.KraftState`), the 16 actions of
``Next`` (each broker action takes the broker ``b``, as in the TLA+, and is
declared once per broker, in TLC's order: see :func:`for_broker`), the
constants of the published ``kafka_replication_v3_5.cfg`` (``Values``, a set
of model values there, is a count here; the model values the .cfg assigns
to themselves are the constants of :mod:`~modelcheck.specs.kraft_state`).

What it models: the controller (broker registration, fencing and unfencing,
leader election, the ISR through AlterPartition, reassignment, a metadata
log that brokers replicate in order) and one partition's replicas (fetch
with diverging-epoch truncation, the high watermark over the maximal ISR,
producer acknowledgements with acks=all), with clean and unclean shutdowns.
Everything is message passing as in the TLA+ (a set of messages, processed
ones moved to ``messages_discard``).  Constants bound the perturbations
(shutdowns, fencing, ISR shrinks, reassignments); healing is never bounded.

**TLC's VIEW.** The .cfg fingerprints ``view``, every variable but the
auxiliary ones (``aux_broker_epoch``, ``aux_ctrs``, ``aux_flo``) and
``messages_discard``; states that differ only there are one state, the first
one found.  The spec declares that view (``fingerprint_view``), in force
while the constant ``View`` is true (the default), so the counts are TLC's;
``View=false`` is the .cfg with its VIEW line commented out, which its
comment asks for liveness checks.

**Successors are counted as TLC counts them.**  Every ``\\E`` of an action
yields one successor per witness (a message, an unreplicated metadata
offset, a subset of the ISR deemed timed out, a leader candidate...), even
when several witnesses lead to the same state, and each is one "state
generated".  So does every true disjunct of a disjunction TLC meets as part
of an action, even inside an operator's body (``PartitionNeedsAction``,
``ValidReassignment``): TLC follows each disjunct on its own.  A CASE, an
IF and a LET are evaluated, not followed: a CASE takes its first arm whose
guard holds, as TLC does.

Left out: nothing of ``Next``.  The properties are in
:mod:`modelcheck.invariants.kraft_replication`, with the fairness of the
TLA+ ``Liveness`` formula (weak fairness of each recovery action, for each
broker).
"""

from __future__ import annotations

from typing import Any

from modelcheck import Domain, Spec, action, weak
from modelcheck.specs.kraft_state import (
    EMPTY,
    FENCED,
    OFFLINE_CLEAN,
    OFFLINE_DIRTY,
    RUNNING,
    STARTING,
    UNFENCED,
    AlterPartitionRequest,
    AlterPartitionRequestMsg,
    AlterPartitionResponse,
    AlterPartitionResponseError,
    AlterPartitionResponseOk,
    BlankFetchState,
    BlankMetadata,
    BlankPendingAp,
    BlankReplicaState,
    BrokerFetcher,
    BrokerSideState,
    Controller,
    ControllerPartitionMetadata,
    ControllerSideBrokerState,
    EpochAndOffset,
    FencedLeaderEpoch,
    FetchRequest,
    FetchRequestMsg,
    FetchRequestPartition,
    FetchResponse,
    FetchResponseMsg,
    FetchResponsePartition,
    Follower,
    IntMax,
    KraftConstants,
    KraftState,
    Leader,
    MetadataRecord,
    Nil,
    NoLeader,
    NotLeaderOrFollower,
    PartitionChangeRecord,
    PartitionData,
    PartitionFetchState,
    PartitionRecord,
    PeerReplicaState,
    PendingAlterPartition,
    RegisterBrokerRequest,
    RegisterBrokerRequestMsg,
    RegisterBrokerResponse,
    RegisterBrokerResponseMsg,
    ReplicaPartitionMetadata,
    StateSpaceLimitCtrs,
    TlcWouldFail,
    UnknownLeaderEpoch,
    at,
    brokers,
    commit_offset_on_fetch,
    commit_offset_on_write,
    discard,
    drop_fetch_sessions,
    fetcher,
    handle_broker_fenced,
    handle_broker_unfenced,
    hwm_of,
    is_partition_added,
    last_offset_for_epoch,
    leo_of,
    log_entry,
    log_of,
    maybe_advance_high_watermark,
    maybe_fail_pending_writes,
    maybe_update_hwm_and_ack_on_partition_change,
    message_order,
    partition_needs_action,
    pending_alter_partition_response,
    previously_sent,
    reassignment_in_progress,
    reply,
    require_offset,
    reset_all_follower_state,
    reset_follower_state_of_all_but_isr,
    send_acks_for,
    subsets,
    tlc_view,
    unreplicated_offsets,
    update_hwm_invariant_vars,
    validate_alter_partition_request,
)

MAX_BROKERS = 5
"""The largest BrokerCount (:class:`KraftConstants`): each broker action is declared for brokers 1..5."""


def init(c: KraftConstants) -> list[KraftState]:
    """``Init``: an established partition led by broker 1, brokers ``1..InitIsrSize`` in the ISR.

    The TLA+ CHOOSEs the replica set and the ISR among the subsets holding
    broker 1; TLC's CHOOSE takes the first, ``1..InitReplicationFactor`` and
    ``1..InitIsrSize``.
    """
    bs = brokers(c)
    init_replicas = frozenset(range(1, c.InitReplicationFactor + 1))
    init_isr = frozenset(range(1, c.InitIsrSize + 1))
    part_epoch = 1 if c.InitIsrSize == c.InitReplicationFactor else 2
    metadata_log = (MetadataRecord(PartitionChangeRecord, init_replicas, init_isr, 1, 1, part_epoch, EMPTY, EMPTY),)
    init_unfenced = frozenset(bs) - (init_replicas - init_isr)

    def metadata(b: int) -> ReplicaPartitionMetadata:
        if b not in init_replicas:
            return BlankMetadata
        if b in init_isr:
            return ReplicaPartitionMetadata(init_replicas, init_isr, init_isr, 1, 1, part_epoch)
        return ReplicaPartitionMetadata(init_replicas, init_replicas, init_replicas, 1, 1, 1)

    def fetchers(b: int) -> tuple:
        return tuple(BrokerFetcher(PartitionFetchState(1, 0, False), False) if b != 1 and b1 == 1
                     else BlankFetchState for b1 in bs)

    return [KraftState(
        con_unfenced=init_unfenced,
        con_broker_reg=tuple(ControllerSideBrokerState(UNFENCED if b in init_unfenced else FENCED, b, b) for b in bs),
        con_partition_metadata=ControllerPartitionMetadata(init_replicas, init_isr, 1, 1, part_epoch, EMPTY, EMPTY),
        con_metadata_log=metadata_log,
        broker_state=tuple(BrokerSideState(RUNNING, b, b, True) for b in bs),
        broker_fetchers=tuple(fetchers(b) for b in bs),
        broker_metadata_log=tuple(metadata_log if b in init_unfenced else () for b in bs),
        partition_status=tuple(Leader if b == 1 else Follower if b in init_replicas else Nil for b in bs),
        partition_metadata=tuple(metadata(b) for b in bs),
        partition_data=tuple(PartitionData((), 1, 1) for _ in bs),
        partition_leso=tuple(1 if b == 1 else Nil for b in bs),
        partition_replica_state=tuple((BlankReplicaState,) * c.BrokerCount for _ in bs),
        partition_pending_ap=tuple(BlankPendingAp for _ in bs),
        aux_broker_epoch=c.BrokerCount,
        aux_ctrs=StateSpaceLimitCtrs(c.BrokerCount + 1, 0, 0, 0, 0, 0),
        aux_flo=(IntMax,) * c.BrokerCount,
        inv_sent=EMPTY,
        inv_pos_acked=EMPTY,
        inv_neg_acked=EMPTY,
        inv_true_hwm=1,
        inv_consumed=(),
        messages=EMPTY,
        messages_discard=EMPTY,
    )]


# -- broker registration, fencing ------------------------------------------------------------------------------


def broker_start(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A stopped broker starts (STARTING) and sends a RegisterBrokerRequest with a new incarnation id."""
    if s.broker_state[b - 1].status not in (OFFLINE_CLEAN, OFFLINE_DIRTY):
        return None
    ctrs = s.aux_ctrs
    req = RegisterBrokerRequestMsg(RegisterBrokerRequest, b, ctrs.incarn_ctr, Controller, b)
    return s._replace(
        broker_state=at(s.broker_state, b, BrokerSideState(STARTING, 0, ctrs.incarn_ctr, False)),
        partition_status=at(s.partition_status, b, Nil),
        messages=s.messages | {req},
        aux_ctrs=ctrs._replace(incarn_ctr=ctrs.incarn_ctr + 1))


def receive_broker_reg_request(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The controller registers a broker (FENCED, or the same incarnation): UNFENCED, with a new broker epoch."""
    out = []
    for m in message_order(s.messages):
        if m.type != RegisterBrokerRequest or b != m.source:
            continue
        reg = s.con_broker_reg[b - 1]
        if not (reg.status == FENCED or (reg.status != FENCED and reg.incarnation_id == m.incarnation_id)):
            continue
        broker_epoch = s.aux_broker_epoch + 1
        changes, new_unfenced = handle_broker_unfenced(s, b)
        messages, messages_discard = reply(s, m, RegisterBrokerResponseMsg(
            RegisterBrokerResponse, broker_epoch, m.incarnation_id, len(s.con_metadata_log), b, Controller))
        con_broker_reg = at(s.con_broker_reg, b, ControllerSideBrokerState(UNFENCED, broker_epoch, m.incarnation_id))
        for md, log in changes:
            out.append(s._replace(con_broker_reg=con_broker_reg, con_partition_metadata=md, con_metadata_log=log,
                                  con_unfenced=new_unfenced, messages=messages, messages_discard=messages_discard,
                                  aux_broker_epoch=s.aux_broker_epoch + 1))
    return out


def receive_broker_reg_response(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A STARTING broker gets its registration: RUNNING, caught up to the metadata log bar one record."""
    out = []
    bs = s.broker_state[b - 1]
    if bs.status != STARTING or bs.registered:
        return out
    for m in message_order(s.messages):
        if m.type != RegisterBrokerResponse or b != m.dest or bs.incarnation_id != m.incarnation_id:
            continue
        log = () if m.metadata_offset <= 1 else s.con_metadata_log[:m.metadata_offset - 1]  # __CatchUpBarOne
        messages, messages_discard = discard(s, m)
        out.append(s._replace(
            broker_state=at(s.broker_state, b, BrokerSideState(RUNNING, m.broker_epoch,
                                                               s.broker_state[m.dest - 1].incarnation_id, True)),
            broker_metadata_log=at(s.broker_metadata_log, m.dest, log),
            partition_metadata=at(s.partition_metadata, m.dest, BlankMetadata),
            messages=messages, messages_discard=messages_discard))
    return out


def unfence_broker(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The controller unfences a fenced, running broker (a heartbeat, not modelled); a leaderless partition may
    get a leader."""
    reg = s.con_broker_reg[b - 1]
    if reg.status != FENCED or s.broker_state[b - 1].status != RUNNING:
        return None
    changes, new_unfenced = handle_broker_unfenced(s, b)
    con_broker_reg = at(s.con_broker_reg, b, reg._replace(status=UNFENCED))
    return [s._replace(con_partition_metadata=md, con_metadata_log=log, con_unfenced=new_unfenced,
                       con_broker_reg=con_broker_reg) for md, log in changes]


def fence_broker(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The controller fences an unfenced broker (missed heartbeats): out of the ISR (never below one), not leader."""
    if s.aux_ctrs.fence_broker_ctr >= c.FenceBrokerLimit:
        return None
    reg = s.con_broker_reg[b - 1]
    if reg.status != UNFENCED:
        return None
    changes, new_unfenced = handle_broker_fenced(s, b)
    con_broker_reg = at(s.con_broker_reg, b, reg._replace(status=FENCED))
    ctrs = s.aux_ctrs._replace(fence_broker_ctr=s.aux_ctrs.fence_broker_ctr + 1)
    return [s._replace(con_partition_metadata=md, con_metadata_log=log, con_unfenced=new_unfenced,
                       con_broker_reg=con_broker_reg, aux_ctrs=ctrs) for md, log in changes]


# -- ReceiveMetadataUpdate --------------------------------------------------------------------------------------


def _add_partition_to_fetcher(c: KraftConstants, s: KraftState, b: int, leader: int, leader_epoch: int) -> tuple:
    """``AddPartitionToFetcher``: broker_fetchers'."""
    if leader_epoch > s.partition_metadata[b - 1].leader_epoch or not is_partition_added(s, b, leader):
        log = log_of(s, b)
        add = PartitionFetchState(leo_of(s, b), 0 if not log else log[-1].epoch, False)
        row = s.broker_fetchers[b - 1]
        return at(s.broker_fetchers, b,
                  tuple(row[peer - 1]._replace(partition=add if peer == leader else Nil) for peer in brokers(c)))
    return s.broker_fetchers


def remove_partition_from_fetchers(c: KraftConstants, s: KraftState, b: int) -> tuple:
    """``RemovePartitionFromFetchers``: broker_fetchers'."""
    row = s.broker_fetchers[b - 1]
    return at(s.broker_fetchers, b, tuple(BrokerFetcher(Nil, row[b1 - 1].pending_response) for b1 in brokers(c)))


def _renounce(c: KraftConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata) -> dict:
    """``EnsureLeadershipRenounced``: the fields it sets."""
    pos, neg = maybe_fail_pending_writes(c, s, b, new_part_md)
    return dict(inv_pos_acked=pos, inv_neg_acked=neg,
                partition_replica_state=reset_all_follower_state(c, s, b),
                partition_pending_ap=at(s.partition_pending_ap, b, BlankPendingAp),
                aux_flo=at(s.aux_flo, b, IntMax))


def _with_hwm(changes: dict, pd: tuple, inv: Any) -> dict:
    changes.update(partition_data=pd, inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                   inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed)
    return changes


def _remain_leader(c: KraftConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata) -> dict:
    pd, inv = maybe_update_hwm_and_ack_on_partition_change(c, s, b, new_part_md)
    changes = _with_hwm({}, pd, inv)
    if new_part_md.partition_epoch >= s.partition_pending_ap[b - 1].epoch:
        changes["partition_pending_ap"] = at(s.partition_pending_ap, b, BlankPendingAp)
    return changes


def _become_leader_in_new_epoch(c: KraftConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata,
                                is_new_leader: bool) -> dict:
    pd, inv = maybe_update_hwm_and_ack_on_partition_change(c, s, b, new_part_md)
    return _with_hwm(dict(
        partition_status=at(s.partition_status, b, Leader),
        partition_leso=at(s.partition_leso, b, leo_of(s, b)),
        partition_replica_state=(reset_all_follower_state(c, s, b) if is_new_leader
                                 else reset_follower_state_of_all_but_isr(c, s, b, new_part_md)),
        partition_pending_ap=at(s.partition_pending_ap, b, BlankPendingAp),
        broker_fetchers=remove_partition_from_fetchers(c, s, b)), pd, inv)


def become_follower_in_new_epoch(c: KraftConstants, s: KraftState, b: int,
                                  new_part_md: ReplicaPartitionMetadata) -> dict:
    changes = dict(partition_status=at(s.partition_status, b, Follower),
                   broker_fetchers=_add_partition_to_fetcher(c, s, b, new_part_md.leader, new_part_md.leader_epoch),
                   partition_leso=at(s.partition_leso, b, Nil))
    changes.update(_renounce(c, s, b, new_part_md))
    return changes


def wait_for_leader_change(c: KraftConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata) -> dict:
    changes = dict(partition_status=at(s.partition_status, b, Nil),
                   broker_fetchers=remove_partition_from_fetchers(c, s, b),
                   partition_leso=at(s.partition_leso, b, Nil))
    changes.update(_renounce(c, s, b, new_part_md))
    return changes


def delete_partition(c: KraftConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata) -> dict:
    changes = dict(partition_status=at(s.partition_status, b, Nil),
                   broker_fetchers=remove_partition_from_fetchers(c, s, b),
                   partition_leso=at(s.partition_leso, b, Nil),
                   partition_data=at(s.partition_data, b, PartitionData((), 1, 1)))
    changes.update(_renounce(c, s, b, new_part_md))
    return changes


def receive_metadata_update(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A broker replicates metadata records up to one that concerns its replica, and acts on the last one.

    Six sub-actions, chosen by a CASE: RemainLeader, BecomeLeaderInNewEpoch
    (a follower elected, or the leader re-elected), RemainFollower,
    BecomeFollowerInNewEpoch, WaitForLeaderChange and DeletePartition.
    """
    bstate = s.broker_state[b - 1]
    if bstate.status in (OFFLINE_CLEAN, OFFLINE_DIRTY) or not bstate.registered:
        return None
    out = []
    own_log = s.broker_metadata_log[b - 1]
    curr = s.partition_metadata[b - 1]
    for md_offset in unreplicated_offsets(s, b):
        needs = partition_needs_action(s, b, md_offset)  # TLC generates the successor once per true disjunct
        if not needs:
            continue
        rec = s.con_metadata_log[md_offset - 1]
        append_records = s.con_metadata_log[len(own_log):md_offset]
        new_md = ReplicaPartitionMetadata(rec.replicas, rec.isr, rec.isr, rec.leader, rec.leader_epoch,
                                          rec.partition_epoch)
        is_new_leader = s.partition_status[b - 1] != Leader and rec.leader == b
        changes: dict = dict(broker_metadata_log=at(s.broker_metadata_log, b, own_log + append_records))
        if new_md.partition_epoch > curr.partition_epoch:
            changes["partition_metadata"] = at(s.partition_metadata, b,
                                               new_md if b in new_md.replicas else BlankMetadata)
            if b in curr.replicas and b not in new_md.replicas:
                changes.update(delete_partition(c, s, b, new_md))
            elif curr.leader == b and rec.leader == b:
                if curr.leader_epoch == new_md.leader_epoch:
                    changes.update(_remain_leader(c, s, b, new_md))
                else:
                    changes.update(_become_leader_in_new_epoch(c, s, b, new_md, is_new_leader))
            elif curr.leader != b and rec.leader == b:
                changes.update(_become_leader_in_new_epoch(c, s, b, new_md, is_new_leader))
            elif b in new_md.replicas and rec.leader != NoLeader:
                if (new_md.leader_epoch == curr.leader_epoch and curr.leader != b and new_md.leader != b):
                    # RemainFollower leaves aux_flo unassigned: TLC stops with "not completely specified".
                    raise TlcWouldFail("ReceiveMetadataUpdate: the RemainFollower sub-action does not assign "
                                       "aux_flo, so TLC stops (the successor is not completely specified)")
                changes.update(become_follower_in_new_epoch(c, s, b, new_md))
            else:
                if b not in new_md.replicas:
                    continue
                changes.update(wait_for_leader_change(c, s, b, new_md))
        out.extend([s._replace(**changes)] * needs)
    return out


# -- AlterPartition ---------------------------------------------------------------------------------------------


def _isr_and_epochs(s: KraftState, b: int, proposed_isr: frozenset, curr_isr: frozenset) -> tuple:
    """``IsrAndEpochs``: the leader's and each added member's broker epoch, 0 for members already in the ISR."""
    def epoch(b1: int) -> int:
        if b == b1:
            return s.broker_state[b - 1].broker_epoch
        if b1 in curr_isr:
            return 0
        return s.partition_replica_state[b - 1][b1 - 1].broker_epoch
    return tuple((b1, epoch(b1)) for b1 in sorted(proposed_isr))


def _follower_is_caught_up(s: KraftState, b: int, follower: int, follower_leo: int, curr_isr: frozenset,
                           timed_out_isr: frozenset) -> bool:
    if follower in curr_isr:
        return follower not in timed_out_isr
    return follower_leo != Nil and follower_leo >= hwm_of(s, b) and follower_leo >= s.partition_leso[b - 1]


def _do_send_alter_partition_request(c: KraftConstants, s: KraftState, b: int, timed_out_isr: frozenset) -> Any:
    if b in timed_out_isr:
        return None
    pm = s.partition_metadata[b - 1]
    curr_isr = pm.isr
    proposed = frozenset(b1 for b1 in pm.replicas if b1 == b or _follower_is_caught_up(
        s, b, b1, s.partition_replica_state[b - 1][b1 - 1].leo, curr_isr, timed_out_isr))
    if proposed == curr_isr:
        return None
    req = AlterPartitionRequestMsg(AlterPartitionRequest, proposed, _isr_and_epochs(s, b, proposed, curr_isr), b,
                                   pm.leader_epoch, pm.partition_epoch, s.broker_state[b - 1].broker_epoch, b,
                                   Controller)
    if previously_sent(s, req) and validate_alter_partition_request(s, req.source, req) != Nil:  # __AvoidCycle
        return None
    ctrs = s.aux_ctrs
    if any(b1 not in proposed for b1 in curr_isr):
        ctrs = ctrs._replace(leader_shrink_isr_ctr=ctrs.leader_shrink_isr_ctr + 1)
    return s._replace(
        messages=s.messages | {req},
        partition_metadata=at(s.partition_metadata, b, pm._replace(maximal_isr=proposed | curr_isr)),
        partition_pending_ap=at(s.partition_pending_ap, b, PendingAlterPartition(pm.partition_epoch + 1, req)),
        aux_ctrs=ctrs)


def send_alter_partition_request(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The leader proposes a new ISR: caught-up followers join; while shrinks are allowed, any subset of the ISR
    may be deemed timed out.  The maximal ISR (proposed and current) is applied at once."""
    if (s.broker_state[b - 1].status != RUNNING or pending_alter_partition_response(s, b)
            or s.partition_status[b - 1] != Leader):
        return None
    if s.aux_ctrs.leader_shrink_isr_ctr < c.LeaderShrinkIsrLimit:
        out = []
        for timed_out in subsets(s.partition_metadata[b - 1].isr):
            if b in timed_out:
                continue
            t = _do_send_alter_partition_request(c, s, b, timed_out)
            if t is not None:
                out.append(t)
        return out
    return _do_send_alter_partition_request(c, s, b, EMPTY)


def receive_alter_partition_request(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The controller accepts an AlterPartition request from the current leader with current epochs and eligible
    members (possibly completing a reassignment), or rejects it."""
    out = []
    for m in message_order(s.messages):
        if m.type != AlterPartitionRequest or b != m.source:
            continue
        md = s.con_partition_metadata
        error = validate_alter_partition_request(s, b, m)
        if error == Nil:
            final_replicas = md.replicas - md.removing
            final_isr = m.isr - md.removing
            complete = (reassignment_in_progress(s) and all(b1 in final_isr for b1 in md.adding)
                        and len(final_isr) >= c.MinISR)
            if complete:
                replicas, isr, le, pe, adding, removing = (final_replicas, final_isr, md.leader_epoch + 1,
                                                           md.partition_epoch + 1, EMPTY, EMPTY)
            else:
                replicas, isr, le, pe, adding, removing = (md.replicas, m.isr, md.leader_epoch,
                                                           md.partition_epoch + 1, md.adding, md.removing)
            for new_leader in sorted(isr):
                if md.leader in isr and new_leader != md.leader:
                    continue
                cpm = ControllerPartitionMetadata(replicas, isr, new_leader, le, pe, adding, removing)
                log = s.con_metadata_log + (MetadataRecord(PartitionChangeRecord, replicas, isr, new_leader, le, pe,
                                                           adding, removing),)
                messages, messages_discard = reply(s, m, AlterPartitionResponseOk(
                    AlterPartitionResponse, Nil, replicas, isr, new_leader, le, pe, m, b, Controller))
                out.append(s._replace(con_partition_metadata=cpm, con_metadata_log=log, messages=messages,
                                      messages_discard=messages_discard))
        else:
            messages, messages_discard = reply(s, m, AlterPartitionResponseError(
                AlterPartitionResponse, error, m, b, Controller))
            out.append(s._replace(messages=messages, messages_discard=messages_discard))
    return out


def receive_alter_partition_response(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The leader applies the ISR the controller accepted, or rolls its maximal ISR back on an error."""
    if (s.broker_state[b - 1].status != RUNNING or s.partition_status[b - 1] != Leader
            or not pending_alter_partition_response(s, b)):
        return []
    out = []
    pm = s.partition_metadata[b - 1]
    for m in message_order(s.messages):
        if m.type != AlterPartitionResponse or b != m.dest or s.partition_pending_ap[b - 1].request != m.request:
            continue
        if m.error == Nil:
            if not (m.partition_epoch > pm.partition_epoch and m.leader_epoch == pm.leader_epoch):
                continue
            part_state = ReplicaPartitionMetadata(m.replicas, m.isr, m.isr, m.leader, m.leader_epoch,
                                                  m.partition_epoch)
        else:
            part_state = pm._replace(maximal_isr=pm.isr)
        pd, inv = maybe_update_hwm_and_ack_on_partition_change(c, s, b, part_state)
        messages, messages_discard = discard(s, m)
        out.append(s._replace(partition_metadata=at(s.partition_metadata, b, part_state), partition_data=pd,
                              inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                              inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed,
                              partition_pending_ap=at(s.partition_pending_ap, b, BlankPendingAp),
                              messages=messages, messages_discard=messages_discard))
    return out


# -- reassignment ------------------------------------------------------------------------------------------------


@action("PerformPartitionReassignment")
def perform_partition_reassignment(c: KraftConstants, s: KraftState) -> Any:
    """An operator reassigns the partition: replicas to add and to remove (the target set keeps MinISR)."""
    if s.aux_ctrs.reassignment_ctr >= c.ReassignmentLimit or reassignment_in_progress(s):
        return None
    md = s.con_partition_metadata
    out = []
    ctrs = s.aux_ctrs._replace(reassignment_ctr=s.aux_ctrs.reassignment_ctr + 1)
    every = subsets(brokers(c))
    for adding in every:
        for removing in every:
            # ValidReassignment's first conjunct is a disjunction: TLC follows each true disjunct, so a
            # reassignment that both adds and removes replicas is generated twice.
            valid = (len(adding) >= 1) + (len(removing) >= 1)
            if not valid:
                continue
            if len(md.replicas) + len(adding) - len(removing) < c.MinISR:
                continue
            if any(r in md.replicas for r in adding) or any(r not in md.replicas for r in removing):
                continue
            grow_replicas = md.replicas | adding
            final_replicas = grow_replicas - removing
            final_isr = md.isr - removing
            complete = all(b1 in final_isr for b1 in adding) and len(final_isr) >= c.MinISR and len(final_replicas) > 0
            if complete:
                replicas, isr, le, pe, add, rem = (final_replicas, final_isr, md.leader_epoch + 1,
                                                   md.partition_epoch + 1, EMPTY, EMPTY)
            else:
                replicas, isr, le, pe, add, rem = (grow_replicas, md.isr, md.leader_epoch, md.partition_epoch + 1,
                                                   adding, removing)
            for new_leader in sorted(isr):
                if md.leader in isr and new_leader != md.leader:
                    continue
                cpm = ControllerPartitionMetadata(replicas, isr, new_leader, le, pe, add, rem)
                log = s.con_metadata_log + (MetadataRecord(PartitionChangeRecord, replicas, isr, new_leader, le, pe,
                                                           add, rem),)
                out.extend([s._replace(con_partition_metadata=cpm, con_metadata_log=log, aux_ctrs=ctrs)] * valid)
    return out


# -- fetching -------------------------------------------------------------------------------------------------------


def _converged(s: KraftState, leader: int, follower: int) -> bool:
    pdl, pdf = s.partition_data[leader - 1], s.partition_data[follower - 1]
    rs = s.partition_replica_state[leader - 1][follower - 1]
    return (pdl.leo == pdf.leo and pdl.hwm == pdf.hwm and rs.leo == pdf.leo
            and rs.broker_epoch == s.broker_state[follower - 1].broker_epoch)


def send_fetch_request(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A follower fetches from the broker it believes leads (``from`` is ``b``; one successor per leader ``to``)."""
    frm = b
    if s.broker_state[frm - 1].status != RUNNING:
        return []
    out = []
    for to in brokers(c):
        if frm == to:
            continue
        f = fetcher(s, frm, to)
        if f.partition == Nil or f.pending_response or s.partition_metadata[frm - 1].leader != to:
            continue
        if _converged(s, to, frm):
            continue
        req = FetchRequestMsg(FetchRequest, s.broker_state[frm - 1].broker_epoch,
                              FetchRequestPartition(s.partition_metadata[frm - 1].leader_epoch,
                                                    f.partition.fetch_offset, f.partition.last_fetched_epoch),
                              to, frm)
        row = s.broker_fetchers[frm - 1]
        new_f = BrokerFetcher(f.partition._replace(delayed=False), True)
        out.append(s._replace(messages=s.messages | {req},
                              broker_fetchers=at(s.broker_fetchers, frm, at(row, to, new_f))))
    return out


def receive_fetch_request(c: KraftConstants, s: KraftState, b: int) -> Any:
    """The leader answers a fetch: an epoch error, a diverging epoch, or the next record (and it may advance its
    high watermark from the fetch offset)."""
    if s.broker_state[b - 1].status != RUNNING:
        return []
    out = []
    pm = s.partition_metadata[b - 1]
    for m in message_order(s.messages):
        if m.type != FetchRequest or b != m.dest:
            continue
        mp = m.partition
        if s.partition_status[b - 1] != Leader or pm.leader_epoch != mp.leader_epoch:
            error = (UnknownLeaderEpoch if pm.leader_epoch < mp.leader_epoch
                     else FencedLeaderEpoch if pm.leader_epoch > mp.leader_epoch else NotLeaderOrFollower)
            messages, messages_discard = reply(s, m, FetchResponseMsg(FetchResponse, FetchResponsePartition(
                error, pm.leader_epoch, mp.fetch_offset, Nil, hwm_of(s, b), ()), m.source, m.dest))
            out.append(s._replace(messages=messages, messages_discard=messages_discard))
            continue
        last_epoch = last_offset_for_epoch(s, b, mp.last_fetched_epoch, True)
        if (last_epoch.epoch < mp.last_fetched_epoch
                or require_offset(last_epoch.offset, "ReceiveFetchRequest") < mp.fetch_offset):
            messages, messages_discard = reply(s, m, FetchResponseMsg(FetchResponse, FetchResponsePartition(
                Nil, pm.leader_epoch, mp.fetch_offset, last_epoch, hwm_of(s, b), ()), m.source, m.dest))
            out.append(s._replace(messages=messages, messages_discard=messages_discard))
            continue
        updated = at(s.partition_replica_state[b - 1], m.source, PeerReplicaState(mp.fetch_offset, m.broker_epoch))
        old_hwm = hwm_of(s, b)
        new_hwm = commit_offset_on_fetch(s, b, updated) + 1
        pd, inv = maybe_advance_high_watermark(s, b, old_hwm, new_hwm, True)
        records = (log_entry(s, b, mp.fetch_offset),) if mp.fetch_offset < leo_of(s, b) else ()
        messages, messages_discard = reply(s, m, FetchResponseMsg(FetchResponse, FetchResponsePartition(
            Nil, pm.leader_epoch, mp.fetch_offset, Nil, new_hwm if new_hwm > old_hwm else old_hwm, records),
            m.source, m.dest))
        out.append(s._replace(partition_data=pd, inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                              inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed,
                              partition_replica_state=at(s.partition_replica_state, b, updated),
                              messages=messages, messages_discard=messages_discard))
    return out


def _find_truncate_point(s: KraftState, b: int, diverging_epoch: EpochAndOffset) -> int:
    local = last_offset_for_epoch(s, b, diverging_epoch.epoch, False)
    if local.epoch != diverging_epoch.epoch:
        return local.offset
    if require_offset(local.offset, "FindTruncatePoint") < require_offset(diverging_epoch.offset, "FindTruncatePoint"):
        return local.offset
    return diverging_epoch.offset


def _truncate_to_safe_point(s: KraftState, b: int, diverging_epoch: EpochAndOffset) -> PartitionData:
    truncate_to = require_offset(_find_truncate_point(s, b, diverging_epoch), "TruncateToSafePoint")
    if truncate_to > 1:
        return PartitionData(tuple(log_entry(s, b, o) for o in range(1, truncate_to)), hwm_of(s, b), truncate_to)
    return PartitionData((), hwm_of(s, b), 1)


def receive_fetch_response(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A follower handles a fetch response: ignore a stale one, back off on an error, truncate on a diverging
    epoch, or append the record and take the leader's high watermark."""
    if s.broker_state[b - 1].status != RUNNING:
        return []
    out = []
    for m in message_order(s.messages):
        if m.type != FetchResponse or b != m.dest:
            continue
        src = m.source
        f = fetcher(s, b, src)
        if not f.pending_response:
            continue
        mp = m.partition
        row = s.broker_fetchers[b - 1]
        changes: dict = {}
        if f.partition == Nil or (f.partition.fetch_offset != mp.fetch_offset
                                  or s.partition_metadata[b - 1].leader_epoch != mp.leader_epoch):
            new_f = f._replace(pending_response=False)
        elif mp.error != Nil:
            new_f = BrokerFetcher(f.partition._replace(delayed=True), False)
        elif mp.diverging_epoch != Nil:
            after = _truncate_to_safe_point(s, b, mp.diverging_epoch)
            lfe = 0 if not after.log else after.log[-1].epoch
            changes["partition_data"] = at(s.partition_data, b, after)
            new_f = BrokerFetcher(PartitionFetchState(after.leo, lfe, False), False)
        else:
            log = log_of(s, b)
            new_leo = len(log) + len(mp.records) + 1
            lfe = mp.records[-1].epoch if mp.records else f.partition.last_fetched_epoch
            changes["partition_data"] = at(s.partition_data, b, PartitionData(
                log + mp.records, mp.hwm if mp.hwm <= new_leo else hwm_of(s, b), new_leo))
            new_f = BrokerFetcher(PartitionFetchState(new_leo, lfe, False), False)
        messages, messages_discard = discard(s, m)
        out.append(s._replace(broker_fetchers=at(s.broker_fetchers, b, at(row, src, new_f)), messages=messages,
                              messages_discard=messages_discard, **changes))
    return out


# -- producing -------------------------------------------------------------------------------------------------------


def write_record_to_leader(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A leader whose maximal ISR has at least MinISR members appends a value not written before."""
    if (s.broker_state[b - 1].status != RUNNING or s.partition_status[b - 1] != Leader
            or len(s.partition_metadata[b - 1].maximal_isr) < c.MinISR):
        return []
    out = []
    for v in range(1, c.Values + 1):
        if v in s.inv_sent:
            continue
        leo = leo_of(s, b)
        new_leo = leo + 1
        new_log = log_of(s, b) + (PartitionRecord(s.partition_metadata[b - 1].leader_epoch, leo, v),)
        old_hwm = hwm_of(s, b)
        new_hwm = commit_offset_on_write(s, b, new_leo) + 1
        inv = (update_hwm_invariant_vars(s, b, old_hwm, new_hwm, True) if new_hwm > old_hwm else None)
        t = s._replace(
            partition_data=at(s.partition_data, b, PartitionData(new_log, new_hwm if new_hwm > old_hwm else old_hwm,
                                                                 new_leo)),
            inv_sent=s.inv_sent | {v},
            aux_flo=at(s.aux_flo, b, leo) if s.aux_flo[b - 1] == IntMax else s.aux_flo)
        if inv is not None:
            t = t._replace(inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                           inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed)
        out.append(t)
    return out


# -- shutdowns -----------------------------------------------------------------------------------------------------------


def _fail_pending_writes_if_leader(s: KraftState, b: int) -> tuple[frozenset, frozenset]:
    if s.partition_status[b - 1] == Leader and hwm_of(s, b) < leo_of(s, b):
        return send_acks_for(s, b, hwm_of(s, b), leo_of(s, b) - 1, False)
    return s.inv_pos_acked, s.inv_neg_acked


def _shutdown(c: KraftConstants, s: KraftState, b: int, status: int, ctrs: StateSpaceLimitCtrs) -> list:
    messages, messages_discard, fetchers = drop_fetch_sessions(c, s, b)
    pos, neg = _fail_pending_writes_if_leader(s, b)
    changes, new_unfenced = handle_broker_fenced(s, b)
    base = dict(
        broker_state=at(s.broker_state, b, BrokerSideState(status, 0, 0, False)),
        messages=messages, messages_discard=messages_discard, broker_fetchers=fetchers,
        partition_status=at(s.partition_status, b, Nil),
        partition_replica_state=at(s.partition_replica_state, b, (BlankReplicaState,) * c.BrokerCount),
        partition_pending_ap=at(s.partition_pending_ap, b, BlankPendingAp),
        aux_ctrs=ctrs, inv_pos_acked=pos, inv_neg_acked=neg,
        con_unfenced=new_unfenced,
        con_broker_reg=at(s.con_broker_reg, b, s.con_broker_reg[b - 1]._replace(status=FENCED)),
        aux_flo=at(s.aux_flo, b, IntMax))
    if status == OFFLINE_DIRTY:
        base.update(partition_data=at(s.partition_data, b, PartitionData((), 1, 1)),
                    partition_leso=at(s.partition_leso, b, Nil))
    return [s._replace(con_partition_metadata=md, con_metadata_log=log, **base) for md, log in changes]


def unclean_shutdown(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A broker crashes and loses its whole partition log; the controller fences it."""
    if s.aux_ctrs.unclean_shutdown_ctr >= c.UncleanShutdownLimit:
        return None
    if s.broker_state[b - 1].status in (OFFLINE_CLEAN, OFFLINE_DIRTY):
        return None
    isr = s.con_partition_metadata.isr
    if c.AvoidLastReplicaStanding and b in isr and len(isr) == 1:
        return None
    ctrs = s.aux_ctrs._replace(unclean_shutdown_ctr=s.aux_ctrs.unclean_shutdown_ctr + 1)
    return _shutdown(c, s, b, OFFLINE_DIRTY, ctrs)


def clean_shutdown(c: KraftConstants, s: KraftState, b: int) -> Any:
    """A broker shuts down cleanly (its log survives); the controller fences it."""
    if s.aux_ctrs.clean_shutdown_ctr >= c.CleanShutdownLimit:
        return None
    if s.broker_state[b - 1].status in (OFFLINE_CLEAN, OFFLINE_DIRTY):
        return None
    ctrs = s.aux_ctrs._replace(clean_shutdown_ctr=s.aux_ctrs.clean_shutdown_ctr + 1)
    return _shutdown(c, s, b, OFFLINE_CLEAN, ctrs)


# The TLA+ ``Next``: for each broker, these fifteen, then the reassignment.
NEXT_PER_BROKER = [
    ("BrokerStart", broker_start),
    ("ReceiveBrokerRegResponse", receive_broker_reg_response),
    ("ReceiveMetadataUpdate", receive_metadata_update),
    ("SendAlterPartitionRequest", send_alter_partition_request),
    ("ReceiveAlterPartitionResponse", receive_alter_partition_response),
    ("SendFetchRequest", send_fetch_request),
    ("ReceiveFetchRequest", receive_fetch_request),
    ("ReceiveFetchResponse", receive_fetch_response),
    ("WriteRecordToLeader", write_record_to_leader),
    ("UncleanShutdown", unclean_shutdown),
    ("CleanShutdown", clean_shutdown),
    ("ReceiveBrokerRegRequest", receive_broker_reg_request),
    ("ReceiveAlterPartitionRequest", receive_alter_partition_request),
    ("FenceBroker", fence_broker),
    ("UnfenceBroker", unfence_broker),
]

# ``Liveness``: weak fairness of every action that makes progress or heals, for each broker.
FAIR = {"BrokerStart", "ReceiveBrokerRegResponse", "ReceiveMetadataUpdate", "SendAlterPartitionRequest",
        "ReceiveAlterPartitionResponse", "SendFetchRequest", "ReceiveFetchRequest", "ReceiveFetchResponse",
        "ReceiveBrokerRegRequest", "ReceiveAlterPartitionRequest", "UnfenceBroker"}


class BrokerAction:
    """One broker's copy of an action: a callable of its own, calling ``fn`` (each broker's action carries its
    own name and metadata).  An object rather than a closure, so that the memo tables' review can read the
    function it calls: a compiled closure's cells cannot be read."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, c: KraftConstants, s: KraftState, b: int) -> Any:
        return self.fn(c, s, b)


def for_broker(name: str, fn: Any, n: int) -> Any:
    """Action ``name`` of broker ``n`` alone (no parameter value when BrokerCount < n).

    TLC splits ``\\E b \\in Brokers : \\/ A1(b) \\/ ... \\/ A15(b)`` into one
    action per broker and action, broker by broker, and expands a state's
    successors in that order.  The order decides which state TLC keeps when
    two states of one level share the VIEW (say, one broker shut down
    cleanly, the other uncleanly: one view, different counters), and so the
    counts; an action per (action, broker), declared broker-major, gives
    TLC's order.  Traces show them as the TLA+ does, ``BrokerStart(b=b1)``.
    """
    one = BrokerAction(fn)
    one.__doc__ = fn.__doc__
    one.__name__ = one.__qualname__ = f"{fn.__name__}_b{n}"
    broker = Domain("broker", lambda c: range(n, n + 1) if n <= c.BrokerCount else range(0), lambda b: f"b{b}")
    return action(f"{name}[b{n}]", label=name + "(b={b})", b=broker)(one)


ACTIONS = [for_broker(name, fn, n) for n in range(1, MAX_BROKERS + 1) for name, fn in NEXT_PER_BROKER]
FAIRNESS = [weak(a) for a, (name, _fn) in zip(ACTIONS, NEXT_PER_BROKER * MAX_BROKERS) if name in FAIR]
ACTIONS.append(perform_partition_reassignment)


def fingerprint_view(c: KraftConstants, s: KraftState) -> Any:
    """TLC's ``VIEW view`` (see :func:`modelcheck.specs.kraft_state.tlc_view`)."""
    return tlc_view(c, s)


def _build() -> Spec:
    from modelcheck.invariants import kraft_replication as inv

    return Spec(
        name="kraft-replication",
        title="Kafka 3.5 replication with the KRaft controller (Vanlightly's kafka_replication_v3_5)",
        constants=KraftConstants,
        init=init,
        actions=ACTIONS,
        invariants=inv.INVARIANTS,
        default_invariants=inv.CFG_INVARIANTS,
        properties=inv.PROPERTIES,
        fairness=FAIRNESS,
        deadlock_expected=True,
        view=inv.view,
        lanes=inv.lanes,
        fingerprint_view=fingerprint_view,
        fingerprint_view_when=lambda c: c.View,
        description=__doc__,
        reference="modelcheck.specs.kraft_replication:SPEC",
    )


SPEC = _build()

__all__ = ["SPEC", "TlcWouldFail", "ACTIONS", "init"]
