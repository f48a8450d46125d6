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

NONE = -1
"""No broker: /controller is empty, or the partition has no leader."""


@attrs.frozen
class ControllerConstants:
    """The cluster size, the failures, and whether the controller epoch fences stale controllers."""

    Brokers: int = constant(3, "brokers, each hosting a replica of the partition (b1 is the first controller, "
                               "b2 the first leader)", minimum=2, maximum=4)
    ControllerEpochFencing: bool = constant(
        True, "the seeds' rule: a controller writes the partition state only while /controller_epoch is still "
              "its own, and brokers reject LeaderAndIsr from an older controller epoch (StaleControllerEpoch)")
    Crashes: int = constant(1, "broker crashes in one run (a crashed broker stays down)", minimum=0, maximum=3)
    SessionExpiries: int = constant(1, "ZooKeeper session expiries of the controller in one run", minimum=0, maximum=2)
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


def broker_name(b: int) -> str:
    """``b1`` for broker 0."""
    return "none" if b == NONE else f"b{b + 1}"


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


def _names(bs) -> str:
    return "{" + ", ".join(broker_name(b) for b in sorted(bs)) + "}"


def partition_text(p: PartitionState) -> str:
    """``b3 leads e1, ISR {b1, b3} (controller epoch 2)``."""
    who = "no leader" if p.leader == NONE else f"{broker_name(p.leader)} leads"
    return f"{who} e{p.leader_epoch}, ISR {_names(p.isr)} (controller epoch {p.controller_epoch})"


def request_text(r: LeaderAndIsr) -> str:
    """``b1 -> b3: b1 leads e1, ISR {b1, b3}, controller epoch 1``."""
    who = "no leader" if r.leader == NONE else f"{broker_name(r.leader)} leads"
    return (f"{broker_name(r.sender)} -> {broker_name(r.dest)}: {who} e{r.leader_epoch}, "
            f"ISR {_names(r.isr)}, controller epoch {r.controller_epoch}")


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
            "liveBrokers": _names(broker.live_brokers) if broker.controller_epoch else "-",
            "pendingRead": partition_text(broker.pending) if broker.pending else "-",
            "seenControllerEpoch": broker.seen_controller_epoch,
            "leaderEpoch": broker.leader_epoch,
            "role": replica_role(s, b),
            "isr": _names(broker.isr),
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


def lanes(c: ControllerConstants, s: ClusterState) -> dict[str, dict[str, Any]]:
    """One lane per broker: controller role, replica role and leader epoch, the epoch it fences by, its log,
    and the LeaderAndIsr requests on their way to it (``b1: b1@e1 ctrl 1``: from b1, b1 leads leader
    epoch 1, controller epoch 1)."""
    out = {}
    for b, broker in enumerate(s.brokers):
        inbox = sorted(r for r in s.requests if r.dest == b)
        out[broker_name(b)] = {
            "controller": controller_role(s, b),
            "replica": replica_role(s, b),
            "leader epoch": broker.leader_epoch,
            "seen ctrl epoch": broker.seen_controller_epoch,
            "log": "[" + ", ".join(str(x) for x in broker.log) + "]",
            "LeaderAndIsr to it": "; ".join(
                f"{broker_name(r.sender)}: {broker_name(r.leader)}@e{r.leader_epoch} ctrl {r.controller_epoch}"
                for r in inbox) or "-",
        }
    return out
