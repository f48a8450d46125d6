"""TLC's VIEW through a method of the constants class that asks ``type()`` of a part.

``c.view(s)`` keeps the tag where it is an int.  On a stand-in for the part
``type()`` is the stand-in's class, so the view the tables would learn
drops the tag from every state's identity: fewer distinct states, at once.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    N: int = constant(4, "values and tags", minimum=2, maximum=8)

    def view(self, s):
        return (s.v, s.tag) if type(s.tag) == int else (s.v,)


class S(NamedTuple):
    v: int
    tag: int


def init(c):
    return [S(0, 0)]


@action("Step")
def step(c, s):
    return S((s.v + 1) % c.N, s.tag) if s.v + 1 < 3 * c.N else None


@action("Tag")
def tag(c, s):
    return s._replace(tag=(s.tag + 1) % c.N)


@invariant("InRange", "the value stays below N")
def in_range(c, s):
    return 0 <= s.v < c.N


SPEC = Spec(name="constants-method-view", title="a view through a constants method", constants=Config, init=init,
            actions=[step, tag], invariants=[in_range], fingerprint_view=lambda c, s: c.view(s),
            deadlock_expected=True)
