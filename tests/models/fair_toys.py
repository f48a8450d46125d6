"""Small specs whose liveness verdicts can be worked out by hand (tests/test_liveness.py).

Each spec is built by a function, so a test can choose the fairness; the
expected verdicts are reasoned in the tests, next to their assertions.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs

from modelcheck import (Domain, Spec, action, all_of, always_eventually, constant, eventually, eventually_always, leads_to,
                        liveness, step_property)


# -- a counter: Inc up to N, Reset from anywhere above 0 ----------------------------------------


class X(NamedTuple):
    x: int


@attrs.frozen
class CounterConsts:
    N: int = constant(3, "the counter's top", minimum=1, maximum=50)


@action("Inc")
def inc(c, s):
    return X(s.x + 1) if s.x < c.N else None


@action("Reset")
def reset(c, s):
    return X(0) if s.x > 0 else None


@liveness("ReachesTop", "x eventually reaches N")
def reaches_top(c):
    return eventually(lambda c, s: s.x == c.N)


@liveness("ZeroLeadsToOne", "whenever x is 0, it is 1 later")
def zero_leads_to_one(c):
    return leads_to(lambda c, s: s.x == 0, lambda c, s: s.x == 1)


@liveness("ZeroInfinitelyOften", "x is 0 again and again")
def zero_infinitely_often(c):
    return always_eventually(lambda c, s: s.x == 0)


@liveness("EventuallyPositiveForever", "from some point on, x stays above 0")
def eventually_positive_forever(c):
    return eventually_always(lambda c, s: s.x > 0)


@liveness("EveryValueLeadsToZero", "every value of x leads to 0 (a conjunction over the values)")
def every_value_leads_to_zero(c):
    return all_of(leads_to(lambda c, s, v=v: s.x == v, lambda c, s: s.x == 0) for v in range(1, c.N + 1))


@step_property("NoBigDrop", "x never drops by more than 2 in one step")
def no_big_drop(c, s, t):
    return t.x >= s.x - 2


def counter(fairness=()) -> Spec:
    return Spec(name="counter", title="A counter with reset", constants=CounterConsts,
                init=lambda c: [X(0)], actions=[inc, reset], invariants=[],
                properties=[reaches_top, zero_leads_to_one, zero_infinitely_often, eventually_positive_forever,
                            every_value_leads_to_zero, no_big_drop],
                fairness=[f(a) for f, a in fairness])


# -- a toggle with an exit that is enabled only on one side ----------------------------------------


class T(NamedTuple):
    side: int  # 0 or 1
    done: bool


@attrs.frozen
class NoConsts:
    K: int = constant(1, "unused", minimum=1, maximum=1)


@action("Toggle")
def toggle(c, s):
    return None if s.done else T(1 - s.side, False)


@action("Exit")
def exit_(c, s):
    return T(s.side, True) if s.side == 0 and not s.done else None


@liveness("EventuallyDone", "the toggling ends")
def eventually_done(c):
    return eventually(lambda c, s: s.done)


def toggle_spec(fairness=()) -> Spec:
    return Spec(name="toggle", title="Toggle with an exit on one side", constants=NoConsts,
                init=lambda c: [T(0, False)], actions=[toggle, exit_], invariants=[], properties=[eventually_done],
                fairness=[f(a) for f, a in fairness], deadlock_expected=True)


# -- an action with two instances: Pick(0) flips a bit forever, Pick(1) finishes -------------------


class P(NamedTuple):
    bit: int
    finished: bool


@action("Pick", i=Domain("instance", lambda c: range(2)))
def pick(c, s, i):
    if i == 0:
        return P(1 - s.bit, s.finished)
    return None if s.finished else P(s.bit, True)


@liveness("EventuallyFinished", "Pick(1) eventually happens")
def eventually_finished(c):
    return eventually(lambda c, s: s.finished)


def pick_spec(each: bool) -> Spec:
    from modelcheck import weak

    return Spec(name="pick", title="Two instances of one action", constants=NoConsts,
                init=lambda c: [P(0, False)], actions=[pick], invariants=[], properties=[eventually_finished],
                fairness=[weak(pick, each=each)])


# -- a run that ends: 0 -> 1 -> 2, then nothing is enabled -------------------------------------------


@action("Step")
def step(c, s):
    return X(s.x + 1) if s.x < 2 else None


@liveness("ReachesTwo", "x eventually is 2")
def reaches_two(c):
    return eventually(lambda c, s: s.x == 2)


@liveness("ReachesFive", "x eventually is 5 (it never is)")
def reaches_five(c):
    return eventually(lambda c, s: s.x == 5)


def ending_spec(fair: bool) -> Spec:
    from modelcheck import weak

    return Spec(name="ending", title="A run that ends", constants=NoConsts, init=lambda c: [X(0)],
                actions=[step], invariants=[], properties=[reaches_two, reaches_five],
                fairness=[weak(step)] if fair else [], deadlock_expected=True)
