"""An action written ``return guard and s._replace(...)``: False when disabled, which is not a state."""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant


@attrs.frozen
class C:
    N: int = constant(2, "bound", minimum=0, maximum=10)


class S(NamedTuple):
    counts: tuple


WHICH = Domain("counter", lambda c: range(2), lambda i: f"c{i + 1}")


@action("Inc", which=WHICH)
def inc(c, s, which):
    return s.counts[which] < c.N and s._replace(counts=s.counts[:which] + (s.counts[which] + 1,) + s.counts[which + 1:])


@invariant("Bounded")
def bounded(c, s):
    return all(x <= c.N for x in s.counts)


SPEC = Spec(name="action-bool", title="an action returning a bool", constants=C, init=lambda c: [S((0, 0))],
            actions=[inc], invariants=[bounded], deadlock_expected=True)
