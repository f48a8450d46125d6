"""An action constraint that reads the constants: a step size and a mode named by a string.

With ``Mode == "strict"`` a step may raise the load by at most ``Step``;
in ``"loose"`` mode by twice that.  The constants are not part of the state,
so the answer changes with them and not with anything the tables read.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "holds"
AMOUNT = Domain("amount", lambda c: (1, 2, 3), str)


@attrs.frozen
class Config:
    Step: int = constant(2, "the largest rise of the load in one step", minimum=1, maximum=3)
    Mode: str = constant("strict", "how strictly Step is kept", choices=("strict", "loose"))
    Cap: int = constant(9, "the largest load", minimum=4, maximum=12)


class State(NamedTuple):
    load: int
    drains: int


def init(c):
    return [State(load=0, drains=0)]


@action("Add", amount=AMOUNT)
def add(c, s, amount):
    if s.load + amount > c.Cap:
        return None
    return s._replace(load=s.load + amount)


@action("Drain")
def drain(c, s):
    if s.load == 0 or s.drains >= 3:
        return None
    return State(0, s.drains + 1)


def limited_rise(c, s, t):
    limit = c.Step if c.Mode == "strict" else 2 * c.Step
    return t.load - s.load <= limit


@invariant("UnderCap", "The load stays under the cap.")
def under_cap(c, s):
    return s.load <= c.Cap


SPEC = Spec(name="constants-ac", title="constants in an action constraint", constants=Config, init=init,
            actions=[add, drain], invariants=[under_cap], action_constraint=limited_rise, deadlock_expected=True)
