"""An ``assert`` in an action that fails in one reachable state: the spec's own code stops with an error.

A spec author checks an assumption where it is used.  The assertion reads
a part the action's result does not depend on, in a state the fast path
may never run the action's code for (it reuses a result recorded for the
other parts).  The spec's own code raises there; the default run must stop
with the same error, not answer "holds".
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
    return [State(counter=0, other=0)]


@action("Bump")
def bump(c, s):
    if s.counter >= c.Limit:
        return None
    return s._replace(counter=s.counter + 1)


@action("Other")
def other(c, s):
    if s.other >= 2:
        return None
    return s._replace(other=s.other + 1)


@action("Reset")
def reset(c, s):
    assert not (s.other == 2 and s.counter == 3), "the counter and the other part never both reach the top"
    if s.counter == 0:
        return None
    return s._replace(counter=0)


@invariant("InRange", "The counter stays in range.")
def in_range(c, s):
    return 0 <= s.counter <= c.Limit


SPEC = Spec(name="assert-in-action", title="an assertion in an action", constants=Config, init=init,
            actions=[bump, other, reset], invariants=[in_range], deadlock_expected=True)
