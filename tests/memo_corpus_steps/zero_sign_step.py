"""A level that goes from ``0.0`` to ``-0.0``: equal values, different signs.

``Mirror`` negates the level and counts a move, so a mirror at level zero is
a real step (``moves`` changes) that keeps the level equal: ``0.0 ==
-0.0``.  The property looks at the sign with ``math.copysign``.  A table
keyed on the level's value sees no change.
"""

import math
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "SignKept"


@attrs.frozen
class Config:
    Moves: int = constant(5, "the most moves", minimum=1, maximum=8)


class State(NamedTuple):
    level: float
    moves: int


def init(c):
    return [State(level=0.0, moves=0)]


@action("Up")
def up(c, s):
    if s.level >= 2.0 or s.moves >= c.Moves:
        return None
    return State(s.level + 1.0, s.moves + 1)


@action("Down")
def down(c, s):
    if s.level <= 0.0 or s.moves >= c.Moves:
        return None
    return State(s.level - 1.0, s.moves + 1)


@action("Mirror")
def mirror(c, s):
    if s.moves < 3 or s.moves >= c.Moves:
        return None
    return State(-s.level, s.moves + 1)


@step_property("SignKept", "A step that keeps the level keeps its sign.")
def sign_kept(c, s, t):
    return t.level != s.level or math.copysign(1.0, t.level) == math.copysign(1.0, s.level)


SPEC = Spec(name="zero-sign-step", title="0.0 and -0.0 in a step", constants=Config, init=init,
            actions=[up, down, mirror], properties=[sign_kept], deadlock_expected=True)
