"""The delivery guarantees of offset commits, as named predicates over a ``consumer-offsets`` state.

* ``NoLoss``: every record below the group's committed offset has been
  processed, or is in the hands of a live consumer that is about to process
  it (a record committed and never processed is skipped by every later owner);
* ``NoDuplicates``: the application processes every record at most once;
* ``CommittedNeverRegresses``: the group's committed offset never goes back
  (an evicted consumer's late commit of its stale position would move it back).

Each has a companion ``explain`` that, on a violating state, names the record,
the committed offset and the consumers involved in one sentence and lists the
lane cells that show it (the columns of :func:`modelcheck.specs.consumer_state.lanes`).
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.spec import Witness, culprit
from modelcheck.specs.consumer_state import NONE, STABLE, ConsumerConstants, GroupState, consumer_name


def _record(o: int) -> str:
    """A record's lane: records are the partition's offsets."""
    return f"offset {o}"


def _list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def explain_no_loss(c: ConsumerConstants, s: GroupState) -> Witness:
    """The first committed record nobody processed or holds, and why no later owner will read it."""
    held = {con.in_hand for con in s.consumers if con.alive}
    o = next(o for o in range(s.committed) if s.processed[o] == 0 and o not in held)
    return Witness(f"the record at offset {o} is below the committed offset {s.committed} but was never processed, "
                   f"and no live consumer holds it: every later owner starts at offset {s.committed}, so it is lost",
                   (culprit(_record(o), "processed"), culprit(_record(o), "committed"),
                    culprit(_record(o), "in hand of"), culprit(variable="group.committedOffset")))


@invariant("NoLoss", explain=explain_no_loss)
def no_loss(c: ConsumerConstants, s: GroupState) -> bool:
    """Every record below the committed offset is processed, or held by a live consumer that will process it."""
    held = {con.in_hand for con in s.consumers if con.alive}
    return all(s.processed[o] > 0 or o in held for o in range(s.committed))


def _takeover(s: GroupState, o: int) -> tuple[str, tuple[dict, ...]]:
    """``, so c2, which took the partition over after c1 crashed (generation 2), fetched it again``.

    Said only when the state shows it: the committed offset is not past the
    record, the owner came with a rebalance (generation > 1) and its position
    is past the record, so its polls covered it; the crashed members are named
    when the group is Stable, since a rebalance follows every crash.
    """
    owner = s.owner
    if s.committed > o or owner == NONE or s.generation == 1 or s.consumers[owner].position <= o:
        return "", ()
    name = consumer_name(owner)
    dead = [consumer_name(i) for i, con in enumerate(s.consumers) if not con.alive]
    evicted = [consumer_name(i) for i, con in enumerate(s.consumers) if con.alive and not con.member]
    why = ([f"{_list(dead)} crashed"] if dead else []) + ([f"{_list(evicted)} {'was' if len(evicted) == 1 else 'were'} evicted"] if evicted else [])
    after = (f" after {' and '.join(why)}" if why and s.group_state == STABLE else "")
    return (f", so {name}, which took the partition over{after} (generation {s.generation}), fetched it again",
            (culprit(variable=f"consumers.{name}.position"),)
            + tuple(culprit(variable=f"consumers.{d}.alive") for d in dead)
            + tuple(culprit(variable=f"consumers.{e}.member") for e in evicted))


def explain_no_duplicates(c: ConsumerConstants, s: GroupState) -> Witness:
    """The record processed twice, the committed offset that did not cover it, and the owner that read it again."""
    o = next(o for o, n in enumerate(s.processed) if n > 1)
    again, cells = _takeover(s, o)
    still = "still " if s.committed <= o else ""  # only the owner commits, from its position: it never goes back
    return Witness(f"the record at offset {o} was processed twice: the committed offset is {still}{s.committed}{again}",
                   (culprit(_record(o), "processed"), culprit(_record(o), "committed"),
                    culprit(variable="group.committedOffset")) + cells)


@invariant("NoDuplicates", explain=explain_no_duplicates)
def no_duplicates(c: ConsumerConstants, s: GroupState) -> bool:
    """No record is processed twice."""
    return all(n <= 1 for n in s.processed)


def explain_committed_never_regresses(c: ConsumerConstants, s: GroupState) -> Witness:
    """The committed offset and the higher one it went back from."""
    return Witness(f"the committed offset went back from {s.highest} to {s.committed}: a consumer no longer in the "
                   f"group committed its stale position over the new owner's, so the next owner re-reads from "
                   f"offset {s.committed}",
                   (culprit(variable="group.committedOffset"), culprit(variable="group.highestCommitted"))
                   + tuple(culprit(_record(o), "committed") for o in range(s.committed, s.highest)))


@invariant("CommittedNeverRegresses", explain=explain_committed_never_regresses)
def committed_never_regresses(c: ConsumerConstants, s: GroupState) -> bool:
    """The group's committed offset never goes back (no commit overwrites a higher one)."""
    return s.committed == s.highest


@sometimes("AllRecordsProcessed")
def all_records_processed(c: ConsumerConstants, s: GroupState) -> bool:
    """Every record is processed at least once (otherwise the bounds are too tight to say anything)."""
    return all(n > 0 for n in s.processed)


@sometimes("PartitionReassigned")
def partition_reassigned(c: ConsumerConstants, s: GroupState) -> bool:
    """A rebalance hands the partition to a member (otherwise no crash ever matters)."""
    return s.generation > 1


ALL = [no_loss, no_duplicates, committed_never_regresses]
SOMETIMES = [all_records_processed, partition_reassigned]
