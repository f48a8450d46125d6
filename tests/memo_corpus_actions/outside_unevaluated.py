"""An action constraint that looks a rate up by the successor's position: out of range past the state constraint.

``RATES[t.x]`` raises ``IndexError`` for a position past ``Max``, but the
state constraint keeps those successors out first, so the spec's own code
never evaluates the action constraint on them.  ``Leap`` moves two at a
time, so it leaves the model from both of the last two positions.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"
RATES = (0, 1, 1, 2, 3, 5, 8)


@attrs.frozen
class Config:
    Max: int = constant(6, "the last position inside the model", minimum=2, maximum=6)
    Rounds: int = constant(24, "rounds of the other counter", minimum=2, maximum=30)


class State(NamedTuple):
    x: int
    y: int
    z: int


def init(c):
    return [State(x=0, y=0, z=0)]


@action("Step")
def step(c, s):
    return s._replace(x=s.x + 1)


@action("Leap")
def leap(c, s):
    return s._replace(x=s.x + 2)


@action("Round")
def round_(c, s):
    if s.y >= c.Rounds:
        return None
    return s._replace(y=s.y + 1)


@action("Flip")
def flip(c, s):
    return s._replace(z=1 - s.z)


def inside(c, s):
    return s.x <= c.Max


def rate_rises(c, s, t):
    return RATES[t.x] - RATES[s.x] <= 2


@invariant("Inside", "The position stays inside the model.")
def inside_inv(c, s):
    return s.x <= c.Max


SPEC = Spec(name="outside-unevaluated", title="an action constraint not evaluated outside the model",
            constants=Config, init=init, actions=[step, leap, round_, flip], invariants=[inside_inv],
            state_constraint=inside, action_constraint=rate_rises, deadlock_expected=True)
