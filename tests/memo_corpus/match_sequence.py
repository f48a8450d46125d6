"""``match`` with sequence patterns on a log: ``case ():``, ``case (only,):``, ``case (*_, last):`` and a guard.

Sequence patterns test the length and unpack items in one go; a guard
(``if last > first``) reads more.  A stand-in for the log is a sequence
only if it says so to ``match`` (``collections.abc.Sequence`` or a tuple
subclass), and each pattern reads the length as well as the items it
binds.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(3), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    verdict: int


def init(c):
    return [State(log=(), verdict=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Judge")
def judge(c, s):
    match s.log:
        case ():
            verdict = 0
        case (only,):
            verdict = 1 + only
        case (first, *_, last) if last > first:
            verdict = 10 + last
        case (*_, last):
            verdict = 20 + last
    if verdict == s.verdict:
        return None
    return s._replace(verdict=verdict)


@invariant("NoRiseToTwo", "No log rises to 2.")
def no_rise_to_two(c, s):
    return s.verdict != 12


SPEC = Spec(name="match-sequence", title="match with sequence patterns", constants=Config, init=init,
            actions=[append, judge], invariants=[no_rise_to_two], deadlock_expected=True)
