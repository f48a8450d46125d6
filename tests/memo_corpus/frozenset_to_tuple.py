"""``tuple(s.members)`` stored in the successor: two equal frozensets, built in another order, give different tuples.

The same iteration-order trap as ``frozenset_order_via``, with the order
written into the state instead of tested: ``(8, 0)`` and ``(0, 8)`` are
different successors, so the state counts differ if a fast path reuses the
tuple made from one set for the other, equal set; the set built 8-first
is met first, and only the other one's tuple starts with 0.

The checker rejects such a spec before the search, on every path: its
answers follow the order in which a frozenset iterates, so equal states
(which the checker treats as one) have no one answer, and which of them an
engine expands is not the spec's to choose.
"""

from typing import NamedTuple

import attrs

from modelcheck import Spec, action, constant, invariant

EXPECTED = "error"


@attrs.frozen
class Config:
    Big: int = constant(8, "the value that shares a slot with 0", minimum=8, maximum=8)


class State(NamedTuple):
    members: frozenset
    via: int
    order: tuple


def init(c):
    return [State(members=frozenset(), via=0, order=())]


@action("BigFirst")
def big_first(c, s):
    if s.via:
        return None
    return s._replace(members=frozenset((c.Big, 0)), via=1)


@action("ZeroFirst")
def zero_first(c, s):
    if s.via:
        return None
    return s._replace(members=frozenset((0, c.Big)), via=2)


@action("Freeze")
def freeze(c, s):
    if not s.members or s.order:
        return None
    return s._replace(order=tuple(s.members))


@invariant("ZeroNeverFirst", "A frozen order never starts with 0.")
def zero_never_first(c, s):
    return s.order[:1] != (0,)


SPEC = Spec(name="frozenset-to-tuple", title="a frozenset's order written into the state", constants=Config,
            init=init, actions=[big_first, zero_first, freeze], invariants=[zero_never_first], deadlock_expected=True)
