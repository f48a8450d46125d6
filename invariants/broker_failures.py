"""What the seeds' failure stories break, as named predicates over a ``broker-failures`` state.

* ``AckedRecordsSurvive``: a record acknowledged under the producer's acks
  setting is in the log of the partition's live leader (checked only while the
  partition has a leader: while it is offline nobody can read or lose anything yet);
* ``NoDivergenceBelowHw``: any two live brokers hold the same record at every
  offset both hold below the smaller of their HWs;
* ``ConsumerVisibleStable``: records once below a live leader's HW (shown to
  consumers) are still, unchanged and at the same offsets, in the live leader's log;
* ``HwNotAboveLeo``: no live broker's HW is beyond its LEO;
* ``OneLeaderPerEpoch``: no two live brokers act as leader of the same epoch,
  and none leads an epoch the controller has not issued.
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.specs.broker_state import FailureConstants, FailureState, leader_alive


@invariant("AckedRecordsSurvive")
def acked_records_survive(c: FailureConstants, s: FailureState) -> bool:
    """Every acknowledged record is in the live leader's log (acks=0 acknowledges nothing)."""
    if not leader_alive(s):
        return True
    ids = {rec.id for rec in s.replicas[s.controller_leader].log}
    return s.acked <= ids


@invariant("NoDivergenceBelowHw")
def no_divergence_below_hw(c: FailureConstants, s: FailureState) -> bool:
    """Any two live brokers agree on every offset both hold below the smaller of their HWs."""
    live = [rep for rep in s.replicas if rep.alive]
    for i, a in enumerate(live):
        for b in live[i + 1:]:
            n = min(a.hw, b.hw, len(a.log), len(b.log))
            if a.log[:n] != b.log[:n]:
                return False
    return True


@invariant("ConsumerVisibleStable")
def consumer_visible_stable(c: FailureConstants, s: FailureState) -> bool:
    """Records consumers were shown are never replaced or removed from the live leader's log."""
    if not leader_alive(s):
        return True
    log = s.replicas[s.controller_leader].log
    return log[: len(s.visible)] == s.visible


@invariant("HwNotAboveLeo")
def hw_not_above_leo(c: FailureConstants, s: FailureState) -> bool:
    """No live broker's high watermark exceeds its log end offset."""
    return all(rep.hw <= len(rep.log) for rep in s.replicas if rep.alive)


@invariant("OneLeaderPerEpoch")
def one_leader_per_epoch(c: FailureConstants, s: FailureState) -> bool:
    """At most one live broker acts as leader of any epoch, and only of an epoch the controller issued."""
    epochs = [rep.epoch for rep in s.replicas if rep.alive and rep.leader]
    return len(epochs) == len(set(epochs)) and all(e <= s.controller_epoch for e in epochs)


@sometimes("SomethingCommitted")
def something_committed(c: FailureConstants, s: FailureState) -> bool:
    """Some record reaches consumers (otherwise the bounds are too tight to say anything)."""
    return len(s.visible) > 0


@sometimes("LeaderChanged")
def leader_changed(c: FailureConstants, s: FailureState) -> bool:
    """A second leader epoch begins (otherwise no failure story can unfold)."""
    return s.controller_epoch > 0


ALL = [acked_records_survive, no_divergence_below_hw, consumer_visible_stable, hw_not_above_leo, one_leader_per_epoch]
SOMETIMES = [something_committed, leader_changed]
