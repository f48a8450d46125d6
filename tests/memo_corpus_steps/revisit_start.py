"""A violation only on a step back to a state met before: the initial state.

``Reset`` returns to ``START``, which the search has seen at depth 1, so the
step's successor is never new.  The property compares the successor with a
whole state (``t == START``) and sums the parent's fields through
``s._asdict()``.  A fast path that checks step properties only on steps to
new states misses it.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "ResetOnlyWhenIdle"


@attrs.frozen
class Config:
    Top: int = constant(6, "the largest counter", minimum=1, maximum=8)


class State(NamedTuple):
    jobs: int
    done: int
    errors: int


START = State(0, 0, 0)


def init(c):
    return [START]


@action("Submit")
def submit(c, s):
    if s.jobs >= c.Top:
        return None
    return s._replace(jobs=s.jobs + 1)


@action("Finish")
def finish(c, s):
    if s.jobs == 0 or s.done >= c.Top:
        return None
    return State(s.jobs - 1, s.done + 1, s.errors)


@action("Fail")
def fail(c, s):
    if s.jobs == 0 or s.errors >= 1:
        return None
    return State(s.jobs - 1, s.done, s.errors + 1)


@action("Reset")
def reset(c, s):
    if s.jobs:
        return None
    return START


@step_property("ResetOnlyWhenIdle", "A step back to the start leaves from a state with little history.")
def reset_only_when_idle(c, s, t):
    return t != START or sum(s._asdict().values()) <= 2


SPEC = Spec(name="revisit-start", title="a violating step to a state already seen", constants=Config, init=init,
            actions=[submit, finish, fail, reset], properties=[reset_only_when_idle], deadlock_expected=True)
