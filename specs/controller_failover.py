"""Controller failover with imperfect failure detection, and the checks that fence a zombie controller.

The seed notes on the controller say: every broker watches the ephemeral
/controller node; when the controller fails the node disappears, the live
brokers race to create it, and ZooKeeper lets exactly one win.  The winner
reads and increments the controller epoch, loads its context (live brokers,
each partition's leader and ISR) from ZooKeeper and sends the leadership to
every live broker.  On a broker failure the controller (3.1) reads the
partition's ISR from ZooKeeper, (3.2) picks a live ISR member as leader and
the surviving ISR members as the new ISR, (3.3) writes leader, ISR, a new
leader epoch and its controller epoch to the partition's state znode, only
if the controller version has not changed since 3.1, and (4) sends
LeaderAndIsr to the brokers.  A broker rejects a LeaderAndIsr whose
controller epoch is older than the newest it has seen (StaleControllerEpoch),
and, per partition, one whose leader epoch is not newer than its own
(StaleLeaderEpoch).

The story this spec (registered as ``controller-failover``) is about: a
broker whose ZooKeeper session expires (a long GC pause, say) loses its
ephemeral nodes but has not noticed.  Failure detection is not perfect:
a controller that lost /controller still acts as controller, a zombie; a
leader the controller took for dead still acts as leader.  So two brokers
may act as leader at once, in different leader epochs (OneLeaderPerPartition
is not what Kafka promises).  What Kafka promises is one leader per leader
epoch, that acknowledged writes survive, and that the brokers act on the
controller's metadata, which a zombie does not overwrite (the invariants and
step properties in ``invariants/controller_failover.py``).
``PartitionWrite`` selects how ZooKeeper guards a controller's write of the
partition state: ``zk-version``, Kafka before 2.2 (the write is conditional
on the znode's zkVersion read at 3.1, and a controller that reads a state
written by a newer controller aborts), the baseline without the fix;
``controller-epoch``, the fix (the same write in a multi-op that also checks
/controller_epoch); and the strawman ``unconditional``, kept because it is
the only variant that breaks OneLeaderPerEpoch and AckedWritesSurvive (the
README's and the known trace's counterexamples).
``StaleControllerEpochCheck`` is the brokers' check.  Without a guard the
zombie's election and the new controller's both install leader epoch 1, and
each broker takes whichever LeaderAndIsr reaches it first.  With the zkVersion
guard alone a zombie's write still goes through when nobody wrote since its
read: ZooKeeper then holds the zombie's decision (ZombieWritesRefused), and
the brokers' check makes them refuse it, so ZooKeeper names a leader that
does not lead (BrokersFollowZooKeeper); without the check they act on the
zombie's request (ZombieRequestsRejected).  The multi-op is what fences the
zombie; once it is in place the brokers' check changes nothing.

Modelled: broker crashes (``crash``: the broker stays down; the controller's
/brokers/ids watch fires), session expiries of any live broker
(``expire_session``) and a zombie controller noticing (``resign_controller``),
the race for /controller (``elect_controller``),
the election steps 3.1 (``read_partition_state``) and 3.2 to 4
(``elect_leader``, or ``abort_election`` when ZooKeeper refuses the write),
LeaderAndIsr handling (``handle_leader_and_isr``), and just enough
replication for acks=all: ``produce`` at a broker acting as leader,
``follower_fetch`` (the follower's log becomes the leader's: truncation and
catch-up in one step; the details are ``broker-failures``' subject).
Clean election only (no live ISR member: no leader).  Not modelled: broker
restarts (a restarted broker forgets the controller epoch it saw, and a
stale request still queued for it is a separate story), the leader's own
ISR updates, and the controller noticing a broker re-register.

Failures are bounded, so runs end; states without successors are expected.
"""

from __future__ import annotations

from modelcheck import Spec, action
from modelcheck.specs.controller_state import (
    BROKER,
    CONTROLLER,
    NEW_LEADER,
    NONE,
    SENDER,
    ClusterState,
    ControllerConstants,
    LeaderAndIsr,
    PartitionState,
    acts_as_leader,
    election_reasons,
    init,
    lanes,
    messages,
    needs_election,
    set_broker,
    view,
)


def _common_prefix(a: tuple, b: tuple) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def acknowledge(s: ClusterState, leader: int) -> ClusterState:
    """acks=all: the leader acknowledges the records every member of its ISR holds (its high watermark)."""
    ld = s.brokers[leader]
    hw = min(_common_prefix(ld.log, s.brokers[m].log) for m in ld.isr) if ld.isr else 0
    done = frozenset(ld.log[:hw])
    return s if done <= s.acked else s._replace(acked=s.acked | done)


def _send(sender: int, epoch: int, dests, p: PartitionState) -> frozenset:
    return frozenset(LeaderAndIsr(sender, d, epoch, p.leader, p.leader_epoch, p.isr) for d in dests)


# -- failures ----------------------------------------------------------------------------------


@action("crash", broker=BROKER)
def crash(c: ControllerConstants, s: ClusterState, broker: int):
    """A broker dies and stays down; its /brokers/ids node vanishes and the controller's watch fires."""
    b = s.brokers[broker]
    if not b.alive or s.crashes >= c.Crashes:
        return None
    t = set_broker(s, broker, b._replace(alive=False, controller_epoch=0, live_brokers=frozenset(), pending=()))
    t = t._replace(crashes=s.crashes + 1, requests=frozenset(r for r in s.requests if r.dest != broker))
    if s.zk_controller == broker:
        return t._replace(zk_controller=NONE)  # the ephemeral /controller node goes with the session
    if s.zk_controller != NONE:
        ctl = t.brokers[s.zk_controller]
        t = set_broker(t, s.zk_controller, ctl._replace(live_brokers=ctl.live_brokers - {broker}))
    return t


@action("expire_session", broker=BROKER)
def expire_session(c: ControllerConstants, s: ClusterState, broker: int):
    """A live broker's ZooKeeper session expires (a long GC pause, a network blip) and its ephemeral nodes go.

    Failure detection is not perfect: the broker is up and has not noticed.
    If it held /controller, /controller is deleted and it goes on acting as
    controller, a zombie.  Otherwise the controller's /brokers/ids watch fires
    and it handles the broker as failed, while the broker goes on acting as
    leader if it was one.  Its client reconnects with a new session and
    re-registers at once, so its writes go through and a later controller
    counts it live; the controller that saw it leave does not see it return
    (so it sends it nothing more).
    """
    if not s.brokers[broker].alive or s.expiries >= c.SessionExpiries:
        return None
    t = s._replace(expiries=s.expiries + 1)
    if s.zk_controller == broker:
        return t._replace(zk_controller=NONE)
    if s.zk_controller != NONE:
        ctl = t.brokers[s.zk_controller]
        t = set_broker(t, s.zk_controller, ctl._replace(live_brokers=ctl.live_brokers - {broker}))
    return t


@action("resign_controller", broker=BROKER)
def resign_controller(c: ControllerConstants, s: ClusterState, broker: int):
    """The zombie processes its session expiry and stops acting as controller."""
    b = s.brokers[broker]
    if not b.alive or b.controller_epoch == 0 or s.zk_controller == broker:
        return None
    return set_broker(s, broker, b._replace(controller_epoch=0, live_brokers=frozenset(), pending=()))


# -- controller failover -------------------------------------------------------------------------


@action("elect_controller", broker=BROKER)
def elect_controller(c: ControllerConstants, s: ClusterState, broker: int):
    """``broker`` wins the race for /controller: it bumps /controller_epoch, loads its context from
    ZooKeeper and sends the partition's leadership to every live broker."""
    b = s.brokers[broker]
    if s.zk_controller != NONE or not b.alive or b.controller_epoch != 0:
        return None
    epoch = s.zk_controller_epoch + 1
    live = frozenset(i for i, x in enumerate(s.brokers) if x.alive)
    p = s.zk_partition
    pending = p if needs_election(p, live) else ()
    t = set_broker(s, broker, b._replace(controller_epoch=epoch, live_brokers=live, pending=pending))
    return t._replace(zk_controller=broker, zk_controller_epoch=epoch, requests=t.requests | _send(broker, epoch, live, p))


# -- leader election (the seeds' steps 3.1 to 4) -------------------------------------------------


def _reads_newer_state(c: ControllerConstants, p: PartitionState, epoch: int) -> bool:
    """Kafka's check after each read of the partition state: a state written by a newer controller means
    this one went through a soft failure, and it aborts (not made by the strawman ``unconditional``)."""
    return c.PartitionWrite != "unconditional" and p.controller_epoch > epoch


@action("read_partition_state", controller=CONTROLLER)
def read_partition_state(c: ControllerConstants, s: ClusterState, controller: int):
    """Step 3.1: a controller that saw a broker fail reads the partition's leader and ISR from ZooKeeper."""
    b = s.brokers[controller]
    if not b.alive or b.controller_epoch == 0 or b.pending:
        return None
    if _reads_newer_state(c, s.zk_partition, b.controller_epoch):
        return None
    reasons = election_reasons(s.zk_partition, b.live_brokers)
    if not reasons:
        return None
    t = set_broker(s, controller, b._replace(pending=s.zk_partition))
    return [t] * reasons  # one successor per satisfied disjunct, as TLC counts them


def write_refusal(c: ControllerConstants, s: ClusterState, controller: int) -> str | None:
    """Why ZooKeeper refuses ``controller``'s write of the partition state it read, or None if it accepts it.

    ``zk-version``: the znode changed since the read (every write bumps the
    leader epoch, so a changed value stands for a changed zkVersion).
    ``controller-epoch`` adds, in the same multi-op, /controller_epoch still
    being the writer's.
    """
    b = s.brokers[controller]
    if c.PartitionWrite == "controller-epoch" and s.zk_controller_epoch != b.controller_epoch:
        return "controller-epoch"
    if c.PartitionWrite != "unconditional" and s.zk_partition != b.pending:
        return "zk-version"
    return None


@action("elect_leader", controller=CONTROLLER, leader=NEW_LEADER)
def elect_leader(c: ControllerConstants, s: ClusterState, controller: int, leader: int):
    """Steps 3.2 to 4: keep a live leader or pick a live ISR member, shrink the ISR to the live members,
    write leader, ISR, leader epoch + 1 and the controller epoch to ZooKeeper, send LeaderAndIsr.

    The write happens only if ZooKeeper accepts it (``PartitionWrite``).
    """
    b = s.brokers[controller]
    if not b.alive or not b.pending or write_refusal(c, s, controller) is not None:
        return None
    p = b.pending
    live = b.live_brokers
    isr = p.isr & live or p.isr
    if p.leader != NONE and p.leader in live:
        allowed = leader == p.leader
    elif isr & live:
        allowed = leader in isr and leader in live
    else:
        allowed = leader == NONE
    if not allowed:
        return None
    new = PartitionState(leader, p.leader_epoch + 1, isr, b.controller_epoch)
    t = set_broker(s, controller, b._replace(pending=()))
    return t._replace(zk_partition=new, requests=t.requests | _send(controller, b.controller_epoch, live, new))


@action("abort_election", controller=CONTROLLER)
def abort_election(c: ControllerConstants, s: ClusterState, controller: int):
    """ZooKeeper refused the write.  /controller_epoch changed (``controller-epoch``): a newer controller
    exists, and this one resigns.  The zkVersion changed: like Kafka's retry loop, it reads the state again
    and elects on that, unless a newer controller wrote it or no election is needed any more."""
    b = s.brokers[controller]
    if not b.alive or not b.pending:
        return None
    why = write_refusal(c, s, controller)
    if why is None:
        return None
    if why == "controller-epoch":
        return set_broker(s, controller, b._replace(controller_epoch=0, live_brokers=frozenset(), pending=()))
    p = s.zk_partition
    retry = not _reads_newer_state(c, p, b.controller_epoch) and needs_election(p, b.live_brokers)
    return set_broker(s, controller, b._replace(pending=p if retry else ()))


# -- brokers -------------------------------------------------------------------------------------


def _age(r: LeaderAndIsr) -> tuple:
    """Which of a channel's requests is older: by leader epoch, then controller epoch, then the rest.

    A total order on the request's value: ``requests`` is a frozenset, and
    the first of two requests with the same leader epoch in its iteration
    order would depend on how the set was built, not on the state.
    """
    return (r.leader_epoch, r.controller_epoch, r.leader, tuple(sorted(r.isr)))


@action("handle_leader_and_isr", broker=BROKER, sender=SENDER)
def handle_leader_and_isr(c: ControllerConstants, s: ClusterState, broker: int, sender: int):
    """The broker handles the oldest LeaderAndIsr from ``sender``: StaleControllerEpoch (if checked),
    StaleLeaderEpoch, or it becomes leader or follower as the request says."""
    b = s.brokers[broker]
    if not b.alive:
        return None
    channel = [r for r in s.requests if r.sender == sender and r.dest == broker]
    if not channel:
        return None
    req = min(channel, key=_age)
    t = s._replace(requests=s.requests - {req})
    if c.StaleControllerEpochCheck and req.controller_epoch < b.seen_controller_epoch:
        return t  # StaleControllerEpoch
    b = b._replace(seen_controller_epoch=max(b.seen_controller_epoch, req.controller_epoch))
    if req.leader_epoch > b.leader_epoch:
        b = b._replace(leader_epoch=req.leader_epoch, leader=req.leader, isr=req.isr)
    return set_broker(t, broker, b)


@action("produce", broker=BROKER)
def produce(c: ControllerConstants, s: ClusterState, broker: int):
    """A producer writes the next record (acks=all) to a broker acting as leader."""
    if s.next_id >= c.Records or not acts_as_leader(s, broker):
        return None
    b = s.brokers[broker]
    t = set_broker(s, broker, b._replace(log=b.log + (s.next_id,)))._replace(next_id=s.next_id + 1)
    return acknowledge(t, broker)


@action("follower_fetch", broker=BROKER)
def follower_fetch(c: ControllerConstants, s: ClusterState, broker: int):
    """A follower fetches from the leader it was told of, if that broker acts as leader: its log becomes the leader's."""
    b = s.brokers[broker]
    lead = b.leader
    if not b.alive or lead == NONE or lead == broker or not acts_as_leader(s, lead):
        return None
    log = s.brokers[lead].log
    if b.log == log:
        return None
    return acknowledge(set_broker(s, broker, b._replace(log=log)), lead)


def _build() -> Spec:
    from modelcheck.invariants import controller_failover as inv

    return Spec(
        name="controller-failover",
        title="Controller failover: zombie controllers and leaders, and what fences them",
        constants=ControllerConstants,
        init=init,
        actions=[
            crash,
            expire_session,
            resign_controller,
            elect_controller,
            read_partition_state,
            elect_leader,
            abort_election,
            handle_leader_and_isr,
            produce,
            follower_fetch,
        ],
        invariants=inv.ALL,
        default_invariants=inv.DEFAULT,
        sometimes=inv.SOMETIMES,
        properties=inv.PROPERTIES,
        deadlock_expected=True,
        view=view,
        lanes=lanes,
        messages=messages,
        description=__doc__,
        reference="modelcheck.specs.controller_failover:SPEC",
    )


SPEC = _build()
