"""Keys that are lists (unhashable, though they sort): ``[count, sorted(tags)]``.

Lists compare item by item as tuples do, so they sort and tie, but cannot
be hashed or kept in a set: a fast path that files keys by hash cannot take them.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"
TAG = Domain("tag", lambda c: ("a", "b"), str)


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    count: tuple
    tags: tuple
    """Per process: a frozenset of tags."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (frozenset(),) * c.N)]


@action("Count", p=P)
def count(c, s, p):
    if s.count[p] >= 2:
        return None
    return s._replace(count=at(s.count, p, s.count[p] + 1))


@action("Tag", p=P, tag=TAG)
def tag(c, s, p, tag):
    if tag in s.tags[p]:
        return None
    return s._replace(tags=at(s.tags, p, s.tags[p] | {tag}))


@invariant("NotAllFull", "Not every process has counted twice and both tags.")
def not_all_full(c, s):
    return not all(n == 2 and len(t) == 2 for n, t in zip(s.count, s.tags))


def permute(c, s, perm):
    count, tags = [0] * c.N, [None] * c.N
    for i in range(c.N):
        count[perm[i]], tags[perm[i]] = s.count[i], s.tags[i]
    return State(tuple(count), tuple(tags))


def signature(c, s, p):
    return [s.count[p], sorted(s.tags[p])]


SPEC = Spec(name="list-keys", title="list keys", constants=Config, init=init, actions=[count, tag],
            invariants=[not_all_full], symmetry=Symmetry(lambda c: c.N, permute, signature),
            deadlock_expected=True)
