"""An action parameter that is an object of the spec's own class, whose method asks ``type()`` of a part.

The action calls ``w.hits(c, s)`` on the parameter it is given: no name in
the action resolves to the method.  On a stand-in for ``s.x``, ``type()`` is
the stand-in's class, and the one state where the method is true lies
deep in a wide level, past a sample of early states.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    K: int = constant(30, "how far x and y count", minimum=6, maximum=60)


@attrs.frozen
class Who:
    n: int

    def hits(self, c, s):
        return s.z == 2 and type(s.x) is int and s.x == c.K - 3 and s.y == c.K - 5


class S(NamedTuple):
    x: int
    y: int
    z: int


W = Domain("w", lambda c: [Who(0)], lambda w: f"w{w.n}")


def init(c):
    return [S(0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < c.K else None


@action("IncZ", w=W)
def inc_z(c, s, w):
    if w.hits(c, s):
        return s._replace(z=9)
    return s._replace(z=s.z + 1) if s.z < 5 else None


@invariant("NotNine", "the parameter's method never fires")
def not_nine(c, s):
    return s.z != 9


SPEC = Spec(name="parameter-method", title="a method of an action parameter", constants=Config, init=init, actions=[inc_x, inc_y, inc_z],
            invariants=[not_nine], deadlock_expected=True)
