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
protocol; only a crash interrupts an iteration.

Runs end when every record was polled or no consumer is left; states without
successors are expected.
"""

from __future__ import annotations

from modelcheck import Spec, action
from modelcheck.specs.consumer_state import (
    COMMIT,
    CONSUMER,
    NONE,
    POLL,
    PREPARING_REBALANCE,
    PROCESS,
    STABLE,
    ConsumerConstants,
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
    if s.group_state != STABLE or s.owner != consumer or not con.alive or con.step != POLL:
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
    """The consumer commits its position (commitSync) to the group coordinator."""
    con = s.consumers[consumer]
    if not con.alive or con.step != COMMIT:
        return None
    nxt = POLL if _after(c) else PROCESS
    return set_consumer(s, consumer, con._replace(step=nxt))._replace(committed=con.position)


@action("crash", consumer=CONSUMER)
def crash(c: ConsumerConstants, s: GroupState, consumer: int):
    """A consumer process dies; after session.timeout.ms the coordinator removes it and starts a rebalance."""
    con = s.consumers[consumer]
    if not con.alive or s.crashes >= c.Crashes:
        return None
    t = set_consumer(s, consumer, con._replace(alive=False, in_hand=NONE, step=POLL))
    return t._replace(
        group_state=PREPARING_REBALANCE,
        owner=NONE if s.owner == consumer else s.owner,
        crashes=s.crashes + 1,
    )


@action("complete_rebalance", consumer=CONSUMER)
def complete_rebalance(c: ConsumerConstants, s: GroupState, consumer: int):
    """Every live member has rejoined; the leader assigns the partition to ``consumer``, which fetches the committed offset."""
    if s.group_state != PREPARING_REBALANCE or not s.consumers[consumer].alive:
        return None
    if any(con.alive and con.step != POLL for con in s.consumers):
        return None  # the owner first finishes its loop iteration (it rejoins in its next poll)
    t = set_consumer(s, consumer, s.consumers[consumer]._replace(position=s.committed))
    return t._replace(group_state=STABLE, owner=consumer, generation=s.generation + 1)


def _build() -> Spec:
    from modelcheck.invariants import consumer_offsets as inv

    return Spec(
        name="consumer-offsets",
        title="Consumer offset commits: at-least-once after processing, at-most-once before",
        constants=ConsumerConstants,
        init=init,
        actions=[poll, process_record, commit_offset, crash, complete_rebalance],
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
