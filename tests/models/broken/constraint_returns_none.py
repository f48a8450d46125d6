"""A state constraint that forgets ``return``: None would leave every state out of the model."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(5, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    x: int


@action("Inc")
def inc(c, s):
    return S(s.x + 1)


def small(c, s):
    if s.x <= c.N:
        return True


SPEC = Spec(name="constraint-none", title="a state constraint returning None", constants=C, init=lambda c: [S(0)],
            actions=[inc], state_constraint=small, deadlock_expected=True)
