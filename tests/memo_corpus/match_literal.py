"""``match`` on state parts with literal patterns: ``case False:``, ``case 0:``, ``case -1:`` and or-patterns.

``case False:`` compares by identity (``x is False``), so it does not match the
int 0, although ``0 == False``; ``case 0:`` matches both.  Here ``flag`` holds
0 in some states and ``False`` in others (equal values, so a cache keyed on
the value cannot tell them apart), and only a real ``False`` raises the
alarm.  A stand-in that records reads is neither ``False`` nor ``0`` to the
``match`` statement unless it forwards identity, and a result reused for an
equal value takes the wrong case: the fast path would answer "holds" where
the spec's own code finds the alarm.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    MaxSteps: int = constant(3, "ticks in all", minimum=1, maximum=6)


class State(NamedTuple):
    flag: int
    """0 at the start; ``Clear`` writes False, an equal value."""
    mode: int
    steps: int
    cleared: bool
    alarm: bool


def init(c):
    return [State(flag=0, mode=-1, steps=0, cleared=False, alarm=False)]


@action("Tick")
def tick(c, s):
    if s.steps >= c.MaxSteps:
        return None
    match s.mode:
        case -1:
            mode = 0
        case 0 | 1:
            mode = s.mode + 1
        case _:
            mode = 0
    return s._replace(mode=mode, steps=s.steps + 1)


@action("Clear")
def clear(c, s):
    if s.cleared:
        return None
    return s._replace(flag=False, cleared=True)


@action("Probe")
def probe(c, s):
    if s.alarm:
        return None
    match s.flag:
        case False:
            return s._replace(alarm=True)
        case 0:
            return None
        case _:
            return None


@invariant("NoAlarm", "Only a flag that is the object False raises the alarm.")
def no_alarm(c, s):
    return not s.alarm


SPEC = Spec(name="match-literal", title="match with literal patterns", constants=Config, init=init,
            actions=[tick, clear, probe], invariants=[no_alarm], deadlock_expected=True)
