"""An action constraint that returns an int (a difference where a comparison was meant)."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(3, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    x: int


@action("Inc")
def inc(c, s):
    return S(s.x + 1) if s.x < c.N else None


def grows(c, s, t):
    return t.x - s.x


SPEC = Spec(name="action-constraint-int", title="an action constraint returning an int", constants=C,
            init=lambda c: [S(0)], actions=[inc], action_constraint=grows, deadlock_expected=True)
