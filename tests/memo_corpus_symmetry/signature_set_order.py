"""A signature that reads the order in which a frozenset iterates: ``tuple(tags)``.

``{0} | {8}`` and ``{8} | {0}`` are equal but iterate in the order their
items were added (0 and 8 share a slot), so equal states may have keys
``(0, 8)`` or ``(8, 0)``, and which key a state gets depends on which of
the equal states was met first.  The preflight walk rebuilds each sampled
state's sets in another order and compares its orbit fingerprints: refused.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "error"  # the preflight walk refuses it on every path: the signature reads tuple(frozenset), whose order follows how the set was built
NO_ORACLE = "a state's key depends on how its frozensets were built, so on which of equal states is met first"
TAG = Domain("tag", lambda c: (0, 8), str)


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)


class State(NamedTuple):
    tags: tuple
    """Per process: a frozenset of tags, 0 and 8."""
    busy: tuple


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((frozenset(),) * c.N, (False,) * c.N)]


@action("AddTag", p=P, tag=TAG)
def add_tag(c, s, p, tag):
    if tag in s.tags[p]:
        return None
    return s._replace(tags=at(s.tags, p, s.tags[p] | {tag}))


@action("Busy", p=P)
def busy(c, s, p):
    if s.busy[p] or not s.tags[p]:
        return None
    return s._replace(busy=at(s.busy, p, True))


@invariant("BusyTagged", "A busy process has a tag.")
def busy_tagged(c, s):
    return all(t for t, b in zip(s.tags, s.busy) if b)


def permute(c, s, perm):
    tags, busy_ = [frozenset()] * c.N, [False] * c.N
    for i in range(c.N):
        tags[perm[i]], busy_[perm[i]] = s.tags[i], s.busy[i]
    return State(tuple(tags), tuple(busy_))


def signature(c, s, p):
    return (tuple(s.tags[p]), s.busy[p])


SPEC = Spec(name="signature-set-order", title="a signature that reads set iteration order", constants=Config,
            init=init, actions=[add_tag, busy], invariants=[busy_tagged],
            symmetry=Symmetry(lambda c: c.N, permute, signature), deadlock_expected=True)
