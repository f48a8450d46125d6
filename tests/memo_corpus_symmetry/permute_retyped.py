"""A ``permute`` that returns equal values of other types, built with a dict, ``sorted`` and comprehensions.

The permuted copy holds each count as a float and each flag as an int
(``2.0 == 2``, ``1 == True``), so it fingerprints as the state it renames;
the function reads the whole state (every count, to decide nothing).
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
    flag: tuple
    holder: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (False,) * c.N, NOBODY)]


@action("Inc", p=P)
def inc(c, s, p):
    if s.count[p] >= 2:
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Flag", p=P)
def flag(c, s, p):
    if s.flag[p] or s.count[p] == 0:
        return None
    return s._replace(flag=at(s.flag, p, True))


@action("Hold", p=P)
def hold(c, s, p):
    if s.holder != NOBODY or not s.flag[p]:
        return None
    return s._replace(holder=p)


@invariant("HolderNotFull", "The holder has not counted to 2 while every process is flagged.")
def holder_not_full(c, s):
    return not (s.holder != NOBODY and s.count[s.holder] == 2 and all(s.flag))


def permute(c, s, perm):
    total = sum(s.count)  # reads every count
    renamed = {perm[i]: (float(x), int(f)) for i, (x, f) in enumerate(zip(s.count, s.flag))}
    rows = [renamed[k] for k in sorted(renamed)]
    holder = NOBODY if s.holder == NOBODY else perm[s.holder]
    if total < 0:
        return s
    return State(tuple(x for x, _ in rows), tuple(f for _, f in rows), holder)


def signature(c, s, p):
    return (s.count[p], s.flag[p], s.holder == p)


SPEC = Spec(name="permute-retyped", title="a permute that changes the types of equal values", constants=Config,
            init=init, actions=[inc, flag, hold], invariants=[holder_not_full],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
