"""State, constants and display of the ``controller-failover`` spec (a cluster, one partition on every broker).

Kept apart from the actions so that the invariants (``invariants/controller_failover.py``)
can import the state without importing the spec.

Encoding (canonical: ints, bools, tuples, frozensets only): brokers are
``0 .. Brokers-1``, shown ``b1 ..``; ``NONE = -1``; a controller epoch of 0
means "not acting as controller"; a log is a tuple of record ids.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, constant
from modelcheck.specs.message_events import exchange, send
from modelcheck.specs.naming import broker_name, broker_set

NONE = -1
"""No broker: /controller is empty, or the partition has no leader."""


WRITES = ("unconditional", "zk-version", "controller-epoch")
"""How a controller's write of the partition state is guarded, weakest first (``PartitionWrite``)."""


@attrs.frozen
class ControllerConstants:
    """The cluster size, the failures, and which of Kafka's checks fence a stale controller."""

    Brokers: int = constant(3, "brokers, each hosting a replica of the partition (b1 is the first controller, "
                               "b2 the first leader)", minimum=2, maximum=4)
    PartitionWrite: str = constant(
        "controller-epoch",
        "how a controller's write of the partition state (step 3.3) is guarded: unconditional (no guard, a "
        "strawman kept to show what the zkVersion guard prevents: two leaders in one leader epoch); zk-version (Kafka before 2.2: only if the znode's zkVersion is still the one read at 3.1, "
        "and only by a controller whose epoch is not older than the state's; else it re-reads); "
        "controller-epoch (the fix: the same write in one ZooKeeper multi-op that also checks that "
        "/controller_epoch is still the writer's)",
        choices=WRITES)
    StaleControllerEpochCheck: bool = constant(
        True, "brokers reject a LeaderAndIsr from an older controller epoch than they have seen "
              "(StaleControllerEpoch)")
    Crashes: int = constant(1, "broker crashes in one run (a crashed broker stays down)", minimum=0, maximum=3)
    SessionExpiries: int = constant(
        1, "ZooKeeper session expiries in one run, of any live broker: the controller's (it becomes a zombie) "
           "or another's (the controller takes it for dead, it goes on acting)", minimum=0, maximum=2)
    Records: int = constant(1, "records producers send in total (acks=all)", minimum=0, maximum=3)


class PartitionState(NamedTuple):
    """The partition's state znode (/brokers/topics/[topic]/partitions/[partition]/state)."""

    leader: int
    leader_epoch: int
    isr: frozenset
    controller_epoch: int
    """The epoch of the controller that wrote it."""


class LeaderAndIsr(NamedTuple):
    """A LeaderAndIsr request on its way from a controller to a broker."""

    sender: int
    dest: int
    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: frozenset


class Broker(NamedTuple):
    """One broker: its controller role (if any) and its replica of the partition."""

    alive: bool
    controller_epoch: int
    """The epoch it acts as controller under, 0 if it does not.  A controller that lost /controller
    but has not noticed yet (a zombie) still acts under its old epoch."""
    live_brokers: frozenset
    """Its ControllerContext's live brokers (kept current by the /brokers/ids watch while it holds /controller)."""
    pending: tuple
    """``()`` or the PartitionState it read from ZooKeeper to act on (the seeds' step 3.1)."""
    seen_controller_epoch: int
    """The highest controller epoch in a LeaderAndIsr it accepted."""
    leader_epoch: int
    leader: int
    """The leader its last accepted LeaderAndIsr named (itself: it acts as leader and accepts writes)."""
    isr: frozenset
    """The ISR its last accepted LeaderAndIsr named (a leader acknowledges a write once all of them have it)."""
    log: tuple


class ClusterState(NamedTuple):
    """Brokers, ZooKeeper, the LeaderAndIsr requests in flight, and the producers' acknowledgements."""

    brokers: tuple
    zk_controller: int
    """The broker holding the ephemeral /controller node, NONE while there is none."""
    zk_controller_epoch: int
    """/controller_epoch: bumped by every new controller."""
    zk_partition: PartitionState
    requests: frozenset
    """LeaderAndIsr requests sent and not yet handled (each controller-to-broker channel is FIFO)."""
    next_id: int
    acked: frozenset
    """Ids of records acknowledged to producers (acks=all)."""
    crashes: int
    expiries: int


BROKER = Domain("broker", lambda c: range(c.Brokers), broker_name)
CONTROLLER = Domain("controller", lambda c: range(c.Brokers), lambda b: f"controller {broker_name(b)}")
NEW_LEADER = Domain("leader", lambda c: range(-1, c.Brokers), lambda b: f"leader {broker_name(b)}")
SENDER = Domain("sender", lambda c: range(c.Brokers), lambda b: f"from {broker_name(b)}")


def set_broker(s: ClusterState, b: int, broker: Broker) -> ClusterState:
    """``s`` with broker ``b`` replaced."""
    return s._replace(brokers=s.brokers[:b] + (broker,) + s.brokers[b + 1:])


def acts_as_leader(s: ClusterState, b: int) -> bool:
    """Broker ``b`` is up and its last accepted LeaderAndIsr made it the leader: it accepts writes."""
    broker = s.brokers[b]
    return broker.alive and broker.leader == b


def election_reasons(p: PartitionState, live: frozenset) -> int:
    """How many of NeedsElection's two disjuncts hold: the partition's leader is dead; its ISR holds a dead
    broker while some member lives.

    TLC generates a successor once per satisfied disjunct of an action, so a
    guard on both reasons counts its (identical) successor twice; the Kafka
    specs follow TLC's count.
    """
    dead_leader = p.leader != NONE and p.leader not in live
    dead_isr_member = bool(p.isr & live) and not p.isr <= live
    return int(dead_leader) + int(dead_isr_member)


def needs_election(p: PartitionState, live: frozenset) -> bool:
    """The partition's leader is dead, or its ISR holds a dead broker while some member lives."""
    return election_reasons(p, live) > 0


def init(c: ControllerConstants):
    """b1 is the controller (epoch 1); b2 leads the partition in leader epoch 0 with every broker in the ISR."""
    everyone = frozenset(range(c.Brokers))
    leader = 1
    brokers = tuple(
        Broker(True, 1 if b == 0 else 0, everyone if b == 0 else frozenset(), (), 1, 0, leader, everyone, ())
        for b in range(c.Brokers)
    )
    yield ClusterState(
        brokers=brokers,
        zk_controller=0,
        zk_controller_epoch=1,
        zk_partition=PartitionState(leader, 0, everyone, 1),
        requests=frozenset(),
        next_id=0,
        acked=frozenset(),
        crashes=0,
        expiries=0,
    )


def partition_text(p: PartitionState) -> str:
    """``b3 leads e1, ISR {b1, b3} (controller epoch 2)``."""
    who = "no leader" if p.leader == NONE else f"{broker_name(p.leader)} leads"
    return f"{who} e{p.leader_epoch}, ISR {broker_set(p.isr)} (controller epoch {p.controller_epoch})"


def request_text(r: LeaderAndIsr) -> str:
    """``b1 -> b3: b1 leads e1, ISR {b1, b3}, controller epoch 1``."""
    who = "no leader" if r.leader == NONE else f"{broker_name(r.leader)} leads"
    return (f"{broker_name(r.sender)} -> {broker_name(r.dest)}: {who} e{r.leader_epoch}, "
            f"ISR {broker_set(r.isr)}, controller epoch {r.controller_epoch}")


def controller_role(s: ClusterState, b: int) -> str:
    """``controller (epoch 2)``, ``zombie controller (epoch 1)`` for one that lost /controller, or ``-``."""
    broker = s.brokers[b]
    if not broker.alive or broker.controller_epoch == 0:
        return "-"
    kind = "controller" if s.zk_controller == b else "zombie controller"
    return f"{kind} (epoch {broker.controller_epoch})"


def replica_role(s: ClusterState, b: int) -> str:
    """``leader``, ``follower of b3`` or ``crashed``."""
    broker = s.brokers[b]
    if not broker.alive:
        return "crashed"
    if broker.leader == b:
        return "leader"
    return f"follower of {broker_name(broker.leader)}" if broker.leader != NONE else "no leader known"


def view(c: ControllerConstants, s: ClusterState) -> dict[str, Any]:
    """Every variable by name: ZooKeeper's nodes, each broker's two roles, the requests in flight."""
    brokers = {}
    for b, broker in enumerate(s.brokers):
        brokers[broker_name(b)] = {
            "alive": broker.alive,
            "controller": controller_role(s, b),
            "liveBrokers": broker_set(broker.live_brokers) if broker.controller_epoch else "-",
            "pendingRead": partition_text(broker.pending) if broker.pending else "-",
            "seenControllerEpoch": broker.seen_controller_epoch,
            "leaderEpoch": broker.leader_epoch,
            "role": replica_role(s, b),
            "isr": broker_set(broker.isr),
            "log": "[" + ", ".join(str(x) for x in broker.log) + "]",
        }
    return {
        "zookeeper": {
            "/controller": broker_name(s.zk_controller),
            "/controller_epoch": s.zk_controller_epoch,
            "partitionState": partition_text(s.zk_partition),
        },
        "brokers": brokers,
        "leaderAndIsrInFlight": sorted(request_text(r) for r in s.requests),
        "producer": {"nextId": s.next_id, "acked": sorted(s.acked)},
        "failures": {"crashes": s.crashes, "sessionExpiries": s.expiries},
    }


def _lane_controller(s: ClusterState, b: int) -> str:
    """The controller role in a lane, short enough for a sequence diagram's note: ``epoch 2``,
    ``zombie, epoch 1`` (it lost /controller and has not noticed), or ``-``."""
    broker = s.brokers[b]
    if not broker.alive or broker.controller_epoch == 0:
        return "-"
    return f"{'' if s.zk_controller == b else 'zombie, '}epoch {broker.controller_epoch}"


def lanes(c: ControllerConstants, s: ClusterState) -> dict[str, dict[str, Any]]:
    """One lane per broker: controller role, replica role and leader epoch, the controller epoch it fences by,
    its log, the LeaderAndIsr requests on their way to it (``b1: b1@e1 ctrl 1``: from b1, b1 leads leader
    epoch 1, controller epoch 1), and whether it is up (a crashed broker's lane is greyed)."""
    out = {}
    for b, broker in enumerate(s.brokers):
        inbox = sorted(r for r in s.requests if r.dest == b)
        out[broker_name(b)] = {
            "controller": _lane_controller(s, b),
            "replica": replica_role(s, b),
            "leader epoch": broker.leader_epoch,
            "seen ctrl epoch": broker.seen_controller_epoch,
            "log": "[" + ", ".join(str(x) for x in broker.log) + "]",
            "inbox": "; ".join(
                f"{broker_name(r.sender)}: {broker_name(r.leader)}@e{r.leader_epoch} ctrl {r.controller_epoch}"
                for r in inbox) or "-",
            "alive": broker.alive,
        }
    return out


ZOOKEEPER = "zookeeper"
"""ZooKeeper's actor name in sequence diagrams: /controller, /controller_epoch, /brokers/ids and the state znode."""
PRODUCER = "producer"


def controller_actor(b: int) -> str:
    """Broker ``b``'s controller role as an actor of its own (``controller b1``), apart from its replica's lane:
    two brokers may act as controller at once (a zombie and its successor), and each one's requests then
    read as arrows from its own lifeline."""
    return f"controller {broker_name(b)}"


def _request_id(r: LeaderAndIsr) -> str:
    """A LeaderAndIsr's message id: the request itself (the requests in flight are a set, so it is unique)."""
    return "LeaderAndIsr " + request_text(r)


def request_label(r: LeaderAndIsr) -> str:
    """``LeaderAndIsr(controller epoch 1: b1 leads e1, ISR {b1, b3})``."""
    who = "no leader" if r.leader == NONE else f"{broker_name(r.leader)} leads"
    return f"LeaderAndIsr(controller epoch {r.controller_epoch}: {who} e{r.leader_epoch}, ISR {broker_set(r.isr)})"


def _expiry_id(b: int) -> str:
    """The session-expiry notice on its way to broker ``b``: a zombie cannot be elected again before it
    resigns, so at most one is in flight per broker."""
    return f"session expired for {broker_name(b)}"


def _rejection(c: ControllerConstants, s: ClusterState, r: LeaderAndIsr) -> str | None:
    """Why the broker ignores request ``r`` (the error its response carries), or None when it applies it."""
    b, name = s.brokers[r.dest], broker_name(r.dest)
    if c.StaleControllerEpochCheck and r.controller_epoch < b.seen_controller_epoch:
        return f"StaleControllerEpoch ({name} has seen controller epoch {b.seen_controller_epoch})"
    if r.leader_epoch <= b.leader_epoch:
        return f"StaleLeaderEpoch ({name} is in leader epoch {b.leader_epoch})"
    return None


def _leader_and_isr_events(c: ControllerConstants, s: ClusterState, t: ClusterState, action: str) -> list[dict]:
    """Requests sent in this step, and those handled (an error response when ignored) or lost with their broker."""
    out: list[dict] = []
    for r in sorted(t.requests - s.requests):
        out.append(send(_request_id(r), controller_actor(r.sender), broker_name(r.dest), request_label(r),
                        "LeaderAndIsr", delivered=False))
    for r in sorted(s.requests - t.requests):
        if action == "crash":
            out.append({"drop": _request_id(r), "why": f"{broker_name(r.dest)} crashed"})
            continue
        out.append({"receive": _request_id(r)})
        error = _rejection(c, s, r)
        if error is not None:
            out.append(send(_request_id(r) + " response", broker_name(r.dest), controller_actor(r.sender), error,
                            "LeaderAndIsr", delivered=True, response=True))
    return out


def _write_guard(c: ControllerConstants, me: Broker) -> str:
    """`` if ...``: what ZooKeeper checks of a controller's write of the partition state (``PartitionWrite``)."""
    if c.PartitionWrite == "unconditional":
        return ""
    if c.PartitionWrite == "zk-version":
        return " if its zkVersion is as read"
    return f" if its zkVersion is as read and /controller_epoch = {me.controller_epoch}"


def _zookeeper_events(c: ControllerConstants, s: ClusterState, t: ClusterState, action: str,
                      b: int) -> list[dict]:
    """What a step reads from and writes to ZooKeeper, and the notifications ZooKeeper sends."""
    name, ctl = broker_name(b), controller_actor(b)
    me = s.brokers[b]
    zombie = me.alive and me.controller_epoch != 0 and s.zk_controller != b
    if action == "crash":
        if zombie:
            return [{"drop": _expiry_id(b), "why": f"{name} crashed"}]
        if s.zk_controller not in (NONE, b):
            return [send(f"{name} left", ZOOKEEPER, controller_actor(s.zk_controller),
                         f"watch: {name} left /brokers/ids", "ZooKeeper", delivered=True)]
        return []
    if action == "expire_session":
        if s.zk_controller == b:
            return [send(_expiry_id(b), ZOOKEEPER, ctl, "session expired: /controller deleted", "ZooKeeper",
                         delivered=False)]
        if s.zk_controller != NONE:
            return [send(f"{name} left", ZOOKEEPER, controller_actor(s.zk_controller),
                         f"watch: {name} left /brokers/ids (its session expired)", "ZooKeeper", delivered=True)]
        return []
    if action == "resign_controller":
        return [{"receive": _expiry_id(b)}]
    if action == "elect_controller":
        return exchange(f"{name} elected", ctl, ZOOKEEPER,
                        f"create /controller, /controller_epoch := {t.zk_controller_epoch}",
                        f"won; partition state: {partition_text(s.zk_partition)}", "ZooKeeper")
    if action == "read_partition_state":
        return exchange(f"{name} reads", ctl, ZOOKEEPER, "read the partition state",
                        partition_text(s.zk_partition), "ZooKeeper")
    guard = _write_guard(c, me)
    if action == "elect_leader":
        return [send(f"{name} writes", ctl, ZOOKEEPER, f"write{guard}: {partition_text(t.zk_partition)}",
                     "ZooKeeper", delivered=True)]
    if action == "abort_election":
        if t.brokers[b].controller_epoch == 0:
            out = exchange(f"{name} writes", ctl, ZOOKEEPER, f"write{guard}",
                           f"refused: /controller_epoch is {s.zk_controller_epoch}", "ZooKeeper")
            return out + ([{"drop": _expiry_id(b), "why": f"{name} resigned at the refused write"}] if zombie else [])
        again = t.brokers[b].pending
        return exchange(f"{name} writes", ctl, ZOOKEEPER, f"write{guard}",
                        f"refused: the state changed; now {partition_text(s.zk_partition)}"
                        + ("" if again else ", nothing to elect"), "ZooKeeper")
    return []


def _data_events(s: ClusterState, t: ClusterState, action: str, b: int) -> list[dict]:
    """Produce requests, fetches, and the acknowledgements they release."""
    out: list[dict] = []
    name = broker_name(b)
    lead = b if action == "produce" else s.brokers[b].leader
    if action == "produce":
        out.append(send(f"Produce {s.next_id}", PRODUCER, name, f"Produce(record {s.next_id}, acks=all)", "Produce",
                        delivered=True))
    if action == "follower_fetch":
        out += exchange(f"Fetch by {name}", name, broker_name(lead), f"Fetch(offset {len(s.brokers[b].log)})",
                        f"log {_log(t.brokers[b].log)}", "Fetch")
    for rid in sorted(t.acked - s.acked):
        out.append(send(f"Ack {rid}", broker_name(lead), PRODUCER, f"ack(record {rid})", "Produce", delivered=True,
                        response=True))
    return out


def _log(log: tuple) -> str:
    return "[" + ", ".join(str(x) for x in log) + "]"


def _broker_index(shown: str) -> int:
    """The broker a shown parameter names: ``b3`` or ``controller b3`` (trace parameters are shown values)."""
    return int(shown.rsplit(" ", 1)[-1][1:]) - 1


def messages(c: ControllerConstants, s: ClusterState, t: ClusterState, action: str,
             params: dict[str, str]) -> list[dict]:
    """What the step ``s -> t`` sends and delivers between ZooKeeper, the brokers and the producer.

    * LeaderAndIsr: every request that appears in ``requests`` is sent by the
      controller's broker to its destination, with the controller epoch; it
      is received when the destination handles it, answered with
      StaleControllerEpoch or StaleLeaderEpoch when ignored, and lost when
      the destination crashes.  (A controller is a broker: its requests to
      itself are drawn as loops.)
    * ZooKeeper: the race for /controller and the epoch bump, the reads of the
      partition state (step 3.1) and the writes (3.3, refused to a fenced
      zombie), the /brokers/ids watch that tells the controller of a crash,
      and the session-expiry notice, in flight for as long as the zombie has
      not noticed it.
    * The producer's records and acknowledgements, and the followers' fetches.
    """
    b = _broker_index(params.get("broker") or params["controller"])
    return (_zookeeper_events(c, s, t, action, b) + _leader_and_isr_events(c, s, t, action)
            + _data_events(s, t, action, b))
