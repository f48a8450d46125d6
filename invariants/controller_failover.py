"""What controller failover must keep, as named predicates over a ``controller-failover`` state.

* ``OneLeaderPerEpoch``: no two live brokers act as leader in the same
  leader epoch (what Kafka promises; checked by default);
* ``AckedWritesSurvive``: every acknowledged record is in the log of the
  leader ZooKeeper names, while that broker is up (checked by default);
* ``OneLeaderPerPartition``: no two live brokers both act as leader of the
  partition, in any epochs.  Kafka does not promise it: a leader whose
  ZooKeeper session expired serves until it hears of its successor.  Checked
  only when named.
* ``BrokersFollowZooKeeper``: once no controller has anything left to do,
  the live leader ZooKeeper names acts as leader in ZooKeeper's leader
  epoch (the controller's metadata is what the brokers act on).  Checked
  when named: Kafka before 2.2 breaks it.

Two step properties (``--property``) say what fencing a zombie controller
means, one for each fence:

* ``ZombieWritesRefused``: only a controller of the newest controller epoch
  changes the partition state in ZooKeeper (the multi-op's promise);
* ``ZombieRequestsRejected``: no broker acts on a LeaderAndIsr from an older
  controller than one it has heard from (StaleControllerEpoch's promise).

Each invariant has a companion ``explain`` that, on a violating state, names the
brokers, epochs and records at fault in one sentence and lists the lane cells
that show it (the columns of :func:`modelcheck.specs.controller_state.lanes`).
"""

from __future__ import annotations

from modelcheck import invariant, sometimes, step_property
from modelcheck.spec import Witness, culprit
from modelcheck.specs.controller_state import (
    NONE,
    ClusterState,
    ControllerConstants,
    acts_as_leader,
    broker_name,
    needs_election,
)


def _zombies(s: ClusterState) -> list[int]:
    """Live brokers still acting as controller although /controller is not theirs (their session expired)."""
    return [b for b, x in enumerate(s.brokers) if x.alive and x.controller_epoch and s.zk_controller != b]


def _zombie_clause(s: ClusterState, leaders: tuple[int, int]) -> tuple[str, tuple[dict, ...]]:
    """``, and b1 is a zombie controller ...`` when one is left acting: the usual source of a second leader."""
    zombies = _zombies(s)
    if not zombies:
        return "", ()
    z = zombies[0]
    name, epoch = broker_name(z), s.brokers[z].controller_epoch
    who = name if z not in leaders else f"{name} itself"
    return (f", and {who} is a zombie controller still acting under controller epoch {epoch} (/controller_epoch "
            f"is {s.zk_controller_epoch})", (culprit(name, "controller"),))


def explain_one_leader_per_partition(c: ControllerConstants, s: ClusterState) -> Witness:
    """The two brokers acting as leader, their leader epochs, which one ZooKeeper names, and a zombie controller."""
    return _explain_leaders(s, tuple([x for x in range(len(s.brokers)) if acts_as_leader(s, x)][:2]))


def _explain_leaders(s: ClusterState, pair: tuple[int, int]) -> Witness:
    """Brokers ``pair`` both act as leader: their leader epochs, which one ZooKeeper names, and a zombie."""
    a, b = pair
    na, nb = broker_name(a), broker_name(b)
    ea, eb = s.brokers[a].leader_epoch, s.brokers[b].leader_epoch
    both = (f"{na} and {nb} both act as leader in leader epoch {ea}" if ea == eb
            else f"{na} (leader epoch {ea}) and {nb} (leader epoch {eb}) both act as leader")
    p = s.zk_partition
    zk = "no leader" if p.leader == NONE else broker_name(p.leader)
    zombie, zombie_cells = _zombie_clause(s, (a, b))
    return Witness(f"{both}; ZooKeeper names {zk} (written under controller epoch {p.controller_epoch}){zombie}",
                   (culprit(na, "replica"), culprit(na, "leader epoch"), culprit(nb, "replica"),
                    culprit(nb, "leader epoch"), culprit(variable="zookeeper.partitionState")) + zombie_cells)


@invariant("OneLeaderPerPartition", explain=explain_one_leader_per_partition)
def one_leader_per_partition(c: ControllerConstants, s: ClusterState) -> bool:
    """At most one live broker acts as the partition's leader."""
    return sum(1 for b in range(len(s.brokers)) if acts_as_leader(s, b)) <= 1


def _same_epoch_leaders(s: ClusterState) -> tuple[int, int] | None:
    """Two live brokers acting as leader in the same leader epoch, or None."""
    leaders = [b for b in range(len(s.brokers)) if acts_as_leader(s, b)]
    for i, a in enumerate(leaders):
        for b in leaders[i + 1:]:
            if s.brokers[a].leader_epoch == s.brokers[b].leader_epoch:
                return a, b
    return None


def explain_one_leader_per_epoch(c: ControllerConstants, s: ClusterState) -> Witness:
    """The two brokers leading the same leader epoch, which one ZooKeeper names, and a zombie controller."""
    return _explain_leaders(s, _same_epoch_leaders(s))


@invariant("OneLeaderPerEpoch", explain=explain_one_leader_per_epoch)
def one_leader_per_epoch(c: ControllerConstants, s: ClusterState) -> bool:
    """No two live brokers act as leader in the same leader epoch: what Kafka promises.  A deposed leader
    that has not heard of its successor may still act, in an older epoch (OneLeaderPerPartition)."""
    return _same_epoch_leaders(s) is None


def _log(log: tuple) -> str:
    return "[" + ", ".join(str(x) for x in log) + "]"


def explain_acked_writes_survive(c: ControllerConstants, s: ClusterState) -> Witness:
    """The acknowledged record the leader ZooKeeper names lacks, and which brokers still hold it."""
    lead = s.zk_partition.leader
    name, log = broker_name(lead), s.brokers[lead].log
    missing = min(s.acked - frozenset(log))
    holders = [(b, x.log.index(missing)) for b, x in enumerate(s.brokers) if missing in x.log]
    cells = tuple(culprit(broker_name(b), "log", o) for b, o in holders)
    if holders:
        who = ", ".join(broker_name(b) + ("" if s.brokers[b].alive else " (crashed)") for b, _ in holders)
        still = f"; only {who} {'holds' if len(holders) == 1 else 'hold'} it"
        cells = (culprit(name, "log", holders[0][1]),) + cells
    else:
        still = "; no broker holds it any more"
        cells = (culprit(name, "log"),)
    return Witness(f"acknowledged record {missing} is missing on {name}, the leader ZooKeeper names (leader epoch "
                   f"{s.zk_partition.leader_epoch}), whose log is {_log(log)}{still}",
                   cells + (culprit(variable="producer.acked"), culprit(variable="zookeeper.partitionState")))


@invariant("AckedWritesSurvive", explain=explain_acked_writes_survive)
def acked_writes_survive(c: ControllerConstants, s: ClusterState) -> bool:
    """Every acknowledged record is in the log of the leader named in ZooKeeper (while it is up)."""
    lead = s.zk_partition.leader
    if lead == NONE or not s.brokers[lead].alive:
        return True
    return s.acked <= frozenset(s.brokers[lead].log)


def controller_work_left(s: ClusterState) -> bool:
    """Whether some controller step is still to come without a new failure: /controller is empty, a
    LeaderAndIsr is in flight, or a live broker acting as controller (in office or a zombie) holds a read of
    the partition state or sees in it a reason for an election (by its own view of the live brokers)."""
    if s.zk_controller == NONE or s.requests:
        return True
    return any(b.alive and b.controller_epoch and (b.pending or needs_election(s.zk_partition, b.live_brokers))
               for b in s.brokers)


def explain_brokers_follow_zookeeper(c: ControllerConstants, s: ClusterState) -> Witness:
    """The leader ZooKeeper names, what it acts as instead, and the controller epoch it fences by."""
    p = s.zk_partition
    name = broker_name(p.leader)
    b = s.brokers[p.leader]
    now = "acting as leader" if b.leader == p.leader else (
        f"following {broker_name(b.leader)}" if b.leader != NONE else "without a known leader")
    writer = ("" if p.controller_epoch == s.zk_controller_epoch
              else f", by a controller older than /controller_epoch {s.zk_controller_epoch}")
    return Witness(f"ZooKeeper names {name} leader in leader epoch {p.leader_epoch} (written under controller epoch "
                   f"{p.controller_epoch}{writer}), but {name} is {now} in leader epoch {b.leader_epoch}, having seen "
                   f"controller epoch {b.seen_controller_epoch}; no controller has anything left to do",
                   (culprit(name, "replica"), culprit(name, "leader epoch"), culprit(name, "seen ctrl epoch"),
                    culprit(variable="zookeeper.partitionState")))


@invariant("BrokersFollowZooKeeper", explain=explain_brokers_follow_zookeeper)
def brokers_follow_zookeeper(c: ControllerConstants, s: ClusterState) -> bool:
    """Once no controller has anything left to do, the live leader ZooKeeper names acts as leader in
    ZooKeeper's leader epoch: the brokers do what the controller's metadata says."""
    p = s.zk_partition
    if p.leader == NONE or not s.brokers[p.leader].alive or controller_work_left(s):
        return True
    b = s.brokers[p.leader]
    return b.leader == p.leader and b.leader_epoch == p.leader_epoch


@step_property("ZombieWritesRefused", "Only a controller of the newest controller epoch changes the partition state "
                                      "in ZooKeeper: a zombie's write is refused once a newer controller exists.")
def zombie_writes_refused(c: ControllerConstants, s: ClusterState, t: ClusterState) -> bool:
    """[][zkPartition' # zkPartition => zkPartition'.controllerEpoch = zkControllerEpoch]_vars."""
    return t.zk_partition == s.zk_partition or t.zk_partition.controller_epoch == s.zk_controller_epoch


@step_property("ZombieRequestsRejected", "No broker acts on a LeaderAndIsr from an older controller epoch than one "
                                         "it has heard from: a zombie controller's requests change nothing.")
def zombie_requests_rejected(c: ControllerConstants, s: ClusterState, t: ClusterState) -> bool:
    """For the request a step handles: its broker's leader, leader epoch and ISR change only if the request's
    controller epoch is at least the newest the broker had seen.  (A crash also removes requests; its
    broker is down after it.)"""
    for r in s.requests - t.requests:
        a, b = s.brokers[r.dest], t.brokers[r.dest]
        if (b.alive and r.controller_epoch < a.seen_controller_epoch
                and (a.leader, a.leader_epoch, a.isr) != (b.leader, b.leader_epoch, b.isr)):
            return False
    return True


@sometimes("ControllerFailedOver")
def controller_failed_over(c: ControllerConstants, s: ClusterState) -> bool:
    """A second controller is elected (otherwise no zombie can exist)."""
    return s.zk_controller_epoch > 1


@sometimes("NewLeaderServes")
def new_leader_serves(c: ControllerConstants, s: ClusterState) -> bool:
    """A broker other than the first leader acts as leader after a failover."""
    return s.zk_controller_epoch > 1 and any(acts_as_leader(s, b) for b in range(len(s.brokers)) if b != 1)


@sometimes("SomethingAcked")
def something_acked(c: ControllerConstants, s: ClusterState) -> bool:
    """Some record is acknowledged (otherwise AckedWritesSurvive says nothing)."""
    return bool(s.acked)


@sometimes("DeposedLeaderServes")
def deposed_leader_serves(c: ControllerConstants, s: ClusterState) -> bool:
    """Two brokers act as leader at once (in different leader epochs): a leader whose session expired still
    serves after its successor took over, so OneLeaderPerEpoch is not kept by there being one leader."""
    return sum(1 for b in range(len(s.brokers)) if acts_as_leader(s, b)) > 1


@sometimes("ZombieHoldsARead")
def zombie_holds_a_read(c: ControllerConstants, s: ClusterState) -> bool:
    """A zombie controller holds a read of the partition state (step 3.1) while a newer controller exists:
    the window in which its write must be refused."""
    return any(s.brokers[z].pending and s.brokers[z].controller_epoch < s.zk_controller_epoch for z in _zombies(s))


ALL = [one_leader_per_epoch, acked_writes_survive, one_leader_per_partition, brokers_follow_zookeeper]
DEFAULT = ["OneLeaderPerEpoch", "AckedWritesSurvive"]
"""Checked unless others are named.  OneLeaderPerPartition is not a promise (imperfect failure detection breaks
it); BrokersFollowZooKeeper is one, named rather than default so that the protocol before Kafka 2.2 still
checks clean for the two promises it keeps."""
PROPERTIES = [zombie_writes_refused, zombie_requests_rejected]
"""The step properties: what each fence against a zombie controller promises (``--property``)."""
SOMETIMES = [controller_failed_over, new_leader_serves, something_acked, deposed_leader_serves, zombie_holds_a_read]
