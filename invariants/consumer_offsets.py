"""The delivery guarantees of offset commits, as named predicates over a ``consumer-offsets`` state.

* ``NoLoss``: every record below the group's committed offset has been
  processed, or is in the hands of a live consumer that is about to process
  it (a record committed and never processed is skipped by every later owner);
* ``NoDuplicates``: the application processes every record at most once.
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.specs.consumer_state import ConsumerConstants, GroupState


@invariant("NoLoss")
def no_loss(c: ConsumerConstants, s: GroupState) -> bool:
    """Every record below the committed offset is processed, or held by a live consumer that will process it."""
    held = {con.in_hand for con in s.consumers if con.alive}
    return all(s.processed[o] > 0 or o in held for o in range(s.committed))


@invariant("NoDuplicates")
def no_duplicates(c: ConsumerConstants, s: GroupState) -> bool:
    """No record is processed twice."""
    return all(n <= 1 for n in s.processed)


@sometimes("AllRecordsProcessed")
def all_records_processed(c: ConsumerConstants, s: GroupState) -> bool:
    """Every record is processed at least once (otherwise the bounds are too tight to say anything)."""
    return all(n > 0 for n in s.processed)


@sometimes("PartitionReassigned")
def partition_reassigned(c: ConsumerConstants, s: GroupState) -> bool:
    """A rebalance hands the partition to a member (otherwise no crash ever matters)."""
    return s.generation > 1


ALL = [no_loss, no_duplicates]
SOMETIMES = [all_records_processed, partition_reassigned]
