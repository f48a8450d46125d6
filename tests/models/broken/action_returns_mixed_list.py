"""An action whose list of successors holds a state and something that is not one."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    x: int


@action("Step")
def step(c, s):
    if s.x >= c.N:
        return None
    if s.x == 0:
        return [S(1)]
    return [S(s.x + 1), s.x + 2]


SPEC = Spec(name="action-mixed-list", title="an action returning a list of mixed types", constants=C,
            init=lambda c: [S(0)], actions=[step], deadlock_expected=True)
