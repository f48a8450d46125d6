"""A level that can become ``-0.0``: the constraint rejects a sign flip at zero until late, the invariant reads the sign.

``Mirror`` negates the level; at zero that gives ``-0.0``, equal to
``0.0``, so the visited set keeps whichever of the two it met first.  The
constraint looks at the sign with ``math.copysign`` and lets a flip at zero
through only after many moves; the invariant says the level never holds a
negative zero.
"""

import math
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Moves: int = constant(9, "the most moves", minimum=3, maximum=12)


class State(NamedTuple):
    level: float
    moves: int
    side: int


def init(c):
    return [State(level=0.0, moves=0, side=0)]


@action("Up")
def up(c, s):
    if s.level >= 2.0 or s.moves >= c.Moves:
        return None
    return s._replace(level=s.level + 1.0, moves=s.moves + 1)


@action("Down")
def down(c, s):
    if s.level <= 0.0 or s.moves >= c.Moves:
        return None
    return s._replace(level=s.level - 1.0, moves=s.moves + 1)


@action("Mirror")
def mirror(c, s):
    if s.moves >= c.Moves:
        return None
    return s._replace(level=-s.level, moves=s.moves + 1)


@action("Side")
def side(c, s):
    if s.side >= 2:
        return None
    return s._replace(side=s.side + 1)


def late_flip(c, s, t):
    return math.copysign(1.0, t.level) == math.copysign(1.0, s.level) or s.moves >= c.Moves - 2


@invariant("NoNegativeZero", "The level is never a negative zero.")
def no_negative_zero(c, s):
    return math.copysign(1.0, s.level) > 0 or s.level != 0.0


SPEC = Spec(name="zero-sign-ac", title="0.0 and -0.0 in an action constraint", constants=Config, init=init,
            actions=[up, down, mirror, side], invariants=[no_negative_zero], action_constraint=late_flip,
            deadlock_expected=True)
