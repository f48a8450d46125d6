"""Python arithmetic on negative values: ``%``, ``//`` and ``>>`` floor (``-1 % 3 == 2``, ``-1 // 2 == -1``).

A ring position ``(pos - 1) % n`` and a midpoint ``(lo + hi) // 2`` with a
sentinel -1 are everyday spec code.  C truncates towards zero
(``-1 % 3 == -1``, ``-1 / 2 == 0``); a fast path that evaluates simple
expressions natively must floor as Python does.  (``low`` steps by two,
-1, -3, -5, and ``mid`` is stored times three, so that no field holds both
-1 and -2: ``hash(-1) == hash(-2)``, which ``hash_collision`` is about.)
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Ring: int = constant(3, "positions on the ring", minimum=2, maximum=5)


class State(NamedTuple):
    pos: int
    low: int
    mid: int


def init(c):
    return [State(pos=0, low=-1, mid=0)]


@action("Back")
def back(c, s):
    pos = (s.pos - 1) % c.Ring
    if pos == s.pos:
        return None
    return s._replace(pos=pos)


@action("Lower")
def lower(c, s):
    if s.low <= -5:
        return None
    return s._replace(low=s.low - 2)


@action("Middle")
def middle(c, s):
    mid = 3 * ((s.low + s.pos) // 2 + (s.low >> 1) + (-s.pos) % c.Ring)
    if mid == s.mid:
        return None
    return s._replace(mid=mid)


@invariant("MidAboveFloor", "The midpoint never falls to -6 (stored times three).")
def mid_above_floor(c, s):
    return s.mid > -18


SPEC = Spec(name="arithmetic-negative", title="floor division and modulo of negatives", constants=Config,
            init=init, actions=[back, lower, middle], invariants=[mid_above_floor], deadlock_expected=True)
