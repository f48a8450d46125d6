"""``init`` returning one state instead of an iterable of states."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    x: int
    y: int


def init(c):
    return S(0, 0)


@action("IncX")
def inc_x(c, s):
    return s._replace(x=s.x + 1) if s.x < c.N else None


SPEC = Spec(name="init-single", title="init returning a single state", constants=C, init=init, actions=[inc_x],
            deadlock_expected=True)
