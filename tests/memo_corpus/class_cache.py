"""A cache kept as a class attribute of the State class, used by a method.

``class State(NamedTuple)`` may hold plain class attributes; a newcomer
puts ``_memo = {}`` there and fills it from a method, ``self._memo[key] =``
(an assignment into an attribute of a class, not of a module).  Pure, but
state kept between calls: a hit reads nothing.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
VALUE = Domain("value", lambda c: range(2), str)


@attrs.frozen
class Config:
    Length: int = constant(3, "the longest log", minimum=1, maximum=4)


class State(NamedTuple):
    log: tuple
    rank: int

    memo = {}

    def ones(self):
        if self.log not in State.memo:
            State.memo[self.log] = self.log.count(1)
        return State.memo[self.log]


def init(c):
    return [State(log=(), rank=0)]


@action("Append", value=VALUE)
def append(c, s, value):
    if len(s.log) >= c.Length:
        return None
    return s._replace(log=s.log + (value,))


@action("Rank")
def rank(c, s):
    r = s.ones() * 10 + len(s.log)
    if r == s.rank:
        return None
    return s._replace(rank=r)


@invariant("NotAllOnes", "A full log of ones is never ranked.")
def not_all_ones(c, s):
    return s.rank != 33


SPEC = Spec(name="class-cache", title="a cache on the state class", constants=Config, init=init,
            actions=[append, rank], invariants=[not_all_ones], deadlock_expected=True)
