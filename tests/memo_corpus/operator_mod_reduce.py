"""``%`` as a function, ``functools.reduce(operator.mod, (s.v,), "%s")``, on a tuple part.

Python formats a tuple operand as its items, so ``(5,)`` gives ``'5'``; the
``%`` rule reads syntax and never sees this one.  The tuple is met on one
state deep in a wide level.
"""

import functools
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
    return [S(0, 0, 0, (5, 6))]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < c.K else None


@action("Flip")
def flip(c, s):
    return s._replace(v=(5,)) if s.v == (5, 6) and s.x > -1 else None


@action("Hit")
def hit(c, s):
    if s.z != 0 or s.x != 27 or s.y != 25:
        return None
    if len(s.v) == 1 and functools.reduce(operator.mod, (s.v,), "%s") == "5":
        return s._replace(z=9)
    return s._replace(z=1)


@invariant("NotNine")
def not_nine(c, s):
    return s.z != 9


SPEC = Spec(name="operator-mod-reduce", title="operator mod reduce", constants=Config, init=init, actions=[inc_x, inc_y, flip, hit],
            invariants=[not_nine], deadlock_expected=True)
