"""Producer retries and max.in.flight: the seeds' reordering story, and the idempotent producer that fixes it.

The seed notes on the producer say: ``retries`` is how often a failed send is
tried again, and ``max.in.flight.requests.per.connection`` (default 5) how many
requests the producer's I/O thread sends before the broker answers.  With
retries > 0, if the first message fails, the second succeeds and the first then
succeeds on its retry, the order changes; to keep strict order with retries,
set max.in.flight to 1 so that only one request is ever outstanding, at a
cost in throughput.  Kafka 0.11 added the idempotent producer: each batch
carries the producer id and a per-partition sequence number, the broker
appends only the next sequence, answers a batch it already has as a
duplicate and refuses one that skips ahead, which keeps the order with up to
five requests in flight.

This spec (registered as ``producer-ordering``) follows one producer and one
partition leader through those steps:

* ``send_batch``: the sender thread drains the next batch of the accumulator
  into a ProduceRequest, while fewer than ``MaxInFlight`` are unanswered;
* ``broker_handles_produce``: the leader handles the oldest request on the
  connection (one TCP connection: in order) and appends it; with
  ``Idempotent=true`` it appends only the next sequence number, answers
  DUPLICATE_SEQUENCE_NUMBER (a success) for one among the last
  ``BrokerCache`` batches it wrote (Kafka's broker caches five per
  producer), and OUT_OF_ORDER_SEQUENCE_NUMBER for any other: one beyond the
  next, or an older one it no longer remembers (which is why Kafka refuses
  ``max.in.flight`` above 5 with idempotence: a retry can only be as old as
  the requests in flight);
* ``receive_response``: the callback gets a success, or the batch goes back
  into the accumulator while it has retries left (at the front, as Kafka's
  producer re-enqueues it; in sequence order when idempotent), else fails;
* the two failure points: ``broker_rejects_produce`` (a retriable error such
  as NotLeaderForPartition: nothing appended) and ``request_times_out``
  (the batch was appended, its success response is lost, the producer
  retries it).

Runs end when every batch is acknowledged or failed; states without
successors are expected.  The liveness property ``EveryBatchResolved`` says
so: every batch is eventually acknowledged or failed, under weak fairness of
the steps that make progress (sending, and so retrying; the broker handling
a request; the producer reading a response).  The failure points have no
fairness: errors may or may not happen.
"""

from __future__ import annotations

from modelcheck import Spec, action, all_of, eventually, liveness, weak
from modelcheck.specs.producer_state import (
    BATCH,
    DUPLICATE_SEQUENCE,
    NONE_ERROR,
    OUT_OF_ORDER_SEQUENCE,
    RETRIABLE_ERROR,
    ProducerConstants,
    ProducerState,
    in_flight,
    init,
    lanes,
    messages,
    view,
)


def _requeue(c: ProducerConstants, queue: tuple, batch: int) -> list[tuple]:
    """Where a batch to retry goes back into the accumulator.

    Kafka's producer (``keep``) puts it at the front, and in sequence order
    when idempotent; the mutant (``any``) at any place, so a retry may wait
    behind batches sent later.
    """
    if c.RetryOrder == "any":
        return [queue[:i] + (batch,) + queue[i:] for i in range(len(queue) + 1)]
    if not c.Idempotent:
        return [(batch,) + queue]
    return [tuple(sorted(queue + (batch,)))]


def _failed_attempt(c: ProducerConstants, s: ProducerState, batch: int):
    """The attempt failed: retry while the batch has retries left, else report the error to the application.

    With KIP-360 an idempotent producer then owes the partition an epoch
    bump: the failed batch leaves a gap in the sequence numbers that the
    broker would otherwise wait on forever.
    """
    if s.attempts[batch] <= c.Retries:
        queues = _requeue(c, s.queue, batch)
        if len(queues) == 1:
            return s._replace(queue=queues[0])
        return [s._replace(queue=q) for q in queues]
    return s._replace(failed=s.failed | {batch}, bump=s.bump or (c.Idempotent and c.Kip360))


@action("send_batch", batch=BATCH)
def send_batch(c: ProducerConstants, s: ProducerState, batch: int):
    """The sender sends the accumulator's next batch, if fewer than max.in.flight requests are unanswered."""
    if not s.queue or s.queue[0] != batch or in_flight(s) >= c.MaxInFlight:
        return None
    if s.bump:  # as Kafka's sender does first in its loop: the bump owed, once nothing is in flight
        if in_flight(s):
            return None
        s = _bump_epoch(c, s)
    attempts = s.attempts[:batch] + (s.attempts[batch] + 1,) + s.attempts[batch + 1:]
    return s._replace(queue=s.queue[1:], requests=s.requests + (batch,), attempts=attempts)


@action("broker_handles_produce", batch=BATCH)
def broker_handles_produce(c: ProducerConstants, s: ProducerState, batch: int):
    """The leader handles the oldest request: it appends the batch (idempotent: only the next sequence number)."""
    if not s.requests or s.requests[0] != batch:
        return None
    log, epoch, seqs = s.log, s.broker_epoch, s.broker_seqs
    code = NONE_ERROR
    if c.Idempotent:
        if s.epoch > epoch:  # the first request of a new producer epoch: the broker starts its sequences again
            epoch, seqs = s.epoch, ()
        seq = s.seqs[batch]
        expected = seqs[-1] + 1 if seqs else 0
        if seq in seqs[-c.BrokerCache:]:
            code = DUPLICATE_SEQUENCE
        elif seq != expected:
            code = OUT_OF_ORDER_SEQUENCE  # beyond the next sequence, or older than the cache remembers
        else:
            seqs = seqs + (seq,)
    if code == NONE_ERROR:
        log = log + (batch,)
    return s._replace(requests=s.requests[1:], responses=s.responses + ((batch, code),), log=log,
                      broker_epoch=epoch, broker_seqs=seqs)


@action("broker_rejects_produce", batch=BATCH)
def broker_rejects_produce(c: ProducerConstants, s: ProducerState, batch: int):
    """Failure point: the leader answers the oldest request with a retriable error and appends nothing."""
    if not s.requests or s.requests[0] != batch:
        return None
    return s._replace(requests=s.requests[1:], responses=s.responses + ((batch, RETRIABLE_ERROR),))


@action("receive_response", batch=BATCH)
def receive_response(c: ProducerConstants, s: ProducerState, batch: int):
    """The producer reads the oldest response: success (a duplicate counts as one), or a retry, or the error."""
    if not s.responses or s.responses[0][0] != batch:
        return None
    code = s.responses[0][1]
    t = s._replace(responses=s.responses[1:])
    if code in (NONE_ERROR, DUPLICATE_SEQUENCE):
        return t._replace(acked=t.acked | {batch})
    return _failed_attempt(c, t, batch)


@action("request_times_out", batch=BATCH)
def request_times_out(c: ProducerConstants, s: ProducerState, batch: int):
    """Failure point: the success response to the oldest request is lost, so the request times out and is retried.

    The broker has the batch all the same.  (Losing an error response ends
    like receiving it, so only lost successes are a step of their own.)
    """
    if not s.responses or s.responses[0] != (batch, NONE_ERROR) and s.responses[0] != (batch, DUPLICATE_SEQUENCE):
        return None
    return _failed_attempt(c, s._replace(responses=s.responses[1:]), batch)


def _bump_epoch(c: ProducerConstants, s: ProducerState) -> ProducerState:
    """KIP-360: the producer bumps its epoch and numbers the partition's unresolved batches again from 0, in their
    old sequence order (Kafka's ``startSequencesAtBeginning``).

    The broker starts afresh at the first request of the new epoch, so the
    gap left by the failed batch is gone; but a renumbered batch whose
    earlier attempt was written (its response lost) is a new batch to the
    broker, and is written again.
    """
    seqs = list(s.seqs)
    for n, b in enumerate(b for b in range(c.Batches) if b not in s.acked and b not in s.failed):
        seqs[b] = n
    return s._replace(epoch=s.epoch + 1, seqs=tuple(seqs), bump=False)


@liveness("EveryBatchResolved", "every batch is eventually acknowledged or failed")
def every_batch_resolved(c: ProducerConstants):
    """``\\A b: <>(b \\in acked \\cup failed)``: no batch waits forever, in the accumulator or on the connection."""
    return all_of(eventually(lambda c, s, b=b: b in s.acked or b in s.failed) for b in range(c.Batches))


FAIRNESS = [
    weak(send_batch),  # the sender thread sends (or re-sends) the accumulator's next batch while it may
    weak(broker_handles_produce),  # a request on the connection is handled (or refused: no fairness for that)
    weak(receive_response),  # a response on its way back is read (or lost: no fairness for that)
]
"""Weak fairness of the progress steps; none for ``broker_rejects_produce`` and ``request_times_out``."""


def _build() -> Spec:
    from modelcheck.invariants import producer_ordering as inv

    return Spec(
        name="producer-ordering",
        title="Producer retries and max.in.flight: reordering and duplicates, and the idempotent producer",
        constants=ProducerConstants,
        init=init,
        actions=[send_batch, broker_handles_produce, broker_rejects_produce, receive_response, request_times_out],
        invariants=inv.ALL + inv.OPTIONAL,
        default_invariants=inv.DEFAULT,
        sometimes=inv.SOMETIMES,
        properties=[every_batch_resolved],
        fairness=FAIRNESS,
        deadlock_expected=True,
        view=view,
        lanes=lanes,
        messages=messages,
        description=__doc__,
        reference="modelcheck.specs.producer_ordering:SPEC",
    )


SPEC = _build()
