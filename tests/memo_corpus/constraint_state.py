"""A ``state_constraint`` that reads the log through ``max``, ``min`` and ``len``.

(``constraint_actions`` adds an action constraint.)  Constraints prune the
search: a state outside the state constraint is counted as generated but
not explored.  If a fast path decides them from
too few reads, it prunes states the spec's own code explores (a wrong
"holds" when the violation lies beyond) or explores states it prunes.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(3), str)


@attrs.frozen
class Config:
    Length: int = constant(4, "the longest log", minimum=2, maximum=5)


class State(NamedTuple):
    log: tuple


def init(c):
    return [State(log=())]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return State(s.log + (value,))


def small_steps(c, s):
    return max(s.log, default=0) - min(s.log, default=0) <= 1 or len(s.log) < 2


@invariant("NoLongRun", "No log of four is rising by one each time.")
def no_long_run(c, s):
    return not (len(s.log) == 4 and s.log[0] == 0 and s.log[3] == 1 and s.log[1] != s.log[2])


SPEC = Spec(name="constraint-state", title="a state constraint", constants=Config, init=init,
            actions=[append], invariants=[no_long_run], state_constraint=small_steps,
            deadlock_expected=True)
