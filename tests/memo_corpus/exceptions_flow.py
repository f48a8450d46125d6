"""Exceptions as control flow: ``IndexError``, ``ZeroDivisionError`` and ``KeyError`` caught to choose a value.

``try: log[2] except IndexError``, ``10 // x`` and ``NAMES[x]`` each have a fallback.
"Easier to ask forgiveness than permission" is idiomatic Python.  Which
branch runs depends on a read (the length, whether the divisor is zero,
whether the key exists) that happens inside the failing operation; a
stand-in that raises something else, or does not raise, takes the other
branch.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"
NAMES = {0: 5, 1: 7}


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    divisor: int
    score: int


def init(c):
    return [State(log=(), divisor=0, score=0)]


@action("Append")
def append(c, s):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (len(s.log),))


@action("Divide")
def divide(c, s):
    if s.divisor >= 2:
        return None
    return s._replace(divisor=s.divisor + 1)


@action("Score")
def score(c, s):
    try:
        third = s.log[2]
    except IndexError:
        third = -1
    try:
        part = 10 // s.divisor
    except ZeroDivisionError:
        part = 0
    try:
        name = NAMES[s.divisor]
    except KeyError:
        name = 0
    total = third + part + name
    if total == s.score:
        return None
    return s._replace(score=total)


@invariant("ScoreBelow", "The score stays below 12.")
def score_below(c, s):
    return s.score < 12


SPEC = Spec(name="exceptions-flow", title="exceptions as control flow", constants=Config, init=init,
            actions=[append, divide, score], invariants=[score_below], deadlock_expected=True)
