"""Floats in states: ``0.0`` and ``-0.0`` are equal and hash alike, but ``math.copysign`` and ``str`` tell them apart.

The checker accepts floats (not NaN).  A balance moves by -0.5 and +0.5
steps, so it comes back to zero as ``-0.0`` on one path (``-0.5 + 0.5`` is
``0.0``, but ``-0.0 * 1`` stays ``-0.0``) and as ``0.0`` on another.  The
spec's code treats a negative zero as "went below" and raises the alarm; a
table that stores zero once, or reuses the result for an equal zero, would
answer "holds".
"""

import math
from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Moves: int = constant(3, "moves in all", minimum=1, maximum=5)


class State(NamedTuple):
    balance: float
    moves: int
    alarm: bool


def init(c):
    return [State(balance=0.0, moves=0, alarm=False)]


@action("Up")
def up(c, s):
    if s.moves >= c.Moves:
        return None
    return s._replace(balance=s.balance + 0.5, moves=s.moves + 1)


@action("Down")
def down(c, s):
    if s.moves >= c.Moves:
        return None
    return s._replace(balance=s.balance - 0.5, moves=s.moves + 1)


@action("Scale")
def scale(c, s):
    """Multiply by -1: 0.0 becomes -0.0, an equal value."""
    if s.moves >= c.Moves:
        return None
    return s._replace(balance=s.balance * -1, moves=s.moves + 1)


@action("Audit")
def audit(c, s):
    if s.alarm or math.copysign(1.0, s.balance) > 0 or s.balance != 0:
        return None
    if str(s.balance) != "-0.0":
        return None
    return s._replace(alarm=True)


@invariant("NoNegativeZero", "The balance is never a negative zero.")
def no_negative_zero(c, s):
    return not s.alarm


SPEC = Spec(name="value-float-zero", title="0.0 and -0.0", constants=Config, init=init,
            actions=[up, down, scale, audit], invariants=[no_negative_zero], deadlock_expected=True)
