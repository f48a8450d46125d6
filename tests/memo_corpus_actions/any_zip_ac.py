"""An action constraint with ``all`` over ``zip`` of two logs, ``any`` with an early exit, and ``len``.

``all(x <= y for x, y in zip(s.log, t.log))`` stops at the first pair that
falls, so which entries it reads depends on the values; ``any`` returns at
the first 3.  A rewrite that lowers an entry is rejected unless the log
already holds a 3, which only long logs do.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: (0, 1, 2, 3), str)
AT = Domain("at", lambda c: range(c.Length), str)


@attrs.frozen
class Config:
    Length: int = constant(4, "the longest log", minimum=2, maximum=5)


class State(NamedTuple):
    log: tuple


def init(c):
    return [State(log=())]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length or (s.log and value < s.log[-1] - 1):
        return None
    return State(s.log + (value,))


@action("Lower", at=AT)
def lower(c, s, at):
    if at >= len(s.log) or s.log[at] == 0:
        return None
    return State(s.log[:at] + (s.log[at] - 1,) + s.log[at + 1:])


def rising_unless_three(c, s, t):
    if len(t.log) != len(s.log):
        return True
    return all(x <= y for x, y in zip(s.log, t.log)) or any(x == 3 for x in s.log)


@invariant("NoLowTail", "A full log never ends below where it started and holds a 3.")
def no_low_tail(c, s):
    return not (len(s.log) == 4 and 3 in s.log and s.log[-1] < s.log[0] and s.log[0] == 3)


SPEC = Spec(name="any-zip-ac", title="all, any, zip and len in an action constraint", constants=Config,
            init=init, actions=[append, lower], invariants=[no_low_tail], action_constraint=rising_unless_three,
            deadlock_expected=True)
