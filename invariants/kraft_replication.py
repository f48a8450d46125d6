"""The properties of ``kraft-replication``: a port of ``v3_5_properties.tla`` (Jack Vanlightly, MIT licence).

From ``Vanlightly/kafka-tlaplus``, ``kafka_data_replication/kraft/v3.5``.
Every invariant the TLA+ module defines is here under its TLA+ name; the
default ones are those the published .cfg checks (``CFG_INVARIANTS``):

* ``LeaderCompletenessProperty``: a running leader the controller names
  holds every committed offset and every positively acknowledged value;
* ``LeaderCandidateCompletenessProperty``: every running ISR member holds
  the committed log (its LEO reaches the true high watermark);
* ``ReplicationQuorumSupersetProperty``: a non-stale leader's maximal ISR
  contains the controller's ISR (and equals its ISR when no AlterPartition
  is pending);
* ``LogMatchingProperty``: below both high watermarks, two replicas hold the
  same values;
* ``MetadataLogMatchingProperty``: each broker's metadata log is a prefix of
  the controller's;
* ``ConsistentReadProperty``: what consumers read is still in a non-stale
  leader's log, at the same offsets;
* ``NoCommittedRecordLostGlobally``: every positively acknowledged value is
  on some broker (the .cfg notes it fails by design when
  ``UncleanShutdownLimit`` reaches ``MinISR``).

Also ``TypeOK``, the spec-bug checks ``ValidBrokerState``,
``ValidReplicaState``, ``ValidFetcherState``, ``ValidControllerState``, and
``TestInv`` (TRUE).

The liveness properties are the module's seven, with the fairness of its
``Liveness`` formula (declared by the spec).  Check them with ``View=false``:
the .cfg asks for its VIEW line to be commented out for liveness, and the
checker refuses a liveness check under a view.  Two are written in another
but equivalent form, because the formula language has no negation and no
"initially": ``AlterPartitionEpochEventuallyReachedOrZero`` is
``[]<>(\\A b: P(b) ~> Q(b))``, which holds on a behaviour exactly when, for
each broker, ``P(b)`` stops holding for good or ``Q(b)`` holds infinitely
often; and ``EventuallyReassignmentCompletes`` parses, by the TLA+ rules for
bulleted disjunctions, as ``adding # {} \\/ (removing # {} ~> ...)``, whose
first disjunct is a state predicate of the initial state, false in every
initial state (``adding`` starts empty), so it is the leads-to alone.
"""

from __future__ import annotations

from typing import Any

from modelcheck import (all_of, always_eventually, any_of, eventually_always, invariant, leads_to, liveness)
from modelcheck.specs.kraft_state import (
    FENCED,
    OFFLINE_CLEAN,
    OFFLINE_DIRTY,
    RUNNING,
    STARTING,
    UNFENCED,
    Follower,
    KraftConstants,
    KraftState,
    Leader,
    Nil,
    NoLeader,
    PartitionFetchState,
    brokers,
    name_of,
    partition_needs_action,
    pending_alter_partition_response,
    unreplicated_offsets,
)


def _nat(x: Any) -> bool:
    return type(x) is int and x >= 0


def brokers_set(c: KraftConstants, xs: Any) -> bool:
    return type(xs) is frozenset and all(type(b) is int and 1 <= b <= c.BrokerCount for b in xs)


def _values_set(c: KraftConstants, xs: Any) -> bool:
    return type(xs) is frozenset and all(type(v) is int and 1 <= v <= c.Values for v in xs)


@invariant("TypeOK", "Every variable the TLA+ TypeOK names has its declared type.")
def type_ok(c: KraftConstants, s: KraftState) -> bool:
    n = c.BrokerCount
    md = s.con_partition_metadata
    if not (brokers_set(c, s.con_unfenced) and len(s.con_broker_reg) == n
            and all(r.status in (FENCED, UNFENCED) and _nat(r.broker_epoch) and _nat(r.incarnation_id)
                    for r in s.con_broker_reg)):
        return False
    if not (brokers_set(c, md.replicas) and brokers_set(c, md.isr) and brokers_set(c, md.adding)
            and brokers_set(c, md.removing) and (md.leader == NoLeader or 1 <= md.leader <= n)
            and _nat(md.leader_epoch) and _nat(md.partition_epoch)):
        return False
    if not all(b.status in (OFFLINE_CLEAN, OFFLINE_DIRTY, STARTING, RUNNING) and _nat(b.broker_epoch)
               and _nat(b.incarnation_id) and type(b.registered) is bool for b in s.broker_state):
        return False
    for row in s.broker_fetchers:
        for f in row:
            if type(f.pending_response) is not bool:
                return False
            p = f.partition
            if p != Nil and not (type(p) is PartitionFetchState and _nat(p.fetch_offset)
                                 and _nat(p.last_fetched_epoch) and type(p.delayed) is bool):
                return False
    for pm in s.partition_metadata:
        if not (brokers_set(c, pm.replicas) and brokers_set(c, pm.isr) and brokers_set(c, pm.maximal_isr)
                and (pm.leader == NoLeader or 1 <= pm.leader <= n) and _nat(pm.leader_epoch)
                and _nat(pm.partition_epoch)):
            return False
    for row in s.partition_replica_state:
        if not all((r.leo == Nil or _nat(r.leo)) and _nat(r.broker_epoch) for r in row):
            return False
    return (all(_nat(x) for x in s.aux_ctrs)
            and all(st in (Leader, Follower, Nil) for st in s.partition_status)
            and _values_set(c, s.inv_sent) and _values_set(c, s.inv_pos_acked) and _values_set(c, s.inv_neg_acked))


@invariant("ValidBrokerState", "A RUNNING broker is registered (a check on the spec itself).")
def valid_broker_state(c: KraftConstants, s: KraftState) -> bool:
    return all(b.status != RUNNING or b.registered for b in s.broker_state)


@invariant("ValidReplicaState", "A replica acting as leader is the leader of its metadata; LEO and offsets match "
                                "the log (a check on the spec itself).")
def valid_replica_state(c: KraftConstants, s: KraftState) -> bool:
    for b in brokers(c):
        if s.partition_status[b - 1] == Leader and s.partition_metadata[b - 1].leader != b:
            return False
        pd = s.partition_data[b - 1]
        if pd.leo != len(pd.log) + 1:
            return False
        if any(pd.log[o - 1].offset != o for o in range(1, pd.leo)):
            return False
    return True


@invariant("ValidFetcherState", "No broker fetches the partition from two leaders; leaders do not fetch it, "
                                "followers do (a check on the spec itself).")
def valid_fetcher_state(c: KraftConstants, s: KraftState) -> bool:
    for b in brokers(c):
        row = s.broker_fetchers[b - 1]
        added = [b1 for b1 in brokers(c) if row[b1 - 1].partition != Nil]
        # ~\E b1, b2: b # b1 /\ b1 # b2 /\ both added (b2 may be b itself, as the TLA+ writes it)
        if any(b1 != b and b1 != b2 for b1 in added for b2 in added):
            return False
        status = s.partition_status[b - 1]
        if status == Leader and any(b1 != b for b1 in added):
            return False
        if status == Follower and not any(b1 != b for b1 in added):
            return False
    return True


@invariant("ValidControllerState", "The controller's fenced set matches its registrations, no fenced broker is in "
                                   "an ISR of more than one, and the ISR is never empty (a check on the spec itself).")
def valid_controller_state(c: KraftConstants, s: KraftState) -> bool:
    for b in brokers(c):
        st = s.con_broker_reg[b - 1].status
        if (st == FENCED and b in s.con_unfenced) or (st == UNFENCED and b not in s.con_unfenced):
            return False
    md = s.con_partition_metadata
    if len(md.isr) > 1 and any(s.con_broker_reg[b - 1].status == FENCED and b in md.isr for b in md.replicas):
        return False
    return bool(md.isr)


def is_non_stale_leader(s: KraftState, b: int) -> bool:
    """``IsNonStaleLeader(b)``."""
    return (s.partition_status[b - 1] == Leader
            and s.partition_metadata[b - 1].leader_epoch == s.con_partition_metadata.leader_epoch)


@invariant("ReplicationQuorumSupersetProperty",
           "A non-stale leader's maximal ISR contains the controller's ISR (and is its ISR when no AlterPartition "
           "is pending).")
def replication_quorum_superset(c: KraftConstants, s: KraftState) -> bool:
    for b in brokers(c):
        if not is_non_stale_leader(s, b):
            continue
        pm = s.partition_metadata[b - 1]
        if not pending_alter_partition_response(s, b) and pm.maximal_isr != pm.isr:
            return False
        if not all(b1 in pm.maximal_isr for b1 in s.con_partition_metadata.isr):
            return False
    return True


@invariant("LeaderCandidateCompletenessProperty",
           "Every running member of the controller's ISR holds the committed log (LEO >= the true high watermark).")
def leader_candidate_completeness(c: KraftConstants, s: KraftState) -> bool:
    if s.inv_true_hwm <= 1:
        return True
    return not any(s.partition_data[b - 1].leo < s.inv_true_hwm and s.broker_state[b - 1].status == RUNNING
                   for b in s.con_partition_metadata.isr)


@invariant("LeaderCompletenessProperty",
           "A running leader the controller names holds the committed log and every positively acknowledged value.")
def leader_completeness(c: KraftConstants, s: KraftState) -> bool:
    if s.inv_true_hwm <= 1:
        return True
    leader = s.con_partition_metadata.leader
    if leader == NoLeader or s.broker_state[leader - 1].status != RUNNING:
        return True
    pd = s.partition_data[leader - 1]
    if pd.leo < s.inv_true_hwm:
        return False
    values = {r.value for r in pd.log}
    return all(v in values for v in s.inv_pos_acked)


@invariant("LogMatchingProperty", "Below both replicas' high watermarks, two replicas hold the same value at each "
                                  "offset.")
def log_matching(c: KraftConstants, s: KraftState) -> bool:
    pds = s.partition_data
    for offset in range(1, c.Values + 1):
        for p1 in pds:
            if not (p1.leo > offset and p1.hwm > offset):
                continue
            for p2 in pds:
                if p2.leo > offset and p2.hwm > offset and p1.log[offset - 1].value != p2.log[offset - 1].value:
                    return False
    return True


@invariant("MetadataLogMatchingProperty", "Each broker's metadata log is a prefix of the controller's.")
def metadata_log_matching(c: KraftConstants, s: KraftState) -> bool:
    con = s.con_metadata_log
    return all(log == con[:len(log)] or len(log) > len(con) and log[:len(con)] == con
               for log in s.broker_metadata_log)


@invariant("NoCommittedRecordLostGlobally", "Every positively acknowledged value is on some broker's log.")
def no_committed_record_lost_globally(c: KraftConstants, s: KraftState) -> bool:
    held = {r.value for pd in s.partition_data for r in pd.log}
    return all(v in held for v in s.inv_pos_acked)


@invariant("ConsistentReadProperty", "Every record consumers read is still in a non-stale leader's log, at the "
                                     "same offset.")
def consistent_read(c: KraftConstants, s: KraftState) -> bool:
    consumed = s.inv_consumed
    for b in brokers(c):
        if is_non_stale_leader(s, b):
            log = s.partition_data[b - 1].log
            if len(consumed) > len(log) or log[:len(consumed)] != consumed:
                return False
    return True


@invariant("TestInv", "TRUE (the module's placeholder).")
def test_inv(c: KraftConstants, s: KraftState) -> bool:
    return True


INVARIANTS = [type_ok, valid_broker_state, valid_replica_state, valid_fetcher_state, valid_controller_state,
              leader_completeness, leader_candidate_completeness, replication_quorum_superset, log_matching,
              metadata_log_matching, consistent_read, no_committed_record_lost_globally, test_inv]

CFG_INVARIANTS = ["LeaderCompletenessProperty", "LeaderCandidateCompletenessProperty",
                  "ReplicationQuorumSupersetProperty", "LogMatchingProperty", "MetadataLogMatchingProperty",
                  "ConsistentReadProperty", "NoCommittedRecordLostGlobally"]
"""What kafka_replication_v3_5.cfg checks."""


# -- liveness ----------------------------------------------------------------------------------------------------


@liveness("EventuallyRuns", "a STARTING broker eventually runs, unfenced")
def eventually_runs(c: KraftConstants):
    return all_of(leads_to(lambda c, s, b=b: s.broker_state[b - 1].status == STARTING,
                           lambda c, s, b=b: (s.broker_state[b - 1].status == RUNNING
                                              and s.con_broker_reg[b - 1].status == UNFENCED))
                  for b in brokers(c))


@liveness("EventuallyUnfenced", "a fenced broker is eventually unfenced")
def eventually_unfenced(c: KraftConstants):
    return all_of(leads_to(lambda c, s, b=b: s.con_broker_reg[b - 1].status == FENCED,
                           lambda c, s, b=b: s.con_broker_reg[b - 1].status == UNFENCED)
                  for b in brokers(c))


def _ap_pending(c: KraftConstants, s: KraftState, b: int) -> bool:
    return s.partition_pending_ap[b - 1].epoch > 0


def _ap_settled(c: KraftConstants, s: KraftState, b: int) -> bool:
    ep = s.partition_pending_ap[b - 1].epoch
    return ep == s.partition_metadata[b - 1].partition_epoch or ep == 0


@liveness("AlterPartitionEpochEventuallyReachedOrZero",
          "a replica that sent an AlterPartition request eventually reaches its partition epoch or drops it")
def alter_partition_epoch_eventually_reached_or_zero(c: KraftConstants):
    # []<>(\A b: P(b) ~> Q(b)) holds exactly when, for each b, P(b) eventually stops for good or Q(b) recurs.
    return all_of(any_of(eventually_always(lambda c, s, b=b: not _ap_pending(c, s, b)),
                         always_eventually(lambda c, s, b=b: _ap_settled(c, s, b)))
                  for b in brokers(c))


def _metadata_converged(c: KraftConstants, s: KraftState) -> bool:
    md = s.con_partition_metadata
    for b in brokers(c):
        pm = s.partition_metadata[b - 1]
        if (pm.isr == md.isr and pm.leader == md.leader and pm.leader_epoch == md.leader_epoch
                and pm.partition_epoch == md.partition_epoch):
            continue
        status = s.partition_status[b - 1]
        if status == Follower and not any(partition_needs_action(s, b, o) for o in unreplicated_offsets(s, b)):
            continue
        if status == Nil and b not in md.replicas:
            continue
        return False
    return True


@liveness("EventuallyMetadataConverges", "infinitely often every broker agrees with the controller's partition "
                                         "metadata (or has nothing relevant left to replicate)")
def eventually_metadata_converges(c: KraftConstants):
    return always_eventually(_metadata_converged)


@liveness("EventuallyWriteIsAcceptedOrRejected", "a written value is eventually acknowledged, positively or "
                                                 "negatively")
def eventually_write_is_accepted_or_rejected(c: KraftConstants):
    return all_of(leads_to(lambda c, s, v=v: v in s.inv_sent,
                           lambda c, s, v=v: v in s.inv_pos_acked or v in s.inv_neg_acked)
                  for v in range(1, c.Values + 1))


@liveness("EventuallyAcknowledgedValueFullyReplicated", "a positively acknowledged value eventually reaches every "
                                                        "replica")
def eventually_acknowledged_value_fully_replicated(c: KraftConstants):
    return all_of(leads_to(lambda c, s, v=v: v in s.inv_pos_acked,
                           lambda c, s, v=v: all(any(r.value == v for r in s.partition_data[b - 1].log)
                                                 for b in s.con_partition_metadata.replicas))
                  for v in range(1, c.Values + 1))


@liveness("EventuallyReassignmentCompletes", "a started reassignment eventually completes")
def eventually_reassignment_completes(c: KraftConstants):
    # adding # {} \/ (removing # {} ~> done): the first disjunct is false in every initial state.
    return leads_to(lambda c, s: bool(s.con_partition_metadata.removing),
                    lambda c, s: not s.con_partition_metadata.adding and not s.con_partition_metadata.removing)


PROPERTIES = [eventually_runs, eventually_unfenced, alter_partition_epoch_eventually_reached_or_zero,
              eventually_metadata_converges, eventually_write_is_accepted_or_rejected,
              eventually_acknowledged_value_fully_replicated, eventually_reassignment_completes]


# -- how states are shown ------------------------------------------------------------------------------------------


def _show(v: Any) -> Any:
    if type(v) is frozenset:
        return "{" + ", ".join(str(_show(x)) for x in sorted(v, key=repr)) + "}"
    if isinstance(v, tuple) and hasattr(v, "_asdict"):
        return {k: _show(x) for k, x in v._asdict().items()}
    if isinstance(v, tuple):
        return [_show(x) for x in v]
    if type(v) is int:
        return name_of(v)
    return v


def _log(log: tuple) -> str:
    return "[" + ", ".join(f"{r.value}@e{r.epoch}" for r in log) + "]"


def view(c: KraftConstants, s: KraftState) -> dict:
    """Every variable under its TLA+ name; per-broker functions keyed ``b1``, ``b2``...; model values by name."""
    out: dict[str, Any] = {}
    for name, value in s._asdict().items():
        if name in ("messages", "messages_discard"):
            out[name] = [_show(m) for m in sorted(value, key=repr)]
        elif name == "partition_data":
            out[name] = {f"b{b}": {"log": _log(pd.log), "hwm": pd.hwm, "leo": pd.leo}
                         for b, pd in zip(brokers(c), value)}
        elif isinstance(value, tuple) and not hasattr(value, "_asdict") and len(value) == c.BrokerCount \
                and name not in ("con_metadata_log", "inv_consumed"):
            out[name] = {f"b{b}": _show(x) for b, x in zip(brokers(c), value)}
        else:
            out[name] = _show(value)
    return out


def lanes(c: KraftConstants, s: KraftState) -> dict:
    """One row per broker: status, role, log, high watermark, what it believes of the partition."""
    rows = {}
    md = s.con_partition_metadata
    for b in brokers(c):
        pd = s.partition_data[b - 1]
        pm = s.partition_metadata[b - 1]
        rows[f"b{b}"] = {
            "status": name_of(s.broker_state[b - 1].status),
            "controller": name_of(s.con_broker_reg[b - 1].status),
            "role": name_of(s.partition_status[b - 1]),
            "log": _log(pd.log),
            "HWM": pd.hwm,
            "LEO": pd.leo,
            "leader/epoch": f"{name_of(pm.leader)}/e{pm.leader_epoch}",
            "ISR": _show(pm.isr),
            "in controller ISR": b in md.isr,
        }
    return rows
