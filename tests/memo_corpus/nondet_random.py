"""``random`` seeded at module level: the spec is not deterministic, and every search must say so.

``random.seed(7)`` once at import makes the *sequence* repeatable, but an
action that draws from it gives different successors each time the same
state is expanded.  The spec's own code is refused (the preflight walk
expands states twice); the fast path must not answer instead, e.g. by
running the action once per set of reads and reusing that draw forever.
"""

import random
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"
random.seed(7)


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest counter", minimum=1, maximum=5)


class State(NamedTuple):
    counter: int
    ticket: int


def init(c):
    return [State(counter=0, ticket=0)]


@action("Bump")
def bump(c, s):
    if s.counter >= c.Limit:
        return None
    return State(counter=s.counter + 1, ticket=random.getrandbits(32))


@invariant("InRange", "The counter stays in range.")
def in_range(c, s):
    return 0 <= s.counter <= c.Limit


SPEC = Spec(name="nondet-random", title="random seeded at module level", constants=Config, init=init,
            actions=[bump], invariants=[in_range], deadlock_expected=True)
