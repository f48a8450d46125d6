"""``if s in FORBIDDEN`` with a module-level frozenset of whole states, and ``hash(s)`` of the whole state.

Listing a few bad states explicitly is a natural first spec.  Membership
in a set hashes the whole state and compares it field by field: the
answer reads every field.  A fast path whose stand-in for the state hashes
differently, or records only some fields, reuses an answer for a state
outside the set.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(2, "the largest value", minimum=1, maximum=3)


class State(NamedTuple):
    x: int
    y: int
    flagged: int


FORBIDDEN = frozenset({State(1, 2, 0), State(2, 0, 0)})


def init(c):
    return [State(0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    if s.x >= c.Limit or s.flagged:
        return None
    return s._replace(x=s.x + 1)


@action("IncY")
def inc_y(c, s):
    if s.y >= c.Limit or s.flagged:
        return None
    return s._replace(y=s.y + 1)


@action("Flag")
def flag(c, s):
    if s in FORBIDDEN and hash(s) == hash(State(s.x, s.y, 0)):
        return s._replace(flagged=1 + s.x)
    return None


@invariant("NotTheFirstBadState", "State (1, 2) is never flagged.")
def not_first_bad(c, s):
    return s.flagged != 2


SPEC = Spec(name="forbidden-states", title="membership of whole states in a set", constants=Config, init=init,
            actions=[inc_x, inc_y, flag], invariants=[not_first_bad], deadlock_expected=True)
