"""Two step properties that fail on the same step, checked together.

``Rollback`` both lowers the committed offset and empties the log, so
``CommitNeverFalls`` and ``LogNeverShrinks`` fail on the same step; the
check names the first one it lists.  ``PROPERTIES`` is the run's list, in
its order; ``PROPERTY`` the one reported.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTIES = ("LogNeverShrinks", "CommitNeverFalls")
PROPERTY = "LogNeverShrinks"
VALUE = Domain("value", lambda c: range(2), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=2, maximum=4)


class State(NamedTuple):
    log: tuple
    committed: int


def init(c):
    return [State(log=(), committed=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Commit")
def commit(c, s):
    if s.committed >= len(s.log):
        return None
    return s._replace(committed=s.committed + 1)


@action("Rollback")
def rollback(c, s):
    if s.committed < 2:
        return None
    return State((), 0)


@step_property("CommitNeverFalls", "No step lowers the committed offset.")
def commit_never_falls(c, s, t):
    return t.committed >= s.committed


@step_property("LogNeverShrinks", "No step shortens the log.")
def log_never_shrinks(c, s, t):
    return len(t.log) >= len(s.log)


SPEC = Spec(name="two-properties", title="two step properties failing on one step", constants=Config, init=init,
            actions=[append, commit, rollback], properties=[commit_never_falls, log_never_shrinks],
            deadlock_expected=True)
