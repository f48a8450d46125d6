"""``hash()`` and ``repr()`` of whole states, where ``hash(-1) == hash(-2)``.

The property says every step changes the state's hash and its text.  Python
hashes ``-1`` as ``-2``, so a step of ``x`` from ``-1`` to ``-2`` with the
rest unchanged keeps ``hash(s)``; ``repr`` tells them apart.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "EveryStepRehashes"


@attrs.frozen
class Config:
    Bottom: int = constant(-3, "the lowest x", minimum=-5, maximum=-2)


class State(NamedTuple):
    x: int
    flips: int
    on: bool


def init(c):
    return [State(x=1, flips=0, on=False)]


@action("Down")
def down(c, s):
    if s.x <= c.Bottom:
        return None
    return s._replace(x=s.x - 1)


@action("Toggle")
def toggle(c, s):
    if s.flips >= 2:
        return None
    return State(s.x, s.flips + 1, not s.on)


@step_property("EveryStepRehashes", "Every step changes the state's hash and how it prints.")
def every_step_rehashes(c, s, t):
    return hash(s) != hash(t) and repr(s) != repr(t)


SPEC = Spec(name="whole-state-hash", title="hash() and repr() of the parent and the successor", constants=Config,
            init=init, actions=[down, toggle], properties=[every_step_rehashes], deadlock_expected=True)
