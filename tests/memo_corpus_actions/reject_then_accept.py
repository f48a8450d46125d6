"""A state the action constraint rejects from one parent and lets through from a later one.

A step that raises ``x`` is rejected when the parent's ``via`` is odd; the
same successor is reached from another parent (same ``x``, ``y``, an even
``via``) later in the search, one level deeper.  A rejected successor must
not be remembered as seen: the spec's own code keeps it when it is let
through, at that parent's depth.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    Size: int = constant(9, "the largest coordinate", minimum=2, maximum=10)


class State(NamedTuple):
    x: int
    y: int
    via: int


def init(c):
    return [State(x=0, y=0, via=1)]


@action("Up")
def up(c, s):
    if s.x >= c.Size:
        return None
    return State(s.x + 1, s.y, 0)


@action("Right")
def right(c, s):
    if s.y >= c.Size:
        return None
    return State(s.x, s.y + 1, 0)


@action("Mark")
def mark(c, s):
    if s.via >= 3:
        return None
    return s._replace(via=s.via + 1)


def not_from_odd(c, s, t):
    return t.x == s.x or s.via % 2 == 0


@invariant("Inside", "The coordinates stay inside the grid.")
def inside(c, s):
    return s.x <= c.Size and s.y <= c.Size


SPEC = Spec(name="reject-then-accept", title="a successor rejected, then let through", constants=Config, init=init,
            actions=[up, right, mark], invariants=[inside], action_constraint=not_from_odd, deadlock_expected=True)
