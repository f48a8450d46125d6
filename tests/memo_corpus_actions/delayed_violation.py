"""An action constraint that closes the short way to a violation, so the shortest trace is longer.

``Skip`` jumps the counter by three, but the constraint rejects a jump
that starts from an odd counter or leaves the other counter above one.
The counter's limit is reachable either way; the spec's own trace to it is
the one through the steps the constraint lets through.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(9, "the counter's limit", minimum=4, maximum=12)
    Other: int = constant(5, "the other counter's largest value", minimum=2, maximum=8)


class State(NamedTuple):
    n: int
    m: int
    k: int


def init(c):
    return [State(n=0, m=0, k=0)]


@action("Tick")
def tick(c, s):
    return s._replace(n=s.n + 1)


@action("Skip")
def skip(c, s):
    return s._replace(n=s.n + 3)


@action("Other")
def other(c, s):
    if s.m >= c.Other:
        return None
    return s._replace(m=s.m + 1)


@action("Toggle")
def toggle(c, s):
    return s._replace(k=(s.k + 1) % 3)


def jumps_allowed(c, s, t):
    if t.n - s.n <= 1:
        return True
    return s.n % 2 == 0 and t.m <= 1


def bounded(c, s):
    return s.n <= c.Limit + 2


@invariant("BelowLimit", "The counter stays below its limit.")
def below_limit(c, s):
    return s.n < c.Limit


SPEC = Spec(name="delayed-violation", title="an action constraint lengthening the trace", constants=Config,
            init=init, actions=[tick, skip, other, toggle], invariants=[below_limit], state_constraint=bounded,
            action_constraint=jumps_allowed, deadlock_expected=True)
