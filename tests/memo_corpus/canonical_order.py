"""A message set taken in the spec API's canonical order: ``canonical_sorted(s.msgs)[0]``.

Python iterates a frozenset of records by hash, so "the first message" would
depend on the set's history; the canonical order depends on the values
alone, on the spec's own code and on the memo tables' stand-ins (which
answer ``__class__`` with the value's class), so both paths take the same
message.  Messages hold strs, nested sets and tuples, so every kind of key
is compared; the invariant is violated only by the order this gives.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant
from modelcheck.spec.value_order import canonical_sorted

EXPECTED = "violated"


class Msg(NamedTuple):
    kind: str
    to: frozenset
    path: tuple


@attrs.frozen
class Config:
    Sends: int = constant(5, "messages sent before any is taken", minimum=2, maximum=6)


class S(NamedTuple):
    msgs: frozenset
    sent: int
    taken: tuple


KINDS = ("vote", "ack", "ask")


def init(c):
    return [S(frozenset(), 0, ())]


@action("Send")
def send(c, s):
    if s.sent >= c.Sends:
        return None
    n = s.sent
    m = Msg(KINDS[n % 3], frozenset(range(n % 3 + 1)), (n % 2,) * (n % 3))
    return s._replace(msgs=s.msgs | {m}, sent=n + 1)


@action("Take")
def take(c, s):
    if s.sent < c.Sends or not s.msgs:
        return None
    first = canonical_sorted(s.msgs)[0]
    return s._replace(msgs=s.msgs - {first}, taken=s.taken + (first.kind,))


@invariant("NotAckFirst", "the first message taken is not an ack")
def not_ack_first(c, s):
    return not s.taken or s.taken[0] != "ack"


SPEC = Spec(name="canonical-order", title="messages taken in the canonical order", constants=Config, init=init,
            actions=[send, take], invariants=[not_ack_first], deadlock_expected=True)
