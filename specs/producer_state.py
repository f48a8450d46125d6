"""State, constants and display of the ``producer-ordering`` spec (one producer, one partition).

Kept apart from the actions so that the invariants (``invariants/producer_ordering.py``)
can import the state without importing the spec.

Encoding (canonical: ints, bools, tuples, frozensets only):

* batches are ``0 .. Batches-1`` in the order the application sent them, shown
  ``batch0 ..``; with ``Idempotent=true`` a batch's sequence number is its index
  (the producer id is fixed: one producer);
* the accumulator, the requests on the connection and the responses coming back
  are tuples in FIFO order (one TCP connection: the broker handles requests in
  the order they were sent, and the producer reads responses in that order);
* a response is ``(batch, code)`` with ``code`` one of the error codes below;
* the idempotent broker's memory of the producer is ``broker_epoch`` and
  ``broker_seqs``, the sequence numbers it appended in that epoch (its cache is
  the last ``BrokerCache`` of them); without an epoch bump a batch's sequence
  number is its index, so ``broker_seqs`` is the log and no count changes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from modelcheck import Domain, constant
from modelcheck.specs.message_events import send
from modelcheck.specs.naming import named

NONE_ERROR = 0
"""The broker appended the batch."""
RETRIABLE_ERROR = 1
"""NotLeaderForPartition / NotEnoughReplicas: nothing appended, the producer may retry."""
OUT_OF_ORDER_SEQUENCE = 2
"""Idempotent broker: the batch's sequence number is beyond the next one expected; nothing appended."""
DUPLICATE_SEQUENCE = 3
"""Idempotent broker: the batch was already appended; answered as a success, nothing appended."""

CODE_NAMES = {
    NONE_ERROR: "NONE (written)",
    RETRIABLE_ERROR: "NOT_LEADER_FOR_PARTITION",
    OUT_OF_ORDER_SEQUENCE: "OUT_OF_ORDER_SEQUENCE_NUMBER",
    DUPLICATE_SEQUENCE: "DUPLICATE_SEQUENCE_NUMBER",
}


RETRY_ORDERS = ("keep", "any")


@attrs.frozen
class ProducerConstants:
    """The producer settings the seeds' ordering rule is about, and the bound on batches.

    The defaults are the seeds' world: retries > 0 and the default of five
    requests in flight, without the idempotent producer (Kafka 0.11).
    """

    MaxInFlight: int = constant(
        5, "max.in.flight.requests.per.connection: requests sent and not yet answered (Kafka refuses more "
           "than 5 with idempotence)", minimum=1, maximum=5)
    Retries: int = constant(1, "retries: how many times one batch is sent again after a failed attempt",
                            minimum=0, maximum=3)
    Idempotent: bool = constant(
        False, "enable.idempotence: batches carry a producer id and sequence number, and the broker "
               "appends only the next sequence (Kafka 0.11)")
    Batches: int = constant(3, "batches the application sends to the partition, in this order",
                            minimum=1, maximum=5)
    BrokerCache: int = constant(
        5, "with idempotence: how many of the producer's last batches the broker remembers the sequence "
           "numbers of (Kafka: 5); an older retried batch is not recognised as a duplicate", minimum=1, maximum=5)
    RetryOrder: str = constant(
        "keep", "where a retried batch re-enters the accumulator: keep (Kafka: at the front, in sequence order "
                "when idempotent) or any (a mutant producer: at any place)", choices=RETRY_ORDERS)
    Kip360: bool = constant(
        False, "with idempotence, a batch that fails for good makes the producer bump its epoch and number the "
               "partition's unresolved batches again from 0 (KIP-360); false: the sequence gap stays")


class ProducerState(NamedTuple):
    """The producer's accumulator and in-flight requests, the connection, and the partition's log."""

    queue: tuple
    """Batches waiting in the accumulator, the next to send first (retried batches go back in here)."""
    requests: tuple
    """ProduceRequests on the connection, oldest first: sent, not yet handled by the broker."""
    responses: tuple
    """``(batch, code)`` responses on their way back, oldest first."""
    attempts: tuple
    """Per batch: how many times it was sent."""
    acked: frozenset
    """Batches the application's callback was told are written."""
    failed: frozenset
    """Batches whose retries ran out: the callback got the error."""
    log: tuple
    """The partition's log: batch ids in offset order."""
    epoch: int = 0
    """The producer's epoch (bumped by KIP-360 after a batch failed for good)."""
    seqs: tuple = ()
    """Per batch: its sequence number in the producer's current epoch."""
    bump: bool = False
    """A batch failed for good: the producer's next send first bumps its epoch, once nothing is in flight (KIP-360)."""
    broker_epoch: int = 0
    """The highest producer epoch the broker has seen."""
    broker_seqs: tuple = ()
    """Sequence numbers the broker appended in ``broker_epoch``, in order (its cache is the last ``BrokerCache``)."""


def batch_name(b: int) -> str:
    """``batch0`` for the first batch the application sent."""
    return f"batch{b}"


BATCH = Domain("batch", lambda c: range(c.Batches), batch_name)


def in_flight(s: ProducerState) -> int:
    """Requests sent and not yet answered: on the connection, handled by the broker, or answered in transit."""
    return len(s.requests) + len(s.responses)


def init(c: ProducerConstants):
    """Every batch waits in the accumulator, in the application's order; nothing sent, the log empty."""
    yield ProducerState(
        queue=tuple(range(c.Batches)),
        requests=(),
        responses=(),
        attempts=(0,) * c.Batches,
        acked=frozenset(),
        failed=frozenset(),
        log=(),
        seqs=tuple(range(c.Batches)),
    )


def _batches(batches) -> str:
    """``[batch2, batch0]``: in the sequence's own order (FIFO), unlike the sorted sets of replicas and brokers."""
    return named(batches, batch_name, ordered=True, brackets="[]")


def view(c: ProducerConstants, s: ProducerState) -> dict[str, Any]:
    """Every variable by name: the producer's side, the connection, and the log."""
    return {
        "producer": {
            "accumulator": _batches(s.queue),
            "attempts": {batch_name(b): n for b, n in enumerate(s.attempts)},
            "acked": _batches(sorted(s.acked)),
            "failed": _batches(sorted(s.failed)),
        },
        "connection": {
            "requests": _batches(s.requests),
            "responses": "[" + ", ".join(f"{batch_name(b)}: {CODE_NAMES[code]}" for b, code in s.responses) + "]",
        },
        "log": _batches(s.log),
    } | (_epochs(s) if c.Kip360 else {})


def _epochs(s: ProducerState) -> dict[str, Any]:
    """The epochs and sequence numbers, shown only where KIP-360 can change them (other traces stay as they were)."""
    return {"epochs": {"producer": s.epoch, "broker": s.broker_epoch, "bumpPending": s.bump,
                       "sequences": {batch_name(b): q for b, q in enumerate(s.seqs)},
                       "brokerSequences": list(s.broker_seqs)}}


STATUS_ANSWERS = {
    NONE_ERROR: "written",
    RETRIABLE_ERROR: "retriable error",
    OUT_OF_ORDER_SEQUENCE: "out of order",
    DUPLICATE_SEQUENCE: "duplicate",
}
"""A response's code in a batch's status: short, so that a sequence diagram's note beside the lifeline shows
it whole (the messages and variables name the Kafka error code)."""


def _status(s: ProducerState, b: int) -> str:
    if b in s.acked:
        return "acked"
    if b in s.failed:
        return "failed"
    for rb, code in s.responses:
        if rb == b:
            return f"answered: {STATUS_ANSWERS[code]}"
    if b in s.requests:
        return "in flight"
    if b in s.queue:
        return "to retry" if s.attempts[b] else "in accumulator"
    return "-"


def lanes(c: ProducerConstants, s: ProducerState) -> dict[str, dict[str, Any]]:
    """The leader's log, then one lane per batch: at which offsets of the log it landed, where it is, and how
    often it was sent.

    The leader's lane has only its ``log`` (a batch per offset), which the
    renderers draw as cells: in a sequence diagram, a strip under the
    leader's lifeline at each step that writes to it.  A batch's offsets
    come first: a note beside its lifeline lists the changed fields in this
    order.
    """
    out: dict[str, dict[str, Any]] = {LEADER: {"log": _batches(s.log)}}
    for b in range(c.Batches):
        offsets = [str(i) for i, x in enumerate(s.log) if x == b]
        out[batch_name(b)] = {
            "log offsets": ", ".join(offsets) if offsets else "-",
            "status": _status(s, b),
            "sent": s.attempts[b],
        }
    return out


PRODUCER = "producer"
"""The producer's actor name in sequence diagrams (its sender thread and callbacks)."""
LEADER = "leader"
"""The partition leader's actor name, and its lane (its log; the batches have a lane each)."""


def _request(b: int, attempt: int) -> str:
    """A ProduceRequest's message id: one batch has at most one attempt in flight, so (batch, attempt) is unique."""
    return f"Produce {batch_name(b)} attempt {attempt}"


def _response(b: int, attempt: int) -> str:
    return f"ProduceResponse {batch_name(b)} attempt {attempt}"


def _answer(b: int, code: int, offset: int) -> str:
    """What the leader answers, with the offset it wrote the batch at."""
    if code == NONE_ERROR:
        return f"{batch_name(b)}: written at offset {offset}"
    if code == DUPLICATE_SEQUENCE:
        return f"{batch_name(b)}: {CODE_NAMES[code]} (a success)"
    return f"{batch_name(b)}: {CODE_NAMES[code]}"


def messages(c: ProducerConstants, s: ProducerState, t: ProducerState, action: str,
             params: dict[str, str]) -> list[dict]:
    """What the step ``s -> t`` sends and delivers between the producer and the partition leader.

    * ``send_batch``: a ProduceRequest for the batch (with its sequence number
      when idempotent, and which attempt it is), in flight until the leader
      handles it: the connection is FIFO, so arrows never overtake;
    * ``broker_handles_produce`` / ``broker_rejects_produce``: the leader
      takes the request and sends its response (written at which offset, a
      duplicate, out of order, or a retriable error);
    * ``receive_response``: the producer reads the response;
    * ``request_times_out``: the success response is lost, so it is drawn
      dropped, and the batch goes back to the accumulator.
    """
    if action == "send_batch":
        b = s.queue[0]
        attempt = t.attempts[b]
        seq = f", seq {t.seqs[b]}" if c.Idempotent else ""
        seq += f", epoch {t.epoch}" if c.Kip360 else ""
        return [send(_request(b, attempt), PRODUCER, LEADER, f"Produce({batch_name(b)}{seq}, attempt {attempt})",
                     "Produce", delivered=False)]
    if action in ("broker_handles_produce", "broker_rejects_produce"):
        b = s.requests[0]
        attempt = s.attempts[b]
        code = t.responses[-1][1]
        return [{"receive": _request(b, attempt)},
                send(_response(b, attempt), LEADER, PRODUCER, _answer(b, code, len(s.log)), "Produce", delivered=False,
                     response=True)]
    if action == "receive_response":
        b = s.responses[0][0]
        return [{"receive": _response(b, s.attempts[b])}]
    if action == "request_times_out":
        b = s.responses[0][0]
        return [{"drop": _response(b, s.attempts[b]), "why": "lost: the request times out"}]
    return []
