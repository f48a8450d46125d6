"""A field that is an int in some states and a tuple (of varying length) in others.

"Nothing pending" as ``-1`` and "pending" as a ``(kind, value)`` pair, or a
slot that holds ``()``, ``(x,)`` or ``(x, y)``: natural for a newcomer,
legal (every value is canonical), and a trap for a fast path that fixes a
part's shape from the first state it sees (splitting a pair into two
items, or a tuple of length 1 into one).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
NOTHING = -1
KIND = Domain("kind", lambda c: range(2), str)


@attrs.frozen
class Config:
    Rounds: int = constant(2, "requests in all", minimum=1, maximum=3)


class State(NamedTuple):
    pending: object
    """NOTHING, or a (kind, value) pair."""
    slot: tuple
    """(), (x,) or (x, y)."""
    rounds: int


def init(c):
    return [State(pending=NOTHING, slot=(), rounds=0)]


@action("Request", kind=KIND)
def request(c, s, kind):
    if s.pending != NOTHING or s.rounds >= c.Rounds:
        return None
    return s._replace(pending=(kind, s.rounds), rounds=s.rounds + 1)


@action("Serve")
def serve(c, s):
    if s.pending == NOTHING:
        return None
    kind, value = s.pending
    slot = (s.slot + (kind + value,))[-2:]
    return s._replace(pending=NOTHING, slot=slot)


@invariant("NoFullOnes", "The slot never holds two ones.")
def no_full_ones(c, s):
    return s.slot != (1, 1) and s.slot != (1, 2)


SPEC = Spec(name="shape-change", title="a part whose shape changes", constants=Config, init=init,
            actions=[request, serve], invariants=[no_full_ones], deadlock_expected=True)
