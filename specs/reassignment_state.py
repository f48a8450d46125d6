"""State, constants and display of the ``partition-reassignment`` spec (one partition moved to new brokers).

Kept apart from the actions so that the invariants (``invariants/partition_reassignment.py``)
can import the state without importing the spec.

Encoding (canonical: ints, bools, tuples, frozensets only): brokers are
``0 .. n-1``, shown ``b1 ..``; ``NONE = -1``; a log is a tuple of record ids;
the controller's progress is an index into the steps of the chosen ``Order``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, constant
from modelcheck.specs.message_events import exchange, send
from modelcheck.specs.naming import broker_name, broker_set

NONE = -1
"""No leader (the partition is offline)."""

GROW_AR, AWAIT_ISR, MOVE_LEADER, SHRINK_ISR, STOP_OLD, PERSIST_AR, COMPLETE = range(7)
"""The reassignment's steps, as the seeds list them (see :mod:`modelcheck.specs.partition_reassignment`)."""
STEP_NAMES = {
    GROW_AR: "AR := OAR + RAR",
    AWAIT_ISR: "wait for RAR in ISR",
    MOVE_LEADER: "leader from RAR",
    SHRINK_ISR: "ISR -= OAR - RAR",
    STOP_OLD: "stop and delete OAR - RAR",
    PERSIST_AR: "persist AR := RAR",
    COMPLETE: "delete /admin/reassign_partitions",
}

ORDERS: dict[str, tuple[int, ...]] = {
    "kafka": (GROW_AR, AWAIT_ISR, MOVE_LEADER, SHRINK_ISR, STOP_OLD, PERSIST_AR, COMPLETE),
    "shrink-isr-early": (GROW_AR, SHRINK_ISR, AWAIT_ISR, MOVE_LEADER, STOP_OLD, PERSIST_AR, COMPLETE),
    "stop-old-early": (GROW_AR, STOP_OLD, AWAIT_ISR, MOVE_LEADER, SHRINK_ISR, PERSIST_AR, COMPLETE),
    "persist-ar-early": (GROW_AR, PERSIST_AR, AWAIT_ISR, MOVE_LEADER, SHRINK_ISR, STOP_OLD, COMPLETE),
}
"""``kafka`` is the seeds' order (grow AR, grow ISR, move the leader, shrink ISR, shrink AR, persist AR
last); each other one moves a single step earlier."""

RECHECK, PERSIST_OAR, FENCE, STRAY_DELETION = "recheck", "persist-oar", "fence", "stray-deletion"
KIP455 = frozenset({RECHECK, PERSIST_OAR, FENCE, STRAY_DELETION})
FORMS: dict[str, frozenset] = {
    "seeds": frozenset(),
    "kip455": KIP455,
    **{f"kip455-no-{fix}": KIP455 - {fix} for fix in (RECHECK, PERSIST_OAR, FENCE, STRAY_DELETION)},
}
"""The fixes each ``Form`` has: ``seeds`` none, ``kip455`` all four, each ``kip455-no-X`` all but X (a mutant).

``recheck``: the steps after the wait run only while every replica of RAR is in the ISR, and the
leader is moved into RAR at the ISR shrink (KIP-455's phase B, one controller event in Kafka);
``persist-oar``: step 1 persists the adding and removing replicas, so a new controller recovers OAR
whatever AR says; ``fence``: the leader's ISR writes are conditional on the leader epoch it was told
(ZooKeeper's zkVersion, AlterPartition's epochs); ``stray-deletion``: a restarted broker deletes a replica
the metadata no longer assigns to it (KRaft brokers since 3.7)."""

CANCEL_KIP455, CANCEL_REVERT_FIRST, CANCEL_KEEP_PERSISTED = "kip455", "revert-first", "keep-persisted"
CANCELS = (CANCEL_KIP455, CANCEL_REVERT_FIRST, CANCEL_KEEP_PERSISTED)
"""How the controller cancels a move (``Cancel``): ``kip455`` runs the steps again with OAR as the target,
so the leader is moved back into OAR before the adding replicas leave the ISR and are stopped, and the
cancellation is persisted at once (the adding replicas are cleared from the persisted sets);
``revert-first`` (a mutant) reverts AR to OAR and stops and deletes the adding replicas at once, before
any leader is moved back; ``keep-persisted`` (a mutant) keeps the revert in the controller's memory and
leaves the persisted sets of the move, so a controller that takes over resumes the cancelled move."""

REPLICA_SETS = ("1,2:2,3", "1:2", "1,2:3,4")
"""``OAR:RAR`` as broker numbers."""


@attrs.frozen
class ReassignConstants:
    """Which replicas move where, in which order of steps, and how often the controller crashes."""

    Replicas: str = constant(
        "1,2:2,3", "the original and the reassigned replicas, OAR:RAR (the first of OAR leads)", choices=REPLICA_SETS)
    Order: str = constant(
        "kafka",
        "the controller's order of steps: kafka (the seeds' order: grow AR, grow ISR, move the leader, shrink ISR, "
        "shrink AR, persist AR last) or a wrong one: shrink-isr-early, stop-old-early, persist-ar-early",
        choices=tuple(ORDERS))
    Records: int = constant(1, "records producers send in total (acks=all)", minimum=0, maximum=3)
    ControllerCrashes: int = constant(1, "controller crashes during the move (a new controller resumes it)",
                                      minimum=0, maximum=2)
    Form: str = constant(
        "seeds", "the controller: seeds (the steps as the seeds list them), kip455 (KIP-455's persisted "
        "adding/removing replicas, phase B only while RAR is in the ISR, Kafka's epoch fences and stray "
        "deletion), or kip455-no-X, a mutant without fix X", choices=tuple(FORMS))
    BrokerCrashes: int = constant(0, "broker crashes (each broker restarts with its log on disk)", minimum=0,
                                  maximum=2)
    IsrShrinks: int = constant(0, "times the leader drops a lagging follower from the ISR", minimum=0, maximum=2)
    DelayedRequests: bool = constant(
        False, "the ISR shrink's LeaderAndIsr and StopReplica stay in flight until delivered")
    Cancellations: int = constant(
        0, "times the operator cancels the move while the controller waits for RAR to join the ISR (KIP-455's "
        "forms only: the revert needs the persisted OAR)", minimum=0, maximum=1)
    Cancel: str = constant(
        "kip455", "how a cancellation reverts: kip455 (move the leader back into OAR, then take the adding "
        "replicas out of the ISR, stop them, persist AR := OAR), or a mutant: revert-first, keep-persisted",
        choices=CANCELS)


def replica_sets(c: ReassignConstants) -> tuple[frozenset, frozenset]:
    """(OAR, RAR) as sets of broker indices."""
    old, new = c.Replicas.split(":")
    return (frozenset(int(x) - 1 for x in old.split(",")), frozenset(int(x) - 1 for x in new.split(",")))


def target(c: ReassignConstants, s: ReassignState) -> frozenset:
    """Where the running move goes: RAR, or the original replicas once it is being cancelled."""
    return s.revert or replica_sets(c)[1]


def broker_count(c: ReassignConstants) -> int:
    """Brokers involved: every broker of OAR and RAR."""
    old, new = replica_sets(c)
    return max(old | new) + 1


class Replica(NamedTuple):
    """One broker's replica of the partition."""

    hosted: bool
    """The broker hosts the replica (created by LeaderAndIsr; StopReplica and delete remove it)."""
    log: tuple


class ReassignState(NamedTuple):
    """ZooKeeper's view of the partition, the replicas, the controller's progress, the producers' acks."""

    replicas: tuple
    leader: int
    leader_epoch: int
    isr: frozenset
    zk_assignment: frozenset
    """AR as ZooKeeper stores it (/brokers/topics/[topic]): the only persistent copy."""
    known_assignment: frozenset
    """AR as the last LeaderAndIsr told the replicas: the leader admits only these into the ISR."""
    reassigning: bool
    """/admin/reassign_partitions still holds the target RAR."""
    controller_up: bool
    old_replicas: frozenset
    """OAR as the running controller knows it: ZooKeeper's AR when it started, or resumed, the move."""
    step: int
    """The controller's position in its order of steps (in memory: lost in a crash)."""
    next_id: int
    acked: frozenset
    crashes: int
    down: frozenset = frozenset()
    """Brokers crashed and not yet restarted (their replicas stay on disk)."""
    broker_crashes: int = 0
    isr_shrinks: int = 0
    known_epoch: int = 0
    """The leader epoch of the last LeaderAndIsr the leader applied (its ISR writes carry it)."""
    in_flight: tuple = ()
    """Requests sent, not yet delivered: ("LeaderAndIsr", epoch, AR) to the leader, ("StopReplica", broker)."""
    zk_original: frozenset = frozenset()
    """OAR as KIP-455 persists it (RS minus the adding replicas); empty in the seeds' form and once done."""
    completed_isr: frozenset = frozenset()
    """The ISR when /admin/reassign_partitions was deleted."""
    revert: frozenset = frozenset()
    """The target of a cancelled move, OAR (persisted with the cancellation; kept once it is over, so that
    the invariants know where the move was meant to end); empty while the move goes to RAR."""
    cancels: int = 0
    """Cancellations the controller accepted (the operator was told the move is being reverted)."""


BROKER = Domain("broker", lambda c: range(broker_count(c)), broker_name)


def init(c: ReassignConstants):
    """The admin tool has written the target: the first of OAR leads epoch 0, ISR = AR = OAR, logs empty."""
    old, _ = replica_sets(c)
    n = broker_count(c)
    yield ReassignState(
        replicas=tuple(Replica(b in old, ()) for b in range(n)),
        leader=min(old),
        leader_epoch=0,
        isr=old,
        zk_assignment=old,
        known_assignment=old,
        reassigning=True,
        controller_up=True,
        old_replicas=old,
        step=0,
        next_id=0,
        acked=frozenset(),
        crashes=0,
    )


def next_step(c: ReassignConstants, s: ReassignState) -> str:
    """The controller's next step, as the seeds name it."""
    if not s.controller_up:
        return "(controller down)"
    if not s.reassigning:
        return "(done)"
    return STEP_NAMES[ORDERS[c.Order][s.step]]


def view(c: ReassignConstants, s: ReassignState) -> dict[str, Any]:
    """Every variable by name: ZooKeeper, the controller, the replicas, the producer."""
    new = target(c, s)
    return {
        "zookeeper": {
            "assignedReplicas": broker_set(s.zk_assignment),
            "reassignPartitions": broker_set(new) if s.reassigning else "-",
            "leader": broker_name(s.leader),
            "leaderEpoch": s.leader_epoch,
            "isr": broker_set(s.isr),
        },
        "controller": {
            "up": s.controller_up,
            "oar": broker_set(s.old_replicas) if s.controller_up else "-",
            "nextStep": next_step(c, s),
            "crashes": s.crashes,
        },
        "replicas": {
            broker_name(b): {"hosted": r.hosted, "log": "[" + ", ".join(str(x) for x in r.log) + "]"}
            for b, r in enumerate(s.replicas)
        },
        "producer": {"nextId": s.next_id, "acked": sorted(s.acked)},
    } | (_failures_view(s) if with_failures(c) else {})


def with_failures(c: ReassignConstants) -> bool:
    """A configuration with broker failures, delays or another form: its traces show the extra variables."""
    return bool(c.BrokerCrashes or c.IsrShrinks or c.DelayedRequests or c.Form != "seeds" or c.Cancellations)


def _failures_view(s: ReassignState) -> dict[str, Any]:
    flying = [f"{r[0]} e{r[1]} AR {broker_set(r[2])}" if r[0] == "LeaderAndIsr"
              else f"StopReplica to {broker_name(r[1])}" for r in s.in_flight]
    return {"failures": {"down": broker_set(s.down), "brokerCrashes": s.broker_crashes, "isrShrinks": s.isr_shrinks,
                         "leaderKnowsEpoch": s.known_epoch, "leaderKnowsAR": broker_set(s.known_assignment),
                         "inFlight": flying, "persistedOAR": broker_set(s.zk_original),
                         "isrAtCompletion": broker_set(s.completed_isr), "cancels": s.cancels,
                         "revertTo": broker_set(s.revert)}}


def lanes(c: ReassignConstants, s: ReassignState) -> dict[str, dict[str, Any]]:
    """One lane per broker: in AR (ZooKeeper), in the ISR, its role and its log."""
    out = {}
    for b, r in enumerate(s.replicas):
        if not r.hosted:
            role = "no replica"
        elif b == s.leader:
            role = "leader"
        elif s.leader == NONE:
            role = "replica, no leader"
        else:
            role = "follower"
        out[broker_name(b)] = {
            "in AR": b in s.zk_assignment,
            "in ISR": b in s.isr,
            "role": role,
            "log": "[" + ", ".join(str(x) for x in r.log) + "]" if r.hosted else "-",
        } | ({"up": b not in s.down} if c.BrokerCrashes else {})
    return out


CONTROLLER = "controller"
"""The controller's actor name in sequence diagrams (it has no lane: its progress is shown with the variables)."""
ZOOKEEPER = "zookeeper"
PRODUCER = "producer"


def _log(log: tuple) -> str:
    return "[" + ", ".join(str(x) for x in log) + "]"


def _leader_and_isr(t: ReassignState) -> list[dict]:
    """LeaderAndIsr from the controller to every replica on disk of AR (ZooKeeper's, or the one it tells)."""
    label = (f"LeaderAndIsr(leader {broker_name(t.leader)}, epoch {t.leader_epoch}, "
             f"AR {broker_set(t.known_assignment)}, ISR {broker_set(t.isr)})")
    to = sorted(b for b in t.zk_assignment | t.known_assignment if t.replicas[b].hosted)
    return [send(f"LeaderAndIsr e{t.leader_epoch} to {broker_name(b)}", CONTROLLER, broker_name(b), label,
                 "LeaderAndIsr", delivered=True) for b in to]


def _write(ident: str, label: str) -> dict:
    return send(ident, CONTROLLER, ZOOKEEPER, label, "ZooKeeper", delivered=True)


def _controller_events(c: ReassignConstants, s: ReassignState, t: ReassignState, action: str) -> list[dict]:
    """The controller's steps: its writes to ZooKeeper, then what it tells the brokers."""
    new = target(c, s)
    if action == "cancel_reassignment":
        return [_write("write revert", f"target := {broker_set(t.revert)}, "
                                       f"original replicas := {broker_set(t.zk_original)}, "
                                       f"AR {broker_set(t.zk_assignment)}")] + _leader_and_isr(t)
    if action == "add_reassigned_replicas":
        return [_write("write AR", f"AR := {broker_set(t.zk_assignment)}")] + _leader_and_isr(t)
    if action == "elect_leader_from_reassigned":
        leader = f"leader := {broker_name(t.leader)}, epoch {t.leader_epoch}"
        return [_write("write leader", leader)] + _leader_and_isr(t)
    if action == "remove_old_replicas_from_isr":
        isr = f"ISR := {broker_set(t.isr)}, leader {broker_name(t.leader)}, epoch {t.leader_epoch}"
        return [_write("write ISR", isr)] + ([] if c.DelayedRequests else _leader_and_isr(t))
    if action in ("stop_old_replicas", "deliver_stop_replica"):
        return [send(f"StopReplica to {broker_name(b)}", CONTROLLER, broker_name(b), "StopReplica(delete)",
                     "StopReplica", delivered=True)
                for b in range(len(s.replicas)) if s.replicas[b].hosted and not t.replicas[b].hosted]
    if action == "deliver_leader_and_isr" and t.leader != NONE:
        label = f"LeaderAndIsr(epoch {s.in_flight[0][1]}, AR {broker_set(s.in_flight[0][2])})"
        return [send(f"LeaderAndIsr e{s.in_flight[0][1]} to {broker_name(t.leader)}", CONTROLLER,
                     broker_name(t.leader), label, "LeaderAndIsr", delivered=True)]
    if action == "update_assigned_replicas":
        return [_write("write AR", f"AR := {broker_set(t.zk_assignment)}")]
    if action == "complete_reassignment":
        return [_write("delete target", "delete /admin/reassign_partitions")]
    if action == "elect_controller":
        goal = f"target {broker_set(new)}" if s.reassigning else "no reassignment"
        return exchange("read", CONTROLLER, ZOOKEEPER, "read AR and /admin/reassign_partitions",
                        f"AR {broker_set(s.zk_assignment)}, {goal}", "ZooKeeper")
    return []


def _data_events(s: ReassignState, t: ReassignState, action: str, params: dict[str, str]) -> list[dict]:
    """Produce requests, fetches (and the ISR change a fetch makes), and the acknowledgements they release."""
    out: list[dict] = []
    lead = broker_name(s.leader)
    if action == "produce":
        out.append(send(f"Produce {s.next_id}", PRODUCER, lead, f"Produce(record {s.next_id}, acks=all)", "Produce",
                        delivered=True))
    if action == "follower_fetch":
        b = params["broker"]
        f = s.replicas[int(b[1:]) - 1]
        out += exchange(f"Fetch by {b}", b, lead, f"Fetch(offset {len(f.log)})",
                        f"log {_log(s.replicas[s.leader].log)}", "Fetch")
        if t.isr != s.isr:
            out.append(send("IsrUpdate", lead, ZOOKEEPER, f"ISR := {broker_set(t.isr)}", "IsrUpdate", delivered=True))
    for rid in sorted(t.acked - s.acked):
        out.append(send(f"Ack {rid}", lead, PRODUCER, f"ack(record {rid})", "Produce", delivered=True, response=True))
    return out


def messages(c: ReassignConstants, s: ReassignState, t: ReassignState, action: str,
             params: dict[str, str]) -> list[dict]:
    """What the step ``s -> t`` sends between the controller, ZooKeeper, the brokers and the producer.

    LeaderAndIsr and StopReplica take effect at once in this spec, so every
    message is delivered in the step that sends it.  Each controller step
    writes ZooKeeper (AR, the leader, the ISR, the end of the move) and then
    sends LeaderAndIsr to every replica of AR still on disk, or StopReplica
    to OAR - RAR; a new controller reads AR and the target back, which is
    where a wrong order shows (the OAR it resumes with); a follower's fetch
    that joins the ISR writes the ISR to ZooKeeper; the producer's records
    and their acknowledgements go to and from the leader.
    """
    return _controller_events(c, s, t, action) + _data_events(s, t, action, params)
