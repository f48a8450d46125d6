"""What controller failover must keep, as named predicates over a ``controller-failover`` state.

* ``OneLeaderPerEpoch``: no two live brokers act as leader in the same
  leader epoch (what Kafka promises; checked by default);
* ``AckedWritesSurvive``: every acknowledged record is in the log of the
  leader ZooKeeper names, while that broker is up (checked by default);
* ``OneLeaderPerPartition``: no two live brokers both act as leader of the
  partition, in any epochs.  Kafka does not promise it: a leader whose
  ZooKeeper session expired serves until it hears of its successor.  Checked
  only when named.

Each has a companion ``explain`` that, on a violating state, names the
brokers, epochs and records at fault in one sentence and lists the lane cells
that show it (the columns of :func:`modelcheck.specs.controller_state.lanes`).
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.spec import Witness, culprit
from modelcheck.specs.controller_state import NONE, ClusterState, ControllerConstants, acts_as_leader, broker_name


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


ALL = [one_leader_per_epoch, acked_writes_survive, one_leader_per_partition]
DEFAULT = ["OneLeaderPerEpoch", "AckedWritesSurvive"]
"""What Kafka promises; OneLeaderPerPartition is checked when named (imperfect failure detection breaks it)."""
SOMETIMES = [controller_failed_over, new_leader_serves, something_acked, deposed_leader_serves, zombie_holds_a_read]
