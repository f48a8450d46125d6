"""An invariant that forgets ``return``: None is not "violated", it is a spec error."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    x: int


@action("Inc")
def inc(c, s):
    return S(s.x + 1) if s.x < c.N else None


@invariant("Bounded")
def bounded(c, s):
    s.x <= c.N  # noqa: B015 - the missing return is the point


SPEC = Spec(name="invariant-none", title="an invariant returning None", constants=C, init=lambda c: [S(0)],
            actions=[inc], invariants=[bounded], deadlock_expected=True)
