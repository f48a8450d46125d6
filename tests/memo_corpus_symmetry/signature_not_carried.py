"""A signature that renaming does not carry along, once a ring is formed: it reads the next process's count.

The spec is wrong: ``(p + 1) % N`` names another value by its index, so two
states of one orbit may get different fingerprints.  The ring forms only
once the clock has run out, past the states the preflight walk samples
(which would refuse the signature), so the search runs on; whatever the
spec's own code counts, every path must count.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=3, maximum=4)
    Clock: int = constant(9, "ticks before the ring may form", minimum=0, maximum=12)


class State(NamedTuple):
    count: tuple
    ring: bool
    clock: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, False, 0)]


@action("Inc", p=P)
def inc(c, s, p):
    if s.count[p] >= 3:
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Dec", p=P)
def dec(c, s, p):
    if s.count[p] == 0 or not s.ring:
        return None
    return s._replace(count=at(s.count, p, s.count[p] - 1))


@action("Tick")
def tick(c, s):
    if s.clock >= c.Clock:
        return None
    return s._replace(clock=s.clock + 1)


@action("FormRing")
def form_ring(c, s):
    if s.ring or s.clock < c.Clock:
        return None
    return s._replace(ring=True)


@invariant("CountsBounded", "Every count is between 0 and 3.")
def counts_bounded(c, s):
    return all(0 <= x <= 3 for x in s.count)


def permute(c, s, perm):
    count = [0] * c.N
    for i, x in enumerate(s.count):
        count[perm[i]] = x
    return State(tuple(count), s.ring, s.clock)


def signature(c, s, p):
    if s.ring:
        return (s.count[p], s.count[(p + 1) % c.N])
    return (s.count[p], 0)


SPEC = Spec(name="signature-not-carried", title="a signature that reads a neighbour", constants=Config,
            init=init, actions=[inc, dec, tick, form_ring], invariants=[counts_bounded],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
