"""A message record with its own ``__eq__``/``__hash__`` that ignore a sequence number.

"Two messages of the same kind are the same message" written as
``__eq__`` on the record: the states holding ``Msg(0, 1)`` and
``Msg(0, 2)`` are then equal, and the checker keeps the first reached.  A
fast path that compares the record's fields itself, or rebuilds a state
from stored field values, keeps both or keeps the other one.

The checker refuses such a spec before the search, on every path: it
fingerprints states by their values (as TLC does), so a record's equality
must be the tuple's; fingerprinting part of a state is what a view
(``Spec(fingerprint_view=...)``) is for.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


class Msg(NamedTuple):
    kind: int
    seq: int

    def __eq__(self, other):
        return self[0] == other[0]

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self[0])


@attrs.frozen
class Config:
    Sends: int = constant(3, "messages in all", minimum=1, maximum=4)


class State(NamedTuple):
    last: tuple
    sent: int
    score: int


def init(c):
    return [State(last=Msg(-3, 0), sent=0, score=0)]


@action("SendSame")
def send_same(c, s):
    if s.sent >= c.Sends:
        return None
    return s._replace(last=Msg(0, s.sent), sent=s.sent + 1)


@action("SendOther")
def send_other(c, s):
    if s.sent >= c.Sends:
        return None
    return s._replace(last=Msg(1, s.sent), sent=s.sent + 1)


@action("Score")
def score(c, s):
    if s.score:
        return None
    return s._replace(score=1 + s.last.seq)


@invariant("EarlyScore", "A score always comes from an early message.")
def early_score(c, s):
    return s.score < 3


SPEC = Spec(name="record-custom-eq", title="a record with its own __eq__", constants=Config, init=init,
            actions=[send_same, send_other, score], invariants=[early_score], deadlock_expected=True)
