"""``0`` in one field and ``False`` in another, always: equal values of different types, but never in one
field, so nothing the checker merges is told apart and the memo tables serve the spec."""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant


@attrs.frozen
class C:
    Max: int = constant(3, "how far the counter goes", minimum=1, maximum=9)


class S(NamedTuple):
    count: int
    up: bool


def init(c):
    return [S(0, False)]


@action("Toggle")
def toggle(c, s):
    return S(s.count, not s.up)


@action("Count")
def count(c, s):
    return S(s.count + 1, s.up) if s.up and s.count < c.Max else None


@invariant("Bounded")
def bounded(c, s):
    return s.count <= c.Max


SPEC = Spec(name="zero-and-false", title="0 and False in two fields", constants=C, init=init,
            actions=[toggle, count], invariants=[bounded])
