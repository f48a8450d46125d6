"""A guard that reads a name the action assigns further down: the action's own local, unbound when read.

``LIM`` is assigned in ``hit`` after its guard, so throughout ``hit`` it is
a local: the guard raises UnboundLocalError where it is first evaluated on
a state past the early ones (the walk before the search samples
a grid's first corner).  A guard split off without the assignment
would read the module's ``LIM`` instead and never raise.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"
LIM = 100


@attrs.frozen
class Config:
    K: int = constant(40, "steps along x", minimum=4, maximum=60)


class S(NamedTuple):
    x: int
    y: int
    w: int
    z: int


def init(c):
    return [S(0, 0, 0, 0)]


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.K else None


@action("IncY")
def inc_y(c, s):
    return s._replace(y=s.y + 1) if s.y < 30 else None


@action("IncW")
def inc_w(c, s):
    return s._replace(w=s.w + 1) if s.w < 6 else None


@action("Hit")
def hit(c, s):
    if s.z != 0 or s.y != 3 or s.w != 0:
        return None
    if s.x == 38 and LIM > 0:  # noqa: F823 - the bait: LIM is this function's local
        return None
    LIM = 1
    return s._replace(z=LIM)


@invariant("ZSmall", "z stays below 5.")
def z_small(c, s):
    return s.z < 5


SPEC = Spec(name="split-late-local", title="a guard reading a local assigned later", constants=Config, init=init,
            actions=[inc_x, inc_y, hit], invariants=[z_small], deadlock_expected=True)
