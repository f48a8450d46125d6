"""A method that calls ``__probe(s.x)`` inside a class, where Python renames the name ``_Acts__probe``.

The module defines a harmless ``__probe`` and, as ``_Acts__probe``, the one
the code calls, which asks ``type()`` of a part.  Followed by its written
name, the harmless one would be reviewed; the difference shows on one
state deep in a wide level.
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
def __probe(v):
    return v == 27


def _Acts__probe(v):
    return type(v) is int and v == 27


class Acts:
    @staticmethod
    def hit(c, s):
        z = 9 if (s.z == 0 and s.y == 25 and __probe(s.x)) else 1
        return s._replace(z=z) if s.z == 0 and s.y == 25 and s.x >= 27 else None


hit = action("Hit")(Acts.hit)

SPEC = Spec(name="private-name-in-class", title="private name in class", constants=Config, init=init, actions=[inc_x, inc_y, hit],
            invariants=[not_nine], deadlock_expected=True)

