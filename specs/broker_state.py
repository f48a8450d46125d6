"""State and constants of the ``broker-failures`` spec (the seeds' failure stories).

Kept apart from the actions so that the invariants (``invariants/broker_failures.py``)
and the display code can import the state without importing the spec.

Encoding (canonical: ints, bools, tuples, frozensets only):

* replicas are ``0 .. Replicas-1``, shown ``r1 .. rN``; ``NONE = -1``;
* a log is a tuple of :class:`~modelcheck.specs.replicated_log.Record` (id, leader epoch),
  its length is the LEO;
* the leader-epoch cache is a tuple of ``(epoch, start_offset)`` pairs, oldest first;
* an in-flight fetch response is ``()`` or ``(start_offset, records, leader_hw)``.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs

from modelcheck import Domain, constant
from modelcheck.specs.naming import replica_name

NONE = -1
"""No replica (the controller's leader while the partition is offline)."""
UNKNOWN = -1
"""A remote LEO the leader has not learnt in this epoch, or an epoch not joined yet."""

ACKS = ("0", "1", "all")
TRUNCATION = ("hw", "leader-epoch", "kip279")
ISR_JOIN = ("hw", "epoch-start")


@attrs.frozen
class FailureConstants:
    """Bounds and the protocol settings the stories vary.

    The defaults are the seeds' world before Kafka 0.11 (two brokers, two
    records, two crashes, truncation to the HW, clean election, acks=all,
    min.insync.replicas=1) and show the HW data-loss story in a second.
    """

    Replicas: int = constant(2, "brokers hosting the partition (r1 is the first leader)", minimum=1, maximum=4)
    Records: int = constant(2, "records the producer sends in total", minimum=0, maximum=4)
    Crashes: int = constant(2, "broker crashes allowed in one run (restarts are free)", minimum=0, maximum=4)
    Truncation: str = constant(
        "hw",
        "how a restarted or new follower truncates: hw (before 0.11), leader-epoch (KIP-101 as "
        "shipped in 0.11), kip279 (epoch walk-back)",
        choices=TRUNCATION,
    )
    UncleanElection: bool = constant(False, "unclean.leader.election.enable: elect a live replica outside the ISR")
    Acks: str = constant("all", "the producer's acks setting (0, 1 or all)", choices=ACKS)
    MinInsyncReplicas: int = constant(1, "min.insync.replicas: acks=all needs an ISR this large", minimum=1, maximum=4)
    IsrJoin: str = constant(
        "hw",
        "when a follower rejoins the ISR: hw (fetch offset reaches the leader's HW, as the seeds say) or "
        "epoch-start (also the leader's epoch start offset: the KAFKA-7128 fix, Kafka 2.1)",
        choices=ISR_JOIN,
    )


class Replica(NamedTuple):
    """One broker's copy of the partition, as the seeds describe it."""

    log: tuple
    """Records (id, leader epoch); ``len(log)`` is the LEO.  Survives crashes."""
    hw: int
    """In-memory high watermark (0 while crashed: lost with the process)."""
    checkpoint_hw: int
    """The HW last written to replication-offset-checkpoint.  Survives crashes."""
    epochs: tuple
    """Leader-epoch cache: ``((epoch, start_offset), ...)``.  Survives crashes."""
    alive: bool
    leader: bool
    """This broker acts as leader (set by the controller's LeaderAndIsr, cleared by a crash)."""
    epoch: int
    """The leader epoch this broker has joined (UNKNOWN after a restart, until it follows or leads)."""
    fetch: tuple
    """The fetch response on its way to this follower: ``()`` or ``(start, records, leader_hw)``."""


class FailureState(NamedTuple):
    """The whole partition: brokers, controller, the leader's bookkeeping, producer and consumers."""

    replicas: tuple
    controller_leader: int
    controller_epoch: int
    controller_isr: frozenset
    leader_isr: frozenset
    """The ISR as the live leader holds it (empty while no leader is alive)."""
    leader_start: int
    """The live leader's LEO when it was elected: where its epoch starts (0 while no leader is alive)."""
    remote_leo: tuple
    """The leader's remote LEOs: each follower's fetch offset in this epoch (UNKNOWN before its first fetch)."""
    next_id: int
    pending: frozenset
    """acks=all records waiting in the leader's purgatory for the HW to pass them."""
    acked: frozenset
    """Ids of records the producer was told are written."""
    visible: tuple
    """The longest log prefix consumers were ever shown (below a live leader's HW)."""
    crashes: int


REPLICA = Domain("replica", lambda c: range(c.Replicas), replica_name)
ACKS_SETTING = Domain("acks", lambda c: [ACKS.index(c.Acks)], lambda v: f"acks={ACKS[v]}")
"""A one-value domain so that the trace label says which acks setting the producer used."""


def set_replica(s: FailureState, r: int, rep: Replica) -> FailureState:
    """``s`` with replica ``r`` replaced."""
    return s._replace(replicas=s.replicas[:r] + (rep,) + s.replicas[r + 1:])


def leader_alive(s: FailureState) -> bool:
    """The partition has a leader: the controller names one and that broker is up."""
    return s.controller_leader != NONE and s.replicas[s.controller_leader].alive


def init(c: FailureConstants):
    """r1 leads epoch 0 with every broker in the ISR; logs empty; every LEO, HW and remote LEO 0."""
    n = c.Replicas
    first_epochs = ((0, 0),) if c.Truncation == "kip279" else ()
    reps = tuple(
        Replica((), 0, 0, first_epochs if r == 0 else (), True, r == 0, 0, ()) for r in range(n)
    )
    everyone = frozenset(range(n))
    yield FailureState(
        replicas=reps,
        controller_leader=0,
        controller_epoch=0,
        controller_isr=everyone,
        leader_isr=everyone,
        leader_start=0,
        remote_leo=(0,) * n,
        next_id=0,
        pending=frozenset(),
        acked=frozenset(),
        visible=(),
        crashes=0,
    )
