"""The truncation rules of ``broker-failures`` on hand-worked leader-epoch caches.

Each case is worked out on paper from Kafka's ``endOffsetFor`` (0.11 for
KIP-101, 2.0 for KIP-279) rather than taken from the checker's output.
"""

from __future__ import annotations

from modelcheck.specs.broker_truncation import (
    assign_records,
    end_offset_kip101,
    end_offset_kip279,
    truncate_cache,
    truncation_point,
)
from modelcheck.specs.replicated_log import Record


def log_of(*epochs: int) -> tuple:
    return tuple(Record(100 + i, e) for i, e in enumerate(epochs))


def cache_of(log: tuple) -> tuple:
    return assign_records((), log, 0)


def test_cache_follows_appends_and_truncation():
    log = log_of(0, 0, 2, 3)
    assert cache_of(log) == ((0, 0), (2, 2), (3, 3))
    assert truncate_cache(cache_of(log), 2) == ((0, 0),)


def test_kip101_end_offset():
    epochs = ((0, 0), (2, 1))
    assert end_offset_kip101(epochs, 2, 2) == 2  # the latest epoch ends at the LEO
    assert end_offset_kip101(epochs, 2, 1) == 1  # an unknown epoch "ends" where the next known one starts
    assert end_offset_kip101(epochs, 2, 3) is None  # newer than anything known: UNDEFINED
    assert end_offset_kip101(((2, 0),), 1, 1) is None  # older than anything known: UNDEFINED


def test_kip279_end_offset_names_the_epoch_it_answers_for():
    epochs = ((0, 0), (2, 1))
    assert end_offset_kip279(epochs, 2, 1) == (0, 1)
    assert end_offset_kip279(((2, 0),), 1, 1) == (1, 0)
    assert end_offset_kip279(epochs, 2, -1) is None


def test_the_fast_leader_change_case():
    """Follower [x@e1]; leader [a@e0, y@e2].  KIP-101 keeps x at offset 0, KIP-279 drops it."""
    follower = log_of(1)
    leader = log_of(0, 2)
    args = (follower, cache_of(follower), 0, leader, cache_of(leader))
    assert truncation_point("leader-epoch", *args) == 1
    assert truncation_point("kip279", *args) == 0
    assert truncation_point("hw", *args) == 0


def test_kip279_walks_back_over_several_rounds():
    """Follower epochs 0,1,3 against leader epochs 0,2,4: the answer for 3 is epoch 2, unknown to the
    follower, so it cuts to where its epoch 3 began and asks again with epoch 1; the leader's answer
    (epoch 0 ends at 1) is where both agree."""
    follower = log_of(0, 1, 3)
    leader = log_of(0, 2, 2, 4)
    assert truncation_point("kip279", follower, cache_of(follower), 0, leader, cache_of(leader)) == 1


def test_no_epoch_falls_back_to_the_hw():
    follower = log_of()
    leader = log_of(0)
    assert truncation_point("leader-epoch", follower, (), 0, leader, cache_of(leader)) == 0
    follower = log_of(0, 0)
    assert truncation_point("kip279", follower, (), 1, leader, cache_of(leader)) == 1
