"""Guards that bind names the rest of the action uses: a walrus in the ``if``, a ``for``/``else`` search, a local.

The first statements of an action are its guard; a fast path may give the
guard and the rest of the action a decision tree each.  Here the guard
binds ``last`` (walrus), ``i`` (the loop variable of a search whose
``else`` disables the action) and ``gap``, and the successor is built from
them.  Splitting the guard from the rest must carry those names over.
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
    mark: int


def init(c):
    return [State(log=(), mark=-1)]


@action("Append", value=VALUE)
def append(c, s, value):
    if (n := len(s.log)) >= c.Length:
        return None
    return s._replace(log=s.log + ((value + n) % 3,))


@action("Mark")
def mark(c, s):
    if (last := s.log[-1] if s.log else -1) == 0:
        return None
    for i, v in enumerate(s.log):
        if v == 0:
            break
    else:
        return None
    gap = last - i
    if gap < 0:
        return None
    if s.mark == 10 * i + gap:
        return None
    return s._replace(mark=10 * i + gap)


@invariant("NoLateZero", "No log is marked with a zero at position 1 and a gap of 1.")
def no_late_zero(c, s):
    return s.mark != 11


SPEC = Spec(name="guard-walrus", title="guards that bind names", constants=Config, init=init,
            actions=[append, mark], invariants=[no_late_zero], deadlock_expected=True)
