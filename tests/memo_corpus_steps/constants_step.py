"""A step property that reads the constants: a limit, and a tuple derived from one.

``c.MaxJump`` bounds how far a replica's offset moves in one step and
``c.Replicas`` how many replicas there are; ``Catch`` jumps a lagging
replica to the leader's offset, which is more than ``MaxJump`` once the
leader is far enough ahead.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "BoundedJumps"
REPLICA = Domain("replica", lambda c: range(1, c.Replicas), lambda r: f"r{r + 1}")


@attrs.frozen
class Config:
    Replicas: int = constant(4, "replicas, the first leads", minimum=2, maximum=5)
    MaxJump: int = constant(2, "the largest move of an offset in one step", minimum=1, maximum=3)
    Top: int = constant(5, "the leader's last offset", minimum=1, maximum=6)


class State(NamedTuple):
    offsets: tuple


def init(c):
    return [State(offsets=(0,) * c.Replicas)]


@action("Write")
def write(c, s):
    if s.offsets[0] >= c.Top:
        return None
    return State((s.offsets[0] + 1,) + s.offsets[1:])


@action("Fetch", replica=REPLICA)
def fetch(c, s, replica):
    if s.offsets[replica] >= s.offsets[0]:
        return None
    offsets = list(s.offsets)
    offsets[replica] += 1
    return State(tuple(offsets))


@action("Catch", replica=REPLICA)
def catch(c, s, replica):
    if s.offsets[replica] >= s.offsets[0] or replica != c.Replicas - 1:
        return None
    offsets = list(s.offsets)
    offsets[replica] = s.offsets[0]
    return State(tuple(offsets))


@step_property("BoundedJumps", "No offset moves by more than MaxJump in one step.")
def bounded_jumps(c, s, t):
    return all(abs(t.offsets[r] - s.offsets[r]) <= c.MaxJump for r in range(c.Replicas))


SPEC = Spec(name="constants-step", title="a step property reading the constants", constants=Config, init=init,
            actions=[write, fetch, catch], properties=[bounded_jumps], deadlock_expected=True)
