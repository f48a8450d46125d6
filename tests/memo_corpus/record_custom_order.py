"""Records with their own ``__lt__`` (highest priority first), picked with ``min`` from a frozenset.

A newcomer gives a message record an order (``__lt__`` comparing
``priority`` the other way round) so that ``min(s.inflight)`` is the most
urgent message.  ``min`` calls that method on the records; a fast path
that compares records as plain tuples of their fields picks the least
priority instead.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
PRIORITY = Domain("priority", lambda c: range(3), str)


class Msg(NamedTuple):
    priority: int
    seq: int

    def __lt__(self, other):
        return (self.priority, -self.seq) > (other.priority, -other.seq)


@attrs.frozen
class Config:
    Sends: int = constant(2, "messages in all", minimum=1, maximum=3)


class State(NamedTuple):
    inflight: frozenset
    sent: int
    handled: tuple


def init(c):
    return [State(inflight=frozenset(), sent=0, handled=())]


@action("Send", priority=PRIORITY)
def send(c, s, priority):
    if s.sent >= c.Sends:
        return None
    return s._replace(inflight=s.inflight | {Msg(priority, s.sent)}, sent=s.sent + 1)


@action("Handle")
def handle(c, s):
    if not s.inflight:
        return None
    m = min(s.inflight)
    return s._replace(inflight=s.inflight - {m}, handled=s.handled + (m.priority,))


@invariant("UrgentFirst", "A low-priority message is never handled before a high one sent with it.")
def urgent_first(c, s):
    return s.handled[:2] != (2, 0)


SPEC = Spec(name="record-custom-order", title="records with their own __lt__", constants=Config, init=init,
            actions=[send, handle], invariants=[urgent_first], deadlock_expected=True)
