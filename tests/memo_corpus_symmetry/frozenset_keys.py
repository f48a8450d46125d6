"""Frozenset keys: the set of items a process holds, which ``<`` orders only by inclusion.

``{0} < {1}`` and ``{1} < {0}`` are both false, yet ``{0} != {1}``: no tie,
and no order either, so ``sorted`` leaves such keys as it met them.  Three
processes share three items (the items are not interchangeable).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, Symmetry, action, constant, invariant

EXPECTED = "holds"


@attrs.frozen
class Config:
    N: int = constant(3, "processes", minimum=2, maximum=4)
    Items: int = constant(3, "items", minimum=1, maximum=4)


class State(NamedTuple):
    held: tuple
    """Per process: the frozenset of items it holds."""
    grabs: tuple
    """Per process: how many grabs it has made (at most two)."""


P = Domain("p", lambda c: range(c.N), lambda p: f"p{p}")
ITEM = Domain("item", lambda c: range(c.Items), lambda i: f"i{i}")


def at(t, p, v):
    return t[:p] + (v,) + t[p + 1:]


def init(c):
    return [State((frozenset(),) * c.N, (0,) * c.N)]


@action("Grab", p=P, item=ITEM)
def grab(c, s, p, item):
    if s.grabs[p] >= 2 or any(item in h for h in s.held):
        return None
    return State(at(s.held, p, s.held[p] | {item}), at(s.grabs, p, s.grabs[p] + 1))


@action("Drop", p=P, item=ITEM)
def drop(c, s, p, item):
    if item not in s.held[p]:
        return None
    return s._replace(held=at(s.held, p, s.held[p] - {item}))


@invariant("Exclusive", "No item is held by two processes.")
def exclusive(c, s):
    return sum(len(h) for h in s.held) == len(frozenset().union(*s.held))


def permute(c, s, perm):
    held, grabs = [None] * c.N, [0] * c.N
    for i in range(c.N):
        held[perm[i]], grabs[perm[i]] = s.held[i], s.grabs[i]
    return State(tuple(held), tuple(grabs))


def signature(c, s, p):
    return s.held[p]


SPEC = Spec(name="frozenset-keys", title="frozenset keys", constants=Config, init=init, actions=[grab, drop],
            invariants=[exclusive], symmetry=Symmetry(lambda c: c.N, permute, signature),
            deadlock_expected=True)
