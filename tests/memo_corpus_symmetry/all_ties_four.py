"""Four processes whose keys are all equal (the signature reads only a constant and the round): 24 orderings.

Every state ties all four processes, so its orbit is the smallest of all
24 renamings, as without a signature.  The invariant fails deep in the
search, so the traces can be compared.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"
NOBODY = -1


@attrs.frozen
class Config:
    N: int = constant(4, "processes", minimum=2, maximum=4)
    Kind: str = constant("worker", "what the processes are")


class State(NamedTuple):
    count: tuple
    token: int
    round: int


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, NOBODY, 0)]


@action("Inc", p=P)
def inc(c, s, p):
    if s.count[p] >= 2 or s.token not in (NOBODY, p):
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Take", p=P)
def take(c, s, p):
    if s.token != NOBODY or s.count[p] == 0:
        return None
    return s._replace(token=p)


@action("Give")
def give(c, s):
    if s.token == NOBODY:
        return None
    return s._replace(token=NOBODY, round=min(s.round + 1, 2))


@invariant("NotAllFullInRoundTwo", "Not every count is 2 while the round is 2.")
def not_all_full(c, s):
    return not (s.round == 2 and all(x == 2 for x in s.count))


def permute(c, s, perm):
    count = [0] * c.N
    for i, x in enumerate(s.count):
        count[perm[i]] = x
    return State(tuple(count), NOBODY if s.token == NOBODY else perm[s.token], s.round)


def signature(c, s, p):
    return (c.Kind, s.round)


SPEC = Spec(name="all-ties-four", title="four processes, every key tied", constants=Config, init=init,
            actions=[inc, take, give], invariants=[not_all_full],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
