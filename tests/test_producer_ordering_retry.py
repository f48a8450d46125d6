"""``producer-ordering``: the producer's own retry order (``RetryOrder``) and KIP-360's epoch bump (``Kip360``).

Verdicts and trace labels as the story goes; the shortest traces' lengths are
confirmed by ``naive_shortest``, the counts of the checks that hold by the
naive explorer (``tests/naive.py``), and each new step is shown to generate
states in the check's per-action statistics.
"""

from __future__ import annotations

import pytest

import modelcheck
import naive_liveness as nl
from naive import naive_shortest
from story_checks import assert_counts_match_naive, constants, labels, load_spec, run_spec

SPEC = "producer-ordering"
ALL_FOUR = ("InOrder", "NoDuplicates", "AckedBatchesWritten", "DuplicatesRecognised")


def run(invariants, **values):
    return run_spec(SPEC, invariants, **values)


def generated(r) -> dict[str, int]:
    return {a.name: a.generated for a in r.action_stats}


# -- RetryOrder: where a retried batch re-enters the accumulator --------------------------------------------------

def test_with_idempotence_and_a_large_cache_the_broker_alone_keeps_the_mutant_right():
    """The premise: with the default cache every retry is remembered, so the mutant passes every invariant."""
    spec, c, r = run(ALL_FOUR, Idempotent="true", RetryOrder="any")
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 2410, 5364, 19)
    assert_counts_match_naive(spec, c, r)


def test_a_retry_behind_later_batches_falls_out_of_the_broker_cache():
    """One in flight, a cache of one: Kafka's order holds, the mutant's retry of batch0 comes after batch1."""
    spec, c, r = run(ALL_FOUR, Idempotent="true", RetryOrder="any", MaxInFlight=1, BrokerCache=1)
    v = r.violations[0]
    assert v.name == "DuplicatesRecognised"
    assert labels(v) == [
        "send_batch(batch=batch0)",
        "broker_handles_produce(batch=batch0)",
        "request_times_out(batch=batch0)",  # the mutant puts batch0 back behind batch1
        "send_batch(batch=batch1)",
        "broker_handles_produce(batch=batch1)",
        "receive_response(batch=batch1)",
        "send_batch(batch=batch0)",
        "broker_handles_produce(batch=batch0)",  # the cache holds batch1's sequence only
    ]
    assert len(v.trace) == 9 == naive_shortest(spec, c, "DuplicatesRecognised")


def test_kafkas_retry_order_keeps_the_same_configuration_right():
    spec, c, r = run(ALL_FOUR, Idempotent="true", RetryOrder="keep", MaxInFlight=1, BrokerCache=1)
    assert (r.result, r.distinct_states, r.depth) == ("holds", 236, 19)
    assert_counts_match_naive(spec, c, r)


def test_without_idempotence_the_mutant_reorders_with_one_in_flight():
    """The seeds' remedy, max.in.flight = 1, relies on the retry going back to the front."""
    spec, c, r = run(("InOrder",), MaxInFlight=1, RetryOrder="any")
    v = r.violations[0]
    assert labels(v)[:3] == ["send_batch(batch=batch0)", "broker_rejects_produce(batch=batch0)",
                             "receive_response(batch=batch0)"]
    assert len(v.trace) == 9 == naive_shortest(spec, c, "InOrder")
    assert generated(r)["receive_response"] > 0


def test_the_mutants_retry_waits_behind_a_batch_the_broker_must_refuse():
    spec, c, r = run(("NextBatchAccepted",), Idempotent="true", RetryOrder="any")
    v = r.violations[0]
    assert labels(v) == ["send_batch(batch=batch0)", "broker_rejects_produce(batch=batch0)",
                         "receive_response(batch=batch0)"]
    assert v.trace[-1].state.queue[0] == 1
    assert len(v.trace) == 4 == naive_shortest(spec, c, "NextBatchAccepted")


def test_the_mutant_puts_a_retry_at_every_place():
    from modelcheck.specs import producer_ordering as po

    spec = load_spec(SPEC)
    c = constants(spec, Idempotent="true", RetryOrder="any")
    s = po.broker_rejects_produce(c, po.send_batch(c, next(iter(spec.init(c))), 0), 0)
    assert sorted(t.queue for t in po.receive_response(c, s, 0)) == [(0, 1, 2), (1, 0, 2), (1, 2, 0)]


# -- Kip360: the epoch bump after a batch fails for good --------------------------------------------------------

def test_without_kip360_a_failed_batch_leaves_a_gap_no_later_batch_gets_past():
    spec, c, r = run(("NextBatchAccepted",), Idempotent="true")
    v = r.violations[0]
    assert labels(v) == ["send_batch(batch=batch0)", "broker_rejects_produce(batch=batch0)",
                         "receive_response(batch=batch0)", "send_batch(batch=batch0)",
                         "broker_rejects_produce(batch=batch0)", "receive_response(batch=batch0)"]
    last = v.trace[-1].state
    assert last.failed == {0} and last.queue == (1, 2) and last.seqs[1] == 1
    assert len(v.trace) == 7 == naive_shortest(spec, c, "NextBatchAccepted")


def test_with_kip360_the_next_batch_is_always_accepted():
    spec, c, r = run(("NextBatchAccepted", "InOrder", "AckedBatchesWritten"), Idempotent="true", Kip360="true")
    assert (r.result, r.distinct_states, r.states_generated, r.depth) == ("holds", 1736, 3151, 19)
    assert_counts_match_naive(spec, c, r)
    assert generated(r)["send_batch"] > 0
    g = nl.build_graph(spec, c)
    assert any(s.epoch == 1 and 2 in s.log and 0 in s.failed and 0 not in s.log for s in g.states)


def test_the_bump_renumbers_a_batch_already_written_and_it_is_written_again():
    """KIP-360's cost: batch1's success response was lost, the bump gives it sequence 0 in the new epoch."""
    spec, c, r = run(ALL_FOUR, Idempotent="true", Kip360="true")
    v = r.violations[0]
    assert v.name == "NoDuplicates"
    assert labels(v)[-4:] == ["request_times_out(batch=batch1)", "request_times_out(batch=batch0)",
                              "send_batch(batch=batch1)", "broker_handles_produce(batch=batch1)"]
    last = v.trace[-1].state
    assert (last.log, last.epoch, last.seqs[1], last.failed) == ((0, 1, 1), 1, 0, {0})
    assert len(v.trace) == 12 == naive_shortest(spec, c, "NoDuplicates")


def test_the_bump_waits_for_the_connection_and_renumbers_in_sequence_order():
    from modelcheck.specs import producer_ordering as po

    spec = load_spec(SPEC)
    c = constants(spec, Idempotent="true", Kip360="true", Retries=0)
    s = po.send_batch(c, po.send_batch(c, next(iter(spec.init(c))), 0), 1)
    s = po.broker_handles_produce(c, po.broker_rejects_produce(c, s, 0), 1)  # batch1: out of order
    s = po.receive_response(c, s, 0)
    assert s.failed == {0} and s.bump
    assert po.send_batch(c, s, 2) is None  # batch1's response is still on its way
    s = po.receive_response(c, s, 1)
    s = po.send_batch(c, s, 2)
    assert (s.epoch, s.seqs, s.bump) == (1, (0, 1, 0), False)
    s = po.broker_handles_produce(c, s, 2)
    assert (s.log, s.broker_epoch, s.broker_seqs) == ((2,), 1, (0,))


@pytest.mark.parametrize("kip360,counts", [("false", (1046, 19)), ("true", (1736, 19))])
def test_every_batch_is_resolved_either_way(kip360, counts):
    """Without KIP-360 the later batches are not stuck: they are refused until their retries run out (failed)."""
    spec = load_spec(SPEC)
    values = {"Idempotent": "true", "Kip360": kip360}
    c = constants(spec, **values)
    r = modelcheck.check(spec, values, properties=["EveryBatchResolved"])
    assert (r.result, r.distinct_states, r.depth) == ("holds", *counts)
    assert nl.check_property(spec, c, "EveryBatchResolved") is None


def test_the_new_constants_change_no_default_count():
    _, _, r = run((), Idempotent="true", RetryOrder="keep", Kip360="false")
    assert (r.distinct_states, r.states_generated, r.depth) == (1046, 2210, 19)


def test_a_bad_value_is_refused_with_one_line(cli):
    p = cli("check", SPEC, "--const", "RetryOrder=sorted")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
