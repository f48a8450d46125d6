"""``producer-ordering``: the seeds' rule on retries and max.in.flight, and the idempotent producer.

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

SPEC = "producer-ordering"


def run(invariants, **values):
    return run_spec(SPEC, invariants, **values)


def test_two_in_flight_a_retried_batch_lands_after_a_later_one():
    """The seeds' story: batch0 fails, batch1 succeeds, batch0 succeeds on its retry."""
    spec, c, r = run(("InOrder",), MaxInFlight=2, Idempotent="false")
    v = r.violations[0]
    assert v.name == "InOrder"
    assert labels(v) == [
        "send_batch(batch=batch0)",
        "send_batch(batch=batch1)",  # two requests in flight
        "broker_rejects_produce(batch=batch0)",  # e.g. NotLeaderForPartition: nothing appended
        "broker_handles_produce(batch=batch1)",
        "receive_response(batch=batch0)",  # a retriable error: batch0 goes back to the accumulator
        "send_batch(batch=batch0)",
        "broker_handles_produce(batch=batch0)",
    ]
    assert v.trace[-1].state.log == (1, 0)
    assert len(v.trace) == naive_shortest(spec, c, "InOrder")


def test_one_in_flight_keeps_the_order():
    """The seeds' remedy: max.in.flight = 1, so batch1 is sent only once batch0 is answered for good."""
    spec, c, r = run(("InOrder",), MaxInFlight=1, Idempotent="false")
    assert r.result == "holds"
    assert r.sometimes_reached["SomeBatchRetried"]
    assert_counts_match_naive(spec, c, r)


@pytest.mark.parametrize("in_flight", [1, 5])
def test_retries_without_idempotence_write_a_batch_twice(in_flight):
    """Whatever max.in.flight is: the ack is lost, the batch is sent again and written again."""
    spec, c, r = run(("NoDuplicates",), MaxInFlight=in_flight, Idempotent="false")
    v = r.violations[0]
    assert labels(v) == [
        "send_batch(batch=batch0)",
        "broker_handles_produce(batch=batch0)",
        "request_times_out(batch=batch0)",  # the success response is lost
        "send_batch(batch=batch0)",
        "broker_handles_produce(batch=batch0)",
    ]
    assert v.trace[-1].state.log == (0, 0)
    assert len(v.trace) == naive_shortest(spec, c, "NoDuplicates")


def test_the_idempotent_producer_keeps_order_and_writes_once_with_five_in_flight():
    spec, c, r = run(("InOrder", "NoDuplicates", "AckedBatchesWritten"), MaxInFlight=5, Idempotent="true")
    assert r.result == "holds"
    assert r.sometimes_reached == {"SomeBatchRetried": True, "AllBatchesAcked": True}
    assert_counts_match_naive(spec, c, r)


def test_without_retries_nothing_is_reordered_or_duplicated():
    """Each batch is sent once over one FIFO connection: the log can only be in order (some batches may fail)."""
    spec, c, r = run(("InOrder", "NoDuplicates", "AckedBatchesWritten"), Retries=0)
    assert r.result == "holds"
    assert not r.sometimes_reached["SomeBatchRetried"]
    assert_counts_match_naive(spec, c, r)


def test_one_batch_state_count_by_hand():
    """Batches=1, Retries=1, not idempotent, counted by hand (attempt, where the batch is, the log):

    1 in the accumulator; attempt 1: 2 request in flight, 3 answered NONE (log [0]),
    4 answered with an error (log []), 5 acked (log [0]), 6 back in the accumulator
    after a lost success (log [0]), 7 back after the error (log []); attempt 2:
    8, 9 request in flight (log [0] / []), 10 NONE (log [0, 0]), 11 error (log [0]),
    12 NONE (log [0]), 13 error (log []), then 14 acked [0, 0], 15 failed [0, 0]
    (a second lost success), 16 failed [0] (from 11 or a lost success in 12),
    17 acked [0], 18 failed [].  18 distinct states; the longest shortest path is
    1, 2, 3, 6, 8, 10, 14: depth 7.
    """
    spec, c, r = run((), Batches=1)
    assert (r.result, r.distinct_states, r.depth) == ("holds", 18, 7)


def test_the_idempotent_broker_answers_a_retried_batch_it_has_as_a_success():
    """The duplicate check itself: a batch whose ack was lost is not written again, and is acknowledged."""
    from modelcheck.specs import producer_ordering as po
    from modelcheck.specs.producer_state import DUPLICATE_SEQUENCE, OUT_OF_ORDER_SEQUENCE

    spec = load_spec(SPEC)
    c = constants(spec, Idempotent="true")
    s = next(iter(spec.init(c)))
    s = po.broker_handles_produce(c, po.send_batch(c, s, 0), 0)
    s = po.send_batch(c, po.request_times_out(c, s, 0), 0)
    s = po.broker_handles_produce(c, s, 0)
    assert s.log == (0,) and s.responses == ((0, DUPLICATE_SEQUENCE),)
    assert po.receive_response(c, s, 0).acked == {0}
    # A batch that skips a sequence number is refused, and nothing is appended.
    s = po.send_batch(c, po.send_batch(c, next(iter(spec.init(c))), 0), 1)
    s = po.broker_handles_produce(c, po.broker_rejects_produce(c, s, 0), 1)
    assert s.log == () and s.responses[-1] == (1, OUT_OF_ORDER_SEQUENCE)


def test_cli_commands(cli):
    p = cli("check", SPEC, "--const", "MaxInFlight=2", "--const", "Idempotent=false", "--invariant", "InOrder", "-q")
    assert p.returncode == 1 and "(8 states)" in p.stdout and "log = [batch1, batch0]" in p.stdout
    p = cli("check", SPEC, "--const", "MaxInFlight=1", "--invariant", "InOrder", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "MaxInFlight=5", "--const", "Idempotent=true", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "Idempotent=false", "--invariant", "NoDuplicates", "-q")
    assert p.returncode == 1 and "(6 states)" in p.stdout


def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "Idempotent=true", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 0
    assert json_report(a) == json_report(b)
