"""A ``sometimes`` property that returns a list (a comprehension where ``any(`` was meant)."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, sometimes


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    xs: tuple


@action("Push")
def push(c, s):
    return S(s.xs + (len(s.xs),)) if len(s.xs) < c.N else None


@sometimes("ReachesTwo")
def reaches_two(c, s):
    return [x for x in s.xs if x == 2]


SPEC = Spec(name="sometimes-list", title="a property returning a list", constants=C, init=lambda c: [S(())],
            actions=[push], sometimes=[reaches_two], deadlock_expected=True)
