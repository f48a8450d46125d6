"""``consumer-offsets``: committing after processing is at-least-once, before processing at-most-once.

Verdicts and trace labels are asserted as the story goes; the lengths of the
shortest traces are confirmed by a plain BFS over full states
(``naive_shortest``), and the state counts of the checks that hold by the
naive explorer, both in ``tests/naive.py``.
"""

from __future__ import annotations

import pytest

from conftest import json_report
from naive import naive_shortest
from story_checks import INTERPRETED_ENV, assert_counts_match_naive, constants, labels, load_spec, run_spec

SPEC = "consumer-offsets"


def run(invariants, **values):
    return run_spec(SPEC, invariants, **values)


def test_committing_after_processing_loses_nothing():
    spec, c, r = run(("NoLoss",), Commit="after-processing")
    assert r.result == "holds"
    assert r.sometimes_reached == {"AllRecordsProcessed": True, "PartitionReassigned": True}
    assert_counts_match_naive(spec, c, r)


def test_committing_after_processing_duplicates_after_a_crash():
    """The consumer crashes between processing and committing; the next owner starts from the old offset."""
    spec, c, r = run(("NoDuplicates",), Commit="after-processing")
    v = r.violations[0]
    assert labels(v) == [
        "poll(consumer=c1)",
        "process_record(consumer=c1)",
        "crash(consumer=c1)",  # before commit_offset(consumer=c1)
        "complete_rebalance(consumer=c2)",  # c2 fetches the committed offset: 0
        "poll(consumer=c2)",
        "process_record(consumer=c2)",  # offset 0, a second time
    ]
    assert v.trace[-1].state.processed[0] == 2
    assert len(v.trace) == naive_shortest(spec, c, "NoDuplicates")


def test_committing_before_processing_loses_a_record_after_a_crash():
    spec, c, r = run(("NoLoss",), Commit="before-processing")
    v = r.violations[0]
    assert labels(v) == ["poll(consumer=c1)", "commit_offset(consumer=c1)", "crash(consumer=c1)"]
    last = v.trace[-1].state
    assert last.committed == 1 and last.processed[0] == 0
    assert len(v.trace) == naive_shortest(spec, c, "NoLoss")


def test_committing_before_processing_never_duplicates():
    spec, c, r = run(("NoDuplicates",), Commit="before-processing")
    assert r.result == "holds"
    assert_counts_match_naive(spec, c, r)


def test_a_rebalance_without_a_crash_of_the_owner_is_seamless():
    """c2 crashes while c1 holds a record: the rebalance waits for c1 to finish its loop iteration,
    so the partition moves at the committed offset and nothing is lost or repeated."""
    from modelcheck.specs import consumer_offsets as co

    spec = load_spec(SPEC)
    c = constants(spec)
    s = co.crash(c, co.poll(c, next(iter(spec.init(c))), 0), 1)
    assert co.complete_rebalance(c, s, 0) is None  # c1 is still processing offset 0
    s = co.commit_offset(c, co.process_record(c, s, 0), 0)
    s = co.complete_rebalance(c, s, 0)
    assert (s.owner, s.committed, s.consumers[0].position, s.processed) == (0, 1, 1, (1, 0))


def test_one_consumer_one_record_state_count_by_hand():
    """Consumers=1, Records=1, Crashes=1, after-processing, counted by hand: the loop's four states
    (before poll, holding offset 0, processed, committed) and, from each, the crash: 8 distinct states,
    8 generated (the initial one, then 2 + 2 + 2 + 1 successors), depth 5 (the crash after the commit).
    Nobody is left to take the partition over."""
    _, _, r = run((), Consumers=1, Records=1, Crashes=1)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 8, 8, 5)


@pytest.mark.slow
def test_cli_commands(cli):
    p = cli("check", SPEC, "--invariant", "NoLoss", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--invariant", "NoDuplicates", "-q")
    assert p.returncode == 1 and "(7 states)" in p.stdout
    p = cli("check", SPEC, "--const", "Commit=before-processing", "--invariant", "NoLoss", "-q")
    assert p.returncode == 1 and "(4 states)" in p.stdout


@pytest.mark.slow
def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "Commit=before-processing", "--continue", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 1
    assert json_report(a) == json_report(b)


# Eviction of a live but slow consumer, and the coordinator's generation fencing of commits.

def test_evicting_a_slow_owner_duplicates_without_any_crash():
    """c1 is evicted while it still has offset 0 in hand (processed, not committed): the rebalance does not wait
    for it, c2 starts at the committed offset 0 and processes it again.  With fencing (the default) c1's late
    commit is then refused, but the record was processed twice already: fencing alone keeps at-least-once."""
    from modelcheck.specs import consumer_offsets as co

    spec, c, r = run(("NoDuplicates",), Crashes=0, Evictions=1)
    v = r.violations[0]
    assert labels(v) == [
        "poll(consumer=c1)",
        "process_record(consumer=c1)",
        "evict(consumer=c1)",  # alive, but its session ran out while it was busy
        "complete_rebalance(consumer=c2)",  # not waiting for c1: it is no member
        "poll(consumer=c2)",
        "process_record(consumer=c2)",
    ]
    last = v.trace[-1].state
    assert last.processed[0] == 2 and last.consumers[0].alive and not last.consumers[0].member
    assert len(v.trace) == naive_shortest(spec, c, "NoDuplicates")
    # c1's late commit: refused with fencing (it drops out to its poll), applied without.
    t = co.commit_offset(c, last, 0)
    assert (t.committed, t.consumers[0].step, t.consumers[0].generation, t.generation) == (0, co.POLL, 1, 2)
    t = co.commit_offset(constants(spec, Crashes=0, Evictions=1, Fencing=False), last, 0)
    assert t.committed == 1


def test_evictions_lose_nothing_when_committing_after_processing():
    for fencing, counts in ((True, (535, 771, 18)), (False, (519, 765, 19))):
        spec, c, r = run(("NoLoss",), Evictions=1, Fencing=fencing)
        assert r.result == "holds"
        assert (r.distinct_states, r.states_generated, r.depth) == counts
        assert_counts_match_naive(spec, c, r)


def test_fencing_keeps_the_committed_offset_from_going_back():
    spec, c, r = run(("CommittedNeverRegresses",), Evictions=1)
    assert r.result == "holds"
    assert (r.distinct_states, r.depth) == (535, 18)
    assert_counts_match_naive(spec, c, r)
    stats = {a.name: a.generated for a in r.action_stats}
    assert stats["evict"] > 0 and stats["rejoin"] > 0 and stats["crash"] > 0


def test_without_fencing_an_evicted_consumers_late_commit_moves_the_committed_offset_back():
    """The mutant: the coordinator accepts c1's commit from generation 1 after c2 committed 2 in generation 2."""
    spec, c, r = run(("CommittedNeverRegresses",), Evictions=1, Fencing=False)
    v = r.violations[0]
    assert labels(v) == [
        "poll(consumer=c1)",
        "process_record(consumer=c1)",
        "evict(consumer=c1)",
        "complete_rebalance(consumer=c2)",
        "poll(consumer=c2)",
        "process_record(consumer=c2)",
        "commit_offset(consumer=c2)",
        "poll(consumer=c2)",
        "process_record(consumer=c2)",
        "commit_offset(consumer=c2)",  # committed offset 2
        "commit_offset(consumer=c1)",  # c1's stale position 1, accepted
    ]
    last = v.trace[-1].state
    assert (last.committed, last.highest) == (1, 2)
    assert len(v.trace) == naive_shortest(spec, c, "CommittedNeverRegresses")


def test_fencing_keeps_committing_before_processing_at_most_once():
    spec, c, r = run(("NoDuplicates",), Evictions=1, Commit="before-processing")
    assert r.result == "holds"
    assert (r.distinct_states, r.depth) == (442, 15)
    assert_counts_match_naive(spec, c, r)


def test_without_fencing_an_evicted_consumer_processes_what_the_next_owner_processes():
    """The mutant: c1, evicted with offset 0 in hand, commits it (accepted) and processes it; so does c2."""
    spec, c, r = run(("NoDuplicates",), Evictions=1, Commit="before-processing", Fencing=False)
    v = r.violations[0]
    assert labels(v) == [
        "poll(consumer=c1)",
        "evict(consumer=c1)",
        "complete_rebalance(consumer=c2)",
        "poll(consumer=c2)",
        "commit_offset(consumer=c1)",  # refused with fencing: c1 would drop offset 0 unprocessed
        "process_record(consumer=c1)",
        "commit_offset(consumer=c2)",
        "process_record(consumer=c2)",
    ]
    assert v.trace[-1].state.processed[0] == 2
    assert len(v.trace) == naive_shortest(spec, c, "NoDuplicates")


def test_evicted_consumer_rejoins_and_can_own_the_partition_again():
    from modelcheck.specs import consumer_offsets as co

    spec = load_spec(SPEC)
    c = constants(spec, Evictions=1)
    s = co.evict(c, co.poll(c, next(iter(spec.init(c))), 0), 0)
    assert co.rejoin(c, s, 0) is None  # still busy with offset 0
    assert co.complete_rebalance(c, s, 0) is None  # no member any more
    s = co.complete_rebalance(c, s, 1)
    s = co.commit_offset(c, co.process_record(c, s, 0), 0)  # refused: UNKNOWN_MEMBER_ID
    assert (s.committed, s.consumers[0].step, s.generation) == (0, co.POLL, 2)
    s = co.rejoin(c, s, 0)
    assert (s.group_state, s.consumers[0].member) == (co.PREPARING_REBALANCE, True)
    s = co.complete_rebalance(c, s, 0)
    assert (s.owner, s.generation, s.consumers[0].generation, s.consumers[1].generation) == (0, 3, 3, 3)
    assert co.poll(c, s, 0) is not None


def test_default_constants_have_no_evictions():
    """Evictions=0 by default: evict and rejoin have no parameter value, and nothing is warned."""
    _, _, r = run(("NoLoss",))
    assert {a.name: a.generated for a in r.action_stats}["evict"] == 0
    assert not r.warnings


# A commit that fails because a rebalance starts, and eager against cooperative rebalancing.

def _generated(r) -> dict[str, int]:
    return {a.name: a.generated for a in r.action_stats}


@pytest.mark.parametrize("consumers,new_owner", [(2, "c1"), (1, "c1")])
def test_a_failed_commit_duplicates_without_any_crash(consumers, new_owner):
    """c1's commit fails (REBALANCE_IN_PROGRESS); it knows nothing was committed, but the partition's next owner,
    eagerly re-assigned, starts from the committed offset 0 and processes offset 0 again, even c1 itself."""
    spec, c, r = run(("NoDuplicates",), Crashes=0, CommitFailures=1, Consumers=consumers)
    v = r.violations[0]
    assert labels(v) == [
        "poll(consumer=c1)",
        "process_record(consumer=c1)",
        "commit_fails(consumer=c1)",
        f"complete_rebalance(consumer={new_owner})",
        f"poll(consumer={new_owner})",
        f"process_record(consumer={new_owner})",
    ]
    last = v.trace[-1].state
    assert (last.committed, last.processed[0], last.commit_failures) == (0, 2, 1)
    assert len(v.trace) == 7 == naive_shortest(spec, c, "NoDuplicates")


def test_a_failed_commit_loses_nothing():
    spec, c, r = run(("NoLoss",), CommitFailures=1)
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 241, 290, 15)
    assert_counts_match_naive(spec, c, r)
    assert _generated(r)["commit_fails"] > 0


def test_a_failed_commit_before_processing_stays_at_most_once():
    """The consumer drops the record whose commit failed: the next owner reads it, nobody processed it twice."""
    spec, c, r = run(("NoDuplicates",), CommitFailures=1, Commit="before-processing")
    assert (r.result, r.distinct_states, r.depth) == ("holds", 183, 12)
    assert_counts_match_naive(spec, c, r)
    assert _generated(r)["commit_fails"] > 0


def test_cooperative_rebalancing_keeps_the_position_of_an_owner_that_keeps_the_partition():
    spec, c, r = run(("NoLoss", "NoDuplicates", "CommittedNeverRegresses"), Crashes=0, CommitFailures=1, Consumers=1,
                     Rebalance="cooperative")
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 14, 14, 8)
    assert_counts_match_naive(spec, c, r)
    assert _generated(r)["commit_fails"] > 0 and _generated(r)["complete_rebalance"] > 0


def test_cooperative_rebalancing_still_duplicates_when_the_partition_moves():
    spec, c, r = run(("NoDuplicates",), Crashes=0, CommitFailures=1, Rebalance="cooperative")
    v = r.violations[0]
    assert labels(v)[2:4] == ["commit_fails(consumer=c1)", "complete_rebalance(consumer=c2)"]
    assert len(v.trace) == 7 == naive_shortest(spec, c, "NoDuplicates")


def test_cooperative_rebalancing_loses_nothing_and_changes_no_count_with_crashes():
    """With crashes only, the owner leaves the group before every rebalance, so it never keeps the partition."""
    spec, c, r = run(("NoLoss",), Rebalance="cooperative")
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 57, 65, 11)
    assert_counts_match_naive(spec, c, r)


def test_default_constants_have_no_commit_failures():
    _, _, r = run(("NoLoss",))
    assert _generated(r)["commit_fails"] == 0
    assert (r.distinct_states, r.states_generated, r.depth) == (57, 65, 11)
    assert not r.warnings


def test_a_bad_rebalance_protocol_is_refused_with_one_line(cli):
    p = cli("check", SPEC, "--const", "Rebalance=incremental")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
