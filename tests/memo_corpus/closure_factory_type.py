"""A factory's closure holds the function that asks ``type()`` of a part: ``guarded(hits)``.

Interpreted, the review reads the closure's cell and refuses ``type``.  Compiled
(a user build), a function keeps its cells where Python cannot read them, so
the review must refuse the closure itself: the one state where ``hits`` is
true on the value and false on a stand-in lies deep in a wide level.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    K: int = constant(30, "how far x and y count", minimum=6, maximum=60)


class S(NamedTuple):
    x: int
    y: int
    z: int


def hits(c, s):
    return s.z == 2 and type(s.x) is int and s.x == c.K - 3 and s.y == c.K - 5


def guarded(check):
    def inc_z(c, s):
        if check(c, s):
            return s._replace(z=9)
        return s._replace(z=s.z + 1) if s.z < 5 else None
    return inc_z


def init(c):
    return [S(0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < c.K else None


inc_z = action("IncZ")(guarded(hits))


@invariant("NotNine")
def not_nine(c, s):
    return s.z != 9


SPEC = Spec(name="closure-factory-type", title="a closure over a function that asks type()", constants=Config, init=init, actions=[inc_x, inc_y, inc_z],
            invariants=[not_nine], deadlock_expected=True)
