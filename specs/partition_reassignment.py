"""Partition reassignment: the seeds' order of steps, and what each wrong order breaks.

The seed notes on the controller describe moving a partition from its
original replicas (OAR) to reassigned ones (RAR):

1. update AR in ZooKeeper to OAR + RAR, bump the leader epoch, send
   LeaderAndIsr to every replica of AR (RAR - OAR start as new replicas);
2. wait until every replica of RAR is in sync with the leader (in the ISR);
3. if the leader is not in RAR, elect a new leader from RAR;
4. take OAR - RAR out of the ISR (and tell the leader);
5. stop OAR - RAR (StopReplica) and delete them from disk;
6. set AR in ZooKeeper to RAR;
7. delete /admin/reassign_partitions.

AR in ZooKeeper is updated last because it is the only persistent copy: if
the controller crashes before that, a new controller can still finish the
move.  The server notes give the same order as "grow AR, grow ISR, shrink
ISR, shrink AR".  This spec (registered as ``partition-reassignment``)
runs the controller through the steps in the ``Order`` chosen, one action
per step; ``kafka`` is the seeds' order, and each wrong order moves one step
earlier: ``shrink-isr-early`` (4 before 2), ``stop-old-early`` (5 before 2)
and ``persist-ar-early`` (6 right after 1).

Around it: producers write (acks=all, acknowledged once every ISR member has
the record), followers fetch (the log becomes the leader's, and a follower
whose log reached the leader's joins the ISR), and the controller may crash
between any two steps (``controller_crash``); the next controller
(``elect_controller``) reads AR and /admin/reassign_partitions from ZooKeeper
and runs the steps again from the first, with OAR := ZooKeeper's AR.
LeaderAndIsr and StopReplica take effect at once (their delivery is
``controller-failover``'s subject).  A replica removed from the ISR while it
leads leaves the partition without a leader, as the controller's ISR shrink
does.

With ``Cancellations=1`` (KIP-455's forms) the operator may cancel the move
while the controller waits for RAR to join the ISR (``cancel_reassignment``):
the controller runs the same steps with OAR as the target, and ``Cancel``
picks the correct revert or a mutant that gets one step wrong.

``reassignment_done`` is a stuttering step once the move is complete, so
that ``--deadlock`` reports exactly the runs that get stuck short of the
target: with ``Order=kafka`` there are none, whatever the controller crash.
"""

from __future__ import annotations

from modelcheck import Spec, action
from modelcheck.specs.reassignment_state import (
    AWAIT_ISR,
    BROKER,
    COMPLETE,
    FENCE,
    FORMS,
    GROW_AR,
    MOVE_LEADER,
    NONE,
    ORDERS,
    PERSIST_AR,
    PERSIST_OAR,
    RECHECK,
    SHRINK_ISR,
    STOP_OLD,
    STRAY_DELETION,
    CANCEL_KEEP_PERSISTED,
    CANCEL_REVERT_FIRST,
    ReassignConstants,
    ReassignState,
    Replica,
    init,
    lanes,
    messages,
    replica_sets,
    target,
    view,
)


def _common_prefix(a: tuple, b: tuple) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def acknowledge(s: ReassignState) -> ReassignState:
    """acks=all: the leader acknowledges the records every ISR member holds (below its high watermark)."""
    if s.leader == NONE:
        return s
    log = s.replicas[s.leader].log
    hw = min((_common_prefix(log, s.replicas[m].log) for m in s.isr), default=0)
    done = frozenset(log[:hw])
    return s if done <= s.acked else s._replace(acked=s.acked | done)


def _at(c: ReassignConstants, s: ReassignState, kind: int) -> bool:
    """The running controller's next step is ``kind``; with KIP-455's recheck, a step after the wait also
    needs every replica of RAR in the ISR now (phase B runs only then), not just when the wait ended."""
    order = ORDERS[c.Order]
    if not (s.controller_up and s.reassigning and s.step < len(order) and order[s.step] == kind):
        return False
    if RECHECK in FORMS[c.Form] and AWAIT_ISR in order[: s.step] and kind != AWAIT_ISR:
        return target(c, s) <= s.isr - s.down
    return True


def _advance(c: ReassignConstants, s: ReassignState) -> ReassignState:
    """On to the next step, passing over the leader move when the leader is already in RAR."""
    order = ORDERS[c.Order]
    new = target(c, s)
    step = s.step + 1
    while step < len(order) and order[step] == MOVE_LEADER and s.leader in new:
        step += 1
    return s._replace(step=step)


def _sent_assignment(s: ReassignState) -> frozenset:
    """The latest AR the controller sent the leader (in flight or applied)."""
    sent = [r[2] for r in s.in_flight if r[0] == "LeaderAndIsr"]
    return sent[-1] if sent else s.known_assignment


def _lead(s: ReassignState, broker: int) -> ReassignState:
    """``broker`` leads a new epoch; its LeaderAndIsr, sent with the election, carries the latest AR and
    supersedes the ones still in flight."""
    epoch = s.leader_epoch + 1
    return s._replace(leader=broker, leader_epoch=epoch, known_epoch=epoch, known_assignment=_sent_assignment(s),
                      in_flight=tuple(r for r in s.in_flight if r[0] != "LeaderAndIsr"))


def _isr_write_allowed(c: ReassignConstants, s: ReassignState) -> bool:
    """The leader's ISR write lands: always in the seeds' form, only from the current epoch when fenced."""
    return FENCE not in FORMS[c.Form] or s.known_epoch == s.leader_epoch


def _set_replicas(s: ReassignState, changes: dict) -> ReassignState:
    return s._replace(replicas=tuple(changes.get(b, r) for b, r in enumerate(s.replicas)))


# -- data path ------------------------------------------------------------------------------------


@action("produce")
def produce(c: ReassignConstants, s: ReassignState):
    """A producer writes the next record (acks=all) to the leader."""
    if s.leader == NONE or s.next_id >= c.Records:
        return None
    ld = s.replicas[s.leader]
    t = _set_replicas(s, {s.leader: ld._replace(log=ld.log + (s.next_id,))})._replace(next_id=s.next_id + 1)
    return acknowledge(t)


@action("follower_fetch", broker=BROKER)
def follower_fetch(c: ReassignConstants, s: ReassignState, broker: int):
    """A follower fetches: its log becomes the leader's; having reached the leader's LEO, it joins the ISR
    if it is in AR as the leader knows it (the seeds' conditions for ISR expansion)."""
    r = s.replicas[broker]
    if s.leader == NONE or broker == s.leader or not r.hosted or broker in s.down:
        return None
    log = s.replicas[s.leader].log
    joins = broker in s.known_assignment and _isr_write_allowed(c, s)
    isr = s.isr | {broker} if joins else s.isr
    if r.log == log and isr == s.isr:
        return None
    return acknowledge(_set_replicas(s, {broker: r._replace(log=log)})._replace(isr=isr))


# -- the controller's steps -----------------------------------------------------------------------


@action("add_reassigned_replicas")
def add_reassigned_replicas(c: ReassignConstants, s: ReassignState):
    """Step 1: AR := OAR + RAR in ZooKeeper, leader epoch + 1, LeaderAndIsr to AR: RAR - OAR start empty."""
    if not _at(c, s, GROW_AR):
        return None
    new = target(c, s)
    created = {b: Replica(True, ()) for b in new if not s.replicas[b].hosted and b not in s.down}
    ar = s.old_replicas | new
    t = _set_replicas(s, created)._replace(zk_assignment=ar, known_assignment=ar, leader_epoch=s.leader_epoch + 1,
                                           known_epoch=s.leader_epoch + 1)
    if PERSIST_OAR in FORMS[c.Form]:
        t = t._replace(zk_original=s.old_replicas)
    return _advance(c, t)


@action("reassigned_replicas_in_sync")
def reassigned_replicas_in_sync(c: ReassignConstants, s: ReassignState):
    """Step 2: the controller sees every replica of RAR in the ISR."""
    new = target(c, s)
    if not _at(c, s, AWAIT_ISR) or not new <= s.isr:
        return None
    return _advance(c, s)


@action("elect_leader_from_reassigned", broker=BROKER)
def elect_leader_from_reassigned(c: ReassignConstants, s: ReassignState, broker: int):
    """Step 3: the leader is not in the target (RAR, or OAR when cancelled), so a replica of the target that is
    in the ISR becomes leader (epoch + 1)."""
    new = target(c, s)
    if not _at(c, s, MOVE_LEADER) or broker not in new or broker not in s.isr or not s.replicas[broker].hosted:
        return None
    if broker in s.down:
        return None
    return _advance(c, _lead(s, broker))


@action("remove_old_replicas_from_isr")
def remove_old_replicas_from_isr(c: ReassignConstants, s: ReassignState):
    """Step 4: ISR := ISR - (OAR - RAR) in ZooKeeper; the LeaderAndIsr to the leader no longer lists them
    in AR (a removed leader: no leader)."""
    if not _at(c, s, SHRINK_ISR):
        return None
    new = target(c, s)
    if RECHECK in FORMS[c.Form] and s.leader not in new:
        return [_shrink_isr(c, _lead(s, b)) for b in sorted(new & s.isr - s.down) if s.replicas[b].hosted]
    return _shrink_isr(c, s)


def _shrink_isr(c: ReassignConstants, s: ReassignState) -> ReassignState:
    new = target(c, s)
    gone = s.old_replicas - new
    leader = NONE if s.leader in gone else s.leader
    epoch = s.leader_epoch + 1
    ar = _sent_assignment(s) - gone
    t = s._replace(isr=s.isr - gone, leader=leader, leader_epoch=epoch)
    if c.DelayedRequests and leader != NONE:
        t = t._replace(in_flight=s.in_flight + (("LeaderAndIsr", epoch, ar),))
    else:
        t = t._replace(known_assignment=ar, known_epoch=epoch)
    return _advance(c, t)


@action("stop_old_replicas")
def stop_old_replicas(c: ReassignConstants, s: ReassignState):
    """Step 5: StopReplica to OAR - RAR, which delete the partition from disk (a stopped leader: no leader)."""
    if not _at(c, s, STOP_OLD):
        return None
    new = target(c, s)
    gone = s.old_replicas - new
    if c.DelayedRequests:
        sent = tuple(("StopReplica", b) for b in sorted(gone - s.down) if ("StopReplica", b) not in s.in_flight)
        return _advance(c, s._replace(in_flight=s.in_flight + sent))
    t = _set_replicas(s, {b: Replica(False, ()) for b in gone if b not in s.down})
    t = t._replace(known_assignment=s.known_assignment - gone, leader=NONE if s.leader in gone else s.leader)
    return _advance(c, t)


@action("update_assigned_replicas")
def update_assigned_replicas(c: ReassignConstants, s: ReassignState):
    """Step 6: AR := RAR in ZooKeeper, the only persistent record of the assignment."""
    if not _at(c, s, PERSIST_AR):
        return None
    new = target(c, s)
    return _advance(c, s._replace(zk_assignment=new))


@action("complete_reassignment")
def complete_reassignment(c: ReassignConstants, s: ReassignState):
    """Step 7: delete /admin/reassign_partitions: the move is over."""
    if not _at(c, s, COMPLETE):
        return None
    return _advance(c, s._replace(reassigning=False, completed_isr=s.isr, zk_original=frozenset()))


# -- cancellation (KIP-455) ----------------------------------------------------------------------


@action("cancel_reassignment")
def cancel_reassignment(c: ReassignConstants, s: ReassignState):
    """The operator cancels the move; the controller reverts the partition to the original replicas.

    It is accepted while the controller waits for RAR to join the ISR: KIP-455
    runs phase B (the steps after the wait) in one controller event, so a
    cancellation is handled before it begins or finds the move over, and a
    controller that took over runs phase A again before it handles requests.
    The revert is the same move with OAR as the target and OAR + RAR as the
    replicas it starts from (the adding replicas RAR - OAR are the ones to
    remove), run from step 1: the leader goes back into OAR before they leave
    the ISR and are stopped, and AR := OAR is persisted last.  The revert
    target is KIP-455's persisted OAR, so only the forms that persist it can
    cancel.  The cancellation is persisted at once: the target becomes OAR and
    the persisted original replicas OAR + RAR (no replica is being added any
    more), so a controller that takes over resumes the revert, not the move.
    """
    order = ORDERS[c.Order]
    if s.cancels >= c.Cancellations or s.revert or PERSIST_OAR not in FORMS[c.Form]:
        return None
    if not (s.controller_up and s.reassigning and s.step < len(order) and order[s.step] == AWAIT_ISR
            and GROW_AR in order[: s.step]):
        return None
    oar = s.zk_original
    full = s.old_replicas | replica_sets(c)[1]
    t = s._replace(revert=oar, old_replicas=full, step=0, cancels=s.cancels + 1)
    if c.Cancel != CANCEL_KEEP_PERSISTED:
        t = t._replace(zk_original=full)
    if c.Cancel == CANCEL_REVERT_FIRST:
        adding = full - oar
        t = _set_replicas(t, {b: Replica(False, ()) for b in adding if b not in s.down})
        t = t._replace(zk_assignment=oar, known_assignment=s.known_assignment - adding, isr=s.isr - adding,
                       leader=NONE if s.leader in adding else s.leader)
    return t


# -- controller failover --------------------------------------------------------------------------


@action("controller_crash")
def controller_crash(c: ReassignConstants, s: ReassignState):
    """The controller dies mid-move, losing its in-memory progress and OAR."""
    if not s.controller_up or not s.reassigning or s.crashes >= c.ControllerCrashes:
        return None
    t = s._replace(controller_up=False, old_replicas=frozenset(), step=0, crashes=s.crashes + 1)
    return t._replace(revert=frozenset()) if c.Cancel == CANCEL_KEEP_PERSISTED else t


@action("elect_controller")
def elect_controller(c: ReassignConstants, s: ReassignState):
    """A new controller reads AR and /admin/reassign_partitions from ZooKeeper and restarts the move
    from step 1, with OAR := ZooKeeper's AR."""
    if s.controller_up:
        return None
    oar = (s.zk_original or s.zk_assignment) if s.reassigning else frozenset()
    return s._replace(controller_up=True, old_replicas=oar, step=0)


@action("reassignment_done")
def reassignment_done(c: ReassignConstants, s: ReassignState):
    """The move is complete: a stuttering step (not a deadlock)."""
    if s.reassigning:
        return None
    return s


# -- broker failures, lagging replicas, requests in flight ----------------------------------------


@action("broker_crash", broker=BROKER)
def broker_crash(c: ReassignConstants, s: ReassignState, broker: int):
    """A broker dies, its log stays on disk; requests to it are lost.  The controller takes it out of the
    ISR (unless it is the last member) and, if it led, elects a live ISR member (none: no leader)."""
    if broker in s.down or s.broker_crashes >= c.BrokerCrashes:
        return None
    isr = s.isr - {broker} if len(s.isr) > 1 else s.isr
    t = s._replace(down=s.down | {broker}, broker_crashes=s.broker_crashes + 1, isr=isr,
                   in_flight=tuple(r for r in s.in_flight if r != ("StopReplica", broker)))
    if broker != s.leader:
        if isr != s.isr and s.leader != NONE:
            t = _lead(t, s.leader)
        return acknowledge(t)
    live = sorted(b for b in isr - t.down if t.replicas[b].hosted)
    if not live:
        return t._replace(leader=NONE, in_flight=tuple(r for r in t.in_flight if r[0] != "LeaderAndIsr"))
    return [acknowledge(_lead(t, b)) for b in live]


@action("broker_restart", broker=BROKER)
def broker_restart(c: ReassignConstants, s: ReassignState, broker: int):
    """A crashed broker restarts with its log; the controller sends it the partition if AR lists it (an ISR
    member of a partition without a leader leads).  With stray deletion, a replica the metadata no
    longer assigns to it is deleted at startup; without it, the replica stays on disk."""
    if broker not in s.down:
        return None
    r = s.replicas[broker]
    assigned = broker in s.zk_assignment and broker in _sent_assignment(s)
    if r.hosted and not assigned and STRAY_DELETION in FORMS[c.Form]:
        r = Replica(False, ())
    elif not r.hosted and assigned:
        r = Replica(True, ())
    t = _set_replicas(s, {broker: r})._replace(down=s.down - {broker})
    if s.leader == NONE and broker in s.isr and r.hosted:
        t = _lead(t, broker)
    return t


@action("leader_shrinks_isr", broker=BROKER)
def leader_shrinks_isr(c: ReassignConstants, s: ReassignState, broker: int):
    """The leader drops a follower that lags (its log is shorter) from the ISR (replica.lag.time.max.ms)."""
    if s.leader == NONE or broker == s.leader or broker not in s.isr or s.isr_shrinks >= c.IsrShrinks:
        return None
    if len(s.replicas[broker].log) >= len(s.replicas[s.leader].log) or not _isr_write_allowed(c, s):
        return None
    return acknowledge(s._replace(isr=s.isr - {broker}, isr_shrinks=s.isr_shrinks + 1))


@action("deliver_leader_and_isr")
def deliver_leader_and_isr(c: ReassignConstants, s: ReassignState):
    """The oldest LeaderAndIsr in flight reaches the leader, which applies it unless its epoch is older."""
    sent = [r for r in s.in_flight if r[0] == "LeaderAndIsr"]
    if not sent:
        return None
    _, epoch, ar = sent[0]
    rest = tuple(r for r in s.in_flight if r != sent[0])
    if epoch < s.known_epoch:
        return s._replace(in_flight=rest)
    return s._replace(in_flight=rest, known_epoch=epoch, known_assignment=ar)


@action("deliver_stop_replica", broker=BROKER)
def deliver_stop_replica(c: ReassignConstants, s: ReassignState, broker: int):
    """A StopReplica in flight reaches its broker, which deletes the replica (a stopped leader: no leader).

    Once the move is cancelled, a StopReplica to a replica of OAR is stale: the revert puts that broker back
    among the replicas with a newer leader epoch, which fences it (KIP-570), so the broker drops it.
    """
    if ("StopReplica", broker) not in s.in_flight:
        return None
    if broker in s.revert:
        return s._replace(in_flight=tuple(r for r in s.in_flight if r != ("StopReplica", broker)))
    t = _set_replicas(s, {broker: Replica(False, ())})
    return t._replace(in_flight=tuple(r for r in s.in_flight if r != ("StopReplica", broker)),
                      leader=NONE if s.leader == broker else s.leader)


def _build() -> Spec:
    from modelcheck.invariants import partition_reassignment as inv

    return Spec(
        name="partition-reassignment",
        title="Partition reassignment: grow AR, grow ISR, move the leader, shrink ISR, shrink AR, persist AR last",
        constants=ReassignConstants,
        init=init,
        actions=[
            produce,
            follower_fetch,
            add_reassigned_replicas,
            reassigned_replicas_in_sync,
            elect_leader_from_reassigned,
            remove_old_replicas_from_isr,
            stop_old_replicas,
            update_assigned_replicas,
            complete_reassignment,
            cancel_reassignment,
            controller_crash,
            elect_controller,
            reassignment_done,
            broker_crash,
            broker_restart,
            leader_shrinks_isr,
            deliver_leader_and_isr,
            deliver_stop_replica,
        ],
        invariants=inv.ALL,
        sometimes=inv.SOMETIMES,
        deadlock_expected=True,
        view=view,
        lanes=lanes,
        messages=messages,
        description=__doc__,
        reference="modelcheck.specs.partition_reassignment:SPEC",
    )


SPEC = _build()
