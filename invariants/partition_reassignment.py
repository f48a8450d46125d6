"""What a partition reassignment must keep, as named predicates over a ``partition-reassignment`` state.

* ``LeaderInIsr``: the partition always has a leader, and it is in the ISR
  (otherwise it is offline: no reads, no writes);
* ``AckedRecordsSurvive``: every acknowledged record is in the leader's log,
  or, while there is no leader, in some replica still on disk;
* ``CompletedAtTarget``: once /admin/reassign_partitions is deleted, the
  partition is exactly where the target says: AR (in ZooKeeper) and the
  replicas on disk are RAR, the ISR is within RAR and the leader is in RAR
  (a crashed broker's disk, or one a StopReplica in flight is about to
  delete, counts only for the target: it is cleaned up when it comes back);
* ``CompletedInSync``: the move was declared complete only while every
  replica of RAR was in the ISR (KIP-455's definition of a finished move);
* ``CancelledAtOriginal``: once a cancelled move is over, the partition is
  back where it started: AR (in ZooKeeper) and the replicas on disk are
  OAR, the ISR is within OAR, the leader is in OAR and in the ISR, and the
  persisted original replicas are cleared (nothing says a move is under way).

The target of ``CompletedAtTarget`` and ``CompletedInSync`` is RAR, or OAR
once the move is being cancelled as the controller knows it; a cancellation
the controller forgot (its revert lost in a crash) is caught by
``CancelledAtOriginal``, which reads OAR from the constants and counts the
cancellations accepted.

Each has a companion ``explain`` that, on a violating state, names the
brokers at fault and the controller's step that put them there in one
sentence, and lists the lane cells that show it (the columns of
:func:`modelcheck.specs.reassignment_state.lanes`).  The step is read from the
running controller's position in its order of steps, which is state.
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.spec import Witness, culprit
from modelcheck.specs.reassignment_state import (
    AWAIT_ISR,
    NONE,
    ORDERS,
    SHRINK_ISR,
    STEP_NAMES,
    STOP_OLD,
    ReassignConstants,
    ReassignState,
    replica_sets,
    target,
)
from modelcheck.specs.naming import broker_name, broker_set


def _and(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _list(bs) -> str:
    """``b1``, ``b1 and b2``: brokers in a sentence."""
    return _and([broker_name(b) for b in sorted(bs)])


def _log(log: tuple) -> str:
    return "[" + ", ".join(str(x) for x in log) + "]"


def _steps_done(c: ReassignConstants, s: ReassignState) -> tuple[int, ...]:
    """The steps the running controller has taken so far in its run of the move (none while it is down)."""
    return ORDERS[c.Order][: s.step] if s.controller_up else ()


def _removed(c: ReassignConstants, s: ReassignState) -> frozenset:
    """OAR - RAR as the running controller knows it: the replicas its steps 4 and 5 take out."""
    new = target(c, s)
    return s.old_replicas - new if s.controller_up else frozenset()


def _leader_cause(c: ReassignConstants, s: ReassignState) -> tuple[str, tuple[dict, ...]]:
    """Which step of the running controller left the partition without a leader, and whom it removed.

    Step 4 (take OAR - RAR out of the ISR) and step 5 (stop them) are the only
    ones that remove a leader, when it is among OAR - RAR; the first of them
    taken is the one.  With no controller crash that controller's run is the
    whole history, so a single removed replica was the leader.
    """
    gone = _removed(c, s)
    for step in _steps_done(c, s) if gone else ():
        if step in (SHRINK_ISR, STOP_OLD):
            who = f"the leader {broker_name(min(gone))}" if len(gone) == 1 and s.crashes == 0 else _list(gone)
            did = "took" if step == SHRINK_ISR else "stopped and deleted"
            rest = " out of the ISR" if step == SHRINK_ISR else ""
            shows = ("role", "in ISR") if step == SHRINK_ISR else ("role", "log")
            return (f"the controller's step '{STEP_NAMES[step]}' {did} {who}{rest}",
                    tuple(culprit(broker_name(b), f) for b in sorted(gone) for f in shows))
    return "", ()


def explain_leader_in_isr(c: ReassignConstants, s: ReassignState) -> Witness:
    """The partition without a leader and the step that removed it, or the leader outside the ISR."""
    new = target(c, s)
    if s.leader != NONE:
        name = broker_name(s.leader)
        return Witness(f"the leader {name} is not in the ISR {broker_set(s.isr)}",
                       (culprit(name, "role"), culprit(name, "in ISR")))
    cause, cells = _leader_cause(c, s)
    waiting = sorted(new - s.isr)
    cells += tuple(culprit(broker_name(b), "in ISR") for b in waiting) + (culprit(variable="zookeeper.leader"),)
    if not cause:
        return Witness(f"the partition has no leader, so it is offline (ISR {broker_set(s.isr)})", cells)
    joined = f"; the ISR is {broker_set(s.isr)}"
    if waiting and AWAIT_ISR not in _steps_done(c, s):
        verb = "has" if len(waiting) == 1 else "have"
        joined = (f", and {_list(waiting)} of the target {broker_set(new)} {verb} not joined the ISR, which is "
                  f"{broker_set(s.isr)}")
    return Witness(f"the partition has no leader: {cause}{joined}", cells)


@invariant("LeaderInIsr", explain=explain_leader_in_isr)
def leader_in_isr(c: ReassignConstants, s: ReassignState) -> bool:
    """The partition has a leader, and the leader is in the ISR."""
    return s.leader != NONE and s.leader in s.isr


def explain_acked_records_survive(c: ReassignConstants, s: ReassignState) -> Witness:
    """The acknowledged record the leader lacks, or, with no leader, that no replica on disk holds."""
    acked = culprit(variable="producer.acked")
    if s.leader != NONE:
        name = broker_name(s.leader)
        log = s.replicas[s.leader].log
        missing = min(s.acked - frozenset(log))
        return Witness(f"acknowledged record {missing} is missing on the leader {name}, whose log is {_log(log)}",
                       (culprit(name, "log"), acked))
    hosted = [b for b, r in enumerate(s.replicas) if r.hosted]
    missing = min(s.acked - frozenset(x for b in hosted for x in s.replicas[b].log))
    gone = _removed(c, s)
    deleted = ""
    if STOP_OLD in _steps_done(c, s) and gone:
        deleted = f"the controller's step '{STEP_NAMES[STOP_OLD]}' deleted {_list(gone)}'s replica, "
    if not hosted:
        left = "and no replica is left"
    elif len(hosted) == 1:
        b = hosted[0]
        left = f"and {broker_name(b)}, the only replica left, lacks it (log {_log(s.replicas[b].log)})"
    else:
        left = f"and the replicas left, {_list(hosted)}, lack it"
    cells = tuple(culprit(broker_name(b), f) for b in sorted(gone) for f in ("role", "log"))
    cells += tuple(culprit(broker_name(b), "log") for b in hosted) + (acked,)
    return Witness(f"acknowledged record {missing} is on no replica left on disk: {deleted}the partition has no "
                   f"leader, {left}", cells)


@invariant("AckedRecordsSurvive", explain=explain_acked_records_survive)
def acked_records_survive(c: ReassignConstants, s: ReassignState) -> bool:
    """Every acknowledged record is in the leader's log (with no leader: in some replica still on disk)."""
    if s.leader != NONE:
        return s.acked <= frozenset(s.replicas[s.leader].log)
    kept = frozenset(x for r in s.replicas if r.hosted for x in r.log)
    return s.acked <= kept


def _hosted(s: ReassignState) -> tuple[frozenset, frozenset]:
    """Brokers with the replica on disk, and those of them that keep it (up, no StopReplica in flight)."""
    hosted = frozenset(b for b, r in enumerate(s.replicas) if r.hosted)
    stopping = frozenset(r[1] for r in s.in_flight if r[0] == "StopReplica")
    return hosted, hosted - s.down - stopping


def _off_target(c: ReassignConstants, s: ReassignState) -> tuple[list[str], tuple[dict, ...], frozenset]:
    """What a completed move left outside the target: phrases, their cells, and the brokers left over."""
    new = target(c, s)
    on_disk, hosted = _hosted(s)
    phrases: list[str] = []
    cells: tuple[dict, ...] = ()
    extra = (hosted | s.isr) - new
    for b in sorted(extra):
        what = [w for w, yes in (("still hosts a replica", b in hosted),
                                 (f"is in the ISR {broker_set(s.isr)}", b in s.isr), ("leads", b == s.leader)) if yes]
        phrases.append(f"{broker_name(b)}, outside the target {broker_set(new)}, {_and(what)}")
        cells += (culprit(broker_name(b), "role"),) + ((culprit(broker_name(b), "in ISR"),) if b in s.isr else ())
    for b in sorted(new - on_disk):
        phrases.append(f"{broker_name(b)} of the target hosts no replica")
        cells += (culprit(broker_name(b), "role"),)
    if s.leader not in new and s.leader not in extra:
        phrases.append("the partition has no leader" if s.leader == NONE
                       else f"the leader {broker_name(s.leader)} is outside the target")
        cells += (culprit(variable="zookeeper.leader"),)
    if s.zk_assignment != new:
        phrases.append(f"ZooKeeper's AR is {broker_set(s.zk_assignment)}")
        cells += tuple(culprit(broker_name(b), "in AR") for b in sorted(s.zk_assignment ^ new))
    return phrases, cells, extra


def explain_completed_at_target(c: ReassignConstants, s: ReassignState) -> Witness:
    """What the completed move left outside the target, and why the controller never removed it.

    A replica of OAR is removed only when it is in the controller's OAR - RAR;
    a controller that resumed the move took its OAR from ZooKeeper's AR.
    """
    new = target(c, s)
    phrases, cells, extra = _off_target(c, s)
    why = ""
    if s.controller_up and extra and not extra & s.old_replicas:
        source = " (read from ZooKeeper's AR after the controller crash)" if s.crashes else ""
        rest = s.old_replicas - new
        removes = "is empty" if not rest else f"is only {broker_set(rest)}"
        why = (f": the controller's OAR is {broker_set(s.old_replicas)}{source}, so OAR - RAR {removes} and it never "
               f"removed or stopped {_list(extra)}")
        cells += (culprit(variable="controller.oar"),)
    return Witness(f"the move is complete, but {'; '.join(phrases)}{why}", cells)


@invariant("CompletedAtTarget", explain=explain_completed_at_target)
def completed_at_target(c: ReassignConstants, s: ReassignState) -> bool:
    """A completed move left AR, the hosted replicas, the ISR and the leader within RAR (AR and replicas exactly RAR)."""
    if s.reassigning:
        return True
    new = target(c, s)
    on_disk, kept = _hosted(s)
    return s.zk_assignment == new and kept <= new <= on_disk and s.isr <= new and s.leader in new


def explain_completed_in_sync(c: ReassignConstants, s: ReassignState) -> Witness:
    """The target replicas that were out of the ISR when the move was declared complete."""
    new = target(c, s)
    out = sorted(new - s.completed_isr)
    verb = "was" if len(out) == 1 else "were"
    return Witness(f"the move was declared complete with the ISR {broker_set(s.completed_isr)}: {_list(out)} of the "
                   f"target {broker_set(new)} {verb} not in sync",
                   tuple(culprit(broker_name(b), "in ISR") for b in out) + (culprit(variable="failures.isrAtCompletion"),))


@invariant("CompletedInSync", explain=explain_completed_in_sync)
def completed_in_sync(c: ReassignConstants, s: ReassignState) -> bool:
    """When /admin/reassign_partitions was deleted, every replica of RAR was in the ISR."""
    return s.reassigning or target(c, s) <= s.completed_isr


def explain_cancelled_at_original(c: ReassignConstants, s: ReassignState) -> Witness:
    """Where the cancelled move ended instead of OAR."""
    old, _ = replica_sets(c)
    on_disk, hosted = _hosted(s)
    phrases: list[str] = []
    cells: tuple[dict, ...] = ()
    for b in sorted((hosted | s.isr) - old):
        what = [w for w, yes in (("hosts a replica", b in hosted), (f"is in the ISR {broker_set(s.isr)}", b in s.isr),
                                 ("leads", b == s.leader)) if yes]
        phrases.append(f"{broker_name(b)}, outside OAR {broker_set(old)}, {_and(what)}")
        cells += (culprit(broker_name(b), "role"),) + ((culprit(broker_name(b), "in ISR"),) if b in s.isr else ())
    for b in sorted(old - on_disk):
        phrases.append(f"{broker_name(b)} of OAR hosts no replica")
        cells += (culprit(broker_name(b), "role"),)
    if s.leader == NONE or s.leader not in s.isr:
        phrases.append("the partition has no leader" if s.leader == NONE
                       else f"the leader {broker_name(s.leader)} is not in the ISR {broker_set(s.isr)}")
        cells += (culprit(variable="zookeeper.leader"),)
    if s.zk_assignment != old:
        phrases.append(f"ZooKeeper's AR is {broker_set(s.zk_assignment)}")
        cells += tuple(culprit(broker_name(b), "in AR") for b in sorted(s.zk_assignment ^ old))
    if s.zk_original:
        phrases.append(f"the persisted original replicas are still {broker_set(s.zk_original)}")
        cells += (culprit(variable="failures.persistedOAR"),)
    if not s.revert:
        phrases.append("the controller that finished it no longer knew of the cancellation")
        cells += (culprit(variable="failures.revertTo"),)
    return Witness(f"the move was cancelled and is over, but {'; '.join(phrases)}", cells)


@invariant("CancelledAtOriginal", explain=explain_cancelled_at_original)
def cancelled_at_original(c: ReassignConstants, s: ReassignState) -> bool:
    """A cancelled move that is over left AR and the hosted replicas at OAR, the ISR within OAR, the leader in
    OAR and in the ISR, and no persisted original replicas."""
    if s.reassigning or not s.cancels:
        return True
    old, _ = replica_sets(c)
    on_disk, kept = _hosted(s)
    return (s.zk_assignment == old and kept <= old <= on_disk and s.isr <= old and s.leader in old
            and s.leader in s.isr and not s.zk_original)


@sometimes("MoveCompleted")
def move_completed(c: ReassignConstants, s: ReassignState) -> bool:
    """The reassignment completes."""
    return not s.reassigning


@sometimes("ResumedAfterControllerCrash")
def resumed_after_controller_crash(c: ReassignConstants, s: ReassignState) -> bool:
    """The reassignment completes after a controller crashed in the middle of it."""
    return s.crashes > 0 and not s.reassigning


@sometimes("RecordAcked")
def record_acked(c: ReassignConstants, s: ReassignState) -> bool:
    """Some record is acknowledged (otherwise AckedRecordsSurvive says nothing)."""
    return bool(s.acked)


ALL = [leader_in_isr, acked_records_survive, completed_at_target, completed_in_sync, cancelled_at_original]
SOMETIMES = [move_completed, resumed_after_controller_crash, record_acked]
