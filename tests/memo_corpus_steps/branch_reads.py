"""A step property whose reads depend on the values: each mode checks a different counter.

In mode ``"a"`` only ``x`` is compared, after a switch into ``"a"`` only
``z``, otherwise only ``y``.  ``Switch`` lowers ``z`` when it switches at
``x == 2``: the property reads ``t.mode``, then ``z`` in both states, parts
it does not read on most steps.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "ModeCounterRises"


@attrs.frozen
class Config:
    Top: int = constant(5, "the largest counter", minimum=2, maximum=6)


class State(NamedTuple):
    mode: str
    x: int
    y: int
    z: int


def init(c):
    return [State(mode="b", x=0, y=0, z=0)]


@action("IncX")
def inc_x(c, s):
    if s.x >= c.Top:
        return None
    return s._replace(x=s.x + 1)


@action("IncY")
def inc_y(c, s):
    if s.y >= c.Top:
        return None
    return s._replace(y=s.y + 1)


@action("IncZ")
def inc_z(c, s):
    if s.z >= c.Top:
        return None
    return s._replace(z=s.z + 1)


@action("DecY")
def dec_y(c, s):
    if s.mode != "a" or s.y == 0:
        return None
    return s._replace(y=s.y - 1)


@action("Switch")
def switch(c, s):
    if s.mode == "a":
        return s._replace(mode="b")
    if s.x == 2 and s.z > 0:
        return s._replace(mode="a", z=s.z - 1)
    return s._replace(mode="a")


@step_property("ModeCounterRises", "The counter of the mode a step is in never falls.")
def mode_counter_rises(c, s, t):
    if s.mode == "a":
        return t.x >= s.x
    if t.mode == "a":
        return t.z >= s.z
    return t.y >= s.y


SPEC = Spec(name="branch-reads", title="reads that depend on the values", constants=Config, init=init,
            actions=[inc_x, inc_y, inc_z, dec_y, switch], properties=[mode_counter_rises], deadlock_expected=True)
