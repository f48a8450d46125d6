"""Actions that return a state equal to their input but built anew: stuttering steps.

``Tidy`` rebuilds the log as a new tuple and the set in another insertion
order; ``Copy`` returns ``State(*s)``.  Both give a state equal to the
parent, so the steps stutter and ``EveryStepCounts`` is not checked on
them.  A fast path that tells a stutter by object identity, or by a set's
iteration order, checks them and reports a violation the spec does not have.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "holds"
PROPERTY = "EveryStepCounts"
VALUE = Domain("value", lambda c: (0, 8), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    members: frozenset
    count: int


def init(c):
    return [State(log=(), members=frozenset(), count=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return State(s.log + (value,), s.members, s.count + 1)


@action("Join", value=VALUE)
def join(c, s, value):
    if value in s.members:
        return None
    return State(s.log, s.members | {value}, s.count + 1)


@action("Tidy")
def tidy(c, s):
    return State(tuple(list(s.log)), frozenset(sorted(s.members, reverse=True)), s.count)


@action("Copy")
def copy(c, s):
    return State(*s)


@step_property("EveryStepCounts", "Every step that changes the state raises the count.")
def every_step_counts(c, s, t):
    return t.count > s.count


SPEC = Spec(name="stutter-rebuilt", title="equal states built anew", constants=Config, init=init,
            actions=[append, join, tidy, copy], properties=[every_step_counts], deadlock_expected=True)
