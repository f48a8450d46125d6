"""Reads of a log through builtins: negative index, slices, ``reversed``, ``enumerate``, ``zip``, ``count``, ``index``.

A fast path that records which parts an action read must also record what
these calls read: ``log[-1]`` depends on the length, ``log[1:]`` on every
item after the first, ``log.count(v)`` on all of them.  Two logs that agree
on what a too-coarse record keeps (the first item, the length) but differ
elsewhere would share a reused result.  The invariant is violated only in a
state that differs from earlier ones late in the log.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(c.Values), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)
    Values: int = constant(3, "values a record may hold", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    alarms: int


def init(c):
    return [State(log=(), alarms=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Scan")
def scan(c, s):
    log = s.log
    if len(log) < 3 or s.alarms:
        return None
    backwards = list(reversed(log))
    rising = all(a < b for a, b in zip(log, log[1:]))
    where = [i for i, v in enumerate(log) if v == log[-1]]
    if rising and backwards[0] == 2 and log.count(log[1]) == 1 and log.index(log[-1]) == where[0]:
        return s._replace(alarms=1)
    return None


@invariant("NeverRising", "No rising log of three records ending in 2 is scanned.")
def never_rising(c, s):
    return s.alarms == 0


SPEC = Spec(name="seq-builtins", title="sequence builtins on a log", constants=Config, init=init,
            actions=[append, scan], invariants=[never_rising], deadlock_expected=True)
