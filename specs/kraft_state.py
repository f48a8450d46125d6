"""The state and the shared formulas of the ``kraft-replication`` spec (Kafka 3.5 with the KRaft controller).

A port of the helper modules of Jack Vanlightly's TLA+ specification of
Kafka's data replication protocol as of version 3.5
(``Vanlightly/kafka-tlaplus``, ``kafka_data_replication/kraft/v3.5``, MIT
licence): ``v3_5_types.tla`` (constants, variables, record types),
``network.tla`` (message passing) and ``v3_5_functions.tla`` (the formulas
several actions share).  The actions are in
:mod:`modelcheck.specs.kraft_replication`, the properties in
:mod:`modelcheck.invariants.kraft_replication`.

How the TLA+ values are encoded (states must be ints, bools, tuples and
frozensets):

* brokers keep their TLA+ ids ``1..BrokerCount``; a per-broker function
  ``[b \\in Brokers |-> ...]`` is a tuple indexed ``b - 1``;
* ``Values`` (a set of model values in the .cfg, ``{A}``) is a count: the
  values are the ints ``1..Values``;
* the model values the .cfg assigns to themselves (``Nil``, ``NoLeader``,
  ``Controller``, the statuses, roles, message types and error codes) are
  distinct negative ints under their TLA+ names below, so that, as model
  values, none equals a broker id, an offset or another one;
* records are NamedTuples with the TLA+ field names; sets are frozensets;
  sequences (logs, the metadata log) are tuples; ``messages`` and
  ``messages_discard`` are frozensets of message records, each message's
  first field its ``type`` so that two message kinds never compare equal.
  ``isr_and_epochs`` (a function from the proposed ISR to broker epochs) is
  a tuple of (broker, epoch) pairs sorted by broker.

Two record shapes of the TLA+ collapse into one here without changing which
states are equal: the initial metadata record has no ``adding``/``removing``
fields (it is the first record of every metadata log, so it is never
compared with another), and a successful fetch response's ``partition``
record carries an extra ``type`` field (its ``error`` and
``diverging_epoch`` are both ``Nil``, which no other fetch response has).

Where the TLA+ would make TLC stop with an error (a sequence indexed out of
its domain, an integer compared with ``Nil``, a variable a branch leaves
unassigned), the port raises :class:`TlcWouldFail`, so the check stops with a
spec error there too instead of going on with a made-up value.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import constant
from modelcheck.errors import ConstantError
from modelcheck.spec.value_order import canonical_sorted

# -- model values (the .cfg's ``X = X`` constants) -------------------------------------------

Nil = -1
NoLeader = -2
Controller = -3
FENCED = -10
UNFENCED = -11
STARTING = -20
RUNNING = -21
OFFLINE_CLEAN = -22
OFFLINE_DIRTY = -23
Leader = -30
Follower = -31
RegisterBrokerRequest = -40
RegisterBrokerResponse = -41
AlterPartitionRequest = -42
AlterPartitionResponse = -43
FetchRequest = -44
FetchResponse = -45
PartitionChangeRecord = -46
IneligibleReplica = -50
FencedLeaderEpoch = -51
UnknownLeaderEpoch = -52
NotLeaderOrFollower = -53
# The .cfg also names HeartbeatRequest, HeartbeatResponse, CONTROLLED_SHUTDOWN and SHUTDOWN_NOW, which
# v3_5_types.tla does not declare (heartbeats and the controlled shutdown are not modelled): TLC ignores them.

IntMax = 10000

NAMES = {v: k for k, v in dict(
    Nil=Nil, NoLeader=NoLeader, Controller=Controller, FENCED=FENCED, UNFENCED=UNFENCED, STARTING=STARTING,
    RUNNING=RUNNING, OFFLINE_CLEAN=OFFLINE_CLEAN, OFFLINE_DIRTY=OFFLINE_DIRTY, Leader=Leader, Follower=Follower,
    RegisterBrokerRequest=RegisterBrokerRequest, RegisterBrokerResponse=RegisterBrokerResponse,
    AlterPartitionRequest=AlterPartitionRequest, AlterPartitionResponse=AlterPartitionResponse,
    FetchRequest=FetchRequest, FetchResponse=FetchResponse, PartitionChangeRecord=PartitionChangeRecord,
    IneligibleReplica=IneligibleReplica, FencedLeaderEpoch=FencedLeaderEpoch,
    UnknownLeaderEpoch=UnknownLeaderEpoch, NotLeaderOrFollower=NotLeaderOrFollower).items()}
"""Each model value's TLA+ name, for traces."""


class TlcWouldFail(Exception):
    """The TLA+ evaluates something TLC refuses (out of a domain, ``Nil`` compared with an integer...)."""


# -- constants -----------------------------------------------------------------------------------


@attrs.frozen
class KraftConstants:
    """The published .cfg's constants under their TLA+ names (``Values`` as a count), and its VIEW line."""

    BrokerCount: int = constant(3, "the number of brokers (more than InitReplicationFactor lets reassignments add one)",
                                minimum=1, maximum=5)
    InitReplicationFactor: int = constant(3, "the initial replication factor (brokers 1..RF host the partition)",
                                          minimum=1, maximum=5)
    Values: int = constant(1, "the producer values that can be written (the .cfg's set {A} as a count)",
                           minimum=1, maximum=3)
    MinISR: int = constant(2, "min.insync.replicas", minimum=1, maximum=5)
    InitIsrSize: int = constant(2, "the initial ISR size (brokers 1..InitIsrSize; the others start out of sync)",
                                minimum=1, maximum=5)
    CleanShutdownLimit: int = constant(0, "how many clean shutdowns may happen", minimum=0, maximum=3)
    UncleanShutdownLimit: int = constant(1, "how many unclean shutdowns (the log is lost) may happen",
                                         minimum=0, maximum=3)
    FenceBrokerLimit: int = constant(1, "how many times the controller may fence a broker arbitrarily",
                                     minimum=0, maximum=3)
    LeaderShrinkIsrLimit: int = constant(0, "how many AlterPartition requests may shrink the ISR", minimum=0, maximum=3)
    ReassignmentLimit: int = constant(0, "how many partition reassignments may be started", minimum=0, maximum=2)
    AvoidLastReplicaStanding: bool = constant(
        True, "never shut down uncleanly the last replica of the ISR (true avoids the Last Replica Standing loss)")
    View: bool = constant(
        True, "the .cfg's `VIEW view` line: states that differ only in the auxiliary variables and "
              "messages_discard are one state, as TLC counts them (false for liveness, as the .cfg says)")

    def __attrs_post_init__(self) -> None:
        # v3_5_types.tla's ASSUMEs (TLC refuses a model that breaks one).
        if not (self.InitReplicationFactor <= self.BrokerCount and self.InitIsrSize <= self.InitReplicationFactor
                and self.InitIsrSize >= self.MinISR and self.MinISR <= self.InitReplicationFactor):
            raise ConstantError("the module's ASSUMEs need InitReplicationFactor <= BrokerCount and "
                                f"MinISR <= InitIsrSize <= InitReplicationFactor (got {self.InitReplicationFactor}, "
                                f"{self.BrokerCount}, {self.MinISR}, {self.InitIsrSize})")


# -- records -----------------------------------------------------------------------------------------


class ControllerSideBrokerState(NamedTuple):
    status: int
    broker_epoch: int
    incarnation_id: int


class ControllerPartitionMetadata(NamedTuple):
    replicas: frozenset
    isr: frozenset
    leader: int
    leader_epoch: int
    partition_epoch: int
    adding: frozenset
    removing: frozenset


class MetadataRecord(NamedTuple):
    """A PartitionChangeRecord of the metadata log (a full snapshot of the partition's metadata)."""

    type: int
    replicas: frozenset
    isr: frozenset
    leader: int
    leader_epoch: int
    partition_epoch: int
    adding: frozenset
    removing: frozenset


class BrokerSideState(NamedTuple):
    status: int
    broker_epoch: int
    incarnation_id: int
    registered: bool


class PartitionFetchState(NamedTuple):
    fetch_offset: int
    last_fetched_epoch: int
    delayed: bool


class BrokerFetcher(NamedTuple):
    partition: Any
    """A :class:`PartitionFetchState`, or ``Nil``."""
    pending_response: bool


class ReplicaPartitionMetadata(NamedTuple):
    replicas: frozenset
    isr: frozenset
    maximal_isr: frozenset
    leader: int
    leader_epoch: int
    partition_epoch: int


class PartitionRecord(NamedTuple):
    epoch: int
    offset: int
    value: int


class PartitionData(NamedTuple):
    log: tuple
    hwm: int
    leo: int


class PeerReplicaState(NamedTuple):
    leo: int
    """``Nil`` until the leader has a fetch from the follower."""
    broker_epoch: int


class PendingAlterPartition(NamedTuple):
    epoch: int
    request: Any
    """The AlterPartition request sent, or ``Nil``."""


class StateSpaceLimitCtrs(NamedTuple):
    incarn_ctr: int
    clean_shutdown_ctr: int
    unclean_shutdown_ctr: int
    fence_broker_ctr: int
    leader_shrink_isr_ctr: int
    reassignment_ctr: int


class EpochAndOffset(NamedTuple):
    epoch: int
    offset: int


# -- messages (each a record whose first field is its type) ------------------------------------------


class RegisterBrokerRequestMsg(NamedTuple):
    type: int
    broker_id: int
    incarnation_id: int
    dest: int
    source: int


class RegisterBrokerResponseMsg(NamedTuple):
    type: int
    broker_epoch: int
    incarnation_id: int
    metadata_offset: int
    dest: int
    source: int


class AlterPartitionRequestMsg(NamedTuple):
    type: int
    isr: frozenset
    isr_and_epochs: tuple
    leader: int
    leader_epoch: int
    partition_epoch: int
    broker_epoch: int
    source: int
    dest: int


class AlterPartitionResponseOk(NamedTuple):
    type: int
    error: int
    replicas: frozenset
    isr: frozenset
    leader: int
    leader_epoch: int
    partition_epoch: int
    request: AlterPartitionRequestMsg
    dest: int
    source: int


class AlterPartitionResponseError(NamedTuple):
    type: int
    error: int
    request: AlterPartitionRequestMsg
    dest: int
    source: int


class FetchRequestPartition(NamedTuple):
    leader_epoch: int
    fetch_offset: int
    last_fetched_epoch: int


class FetchRequestMsg(NamedTuple):
    type: int
    broker_epoch: int
    partition: FetchRequestPartition
    dest: int
    source: int


class FetchResponsePartition(NamedTuple):
    error: int
    leader_epoch: int
    fetch_offset: int
    diverging_epoch: Any
    """An :class:`EpochAndOffset` (the TLA+ record ``[epoch, offset]``), or ``Nil``."""
    hwm: int
    records: tuple


class FetchResponseMsg(NamedTuple):
    type: int
    partition: FetchResponsePartition
    dest: int
    source: int


# -- the state: v3_5_types.tla's and network.tla's variables, in their order --------------------------


class KraftState(NamedTuple):
    # controller
    con_unfenced: frozenset
    con_broker_reg: tuple
    con_partition_metadata: ControllerPartitionMetadata
    con_metadata_log: tuple
    # brokers
    broker_state: tuple
    broker_fetchers: tuple
    """``broker_fetchers[b - 1][b1 - 1]``: broker b's fetcher for leader b1."""
    broker_metadata_log: tuple
    # partition replicas
    partition_status: tuple
    partition_metadata: tuple
    partition_data: tuple
    partition_leso: tuple
    partition_replica_state: tuple
    """``partition_replica_state[b - 1][b1 - 1]``: what leader b knows of follower b1."""
    partition_pending_ap: tuple
    # auxiliary (not part of the protocol; outside TLC's VIEW)
    aux_broker_epoch: int
    aux_ctrs: StateSpaceLimitCtrs
    aux_flo: tuple
    # for the invariants
    inv_sent: frozenset
    inv_pos_acked: frozenset
    inv_neg_acked: frozenset
    inv_true_hwm: int
    inv_consumed: tuple
    # network
    messages: frozenset
    messages_discard: frozenset


def tlc_view(c: KraftConstants, s: KraftState) -> tuple:
    """``view == << con_vars, broker_vars, part_vars, NetworkView, inv_vars >>``: all but ``aux_vars`` and
    ``messages_discard``, so states that differ only there are one state, as TLC counts them."""
    return (s.con_metadata_log, s.con_unfenced, s.con_broker_reg, s.con_partition_metadata,
            s.broker_state, s.broker_fetchers, s.broker_metadata_log,
            s.partition_status, s.partition_metadata, s.partition_data, s.partition_leso,
            s.partition_replica_state, s.partition_pending_ap,
            s.messages,
            s.inv_sent, s.inv_pos_acked, s.inv_neg_acked, s.inv_true_hwm, s.inv_consumed)


# -- small helpers --------------------------------------------------------------------------------------


def at(t: tuple, b: int, v: Any) -> tuple:
    """``[t EXCEPT ![b] = v]`` for a per-broker tuple (brokers are 1-based)."""
    copy = list(t)
    copy[b - 1] = v
    return tuple(copy)


def brokers(c: KraftConstants) -> range:
    """``Brokers == 1..BrokerCount``."""
    return range(1, c.BrokerCount + 1)


def subsets(xs: frozenset | range) -> list[frozenset]:
    """``SUBSET xs`` in TLC's enumeration order (counting in binary over the elements in ascending order)."""
    items = sorted(xs)
    return [frozenset(x for i, x in enumerate(items) if mask >> i & 1) for mask in range(1 << len(items))]


def name_of(v: int) -> str:
    """A model value's TLA+ name, or the integer."""
    return NAMES.get(v, str(v)) if v < 0 else str(v)


# -- network.tla ------------------------------------------------------------------------------------------


def previously_sent(s: KraftState, m: Any) -> bool:
    """``PreviouslySent(m)``."""
    return m in s.messages or m in s.messages_discard


def reply(s: KraftState, d: Any, m: Any) -> tuple[frozenset, frozenset]:
    """``Reply(d, m)``: (messages', messages_discard')."""
    return (s.messages - {d}) | {m}, s.messages_discard | {d}


def discard(s: KraftState, d: Any) -> tuple[frozenset, frozenset]:
    """``Discard(d)``: (messages', messages_discard')."""
    return s.messages - {d}, s.messages_discard | {d}


# -- v3_5_functions.tla: helpers ---------------------------------------------------------------------------

BlankFetchState = BrokerFetcher(Nil, False)
BlankReplicaState = PeerReplicaState(Nil, 0)
BlankMetadata = ReplicaPartitionMetadata(frozenset(), frozenset(), frozenset(), NoLeader, 0, 0)
BlankPendingAp = PendingAlterPartition(0, Nil)
EMPTY = frozenset()


def log_of(s: KraftState, b: int) -> tuple:
    return s.partition_data[b - 1].log


def leo_of(s: KraftState, b: int) -> int:
    return s.partition_data[b - 1].leo


def hwm_of(s: KraftState, b: int) -> int:
    return s.partition_data[b - 1].hwm


def log_entry(s: KraftState, b: int, offset: int) -> PartitionRecord:
    """``LogEntry(b, offset)``: TLC fails on an offset outside the log."""
    log = s.partition_data[b - 1].log
    if not 1 <= offset <= len(log):
        raise TlcWouldFail(f"LogEntry({b}, {offset}): offset {offset} is outside the domain of broker {b}'s log "
                           f"(length {len(log)})")
    return log[offset - 1]


def sub_seq(seq: tuple, m: int, n: int) -> tuple:
    """``SubSeq(seq, m, n)`` (1-based, inclusive); TLC fails when ``m..n`` is not inside the sequence."""
    if m > n:
        return ()
    if m < 1 or n > len(seq):
        raise TlcWouldFail(f"SubSeq(s, {m}, {n}) of a sequence of length {len(seq)}")
    return seq[m - 1:n]


def fetcher(s: KraftState, b1: int, b2: int) -> BrokerFetcher:
    return s.broker_fetchers[b1 - 1][b2 - 1]


def is_partition_added(s: KraftState, b1: int, b2: int) -> bool:
    return s.broker_fetchers[b1 - 1][b2 - 1].partition != Nil


def reset_all_follower_state(c: KraftConstants, s: KraftState, b: int) -> tuple:
    """``ResetAllFollowerState(b)``: partition_replica_state'."""
    return at(s.partition_replica_state, b, (BlankReplicaState,) * c.BrokerCount)


def reset_follower_state_of_all_but_isr(c: KraftConstants, s: KraftState, b: int,
                                        new_part_md: ReplicaPartitionMetadata) -> tuple:
    """``ResetFollowerStateOfAllButISR(b, new_part_md)``: partition_replica_state'."""
    row = s.partition_replica_state[b - 1]
    return at(s.partition_replica_state, b,
              tuple(BlankReplicaState if b1 not in new_part_md.isr else row[b1 - 1] for b1 in brokers(c)))


def pending_alter_partition_response(s: KraftState, b: int) -> bool:
    """``PendingAlterPartitionResponse(b)``."""
    return s.partition_pending_ap[b - 1].epoch > s.partition_metadata[b - 1].partition_epoch


def reassignment_in_progress(s: KraftState) -> bool:
    md = s.con_partition_metadata
    return bool(md.adding) or bool(md.removing)


def unreplicated_offsets(s: KraftState, b: int) -> range:
    """``UnreplicatedOffsets(b)``."""
    return range(len(s.broker_metadata_log[b - 1]) + 1, len(s.con_metadata_log) + 1)


def partition_needs_action(s: KraftState, b: int, md_offset: int) -> int:
    """``PartitionNeedsAction(b, md_offset)``: how many of its three disjuncts hold (0: it is false).

    In an action, TLC follows each true disjunct of a disjunction on its own,
    even inside an operator's body: a leader that learns of a leader epoch
    bump satisfies two, and ReceiveMetadataUpdate generates its successor
    twice (both count as "states generated").
    """
    pm = s.partition_metadata[b - 1]
    rec = s.con_metadata_log[md_offset - 1]
    return ((s.partition_status[b - 1] == Leader)
            + (b in pm.replicas and rec.leader_epoch > pm.leader_epoch)
            + (b not in pm.replicas and b in rec.replicas))


# -- the commit offset and the high watermark -----------------------------------------------------------------


def is_committed(b: int, maximal_isr: frozenset, replica_state: tuple, offset: int) -> bool:
    """``IsCommitted(b, maximal_isr, replica_state, offset)``."""
    for b1 in maximal_isr:
        if b1 == b:
            continue
        leo = replica_state[b1 - 1].leo
        if leo == Nil or not leo > offset:
            return False
    return True


def get_commit_offset(s: KraftState, b: int, maximal_isr: frozenset, leo: int, replica_state: tuple) -> int:
    """``GetCommitOffset``: the highest offset below ``leo`` every maximal-ISR member holds (0 when none)."""
    if leo_of(s, b) == 1:
        return 0
    for offset in range(leo - 1, 0, -1):
        if is_committed(b, maximal_isr, replica_state, offset):
            return offset
    return 0


def commit_offset_on_fetch(s: KraftState, b: int, replica_state: tuple) -> int:
    return get_commit_offset(s, b, s.partition_metadata[b - 1].maximal_isr, leo_of(s, b), replica_state)


def commit_offset_on_update(s: KraftState, b: int, maximal_isr: frozenset) -> int:
    return get_commit_offset(s, b, maximal_isr, leo_of(s, b), s.partition_replica_state[b - 1])


def commit_offset_on_write(s: KraftState, b: int, new_leo: int) -> int:
    return get_commit_offset(s, b, s.partition_metadata[b - 1].maximal_isr, new_leo,
                             s.partition_replica_state[b - 1])


class InvVars(NamedTuple):
    """``inv_vars`` as one action leaves them (``inv_sent`` is never changed by these formulas)."""

    inv_pos_acked: frozenset
    inv_neg_acked: frozenset
    inv_true_hwm: int
    inv_consumed: tuple


def inv_of(s: KraftState) -> InvVars:
    return InvVars(s.inv_pos_acked, s.inv_neg_acked, s.inv_true_hwm, s.inv_consumed)


def send_acks_for(s: KraftState, b: int, lower: int, higher: int, ack_type: bool) -> tuple[frozenset, frozenset]:
    """``SendAcksFor(b, lower, higher, ack_type)``: (inv_pos_acked', inv_neg_acked')."""
    flo = s.aux_flo[b - 1]
    values = set()
    for v in sorted(s.inv_sent):
        if v in s.inv_pos_acked or v in s.inv_neg_acked:
            continue
        for offset in range(lower, higher + 1):  # \E offset: TLC evaluates them in order and stops at the first
            if log_entry(s, b, offset).value == v and offset >= flo:
                values.add(v)
                break
    if ack_type:
        return s.inv_pos_acked | values, s.inv_neg_acked
    return s.inv_pos_acked, s.inv_neg_acked | values


def update_hwm_invariant_vars(s: KraftState, b: int, old_hwm: int, new_hwm: int, ack_type: bool) -> InvVars:
    """``UpdateHwmInvariantVars(b, old_hwm, new_hwm, ack_type)``."""
    if ack_type:
        pos, neg = send_acks_for(s, b, old_hwm, new_hwm - 1, ack_type)
    else:
        pos, neg = send_acks_for(s, b, old_hwm, leo_of(s, b) - 1, ack_type)
    true_hwm = new_hwm if new_hwm > s.inv_true_hwm else s.inv_true_hwm
    consumed = (s.inv_consumed + sub_seq(log_of(s, b), s.inv_true_hwm, new_hwm - 1)
                if new_hwm > s.inv_true_hwm else s.inv_consumed)
    return InvVars(pos, neg, true_hwm, consumed)


def maybe_advance_high_watermark(s: KraftState, b: int, old_hwm: int, new_hwm: int,
                                 ack_type: bool) -> tuple[tuple, InvVars]:
    """``MaybeAdvanceHighWatermark``: (partition_data', inv_vars')."""
    if new_hwm > old_hwm:
        pd = s.partition_data[b - 1]
        return (at(s.partition_data, b, pd._replace(hwm=new_hwm)),
                update_hwm_invariant_vars(s, b, old_hwm, new_hwm, ack_type))
    return s.partition_data, inv_of(s)


def maybe_fail_pending_writes(c: KraftConstants, s: KraftState, b: int,
                              part_state: Any) -> tuple[frozenset, frozenset]:
    """``MaybeFailPendingWrites(b, part_state)``: (inv_pos_acked', inv_neg_acked')."""
    if hwm_of(s, b) < leo_of(s, b) and (len(part_state.isr) < c.MinISR or b != part_state.leader):
        return send_acks_for(s, b, hwm_of(s, b), leo_of(s, b) - 1, False)
    return s.inv_pos_acked, s.inv_neg_acked


def maybe_update_hwm_and_ack_on_partition_change(c: KraftConstants, s: KraftState, b: int,
                                                 part_md: ReplicaPartitionMetadata) -> tuple[tuple, InvVars]:
    """``MaybeUpdateHwmAndAckOnPartitionChange(b, part_md, _)``: (partition_data', inv_vars')."""
    old_hwm = hwm_of(s, b)
    new_hwm = commit_offset_on_update(s, b, part_md.maximal_isr) + 1
    ack_type = len(part_md.maximal_isr) >= c.MinISR
    return maybe_advance_high_watermark(s, b, old_hwm, new_hwm, ack_type)


# -- partition changes on the controller -----------------------------------------------------------------------


def apply_partition_change(s: KraftState, new_replicas: frozenset, new_leader: int, new_isr: frozenset,
                           leader_epoch: int, part_epoch: int, adding: frozenset,
                           removing: frozenset) -> tuple[ControllerPartitionMetadata, tuple]:
    """``ApplyPartitionChange``: (con_partition_metadata', con_metadata_log')."""
    md = ControllerPartitionMetadata(new_replicas, new_isr, new_leader, leader_epoch, part_epoch, adding, removing)
    rec = MetadataRecord(PartitionChangeRecord, new_replicas, new_isr, new_leader, leader_epoch, part_epoch,
                         adding, removing)
    return md, s.con_metadata_log + (rec,)


def no_partition_change(s: KraftState) -> tuple[ControllerPartitionMetadata, tuple]:
    return s.con_partition_metadata, s.con_metadata_log


def maybe_remove_broker_from_isr(isr: frozenset, b: int) -> frozenset:
    """``MaybeRemoveBrokerFromISR``: the ISR never drops below one member."""
    return isr if len(isr) == 1 else isr - {b}


def no_leader_change(s: KraftState, new_isr: frozenset, new_unfenced: frozenset) -> bool:
    leader = s.con_partition_metadata.leader
    if leader == NoLeader and not any(cand in new_unfenced for cand in new_isr):
        return True
    return leader in new_isr and leader in new_unfenced


def maybe_update_partition_on_broker_change(s: KraftState, new_isr: frozenset,
                                            new_unfenced: frozenset) -> list[tuple[ControllerPartitionMetadata, tuple]]:
    """``MaybeUpdatePartitionOnBrokerChange``: every (con_partition_metadata', con_metadata_log') it allows.

    A CASE: TLC takes the first arm whose guard holds; the leader-election arm
    yields one successor per candidate, in ascending broker order.
    """
    md = s.con_partition_metadata
    unchanged_leader = no_leader_change(s, new_isr, new_unfenced)
    if unchanged_leader and new_isr == md.isr:
        return [no_partition_change(s)]
    if unchanged_leader and new_isr != md.isr:
        return [apply_partition_change(s, md.replicas, md.leader, new_isr, md.leader_epoch,
                                       md.partition_epoch + 1, md.adding, md.removing)]
    if any(cand in new_unfenced for cand in new_isr):
        return [apply_partition_change(s, md.replicas, cand, new_isr, md.leader_epoch + 1, md.partition_epoch + 1,
                                       md.adding, md.removing)
                for cand in sorted(new_isr) if cand in new_unfenced]
    return [apply_partition_change(s, md.replicas, NoLeader, new_isr, md.leader_epoch + 1, md.partition_epoch + 1,
                                   md.adding, md.removing)]


def handle_broker_fenced(s: KraftState, b: int) -> tuple[list[tuple[ControllerPartitionMetadata, tuple]], frozenset]:
    """``HandleBrokerFenced(b)``: the (metadata', log') alternatives and con_unfenced'."""
    new_isr = maybe_remove_broker_from_isr(s.con_partition_metadata.isr, b)
    new_unfenced = s.con_unfenced - {b}
    return maybe_update_partition_on_broker_change(s, new_isr, new_unfenced), new_unfenced


def handle_broker_unfenced(s: KraftState, b: int) -> tuple[list[tuple[ControllerPartitionMetadata, tuple]], frozenset]:
    """``HandleBrokerUnfenced(b)``: a leaderless partition may get a leader from its ISR."""
    new_isr = s.con_partition_metadata.isr
    new_unfenced = s.con_unfenced | {b}
    if s.con_partition_metadata.leader == NoLeader:
        return maybe_update_partition_on_broker_change(s, new_isr, new_unfenced), new_unfenced
    return [no_partition_change(s)], new_unfenced


# -- LastOffsetForEpoch --------------------------------------------------------------------------------------------


def last_offset_for_epoch(s: KraftState, b: int, req_epoch: int, is_leader: bool) -> EpochAndOffset:
    """``LastOffsetForEpoch(b, req_epoch, is_leader)``: the epoch and end offset a diverging follower truncates to.

    The TLA+ sets the offset to ``Nil`` where "this should not happen" (so
    TLC stops when it is compared); so does this, and the callers refuse to
    compare it (:func:`require_offset`).
    """
    log = log_of(s, b)
    if (not log or req_epoch == log[-1].epoch
            or (is_leader and s.partition_metadata[b - 1].leader_epoch == req_epoch)):
        return EpochAndOffset(req_epoch, leo_of(s, b))
    offsets = range(1, len(log) + 1)

    def epoch(o: int) -> int:
        return log[o - 1].epoch

    higher_epoch_offset = Nil
    if any(epoch(o) > req_epoch for o in offsets):
        for o in offsets:  # CHOOSE: TLC takes the first offset, in ascending order, that satisfies it
            if epoch(o) > req_epoch and not any(o2 < o and req_epoch < epoch(o2) < epoch(o) for o2 in offsets):
                higher_epoch_offset = o
                break
    elif is_leader and s.partition_metadata[b - 1].leader_epoch > req_epoch:
        higher_epoch_offset = leo_of(s, b)
    if any(epoch(o) <= req_epoch for o in offsets):
        floor = next(o for o in offsets
                     if epoch(o) <= req_epoch and not any(req_epoch >= epoch(o2) > epoch(o) for o2 in offsets))
        return EpochAndOffset(epoch(floor), higher_epoch_offset)
    return EpochAndOffset(req_epoch, higher_epoch_offset)


def require_offset(offset: int, where: str) -> int:
    """An offset about to be compared: ``Nil`` there is where TLC stops with an error."""
    if offset == Nil:
        raise TlcWouldFail(f"{where}: LastOffsetForEpoch returned Nil as the offset, and TLC cannot compare it")
    return offset


# -- AlterPartition validation ----------------------------------------------------------------------------------------


def is_eligible_broker(s: KraftState, b: int, broker_epoch: int) -> bool:
    reg = s.con_broker_reg[b - 1]
    return reg.status == UNFENCED and (broker_epoch == 0 or reg.broker_epoch == broker_epoch)


def validate_alter_partition_request(s: KraftState, b: int, m: AlterPartitionRequestMsg) -> int:
    """``ValidateAlterPartitionRequest(b, m)``: ``Nil`` (no error), ``IneligibleReplica`` or ``FencedLeaderEpoch``."""
    md = s.con_partition_metadata
    if (b == md.leader and m.broker_epoch == s.con_broker_reg[b - 1].broker_epoch
            and m.partition_epoch == md.partition_epoch):
        if all(is_eligible_broker(s, b1, e) for b1, e in m.isr_and_epochs):
            return Nil
        return IneligibleReplica
    return FencedLeaderEpoch


# -- DropFetchSessions ---------------------------------------------------------------------------------------------------


def drop_fetch_sessions(c: KraftConstants, s: KraftState, b: int) -> tuple[frozenset, frozenset, tuple]:
    """``DropFetchSessions(b)``: (messages', messages_discard', broker_fetchers')."""
    dropped = frozenset(m for m in s.messages if m.type in (FetchRequest, FetchResponse)
                        and (m.dest == b or m.source == b))
    fetchers = []
    for b1 in brokers(c):
        row = s.broker_fetchers[b1 - 1]
        f = row[b - 1]
        if b == b1:
            fetchers.append((BlankFetchState,) * c.BrokerCount)
        elif f.pending_response and f.partition != Nil:
            fetchers.append(at(row, b, BrokerFetcher(f.partition._replace(delayed=True), False)))
        elif f.pending_response and f.partition == Nil:
            fetchers.append(at(row, b, f._replace(pending_response=False)))
        else:
            fetchers.append(row)
    return s.messages - dropped, s.messages_discard | dropped, tuple(fetchers)


# -- message order -------------------------------------------------------------------------------------------------------


def message_order(msgs: frozenset) -> list:
    """The messages in a fixed order (``\\E m \\in Messages`` yields one successor per message): the spec
    API's canonical value order, which the memo tables can follow."""
    return canonical_sorted(msgs)
