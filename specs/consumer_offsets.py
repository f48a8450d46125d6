"""Consumer offset commits: at-least-once when committing after processing, at-most-once before.

The seed notes on consumers say: a partition is consumed by one member of the
group at a time; the group's progress is the committed offset per (group,
topic, partition), kept in ``__consumer_offsets``; a rebalance (a member
joins, leaves or is declared dead after ``session.timeout.ms``) hands the
partition to a member, which resumes from the committed offset; and a
consumer commits only offsets of records it has already processed, so that
no record is lost.  That gives at-least-once: a crash between processing and
committing makes the next owner process the records again.  Committing
before processing gives at-most-once: a crash between the commit and the
processing loses the records.

This spec (registered as ``consumer-offsets``) follows one partition through
its owners' poll loops (``poll``, ``process_record``, ``commit_offset`` in
the order ``Commit`` says), consumer crashes (``crash``: the coordinator
declares the member dead and the group goes to PreparingRebalance) and the
rebalance (``complete_rebalance``: once every live member is back at its
poll, the partition is assigned to one of them, which fetches the committed
offset).  The owner of a rebalancing group finishes the loop iteration it is
in (processing and committing) before it rejoins, as in the seeds' poll-based
protocol; only a crash interrupts an iteration, or, with ``Evictions`` > 0, an
eviction (``evict``: a live member slow in its iteration is removed by the
coordinator and the group rebalances without it, while it still holds its
record; ``rejoin``: back at its poll, it joins again).  With ``Fencing`` the
coordinator refuses a commit from a consumer that is not a member of the
current generation, as Kafka's does.  With ``CommitFailures`` > 0 a commit may
fail because a rebalance starts (``commit_fails``): the consumer learns it,
so it neither moves the committed offset nor believes it did.

Runs end when every record was polled or no consumer is left; states without
successors are expected.
"""

from __future__ import annotations

from modelcheck import Spec, action
from modelcheck.specs.consumer_state import (
    COMMIT,
    COMMITTER,
    CONSUMER,
    EVICTABLE,
    NONE,
    POLL,
    PREPARING_REBALANCE,
    PROCESS,
    STABLE,
    ConsumerConstants,
    accepts_commit,
    GroupState,
    init,
    lanes,
    messages,
    set_consumer,
    view,
)


def _after(c: ConsumerConstants) -> bool:
    return c.Commit == "after-processing"


@action("poll", consumer=CONSUMER)
def poll(c: ConsumerConstants, s: GroupState, consumer: int):
    """The owner polls the next record; its position moves past it (max.poll.records = 1)."""
    con = s.consumers[consumer]
    if s.group_state != STABLE or s.owner != consumer or not con.alive or con.step != POLL or not con.member:
        return None
    if con.position >= c.Records:
        return None
    nxt = PROCESS if _after(c) else COMMIT
    return set_consumer(s, consumer, con._replace(in_hand=con.position, position=con.position + 1, step=nxt))


@action("process_record", consumer=CONSUMER)
def process_record(c: ConsumerConstants, s: GroupState, consumer: int):
    """The application processes the record in hand (its effect, say a database write, is done)."""
    con = s.consumers[consumer]
    if not con.alive or con.step != PROCESS:
        return None
    off = con.in_hand
    processed = s.processed[:off] + (min(2, s.processed[off] + 1),) + s.processed[off + 1:]
    nxt = COMMIT if _after(c) else POLL
    return set_consumer(s, consumer, con._replace(in_hand=NONE, step=nxt))._replace(processed=processed)


@action("commit_offset", consumer=CONSUMER)
def commit_offset(c: ConsumerConstants, s: GroupState, consumer: int):
    """The consumer commits its position (commitSync) with its generation to the group coordinator.

    With ``Fencing``, the coordinator refuses a commit from a consumer that is
    not a member of the current generation (evicted): commitSync throws
    CommitFailedException, and the application drops what it holds (with
    before-processing, the record it has not processed) and goes back to its
    poll, where it rejoins.
    """
    con = s.consumers[consumer]
    if not con.alive or con.step != COMMIT:
        return None
    if not accepts_commit(c, s, con):
        return set_consumer(s, consumer, con._replace(in_hand=NONE, step=POLL))
    nxt = POLL if _after(c) else PROCESS
    return set_consumer(s, consumer, con._replace(step=nxt))._replace(committed=con.position,
                                                                      highest=max(s.highest, con.position))


@action("commit_fails", consumer=COMMITTER)
def commit_fails(c: ConsumerConstants, s: GroupState, consumer: int):
    """The owner's commit fails: a rebalance starts (another member joins) and the coordinator answers
    REBALANCE_IN_PROGRESS.  commitSync throws, so the consumer knows nothing was committed: it drops what it
    holds (with before-processing, a record it may not process uncommitted) and goes back to its poll to rejoin."""
    con = s.consumers[consumer]
    if s.commit_failures >= c.CommitFailures or not con.alive or con.step != COMMIT or not accepts_commit(c, s, con):
        return None
    t = set_consumer(s, consumer, con._replace(in_hand=NONE, step=POLL))
    return t._replace(group_state=PREPARING_REBALANCE, commit_failures=s.commit_failures + 1)


@action("crash", consumer=CONSUMER)
def crash(c: ConsumerConstants, s: GroupState, consumer: int):
    """A consumer process dies; after session.timeout.ms the coordinator removes it and starts a rebalance
    (a consumer that was evicted is no member: nothing changes for the group)."""
    con = s.consumers[consumer]
    if not con.alive or s.crashes >= c.Crashes:
        return None
    t = set_consumer(s, consumer, con._replace(alive=False, in_hand=NONE, step=POLL, member=False, generation=0))
    if not con.member:
        return t._replace(crashes=s.crashes + 1)
    return t._replace(
        group_state=PREPARING_REBALANCE,
        owner=NONE if s.owner == consumer else s.owner,
        crashes=s.crashes + 1,
    )


@action("evict", consumer=EVICTABLE)
def evict(c: ConsumerConstants, s: GroupState, consumer: int):
    """A live member is slow in its loop iteration (processing or committing): its session (or
    max.poll.interval.ms) runs out, the coordinator removes it and starts a rebalance.  The consumer does not
    know: it goes on with the record in hand."""
    con = s.consumers[consumer]
    if s.evictions >= c.Evictions or not con.alive or not con.member or con.step == POLL:
        return None
    t = set_consumer(s, consumer, con._replace(member=False))
    return t._replace(
        group_state=PREPARING_REBALANCE,
        owner=NONE if s.owner == consumer else s.owner,
        evictions=s.evictions + 1,
    )


@action("rejoin", consumer=EVICTABLE)
def rejoin(c: ConsumerConstants, s: GroupState, consumer: int):
    """An evicted consumer, back at its poll, learns it is out of the group and sends JoinGroup: the group
    rebalances (it joins the next generation when the rebalance completes)."""
    con = s.consumers[consumer]
    if con.member or not con.alive or con.step != POLL:
        return None
    return set_consumer(s, consumer, con._replace(member=True))._replace(group_state=PREPARING_REBALANCE)


@action("complete_rebalance", consumer=CONSUMER)
def complete_rebalance(c: ConsumerConstants, s: GroupState, consumer: int):
    """Every live member has rejoined; the leader assigns the partition to ``consumer``, which fetches the committed offset
    (with cooperative rebalancing, unless it owned the partition already and keeps it).

    An evicted consumer is not waited for: the partition may move while it still processes a record.
    """
    target = s.consumers[consumer]
    if s.group_state != PREPARING_REBALANCE or not target.alive or not target.member:
        return None
    if any(con.alive and con.member and con.step != POLL for con in s.consumers):
        return None  # the owner first finishes its loop iteration (it rejoins in its next poll)
    gen = s.generation + 1
    consumers = tuple(con._replace(generation=gen) if con.alive and con.member else con for con in s.consumers)
    keeps = c.Rebalance == "cooperative" and s.owner == consumer  # not revoked: it goes on from its position
    position = consumers[consumer].position if keeps else s.committed
    t = set_consumer(s._replace(consumers=consumers), consumer, consumers[consumer]._replace(position=position))
    return t._replace(group_state=STABLE, owner=consumer, generation=gen)


def _build() -> Spec:
    from modelcheck.invariants import consumer_offsets as inv

    return Spec(
        name="consumer-offsets",
        title="Consumer offset commits: at-least-once after processing, at-most-once before",
        constants=ConsumerConstants,
        init=init,
        actions=[poll, process_record, commit_offset, commit_fails, crash, evict, rejoin, complete_rebalance],
        invariants=inv.ALL,
        sometimes=inv.SOMETIMES,
        deadlock_expected=True,
        view=view,
        lanes=lanes,
        messages=messages,
        description=__doc__,
        reference="modelcheck.specs.consumer_offsets:SPEC",
    )


SPEC = _build()
