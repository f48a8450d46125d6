"""A ``permute`` that reads the order in which a frozenset iterates: ``next(iter(tags))`` as the first tag.

The author takes a set's first item for the tag added first.  ``{0} | {8}``
and ``{8} | {0}`` are equal but iterate in the order their items were added
(0 and 8 share a slot), and ``Tidy`` rebuilds a set in sorted order: equal
states then have copies that differ, and a state's orbit depends on which
of the equal states was met first.  The preflight walk rebuilds each
sampled state's sets in another order and compares its orbit fingerprints:
refused.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"  # the preflight walk refuses it on every path: permute reads next(iter(frozenset)), whose order follows how the set was built
NO_ORACLE = "a state's copies depend on how its frozensets were built, so on which of equal states is met first"
TAG = Domain("tag", lambda c: (0, 8), str)
NONE = -1


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    tags: tuple
    """Per process: a frozenset of tags, 0 and 8."""
    first: tuple
    """Per process: the tag it was given first, or NONE."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((frozenset(),) * c.N, (NONE,) * c.N)]


@action("AddTag", p=P, tag=TAG)
def add_tag(c, s, p, tag):
    if tag in s.tags[p]:
        return None
    first = s.first[p] if s.tags[p] else tag
    return State(at(s.tags, p, s.tags[p] | {tag}), at(s.first, p, first))


@action("Tidy", p=P)
def tidy(c, s, p):
    if len(s.tags[p]) < 2:
        return None
    return s._replace(tags=at(s.tags, p, frozenset(sorted(s.tags[p]))))


@invariant("FirstIsATag", "A process's first tag is one of its tags.")
def first_is_a_tag(c, s):
    return all(f in t for t, f in zip(s.tags, s.first) if t)


def permute(c, s, perm):
    tags, first = [frozenset()] * c.N, [NONE] * c.N
    for i in range(c.N):
        tags[perm[i]] = s.tags[i]
        first[perm[i]] = next(iter(s.tags[i])) if s.tags[i] else NONE
    return State(tuple(tags), tuple(first))


def signature(c, s, p):
    return len(s.tags[p])


SPEC = Spec(name="permute-set-order", title="a permute that reads set iteration order", constants=Config,
            init=init, actions=[add_tag, tidy], invariants=[first_is_a_tag],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
