"""A NamedTuple state class with its own ``__eq__`` and ``__hash__`` that ignore a bookkeeping field.

A newcomer who keeps a step counter "for the traces" but wants states that
differ only in it to count as one overrides equality and hashing.  The
checker's own search and the naive explorer then merge those states (the
first one reached is kept).  A fast path that compares parts itself, not
through the state's ``__eq__``, keeps them apart and counts more states,
or keeps a different representative and reaches other successors.

The checker refuses such a spec before the search, on every path: it
fingerprints states by their values (as TLC does), so a record's equality
must be the tuple's; fingerprinting part of a state is what a view
(``Spec(fingerprint_view=...)``) is for.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest position", minimum=1, maximum=5)


class State(NamedTuple):
    position: int
    steps: int
    """Bookkeeping: how many moves it took (ignored by equality)."""

    def __eq__(self, other):
        return self[0] == other[0]

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self[0])


def init(c):
    return [State(position=0, steps=0)]


@action("Forward")
def forward(c, s):
    if s.position >= c.Limit:
        return None
    return State(s.position + 1, s.steps + 1)


@action("Jump")
def jump(c, s):
    if s.position + 2 > c.Limit:
        return None
    return State(s.position + 2, s.steps + 1)


@invariant("QuickArrival", "Whoever reaches the end got there in fewer moves than the end's position.")
def quick_arrival(c, s):
    return s.position < c.Limit or s.steps < c.Limit - 1


SPEC = Spec(name="custom-eq-hash", title="a state class with its own __eq__ and __hash__", constants=Config,
            init=init, actions=[forward, jump], invariants=[quick_arrival], deadlock_expected=True)
