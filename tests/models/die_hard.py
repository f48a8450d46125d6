"""The Die Hard water jugs (Lamport's DieHard.tla): a 3- and a 5-gallon jug.

Known results (TLC on DieHard.tla): 16 distinct states; ``NotSolved`` (the big
jug never holds 4 gallons) is violated with a shortest trace of 7 states.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class Jugs:
    Small: int = constant(3, "capacity of the small jug", minimum=1, maximum=100)
    Big: int = constant(5, "capacity of the big jug", minimum=1, maximum=100)
    Goal: int = constant(4, "gallons wanted in the big jug", minimum=0, maximum=100)


class S(NamedTuple):
    small: int
    big: int


def init(c):
    yield S(0, 0)


@action("FillSmall")
def fill_small(c, s):
    return s._replace(small=c.Small)


@action("FillBig")
def fill_big(c, s):
    return s._replace(big=c.Big)


@action("EmptySmall")
def empty_small(c, s):
    return s._replace(small=0)


@action("EmptyBig")
def empty_big(c, s):
    return s._replace(big=0)


@action("SmallToBig")
def small_to_big(c, s):
    pour = min(s.small, c.Big - s.big)
    return S(s.small - pour, s.big + pour)


@action("BigToSmall")
def big_to_small(c, s):
    pour = min(s.big, c.Small - s.small)
    return S(s.small + pour, s.big - pour)


@invariant("TypeOk")
def type_ok(c, s):
    return 0 <= s.small <= c.Small and 0 <= s.big <= c.Big


@invariant("NotSolved")
def not_solved(c, s):
    """The big jug never holds exactly Goal gallons."""
    return s.big != c.Goal


SPEC = Spec(
    name="die-hard",
    title="DieHard water jugs",
    constants=Jugs,
    init=init,
    actions=[fill_small, fill_big, empty_small, empty_big, small_to_big, big_to_small],
    invariants=[type_ok, not_solved],
)
