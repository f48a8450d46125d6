"""KIP-966 (Eligible Leader Replicas) with the KRaft controller: a port of Jack Vanlightly's TLA+ specification.

Source: ``Vanlightly/kafka-tlaplus``, ``kafka_data_replication/kraft/kip-966``
(``kafka_replication_kip_966.tla`` and its helper modules, MIT licence, Jack
Vanlightly).  That module is the Kafka 3.5 one (``kraft-replication``,
:mod:`modelcheck.specs.kraft_replication`) with the KIP-966 proposal
applied, so this port keeps its conventions (TLA+ names, each broker action
declared once per broker in TLC's order, successors counted as TLC counts
them, TLC's VIEW under the constant ``View``) and reuses the actions the
proposal leaves alone: ReceiveBrokerRegResponse, SendAlterPartitionRequest,
SendFetchRequest and ReceiveFetchResponse, and ReceiveMetadataUpdate's
follower-side sub-actions.

What the proposal changes (marked "PROPOSAL CHANGE" in the TLA+):

* the controller keeps an ELR beside the ISR: a fenced broker leaves the
  ISR even when it is the last member, and joins the ELR while the ISR is
  below MinISR; a leaderless partition elects from the ISR, else from the
  unfenced ELR (the state helpers are in
  :mod:`modelcheck.specs.kraft_elr_state`);
* the leader advances its high watermark only while its ISR has at least
  MinISR members (ReceiveFetchRequest, WriteRecordToLeader and every
  partition change);
* a broker saves its broker epoch on a clean shutdown and registers with
  it (BrokerStart); one that registers with 0 may have lost data and is
  removed from the ISR, the ELR and leadership (ReceiveBrokerRegRequest);
* the shutdowns are DataLossShutdown (the log is lost; was
  UncleanShutdown) and NoDataLossShutdown (the log survives; the shutdown
  is clean, saving the epoch, or not: one successor each; was
  CleanShutdown), and ``AvoidLastReplicaStanding`` is gone: the proposal is
  meant to make the last replica standing safe to lose.

Left out: nothing of ``Next``.  The properties are in
:mod:`modelcheck.invariants.kraft_elr`, with the fairness of the TLA+
``Liveness`` formula (the same as v3.5's).
"""

from __future__ import annotations

from typing import Any

from modelcheck import Spec, action, weak
from modelcheck.specs import kraft_replication as v35
from modelcheck.specs.kraft_elr_state import (
    ControllerPartitionMetadata,
    ElrConstants,
    MetadataRecord,
    RegisterBrokerRequestMsg,
    StateSpaceLimitCtrs,
    apply_partition_change,
    can_advance_hwm,
    handle_broker_fenced,
    handle_broker_unfenced,
    maybe_advance_high_watermark,
    maybe_update_hwm_and_ack_on_partition_change,
    process_unclean_broker,
    update_elr_on_isr_or_replica_change,
)
from modelcheck.specs.kraft_state import (
    EMPTY,
    FENCED,
    OFFLINE_CLEAN,
    OFFLINE_DIRTY,
    RUNNING,
    STARTING,
    UNFENCED,
    AlterPartitionRequest,
    AlterPartitionResponse,
    AlterPartitionResponseError,
    AlterPartitionResponseOk,
    BlankMetadata,
    BlankPendingAp,
    BlankReplicaState,
    BrokerSideState,
    Controller,
    ControllerSideBrokerState,
    FencedLeaderEpoch,
    FetchRequest,
    FetchResponse,
    FetchResponseMsg,
    FetchResponsePartition,
    IntMax,
    KraftState,
    Leader,
    Nil,
    NoLeader,
    NotLeaderOrFollower,
    PartitionData,
    PartitionRecord,
    PeerReplicaState,
    RegisterBrokerRequest,
    RegisterBrokerResponse,
    RegisterBrokerResponseMsg,
    ReplicaPartitionMetadata,
    TlcWouldFail,
    UnknownLeaderEpoch,
    at,
    brokers,
    commit_offset_on_fetch,
    commit_offset_on_write,
    discard,
    drop_fetch_sessions,
    hwm_of,
    last_offset_for_epoch,
    leo_of,
    log_entry,
    log_of,
    message_order,
    partition_needs_action,
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

MAX_BROKERS = v35.MAX_BROKERS


def init(c: ElrConstants) -> list[KraftState]:
    """``Init``: v3.5's, with an empty ELR and last known ELR and the renamed shutdown counters."""
    (s,) = v35.init(c)
    md = s.con_partition_metadata
    (rec,) = s.con_metadata_log
    log = (MetadataRecord(rec.type, rec.replicas, rec.isr, EMPTY, EMPTY, rec.leader, rec.leader_epoch,
                          rec.partition_epoch, EMPTY, EMPTY),)
    return [s._replace(
        con_partition_metadata=ControllerPartitionMetadata(md.replicas, md.isr, EMPTY, EMPTY, md.leader,
                                                           md.leader_epoch, md.partition_epoch, EMPTY, EMPTY),
        con_metadata_log=log,
        broker_metadata_log=tuple(log if bl else () for bl in s.broker_metadata_log),
        aux_ctrs=StateSpaceLimitCtrs(c.BrokerCount + 1, 0, 0, 0, 0, 0))]


# -- broker registration, fencing ------------------------------------------------------------------------------


def broker_start(c: ElrConstants, s: KraftState, b: int) -> Any:
    """A stopped broker starts (STARTING) and registers with a new incarnation id and the broker epoch it saved
    (0 if it saved none)."""
    bs = s.broker_state[b - 1]
    if bs.status not in (OFFLINE_CLEAN, OFFLINE_DIRTY):
        return None
    ctrs = s.aux_ctrs
    req = RegisterBrokerRequestMsg(RegisterBrokerRequest, b, bs.broker_epoch, ctrs.incarn_ctr, Controller, b)
    return s._replace(
        broker_state=at(s.broker_state, b, BrokerSideState(STARTING, bs.broker_epoch, ctrs.incarn_ctr, False)),
        partition_status=at(s.partition_status, b, Nil),
        messages=s.messages | {req},
        aux_ctrs=ctrs._replace(incarn_ctr=ctrs.incarn_ctr + 1))


def receive_broker_reg_request(c: ElrConstants, s: KraftState, b: int) -> Any:
    """The controller registers a broker (FENCED, or the same incarnation): UNFENCED, with a new broker epoch; one
    that comes without a saved broker epoch leaves the ISR, the ELR and leadership."""
    out = []
    for m in message_order(s.messages):
        if m.type != RegisterBrokerRequest or b != m.source:
            continue
        reg = s.con_broker_reg[b - 1]
        if not (reg.status == FENCED or (reg.status != FENCED and reg.incarnation_id == m.incarnation_id)):
            continue
        broker_epoch = s.aux_broker_epoch + 1
        if m.broker_epoch == 0:
            changes, new_unfenced = process_unclean_broker(c, s, b)
        else:
            changes, new_unfenced = handle_broker_unfenced(c, s, b)
        messages, messages_discard = reply(s, m, RegisterBrokerResponseMsg(
            RegisterBrokerResponse, broker_epoch, m.incarnation_id, len(s.con_metadata_log), b, Controller))
        con_broker_reg = at(s.con_broker_reg, b, ControllerSideBrokerState(UNFENCED, broker_epoch, m.incarnation_id))
        for md, log in changes:
            out.append(s._replace(con_broker_reg=con_broker_reg, con_partition_metadata=md, con_metadata_log=log,
                                  con_unfenced=new_unfenced, messages=messages, messages_discard=messages_discard,
                                  aux_broker_epoch=s.aux_broker_epoch + 1))
    return out


def unfence_broker(c: ElrConstants, s: KraftState, b: int) -> Any:
    """The controller unfences a fenced, running broker; a leaderless partition may get a leader from the ISR or
    the ELR."""
    reg = s.con_broker_reg[b - 1]
    if reg.status != FENCED or s.broker_state[b - 1].status != RUNNING:
        return None
    changes, new_unfenced = handle_broker_unfenced(c, s, b)
    con_broker_reg = at(s.con_broker_reg, b, reg._replace(status=UNFENCED))
    return [s._replace(con_partition_metadata=md, con_metadata_log=log, con_unfenced=new_unfenced,
                       con_broker_reg=con_broker_reg) for md, log in changes]


def fence_broker(c: ElrConstants, s: KraftState, b: int) -> Any:
    """The controller fences an unfenced broker: out of the ISR (even its last member), into the ELR while the
    ISR is below MinISR, not leader."""
    if s.aux_ctrs.fence_broker_ctr >= c.FenceBrokerLimit:
        return None
    reg = s.con_broker_reg[b - 1]
    if reg.status != UNFENCED:
        return None
    changes, new_unfenced = handle_broker_fenced(c, s, b)
    con_broker_reg = at(s.con_broker_reg, b, reg._replace(status=FENCED))
    ctrs = s.aux_ctrs._replace(fence_broker_ctr=s.aux_ctrs.fence_broker_ctr + 1)
    return [s._replace(con_partition_metadata=md, con_metadata_log=log, con_unfenced=new_unfenced,
                       con_broker_reg=con_broker_reg, aux_ctrs=ctrs) for md, log in changes]


# -- ReceiveMetadataUpdate (the leader-side sub-actions use the gated high watermark) ----------------------------


def _with_hwm(changes: dict, pd: tuple, inv: Any) -> dict:
    changes.update(partition_data=pd, inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                   inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed)
    return changes


def _remain_leader(c: ElrConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata) -> dict:
    pd, inv = maybe_update_hwm_and_ack_on_partition_change(c, s, b, new_part_md)
    changes = _with_hwm({}, pd, inv)
    if new_part_md.partition_epoch >= s.partition_pending_ap[b - 1].epoch:
        changes["partition_pending_ap"] = at(s.partition_pending_ap, b, BlankPendingAp)
    return changes


def _become_leader_in_new_epoch(c: ElrConstants, s: KraftState, b: int, new_part_md: ReplicaPartitionMetadata,
                                is_new_leader: bool) -> dict:
    pd, inv = maybe_update_hwm_and_ack_on_partition_change(c, s, b, new_part_md)
    return _with_hwm(dict(
        partition_status=at(s.partition_status, b, Leader),
        partition_leso=at(s.partition_leso, b, leo_of(s, b)),
        partition_replica_state=(reset_all_follower_state(c, s, b) if is_new_leader
                                 else reset_follower_state_of_all_but_isr(c, s, b, new_part_md)),
        partition_pending_ap=at(s.partition_pending_ap, b, BlankPendingAp),
        broker_fetchers=v35.remove_partition_from_fetchers(c, s, b)), pd, inv)


def receive_metadata_update(c: ElrConstants, s: KraftState, b: int) -> Any:
    """A broker replicates metadata records up to one that concerns its replica, and acts on the last one.

    The same six sub-actions as v3.5's (this CASE is word for word
    ``kraft-replication``'s); a leader's high watermark moves only while its
    ISR has MinISR members.
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
                changes.update(v35.delete_partition(c, s, b, new_md))
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
                changes.update(v35.become_follower_in_new_epoch(c, s, b, new_md))
            else:
                if b not in new_md.replicas:
                    continue
                changes.update(v35.wait_for_leader_change(c, s, b, new_md))
        out.extend([s._replace(**changes)] * needs)
    return out


# -- AlterPartition ---------------------------------------------------------------------------------------------


def _elect_from(s: KraftState, isr: frozenset) -> list[int]:
    """``\\E new_leader \\in new_md.isr``: the current leader if it stays in the ISR, else any member."""
    leader = s.con_partition_metadata.leader
    return [leader] if leader in isr else sorted(isr)


def receive_alter_partition_request(c: ElrConstants, s: KraftState, b: int) -> Any:
    """The controller accepts an AlterPartition request from the current leader with current epochs and eligible
    members (possibly completing a reassignment) and recomputes the ELR, or rejects it."""
    out = []
    for m in message_order(s.messages):
        if m.type != AlterPartitionRequest or b != m.source:
            continue
        md = s.con_partition_metadata
        error = validate_alter_partition_request(s, b, m)
        if error != Nil:
            messages, messages_discard = reply(s, m, AlterPartitionResponseError(
                AlterPartitionResponse, error, m, b, Controller))
            out.append(s._replace(messages=messages, messages_discard=messages_discard))
            continue
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
        elr = update_elr_on_isr_or_replica_change(c, s, isr, replicas)
        for new_leader in _elect_from(s, isr):
            cpm, log = apply_partition_change(c, s, replicas, new_leader, isr, elr, le, pe, adding, removing)
            messages, messages_discard = reply(s, m, AlterPartitionResponseOk(
                AlterPartitionResponse, Nil, replicas, isr, new_leader, le, pe, m, b, Controller))
            out.append(s._replace(con_partition_metadata=cpm, con_metadata_log=log, messages=messages,
                                  messages_discard=messages_discard))
    return out


def receive_alter_partition_response(c: ElrConstants, s: KraftState, b: int) -> Any:
    """The leader applies the ISR the controller accepted, or rolls its maximal ISR back on an error."""
    if (s.broker_state[b - 1].status != RUNNING or s.partition_status[b - 1] != Leader
            or not v35.pending_alter_partition_response(s, b)):
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
def perform_partition_reassignment(c: ElrConstants, s: KraftState) -> Any:
    """An operator reassigns the partition: replicas to add and to remove (the target set keeps MinISR); a
    reassignment that completes at once recomputes the ELR."""
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
                elr = update_elr_on_isr_or_replica_change(c, s, final_isr, final_replicas)
            else:
                replicas, isr, le, pe, add, rem = (grow_replicas, md.isr, md.leader_epoch, md.partition_epoch + 1,
                                                   adding, removing)
                elr = md.elr
            for new_leader in _elect_from(s, isr):
                cpm, log = apply_partition_change(c, s, replicas, new_leader, isr, elr, le, pe, add, rem)
                out.extend([s._replace(con_partition_metadata=cpm, con_metadata_log=log, aux_ctrs=ctrs)] * valid)
    return out


# -- fetching and producing (the high watermark is gated by the leader's ISR) -------------------------------------


def receive_fetch_request(c: ElrConstants, s: KraftState, b: int) -> Any:
    """The leader answers a fetch: an epoch error, a diverging epoch, or the next record (and it may advance its
    high watermark from the fetch offset, while its ISR has MinISR members)."""
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
        max_committed = commit_offset_on_fetch(s, b, updated)
        new_hwm = max_committed + 1 if can_advance_hwm(c, pm.isr, old_hwm, max_committed + 1) else old_hwm
        pd, inv = maybe_advance_high_watermark(c, s, b, pm.isr, old_hwm, new_hwm, True)
        records = (log_entry(s, b, mp.fetch_offset),) if mp.fetch_offset < leo_of(s, b) else ()
        messages, messages_discard = reply(s, m, FetchResponseMsg(FetchResponse, FetchResponsePartition(
            Nil, pm.leader_epoch, mp.fetch_offset, Nil, new_hwm if new_hwm > old_hwm else old_hwm, records),
            m.source, m.dest))
        out.append(s._replace(partition_data=pd, inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                              inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed,
                              partition_replica_state=at(s.partition_replica_state, b, updated),
                              messages=messages, messages_discard=messages_discard))
    return out


def write_record_to_leader(c: ElrConstants, s: KraftState, b: int) -> Any:
    """A leader whose maximal ISR has at least MinISR members appends a value not written before (its high
    watermark moves only while its ISR has MinISR members)."""
    pm = s.partition_metadata[b - 1]
    if (s.broker_state[b - 1].status != RUNNING or s.partition_status[b - 1] != Leader
            or len(pm.maximal_isr) < c.MinISR):
        return []
    out = []
    for v in range(1, c.Values + 1):
        if v in s.inv_sent:
            continue
        leo = leo_of(s, b)
        new_leo = leo + 1
        new_log = log_of(s, b) + (PartitionRecord(pm.leader_epoch, leo, v),)
        old_hwm = hwm_of(s, b)
        max_committed = commit_offset_on_write(s, b, new_leo)
        new_hwm = max_committed + 1 if can_advance_hwm(c, pm.isr, old_hwm, max_committed + 1) else old_hwm
        t = s._replace(
            partition_data=at(s.partition_data, b, PartitionData(new_log, new_hwm if new_hwm > old_hwm else old_hwm,
                                                                 new_leo)),
            inv_sent=s.inv_sent | {v},
            aux_flo=at(s.aux_flo, b, leo) if s.aux_flo[b - 1] == IntMax else s.aux_flo)
        if new_hwm > old_hwm:
            inv = update_hwm_invariant_vars(s, b, old_hwm, new_hwm, True)
            t = t._replace(inv_pos_acked=inv.inv_pos_acked, inv_neg_acked=inv.inv_neg_acked,
                           inv_true_hwm=inv.inv_true_hwm, inv_consumed=inv.inv_consumed)
        out.append(t)
    return out


# -- shutdowns -----------------------------------------------------------------------------------------------------------


def _fail_pending_writes_if_leader(s: KraftState, b: int) -> tuple[frozenset, frozenset]:
    if s.partition_status[b - 1] == Leader and hwm_of(s, b) < leo_of(s, b):
        return send_acks_for(s, b, hwm_of(s, b), leo_of(s, b) - 1, False)
    return s.inv_pos_acked, s.inv_neg_acked


def _shutdown(c: ElrConstants, s: KraftState, b: int, status: int, saved_epoch: int,
              ctrs: StateSpaceLimitCtrs) -> list:
    messages, messages_discard, fetchers = drop_fetch_sessions(c, s, b)
    pos, neg = _fail_pending_writes_if_leader(s, b)
    changes, new_unfenced = handle_broker_fenced(c, s, b)
    base = dict(
        broker_state=at(s.broker_state, b, BrokerSideState(status, saved_epoch, 0, False)),
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


def data_loss_shutdown(c: ElrConstants, s: KraftState, b: int) -> Any:
    """A broker crashes and loses its whole partition log (and its saved broker epoch); the controller fences it."""
    if s.aux_ctrs.data_loss_shutdown_ctr >= c.DataLossShutdownLimit:
        return None
    if s.broker_state[b - 1].status in (OFFLINE_CLEAN, OFFLINE_DIRTY):
        return None
    ctrs = s.aux_ctrs._replace(data_loss_shutdown_ctr=s.aux_ctrs.data_loss_shutdown_ctr + 1)
    return _shutdown(c, s, b, OFFLINE_DIRTY, 0, ctrs)


def no_data_loss_shutdown(c: ElrConstants, s: KraftState, b: int) -> Any:
    """A broker shuts down keeping its log, cleanly (it saves its broker epoch) or not (it saves none); the
    controller fences it.  ``\\E is_clean_shutdown \\in BOOLEAN``: FALSE, then TRUE."""
    if s.aux_ctrs.no_data_loss_shutdown_ctr >= c.NoDataLossShutdownLimit:
        return None
    if s.broker_state[b - 1].status in (OFFLINE_CLEAN, OFFLINE_DIRTY):
        return None
    ctrs = s.aux_ctrs._replace(no_data_loss_shutdown_ctr=s.aux_ctrs.no_data_loss_shutdown_ctr + 1)
    out = []
    for is_clean_shutdown in (False, True):
        saved = s.broker_state[b - 1].broker_epoch if is_clean_shutdown else 0
        out.extend(_shutdown(c, s, b, OFFLINE_CLEAN, saved, ctrs))
    return out


# The TLA+ ``Next``: for each broker, these fifteen, then the reassignment.
NEXT_PER_BROKER = [
    ("BrokerStart", broker_start),
    ("ReceiveBrokerRegResponse", v35.receive_broker_reg_response),
    ("ReceiveMetadataUpdate", receive_metadata_update),
    ("SendAlterPartitionRequest", v35.send_alter_partition_request),
    ("ReceiveAlterPartitionResponse", receive_alter_partition_response),
    ("SendFetchRequest", v35.send_fetch_request),
    ("ReceiveFetchRequest", receive_fetch_request),
    ("ReceiveFetchResponse", v35.receive_fetch_response),
    ("WriteRecordToLeader", write_record_to_leader),
    ("DataLossShutdown", data_loss_shutdown),
    ("NoDataLossShutdown", no_data_loss_shutdown),
    ("ReceiveBrokerRegRequest", receive_broker_reg_request),
    ("ReceiveAlterPartitionRequest", receive_alter_partition_request),
    ("FenceBroker", fence_broker),
    ("UnfenceBroker", unfence_broker),
]

# ``Liveness``: weak fairness of every action that makes progress or heals, for each broker (as in v3.5).
FAIR = v35.FAIR


# One action per (action, broker), broker-major: TLC's successor order.
ACTIONS = [v35.for_broker(name, fn, n) for n in range(1, MAX_BROKERS + 1) for name, fn in NEXT_PER_BROKER]
FAIRNESS = [weak(a) for a, (name, _fn) in zip(ACTIONS, NEXT_PER_BROKER * MAX_BROKERS) if name in FAIR]
ACTIONS.append(perform_partition_reassignment)


def fingerprint_view(c: ElrConstants, s: KraftState) -> Any:
    """TLC's ``VIEW view``: the same variables as v3.5's (:func:`modelcheck.specs.kraft_state.tlc_view`)."""
    return tlc_view(c, s)


def _build() -> Spec:
    from modelcheck.invariants import kraft_elr as inv

    return Spec(
        name="kraft-elr",
        title="KIP-966 Eligible Leader Replicas with the KRaft controller (Vanlightly's kafka_replication_kip_966)",
        constants=ElrConstants,
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
        reference="modelcheck.specs.kraft_elr:SPEC",
    )


SPEC = _build()

__all__ = ["SPEC", "TlcWouldFail", "ACTIONS", "init"]
