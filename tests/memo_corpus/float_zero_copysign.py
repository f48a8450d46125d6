"""``math.copysign(1, x)`` and ``math.atan2`` of ``0.0`` and ``-0.0``.

Arithmetic that keeps the sign of zero is ordinary in a numeric model; the
two zeros are one state to the checker when everything else is equal, but
here ``via`` keeps them apart.  Only the spec's own code knows which zero a
state holds.
"""

import math
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Steps: int = constant(2, "steps after the value is set", minimum=1, maximum=4)


class State(NamedTuple):
    value: float
    """1.0 at the start, then 0.0 or -0.0 (written by different actions)."""
    via: int
    """Which action set the value (so that equal values set differently are different states)."""
    steps: int
    hit: bool


def init(c):
    return [State(value=1.0, via=0, steps=0, hit=False)]


@action("SetPos")
def set_pos(c, s):
    if s.value != 1.0 or s.hit:
        return None
    return s._replace(value=0.0, via=1)


@action("SetNeg")
def set_neg(c, s):
    if s.value != 1.0 or s.hit:
        return None
    return s._replace(value=-0.0, via=2)


@action("Step")
def step(c, s):
    if s.value == 1.0 or s.steps >= c.Steps:
        return None
    return s._replace(steps=s.steps + 1)


@action("Probe")
def probe(c, s):
    if s.hit or s.value == 1.0:
        return None
    if math.copysign(1, s.value) < 0 or math.atan2(s.value, -1) < 0:
        return s._replace(hit=True)
    return None


@invariant("NoHit", "The value is never a negative zero.")
def no_hit(c, s):
    return not s.hit


SPEC = Spec(name="float-zero-copysign", title="copysign and atan2 of signed zeros", constants=Config, init=init,
            actions=[set_pos, set_neg, step, probe], invariants=[no_hit], deadlock_expected=True)
