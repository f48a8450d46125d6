"""A list is mutable and unhashable: the checker must refuse the state, in one line with exit status 2, never
crash or go on."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, invariant

BAD = [1, 2]


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


SPEC = Spec(name="identity-refuse-list", title="a list in a state", constants=C, init=init, actions=[step], invariants=[ok],
            deadlock_expected=True)
