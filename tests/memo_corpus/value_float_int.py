"""A field holding ``3`` in one state and ``3.0`` in another: equal, same hash, different type and text.

Halving turns an int into a float (``6 / 2 == 3.0``) where floor division
gives the equal int 3; the float is reached first, so it is the state
kept.  The spec's code prints the amount into a width
(``len(str(3.0)) == 3``, ``len(str(3)) == 1``; the invariant allows two)
and uses ``//``, which keeps a float a float.  A fast path that keys on
equal values, or writes a stored equal value back into the successor,
reaches other states.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(12, "the largest amount", minimum=2, maximum=24)


class State(NamedTuple):
    amount: float
    """An int or an equal float."""
    width: int


def init(c):
    return [State(amount=6, width=0)]


@action("Double")
def double(c, s):
    if s.amount * 2 > c.Limit:
        return None
    return s._replace(amount=s.amount * 2)


@action("Halve")
def halve(c, s):
    if s.amount < 2:
        return None
    return s._replace(amount=s.amount / 2)


@action("FloorHalf")
def floor_half(c, s):
    if s.amount < 2:
        return None
    return s._replace(amount=s.amount // 2)


@action("Measure")
def measure(c, s):
    w = len(str(s.amount))
    if w == s.width:
        return None
    return s._replace(width=w)


@invariant("NarrowAmounts", "An amount never prints wider than two characters.")
def narrow(c, s):
    return s.width <= 2


SPEC = Spec(name="value-float-int", title="2 and 2.0", constants=Config, init=init,
            actions=[double, halve, floor_half, measure], invariants=[narrow], deadlock_expected=True)
