"""Two module-level ``def hit``: the first is the action, the second rebinds the name.

A compiled spec module gets, appended, the guard and effect of each action
that splits, found again by the action's name: taken from the second
``def``, the guard would keep the action disabled where the first is
enabled, deep in a wide level.
"""

from typing import Any, NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    K: int = constant(30, "how far", minimum=6, maximum=60)


class S(NamedTuple):
    x: int
    y: int
    z: int


def init(c):
    return [S(0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < c.K else None


@invariant("NotNine")
def not_nine(c, s):
    return s.z != 9
def hit(c, s):
    if s.z != 0 or s.x != 27 or s.y != 25:
        return None
    return s._replace(z=9)


HIT = action("Hit")(hit)


def hit(c, s):
    if s.z != 0 or s.x != 100 or s.y != 25:
        return None
    return s._replace(z=9)


hit = HIT

SPEC = Spec(name="split-duplicate-def", title="split duplicate def", constants=Config, init=init, actions=[inc_x, inc_y, hit],
            invariants=[not_nine], deadlock_expected=True)

