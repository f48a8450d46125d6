"""A frozen dataclass built locally from parts as a "view" of the state, with a method and ``dataclasses.replace``.

The state must be a NamedTuple, but helpers need not be: a newcomer wraps
the parts an action needs in a small dataclass and asks it questions.
Its fields hold the parts (or stand-ins for them), and its ``__eq__``
compares them.
"""

import dataclasses
from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
REPLICA = Domain("replica", lambda c: range(2), lambda r: f"r{r + 1}")


@dataclasses.dataclass(frozen=True)
class Pair:
    mine: int
    theirs: int

    def behind(self):
        return self.mine < self.theirs


@attrs.frozen
class Config:
    Limit: int = constant(3, "the largest offset", minimum=1, maximum=4)


class State(NamedTuple):
    offsets: tuple
    alarms: int


def init(c):
    return [State(offsets=(0, 0), alarms=0)]


@action("Advance", replica=REPLICA)
def advance(c, s, replica):
    pair = Pair(s.offsets[replica], s.offsets[1 - replica])
    if pair.mine >= c.Limit or (pair.behind() is False and replica == 1):
        return None
    offsets = tuple(o + 1 if r == replica else o for r, o in enumerate(s.offsets))
    return s._replace(offsets=offsets)


@action("Audit")
def audit(c, s):
    pair = Pair(*s.offsets)
    moved = dataclasses.replace(pair, mine=pair.mine - 2)
    if s.alarms or moved != Pair(pair.theirs - 1, pair.theirs):
        return None
    return s._replace(alarms=1)


@invariant("NeverApart", "The first replica is never one ahead at the audit.")
def never_apart(c, s):
    return s.alarms == 0


SPEC = Spec(name="dataclass-view", title="a dataclass view of the state", constants=Config, init=init,
            actions=[advance, audit], invariants=[never_apart], deadlock_expected=True)
