"""A module-level counter with ``global`` whose parity leaks into the successor.

``_CALLS`` grows with every call and the action returns ``_CALLS % 2`` in
the state, so expanding the same state twice gives two successors: the
spec is not deterministic.  The spec's own code is refused for it; the
fast path, which would call the action once per set of reads and reuse
that answer, must not answer instead.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"
_CALLS = 0


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest counter", minimum=1, maximum=5)


class State(NamedTuple):
    counter: int
    late: int


def init(c):
    return [State(counter=0, late=0)]


@action("Bump")
def bump(c, s):
    global _CALLS
    _CALLS += 1
    if s.counter >= c.Limit:
        return None
    return State(counter=s.counter + 1, late=_CALLS % 2)


@invariant("InRange", "The counter stays in range.")
def in_range(c, s):
    return 0 <= s.counter <= c.Limit


SPEC = Spec(name="nondet-global-counter", title="a global call counter", constants=Config, init=init,
            actions=[bump], invariants=[in_range], deadlock_expected=True)
