"""A ``match`` statement on the parent's and the successor's phases.

``case ("leader", "follower")`` compares strings by value, ``case
(_, "fenced") if ...`` adds a guard; a sequence pattern needs a real tuple.
Stepping down from leader without a higher epoch is the violation.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "StepDownOnlyForNewEpoch"


@attrs.frozen
class Config:
    MaxEpoch: int = constant(3, "the largest epoch", minimum=1, maximum=4)


class State(NamedTuple):
    role: str
    epoch: int


def init(c):
    return [State(role="follower", epoch=0)]


@action("Elect")
def elect(c, s):
    if s.role != "follower" or s.epoch >= c.MaxEpoch:
        return None
    return State("leader", s.epoch + 1)


@action("Resign")
def resign(c, s):
    if s.role != "leader":
        return None
    return State("follower", s.epoch if s.epoch >= 2 else s.epoch + 1)


@action("Fence")
def fence(c, s):
    if s.role == "fenced":
        return None
    return State("fenced", s.epoch)


@step_property("StepDownOnlyForNewEpoch", "A leader becomes a follower only in a higher epoch.")
def step_down_only_for_new_epoch(c, s, t):
    match (s.role, t.role):
        case ("leader", "follower"):
            return t.epoch > s.epoch
        case (_, "fenced") if s.role == "fenced":
            return False
        case _:
            return True


SPEC = Spec(name="match-step", title="match on the parent and the successor", constants=Config, init=init,
            actions=[elect, resign, fence], properties=[step_down_only_for_new_epoch], deadlock_expected=True)
