"""``producer-ordering``: the seeds' rule on retries and max.in.flight, and the idempotent producer.

Verdicts and trace labels are asserted as the story goes; the lengths of the
shortest traces are confirmed by a plain BFS over full states
(``naive_shortest``), and the state counts of the checks that hold by the
naive explorer, both in ``tests/naive.py``.
"""

from __future__ import annotations

import pytest

import modelcheck
import naive_liveness as nl
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


@pytest.mark.slow
def test_cli_commands(cli):
    p = cli("check", SPEC, "--const", "MaxInFlight=2", "--const", "Idempotent=false", "--invariant", "InOrder", "-q")
    assert p.returncode == 1 and "(8 states)" in p.stdout and "log = [batch1, batch0]" in p.stdout
    p = cli("check", SPEC, "--const", "MaxInFlight=1", "--invariant", "InOrder", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "MaxInFlight=5", "--const", "Idempotent=true", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "Idempotent=false", "--invariant", "NoDuplicates", "-q")
    assert p.returncode == 1 and "(6 states)" in p.stdout


@pytest.mark.slow
def test_compiled_and_interpreted_give_identical_results(cli):
    args = ("check", SPEC, "--const", "Idempotent=true", "--json")
    a = cli(*args, env={INTERPRETED_ENV: ""})
    b = cli(*args, env={INTERPRETED_ENV: "1"})
    assert a.returncode == b.returncode == 0
    assert json_report(a) == json_report(b)


# -- the broker's sequence cache: why max.in.flight <= 5 with idempotence --------------------------------------

ALL_FOUR = ("InOrder", "NoDuplicates", "AckedBatchesWritten", "DuplicatesRecognised")


def _variant(*, handle=None, fairness=None):
    """producer-ordering with another ``broker_handles_produce`` or other fairness (a mutant), the rest the spec's."""
    from modelcheck import Spec, weak
    from modelcheck.invariants import producer_ordering as inv
    from modelcheck.specs import producer_ordering as po
    from modelcheck.specs.producer_state import ProducerConstants, init

    if fairness is None:
        fairness = [weak(f.action) if f.action is not po.broker_handles_produce or handle is None else weak(handle)
                    for f in po.FAIRNESS]
    handle = handle or po.broker_handles_produce
    return Spec(name=SPEC, title="producer-ordering (mutant)", constants=ProducerConstants, init=init,
                actions=[po.send_batch, handle, po.broker_rejects_produce, po.receive_response,
                         po.request_times_out],
                invariants=inv.ALL, sometimes=inv.SOMETIMES, deadlock_expected=True,
                properties=[po.every_batch_resolved], fairness=fairness)


def _broker_remembering_every_batch():
    """The mutant broker of before: a duplicate is any sequence below the next one, however old."""
    from modelcheck import action
    from modelcheck.specs.producer_state import BATCH, DUPLICATE_SEQUENCE, NONE_ERROR, OUT_OF_ORDER_SEQUENCE

    @action("broker_handles_produce", batch=BATCH)
    def broker_handles_produce(c, s, batch):
        if not s.requests or s.requests[0] != batch:
            return None
        expected = s.log[-1] + 1 if s.log else 0
        code = NONE_ERROR
        if c.Idempotent and batch != expected:
            code = DUPLICATE_SEQUENCE if batch < expected else OUT_OF_ORDER_SEQUENCE
        log = s.log + (batch,) if code == NONE_ERROR else s.log
        return s._replace(requests=s.requests[1:], responses=s.responses + ((batch, code),), log=log)

    return broker_handles_produce


def test_more_in_flight_than_the_broker_caches_a_retried_batch_is_refused_though_written():
    """MaxInFlight=2, BrokerCache=1: batch0 and batch1 are written, batch0's ack is lost, its retry arrives
    when the broker remembers only batch1: OUT_OF_ORDER_SEQUENCE_NUMBER for a batch the log holds."""
    from modelcheck.specs.producer_state import OUT_OF_ORDER_SEQUENCE

    spec, c, r = run(ALL_FOUR, MaxInFlight=2, Idempotent="true", BrokerCache=1)
    v = r.violations[0]
    assert v.name == "DuplicatesRecognised"
    assert labels(v) == [
        "send_batch(batch=batch0)",
        "send_batch(batch=batch1)",
        "broker_handles_produce(batch=batch0)",
        "broker_handles_produce(batch=batch1)",  # the cache now holds batch1 only
        "request_times_out(batch=batch0)",  # batch0's success is lost: it is retried
        "send_batch(batch=batch0)",
        "broker_handles_produce(batch=batch0)",  # not recognised: out of order
    ]
    last = v.trace[-1].state
    assert last.log == (0, 1) and last.responses[-1] == (0, OUT_OF_ORDER_SEQUENCE)
    assert len(v.trace) == 8 == naive_shortest(spec, c, "DuplicatesRecognised")
    # The other invariants still hold there: the broker appends nothing it refuses, so the log is right; the
    # harm is to the producer, which retries batch0 (out of retries here: it tells the application it failed).
    for inv in spec.invariants:
        assert inv.fn(c, last) == (inv.name != "DuplicatesRecognised")
    from modelcheck.specs import producer_ordering as po

    end = po.receive_response(c, po.receive_response(c, last, 1), 0)
    assert end.acked == {1} and end.failed == {0} and 0 in end.log


def test_five_in_flight_and_a_cache_of_four_fail_with_five_batches():
    """Kafka's bound, one below: the retry of the first of five batches comes after four later ones."""
    spec, c, r = run(("DuplicatesRecognised",), MaxInFlight=5, Idempotent="true", BrokerCache=4, Batches=5)
    v = r.violations[0]
    assert v.name == "DuplicatesRecognised" and len(v.trace) == 14
    assert v.trace[-1].state.log == (0, 1, 2, 3, 4)
    assert labels(v)[-3:] == ["request_times_out(batch=batch0)", "send_batch(batch=batch0)",
                              "broker_handles_produce(batch=batch0)"]


@pytest.mark.parametrize("in_flight,cache", [(1, 1), (2, 2), (3, 3), (2, 1), (3, 2)])
def test_the_cache_recognises_every_retry_exactly_when_it_is_at_least_max_in_flight(in_flight, cache):
    spec, c, r = run(ALL_FOUR, MaxInFlight=in_flight, Idempotent="true", BrokerCache=cache)
    if in_flight <= cache:
        assert r.result == "holds"
        assert r.sometimes_reached == {"SomeBatchRetried": True, "AllBatchesAcked": True}
        assert_counts_match_naive(spec, c, r)
    else:
        (v,) = r.violations
        assert v.name == "DuplicatesRecognised"
        assert len(v.trace) == naive_shortest(spec, c, "DuplicatesRecognised")


def test_the_cache_is_what_breaks_it():
    """Mutant: the broker of before, remembering every batch, recognises the old retry (the same config holds)."""
    spec = _variant(handle=_broker_remembering_every_batch())
    c = constants(spec, MaxInFlight=2, Idempotent="true", BrokerCache=1)
    r = modelcheck.check(spec, {"MaxInFlight": 2, "Idempotent": True, "BrokerCache": 1})
    assert r.result == "holds"
    assert_counts_match_naive(spec, c, r)


def test_the_default_cache_changes_no_count():
    """BrokerCache=5 >= MaxInFlight: the counts of the idempotent check are those of a broker remembering all."""
    spec, c, r = run((), MaxInFlight=5, Idempotent="true")
    assert (r.result, r.distinct_states, r.depth) == ("holds", 1046, 19)
    mutant = modelcheck.check(_variant(handle=_broker_remembering_every_batch()), {"Idempotent": True})
    assert (mutant.distinct_states, mutant.states_generated) == (r.distinct_states, r.states_generated)


def test_the_cache_lookup_itself():
    """A step by step: the retry of a batch inside the cache is a duplicate, one outside it is out of order."""
    from modelcheck.specs import producer_ordering as po
    from modelcheck.specs.producer_state import DUPLICATE_SEQUENCE, OUT_OF_ORDER_SEQUENCE

    spec = load_spec(SPEC)
    for cache, code in ((2, DUPLICATE_SEQUENCE), (1, OUT_OF_ORDER_SEQUENCE)):
        c = constants(spec, Idempotent="true", MaxInFlight=2, BrokerCache=cache)
        s = po.send_batch(c, po.send_batch(c, next(iter(spec.init(c))), 0), 1)
        s = po.broker_handles_produce(c, po.broker_handles_produce(c, s, 0), 1)
        s = po.broker_handles_produce(c, po.send_batch(c, po.request_times_out(c, s, 0), 0), 0)
        assert s.log == (0, 1) and s.responses[-1] == (0, code)


# -- liveness: every batch is eventually acknowledged or failed ------------------------------------------------


LIVENESS_CONFIGS = [
    {"Idempotent": "true"},
    {"Idempotent": "false", "MaxInFlight": 2},
    {"Idempotent": "true", "MaxInFlight": 2, "BrokerCache": 1, "Retries": 2},
]


def _live(spec, values, fairness="spec"):
    return modelcheck.check(spec, values, properties=["EveryBatchResolved"], fairness=fairness)


@pytest.mark.parametrize("values", LIVENESS_CONFIGS)
def test_every_batch_is_resolved_under_fairness(values):
    """Weak fairness of sending, handling and reading: no state where only errors could help is a dead end."""
    spec = load_spec(SPEC)
    c = constants(spec, **values)
    r = _live(spec, values)
    assert r.result == "holds"
    assert nl.check_property(spec, c, "EveryBatchResolved") is None
    assert_counts_match_naive(spec, c, r)


@pytest.mark.parametrize("values", LIVENESS_CONFIGS)
def test_without_fairness_the_producer_may_never_send(values):
    """--fairness none: stuttering in the initial state forever is a behaviour, and nothing is resolved."""
    spec = load_spec(SPEC)
    c = constants(spec, **values)
    r = _live(spec, values, fairness="none")
    v = r.violation
    assert (v.kind, v.name, len(v.trace), v.loop_start) == ("liveness", "EveryBatchResolved", 1, None)
    lasso = nl.check_property(_variant(fairness=[]), c, "EveryBatchResolved")
    assert lasso is not None and lasso.loop_start is None


@pytest.mark.parametrize("dropped", ["send_batch", "broker_handles_produce", "receive_response"])
def test_each_fairness_condition_matters(dropped):
    """Without one of the three, a behaviour stops where only that step (or a failure) could go on."""
    from modelcheck.specs import producer_ordering as po

    fairness = [f for f in po.FAIRNESS if f.actions[0].__name__ != dropped]
    assert len(fairness) == 2
    spec = _variant(fairness=fairness)
    values = {"Idempotent": "true"}
    c = constants(spec, **values)
    v = _live(spec, values).violation
    assert v.kind == "liveness" and v.loop_start is None  # ends stuttering
    last = v.trace[-1].state
    enabled = {a.name for a in spec.actions for b in a.bindings(c) if a.fn(c, last, *b) not in (None, last)}
    assert dropped in enabled and enabled <= {dropped, "broker_rejects_produce", "request_times_out"}
    lasso = nl.check_property(spec, c, "EveryBatchResolved")
    assert lasso is not None and lasso.loop_start is None


def test_the_progress_actions_fire():
    """Every action of the spec, the cache's refusal of an old retry included, is taken in some state."""
    from modelcheck.specs.producer_state import DUPLICATE_SEQUENCE, OUT_OF_ORDER_SEQUENCE

    spec = load_spec(SPEC)
    c = constants(spec, Idempotent="true", MaxInFlight=2, BrokerCache=1)
    g = nl.build_graph(spec, c)
    taken = {lab[0] for out in g.succ for labs in out.values() for lab in labs}
    assert taken == {a.name for a in spec.actions}
    codes = {(code, b in s.log) for s in g.states for b, code in s.responses}
    assert {(DUPLICATE_SEQUENCE, True), (OUT_OF_ORDER_SEQUENCE, True), (OUT_OF_ORDER_SEQUENCE, False)} <= codes


@pytest.mark.slow
def test_cli_cache_and_liveness_commands(cli):
    base = ("check", SPEC, "--const", "Idempotent=true", "--const", "MaxInFlight=2")
    p = cli(*base, "--const", "BrokerCache=1", "-q")
    assert p.returncode == 1 and "Invariant DuplicatesRecognised is violated" in p.stdout and "(8 states)" in p.stdout
    p = cli(*base, "--const", "BrokerCache=2", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "Idempotent=true", "--property", "EveryBatchResolved", "-q")
    assert p.returncode == 0
    p = cli("check", SPEC, "--const", "Idempotent=true", "--property", "EveryBatchResolved", "--fairness", "none", "-q")
    assert p.returncode == 1 and "Stuttering: the behavior stays in state 1 forever." in p.stdout
