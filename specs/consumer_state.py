"""State, constants and display of the ``consumer-offsets`` spec (one group, one partition).

Kept apart from the actions so that the invariants (``invariants/consumer_offsets.py``)
can import the state without importing the spec.

Encoding (canonical: ints, bools, tuples, frozensets only): consumers are
``0 .. Consumers-1``, shown ``c1 ..``; records are the partition's offsets
``0 .. Records-1`` (all already in the log); ``NONE = -1``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, constant

NONE = -1
"""No consumer (the partition is unassigned while the group rebalances), or no record in hand."""

POLL, PROCESS, COMMIT = 0, 1, 2
"""What a consumer's poll loop does next."""
STEP_NAMES = {POLL: "poll", PROCESS: "process", COMMIT: "commit"}

STABLE, PREPARING_REBALANCE = 0, 1
"""The group coordinator's states that matter here (the seeds' Stable and PreparingRebalance)."""
GROUP_STATE_NAMES = {STABLE: "Stable", PREPARING_REBALANCE: "PreparingRebalance"}

COMMIT_RULES = ("after-processing", "before-processing")


@attrs.frozen
class ConsumerConstants:
    """When the application commits, and the bounds.

    The default is the seeds' rule: a consumer commits only offsets of records
    it has already processed.
    """

    Commit: str = constant(
        "after-processing",
        "when the application commits the position: after-processing (the seeds' rule: at-least-once) or "
        "before-processing (at-most-once)",
        choices=COMMIT_RULES,
    )
    Records: int = constant(2, "records in the partition, all written before the group starts", minimum=1, maximum=4)
    Consumers: int = constant(2, "members of the consumer group (c1 owns the partition first)", minimum=1, maximum=3)
    Crashes: int = constant(1, "consumer crashes in one run (each one makes the group rebalance)", minimum=0, maximum=3)


class Consumer(NamedTuple):
    """One group member's poll loop."""

    alive: bool
    position: int
    """The fetch position: the offset its next poll returns (meaningful while it owns the partition)."""
    in_hand: int
    """The offset it polled and has not processed yet, or NONE.  Lost in a crash."""
    step: int
    """POLL, PROCESS or COMMIT: the next thing its loop does."""


class GroupState(NamedTuple):
    """The group (coordinator and its committed offset), its members, and what the application did."""

    consumers: tuple
    group_state: int
    """STABLE, or PREPARING_REBALANCE after a member left (the owner finishes its loop, then everyone rejoins)."""
    owner: int
    """The member the partition is assigned to in this generation (NONE once it left the group)."""
    generation: int
    committed: int
    """The group's committed offset for the partition (in __consumer_offsets): where a new owner starts."""
    processed: tuple
    """Per record: how many times the application processed it (counted up to 2)."""
    crashes: int


def consumer_name(i: int) -> str:
    """``c1`` for consumer 0."""
    return "-" if i == NONE else f"c{i + 1}"


CONSUMER = Domain("consumer", lambda c: range(c.Consumers), consumer_name)


def set_consumer(s: GroupState, i: int, con: Consumer) -> GroupState:
    """``s`` with consumer ``i`` replaced."""
    return s._replace(consumers=s.consumers[:i] + (con,) + s.consumers[i + 1:])


def init(c: ConsumerConstants):
    """The group is Stable in generation 1 with c1 owning the partition from offset 0; nothing committed or processed."""
    yield GroupState(
        consumers=tuple(Consumer(True, 0, NONE, POLL) for _ in range(c.Consumers)),
        group_state=STABLE,
        owner=0,
        generation=1,
        committed=0,
        processed=(0,) * c.Records,
        crashes=0,
    )


def view(c: ConsumerConstants, s: GroupState) -> dict[str, Any]:
    """Every variable by name: the members, the coordinator, and what the application processed."""
    members = {}
    for i, con in enumerate(s.consumers):
        members[consumer_name(i)] = {
            "alive": con.alive,
            "position": con.position,
            "inHand": "-" if con.in_hand == NONE else f"offset {con.in_hand}",
            "next": STEP_NAMES[con.step] if con.alive else "-",
        }
    return {
        "consumers": members,
        "group": {
            "state": GROUP_STATE_NAMES[s.group_state],
            "generation": s.generation,
            "owner": consumer_name(s.owner),
            "committedOffset": s.committed,
        },
        "processed": {f"offset {o}": n for o, n in enumerate(s.processed)},
        "crashes": s.crashes,
    }


def lanes(c: ConsumerConstants, s: GroupState) -> dict[str, dict[str, Any]]:
    """One lane per record: below the committed offset or not, who holds it, how often it was processed."""
    holders = {con.in_hand: i for i, con in enumerate(s.consumers) if con.alive and con.in_hand != NONE}
    out = {}
    for o in range(c.Records):
        out[f"offset {o}"] = {
            "committed": o < s.committed,
            "in hand of": consumer_name(holders.get(o, NONE)),
            "processed": s.processed[o],
        }
    return out
