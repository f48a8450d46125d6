"""A counter for the pytest helpers' temporal properties (tests/test_testing_helpers.py).

x starts at 0; Inc adds 1 up to 3 (weakly fair); Reset goes from 2 back to 0.
At 3 nothing is enabled: a deadlock, where a behaviour stutters forever.
Every verdict below can be worked out by hand:

- ``ReachesThree`` (<>(x = 3)) is violated by the loop 0 -> 1 -> 2 -> 0: Inc is
  taken in it, so weak fairness is met, and x never is 3.  No stuttering
  ending refutes it (Inc is enabled below 3, and the only stuttering end is 3).
- ``ZeroInfinitelyOften`` ([]<>(x = 0)) holds on that loop; only the behaviour
  that stutters at 3 forever violates it (stem 0, 1, 2, 3).
- ``ZeroLeadsToOne`` (x = 0 ~> x = 1) holds: at 0 Inc is enabled, fair, and the
  only way out.
- ``NoBigDrop`` (a step never lowers x by more than 1) is violated by Reset,
  2 -> 0: a shortest trace of 4 states (0, 1, 2, 0).
- The invariant ``BelowThree`` is violated at 3 (4 states), and 3 is a deadlock:
  both are found by the search before any temporal property is decided.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, always_eventually, constant, eventually, invariant, leads_to, liveness, \
    step_property, weak


class X(NamedTuple):
    x: int


@attrs.frozen
class Consts:
    Top: int = constant(3, "the counter's top", minimum=3, maximum=3)


@action("Inc")
def inc(c, s):
    return X(s.x + 1) if s.x < c.Top else None


@action("Reset")
def reset(c, s):
    return X(0) if s.x == 2 else None


@invariant("BelowThree", "x stays below 3")
def below_three(c, s):
    return s.x < 3


@liveness("ReachesThree", "x eventually is 3")
def reaches_three(c):
    return eventually(lambda c, s: s.x == 3)


@liveness("ZeroInfinitelyOften", "x is 0 again and again")
def zero_infinitely_often(c):
    return always_eventually(lambda c, s: s.x == 0)


@liveness("ZeroLeadsToOne", "whenever x is 0, it is 1 later")
def zero_leads_to_one(c):
    return leads_to(lambda c, s: s.x == 0, lambda c, s: s.x == 1)


@step_property("NoBigDrop", "x never drops by more than 1 in one step")
def no_big_drop(c, s, t):
    return t.x >= s.x - 1


SPEC = Spec(name="lasso-toy", title="A counter with a loop and a dead end", constants=Consts,
            init=lambda c: [X(0)], actions=[inc, reset], invariants=[below_three],
            properties=[reaches_three, zero_infinitely_often, zero_leads_to_one, no_big_drop],
            fairness=[weak(inc)])
