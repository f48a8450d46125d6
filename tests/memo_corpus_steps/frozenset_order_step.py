"""A step property that compares how the parent's and the successor's sets iterate.

``Seal`` rebuilds the set of members (largest first) while it seals the
state; the property says a step that keeps the members keeps their order,
``tuple(s.members) == tuple(t.members)``.  ``{0} | {8}`` and
``frozenset([8, 0])`` are equal, but 0 and 8 share a slot in the smallest
table, so the member added first iterates first.  The spec's own code gives
the property the successor as the action built it; a fast path that keeps
one value per equal set hands it the set met first.  ``Seal`` is enabled at
one point of a wide grid, deep in the search.

The checker rejects the spec before the search, on every path: the
property's verdict on a step changes when the step's states are built in
another order, so equal steps have no one answer (any step that keeps a
two-member set shows it, long before ``Seal``).
"""

from typing import NamedTuple

import attrs

from modelcheck import Domain, Spec, action, constant, step_property

EXPECTED = "error"
REJECTED = "depends on the order in which a frozenset iterates"
PROPERTY = "OrderKept"
ITEM = Domain("item", lambda c: (0, 8), str)


@attrs.frozen
class Config:
    Size: int = constant(5, "the largest coordinate", minimum=3, maximum=8)


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
    if s.sealed or (s.a, s.b, s.d) != (2, c.Size, 3) or len(s.members) < 2:
        return None
    return State(frozenset(sorted(s.members, reverse=True)), s.a, s.b, s.d, True)


@step_property("OrderKept", "A step that keeps the members keeps the order they are listed in.")
def order_kept(c, s, t):
    return s.members != t.members or tuple(s.members) == tuple(t.members)


SPEC = Spec(name="frozenset-order-step", title="set iteration order in a step property", constants=Config,
            init=init, actions=[join, move_a, move_b, move_d, seal], properties=[order_kept],
            deadlock_expected=True)
