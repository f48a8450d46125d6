"""An action constraint that asks a seal to list the members largest first: how the successor's set iterates.

``Seal`` rebuilds the set of members (largest first): ``{0} | {8}`` and
``frozenset([8, 0])`` are equal, but 0 and 8 share a slot in the smallest
table, so the member added first iterates first.  The constraint lets a
seal through when ``tuple(t.members)`` is sorted largest first, which the
successor ``Seal`` built always is.  The spec's own code gives the
constraint the successor as the action built it; a fast path that keeps one
value per equal set hands it the set met first (joined 0 first) and
rejects every seal.  ``Seal`` is enabled at one point of a wide grid, deep
in the search, and the sealed state breaks the invariant.
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "violated"
ITEM = Domain("item", lambda c: (0, 8), str)


@attrs.frozen
class Config:
    Size: int = constant(6, "the largest coordinate", minimum=4, maximum=8)


class State(NamedTuple):
    members: frozenset
    a: int
    b: int
    d: int
    sealed: bool


def init(c):
    return [State(members=frozenset(), a=0, b=0, d=0, sealed=False)]


@action("Join", item=ITEM)
def join(c, s, item):
    if s.sealed or item in s.members:
        return None
    return s._replace(members=s.members | {item})


@action("MoveA")
def move_a(c, s):
    if s.sealed or s.a >= c.Size:
        return None
    return s._replace(a=s.a + 1)


@action("MoveB")
def move_b(c, s):
    if s.sealed or s.b >= c.Size:
        return None
    return s._replace(b=s.b + 1)


@action("MoveD")
def move_d(c, s):
    if s.sealed or s.d >= c.Size:
        return None
    return s._replace(d=s.d + 1)


@action("Seal")
def seal(c, s):
    if s.sealed or (s.a, s.b, s.d) != (3, c.Size, 4) or len(s.members) < 2:
        return None
    return State(frozenset(sorted(s.members, reverse=True)), s.a, s.b, s.d, True)


def sealed_largest_first(c, s, t):
    return s.sealed or not t.sealed or tuple(t.members) == tuple(sorted(t.members, reverse=True))


@invariant("NeverSealed", "No state is sealed.")
def never_sealed(c, s):
    return not s.sealed


SPEC = Spec(name="frozenset-seal-order", title="a successor set's iteration order in an action constraint", constants=Config,
            init=init, actions=[join, move_a, move_b, move_d, seal], invariants=[never_sealed],
            action_constraint=sealed_largest_first, deadlock_expected=True)
