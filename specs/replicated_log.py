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
