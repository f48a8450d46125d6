"""Early exits that are not ``return None``: ``return []`` (no successor), ``return s`` (a stutter) among the guards.

A fast path that separates an action's guard (its leading ``if ...:
return None``) from the rest must treat an early ``return []`` as
disabled-with-a-list and an early ``return s`` as a generated state, in
the right order with the other guards.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(4, "the largest value", minimum=2, maximum=6)


class State(NamedTuple):
    a: int
    b: int


def init(c):
    return [State(0, 0)]


@action("Step")
def step(c, s):
    if s.a >= c.Limit:
        return []
    if s.a == s.b + 2:
        return s
    if s.b > s.a:
        return None
    return s._replace(a=s.a + 1)


@action("Follow")
def follow(c, s):
    if s.b >= s.a:
        return []
    return [s._replace(b=s.b + 1), s._replace(b=s.a)]


@invariant("BehindAtTop", "b never reaches the limit.")
def behind_at_top(c, s):
    return s.b < c.Limit


SPEC = Spec(name="guard-other-exits", title="early exits other than return None", constants=Config, init=init,
            actions=[step, follow], invariants=[behind_at_top], deadlock_expected=True)
