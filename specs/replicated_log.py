"""Finite replicated logs (FiniteReplicatedLog.tla), as tuples of records.

In the TLA+ module a log is ``[endOffset, records]`` with the unwritten offsets
padded with Nil.  Appends only ever write at ``endOffset`` and truncation
clears everything above the new end, so the padding is fully determined by
``endOffset``: a Python tuple holding the written records is the same state,
one to one.  ``len(log)`` is the end offset (the LEO).
"""

from __future__ import annotations

from typing import NamedTuple


class Record(NamedTuple):
    """A log record: a unique id and the leader epoch it was written in."""

    id: int
    epoch: int


Log = tuple  # tuple[Record, ...]; the end offset is its length

EMPTY_LOG: Log = ()


def end_offset(log: Log) -> int:
    """GetEndOffset: the offset the next append goes to (the LEO)."""
    return len(log)


def has_offset(log: Log, offset: int) -> bool:
    """HasOffset: the log holds a record at ``offset``."""
    return offset < len(log)


def has_entry(log: Log, record: Record, offset: int) -> bool:
    """HasEntry: the log holds exactly ``record`` at ``offset``."""
    return offset < len(log) and log[offset] == record


def latest_record(log: Log) -> Record | None:
    """GetLatestRecord (None where TLA+ has Nil): the record at ``endOffset - 1``."""
    return log[-1] if log else None


def truncate_to(log: Log, new_end: int) -> Log | None:
    """TruncateTo: the log cut to ``new_end``, or None where the TLA+ guard fails (``new_end`` > end)."""
    if new_end > len(log):
        return None
    return log[:new_end]


def matching_offsets(log1: Log, log2: Log) -> list[int]:
    """Kip279's MatchingOffsets: offsets where ``log2`` holds the same record as ``log1``."""
    n = min(len(log1), len(log2))
    return [o for o in range(n) if log1[o] == log2[o]]


def first_non_matching_offset_from_tail(leader_log: Log, follower_log: Log) -> int:
    """Kip279's truncation point: one past the last offset where both logs agree (0 if none).

    Scanning back from the follower's tail is what the TLA+ ``Max(matching) + 1``
    computes; an empty leader log gives 0.
    """
    if not leader_log:
        return 0
    for o in range(min(len(leader_log), len(follower_log)) - 1, -1, -1):
        if leader_log[o] == follower_log[o]:
            return o + 1
    return 0
