"""A frozenset ``{1.0, 2}`` becomes the equal ``{1, 2.0}``: the same element types, on other elements.

``max()`` of the first is the int ``2``, of the second the float ``2.0``,
and ``str()`` tells them apart.  The checker treats the two sets as equal
values; the tables must not give them one id, or the invariant's answer
for the first would stand for the second (a "holds" where the spec's own
code finds the violation).
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    N: int = constant(3, "steps before the swap", minimum=0, maximum=100)


class S(NamedTuple):
    n: int
    amounts: frozenset


def init(c):
    return [S(0, frozenset({1.0, 2}))]


@action("Step")
def step(c, s):
    if s.n >= c.N:
        return None
    return s._replace(n=s.n + 1)


@action("Swap")
def swap(c, s):
    if s.n != c.N:
        return None
    return S(s.n + 1, frozenset({1, 2.0}))


@invariant("WholeMax", "the largest amount prints as a whole number")
def whole_max(c, s):
    return str(max(s.amounts)).isdigit()


SPEC = Spec(name="frozenset-types-swapped", title="frozenset element types swapped", constants=Config, init=init,
            actions=[step, swap], invariants=[whole_max], deadlock_expected=True)
