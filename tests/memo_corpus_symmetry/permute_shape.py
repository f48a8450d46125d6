"""A ``permute`` that returns states of another shape: a plain tuple, or one with an extra item.

Once the clock has run out, a copy is a plain tuple (equal to the
NamedTuple: one fingerprint), and a copy of a state with a holder also gets
a note appended, so every copy of it but the state itself fingerprints otherwise.
The spec is wrong, and its orbits are what its own functions make of it.
No signature: every renaming is tried.  The extra item appears only past the
states the preflight walk samples (which evaluates the invariant on copies).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"
NOBODY = -1


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Clock: int = constant(7, "ticks before copies get a note", minimum=0, maximum=9)


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
    holder = NOBODY if s.holder == NOBODY else perm[s.holder]
    if s.clock < c.Clock:
        return State(tuple(count), holder, s.clock)
    if holder != NOBODY:
        return (tuple(count), holder, s.clock, "renamed")
    return (tuple(count), holder, s.clock)


SPEC = Spec(name="permute-shape", title="a permute that changes the state's shape", constants=Config,
            init=init, actions=[inc, hold, release, tick], invariants=[counts_bounded],
            symmetry=Symmetry(lambda c: c.N, permute), deadlock_expected=True)
