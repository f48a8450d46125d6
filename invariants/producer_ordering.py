"""What retries can break in the producer's batches, as named predicates over a ``producer-ordering`` state.

* ``InOrder``: the batches appear in the partition's log in the order the
  application sent them: no batch is first written after a batch sent later
  (a second copy of a batch is ``NoDuplicates``' business);
* ``NoDuplicates``: no batch is written twice;
* ``AckedBatchesWritten``: a batch the callback reported as written is in the log.
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.specs.producer_state import ProducerConstants, ProducerState


@invariant("InOrder")
def in_order(c: ProducerConstants, s: ProducerState) -> bool:
    """No batch is first written to the log after a batch the application sent later."""
    highest = -1
    for b in s.log:
        if b < highest and b not in s.log[: s.log.index(highest)]:
            return False
        highest = max(highest, b)
    return True


@invariant("NoDuplicates")
def no_duplicates(c: ProducerConstants, s: ProducerState) -> bool:
    """Every batch is in the log at most once."""
    return len(set(s.log)) == len(s.log)


@invariant("AckedBatchesWritten")
def acked_batches_written(c: ProducerConstants, s: ProducerState) -> bool:
    """A batch acknowledged to the application is in the log."""
    return s.acked <= frozenset(s.log)


@sometimes("SomeBatchRetried")
def some_batch_retried(c: ProducerConstants, s: ProducerState) -> bool:
    """Some batch is sent a second time (otherwise retries never come into play)."""
    return any(n > 1 for n in s.attempts)


@sometimes("AllBatchesAcked")
def all_batches_acked(c: ProducerConstants, s: ProducerState) -> bool:
    """Every batch is acknowledged (otherwise the producer never gets its batches through)."""
    return len(s.acked) == c.Batches


ALL = [in_order, no_duplicates, acked_batches_written]
SOMETIMES = [some_batch_retried, all_batches_acked]
