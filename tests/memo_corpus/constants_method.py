"""A method of the constants class, called as ``c.hit(s)``, that tells a state part from its value with ``is``.

No name in the spec's functions resolves to the method: it is an attribute
of the ``c`` every function is handed.  ``v is w`` on two small ints is
true in the spec's own code and false on a stand-in for the part, and only
on one state deep in a wide level, where a sample of early states does not
reach.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    K: int = constant(30, "how far x and y count", minimum=6, maximum=60)

    def same(self, v, w):
        return v is w

    def hit(self, s):
        return s.z == 2 and self.same(s.x, self.K - 3) and self.same(s.y, self.K - 5)


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


@action("IncZ")
def inc_z(c, s):
    return s._replace(z=s.z + 1) if s.z < 5 else None


@invariant("Below", "the one state the method picks out is never reached")
def below(c, s):
    return not c.hit(s)


SPEC = Spec(name="constants-method", title="a constants method that compares with is", constants=Config,
            init=init, actions=[inc_x, inc_y, inc_z], invariants=[below], deadlock_expected=True)
