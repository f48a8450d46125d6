"""What controller failover must keep, as named predicates over a ``controller-failover`` state.

* ``OneLeaderPerPartition``: no two live brokers both act as leader of the
  partition (and so both accept writes);
* ``AckedWritesSurvive``: every acknowledged record is in the log of the
  leader ZooKeeper names, while that broker is up.
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.specs.controller_state import NONE, ClusterState, ControllerConstants, acts_as_leader


@invariant("OneLeaderPerPartition")
def one_leader_per_partition(c: ControllerConstants, s: ClusterState) -> bool:
    """At most one live broker acts as the partition's leader."""
    return sum(1 for b in range(len(s.brokers)) if acts_as_leader(s, b)) <= 1


@invariant("AckedWritesSurvive")
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


ALL = [one_leader_per_partition, acked_writes_survive]
SOMETIMES = [controller_failed_over, new_leader_serves, something_acked]
