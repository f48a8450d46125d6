"""A signature of several facts, learnt a fact at a time: keys that tie on their first facts, and facts
equal but not alike (``True`` and ``1``, ``0`` and ``False``) at the same position of different keys.

Each process has a level, a flag and a set of tags; its key is its level
halved (an int), whether the flag is up (a bool) or, for a level past 2,
the count of its tags (an int where others hold bools), and whether it is
the holder.  Python's tuple comparison decides the order item by item, so
keys that share a level are ordered by the later items, and ``(1, True,
...)`` ties ``(1, 1, ...)``: those ties give several renamed copies, whose
smallest fingerprint is the orbit's.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "violated"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    level: tuple
    flag: tuple
    tags: tuple
    """Per process: a frozenset of tag numbers."""
    holder: int
    """The process holding the token, or -1."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((0,) * c.N, (False,) * c.N, (frozenset(),) * c.N, -1)]


@action("Step", p=P)
def step(c, s, p):
    if s.level[p] >= 4:
        return None
    return s._replace(level=at(s.level, p, s.level[p] + 1))


@action("Flag", p=P)
def flag(c, s, p):
    if s.flag[p]:
        return None
    return s._replace(flag=at(s.flag, p, True))


@action("Tag", p=P)
def tag(c, s, p):
    if len(s.tags[p]) >= 2 or s.level[p] == 0:
        return None
    return s._replace(tags=at(s.tags, p, s.tags[p] | {s.level[p]}))


@action("Take", p=P)
def take(c, s, p):
    if s.holder == p:
        return None
    return s._replace(holder=p)


@invariant("NotTwoFullyTagged", "At most one process at level 4 with two tags while holding the token.")
def not_two_fully_tagged(c, s):
    return sum(1 for p in range(len(s.level)) if s.level[p] == 4 and len(s.tags[p]) == 2) < 2 \
        or s.holder == -1 or len(s.tags[s.holder]) < 2


def permute(c, s, perm):
    level, fl, tags = [None] * c.N, [None] * c.N, [None] * c.N
    for i in range(c.N):
        level[perm[i]], fl[perm[i]], tags[perm[i]] = s.level[i], s.flag[i], s.tags[i]
    return State(tuple(level), tuple(fl), tuple(tags), -1 if s.holder == -1 else perm[s.holder])


def signature(c, s, p):
    """The level halved, then the flag (or the tag count past level 2), then whether ``p`` holds."""
    lv = s.level[p]
    return (lv // 2, (len(s.tags[p]) if lv > 2 else s.flag[p]), s.holder == p, len(s.tags[p]) > 0)


SPEC = Spec(name="signature-items-ties", title="a split signature with ties and bools among ints",
            constants=Config, init=init, actions=[step, flag, tag, take], invariants=[not_two_fully_tagged],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
