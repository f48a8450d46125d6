"""A signature that reads many parts of the state, and the constants.

A process's key reads its value, whether it owns the lock, whether it is
a member, how often it appears in the shared log, the round, and whether
its value reaches the ``Threshold`` constant (set here to other than its default).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"
CONSTANTS = {"N": 3, "Threshold": 1}
NOBODY = -1


@attrs.frozen
class Config:
    N: int = constant(2, "processes", minimum=2, maximum=4)
    Threshold: int = constant(2, "the value from which a process counts as high", minimum=0, maximum=3)


class State(NamedTuple):
    val: tuple
    owner: int
    members: frozenset
    log: tuple
    """The processes that wrote, in order (at most two entries)."""
    round: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, NOBODY, frozenset(), (), 0)]


@action("Bump", p=P)
def bump(c, s, p):
    if s.val[p] >= 2:
        return None
    return s._replace(val=at(s.val, p, s.val[p] + 1))


@action("Lock", p=P)
def lock(c, s, p):
    if s.owner != NOBODY:
        return None
    return s._replace(owner=p)


@action("Unlock")
def unlock(c, s):
    if s.owner == NOBODY:
        return None
    return s._replace(owner=NOBODY, round=min(s.round + 1, 1))


@action("Join", p=P)
def join(c, s, p):
    if p in s.members or s.val[p] < c.Threshold:
        return None
    return s._replace(members=s.members | {p})


@action("Write")
def write(c, s):
    if s.owner == NOBODY or len(s.log) >= 2:
        return None
    return s._replace(log=s.log + (s.owner,))


@invariant("NoHighOwnerTwice", "No member at value 2 owns the lock after writing twice.")
def no_high_owner_twice(c, s):
    return not (s.owner != NOBODY and s.owner in s.members and s.val[s.owner] == 2
                and s.log.count(s.owner) == 2)


def permute(c, s, perm):
    val = [0] * c.N
    for i, v in enumerate(s.val):
        val[perm[i]] = v
    return State(tuple(val), NOBODY if s.owner == NOBODY else perm[s.owner],
                 frozenset(perm[m] for m in s.members), tuple(perm[w] for w in s.log), s.round)


def signature(c, s, p):
    return (s.val[p], s.owner == p, p in s.members, s.log.count(p), s.round, s.val[p] >= c.Threshold)


SPEC = Spec(name="signature-many-parts", title="a signature over many parts", constants=Config, init=init,
            actions=[bump, lock, unlock, join, write], invariants=[no_high_owner_twice],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
