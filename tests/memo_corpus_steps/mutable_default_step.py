"""A helper that memoises in a mutable default argument, called on the parent's and the successor's logs.

``weight(log, _memo={})`` stores each log's weight in the dict it was
defined with, which lives from one evaluation to the next (and from one
search to the next in a process).  Its answers are those of the plain sum,
so the spec's answer does not depend on what is in it.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "violated"
PROPERTY = "WeightRisesByLittle"
VALUE = Domain("value", lambda c: (1, 2, 3), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=2, maximum=4)


class State(NamedTuple):
    log: tuple


def weight(log, _memo={}):
    if log not in _memo:
        _memo[log] = sum(log)
    return _memo[log]


def init(c):
    return [State(log=())]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return State(s.log + (value,))


@action("Pop")
def pop(c, s):
    if not s.log:
        return None
    return State(s.log[:-1])


@step_property("WeightRisesByLittle", "No step adds more than 2 to the log's weight.")
def weight_rises_by_little(c, s, t):
    return weight(t.log) - weight(s.log) <= 2


SPEC = Spec(name="mutable-default-step", title="a memo in a mutable default argument", constants=Config,
            init=init, actions=[append, pop], properties=[weight_rises_by_little], deadlock_expected=True)
