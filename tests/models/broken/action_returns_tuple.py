"""An action that returns a plain tuple where the spec's states are ``S`` records."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    x: int
    y: int


@action("IncX")
def inc_x(c, s):
    return S(s.x + 1, s.y) if s.x < c.N else None


@action("IncY")
def inc_y(c, s):
    return (s.x, s.y + 1) if s.x == 1 and s.y < c.N else None


SPEC = Spec(name="action-tuple", title="an action returning a tuple that is not a state", constants=C,
            init=lambda c: [S(0, 0)], actions=[inc_x, inc_y], deadlock_expected=True)
