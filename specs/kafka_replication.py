"""The core of Kafka replication (KafkaReplication.tla): state, constants and base actions.

One partition, a fixed set of replicas.  Each replica has a log and a local
state (high watermark, and its view of leader, leader epoch and ISR).  The
controller has no state of its own: it changes the quorum state (ZooKeeper)
atomically and sends LeaderAndIsr requests, modelled as an ever-growing set so
that requests can be lost, delayed or seen twice.

Encoding (each a one-to-one image of the TLA+ values, so state counts match TLC):

* replicas are indices ``0 .. Replicas-1`` (shown ``r1``, ``r2``...); ``NONE = -1``;
* a log is a tuple of :class:`Record` (its length is the end offset);
* Nil epochs are ``-1``, as in the TLA+ module;
* ``leaderAndIsrRequests`` is a tuple sorted by leader epoch.  Every request
  carries a fresh epoch from the epoch sequence, so a new request always has the
  largest epoch and appending keeps the tuple sorted: the same set, in a
  canonical order that iterates identically in every process.

Action functions follow the TLA+ actions one to one; where a TLA+ action has
several satisfied disjuncts that yield the same successor, the function returns
each copy, because TLC counts every one in "states generated".
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, Symmetry, action, all_of, constant, eventually, leads_to, liveness, step_property
from modelcheck.spec.renamed import renamed_set
from modelcheck.spec.replace import replace_at, replacer
from modelcheck.specs.message_events import exchange, send
from modelcheck.specs.naming import replica_name, replica_set
from modelcheck.specs.replicated_log import EMPTY_LOG, Record, end_offset, has_offset

NONE = -1
"""No replica (the TLA+ ``None``)."""
NIL = -1
"""No leader epoch yet (the TLA+ ``Nil``)."""


@attrs.frozen
class KafkaConstants:
    """The four constants of KafkaReplication.tla, with the published model's values as defaults."""

    Replicas: int = constant(3, "number of replicas (interchangeable model values r1..rN)", minimum=1, maximum=6)
    LogSize: int = constant(2, "capacity of every replica's log (offsets 0..LogSize-1)", minimum=0, maximum=8)
    MaxRecords: int = constant(2, "records the producer writes in total (ids 0..MaxRecords-1)", minimum=0, maximum=8)
    MaxLeaderEpoch: int = constant(2, "largest leader epoch (epochs 0..MaxLeaderEpoch)", minimum=0, maximum=8)


class QuorumState(NamedTuple):
    """What ZooKeeper holds for the partition; LeaderAndIsr requests carry the same fields."""

    leader_epoch: int
    leader: int
    isr: frozenset


class ReplicaState(NamedTuple):
    """A replica's cached quorum state plus its local high watermark."""

    hw: int
    leader_epoch: int
    leader: int
    isr: frozenset


class KafkaState(NamedTuple):
    """The six variables of KafkaReplication.tla."""

    replica_log: tuple[tuple[Record, ...], ...]  # per replica: its log
    replica_state: tuple[ReplicaState, ...]  # per replica
    next_record_id: int
    next_leader_epoch: int
    leader_and_isr_requests: tuple[QuorumState, ...]  # sorted by leader epoch
    quorum_state: QuorumState


# Fast equivalents of ``s._replace(...)`` for the field sets the actions change (same result).
with_replica_state = replacer(KafkaState, "replica_state")
with_logs_and_states = replacer(KafkaState, "replica_log", "replica_state")
with_quorum_and_states = replacer(KafkaState, "quorum_state", "replica_state")


REPLICA = Domain("replica", lambda c: range(c.Replicas), replica_name)


def init(c: KafkaConstants):
    """Init: empty logs, no leader, every replica in the quorum ISR, no requests."""
    n = c.Replicas
    yield KafkaState(
        replica_log=(EMPTY_LOG,) * n,
        replica_state=(ReplicaState(0, NIL, NONE, frozenset()),) * n,
        next_record_id=0,
        next_leader_epoch=0,
        leader_and_isr_requests=(),
        quorum_state=QuorumState(NIL, NONE, frozenset(range(n))),
    )


# -- predicates shared by the actions ------------------------------------------


def is_true_leader(s: KafkaState, leader: int) -> bool:
    """IsTrueLeader: the quorum names it, it agrees, and its epoch is the quorum's."""
    q = s.quorum_state
    rs = s.replica_state[leader]
    return q.leader == leader and rs.leader == leader and rs.leader_epoch == q.leader_epoch


def is_follower_caught_up(s: KafkaState, leader: int, follower: int, end: int) -> bool:
    """IsFollowerCaughtUp: following the leader and holding offset ``end - 1`` where the leader has one.

    Note the published model compares offsets only, not records.
    """
    if s.replica_state[follower].leader != leader:
        return False
    if end == 0:
        return True
    offset = end - 1
    return has_offset(s.replica_log[leader], offset) and has_offset(s.replica_log[follower], offset)


# -- controller -----------------------------------------------------------------


def controller_update_isr(c: KafkaConstants, s: KafkaState, new_leader: int, new_isr: frozenset) -> KafkaState | None:
    """ControllerUpdateIsr: bump the epoch, write the quorum, send a LeaderAndIsr request."""
    epoch = s.next_leader_epoch
    if epoch > c.MaxLeaderEpoch:
        return None
    q = QuorumState(epoch, new_leader, new_isr)
    return s._replace(
        next_leader_epoch=epoch + 1,
        quorum_state=q,
        leader_and_isr_requests=s.leader_and_isr_requests + (q,),
    )


@action("ControllerElectLeader", new_leader=REPLICA)
def controller_elect_leader(c: KafkaConstants, s: KafkaState, new_leader: int):
    """Clean election: the controller picks a new leader from the quorum ISR and bumps the epoch."""
    q = s.quorum_state
    if new_leader not in q.isr or q.leader == new_leader:
        return None
    return controller_update_isr(c, s, new_leader, q.isr)


@action("ControllerShrinkIsr", replica=REPLICA)
def controller_shrink_isr(c: KafkaConstants, s: KafkaState, replica: int):
    """A broker fails (or shuts down): the controller takes it out of the ISR; a failed leader is replaced by None."""
    if s.next_leader_epoch > c.MaxLeaderEpoch:
        return None  # ControllerUpdateIsr's guard, tested before the new ISR is built (most calls stop here)
    q = s.quorum_state
    if q.leader == replica:
        if q.isr == frozenset((replica,)):
            return controller_update_isr(c, s, NONE, q.isr)
        return controller_update_isr(c, s, NONE, q.isr - {replica})
    if replica in q.isr:
        return controller_update_isr(c, s, q.leader, q.isr - {replica})
    return None


# -- leader side ----------------------------------------------------------------


@action("BecomeLeader", replica=REPLICA)
def become_leader(c: KafkaConstants, s: KafkaState, replica: int):
    """A replica named leader by a LeaderAndIsr request with a newer epoch takes over, keeping its (stale) HW."""
    rs = s.replica_state[replica]
    out = []
    for req in s.leader_and_isr_requests:
        if req.leader == replica and req.leader_epoch > rs.leader_epoch:
            new_rs = ReplicaState(rs.hw, req.leader_epoch, replica, req.isr)
            out.append(with_replica_state(s, replace_at(s.replica_state, replica, new_rs)))
    return out or None


@action("LeaderWrite", replica=REPLICA)
def leader_write(c: KafkaConstants, s: KafkaState, replica: int):
    """A replica that presumes leadership appends a new record in its epoch (no fencing)."""
    rs = s.replica_state[replica]
    if rs.leader != replica or s.next_record_id >= c.MaxRecords:
        return None
    log = s.replica_log[replica]
    if len(log) >= c.LogSize:
        return None
    record = Record(s.next_record_id, rs.leader_epoch)
    return s._replace(
        replica_log=replace_at(s.replica_log, replica, log + (record,)),
        next_record_id=s.next_record_id + 1,
    )


def quorum_update_leader_and_isr(s: KafkaState, leader: int, new_isr: frozenset) -> KafkaState | None:
    """QuorumUpdateLeaderAndIsr: only the true leader may write a new ISR (fenced by the quorum)."""
    if not is_true_leader(s, leader):
        return None
    rs = s.replica_state[leader]
    q = s.quorum_state
    return with_quorum_and_states(
        s,
        QuorumState(q.leader_epoch, q.leader, new_isr),
        replace_at(s.replica_state, leader, ReplicaState(rs.hw, rs.leader_epoch, rs.leader, new_isr)),
    )


@action("LeaderShrinkIsr", leader=REPLICA, replica=REPLICA)
def leader_shrink_isr(c: KafkaConstants, s: KafkaState, leader: int, replica: int):
    """The leader drops a follower that has not caught up to its end offset."""
    isr = s.replica_state[leader].isr
    if replica == leader or replica not in isr:
        return None
    if is_follower_caught_up(s, leader, replica, end_offset(s.replica_log[leader])):
        return None
    return quorum_update_leader_and_isr(s, leader, isr - {replica})


@action("LeaderExpandIsr", leader=REPLICA, replica=REPLICA)
def leader_expand_isr(c: KafkaConstants, s: KafkaState, leader: int, replica: int):
    """The leader adds a follower that has caught up to its high watermark."""
    rs = s.replica_state[leader]
    if replica in rs.isr or not is_follower_caught_up(s, leader, replica, rs.hw):
        return None
    return quorum_update_leader_and_isr(s, leader, rs.isr | {replica})


@action("LeaderIncHighWatermark", leader=REPLICA)
def leader_inc_high_watermark(c: KafkaConstants, s: KafkaState, leader: int):
    """The pre-KIP-320 rule: advance the HW once every ISR member follows the leader and holds the offset."""
    rs = s.replica_state[leader]
    if rs.leader != leader:
        return None
    hw = rs.hw
    if hw >= c.LogSize:  # \E offset \in Offsets : offset = hw
        return None
    for f in rs.isr:
        if s.replica_state[f].leader != leader or not has_offset(s.replica_log[f], hw):
            return None
    return with_replica_state(s, replace_at(s.replica_state, leader, ReplicaState(hw + 1, rs.leader_epoch, rs.leader, rs.isr)))


# -- follower side --------------------------------------------------------------


def become_follower_and_truncate_to(
    s: KafkaState, leader: int, replica: int, truncation_offset: int | None
) -> list[KafkaState]:
    """BecomeFollowerAndTruncateTo: on a newer-epoch request naming ``leader``, truncate and follow.

    One successor per matching request (the TLA+ ``\\E leaderAndIsrRequest``).
    ``truncation_offset`` None means the truncation point is undefined, which
    disables the action as in TLA+.
    """
    if leader == replica or truncation_offset is None:
        return []
    rs = s.replica_state[replica]
    log = s.replica_log[replica]
    out = []
    for req in s.leader_and_isr_requests:
        if req.leader != leader or req.leader_epoch <= rs.leader_epoch:
            continue
        if leader == NONE:
            new_logs = s.replica_log
        else:
            if truncation_offset > len(log):
                continue
            new_logs = replace_at(s.replica_log, replica, log[:truncation_offset])
        new_rs = ReplicaState(min(truncation_offset, rs.hw), req.leader_epoch, leader, req.isr)
        out.append(with_logs_and_states(s, new_logs, replace_at(s.replica_state, replica, new_rs)))
    return out


def replicate_next_record(c: KafkaConstants, s: KafkaState, follower: int, leader: int) -> KafkaState | None:
    """ReplicateTo plus the HW update every fetch variant shares.

    The follower appends the leader's record at its own end offset (disabled
    when the leader has none there or the follower's log is full) and takes
    HW = min(leader HW, new end offset).
    """
    f_log = s.replica_log[follower]
    l_log = s.replica_log[leader]
    offset = len(f_log)
    if offset >= len(l_log) or offset >= c.LogSize:
        return None
    f_rs = s.replica_state[follower]
    new_rs = ReplicaState(min(s.replica_state[leader].hw, offset + 1), f_rs.leader_epoch, f_rs.leader, f_rs.isr)
    return with_logs_and_states(
        s,
        replace_at(s.replica_log, follower, f_log + (l_log[offset],)),
        replace_at(s.replica_state, follower, new_rs),
    )


@action("FollowerReplicate", follower=REPLICA, leader=REPLICA)
def follower_replicate(c: KafkaConstants, s: KafkaState, follower: int, leader: int):
    """A follower copies the leader's next record and takes HW = min(leader HW, its new end), unfenced."""
    if s.replica_state[leader].leader != leader or s.replica_state[follower].leader != leader:
        return None
    return replicate_next_record(c, s, follower, leader)


# -- symmetry ---------------------------------------------------------------------


def permute(c: KafkaConstants, s: KafkaState, perm: tuple[int, ...]) -> KafkaState:
    """Rename replica ``i`` to ``perm[i]`` everywhere: the replicas are interchangeable model values."""

    rename = perm + (NONE,)  # rename[NONE] is NONE: index -1 is the last
    n = len(perm)
    logs = [None] * n
    states = [None] * n
    for i in range(n):
        rs = s.replica_state[i]
        logs[perm[i]] = s.replica_log[i]
        states[perm[i]] = ReplicaState(rs.hw, rs.leader_epoch, rename[rs.leader], renamed_set(perm, rs.isr))
    q = s.quorum_state
    return KafkaState(
        tuple(logs),
        tuple(states),
        s.next_record_id,
        s.next_leader_epoch,
        tuple([QuorumState(x.leader_epoch, rename[x.leader], renamed_set(perm, x.isr))
               for x in s.leader_and_isr_requests]),
        QuorumState(q.leader_epoch, rename[q.leader], renamed_set(perm, q.isr)),
    )


def replica_signature(c: KafkaConstants, s: KafkaState, r: int) -> tuple:
    """What renaming replicas carries along with replica ``r``: its log, HW, epoch and roles.

    Only ``r``'s own facts and its relation to itself (leads? in the ISR?),
    never another replica's index, so a permuted state gives the renamed
    replica the same key (see :class:`modelcheck.Symmetry`).
    """
    rs = s.replica_state[r]
    q = s.quorum_state
    return (
        s.replica_log[r], rs.hw, rs.leader_epoch, rs.leader == r, rs.leader == NONE,
        len(rs.isr), r in rs.isr, q.leader == r, r in q.isr,
    )


REPLICA_SYMMETRY = Symmetry(size=lambda c: c.Replicas, permute=permute, signature=replica_signature)


# -- how a state is shown ------------------------------------------------------------


def _log_text(log: tuple) -> str:
    return "[" + ", ".join(f"{rec.id}@e{rec.epoch}" for rec in log) + "]"


def _epoch(e: int) -> str:
    return "Nil" if e == NIL else str(e)


def view(c: KafkaConstants, s: KafkaState) -> dict[str, Any]:
    """The state as TLA+ variables, each replica's log as ``[id@eEpoch, ...]``."""
    names = [replica_name(i) for i in range(c.Replicas)]
    return {
        "replicaLog": {names[i]: _log_text(s.replica_log[i]) for i in range(c.Replicas)},
        "replicaState": {
            names[i]: {
                "hw": rs.hw,
                "leaderEpoch": _epoch(rs.leader_epoch),
                "leader": replica_name(rs.leader),
                "isr": replica_set(rs.isr),
            }
            for i, rs in enumerate(s.replica_state)
        },
        "nextRecordId": s.next_record_id,
        "nextLeaderEpoch": s.next_leader_epoch,
        "leaderAndIsrRequests": [
            f"[epoch {q.leader_epoch}, leader {replica_name(q.leader)}, isr {replica_set(q.isr)}]"
            for q in s.leader_and_isr_requests
        ],
        "quorumState": {
            "leaderEpoch": _epoch(s.quorum_state.leader_epoch),
            "leader": replica_name(s.quorum_state.leader),
            "isr": replica_set(s.quorum_state.isr),
        },
    }


def lanes(c: KafkaConstants, s: KafkaState) -> dict[str, dict[str, Any]]:
    """Per-replica swim lanes: log, LEO, HW, epoch, role and ISR as the replica itself believes, and quorum ISR membership.

    Every per-replica variable of :func:`view` has a field here (the leader it
    follows is in ``role``), so no change of a replica's state is invisible in
    the lanes.
    """
    out = {}
    q = s.quorum_state
    for i in range(c.Replicas):
        rs = s.replica_state[i]
        if rs.leader == i:
            role = "leader" if q.leader == i and q.leader_epoch == rs.leader_epoch else "leader (stale)"
        elif rs.leader == NONE:
            role = "follower of None" if rs.leader_epoch != NIL else "idle"
        else:
            role = f"follower of {replica_name(rs.leader)}"
        out[replica_name(i)] = {
            "log": _log_text(s.replica_log[i]),
            "LEO": len(s.replica_log[i]),
            "HW": rs.hw,
            "epoch": _epoch(rs.leader_epoch),
            "role": role,
            "ISR": replica_set(rs.isr),
            "in quorum ISR": i in q.isr,
        }
    return out


# -- what a step sends and delivers (sequence diagrams) -----------------------------------

CONTROLLER = "controller"
"""The controller's actor name in sequence diagrams (it has no state of its own here: the quorum state is ZooKeeper's)."""
FETCH_ACTIONS = ("FollowerReplicate", "FencedFollowerFetch", "FollowerFetch")
"""Actions that are one whole fetch round trip: request (follower to leader) and response with the next record."""


def replica_index(name: str) -> int:
    """The index of a replica shown as ``r3`` (``None`` is NONE): trace parameters are shown names."""
    return NONE if name == "None" else int(name[1:]) - 1


def lai_label(q: QuorumState) -> str:
    """A LeaderAndIsr request as a sequence diagram labels it."""
    return f"LeaderAndIsr(epoch {q.leader_epoch}, leader {replica_name(q.leader)}, isr {replica_set(q.isr)})"


def messages(c: KafkaConstants, s: KafkaState, t: KafkaState, action: str, params: dict[str, str]) -> list[dict]:
    """What the step ``s -> t`` sends and delivers, for the sequence diagram (see ``Spec(messages=...)``).

    * LeaderAndIsr: a new request in ``leaderAndIsrRequests`` is sent by the
      controller to every replica; a replica applies one when its leader
      epoch moves to the request's epoch, and the requests it skipped over
      are dropped (a replica never applies an older epoch afterwards).
    * ISR updates: when the quorum ISR changes without a new epoch, the
      leader wrote it to ZooKeeper (QuorumUpdateLeaderAndIsr), drawn as a
      message from the leader to the controller.
    * A fetch (``FETCH_ACTIONS``) is one atomic round trip: the follower's
      request with its fetch offset, and the leader's response with the
      record and the leader's HW.

    Variants add their truncation exchanges (OffsetsForLeaderEpoch) on top.
    """
    out: list[dict] = []
    for q in t.leader_and_isr_requests[len(s.leader_and_isr_requests):]:
        for r in range(c.Replicas):
            out.append(send(f"LeaderAndIsr e{q.leader_epoch} to {replica_name(r)}", CONTROLLER, replica_name(r),
                            lai_label(q), "LeaderAndIsr", delivered=False))
    for r in range(c.Replicas):
        before, after = s.replica_state[r].leader_epoch, t.replica_state[r].leader_epoch
        if after > before:
            for q in s.leader_and_isr_requests:
                if before < q.leader_epoch < after:
                    out.append({"drop": f"LeaderAndIsr e{q.leader_epoch} to {replica_name(r)}",
                                "why": f"superseded by epoch {after}"})
            out.append({"receive": f"LeaderAndIsr e{after} to {replica_name(r)}"})
    q0, q1 = s.quorum_state, t.quorum_state
    if q1.isr != q0.isr and q1.leader_epoch == q0.leader_epoch and q1.leader != NONE:
        out.append(send("IsrUpdate", replica_name(q1.leader), CONTROLLER,
                        f"ISR update {replica_set(q1.isr)} (epoch {q1.leader_epoch})", "IsrUpdate", delivered=True))
    if action in FETCH_ACTIONS:
        follower, leader = replica_index(params["follower"]), replica_index(params["leader"])
        f_log = s.replica_log[follower]
        record = t.replica_log[follower][len(f_log):]
        out += exchange(f"Fetch by {params['follower']}", params["follower"], params["leader"],
                        f"Fetch(offset {len(f_log)})",
                        f"records {_log_text(record)}, HW {s.replica_state[leader].hw}", "Fetch")
    return out


def truncating_variant_actions(become_follower: Any) -> list:
    """Next of the variants that differ only in how a new follower truncates (HW, KIP-101, KIP-279)."""
    return [
        controller_elect_leader,
        controller_shrink_isr,
        become_leader,
        leader_expand_isr,
        leader_shrink_isr,
        leader_write,
        leader_inc_high_watermark,
        become_follower,
        follower_replicate,
    ]


# -- liveness and step properties -----------------------------------------------------------
#
# Shared by every variant; each lists KAFKA_PROPERTIES (and its own fairness, as its TLA+ Spec
# declares it).  The TLA+ terms, on this encoding: r *presumes leadership* when
# ``replica_state[r].leader == r``; r is the *true leader* (IsTrueLeader) when the quorum names it,
# it presumes leadership and its epoch is the quorum's (:func:`is_true_leader`); Hw(r) is
# ``replica_state[r].hw``; r *has offset* o when ``o < len(replica_log[r])``.  "No leader" is NONE
# (-1), never a replica index, so ``quorum_state.leader == r`` is false while the quorum names none.


def some_replica_presumes_leadership(c: KafkaConstants, s: KafkaState) -> bool:
    """\\E r: ReplicaPresumesLeadership(r)."""
    for r, rs in enumerate(s.replica_state):
        if rs.leader == r:
            return True
    return False


def _designated(r: int):
    def designated(c: KafkaConstants, s: KafkaState) -> bool:
        return s.quorum_state.leader == r
    return designated


def _took_over_or_replaced(r: int):
    def took_over_or_replaced(c: KafkaConstants, s: KafkaState) -> bool:
        return s.quorum_state.leader != r or is_true_leader(s, r)
    return took_over_or_replaced


def _leader_holds(i: int, committed: bool):
    """Some replica presuming leadership holds record id ``i`` (below its own HW when ``committed``)."""

    def holds(c: KafkaConstants, s: KafkaState) -> bool:
        for r, rs in enumerate(s.replica_state):
            if rs.leader != r:
                continue
            log = s.replica_log[r]
            end = min(rs.hw, len(log)) if committed else len(log)
            for o in range(end):
                if log[o].id == i:
                    return True
        return False

    holds.__name__ = f"leader_{'commits' if committed else 'holds'}_record_{i}"
    return holds


def _out_of_isr(r: int):
    def out_of_isr(c: KafkaConstants, s: KafkaState) -> bool:
        return r not in s.quorum_state.isr
    return out_of_isr


def _in_isr(r: int):
    def in_isr(c: KafkaConstants, s: KafkaState) -> bool:
        return r in s.quorum_state.isr
    return in_isr


@liveness("EventuallySomeLeader", "Some replica eventually presumes leadership.")
def eventually_some_leader(c: KafkaConstants):
    """<>(\\E r \\in Replicas: ReplicaPresumesLeadership(r))."""
    return eventually(some_replica_presumes_leadership)


@liveness("DesignatedLeaderTakesOver",
          "A replica the quorum names leader becomes the true leader, unless the quorum names another first.")
def designated_leader_takes_over(c: KafkaConstants):
    """\\A r \\in Replicas: quorumState.leader = r ~> (IsTrueLeader(r) \\/ quorumState.leader # r)."""
    return all_of(leads_to(_designated(r), _took_over_or_replaced(r)) for r in range(c.Replicas))


@liveness("LeaderRecordEventuallyCommitted",
          "A record on a replica that presumes leadership is eventually below the HW of such a replica holding it.")
def leader_record_eventually_committed(c: KafkaConstants):
    """\\A i \\in 0..MaxRecords-1:
    (\\E r, o: ReplicaPresumesLeadership(r) /\\ HasOffset(r, o) /\\ replicaLog[r][o].id = i)
    ~> (\\E r, o: ReplicaPresumesLeadership(r) /\\ HasOffset(r, o) /\\ replicaLog[r][o].id = i /\\ o < Hw(r)).
    """
    return all_of(leads_to(_leader_holds(i, False), _leader_holds(i, True)) for i in range(c.MaxRecords))


@liveness("OutOfIsrRejoins", "A replica out of the quorum ISR eventually rejoins it.")
def out_of_isr_rejoins(c: KafkaConstants):
    """\\A r \\in Replicas: r \\notin quorumState.isr ~> r \\in quorumState.isr."""
    return all_of(leads_to(_out_of_isr(r), _in_isr(r)) for r in range(c.Replicas))


@step_property("LeaderHwMonotonic", "A replica that presumes leadership before and after a step never lowers its HW in it.")
def leader_hw_monotonic(c: KafkaConstants, s: KafkaState, t: KafkaState) -> bool:
    """[][\\A r: ReplicaPresumesLeadership(r) /\\ ReplicaPresumesLeadership(r)' => Hw(r)' >= Hw(r)]_vars."""
    for r, (a, b) in enumerate(zip(s.replica_state, t.replica_state)):
        if a.leader == r and b.leader == r and b.hw < a.hw:
            return False
    return True


@step_property("HwMonotonicWithinEpoch", "A replica whose leader epoch a step leaves unchanged never lowers its HW in it.")
def hw_monotonic_within_epoch(c: KafkaConstants, s: KafkaState, t: KafkaState) -> bool:
    """[][\\A r: replicaState[r].leaderEpoch' = replicaState[r].leaderEpoch => Hw(r)' >= Hw(r)]_vars."""
    for a, b in zip(s.replica_state, t.replica_state):
        if a.leader_epoch == b.leader_epoch and b.hw < a.hw:
            return False
    return True


KAFKA_PROPERTIES = [
    eventually_some_leader,
    designated_leader_takes_over,
    leader_record_eventually_committed,
    out_of_isr_rejoins,
    leader_hw_monotonic,
    hw_monotonic_within_epoch,
]
"""The liveness and step properties every KafkaReplication variant declares."""


BASE_SPEC_OPTIONS = dict(
    constants=KafkaConstants,
    init=init,
    default_invariants=["StrongIsr"],
    symmetry=REPLICA_SYMMETRY,
    deadlock_expected=True,
    view=view,
    lanes=lanes,
    messages=messages,
)
"""Options every KafkaReplication variant shares: the published models check no deadlock
(ids and epochs are bounded, so every run ends in a state without successors)."""
