"""An attrs field's converter that asks ``type()`` of its value: ``Box(s.x)`` in an action.

The converter runs inside the class's generated ``__init__``, which no name
in the action reaches.  On a stand-in for the part the answer differs, on
one state deep in a wide level.
"""

from typing import Any, NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


def conv(v):
    return 1 if type(v) is int else 2
@attrs.frozen
class Box:
    v: Any = attrs.field(converter=conv)


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
    if Box(s.x).v == 1:
        return s._replace(z=9)
    return s._replace(z=1)


@invariant("NotNine")
def not_nine(c, s):
    return s.z != 9


SPEC = Spec(name="attrs-converter-hook", title="attrs converter hook", constants=Config, init=init, actions=[inc_x, inc_y, hit],
            invariants=[not_nine], deadlock_expected=True)
