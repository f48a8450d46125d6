"""A ``permute`` that is not the identity under the identity renaming: it forgets who moved last.

A renamed copy resets ``last`` (the author thought it need not follow the
renaming), so ``permute(s, identity) != s`` when someone moved.  The spec's
own code takes a state already in signature order, without ties, as it is,
and every other state's orbit from copies that forgot: the spec is wrong,
and its orbits are what its own functions make of it.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"
NOBODY = -1


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    count: tuple
    last: int
    """The process that moved last, or NOBODY."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, NOBODY)]


@action("Inc", p=P)
def inc(c, s, p):
    if s.count[p] >= 2:
        return None
    return State(at(s.count, p, s.count[p] + 1), p)


@action("Pause")
def pause(c, s):
    if s.last == NOBODY:
        return None
    return s._replace(last=NOBODY)


@invariant("NotAllTwo", "Not every count is 2.")
def not_all_two(c, s):
    return not all(x == 2 for x in s.count)


def permute(c, s, perm):
    count = [0] * c.N
    for i, x in enumerate(s.count):
        count[perm[i]] = x
    return State(tuple(count), NOBODY)


def signature(c, s, p):
    return s.count[p]


SPEC = Spec(name="permute-forgets", title="a permute that forgets a part", constants=Config, init=init,
            actions=[inc, pause], invariants=[not_all_two],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
