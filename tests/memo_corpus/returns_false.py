"""``return guard and s._replace(...)``: the action returns ``False`` (not a state) once the guard fails.

docs/writing-specs.md warns against exactly this; the spec's own code
stops with an error naming the action.  The guard fails only in a later
state, after the action has returned states several times; a fast path
must run into the same error, not reuse an earlier successor.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest counter", minimum=1, maximum=5)


class State(NamedTuple):
    counter: int
    other: int


def init(c):
    return [State(0, 0)]


@action("Bump")
def bump(c, s):
    return s.counter < c.Limit and s._replace(counter=s.counter + 1)


@invariant("InRange", "The counter stays in range.")
def in_range(c, s):
    return s.counter <= c.Limit


SPEC = Spec(name="returns-false", title="an action returning False", constants=Config, init=init,
            actions=[bump], invariants=[in_range], deadlock_expected=True)
