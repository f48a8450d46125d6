"""Where a follower truncates: the leader-epoch cache and the three truncation rules.

* ``hw``: before Kafka 0.11 a follower truncates to its high watermark (after
  a restart, the one read back from replication-offset-checkpoint).
* ``leader-epoch``: KIP-101 as first shipped (0.11).  The follower sends the
  latest epoch in its cache (OffsetsForLeaderEpoch); the leader answers with
  ``LeaderEpochFileCache.endOffsetFor`` of 0.11: its LEO when that epoch is its
  latest, else the start offset of the first larger epoch it knows, else
  UNDEFINED, in which case (and when the follower has no epoch) the follower
  falls back to its HW.  The follower truncates to that offset if it is below
  its LEO.  A leader adds its epoch to the cache on its first append.
* ``kip279``: the leader answers with the largest epoch it knows that is at
  most the requested one, and where that epoch ends; the follower truncates to
  the smaller of that and its own end of that epoch, and asks again with an
  older epoch when it does not know the leader's (walking back to the last
  offset whose epoch matches the leader's).  A new leader adds its epoch to the
  cache when it becomes leader, not on the first append.
"""

from __future__ import annotations

from modelcheck.specs.broker_state import UNKNOWN

Epochs = tuple  # ((epoch, start_offset), ...)


def latest_epoch(epochs: Epochs) -> int:
    """The newest epoch in a cache (UNKNOWN when the cache is empty)."""
    return epochs[-1][0] if epochs else UNKNOWN


def assign(epochs: Epochs, epoch: int, start: int) -> Epochs:
    """Add ``epoch`` starting at ``start`` if it is newer than the cache's latest (LeaderEpochCache.assign)."""
    if epoch > latest_epoch(epochs):
        return epochs + ((epoch, start),)
    return epochs


def assign_records(epochs: Epochs, records: tuple, start: int) -> Epochs:
    """The cache after appending ``records`` at ``start``: one entry per new epoch."""
    for i, rec in enumerate(records):
        epochs = assign(epochs, rec.epoch, start + i)
    return epochs


def truncate_cache(epochs: Epochs, end: int) -> Epochs:
    """The cache after the log is cut to ``end`` (truncateFromEnd drops entries starting at or past it)."""
    return tuple(e for e in epochs if e[1] < end)


def end_offset_kip101(epochs: Epochs, leo: int, requested: int) -> int | None:
    """0.11's ``endOffsetFor``: where ``requested`` ends in this log (None is UNDEFINED_EPOCH_OFFSET)."""
    if requested == latest_epoch(epochs):
        return leo
    later = [start for epoch, start in epochs if epoch > requested]
    if not later or requested < epochs[0][0]:
        return None
    return later[0]


def end_offset_kip279(epochs: Epochs, leo: int, requested: int) -> tuple[int, int] | None:
    """KIP-279's ``endOffsetFor``: (largest known epoch <= requested, where it ends), or None (UNDEFINED)."""
    if requested == UNKNOWN:
        return None
    if requested == latest_epoch(epochs):
        return requested, leo
    later = [start for epoch, start in epochs if epoch > requested]
    earlier = [epoch for epoch, _ in epochs if epoch <= requested]
    if not later:
        return None
    if not earlier:
        return requested, later[0]
    return earlier[-1], later[0]


def truncation_point(mode: str, log: tuple, epochs: Epochs, hw: int, leader_log: tuple, leader_epochs: Epochs) -> int:
    """The offset a follower with ``log``/``epochs``/``hw`` cuts its log to, following a leader.

    Never above the follower's LEO.  ``hw`` is the in-memory HW (after a
    restart, the checkpointed one).
    """
    leo = len(log)
    if mode == "hw" or not epochs:
        return min(hw, leo)
    if mode == "leader-epoch":
        end = end_offset_kip101(leader_epochs, len(leader_log), latest_epoch(epochs))
        return min(hw, leo) if end is None else min(end, leo)
    # kip279: ask, and ask again with an older epoch while the follower does not know the leader's.
    for _ in range(len(epochs) + 1):
        if not epochs:
            return min(hw, leo)
        answer = end_offset_kip279(leader_epochs, len(leader_log), latest_epoch(epochs))
        if answer is None:
            return min(hw, leo)
        leader_epoch, leader_end = answer
        own = end_offset_kip279(epochs, leo, leader_epoch)
        if own is None:
            return min(leader_end, leo)
        own_epoch, own_end = own
        if own_epoch == leader_epoch:
            return min(own_end, leader_end, leo)
        leo = min(own_end, leo)  # an intermediate truncation, then another OffsetsForLeaderEpoch round
        epochs = truncate_cache(epochs, leo)
    return leo


def epoch_rounds(mode: str, log: tuple, epochs: Epochs, hw: int, leader_log: tuple,
                 leader_epochs: Epochs) -> list[tuple[int, tuple[int, int] | int | None]]:
    """The OffsetsForLeaderEpoch questions :func:`truncation_point` asks, with the leader's answers.

    One ``(requested epoch, answer)`` per round, the answer as the leader's
    ``endOffsetFor`` gives it (None for UNDEFINED); empty when no question is
    asked (``hw`` mode, or an empty epoch cache).  For sequence diagrams; the
    tests check that it follows :func:`truncation_point` round for round.
    """
    if mode == "hw" or not epochs:
        return []
    if mode == "leader-epoch":
        asked = latest_epoch(epochs)
        return [(asked, end_offset_kip101(leader_epochs, len(leader_log), asked))]
    rounds: list = []
    leo = len(log)
    for _ in range(len(epochs) + 1):
        if not epochs:
            break
        asked = latest_epoch(epochs)
        answer = end_offset_kip279(leader_epochs, len(leader_log), asked)
        rounds.append((asked, answer))
        if answer is None:
            break
        own = end_offset_kip279(epochs, leo, answer[0])
        if own is None or own[0] == answer[0]:
            break
        leo = min(own[1], leo)
        epochs = truncate_cache(epochs, leo)
    return rounds
