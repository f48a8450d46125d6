"""A ``permute`` that returns a list (not a state) for a state whose clock has run out, deep in the search.

A list cannot be fingerprinted: the spec's own code stops with an error on
the first state that needs such a copy, and so must every path.  The clock
runs out past the states the preflight walk samples.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Clock: int = constant(7, "ticks before copies become lists", minimum=0, maximum=9)


class State(NamedTuple):
    count: tuple
    flag: tuple
    clock: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (False,) * c.N, 0)]


@action("Inc", p=P)
def inc(c, s, p):
    if s.count[p] >= 2:
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Flag", p=P)
def flag(c, s, p):
    if s.flag[p]:
        return None
    return s._replace(flag=at(s.flag, p, True))


@action("Tick")
def tick(c, s):
    if s.clock >= c.Clock:
        return None
    return s._replace(clock=s.clock + 1)


@invariant("CountsBounded", "Every count is at most 2.")
def counts_bounded(c, s):
    return max(s.count) <= 2


def permute(c, s, perm):
    count, flags = [0] * c.N, [False] * c.N
    for i in range(c.N):
        count[perm[i]], flags[perm[i]] = s.count[i], s.flag[i]
    if s.clock >= c.Clock:
        return [tuple(count), tuple(flags), s.clock]
    return State(tuple(count), tuple(flags), s.clock)


def signature(c, s, p):
    return (s.count[p], s.flag[p])


SPEC = Spec(name="permute-returns-list", title="a permute that returns a list", constants=Config, init=init,
            actions=[inc, flag, tick], invariants=[counts_bounded],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
