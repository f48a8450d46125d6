"""An action constraint that compares how the parent's and the successor's sets iterate.

``Seal`` rebuilds the set of members (largest first): ``{0} | {8}`` and
``frozenset([8, 0])`` are equal, but 0 and 8 share a slot in the smallest
table, so the member added first iterates first.  The constraint rejects a
step that keeps the members but lists them in another order.  ``Seal`` is
enabled at one point of a wide grid, deep in the search.  Of equal states
the one met first is kept: its set was joined 0 first, so ``Seal`` always
reorders it and is always rejected.  A fast path that hands the constraint
another of the equal sets lets a seal through.

The checker rejects the spec before the search, on every path: the
constraint's verdict on a step changes when the step's states are built in
another order (any step that keeps a two-member set shows it).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, invariant

EXPECTED = "error"
REJECTED = "depends on the order in which a frozenset iterates"
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


def order_kept(c, s, t):
    return s.members != t.members or tuple(s.members) == tuple(t.members)


@invariant("NeverSealed", "No state is sealed.")
def never_sealed(c, s):
    return not s.sealed


SPEC = Spec(name="frozenset-order-ac", title="set iteration order in an action constraint", constants=Config,
            init=init, actions=[join, move_a, move_b, move_d, seal], invariants=[never_sealed],
            action_constraint=order_kept, deadlock_expected=True)
