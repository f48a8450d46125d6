"""NaN is not equal to itself, so a state holding it is not equal to itself: no exact answer exists for it (each
visit would be a new state). It must be refused in one line, exit 2, never counted."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant

BAD = (1, float("nan"))


@attrs.frozen
class C:
    pass


class S(NamedTuple):
    v: object
    phase: int


def init(c):
    return [S(0, 0)]


@action("Step")
def step(c, s):
    if s.phase == 0:
        return S(1, 1)
    if s.phase == 1:
        return S(BAD, 2)
    return None


@invariant("Ok", "Always true.")
def ok(c, s):
    return True


SPEC = Spec(name="identity-refuse-nan", title="NaN in a state", constants=C, init=init, actions=[step], invariants=[ok],
            deadlock_expected=True)
