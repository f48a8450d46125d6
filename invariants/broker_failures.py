"""What the seeds' failure stories break, as named predicates over a FailureState."""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.specs.broker_failures import FailureConstants, FailureState, leader_alive


@invariant("AckedRecordsSurvive")
def acked_records_survive(c: FailureConstants, s: FailureState) -> bool:
    """Every record acknowledged to the producer (under its acks setting) is in the log of the partition's live leader."""
    if not leader_alive(s):
        return True
    ids = {rec.id for rec in s.replicas[s.leader].log}
    return s.acked <= ids


@invariant("NoDivergenceBelowHw")
def no_divergence_below_hw(c: FailureConstants, s: FailureState) -> bool:
    """Any two live replicas hold the same record at every offset below the smaller of their HWs."""
    live = [rep for rep in s.replicas if rep.alive]
    for i, a in enumerate(live):
        for b in live[i + 1:]:
            n = min(a.hw, b.hw, len(a.log), len(b.log))
            if a.log[:n] != b.log[:n]:
                return False
    return True


@invariant("ConsumerVisibleStable")
def consumer_visible_stable(c: FailureConstants, s: FailureState) -> bool:
    """Records once shown to consumers (below a leader's HW) stay, unchanged, in the live leader's log."""
    if not leader_alive(s):
        return True
    log = s.replicas[s.leader].log
    return log[: len(s.visible)] == s.visible


@invariant("HwNotAboveLeo")
def hw_not_above_leo(c: FailureConstants, s: FailureState) -> bool:
    """No live replica's HW is beyond its log end offset."""
    return all(rep.hw <= len(rep.log) for rep in s.replicas if rep.alive)


@invariant("OneLeaderPerEpoch")
def one_leader_per_epoch(c: FailureConstants, s: FailureState) -> bool:
    """Only the controller's leader acts as leader of the current epoch, and no replica is ahead of the controller."""
    return all(rep.epoch <= s.epoch for rep in s.replicas)


@sometimes("SomethingCommitted")
def something_committed(c: FailureConstants, s: FailureState) -> bool:
    """Some record reaches consumers (otherwise the bounds are too tight to say anything)."""
    return len(s.visible) > 0


ALL = [acked_records_survive, no_divergence_below_hw, consumer_visible_stable, hw_not_above_leo, one_leader_per_epoch]
SOMETIMES = [something_committed]
