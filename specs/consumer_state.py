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
from modelcheck.specs.message_events import exchange, send

NONE = -1
"""No consumer (the partition is unassigned while the group rebalances), or no record in hand."""

POLL, PROCESS, COMMIT = 0, 1, 2
"""What a consumer's poll loop does next."""
STEP_NAMES = {POLL: "poll", PROCESS: "process", COMMIT: "commit"}

STABLE, PREPARING_REBALANCE = 0, 1
"""The group coordinator's states that matter here (the seeds' Stable and PreparingRebalance)."""
GROUP_STATE_NAMES = {STABLE: "Stable", PREPARING_REBALANCE: "PreparingRebalance"}

COMMIT_RULES = ("after-processing", "before-processing")
REBALANCE_PROTOCOLS = ("eager", "cooperative")


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
    Evictions: int = constant(
        0,
        "evictions in one run of a live member that is slow in its loop iteration (its session or "
        "max.poll.interval.ms runs out while it processes or commits): the group rebalances without waiting for it",
        minimum=0, maximum=2)
    CommitFailures: int = constant(
        0,
        "commits in one run that fail because a rebalance starts (another member joins: REBALANCE_IN_PROGRESS); the "
        "consumer learns it, goes back to its poll and rejoins", minimum=0, maximum=2)
    Rebalance: str = constant(
        "eager",
        "eager: a rebalance revokes the partition and the owner it is assigned to fetches the committed offset, "
        "even its previous owner; cooperative (KIP-429): a member that keeps it keeps its position",
        choices=REBALANCE_PROTOCOLS)
    Fencing: bool = constant(
        True,
        "the coordinator rejects an OffsetCommit from a consumer that is not a member of the group's current "
        "generation (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION), as Kafka's does; false accepts every commit")


class Consumer(NamedTuple):
    """One group member's poll loop."""

    alive: bool
    position: int
    """The fetch position: the offset its next poll returns (meaningful while it owns the partition)."""
    in_hand: int
    """The offset it polled and has not processed yet, or NONE.  Lost in a crash."""
    step: int
    """POLL, PROCESS or COMMIT: the next thing its loop does."""
    member: bool
    """Whether the coordinator counts it a member of the group (false once it crashed or was evicted, until it rejoins)."""
    generation: int
    """The group generation it last joined (what its OffsetCommits carry); 0 once it crashed."""


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
    evictions: int
    """Evictions of a live member so far (bounded by ``Evictions``)."""
    highest: int
    """A history variable: the highest offset ever committed (the committed offset goes back when it is lower)."""
    commit_failures: int = 0
    """Commits refused so far because a rebalance started (bounded by ``CommitFailures``)."""


def consumer_name(i: int) -> str:
    """``c1`` for consumer 0."""
    return "-" if i == NONE else f"c{i + 1}"


CONSUMER = Domain("consumer", lambda c: range(c.Consumers), consumer_name)
EVICTABLE = Domain("consumer", lambda c: range(c.Consumers if c.Evictions else 0), consumer_name)
"""The consumers, where a consumer can be evicted (``Evictions`` > 0); none otherwise, so that ``evict`` and
``rejoin`` have no parameter value and are not reported as never enabled."""
COMMITTER = Domain("consumer", lambda c: range(c.Consumers if c.CommitFailures else 0), consumer_name)
"""The consumers, where a commit can fail (``CommitFailures`` > 0); none otherwise, as for ``EVICTABLE``."""


def set_consumer(s: GroupState, i: int, con: Consumer) -> GroupState:
    """``s`` with consumer ``i`` replaced."""
    return s._replace(consumers=s.consumers[:i] + (con,) + s.consumers[i + 1:])


def init(c: ConsumerConstants):
    """The group is Stable in generation 1 with c1 owning the partition from offset 0; nothing committed or processed."""
    yield GroupState(
        consumers=tuple(Consumer(True, 0, NONE, POLL, True, 1) for _ in range(c.Consumers)),
        group_state=STABLE,
        owner=0,
        generation=1,
        committed=0,
        processed=(0,) * c.Records,
        crashes=0,
        evictions=0,
        highest=0,
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
        if c.Evictions:  # shown only where a live consumer can be out of the group
            members[consumer_name(i)]["member"] = con.member
            members[consumer_name(i)]["generation"] = con.generation
    out = {
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
    if c.CommitFailures:
        out["commitFailures"] = s.commit_failures
    if c.Evictions:
        out["evictions"] = s.evictions
        out["group"]["highestCommitted"] = s.highest
    return out


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


BROKER = "broker"
"""The partition leader's actor name in sequence diagrams (the consumers fetch from it)."""
COORDINATOR = "coordinator"
"""The group coordinator's actor name (commits, offset fetches, rebalances)."""


def _rejoin(i: int) -> str:
    """The rebalance notice on its way to member ``i``: at most one per member while the group rebalances."""
    return f"rebalance to {consumer_name(i)}"


def _leave_events(s: GroupState, who: int, why: str) -> list[dict]:
    """The coordinator removes a member (crashed, or evicted while slow) and tells the other members to rejoin
    (the first departure of a rebalance); a notice on its way to the member that left is lost.  A consumer
    that is no longer a member leaves nothing to tell."""
    if not s.consumers[who].member:
        return []
    if s.group_state != STABLE:
        return [{"drop": _rejoin(who), "why": f"{consumer_name(who)} {why}"}]
    return [send(_rejoin(i), COORDINATOR, consumer_name(i), f"REBALANCE_IN_PROGRESS ({consumer_name(who)} left): "
                 "rejoin", "Rebalance", delivered=False)
            for i, con in enumerate(s.consumers) if con.alive and con.member and i != who]


def _crash_events(s: GroupState, who: int) -> list[dict]:
    """The coordinator declares the member dead and tells the others to rejoin (the first crash of a rebalance);
    a notice on its way to the member that crashed is lost."""
    return _leave_events(s, who, "crashed")


def _rejoin_events(s: GroupState, who: int) -> list[dict]:
    """An evicted consumer's JoinGroup: the coordinator holds it until the rebalance completes, and (if the
    group was Stable) tells the members to rejoin."""
    name = consumer_name(who)
    out = [send(_rejoin(who), name, COORDINATOR, "JoinGroup (after its eviction)", "Rebalance", delivered=False)]
    if s.group_state == STABLE:
        out += [send(_rejoin(i), COORDINATOR, consumer_name(i), f"REBALANCE_IN_PROGRESS ({name} joins): rejoin",
                     "Rebalance", delivered=False)
                for i, con in enumerate(s.consumers) if con.alive and con.member and i != who]
    return out


def _rebalance_events(s: GroupState, t: GroupState, who: int) -> list[dict]:
    """Every live member rejoins and learns the new generation's assignment; the new owner fetches the
    committed offset it starts from."""
    out: list[dict] = []
    for i, con in enumerate(s.consumers):
        if not con.alive or not con.member:
            continue
        name = consumer_name(i)
        what = "the partition" if i == who else "nothing"
        out.append({"receive": _rejoin(i)})
        out += exchange(f"JoinGroup {name}", name, COORDINATOR, "JoinGroup, SyncGroup",
                        f"generation {t.generation}: {what}", "Rebalance")
    name = consumer_name(who)
    return out + exchange(f"OffsetFetch {name}", name, COORDINATOR, "OffsetFetch",
                          f"committed offset {s.committed}", "OffsetCommit")


def accepts_commit(c: ConsumerConstants, s: GroupState, con: Consumer) -> bool:
    """Whether the coordinator applies ``con``'s OffsetCommit: always without ``Fencing``; with it, only from a
    member of the current generation (Kafka's coordinator answers UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION)."""
    return not c.Fencing or (con.member and con.generation == s.generation)


def _refusal(s: GroupState, con: Consumer) -> str:
    return "UNKNOWN_MEMBER_ID" if not con.member else f"ILLEGAL_GENERATION (group is in {s.generation})"


def messages(c: ConsumerConstants, s: GroupState, t: GroupState, action: str, params: dict[str, str]) -> list[dict]:
    """What the step ``s -> t`` sends between the consumers, the partition's broker and the group coordinator.

    * ``poll``: a fetch from the consumer's position and the record it returns;
    * ``commit_offset``: OffsetCommit of the position (and the consumer's
      generation) to the coordinator, and its answer (a fenced commit is refused);
    * ``crash``, ``evict``: the coordinator (after session.timeout.ms) tells every other
      live member to rejoin; the notice is in flight until the rebalance;
    * ``rejoin``: an evicted consumer's JoinGroup, held until the rebalance completes;
    * ``complete_rebalance``: each live member rejoins and is told the new
      generation's assignment, and the new owner fetches the committed offset.

    Processing is the application's own business: no message, but the
    record's lane shows it.
    """
    who = int(params["consumer"][1:]) - 1
    name = consumer_name(who)
    con = s.consumers[who]
    if action == "poll":
        return exchange(f"Fetch by {name}", name, BROKER, f"Fetch(offset {con.position})",
                        f"record at offset {con.position}", "Fetch")
    if action == "commit_offset":
        answer = "committed" if accepts_commit(c, s, con) else _refusal(s, con)
        gen = f", generation {con.generation}" if c.Evictions else ""
        return exchange(f"OffsetCommit by {name}", name, COORDINATOR, f"OffsetCommit(offset {con.position}{gen})",
                        answer, "OffsetCommit")
    if action == "commit_fails":
        return exchange(f"OffsetCommit by {name}", name, COORDINATOR, f"OffsetCommit(offset {con.position})",
                        "REBALANCE_IN_PROGRESS: not committed", "OffsetCommit") + [
            send(_rejoin(i), COORDINATOR, consumer_name(i), "REBALANCE_IN_PROGRESS (a member joins): rejoin",
                 "Rebalance", delivered=False)
            for i, other in enumerate(s.consumers) if other.alive and other.member and i != who]
    if action == "crash":
        return _crash_events(s, who)
    if action == "evict":
        return _leave_events(s, who, "was evicted")
    if action == "rejoin":
        return _rejoin_events(s, who)
    if action == "complete_rebalance":
        return _rebalance_events(s, t, who)
    return []
