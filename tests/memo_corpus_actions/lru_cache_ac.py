"""An action constraint through an ``lru_cache`` helper on the parent's and the successor's logs.

``weight(log)`` is cached; its answers are those of the plain sum.  A step
that adds more than 4 to the log's weight is rejected, so the heaviest
logs are reached only one small step at a time.
"""

import functools
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "holds"
VALUE = Domain("value", lambda c: (1, 3, 5), str)


@attrs.frozen
class Config:
    Length: int = constant(4, "the longest log", minimum=2, maximum=5)


class State(NamedTuple):
    log: tuple


@functools.lru_cache(maxsize=None)
def weight(log):
    return sum(log)


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


def light_steps(c, s, t):
    return weight(t.log) - weight(s.log) <= 4


@invariant("NoFive", "No log holds a 5.")
def no_five(c, s):
    return 5 not in s.log


SPEC = Spec(name="lru-cache-ac", title="an lru_cache helper in an action constraint", constants=Config,
            init=init, actions=[append, pop], invariants=[no_five], action_constraint=light_steps,
            deadlock_expected=True)
