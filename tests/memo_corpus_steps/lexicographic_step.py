"""A step property that compares whole states with ``<``: ``s < t``, tuple order.

Comparing two tuples skips the items that are the same object and decides
on the first that differs, so on a step that changes only ``y`` the
comparison never looks at ``x``.  ``Trade`` lowers ``x`` and raises ``y``,
which puts the successor below its parent; it is enabled deep in the
search, after many steps that changed ``y`` alone.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "Rising"


@attrs.frozen
class Config:
    Top: int = constant(20, "the largest y and z", minimum=4, maximum=24)


class State(NamedTuple):
    x: int
    y: int
    z: int


def init(c):
    return [State(x=3, y=0, z=0)]


@action("RaiseY")
def raise_y(c, s):
    if s.y >= c.Top:
        return None
    return s._replace(y=s.y + 1)


@action("RaiseZ")
def raise_z(c, s):
    if s.z >= c.Top:
        return None
    return s._replace(z=s.z + 1)


@action("Trade")
def trade(c, s):
    if s.x == 0 or s.y < 2 or s.z < c.Top - 1:
        return None
    return State(s.x - 1, s.y + 1, s.z)


@step_property("Rising", "Every step moves the state up in tuple order.")
def rising(c, s, t):
    return s < t


SPEC = Spec(name="lexicographic-step", title="whole states compared with <", constants=Config, init=init,
            actions=[raise_y, raise_z, trade], properties=[rising], deadlock_expected=True)
