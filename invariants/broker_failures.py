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

Each has a companion ``explain`` that, on a violating state, names the
record, the offset and the broker at fault in one sentence and lists the lane
cells that show it (the columns of :func:`modelcheck.specs.broker_view.lanes`).
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.spec import Witness, culprit
from modelcheck.specs.broker_state import FailureConstants, FailureState, leader_alive
from modelcheck.specs.naming import replica_name


def _record(rec) -> str:
    return f"{rec.id}@e{rec.epoch}"


def _down(s: FailureState, r: int) -> str:
    return replica_name(r) + ("" if s.replicas[r].alive else " (crashed)")


def explain_acked_records_survive(c: FailureConstants, s: FailureState) -> Witness:
    """The acknowledged record the live leader lacks, the offset it was written at, and who still holds it."""
    lead = s.controller_leader
    name = replica_name(lead)
    log = s.replicas[lead].log
    missing = min(s.acked - {rec.id for rec in log})
    holders = [(r, o, rec) for r, rep in enumerate(s.replicas) for o, rec in enumerate(rep.log) if rec.id == missing]
    holders += [(None, o, rec) for o, rec in enumerate(s.visible) if rec.id == missing and not holders]
    if not holders:
        return Witness(f"acknowledged record {missing} is missing on leader {name}, and no broker holds it any more",
                       (culprit(name, "log"), culprit(variable="producer.acked")))
    _, o, rec = holders[0]
    if o < len(log):
        instead = f"; it holds {_record(log[o])} at offset {o} instead"
    else:
        instead = f"; its log ends at offset {len(log)}"
    others = [r for r, _, _ in holders if r is not None]
    still = (f", and only {', '.join(_down(s, r) for r in others)} still "
             f"{'holds' if len(others) == 1 else 'hold'} it") if others else ", and no broker holds it any more"
    cells = (culprit(name, "log", o),) + tuple(culprit(replica_name(r), "log", ro) for r, ro, _ in holders
                                               if r is not None) + (culprit(variable="producer.acked"),)
    return Witness(f"acknowledged record {_record(rec)} at offset {o} is missing on leader {name}{instead}{still}",
                   cells)


@invariant("AckedRecordsSurvive", explain=explain_acked_records_survive)
def acked_records_survive(c: FailureConstants, s: FailureState) -> bool:
    """Every acknowledged record is in the live leader's log (acks=0 acknowledges nothing)."""
    if not leader_alive(s):
        return True
    ids = {rec.id for rec in s.replicas[s.controller_leader].log}
    return s.acked <= ids


def explain_no_divergence_below_hw(c: FailureConstants, s: FailureState) -> Witness:
    """The first two live brokers, and the offset below both HWs, where their records differ.

    The live leader's record (when it is one of the two) is the one the other lacks.
    """
    live = [r for r, rep in enumerate(s.replicas) if rep.alive]
    for i, ra in enumerate(live):
        for rb in live[i + 1:]:
            a, b = s.replicas[ra], s.replicas[rb]
            n = min(a.hw, b.hw, len(a.log), len(b.log))
            o = next((o for o in range(n) if a.log[o] != b.log[o]), None)
            if o is None:
                continue
            if rb == s.controller_leader:
                ra, rb, a, b = rb, ra, b, a
            na, nb = replica_name(ra), replica_name(rb)
            role = "leader " if ra == s.controller_leader and leader_alive(s) else ""
            return Witness(
                f"record {_record(a.log[o])} at offset {o} on {role}{na} (HW {a.hw}) is missing on {nb}, which "
                f"holds {_record(b.log[o])} there, below its own HW {b.hw}",
                (culprit(na, "log", o), culprit(na, "HW"), culprit(nb, "log", o), culprit(nb, "HW")))
    return Witness("every two live brokers agree below their HWs (the invariant holds)")


@invariant("NoDivergenceBelowHw", explain=explain_no_divergence_below_hw)
def no_divergence_below_hw(c: FailureConstants, s: FailureState) -> bool:
    """Any two live brokers agree on every offset both hold below the smaller of their HWs."""
    live = [rep for rep in s.replicas if rep.alive]
    for i, a in enumerate(live):
        for b in live[i + 1:]:
            n = min(a.hw, b.hw, len(a.log), len(b.log))
            if a.log[:n] != b.log[:n]:
                return False
    return True


def explain_consumer_visible_stable(c: FailureConstants, s: FailureState) -> Witness:
    """The first record consumers were shown that the live leader's log no longer holds at its offset."""
    name = replica_name(s.controller_leader)
    log = s.replicas[s.controller_leader].log
    o = next(o for o, rec in enumerate(s.visible) if o >= len(log) or log[o] != rec)
    shown = _record(s.visible[o])
    cells = (culprit(name, "log", o), culprit(variable="consumerVisible"))
    if o >= len(log):
        return Witness(f"consumers were shown record {shown} at offset {o}, but it is missing on leader {name}, "
                       f"whose log ends at offset {len(log)}", cells)
    return Witness(f"consumers were shown record {shown} at offset {o}, but it is missing on leader {name}, "
                   f"which holds {_record(log[o])} there", cells)


@invariant("ConsumerVisibleStable", explain=explain_consumer_visible_stable)
def consumer_visible_stable(c: FailureConstants, s: FailureState) -> bool:
    """Records consumers were shown are never replaced or removed from the live leader's log."""
    if not leader_alive(s):
        return True
    log = s.replicas[s.controller_leader].log
    return log[: len(s.visible)] == s.visible


def explain_hw_not_above_leo(c: FailureConstants, s: FailureState) -> Witness:
    """The live broker whose HW is past its LEO."""
    r, rep = next((r, rep) for r, rep in enumerate(s.replicas) if rep.alive and rep.hw > len(rep.log))
    name = replica_name(r)
    return Witness(f"{name}'s HW {rep.hw} is above its LEO {len(rep.log)}: offset {len(rep.log)} counts as "
                   f"committed but {name} holds no record there", (culprit(name, "HW"), culprit(name, "LEO")))


@invariant("HwNotAboveLeo", explain=explain_hw_not_above_leo)
def hw_not_above_leo(c: FailureConstants, s: FailureState) -> bool:
    """No live broker's high watermark exceeds its log end offset."""
    return all(rep.hw <= len(rep.log) for rep in s.replicas if rep.alive)


def explain_one_leader_per_epoch(c: FailureConstants, s: FailureState) -> Witness:
    """The two live brokers leading the same epoch, or the one leading an epoch the controller never issued."""
    leaders = [(r, rep.epoch) for r, rep in enumerate(s.replicas) if rep.alive and rep.leader]
    for i, (ra, ea) in enumerate(leaders):
        for rb, eb in leaders[i + 1:]:
            if ea == eb:
                na, nb = replica_name(ra), replica_name(rb)
                return Witness(f"{na} and {nb} both act as leader of epoch {ea}",
                               (culprit(na, "role"), culprit(na, "epoch"), culprit(nb, "role"), culprit(nb, "epoch")))
    r, e = next((r, e) for r, e in leaders if e > s.controller_epoch)
    name = replica_name(r)
    return Witness(f"{name} acts as leader of epoch {e}, which the controller has not issued (its epoch is "
                   f"{s.controller_epoch})", (culprit(name, "epoch"), culprit(variable="controller.epoch")))


@invariant("OneLeaderPerEpoch", explain=explain_one_leader_per_epoch)
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
