"""``operator.attrgetter("__class__.__class__")(0)`` is ``type``, reached through a string.

Applied to a part it names the stand-in's class, not the value's, on one
state deep in a wide level.
"""

import operator
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
    v: Any


def init(c):
    return [S(0, 0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < c.K else None


@action("Hit")
def hit(c, s):
    if s.z != 0 or s.x != 27 or s.y != 25:
        return None
    if str(operator.attrgetter("__class__.__class__")(0)(s.x)) == "<class 'int'>":
        return s._replace(z=9)
    return s._replace(z=1)


@invariant("NotNine")
def not_nine(c, s):
    return s.z != 9


SPEC = Spec(name="attrgetter-dunder-path", title="attrgetter dunder path", constants=Config, init=init, actions=[inc_x, inc_y, hit],
            invariants=[not_nine], deadlock_expected=True)
