"""Actions that return the state itself, an unchanged copy, or an empty list.

``return s`` (a stuttering step), ``return s._replace()`` and ``return []``
are all legal: the first two count as a generated state that is not new,
the last as no successor.  A fast path must count them exactly as the
spec's own code does ("states generated" is compared too).
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    Limit: int = constant(4, "the largest counter", minimum=1, maximum=6)


class State(NamedTuple):
    counter: int


def init(c):
    return [State(0)]


@action("Inc")
def inc(c, s):
    if s.counter >= c.Limit:
        return []
    return [State(s.counter + 1)]


@action("Stay")
def stay(c, s):
    return s if s.counter % 2 else s._replace()


@action("Nothing")
def nothing(c, s):
    return [] if s.counter else None


@invariant("BelowLimit", "The counter never reaches the limit.")
def below_limit(c, s):
    return s.counter < c.Limit


SPEC = Spec(name="self-loops", title="stuttering steps and empty lists", constants=Config, init=init,
            actions=[inc, stay, nothing], invariants=[below_limit], deadlock_expected=True)
