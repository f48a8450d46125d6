"""A ``permute`` that forgets to return in one branch: ``None`` for a state with a holder once the clock has run out.

``None`` is not a state: were its fingerprint taken like any other's,
wherever it is the smallest, states of different orbits would share it and
be merged without a word.  Every path stops with the spec's error at the
first state whose orbit needs that copy.  The branch is reached only past
the states the preflight walk samples (whose check of the signature would
stop at the first such copy).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"
NO_ORACLE = "the oracle takes orbits as sets of renamed copies, None among them, and raises nothing"
NOBODY = -1


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Clock: int = constant(7, "ticks before the forgetful branch", minimum=0, maximum=9)


class State(NamedTuple):
    count: tuple
    holder: int
    clock: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, NOBODY, 0)]


@action("Inc", p=P)
def inc(c, s, p):
    if s.count[p] >= 2:
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Hold", p=P)
def hold(c, s, p):
    if s.holder != NOBODY or s.count[p] == 0:
        return None
    return s._replace(holder=p)


@action("Release")
def release(c, s):
    if s.holder == NOBODY:
        return None
    return State(at(s.count, s.holder, 0), NOBODY, s.clock)


@action("Tick")
def tick(c, s):
    if s.clock >= c.Clock:
        return None
    return s._replace(clock=s.clock + 1)


@invariant("CountsBounded", "Every count is at most 2.")
def counts_bounded(c, s):
    return max(s.count) <= 2


def permute(c, s, perm):
    count = [0] * c.N
    for i, x in enumerate(s.count):
        count[perm[i]] = x
    if s.holder == NOBODY:
        return State(tuple(count), NOBODY, s.clock)
    if s.clock < c.Clock:
        return State(tuple(count), perm[s.holder], s.clock)
    State(tuple(count), perm[s.holder], s.clock)


def signature(c, s, p):
    return (s.holder == p, s.count[p])


SPEC = Spec(name="permute-returns-none", title="a permute that returns None", constants=Config, init=init,
            actions=[inc, hold, release, tick], invariants=[counts_bounded],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
