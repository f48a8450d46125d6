"""A mutable default argument that accumulates: ``def fresh(v, seen=[])`` remembers every call.

The classic Python pitfall: the list is created once, so the helper's
answer depends on the calls before it, and the same state expanded twice
gives different successors.  The spec's own code is refused as not
deterministic; the fast path must fail the same way rather than answer.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


def fresh(v, seen=[]):
    seen.append(v)
    return seen.count(v) == 1


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest counter", minimum=1, maximum=5)


class State(NamedTuple):
    counter: int
    fresh: int


def init(c):
    return [State(counter=0, fresh=0)]


@action("Bump")
def bump(c, s):
    if s.counter >= c.Limit:
        return None
    return State(counter=s.counter + 1, fresh=int(fresh(s.counter)))


@invariant("InRange", "The counter stays in range.")
def in_range(c, s):
    return 0 <= s.counter <= c.Limit


SPEC = Spec(name="nondet-default-accumulates", title="an accumulating mutable default", constants=Config,
            init=init, actions=[bump], invariants=[in_range], deadlock_expected=True)
