"""The seeds' failure stories: brokers that crash and restart, HW checkpoints, acks, unclean election.

The published TLA+ models abstract these away; this spec (registered as
``broker-failures``) keeps them, at the level of detail of the seed documents
(the seed notes on Kafka internals, and their worked LEO/HW tables):

* **Brokers** hold a log of records (id, leader epoch), LEO, an in-memory HW,
  the HW last checkpointed to disk, a leader-epoch cache, and whether they are
  up.  A crash loses the in-memory state only.
* **The leader** keeps each follower's remote LEO (its last fetch offset) and
  sets HW = max(HW, min LEO over the ISR) after a produce, a fetch and an ISR
  shrink.  It holds its own copy of the ISR; it writes ISR changes to
  ZooKeeper (the controller's copy) in the same step, so the two differ only
  while the partition has no live leader.
* **Fetching takes two steps**, the request and the response, as in the
  seeds' nine-step walkthrough: ``follower_fetch`` is the leader's side (remote
  LEO := fetch offset, ISR expansion, HW update, response with records and
  HW); ``follower_append`` is the follower's (append, HW = min(LEO, leader
  HW)).  So the follower's HW needs a second fetch round, and a crash can fall
  between the leader raising its HW and the follower learning it (story 1).
* **The controller** holds the leader, the leader epoch and its ISR.  It sees a
  leader's crash at once (before any restart is processed): the partition goes
  offline and the ISR becomes its live members, unless none is alive (then the
  ISR is left as it was, as Kafka does).  A follower's crash is not seen by the
  controller (a restart within the ZooKeeper session timeout, as in the seeds'
  story 1); the leader drops a dead or lagging follower with ``shrink_isr``.
* **Elections**: ``elect_leader`` picks a live member of the controller's ISR;
  ``elect_leader_unclean`` (``UncleanElection=true``) any live broker when no
  ISR member is alive.  Each bumps the leader epoch.
* **Truncation** (``Truncation``): a restarted broker, or a live one that sees
  a new epoch, truncates before fetching, by the rule in
  :mod:`modelcheck.specs.broker_truncation`; with no live leader a broker
  restarts without truncating and may then be elected.
* **ISR join** (``IsrJoin``): a follower rejoins when its fetch offset reaches
  the leader's HW (the seeds' rule), or, with ``epoch-start``, also the
  leader's LEO at its election (KAFKA-7128, Kafka 2.1): a leader restarted with
  a stale checkpointed HW otherwise readmits an empty follower.
* **The producer** (``Acks``): acks=0 is never acknowledged; acks=1 on the
  leader's append; acks=all when the HW passes the record, refused before the
  append (NotEnoughReplicas) and failed after it (NotEnoughReplicasAfterAppend)
  while the ISR is below ``MinInsyncReplicas``; pending acks fail when the
  leader crashes.

Crashes are bounded by ``Crashes`` and records by ``Records``, so every run
ends; states without successors are expected.

**Fairness** (what the stories take for granted): the brokers' and the
controller's own work is weakly fair: fetching and handling responses, the
leader's ISR shrink, HW checkpoints, restarts, following a new leader,
elections.  Crashes and the producer are not: a broker may crash or not
(within ``Crashes``), and the producer may stop sending at any time.  Since
every run ends, a fair behaviour ends in a state where only ``crash`` or
``produce`` can still happen (or nothing can).

**Liveness properties**: ``OfflinePartitionRecovers``,
``IsrCatchesUpOnceCrashesStop`` and ``AckedRecordReachesConsumers`` (see each).
"""

from __future__ import annotations

from modelcheck import Spec, Symmetry, action, all_of, leads_to, liveness, weak
from modelcheck.specs.broker_state import (
    ACKS_SETTING,
    NONE,
    REPLICA,
    UNKNOWN,
    FailureConstants,
    FailureState,
    Replica,
    init,
    leader_alive,
    set_replica,
)
from modelcheck.specs.broker_truncation import assign, assign_records, truncate_cache, truncation_point
from modelcheck.specs.broker_view import broker_signature, lanes, messages, permute, view
from modelcheck.specs.replicated_log import Record


def settle(c: FailureConstants, s: FailureState) -> FailureState:
    """The leader's HW rule, then what the new HW completes: delayed acks=all produces and consumer reads.

    Leader HW = max(HW, min(LEO of every ISR member)), the leader's own LEO
    included and a remote LEO still unknown counting as -1.
    """
    if not leader_alive(s):
        return s
    lead = s.controller_leader
    ld = s.replicas[lead]
    leos = [len(ld.log) if r == lead else s.remote_leo[r] for r in s.leader_isr]
    hw = max(ld.hw, min(leos))
    if hw != ld.hw:
        ld = ld._replace(hw=hw)
        s = set_replica(s, lead, ld)
    committed = {rec.id for rec in ld.log[:hw]}
    done = s.pending & committed
    if done:
        enough = len(s.leader_isr) >= c.MinInsyncReplicas
        s = s._replace(pending=s.pending - done, acked=s.acked | done if enough else s.acked)
    shown = ld.log[:hw]
    if len(shown) > len(s.visible) and shown[: len(s.visible)] == s.visible:
        s = s._replace(visible=shown)
    return s


# -- producer ------------------------------------------------------------------------


@action("produce", label="produce({acks})", acks=ACKS_SETTING)
def produce(c: FailureConstants, s: FailureState, acks: int):
    """The leader appends the producer's next record in its epoch (acks=all refused while the ISR is too small)."""
    if not leader_alive(s) or s.next_id >= c.Records:
        return None
    if c.Acks == "all" and len(s.leader_isr) < c.MinInsyncReplicas:
        return None  # NotEnoughReplicas: refused before the append
    lead = s.controller_leader
    ld = s.replicas[lead]
    offset = len(ld.log)
    rec = Record(s.next_id, s.controller_epoch)
    ld = ld._replace(log=ld.log + (rec,), epochs=assign(ld.epochs, rec.epoch, offset))
    t = set_replica(s, lead, ld)._replace(next_id=s.next_id + 1)
    if c.Acks == "1":
        t = t._replace(acked=t.acked | {rec.id})
    elif c.Acks == "all":
        t = t._replace(pending=t.pending | {rec.id})
    return settle(c, t)


# -- replication: the nine steps ------------------------------------------------------------


@action("follower_fetch", follower=REPLICA)
def follower_fetch(c: FailureConstants, s: FailureState, follower: int):
    """The leader handles a fetch carrying the follower's LEO: remote LEO, ISR expansion, HW, response.

    The follower rejoins the ISR when its fetch offset reaches the leader's HW
    (and, with ``IsrJoin=epoch-start``, the offset where the leader's epoch began).

    A fetch offset beyond the leader's LEO is out of range: the response tells
    the follower to truncate to the leader's LEO.  A fetch that would change
    nothing (nothing new either way) is not a step.
    """
    lead = s.controller_leader
    if not leader_alive(s) or follower == lead:
        return None
    f = s.replicas[follower]
    if not f.alive or f.epoch != s.controller_epoch or f.fetch:
        return None
    ld = s.replicas[lead]
    offset = len(f.log)
    if offset > len(ld.log):
        return set_replica(s, follower, f._replace(fetch=(len(ld.log), (), ld.hw)))
    t = s._replace(remote_leo=s.remote_leo[:follower] + (offset,) + s.remote_leo[follower + 1:])
    if follower not in t.leader_isr and offset >= ld.hw and (c.IsrJoin == "hw" or offset >= s.leader_start):
        t = t._replace(leader_isr=t.leader_isr | {follower}, controller_isr=t.controller_isr | {follower})
    t = settle(c, t)
    ld = t.replicas[lead]
    records = ld.log[offset:]
    if t == s and not records and ld.hw == f.hw:
        return None
    return set_replica(t, follower, f._replace(fetch=(offset, records, ld.hw)))


@action("follower_append", follower=REPLICA)
def follower_append(c: FailureConstants, s: FailureState, follower: int):
    """The follower handles the response: append the records, then HW = min(LEO, leader HW)."""
    f = s.replicas[follower]
    if not f.alive or not f.fetch:
        return None
    start, records, leader_hw = f.fetch
    log = f.log[:start] + records
    epochs = assign_records(truncate_cache(f.epochs, start), records, start)
    return set_replica(s, follower, f._replace(log=log, epochs=epochs, hw=min(len(log), leader_hw), fetch=()))


@action("shrink_isr", follower=REPLICA)
def shrink_isr(c: FailureConstants, s: FailureState, follower: int):
    """The leader drops a follower that is down or behind its LEO for too long (replica.lag.time.max.ms)."""
    lead = s.controller_leader
    if not leader_alive(s) or follower == lead or follower not in s.leader_isr:
        return None
    if s.replicas[follower].alive and s.remote_leo[follower] >= len(s.replicas[lead].log):
        return None
    t = s._replace(leader_isr=s.leader_isr - {follower}, controller_isr=s.controller_isr - {follower})
    return settle(c, t)


@action("checkpoint_hw", replica=REPLICA)
def checkpoint_hw(c: FailureConstants, s: FailureState, replica: int):
    """The broker writes its in-memory HW to replication-offset-checkpoint."""
    rep = s.replicas[replica]
    if not rep.alive or rep.checkpoint_hw == rep.hw:
        return None
    return set_replica(s, replica, rep._replace(checkpoint_hw=rep.hw))


# -- failures and recovery ----------------------------------------------------------------


@action("crash", replica=REPLICA)
def crash(c: FailureConstants, s: FailureState, replica: int):
    """A broker dies, losing its in-memory HW and any fetch in flight; log, checkpoint and epoch cache stay on disk.

    A leader's death is seen by the controller at once: the partition goes
    offline, its ISR shrinks to the members still alive (if any), and the
    producer's pending acks=all requests fail.
    """
    rep = s.replicas[replica]
    if not rep.alive or s.crashes >= c.Crashes:
        return None
    t = set_replica(s, replica, rep._replace(alive=False, leader=False, hw=0, epoch=UNKNOWN, fetch=()))
    t = t._replace(crashes=s.crashes + 1)
    if replica != s.controller_leader:
        return t
    live = frozenset(r for r in s.controller_isr if r != replica and s.replicas[r].alive)
    return t._replace(
        controller_leader=NONE,
        controller_isr=live or s.controller_isr,
        leader_isr=frozenset(),
        leader_start=0,
        remote_leo=(UNKNOWN,) * c.Replicas,
        pending=frozenset(),
    )


def _truncated(c: FailureConstants, s: FailureState, rep: Replica) -> Replica:
    """``rep`` after truncating, by the configured rule, to follow the live leader in its epoch."""
    ld = s.replicas[s.controller_leader]
    cut = truncation_point(c.Truncation, rep.log, rep.epochs, rep.hw, ld.log, ld.epochs)
    return rep._replace(
        log=rep.log[:cut],
        epochs=truncate_cache(rep.epochs, cut),
        hw=min(rep.hw, cut),
        epoch=s.controller_epoch,
        fetch=(),
    )


def _restart_following(c: FailureConstants, s: FailureState, replica: int, modes: tuple[str, ...]):
    rep = s.replicas[replica]
    if c.Truncation not in modes or rep.alive or not leader_alive(s):
        return None
    back = rep._replace(alive=True, hw=min(rep.checkpoint_hw, len(rep.log)))
    return set_replica(s, replica, _truncated(c, s, back))


@action("restart_truncate_to_hw", replica=REPLICA)
def restart_truncate_to_hw(c: FailureConstants, s: FailureState, replica: int):
    """Before 0.11: a broker restarts, reads its HW from the checkpoint, truncates its log to it and follows."""
    return _restart_following(c, s, replica, ("hw",))


@action("restart_truncate_by_epoch", replica=REPLICA)
def restart_truncate_by_epoch(c: FailureConstants, s: FailureState, replica: int):
    """0.11 and later: a broker restarts, asks the leader where its latest epoch ends, truncates there and follows."""
    return _restart_following(c, s, replica, ("leader-epoch", "kip279"))


@action("restart_without_leader", replica=REPLICA)
def restart_without_leader(c: FailureConstants, s: FailureState, replica: int):
    """A broker restarts while no leader is alive: it keeps its whole log and may then be elected."""
    rep = s.replicas[replica]
    if rep.alive or leader_alive(s):
        return None
    return set_replica(s, replica, rep._replace(alive=True, hw=min(rep.checkpoint_hw, len(rep.log))))


def _become_follower(c: FailureConstants, s: FailureState, replica: int, modes: tuple[str, ...]):
    rep = s.replicas[replica]
    if c.Truncation not in modes or not leader_alive(s) or replica == s.controller_leader:
        return None
    if not rep.alive or rep.epoch == s.controller_epoch:
        return None
    return set_replica(s, replica, _truncated(c, s, rep))


@action("become_follower_truncate_to_hw", replica=REPLICA)
def become_follower_truncate_to_hw(c: FailureConstants, s: FailureState, replica: int):
    """Before 0.11: a live broker told of a new leader (LeaderAndIsr) truncates to its HW, then fetches."""
    return _become_follower(c, s, replica, ("hw",))


@action("become_follower_truncate_by_epoch", replica=REPLICA)
def become_follower_truncate_by_epoch(c: FailureConstants, s: FailureState, replica: int):
    """0.11 and later: a live broker told of a new leader truncates by OffsetsForLeaderEpoch, then fetches."""
    return _become_follower(c, s, replica, ("leader-epoch", "kip279"))


def _elect(c: FailureConstants, s: FailureState, replica: int, unclean: bool):
    rep = s.replicas[replica]
    if leader_alive(s) or not rep.alive:
        return None
    live_isr = frozenset(r for r in s.controller_isr if s.replicas[r].alive)
    if unclean:
        if not c.UncleanElection or live_isr:
            return None
        isr = frozenset((replica,))
    else:
        if replica not in live_isr:
            return None
        isr = live_isr
    epoch = s.controller_epoch + 1
    epochs = assign(rep.epochs, epoch, len(rep.log)) if c.Truncation == "kip279" else rep.epochs
    # The new leader keeps its own (maybe stale) HW and knows no follower's LEO yet.
    new = rep._replace(leader=True, epoch=epoch, epochs=epochs, fetch=())
    return set_replica(s, replica, new)._replace(
        controller_leader=replica,
        controller_epoch=epoch,
        controller_isr=isr,
        leader_isr=isr,
        leader_start=len(rep.log),
        remote_leo=(UNKNOWN,) * c.Replicas,
    )


@action("elect_leader", replica=REPLICA)
def elect_leader(c: FailureConstants, s: FailureState, replica: int):
    """Clean election: with no live leader, the controller makes a live ISR member leader of a new epoch."""
    return _elect(c, s, replica, unclean=False)


@action("elect_leader_unclean", replica=REPLICA)
def elect_leader_unclean(c: FailureConstants, s: FailureState, replica: int):
    """Unclean election (if enabled): no ISR member is alive, so any live broker leads a new epoch."""
    return _elect(c, s, replica, unclean=True)


# -- liveness ------------------------------------------------------------------------------
#
# Verdicts under the fairness below, decided on the whole state graph by the independent oracle of the
# tests (tests/naive_liveness.py; tests/test_liveness_oracle.py asserts them):
#
# * OfflinePartitionRecovers holds (defaults, and the fixed KIP-279 configuration): a partition without
#   a live leader has a dead broker to restart or a live ISR member to elect, both fair, and crashes run
#   out, so the controller's election is eventually taken.
# * IsrCatchesUpOnceCrashesStop holds in the same configurations: once the crash budget is spent, the
#   leader is live (by the above) and fetching is fair, and a fetch is enabled while it would change
#   something, so the followers fetch until the leader's HW is its LEO and their HW is the leader's.
#   It is about offsets only: it holds even where the stories lose data (story 1 and 2's defaults).
# * AckedRecordReachesConsumers is violated with the defaults (truncation to the HW): after story 1's
#   data loss the new leader writes, commits and acknowledges another record at the offset where
#   consumers already read the lost one, so what they read never extends to it (KIP-101 with the seeds'
#   ISR-join rule likewise, after the KAFKA-7128 loss).  With acks=1 it is violated even with KIP-279
#   and the KAFKA-7128 rule (story 5: the record is acknowledged on the append and the leader crashes
#   before replicating it).  With KIP-279, the KAFKA-7128 rule and acks=all it holds, fair or not: an
#   acks=all acknowledgement comes in the step where the HW passes the record, which shows it to
#   consumers at once.  With acks=1 and Crashes=0 it holds only thanks to fair fetching.


def _offline(c: FailureConstants, s: FailureState) -> bool:
    return not leader_alive(s)


def _online(c: FailureConstants, s: FailureState) -> bool:
    return leader_alive(s)


@liveness("OfflinePartitionRecovers", "A partition without a live leader eventually has one again.")
def offline_partition_recovers(c: FailureConstants):
    """~LeaderAlive ~> LeaderAlive."""
    return leads_to(_offline, _online)


def _crashes_spent(c: FailureConstants, s: FailureState) -> bool:
    return s.crashes >= c.Crashes


def _isr_caught_up(c: FailureConstants, s: FailureState) -> bool:
    if not leader_alive(s):
        return False
    leo = len(s.replicas[s.controller_leader].log)
    for r in s.leader_isr:
        if s.replicas[r].hw < leo:
            return False
    return True


@liveness("IsrCatchesUpOnceCrashesStop",
          "Once no broker can crash any more, every ISR member's HW eventually reaches the live leader's LEO.")
def isr_catches_up_once_crashes_stop(c: FailureConstants):
    """crashes = Crashes ~> (LeaderAlive /\\ \\A r \\in leaderIsr: hw[r] >= LEO[leader]).

    "Failures stop" is the crash budget spent: from such a state on, no ``crash`` step is possible.
    """
    return leads_to(_crashes_spent, _isr_caught_up)


def _acked(i: int):
    def acked(c: FailureConstants, s: FailureState) -> bool:
        return i in s.acked
    return acked


def _visible(i: int):
    def visible(c: FailureConstants, s: FailureState) -> bool:
        for rec in s.visible:
            if rec.id == i:
                return True
        return False
    return visible


@liveness("AckedRecordReachesConsumers",
          "Every record acknowledged to the producer is eventually in the log prefix consumers have read.")
def acked_record_reaches_consumers(c: FailureConstants):
    """\\A i \\in 0..Records-1: i \\in acked ~> \\E o: visible[o].id = i."""
    return all_of(leads_to(_acked(i), _visible(i)) for i in range(c.Records))


PROPERTIES = [offline_partition_recovers, isr_catches_up_once_crashes_stop, acked_record_reaches_consumers]

FAIRNESS = [
    # The replica fetcher keeps fetching, and handles each response (steps 3-9 of the seeds' walkthrough).
    weak(follower_fetch),
    weak(follower_append),
    # The leader drops a dead or lagging follower once replica.lag.time.max.ms passes.
    weak(shrink_isr),
    # The HW checkpoint thread runs periodically.
    weak(checkpoint_hw),
    # A crashed broker is brought back, and a live one follows a new leader (LeaderAndIsr is delivered).
    weak(restart_truncate_to_hw),
    weak(restart_truncate_by_epoch),
    weak(restart_without_leader),
    weak(become_follower_truncate_to_hw),
    weak(become_follower_truncate_by_epoch),
    # The controller elects a leader for an offline partition (uncleanly only when so configured).
    weak(elect_leader),
    weak(elect_leader_unclean),
    # No fairness for crash (failures may or may not happen) nor for produce (the producer may stop).
]
"""Each over the whole action (every replica), as the published Kafka specs declare theirs."""


def _build() -> Spec:
    from modelcheck.invariants import broker_failures as inv

    return Spec(
        name="broker-failures",
        title="Broker crash/restart, HW checkpoints, acks, min.insync.replicas and unclean election "
              "(the seeds' failure stories)",
        constants=FailureConstants,
        init=init,
        actions=[
            produce,
            follower_fetch,
            follower_append,
            shrink_isr,
            checkpoint_hw,
            crash,
            restart_truncate_to_hw,
            restart_truncate_by_epoch,
            restart_without_leader,
            become_follower_truncate_to_hw,
            become_follower_truncate_by_epoch,
            elect_leader,
            elect_leader_unclean,
        ],
        invariants=inv.ALL,
        sometimes=inv.SOMETIMES,
        properties=PROPERTIES,
        fairness=FAIRNESS,
        symmetry=Symmetry(size=lambda c: c.Replicas, permute=permute, signature=broker_signature),
        deadlock_expected=True,
        view=view,
        lanes=lanes,
        messages=messages,
        description=__doc__,
        reference="modelcheck.specs.broker_failures:SPEC",
    )


SPEC = _build()
