"""A ``match`` statement on the parent's and the successor's roles.

``case ("leader", "follower")`` compares strings by value and a guard reads
the epochs; a step down from leader is let through only into a higher
epoch, so the violation (a follower in the top epoch) needs the long way.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    MaxEpoch: int = constant(4, "the largest epoch", minimum=2, maximum=5)


class State(NamedTuple):
    role: str
    epoch: int
    beats: int


def init(c):
    return [State(role="follower", epoch=0, beats=0)]


@action("Elect")
def elect(c, s):
    if s.role != "follower" or s.epoch >= c.MaxEpoch:
        return None
    return State("leader", s.epoch + 1, s.beats)


@action("Resign")
def resign(c, s):
    if s.role != "leader":
        return None
    return s._replace(role="follower")


@action("Bump")
def bump(c, s):
    if s.role != "leader":
        return None
    return State("follower", s.epoch + 1, s.beats)


@action("Beat")
def beat(c, s):
    return s._replace(beats=(s.beats + 1) % 3)


def step_down_for_new_epoch(c, s, t):
    match (s.role, t.role):
        case ("leader", "follower"):
            return t.epoch > s.epoch
        case _:
            return True


@invariant("NoTopFollower", "No follower reaches the top epoch.")
def no_top_follower(c, s):
    return not (s.role == "follower" and s.epoch == c.MaxEpoch)


SPEC = Spec(name="match-ac", title="match in an action constraint", constants=Config, init=init,
            actions=[elect, resign, bump, beat], invariants=[no_top_follower],
            action_constraint=step_down_for_new_epoch, deadlock_expected=True)
