"""What retries can break in the producer's batches, as named predicates over a ``producer-ordering`` state.

* ``InOrder``: the batches appear in the partition's log in the order the
  application sent them: no batch is first written after a batch sent later
  (a second copy of a batch is ``NoDuplicates``' business);
* ``NoDuplicates``: no batch is written twice;
* ``AckedBatchesWritten``: a batch the callback reported as written is in the log;
* ``DuplicatesRecognised``: the broker never answers OUT_OF_ORDER_SEQUENCE_NUMBER
  to a retry of a batch it has written (it recognises the duplicate), which
  holds only while ``MaxInFlight <= BrokerCache`` and the producer retries in
  sequence order (``RetryOrder=keep``);
* ``NextBatchAccepted`` (checked when named): with the connection idle, the
  batch the producer sends next is one the broker appends or recognises, not
  one it must refuse as out of order: without KIP-360 a batch that failed for
  good leaves a gap no later batch gets past.

Each has a companion ``explain`` that, on a violating state, names the
batches and the log offsets at fault in one sentence and lists the lane cells
that show it (the columns of :func:`modelcheck.specs.producer_state.lanes`).
"""

from __future__ import annotations

from modelcheck import invariant, sometimes
from modelcheck.spec import Witness, culprit
from modelcheck.specs.producer_state import OUT_OF_ORDER_SEQUENCE, ProducerConstants, ProducerState, batch_name


def _first_out_of_order(log: tuple) -> tuple[int, int] | None:
    """``(o, j)``: offset ``o`` holds the first batch first written after the later batch at offset ``j``.

    The same scan as :func:`in_order`, so that the explanation names exactly
    the write the invariant objects to.
    """
    highest = -1
    for o, b in enumerate(log):
        if b < highest and b not in log[: log.index(highest)]:
            return o, log.index(highest)
        highest = max(highest, b)
    return None


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _offsets(offsets: list[int]) -> str:
    """``0``, ``0 and 1``, ``0, 1 and 2``."""
    words = [str(o) for o in offsets]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def explain_in_order(c: ProducerConstants, s: ProducerState) -> Witness:
    """The batch sent first but written after a later one, both offsets, and how often it was sent.

    A batch is sent before every later one, and the connection keeps order,
    so only a retry can land after a later batch: the number of sends says so.
    """
    o, j = _first_out_of_order(s.log)
    early, late = batch_name(s.log[o]), batch_name(s.log[j])
    sent = s.attempts[s.log[o]]
    retried = f" (written by a retry: {early} was sent {_times(sent)})" if sent > 1 else ""
    return Witness(f"{late} is at log offset {j} but {early}, sent first, is at offset {o}{retried}",
                   (culprit(late, "log offsets"), culprit(early, "log offsets"), culprit(early, "sent"),
                    culprit(variable="log")))


@invariant("InOrder", explain=explain_in_order)
def in_order(c: ProducerConstants, s: ProducerState) -> bool:
    """No batch is first written to the log after a batch the application sent later."""
    highest = -1
    for b in s.log:
        if b < highest and b not in s.log[: s.log.index(highest)]:
            return False
        highest = max(highest, b)
    return True


def explain_no_duplicates(c: ProducerConstants, s: ProducerState) -> Witness:
    """The first batch in the log more than once, its offsets, and why the broker took every copy."""
    b = next(b for b in s.log if s.log.count(b) > 1)
    name = batch_name(b)
    offsets = [o for o, x in enumerate(s.log) if x == b]
    why = ("without idempotence the broker cannot tell a retry from a new batch" if not c.Idempotent
           else "the idempotent broker appended it again all the same")
    return Witness(f"{name} is in the log {_times(len(offsets))}, at offsets {_offsets(offsets)}: the producer "
                   f"sent it {_times(s.attempts[b])}, and {why}",
                   (culprit(name, "log offsets"), culprit(name, "sent"), culprit(variable="log")))


@invariant("NoDuplicates", explain=explain_no_duplicates)
def no_duplicates(c: ProducerConstants, s: ProducerState) -> bool:
    """Every batch is in the log at most once."""
    return len(set(s.log)) == len(s.log)


def explain_acked_batches_written(c: ProducerConstants, s: ProducerState) -> Witness:
    """The first batch acknowledged to the application that the log does not hold."""
    name = batch_name(min(s.acked - frozenset(s.log)))
    log = "[" + ", ".join(batch_name(b) for b in s.log) + "]"
    return Witness(f"{name} was acknowledged to the application but is not in the log {log}",
                   (culprit(name, "status"), culprit(name, "log offsets"), culprit(variable="log")))


@invariant("AckedBatchesWritten", explain=explain_acked_batches_written)
def acked_batches_written(c: ProducerConstants, s: ProducerState) -> bool:
    """A batch acknowledged to the application is in the log."""
    return s.acked <= frozenset(s.log)


def _unrecognised(s: ProducerState) -> list[int]:
    """Batches answered OUT_OF_ORDER_SEQUENCE_NUMBER although the log holds them, in response order."""
    return [b for b, code in s.responses if code == OUT_OF_ORDER_SEQUENCE and b in s.log]


def explain_duplicates_recognised(c: ProducerConstants, s: ProducerState) -> Witness:
    """The written batch the broker refused as out of order, where it is, and what the cache held."""
    b = _unrecognised(s)[0]
    name = batch_name(b)
    cache = "[" + ", ".join(batch_name(x) for x in s.log[-c.BrokerCache:]) + "]"
    return Witness(f"{name} is at log offset {s.log.index(b)}, but its retry was answered "
                   f"OUT_OF_ORDER_SEQUENCE_NUMBER: the broker remembers only the last {c.BrokerCache} "
                   f"batch(es) {cache}, and {c.MaxInFlight} requests may be in flight",
                   (culprit(name, "status"), culprit(name, "log offsets"), culprit(name, "sent"),
                    culprit(variable="log")))


@invariant("DuplicatesRecognised", explain=explain_duplicates_recognised)
def duplicates_recognised(c: ProducerConstants, s: ProducerState) -> bool:
    """No batch the log holds is answered OUT_OF_ORDER_SEQUENCE_NUMBER: a retry of it is recognised as a duplicate."""
    return not _unrecognised(s)


def _doomed(c: ProducerConstants, s: ProducerState) -> int | None:
    """The batch the producer sends next, when the connection is idle and the broker must refuse it as out of
    order (its sequence number is neither the next one nor one it remembers); else None."""
    if not c.Idempotent or not s.queue or s.requests or s.responses or s.bump:
        return None
    b = s.queue[0]
    seqs = () if s.epoch > s.broker_epoch else s.broker_seqs
    seq = s.seqs[b]
    if seq in seqs[-c.BrokerCache:] or seq == (seqs[-1] + 1 if seqs else 0):
        return None
    return b


def explain_next_batch_accepted(c: ProducerConstants, s: ProducerState) -> Witness:
    """The batch that waits to be sent, its sequence number, and what the broker expects instead."""
    b = _doomed(c, s)
    name = batch_name(b)
    seqs = () if s.epoch > s.broker_epoch else s.broker_seqs
    expected = seqs[-1] + 1 if seqs else 0
    gap = [batch_name(x) for x in sorted(s.failed) if x not in s.log]
    why = f": {', '.join(gap)} failed unwritten and left the gap" if gap else ""
    return Witness(f"{name}, next to be sent with sequence number {s.seqs[b]}, can only be refused "
                   f"OUT_OF_ORDER_SEQUENCE_NUMBER: the broker expects sequence number {expected}{why}",
                   (culprit(name, "status"),) + tuple(culprit(x, "status") for x in gap))


@invariant("NextBatchAccepted", explain=explain_next_batch_accepted)
def next_batch_accepted(c: ProducerConstants, s: ProducerState) -> bool:
    """With the connection idle, the next batch to send is one the broker appends or recognises as a duplicate."""
    return _doomed(c, s) is None


@sometimes("SomeBatchRetried")
def some_batch_retried(c: ProducerConstants, s: ProducerState) -> bool:
    """Some batch is sent a second time (otherwise retries never come into play)."""
    return any(n > 1 for n in s.attempts)


@sometimes("AllBatchesAcked")
def all_batches_acked(c: ProducerConstants, s: ProducerState) -> bool:
    """Every batch is acknowledged (otherwise the producer never gets its batches through)."""
    return len(s.acked) == c.Batches


ALL = [in_order, no_duplicates, acked_batches_written, duplicates_recognised]
DEFAULT = ["InOrder", "NoDuplicates", "AckedBatchesWritten", "DuplicatesRecognised"]
OPTIONAL = [next_batch_accepted]
"""Checked only when named: a property of the producer's progress, not of the log."""
SOMETIMES = [some_batch_retried, all_batches_acked]
